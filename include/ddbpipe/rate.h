/*
 * rate.h — a token bucket over capacity units, and the adaptive part that
 * backs off when DynamoDB throttles.
 *
 * Tokens refill at `rate` per second up to a small burst. A request may start
 * when the bucket is not in debt; it takes its estimated cost at once (going
 * into debt if it must), and the difference between estimate and what
 * DynamoDB reports is settled when the answer comes. Consumption therefore
 * averages at most `rate` units per second whatever the number of requests in
 * flight and whatever the item sizes; estimates are scaled by the observed
 * ratio of actual to estimated cost (index writes make items cost more).
 */
#ifndef DDBPIPE_RATE_H
#define DDBPIPE_RATE_H

#include <stdint.h>

typedef struct ddb_rate {
    double limit;  /* the user's ceiling, units/s (0 = unlimited) */
    double rate;   /* current rate: lowered on throttling, raised back slowly */
    double tokens; /* may be negative: debt */
    double burst;
    double last;  /* seconds of the last refill */
    double ratio; /* actual / estimated cost, learned */
    double last_decrease;
    double last_tick;
    double consumed; /* units reported so far */
} ddb_rate;

/* per_second 0 makes every take() succeed (only accounting is done). */
void ddb_rate_init(ddb_rate *r, double per_second, double now);

/* Scales an estimate by the learned actual/estimated ratio. */
double ddb_rate_cost(const ddb_rate *r, double estimate);

/* Takes cost if the bucket is not in debt: returns 0. Otherwise returns the
 * milliseconds until it will be (nothing taken). */
uint32_t ddb_rate_take(ddb_rate *r, double cost, double now);

/* A request that took `taken` really consumed `actual` units. */
void ddb_rate_settle(ddb_rate *r, double taken, double actual);

/* Multiplicative decrease on throttling (at most once a second), additive
 * increase back towards the limit while none comes. */
void ddb_rate_throttled(ddb_rate *r, double now);
void ddb_rate_tick(ddb_rate *r, double now);

#endif
