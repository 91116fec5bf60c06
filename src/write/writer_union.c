/*
 * CSV of items without a mapping (see writer.h, ddb_writer_new_csv_union):
 * every attribute in a column of its own, its type in the header (price:N),
 * so the file reads back to the same items. The header is the union of the
 * attributes of all records, known only at the end; but a cell is not: a
 * column's type is its first non-NULL value's, fixed before any cell of it
 * is placed, and a value of another type (or NULL, or a second attribute of
 * the same name) goes to _extra whenever it comes. So each record is written
 * to a spill file as its row already, the cells as CSV bytes tagged with
 * their columns (spill_codec.h), and finish writes the header and lays the
 * rows out under it, copying bytes (union_layout.c, which also writes rows as
 * they come while the header stays the same). A cell's bytes depend on the
 * value alone, so worker threads make them (ddb_csv_union_cells) and the
 * writer only numbers the columns.
 */
#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ddbpipe/array.h"
#include "ddbpipe/csv.h"
#include "ddbpipe/mapping.h"
#include "ddbpipe/writer.h"
#include "ddbpipe/sink.h"
#include "ddbpipe/source.h"
#include "core/name_set.h"
#include "write/csv_cell.h"
#include "write/spill_codec.h"
#include "write/writer_union_internal.h"

static void put_u32(char *o, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        o[i] = (char)(unsigned char)(v >> (8 * i));
}

static uint32_t get_u32(const char *p)
{
    const unsigned char *u = (const unsigned char *)p;
    return (uint32_t)u[0] | (uint32_t)u[1] << 8 | (uint32_t)u[2] << 16 | (uint32_t)u[3] << 24;
}

int ddb_csv_union_cells(ddb_buf *out, ddb_format_scratch *s, const ddb_map *rec, char delim)
{
    for (size_t i = 0; i < rec->count; i++) {
        size_t at = out->len, len;
        if (ddb_buf_reserve(out, 4) != 0)
            return DDB_ENOMEM;
        out->len += 4;
        if (rec->attrs[i].value.type == DDB_TYPE_NULL) {
            put_u32(out->ptr + at, NO_CELL);
            continue;
        }
        ddb_csv_put_cell(out, &s->cell, &rec->attrs[i].value, delim ? delim : ',', 1);
        if (out->oom || s->cell.oom || (len = out->len - at - 4) >= NO_CELL)
            return DDB_ENOMEM;
        put_u32(out->ptr + at, (uint32_t)len);
    }
    return out->oom ? DDB_ENOMEM : 0;
}

/* The column of an attribute, added at the end when new (and told to the
 * spill, unless learnt from it). */
static int column_of(union_writer *u, const ddb_str *name, int spool, size_t *c)
{
    int rc = ddb_name_set_add(&u->cols, name->ptr, name->len, c);
    if (rc == 1) {
        column *nc = ddb_array_reserve(u->col, *c, &u->col_cap, sizeof(*nc), 16);
        if (nc == NULL)
            return DDB_ENOMEM;
        u->col = nc;
        u->col[*c].type = DDB_TYPE_NONE;
        u->col[*c].seen = 0;
        if (strcmp(u->cols.at[*c].name, DDB_EXTRA_FIELD) == 0)
            u->extra_col = *c;
        if (spool && ddb_spill_put_column(&u->frame, name->ptr, name->len) != 0)
            return DDB_ENOMEM;
    }
    return rc < 0 ? rc : 0;
}

static int cell_cmp(const void *a, const void *b)
{
    const ddb_spill_cell *x = a, *y = b;
    return x->col < y->col ? -1 : x->col > y->col;
}

/* Places rec's attributes: u->cells, in column order, and s.used (the rest go
 * to _extra). Notes new columns and types in u->frame. Returns the count of
 * cells, or (size_t)-1 when out of memory. */
static size_t place(union_writer *u, const ddb_map *rec, const char *made)
{
    size_t n = 0;
    unsigned char *used;
    ddb_buf_clear(&u->s.used);
    if (ddb_buf_reserve(&u->s.used, rec->count) != 0)
        return (size_t)-1;
    /* room for a cell per attribute: ddb_array_reserve grows by one doubling,
     * so as many as a record twice as wide as the last one needs */
    while (u->cells_cap < rec->count) {
        ddb_spill_cell *nc =
            ddb_array_reserve(u->cells, u->cells_cap, &u->cells_cap, sizeof(*nc), 16);
        if (nc == NULL)
            return (size_t)-1;
        u->cells = nc;
    }
    used = (unsigned char *)u->s.used.ptr;
    u->stamp++;
    for (size_t i = 0; i < rec->count; i++) {
        const ddb_value *v = &rec->attrs[i].value;
        uint32_t len = get_u32(made);
        size_t c;
        if (column_of(u, &rec->attrs[i].name, 1, &c) != 0)
            return (size_t)-1;
        if (u->col[c].type == DDB_TYPE_NONE && v->type != DDB_TYPE_NULL) {
            u->col[c].type = v->type;
            if (ddb_spill_put_type(&u->frame, c, v->type) != 0)
                return (size_t)-1;
            u->typed++;
        }
        /* the first attribute of a name has its column, if of its type */
        used[i] = u->col[c].seen != u->stamp && v->type == u->col[c].type && c != u->extra_col;
        u->col[c].seen = u->stamp;
        made += 4;
        if (used[i]) {
            assert(len != NO_CELL);
            u->cells[n].col = c;
            u->cells[n].ptr = made;
            u->cells[n++].len = len;
        }
        made += len == NO_CELL ? 0 : len;
    }
    for (size_t i = 1; i < n && n <= 32; i++) /* attributes mostly come in column order */
        for (size_t j = i; j > 0 && u->cells[j].col < u->cells[j - 1].col; j--) {
            ddb_spill_cell t = u->cells[j];
            u->cells[j] = u->cells[j - 1];
            u->cells[j - 1] = t;
        }
    if (n > 32)
        qsort(u->cells, n, sizeof(*u->cells), cell_cmp);
    return n;
}

/* Spools rec's row, its cells made by ddb_csv_union_cells. */
static int union_put(union_writer *u, const ddb_map *rec, const char *made, ddb_error *err)
{
    uint64_t limit = u->opts.max_columns ? u->opts.max_columns : DDB_CSV_MAX_COLUMNS;
    size_t n;
    int rc;

    ddb_buf_clear(&u->frame);
    ddb_buf_clear(&u->extra);
    if ((n = place(u, rec, made)) == (size_t)-1)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    if (u->cols.n > limit)
        return ddb_error_set(err, DDB_EUSAGE,
                             "CSV: more than %llu distinct attribute names, a column each (most "
                             "of every row empty cells): write these items as NDJSON (--format "
                             "ndjson), or allow more columns with --max-columns N",
                             (unsigned long long)limit);
    if (n < rec->count)
        ddb_csv_put_extra(&u->extra, rec, (const unsigned char *)u->s.used.ptr,
                          u->opts.extra_plain);
    if (u->extra.oom ||
        ddb_spill_put_row(&u->frame, u->cells, n, u->extra.ptr, u->extra.len, u->delim) != 0)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory formatting a record");
    if ((rc = ddb_sink_write(u->spill, u->frame.ptr, u->frame.len, err)) != 0)
        return rc;
    u->base.records++;
    /* rows as they come: tried at the first record, kept while it holds; a
     * resumed spill's first new record is not its first */
    return u->direct != NULL || u->base.records == 1 ? union_direct_put(u, n, err) : 0;
}

static int union_write(ddb_writer *w, const ddb_map *rec, size_t n_declared, ddb_error *err)
{
    union_writer *u = (union_writer *)w;
    (void)n_declared;
    ddb_buf_clear(&u->made);
    if (ddb_csv_union_cells(&u->made, &u->s, rec, u->delim) != 0)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory formatting a record");
    return union_put(u, rec, u->made.ptr, err);
}

int union_damaged(const union_writer *u, ddb_error *err, const char *why)
{
    return ddb_error_set(err, DDB_EIO, "%s: frame %llu of the spooled records is damaged: %s",
                         u->spill_path, (unsigned long long)u->frame_no, why);
}

int union_replay(union_writer *u,
                 int (*fn)(union_writer *u, void *ctx, const ddb_spill_frame *f, ddb_error *err),
                 void *ctx, ddb_error *err)
{
    ddb_source *src = NULL;
    ddb_spill_reader *sr = NULL;
    ddb_spill_frame f = {0};
    const char *body;
    size_t len;
    int rc;

    if ((rc = ddb_source_open_file(&src, u->spill_path, err)) != 0)
        return rc;
    if ((rc = ddb_spill_reader_new(&sr, src, err)) != 0)
        return rc;
    u->frame_no = 0;
    while ((rc = ddb_spill_reader_next(sr, &body, &len, err)) == 0) {
        ddb_error ferr;
        u->frame_no++;
        if ((rc = ddb_spill_frame_read(&f, body, len, &ferr)) != 0) {
            rc = rc == DDB_ENOMEM ? ddb_error_set(err, rc, "out of memory")
                                  : union_damaged(u, err, ferr.message);
            goto done;
        }
        if ((rc = fn(u, ctx, &f, err)) != 0)
            goto done;
    }
    if (rc == DDB_ITEROVER)
        rc = 0;
done:
    ddb_spill_reader_free(sr);
    ddb_spill_frame_dispose(&f);
    return rc;
}

/* A resumed run: the columns and types of the rows spooled before. */
static int relearn(union_writer *u, void *ctx, const ddb_spill_frame *f, ddb_error *err)
{
    size_t c;
    (void)ctx;
    switch (f->kind) {
    case 'C':
        if (ddb_name_set_find(&u->cols, f->name.ptr, f->name.len) >= 0)
            return union_damaged(u, err, "a column comes twice");
        return column_of(u, &f->name, 0, &c) != 0 ? ddb_error_set(err, DDB_ENOMEM, "out of memory")
                                                  : 0;
    case 'T':
        if (f->col >= u->cols.n || u->col[f->col].type != DDB_TYPE_NONE)
            return union_damaged(u, err, "a type for no column, or a second one");
        u->col[f->col].type = f->type;
        return 0;
    default:
        u->base.records++;
        return 0;
    }
}

/* The header and every row into the CSV sink, sent but not visible
 * (ddb_sink_prepare): the first half of finish. */
static int union_prepare(ddb_writer *w, ddb_error *err)
{
    return union_lay_out_all((union_writer *)w, err);
}

static int union_finish(ddb_writer *w, ddb_error *err)
{
    union_writer *u = (union_writer *)w;
    int rc;
    if ((rc = union_prepare(w, err)) != 0 || (rc = ddb_sink_finish(u->base.sink, err)) != 0)
        return rc;
    ddb_sink_free(u->spill);
    u->spill = NULL;
    unlink(u->spill_path);
    return 0;
}

static void union_free(ddb_writer *w)
{
    union_writer *u = (union_writer *)w;
    ddb_sink_free(u->spill);
    if (u->spill != NULL && !u->keep_spill)
        unlink(u->spill_path);
    union_layout_free(u->direct);
    ddb_name_set_dispose(&u->cols);
    free(u->col);
    free(u->cells);
    free(u->spill_path);
    ddb_buf_dispose(&u->made);
    ddb_buf_dispose(&u->frame);
    ddb_buf_dispose(&u->extra);
    ddb_format_scratch_dispose(&u->s);
}

static const ddb_writer_vtable union_vt = {union_write, union_free, union_finish, union_prepare};

int ddb_writer_new_csv_union(ddb_writer **out, ddb_sink *sink, const char *spill_path, int resume,
                             uint64_t keep, int keep_spill, const ddb_writer_opts *opts,
                             ddb_error *err)
{
    union_writer *u = calloc(1, sizeof(*u));
    int rc = 0;

    *out = NULL;
    if (u == NULL) {
        ddb_sink_free(sink);
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    }
    u->base.vt = &union_vt;
    u->base.sink = sink;
    u->keep_spill = keep_spill;
    if (opts != NULL)
        u->opts = *opts;
    u->opts.columns = NULL;
    u->opts.column_types = NULL;
    u->delim = u->opts.delimiter ? u->opts.delimiter : ',';
    u->extra_col = NO_COLUMN;
    if ((u->spill_path = strdup(spill_path)) == NULL) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto done;
    }
    if ((rc = ddb_sink_open_partial(&u->spill, spill_path, spill_path, resume, keep, err)) != 0) {
        u->keep_spill = 1; /* never delete what a resume would need */
        goto done;
    }
    /* a resumable run's spill is synced at each checkpoint, its writeback
     * spread as it is written; another's is only deleted at the end */
    if (!keep_spill)
        ddb_sink_scratch(u->spill);
    if (!(resume && keep > 0)) {
        rc = ddb_sink_write(u->spill, DDB_SPILL_MAGIC, DDB_SPILL_MAGIC_LEN, err);
    } else {
        /* The columns of the records spooled before the checkpoint. */
        if ((rc = ddb_sink_flush(u->spill, err)) != 0 ||
            (rc = union_replay(u, relearn, NULL, err)) != 0)
            goto done;
    }
done:
    if (rc != 0) {
        ddb_writer_free(&u->base);
        return rc;
    }
    *out = &u->base;
    return 0;
}

ddb_sink *ddb_writer_spill(ddb_writer *w, const char **path)
{
    union_writer *u;
    if (w == NULL || w->vt != &union_vt)
        return NULL;
    u = (union_writer *)w;
    if (path != NULL)
        *path = u->spill_path;
    return u->spill;
}

int ddb_writer_write_cells(ddb_writer *w, const ddb_map *rec, const char *cells, ddb_error *err)
{
    assert(w->vt == &union_vt);
    return union_put((union_writer *)w, rec, cells, err);
}
