/*
 * The credential provider: the current credentials behind a mutex, held by
 * reference count while requests sign with them, and a refresher thread that
 * sleeps until the next refresh is due (or one is forced), fetches from the
 * source without holding the lock, and publishes the result as a new
 * generation. Old generations are freed when the last request holding them
 * releases them.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "aws/credprov_internal.h"

#define MIN_REFRESH_GAP_MS 1000 /* never fetch more often than this */
#define MAX_RETRY_GAP_MS 60000  /* between failed refreshes, at most */
#define FORCE_GAP_MS 1000       /* one forced refresh per generation per second */

typedef struct snap {
    ddb_aws_credentials *creds;
    uint64_t gen;
    int refs;
    int64_t obtained_ms;
    struct snap *next; /* retired list */
} snap;

struct ddb_credprov {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_t thread;
    int running;
    atomic_int stop; /* read without the lock by the fetch's HTTP exchanges, to abort */
    ddb_cred_source *root;
    snap *cur;
    snap *retired;
    int expiring;
    int refreshing;
    int force;
    uint64_t forced_gen;
    int64_t forced_ms;
    int64_t due_ms;
    int failures_in_row;
    uint64_t rng;
    ddb_log_fn log;
    void *log_ctx;
    ddb_credprov_stats stats;
};

static snap *snap_new(ddb_aws_credentials *c, uint64_t gen, int64_t obtained_ms)
{
    snap *s = calloc(1, sizeof(*s));
    if (s) {
        s->creds = c;
        s->gen = gen;
        s->obtained_ms = obtained_ms;
    }
    return s;
}

static void snap_free(snap *s)
{
    if (s) {
        ddb_aws_credentials_free(s->creds);
        free(s);
    }
}

static int64_t due_after(const snap *s, int64_t now)
{
    int64_t at = ddb_cred_refresh_at_ms(s->creds->expiration, s->obtained_ms);
    return at < now + MIN_REFRESH_GAP_MS ? now + MIN_REFRESH_GAP_MS : at;
}

int ddb_credprov_new(ddb_credprov **out, ddb_cred_source *root, ddb_aws_credentials *first,
                     int64_t obtained_ms, ddb_error *err)
{
    ddb_credprov *p = calloc(1, sizeof(*p));
    *out = NULL;
    if (p == NULL || (p->cur = snap_new(first, 1, obtained_ms)) == NULL) {
        free(p);
        ddb_cred_source_free(root);
        ddb_aws_credentials_free(first);
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    }
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    p->root = root;
    p->expiring = first->expiration != 0;
    p->due_ms = ddb_cred_refresh_at_ms(first->expiration, obtained_ms);
    p->rng = (uint64_t)obtained_ms ^ (uint64_t)(uintptr_t)p;
    p->stats.generation = 1;
    *out = p;
    return 0;
}

/* Publishes fresh credentials. Called with the lock held. */
static void publish(ddb_credprov *p, ddb_aws_credentials *c, int64_t now)
{
    snap *s = snap_new(c, p->cur->gen + 1, now);
    if (s == NULL) {
        ddb_aws_credentials_free(c); /* keep the current ones; try again later */
        p->due_ms = now + MIN_REFRESH_GAP_MS;
        return;
    }
    if (p->cur->refs == 0) {
        snap_free(p->cur);
    } else {
        p->cur->next = p->retired;
        p->retired = p->cur;
    }
    p->cur = s;
    p->expiring = c->expiration != 0;
    p->due_ms = due_after(s, now);
    p->stats.generation = s->gen;
    p->failures_in_row = 0;
}

static void say(ddb_credprov *p, ddb_log_level level, ddb_buf *line)
{
    if (p->log && line->ptr)
        p->log(p->log_ctx, level, line->ptr);
    ddb_buf_clear(line);
}

/* One refresh, with the lock held on entry and on exit (released while the
 * source is fetched). */
static void refresh_once(ddb_credprov *p, ddb_buf *line)
{
    ddb_aws_credentials *fresh = NULL;
    ddb_cred_call call = {&p->stop, &p->rng};
    ddb_error err = {0};
    int forced = p->force, rc;
    int64_t now;

    p->refreshing = 1;
    p->force = 0;
    pthread_mutex_unlock(&p->mu);
    rc = ddb_cred_fetch(&fresh, p->root, &call, &err);
    pthread_mutex_lock(&p->mu);
    p->refreshing = 0;
    now = ddb_cred_now_ms();
    if (rc == 0) {
        publish(p, fresh, now);
        p->stats.refreshes++;
        ddb_buf_printf(line, "credentials refreshed%s (generation %llu): ",
                       forced ? " after a request was refused" : "",
                       (unsigned long long)p->cur->gen);
        ddb_aws_credentials_describe(line, p->cur->creds);
        say(p, DDB_LOG_INFO, line);
    } else if (!p->stop) {
        int64_t gap = 1000LL << (p->failures_in_row < 6 ? p->failures_in_row : 6);
        char when[32];
        p->failures_in_row++;
        p->stats.failures++;
        p->due_ms = now + (gap > MAX_RETRY_GAP_MS ? MAX_RETRY_GAP_MS : gap);
        ddb_cred_format_time(when, sizeof(when), p->cur->creds->expiration);
        ddb_buf_printf(line,
                       "refreshing credentials failed (attempt %d; the current ones expire %s%s, "
                       "next try in %lld s): %s",
                       p->failures_in_row, when,
                       p->cur->creds->expiration <= (time_t)(now / 1000) ? ", already past" : "",
                       (long long)((p->due_ms - now + 999) / 1000), err.message);
        say(p, DDB_LOG_WARNING, line);
    }
    pthread_cond_broadcast(&p->cv);
}

static void *refresher(void *arg)
{
    ddb_credprov *p = arg;
    ddb_buf line = DDB_BUF_INIT;

    pthread_mutex_lock(&p->mu);
    while (!p->stop) {
        int64_t now = ddb_cred_now_ms();
        if (!p->expiring && !p->force) {
            pthread_cond_wait(&p->cv, &p->mu);
            continue;
        }
        if (!p->force && now < p->due_ms) {
            struct timespec ts = {(time_t)(p->due_ms / 1000), (long)(p->due_ms % 1000) * 1000000L};
            pthread_cond_timedwait(&p->cv, &p->mu, &ts);
            continue;
        }
        refresh_once(p, &line);
    }
    pthread_mutex_unlock(&p->mu);
    ddb_buf_dispose(&line);
    return NULL;
}

int ddb_credprov_start(ddb_credprov *p, ddb_log_fn log, void *ctx, ddb_error *err)
{
    sigset_t all, old;
    int rc;

    pthread_mutex_lock(&p->mu);
    p->log = log;
    p->log_ctx = ctx;
    pthread_mutex_unlock(&p->mu);
    if (p->running || !p->expiring)
        return 0;
    /* Signals (SIGINT, SIGTERM) are for the main thread's loop to see. */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    rc = pthread_create(&p->thread, NULL, refresher, p);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0)
        return ddb_error_set(err, DDB_ERROR, "cannot start the credential refresher: %s",
                             strerror(rc));
    p->running = 1;
    return 0;
}

const ddb_aws_credentials *ddb_credprov_acquire(ddb_credprov *p, uint64_t *generation)
{
    const ddb_aws_credentials *c;
    pthread_mutex_lock(&p->mu);
    p->cur->refs++;
    c = p->cur->creds;
    if (generation)
        *generation = p->cur->gen;
    pthread_mutex_unlock(&p->mu);
    return c;
}

void ddb_credprov_release(ddb_credprov *p, const ddb_aws_credentials *c)
{
    pthread_mutex_lock(&p->mu);
    if (p->cur->creds == c) {
        p->cur->refs--;
    } else {
        for (snap **s = &p->retired; *s; s = &(*s)->next)
            if ((*s)->creds == c) {
                if (--(*s)->refs == 0) {
                    snap *dead = *s;
                    *s = dead->next;
                    snap_free(dead);
                }
                break;
            }
    }
    pthread_mutex_unlock(&p->mu);
}

int ddb_credprov_expiring(ddb_credprov *p)
{
    int e;
    pthread_mutex_lock(&p->mu);
    e = p->expiring;
    pthread_mutex_unlock(&p->mu);
    return e;
}

int ddb_credprov_refreshing(ddb_credprov *p)
{
    int r;
    pthread_mutex_lock(&p->mu);
    r = p->refreshing || p->force;
    pthread_mutex_unlock(&p->mu);
    return r;
}

static int is_credential_error(const char *t)
{
    return strcmp(t, "ExpiredTokenException") == 0 ||
           strcmp(t, "UnrecognizedClientException") == 0 ||
           /* S3's names for the same */
           strcmp(t, "ExpiredToken") == 0 || strcmp(t, "InvalidAccessKeyId") == 0 ||
           strcmp(t, "InvalidToken") == 0 || strcmp(t, "SignatureDoesNotMatch") == 0 ||
           strcmp(t, "InvalidSignatureException") == 0;
}

ddb_cred_verdict ddb_credprov_rejected(ddb_credprov *p, uint64_t generation, const char *error_type)
{
    ddb_cred_verdict v = DDB_CRED_NOT_MINE;
    int64_t now = ddb_cred_now_ms();

    if (!is_credential_error(error_type))
        return v;
    pthread_mutex_lock(&p->mu);
    if (!p->running)
        goto done; /* long-term keys: nothing newer will come */
    p->stats.rejected++;
    if (generation < p->cur->gen) {
        v = DDB_CRED_RETRY;
    } else if (strcmp(error_type, "InvalidSignatureException") == 0 ||
               strcmp(error_type, "SignatureDoesNotMatch") == 0) {
        v = DDB_CRED_NOT_MINE; /* a wrong secret is not cured by waiting */
    } else if (p->refreshing || p->force) {
        v = DDB_CRED_WAIT;
    } else if (!(p->forced_gen == generation && now - p->forced_ms < FORCE_GAP_MS)) {
        /* The service says they expired (clock skew, early revocation): get
         * new ones now rather than at the scheduled time. */
        p->force = 1;
        p->forced_gen = generation;
        p->forced_ms = now;
        p->stats.forced++;
        pthread_cond_broadcast(&p->cv);
        v = DDB_CRED_WAIT;
    }
done:
    pthread_mutex_unlock(&p->mu);
    return v;
}

int ddb_credprov_refresh(ddb_credprov *p, ddb_error *err)
{
    ddb_aws_credentials *fresh = NULL;
    ddb_cred_call call = {&p->stop, &p->rng};
    int rc;
    /* The source tree is not thread-safe: wait out the refresher's fetch and
     * keep it out while this one runs. */
    pthread_mutex_lock(&p->mu);
    while (p->refreshing)
        pthread_cond_wait(&p->cv, &p->mu);
    p->refreshing = 1;
    pthread_mutex_unlock(&p->mu);
    rc = ddb_cred_fetch(&fresh, p->root, &call, err);
    pthread_mutex_lock(&p->mu);
    p->refreshing = 0;
    if (rc == 0) {
        publish(p, fresh, ddb_cred_now_ms());
        p->stats.refreshes++;
    }
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    return rc;
}

void ddb_credprov_stats_get(ddb_credprov *p, ddb_credprov_stats *out)
{
    pthread_mutex_lock(&p->mu);
    *out = p->stats;
    pthread_mutex_unlock(&p->mu);
}

int ddb_credprov_describe(ddb_buf *out, ddb_credprov *p)
{
    int rc;
    pthread_mutex_lock(&p->mu);
    rc = ddb_aws_credentials_describe(out, p->cur->creds);
    if (rc == 0 && p->expiring) {
        char when[32];
        ddb_cred_format_time(when, sizeof(when), (time_t)(p->due_ms / 1000));
        rc = ddb_buf_printf(out, "; refreshed in the background from %s", when);
    }
    pthread_mutex_unlock(&p->mu);
    return rc;
}

void ddb_credprov_free(ddb_credprov *p)
{
    if (p == NULL)
        return;
    pthread_mutex_lock(&p->mu);
    atomic_store(&p->stop, 1);
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    if (p->running)
        pthread_join(p->thread, NULL);
    while (p->retired) {
        snap *s = p->retired;
        p->retired = s->next;
        snap_free(s);
    }
    snap_free(p->cur);
    ddb_cred_source_free(p->root);
    pthread_cond_destroy(&p->cv);
    pthread_mutex_destroy(&p->mu);
    free(p);
}
