/*
 * The Parquet record writer: an entity's records as typed columns, one per
 * declared field, and "_extra" (a JSON column of DynamoDB JSON) for what no
 * column holds. Without an entity (no mapping) the file has one JSON column,
 * "item": each item whole, as DynamoDB JSON.
 */
#include "ddbpipe/writer.h"

#include <stdlib.h>
#include <string.h>

#include "ddbpipe/json.h"
#include "write/csv_cell.h"
#include "write/parquet.h"

typedef struct pq_writer {
    ddb_writer base;
    pq_file *f;
    const ddb_entity *e;
    int extra_plain;
    int ended; /* the footer is written */
    ddb_buf json;
    unsigned char *used; /* per attribute of the record: in a column */
    size_t used_cap;
    ptrdiff_t *at; /* per field: the attribute in its column, or -1 */
} pq_writer;

/* The column of a declared type: scalars as themselves, sets as LISTs,
 * maps, lists and NULL as JSON. */
static pq_column_def column_of(const ddb_field *fd)
{
    pq_column_def d = {fd->name, fd->name_len, PQ_JSON, 0, 0, 0};
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

/* A value of column col's declared type into it. */
static void put_field(pq_writer *w, size_t col, const ddb_value *v)
{
    unsigned char b;
    switch (v->type) {
    case DDB_TYPE_S:
    case DDB_TYPE_N:
    case DDB_TYPE_B:
        pq_put(w->f, col, v->u.s.ptr, v->u.s.len);
        break;
    case DDB_TYPE_BOOL:
        b = v->u.boolean != 0;
        pq_put(w->f, col, &b, 1);
        break;
    case DDB_TYPE_SS:
    case DDB_TYPE_NS:
    case DDB_TYPE_BS:
        pq_put_list(w->f, col, v->u.l.count);
        for (size_t i = 0; i < v->u.l.count; i++)
            pq_put_elem(w->f, col, i, v->u.l.items[i].u.s.ptr, v->u.l.items[i].u.s.len);
        break;
    case DDB_TYPE_M:
        ddb_buf_clear(&w->json);
        ddb_json_put_typed_map(&w->json, &v->u.m);
        pq_put(w->f, col, w->json.ptr, w->json.len);
        break;
    default:
        ddb_buf_clear(&w->json);
        if (v->type == DDB_TYPE_L) {
            /* the list's DynamoDB JSON without its {"L":...} wrapper, as a map's */
            ddb_buf_putc(&w->json, '[');
            for (size_t i = 0; i < v->u.l.count; i++) {
                if (i)
                    ddb_buf_putc(&w->json, ',');
                ddb_json_put_typed_value(&w->json, &v->u.l.items[i]);
            }
            ddb_buf_putc(&w->json, ']');
        } else {
            ddb_json_put_typed_value(&w->json, v);
        }
        pq_put(w->f, col, w->json.ptr, w->json.len);
        break;
    }
}

/* Which attribute holds each field (used[a] = field + 1), found by the merge
 * walk the other writers make: declared attributes come in field order,
 * named with the mapping's own strings. A value not of its field's type
 * (a NULL) is left to _extra, as CSV does. */
static void place(pq_writer *w, const ddb_map *rec, size_t n_declared, ptrdiff_t *at)
{
    size_t c = 0;
    for (size_t i = 0; i < w->e->n_fields; i++) {
        const ddb_field *fd = &w->e->fields[i];
        at[i] = -1;
        if (c < n_declared &&
            (rec->attrs[c].name.ptr == fd->name ||
             (rec->attrs[c].name.len == fd->name_len &&
              memcmp(rec->attrs[c].name.ptr, fd->name, fd->name_len) == 0))) {
            if (rec->attrs[c].value.type == fd->type) {
                at[i] = (ptrdiff_t)c;
                w->used[c] = 1;
            }
            c++;
        }
    }
}

/* Every number a decided DECIMAL column cannot hold refuses the record. */
static int check_numbers(pq_writer *w, const ddb_map *rec, const ptrdiff_t *at, ddb_error *err)
{
    for (size_t i = 0; i < w->e->n_fields; i++) {
        const ddb_value *v;
        int rc = 0;
        if (at[i] < 0)
            continue;
        v = &rec->attrs[at[i]].value;
        if (v->type == DDB_TYPE_N)
            rc = pq_number_fits(w->f, i, v->u.s.ptr, v->u.s.len, err);
        for (size_t k = 0; rc == 0 && v->type == DDB_TYPE_NS && k < v->u.l.count; k++)
            rc = pq_number_fits(w->f, i, v->u.l.items[k].u.s.ptr, v->u.l.items[k].u.s.len, err);
        if (rc != 0)
            return rc;
    }
    return 0;
}

static void put_extra(pq_writer *w, const ddb_map *rec)
{
    ddb_buf_clear(&w->json);
    if (ddb_csv_extra_text(&w->json, rec, w->used, w->extra_plain))
        pq_put(w->f, w->e->n_fields, w->json.ptr, w->json.len);
    else
        pq_put_null(w->f, w->e->n_fields);
}

static int write_record(pq_writer *w, const ddb_map *rec, size_t n_declared, ddb_error *err)
{
    ptrdiff_t *at = w->at;
    if (rec->count > w->used_cap) {
        unsigned char *u = realloc(w->used, rec->count);
        if (u == NULL)
            return ddb_error_set(err, DDB_ENOMEM, "out of memory");
        w->used = u;
        w->used_cap = rec->count;
    }
    if (rec->count)
        memset(w->used, 0, rec->count);
    place(w, rec, n_declared, at);
    if (check_numbers(w, rec, at, err) != 0)
        return DDB_WRITER_REFUSED;
    for (size_t i = 0; i < w->e->n_fields; i++) {
        if (at[i] < 0)
            pq_put_null(w->f, i);
        else
            put_field(w, i, &rec->attrs[at[i]].value);
    }
    put_extra(w, rec);
    return 0;
}

static int pw_write(ddb_writer *base, const ddb_map *rec, size_t n_declared, ddb_error *err)
{
    pq_writer *w = (pq_writer *)base;
    int rc;
    if (w->e != NULL) {
        if ((rc = write_record(w, rec, n_declared, err)) != 0)
            return rc;
    } else {
        ddb_buf_clear(&w->json);
        ddb_json_put_typed_map(&w->json, rec);
        pq_put(w->f, 0, w->json.ptr, w->json.len);
    }
    if (w->json.oom)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory formatting a record");
    if ((rc = pq_end_row(w->f, err)) != 0)
        return rc;
    base->records++;
    return 0;
}

static int end_file(pq_writer *w, ddb_error *err)
{
    int rc;
    if (w->ended)
        return 0;
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
    free(w->used);
    free(w->at);
}

static const ddb_writer_vtable parquet_vt = {pw_write, pw_free, pw_finish, pw_prepare};

static int open_columns(pq_writer *w, const ddb_writer_opts *opts, ddb_error *err)
{
    size_t n = w->e ? w->e->n_fields + 1 : 1;
    pq_column_def *cols = calloc(n, sizeof(*cols));
    pq_opts po = {PQ_CODEC_ZSTD, 0, 0, NULL, 0};
    int rc;
    if (cols == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    for (size_t i = 0; w->e != NULL && i < w->e->n_fields; i++)
        cols[i] = column_of(&w->e->fields[i]);
    cols[n - 1] = (pq_column_def){w->e ? DDB_EXTRA_FIELD : "item", w->e ? 6 : 4, PQ_JSON, 0, 0, 0};
    if (opts != NULL) {
        po.codec = opts->parquet_codec == DDB_PARQUET_GZIP     ? PQ_CODEC_GZIP
                   : opts->parquet_codec == DDB_PARQUET_NONE   ? PQ_CODEC_NONE
                   : opts->parquet_codec == DDB_PARQUET_SNAPPY ? PQ_CODEC_SNAPPY
                                                               : PQ_CODEC_ZSTD;
        po.group_rows = opts->parquet_group_rows;
        po.max_file_bytes = opts->parquet_max_file_bytes;
        po.plans = opts->parquet_plans;
    }
    rc = pq_file_new(&w->f, w->base.sink, cols, n, &po, err);
    free(cols);
    return rc;
}

int ddb_writer_new_parquet(ddb_writer **out, ddb_sink *sink, const ddb_entity *e,
                           const ddb_writer_opts *opts, ddb_error *err)
{
    pq_writer *w = calloc(1, sizeof(*w));
    int rc;
    *out = NULL;
    if (w == NULL) {
        ddb_sink_free(sink);
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    }
    w->base.vt = &parquet_vt;
    w->base.sink = sink;
    w->e = e;
    w->extra_plain = opts && opts->extra_plain;
    if (e != NULL && (w->at = malloc((e->n_fields ? e->n_fields : 1) * sizeof(*w->at))) == NULL) {
        ddb_writer_free(&w->base);
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    }
    if ((rc = open_columns(w, opts, err)) != 0) {
        ddb_writer_free(&w->base);
        return rc;
    }
    *out = &w->base;
    return 0;
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
