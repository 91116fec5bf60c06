/*
 * The allocation-failure hook (as sqlite's test_malloc.c does it): this test
 * binary is linked with -Wl,--wrap for malloc, calloc, realloc, strdup and
 * strndup, so every allocation the engine makes goes through here. Armed with
 * a countdown n, the n-th allocation from then on fails (returns NULL, errno
 * ENOMEM); oom_run() walks n = 1, 2, ... over a scenario until it completes
 * without the fault firing, so each allocation on the scenario's path fails
 * once. Under ASan/UBSan a missing NULL check crashes and a failure path that
 * forgets to free leaks: both fail the test.
 */
#include "fault.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
char *__real_strndup(const char *s, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);
char *__wrap_strdup(const char *s);
char *__wrap_strndup(const char *s, size_t n);

/* Atomic: armed for every thread, helper threads (decoding ahead, encoding
 * Parquet row groups) count down beside the armed one; exactly one
 * allocation takes the count to 0 and fails. */
static _Atomic long countdown; /* 0: disarmed */
static _Atomic int fired;
/* Armed for one thread: set before that thread starts any other, so the
 * others read them without a lock (and never touch the countdown). */
static int one_thread;
static pthread_t armed_thread;

/* Counts one allocation; 1 when it is the one that must fail. */
static int should_fail(void)
{
    if (one_thread && !pthread_equal(pthread_self(), armed_thread))
        return 0;
    if (countdown <= 0)
        return 0;
    if (atomic_fetch_sub(&countdown, 1) != 1)
        return 0;
    fired = 1;
    errno = ENOMEM;
    return 1;
}

void *__wrap_malloc(size_t n)
{
    return should_fail() ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t size)
{
    return should_fail() ? NULL : __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t n)
{
    return should_fail() ? NULL : __real_realloc(p, n);
}

char *__wrap_strdup(const char *s)
{
    return should_fail() ? NULL : __real_strdup(s);
}

char *__wrap_strndup(const char *s, size_t n)
{
    return should_fail() ? NULL : __real_strndup(s, n);
}

void oom_arm(long n)
{
    one_thread = 0;
    countdown = n;
    fired = 0;
}

void oom_arm_thread(long n)
{
    armed_thread = pthread_self();
    one_thread = 1;
    countdown = n;
    fired = 0;
}

int oom_disarm(void)
{
    countdown = 0;
    one_thread = 0;
    return fired;
}

long oom_run(int (*scenario)(void *ctx), void *ctx, int *clean_rc)
{
    for (long n = 1;; n++) {
        int rc;
        oom_arm(n);
        rc = scenario(ctx);
        if (!oom_disarm()) {
            *clean_rc = rc;
            return n - 1; /* allocations on the path, each failed once */
        }
    }
}
