/*
 * CSV reader: a header row names the attributes (or the caller gives the
 * columns of a file without one); every following row is a record.
 *
 * - An empty unquoted cell means "attribute absent"; a quoted empty cell
 *   ("") is an empty string.
 * - A column named name:TYPE (price:N, tags:SS, data:M) holds values of that
 *   DynamoDB type: S, N and B as text (B in base64), BOOL as true/false, and
 *   the others as the DynamoDB JSON inside their type ({"a":{"S":"x"}} for M,
 *   ["1","2"] for NS). Other columns are untyped: strings that a mapping or
 *   --types converts.
 * - A column named _extra holds the attributes that had no column, as a JSON
 *   object of DynamoDB JSON values (or plain values); they are merged back
 *   into the record. This is what the CSV writer writes, so its files read
 *   back to the same items.
 * - Rows with fewer cells than columns may be allowed (the rest are absent);
 *   rows with more may be allowed too: the extra cells become attributes
 *   _col<N>, N the 1-based column.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/csv.h"
#include "ddbpipe/json.h"
#include "ddbpipe/mapping.h"
#include "ddbpipe/number.h"
#include "ddbpipe/reader.h"
#include "ddbpipe/source.h"
#include "core/name_set.h"
#include "read/reader_internal.h"

typedef struct csv_col {
    const char *name; /* owned by the reader's names_seen */
    size_t len;
    ddb_type type; /* DDB_TYPE_NONE: untyped (a string) */
    int extra;     /* the _extra column */
    /* From a --types-file (dynamodb-csv's spec): its type and blank rule, and their lines. */
    ddb_csv_spec_type spec;
    ddb_csv_spec_blank blank;
    unsigned spec_line, blank_line;
} csv_col;

typedef struct csv_reader {
    ddb_reader base;
    ddb_csv *csv;
    ddb_source *src; /* owned by csv; kept for byte counts */
    ddb_arena *arena;
    ddb_json_parser *parser;
    csv_col *cols;
    size_t ncols;
    ddb_name_set names_seen; /* the columns' names, owned: a header may have 100,000 */
    const char **names;      /* cols[i].name, for base.columns */
    int any_untyped;
    int allow_short, allow_long;
    int given;    /* the columns were given: no header row */
    ddb_buf text; /* scratch for typed cells */
    char *split;  /* what splits a spec's list and set cells */
    ddb_record rec;
    uint64_t skip_below;
    char reason[DDB_ERROR_MAX];
} csv_reader;

static void set_bad(csv_reader *cr, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_bad(csv_reader *cr, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cr->reason, sizeof(cr->reason), fmt, ap);
    va_end(ap);
    cr->rec.kind = DDB_REC_BAD;
    cr->rec.reason = cr->reason;
    cr->rec.item.attrs = NULL;
    cr->rec.item.count = 0;
}

/* The next occurrence of cr->split in [p, end), or NULL. */
static const char *find_split(const csv_reader *cr, const char *p, const char *end)
{
    size_t n = strlen(cr->split);
    for (; (size_t)(end - p) >= n; p++)
        if (memcmp(p, cr->split, n) == 0)
            return p;
    return NULL;
}

/* A list or set cell of a spec: split as dynamodb-csv splits it (str.split(delimiter): two
 * delimiters in a row make an empty member); number members are checked. */
static int split_cell(csv_reader *cr, const csv_col *c, const ddb_csv_field *f, ddb_value *out,
                      ddb_error *err)
{
    const char *end = f->ptr + f->len, *p = f->ptr, *q;
    int numbers = c->spec == DDB_SPEC_DL || c->spec == DDB_SPEC_DS;
    size_t n = 1, k = 0, dl = strlen(cr->split);
    ddb_value *items;
    for (q = find_split(cr, p, end); q != NULL; q = find_split(cr, q + dl, end))
        n++;
    if ((items = ddb_arena_alloc(cr->arena, n * sizeof(*items))) == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    for (; k < n; k++, p = q + dl) {
        if ((q = find_split(cr, p, end)) == NULL)
            q = end;
        items[k] = ddb_value_str(numbers ? DDB_TYPE_N : DDB_TYPE_S, p, (size_t)(q - p));
        if (numbers && ddb_number_validate(p, (size_t)(q - p), err) != 0)
            return ddb_error_prefix(err, "member %zu: ", k + 1);
    }
    memset(out, 0, sizeof(*out));
    out->type = c->spec == DDB_SPEC_SS   ? DDB_TYPE_SS
                : c->spec == DDB_SPEC_DS ? DDB_TYPE_NS
                                         : DDB_TYPE_L;
    out->u.l.items = items;
    out->u.l.count = n;
    return 0;
}

/* A cell of a column a spec types, converted as dynamodb-csv converts it, or refused where
 * that would not keep the text exactly or would guess. */
static int spec_cell(csv_reader *cr, const csv_col *c, const ddb_csv_field *f, ddb_value *out,
                     ddb_error *err)
{
    size_t sign = f->len > 0 && f->ptr[0] == '-', i = sign;
    switch (c->spec) {
    case DDB_SPEC_S:
        *out = ddb_value_str(DDB_TYPE_S, f->ptr, f->len);
        return 0;
    case DDB_SPEC_I:
        while (i < f->len && f->ptr[i] >= '0' && f->ptr[i] <= '9')
            i++;
        if (i < f->len || f->len == sign)
            return ddb_error_set(err, DDB_EINVAL, "\"%.*s\" is not an integer", (int)f->len,
                                 f->ptr);
        *out = ddb_value_str(DDB_TYPE_N, f->ptr, f->len);
        return ddb_number_validate(f->ptr, f->len, err);
    case DDB_SPEC_D:
        *out = ddb_value_str(DDB_TYPE_N, f->ptr, f->len);
        return ddb_number_validate(f->ptr, f->len, err);
    case DDB_SPEC_B:
        /* dynamodb-csv writes false as a blank cell and true as True; it reads any other
         * text as true too, which is not guessed here. */
        *out = ddb_value_bool(f->len > 0);
        if (f->len == 0 ||
            (f->len == 4 && (memcmp(f->ptr, "True", 4) == 0 || memcmp(f->ptr, "true", 4) == 0 ||
                             memcmp(f->ptr, "TRUE", 4) == 0)))
            return 0;
        return ddb_error_set(err, DDB_EINVAL,
                             "\"%.*s\" is neither blank (false) nor true (dynamodb-csv would "
                             "read it as true)",
                             (int)f->len, f->ptr);
    case DDB_SPEC_J:
        return ddb_json_parse_plain(cr->parser, out, f->ptr, f->len, cr->arena, err);
    default:
        return split_cell(cr, c, f, out, err);
    }
}

/* The value of a typed cell. Returns 0, or DDB_EINVAL with the reason in err. */
static int typed_cell(csv_reader *cr, const csv_col *c, const ddb_csv_field *f, ddb_value *out,
                      ddb_error *err)
{
    ddb_value s = ddb_value_str(DDB_TYPE_S, f->ptr, f->len);
    ddb_map m;
    if (f->len == 0 && c->blank == DDB_SPEC_BLANK_NULL) {
        *out = ddb_value_null();
        return 0;
    }
    if (c->spec != DDB_SPEC_NONE)
        return spec_cell(cr, c, f, out, err);
    switch (c->type) {
    case DDB_TYPE_NONE:
        *out = s;
        return 0;
    case DDB_TYPE_S:
        *out = s;
        return 0;
    case DDB_TYPE_N:
    case DDB_TYPE_B:
    case DDB_TYPE_BOOL:
        return ddb_value_convert(out, &s, c->type, cr->arena, err);
    case DDB_TYPE_NULL:
        if (f->len == 4 && memcmp(f->ptr, "true", 4) == 0) {
            *out = ddb_value_null();
            return 0;
        }
        return ddb_error_set(err, DDB_EINVAL, "a NULL cell holds true");
    default:
        /* The DynamoDB JSON inside the type: parse {"v":{"T":cell}}. */
        ddb_buf_clear(&cr->text);
        ddb_buf_printf(&cr->text, "{\"v\":{\"%s\":", ddb_type_name(c->type));
        ddb_buf_append(&cr->text, f->ptr, f->len);
        ddb_buf_puts(&cr->text, "}}");
        if (cr->text.oom)
            return ddb_error_set(err, DDB_ENOMEM, "out of memory");
        {
            char *t = ddb_arena_memdup(cr->arena, cr->text.ptr, cr->text.len);
            if (t == NULL)
                return ddb_error_set(err, DDB_ENOMEM, "out of memory");
            if (ddb_json_parse_typed_map(cr->parser, &m, t, cr->text.len, cr->arena, err) != 0)
                return DDB_EINVAL;
        }
        *out = m.attrs[0].value;
        return 0;
    }
}

/* The _extra cell: an object of DynamoDB JSON values (or, written for
 * analytics tools, plain values). */
static int parse_extra(csv_reader *cr, const ddb_csv_field *f, ddb_map *out, ddb_error *err)
{
    ddb_value v;
    if (ddb_json_parse_typed_map(cr->parser, out, f->ptr, f->len, cr->arena, NULL) == 0)
        return 0;
    if (ddb_json_parse_plain(cr->parser, &v, f->ptr, f->len, cr->arena, err) != 0)
        return DDB_EINVAL;
    if (v.type != DDB_TYPE_M)
        return ddb_error_set(err, DDB_EINVAL, "not a JSON object of attributes");
    *out = v.u.m;
    return 0;
}

/* Is the empty cell f of column c (NULL: a cell past the columns) absent? When unquoted, but
 * for a spec's rules: a blank B cell is false, ConvertBlankToNullAttrs makes it NULL, and
 * ConvertBlankToDropAttrs drops a quoted one too. */
static int blank_absent(const csv_col *c, const ddb_csv_field *f)
{
    if (c == NULL)
        return !f->quoted;
    if (c->blank == DDB_SPEC_BLANK_DROP)
        return 1;
    if (c->blank == DDB_SPEC_BLANK_NULL || c->spec == DDB_SPEC_B)
        return 0;
    return !f->quoted;
}

/* The type a message names for column c. */
static const char *col_type_name(const csv_col *c)
{
    return c->spec != DDB_SPEC_NONE ? ddb_csv_spec_type_name(c->spec) : ddb_type_name(c->type);
}

/* Builds the record from a row. Returns 0 (a record, maybe BAD) or ENOMEM. */
static int build_record(csv_reader *cr, const ddb_csv_row *row, ddb_error *err)
{
    ddb_attr *attrs;
    ddb_map extra = {NULL, 0};
    size_t n = 0, cap, ncells = row->count;
    ddb_error cerr;

    if ((ncells < cr->ncols && !cr->allow_short) || (ncells > cr->ncols && !cr->allow_long)) {
        set_bad(cr, "row has %zu field%s, %s %zu", ncells, ncells == 1 ? "" : "s",
                cr->given ? "the columns given are" : "the header has", cr->ncols);
        return 0;
    }
    for (size_t i = 0; i < ncells && i < cr->ncols; i++) {
        const ddb_csv_field *f = &row->fields[i];
        if (cr->cols[i].extra && (f->len > 0 || f->quoted) &&
            parse_extra(cr, f, &extra, &cerr) != 0) {
            if (cerr.code == DDB_ENOMEM)
                return ddb_error_set(err, DDB_ENOMEM, "out of memory");
            set_bad(cr, "%s: %s", DDB_EXTRA_FIELD, cerr.message);
            return 0;
        }
    }
    cap = ncells + extra.count + 1;
    if ((attrs = ddb_arena_alloc(cr->arena, cap * sizeof(*attrs))) == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    for (size_t i = 0; i < ncells; i++) {
        const ddb_csv_field *f = &row->fields[i];
        ddb_attr *at = &attrs[n];
        if (f->len == 0 && blank_absent(i < cr->ncols ? &cr->cols[i] : NULL, f))
            continue;
        if (i >= cr->ncols) {
            char name[32];
            int len = snprintf(name, sizeof(name), "_col%zu", i + 1);
            if ((at->name.ptr = ddb_arena_memdup(cr->arena, name, (size_t)len)) == NULL)
                return ddb_error_set(err, DDB_ENOMEM, "out of memory");
            at->name.len = (size_t)len;
            at->value = ddb_value_str(DDB_TYPE_S, f->ptr, f->len);
            n++;
            continue;
        }
        if (cr->cols[i].extra)
            continue;
        at->name.ptr = cr->cols[i].name;
        at->name.len = cr->cols[i].len;
        if (cr->cols[i].type == DDB_TYPE_NONE && cr->cols[i].spec == DDB_SPEC_NONE &&
            cr->cols[i].blank == DDB_SPEC_BLANK_DEFAULT) {
            at->value = ddb_value_str(DDB_TYPE_S, f->ptr, f->len);
        } else if (typed_cell(cr, &cr->cols[i], f, &at->value, &cerr) != 0) {
            if (cerr.code == DDB_ENOMEM)
                return ddb_error_set(err, DDB_ENOMEM, "out of memory");
            set_bad(cr, "column %s (%s): %s", cr->cols[i].name, col_type_name(&cr->cols[i]),
                    cerr.message);
            return 0;
        }
        n++;
    }
    for (size_t i = 0; i < extra.count; i++) {
        if (ddb_map_find(&(ddb_map){attrs, n}, extra.attrs[i].name.ptr, extra.attrs[i].name.len) >=
            0) {
            set_bad(cr, "attribute '%.*s' is both a column and in %s", (int)extra.attrs[i].name.len,
                    extra.attrs[i].name.ptr, DDB_EXTRA_FIELD);
            return 0;
        }
        attrs[n++] = extra.attrs[i];
    }
    cr->rec.kind = DDB_REC_PUT;
    cr->rec.reason = NULL;
    cr->rec.item.attrs = attrs;
    cr->rec.item.count = n;
    return 0;
}

static int csv_next(ddb_reader *r, ddb_record **out, ddb_error *err)
{
    csv_reader *cr = (csv_reader *)r;
    ddb_csv_row row;
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
        set_bad(cr, "%s", err->message);
        ddb_error_clear(err);
        return 0;
    }
    if (rc != 0)
        return ddb_error_prefix(err, "%s: ", cr->base.name);
    return build_record(cr, &row, err);
}

static void csv_free(ddb_reader *r)
{
    csv_reader *cr = (csv_reader *)r;
    ddb_csv_free(cr->csv);
    ddb_arena_free(cr->arena);
    ddb_json_parser_free(cr->parser);
    ddb_buf_dispose(&cr->text);
    ddb_name_set_dispose(&cr->names_seen);
    free(cr->split);
    free(cr->cols);
    free(cr->names);
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
    "CSV",       csv_next, csv_free, csv_raw_bytes, csv_decoded_bytes,
    csv_skip_to, NULL,     NULL,     NULL,          NULL};

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

/* One column from its header text: name, name:TYPE, or _extra. */
static int add_column(csv_reader *cr, const char *text, size_t len, const char *where, size_t index,
                      ddb_error *err)
{
    csv_col *c = &cr->cols[cr->ncols];
    const char *colon = NULL;
    ddb_type t;
    size_t pos;
    int rc;
    for (size_t k = len; k > 0 && colon == NULL; k--)
        if (text[k - 1] == ':')
            colon = text + k - 1;
    c->type = DDB_TYPE_NONE;
    if (colon != NULL && colon > text &&
        ddb_type_parse(&t, colon + 1, len - (size_t)(colon + 1 - text)) == 0) {
        c->type = t;
        len = (size_t)(colon - text);
    }
    if (len == 0)
        return ddb_error_set(err, DDB_EUSAGE, "%s: %s column %zu has no name", cr->base.name, where,
                             index + 1);
    /* The set keeps all len bytes (a name may hold a NUL byte, and its attribute keeps them). */
    if ((rc = ddb_name_set_add(&cr->names_seen, text, len, &pos)) < 0)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    if (rc == 0)
        return ddb_error_set(err, DDB_EUSAGE, "%s: %s column \"%s\" appears twice", cr->base.name,
                             where, cr->names_seen.at[pos].name);
    c->name = cr->names_seen.at[pos].name;
    c->len = len;
    c->extra = c->type == DDB_TYPE_NONE && strcmp(c->name, DDB_EXTRA_FIELD) == 0;
    if (c->type == DDB_TYPE_NONE && !c->extra)
        cr->any_untyped = 1;
    cr->ncols++;
    return 0;
}

/* Reads the header row: names must be present, non-empty and distinct. */
static int read_header(csv_reader *cr, ddb_error *err)
{
    ddb_csv_row row;
    char where[64];
    int rc = ddb_csv_next(cr->csv, &row, err);
    if (rc == DDB_ITEROVER)
        return ddb_error_set(err, DDB_EUSAGE, "%s: empty CSV file (no header row)", cr->base.name);
    if (rc != 0)
        return ddb_error_prefix(err, "%s: header: ", cr->base.name);
    if ((cr->cols = calloc(row.count ? row.count : 1, sizeof(*cr->cols))) == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    snprintf(where, sizeof(where), "line %llu: header", (unsigned long long)row.line);
    for (size_t i = 0; i < row.count; i++)
        if ((rc = add_column(cr, row.fields[i].ptr, row.fields[i].len, where, i, err)) != 0)
            return rc;
    return 0;
}

static int given_columns(csv_reader *cr, const ddb_reader_opts *opts, ddb_error *err)
{
    if ((cr->cols = calloc(opts->n_columns ? opts->n_columns : 1, sizeof(*cr->cols))) == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    for (size_t i = 0; i < opts->n_columns; i++) {
        int rc = add_column(cr, opts->columns[i], strlen(opts->columns[i]), "the given", i, err);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* One line of a spec file on the column it names. */
static int apply_spec_entry(csv_reader *cr, const char *path, const ddb_csv_spec_entry *e,
                            ddb_error *err)
{
    ptrdiff_t at = ddb_name_set_find(&cr->names_seen, e->column, strlen(e->column));
    csv_col *c = at >= 0 ? &cr->cols[at] : NULL; /* the set holds the columns in order */
    unsigned before = c == NULL ? 0 : e->type == DDB_SPEC_NONE ? c->blank_line : c->spec_line;
    if (c == NULL)
        return ddb_error_set(err, DDB_EUSAGE, "%s:%u: \"%s\" is not a column of %s", path, e->line,
                             e->column, cr->base.name);
    if (before != 0)
        return ddb_error_set(err, DDB_EUSAGE, "%s:%u: column \"%s\" is named on line %u already",
                             path, e->line, e->column, before);
    if (e->type == DDB_SPEC_NONE) {
        c->blank = e->blank;
        c->blank_line = e->line;
        return 0;
    }
    if (c->type != DDB_TYPE_NONE || c->extra)
        return ddb_error_set(err, DDB_EUSAGE, "%s:%u: column \"%s\" of %s has a type already", path,
                             e->line, e->column, cr->base.name);
    c->spec = e->type;
    c->spec_line = e->line;
    return 0;
}

/* Types the columns by a dynamodb-csv spec file (--types-file). */
static int apply_spec(csv_reader *cr, const char *path, ddb_error *err)
{
    ddb_csv_spec spec;
    int rc = ddb_csv_spec_load(&spec, path, err);
    for (size_t i = 0; rc == 0 && i < spec.n; i++)
        rc = apply_spec_entry(cr, path, &spec.entries[i], err);
    if (rc == 0 && (cr->split = strdup(spec.delimiter ? spec.delimiter : " ")) == NULL)
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
    ddb_csv_spec_dispose(&spec);
    cr->any_untyped = 0;
    for (size_t i = 0; i < cr->ncols; i++)
        if (cr->cols[i].type == DDB_TYPE_NONE && cr->cols[i].spec == DDB_SPEC_NONE &&
            !cr->cols[i].extra)
            cr->any_untyped = 1;
    return rc;
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
    if (ddb_arena_new(&cr->arena, 0) != 0 || ddb_json_parser_new(&cr->parser) != 0 ||
        ddb_reader_base_init(&cr->base, &csv_vtable, name, DDB_IN_CSV, opts) != 0) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto fail;
    }
    if (opts && opts->columns) {
        cr->given = 1;
        rc = given_columns(cr, opts, err);
    } else
        rc = read_header(cr, err);
    if (rc == 0 && opts && opts->types_file)
        rc = apply_spec(cr, opts->types_file, err);
    if (rc != 0)
        goto fail;
    cr->allow_short = opts && opts->allow_short_rows;
    cr->allow_long = opts && opts->allow_long_rows;
    cr->rec.typed = !cr->any_untyped;
    /* The columns' names (a typed column's field part: price of price:N) for
     * checking them against an entity's fields. */
    if ((cr->names = calloc(cr->ncols ? cr->ncols : 1, sizeof(char *))) == NULL) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto fail;
    }
    for (size_t i = 0; i < cr->ncols; i++)
        cr->names[i] = cr->cols[i].name;
    cr->base.columns = cr->names;
    cr->base.n_columns = cr->ncols;
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
