/*
 * output_null.h — the output of a dry run: everything is validated and
 * counted as a table writer would see it, nothing is written. It also
 * estimates the write capacity the run would consume.
 */
#ifndef DDBPIPE_OUTPUT_NULL_H
#define DDBPIPE_OUTPUT_NULL_H

#include <stdint.h>

#include "ddbpipe/error.h"

#include "ddbpipe/item.h"
#include "ddbpipe/output.h"
#include "ddbpipe/table.h"

typedef struct ddb_dry_run_stats {
    uint64_t puts;
    uint64_t deletes;
    uint64_t bytes;     /* item sizes as DynamoDB counts them */
    uint64_t wcu;       /* write units: 1 per started KB of each put; deletes count 1 */
    uint64_t index_wcu; /* what the indexes add (cost.h: ddb_cost_put_units) */
} ddb_dry_run_stats;

/* ks (may be NULL): the key schema items are checked against, as the table
 * writer would. Invalid items are rejected through the reject callback.
 * info (may be NULL: no index known) is the target whose indexes' writes
 * are counted; borrowed. */
DDB_MUST_USE int ddb_null_output_new(ddb_output **out, const ddb_key_schema *ks,
                                     const ddb_table_info *info, ddb_error *err);

void ddb_null_output_stats(const ddb_output *o, ddb_dry_run_stats *out);

#endif
