/*
 * parquet_internal.h (private header of write/) — the Parquet writer's state,
 * shared by its pages (parquet_file.c) and its footer (parquet_footer.c).
 */
#ifndef DDBPIPE_WRITE_PARQUET_INTERNAL_H
#define DDBPIPE_WRITE_PARQUET_INTERNAL_H

#include "write/parquet.h"

/* Statistics kept only for values this short: a footer holds them per row
 * group and column, and a long text would swell it. */
#define PQ_STATS_MAX 64

/* One column chunk as the footer describes it. */
typedef struct pq_chunk {
    /* its data page header's and its dictionary page header's (0: none),
     * from the file's start once written; while its row group is encoded,
     * from the row group's start, and has_dict says there is a dictionary */
    int64_t offset, dict_offset;
    int has_dict;
    int64_t compressed, uncompressed; /* with the page header */
    int64_t n_values, n_nulls;
    unsigned char min[PQ_STATS_MAX], max[PQ_STATS_MAX];
    uint8_t min_len, max_len;
    int has_minmax;
} pq_chunk;

typedef struct pq_col {
    char *name;
    char *group; /* the STRUCT it is a member of, or NULL */
    pq_kind kind;
    int list;
    int max_def, max_rep;
    /* NUMBER: DECIMAL(precision, scale) once decided (precision 38 unless
     * declared), or exact text */
    int decided, as_text, scale, precision;
    int declared; /* the mapping gave precision and scale */
    pq_number_plan *plan; /* shared with the table's other files, or NULL */
    /* the row group being gathered: a level pair per value slot, and the
     * values PLAIN-encoded (BYTE_ARRAY: 4-byte length and bytes; NUMBER:
     * its text so; BOOL: a byte each) */
    ddb_buf defs, reps, values;
    size_t n_present;
    pq_chunk *chunks; /* one per row group written */
} pq_col;

/* A dictionary larger than this is not one (the chunk is PLAIN): it bounds
 * the memory a column chunk's dictionary takes, and a reader's. */
#define PQ_DICT_BYTES (1u << 20)

typedef struct pq_dict_entry {
    uint64_t hash;
    size_t at;    /* its bytes in plain */
    uint32_t len;
} pq_dict_entry;

/* A column chunk's dictionary, kept by the file and reused chunk after chunk. */
typedef struct pq_dict {
    ddb_buf plain;          /* the dictionary page's values, PLAIN */
    pq_dict_entry *entries; /* n of them, in index order */
    size_t n, cap;
    uint32_t *slots; /* a hash table of entry + 1 (0: empty) */
    size_t n_slots;
    uint32_t *idx; /* per value: its entry */
    size_t cap_idx;
    int bit_width; /* of the indices: 0 for a one-value dictionary */
} pq_dict;

/*
 * Builds d from count PLAIN values, vals[0, len): BYTE_ARRAYs (width 0) or
 * values of width bytes each. Returns 1 when a dictionary pays (its page and
 * the indices smaller than the values), d->plain, d->idx and d->bit_width
 * then set; 0 when not, or when it would pass PQ_DICT_BYTES, hold more than
 * half as many entries as values, or memory runs out: the chunk is PLAIN.
 */
int pq_dict_build(pq_dict *d, const unsigned char *vals, size_t len, int width, size_t count);

/* Appends indices v[0..n) of bit width bw (0..32) in the RLE/bit-packed
 * hybrid, without a length: runs of 8 or more RLE, the rest bit-packed
 * groups of 8 (the last padded). Width 0 (one entry) is one run. */
void pq_rle_encode_indices(ddb_buf *out, const uint32_t *v, size_t n, int bw);

void pq_dict_dispose(pq_dict *d);

typedef struct pq_group {
    int64_t rows, offset, compressed, uncompressed;
} pq_group;

/* What encoding a row group needs besides its columns: kept from row group
 * to row group by the thread that encodes (a file's own, without a budget,
 * given back after each row group). */
typedef struct pq_coder {
    ddb_buf page, packed, header;
    ddb_buf fixed; /* a decimal column chunk's values in their physical form */
    struct ZSTD_CCtx_s *zstd; /* the pages' compression context, made on first use */
    pq_dict dict;
} pq_coder;

void pq_coder_dispose(pq_coder *k);

/*
 * A row group taken from its file to be encoded, on the file's thread or
 * the budget's encoding thread (parquet_ahead.c). Encoding depends on
 * nothing but what the job holds, so where it runs changes no byte.
 */
typedef struct pq_job {
    pq_file *f;
    pq_codec codec;   /* f's */
    size_t group;     /* its index in f->groups */
    int64_t rows;     /* in the row group */
    size_t gathered;  /* its bytes of values and levels */
    size_t n_cols;
    pq_col *cols;     /* the file's columns as they were (numbers decided), each with
                         the row group's levels and values, which are the job's */
    pq_chunk *chunks; /* per column, offsets from the row group's start */
    ddb_buf out;      /* the row group's pages */
    int rc;
    ddb_error err;
} pq_job;

/* Encodes j's columns into j->out with k; each column's buffers are given
 * back once it is encoded. Sets j->rc and j->err. */
void pq_job_encode(pq_job *j, pq_coder *k);

void pq_job_free(pq_job *j);

/* Gives back c's levels and values (a row group's, gathered or encoded). */
void pq_col_dispose_group(pq_col *c);

/* Writes j's pages onto its file and describes its row group for the
 * footer; frees j. 0, or j's error or the sink's, which the file keeps
 * (pq_file.failed). */
int pq_job_commit(pq_job *j, ddb_error *err);
struct pq_file {
    ddb_sink *sink;
    pq_opts opts;
    pq_col *cols;
    size_t n_cols;
    pq_group *groups;
    size_t n_groups, cap_groups;
    size_t n_reserved; /* row groups taken to be written: n_groups and those being encoded */
    uint64_t rows;       /* in the file */
    uint64_t group_rows; /* in the row group being gathered */
    int64_t offset;      /* bytes written so far */
    /* the row groups written: their bytes as gathered (values and levels), and on the disk */
    int64_t raw_bytes, packed_bytes;
    size_t gathered; /* the row group being gathered's bytes (counted into the budget) */
    pq_budget *budget; /* shared with the output's other files, or NULL */
    int full;            /* a row group was closed early at opts.max_file_bytes */
    pq_coder coder;      /* without a budget: its own */
    pq_job *held; /* a row group encoded ahead, left by a budget freed first, to write */
    /* a row group of it could not be encoded or written (while another file
     * was handing one over, say): the file is not finished, this is said */
    int failed;
    ddb_error failure;
};

struct pq_budget {
    size_t limit; /* bytes of values and levels gathered, all files */
    size_t used;  /* the sum of its files' gathered */
    pq_file **files;
    size_t n, cap;
    pq_coder coder;          /* the calling thread's, for its files */
    struct pq_ahead *ahead;  /* the encoding thread, or NULL (pq_budget_encode_ahead) */
};

/* Hands j over to b's encoding thread, once the row group it holds (at
 * most one) is written onto its file. 0, or that row group's error (its
 * file keeps it); j is handed over all the same. */
int pq_ahead_hand_over(pq_budget *b, pq_job *j, ddb_error *err);
/* The row group b's encoding thread holds, when it is f's, written onto f;
 * 0 or its error. */
int pq_ahead_settle(pq_budget *b, const pq_file *f, ddb_error *err);
/* f's row group held by b's encoding thread, if any, dropped unwritten. */
void pq_ahead_forget(pq_budget *b, const pq_file *f);
/* Stops b's encoding thread; a row group it held is left to its file
 * (pq_file.held). */
void pq_ahead_free(pq_budget *b);

/* f counted in b (f->budget set). 0 or DDB_ENOMEM. */
int pq_budget_join(pq_budget *b, pq_file *f, ddb_error *err);
/* f no longer counted in its budget, if any. */
void pq_budget_leave(pq_file *f);
/* The file of b gathering the most bytes. */
pq_file *pq_budget_largest(const pq_budget *b);

/* Takes the rows gathered out of f as one row group, then encodes and
 * writes it, or hands it to the budget's encoding thread (written later, in
 * order: pq_ahead_hand_over). */
int pq_write_group(pq_file *f, ddb_error *err);

/* The footer (FileMetaData, its length, the magic) onto the sink. */
int pq_write_footer(pq_file *f, ddb_error *err);

/* Is the column a DECIMAL (a number column not kept as text)? */
static inline int pq_is_decimal(const pq_col *c)
{
    return c->kind == PQ_NUMBER && !c->as_text;
}

/* The physical form of a decimal column: 4 (INT32), 8 (INT64), or else a
 * FIXED_LEN_BYTE_ARRAY of this many bytes (Parquet's LogicalTypes.md). */
typedef struct pq_decimal_form {
    int type;  /* Parquet Type: 1 INT32, 2 INT64, 7 FIXED_LEN_BYTE_ARRAY */
    int bytes; /* per value */
} pq_decimal_form;

pq_decimal_form pq_decimal_form_of(const pq_col *c);

/* A number column's type from the values of its first row group that has
 * any: DECIMAL(38, the largest scale), or text when no DECIMAL(38,s) holds
 * them all. */
void pq_decide_number(pq_col *c);

/* The 16-byte big-endian two's complement of text * 10^scale (a valid
 * number that DECIMAL(38, scale) holds). */
void pq_decimal_bytes(unsigned char out[16], const char *text, size_t len, int scale);

/* The next of the PLAIN byte arrays in b from *at (moved past it). */
const char *pq_next_bytes(const ddb_buf *b, size_t *at, uint32_t *len);

/* Writes n bytes at p, counting them into f->offset. */
int pq_write(pq_file *f, const void *p, size_t n, ddb_error *err);

#endif
