/*
 * sync: diff's run (diff_run.c) with a verdict function that turns each
 * difference into a write of the target table. Nothing here compares: the
 * records are matched and judged by the diff alone, so sync and diff can
 * never disagree on what differs.
 *
 * Deletes go out as they are found; puts are kept in a spill file and sent
 * once the comparison is over. A delete and a put can meet on one key: the
 * target's item there matches another entity than the source's record
 * encoded to that key, or none (its type attribute spoiled), so the diff
 * finds it only in B and the record only in A, in buckets of different
 * rows, in no set order. The put must land last, and the writer keeps the
 * order of the writes of one key, so every delete is queued before the first
 * put. A file, not memory: the puts are as many as the records.
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ddbpipe/canon.h"
#include "ddbpipe/clock.h"
#include "ddbpipe/cost.h"
#include "ddbpipe/json.h"
#include "ddbpipe/rejects.h"
#include "ddbpipe/sync.h"
#include "ddbpipe/transform.h"

/* One ddb_sync_run: the caller's hooks it wraps, and the writer it feeds. */
typedef struct sync_job {
    const ddb_sync_run_options *o;
    ddb_sync_outcome *out;
    ddb_client *client;            /* the target's, from the caller's connect hook */
    const ddb_mapping *target_map; /* side B's plan's, while the comparison runs */
    int same_mapping;              /* both sides read with the same mapping (or none) */
    int ready;
    ddb_table_info *info;
    ddb_output *writer; /* NULL in a dry run */
    ddb_rejects *rejects;
    int rejects_rc; /* the first failure to write a reject (a callback cannot return it) */
    ddb_error rejects_err;
    FILE *puts;   /* the items to put, one canonical DynamoDB JSON line each (not in a dry run) */
    ddb_buf line; /* one of them */
    ddb_json_parser *parser;
    ddb_arena *arena;
    double told_at; /* when o->writing was last called */
} sync_job;

static int connect_hook(void *ctx, int side, ddb_client **client)
{
    sync_job *j = ctx;
    const ddb_diff_hooks *h = &j->o->diff.hooks;
    int rc = h->connect(h->ctx, side, client);
    if (rc == 0 && side == 1)
        j->client = *client; /* the writes go where side B was read */
    return rc;
}

static void reading_hook(void *ctx, int side, ddb_run_plan *plan, ddb_client *client)
{
    sync_job *j = ctx;
    const ddb_diff_hooks *h = &j->o->diff.hooks;
    if (h->reading)
        h->reading(h->ctx, side, plan, client);
}

/* The target's mapping is its plan's, which lives until the comparison ends. */
static int read_hook(void *ctx, int side, ddb_run_plan *plan, int rc, const ddb_summary *s,
                     const ddb_error *err)
{
    sync_job *j = ctx;
    const ddb_diff_hooks *h = &j->o->diff.hooks;
    if (side == 1)
        j->target_map = ddb_run_plan_mapping(plan);
    return h->read ? h->read(h->ctx, side, plan, rc, s, err) : 0;
}

/* ---------------------------------------------------------------- writer */

static void on_ack(void *ctx, int entity, ddb_record_kind kind, uint64_t seq)
{
    sync_job *j = ctx;
    (void)entity;
    (void)seq;
    if (kind == DDB_REC_DELETE)
        j->out->st.deleted++;
    else
        j->out->st.put++;
}

static void on_reject(void *ctx, int entity, const ddb_reject_info *info)
{
    sync_job *j = ctx;
    (void)entity;
    j->out->st.refused++;
    if (j->rejects_rc == 0)
        j->rejects_rc = ddb_rejects_write_info(j->rejects, info, NULL, &j->rejects_err);
}

/* o->writing, about once a second: from each write, and from the client
 * while the writer waits for DynamoDB. */
static void tick(sync_job *j)
{
    double now = ddb_clock_seconds();
    if (j->o->writing == NULL || now - j->told_at < 1.0)
        return;
    ddb_table_output_stats(j->writer, &j->out->st.writes);
    j->o->writing(j->o->writing_ctx, &j->out->st);
    j->told_at = now;
}

static void on_idle(void *ctx)
{
    tick(ctx);
}

/* The spill file of the puts, in the output folder, already unlinked: it
 * goes with the process whatever happens. */
static int open_spill(sync_job *j, ddb_error *err)
{
    char path[4200];
    int fd;
    snprintf(path, sizeof(path), "%s/.ddbpipe-sync-puts-XXXXXX", j->out->diff.out_dir);
    fd = mkstemp(path);
    if (fd >= 0 && (j->puts = fdopen(fd, "w+b")) == NULL)
        close(fd);
    if (j->puts == NULL) {
        int e = errno;
        if (fd >= 0)
            unlink(path);
        return ddb_error_set(err, DDB_EIO, "cannot make %s: %s", path, strerror(e));
    }
    unlink(path);
    return 0;
}

/* OUT/_rejects_sync.ndjson (made only when a line is written; finishing
 * it removes one an earlier sync left there). */
static int open_rejects(sync_job *j, ddb_error *err)
{
    if (j->rejects != NULL)
        return 0;
    snprintf(j->out->rejects, sizeof(j->out->rejects), "%s/_rejects_sync.ndjson",
             j->out->diff.out_dir);
    return ddb_rejects_new(&j->rejects, j->out->rejects, err);
}

/* The first difference: the target described, the rejects file and (unless
 * a dry run) the writer made. Later than the comparison's start, so a run
 * with nothing to write never describes the table. */
static int get_ready(sync_job *j, ddb_error *err)
{
    const ddb_sync_opts *so = &j->o->sync;
    ddb_table_output_opts to;
    int rc;
    if (j->ready)
        return 0;
    if ((rc = open_rejects(j, err)) != 0 ||
        (rc = ddb_table_describe(&j->info, j->client, j->o->diff.side[1].scan_table, err)) != 0)
        return rc;
    j->ready = 1;
    j->out->st.target_indexes = (long)j->info->n_indexes;
    if (j->info->billing_mode != NULL && strcmp(j->info->billing_mode, "PROVISIONED") == 0)
        j->out->st.target_provisioned_wcu = j->info->write_capacity;
    if (so->dry_run)
        return 0;
    if ((rc = open_spill(j, err)) != 0)
        return rc;
    memset(&to, 0, sizeof(to));
    to.client = j->client;
    to.table = j->o->diff.side[1].scan_table;
    to.info = j->info;
    to.max_attempts = so->max_attempts;
    to.max_wcu = so->max_wcu;
    to.shuffle_window = so->shuffle_window;
    if ((rc = ddb_table_output_new(&j->writer, &to, err)) != 0)
        return rc;
    j->writer->ack = on_ack;
    j->writer->reject = on_reject;
    j->writer->ack_ctx = j;
    ddb_client_set_idle(j->client, on_idle, j);
    return 0;
}

/* A difference that cannot be written: counted, and its line (the record,
 * or the key to delete, and why) in the sync rejects file. */
static int refuse(sync_job *j, const ddb_diff_verdict *v, const char *why, ddb_error *err)
{
    ddb_reject_info info;
    int is_delete = v->kind == DDB_DIFF_ONLY_B || v->kind == DDB_DIFF_REPEATED_B;
    memset(&info, 0, sizeof(info));
    info.source = "sync";
    info.reason = why;
    info.item_json = is_delete ? v->b : v->a;
    info.item_len = is_delete ? v->b_len : v->a_len;
    info.is_delete = is_delete;
    j->out->st.refused++;
    return ddb_rejects_write_info(j->rejects, &info, v->entity, err);
}

/* A put, into the spill file (see the top of the file). */
static int spill_put(sync_job *j, const ddb_map *item, ddb_error *err)
{
    ddb_dry_run_stats *e = &j->out->st.estimate;
    size_t size = ddb_item_size(item);
    uint64_t index_wcu;
    j->out->st.to_put++;
    e->puts++;
    e->bytes += size;
    e->wcu += ddb_cost_put_units(item, size, j->info, &index_wcu);
    e->index_wcu += index_wcu;
    if (j->puts == NULL)
        return 0;
    ddb_buf_clear(&j->line);
    ddb_canon_map(&j->line, item);
    ddb_buf_putc(&j->line, '\n');
    if (j->line.oom)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    if (fwrite(j->line.ptr, 1, j->line.len, j->puts) != j->line.len)
        return ddb_error_set(err, DDB_EIO, "cannot keep the items to put: %s", strerror(errno));
    return 0;
}

/* A write to the target, now (a put from the spill file, or a delete). */
static int send(sync_job *j, const ddb_map *item, ddb_record_kind kind, ddb_error *err)
{
    int rc = j->writer->vt->put(j->writer, -1, kind, item, 0, NULL, err);
    if (rc == 0 && j->rejects_rc != 0)
        return ddb_error_set(err, j->rejects_rc, "%s", j->rejects_err.message);
    if (rc == 0)
        tick(j);
    return rc;
}

/* Side A's record (or item) as the target's item, put. */
static int put_source(sync_job *j, const ddb_diff_verdict *v, ddb_error *err)
{
    const ddb_entity *te;
    ddb_map rec;
    ddb_item item;
    ddb_error why;
    int rc = ddb_json_parse_typed_map(j->parser, &rec, v->a, v->a_len, j->arena, err);
    if (rc != 0)
        return rc;
    if (v->is_item) {
        if (!j->same_mapping)
            return refuse(j, v,
                          "the item matches no entity of the source's mapping: re-keyed, it "
                          "has no place in the target",
                          err);
        return spill_put(j, &rec, err);
    }
    if (j->target_map == NULL || (te = ddb_mapping_entity(j->target_map, v->entity)) == NULL) {
        snprintf(why.message, sizeof(why.message), "entity %s is not in the target's mapping",
                 v->entity);
        return refuse(j, v, why.message, err);
    }
    rc = ddb_transform_encode(&item, j->target_map, te, &rec, 1, j->arena, &why);
    if (rc == DDB_ENOMEM)
        return ddb_error_set(err, rc, "out of memory");
    if (rc != 0)
        return refuse(j, v, why.message, err);
    return spill_put(j, &item, err);
}

/* Side B's item the source lacks, deleted by its key (or kept). */
static int delete_extra(sync_job *j, const ddb_diff_verdict *v, ddb_error *err)
{
    ddb_map key;
    int rc;
    if (j->o->sync.no_delete) {
        j->out->st.kept++;
        return 0;
    }
    if (v->b_key == NULL)
        return refuse(j, v, "the target's item has no key to delete it by", err);
    if ((rc = ddb_json_parse_typed_map(j->parser, &key, v->b_key, v->b_key_len, j->arena, err)) !=
        0)
        return rc;
    j->out->st.to_delete++;
    j->out->st.estimate.deletes++;
    j->out->st.estimate.wcu++;
    return j->writer != NULL ? send(j, &key, DDB_REC_DELETE, err) : 0;
}

static int on_verdict(void *ctx, const ddb_diff_verdict *v, ddb_error *err)
{
    sync_job *j = ctx;
    volatile sig_atomic_t *stop = j->o->diff.side[1].stop;
    int rc;
    if (stop != NULL && *stop)
        return ddb_error_set(err, DDB_EINTR, "interrupted");
    if ((rc = get_ready(j, err)) != 0)
        return rc;
    ddb_arena_reset(j->arena);
    /* a repeated key of the target is an item too many, like one the source lacks */
    return v->kind == DDB_DIFF_ONLY_B || v->kind == DDB_DIFF_REPEATED_B ? delete_extra(j, v, err)
                                                                        : put_source(j, v, err);
}

/* ------------------------------------------------------------------- run */

static int same_path(const char *a, const char *b)
{
    return (a == NULL && b == NULL) || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

/* The comparison is over, every delete queued: the puts, from the spill file. */
static int send_puts(sync_job *j, ddb_error *err)
{
    volatile sig_atomic_t *stop = j->o->diff.side[1].stop;
    char *text = NULL;
    size_t cap = 0;
    ssize_t n;
    int rc = 0;
    if (j->puts == NULL)
        return 0;
    if (fflush(j->puts) != 0 || fseek(j->puts, 0, SEEK_SET) != 0)
        return ddb_error_set(err, DDB_EIO, "cannot read back the items to put: %s",
                             strerror(errno));
    while (rc == 0 && (n = getline(&text, &cap, j->puts)) > 0) {
        ddb_map item;
        if (stop != NULL && *stop) {
            rc = ddb_error_set(err, DDB_EINTR, "interrupted");
            break;
        }
        ddb_arena_reset(j->arena);
        if ((rc = ddb_json_parse_typed_map(j->parser, &item, text, (size_t)n - 1, j->arena, err)) ==
            0)
            rc = send(j, &item, DDB_REC_PUT, err);
    }
    if (rc == 0 && ferror(j->puts))
        rc = ddb_error_set(err, DDB_EIO, "cannot read back the items to put");
    free(text);
    return rc;
}

/* The writer finished (every write answered) and the rejects file committed;
 * after a failure, what is in flight is waited for and the rest dropped. */
static int settle(sync_job *j, int rc, ddb_error *err)
{
    ddb_error e2;
    int rc2 = 0;
    if (j->writer != NULL) {
        if (rc == 0)
            rc = j->writer->vt->finish(j->writer, err);
        else if (j->writer->vt->stop)
            (void)j->writer->vt->stop(j->writer, &e2);
        ddb_table_output_stats(j->writer, &j->out->st.writes);
        ddb_client_set_idle(j->client, NULL, NULL);
    }
    if (rc == 0 && j->rejects_rc != 0)
        rc = ddb_error_set(err, j->rejects_rc, "%s", j->rejects_err.message);
    if (rc == 0)
        rc2 = open_rejects(j, err); /* nothing differed: a stale file goes */
    if (rc2 == 0 && j->rejects != NULL)
        rc2 = ddb_rejects_finish(j->rejects, rc == 0 ? err : &e2);
    if (rc == 0 && rc2 != 0) {
        j->out->diff.step = DDB_DIFF_COMPARE;
        rc = rc2;
    }
    return rc;
}

int ddb_sync_run(ddb_sync_outcome *out, const ddb_sync_run_options *o, ddb_error *err)
{
    ddb_diff_run_options dro;
    sync_job j;
    int rc;

    assert(out != NULL && o != NULL && o->diff.hooks.connect != NULL);
    assert(o->diff.side[1].scan_table != NULL);
    memset(out, 0, sizeof(*out));
    memset(&j, 0, sizeof(j));
    j.o = o;
    j.out = out;
    j.same_mapping = same_path(o->diff.side[0].mapping_path, o->diff.side[1].mapping_path);
    j.told_at = ddb_clock_seconds();
    if (ddb_json_parser_new(&j.parser) != 0 || ddb_arena_new(&j.arena, 0) != 0) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        out->diff.step = DDB_DIFF_SETUP;
        goto done;
    }
    dro = o->diff;
    dro.hooks.ctx = &j;
    dro.hooks.connect = connect_hook;
    dro.hooks.reading = reading_hook;
    dro.hooks.read = read_hook;
    dro.diff.verdict = on_verdict;
    dro.diff.verdict_ctx = &j;
    dro.diff.keep_b_keys = 1;
    rc = ddb_diff_run(&out->diff, &dro, err);
    if (rc == 0 && (rc = send_puts(&j, err)) != 0)
        out->diff.step = DDB_DIFF_COMPARE;
    if (rc == 0)
        rc = settle(&j, 0, err);
    else
        (void)settle(&j, rc, err);
done:
    if (j.puts != NULL)
        fclose(j.puts);
    ddb_buf_dispose(&j.line);
    ddb_output_free(j.writer);
    ddb_rejects_free(j.rejects);
    ddb_table_info_free(j.info);
    ddb_json_parser_free(j.parser);
    ddb_arena_free(j.arena);
    return rc;
}

void ddb_sync_outcome_dispose(ddb_sync_outcome *out)
{
    if (out == NULL)
        return;
    ddb_diff_outcome_dispose(&out->diff);
}
