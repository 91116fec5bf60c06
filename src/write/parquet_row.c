/*
 * A record's Parquet row (parquet_row.h): per column, in order, a tag, then
 * for a value its length and bytes (BOOL one byte, NUMBER its text, maps and
 * lists their DynamoDB JSON), for a list its count and each element so.
 * Lengths are native uint32s: a row never leaves the process. What goes
 * where (STRUCTs, _extra) is writer_parquet.c's header. An item's row (no
 * entity) is per key attribute a value with its type byte after the tag,
 * then the item's DynamoDB JSON.
 */
#include "write/parquet_row.h"

#include <assert.h>
#include <string.h>

#include "ddbpipe/json.h"
#include "write/csv_cell.h"
#include "write/parquet_internal.h"

enum { ROW_NULL, ROW_MEMBER_NULL, ROW_VALUE, ROW_LIST };

static void put_u32(ddb_buf *b, size_t n)
{
    uint32_t v = (uint32_t)n;
    ddb_buf_append(b, &v, 4);
}

static uint32_t get_u32(const char *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static void put_bytes(ddb_buf *row, const void *p, size_t n)
{
    ddb_buf_putc(row, ROW_VALUE);
    put_u32(row, n);
    ddb_buf_append(row, p, n);
}

/* A value whose bytes are appended straight after (no copy through a
 * scratch buffer); end_value sets its length. */
static size_t begin_value(ddb_buf *row)
{
    ddb_buf_putc(row, ROW_VALUE);
    put_u32(row, 0);
    return row->len;
}

static void end_value(ddb_buf *row, size_t at)
{
    uint32_t n = (uint32_t)(row->len - at);
    if (!row->oom)
        memcpy(row->ptr + at - 4, &n, 4);
}

/* A value of its column's declared type. */
static void put_field(ddb_buf *row, const ddb_value *v)
{
    unsigned char b;
    size_t at;
    switch (v->type) {
    case DDB_TYPE_S:
    case DDB_TYPE_N:
    case DDB_TYPE_B:
        put_bytes(row, v->u.s.ptr, v->u.s.len);
        return;
    case DDB_TYPE_BOOL:
        b = v->u.boolean != 0;
        put_bytes(row, &b, 1);
        return;
    case DDB_TYPE_SS:
    case DDB_TYPE_NS:
    case DDB_TYPE_BS:
        ddb_buf_putc(row, ROW_LIST);
        put_u32(row, v->u.l.count);
        for (size_t i = 0; i < v->u.l.count; i++) {
            put_u32(row, v->u.l.items[i].u.s.len);
            ddb_buf_append(row, v->u.l.items[i].u.s.ptr, v->u.l.items[i].u.s.len);
        }
        return;
    default:
        break;
    }
    at = begin_value(row);
    if (v->type == DDB_TYPE_M) {
        ddb_json_put_typed_map(row, &v->u.m);
    } else if (v->type == DDB_TYPE_L) {
        /* the list's DynamoDB JSON without its {"L":...} wrapper, as a map's */
        ddb_buf_putc(row, '[');
        for (size_t i = 0; i < v->u.l.count; i++) {
            if (i)
                ddb_buf_putc(row, ',');
            ddb_json_put_typed_value(row, &v->u.l.items[i]);
        }
        ddb_buf_putc(row, ']');
    } else {
        ddb_json_put_typed_value(row, v);
    }
    end_value(row, at);
}

/* Which of fd's declared members is named name: its index, or n_members. */
static size_t member_index(const ddb_field *fd, const ddb_str *name)
{
    size_t j = 0;
    while (j < fd->n_members && !(name->len == fd->members[j].name_len &&
                                  memcmp(name->ptr, fd->members[j].name, name->len) == 0))
        j++;
    return j;
}

/* The member of map m that fd's member j declares, or NULL. */
static const ddb_value *member_of(const ddb_map *m, const ddb_field *fd, size_t j)
{
    for (size_t k = 0; k < m->count; k++)
        if (member_index(fd, &m->attrs[k].name) == j)
            return &m->attrs[k].value;
    return NULL;
}

/* Does f's number column col hold v's numbers (N or NS)? Without f, yes:
 * pq_row_write asks again. */
static int numbers_fit(const pq_file *f, size_t col, const ddb_value *v, ddb_error *err)
{
    int rc = 0;
    if (f == NULL)
        return 0;
    if (v->type == DDB_TYPE_N)
        return pq_number_fits(f, col, v->u.s.ptr, v->u.s.len, err);
    for (size_t i = 0; rc == 0 && v->type == DDB_TYPE_NS && i < v->u.l.count; i++)
        rc = pq_number_fits(f, col, v->u.l.items[i].u.s.ptr, v->u.l.items[i].u.s.len, err);
    return rc;
}

/* Does map m fit field fd's STRUCT (from column col): every member
 * declared, of its type, and every number one its column holds? */
static int fits_struct(const pq_file *f, const ddb_field *fd, size_t col, const ddb_map *m)
{
    for (size_t k = 0; k < m->count; k++) {
        size_t j = member_index(fd, &m->attrs[k].name);
        const ddb_value *v = &m->attrs[k].value;
        if (j == fd->n_members || v->type != fd->members[j].type ||
            numbers_fit(f, col + j, v, NULL) != 0)
            return 0;
    }
    return 1;
}

/* Field fd's column or columns (v NULL: not in the record): a STRUCT's
 * members one by one. */
static void put_columns(ddb_buf *row, const ddb_field *fd, const ddb_value *v)
{
    if (fd->n_members == 0) {
        if (v == NULL)
            ddb_buf_putc(row, ROW_NULL);
        else
            put_field(row, v);
        return;
    }
    for (size_t j = 0; j < fd->n_members; j++) {
        const ddb_value *m = v ? member_of(&v->u.m, fd, j) : NULL;
        if (v == NULL)
            ddb_buf_putc(row, ROW_NULL);
        else if (m == NULL)
            ddb_buf_putc(row, ROW_MEMBER_NULL);
        else
            put_field(row, m);
    }
}

static int same_name(const ddb_str *name, const ddb_field *fd)
{
    return name->ptr == fd->name ||
           (name->len == fd->name_len && memcmp(name->ptr, fd->name, fd->name_len) == 0);
}

/* The field's value placed by the merge walk the other writers make:
 * declared attributes come in field order, named with the mapping's own
 * strings (*c, the walk's place, moves past fd's). A value not of the
 * field's type (a NULL), or a map not as declared, is left to _extra, as
 * CSV does: NULL. */
static const ddb_value *place(const ddb_field *fd, size_t col, const ddb_map *rec,
                              size_t n_declared, size_t *c, unsigned char *used, const pq_file *f)
{
    const ddb_value *v;
    if (*c >= n_declared || !same_name(&rec->attrs[*c].name, fd))
        return NULL;
    v = &rec->attrs[(*c)++].value;
    if (v->type != fd->type || (fd->n_members != 0 && !fits_struct(f, fd, col, &v->u.m)))
        return NULL;
    used[*c - 1] = 1;
    return v;
}

int pq_row_put(ddb_buf *row, ddb_format_scratch *s, const ddb_entity *e, int extra_plain,
               const ddb_map *rec, size_t n_declared, const pq_file *f, ddb_error *err)
{
    unsigned char *used;
    size_t c = 0, col = 0, at;
    assert(e != NULL && n_declared <= rec->count);
    ddb_buf_clear(&s->used);
    if (ddb_buf_reserve(&s->used, rec->count) != 0)
        return DDB_ENOMEM;
    used = (unsigned char *)s->used.ptr;
    if (rec->count)
        memset(used, 0, rec->count);
    for (size_t i = 0; i < e->n_fields; i++) {
        const ddb_field *fd = &e->fields[i];
        const ddb_value *v = place(fd, col, rec, n_declared, &c, used, f);
        /* a number its DECIMAL cannot hold refuses the record: nothing is rounded */
        if (v != NULL && numbers_fit(f, col, v, err) != 0)
            return DDB_WRITER_REFUSED;
        put_columns(row, fd, v);
        col += pq_field_columns(fd);
    }
    at = begin_value(row);
    if (row->oom)
        return DDB_ENOMEM;
    if (ddb_csv_extra_text(row, rec, used, extra_plain) > 0) {
        end_value(row, at);
    } else {
        row->len = at - 5;
        ddb_buf_putc(row, ROW_NULL);
    }
    return row->oom ? DDB_ENOMEM : 0;
}

/* Does every number of the row fit its column as f now decides? */
static int row_fits(const pq_file *f, const char *p, const char *end)
{
    for (size_t col = 0; p < end; col++) {
        int number = f->cols[col].kind == PQ_NUMBER;
        uint32_t n = 1, len;
        assert(col < f->n_cols);
        switch (*p++) {
        case ROW_LIST:
            n = get_u32(p);
            p += 4; /* fall through */
        case ROW_VALUE:
            for (uint32_t i = 0; i < n; i++, p += 4 + len) {
                len = get_u32(p);
                if (number && pq_number_fits(f, col, p + 4, len, NULL) != 0)
                    return 0;
            }
            break;
        default:
            break;
        }
    }
    return 1;
}

int pq_row_write(pq_file *f, const char *row, size_t len, int check)
{
    const char *p = row, *end = row + len;
    if (check && !row_fits(f, p, end))
        return 1;
    for (size_t col = 0; p < end; col++) {
        uint32_t n, k;
        assert(col < f->n_cols);
        switch (*p++) {
        case ROW_NULL:
            pq_put_null(f, col);
            break;
        case ROW_MEMBER_NULL:
            pq_put_member_null(f, col);
            break;
        case ROW_VALUE:
            k = get_u32(p);
            pq_put(f, col, p + 4, k);
            p += 4 + k;
            break;
        default:
            n = get_u32(p);
            p += 4;
            pq_put_list(f, col, n);
            for (uint32_t i = 0; i < n; i++, p += 4 + k) {
                k = get_u32(p);
                pq_put_elem(f, col, i, p + 4, k);
            }
            break;
        }
    }
    return 0;
}

int pq_item_row_put(ddb_buf *row, const ddb_key_attr *keys, size_t n_keys, const ddb_map *item)
{
    size_t at;
    for (size_t k = 0; k < n_keys; k++) {
        const ddb_value *v = ddb_map_get(item, keys[k].name, strlen(keys[k].name));
        /* a key column is S, N or B: a value of another type is never in it */
        if (v == NULL || (v->type != DDB_TYPE_S && v->type != DDB_TYPE_N && v->type != DDB_TYPE_B)) {
            ddb_buf_putc(row, ROW_NULL);
            continue;
        }
        ddb_buf_putc(row, ROW_VALUE);
        ddb_buf_putc(row, (char)v->type);
        put_u32(row, v->u.s.len);
        ddb_buf_append(row, v->u.s.ptr, v->u.s.len);
    }
    at = begin_value(row);
    ddb_json_put_typed_map(row, item);
    end_value(row, at);
    return row->oom ? DDB_ENOMEM : 0;
}

int pq_item_row_write(pq_file *f, const ddb_key_attr *keys, size_t n_keys, const char *row,
                      size_t len)
{
    const char *p = row;
    for (size_t k = 0; k < n_keys; k++) { /* a key's number its DECIMAL cannot hold */
        if (*p++ != ROW_VALUE)
            continue;
        if ((ddb_type)p[0] == DDB_TYPE_N && keys[k].type == DDB_TYPE_N &&
            pq_number_fits(f, k, p + 5, get_u32(p + 1), NULL) != 0)
            return 1;
        p += 5 + get_u32(p + 1);
    }
    p = row;
    for (size_t k = 0; k < n_keys; k++) {
        if (*p++ != ROW_VALUE) {
            pq_put_null(f, k);
            continue;
        }
        if ((ddb_type)p[0] == keys[k].type)
            pq_put(f, k, p + 5, get_u32(p + 1));
        else
            pq_put_null(f, k);
        p += 5 + get_u32(p + 1);
    }
    assert(*p == ROW_VALUE && p + 5 + get_u32(p + 1) == row + len);
    pq_put(f, n_keys, p + 5, get_u32(p + 1));
    return 0;
}
