/*
 * schema.h — the types of the record files a run writes, for the tools that
 * load them: per entity, each declared column with the type that holds every
 * value written exactly (DuckDB and Athena names), a DuckDB script that loads
 * every entity file with those types, and an Athena CREATE EXTERNAL TABLE.
 *
 * Types come from the mapping and, for numbers, from the values themselves:
 * a DynamoDB Number has up to 38 significant digits and any scale, so a
 * column whose values are all integers of at most 18 digits is BIGINT, one
 * that fits DECIMAL(38,s) is that (s = the longest fraction seen), and one
 * that does not is text, never a DOUBLE. An entity without records still
 * gets its types (from the mapping), which its empty file cannot give.
 * Parquet files carry their own types: the schema says the ones they hold
 * (ddb_schema_set_stored), told once they are finished.
 */
#ifndef DDBPIPE_SCHEMA_H
#define DDBPIPE_SCHEMA_H

#include <stddef.h>
#include <stdint.h>

#include "ddbpipe/buf.h"
#include "ddbpipe/error.h"
#include "ddbpipe/mapping.h"
#include "ddbpipe/writer.h"

typedef struct ddb_schema ddb_schema;

/* What the numbers of one column (N or NS) need. */
typedef struct ddb_num_shape {
    uint64_t seen;  /* numbers seen (set members each count) */
    int int_digits; /* widest integer part, in digits (0 for |x| < 1) */
    int scale;      /* longest fraction needed, in digits (trailing zeros dropped) */
} ddb_num_shape;

/* Widens shape to hold the DynamoDB Number text n (already validated). */
void ddb_num_shape_add(ddb_num_shape *shape, const char *n, size_t len);

/* The DuckDB type of a column of numbers of this shape: "BIGINT",
 * "DECIMAL(38,s)" or "VARCHAR" (written into out). */
void ddb_num_shape_duckdb(const ddb_num_shape *shape, char *out, size_t cap);

/* Column statistics for every entity of m. Returns 0 or DDB_ENOMEM. */
DDB_MUST_USE int ddb_schema_new(ddb_schema **out, const ddb_mapping *m, ddb_error *err);

/* Takes in one record of entity e: rec->attrs[0..n_declared) are its declared
 * fields in field order (absent ones left out). */
void ddb_schema_observe(ddb_schema *s, size_t e, const ddb_map *rec, size_t n_declared);

/* ddb_schema_observe in two steps, so the one that reads the record can run
 * on the thread that made it: appends to out a note of what observing rec
 * (entity e of m, taken as ddb_schema_observe takes it) adds, reading the
 * mapping only, never the statistics (any thread). Returns 0, 1 (no note:
 * e has more than 64 fields; observe rec itself) or DDB_ENOMEM. */
DDB_MUST_USE int ddb_schema_note(const ddb_mapping *m, size_t e, const ddb_map *rec,
                                 size_t n_declared, ddb_buf *out);

/* Takes in the note (len bytes) ddb_schema_note made for a record of entity
 * e: the same as ddb_schema_observe of that record. */
void ddb_schema_observe_note(ddb_schema *s, size_t e, const char *note, size_t len);

/* Parquet: the files of entity e hold number field f (N or NS), or when
 * member >= 0 that member of the declared map f, as an exact STRING
 * (as_text) or DECIMAL(38, scale), whatever the statistics say. */
void ddb_schema_set_stored(ddb_schema *s, size_t e, size_t f, int member, int as_text,
                           int scale);

/* Appends the statistics of entity e as a JSON array (for a checkpoint). */
void ddb_schema_save(const ddb_schema *s, size_t e, ddb_buf *out);

/* Restores what ddb_schema_save wrote, parsed as plain JSON (a resumed run).
 * Returns 0, or DDB_EUSAGE when it does not fit the entity. */
DDB_MUST_USE int ddb_schema_restore(ddb_schema *s, size_t e, const ddb_value *saved,
                                    ddb_error *err);

/* The index of the entity named name, or -1. */
int ddb_schema_entity(const ddb_schema *s, const char *name, size_t len);

struct ddb_store;

typedef struct ddb_schema_file {
    size_t entity;    /* its index in the mapping */
    const char *name; /* the file's name inside the output folder ("Tag.csv.gz"), or the
                         folder of its Hive partitions ("Tag") */
    const char *partition; /* Parquet: Hive folders name=value by this field (NULL: one file) */
    int parts;             /* Parquet: name is a folder of parts (--max-file-size) */
} ddb_schema_file;

/*
 * Writes dir/<Entity>.json (columns with their DynamoDB, DuckDB and Athena
 * types), dir/<Entity>.athena.sql and dir/load.duckdb.sql (run from the
 * output folder) for the record files given, written in format fmt (NDJSON,
 * CSV with delimiter, or Parquet), into store (NULL: the local disk, where dir is
 * created and must be a folder of its own, new: its files are written plainly
 * and made durable together at the end, dir with them, for the caller to
 * rename into place). Returns 0, DDB_EIO, DDB_ENOMEM, or the store's error.
 */
DDB_MUST_USE int ddb_schema_write(const ddb_schema *s, struct ddb_store *store, const char *dir,
                                  ddb_out_format fmt, char delimiter, const ddb_schema_file *files,
                                  size_t n, ddb_error *err);

/* Whether name is one of the files ddb_schema_write writes for the files given. */
int ddb_schema_writes(const ddb_schema *s, const ddb_schema_file *files, size_t n,
                      const char *name);

/* Accepts NULL. */
void ddb_schema_free(ddb_schema *s);

#endif
