/*
 * schema_internal.h (private header of write/) — the column statistics and the types made of
 * them, which schema.c keeps and schema_scripts.c (the DuckDB load script and the Athena DDL)
 * writes its scripts from.
 */
#ifndef DDBPIPE_WRITE_SCHEMA_INTERNAL_H
#define DDBPIPE_WRITE_SCHEMA_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "ddbpipe/buf.h"
#include "ddbpipe/mapping.h"
#include "ddbpipe/schema.h"
#include "ddbpipe/writer.h"

typedef struct column {
    uint64_t present;    /* records holding the field */
    ddb_num_shape shape; /* N and NS */
    int stored_text, stored_scale; /* Parquet: the number type its files hold */
    struct column *members; /* an M field's declared members (Parquet: a STRUCT), or NULL */
} column;

struct ddb_schema {
    const ddb_mapping *m;
    column **cols; /* per entity, per declared field */
};

typedef struct col_type {
    char duckdb[1024]; /* a STRUCT names its members */
    char athena[1024];
    const char *note; /* NULL, or how the value is written */
} col_type;

/* The types of declared field f, whose statistics are c, as a file of fmt holds it: NDJSON
 * keeps sets as arrays and maps as objects, a CSV cell holds them as JSON text, a Parquet
 * file as its writer made the column (numbers as the files hold them, a declared map a
 * STRUCT). Fills the whole of *t; note points to a constant. */
void ddb_schema_field_type(col_type *t, const ddb_field *f, const column *c, ddb_out_format fmt);

/* The types of field f of entity e in the files of fmt, or for the partition field (the
 * files have no column of it) as its folder names hold it: the value's text, typed as
 * NDJSON's exact loader does. partition NULL: the files are not partitioned. */
void ddb_schema_column_type(col_type *t, const ddb_schema *s, size_t e, size_t f,
                            ddb_out_format fmt, const char *partition);

/* Whether f is the field the files are partitioned by (partition NULL: none), which is in
 * the folder names, not in the files. */
int ddb_schema_is_partition(const ddb_field *f, const char *partition);

/* Appends s as a quoted SQL name, "name" (DuckDB, q '"') or `name` (Athena, q '`'), with
 * the quote doubled. */
void ddb_schema_sql_ident(ddb_buf *b, const char *s, char q);

/* Appends the head of load.duckdb.sql for the files written in fmt: how to run it, and the
 * macro the exact loads of NDJSON files share when one of them needs it. */
void ddb_schema_load_begin(ddb_buf *load, const ddb_schema *s, const ddb_schema_file *files,
                           size_t n, ddb_out_format fmt);

/* Appends to load the statement that loads file (its entity's records, written in fmt with
 * delimiter) with exact types: read_parquet, the lines of an NDJSON file whose numbers
 * DuckDB's JSON reader would round, or read_json / read_csv with every column typed. */
void ddb_schema_load_entity(ddb_buf *load, const ddb_schema *s, const ddb_schema_file *file,
                            ddb_out_format fmt, char delimiter);

/* Appends the Athena CREATE EXTERNAL TABLE of entity e over file (written in fmt with
 * delimiter), whose LOCATION the user fills in: the files' SerDe, or Parquet's PARTITIONED
 * BY when partitioned. */
void ddb_schema_athena_ddl(ddb_buf *b, const ddb_schema *s, size_t e, const ddb_schema_file *file,
                           ddb_out_format fmt, char delimiter);

#endif
