/*
 * reader_parquet.c — Parquet files as records: what ddbpipe's own Parquet
 * writer makes (write/parquet.h), and other files of the same kinds. One row
 * group is read at a time (memory is a row group, not the file): each column
 * chunk's data pages v1, PLAIN or dictionary-encoded values (after the
 * chunk's dictionary page), RLE/bit-packed levels, compressed with ZSTD,
 * SNAPPY, GZIP or nothing. A top-level column is a scalar, a LIST of
 * scalars, or a group (a STRUCT) of those: an M of its members present (a
 * map whose members the mapping declares). What it does not know is refused
 * by name, with the reason: another encoding, a data page v2, another codec,
 * a FLOAT/DOUBLE column (not exact), a deeper nesting.
 *
 * Values become DynamoDB types (records typed = 1): STRING S, BYTE_ARRAY B,
 * BOOLEAN BOOL, DECIMAL and integers N (their exact text), a column the
 * footer's ddbpipe.numbers_as_text names N, LISTs SS/NS/BS, a JSON column its
 * DynamoDB JSON (an M or an L; "_extra" kept as its text, which the encoder
 * reads). A file whose last column is the JSON "item" holds whole items (the
 * columns before it, their key attributes, only repeat what it holds).
 * Its footer, at the end, is read first: standard input and an s3:// object
 * are copied to an unnamed temporary file first (in TMPDIR, else /tmp).
 * A row group's column chunks are decoded in parquet_chunk.c.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ddbpipe/json.h"
#include "ddbpipe/mapping.h"
#include "ddbpipe/reader.h"
#include "ddbpipe/s3.h"
#include "read/parquet_chunk.h"
#include "read/parquet_read.h"
#include "read/reader_internal.h"

/* --------------------------------------------------------------- footer */

int pqr_read_at(pq_reader *r, void *buf, uint64_t off, size_t n, ddb_error *err)
{
    if (off > r->size || n > r->size - off || fseeko(r->f, (off_t)off, SEEK_SET) != 0 ||
        fread(buf, 1, n, r->f) != n)
        return ddb_error_set(err, DDB_EIO, "%s: cannot read %zu bytes at %llu (the file is %llu)",
                             r->base.name, n, (unsigned long long)off,
                             (unsigned long long)r->size);
    return 0;
}

int pqr_refuse(pq_reader *r, ddb_error *err, const char *what, const char *col)
{
    if (col != NULL)
        return ddb_error_set(err, DDB_EUSAGE, "%s: column %s is not read: %s", r->base.name, col,
                             what);
    return ddb_error_set(err, DDB_EUSAGE, "%s: not read: %s", r->base.name, what);
}

static char *node_str(const pqr_node *n)
{
    return n != NULL && n->type == 8 ? strndup((const char *)n->p, n->len) : strdup("?");
}

/* The kind of leaf el (a SchemaElement), or refuses it. */
static int leaf_kind(pq_reader *r, pqr_col *c, const pqr_node *el, ddb_error *err)
{
    const pqr_node *lt = pqr_field(el, 10);
    int ct = (int)pqr_int(el, 6, -1);
    c->phys = (int)pqr_int(el, 1, -1);
    c->type_length = (int)pqr_int(el, 2, 0);
    c->scale = (int)pqr_int(el, 7, 0);
    if (ct == 5 || pqr_field(lt, 5) != NULL) {
        if (pqr_field(lt, 5) != NULL)
            c->scale = (int)pqr_int(pqr_field(lt, 5), 1, c->scale);
        c->kind = PQR_NUMBER;
        if (c->scale < 0 || c->scale > 38)
            return pqr_refuse(r, err, "a DECIMAL scale outside 0..38", c->name);
        if (c->phys == PT_FLBA && (c->type_length < 1 || c->type_length > 16))
            return pqr_refuse(r, err, "a DECIMAL wider than 16 bytes", c->name);
        if (c->phys != PT_FLBA && c->phys != PT_INT32 && c->phys != PT_INT64)
            return pqr_refuse(r, err, "a DECIMAL of this physical type", c->name);
        return 0;
    }
    if (c->phys == PT_INT32 || c->phys == PT_INT64) {
        c->kind = PQR_NUMBER;
        return 0;
    }
    if (c->phys == PT_BOOLEAN) {
        c->kind = PQR_BOOL;
        return 0;
    }
    if (c->phys == PT_BYTES || c->phys == PT_FLBA) {
        c->kind = ct == 19 || pqr_field(lt, 12) != NULL                ? PQR_JSON
                  : ct == 0 || ct == 4 || pqr_field(lt, 1) != NULL ? PQR_STRING
                                                                      : PQR_BYTES;
        return 0;
    }
    return pqr_refuse(r, err, "FLOAT, DOUBLE and INT96 are not exact", c->name);
}

/* Column c from schema element at (a leaf or a LIST of leaves, three
 * levels) below def optional levels; *at moves past it. */
static int read_column(pq_reader *r, pqr_col *c, const pqr_node *schema, size_t *at, int def,
                       ddb_error *err)
{
    size_t n = schema->n;
    const pqr_node *el = &schema->kids[*at];
    int optional = pqr_int(el, 3, 0) == 1, rc;
    if ((c->name = node_str(pqr_field(el, 4))) == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    if (pqr_int(el, 3, 0) == 2)
        return pqr_refuse(r, err, "a repeated column outside a LIST", c->name);
    if (pqr_int(el, 5, 0) == 0) {
        c->max_def = def + optional;
        (*at)++;
        return leaf_kind(r, c, el, err);
    }
    if (pqr_int(el, 5, 0) != 1 || *at + 2 >= n || pqr_int(&schema->kids[*at + 1], 3, 0) != 2 ||
        pqr_int(&schema->kids[*at + 1], 5, 0) != 1 || pqr_int(&schema->kids[*at + 2], 5, 0) != 0)
        return pqr_refuse(r, err, "a nested column other than a LIST of scalars", c->name);
    c->list = 1;
    c->def_list = def + optional;
    c->max_def = def + optional + 1 + (pqr_int(&schema->kids[*at + 2], 3, 0) == 1);
    c->max_rep = 1;
    if ((rc = leaf_kind(r, c, &schema->kids[*at + 2], err)) != 0)
        return rc;
    if (c->kind == PQR_BOOL || c->kind == PQR_JSON)
        return pqr_refuse(r, err, "a LIST of BOOLEAN or JSON (DynamoDB has no such set)", c->name);
    *at += 3;
    return 0;
}

/* Is schema element el a group that is no LIST (a STRUCT)? */
static int is_struct(const pqr_node *el)
{
    const pqr_node *lt = pqr_field(el, 10);
    return pqr_int(el, 5, 0) > 0 && pqr_int(el, 6, -1) != 3 && pqr_field(lt, 3) == NULL &&
           pqr_int(el, 3, 0) != 2;
}

/* A STRUCT's members, each a column of its own that knows the group. */
static int read_struct(pq_reader *r, const pqr_node *schema, size_t *at, ddb_error *err)
{
    const pqr_node *el = &schema->kids[*at];
    int64_t members = pqr_int(el, 5, 0);
    int def = pqr_int(el, 3, 0) == 1, rc;
    char *name = node_str(pqr_field(el, 4));
    if (name == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    (*at)++;
    for (int64_t m = 0; m < members; m++) {
        pqr_col *c;
        if (*at >= schema->n || is_struct(&schema->kids[*at])) {
            rc = pqr_refuse(r, err, "a STRUCT in a STRUCT, or one cut short", name);
            free(name);
            return rc;
        }
        c = &r->cols[r->n_cols++];
        if ((c->group = strdup(name)) == NULL) {
            free(name);
            return ddb_error_set(err, DDB_ENOMEM, "out of memory");
        }
        c->def_group = def;
        if ((rc = read_column(r, c, schema, at, def, err)) != 0) {
            free(name);
            return rc;
        }
    }
    free(name);
    return 0;
}

/* Top-level columns: a leaf, a LIST of leaves, or a STRUCT of those. */
static int read_schema(pq_reader *r, const pqr_node *schema, ddb_error *err)
{
    size_t n = schema ? schema->n : 0, at = 1;
    int rc;
    if (n < 2 || (r->cols = calloc(n, sizeof(*r->cols))) == NULL)
        return n < 2 ? pqr_refuse(r, err, "a file without columns", NULL)
                     : ddb_error_set(err, DDB_ENOMEM, "out of memory");
    while (at < n) {
        if (is_struct(&schema->kids[at]))
            rc = read_struct(r, schema, &at, err);
        else
            rc = read_column(r, &r->cols[r->n_cols++], schema, &at, 0, err);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* Columns the footer's ddbpipe.numbers_as_text names hold numbers as text. */
static void text_numbers(pq_reader *r)
{
    const pqr_node *kv = pqr_field(&r->root, 5);
    for (size_t i = 0; kv != NULL && i < kv->n; i++) {
        const pqr_node *k = pqr_field(&kv->kids[i], 1), *v = pqr_field(&kv->kids[i], 2);
        if (k == NULL || v == NULL || k->type != 8 || v->type != 8 || k->len != 23 ||
            memcmp(k->p, "ddbpipe.numbers_as_text", 23))
            continue;
        for (size_t c = 0; c < r->n_cols; c++) {
            char path[512]; /* a STRUCT's member by its path: info.rating */
            size_t len = (size_t)snprintf(path, sizeof(path), "%s%s%s",
                                          r->cols[c].group ? r->cols[c].group : "",
                                          r->cols[c].group ? "." : "", r->cols[c].name);
            for (size_t at = 0; len < sizeof(path) && at + len <= v->len; at++) {
                if ((at == 0 || v->p[at - 1] == ',') && memcmp(v->p + at, path, len) == 0 &&
                    (at + len == v->len || v->p[at + len] == ',') && r->cols[c].kind == PQR_STRING)
                    r->cols[c].kind = PQR_NUMBER;
            }
        }
    }
}

static int read_footer(pq_reader *r, ddb_error *err)
{
    unsigned char tail[8], *meta;
    uint32_t len;
    size_t used;
    int rc;
    if (r->size < 12 || (rc = pqr_read_at(r, tail, r->size - 8, 8, err)) != 0)
        return r->size < 12 ? pqr_refuse(r, err, "too short for a Parquet file", NULL) : rc;
    len = (uint32_t)tail[0] | (uint32_t)tail[1] << 8 | (uint32_t)tail[2] << 16 |
          (uint32_t)tail[3] << 24;
    if (memcmp(tail + 4, "PAR1", 4) != 0 || len > r->size - 12)
        return pqr_refuse(r, err, "no Parquet footer at its end (cut short, or encrypted)", NULL);
    if ((meta = ddb_arena_alloc(r->meta, len)) == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    if ((rc = pqr_read_at(r, meta, r->size - 8 - len, len, err)) != 0 ||
        (rc = pqr_thrift_struct(&r->root, meta, len, &used, r->meta, err)) != 0)
        return rc == DDB_EINVAL ? ddb_error_prefix(err, "%s: ", r->base.name) : rc;
    if ((rc = read_schema(r, pqr_field(&r->root, 2), err)) != 0)
        return rc;
    text_numbers(r);
    r->groups = pqr_field(&r->root, 4);
    /* items: the JSON "item" last, after their key columns if any (an
     * entity's file ends with _extra) */
    r->whole_items = r->cols[r->n_cols - 1].group == NULL &&
                     strcmp(r->cols[r->n_cols - 1].name, "item") == 0 &&
                     r->cols[r->n_cols - 1].kind == PQR_JSON;
    return 0;
}

static int next_group(pq_reader *r, ddb_error *err)
{
    const pqr_node *g, *chunks;
    int rc;
    if (r->groups == NULL || r->group >= r->groups->n)
        return DDB_ITEROVER;
    g = &r->groups->kids[r->group++];
    chunks = pqr_field(g, 1);
    if (chunks == NULL || chunks->n != r->n_cols)
        return ddb_error_set(err, DDB_EINVAL, "%s: row group %zu has %zu column chunks, not %zu",
                             r->base.name, r->group, chunks ? chunks->n : 0, r->n_cols);
    if (pqr_int(g, 3, -1) < 0)
        return ddb_error_set(err, DDB_EINVAL, "%s: row group %zu has no row count", r->base.name,
                             r->group);
    r->group_rows = (uint64_t)pqr_int(g, 3, 0);
    ddb_arena_reset(r->pages);
    for (size_t i = 0; i < r->n_cols; i++)
        if ((rc = pqr_read_chunk(r, &r->cols[i], &chunks->kids[i], err)) != 0)
            return rc;
    r->rows_left = r->group_rows;
    return 0;
}

/* -------------------------------------------------------------- records */

__extension__ typedef unsigned __int128 pqr_u128;

/* The exact decimal text of a DECIMAL or integer value. */
static int number_text(pq_reader *r, const pqr_col *c, const pqr_val *v, ddb_str *out)
{
    char digits[48], *s;
    pqr_u128 u = 0;
    int neg, nd = 0, scale = c->scale;
    size_t len = 0;
    if (c->phys == PT_INT32 || c->phys == PT_INT64) { /* little-endian */
        for (size_t i = v->n; i-- > 0;)
            u = u << 8 | v->p[i];
        neg = (v->p[v->n - 1] & 0x80) != 0;
    } else {
        for (size_t i = 0; i < v->n; i++)
            u = u << 8 | v->p[i];
        neg = (v->p[0] & 0x80) != 0;
    }
    if (neg) /* the magnitude of the two's complement */
        u = v->n == 16 ? ~u + 1 : ((pqr_u128)1 << (8 * v->n)) - u;
    do {
        digits[nd++] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u != 0 || nd <= scale);
    if ((s = ddb_arena_alloc(r->arena, (size_t)nd + 3)) == NULL)
        return DDB_ENOMEM;
    if (neg)
        s[len++] = '-';
    for (int i = nd - 1; i >= 0; i--) {
        s[len++] = digits[i];
        if (i == scale && scale > 0)
            s[len++] = '.';
    }
    /* the scale's trailing zeros are the column's, not the number's: 0.5, not 0.500 */
    while (scale > 0 && s[len - 1] == '0')
        len--;
    if (s[len - 1] == '.')
        len--;
    *out = (ddb_str){s, len};
    return 0;
}

/* A JSON column's DynamoDB JSON: a map of typed values (an M), a list of them
 * (an L) or one typed value. */
static int json_value(pq_reader *r, const pqr_val *v, ddb_value *out, ddb_error *err)
{
    ddb_map m;
    ddb_buf_clear(&r->scratch);
    ddb_buf_puts(&r->scratch, "{\"v\":");
    if (v->n > 0 && v->p[0] == '[')
        ddb_buf_puts(&r->scratch, "{\"L\":");
    else if (v->n > 0 && v->p[0] == '{' && ddb_json_parse_typed_map(r->parser, &m, (const char *)v->p,
                                                                    v->n, r->arena, NULL) == 0) {
        out->type = DDB_TYPE_M;
        out->u.m = m;
        return 0;
    }
    ddb_buf_append(&r->scratch, v->p, v->n);
    ddb_buf_puts(&r->scratch, v->n > 0 && v->p[0] == '[' ? "}}" : "}");
    if (r->scratch.oom)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    {
        char *copy = ddb_arena_alloc(r->arena, r->scratch.len);
        if (copy == NULL)
            return ddb_error_set(err, DDB_ENOMEM, "out of memory");
        memcpy(copy, r->scratch.ptr, r->scratch.len);
        if (ddb_json_parse_typed_map(r->parser, &m, copy, r->scratch.len, r->arena, err) != 0)
            return DDB_EINVAL;
    }
    *out = m.attrs[0].value;
    return 0;
}

static int scalar(pq_reader *r, const pqr_col *c, const pqr_val *v, ddb_value *out,
                  ddb_error *err)
{
    switch (c->kind) {
    case PQR_NUMBER:
        out->type = DDB_TYPE_N;
        if (c->phys == PT_BYTES) { /* kept as its text */
            out->u.s = (ddb_str){(const char *)v->p, v->n};
            return 0;
        }
        return number_text(r, c, v, &out->u.s) != 0 ? ddb_error_set(err, DDB_ENOMEM, "out of memory")
                                                     : 0;
    case PQR_BOOL:
        out->type = DDB_TYPE_BOOL;
        out->u.boolean = v->n != 0;
        return 0;
    case PQR_JSON:
        if (c->group == NULL && strcmp(c->name, DDB_EXTRA_FIELD) == 0) { /* the encoder reads its text */
            out->type = DDB_TYPE_S;
            out->u.s = (ddb_str){(const char *)v->p, v->n};
            return 0;
        }
        return json_value(r, v, out, err);
    default:
        out->type = c->kind == PQR_STRING ? DDB_TYPE_S : DDB_TYPE_B;
        out->u.s = (ddb_str){(const char *)v->p, v->n};
        return 0;
    }
}

/* Levels that promise a value the page does not hold. */
static int damaged(const pq_reader *r, const pqr_col *c, ddb_error *err)
{
    return ddb_error_set(err, DDB_EINVAL, "%s: column %s: its levels and values disagree",
                         r->base.name, c->name);
}

/* Column c's value in the current row, or none (absent). */
static int column_value(pq_reader *r, pqr_col *c, ddb_value *out, int *present, ddb_error *err)
{
    size_t first = c->lv, n = 1;
    *present = 0;
    if (c->lv >= c->n_levels)
        return ddb_error_set(err, DDB_EINVAL, "%s: column %s has fewer values than rows",
                             r->base.name, c->name);
    c->in_group = c->defs[first] >= c->def_group;
    if (!c->list) {
        c->lv++;
        if (c->defs[first] < c->max_def)
            return 0;
        if (c->defs[first] > c->max_def || c->vi >= c->n_vals)
            return damaged(r, c, err);
        *present = 1;
        return scalar(r, c, &c->vals[c->vi++], out, err);
    }
    while (first + n < c->n_levels && c->reps[first + n] == 1)
        n++;
    c->lv += n;
    if (c->defs[first] < c->def_list)
        return 0;
    *present = 1;
    out->type = c->kind == PQR_NUMBER ? DDB_TYPE_NS : c->kind == PQR_STRING ? DDB_TYPE_SS
                                                                            : DDB_TYPE_BS;
    out->u.l.count = c->defs[first] > c->def_list ? n : 0;
    if ((out->u.l.items = ddb_arena_alloc(r->arena, (n ? n : 1) * sizeof(ddb_value))) == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    for (size_t i = 0; i < out->u.l.count; i++) {
        if (c->defs[first + i] < c->max_def)
            return ddb_error_set(err, DDB_EINVAL, "%s: column %s: a null in a set", r->base.name,
                                 c->name);
        if (c->defs[first + i] > c->max_def || c->vi >= c->n_vals)
            return damaged(r, c, err);
        if (scalar(r, c, &c->vals[c->vi++], &out->u.l.items[i], err) != 0)
            return err ? err->code : DDB_EINVAL;
    }
    return 0;
}

/* The STRUCT whose first member is column *i: an M of the members present,
 * or none when the group is absent. *i ends at its last member. */
static int struct_value(pq_reader *r, size_t *i, ddb_value *out, int *present, ddb_error *err)
{
    size_t first = *i, n = 1;
    int rc;
    while (first + n < r->n_cols && r->cols[first + n].group != NULL &&
           strcmp(r->cols[first + n].group, r->cols[first].group) == 0)
        n++;
    *i = first + n - 1;
    out->type = DDB_TYPE_M;
    out->u.m.count = 0;
    if ((out->u.m.attrs = ddb_arena_alloc(r->arena, n * sizeof(ddb_attr))) == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    for (size_t k = 0; k < n; k++) {
        pqr_col *c = &r->cols[first + k];
        ddb_attr *at = &out->u.m.attrs[out->u.m.count];
        int here;
        if ((rc = column_value(r, c, &at->value, &here, err)) != 0)
            return rc;
        if (c->in_group != r->cols[first].in_group)
            return damaged(r, c, err);
        at->name = (ddb_str){c->name, strlen(c->name)};
        out->u.m.count += here;
    }
    *present = r->cols[first].in_group;
    return 0;
}

static int pq_next(ddb_reader *base, ddb_record **out, ddb_error *err)
{
    pq_reader *r = (pq_reader *)base;
    ddb_map *item = &r->rec.item;
    int rc;
    while (r->rows_left == 0)
        if ((rc = next_group(r, err)) != 0)
            return rc;
    ddb_arena_reset(r->arena);
    memset(&r->rec, 0, sizeof(r->rec));
    r->rec.kind = DDB_REC_PUT;
    r->rec.typed = 1;
    r->rec.source = r->base.name;
    r->rec.pos = r->rec.line = ++r->row;
    if ((item->attrs = ddb_arena_alloc(r->arena, r->n_cols * sizeof(ddb_attr))) == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    for (size_t i = 0; i < r->n_cols; i++) {
        ddb_attr *at = &item->attrs[item->count];
        int present;
        rc = r->cols[i].group ? struct_value(r, &i, &at->value, &present, err)
                              : column_value(r, &r->cols[i], &at->value, &present, err);
        if (rc != 0)
            return rc == DDB_EINVAL ? ddb_error_prefix(err, "row %llu: ", (unsigned long long)r->row)
                                    : rc;
        at->name = (ddb_str){r->cols[i].group ? r->cols[i].group : r->cols[i].name,
                             strlen(r->cols[i].group ? r->cols[i].group : r->cols[i].name)};
        item->count += present;
    }
    r->rows_left--;
    if (r->whole_items) { /* the item itself; the key columns only repeat it */
        const ddb_attr *last = item->count ? &item->attrs[item->count - 1] : NULL;
        int whole = last && last->name.ptr == r->cols[r->n_cols - 1].name;
        if (whole && last->value.type != DDB_TYPE_M)
            return ddb_error_set(err, DDB_EINVAL, "%s: row %llu: its item is not a map",
                                 r->base.name, (unsigned long long)r->row);
        *item = whole ? last->value.u.m : (ddb_map){NULL, 0};
    }
    *out = &r->rec;
    return 0;
}

static uint64_t pq_raw_bytes(const ddb_reader *base)
{
    return ((const pq_reader *)base)->consumed;
}

static void pq_free(ddb_reader *base)
{
    pq_reader *r = (pq_reader *)base;
    for (size_t i = 0; i < r->n_cols; i++) {
        free(r->cols[i].name);
        free(r->cols[i].group);
        free(r->cols[i].defs);
        free(r->cols[i].reps);
        free(r->cols[i].vals);
        free(r->cols[i].dict);
        free(r->cols[i].idx);
    }
    free(r->cols);
    if (r->f != NULL)
        fclose(r->f);
    ddb_arena_free(r->meta);
    ddb_arena_free(r->pages);
    ddb_arena_free(r->arena);
    ddb_json_parser_free(r->parser);
    ddb_buf_dispose(&r->scratch);
}

static const ddb_reader_vtable pq_vtable = {"parquet", pq_next, pq_free, pq_raw_bytes, NULL, NULL,
                                            NULL,      NULL,    NULL,    NULL};

/* Copies src (standard input, an s3:// object) to a temporary file, unlinked
 * as soon as it is made so that no exit path leaves it behind, and reads the
 * footer from there: memory is one buffer whatever the file's size. */
static int spool(pq_reader *r, ddb_source *src, ddb_error *err)
{
    const char *dir = getenv("TMPDIR");
    size_t cap = 1 << 20;
    char *path = NULL;
    unsigned char *buf = malloc(cap);
    ssize_t n;
    int fd = -1, rc = 0;
    if (dir == NULL || *dir == '\0')
        dir = "/tmp";
    if (buf == NULL || (path = malloc(strlen(dir) + 32)) == NULL) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto done;
    }
    sprintf(path, "%s/ddbpipe-parquet-XXXXXX", dir);
    if ((fd = mkstemp(path)) < 0 || unlink(path) != 0 || (r->f = fdopen(fd, "w+b")) == NULL) {
        rc = ddb_error_set(err, DDB_EIO, "%s: cannot make a temporary file in %s for it (its "
                           "footer, at its end, is read first): %s",
                           r->base.name, dir, strerror(errno));
        goto done;
    }
    fd = -1; /* r->f's now */
    while ((n = ddb_source_read(src, buf, cap, err)) > 0) {
        if (fwrite(buf, 1, (size_t)n, r->f) != (size_t)n) {
            rc = ddb_error_set(err, DDB_EIO, "%s: cannot copy it to a temporary file in %s: %s",
                               r->base.name, dir, strerror(errno));
            goto done;
        }
        r->size += (uint64_t)n;
    }
    if (n < 0)
        rc = err && err->code ? err->code : DDB_EIO;
    else if (fflush(r->f) != 0)
        rc = ddb_error_set(err, DDB_EIO, "%s: cannot copy it to a temporary file in %s: %s",
                           r->base.name, dir, strerror(errno));
done:
    if (fd >= 0)
        close(fd);
    free(path);
    free(buf);
    return rc;
}

/* Opens the file by its name, or from src when it is not a local file
 * (src, a stream, is otherwise not used: the footer is at the end). */
static int open_parquet(ddb_reader **out, ddb_source *src, const char *name,
                        const ddb_reader_opts *opts, ddb_error *err)
{
    pq_reader *r = calloc(1, sizeof(*r));
    int rc = 0;
    *out = NULL;
    if (r == NULL) {
        ddb_source_free(src);
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    }
    if (ddb_arena_new(&r->meta, 0) != 0 || ddb_arena_new(&r->pages, 0) != 0 ||
        ddb_arena_new(&r->arena, 0) != 0 || ddb_json_parser_new(&r->parser) != 0 ||
        ddb_reader_base_init(&r->base, &pq_vtable, name, DDB_IN_PARQUET, opts) != 0) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto done;
    }
    if (strcmp(name, "-") == 0 || ddb_s3_is_url(name)) {
        if ((rc = spool(r, src, err)) != 0)
            goto done;
    } else if ((r->f = fopen(name, "rb")) == NULL || fseeko(r->f, 0, SEEK_END) != 0) {
        rc = ddb_error_set(err, DDB_EIO, "%s: cannot open it", name);
        goto done;
    } else {
        r->size = (uint64_t)ftello(r->f);
    }
    rc = read_footer(r, err);
done:
    ddb_source_free(src);
    if (rc != 0) {
        pq_free(&r->base);
        free(r->base.name);
        free(r->base.entity_hint);
        free(r);
        return rc;
    }
    *out = &r->base;
    return 0;
}

static int bid_parquet(const unsigned char *p, size_t n, const char *path)
{
    (void)path;
    return n >= 4 && memcmp(p, "PAR1", 4) == 0 ? 100 : 0;
}

const ddb_reader_bidder ddb_parquet_bidder = {DDB_IN_PARQUET, bid_parquet, open_parquet};
