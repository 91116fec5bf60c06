/* The monotonic clock (clock.h). */
#include "ddbpipe/clock.h"

#include <time.h>

double ddb_clock_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

uint64_t ddb_clock_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

void ddb_clock_nap(double seconds, volatile sig_atomic_t *stop)
{
    for (double left = seconds; left > 0 && !(stop && *stop); left -= 0.1) {
        struct timespec ts = {0, (long)((left < 0.1 ? left : 0.1) * 1e9)};
        nanosleep(&ts, NULL);
    }
}
