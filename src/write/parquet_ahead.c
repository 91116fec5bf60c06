/*
 * Row groups encoded on a thread of their own (parquet.h,
 * pq_budget_encode_ahead). Encoding a row group (decimals, dictionaries,
 * levels, pages, compression) was a fifth of a Parquet export's CPU, all of
 * it on the thread that writes the records in order, which sets the pace.
 * Here that thread takes a row group out of its file (pq_write_group: the
 * same points, the same bytes as before) and hands it to the budget's
 * encoding thread; it goes on gathering the next while the pages are made,
 * and writes them onto the file, in order, when it hands over the next or
 * finishes the file. So everything that decides a byte (where row groups
 * end, number types, the budget) stays on the calling thread, and the files
 * are the same whichever thread encodes.
 *
 * One row group at a time is held: the memory is the budget's plus one row
 * group of at most the budget. When the calling thread must wait for it and
 * the encoding thread has not begun it (two cores, more threads), it
 * encodes the row group itself.
 */
#include "write/parquet_internal.h"

#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

enum { JOB_NONE, JOB_QUEUED, JOB_BUSY, JOB_DONE };

typedef struct pq_ahead {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pq_job *job; /* the row group held, or NULL */
    int state;   /* of job */
    int quit;
    pq_coder coder; /* the encoding thread's */
} pq_ahead;

static void *encoder(void *arg)
{
    pq_ahead *a = arg;
    pthread_mutex_lock(&a->mu);
    for (;;) {
        while (!a->quit && a->state != JOB_QUEUED)
            pthread_cond_wait(&a->cv, &a->mu);
        if (a->quit)
            break;
        a->state = JOB_BUSY;
        pthread_mutex_unlock(&a->mu);
        pq_job_encode(a->job, &a->coder);
        pthread_mutex_lock(&a->mu);
        a->state = JOB_DONE;
        pthread_cond_broadcast(&a->cv);
    }
    pthread_mutex_unlock(&a->mu);
    return NULL;
}

int pq_budget_encode_ahead(pq_budget *b, ddb_error *err)
{
    pq_ahead *a;
    assert(b != NULL && b->ahead == NULL);
    if ((a = calloc(1, sizeof(*a))) == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    if (pthread_mutex_init(&a->mu, NULL) != 0) {
        free(a);
        return ddb_error_set(err, DDB_ENOMEM, "out of memory (a mutex)");
    }
    if (pthread_cond_init(&a->cv, NULL) != 0) {
        pthread_mutex_destroy(&a->mu);
        free(a);
        return ddb_error_set(err, DDB_ENOMEM, "out of memory (a condition variable)");
    }
    if (pthread_create(&a->thread, NULL, encoder, a) != 0) {
        pthread_cond_destroy(&a->cv);
        pthread_mutex_destroy(&a->mu);
        free(a);
        return ddb_error_set(err, DDB_ENOMEM, "cannot start a thread to encode row groups");
    }
    b->ahead = a;
    return 0;
}

/* The job held, once encoded (by the calling thread if the encoding thread
 * has not begun it), taken out of a: the caller commits or frees it. */
static pq_job *take_encoded(pq_budget *b)
{
    pq_ahead *a = b->ahead;
    pq_job *j;
    pthread_mutex_lock(&a->mu);
    if (a->state == JOB_QUEUED) {
        a->state = JOB_BUSY;
        pthread_mutex_unlock(&a->mu);
        pq_job_encode(a->job, &b->coder);
        /* seldom needed: not kept beside the encoding thread's */
        pq_coder_dispose(&b->coder);
        pthread_mutex_lock(&a->mu);
        a->state = JOB_DONE;
    }
    while (a->state == JOB_BUSY)
        pthread_cond_wait(&a->cv, &a->mu);
    j = a->job;
    a->job = NULL;
    a->state = JOB_NONE;
    pthread_mutex_unlock(&a->mu);
    return j;
}

/* Is the job held f's (f NULL: any)? Only the calling thread sets a->job. */
static int holds(const pq_ahead *a, const pq_file *f)
{
    return a != NULL && a->job != NULL && (f == NULL || a->job->f == f);
}

int pq_ahead_settle(pq_budget *b, const pq_file *f, ddb_error *err)
{
    if (!holds(b->ahead, f))
        return 0;
    return pq_job_commit(take_encoded(b), err);
}

int pq_ahead_hand_over(pq_budget *b, pq_job *j, ddb_error *err)
{
    pq_ahead *a = b->ahead;
    int rc;
    if ((rc = pq_ahead_settle(b, NULL, err)) != 0) {
        pq_job_free(j);
        return rc;
    }
    pthread_mutex_lock(&a->mu);
    a->job = j;
    a->state = JOB_QUEUED;
    pthread_cond_broadcast(&a->cv);
    pthread_mutex_unlock(&a->mu);
    return 0;
}

void pq_ahead_forget(pq_budget *b, const pq_file *f)
{
    if (holds(b->ahead, f))
        pq_job_free(take_encoded(b));
}

void pq_ahead_free(pq_budget *b)
{
    pq_ahead *a = b->ahead;
    if (a == NULL)
        return;
    /* a file still open (freed after its budget) writes it itself */
    if (a->job != NULL) {
        pq_job *j = take_encoded(b);
        assert(j->f->held == NULL);
        j->f->held = j;
    }
    b->ahead = NULL;
    pthread_mutex_lock(&a->mu);
    a->quit = 1;
    pthread_cond_broadcast(&a->cv);
    pthread_mutex_unlock(&a->mu);
    pthread_join(a->thread, NULL);
    pthread_cond_destroy(&a->cv);
    pthread_mutex_destroy(&a->mu);
    pq_coder_dispose(&a->coder);
    free(a);
}
