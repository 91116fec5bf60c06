/*
 * Record writers. Each formats a record into one reusable line buffer and
 * hands it to its sink: no allocation per record once the buffer has grown.
 */
#include "ddbpipe/writer.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/csv.h"
#include "ddbpipe/json.h"
#include "ddbpipe/sink.h"
#include "core/name_set.h"
#include "write/csv_cell.h"
#include "write/parquet_row.h"

/* How a writer's records become lines: fixed when it is made, so any thread
 * may format with it while the writer writes (ddb_line_format_put). */
struct ddb_line_format {
    ddb_out_format fmt;
    const ddb_entity *entity;
    char delim;
    int typed_values; /* NDJSON without an entity: DynamoDB JSON values */
    int extra_plain;  /* undeclared attributes as plain JSON values */
    /* Parquet of items: the key attributes (the options', which outlive it) */
    const ddb_key_attr *keys;
    size_t n_keys;
    /* NDJSON of an entity: each field's "name": as written, in one buffer
     * (field i's from name_at[i] to name_at[i + 1]) */
    ddb_buf names_json;
    size_t *name_at;
};

typedef struct rec_writer {
    ddb_writer base;
    ddb_line_format f;
    ddb_buf line;
    ddb_format_scratch s;
    /* CSV without an entity: the columns, fixed by opts or the first record */
    size_t n_columns;
    ddb_type *column_types; /* NULL: untyped columns */
    /* the columns' names, each once (col_first: the first column of each);
     * per column its name's place there (col_name) and the next column of
     * the same name (col_next, -1: none); per record the attribute in each
     * column (col_at, -1: none) */
    ddb_name_set col_names;
    size_t *col_name;
    ptrdiff_t *col_first, *col_next, *col_at;
    int header_done;
} rec_writer;

static const char *const out_names[] = {"ndjson", "csv", "ddb-json", "parquet"};
static const char *const out_exts[] = {"ndjson", "csv", "json", "parquet"};

const char *ddb_out_format_name(ddb_out_format f)
{
    return (unsigned)f < 4 ? out_names[f] : "?";
}

const char *ddb_out_format_ext(ddb_out_format f)
{
    return (unsigned)f < 4 ? out_exts[f] : "out";
}

int ddb_out_format_parse(ddb_out_format *out, const char *s)
{
    for (int i = 0; i < 4; i++) {
        if (strcmp(s, out_names[i]) == 0) {
            *out = (ddb_out_format)i;
            return 0;
        }
    }
    if (strcmp(s, "json") == 0 || strcmp(s, "dynamodb-json") == 0) {
        *out = DDB_OUT_DDBJSON;
        return 0;
    }
    return DDB_EUSAGE;
}

static int emit(rec_writer *w, ddb_error *err)
{
    int rc;
    if (w->line.oom)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory formatting a record");
    rc = ddb_sink_write(w->base.sink, w->line.ptr, w->line.len, err);
    if (rc == 0)
        w->base.records++;
    ddb_buf_clear(&w->line);
    return rc;
}

static int name_is(const ddb_str *n, const char *s, size_t len)
{
    return n->len == len && memcmp(n->ptr, s, len) == 0;
}

/* ---------------------------------------------------------------- NDJSON */

static void format_ndjson(const ddb_line_format *lf, ddb_buf *b, const ddb_map *rec,
                          size_t n_declared)
{
    const ddb_entity *e = lf->entity;
    int first = 1;
    size_t f = 0; /* declared attributes come in field order: one merge walk */

    if (e == NULL) {
        if (lf->typed_values)
            ddb_json_put_typed_map(b, rec);
        else
            ddb_json_put_plain_map(b, rec);
        ddb_buf_putc(b, '\n');
        return;
    }
    ddb_buf_putc(b, '{');
    for (size_t i = 0; i < n_declared; i++) {
        const ddb_str *name = &rec->attrs[i].name;
        if (!first)
            ddb_buf_putc(b, ',');
        first = 0;
        /* a decoded record names its fields with the mapping's own strings */
        while (f < e->n_fields &&
               (e->fields[f].name != name->ptr || e->fields[f].name_len != name->len))
            f++;
        if (f < e->n_fields && lf->name_at != NULL) {
            ddb_buf_append(b, lf->names_json.ptr + lf->name_at[f],
                           lf->name_at[f + 1] - lf->name_at[f]);
            f++;
        } else {
            f = 0;
            ddb_json_put_string(b, name->ptr, name->len);
            ddb_buf_putc(b, ':');
        }
        ddb_json_put_plain_value(b, &rec->attrs[i].value);
    }
    if (rec->count > n_declared) {
        /* Undeclared attributes keep their DynamoDB types so they round-trip,
         * unless plain values were asked for (analytics tools). */
        ddb_map extra = {rec->attrs + n_declared, rec->count - n_declared};
        if (!first)
            ddb_buf_putc(b, ',');
        ddb_buf_puts(b, "\"" DDB_EXTRA_FIELD "\":");
        if (lf->extra_plain)
            ddb_json_put_plain_map(b, &extra);
        else
            ddb_json_put_typed_map(b, &extra);
    }
    ddb_buf_puts(b, "}\n");
}

/* ------------------------------------------------------------------- CSV */

/* s->used: per attribute of the record, whether a column holds it. */
static int ensure_used(ddb_format_scratch *s, size_t n)
{
    ddb_buf_clear(&s->used);
    if (ddb_buf_reserve(&s->used, n) != 0)
        return DDB_ENOMEM;
    if (n)
        memset(s->used.ptr, 0, n);
    return 0;
}

/* A record of the entity: its fields' cells, then _extra. */
static void format_csv_entity(const ddb_line_format *lf, ddb_buf *line, ddb_format_scratch *s,
                              const ddb_map *rec, size_t n_declared)
{
    const ddb_entity *e = lf->entity;
    unsigned char *used = (unsigned char *)s->used.ptr;
    size_t c = 0; /* declared attributes come in field order: one merge walk */
    for (size_t i = 0; i < e->n_fields; i++) {
        const ddb_field *f = &e->fields[i];
        /* a decoded record names its fields with the mapping's own strings */
        if (c < n_declared && (rec->attrs[c].name.ptr == f->name ||
                               name_is(&rec->attrs[c].name, f->name, f->name_len))) {
            /* CSV cannot hold a NULL in a typed column: it goes to _extra. */
            if (rec->attrs[c].value.type != DDB_TYPE_NULL || f->type == DDB_TYPE_NULL) {
                ddb_csv_put_cell(line, &s->cell, &rec->attrs[c].value, lf->delim, 0);
                used[c] = 1;
            }
            c++;
        }
        ddb_buf_putc(line, lf->delim);
    }
    /* the "_extra" cell: every attribute not placed in a column */
    ddb_csv_put_extra(line, rec, (const unsigned char *)s->used.ptr, lf->extra_plain);
    ddb_buf_putc(line, '\n');
}

static int ends_like_type(const char *name, size_t len)
{
    ddb_type t;
    for (size_t k = len; k > 1; k--)
        if (name[k - 1] == ':')
            return ddb_type_parse(&t, name + k, len - k) == 0;
    return 0;
}

static void header_line(rec_writer *w)
{
    if (w->f.entity != NULL) {
        for (size_t i = 0; i < w->f.entity->n_fields; i++) {
            ddb_csv_put_field(&w->line, w->f.entity->fields[i].name,
                              strlen(w->f.entity->fields[i].name), w->f.delim, 0);
            ddb_buf_putc(&w->line, w->f.delim);
        }
    } else {
        for (size_t i = 0; i < w->n_columns; i++) {
            ddb_type t = w->column_types ? w->column_types[i] : DDB_TYPE_NONE;
            const ddb_name *name = &w->col_names.at[w->col_name[i]];
            ddb_buf_clear(&w->s.cell);
            ddb_buf_append(&w->s.cell, name->name, name->len);
            /* A string column is just its name, unless the name itself ends in
             * ":TYPE" (an attribute "ratio:N"), which the reader would take for
             * a type: then it says ":S". */
            if (t != DDB_TYPE_NONE && (t != DDB_TYPE_S || ends_like_type(name->name, name->len)))
                ddb_buf_printf(&w->s.cell, ":%s", ddb_type_name(t));
            ddb_csv_put_field(&w->line, w->s.cell.ptr, w->s.cell.len, w->f.delim, 0);
            ddb_buf_putc(&w->line, w->f.delim);
        }
    }
    ddb_buf_puts(&w->line, DDB_EXTRA_FIELD "\n");
}

static int write_csv_header(rec_writer *w, ddb_error *err)
{
    int rc;
    header_line(w);
    rc = emit(w, err);
    w->base.records = 0; /* the header is not a record */
    w->header_done = 1;
    return rc;
}

/* The first column named name, or -1. */
static ptrdiff_t column_named(const rec_writer *w, const char *name, size_t len)
{
    ptrdiff_t at = ddb_name_set_find(&w->col_names, name, len);
    return at < 0 ? -1 : w->col_first[at];
}

static int set_columns(rec_writer *w, const char *const *names, const size_t *lens, size_t n)
{
    w->col_name = malloc((n ? n : 1) * sizeof(*w->col_name));
    w->col_first = malloc((n ? n : 1) * sizeof(*w->col_first));
    w->col_next = malloc((n ? n : 1) * sizeof(*w->col_next));
    w->col_at = malloc((n ? n : 1) * sizeof(*w->col_at));
    if (w->col_name == NULL || w->col_first == NULL || w->col_next == NULL || w->col_at == NULL)
        return DDB_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        size_t at;
        int added =
            ddb_name_set_add(&w->col_names, names[i], lens ? lens[i] : strlen(names[i]), &at);
        if (added < 0)
            return DDB_ENOMEM;
        w->col_name[i] = at;
        w->col_next[i] = -1;
        if (added) {
            w->col_first[at] = (ptrdiff_t)i;
        } else {
            ptrdiff_t same = w->col_first[at];
            while (w->col_next[same] >= 0) /* a name given twice: both columns get it */
                same = w->col_next[same];
            w->col_next[same] = (ptrdiff_t)i;
        }
        w->n_columns++;
    }
    return 0;
}

static int write_csv(ddb_writer *base, const ddb_map *rec, size_t n_declared, ddb_error *err)
{
    rec_writer *w = (rec_writer *)base;
    unsigned char *used;
    int rc;

    if (w->f.entity != NULL) {
        if ((rc = ddb_line_format_put(&w->f, &w->line, &w->s, rec, n_declared)) != 0)
            return ddb_error_set(err, rc, "out of memory");
        return emit(w, err);
    }
    if (ensure_used(&w->s, rec->count) != 0)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    if (!w->header_done) {
        /* No mapping: the first record's attributes become the columns. */
        const char **names = malloc((rec->count ? rec->count : 1) * sizeof(char *));
        size_t *lens = malloc((rec->count ? rec->count : 1) * sizeof(size_t));
        if (names == NULL || lens == NULL) {
            free(names);
            free(lens);
            return ddb_error_set(err, DDB_ENOMEM, "out of memory");
        }
        for (size_t i = 0; i < rec->count; i++) {
            names[i] = rec->attrs[i].name.ptr;
            lens[i] = rec->attrs[i].name.len;
        }
        rc = set_columns(w, names, lens, rec->count);
        free(names);
        free(lens);
        if (rc != 0)
            return ddb_error_set(err, DDB_ENOMEM, "out of memory");
        if ((rc = write_csv_header(w, err)) != 0)
            return rc;
    }
    used = (unsigned char *)w->s.used.ptr;
    /* each attribute into its columns, once (the first of a name, as
     * a search would find it, is put in last) */
    for (size_t i = 0; i < w->n_columns; i++)
        w->col_at[i] = -1;
    for (size_t i = rec->count; i-- > 0;)
        for (ptrdiff_t c = column_named(w, rec->attrs[i].name.ptr, rec->attrs[i].name.len); c >= 0;
             c = w->col_next[c])
            w->col_at[c] = (ptrdiff_t)i;
    for (size_t i = 0; i < w->n_columns; i++) {
        ptrdiff_t at = w->col_at[i];
        ddb_type t = w->column_types ? w->column_types[i] : DDB_TYPE_NONE;
        /* A typed column holds only its type; NULL never has a column. */
        if (at >= 0 && rec->attrs[at].value.type != DDB_TYPE_NULL &&
            (t == DDB_TYPE_NONE || rec->attrs[at].value.type == t)) {
            ddb_csv_put_cell(&w->line, &w->s.cell, &rec->attrs[at].value, w->f.delim,
                             t != DDB_TYPE_NONE);
            used[at] = 1;
        }
        ddb_buf_putc(&w->line, w->f.delim);
    }
    ddb_csv_put_extra(&w->line, rec, used, w->f.extra_plain);
    ddb_buf_putc(&w->line, '\n');
    return emit(w, err);
}

/* ------------------------------------------------------------- formatting */

int ddb_line_format_put(const ddb_line_format *f, ddb_buf *line, ddb_format_scratch *s,
                        const ddb_map *rec, size_t n_declared)
{
    assert(f->fmt != DDB_OUT_CSV || f->entity != NULL);
    switch (f->fmt) {
    case DDB_OUT_CSV:
        if (ensure_used(s, rec->count) != 0)
            return DDB_ENOMEM;
        format_csv_entity(f, line, s, rec, n_declared);
        break;
    case DDB_OUT_PARQUET:
        if (f->entity == NULL)
            return pq_item_row_put(line, f->keys, f->n_keys, rec);
        return pq_row_put(line, s, f->entity, f->extra_plain, rec, n_declared, NULL, NULL);
    case DDB_OUT_DDBJSON:
        ddb_buf_puts(line, "{\"Item\":");
        ddb_json_put_typed_map(line, rec);
        ddb_buf_puts(line, "}\n");
        break;
    default:
        format_ndjson(f, line, rec, n_declared);
        break;
    }
    return line->oom || s->cell.oom ? DDB_ENOMEM : 0;
}

static int write_line(ddb_writer *base, const ddb_map *rec, size_t n_declared, ddb_error *err)
{
    rec_writer *w = (rec_writer *)base;
    int rc = ddb_line_format_put(&w->f, &w->line, &w->s, rec, n_declared);
    if (rc != 0)
        return ddb_error_set(err, rc, "out of memory formatting a record");
    return emit(w, err);
}

int ddb_writer_write_line(ddb_writer *base, const char *line, size_t len, const ddb_map *rec,
                          size_t n_declared, ddb_error *err)
{
    int rc;
    if (base->vt->write != write_line && base->vt->write != write_csv)
        return pq_writer_write_row(base, line, len, rec, n_declared, err);
    rc = ddb_sink_write(base->sink, line, len, err);
    if (rc == 0)
        base->records++;
    return rc;
}

/* Fills f for records of e (NULL: items) in fmt, which has lines. */
static int line_format_init(ddb_line_format *f, ddb_out_format fmt, const ddb_entity *e,
                            const ddb_writer_opts *opts)
{
    f->fmt = fmt;
    f->entity = e;
    f->delim = opts && opts->delimiter ? opts->delimiter : ',';
    f->extra_plain = opts && opts->extra_plain;
    f->typed_values = opts && opts->typed_values;
    f->keys = opts ? opts->keys : NULL;
    f->n_keys = opts ? opts->n_keys : 0;
    if (fmt != DDB_OUT_NDJSON || e == NULL)
        return 0;
    /* the names as written, once, not escaped again for every record */
    if ((f->name_at = malloc((e->n_fields + 1) * sizeof(*f->name_at))) == NULL)
        return DDB_ENOMEM;
    for (size_t i = 0; i < e->n_fields; i++) {
        f->name_at[i] = f->names_json.len;
        ddb_json_put_string(&f->names_json, e->fields[i].name, e->fields[i].name_len);
        ddb_buf_putc(&f->names_json, ':');
    }
    f->name_at[e->n_fields] = f->names_json.len;
    return f->names_json.oom ? DDB_ENOMEM : 0;
}

static void line_format_dispose(ddb_line_format *f)
{
    ddb_buf_dispose(&f->names_json);
    free(f->name_at);
}

int ddb_line_format_new(ddb_line_format **out, ddb_out_format fmt, const ddb_entity *e,
                        const ddb_writer_opts *opts)
{
    ddb_line_format *f;
    *out = NULL;
    if (fmt == DDB_OUT_CSV && e == NULL)
        return 0; /* columns (the union CSV's) are the writer's state */
    if ((f = calloc(1, sizeof(*f))) == NULL)
        return DDB_ENOMEM;
    if (line_format_init(f, fmt, e, opts) != 0) {
        ddb_line_format_free(f);
        return DDB_ENOMEM;
    }
    *out = f;
    return 0;
}

void ddb_line_format_free(ddb_line_format *f)
{
    if (f == NULL)
        return;
    line_format_dispose(f);
    free(f);
}

void ddb_format_scratch_dispose(ddb_format_scratch *s)
{
    ddb_buf_dispose(&s->cell);
    ddb_buf_dispose(&s->used);
}

/* ------------------------------------------------------------- lifecycle */

static void rec_free(ddb_writer *base)
{
    rec_writer *w = (rec_writer *)base;
    ddb_buf_dispose(&w->line);
    ddb_format_scratch_dispose(&w->s);
    line_format_dispose(&w->f);
    ddb_name_set_dispose(&w->col_names);
    free(w->col_name);
    free(w->col_first);
    free(w->col_next);
    free(w->col_at);
    free(w->column_types);
}

static const ddb_writer_vtable line_vt = {write_line, rec_free, NULL, NULL};
static const ddb_writer_vtable csv_vt = {write_csv, rec_free, NULL, NULL};

int ddb_writer_new(ddb_writer **out, ddb_out_format fmt, ddb_sink *sink, const ddb_entity *e,
                   const ddb_writer_opts *opts, ddb_error *err)
{
    rec_writer *w = calloc(1, sizeof(*w));
    int rc = 0;

    *out = NULL;
    if (fmt == DDB_OUT_PARQUET) {
        free(w);
        return ddb_writer_new_parquet(out, sink, e, opts, err);
    }
    if (w == NULL) {
        ddb_sink_free(sink);
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    }
    w->base.sink = sink;
    w->base.vt = fmt == DDB_OUT_CSV ? &csv_vt : &line_vt;
    if (line_format_init(&w->f, fmt, e, opts) != 0) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto done;
    }
    if (fmt == DDB_OUT_CSV) {
        if (e == NULL && opts && opts->columns &&
            set_columns(w, opts->columns, NULL, opts->n_columns) != 0) {
            rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
            goto done;
        }
        if (e == NULL && opts && opts->columns && opts->column_types) {
            if ((w->column_types =
                     malloc((opts->n_columns ? opts->n_columns : 1) * sizeof(ddb_type))) == NULL) {
                rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
                goto done;
            }
            memcpy(w->column_types, opts->column_types, opts->n_columns * sizeof(ddb_type));
        }
        /* The header goes out at once when the columns are known, so even an
         * entity without records gets a well-formed file. */
        if (opts && opts->appending)
            w->header_done = 1;
        else if ((e != NULL || w->col_name != NULL) && (rc = write_csv_header(w, err)) != 0)
            goto done;
    }
done:
    if (rc != 0) {
        ddb_writer_free(&w->base);
        return rc;
    }
    *out = &w->base;
    return 0;
}

int ddb_writer_prepare(ddb_writer *w, ddb_error *err)
{
    if (w->vt->prepare != NULL)
        return w->vt->prepare(w, err);
    return ddb_sink_prepare(w->sink, err);
}

int ddb_writer_finish(ddb_writer *w, ddb_error *err)
{
    if (w->vt->finish != NULL)
        return w->vt->finish(w, err);
    return ddb_sink_finish(w->sink, err);
}

void ddb_writer_free(ddb_writer *w)
{
    if (w == NULL)
        return;
    w->vt->free(w);
    ddb_sink_free(w->sink);
    free(w);
}
