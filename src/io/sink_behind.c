/*
 * sink_behind.c — writing a sink's bytes on a thread of its own while the
 * caller makes the next ones (sink.h, ddb_sink_behind_start).
 *
 * Whole buffers change hands, never bytes: the caller fills a ddb_buf and
 * swaps it for one the thread has written out, so nothing is copied on the
 * way. At most BEHIND_SLOTS buffers wait or are being written; a caller
 * faster than the sink waits for it.
 */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/buf.h"
#include "ddbpipe/sink.h"

#define BEHIND_SLOTS 4

struct ddb_sink_behind {
    ddb_sink *s; /* borrowed; only the thread writes it while started */
    pthread_t thread;
    int started; /* 0: the thread could not start, so swaps write in place */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    /* Buffers handed over, oldest first (the oldest is being written while
     * count > 0), and those written, emptied with their room kept. */
    ddb_buf queue[BEHIND_SLOTS];
    size_t head, count;
    ddb_buf spare[BEHIND_SLOTS];
    size_t n_spare;
    int stop;
    int rc; /* the first failed write's code; later buffers are dropped */
    ddb_error err;
};

static void *behind_main(void *arg)
{
    ddb_sink_behind *b = arg;
    pthread_mutex_lock(&b->mu);
    for (;;) {
        ddb_buf job;
        int rc = 0;
        ddb_error err;
        while (b->count == 0 && !b->stop)
            pthread_cond_wait(&b->cv, &b->mu);
        if (b->count == 0)
            break;
        job = b->queue[b->head]; /* the thread's until count drops: written unlocked */
        if (b->rc == 0) {
            pthread_mutex_unlock(&b->mu);
            rc = ddb_sink_write(b->s, job.ptr, job.len, &err);
            pthread_mutex_lock(&b->mu);
            if (rc != 0) {
                b->rc = rc;
                b->err = err;
            }
        }
        ddb_buf_clear(&job);
        b->spare[b->n_spare++] = job;
        b->head = (b->head + 1) % BEHIND_SLOTS;
        b->count--;
        pthread_cond_broadcast(&b->cv);
    }
    pthread_mutex_unlock(&b->mu);
    return NULL;
}

static int behind_launch(ddb_sink_behind *b)
{
    if (pthread_mutex_init(&b->mu, NULL) != 0)
        return -1;
    if (pthread_cond_init(&b->cv, NULL) != 0) {
        pthread_mutex_destroy(&b->mu);
        return -1;
    }
    if (pthread_create(&b->thread, NULL, behind_main, b) != 0) {
        pthread_cond_destroy(&b->cv);
        pthread_mutex_destroy(&b->mu);
        return -1;
    }
    return 0;
}

int ddb_sink_behind_start(ddb_sink_behind **out, ddb_sink *s, ddb_error *err)
{
    ddb_sink_behind *b;
    assert(out != NULL && s != NULL);
    *out = NULL;
    if ((b = calloc(1, sizeof(*b))) == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    b->s = s;
    /* No thread (none to be had): the bytes are written in place, the same. */
    b->started = behind_launch(b) == 0;
    *out = b;
    return 0;
}

int ddb_sink_behind_swap(ddb_sink_behind *b, ddb_buf *full, ddb_error *err)
{
    ddb_buf empty = {0};
    int rc;
    assert(b != NULL && full != NULL);
    if (!b->started) {
        rc = b->rc == 0 ? ddb_sink_write(b->s, full->ptr, full->len, &b->err) : b->rc;
        b->rc = rc;
        ddb_buf_clear(full);
        return rc != 0 ? ddb_error_set(err, rc, "%s", b->err.message) : 0;
    }
    if (full->len == 0)
        return 0;
    pthread_mutex_lock(&b->mu);
    /* A few buffers queued, so that neither side waits on every hand-over
     * for the other to be woken (tens of microseconds on a virtual machine,
     * against a hundred to lay out or write one). */
    while (b->count == BEHIND_SLOTS)
        pthread_cond_wait(&b->cv, &b->mu);
    if ((rc = b->rc) != 0) {
        pthread_mutex_unlock(&b->mu);
        ddb_buf_clear(full);
        return ddb_error_set(err, rc, "%s", b->err.message);
    }
    if (b->n_spare > 0)
        empty = b->spare[--b->n_spare];
    b->queue[(b->head + b->count) % BEHIND_SLOTS] = *full;
    *full = empty;
    if (b->count++ == 0)
        pthread_cond_broadcast(&b->cv);
    pthread_mutex_unlock(&b->mu);
    return 0;
}

int ddb_sink_behind_end(ddb_sink_behind *b, ddb_error *err)
{
    int rc;
    if (b == NULL)
        return 0;
    if (b->started) {
        pthread_mutex_lock(&b->mu);
        b->stop = 1;
        pthread_cond_broadcast(&b->cv);
        pthread_mutex_unlock(&b->mu);
        pthread_join(b->thread, NULL); /* it writes what it holds first */
        pthread_cond_destroy(&b->cv);
        pthread_mutex_destroy(&b->mu);
    }
    if ((rc = b->rc) != 0 && err != NULL)
        ddb_error_set(err, rc, "%s", b->err.message);
    while (b->n_spare > 0)
        ddb_buf_dispose(&b->spare[--b->n_spare]);
    free(b);
    return rc;
}
