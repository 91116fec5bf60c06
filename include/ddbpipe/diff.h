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
#include "ddbpipe/run.h"

typedef struct ddb_diff ddb_diff;

/* What the comparison found for one key, for a caller that acts on it (sync). */
typedef enum ddb_diff_kind {
    DDB_DIFF_ONLY_A = 1, /* a record side B lacks */
    DDB_DIFF_ONLY_B,     /* a record side A lacks */
    DDB_DIFF_DIFFERENT,  /* the same key, other values */
    DDB_DIFF_REPEATED_B  /* a record of side B whose key comes again on B (two items of a
                            table that decode to one key): only the last is compared, this
                            one is told (no line in the differences file) */
} ddb_diff_kind;

typedef struct ddb_diff_verdict {
    ddb_diff_kind kind;
    const char *entity; /* the row: an entity, "(unmatched)" or "(items)" */
    int is_item;        /* a and b are items (no entity matched, or no mapping), not records */
    const char *a, *b;  /* canonical DynamoDB JSON of the record on each side (NULL: absent) */
    size_t a_len, b_len;
    const char *b_key; /* side B's item key (its table's key attributes), canonical DynamoDB
                          JSON, when ddb_diff_opts.keep_b_keys; else NULL */
    size_t b_key_len;
} ddb_diff_verdict;

/* Called for each difference, in the order of the differences file; the
 * verdict's text lives until it returns. Returns 0, or a code that stops the
 * comparison (err set). */
typedef int (*ddb_diff_verdict_fn)(void *ctx, const ddb_diff_verdict *v, ddb_error *err);

typedef struct ddb_diff_opts {
    const char *work_dir;         /* bucket files go in a folder made here, removed at the end */
    double sample;                /* share of the keys compared (0 or >= 1: all) */
    uint64_t sample_seed;         /* which share: the same on both sides */
    size_t max_memory;            /* bytes one pair of buckets may use (0: 256 MiB) */
    unsigned fanout;              /* bucket files per side and level (0: 64) */
    const char *const *key_attrs; /* the key attributes of items compared without a
                                     mapping (table partition key, then sort key) */
    size_t n_key_attrs;
    ddb_diff_verdict_fn verdict; /* each difference, besides its line (may be NULL) */
    void *verdict_ctx;
    int keep_b_keys; /* remember side B's item keys, for the verdicts (what to delete) */
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

/* ------------------------------------------------------------------------
 * The diff command's run: each side read by a run plan (run.h) in import
 * mode into its side of a ddb_diff, then the comparison written to
 * OUT/differences.ndjson. The command line fills the options and prints,
 * through the hooks while it runs and from the outcome after.
 */

/* Where a run stopped. */
typedef enum ddb_diff_step {
    DDB_DIFF_DONE = 0, /* compared */
    DDB_DIFF_PLAN,     /* planning a side (outcome.field: the option at fault) */
    DDB_DIFF_CONNECT,  /* hooks.connect refused */
    DDB_DIFF_ATTACH,   /* attaching a side's table (field) */
    DDB_DIFF_KEY,      /* items without a mapping, and no key to compare them by */
    DDB_DIFF_SETUP,    /* the output folder, the work folder, the sides' outputs */
    DDB_DIFF_OPEN,     /* opening a side's rejects and unmatched files (field) */
    DDB_DIFF_READ,     /* reading a side: it stopped, or hooks.read said stop */
    DDB_DIFF_COMPARE   /* comparing, or writing the differences file */
} ddb_diff_step;

typedef struct ddb_diff_hooks {
    void *ctx;
    /* Side s (0: A, 1: B) reads a table: the client to read it with, borrowed
     * until ddb_diff_run returns (the same one for both sides, or each its own
     * identity). Called for each side that needs one, A first, after both
     * sides are planned. Returns 0 with *client set, or a code ddb_diff_run
     * returns (the hook said why). */
    int (*connect)(void *ctx, int side, ddb_client **client);
    /* Side s is about to be read (live progress); client may be NULL. May be NULL. */
    void (*reading)(void *ctx, int side, ddb_run_plan *plan, ddb_client *client);
    /* Side s was read: rc is what ddb_run_plan_execute returned (err set when
     * it is not 0). Returns 0 to go on, or a code that stops the run before
     * the comparison. A side that stopped (rc != 0) ends the run anyway. May
     * be NULL. */
    int (*read)(void *ctx, int side, ddb_run_plan *plan, int rc, const ddb_summary *s,
                const ddb_error *err);
} ddb_diff_hooks;

typedef struct ddb_diff_run_options {
    /* Each side's run: its inputs or scan_table, mapping_path, reader and
     * common options, and the hooks of run.h. The run sets what makes it a side
     * of a comparison: scan_allowed, own_output, folder_unmatched, no
     * to_mapping_path, and the side files OUT/_rejects_a.ndjson,
     * _unmatched_a.ndjson (_b for side B). */
    ddb_run_options side[2];
    const char *out_dir; /* made if missing: the differences, the side files, the work folder
                            (NULL: a folder of the run's own, ddbpipe-runs/diff-<UTC time>) */
    const char *key;     /* "pk,sk": the key attributes of items read without a mapping
                            (NULL: the key schema of a side that is a table) */
    ddb_diff_opts diff;  /* sample, sample_seed, max_memory, fanout (work_dir and the key
                            attributes are the run's) */
    ddb_diff_hooks hooks;
} ddb_diff_run_options;

/* What a run did, for its report; filled even when it failed. */
typedef struct ddb_diff_outcome {
    ddb_diff_step step;  /* DDB_DIFF_DONE, or the step that failed */
    int side;            /* the side it failed on (0: A, 1: B) */
    ddb_run_field field; /* the option a failed plan, attach or open is about */
    int side_rc[2];      /* what reading each side returned */
    ddb_summary s[2];    /* what each side read */
    ddb_diff *diff;      /* the comparison (ddb_diff_get_stats), once set up; owned */
    char differences[4096]; /* the differences file, once compared */
    char out_dir[4096];     /* the folder of the differences and the side files */
    char rejects[2][4096];  /* each side's rejects file (written when it rejected records) */
} ddb_diff_outcome;

/*
 * Plans both sides, connects when one is a table, attaches, makes the
 * comparison, reads A then B, and compares. *out is filled (release with
 * ddb_diff_outcome_dispose, whatever the return), and the work folder stays
 * until then. Returns 0 or the failing step's code (out->step says which):
 * DDB_EUSAGE, DDB_ENOMEM, DDB_EIO, DDB_ENOTFOUND, DDB_ENET, DDB_EINTR,
 * DDB_ELIMIT, or a hook's.
 */
DDB_MUST_USE int ddb_diff_run(ddb_diff_outcome *out, const ddb_diff_run_options *o,
                              ddb_error *err);

/* Frees what out holds (the comparison and its work folder, the summaries).
 * Accepts NULL. */
void ddb_diff_outcome_dispose(ddb_diff_outcome *out);

#endif
