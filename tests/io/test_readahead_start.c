/*
 * test_readahead_start.c — a readahead source, and a sink written behind,
 * whose lock, condition or thread cannot be made. This binary is linked with
 * -Wl,--wrap for pthread_create and the mutex and condition init/destroy
 * calls (CMakeLists.txt): the wraps below count what the engine makes and
 * ends, and fail the call a test names, so what a failure leaves behind is
 * seen here; heap memory left behind is LeakSanitizer's to find in the
 * sanitizer build.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/sink.h"
#include "ddbpipe/source.h"

int __real_pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg);
int __real_pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *attr);
int __real_pthread_mutex_destroy(pthread_mutex_t *m);
int __real_pthread_cond_init(pthread_cond_t *c, const pthread_condattr_t *attr);
int __real_pthread_cond_destroy(pthread_cond_t *c);
int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg);
int __wrap_pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *attr);
int __wrap_pthread_mutex_destroy(pthread_mutex_t *m);
int __wrap_pthread_cond_init(pthread_cond_t *c, const pthread_condattr_t *attr);
int __wrap_pthread_cond_destroy(pthread_cond_t *c);

/* Each test runs in a process of its own: these start at zero. */
static enum { FAIL_NONE, FAIL_MUTEX, FAIL_COND, FAIL_THREAD } failing;
static int mutexes, conds, threads; /* made and not yet destroyed (threads: made) */

int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
    if (failing == FAIL_THREAD)
        return EAGAIN;
    threads++;
    return __real_pthread_create(t, attr, fn, arg);
}

int __wrap_pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *attr)
{
    int rc;
    if (failing == FAIL_MUTEX)
        return ENOMEM;
    if ((rc = __real_pthread_mutex_init(m, attr)) == 0)
        mutexes++;
    return rc;
}

int __wrap_pthread_mutex_destroy(pthread_mutex_t *m)
{
    mutexes--;
    return __real_pthread_mutex_destroy(m);
}

int __wrap_pthread_cond_init(pthread_cond_t *c, const pthread_condattr_t *attr)
{
    int rc;
    if (failing == FAIL_COND)
        return ENOMEM;
    if ((rc = __real_pthread_cond_init(c, attr)) == 0)
        conds++;
    return rc;
}

int __wrap_pthread_cond_destroy(pthread_cond_t *c)
{
    conds--;
    return __real_pthread_cond_destroy(c);
}

/* An upstream that has nothing to give and says when it is freed. */
typedef struct empty_source {
    ddb_source base;
    int *freed;
} empty_source;

static ssize_t empty_read(ddb_source *s, void *buf, size_t len, ddb_error *err)
{
    (void)s, (void)buf, (void)len, (void)err;
    return 0;
}

static void empty_free(ddb_source *s)
{
    *((empty_source *)s)->freed = 1;
}

static const ddb_source_vtable empty_vt = {empty_read, empty_free, NULL};

static ddb_source *empty_new(int *freed)
{
    empty_source *s = calloc(1, sizeof(*s));
    cr_assert_not_null(s);
    s->base.vt = &empty_vt;
    cr_assert_not_null(s->base.name = strdup("upstream"));
    s->freed = freed;
    return &s->base;
}

/* The readahead cannot be made: an error, no source, and nothing of it left:
 * no lock or condition undestroyed, the upstream freed (it was given). */
static void cannot_start(int which)
{
    ddb_source *ra = (ddb_source *)&ra;
    ddb_error err;
    int freed = 0;

    failing = which;
    cr_assert_neq(ddb_source_new_readahead(&ra, empty_new(&freed), &err), 0);
    cr_assert_null(ra);
    cr_assert(strstr(err.message, "upstream") != NULL, "%s", err.message);
    cr_assert_eq(threads, 0);
    cr_assert_eq(mutexes, 0, "a mutex was left undestroyed");
    cr_assert_eq(conds, 0, "a condition variable was left undestroyed");
    cr_assert(freed, "the upstream was not freed");
}

Test(readahead_start, thread_cannot_be_started)
{
    cannot_start(FAIL_THREAD);
}

Test(readahead_start, condition_cannot_be_made)
{
    cannot_start(FAIL_COND);
}

Test(readahead_start, mutex_cannot_be_made)
{
    cannot_start(FAIL_MUTEX);
}

/* Started and freed: the wraps see the lock, the condition and the thread
 * (so the tests above can fail), and freeing ends them all. */
Test(readahead_start, started_then_freed_ends_everything)
{
    ddb_source *ra = NULL;
    ddb_error err;
    char buf[8];
    int freed = 0;

    cr_assert_eq(ddb_source_new_readahead(&ra, empty_new(&freed), &err), 0, "%s", err.message);
    cr_assert_eq(threads, 1);
    cr_assert_eq(mutexes, 1);
    cr_assert_eq(conds, 1);
    cr_assert_eq(ddb_source_read(ra, buf, sizeof(buf), &err), 0);
    ddb_source_free(ra);
    cr_assert_eq(mutexes, 0);
    cr_assert_eq(conds, 0);
    cr_assert(freed);
}

/* Writing behind without a thread, its lock or its condition: the bytes are
 * written in place, in order, and nothing is left made. */
static void behind_in_place(int which)
{
    ddb_sink *s;
    ddb_sink_behind *b;
    ddb_buf buf = {0};
    ddb_error err;
    size_t len;

    failing = which;
    cr_assert_eq(ddb_sink_new_memory(&s, &err), 0);
    cr_assert_eq(ddb_sink_behind_start(&b, s, &err), 0, "%s", err.message);
    cr_assert_eq(threads, 0);
    for (int i = 0; i < 3; i++) {
        cr_assert_eq(ddb_buf_printf(&buf, "piece %d;", i), 0);
        cr_assert_eq(ddb_sink_behind_swap(b, &buf, &err), 0, "%s", err.message);
        cr_assert_eq(buf.len, 0);
    }
    cr_assert_eq(ddb_sink_behind_end(b, &err), 0);
    cr_assert_str_eq(ddb_sink_memory_data(s, &len), "piece 0;piece 1;piece 2;");
    cr_assert_eq(mutexes, 0, "a mutex was left undestroyed");
    cr_assert_eq(conds, 0, "a condition variable was left undestroyed");
    ddb_buf_dispose(&buf);
    ddb_sink_free(s);
}

Test(readahead_start, behind_without_a_thread_writes_in_place)
{
    behind_in_place(FAIL_THREAD);
    behind_in_place(FAIL_COND);
    behind_in_place(FAIL_MUTEX);
}

/* Writing behind on a thread: made, and ended with everything. */
Test(readahead_start, behind_started_then_ended)
{
    ddb_sink *s;
    ddb_sink_behind *b;
    ddb_error err;

    cr_assert_eq(ddb_sink_new_memory(&s, &err), 0);
    cr_assert_eq(ddb_sink_behind_start(&b, s, &err), 0);
    cr_assert_eq(threads, 1);
    cr_assert_eq(mutexes, 1);
    cr_assert_eq(conds, 1);
    cr_assert_eq(ddb_sink_behind_end(b, &err), 0);
    cr_assert_eq(mutexes, 0);
    cr_assert_eq(conds, 0);
    ddb_sink_free(s);
}
