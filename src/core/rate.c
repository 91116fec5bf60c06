#include "ddbpipe/rate.h"

void ddb_rate_init(ddb_rate *r, double per_second, double now)
{
    r->limit = r->rate = per_second > 0 ? per_second : 0;
    r->tokens = 0; /* no initial burst: the first second is within the limit too */
    r->burst = r->rate / 10.0;
    r->last = now;
    r->ratio = 1.0;
    r->last_decrease = 0;
    r->last_tick = now;
    r->consumed = 0;
}

static void refill(ddb_rate *r, double now)
{
    if (now > r->last) {
        r->tokens += (now - r->last) * r->rate;
        if (r->tokens > r->burst)
            r->tokens = r->burst;
        r->last = now;
    }
}

double ddb_rate_cost(const ddb_rate *r, double estimate)
{
    return estimate * r->ratio;
}

uint32_t ddb_rate_take(ddb_rate *r, double cost, double now)
{
    if (r->limit <= 0)
        return 0;
    refill(r, now);
    if (r->tokens < 0) {
        double ms = -r->tokens / r->rate * 1000.0;
        return ms < 1 ? 1 : (uint32_t)ms;
    }
    r->tokens -= cost;
    return 0;
}

void ddb_rate_settle(ddb_rate *r, double taken, double actual)
{
    r->consumed += actual;
    if (taken > 0 && actual > 0) {
        /* exponential moving average of how far estimates are off */
        double observed = actual / (taken / r->ratio);
        r->ratio = 0.8 * r->ratio + 0.2 * observed;
        if (r->ratio < 0.1)
            r->ratio = 0.1;
    }
    if (r->limit > 0)
        r->tokens -= actual - taken;
}

void ddb_rate_throttled(ddb_rate *r, double now)
{
    if (r->limit <= 0 || now - r->last_decrease < 1.0)
        return;
    r->last_decrease = now;
    r->rate *= 0.7;
    if (r->rate < r->limit / 100.0)
        r->rate = r->limit / 100.0;
    r->burst = r->rate / 10.0;
}

void ddb_rate_tick(ddb_rate *r, double now)
{
    double dt = now - r->last_tick;
    r->last_tick = now;
    /* +5% of the limit per second without throttling, back up to the limit */
    if (r->limit <= 0 || r->rate >= r->limit || now - r->last_decrease < 1.0 || dt <= 0)
        return;
    r->rate += r->limit * 0.05 * (dt > 1.0 ? 1.0 : dt);
    if (r->rate > r->limit)
        r->rate = r->limit;
    r->burst = r->rate / 10.0;
}
