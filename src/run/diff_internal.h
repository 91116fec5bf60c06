/*
 * diff_internal.h (private header of run/) — what the two halves of the diff share: the
 * partitioning side (diff.c: rows, side outputs, bucket files) and the
 * comparison (diff_compare.c).
 *
 * A bucket file is a sequence of entries: row (u32), key length (u32),
 * value length (u32), extra length (u32), all little-endian, then the key,
 * the value and the extra. The key is the canonical JSON of the record's key
 * fields, the value the canonical JSON of the whole record, so equal records
 * are equal bytes. The extra is side B's item key when the caller acts on
 * the verdicts (sync deletes by it), else empty: it is never compared.
 */
#ifndef DDBPIPE_DIFF_INTERNAL_H
#define DDBPIPE_DIFF_INTERNAL_H

#include "ddbpipe/diff.h"

#define DIFF_ENTRY_HEADER 16

typedef struct diff_rowdef {
    char **key_fields; /* the entity's table-key fields, in declared order */
    size_t n_key;
} diff_rowdef;

/* Bucket files being written: one per bucket, opened on first use. */
typedef struct diff_buckets {
    ddb_sink **files;
    char *prefix; /* work/L<level>-<path>- ; the file is prefix<bucket><a|b> */
    unsigned level;
    uint64_t bytes;
} diff_buckets;

struct side_out;

struct ddb_diff {
    ddb_diff_opts o;
    const ddb_mapping *map[2];
    char *work;
    ddb_diff_row *rows;
    diff_rowdef *defs;
    size_t n_rows, rows_cap, defs_cap;
    int unmatched_row, items_row;
    char **key_attrs;
    size_t n_key_attrs;
    struct side_out *sides[2];
    diff_buckets buckets[2]; /* level 0 */
    uint64_t sample_limit;   /* keep a key when its sample hash is below (sampling only) */
    int sampling;
    ddb_diff_stats st;
};

/* The bucket (0..fanout-1) of a key at a partitioning level. */
unsigned diff_bucket_of(const ddb_diff *d, unsigned level, uint32_t row, const char *key,
                        size_t klen);

/* One entry of a bucket file (see above). */
typedef struct diff_entry {
    const char *key, *val, *x;
    uint32_t row, klen, vlen, xlen;
    uint64_t seq;
} diff_entry;

/* Opens (on first use) bucket b of bk and appends e. */
int diff_bucket_put(const ddb_diff *d, diff_buckets *bk, int side, unsigned b, const diff_entry *e,
                    ddb_error *err);

/* Finishes and closes every open file of bk. */
int diff_buckets_finish(const ddb_diff *d, diff_buckets *bk, ddb_error *err);
void diff_buckets_dispose(const ddb_diff *d, diff_buckets *bk);

/* The path of bucket b of side under prefix (malloc'd). */
char *diff_bucket_path(const char *prefix, unsigned b, int side);

#endif
