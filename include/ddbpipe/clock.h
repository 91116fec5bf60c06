/*
 * clock.h — the monotonic clock every timer of a run reads: backoffs,
 * capacity limits, checkpoint intervals, progress rates. Never the wall
 * clock, which jumps.
 */
#ifndef DDBPIPE_CLOCK_H
#define DDBPIPE_CLOCK_H

#include <signal.h>
#include <stdint.h>

/* Seconds since an arbitrary fixed point, with sub-microsecond resolution. */
double ddb_clock_seconds(void);

/* Milliseconds since the same point. */
uint64_t ddb_clock_ms(void);

/* Sleeps up to seconds, waking early (within a tenth of a second) once *stop
 * is set (stop may be NULL): waits for AWS that a signal must cut short. */
void ddb_clock_nap(double seconds, volatile sig_atomic_t *stop);

#endif
