/*
 * diff.h — are two tables (or a table and an export, or two exports) the same
 * records? Each side is read by the ordinary pipeline into a diff output,
 * which decodes items with that side's mapping and keys every record by its
 * entity and table-key fields; then the two sides are compared record by
 * record: numbers by value, sets as sets, binary as bytes (canon.h).
 *
 * Memory stays bounded whatever the size of the tables: records are
 * hash-partitioned into bucket files on disk by their key, and buckets are
 * compared one pair at a time (a pair too large for memory is partitioned
 * again with another hash). Why hashing and not sorting runs: the order of
 * records does not matter to a comparison, partitioning writes each record
 * once and reads it once (an external sort merges runs in more passes), and
 * the same key hash chooses the sample of --sample on both sides.
 */
#ifndef DDBPIPE_DIFF_H
#define DDBPIPE_DIFF_H

#include <stddef.h>
#include <stdint.h>

#include "ddbpipe/buf.h"
#include "ddbpipe/error.h"
#include "ddbpipe/sink.h"
#include "ddbpipe/mapping.h"
#include "ddbpipe/output.h"

typedef struct ddb_diff ddb_diff;

typedef struct ddb_diff_opts {
    const char *work_dir;         /* bucket files go in a folder made here, removed at the end */
    double sample;                /* share of the keys compared (0 or >= 1: all) */
    uint64_t sample_seed;         /* which share: the same on both sides */
    size_t max_memory;            /* bytes one pair of buckets may use (0: 256 MiB) */
    unsigned fanout;              /* bucket files per side and level (0: 64) */
    const char *const *key_attrs; /* the key attributes of items compared without a
                                     mapping (table partition key, then sort key) */
    size_t n_key_attrs;
} ddb_diff_opts;

typedef struct ddb_diff_counts {
    uint64_t equal;
    uint64_t different;
    uint64_t only_a;
    uint64_t only_b;
    uint64_t dup_a; /* keys found again on side A (the last one is compared) */
    uint64_t dup_b;
} ddb_diff_counts;

typedef struct ddb_diff_row {
    const char *name; /* an entity, "(unmatched)" for items no entity matches, or
                         "(items)" for items compared without a mapping */
    ddb_diff_counts c;
} ddb_diff_row;

typedef struct ddb_diff_stats {
    ddb_diff_row *rows;
    size_t n_rows;
    ddb_diff_counts total;
    uint64_t kept[2];    /* records of side A, B put into buckets */
    uint64_t skipped[2]; /* records left out by the sample */
    uint64_t bucket_bytes[2];
    unsigned levels; /* deepest partitioning level used (1: no bucket was split) */
} ddb_diff_stats;

/*
 * A comparison of side A (read with mapping a, or as plain items when a is
 * NULL) and side B (mapping b or plain items). Records of entities with the
 * same name are compared; their key is the table-key fields of mapping a's
 * entity (b's when a has no such entity). A field b declares with another
 * type than a (favorites-v2.json re-types clipTime from S to N) is compared
 * as a's type, converted as convert would. Without mappings o->key_attrs
 * must name the key. Creates a work folder under o->work_dir. *out owned by
 * the caller (ddb_diff_free). Returns 0, DDB_EUSAGE, DDB_EIO, DDB_ENOMEM.
 */
int ddb_diff_new(ddb_diff **out, const ddb_mapping *a, const ddb_mapping *b, const ddb_diff_opts *o,
                 ddb_error *err);

/*
 * The output a side is read into (side 0: A, 1: B); owned by d (never pass
 * it to ddb_output_free). It takes
 * items (as a pipeline in import mode hands them: record files are encoded
 * first) and decodes them with the side's mapping; an item that does not
 * decode is refused through the output's reject callback, with the reason.
 * Returns 0 or DDB_ENOMEM.
 */
int ddb_diff_side(ddb_diff *d, int side, ddb_output **out, ddb_error *err);

/*
 * Compares the two sides once both were read (and their outputs finished),
 * writing one JSON line per difference to out: {"entity", "key", "diff":
 * "different" with "attributes": {name: {"a", "b"}}, or "only_in_a" with
 * "a", or "only_in_b" with "b"}; values in canonical DynamoDB JSON, null
 * for an absent attribute. Lines come in bucket order, sorted by key within
 * a bucket: the same inputs give the same file. Returns 0, DDB_EIO (a bucket
 * file or out), DDB_ENOMEM.
 */
int ddb_diff_compare(ddb_diff *d, ddb_sink *out, ddb_error *err);

const ddb_diff_stats *ddb_diff_get_stats(const ddb_diff *d);

/* The totals as the members of a JSON object (no braces, for the caller to
 * add its own): equal, different, only_in_a, only_in_b (and duplicates),
 * what each side contributed, and the same counts per entity under
 * "entities". Appended to out. */
void ddb_diff_stats_json(ddb_buf *out, const ddb_diff *d);

/* A table of the counts per entity for people (appended). */
void ddb_diff_stats_format(ddb_buf *out, const ddb_diff *d);

/* Frees d and removes its work folder. Accepts NULL. */
void ddb_diff_free(ddb_diff *d);

#endif
