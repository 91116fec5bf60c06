/*
 * writer.h — record writers: one entity's records (or items) formatted as
 * NDJSON, CSV or DynamoDB JSON onto a byte sink. The per-entity files that
 * route records to DIR/<Entity>.<ext> are output_file.h.
 */
#ifndef DDBPIPE_WRITER_H
#define DDBPIPE_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "ddbpipe/buf.h"
#include "ddbpipe/error.h"
#include "ddbpipe/item.h"
#include "ddbpipe/sink.h"
#include "ddbpipe/mapping.h"
#include "ddbpipe/value.h"

typedef enum ddb_out_format {
    DDB_OUT_NDJSON = 0, /* plain JSON records; undeclared attributes under "_extra" (typed) */
    DDB_OUT_CSV,        /* header = declared fields, then "_extra" (typed JSON object) */
    DDB_OUT_DDBJSON,    /* {"Item":{...}} per line: the Import from S3 form */
    DDB_OUT_PARQUET     /* typed columns per declared field, "_extra" a JSON column
                           (writer_parquet.c; without an entity one JSON column "item") */
} ddb_out_format;

/* Parquet's compression codec (0: ZSTD, the default). */
typedef enum ddb_parquet_codec {
    DDB_PARQUET_ZSTD = 0,
    DDB_PARQUET_GZIP,
    DDB_PARQUET_NONE,
    DDB_PARQUET_SNAPPY
} ddb_parquet_codec;

/* "zstd", "gzip", "none", "snappy" into *out. Returns 0, or DDB_EUSAGE
 * with the reason. */
int ddb_parquet_codec_parse(ddb_parquet_codec *out, const char *s, ddb_error *err);

/* A write that returned this did not write the record: it cannot be written
 * exactly (a number past its Parquet DECIMAL column), err says why; the
 * caller rejects the record and goes on. */
#define DDB_WRITER_REFUSED 1

/* "ndjson", "csv", "ddb-json", "parquet". */
const char *ddb_out_format_name(ddb_out_format f);
/* File extension without dot: "ndjson", "csv", "json", "parquet". */
const char *ddb_out_format_ext(ddb_out_format f);
int ddb_out_format_parse(ddb_out_format *out, const char *s);

typedef struct ddb_writer ddb_writer;
typedef struct ddb_line_format ddb_line_format;

typedef struct ddb_writer_vtable {
    /* Writes one record. rec->attrs[0..n_declared) are declared fields in the
     * entity's field order; the rest are undeclared attributes. */
    int (*write)(ddb_writer *w, const ddb_map *rec, size_t n_declared, ddb_error *err);
    void (*free)(ddb_writer *w);
    /* Ends the output (NULL: finish the sink chain). */
    int (*finish)(ddb_writer *w, ddb_error *err);
    /* Its first half, for a writer with a finish (NULL: the sink chain's
     * prepare): everything written and sent, nothing visible. */
    int (*prepare)(ddb_writer *w, ddb_error *err);
} ddb_writer_vtable;

struct ddb_writer {
    const ddb_writer_vtable *vt;
    ddb_sink *sink; /* owned */
    uint64_t records;
};

typedef struct ddb_writer_opts {
    char delimiter;       /* CSV; 0 = ',' */
    const char **columns; /* CSV without an entity: the columns (NULL = first record's) */
    size_t n_columns;
    int appending;                /* the file already holds a header (a resumed run) */
    int extra_plain;              /* NDJSON/CSV records: undeclared attributes as plain JSON values
                                     (for analytics tools) instead of typed DynamoDB JSON; their types
                                     (B, sets) do not survive a read back */
    const ddb_type *column_types; /* with columns: each column's type (DDB_TYPE_NONE: any);
                                     a typed column is headed name:TYPE (S columns just
                                     name) and holds only values of its type, the others
                                     go to _extra */
    int typed_values; /* NDJSON without an entity: every value as DynamoDB JSON, so B and
                         sets read back as such (a bare DynamoDB JSON item per line) */
    uint64_t max_columns; /* CSV without an entity, columns from every record: a write that
                             would make more fails (0: DDB_CSV_MAX_COLUMNS) */
    ddb_parquet_codec parquet_codec;
    uint64_t parquet_group_rows; /* rows per row group (0: 131072); tests make it small */
    uint64_t parquet_max_file_bytes; /* a file ends (its last row group closed early) near
                                        this size: the writer says it is full (0: none) */
    struct pq_number_plan *parquet_plans; /* the number columns' types shared by the files of
                                             one table (write/parquet.h); NULL: the file's own */
    struct pq_budget *parquet_budget; /* the row groups' memory shared by the files of one
                                         output (write/parquet.h); NULL: each file its own */
    const ddb_key_attr *keys; /* Parquet without an entity: the key attributes, a column each
                                 before "item" (type DDB_TYPE_NONE: the first item's) */
    size_t n_keys;
    int write_behind; /* CSV without an entity: finish lays the rows out while a thread of
                         its own writes them (ddb_sink_behind_start); the bytes are the same */
} ddb_writer_opts;

/* Items whose attribute names vary (a name per item) made a CSV of a column
 * each: 40k such items, 0.8 MB, a 1.5 GB file of empty cells. Past this many
 * columns the run stops and points to NDJSON. */
#define DDB_CSV_MAX_COLUMNS 1000

/*
 * A writer of format fmt into sink (owned from now on, even on failure).
 * With an entity, records follow its declared fields; without one (no
 * mapping) NDJSON is a plain object of every attribute, CSV takes its
 * columns from opts->columns or the first record, and DynamoDB JSON is the
 * item itself. Returns 0 or DDB_ENOMEM.
 */
DDB_MUST_USE int ddb_writer_new(ddb_writer **out, ddb_out_format fmt, ddb_sink *sink,
                                const ddb_entity *e, const ddb_writer_opts *opts, ddb_error *err);

static inline int ddb_writer_write(ddb_writer *w, const ddb_map *rec, size_t n_declared,
                                   ddb_error *err)
{
    return w->vt->write(w, rec, n_declared, err);
}

/* What formatting a record needs besides its line: one per thread. */
typedef struct ddb_format_scratch {
    ddb_buf cell; /* one cell's text */
    ddb_buf used; /* per attribute of the record: placed in a column */
} ddb_format_scratch;

void ddb_format_scratch_dispose(ddb_format_scratch *s);

/*
 * The lines a writer made by ddb_writer_new(fmt, e, opts) writes for its
 * records, made without it: fixed once made, so worker threads format
 * records while the writer's thread writes what they made
 * (ddb_writer_write_line), and the bytes are the writer's own. A Parquet
 * line is a record's row (its columns' values, not text), which its writer
 * copies into its columns (opts->keys, of items, must outlive the format).
 * CSV without an entity has no such lines (its columns are the writer's
 * state): *out is then NULL. Returns 0 or DDB_ENOMEM.
 */
DDB_MUST_USE int ddb_line_format_new(ddb_line_format **out, ddb_out_format fmt,
                                     const ddb_entity *e, const ddb_writer_opts *opts);

/* Appends the line of rec (as ddb_writer_write would write it) to line,
 * using s. Touches nothing but line and s. Returns 0 or DDB_ENOMEM. */
DDB_MUST_USE int ddb_line_format_put(const ddb_line_format *f, ddb_buf *line,
                                     ddb_format_scratch *s, const ddb_map *rec, size_t n_declared);

void ddb_line_format_free(ddb_line_format *f);

/* Writes a record's line made by ddb_line_format_put with the writer's own
 * format, and counts it. w is a writer of NDJSON, DynamoDB JSON, CSV of an
 * entity, or Parquet, which writes rec (n_declared declared, as
 * ddb_writer_write) instead when its columns' types, decided since the row
 * was made, no longer hold its numbers as they were put. Returns 0, the
 * sink's error, or (Parquet) what ddb_writer_write returns. */
DDB_MUST_USE int ddb_writer_write_line(ddb_writer *w, const char *line, size_t len,
                                       const ddb_map *rec, size_t n_declared, ddb_error *err);

/*
 * A Parquet writer into sink (owned from now on, even on failure): with an
 * entity a column per declared field (S STRING, N DECIMAL(38,s) or exact
 * STRING, B BYTE_ARRAY, BOOL BOOLEAN, sets LISTs, M/L/NULL JSON of DynamoDB
 * JSON) and "_extra"; without one a column per key attribute of opts->keys
 * (S STRING, N DECIMAL as a field's, B BYTE_ARRAY; an item whose key is of
 * another type, or missing, leaves it null) and a JSON column "item", each
 * item whole. Its write returns
 * DDB_WRITER_REFUSED for a record it cannot hold exactly. Returns 0,
 * DDB_ENOMEM or the sink's error.
 */
DDB_MUST_USE int ddb_writer_new_parquet(ddb_writer **out, ddb_sink *sink, const ddb_entity *e,
                                        const ddb_writer_opts *opts, ddb_error *err);

/* Finishes the writer's sink chain (trailers, rename into place). */
DDB_MUST_USE int ddb_writer_finish(ddb_writer *w, ddb_error *err);

/* The first half of ddb_writer_finish (ddb_sink_prepare): all is sent,
 * nothing visible. A writer that ends its output itself (CSV without a
 * mapping, replayed from its spill) prepares nothing: its finish does all. */
DDB_MUST_USE int ddb_writer_prepare(ddb_writer *w, ddb_error *err);

/* Frees the writer and its sink (an unfinished atomic file is removed). */
void ddb_writer_free(ddb_writer *w);

/*
 * CSV of items without a mapping, every attribute in a column of its own: the
 * header (typed, the union of every record's attributes in order of first
 * appearance) is known only at the end, so rows are spooled, their cells
 * already CSV, to spill_path until finish writes the header and lays the rows
 * out under it into sink. Memory holds only the columns. A value whose type differs from its
 * column's (the first seen) goes to _extra. With resume, the spill file is
 * cut to keep bytes and continued (its columns are read again); free()
 * without finish() removes the spill file unless keep_spill. Takes ownership
 * of sink. Returns 0, DDB_EIO, DDB_ENOMEM.
 */
DDB_MUST_USE int ddb_writer_new_csv_union(ddb_writer **out, ddb_sink *sink, const char *spill_path,
                                          int resume, uint64_t keep, int keep_spill,
                                          const ddb_writer_opts *opts, ddb_error *err);

/* Appends to out the cells of rec as a CSV union writer with delimiter delim
 * (0: a comma) writes them, for ddb_writer_write_cells: a cell's text depends
 * on its value alone, so any thread may make them while the writer writes.
 * Uses s. Returns 0 or DDB_ENOMEM. */
DDB_MUST_USE int ddb_csv_union_cells(ddb_buf *out, ddb_format_scratch *s, const ddb_map *rec,
                                     char delim);

/* Writes rec with its cells made by ddb_csv_union_cells, and counts it. w is
 * a CSV union writer (ddb_writer_spill(w) is not NULL). Returns 0,
 * DDB_EUSAGE (too many columns), DDB_ENOMEM or the spill's error. */
DDB_MUST_USE int ddb_writer_write_cells(ddb_writer *w, const ddb_map *rec, const char *cells,
                                        ddb_error *err);

/* The spill of a CSV union writer (NULL for other writers), to checkpoint. */
ddb_sink *ddb_writer_spill(ddb_writer *w, const char **path);

#endif
