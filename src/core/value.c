#include "ddbpipe/value.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *const type_names[] = {"?", "S", "N",  "B",  "BOOL", "NULL",
                                         "M", "L", "SS", "NS", "BS"};

const char *ddb_type_name(ddb_type t)
{
    if ((unsigned)t >= sizeof(type_names) / sizeof(type_names[0]))
        return "?";
    return type_names[t];
}

int ddb_type_parse(ddb_type *out, const char *s, size_t len)
{
    /* by length and letters: every typed value of a DynamoDB JSON line
     * comes through here */
    ddb_type t = DDB_TYPE_NONE;
    if (len == 1) {
        t = s[0] == 'S'   ? DDB_TYPE_S
            : s[0] == 'N' ? DDB_TYPE_N
            : s[0] == 'B' ? DDB_TYPE_B
            : s[0] == 'M' ? DDB_TYPE_M
            : s[0] == 'L' ? DDB_TYPE_L
                          : DDB_TYPE_NONE;
    } else if (len == 2 && s[1] == 'S') {
        t = s[0] == 'S'   ? DDB_TYPE_SS
            : s[0] == 'N' ? DDB_TYPE_NS
            : s[0] == 'B' ? DDB_TYPE_BS
                          : DDB_TYPE_NONE;
    } else if (len == 4) {
        t = memcmp(s, "BOOL", 4) == 0   ? DDB_TYPE_BOOL
            : memcmp(s, "NULL", 4) == 0 ? DDB_TYPE_NULL
                                        : DDB_TYPE_NONE;
    }
    if (t == DDB_TYPE_NONE)
        return DDB_EINVAL;
    *out = t;
    return 0;
}

ddb_type ddb_type_set_member(ddb_type set_type)
{
    switch (set_type) {
    case DDB_TYPE_SS:
        return DDB_TYPE_S;
    case DDB_TYPE_NS:
        return DDB_TYPE_N;
    case DDB_TYPE_BS:
        return DDB_TYPE_B;
    default:
        return DDB_TYPE_NONE;
    }
}

ptrdiff_t ddb_map_find(const ddb_map *m, const char *name, size_t len)
{
    for (size_t i = 0; i < m->count; i++) {
        const ddb_str *n = &m->attrs[i].name;
        if (n->len == len && ddb_mem_eq(n->ptr, name, len))
            return (ptrdiff_t)i;
    }
    return -1;
}

const ddb_value *ddb_map_get(const ddb_map *m, const char *name, size_t len)
{
    ptrdiff_t i = ddb_map_find(m, name, len);
    return i < 0 ? NULL : &m->attrs[i].value;
}

const ddb_value *ddb_map_getz(const ddb_map *m, const char *name)
{
    /* lengths first: most names differ in length, and equal lengths compare
     * a word at a time (a byte-by-byte walk was 3% of an export) */
    return ddb_map_get(m, name, strlen(name));
}

static int str_equal(const ddb_str *a, const ddb_str *b)
{
    return a->len == b->len && ddb_mem_eq(a->ptr, b->ptr, a->len);
}

/* Unordered comparison of two member arrays of equal length: O(n^2) but sets
 * compared this way are small; exactness matters more than speed here. */
static int unordered_equal(const ddb_value *a, const ddb_value *b, size_t n)
{
    unsigned char small[64];
    unsigned char *used = n <= sizeof(small) ? small : calloc(n, 1);
    int ok = 1;

    if (used == NULL)
        return 0;
    memset(used, 0, n <= sizeof(small) ? n : 0);
    for (size_t i = 0; i < n && ok; i++) {
        size_t j;
        for (j = 0; j < n; j++) {
            if (!used[j] && ddb_value_equal(&a[i], &b[j])) {
                used[j] = 1;
                break;
            }
        }
        if (j == n)
            ok = 0;
    }
    if (used != small)
        free(used);
    return ok;
}

int ddb_value_equal(const ddb_value *a, const ddb_value *b)
{
    if (a->type != b->type)
        return 0;
    switch (a->type) {
    case DDB_TYPE_S:
    case DDB_TYPE_N:
    case DDB_TYPE_B:
        return str_equal(&a->u.s, &b->u.s);
    case DDB_TYPE_BOOL:
        return a->u.boolean == b->u.boolean;
    case DDB_TYPE_NULL:
        return 1;
    case DDB_TYPE_M:
        return ddb_map_equal(&a->u.m, &b->u.m);
    case DDB_TYPE_L:
        if (a->u.l.count != b->u.l.count)
            return 0;
        for (size_t i = 0; i < a->u.l.count; i++)
            if (!ddb_value_equal(&a->u.l.items[i], &b->u.l.items[i]))
                return 0;
        return 1;
    case DDB_TYPE_SS:
    case DDB_TYPE_NS:
    case DDB_TYPE_BS:
        if (a->u.l.count != b->u.l.count)
            return 0;
        return unordered_equal(a->u.l.items, b->u.l.items, a->u.l.count);
    default:
        return 0;
    }
}

int ddb_map_equal(const ddb_map *a, const ddb_map *b)
{
    if (a->count != b->count)
        return 0;
    for (size_t i = 0; i < a->count; i++) {
        const ddb_value *o = ddb_map_get(b, a->attrs[i].name.ptr, a->attrs[i].name.len);
        if (o == NULL || !ddb_value_equal(&a->attrs[i].value, o))
            return 0;
    }
    return 1;
}

/* Where a copy's strings may point instead of being copied: bytes [from,
 * from + len) have a copy at to. NULL: every string is copied. */
typedef struct rebase {
    uintptr_t from;
    size_t len;
    const char *to;
} rebase;

static int copy_str(ddb_str *out, const ddb_str *in, ddb_arena *a, const rebase *rb)
{
    char *p;
    if (rb != NULL && (uintptr_t)in->ptr >= rb->from && (uintptr_t)in->ptr - rb->from <= rb->len &&
        in->len <= rb->len - ((uintptr_t)in->ptr - rb->from)) {
        out->ptr = rb->to + ((uintptr_t)in->ptr - rb->from);
        out->len = in->len;
        return 0;
    }
    if ((p = ddb_arena_memdup(a, in->ptr, in->len)) == NULL)
        return DDB_ENOMEM;
    out->ptr = p;
    out->len = in->len;
    return 0;
}

static int map_copy(ddb_map *out, const ddb_map *m, ddb_arena *a, const rebase *rb);

static int value_copy(ddb_value *out, const ddb_value *v, ddb_arena *a, const rebase *rb)
{
    *out = *v;
    switch (v->type) {
    case DDB_TYPE_S:
    case DDB_TYPE_N:
    case DDB_TYPE_B:
        return copy_str(&out->u.s, &v->u.s, a, rb);
    case DDB_TYPE_M:
        return map_copy(&out->u.m, &v->u.m, a, rb);
    case DDB_TYPE_L:
    case DDB_TYPE_SS:
    case DDB_TYPE_NS:
    case DDB_TYPE_BS: {
        ddb_value *items;
        if (v->u.l.count == 0) {
            out->u.l.items = NULL;
            return 0;
        }
        items = ddb_arena_alloc(a, v->u.l.count * sizeof(*items));
        if (items == NULL)
            return DDB_ENOMEM;
        for (size_t i = 0; i < v->u.l.count; i++) {
            int rc = value_copy(&items[i], &v->u.l.items[i], a, rb);
            if (rc != 0)
                return rc;
        }
        out->u.l.items = items;
        return 0;
    }
    default:
        return 0;
    }
}

static int map_copy(ddb_map *out, const ddb_map *m, ddb_arena *a, const rebase *rb)
{
    ddb_attr *attrs;
    out->count = m->count;
    out->attrs = NULL;
    if (m->count == 0)
        return 0;
    attrs = ddb_arena_alloc(a, m->count * sizeof(*attrs));
    if (attrs == NULL)
        return DDB_ENOMEM;
    for (size_t i = 0; i < m->count; i++) {
        int rc = copy_str(&attrs[i].name, &m->attrs[i].name, a, rb);
        if (rc == 0)
            rc = value_copy(&attrs[i].value, &m->attrs[i].value, a, rb);
        if (rc != 0)
            return rc;
    }
    out->attrs = attrs;
    return 0;
}

int ddb_map_copy(ddb_map *out, const ddb_map *m, ddb_arena *a)
{
    return map_copy(out, m, a, NULL);
}

int ddb_map_copy_within(ddb_map *out, const ddb_map *m, const char *from, size_t len,
                        const char *to, ddb_arena *a)
{
    rebase rb = {(uintptr_t)from, len, to};
    return map_copy(out, m, a, from != NULL && to != NULL ? &rb : NULL);
}

int ddb_value_u64(const ddb_value *v, uint64_t *out)
{
    uint64_t n = 0;
    if (v == NULL || v->type != DDB_TYPE_N || v->u.s.len == 0)
        return -1;
    for (size_t i = 0; i < v->u.s.len; i++) {
        unsigned d = (unsigned)(v->u.s.ptr[i] - '0');
        if (d > 9 || n > (UINT64_MAX - d) / 10)
            return -1;
        n = n * 10 + d;
    }
    *out = n;
    return 0;
}
