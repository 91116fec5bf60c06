/*
 * sync.h — make a target table hold the source's records, writing only the
 * differences. The comparison is diff's (diff.h: both sides read, decoded
 * through their mappings, hash-partitioned by key, compared a bucket at a
 * time in bounded memory); sync acts on its verdicts: a record the target
 * lacks or holds different is encoded with the target's mapping and put, an
 * item the source lacks is deleted by its key. The writes go through the
 * table writer (output_table.h: BatchWriteItem, its retries and
 * UnprocessedItems). The target must be a table: a file target would need a
 * put file and a delete file applied later, which import of the source
 * already is.
 */
#ifndef DDBPIPE_SYNC_H
#define DDBPIPE_SYNC_H

#include <stdint.h>

#include "ddbpipe/diff.h"
#include "ddbpipe/error.h"
#include "ddbpipe/output_null.h"
#include "ddbpipe/output_table.h"

typedef struct ddb_sync_opts {
    int no_delete;         /* keep the target's items the source lacks (counted as kept) */
    int dry_run;           /* decide and count, write nothing */
    double max_wcu;        /* write capacity units per second at most (0: no limit) */
    size_t shuffle_window; /* puts and deletes shuffled within this many (0: in order) */
    int max_attempts;      /* per item, for UnprocessedItems (0: the writer's default) */
} ddb_sync_opts;

typedef struct ddb_sync_stats {
    uint64_t to_put;    /* records the target lacks or holds different, encoded to be put */
    uint64_t to_delete; /* target items the source lacks, to be deleted */
    uint64_t put;       /* of to_put: accepted by DynamoDB */
    uint64_t deleted;   /* of to_delete: accepted by DynamoDB */
    uint64_t kept;      /* target items the source lacks, kept (no_delete) */
    uint64_t refused;   /* differences not written: not encodable for the target, or
                           refused by the table (the sync rejects file says why) */
    ddb_table_write_stats writes; /* the writer's, when it wrote */
    /* The writes by DynamoDB's rules (cost.h), for a dry run's estimate: puts
     * with their sizes and units, the indexes' units, deletes 1 unit each
     * (what a deleted item's index entries add is not known), and the target */
    ddb_dry_run_stats estimate;
    long target_indexes;             /* -1: not described */
    uint64_t target_provisioned_wcu; /* 0: on-demand */
} ddb_sync_stats;

typedef struct ddb_sync_run_options {
    /* The comparison: side A the source (a table, an export, files), side B
     * the target table (side[1].scan_table, required). Its verdict and
     * keep_b_keys are the sync's own. */
    ddb_diff_run_options diff;
    ddb_sync_opts sync;
    /* While the differences are written: the counts so far, about once a
     * second (may be NULL). */
    void (*writing)(void *ctx, const ddb_sync_stats *st);
    void *writing_ctx;
} ddb_sync_run_options;

typedef struct ddb_sync_outcome {
    ddb_diff_outcome diff; /* the comparison's outcome: step, sides, counts */
    ddb_sync_stats st;
    char rejects[4096]; /* OUT/_rejects_sync.ndjson: the differences not written, with why
                           (made only when one was) */
} ddb_sync_outcome;

/*
 * Compares as ddb_diff_run does (OUT/differences.ndjson is written too:
 * what the sync found) and writes the differences to the target: deletes
 * of records only in B, and of all but the last of a record repeated in B
 * (unless no_delete), as they are found, then puts of
 * records only in A or different, kept in a spill file in the output folder
 * until the comparison is over, so a put and a delete of one key end with
 * the put. A record of A no entity matches is put as the
 * item it is only when both sides are read with the same mapping (or none);
 * re-keyed, it has no place in the target and is refused. The writer is
 * finished before it returns, so the counts are what DynamoDB accepted.
 * Returns 0, or what ddb_diff_run returns (out->diff.step says where; a
 * write that fails for the table itself stops it at DDB_DIFF_COMPARE with
 * DDB_ENET, an interrupt with DDB_EINTR). *out is filled either way
 * (ddb_sync_outcome_dispose).
 */
DDB_MUST_USE int ddb_sync_run(ddb_sync_outcome *out, const ddb_sync_run_options *o, ddb_error *err);

/* Releases what out holds (the comparison's work folder too). Accepts NULL. */
void ddb_sync_outcome_dispose(ddb_sync_outcome *out);

#endif
