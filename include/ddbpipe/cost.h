/*
 * cost.h — what a run costs by DynamoDB's rules, before it runs: the write
 * units of an item in the table and in each of its indexes, the read units of
 * a Scan, and the on-demand price of them from a dated price table
 * (formats/prices/on-demand.json, built in; --prices FILE for another).
 */
#ifndef DDBPIPE_COST_H
#define DDBPIPE_COST_H

#include <stddef.h>
#include <stdint.h>

#include "ddbpipe/error.h"

#include "ddbpipe/item.h"
#include "ddbpipe/table.h"

/* Write units of a put of item (size: its DynamoDB size) into table t: 1
 * per started KB in the table, returned; *index_units gets what the
 * indexes of t add (each index the item carries the key attributes of, 1
 * per started KB of its projection of the item). t NULL: no indexes. */
uint64_t ddb_cost_put_units(const ddb_map *item, size_t size, const ddb_table_info *t,
                            uint64_t *index_units);

/* Read units of a Scan reading bytes of items: 4 KB units summed over its
 * pages, halved when eventually consistent (rounded up). */
uint64_t ddb_cost_scan_units(uint64_t bytes, int consistent);

typedef struct ddb_region_prices {
    double write_per_million; /* USD per million write request units (on-demand) */
    double read_per_million;  /* USD per million read request units */
    double export_per_gb;     /* ExportTableToPointInTime, full export, per GB of the table */
    double import_per_gb;     /* ImportTable, per GB of uncompressed source data */
} ddb_region_prices;

typedef struct ddb_prices ddb_prices;

/* The price table in path (NULL: the built-in one). *out owned by the
 * caller (ddb_prices_free). Returns 0, DDB_EIO (unreadable), DDB_EINVAL (not
 * a price table: err says where), DDB_ENOMEM. */
DDB_MUST_USE int ddb_prices_load(ddb_prices **out, const char *path, ddb_error *err);

/* region's prices, or NULL when the table has none for it. */
const ddb_region_prices *ddb_prices_region(const ddb_prices *p, const char *region);

/* The date the prices were read ("as_of") and where from ("source"). */
const char *ddb_prices_as_of(const ddb_prices *p);
const char *ddb_prices_source(const ddb_prices *p);

void ddb_prices_free(ddb_prices *p);

#endif
