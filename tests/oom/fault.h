/* fault.h — the allocation-failure countdown of the oom tests (fault.c). */
#ifndef DDBPIPE_TEST_OOM_FAULT_H
#define DDBPIPE_TEST_OOM_FAULT_H

/* The n-th engine allocation from now on fails (n >= 1; 0 disarms). */
void oom_arm(long n);

/* The n-th allocation the calling thread makes from now on fails (n >= 1);
 * other threads' allocations neither count nor fail, so a path that hands
 * work to a helper thread fails at the same point in every run. */
void oom_arm_thread(long n);

/* Disarms; returns 1 when the armed failure happened. */
int oom_disarm(void);

/* Runs scenario with the failure armed at n = 1, 2, ... until a run completes
 * without it; *clean_rc gets that run's result. Returns how many allocations
 * the path has (each was made to fail once). */
long oom_run(int (*scenario)(void *ctx), void *ctx, int *clean_rc);

#endif
