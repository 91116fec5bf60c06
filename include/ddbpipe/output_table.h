/*
 * output_table.h — the BatchWriteItem writer: an output (see output.h) that
 * puts and deletes items in a DynamoDB table.
 */
#ifndef DDBPIPE_OUTPUT_TABLE_H
#define DDBPIPE_OUTPUT_TABLE_H

#include <stdint.h>

#include "ddbpipe/error.h"

#include "ddbpipe/client.h"
#include "ddbpipe/output.h"
#include "ddbpipe/table.h"

/* How items are written. BatchWriteItem has no conditions and no partial
 * updates, so the other two go one item per request. */
typedef enum ddb_write_mode {
    DDB_WRITE_BATCH = 0, /* BatchWriteItem: 25 puts (whole items) or deletes a request */
    DDB_WRITE_IF_ABSENT, /* PutItem with attribute_not_exists(partition key): an item
                            already there is left as it was (the output's exists callback) */
    DDB_WRITE_UPDATE     /* UpdateItem SET of the item's attributes: the others it has in
                            the table stay */
} ddb_write_mode;

/* The shuffle window the command line uses unless told otherwise: a few
 * thousand items spread a sorted input over partitions; each holds its
 * request (the item's JSON) until it goes out. */
#define DDB_SHUFFLE_WINDOW 4096

typedef struct ddb_table_output_opts {
    ddb_client *client; /* borrowed */
    const char *table;
    const ddb_table_info *info; /* borrowed: the key schema items are checked against */
    int max_attempts;           /* per item, for UnprocessedItems (default 10) */
    uint32_t backoff_base_ms;   /* default 50 */
    uint32_t backoff_cap_ms;    /* default 20000 */
    uint64_t random_seed;       /* 0 = from the clock */
    double max_wcu;             /* write capacity units per second at most (0 = no limit) */
    ddb_write_mode mode;
    size_t shuffle_window; /* writes held to go out in a random order (0 = input order);
                              a sorted input then spreads over the table's partitions */
} ddb_table_output_opts;

typedef struct ddb_table_write_stats {
    uint64_t written;      /* accepted by DynamoDB */
    uint64_t rejected;     /* refused: invalid for the table, or attempts exhausted */
    uint64_t abandoned;    /* dropped because the table itself failed (not done, not refused) */
    uint64_t unprocessed;  /* times an item came back in UnprocessedItems */
    uint64_t throttles;    /* throttling answers to whole requests */
    uint64_t batches;      /* BatchWriteItem calls (before the client's retries) */
    uint64_t splits;       /* batches halved to isolate a ValidationException */
    uint64_t blocked;      /* writes that waited for an earlier write of the same key */
    double capacity_units; /* ConsumedCapacity reported by DynamoDB */
    double rate;           /* current WCU/s ceiling (adaptive; 0 = none) */
    uint64_t in_flight;    /* items sent whose answer has not come yet */
    uint64_t updated;      /* of written: UpdateItem (DDB_WRITE_UPDATE) */
    uint64_t existing;     /* DDB_WRITE_IF_ABSENT: already there, left as they were */
} ddb_table_write_stats;

/*
 * A writer into opts->table. put() validates each item against the table's
 * key schema (an invalid item is rejected alone, through the output's reject
 * callback), queues it and returns; batches go out as they fill, and put()
 * waits only when the queue (concurrency x 100 items) is full, so memory
 * stays bounded. Acks arrive as DynamoDB accepts items. finish() sends the
 * rest and waits until every item is written or rejected. A non-retryable
 * error of the table itself (missing table, no permission) makes put/finish
 * fail with DDB_ENET naming the table, region and endpoint; the items then
 * in hand are neither acked nor rejected (the run reports them as not done).
 * Returns 0 or DDB_ENOMEM.
 */
DDB_MUST_USE int ddb_table_output_new(ddb_output **out, const ddb_table_output_opts *opts,
                                      ddb_error *err);

void ddb_table_output_stats(const ddb_output *o, ddb_table_write_stats *out);

#endif
