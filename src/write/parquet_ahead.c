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
        /* the calling thread encodes, as with one thread: the same files */
        pthread_cond_destroy(&a->cv);
        pthread_mutex_destroy(&a->mu);
        free(a);
        return 0;
    }
    b->ahead = a;
    return 0;
}

enum { WAIT, STEAL, DROP }; /* what take_job does with a job not begun */

/* The job held, taken out of a once the encoding thread is done with it;
 * one it has not begun is encoded here (STEAL: the calling thread needs the
 * room now), or given back unencoded (DROP), or waited for (WAIT: the
 * thread, woken, is about to take it, and this thread has nothing else to
 * do). The caller commits or frees it. */
static pq_job *take_job(pq_budget *b, int how)
{
    pq_ahead *a = b->ahead;
    pq_job *j;
    pthread_mutex_lock(&a->mu);
    if (a->state == JOB_QUEUED && how != WAIT) {
        a->state = JOB_BUSY;
        pthread_mutex_unlock(&a->mu);
        if (how == STEAL) {
            pq_job_encode(a->job, &b->coder);
            /* seldom needed: not kept beside the encoding thread's */
            pq_coder_dispose(&b->coder);
        }
        pthread_mutex_lock(&a->mu);
        a->state = JOB_DONE;
    }
    while (a->state != JOB_DONE)
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
    assert(f != NULL);
    if (!holds(b->ahead, f))
        return 0;
    return pq_job_commit(take_job(b, WAIT), err);
}

int pq_ahead_hand_over(pq_budget *b, pq_job *j, ddb_error *err)
{
    pq_ahead *a = b->ahead;
    int rc = 0;
    /* the row group held may be another file's: its failure is that file's
     * (kept by it), and j, which its own file counts, is handed over all
     * the same */
    if (holds(a, NULL))
        rc = pq_job_commit(take_job(b, STEAL), err);
    pthread_mutex_lock(&a->mu);
    a->job = j;
    a->state = JOB_QUEUED;
    pthread_cond_broadcast(&a->cv);
    pthread_mutex_unlock(&a->mu);
    return rc;
}

void pq_ahead_forget(pq_budget *b, const pq_file *f)
{
    if (holds(b->ahead, f))
        pq_job_free(take_job(b, DROP));
}

void pq_ahead_free(pq_budget *b)
{
    pq_ahead *a = b->ahead;
    if (a == NULL)
        return;
    /* a file still open (freed after its budget) writes it itself */
    if (a->job != NULL) {
        pq_job *j = take_job(b, WAIT);
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
