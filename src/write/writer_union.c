/*
 * CSV of items without a mapping (see writer.h, ddb_writer_new_csv_union):
 * every attribute in a column of its own, its type in the header (price:N),
 * so the file reads back to the same items. The header is the union of the
 * attributes of all records, known only at the end: records are spooled to a
 * spill file (binary frames, spill_codec.h: nothing escaped on the way out or
 * lexed on the way back), and finish writes the header and replays the spill
 * through the ordinary CSV writer with those columns.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ddbpipe/array.h"
#include "ddbpipe/mapping.h"
#include "ddbpipe/writer.h"
#include "ddbpipe/sink.h"
#include "ddbpipe/source.h"
#include "core/name_set.h"
#include "write/spill_codec.h"

typedef struct union_writer {
    ddb_writer base; /* base.sink: the CSV file */
    ddb_writer_opts opts;
    ddb_sink *spill;
    char *spill_path;
    int keep_spill;
    int replayed;      /* the header and the rows are in the sink, prepared */
    ddb_name_set cols; /* the attribute names seen, in order: the columns */
    ddb_type *types;   /* per column, the first non-NULL value's; NONE while only NULLs */
    size_t types_cap;
    ddb_buf line;
} union_writer;

/* The column of an attribute, added at the end when new: its index. */
static int column_of(union_writer *u, const ddb_str *name, size_t *col)
{
    int rc = ddb_name_set_add(&u->cols, name->ptr, name->len, col);
    if (rc == 1) {
        ddb_type *t = ddb_array_reserve(u->types, *col, &u->types_cap, sizeof(*t), 16);
        if (t == NULL)
            return DDB_ENOMEM;
        u->types = t;
        u->types[*col] = DDB_TYPE_NONE;
    }
    return rc < 0 ? rc : 0;
}

static int note_columns(union_writer *u, const ddb_map *rec)
{
    for (size_t i = 0; i < rec->count; i++) {
        size_t c;
        if (column_of(u, &rec->attrs[i].name, &c) != 0)
            return DDB_ENOMEM;
        if (u->types[c] == DDB_TYPE_NONE && rec->attrs[i].value.type != DDB_TYPE_NULL)
            u->types[c] = rec->attrs[i].value.type;
    }
    return 0;
}

static int union_write(ddb_writer *w, const ddb_map *rec, size_t n_declared, ddb_error *err)
{
    union_writer *u = (union_writer *)w;
    int rc;
    uint64_t limit = u->opts.max_columns ? u->opts.max_columns : DDB_CSV_MAX_COLUMNS;
    (void)n_declared;
    if (note_columns(u, rec) != 0)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    if (u->cols.n > limit)
        return ddb_error_set(err, DDB_EUSAGE,
                             "CSV: more than %llu distinct attribute names, a column each (most "
                             "of every row empty cells): write these items as NDJSON (--format "
                             "ndjson), or allow more columns with --max-columns N",
                             (unsigned long long)limit);
    ddb_buf_clear(&u->line);
    if (ddb_spill_pack(&u->line, rec) != 0)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory formatting a record");
    if ((rc = ddb_sink_write(u->spill, u->line.ptr, u->line.len, err)) == 0)
        w->records++;
    return rc;
}

/* Calls fn for every record in the spill file. */
static int replay(union_writer *u, int (*fn)(union_writer *u, void *ctx, const ddb_map *rec),
                  void *ctx, ddb_error *err)
{
    ddb_source *src = NULL;
    ddb_spill_reader *sr = NULL;
    ddb_arena *a = NULL;
    const char *body;
    size_t len;
    int rc;

    if ((rc = ddb_source_open_file(&src, u->spill_path, err)) != 0)
        return rc;
    if ((rc = ddb_spill_reader_new(&sr, src, err)) != 0)
        return rc;
    if (ddb_arena_new(&a, 0) != 0) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto done;
    }
    while ((rc = ddb_spill_reader_next(sr, &body, &len, err)) == 0) {
        ddb_map rec;
        ddb_error perr;
        ddb_arena_reset(a);
        if ((rc = ddb_spill_unpack(&rec, body, len, a, &perr)) != 0) {
            rc = rc == DDB_ENOMEM
                     ? ddb_error_set(err, rc, "out of memory")
                     : ddb_error_set(err, DDB_EIO,
                                     "%s: record %llu of the spooled records is "
                                     "damaged: %s",
                                     u->spill_path, (unsigned long long)ddb_spill_reader_count(sr),
                                     perr.message);
            goto done;
        }
        if ((rc = fn(u, ctx, &rec)) != 0)
            goto done;
    }
    if (rc == DDB_ITEROVER)
        rc = 0;
done:
    ddb_spill_reader_free(sr);
    ddb_arena_free(a);
    return rc;
}

static int relearn(union_writer *u, void *ctx, const ddb_map *rec)
{
    (void)ctx;
    u->base.records++;
    return note_columns(u, rec) != 0 ? DDB_ENOMEM : 0;
}

typedef struct replay_ctx {
    ddb_writer *csv;
    ddb_error *err;
} replay_ctx;

static int rewrite(union_writer *u, void *ctx, const ddb_map *rec)
{
    replay_ctx *rc = ctx;
    (void)u;
    return ddb_writer_write(rc->csv, rec, 0, rc->err);
}

/* The header and every row into the CSV sink, sent but not visible
 * (ddb_sink_prepare): the first half of finish. */
static int union_prepare(ddb_writer *w, ddb_error *err)
{
    union_writer *u = (union_writer *)w;
    const char **names = NULL;
    ddb_type *types = NULL;
    ddb_writer_opts wo = u->opts;
    ddb_writer *csv = NULL;
    replay_ctx ctx;
    size_t k = 0;
    int rc;

    if (u->replayed)
        return 0;
    if ((rc = ddb_sink_flush(u->spill, err)) != 0)
        return rc;
    names = malloc((u->cols.n ? u->cols.n : 1) * sizeof(*names));
    types = malloc((u->cols.n ? u->cols.n : 1) * sizeof(*types));
    if (names == NULL || types == NULL) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < u->cols.n; i++) {
        /* Only NULLs, or an attribute named like the reserved column: to _extra. */
        if (u->types[i] == DDB_TYPE_NONE || strcmp(u->cols.at[i].name, DDB_EXTRA_FIELD) == 0)
            continue;
        names[k] = u->cols.at[i].name;
        types[k++] = u->types[i];
    }
    wo.columns = names;
    wo.column_types = types;
    wo.n_columns = k;
    wo.appending = 0;
    /* The CSV writer borrows the sink: it stays this writer's. */
    if ((rc = ddb_writer_new(&csv, DDB_OUT_CSV, u->base.sink, NULL, &wo, err)) != 0) {
        u->base.sink = NULL; /* freed by the failed writer */
        goto done;
    }
    ctx.csv = csv;
    ctx.err = err;
    if ((rc = replay(u, rewrite, &ctx, err)) != 0)
        goto done;
    if ((rc = ddb_sink_prepare(u->base.sink, err)) != 0)
        goto done;
    u->replayed = 1;
done:
    if (csv != NULL) {
        csv->sink = NULL;
        ddb_writer_free(csv);
    }
    free(names);
    free(types);
    return rc;
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
    ddb_name_set_dispose(&u->cols);
    free(u->types);
    free(u->spill_path);
    ddb_buf_dispose(&u->line);
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
    if ((u->spill_path = strdup(spill_path)) == NULL) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto done;
    }
    if ((rc = ddb_sink_open_partial(&u->spill, spill_path, spill_path, resume, keep, err)) != 0) {
        u->keep_spill = 1; /* never delete what a resume would need */
        goto done;
    }
    if (!(resume && keep > 0)) {
        rc = ddb_sink_write(u->spill, DDB_SPILL_MAGIC, DDB_SPILL_MAGIC_LEN, err);
    } else {
        /* The columns of the records spooled before the checkpoint. */
        if ((rc = ddb_sink_flush(u->spill, err)) != 0 || (rc = replay(u, relearn, NULL, err)) != 0)
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
