/*
 * live.c — the stream side of `migrate --live` (live.h): the position taken
 * before the snapshot, and the rounds that replay and follow the shards. The
 * state file that keeps the position is live_state.c's; one record's meaning
 * for the target is live_change.c's.
 *
 * A round reads one page from every shard that may be read (its parent is
 * done), hands the changes to the table writer (which keeps a key's writes
 * in order and batches the rest), waits until all are written, and only
 * then moves the saved position: a kill at any moment replays at most one
 * round, and replaying is harmless (live.h says why).
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ddbpipe/clock.h"
#include "ddbpipe/fs.h"
#include "ddbpipe/json.h"
#include "ddbpipe/output_table.h"
#include "run/live_internal.h"
#include "run/run_internal.h"

/* Records a GetRecords may bring: the most DynamoDB Streams allows. */
#define PAGE_LIMIT 1000
/* How often the shard list is read again while following (new shards
 * appear as DynamoDB splits or rolls them, about every four hours). */
#define DESCRIBE_EVERY_S 10.0

static void note(live *l, const char *fmt, const char *a)
{
    char msg[512];
    if (l->o.note == NULL)
        return;
    snprintf(msg, sizeof(msg), fmt, a);
    l->o.note(l->o.note_ctx, msg);
}

/* ------------------------------------------------------------- position */

/* Waits secs, in short naps so a signal is heard at once. */
static int nap(live *l, double secs)
{
    struct timespec ts = {0, 50 * 1000 * 1000};
    for (double slept = 0; slept < secs; slept += 0.05) {
        if (l->o.stop && *l->o.stop)
            return DDB_EINTR;
        nanosleep(&ts, NULL);
    }
    return l->o.stop && *l->o.stop ? DDB_EINTR : 0;
}

/* The iterator to read s from: after its position, or its start. */
static int ensure_iterator(live *l, live_shard *s, ddb_error *err)
{
    if (s->iter != NULL)
        return 0;
    return s->seq ? ddb_stream_iterator(&s->iter, l->streams, l->arn, s->id, DDB_ITER_AFTER_SEQ,
                                        s->seq, err)
                  : ddb_stream_iterator(&s->iter, l->streams, l->arn, s->id, DDB_ITER_TRIM_HORIZON,
                                        NULL, err);
}

/* Reads an open shard from its oldest record to its end, only to learn the
 * last sequence number: the replay starts after it. The end is where a page
 * comes back empty; stopping early only means replaying more. */
static int skip_to_end(live *l, live_shard *s, ddb_error *err)
{
    int rc = 0, expired = 0;
    /* from the start, or (an iterator that expired) after what was read */
    while (rc == 0 && (rc = ensure_iterator(l, s, err)) == 0) {
        ddb_stream_page *p = NULL;
        rc = ddb_stream_get_records(&p, l->streams, s->iter, PAGE_LIMIT, err);
        if (rc == DDB_STREAM_THROTTLED) {
            rc = nap(l, 0.5); /* read too often: the same iterator, a little later */
            continue;
        }
        if (rc == DDB_STREAM_EXPIRED && expired++ == 0) {
            free(s->iter);
            s->iter = NULL;
            rc = 0;
            continue;
        }
        if (rc != 0)
            break;
        expired = 0;
        if (p->n_records > 0 && live_set_str(&s->seq, p->records[p->n_records - 1].seq) != 0)
            rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        free(s->iter);
        s->iter = p->n_records > 0 ? p->next_iterator : NULL; /* empty: the end, for now */
        if (s->iter == p->next_iterator)
            p->next_iterator = NULL;
        ddb_stream_page_free(p);
        if (s->iter == NULL)
            break;
    }
    /* the replay gets its own iterator after the copy: this one would expire */
    free(s->iter);
    s->iter = NULL;
    if (rc == DDB_EINTR)
        rc = ddb_error_set(err, DDB_EINTR, "interrupted");
    if (rc == DDB_STREAM_EXPIRED) /* twice in a row: a fresh iterator, used at once */
        rc = ddb_error_set(err, DDB_ENET, "GetRecords of shard %s: the iterator expired", s->id);
    return rc;
}

/* The shards as they are now; known ones keep their position. New ones
 * start at their oldest record (with initial: open ones at their end, and
 * closed ones are done, their changes older than the snapshot). */
static int refresh_shards(live *l, int initial, ddb_error *err)
{
    ddb_stream_desc *d = NULL;
    int rc = ddb_stream_describe(&d, l->streams, l->arn, err);
    for (size_t i = 0; rc == 0 && i < d->n_shards; i++) {
        const ddb_stream_shard *x = &d->shards[i];
        live_shard *s;
        if (live_find_shard(l, x->id) != NULL)
            continue;
        if ((s = live_add_shard(l, x->id, x->parent)) == NULL) {
            rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
            break;
        }
        if (initial && x->end_seq != NULL)
            s->done = 1;
        else if (initial)
            rc = skip_to_end(l, s, err);
    }
    ddb_stream_desc_free(d);
    l->last_describe = ddb_clock_seconds();
    return rc;
}

/* The stream is on and shows what the mappings need. */
static int check_stream(live *l, ddb_error *err)
{
    ddb_stream_spec sp;
    ddb_buf why = DDB_BUF_INIT;
    int rc = ddb_stream_spec_get(&sp, l->o.client, l->o.source_table, err);
    if (rc != 0)
        return rc;
    if (!sp.enabled) {
        rc = ddb_error_set(err, DDB_EUSAGE,
                           "the table %s has no stream enabled: a live migration replays it; "
                           "turn it on with: aws dynamodb update-table --table-name %s "
                           "--stream-specification "
                           "StreamEnabled=true,StreamViewType=NEW_AND_OLD_IMAGES",
                           l->o.source_table, l->o.source_table);
    } else if (live_check_view(l, sp.view_type, &why) > 0) {
        rc = ddb_error_set(err, DDB_EUSAGE,
                           "the stream of %s is %s, without old images, but a change can move "
                           "an item to another key of the target (%s), and only the old image "
                           "tells which target item to delete; switch the stream to "
                           "NEW_AND_OLD_IMAGES (aws dynamodb update-table --table-name %s "
                           "--stream-specification StreamEnabled=false, then "
                           "StreamEnabled=true,StreamViewType=NEW_AND_OLD_IMAGES)",
                           l->o.source_table, sp.view_type, why.oom ? "?" : why.ptr,
                           l->o.source_table);
    }
    snprintf(l->view, sizeof(l->view), "%s", sp.view_type);
    if (rc == 0 && live_set_str(&l->arn, sp.arn) != 0)
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
    ddb_stream_spec_dispose(&sp);
    ddb_buf_dispose(&why);
    return rc;
}

/* The target refused a write (an item too large for it, say): counted, and
 * kept in the rejects file with DynamoDB's reason. A file that cannot be
 * written is told at the end of the round (set_aside's error). */
static void reject_change(void *ctx, int entity, const ddb_reject_info *info)
{
    live *l = ctx;
    ddb_buf *b = &l->reject_line;
    (void)entity;
    l->write_failed++;
    if (l->rejects == NULL && (l->rejects = live_open_side(l->rejects_path)) == NULL) {
        l->reject_io = 1;
        return;
    }
    b->len = 0;
    ddb_buf_printf(b, "{\"%s\":", info->is_delete ? "delete" : "put");
    ddb_buf_append(b, info->item_json, info->item_len);
    ddb_buf_puts(b, ",\"reason\":");
    ddb_json_put_text(b, info->reason, strlen(info->reason));
    ddb_buf_puts(b, "}\n");
    if (b->oom || fwrite(b->ptr, 1, b->len, l->rejects) != b->len || fflush(l->rejects) != 0)
        l->reject_io = 1;
}

/* The writer into the target, and the arena the rounds use. */
static int open_writer(live *l, ddb_error *err)
{
    ddb_table_output_opts to;
    ddb_client *c = l->o.target_client ? l->o.target_client : l->o.client;
    int rc = ddb_table_describe(&l->target_info, c, l->o.target_table, err);
    if (rc != 0)
        return rc;
    memset(&to, 0, sizeof(to));
    to.client = c;
    to.table = l->o.target_table;
    to.info = l->target_info;
    to.max_wcu = l->o.max_wcu;
    if ((rc = ddb_table_output_new(&l->out, &to, err)) != 0)
        return rc;
    l->out->reject = reject_change;
    l->out->ack_ctx = l;
    if (ddb_arena_new(&l->arena, 0) != 0)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    return 0;
}

FILE *live_open_side(const char *path)
{
    FILE *f = fopen(path, "a");
    char *dir;
    ddb_error ignored;
    if (f != NULL || errno != ENOENT || strchr(path, '/') == NULL || (dir = strdup(path)) == NULL)
        return f;
    *strrchr(dir, '/') = '\0';
    if (ddb_make_dirs(dir, &ignored) == 0)
        f = fopen(path, "a");
    free(dir);
    return f;
}

/* base + suffix, malloc'd. */
static char *concat(const char *base, const char *suffix)
{
    char *p = malloc(strlen(base) + strlen(suffix) + 1);
    return p ? strcat(strcpy(p, base), suffix) : NULL;
}

/* Where the position and the changes set aside go: beside the state file,
 * or (side files only) in a folder of the run's own under ./ddbpipe-runs/.
 * The copy's side files are its own (a resume cuts them back to what it
 * committed), so these are others. */
static int side_paths(live *l, ddb_error *err)
{
    char *dir = NULL;
    if (l->o.state_path != NULL) {
        l->state_file = concat(l->o.state_path, ".live");
        l->unmatched_path = concat(l->o.state_path, ".live.unmatched.ndjson");
        l->rejects_path = concat(l->o.state_path, ".live.rejects.ndjson");
    } else if ((dir = ddb_run_folder_name(l->o.target_table)) != NULL) {
        l->unmatched_path = concat(dir, "-live/unmatched.ndjson");
        l->rejects_path = concat(dir, "-live/rejects.ndjson");
    }
    free(dir);
    if (l->unmatched_path == NULL || l->rejects_path == NULL ||
        (l->o.state_path != NULL && l->state_file == NULL))
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    return 0;
}

/* Sets up l from o: its files, the Streams client. */
static int init_live(live *l, const ddb_live_opts *o, ddb_error *err)
{
    int rc;
    l->o = *o;
    l->stats.phase = DDB_LIVE_COPY;
    l->stats.lag_s = -1;
    if ((rc = side_paths(l, err)) != 0)
        return rc;
    return ddb_streams_new(&l->streams, o->client, o->streams_endpoint, err);
}

/* The saved position, on the stream the table has now: a stream disabled
 * and enabled again is another stream, and what was written between the
 * two is in neither. */
static int resume_position(live *l, ddb_error *err)
{
    char *now = l->arn;
    int rc;
    l->arn = NULL;
    if ((rc = live_load_state(l, err)) == DDB_ENOTFOUND)
        rc = ddb_error_set(err, DDB_EUSAGE,
                           "--resume: %s does not exist: the stream position was never saved, "
                           "so the run cannot go on exactly; start over",
                           l->state_file);
    else if (rc == 0 && strcmp(now, l->arn) != 0)
        rc = ddb_error_set(err, DDB_ENOTFOUND,
                           "the stream of %s is not the one the position was taken on (%s, now "
                           "%s): it was turned off and on again, and changes made in between "
                           "are in neither; start the live migration over (without --resume)",
                           l->o.source_table, l->arn, now);
    free(now);
    return rc;
}

int ddb_live_prepare(ddb_live **out, const ddb_live_opts *o, ddb_error *err)
{
    live *l = calloc(1, sizeof(*l));
    int rc;

    assert(o->client && o->source_table && o->target_table && o->mapping && o->to_mapping);
    *out = NULL;
    if (l == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    if ((rc = init_live(l, o, err)) != 0 || (rc = check_stream(l, err)) != 0)
        goto done;
    if (o->resume && l->state_file != NULL) {
        rc = resume_position(l, err);
    } else {
        note(l, "taking the stream position of %s before the copy", o->source_table);
        if ((rc = refresh_shards(l, 1, err)) == 0)
            rc = live_save_state(l, err);
    }
done:
    if (rc != 0)
        ddb_live_free((ddb_live *)l);
    else
        *out = (ddb_live *)l;
    return rc;
}

/* --------------------------------------------------------------- rounds */

/* A round's reads: one GetRecords per readable shard, all in flight at once
 * on the client's loop (their pages are applied afterwards, shard by shard,
 * so a shard's records stay in sequence). */
typedef struct round {
    live_shard **shards; /* pointers into l->shards, which does not grow in a round */
    ddb_stream_fetch *f;
    size_t n;
} round;

static int all_fetched(void *ctx)
{
    const round *r = ctx;
    for (size_t i = 0; i < r->n; i++)
        if (!r->f[i].finished)
            return 0;
    return 1;
}

static void round_free(live *l, round *r)
{
    for (size_t i = 0; i < r->n; i++) {
        if (!r->f[i].finished) /* interrupted: its answer must not come to freed memory */
            ddb_client_forget(l->o.client, &r->f[i]);
        ddb_stream_page_free(r->f[i].page);
    }
    free(r->shards);
    free(r->f);
}

/* Sends a GetRecords for every readable shard and waits for all answers. */
static int fetch_all(live *l, round *r, ddb_error *err)
{
    size_t cap = 0;
    int rc = 0;
    for (size_t i = 0; i < l->n_shards; i++)
        cap += live_readable(l, &l->shards[i]);
    if (cap == 0)
        return 0;
    if ((r->shards = calloc(cap, sizeof(*r->shards))) == NULL ||
        (r->f = calloc(cap, sizeof(*r->f))) == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    for (size_t i = 0; i < l->n_shards && rc == 0; i++) {
        live_shard *s = &l->shards[i];
        if (!live_readable(l, s))
            continue;
        if ((rc = ensure_iterator(l, s, err)) == DDB_ENOTFOUND)
            ddb_error_prefix(err, "shard %s: ", s->id);
        else if (rc == 0 && (rc = ddb_stream_fetch_submit(&r->f[r->n], l->streams, s->iter,
                                                          PAGE_LIMIT, err)) == 0)
            r->shards[r->n++] = s;
    }
    /* on a failure, what was sent is forgotten (round_free) */
    return rc == 0 && r->n > 0 ? ddb_client_run(l->o.client, all_fetched, r, err) : rc;
}

/* Shard s's page from its fetch (*p NULL: none this round, the shard was
 * read too often). An iterator held past its 15 minutes (a round that
 * waited long on the writes) is asked for again from the position, which
 * is where it stood: nothing of the shard was applied since. */
static int take_page(ddb_stream_page **p, live *l, live_shard *s, ddb_stream_fetch *f,
                     ddb_error *err)
{
    int rc = f->rc;
    *p = f->page;
    f->page = NULL;
    if (rc == DDB_STREAM_THROTTLED)
        return 0; /* no page: this shard sits this round out, its iterator kept */
    if (rc == DDB_STREAM_EXPIRED) {
        assert(s->pending == NULL);
        free(s->iter);
        s->iter = NULL;
        if ((rc = ensure_iterator(l, s, err)) == 0)
            rc = ddb_stream_get_records(p, l->streams, s->iter, PAGE_LIMIT, err);
        if (rc == DDB_STREAM_THROTTLED)
            rc = 0; /* the fresh iterator is read next round */
        if (rc == DDB_STREAM_EXPIRED)
            rc = ddb_error_set(err, DDB_ENET, "GetRecords: a fresh iterator expired at once");
    } else if (rc != 0) {
        ddb_error_set(err, rc, "%s", f->err.message);
    }
    if (rc == DDB_ENOTFOUND)
        ddb_error_prefix(err, "shard %s: ", s->id);
    return rc;
}

/* Shard s's page applied (written once the round settles). */
static int apply_page(live *l, live_shard *s, ddb_stream_page *p, size_t *got, ddb_error *err)
{
    int rc = 0;
    for (size_t i = 0; i < p->n_records && rc == 0; i++)
        if ((rc = live_apply_change(l, &p->records[i], err)) == 0) {
            l->created_last = p->records[i].created;
            if (live_set_str(&s->pending, p->records[i].seq) != 0)
                rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        }
    *got += p->n_records;
    s->quiet = p->n_records == 0;
    free(s->iter);
    s->iter = p->next_iterator; /* NULL: closed, read to its end */
    p->next_iterator = NULL;
    s->closing = s->iter == NULL;
    return rc;
}

/* Everything handed to the writer is written: the position moves on. */
static int settle_round(live *l, ddb_error *err)
{
    int rc = l->out->vt->finish(l->out, err), moved = 0;
    if (rc != 0)
        return rc;
    if (l->reject_io)
        return ddb_error_set(err, DDB_EIO, "cannot write %s", l->rejects_path);
    for (size_t i = 0; i < l->n_shards; i++) {
        live_shard *s = &l->shards[i];
        if (s->pending != NULL) {
            free(s->seq);
            s->seq = s->pending;
            s->pending = NULL;
            moved = 1;
        }
        if (s->closing && !s->done)
            s->done = moved = 1;
    }
    ddb_arena_reset(l->arena);
    return moved ? live_save_state(l, err) : 0;
}

/* One round over every readable shard. *got: records read. */
static int one_round(live *l, size_t *got, int *all_quiet, ddb_error *err)
{
    round r = {NULL, NULL, 0};
    int rc = fetch_all(l, &r, err);
    *got = 0;
    *all_quiet = 1;
    for (size_t i = 0; i < r.n && rc == 0; i++) {
        live_shard *s = r.shards[i];
        ddb_stream_page *p = NULL;
        if ((rc = take_page(&p, l, s, &r.f[i], err)) == 0 && p != NULL)
            rc = apply_page(l, s, p, got, err);
        else if (rc == 0)
            s->quiet = 1;
        ddb_stream_page_free(p);
        *all_quiet &= s->quiet || s->closing;
    }
    round_free(l, &r);
    if (rc == 0)
        rc = settle_round(l, err);
    return rc;
}

static void report(live *l, int force)
{
    double now = ddb_clock_seconds(), dt = now - l->last_report;
    unsigned open = 0, done = 0;
    if (l->o.progress == NULL || (!force && dt < 1.0))
        return;
    for (size_t i = 0; i < l->n_shards; i++)
        l->shards[i].done ? done++ : open++;
    l->stats.shards_open = open;
    l->stats.shards_done = done;
    l->stats.rate = dt > 0 ? (double)(l->stats.changes - l->changes_at_report) / dt : 0;
    l->stats.seconds = now - l->started;
    if (l->caught_up) {
        l->stats.lag_s = 0; /* every shard read up to now */
    } else if (l->created_last > 0) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        l->stats.lag_s = (double)ts.tv_sec + ts.tv_nsec / 1e9 - l->created_last;
        if (l->stats.lag_s < 0)
            l->stats.lag_s = 0;
    }
    l->changes_at_report = l->stats.changes;
    l->last_report = now;
    l->o.progress(l->o.progress_ctx, &l->stats);
}

/* Interrupted: what is in flight is answered, the position is the last
 * settled round's (already saved). */
static int interrupted(live *l, ddb_error *err)
{
    ddb_error ignored;
    if (l->out->vt->stop)
        (void)l->out->vt->stop(l->out, &ignored);
    return ddb_error_set(err, DDB_EINTR, "interrupted");
}

static int follow(live *l, ddb_error *err)
{
    double poll = l->o.poll_s > 0 ? l->o.poll_s : 0.25;
    int rc = 0;
    l->last_change_at = ddb_clock_seconds();
    for (;;) {
        size_t got;
        int quiet;
        double now;
        if (l->o.stop && *l->o.stop)
            return interrupted(l, err);
        if (ddb_clock_seconds() - l->last_describe >= DESCRIBE_EVERY_S &&
            (rc = refresh_shards(l, 0, err)) != 0)
            break;
        if ((rc = one_round(l, &got, &quiet, err)) != 0)
            break;
        now = ddb_clock_seconds();
        if (got > 0)
            l->last_change_at = now;
        l->caught_up = quiet;
        if (quiet && l->stats.phase == DDB_LIVE_CATCH_UP) {
            l->stats.phase = DDB_LIVE_FOLLOW;
            report(l, 1);
        }
        report(l, 0);
        if (quiet && l->o.stop_when_idle > 0 && now - l->last_change_at >= l->o.stop_when_idle)
            break;
        if (quiet && (rc = nap(l, poll)) != 0)
            return interrupted(l, err);
    }
    if (rc == DDB_EINTR)
        return interrupted(l, err);
    return rc;
}

int ddb_live_run(ddb_live *lv, ddb_live_stats *s, ddb_error *err)
{
    live *l = (live *)lv;
    int rc;
    /* the target may have been created by the copy, after the position */
    if (l->out == NULL && (rc = open_writer(l, err)) != 0)
        return rc;
    l->started = l->last_report = ddb_clock_seconds();
    l->stats.phase = DDB_LIVE_CATCH_UP;
    report(l, 1);
    rc = follow(l, err);
    l->stats.rejected += l->write_failed;
    l->write_failed = 0;
    l->stats.unmatched_file = l->unmatched ? l->unmatched_path : NULL;
    l->stats.rejects_file = l->rejects ? l->rejects_path : NULL;
    report(l, 1);
    *s = l->stats;
    return rc;
}

void ddb_live_free(ddb_live *lv)
{
    live *l = (live *)lv;
    if (l == NULL)
        return;
    for (size_t i = 0; i < l->n_shards; i++) {
        free(l->shards[i].id);
        free(l->shards[i].parent);
        free(l->shards[i].seq);
        free(l->shards[i].pending);
        free(l->shards[i].iter);
    }
    free(l->shards);
    ddb_output_free(l->out);
    ddb_table_info_free(l->target_info);
    ddb_arena_free(l->arena);
    ddb_buf_dispose(&l->scratch);
    ddb_buf_dispose(&l->reject_line);
    if (l->unmatched)
        fclose(l->unmatched);
    if (l->rejects)
        fclose(l->rejects);
    ddb_streams_free(l->streams);
    free(l->state_file);
    free(l->unmatched_path);
    free(l->rejects_path);
    free(l->arn);
    free(l);
}
