/*
 * value.h — the exact in-memory model of DynamoDB attribute values.
 *
 * All ten types. N is kept as its decimal text (never a double or int64),
 * B and BS hold raw bytes, S is UTF-8 bytes compared bytewise. Values do not
 * own their memory: they point into an arena (or into caller-owned storage)
 * and are released all at once with the arena.
 */
#ifndef DDBPIPE_VALUE_H
#define DDBPIPE_VALUE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ddbpipe/arena.h"
#include "ddbpipe/error.h"

typedef enum ddb_type {
    DDB_TYPE_NONE = 0,
    DDB_TYPE_S,
    DDB_TYPE_N,
    DDB_TYPE_B,
    DDB_TYPE_BOOL,
    DDB_TYPE_NULL,
    DDB_TYPE_M,
    DDB_TYPE_L,
    DDB_TYPE_SS,
    DDB_TYPE_NS,
    DDB_TYPE_BS
} ddb_type;

typedef struct ddb_str {
    const char *ptr; /* not necessarily NUL-terminated; may contain NUL for B */
    size_t len;
} ddb_str;

/* Are n bytes at a and b equal? Attribute names and key parts are a few to a
 * few dozen bytes, compared millions of times: word compares inline, the
 * library's memcmp only for long runs. */
static inline int ddb_mem_eq(const void *a, const void *b, size_t n)
{
    const unsigned char *p = (const unsigned char *)a, *q = (const unsigned char *)b;
    uint64_t x, y;
    uint32_t u, v;
    if (n > 32)
        return memcmp(p, q, n) == 0;
    if (n >= 8) {
        /* whole words, the last one overlapping the one before */
        for (; n > 8; p += 8, q += 8, n -= 8) {
            memcpy(&x, p, 8);
            memcpy(&y, q, 8);
            if (x != y)
                return 0;
        }
        memcpy(&x, p + n - 8, 8);
        memcpy(&y, q + n - 8, 8);
        return x == y;
    }
    if (n >= 4) {
        memcpy(&u, p, 4);
        memcpy(&v, q, 4);
        if (u != v)
            return 0;
        memcpy(&u, p + n - 4, 4);
        memcpy(&v, q + n - 4, 4);
        return u == v;
    }
    for (; n > 0; p++, q++, n--)
        if (*p != *q)
            return 0;
    return 1;
}

/* Is the NUL-terminated z the n bytes at p? Without strlen(z): names from a
 * mapping are compared with attribute names millions of times. Never reads
 * z past its terminator (p may hold NUL bytes). */
static inline int ddb_cstr_eq(const char *z, const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (z[i] != p[i] || z[i] == '\0')
            return 0;
    return z[n] == '\0';
}

typedef struct ddb_value ddb_value;
typedef struct ddb_attr ddb_attr;

typedef struct ddb_map {
    ddb_attr *attrs;
    size_t count;
} ddb_map;

typedef struct ddb_list {
    ddb_value *items;
    size_t count;
} ddb_list;

struct ddb_value {
    ddb_type type;
    union {
        ddb_str s;   /* S (UTF-8), N (decimal text), B (raw bytes) */
        int boolean; /* BOOL; NULL carries no payload */
        ddb_list l;  /* L, SS, NS, BS (members are S, N, B values) */
        ddb_map m;   /* M */
    } u;
};

struct ddb_attr {
    ddb_str name;
    ddb_value value;
};

/* An item is a map of top-level attributes. */
typedef ddb_map ddb_item;

/* "S", "N", ..., "BS"; "?" for anything else. */
const char *ddb_type_name(ddb_type t);

/* Parses a type descriptor ("S", "NS", ...). Returns 0 or DDB_EINVAL. */
int ddb_type_parse(ddb_type *out, const char *s, size_t len);

/* For a set type, the member type (SS -> S); DDB_TYPE_NONE otherwise. */
ddb_type ddb_type_set_member(ddb_type set_type);

/* Constructors for scalar values that point at existing memory (no copy). */
/* (inline: decode and encode make several per key part) */
static inline ddb_value ddb_value_str(ddb_type type, const char *ptr, size_t len)
{
    ddb_value v;
    v.type = type;
    v.u.s.ptr = ptr;
    v.u.s.len = len;
    return v;
}

static inline ddb_value ddb_value_bool(int b)
{
    ddb_value v;
    memset(&v, 0, sizeof(v));
    v.type = DDB_TYPE_BOOL;
    v.u.boolean = b != 0;
    return v;
}

static inline ddb_value ddb_value_null(void)
{
    ddb_value v;
    memset(&v, 0, sizeof(v));
    v.type = DDB_TYPE_NULL;
    return v;
}

/* Looks up a top-level attribute by name (bytewise). Returns NULL when absent. */
const ddb_value *ddb_map_get(const ddb_map *m, const char *name, size_t len);
const ddb_value *ddb_map_getz(const ddb_map *m, const char *name);

/* Index of the attribute or -1. */
ptrdiff_t ddb_map_find(const ddb_map *m, const char *name, size_t len);

/* One bit of 64 for a name, by its length and first byte. A map's mask (the
 * bits of its names, ddb_map_name_mask) tells with one test that most names
 * asked for and not there are not there, without a search. */
static inline uint64_t ddb_name_bit(const char *p, size_t len)
{
    return UINT64_C(1) << ((len * 7u + (len ? (unsigned char)p[0] : 0u)) & 63u);
}

static inline uint64_t ddb_map_name_mask(const ddb_map *m)
{
    uint64_t bits = 0;
    for (size_t i = 0; i < m->count; i++)
        bits |= ddb_name_bit(m->attrs[i].name.ptr, m->attrs[i].name.len);
    return bits;
}

/* An N holding a non-negative integer that fits in 64 bits (plain digits, as
 * ddbpipe writes its counts): 0 with *out set, or -1 for anything else. */
int ddb_value_u64(const ddb_value *v, uint64_t *out);

/* Exact equality: same type, same bytes (N compared as text), same members
 * in the same order for L; maps compared as unordered sets of attributes;
 * sets compared as unordered collections. */
int ddb_value_equal(const ddb_value *a, const ddb_value *b);

/* Map equality ignoring attribute order. */
int ddb_map_equal(const ddb_map *a, const ddb_map *b);

/* Deep copy of m into arena a. Returns 0 or DDB_ENOMEM. */
int ddb_map_copy(ddb_map *out, const ddb_map *m, ddb_arena *a);
/* As ddb_map_copy, but a name or string lying wholly inside bytes [from,
 * from + len) (the text it was parsed from) points at the same offset in to,
 * a copy of those bytes that must outlive out; the others are copied into a.
 * Returns 0 or DDB_ENOMEM. */
int ddb_map_copy_within(ddb_map *out, const ddb_map *m, const char *from, size_t len,
                        const char *to, ddb_arena *a);

/* ---------------------------------------------------- conversions */

/*
 * Converts v to type want, as decode and encode do: S<->N (validated), S ->
 * B (base64), S -> BOOL (true/false), S/L -> sets, S (JSON text) -> M/L, and
 * plain-JSON shapes to DynamoDB shapes. A NULL stays NULL whatever the
 * declared type. Returns 0 or DDB_EINVAL with the reason.
 */
int ddb_value_convert(ddb_value *out, const ddb_value *v, ddb_type want, ddb_arena *a,
                      ddb_error *err);

/* Interprets a plain-JSON tree in DynamoDB JSON shape ({"S":"x"} parsed as a
 * map) as the typed value it spells. Used for `_extra`. */
int ddb_value_from_typed_json(ddb_value *out, const ddb_value *plain, ddb_arena *a, ddb_error *err);

/* Short printable rendering of v for messages, written into out (cap bytes,
 * always NUL-terminated): quoted text (cut at 60 bytes) for S and N, true or
 * false for BOOL, "a <type> value" otherwise. */
void ddb_value_describe(char *out, size_t cap, const ddb_value *v);

#endif
