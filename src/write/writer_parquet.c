/*
 * The Parquet record writer: an entity's records as typed columns, one per
 * declared field, and "_extra" (a JSON column of DynamoDB JSON) for what no
 * column holds. Without an entity (no mapping) the file has a column per key
 * attribute it is told of, then one JSON column, "item": each item whole, as
 * DynamoDB JSON (the key columns only repeat what it holds, for queries).
 *
 * A map whose members the mapping declares ("fields") is a STRUCT, a column
 * per member. A map that does not match its declaration (a member it does not
 * declare, a member of another type, a number its DECIMAL cannot hold) goes
 * whole to _extra, as a declared field holding NULL does: nothing is lost or
 * changed, and the STRUCT is null in that row.
 */
#include "ddbpipe/writer.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/json.h"
#include "write/csv_cell.h"
#include "write/parquet_row.h"

typedef struct pq_writer {
    ddb_writer base;
    pq_file *f;
    const ddb_entity *e;
    int extra_plain;
    int ended; /* the footer is written */
    ddb_buf json; /* a record's row (pq_row_put), or an item's JSON */
    ddb_format_scratch scratch;
    size_t *col;   /* per field: its first column (a STRUCT has one per member) */
    /* without an entity: the key columns before "item" (names owned) */
    ddb_key_attr *keys;
    size_t n_keys;
    pq_opts po; /* kept to open the file at the first item, when a key's type is its */
} pq_writer;

size_t pq_field_columns(const ddb_field *fd)
{
    return fd->n_members ? fd->n_members : 1;
}

/* The column of a declared type: scalars as themselves, sets as LISTs,
 * maps, lists and NULL as JSON. */
static pq_column_def column_of(const ddb_field *fd)
{
    pq_column_def d = {fd->name, fd->name_len, PQ_JSON, 0, 0, 0, NULL, 0};
    switch (fd->type) {
    case DDB_TYPE_SS:
        d.list = 1; /* fall through */
    case DDB_TYPE_S:
        d.kind = PQ_STRING;
        break;
    case DDB_TYPE_NS:
        d.list = 1; /* fall through */
    case DDB_TYPE_N:
        d.kind = PQ_NUMBER;
        d.precision = fd->precision;
        d.scale = fd->scale;
        break;
    case DDB_TYPE_BS:
        d.list = 1; /* fall through */
    case DDB_TYPE_B:
        d.kind = PQ_BINARY;
        break;
    case DDB_TYPE_BOOL:
        d.kind = PQ_BOOL;
        break;
    default:
        break;
    }
    return d;
}

/* The record's row, made here (f's numbers decide where a STRUCT goes and
 * what is refused), into its columns. */
static int write_record(pq_writer *w, const ddb_map *rec, size_t n_declared, ddb_error *err)
{
    int rc;
    ddb_buf_clear(&w->json);
    rc = pq_row_put(&w->json, &w->scratch, w->e, w->extra_plain, rec, n_declared, w->f, err);
    if (rc != 0)
        return rc;
    return pq_row_write(w->f, w->json.ptr, w->json.len, 0);
}

static int open_items(pq_writer *w, const ddb_map *first, ddb_error *err);

/* Item rec's key attributes into their columns (a missing one, or one of
 * another type, null: the item column holds it); a number its DECIMAL
 * cannot hold refuses the item, as a field's does. */
static int put_keys(pq_writer *w, const ddb_map *rec, ddb_error *err)
{
    int rc;
    if (w->f == NULL && (rc = open_items(w, rec, err)) != 0)
        return rc;
    for (size_t k = 0; k < w->n_keys; k++) {
        const ddb_value *v = ddb_map_get(rec, w->keys[k].name, strlen(w->keys[k].name));
        if (v != NULL && v->type == DDB_TYPE_N && v->type == w->keys[k].type &&
            pq_number_fits(w->f, k, v->u.s.ptr, v->u.s.len, err) != 0)
            return DDB_WRITER_REFUSED;
    }
    for (size_t k = 0; k < w->n_keys; k++) {
        const ddb_value *v = ddb_map_get(rec, w->keys[k].name, strlen(w->keys[k].name));
        if (v != NULL && v->type == w->keys[k].type)
            pq_put(w->f, k, v->u.s.ptr, v->u.s.len);
        else
            pq_put_null(w->f, k);
    }
    return 0;
}

/* The row put: ends it in the file, and counts it. */
static int end_row(pq_writer *w, ddb_error *err)
{
    int rc;
    if ((rc = pq_end_row(w->f, err)) != 0)
        return rc;
    w->base.records++;
    return 0;
}

static int pw_write(ddb_writer *base, const ddb_map *rec, size_t n_declared, ddb_error *err)
{
    pq_writer *w = (pq_writer *)base;
    int rc;
    if (w->e != NULL) {
        if ((rc = write_record(w, rec, n_declared, err)) != 0)
            return rc == DDB_ENOMEM ? ddb_error_set(err, rc, "out of memory formatting a record")
                                    : rc;
    } else {
        if ((rc = put_keys(w, rec, err)) != 0)
            return rc;
        ddb_buf_clear(&w->json);
        ddb_json_put_typed_map(&w->json, rec);
        pq_put(w->f, w->n_keys, w->json.ptr, w->json.len);
        if (w->json.oom)
            return ddb_error_set(err, DDB_ENOMEM, "out of memory formatting a record");
    }
    return end_row(w, err);
}

static const ddb_writer_vtable parquet_vt;

/* A row another thread made is put as it is while the file's number
 * columns hold its numbers; else rec is written as pw_write would (a column
 * decided since may now refuse it, or send a STRUCT to _extra). */
int pq_writer_write_row(ddb_writer *base, const char *line, size_t len, const ddb_map *rec,
                        size_t n_declared, ddb_error *err)
{
    pq_writer *w = (pq_writer *)base;
    int rc;
    assert(base->vt == &parquet_vt);
    if (w->e != NULL)
        rc = pq_row_write(w->f, line, len, 1);
    else /* the first item opens the file, its keys' types unknown till then */
        rc = w->f == NULL || pq_item_row_write(w->f, w->keys, w->n_keys, line, len);
    if (rc != 0)
        return pw_write(base, rec, n_declared, err);
    return end_row(w, err);
}

static int end_file(pq_writer *w, ddb_error *err)
{
    int rc;
    if (w->ended)
        return 0;
    if (w->f == NULL && (rc = open_items(w, NULL, err)) != 0) /* no item came */
        return rc;
    if ((rc = pq_finish(w->f, err)) == 0)
        w->ended = 1;
    return rc;
}

static int pw_prepare(ddb_writer *base, ddb_error *err)
{
    int rc = end_file((pq_writer *)base, err);
    return rc != 0 ? rc : ddb_sink_prepare(base->sink, err);
}

static int pw_finish(ddb_writer *base, ddb_error *err)
{
    int rc = end_file((pq_writer *)base, err);
    return rc != 0 ? rc : ddb_sink_finish(base->sink, err);
}

static void pw_free(ddb_writer *base)
{
    pq_writer *w = (pq_writer *)base;
    pq_file_free(w->f);
    ddb_buf_dispose(&w->json);
    ddb_format_scratch_dispose(&w->scratch);
    free(w->col);
    for (size_t k = 0; k < w->n_keys; k++)
        free((char *)w->keys[k].name);
    free(w->keys);
}

static const ddb_writer_vtable parquet_vt = {pw_write, pw_free, pw_finish, pw_prepare};

/* Field i's columns from cols[w->col[i]]: a STRUCT's members named in it. */
static void field_columns(pq_writer *w, size_t i, pq_column_def *cols)
{
    const ddb_field *fd = &w->e->fields[i];
    if (fd->n_members == 0) {
        cols[w->col[i]] = column_of(fd);
        return;
    }
    for (size_t j = 0; j < fd->n_members; j++) {
        pq_column_def *d = &cols[w->col[i] + j];
        *d = column_of(&fd->members[j]);
        d->group = fd->name;
        d->group_len = fd->name_len;
    }
}

static int open_columns(pq_writer *w, ddb_error *err)
{
    size_t n = pq_entity_columns(w->e);
    pq_column_def *cols = calloc(n, sizeof(*cols));
    int rc;
    if (cols == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    for (size_t i = 0, at = 0; i < w->e->n_fields; i++) {
        w->col[i] = at;
        field_columns(w, i, cols);
        at += pq_field_columns(&w->e->fields[i]);
    }
    cols[n - 1] = (pq_column_def){DDB_EXTRA_FIELD, 6, PQ_JSON, 0, 0, 0, NULL, 0};
    rc = pq_file_new(&w->f, w->base.sink, cols, n, &w->po, err);
    free(cols);
    return rc;
}

/* Items: the key columns, then "item". A key whose type was not given takes
 * the first item's (S when it has none of S, N or B). */
static int open_items(pq_writer *w, const ddb_map *first, ddb_error *err)
{
    pq_column_def *cols = calloc(w->n_keys + 1, sizeof(*cols));
    int rc;
    if (cols == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    for (size_t k = 0; k < w->n_keys; k++) {
        ddb_field fd = {.name = (char *)w->keys[k].name, .type = w->keys[k].type};
        const ddb_value *v = first ? ddb_map_get(first, fd.name, strlen(fd.name)) : NULL;
        if (fd.type == DDB_TYPE_NONE)
            fd.type = v && (v->type == DDB_TYPE_N || v->type == DDB_TYPE_B) ? v->type : DDB_TYPE_S;
        w->keys[k].type = fd.type;
        fd.name_len = strlen(fd.name);
        cols[k] = column_of(&fd);
    }
    cols[w->n_keys] = (pq_column_def){"item", 4, PQ_JSON, 0, 0, 0, NULL, 0};
    rc = pq_file_new(&w->f, w->base.sink, cols, w->n_keys + 1, &w->po, err);
    free(cols);
    return rc;
}

/* The options the file is opened with; the key attributes copied. */
static int take_opts(pq_writer *w, const ddb_writer_opts *opts)
{
    w->po = (pq_opts){PQ_CODEC_ZSTD, 0, 0, NULL, 0, NULL};
    if (opts == NULL)
        return 0;
    w->extra_plain = opts->extra_plain;
    w->po.codec = opts->parquet_codec == DDB_PARQUET_GZIP     ? PQ_CODEC_GZIP
                  : opts->parquet_codec == DDB_PARQUET_NONE   ? PQ_CODEC_NONE
                  : opts->parquet_codec == DDB_PARQUET_SNAPPY ? PQ_CODEC_SNAPPY
                                                              : PQ_CODEC_ZSTD;
    w->po.group_rows = opts->parquet_group_rows;
    w->po.max_file_bytes = opts->parquet_max_file_bytes;
    w->po.plans = opts->parquet_plans;
    w->po.budget = opts->parquet_budget;
    if (w->e != NULL || opts->n_keys == 0)
        return 0;
    if ((w->keys = calloc(opts->n_keys, sizeof(*w->keys))) == NULL)
        return DDB_ENOMEM;
    for (; w->n_keys < opts->n_keys; w->n_keys++) {
        w->keys[w->n_keys].type = opts->keys[w->n_keys].type;
        if ((w->keys[w->n_keys].name = strdup(opts->keys[w->n_keys].name)) == NULL)
            return DDB_ENOMEM;
    }
    return 0;
}

int ddb_writer_new_parquet(ddb_writer **out, ddb_sink *sink, const ddb_entity *e,
                           const ddb_writer_opts *opts, ddb_error *err)
{
    pq_writer *w = calloc(1, sizeof(*w));
    size_t known = 0;
    int rc;
    *out = NULL;
    if (w == NULL) {
        ddb_sink_free(sink);
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    }
    w->base.vt = &parquet_vt;
    w->base.sink = sink;
    w->e = e;
    if (take_opts(w, opts) != 0 ||
        (e != NULL && (w->col = malloc((e->n_fields ? e->n_fields : 1) * sizeof(*w->col))) == NULL)) {
        ddb_writer_free(&w->base);
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    }
    while (known < w->n_keys && w->keys[known].type != DDB_TYPE_NONE)
        known++;
    /* a key of no given type waits for the first item */
    rc = e != NULL ? open_columns(w, err) : known == w->n_keys ? open_items(w, NULL, err) : 0;
    if (rc != 0) {
        ddb_writer_free(&w->base);
        return rc;
    }
    *out = &w->base;
    return 0;
}

size_t pq_entity_columns(const ddb_entity *e)
{
    size_t n = 1; /* _extra */
    for (size_t i = 0; i < e->n_fields; i++)
        n += pq_field_columns(&e->fields[i]);
    return n;
}

int pq_writer_number_type(const ddb_writer *base, size_t col, int *as_text, int *scale)
{
    const pq_writer *w = (const pq_writer *)base;
    if (base->vt != &parquet_vt)
        return -1;
    pq_number_type(w->f, col, as_text, scale);
    return 0;
}

int pq_writer_full(const ddb_writer *base)
{
    return base->vt == &parquet_vt && pq_full(((const pq_writer *)base)->f);
}

int ddb_parquet_codec_parse(ddb_parquet_codec *out, const char *s, ddb_error *err)
{
    static const char *const names[] = {"zstd", "gzip", "none", "snappy"};
    for (int i = 0; i < 4; i++) {
        if (strcmp(s, names[i]) == 0) {
            *out = (ddb_parquet_codec)i;
            return 0;
        }
    }
    return ddb_error_set(err, DDB_EUSAGE,
                         "unknown Parquet compression \"%s\": use zstd, snappy, gzip or none", s);
}
