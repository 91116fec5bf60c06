/*
 * CSV reader: a header row names the attributes; every following row is an
 * untyped record (cells are strings; a mapping or --types gives them types).
 * An empty unquoted cell means "attribute absent"; a quoted empty cell ("")
 * is an empty string.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/csv.h"
#include "ddbpipe/reader.h"
#include "reader_internal.h"

typedef struct csv_reader {
    ddb_reader base;
    ddb_csv *csv;
    ddb_source *src; /* owned by csv; kept for byte counts */
    ddb_arena *arena;
    char **names;
    size_t *name_lens;
    size_t ncols;
    ddb_record rec;
    uint64_t skip_below;
    char reason[DDB_ERROR_MAX];
} csv_reader;

static int csv_next(ddb_reader *r, ddb_record **out, ddb_error *err)
{
    csv_reader *cr = (csv_reader *)r;
    ddb_csv_row row;
    ddb_attr *attrs;
    size_t n = 0;
    int rc;

    do {
        rc = ddb_csv_next(cr->csv, &row, err);
    } while ((rc == 0 || rc == DDB_EINVAL || rc == DDB_ETOOBIG) && row.offset < cr->skip_below);
    if (rc == DDB_ITEROVER)
        return rc;
    ddb_arena_reset(cr->arena);
    cr->rec.line = row.line;
    cr->rec.offset = row.offset;
    cr->rec.pos = row.offset;
    cr->rec.raw = row.raw;
    cr->rec.raw_len = row.raw_len;
    cr->rec.item.attrs = NULL;
    cr->rec.item.count = 0;
    *out = &cr->rec;
    if (rc == DDB_EINVAL || rc == DDB_ETOOBIG) {
        snprintf(cr->reason, sizeof(cr->reason), "%s", err->message);
        ddb_error_clear(err);
        cr->rec.kind = DDB_REC_BAD;
        cr->rec.reason = cr->reason;
        return 0;
    }
    if (rc != 0)
        return ddb_error_prefix(err, "%s: ", cr->base.name);
    if (row.count != cr->ncols) {
        snprintf(cr->reason, sizeof(cr->reason), "row has %zu field%s, the header has %zu",
                 row.count, row.count == 1 ? "" : "s", cr->ncols);
        cr->rec.kind = DDB_REC_BAD;
        cr->rec.reason = cr->reason;
        return 0;
    }
    attrs = ddb_arena_alloc(cr->arena, (cr->ncols ? cr->ncols : 1) * sizeof(*attrs));
    if (attrs == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    for (size_t i = 0; i < row.count; i++) {
        if (row.fields[i].len == 0 && !row.fields[i].quoted)
            continue;
        attrs[n].name.ptr = cr->names[i];
        attrs[n].name.len = cr->name_lens[i];
        attrs[n++].value = ddb_value_str(DDB_TYPE_S, row.fields[i].ptr, row.fields[i].len);
    }
    cr->rec.kind = DDB_REC_PUT;
    cr->rec.reason = NULL;
    cr->rec.item.attrs = attrs;
    cr->rec.item.count = n;
    return 0;
}

static void csv_free(ddb_reader *r)
{
    csv_reader *cr = (csv_reader *)r;
    ddb_csv_free(cr->csv);
    ddb_arena_free(cr->arena);
    for (size_t i = 0; i < cr->ncols; i++)
        free(cr->names[i]);
    free(cr->names);
    free(cr->name_lens);
}

static uint64_t csv_raw_bytes(const ddb_reader *r)
{
    return ddb_source_raw_bytes(((const csv_reader *)r)->src);
}

static uint64_t csv_decoded_bytes(const ddb_reader *r)
{
    return ((const csv_reader *)r)->src->bytes_in;
}

static int csv_skip_to(ddb_reader *r, uint64_t pos, ddb_error *err)
{
    (void)err;
    ((csv_reader *)r)->skip_below = pos;
    return 0;
}

static const ddb_reader_vtable csv_vtable = {
    "CSV", csv_next, csv_free, csv_raw_bytes, csv_decoded_bytes, csv_skip_to, NULL, NULL, NULL};

static char pick_delimiter(const char *name, const ddb_reader_opts *opts)
{
    size_t n = name ? strlen(name) : 0;
    if (opts && opts->delimiter)
        return opts->delimiter;
    if ((n >= 4 && strcmp(name + n - 4, ".tsv") == 0) ||
        (n >= 7 && strcmp(name + n - 7, ".tsv.gz") == 0))
        return '\t';
    return ',';
}

/* Reads the header row: names must be present, non-empty and distinct. */
static int read_header(csv_reader *cr, ddb_error *err)
{
    ddb_csv_row row;
    int rc = ddb_csv_next(cr->csv, &row, err);
    if (rc == DDB_ITEROVER)
        return ddb_error_set(err, DDB_EUSAGE, "%s: empty CSV file (no header row)", cr->base.name);
    if (rc != 0)
        return ddb_error_prefix(err, "%s: header: ", cr->base.name);
    cr->names = calloc(row.count, sizeof(char *));
    cr->name_lens = calloc(row.count, sizeof(size_t));
    if (cr->names == NULL || cr->name_lens == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    for (size_t i = 0; i < row.count; i++) {
        if (row.fields[i].len == 0)
            return ddb_error_set(err, DDB_EUSAGE, "%s: line %llu: header column %zu has no name",
                                 cr->base.name, (unsigned long long)row.line, i + 1);
        for (size_t j = 0; j < i; j++)
            if (cr->name_lens[j] == row.fields[i].len &&
                memcmp(cr->names[j], row.fields[i].ptr, row.fields[i].len) == 0)
                return ddb_error_set(err, DDB_EUSAGE, "%s: line %llu: column \"%s\" appears twice",
                                     cr->base.name, (unsigned long long)row.line, cr->names[j]);
        cr->names[i] = malloc(row.fields[i].len + 1);
        if (cr->names[i] == NULL)
            return ddb_error_set(err, DDB_ENOMEM, "out of memory");
        memcpy(cr->names[i], row.fields[i].ptr, row.fields[i].len);
        cr->names[i][row.fields[i].len] = '\0';
        cr->name_lens[i] = row.fields[i].len;
        cr->ncols++;
    }
    return 0;
}

int ddb_reader_new_csv(ddb_reader **out, ddb_source *src, const char *name,
                       const ddb_reader_opts *opts, ddb_error *err)
{
    csv_reader *cr = calloc(1, sizeof(*cr));
    int rc;

    *out = NULL;
    if (cr == NULL) {
        ddb_source_free(src);
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    }
    cr->src = src;
    if ((rc = ddb_csv_new(&cr->csv, src, pick_delimiter(name, opts), opts ? opts->max_line : 0,
                          err)) != 0) {
        free(cr);
        return rc;
    }
    if (ddb_arena_new(&cr->arena, 0) != 0 ||
        ddb_reader_base_init(&cr->base, &csv_vtable, name, DDB_IN_CSV, opts) != 0) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto fail;
    }
    if ((rc = read_header(cr, err)) != 0)
        goto fail;
    cr->base.columns = (const char *const *)cr->names;
    cr->base.n_columns = cr->ncols;
    cr->rec.typed = 0;
    cr->rec.source = cr->base.name;
    *out = &cr->base;
    return 0;
fail:
    csv_free(&cr->base);
    free(cr->base.name);
    free(cr->base.entity_hint);
    free(cr);
    return rc;
}
