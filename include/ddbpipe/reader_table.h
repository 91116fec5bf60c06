/*
 * reader_table.h — a live table as an input: parallel Scan segments, or one
 * Query, each paginated with LastEvaluatedKey -> ExclusiveStartKey.
 */
#ifndef DDBPIPE_READER_TABLE_H
#define DDBPIPE_READER_TABLE_H

#include <stdint.h>

#include "ddbpipe/error.h"

#include "ddbpipe/client.h"
#include "ddbpipe/reader.h"

typedef struct ddb_table_reader_opts {
    ddb_client *client; /* borrowed; must outlive the reader */
    const char *table;
    int total_segments; /* TotalSegments (default 1: no Segment parameter) */
    int has_range;      /* read only segments first..last (inclusive), else all */
    int segment_first;
    int segment_last;
    int consistent_read;
    uint64_t page_size;  /* Limit per request; 0 = DynamoDB's 1 MB pages */
    double max_rcu;      /* read capacity units per second at most (0 = no limit) */
    uint64_t item_count; /* the table's ItemCount (DescribeTable), for progress; 0 = unknown */
    int query;           /* Query instead of Scan (one "segment": no Segment parameter) */
    const char *members; /* JSON members every request carries (",\"IndexName\":..."): the
                            key and filter expressions of a selection (select.h), or NULL */
} ddb_table_reader_opts;

typedef struct ddb_scan_stats {
    uint64_t requests; /* Scan pages received */
    uint64_t scanned;  /* ScannedCount */
    uint64_t throttles;
    double capacity_units; /* ConsumedCapacity */
} ddb_scan_stats;

/*
 * A reader over the table. Records are DDB_REC_PUT, typed, with source
 * "table NAME" and offset = the item's position in this run. A Scan that
 * fails after the client's retries ends the reader with DDB_ENET (the
 * message names the segment). Returns 0, DDB_EUSAGE (bad segment range),
 * DDB_ENOMEM.
 */
DDB_MUST_USE int ddb_reader_new_table(ddb_reader **out, const ddb_table_reader_opts *opts,
                                      ddb_error *err);

void ddb_table_reader_stats(const ddb_reader *r, ddb_scan_stats *out);

#endif
