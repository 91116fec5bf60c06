/*
 * source_readahead.c — a source that reads its upstream ahead in a thread (source.h).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/source.h"
#include "io/io_internal.h"

/* ------------------------------------------------------------- readahead */

/*
 * Inflating runs on the second core: a thread reads (and decompresses)
 * ahead into a few buffers while the caller parses what is already there.
 * Memory stays bounded (RA_SLOTS x RA_CHUNK); the bytes come out in order,
 * and an error reaches the caller after the bytes read before it.
 */
#define RA_SLOTS 4
#define RA_CHUNK (1u << 20)

typedef struct ra_slot {
    unsigned char *data;
    size_t len;
    int final;  /* the last slot: rc says how the stream ended */
    ssize_t rc; /* 0 at end of stream, or the error code (err) */
    ddb_error err;
} ra_slot;

typedef struct ra_source {
    ddb_source base;
    pthread_t thread;
    int started;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    ra_slot slot[RA_SLOTS];
    size_t head, count; /* the slot being read by the caller; slots filled */
    size_t pos;         /* the caller's position in slot[head] */
    int lent;           /* slot[head] was lent to its end: given back at the next call */
    int stop;
    uint64_t raw; /* the file's bytes read so far (progress), under mu */
} ra_source;

static const ddb_source_vtable ra_vtable;

/* Fills one slot from upstream: as many bytes as it holds, or up to the end. */
static void ra_fill(ra_source *r, ra_slot *s)
{
    s->len = 0;
    s->final = 0;
    s->rc = 0;
    while (s->len < RA_CHUNK) {
        ssize_t n = ddb_source_read(r->base.upstream, s->data + s->len, RA_CHUNK - s->len, &s->err);
        if (n <= 0) {
            s->final = 1;
            s->rc = n;
            return;
        }
        s->len += (size_t)n;
    }
}

static void *ra_main(void *arg)
{
    ra_source *r = arg;
    for (;;) {
        ra_slot *s;
        uint64_t raw;
        pthread_mutex_lock(&r->mu);
        while (r->count == RA_SLOTS && !r->stop)
            pthread_cond_wait(&r->cv, &r->mu);
        if (r->stop) {
            pthread_mutex_unlock(&r->mu);
            return NULL;
        }
        s = &r->slot[(r->head + r->count) % RA_SLOTS];
        pthread_mutex_unlock(&r->mu);
        ra_fill(r, s); /* the slot is the thread's until counted */
        raw = ddb_source_raw_bytes(r->base.upstream);
        pthread_mutex_lock(&r->mu);
        r->raw = raw;
        r->count++;
        pthread_cond_broadcast(&r->cv);
        pthread_mutex_unlock(&r->mu);
        if (s->final)
            return NULL;
    }
}

/* Gives slot[head], read to its end, back to the thread. */
static void ra_release(ra_source *r)
{
    pthread_mutex_lock(&r->mu);
    r->head = (r->head + 1) % RA_SLOTS;
    r->count--;
    r->pos = 0;
    r->lent = 0;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
}

/* The slot the caller reads next, once filled; NULL at the end of the
 * stream, with *rc its end (0) or error (in err). */
static ra_slot *ra_next(ra_source *r, ssize_t *rc, ddb_error *err)
{
    ra_slot *s;
    if (r->lent)
        ra_release(r);
    pthread_mutex_lock(&r->mu);
    while (r->count == 0)
        pthread_cond_wait(&r->cv, &r->mu);
    s = &r->slot[r->head];
    pthread_mutex_unlock(&r->mu);
    if (r->pos == s->len && s->final) {
        if (s->rc < 0 && err != NULL)
            *err = s->err;
        *rc = s->rc;
        return NULL;
    }
    return s;
}

/* Up to max bytes of the slot being read, where the thread put them; a slot
 * taken to its end is lent until the next call. */
static ssize_t ra_take(ra_source *r, size_t max, const unsigned char **data, ddb_error *err)
{
    ssize_t rc;
    ra_slot *s = ra_next(r, &rc, err);
    size_t n;
    if (s == NULL)
        return rc;
    n = s->len - r->pos < max ? s->len - r->pos : max;
    *data = s->data + r->pos;
    r->pos += n;
    r->lent = r->pos == s->len && !s->final;
    return (ssize_t)n;
}

static ssize_t ra_read(ddb_source *src, void *buf, size_t len, ddb_error *err)
{
    ra_source *r = (ra_source *)src;
    const unsigned char *p;
    ssize_t n = ra_take(r, len, &p, err);
    if (n > 0) {
        memcpy(buf, p, (size_t)n);
        if (r->lent) /* copied: the thread may have it back at once */
            ra_release(r);
    }
    return n;
}

/* The rest of the slot: it goes back to the thread only at the next call,
 * when the caller is done with it. */
static ssize_t ra_borrow(ddb_source *src, const char **data, ddb_error *err)
{
    return ra_take((ra_source *)src, SIZE_MAX, (const unsigned char **)data, err);
}

static void ra_free(ddb_source *src)
{
    ra_source *r = (ra_source *)src;
    if (r->started) {
        pthread_mutex_lock(&r->mu);
        r->stop = 1;
        pthread_cond_broadcast(&r->cv);
        pthread_mutex_unlock(&r->mu);
        pthread_join(r->thread, NULL);
        pthread_cond_destroy(&r->cv);
        pthread_mutex_destroy(&r->mu);
    }
    for (size_t i = 0; i < RA_SLOTS; i++)
        free(r->slot[i].data);
}

static const ddb_source_vtable ra_vtable = {ra_read, ra_free, ra_borrow};

/* The lock, its condition and the thread. ra_free ends them once started;
 * until then a failure ends here what was made, as ra_free will not. */
static int ra_start(ra_source *r)
{
    if (pthread_mutex_init(&r->mu, NULL) != 0)
        return -1;
    if (pthread_cond_init(&r->cv, NULL) != 0) {
        pthread_mutex_destroy(&r->mu);
        return -1;
    }
    if (pthread_create(&r->thread, NULL, ra_main, r) != 0) {
        pthread_cond_destroy(&r->cv);
        pthread_mutex_destroy(&r->mu);
        return -1;
    }
    r->started = 1;
    return 0;
}

int ddb_source_new_readahead(ddb_source **out, ddb_source *upstream, ddb_error *err)
{
    ra_source *r = (ra_source *)ddb_source_alloc(sizeof(ra_source), &ra_vtable, upstream->name);
    int rc = 0;

    *out = NULL;
    if (r == NULL) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory reading %s", upstream->name);
        ddb_source_free(upstream);
        return rc;
    }
    r->base.upstream = upstream;
    for (size_t i = 0; i < RA_SLOTS; i++)
        if ((r->slot[i].data = malloc(RA_CHUNK)) == NULL) {
            rc = ddb_error_set(err, DDB_ENOMEM, "out of memory reading %s", upstream->name);
            goto done;
        }
    if (ra_start(r) != 0) {
        rc =
            ddb_error_set(err, DDB_ERROR, "cannot start the reading thread for %s", upstream->name);
        goto done;
    }
done:
    if (rc != 0) {
        ddb_source_free(&r->base);
        return rc;
    }
    *out = &r->base;
    return 0;
}

int ddb_source_is_readahead(const ddb_source *s)
{
    return s->vt == &ra_vtable;
}

uint64_t ddb_readahead_raw_bytes(const ddb_source *s)
{
    ra_source *r = (ra_source *)s;
    uint64_t raw;
    pthread_mutex_lock(&r->mu);
    raw = r->raw;
    pthread_mutex_unlock(&r->mu);
    return raw;
}
