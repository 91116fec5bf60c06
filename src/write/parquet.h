/*
 * parquet.h (private header of write/) — a Parquet file writer of our own
 * (no C Parquet library is packaged in Debian), after the format's
 * specification (apache/parquet-format: parquet.thrift, Encodings.md,
 * LogicalTypes.md): data pages v1, RLE/bit-packed hybrid levels, the
 * Thrift compact footer, one data page per column chunk. Its values are
 * PLAIN, or dictionary-encoded where that pays (a chunk of few distinct
 * values: a PLAIN dictionary page, then RLE_DICTIONARY indices), the
 * dictionary capped at PQ_DICT_BYTES per chunk.
 *
 * Rows are gathered into a row group of bounded size (group_rows rows or
 * group_bytes bytes of values, whichever comes first), then each column is
 * encoded, compressed and written: memory stays flat whatever the input's
 * size. A column is optional, holding a scalar or a LIST of required
 * scalars, at the top level or as a member of an optional group (a STRUCT)
 * that consecutive columns naming the same group share: a missing group, a
 * group without the member and the member's value have their own
 * definition levels.
 *
 * Numbers are exact: a number column is DECIMAL(38,s) in a 16-byte
 * FIXED_LEN_BYTE_ARRAY, s chosen from the first row group that holds one of
 * its values (the largest scale there), or an exact STRING column when no
 * DECIMAL(38,s) holds all of those values (1E+125 beside 0.5); the footer's
 * key "ddbpipe.numbers_as_text" names such columns. A later value that the
 * chosen DECIMAL cannot hold is refused by pq_number_fits, never rounded.
 * A column whose field declares DECIMAL(P,S) is that from the start, in
 * the physical type LogicalTypes.md gives P: INT32 up to 9 digits, INT64 up
 * to 18, else a FIXED_LEN_BYTE_ARRAY of the fewest bytes that hold P.
 */
#ifndef DDBPIPE_WRITE_PARQUET_H
#define DDBPIPE_WRITE_PARQUET_H

#include <stddef.h>
#include <stdint.h>

#include "ddbpipe/buf.h"
#include "ddbpipe/error.h"
#include "ddbpipe/sink.h"

/* The codecs, by their Parquet numbers. */
typedef enum pq_codec {
    PQ_CODEC_NONE = 0,
    PQ_CODEC_SNAPPY = 1,
    PQ_CODEC_GZIP = 2,
    PQ_CODEC_ZSTD = 6
} pq_codec;

typedef enum pq_kind {
    PQ_STRING, /* BYTE_ARRAY, String */
    PQ_BINARY, /* BYTE_ARRAY */
    PQ_BOOL,   /* BOOLEAN */
    PQ_NUMBER, /* decimal text in; DECIMAL(38,s) or exact STRING out */
    PQ_JSON    /* BYTE_ARRAY, JSON */
} pq_kind;

typedef struct pq_column_def {
    const char *name;
    size_t name_len;
    pq_kind kind;
    int list; /* a LIST of required values of kind */
    int precision, scale; /* NUMBER: a declared DECIMAL(precision, scale); precision 0: none */
    const char *group; /* the STRUCT it is a member of (group_len bytes), or NULL */
    size_t group_len;
} pq_column_def;

/*
 * A number column's type shared by several files of one table (the Hive
 * partitions of an entity): readers of the folder (DuckDB's read_parquet,
 * Athena's table) take one type for all its files, and DuckDB rounds a
 * file's DECIMAL(38,18) into the first file's DECIMAL(38,1). Every file's
 * values are gathered here until the first of them must decide (a row group
 * written); that decision, from all the files' values so far, is then every
 * file's, and a later value it cannot hold is refused as in one file.
 */
typedef struct pq_number_plan {
    int decided, as_text, scale; /* once decided: every file's type */
    int want_scale, want_ints;   /* what the values put so far need */
} pq_number_plan;

typedef struct pq_opts {
    pq_codec codec;
    uint64_t group_rows;  /* 0: PQ_GROUP_ROWS */
    uint64_t group_bytes; /* 0: PQ_GROUP_BYTES */
    pq_number_plan *plans; /* per column (used for number columns), shared; NULL: own */
    uint64_t max_file_bytes; /* a row group closed early so the file stays under this, which
                                makes it full (pq_full); 0: no bound */
    struct pq_budget *budget; /* the memory the files of one output share; NULL: the file's own */
} pq_opts;

#define PQ_GROUP_ROWS 131072
#define PQ_GROUP_BYTES (32u << 20)

/*
 * The row groups being gathered by every file of one output (an entity's
 * file each, the Hive partitions, the --max-file-size parts) share this many
 * bytes of values and levels: past it, the file holding the most writes its
 * row group. Without it each file held up to PQ_GROUP_BYTES, so the memory
 * grew with the entities (rich: 221 MB). A file alone still gathers
 * row groups of up to this size, which readers prefer large. 12 MB, not
 * the 24 it was: a row group encoded ahead (pq_budget_encode_ahead) is
 * held beside those gathering, and at 24 an export at two threads peaked
 * at 75 MB (at 12: 42 to 50 MB on the bench's inputs).
 */
#define PQ_BUDGET_BYTES (12u << 20)

/* A column chunk's PLAIN values are cut into data pages of about this
 * many bytes (at a row's start), so that encoding and compressing one
 * needs buffers of a page, not of the chunk; a dictionary chunk's indices
 * are one page. */
#define PQ_PAGE_BYTES (1u << 20)

typedef struct pq_budget pq_budget;

/*
 * A budget of bytes (0: PQ_BUDGET_BYTES, or for tests the environment's
 * DDBPIPE_PARQUET_BUDGET) for the files opened with it in their opts. Its
 * files are written by one thread at a time: one file's pq_end_row may write
 * another's row group. Returns 0 or DDB_ENOMEM.
 */
DDB_MUST_USE int pq_budget_new(pq_budget **out, size_t bytes, ddb_error *err);

/*
 * From now on the row groups of b's files are encoded on a thread of b's
 * own (parquet_ahead.c), one at a time, while the calling thread gathers
 * the next: the files are byte for byte the same, and one more row group
 * (at most the budget) is held. Files with opts.max_file_bytes encode their
 * own, as they measure each one written. Returns 0 (also when no thread
 * could be started: the calling thread then encodes, as without this) or
 * DDB_ENOMEM.
 */
DDB_MUST_USE int pq_budget_encode_ahead(pq_budget *b, ddb_error *err);
/* Frees b (its thread stopped); a file still open with it goes on with its
 * own bound. */
void pq_budget_free(pq_budget *b);

typedef struct pq_file pq_file;

/*
 * A writer of the columns cols[0..n) (names copied) onto sink, which stays
 * the caller's (pq_finish writes the footer; finishing the sink is the
 * caller's). Writes the leading magic. Returns 0, DDB_ENOMEM or the sink's
 * error.
 */
DDB_MUST_USE int pq_file_new(pq_file **out, ddb_sink *sink, const pq_column_def *cols, size_t n,
                             const pq_opts *opts, ddb_error *err);

/* The current row: column col is absent (null; a member: its group too). */
void pq_put_null(pq_file *f, size_t col);
/* The current row: member column col is absent from its group, which is
 * there. */
void pq_put_member_null(pq_file *f, size_t col);
/* The current row: scalar column col holds the n bytes at p (BOOL: one
 * byte, 0 or 1; NUMBER: its decimal text, checked by pq_number_fits). */
void pq_put(pq_file *f, size_t col, const void *p, size_t n);
/* The current row: list column col holds count values, each then given by
 * pq_put_elem (count 0: an empty list). */
void pq_put_list(pq_file *f, size_t col, size_t count);
void pq_put_elem(pq_file *f, size_t col, size_t index, const void *p, size_t n);

/* Can number column col hold the decimal text (a valid DynamoDB number)?
 * 0, or DDB_EINVAL with the reason (a scale or magnitude past its DECIMAL).
 * Never rounds. */
int pq_number_fits(const pq_file *f, size_t col, const char *text, size_t len, ddb_error *err);

/* Ends the current row; writes the row group when it is full. Returns 0,
 * DDB_ENOMEM or the sink's error. */
DDB_MUST_USE int pq_end_row(pq_file *f, ddb_error *err);

/* Writes the last row group and the footer. Returns 0, DDB_ENOMEM or the
 * sink's error. */
DDB_MUST_USE int pq_finish(pq_file *f, ddb_error *err);

struct ddb_writer;

uint64_t pq_rows(const pq_file *f);

/* Has the file reached its opts.max_file_bytes? Then its last row group is
 * written and only pq_finish is left (the caller goes on in a new file). */
int pq_full(const pq_file *f);

/* The same for a Parquet writer (ddb_writer_new_parquet); 0 for another. */
int pq_writer_full(const struct ddb_writer *w);

/* The type number column col holds once the file is finished: *as_text (an
 * exact STRING), else DECIMAL(38, *scale). */
void pq_number_type(const pq_file *f, size_t col, int *as_text, int *scale);

struct ddb_field;
struct ddb_entity;
/* The columns of a field: one, or a STRUCT's one per declared member. */
size_t pq_field_columns(const struct ddb_field *fd);
/* The columns of an entity's files: its fields' and _extra. */
size_t pq_entity_columns(const struct ddb_entity *e);

struct ddb_writer;
/* The same, for column col of a Parquet writer (ddb_writer_new_parquet):
 * 0, or -1 when w is not one. */
int pq_writer_number_type(const struct ddb_writer *w, size_t col, int *as_text, int *scale);

void pq_file_free(pq_file *f);

/* Appends the RLE/bit-packed hybrid encoding of levels v[0..n), each below
 * 2^bit_width (1..8), without the length prefix. Runs of 8 or more equal
 * values are RLE runs, the rest bit-packed groups of 8 (the last padded). */
void pq_rle_encode(ddb_buf *out, const uint8_t *v, size_t n, int bit_width);

#endif
