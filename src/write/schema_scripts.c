/*
 * schema_scripts.c — the scripts written beside the column types (for schema.c): DuckDB's
 * load.duckdb.sql, which loads every entity file with those types (an NDJSON file whose
 * numbers DuckDB's JSON reader would round read as lines, its numbers as their text), and
 * each entity's Athena CREATE EXTERNAL TABLE.
 */
#include <stdio.h>
#include <string.h>

#include "ddbpipe/json.h"
#include "ddbpipe/schema.h"
#include "write/schema_internal.h"

/* 'text' with quotes doubled: a SQL string literal. */
static void sql_string(ddb_buf *b, const char *s)
{
    ddb_buf_putc(b, '\'');
    for (; *s; s++) {
        if (*s == '\'')
            ddb_buf_putc(b, '\'');
        ddb_buf_putc(b, *s);
    }
    ddb_buf_putc(b, '\'');
}

/* Whether DuckDB's JSON reader would round a number of this NDJSON column:
 * it reads every number with a fraction or an exponent as a double (1.5
 * into DECIMAL(38,37) is 1.4999...; 0.1234567890123456789 loses its tail),
 * and only integers come through exactly (up to 64 bits as integers, wider
 * ones as raw text). A BIGINT column holds integers only. */
static int rounded_by_json_reader(const ddb_field *f, const col_type *t)
{
    return (f->type == DDB_TYPE_N || f->type == DDB_TYPE_NS) &&
           strncmp(t->duckdb, "BIGINT", 6) != 0;
}

static int found_by_key(const ddb_entity *en, size_t f);

/* 1: entity e has numbers the JSON reader would round (its lines are read as
 * text); 2: some of them cannot be found by their key alone (the macro). */
static int entity_needs_number_text(const ddb_schema *s, size_t e)
{
    const ddb_entity *en = &s->m->entities[e];
    col_type t;
    int need = 0;
    for (size_t f = 0; f < en->n_fields; f++) {
        ddb_schema_field_type(&t, &en->fields[f], &s->cols[e][f], DDB_OUT_NDJSON);
        if (rounded_by_json_reader(&en->fields[f], &t))
            need = 1;
    }
    for (size_t f = 0; need && f < en->n_fields; f++)
        if ((en->fields[f].type == DDB_TYPE_N || en->fields[f].type == DDB_TYPE_NS) &&
            !found_by_key(en, f))
            return 2;
    return need;
}

/* The macro the exact NDJSON loads share: every number outside a string
 * becomes a string of its own text (a line is split into its strings and
 * what lies between them, where a digit can only be part of a number), so
 * that from_json hands over the digits as written and CAST(... AS DECIMAL)
 * reads them exactly. */
static const char number_text_macro[] =
    "CREATE OR REPLACE TEMP MACRO ddbpipe_numbers_as_text(line) AS array_to_string(\n"
    "    list_transform(regexp_extract_all(line, '\"(?:[^\"\\\\]|\\\\.)*\"|[^\"]+'),\n"
    "        t -> CASE WHEN t[1] = '\"' THEN t\n"
    "                  ELSE regexp_replace(t, '-?[0-9][0-9.eE+-]*', '\"\\0\"', 'g') END), '');\n";

/* CREATE TABLE "Tag" AS SELECT * FROM read_csv('Tag.csv', ..., columns = {...}); */
static void duckdb_load(ddb_buf *b, const ddb_schema *s, size_t e, const char *file,
                        ddb_out_format fmt, char delimiter)
{
    const ddb_entity *en = &s->m->entities[e];
    char delim[2] = {delimiter ? delimiter : ',', '\0'};
    col_type t;
    ddb_buf_puts(b, "CREATE OR REPLACE TABLE ");
    ddb_schema_sql_ident(b, en->name, '"');
    ddb_buf_puts(b, fmt == DDB_OUT_CSV ? " AS SELECT * FROM read_csv("
                                       : " AS SELECT * FROM read_json(");
    sql_string(b, file);
    if (fmt == DDB_OUT_CSV) {
        /* An empty cell is absent (NULL), "" an empty string. */
        ddb_buf_puts(b, ", header = true, auto_detect = false, delim = ");
        sql_string(b, delim);
        ddb_buf_puts(b, ", quote = '\"', escape = '\"', allow_quoted_nulls = false");
    } else {
        ddb_buf_puts(b, ", format = 'newline_delimited'");
    }
    ddb_buf_puts(b, ",\n    columns = {");
    for (size_t f = 0; f < en->n_fields; f++) {
        ddb_schema_field_type(&t, &en->fields[f], &s->cols[e][f], fmt);
        sql_string(b, en->fields[f].name);
        ddb_buf_puts(b, ": ");
        sql_string(b, t.duckdb);
        ddb_buf_puts(b, ", ");
    }
    sql_string(b, DDB_EXTRA_FIELD);
    ddb_buf_puts(b, ": 'JSON'});\n");
}

/* CREATE TABLE "Tag" AS SELECT * FROM read_parquet('Tag.parquet'); a
 * partitioned entity's folders with the partition field typed. */
static void duckdb_load_parquet(ddb_buf *b, const ddb_schema *s, size_t e,
                                const ddb_schema_file *file)
{
    const ddb_entity *en = &s->m->entities[e];
    ddb_buf glob = DDB_BUF_INIT;
    col_type t;
    memset(&t, 0, sizeof(t));
    ddb_buf_puts(b, "CREATE OR REPLACE TABLE ");
    ddb_schema_sql_ident(b, en->name, '"');
    ddb_buf_puts(b, " AS SELECT * FROM read_parquet(");
    if (file->partition == NULL && !file->parts) {
        sql_string(b, file->name);
        ddb_buf_puts(b, ");\n");
        return;
    }
    ddb_buf_printf(&glob, file->partition ? "%s/**/*.parquet" : "%s/*.parquet", file->name);
    sql_string(b, glob.oom ? "" : glob.ptr);
    if (glob.oom)
        b->oom = 1;
    ddb_buf_dispose(&glob);
    if (file->partition == NULL) {
        ddb_buf_puts(b, ");\n");
        return;
    }
    ddb_buf_puts(b, ", hive_partitioning = true,\n    hive_types = {");
    sql_string(b, file->partition);
    for (size_t f = 0; f < en->n_fields; f++)
        if (ddb_schema_is_partition(&en->fields[f], file->partition))
            ddb_schema_column_type(&t, s, e, f, DDB_OUT_PARQUET, file->partition);
    ddb_buf_puts(b, ": ");
    sql_string(b, t.duckdb);
    ddb_buf_puts(b, "});\n");
}

/* One member of a from_json structure: "name":"TYPE". */
static void json_member(ddb_buf *spec, const char *name, const char *type)
{
    if (spec->len > 1)
        ddb_buf_putc(spec, ',');
    ddb_json_put_string(spec, name, strlen(name));
    ddb_buf_printf(spec, ":\"%s\"", type);
}

static int is_number(const ddb_field *f)
{
    return f->type == DDB_TYPE_N || f->type == DDB_TYPE_NS;
}

/*
 * Whether the number text of field f can be found by its key alone: the
 * writer puts the declared fields first, in field order, then _extra, so the
 * first "name": in a line is the field's own key unless a map or a list
 * before it holds one (a string cannot: its quotes are escaped). A plain name
 * keeps the pattern free of quoting. This search costs a fraction of
 * ddbpipe_numbers_as_text's pass over every byte (2.2 s against 21 s for
 * three fields of 200,000 lines in DuckDB 1.5.6).
 */
static int found_by_key(const ddb_entity *en, size_t f)
{
    const char *c = en->fields[f].name;
    for (size_t i = 0; i < f; i++)
        if (en->fields[i].type == DDB_TYPE_M || en->fields[i].type == DDB_TYPE_L)
            return 0;
    for (; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              *c == '_' || *c == '-'))
            return 0;
    return strcmp(en->fields[f].name, DDB_EXTRA_FIELD) != 0;
}

/* The number text of a field found by its key, when the record has it (r
 * says so: a later map or _extra may hold the same key). */
static void number_by_key(ddb_buf *b, const ddb_field *fd)
{
    ddb_buf_puts(b, "CASE WHEN r.");
    ddb_schema_sql_ident(b, fd->name, '"');
    if (fd->type == DDB_TYPE_NS)
        ddb_buf_printf(b, " IS NOT NULL THEN string_split(regexp_extract(line, "
                          "'\"%s\":\\[([-0-9.eE+,]*)\\]', 1), ',') END",
                       fd->name);
    else
        ddb_buf_printf(b, " IS NOT NULL THEN regexp_extract(line, "
                          "'\"%s\":(-?[0-9][0-9.eE+-]*)', 1) END",
                       fd->name);
}

/* One column of the exact NDJSON load: its member of a from_json structure
 * (r, or n for numbers not found by key) and its SELECT expression, CAST to
 * its type, which fails loudly where from_json would give NULL. */
static void lines_column(ddb_buf *b, ddb_buf *r, ddb_buf *n, const ddb_field *fd,
                         const col_type *t, int by_key, int first)
{
    size_t len = strlen(t->duckdb);
    int list = len > 2 && strcmp(t->duckdb + len - 2, "[]") == 0;
    int json = strcmp(t->duckdb, "JSON") == 0;
    int text = json || strcmp(t->duckdb, "VARCHAR") == 0 || strcmp(t->duckdb, "VARCHAR[]") == 0;
    if (by_key)
        json_member(r, fd->name, "JSON"); /* only whether it is there */
    else
        json_member(is_number(fd) ? n : r, fd->name,
                    json ? "JSON" : list ? "VARCHAR[]" : "VARCHAR");
    ddb_buf_puts(b, first ? "\n    " : ",\n    ");
    if (!text)
        ddb_buf_puts(b, "CAST(");
    if (by_key) {
        number_by_key(b, fd);
    } else {
        ddb_buf_puts(b, is_number(fd) ? "n." : "r.");
        ddb_schema_sql_ident(b, fd->name, '"');
    }
    if (!text)
        ddb_buf_printf(b, " AS %s)", t->duckdb);
    if (!text || by_key) {
        ddb_buf_puts(b, " AS ");
        ddb_schema_sql_ident(b, fd->name, '"');
    }
}

/* The NDJSON load of an entity with numbers the JSON reader would round:
 * each line read as text (read_csv with a delimiter JSON text never holds
 * raw: control bytes are always escaped), numbers taken from
 * ddbpipe_numbers_as_text (n), everything else from the line as written
 * (r). */
static void duckdb_load_lines(ddb_buf *b, const ddb_schema *s, size_t e, const char *file)
{
    const ddb_entity *en = &s->m->entities[e];
    ddb_buf r = DDB_BUF_INIT, n = DDB_BUF_INIT;
    col_type t;
    ddb_buf_putc(&r, '{');
    ddb_buf_putc(&n, '{');
    ddb_buf_puts(b, "CREATE OR REPLACE TABLE ");
    ddb_schema_sql_ident(b, en->name, '"');
    ddb_buf_puts(b, " AS SELECT");
    for (size_t f = 0; f < en->n_fields; f++) {
        ddb_schema_field_type(&t, &en->fields[f], &s->cols[e][f], DDB_OUT_NDJSON);
        lines_column(b, &r, &n, &en->fields[f], &t,
                     is_number(&en->fields[f]) && found_by_key(en, f), f == 0);
    }
    json_member(&r, DDB_EXTRA_FIELD, "JSON");
    ddb_buf_putc(&r, '}');
    ddb_buf_putc(&n, '}');
    ddb_buf_puts(b, en->n_fields ? ",\n    r.\"_extra\"\n" : "\n    r.\"_extra\"\n");
    ddb_buf_puts(b, "FROM (SELECT line, from_json(line, ");
    sql_string(b, r.oom ? "" : r.ptr);
    ddb_buf_puts(b, ") AS r");
    if (n.len > 2) { /* numbers the macro must find */
        ddb_buf_puts(b, ",\n             from_json(ddbpipe_numbers_as_text(line), ");
        sql_string(b, n.oom ? "" : n.ptr);
        ddb_buf_puts(b, ") AS n");
    }
    ddb_buf_puts(b, "\n      FROM read_csv(");
    sql_string(b, file);
    ddb_buf_puts(b, ", columns = {'line': 'VARCHAR'}, header = false, auto_detect = false,\n"
                    "                    delim = E'\\x01', quote = '', escape = '', "
                    "max_line_size = 100000000));\n");
    if (r.oom || n.oom)
        b->oom = 1;
    ddb_buf_dispose(&r);
    ddb_buf_dispose(&n);
}

/* PARTITIONED BY (`field` type), STORED AS PARQUET and its LOCATION: the
 * folder as export wrote it, whose partitions MSCK REPAIR TABLE finds. */
static void athena_parquet(ddb_buf *b, const ddb_schema *s, size_t e, const ddb_schema_file *file)
{
    const ddb_entity *en = &s->m->entities[e];
    col_type t;
    for (size_t f = 0; f < en->n_fields; f++) {
        if (!ddb_schema_is_partition(&en->fields[f], file->partition))
            continue;
        ddb_schema_column_type(&t, s, e, f, DDB_OUT_PARQUET, file->partition);
        ddb_buf_puts(b, "PARTITIONED BY (");
        ddb_schema_sql_ident(b, en->fields[f].name, '`');
        ddb_buf_printf(b, " %s)\n", t.athena);
    }
    ddb_buf_puts(b, "STORED AS PARQUET\nLOCATION 's3://YOUR-BUCKET/YOUR-PREFIX/");
    ddb_buf_puts(b, en->name);
    ddb_buf_puts(b, "/';\n");
    if (file->partition) {
        ddb_buf_puts(b, "-- then, to find the partitions: MSCK REPAIR TABLE ");
        ddb_schema_sql_ident(b, en->name, '`');
        ddb_buf_puts(b, ";\n");
    }
}

void ddb_schema_athena_ddl(ddb_buf *b, const ddb_schema *s, size_t e, const ddb_schema_file *file,
                           ddb_out_format fmt, char delimiter)
{
    const ddb_entity *en = &s->m->entities[e];
    col_type t;
    int first = 1;
    if (file->parts && !file->partition)
        ddb_buf_printf(b, "-- Athena reads every file under a location: upload the folder %s/ as "
                          "it is (its\n-- parts) under a prefix of its own and put that prefix "
                          "below.\nCREATE EXTERNAL TABLE ",
                       file->name);
    else if (file->partition)
        ddb_buf_printf(b, "-- Athena reads every file under a location: upload the folder %s/ as "
                          "it is (its\n-- %s=... folders) under a prefix of its own and put "
                          "that prefix below.\nCREATE EXTERNAL TABLE ",
                       file->name, file->partition);
    else
        ddb_buf_printf(b,
                       "-- Athena reads every file under a location: upload %s alone under a "
                       "prefix of its own\n-- and put that prefix below.\nCREATE EXTERNAL TABLE ",
                       file->name);
    ddb_schema_sql_ident(b, en->name, '`');
    ddb_buf_puts(b, " (");
    for (size_t f = 0; f < en->n_fields; f++) {
        if (ddb_schema_is_partition(&en->fields[f], file->partition))
            continue; /* a column of the folders, PARTITIONED BY */
        ddb_schema_column_type(&t, s, e, f, fmt, file->partition);
        ddb_buf_puts(b, first ? "\n  " : ",\n  ");
        first = 0;
        ddb_schema_sql_ident(b, en->fields[f].name, '`');
        ddb_buf_printf(b, " %s", t.athena);
    }
    ddb_buf_puts(b, first ? "\n  `_extra` string\n)\n" : ",\n  `_extra` string\n)\n");
    if (fmt == DDB_OUT_PARQUET) {
        athena_parquet(b, s, e, file);
    } else if (fmt == DDB_OUT_CSV) {
        ddb_buf_puts(b, "ROW FORMAT SERDE 'org.apache.hadoop.hive.serde2.OpenCSVSerde'\n"
                        "WITH SERDEPROPERTIES ('separatorChar' = ");
        sql_string(b, (char[]){delimiter ? delimiter : ',', '\0'});
        ddb_buf_puts(b, ", 'quoteChar' = '\"')\nLOCATION 's3://YOUR-BUCKET/YOUR-PREFIX/");
        ddb_buf_puts(b, en->name);
        ddb_buf_puts(b, "/'\nTBLPROPERTIES ('skip.header.line.count' = '1');\n");
    } else {
        ddb_buf_puts(b, "ROW FORMAT SERDE 'org.openx.data.jsonserde.JsonSerDe'\n"
                        "LOCATION 's3://YOUR-BUCKET/YOUR-PREFIX/");
        ddb_buf_puts(b, en->name);
        ddb_buf_puts(b, "/';\n");
    }
}

void ddb_schema_load_begin(ddb_buf *load, const ddb_schema *s, const ddb_schema_file *files,
                           size_t n, ddb_out_format fmt)
{
    ddb_buf_puts(load, "-- Loads every entity file with exact types. Run it from the output "
                       "folder:\n--   duckdb my.db < _ddbpipe/schema/load.duckdb.sql\n");
    for (size_t i = 0; fmt == DDB_OUT_NDJSON && i < n; i++)
        if (entity_needs_number_text(s, files[i].entity) == 2) {
            ddb_buf_puts(load, number_text_macro);
            break;
        }
}

void ddb_schema_load_entity(ddb_buf *load, const ddb_schema *s, const ddb_schema_file *file,
                            ddb_out_format fmt, char delimiter)
{
    if (fmt == DDB_OUT_PARQUET)
        duckdb_load_parquet(load, s, file->entity, file);
    else if (fmt == DDB_OUT_NDJSON && entity_needs_number_text(s, file->entity))
        duckdb_load_lines(load, s, file->entity, file->name);
    else
        duckdb_load(load, s, file->entity, file->name, fmt, delimiter);
}
