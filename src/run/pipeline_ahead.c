/*
 * Decoding ahead: an export or a conversion spends most of its time in work
 * that depends on nothing but the item, the mapping and the output's format
 * (parsing, validation, and with a mapping decode, the round-trip check,
 * re-encoding, and formatting the line each file gets). This thread reads
 * records into batches (deep copies, each batch with its own arena: the
 * morsels); the workers (--threads N: N - 1 threads) each take a batch and
 * compute its verdicts and lines; this thread then takes the batches in read
 * order and writes their lines, so the outputs, the rejects, the counts and
 * the checkpoints are exactly those of the one-thread loop in pipeline.c.
 * While the oldest batch is still being computed, this thread computes a
 * later one itself, so it waits only when every batch read is taken.
 *
 * A checkpoint, a stop, the end of the input and every reader error first
 * take every batch read so far: the reader's position is then the committed
 * one, as checkpoints require. So does a pause of the input (a pipe whose
 * writer has nothing for now): the batch being filled is taken as it is, so
 * what came before the pause reaches the outputs (ahead_wait).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/arena.h"
#include "ddbpipe/source.h"
#include "ddbpipe/json.h"
#include "ddbpipe/writer.h"
#include "run/pipeline_internal.h"

#define AHEAD_BATCH 256 /* records per batch, at most */
/* A batch also ends past this much record text: with large items, memory
 * stays bounded by slots x this (and its decoded copies), not x 256 items. */
#define AHEAD_BATCH_BYTES (256 * 1024)
/* Batches read ahead, at most: two per computing thread (one computed, one
 * waiting for it) and four more, so this thread, reading, taking, or computing
 * one itself, rarely leaves a worker without a batch. */
#define AHEAD_SLOTS(threads) (2 * (size_t)(threads) + 4)

enum { SLOT_FREE, SLOT_READY, SLOT_BUSY, SLOT_DONE };

typedef struct slot {
    ddb_arena *arena; /* the records' copies and their verdicts */
    ddb_record rec[AHEAD_BATCH];
    pl_verdict v[AHEAD_BATCH];
    ddb_buf text; /* the records' lines, made ahead (pl_item_format) */
    size_t n;
    size_t bytes;       /* record text in the batch */
    const char *source; /* the copy of the last record's file name, in arena */
    int deletes;        /* its items are keys to delete (pl_read_ctx.item_deletes) */
    int state;
} slot;

/* What a computing thread keeps from batch to batch. */
typedef struct worker {
    struct ahead *a;
    pthread_t thread;
    ddb_shape_cache *shapes;
    ddb_json_parser *parser;
    ddb_format_scratch scratch;
} worker;

typedef struct ahead {
    run *r;
    ddb_reader *rd;
    const pl_read_ctx *c;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    slot *slots;
    size_t n_slots;
    size_t head, count; /* the batches read and not taken: slots[head..head+count) mod n_slots */
    int quit;
    int unparsed;     /* the reader splits, the computing threads parse */
    worker *workers;  /* [0]: this thread's (its shapes are the run's); the others started */
    size_t n_workers; /* made */
    size_t started;   /* threads started: workers[1..started] */
    uint64_t n;       /* records taken (for pl_before_record) */
    ddb_io_waiter outer;     /* the pipeline's waiter, for a read that would block */
    int paused_rc;           /* taking the batches at a pause failed: the run ends */
    ddb_error paused_err;
} ahead;

/* Lines split but not parsed are parsed here first. Only items are decoded
 * ahead; a bad line or an untyped record that needs --types first is taken
 * as in the one-thread loop. */
static void compute(const ddb_pipeline_opts *o, slot *s, worker *w)
{
    for (size_t i = 0; i < s->n; i++) {
        ddb_record *rec = &s->rec[i];
        if (rec->unparsed && ddb_record_parse(rec, w->parser, s->arena) != 0) {
            memset(&s->v[i], 0, sizeof(s->v[i]));
            s->v[i].computed = 1;
            s->v[i].oom = 1;
            continue;
        }
        /* decoded as the delete it is, as the one-thread loop takes it */
        if (s->deletes && rec->kind == DDB_REC_PUT)
            rec->kind = DDB_REC_DELETE;
        if (rec->kind != DDB_REC_BAD && (rec->typed || o->n_types == 0)) {
            pl_item_compute(&s->v[i], o, rec, w->shapes, s->arena);
            pl_item_format(&s->v[i], o, rec, &s->text, &w->scratch, s->arena);
        } else {
            s->v[i].computed = 0;
        }
    }
    /* the text grows no more: its lines can be pointed at */
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i].computed && s->v[i].formatted)
            s->v[i].text = s->text.ptr + s->v[i].text_off;
}

static slot *first_ready(ahead *a)
{
    for (size_t i = 0; i < a->count; i++) {
        slot *s = &a->slots[(a->head + i) % a->n_slots];
        if (s->state == SLOT_READY)
            return s;
    }
    return NULL;
}

static void *helper(void *arg)
{
    worker *w = arg;
    ahead *a = w->a;
    pthread_mutex_lock(&a->mu);
    for (;;) {
        slot *s;
        while (!a->quit && (s = first_ready(a)) == NULL)
            pthread_cond_wait(&a->cv, &a->mu);
        if (a->quit)
            break;
        s->state = SLOT_BUSY;
        pthread_mutex_unlock(&a->mu);
        compute(a->r->o, s, w);
        pthread_mutex_lock(&a->mu);
        s->state = SLOT_DONE;
        pthread_cond_broadcast(&a->cv);
    }
    pthread_mutex_unlock(&a->mu);
    return NULL;
}

/* A record as the reader handed it, copied into the batch (the reader's
 * memory is only valid until its next call). */
static int copy_record(ddb_record *dst, const ddb_record *src, slot *s)
{
    ddb_arena *ar = s->arena;
    *dst = *src;
    dst->item_text.ptr = NULL; /* the reader's memory; an export does not need it */
    dst->item_text.len = 0;
    if (src->raw != NULL && (dst->raw = ddb_arena_memdup(ar, src->raw, src->raw_len)) == NULL)
        return DDB_ENOMEM;
    /* the item's strings mostly lie in its line: they point into the line's copy */
    if (ddb_map_copy_within(&dst->item, &src->item, src->raw, src->raw_len, dst->raw, ar) != 0)
        return DDB_ENOMEM;
    /* the file it came from: a reader of several files (a dynamodump folder)
     * frees a file's name when it moves on, possibly within a batch; copied
     * once for the records of one file */
    if (src->source != NULL) {
        if (s->source == NULL || strcmp(s->source, src->source) != 0) {
            if ((s->source = ddb_arena_memdup(ar, src->source, strlen(src->source))) == NULL)
                return DDB_ENOMEM;
        }
        dst->source = s->source;
    }
    if (src->reason != NULL &&
        (dst->reason = ddb_arena_memdup(ar, src->reason, strlen(src->reason))) == NULL)
        return DDB_ENOMEM;
    if (src->table != NULL &&
        (dst->table = ddb_arena_memdup(ar, src->table, strlen(src->table))) == NULL)
        return DDB_ENOMEM;
    if (src->write_time.len > 0) {
        char *w = ddb_arena_memdup(ar, src->write_time.ptr, src->write_time.len);
        if (w == NULL)
            return DDB_ENOMEM;
        dst->write_time.ptr = w;
    }
    return 0;
}

static void publish(ahead *a, slot *s)
{
    pthread_mutex_lock(&a->mu);
    s->state = SLOT_READY;
    a->count++;
    pthread_cond_broadcast(&a->cv);
    pthread_mutex_unlock(&a->mu);
}

/* Takes the oldest batch. While the helper still computes it, this thread
 * computes a later one rather than wait (or the oldest itself when the helper
 * has not started it). Returns 0 or the error that ends the reading. */
static int take_oldest(ahead *a, ddb_error *err)
{
    slot *s = &a->slots[a->head];
    int rc = 0;

    pthread_mutex_lock(&a->mu);
    while (s->state != SLOT_DONE) {
        slot *other = first_ready(a);
        if (other == NULL) {
            pthread_cond_wait(&a->cv, &a->mu);
            continue;
        }
        other->state = SLOT_BUSY;
        pthread_mutex_unlock(&a->mu);
        compute(a->r->o, other, &a->workers[0]);
        pthread_mutex_lock(&a->mu);
        other->state = SLOT_DONE;
        pthread_cond_broadcast(&a->cv);
    }
    a->head = (a->head + 1) % a->n_slots;
    a->count--;
    pthread_mutex_unlock(&a->mu);

    for (size_t i = 0; i < s->n && rc == 0; i++) {
        /* still counted ahead while its turn comes: no checkpoint may fall
         * between reading it and taking it */
        if ((rc = pl_before_record(a->r, a->n++, err)) == 0)
            rc = pl_take_record(a->r, a->rd, a->c, &s->rec[i], s->v[i].computed ? &s->v[i] : NULL,
                                err);
        a->r->ahead--;
    }
    /* After an error the rest of the batch was never taken: a resumed run
     * reads it again (it was not begun in the tracker). */
    ddb_arena_reset(s->arena);
    ddb_buf_clear(&s->text);
    s->n = 0;
    s->bytes = 0;
    s->source = NULL;
    pthread_mutex_lock(&a->mu);
    s->state = SLOT_FREE;
    pthread_mutex_unlock(&a->mu);
    return rc;
}

static int take_all(ahead *a, ddb_error *err)
{
    int rc = 0;
    while (a->count > 0 && rc == 0)
        rc = take_oldest(a, err);
    return rc;
}

/* A read of the input would block: the records read so far are taken (the
 * batch being filled as it is) before waiting, so a producer that pauses
 * sees them written. The batches hold copies of their records, so this can
 * run inside the reader's read; the batch it takes is begun anew after. */
static int ahead_wait(void *ctx, int fd, ddb_error *err)
{
    ahead *a = ctx;
    slot *filling = &a->slots[(a->head + a->count) % a->n_slots]; /* read_ahead's s */
    if (a->paused_rc == 0 && (a->count > 0 || filling->n > 0)) {
        if (filling->n > 0)
            publish(a, filling);
        if ((a->paused_rc = take_all(a, &a->paused_err)) != 0)
            return ddb_error_set(err, a->paused_rc, "%s", a->paused_err.message);
    }
    return a->outer.wait(a->outer.ctx, fd, err);
}

/* Out of memory copying a record into s. The records read before it are
 * taken first, as the one-thread loop would have taken them: a stop, the
 * rejects limit or an output's error among them ends the run as it would
 * there, and only then is it out of memory. The failed copy's leftovers in
 * s's arena go when the batch is taken or the arenas freed. */
static int copy_failed(ahead *a, slot *s, ddb_error *err)
{
    int rc;
    if (s->n > 0)
        publish(a, s);
    if ((rc = take_all(a, err)) != 0)
        return rc;
    return ddb_error_set(err, DDB_ENOMEM, "out of memory");
}

static int read_ahead(ahead *a, ddb_error *err)
{
    run *r = a->r;
    const ddb_pipeline_opts *o = r->o;
    ddb_error rerr;
    int rc;

    for (;;) {
        slot *s;
        int rrc = 0, stop;
        if (a->count == a->n_slots && (rc = take_oldest(a, err)) != 0)
            return rc;
        s = &a->slots[(a->head + a->count) % a->n_slots];
        while (s->n < AHEAD_BATCH && s->bytes < AHEAD_BATCH_BYTES && !(o->stop && *o->stop) &&
               !r->checkpoint_due) {
            ddb_record *rec;
            ddb_error_clear(&rerr);
            rrc = a->unparsed ? a->rd->vt->next_unparsed(a->rd, &rec, &rerr)
                              : ddb_reader_next(a->rd, &rec, &rerr);
            if (a->paused_rc != 0) {
                *err = a->paused_err;
                return a->paused_rc;
            }
            /* the next one, if ahead_wait took s while the input paused */
            s = &a->slots[(a->head + a->count) % a->n_slots];
            if (rrc != 0)
                break;
            if (rec->pos < r->skip_below)
                continue; /* resuming: committed by the interrupted run */
            s->deletes = a->c->item_deletes;
            if (copy_record(&s->rec[s->n], rec, s) != 0)
                return copy_failed(a, s, err);
            s->n++;
            s->bytes += rec->raw != NULL ? rec->raw_len : 1024;
            r->ahead++;
        }
        if (s->n > 0)
            publish(a, s);
        stop = o->stop && *o->stop;
        if (rrc == 0 && !stop && !r->checkpoint_due && !r->sample_full)
            continue;
        /* Everything read is taken before the reader's news or a checkpoint:
         * its position is then the committed one. */
        if ((rc = take_all(a, err)) != 0)
            return rc;
        if (rrc == DDB_ITEROVER || r->sample_full)
            return 0; /* --sample: what was read ahead is counted, the rest is not read */
        if (rrc != 0) {
            if ((rc = pl_reader_failed(r, rrc, &rerr, err)) == 1)
                continue;
            return rc; /* 0: this input cannot go on, the others can */
        }
        if (stop)
            return ddb_error_set(err, DDB_EINTR, "interrupted");
        /* the outputs' word on the records just taken first: the checkpoint
         * must count every record its outputs hold */
        pl_drain(r);
        if ((rc = pl_tick(r, err)) != 0)
            return rc;
    }
}

/* The computing threads' state (n: this thread's and the helpers'). */
static int make_workers(ahead *a, size_t n)
{
    if ((a->workers = calloc(n, sizeof(*a->workers))) == NULL)
        return DDB_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        worker *w = &a->workers[i];
        w->a = a;
        /* counted before its parts are made: free_workers frees what a
         * failure here left half made */
        a->n_workers = i + 1;
        if (ddb_json_parser_new(&w->parser) != 0 || (i > 0 && ddb_shape_cache_new(&w->shapes) != 0))
            return DDB_ENOMEM;
    }
    a->workers[0].shapes = a->r->shapes;
    return 0;
}

static void free_workers(ahead *a)
{
    for (size_t i = 0; i < a->n_workers; i++) {
        worker *w = &a->workers[i];
        if (i > 0)
            ddb_shape_cache_free(w->shapes);
        ddb_json_parser_free(w->parser);
        ddb_format_scratch_dispose(&w->scratch);
    }
    free(a->workers);
}

/* The batches, each with its arena. */
static int make_slots(ahead *a, size_t n)
{
    if ((a->slots = calloc(n, sizeof(*a->slots))) == NULL)
        return DDB_ENOMEM;
    for (; a->n_slots < n; a->n_slots++)
        if (ddb_arena_new(&a->slots[a->n_slots].arena, 0) != 0)
            return DDB_ENOMEM;
    return 0;
}

static void free_slots(ahead *a)
{
    for (size_t i = 0; i < a->n_slots; i++) {
        ddb_arena_free(a->slots[i].arena);
        ddb_buf_dispose(&a->slots[i].text);
    }
    free(a->slots);
}

/* Tells the helpers to end, and waits for them. */
static void stop_helpers(ahead *a)
{
    pthread_mutex_lock(&a->mu);
    a->quit = 1;
    pthread_cond_broadcast(&a->cv);
    pthread_mutex_unlock(&a->mu);
    for (size_t i = 1; i <= a->started; i++)
        pthread_join(a->workers[i].thread, NULL);
}

int pl_run_reader_ahead(run *r, ddb_reader *rd, const pl_read_ctx *c, ddb_error *err)
{
    ahead *a = calloc(1, sizeof(*a));
    size_t threads = r->o->threads > 2 ? (size_t)r->o->threads : 2;
    int rc = 1, sync = 0;

    if (a == NULL)
        return 1;
    a->r = r;
    a->rd = rd;
    a->c = c;
    if (make_workers(a, threads) != 0 || make_slots(a, AHEAD_SLOTS(threads)) != 0)
        goto done;
    /* the batch keeps each line anyway: parsing it is then the computing
     * threads' work, and nothing is copied but the line */
    a->unparsed = rd->vt->next_unparsed != NULL;
    if (pthread_mutex_init(&a->mu, NULL) != 0)
        goto done;
    if (pthread_cond_init(&a->cv, NULL) != 0) {
        pthread_mutex_destroy(&a->mu);
        goto done;
    }
    sync = 1;
    while (a->started + 1 < threads &&
           pthread_create(&a->workers[a->started + 1].thread, NULL, helper,
                          &a->workers[a->started + 1]) == 0)
        a->started++;
    if (a->started == 0) /* not one: read on this thread alone */
        goto done;
    a->outer = ddb_io_set_waiter((ddb_io_waiter){NULL, NULL});
    if (a->outer.wait != NULL) /* else reads block: nothing to take meanwhile */
        ddb_io_set_waiter((ddb_io_waiter){ahead_wait, a});
    rc = read_ahead(a, err);
    ddb_io_set_waiter(a->outer);
    r->ahead = 0; /* a batch left untaken after an error is dropped unbegun */
done:
    if (sync) {
        stop_helpers(a);
        pthread_cond_destroy(&a->cv);
        pthread_mutex_destroy(&a->mu);
    }
    free_slots(a);
    free_workers(a);
    free(a);
    return rc;
}
