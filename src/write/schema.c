/*
 * schema.c — the types of the record files, for DuckDB and Athena (schema.h).
 */
#include "ddbpipe/schema.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/fs.h"
#include "ddbpipe/store.h"
#include "ddbpipe/json.h"
#include "core/swar.h"
#include "write/schema_internal.h"

/* -------------------------------------------------------------- numbers */

void ddb_num_shape_add(ddb_num_shape *shape, const char *n, size_t len)
{
    size_t i = 0, digits = 0, lead = 0, trail = 0;
    long point = -1, exp = 0, q;
    int seen_nonzero = 0, neg_exp = 0;

    if (len > 0 && n[0] != '0' && ddb_all_digits(n, len)) {
        /* a whole number without leading zeros, the usual one: len integer
         * digits and no fraction */
        shape->seen++;
        if ((long)len > shape->int_digits)
            shape->int_digits = (int)(len > 100000 ? 100000 : len);
        return;
    }
    if (i < len && (n[i] == '-' || n[i] == '+'))
        i++;
    /* digits: count the significant ones, where the point falls among them */
    for (; i < len && ((n[i] >= '0' && n[i] <= '9') || n[i] == '.'); i++) {
        if (n[i] == '.') {
            point = (long)(digits + lead);
            continue;
        }
        if (n[i] == '0' && !seen_nonzero) {
            lead++;
            continue;
        }
        seen_nonzero = 1;
        digits++;
        trail = n[i] == '0' ? trail + 1 : 0;
    }
    if (point < 0)
        point = (long)(digits + lead);
    if (i < len && (n[i] == 'e' || n[i] == 'E')) {
        i++;
        if (i < len && (n[i] == '-' || n[i] == '+'))
            neg_exp = n[i++] == '-';
        for (; i < len && n[i] >= '0' && n[i] <= '9' && exp < 100000; i++)
            exp = exp * 10 + (n[i] - '0');
        if (neg_exp)
            exp = -exp;
    }
    shape->seen++;
    if (digits == 0)
        return; /* zero needs no digits at all */
    /* value = 0.DDD x 10^q with the significant digits DDD */
    q = point - (long)lead + exp;
    digits -= trail;
    if (q > shape->int_digits)
        shape->int_digits = (int)(q > 100000 ? 100000 : q);
    if ((long)digits - q > shape->scale)
        shape->scale = (int)((long)digits - q > 100000 ? 100000 : (long)digits - q);
}

void ddb_num_shape_duckdb(const ddb_num_shape *shape, char *out, size_t cap)
{
    if (shape->seen > 0 && shape->scale == 0 && shape->int_digits <= 18)
        snprintf(out, cap, "BIGINT");
    else if (shape->int_digits + shape->scale <= 38)
        snprintf(out, cap, "DECIMAL(38,%d)", shape->scale);
    else
        snprintf(out, cap, "VARCHAR");
}

/* ---------------------------------------------------------- statistics */

int ddb_schema_new(ddb_schema **out, const ddb_mapping *m, ddb_error *err)
{
    ddb_schema *s = calloc(1, sizeof(*s));
    *out = NULL;
    if (s == NULL ||
        (s->cols = calloc(m->n_entities ? m->n_entities : 1, sizeof(column *))) == NULL)
        goto nomem;
    s->m = m;
    for (size_t e = 0; e < m->n_entities; e++) {
        const ddb_entity *en = &m->entities[e];
        if ((s->cols[e] = calloc(en->n_fields + 1, sizeof(column))) == NULL)
            goto nomem;
        for (size_t f = 0; f < en->n_fields; f++)
            if (en->fields[f].n_members &&
                (s->cols[e][f].members = calloc(en->fields[f].n_members, sizeof(column))) == NULL)
                goto nomem;
    }
    *out = s;
    return 0;
nomem:
    ddb_schema_free(s);
    return ddb_error_set(err, DDB_ENOMEM, "out of memory");
}

static int name_is(const ddb_str *s, const char *name)
{
    return ddb_cstr_eq(name, s->ptr, s->len);
}

/* Calls fn(ctx, f, v) for each declared field f of en that rec holds, v its
 * value: rec->attrs[0..n_declared) come in field order, so one merge walk.
 * Inline, so each caller's fn is a direct call (it runs for every field of
 * every record written). */
static inline __attribute__((always_inline)) void
each_declared(const ddb_entity *en, const ddb_map *rec, size_t n_declared,
              void (*fn)(void *ctx, size_t f, const ddb_value *v), void *ctx)
{
    size_t c = 0;
    for (size_t f = 0; f < en->n_fields && c < n_declared; f++) {
        if (rec->attrs[c].name.ptr != en->fields[f].name &&
            !name_is(&rec->attrs[c].name, en->fields[f].name))
            continue;
        fn(ctx, f, &rec->attrs[c++].value);
    }
}

/* The numbers of v (an N, or each member of an NS) added to shape. */
static void add_numbers(ddb_num_shape *shape, const ddb_value *v)
{
    if (v->type == DDB_TYPE_N) {
        ddb_num_shape_add(shape, v->u.s.ptr, v->u.s.len);
    } else if (v->type == DDB_TYPE_NS) {
        for (size_t i = 0; i < v->u.l.count; i++)
            ddb_num_shape_add(shape, v->u.l.items[i].u.s.ptr, v->u.l.items[i].u.s.len);
    }
}

static void observe_field(void *ctx, size_t f, const ddb_value *v)
{
    column *col = &((column *)ctx)[f];
    col->present++;
    add_numbers(&col->shape, v);
}

void ddb_schema_observe(ddb_schema *s, size_t e, const ddb_map *rec, size_t n_declared)
{
    each_declared(&s->m->entities[e], rec, n_declared, observe_field, s->cols[e]);
}

/*
 * A note: what observing one record adds, made by the thread that made the
 * record (where it is still in cache) and taken in by the one that writes.
 * The fields it holds as a mask, the fields with numbers as a mask, then one
 * ddb_num_shape for each of those, in field order: shapes merge exactly
 * (counts add, widths take the larger), so taking the note in is the same as
 * observing the record.
 */
typedef struct note_head {
    uint64_t present, numbers;
} note_head;

typedef struct note_ctx {
    note_head h;
    char *shapes; /* in the output buffer, past the head (not aligned: memcpy) */
} note_ctx;

static void note_field(void *ctx, size_t f, const ddb_value *v)
{
    note_ctx *n = ctx;
    n->h.present |= UINT64_C(1) << f;
    if (v->type == DDB_TYPE_N || v->type == DDB_TYPE_NS) {
        ddb_num_shape sh = {0, 0, 0};
        add_numbers(&sh, v);
        memcpy(n->shapes + (size_t)__builtin_popcountll(n->h.numbers) * sizeof(sh), &sh,
               sizeof(sh));
        n->h.numbers |= UINT64_C(1) << f;
    }
}

int ddb_schema_note(const ddb_mapping *m, size_t e, const ddb_map *rec, size_t n_declared,
                    ddb_buf *out)
{
    size_t n_fields;
    note_ctx n;

    assert(e < m->n_entities);
    n_fields = m->entities[e].n_fields;
    if (n_fields > 64)
        return 1;
    /* made in place: room for a shape per field, the bytes past the note left unused */
    if (ddb_buf_reserve(out, sizeof(n.h) + n_fields * sizeof(ddb_num_shape)) != 0)
        return DDB_ENOMEM;
    n.h.present = n.h.numbers = 0;
    n.shapes = out->ptr + out->len + sizeof(n.h);
    each_declared(&m->entities[e], rec, n_declared, note_field, &n);
    memcpy(out->ptr + out->len, &n.h, sizeof(n.h));
    out->len += sizeof(n.h) + (size_t)__builtin_popcountll(n.h.numbers) * sizeof(ddb_num_shape);
    out->ptr[out->len] = '\0';
    return 0;
}

void ddb_schema_observe_note(ddb_schema *s, size_t e, const char *note, size_t len)
{
    column *cols = s->cols[e];
    note_head h;
    uint64_t bits;
    size_t k = 0;

    assert(len >= sizeof(h));
    memcpy(&h, note, sizeof(h));
    assert(len == sizeof(h) + (size_t)__builtin_popcountll(h.numbers) * sizeof(ddb_num_shape));
    (void)len;
    for (bits = h.present; bits != 0; bits &= bits - 1)
        cols[__builtin_ctzll(bits)].present++;
    for (bits = h.numbers; bits != 0; bits &= bits - 1, k++) {
        ddb_num_shape sh, *to = &cols[__builtin_ctzll(bits)].shape;
        memcpy(&sh, note + sizeof(h) + k * sizeof(sh), sizeof(sh));
        to->seen += sh.seen;
        if (sh.int_digits > to->int_digits)
            to->int_digits = sh.int_digits;
        if (sh.scale > to->scale)
            to->scale = sh.scale;
    }
}

void ddb_schema_set_stored(ddb_schema *s, size_t e, size_t f, int member, int as_text,
                           int scale)
{
    column *c;
    assert(e < s->m->n_entities && f < s->m->entities[e].n_fields);
    assert(member < (int)s->m->entities[e].fields[f].n_members);
    c = member < 0 ? &s->cols[e][f] : &s->cols[e][f].members[member];
    c->stored_text = as_text;
    c->stored_scale = scale;
}

void ddb_schema_save(const ddb_schema *s, size_t e, ddb_buf *out)
{
    ddb_buf_putc(out, '[');
    for (size_t f = 0; f < s->m->entities[e].n_fields; f++) {
        const column *c = &s->cols[e][f];
        ddb_buf_printf(out, "%s[%llu,%llu,%d,%d]", f ? "," : "", (unsigned long long)c->present,
                       (unsigned long long)c->shape.seen, c->shape.int_digits, c->shape.scale);
    }
    ddb_buf_putc(out, ']');
}

int ddb_schema_restore(ddb_schema *s, size_t e, const ddb_value *root, ddb_error *err)
{
    const ddb_entity *en = &s->m->entities[e];
    if (root->type != DDB_TYPE_L || root->u.l.count != en->n_fields)
        goto bad;
    for (size_t f = 0; f < en->n_fields; f++) {
        const ddb_value *row = &root->u.l.items[f];
        uint64_t v[4];
        if (row->type != DDB_TYPE_L || row->u.l.count != 4)
            goto bad;
        for (size_t k = 0; k < 4; k++)
            if (ddb_value_u64(&row->u.l.items[k], &v[k]) != 0 || (k >= 2 && v[k] > 100000))
                goto bad;
        s->cols[e][f].present = v[0];
        s->cols[e][f].shape.seen = v[1];
        s->cols[e][f].shape.int_digits = (int)v[2];
        s->cols[e][f].shape.scale = (int)v[3];
    }
    return 0;
bad:
    return ddb_error_set(err, DDB_EUSAGE, "the saved column types of %s are unreadable", en->name);
}

int ddb_schema_entity(const ddb_schema *s, const char *name, size_t len)
{
    for (size_t e = 0; e < s->m->n_entities; e++)
        if (strlen(s->m->entities[e].name) == len && memcmp(s->m->entities[e].name, name, len) == 0)
            return (int)e;
    return -1;
}

void ddb_schema_free(ddb_schema *s)
{
    if (s == NULL)
        return;
    for (size_t e = 0; s->cols && s->m && e < s->m->n_entities; e++) {
        for (size_t f = 0; s->cols[e] && f < s->m->entities[e].n_fields; f++)
            free(s->cols[e][f].members);
        free(s->cols[e]);
    }
    free(s->cols);
    free(s);
}

/* --------------------------------------------------------------- types */

/* A DuckDB scalar type in Athena's (Hive's) spelling; JSON stays text. */
static void athena_scalar(char *out, size_t cap, const char *duck, size_t len)
{
    if (len == 6 && memcmp(duck, "BIGINT", 6) == 0)
        snprintf(out, cap, "bigint");
    else if (len == 7 && memcmp(duck, "BOOLEAN", 7) == 0)
        snprintf(out, cap, "boolean");
    else if (len == 4 && memcmp(duck, "DATE", 4) == 0)
        snprintf(out, cap, "date");
    else if (len > 7 && memcmp(duck, "DECIMAL", 7) == 0)
        snprintf(out, cap, "decimal%.*s", (int)(len - 7), duck + 7);
    else if (len == 4 && memcmp(duck, "BLOB", 4) == 0)
        snprintf(out, cap, "binary");
    else
        snprintf(out, cap, "string");
}

static void athena_type(char *out, size_t cap, const char *duck)
{
    size_t len = strlen(duck);
    char inner[40];
    if (len > 2 && strcmp(duck + len - 2, "[]") == 0) {
        athena_scalar(inner, sizeof(inner), duck, len - 2);
        snprintf(out, cap, "array<%s>", inner);
    } else {
        athena_scalar(out, cap, duck, len);
    }
}

static void parquet_field_type(col_type *t, const ddb_field *f, const column *c);

void ddb_schema_sql_ident(ddb_buf *b, const char *s, char q)
{
    ddb_buf_putc(b, q);
    for (; *s; s++) {
        if (*s == q)
            ddb_buf_putc(b, q);
        ddb_buf_putc(b, *s);
    }
    ddb_buf_putc(b, q);
}

/* A member's name in a STRUCT type: quoted with q (DuckDB's '"', Athena's
 * '`') unless a plain word. */
static void member_name(ddb_buf *b, const char *name, char q)
{
    int plain = (*name >= 'a' && *name <= 'z') || *name == '_';
    for (const char *p = name; plain && *p; p++)
        plain = (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_';
    if (plain)
        ddb_buf_puts(b, name);
    else
        ddb_schema_sql_ident(b, name, q);
}

/* A declared map's STRUCT: STRUCT(a VARCHAR, ...) and struct<a:string,...>,
 * cut at the buffers' size (a mapping of hundreds of members) with "...". */
static void struct_type(col_type *t, const ddb_field *f, const column *c)
{
    ddb_buf duck = DDB_BUF_INIT, athena = DDB_BUF_INIT;
    col_type m;
    ddb_buf_puts(&duck, "STRUCT(");
    ddb_buf_puts(&athena, "struct<");
    for (size_t j = 0; j < f->n_members; j++) {
        parquet_field_type(&m, &f->members[j], &c->members[j]);
        athena_type(m.athena, sizeof(m.athena), m.duckdb);
        ddb_buf_puts(&duck, j ? ", " : "");
        member_name(&duck, f->members[j].name, '"');
        ddb_buf_printf(&duck, " %s", m.duckdb);
        ddb_buf_puts(&athena, j ? "," : "");
        member_name(&athena, f->members[j].name, '`');
        ddb_buf_printf(&athena, ":%s", m.athena);
    }
    ddb_buf_putc(&duck, ')');
    ddb_buf_putc(&athena, '>');
    snprintf(t->duckdb, sizeof(t->duckdb), "%s", duck.oom ? "STRUCT(...)" : duck.ptr);
    snprintf(t->athena, sizeof(t->athena), "%s", athena.oom ? "struct<...>" : athena.ptr);
    t->note = "a map as its declared members; one not as declared is under _extra";
    ddb_buf_dispose(&duck);
    ddb_buf_dispose(&athena);
}

/* The types of a declared field in a Parquet file, as its writer made the
 * column (writer_parquet.c): numbers as the files hold them. */
static void parquet_field_type(col_type *t, const ddb_field *f, const column *c)
{
    const char *base = "JSON"; /* M, L, NULL: DynamoDB JSON */
    char num[40];
    int list = f->type == DDB_TYPE_SS || f->type == DDB_TYPE_NS || f->type == DDB_TYPE_BS;
    /* a declared DECIMAL is the files' type whatever their values */
    snprintf(num, sizeof(num), "DECIMAL(%d,%d)", f->precision > 0 ? f->precision : 38,
             f->precision > 0 ? f->scale : c->stored_scale);
    if (f->type == DDB_TYPE_S || f->type == DDB_TYPE_SS)
        base = "VARCHAR";
    else if (f->type == DDB_TYPE_B || f->type == DDB_TYPE_BS)
        base = "BLOB";
    else if (f->type == DDB_TYPE_BOOL)
        base = "BOOLEAN";
    else if (f->type == DDB_TYPE_N || f->type == DDB_TYPE_NS)
        base = c->stored_text ? "VARCHAR" : num;
    if ((f->type == DDB_TYPE_N || f->type == DDB_TYPE_NS) && c->stored_text)
        t->note = "numbers no DECIMAL(38,s) holds: kept as their exact text";
    else if (f->type == DDB_TYPE_M || f->type == DDB_TYPE_L)
        t->note = "DynamoDB JSON";
    snprintf(t->duckdb, sizeof(t->duckdb), "%s%s", base, list ? "[]" : "");
}

void ddb_schema_field_type(col_type *t, const ddb_field *f, const column *c, ddb_out_format fmt)
{
    int csv = fmt == DDB_OUT_CSV;
    char num[40];
    memset(t, 0, sizeof(*t));
    if (fmt == DDB_OUT_PARQUET && f->n_members) {
        struct_type(t, f, c);
        return;
    }
    if (fmt == DDB_OUT_PARQUET) {
        parquet_field_type(t, f, c);
        athena_type(t->athena, sizeof(t->athena), t->duckdb);
        return;
    }
    /* a declared DECIMAL holds every value (the transform rejects the others),
     * whatever the values seen: BIGINT when it is whole and 18 digits or
     * fewer, which DuckDB's JSON reader takes exactly */
    if (f->precision > 0 && f->scale == 0 && f->precision <= 18)
        snprintf(num, sizeof(num), "BIGINT");
    else if (f->precision > 0)
        snprintf(num, sizeof(num), "DECIMAL(%d,%d)", f->precision, f->scale);
    else
        ddb_num_shape_duckdb(&c->shape, num, sizeof(num));
    switch (f->type) {
    case DDB_TYPE_N:
        snprintf(t->duckdb, sizeof(t->duckdb), "%s", num);
        if (strcmp(num, "VARCHAR") == 0)
            t->note = "numbers too long for DECIMAL(38,s): kept as their exact text";
        break;
    case DDB_TYPE_BOOL:
        snprintf(t->duckdb, sizeof(t->duckdb), "BOOLEAN");
        break;
    case DDB_TYPE_B:
        snprintf(t->duckdb, sizeof(t->duckdb), "VARCHAR");
        t->note = "base64 (DuckDB: from_base64)";
        break;
    case DDB_TYPE_SS:
    case DDB_TYPE_BS:
        snprintf(t->duckdb, sizeof(t->duckdb), csv ? "JSON" : "VARCHAR[]");
        t->note = f->type == DDB_TYPE_BS ? "a set of base64 strings" : NULL;
        break;
    case DDB_TYPE_NS:
        if (csv) {
            snprintf(t->duckdb, sizeof(t->duckdb), "JSON");
        } else if (strcmp(num, "VARCHAR") == 0) {
            snprintf(t->duckdb, sizeof(t->duckdb), "VARCHAR[]");
            t->note = "numbers too long for DECIMAL(38,s): kept as their exact text";
        } else
            snprintf(t->duckdb, sizeof(t->duckdb), "%s[]", num);
        break;
    case DDB_TYPE_M:
    case DDB_TYPE_L:
        snprintf(t->duckdb, sizeof(t->duckdb), "JSON");
        break;
    default: /* S, NULL */
        if (f->format == DDB_FMT_DATE) {
            snprintf(t->duckdb, sizeof(t->duckdb), "DATE");
        } else if (f->format == DDB_FMT_UUID) {
            snprintf(t->duckdb, sizeof(t->duckdb), "UUID");
        } else {
            snprintf(t->duckdb, sizeof(t->duckdb), "VARCHAR");
            if (f->format == DDB_FMT_DATETIME)
                t->note = "ISO 8601 date and time (CAST AS TIMESTAMPTZ)";
        }
    }
    athena_type(t->athena, sizeof(t->athena), t->duckdb);
}

/* ------------------------------------------------------------- writing */

static void put_column_json(ddb_buf *b, const char *name, const char *ddb, const col_type *t,
                            int first)
{
    ddb_buf_puts(b, first ? "\n    {\"name\":" : ",\n    {\"name\":");
    ddb_json_put_string(b, name, strlen(name));
    /* a STRUCT's member names may need escaping */
    ddb_buf_printf(b, ",\"dynamodb\":\"%s\",\"duckdb\":", ddb);
    ddb_json_put_string(b, t->duckdb, strlen(t->duckdb));
    ddb_buf_puts(b, ",\"athena\":");
    ddb_json_put_string(b, t->athena, strlen(t->athena));
    if (t->note) {
        ddb_buf_puts(b, ",\"note\":");
        ddb_json_put_string(b, t->note, strlen(t->note));
    }
    ddb_buf_putc(b, '}');
}

/* The undeclared attributes' column: typed DynamoDB JSON (or plain JSON). */
static const col_type extra_type = {"JSON", "string", "attributes the mapping does not declare"};

int ddb_schema_is_partition(const ddb_field *f, const char *partition)
{
    return partition != NULL && strcmp(f->name, partition) == 0;
}

void ddb_schema_column_type(col_type *t, const ddb_schema *s, size_t e, size_t f,
                            ddb_out_format fmt, const char *partition)
{
    const ddb_field *fd = &s->m->entities[e].fields[f];
    ddb_schema_field_type(t, fd, &s->cols[e][f],
                          ddb_schema_is_partition(fd, partition) ? DDB_OUT_NDJSON : fmt);
}

static void entity_json(ddb_buf *b, const ddb_schema *s, size_t e, const ddb_schema_file *file,
                        ddb_out_format fmt)
{
    const ddb_entity *en = &s->m->entities[e];
    col_type t;
    ddb_buf_puts(b, "{\"entity\":");
    ddb_json_put_string(b, en->name, strlen(en->name));
    ddb_buf_puts(b, file->partition || file->parts ? ",\"folder\":" : ",\"file\":");
    ddb_json_put_string(b, file->name, strlen(file->name));
    ddb_buf_printf(b, ",\"format\":\"%s\"", ddb_out_format_name(fmt));
    if (file->partition) {
        ddb_buf_puts(b, ",\"partitioned_by\":");
        ddb_json_put_string(b, file->partition, strlen(file->partition));
    }
    ddb_buf_puts(b, ",\"columns\":[");
    for (size_t f = 0; f < en->n_fields; f++) {
        ddb_schema_column_type(&t, s, e, f, fmt, file->partition);
        put_column_json(b, en->fields[f].name, ddb_type_name(en->fields[f].type), &t, f == 0);
    }
    put_column_json(b, DDB_EXTRA_FIELD, "M", &extra_type, en->n_fields == 0);
    ddb_buf_puts(b, "]}\n");
}

/* store NULL: a local folder of its own (see ddb_schema_write), where a
 * file is simply written; ddb_dir_sync makes them all durable at the end. */
static int write_text(ddb_store *store, const char *dir, const char *name, const char *ext,
                      ddb_buf *b, ddb_error *err)
{
    char *base = malloc(strlen(name) + strlen(ext) + 1), *path = NULL;
    int rc;
    if (base == NULL || b->oom) {
        free(base);
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    }
    sprintf(base, "%s%s", name, ext);
    path = ddb_path_join(dir, base);
    if (path == NULL)
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
    else if (store == NULL)
        rc = ddb_file_write(path, b->ptr, b->len, err);
    else
        rc = store->vt->write_all(store, path, b->ptr, b->len, err);
    free(path);
    free(base);
    ddb_buf_clear(b);
    return rc;
}

int ddb_schema_writes(const ddb_schema *s, const ddb_schema_file *files, size_t n, const char *name)
{
    if (strcmp(name, "load.duckdb.sql") == 0)
        return 1;
    for (size_t i = 0; i < n; i++) {
        const char *e = s->m->entities[files[i].entity].name;
        size_t el = strlen(e);
        if (strncmp(name, e, el) == 0 &&
            (strcmp(name + el, ".json") == 0 || strcmp(name + el, ".athena.sql") == 0))
            return 1;
    }
    return 0;
}

int ddb_schema_write(const ddb_schema *s, ddb_store *store, const char *dir, ddb_out_format fmt,
                     char delimiter, const ddb_schema_file *files, size_t n, ddb_error *err)
{
    ddb_buf b = DDB_BUF_INIT, load = DDB_BUF_INIT;
    int rc = 0;

    if (store == NULL && (rc = ddb_make_dirs(dir, err)) != 0)
        goto done;
    ddb_schema_load_begin(&load, s, files, n, fmt);
    for (size_t i = 0; i < n; i++) {
        const char *name = s->m->entities[files[i].entity].name;
        entity_json(&b, s, files[i].entity, &files[i], fmt);
        if ((rc = write_text(store, dir, name, ".json", &b, err)) != 0)
            goto done;
        ddb_schema_athena_ddl(&b, s, files[i].entity, &files[i], fmt, delimiter);
        if ((rc = write_text(store, dir, name, ".athena.sql", &b, err)) != 0)
            goto done;
        ddb_schema_load_entity(&load, s, &files[i], fmt, delimiter);
    }
    if ((rc = write_text(store, dir, "load", ".duckdb.sql", &load, err)) == 0 && store == NULL)
        rc = ddb_dir_sync(dir, err);
done:
    ddb_buf_dispose(&b);
    ddb_buf_dispose(&load);
    return rc;
}
