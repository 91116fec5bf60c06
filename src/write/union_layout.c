/*
 * union_layout.c — the rows of a CSV without a mapping laid out under its
 * header (writer_union_internal.h): at the end, from the spill, while a
 * thread of its own writes them (ddb_sink_behind); or as they come, while
 * the header the columns made so far stays the same.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/csv.h"
#include "ddbpipe/sink.h"
#include "ddbpipe/writer.h"
#include "write/writer_union_internal.h"

/* Tests clear this to make every CSV from the spill at the end. */
int ddb_csv_union_direct = 1;

/* l->out's rows to the CSV sink: through the thread behind, if there is one. */
static int send_rows(union_writer *u, layout *l, ddb_error *err)
{
    int rc;
    if (l->behind != NULL)
        return ddb_sink_behind_swap(l->behind, &l->out, err);
    rc = ddb_sink_write(u->base.sink, l->out.ptr, l->out.len, err);
    ddb_buf_clear(&l->out);
    return rc;
}

static int put_delims(ddb_buf *b, char delim, size_t n)
{
    if (n == 0)
        return 0;
    if (ddb_buf_reserve(b, n) != 0)
        return DDB_ENOMEM;
    memset(b->ptr + b->len, delim, n);
    b->len += n;
    return 0;
}

/* An 'S' row's cells at their places. Returns the places filled, or (size_t)-1 for damage. */
static size_t lay_cells(const union_writer *u, layout *l, const ddb_spill_frame *f)
{
    size_t next = 0;
    for (size_t i = 0; i < f->n_cells; i++) {
        size_t c = f->cells[i].col, p = c < l->n_cols ? l->pos[c] : NO_COLUMN;
        if (p == NO_COLUMN)
            return (size_t)-1;
        put_delims(&l->out, u->delim, p - next);
        ddb_buf_append(&l->out, f->cells[i].ptr, f->cells[i].len);
        ddb_buf_putc(&l->out, u->delim);
        next = p + 1;
    }
    return next;
}

/* A row into the CSV, under the header. */
static int lay_out(union_writer *u, void *ctx, const ddb_spill_frame *f, ddb_error *err)
{
    layout *l = ctx;
    size_t filled;
    if (f->kind == 'C' || f->kind == 'T')
        return 0; /* the columns are known */
    if (f->kind == 'D') {
        if (f->k > l->n_lead)
            return union_damaged(u, err, "a row has cells in columns without values");
        ddb_buf_append(&l->out, f->line.ptr, f->line.len);
        filled = f->k;
    } else if ((filled = lay_cells(u, l, f)) == (size_t)-1) {
        return union_damaged(u, err, "a row has cells in columns without values");
    }
    put_delims(&l->out, u->delim, l->n - filled);
    ddb_buf_append(&l->out, f->extra.ptr, f->extra.len);
    ddb_buf_putc(&l->out, '\n');
    if (l->out.oom)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    return l->out.len < REPLAY_CHUNK ? 0 : send_rows(u, l, err);
}

/* The header, through the ordinary CSV writer of typed columns; l->pos and
 * l->n the columns' places in it: those with a type, but _extra's. */
static int write_header(union_writer *u, layout *l, ddb_error *err)
{
    const char **names = malloc((u->cols.n ? u->cols.n : 1) * sizeof(*names));
    ddb_type *types = malloc((u->cols.n ? u->cols.n : 1) * sizeof(*types));
    ddb_writer_opts wo = u->opts;
    ddb_writer *csv = NULL;
    int rc = 0;

    l->pos = malloc((u->cols.n ? u->cols.n : 1) * sizeof(*l->pos));
    l->n_cols = u->cols.n;
    if (names == NULL || types == NULL || l->pos == NULL) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < u->cols.n; i++) {
        l->pos[i] = NO_COLUMN;
        /* Only NULLs, or an attribute named like the reserved column: to _extra. */
        if (u->col[i].type == DDB_TYPE_NONE || i == u->extra_col)
            continue;
        if (l->n == i)
            l->n_lead++;
        names[l->n] = u->cols.at[i].name;
        types[l->n] = u->col[i].type;
        l->pos[i] = l->n++;
    }
    wo.columns = names;
    wo.column_types = types;
    wo.n_columns = l->n;
    wo.appending = 0;
    /* The CSV writer borrows the sink: it stays this writer's. */
    if ((rc = ddb_writer_new(&csv, DDB_OUT_CSV, u->base.sink, NULL, &wo, err)) != 0)
        u->base.sink = NULL; /* freed by the failed writer */
done:
    if (csv != NULL) {
        csv->sink = NULL;
        ddb_writer_free(csv);
    }
    free(names);
    free(types);
    return rc;
}

void union_layout_free(layout *l)
{
    if (l != NULL) {
        ddb_sink_behind_end(l->behind, NULL);
        free(l->pos);
        ddb_buf_dispose(&l->out);
        free(l);
    }
}

/* Gives up writing rows as they come: the CSV emptied, to be laid out from
 * the spill at the end. */
static int direct_stop(union_writer *u, ddb_error *err)
{
    union_layout_free(u->direct);
    u->direct = NULL;
    return ddb_sink_rewind(u->base.sink, err);
}

/* Writes the header of the columns now known into the CSV and, with relay,
 * every row spooled so far under it: from then on rows go in as they come. */
static int direct_begin(union_writer *u, int relay, ddb_error *err)
{
    layout *l;
    int rc;
    if ((l = calloc(1, sizeof(*l))) == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    if ((rc = write_header(u, l, err)) != 0 ||
        (relay && (rc = union_replay(u, lay_out, l, err)) != 0)) {
        union_layout_free(l);
        return rc;
    }
    u->direct = l;
    u->typed_at = u->typed;
    return 0;
}

/*
 * The record just spooled (its n cells in u->cells, _extra in u->extra),
 * also as a row of the CSV. Why: a CSV without a mapping was written only
 * after the last item (its header is known only then), the whole file at
 * the end, and the disk's writing and syncing of it then set the time of
 * the run's last part (the real export: 482 MB). The first record's columns
 * are taken for the header; while no column gets its type later the header
 * stays the same, a row laid out now is the row the spill would give at the
 * end, and the file is written and its writeback spread as the input is
 * read. Not for a resumable run (its CSV is made at the end from the kept
 * spill) nor a sink that cannot be emptied (gzip, S3, standard output).
 */
int union_direct_put(union_writer *u, size_t n, ddb_error *err)
{
    ddb_spill_frame f = {0};
    int rc;

    if (u->direct == NULL) {
        /* only from the writer's first record (union_put), while the mode
         * is allowed: once off (never begun, given up, failed) it stays off */
        assert(u->base.records == 1);
        if (!ddb_csv_union_direct || u->keep_spill || !ddb_sink_can_rewind(u->base.sink))
            return 0;
        if ((rc = direct_begin(u, 0, err)) != 0)
            return rc;
    } else if (u->typed != u->typed_at) {
        /* A new column in the header: while the rows so far are few, the
         * CSV starts again under the new header, the spill laid out into
         * it (this record included); else it is made at the end. */
        if ((rc = direct_stop(u, err)) != 0 || ++u->guesses > DIRECT_GUESSES ||
            u->spill->bytes_out > DIRECT_RELAY_MAX)
            return rc;
        if ((rc = ddb_sink_flush(u->spill, err)) != 0)
            return rc;
        return direct_begin(u, 1, err);
    }
    f.kind = 'S';
    f.cells = u->cells;
    f.n_cells = n;
    f.extra.ptr = u->extra.ptr;
    f.extra.len = u->extra.len;
    return lay_out(u, u->direct, &f, err);
}

int union_lay_out_all(union_writer *u, ddb_error *err)
{
    layout l = {0};
    int rc;

    if (u->replayed)
        return 0;
    if (u->direct != NULL) {
        /* every row is in the sink already, under the header it has */
        if ((u->direct->out.len > 0 && (rc = send_rows(u, u->direct, err)) != 0) ||
            (rc = ddb_sink_prepare(u->base.sink, err)) != 0)
            return rc;
        u->replayed = 1;
        return 0;
    }
    if ((rc = ddb_sink_flush(u->spill, err)) != 0 || (rc = write_header(u, &l, err)) != 0)
        goto done;
    /* The layout is copying and the sink's writes copying again (or
     * compressing): on two cores at once when the run has them. */
    if (u->opts.write_behind && (rc = ddb_sink_behind_start(&l.behind, u->base.sink, err)) != 0)
        goto done;
    if ((rc = union_replay(u, lay_out, &l, err)) != 0 ||
        (l.out.len > 0 && (rc = send_rows(u, &l, err)) != 0))
        goto done;
    rc = ddb_sink_behind_end(l.behind, err);
    l.behind = NULL;
    if (rc != 0 || (rc = ddb_sink_prepare(u->base.sink, err)) != 0)
        goto done;
    u->replayed = 1;
done:
    ddb_sink_behind_end(l.behind, NULL);
    free(l.pos);
    ddb_buf_dispose(&l.out);
    return rc;
}
