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
    int64_t offset; /* its page header's */
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

typedef struct pq_group {
    int64_t rows, offset, compressed, uncompressed;
} pq_group;

struct pq_file {
    ddb_sink *sink;
    pq_opts opts;
    pq_col *cols;
    size_t n_cols;
    pq_group *groups;
    size_t n_groups, cap_groups;
    uint64_t rows;       /* in the file */
    uint64_t group_rows; /* in the row group being gathered */
    int64_t offset;      /* bytes written so far */
    ddb_buf page, packed, header;
};

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
