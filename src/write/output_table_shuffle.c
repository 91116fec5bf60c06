/*
 * output_table_shuffle.c — the table writer's shuffle window (output_table.c).
 *
 * DynamoDB spreads a table over partitions by a hash of the partition key,
 * and each partition takes about 1,000 WCU/s. An input in key order (a Scan
 * export comes in hash order; a CSV of one user's items shares one partition
 * key) sends every batch to the same partition, which throttles while the
 * others idle. Writes that are ready therefore wait in a window of up to
 * `window` entries (and WINDOW_BYTES of requests) and leave it in a random
 * order: each new entry takes the place of a randomly chosen one, which goes
 * to the pending list.
 *
 * Only entries whose key is not busy ever enter the window (a later write of
 * a busy key waits in the blocked list until the earlier one is done), so two
 * writes of one key are never reordered. An entry in the window is not
 * acknowledged, so a checkpoint never counts it as written.
 */
#include <stdlib.h>

#include "ddbpipe/rng.h"
#include "write/output_table_internal.h"

/* The requests held at most: a window of 400 KB items must not hold 1.6 GB. */
#define WINDOW_BYTES (16u * 1024u * 1024u)

int tw_shuffle_init(table_output *to, size_t window, uint64_t seed)
{
    to->shuffle.cap = window;
    if (window == 0)
        return 0;
    ddb_rng_seed(&to->shuffle.rng, seed);
    to->shuffle.slots = malloc(window * sizeof(entry *));
    return to->shuffle.slots == NULL ? DDB_ENOMEM : 0;
}

/* Moves slot i of the window to the pending list; the last slot fills its place. */
static void release(table_output *to, size_t i)
{
    tw_shuffle *w = &to->shuffle;
    entry *e = w->slots[i];
    w->bytes -= e->req_len;
    w->slots[i] = w->slots[--w->n];
    tw_list_push(&to->pending, e);
}

void tw_shuffle_add(table_output *to, entry *e)
{
    tw_shuffle *w = &to->shuffle;
    if (w->cap == 0) {
        tw_list_push(&to->pending, e);
        return;
    }
    w->slots[w->n++] = e;
    w->bytes += e->req_len;
    while (w->n > 0 && (w->n == w->cap || w->bytes > WINDOW_BYTES))
        release(to, (size_t)ddb_rng_below(&w->rng, w->n));
}

void tw_shuffle_drain(table_output *to)
{
    tw_shuffle *w = &to->shuffle;
    while (w->n > 0)
        release(to, (size_t)ddb_rng_below(&w->rng, w->n));
}

void tw_shuffle_free(table_output *to)
{
    /* never acknowledged: a resumed run writes them again */
    for (size_t i = 0; i < to->shuffle.n; i++)
        free(to->shuffle.slots[i]);
    free(to->shuffle.slots);
    to->shuffle.slots = NULL;
    to->shuffle.n = 0;
}
