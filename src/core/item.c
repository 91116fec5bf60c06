#include "ddbpipe/item.h"
#include "ddbpipe/rng.h"

#include <assert.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/codec.h"
#include "ddbpipe/number.h"
#include "ddbpipe/shape.h"
#include "core/item_internal.h"

/* DynamoDB: attribute names are at least one character and less than 64 KB. */
#define NAME_MAX_BYTES 65535u

/* Maps and sets up to this many entries are checked for duplicates pairwise:
 * cheaper than hashing for the small maps that make up most items. */
#define PAIRWISE_MAX 16

/* Hash tables up to this many slots live on the stack. The helpers that own
 * big stack buffers are noinline so walk()'s recursive frames stay small. */
#define STACK_SLOTS 1024

/*
 * The path to the value being checked, as a chain of stack frames: nothing is
 * formatted or allocated unless a check fails, so the happy path pays one
 * small struct per level.
 */
enum { FRAME_NAME, FRAME_INDEX };

typedef struct frame {
    const struct frame *parent;
    int kind;
    const char *name; /* FRAME_NAME: attribute name, or the caller's path at the root */
    size_t len;
    size_t index; /* FRAME_INDEX */
} frame;

static void format_path(char *dst, size_t cap, const frame *f)
{
    const frame *chain[DDB_MAX_DEPTH + 8];
    size_t n = 0, o = 0;

    for (; f != NULL && n < sizeof(chain) / sizeof(chain[0]); f = f->parent)
        chain[n++] = f;
    dst[0] = '\0';
    while (n > 0 && o + 1 < cap) {
        const frame *c = chain[--n];
        if (c->kind == FRAME_INDEX) {
            int w = snprintf(dst + o, cap - o, "[%zu]", c->index);
            if (w < 0 || (size_t)w >= cap - o)
                break;
            o += (size_t)w;
        } else {
            if (o > 0)
                dst[o++] = '.';
            o += ddb_error_quote(dst + o, cap - o, c->name, c->len);
        }
    }
}

/* Sets err to "attribute '<path>': <message>" (just the message when f is
 * NULL: a top-level rule) and returns code. */
__attribute__((format(printf, 4, 5), noinline)) static int
fail(ddb_error *err, int code, const frame *f, const char *fmt, ...)
{
    char path[400], msg[600];
    va_list ap;

    if (err == NULL)
        return code;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (f == NULL)
        return ddb_error_set(err, code, "%s", msg);
    format_path(path, sizeof(path), f);
    if (path[0] == '\0')
        return ddb_error_set(err, code, "value: %s", msg);
    return ddb_error_set(err, code, "attribute '%s': %s", path, msg);
}

/* Adds the path in front of a message another module left in err. */
__attribute__((noinline)) static int prefix_path(ddb_error *err, int code, const frame *f)
{
    char path[400];

    if (err == NULL)
        return code;
    format_path(path, sizeof(path), f);
    if (path[0] == '\0')
        ddb_error_prefix(err, "value: ");
    else
        ddb_error_prefix(err, "attribute '%s': ", path);
    return code;
}

static const ddb_str *key_at(const char *base, size_t stride, size_t i)
{
    return (const ddb_str *)(const void *)(base + i * stride);
}

static int str_eq(const ddb_str *a, const ddb_str *b)
{
    return a->len == b->len && ddb_mem_eq(a->ptr, b->ptr, a->len);
}

/* The length, first four bytes and last byte of s, in one word. */
static uint64_t signature(const ddb_str *s)
{
    uint32_t head = 0;
    uint64_t v = (uint64_t)s->len << 40;
    /* a fixed four-byte copy where there are four: no call for a short one */
    if (s->len >= 4)
        memcpy(&head, s->ptr, 4);
    else
        for (size_t i = 0; i < s->len; i++)
            head |= (uint32_t)(unsigned char)s->ptr[i] << (8 * i);
    if (s->len == 0)
        return v;
    return v ^ head ^ (uint64_t)(unsigned char)s->ptr[s->len - 1] << 32;
}

/*
 * Looks for two bytewise-equal keys among n ddb_str found every stride bytes
 * from base. Returns 1 with *first < *second set, 0 when all differ, or
 * DDB_ENOMEM. Pairwise for small n, otherwise an open-addressing hash table
 * so a map of thousands of attributes stays linear.
 */
__attribute__((noinline)) static int find_duplicate(const void *base_, size_t stride, size_t n,
                                                    size_t *first, size_t *second)
{
    const char *base = base_;
    uint64_t stack_slots[STACK_SLOTS];
    uint64_t *slots = stack_slots;
    size_t cap = 64, mask;
    int found = 0;

    if (n <= 2) { /* a nested map of one or two names, the usual one: no signatures */
        if (n == 2 && str_eq(key_at(base, stride, 0), key_at(base, stride, 1))) {
            *first = 0;
            *second = 1;
            return 1;
        }
        return 0;
    }
    if (n <= PAIRWISE_MAX) {
        /* equal keys have equal signatures; most unequal ones do not */
        uint64_t sig[PAIRWISE_MAX];
        for (size_t i = 0; i < n; i++)
            sig[i] = signature(key_at(base, stride, i));
        for (size_t i = 1; i < n; i++) {
            const ddb_str *ki = key_at(base, stride, i);
            for (size_t j = 0; j < i; j++) {
                if (sig[j] == sig[i] && str_eq(key_at(base, stride, j), ki)) {
                    *first = j;
                    *second = i;
                    return 1;
                }
            }
        }
        return 0;
    }
    if (n > (size_t)UINT32_MAX / 4)
        return DDB_ENOMEM;
    while (cap < 2 * n)
        cap *= 2;
    if (cap > STACK_SLOTS) {
        slots = calloc(cap, sizeof(*slots));
        if (slots == NULL)
            return DDB_ENOMEM;
    } else {
        memset(slots, 0, cap * sizeof(*slots));
    }
    mask = cap - 1;
    /* A slot holds index + 1 in its low half and the upper hash bits in its
     * high half, so most probes are settled without touching the keys. */
    for (size_t i = 0; i < n && !found; i++) {
        const ddb_str *ki = key_at(base, stride, i);
        uint64_t hv = ddb_hash64(ki->ptr, ki->len, 0);
        uint64_t tag = hv & UINT64_C(0xFFFFFFFF00000000);
        size_t h = (size_t)hv & mask;
        while (slots[h] != 0) {
            if ((slots[h] & UINT64_C(0xFFFFFFFF00000000)) == tag) {
                size_t j = (size_t)(slots[h] & 0xFFFFFFFFu) - 1;
                if (str_eq(key_at(base, stride, j), ki)) {
                    *first = j;
                    *second = i;
                    found = 1;
                    break;
                }
            }
            h = (h + 1) & mask;
        }
        if (!found)
            slots[h] = tag | (uint64_t)(i + 1);
    }
    if (slots != stack_slots)
        free(slots);
    return found;
}

/* Checks names of a map (top-level item when top != 0, with f NULL): UTF-8,
 * length, and no duplicates. */
/* utf8: 0 when a parser checked the names already */
__attribute__((noinline)) static int check_names(const ddb_map *m, const frame *f, int top,
                                                 int utf8, ddb_error *err)
{
    char q[DDB_QUOTE_MAX * 2 + 8];
    size_t a, b;
    int rc;

    const char *what = top ? "attribute name" : "map attribute name";

    for (size_t i = 0; i < m->count; i++) {
        const ddb_str *nm = &m->attrs[i].name;
        size_t bad = 0;
        if (nm->len == 0 && top)
            return ddb_error_set(err, DDB_EINVAL, "attribute %zu has an empty name", i);
        if (nm->len > NAME_MAX_BYTES) {
            ddb_error_quote(q, sizeof(q), nm->ptr, nm->len);
            return fail(err, DDB_EINVAL, f, "%s '%s' is %zu bytes (max %u)", what, q, nm->len,
                        NAME_MAX_BYTES);
        }
        if (utf8 && !ddb_utf8_valid(nm->ptr, nm->len, &bad)) {
            ddb_error_quote(q, sizeof(q), nm->ptr, nm->len);
            return fail(err, DDB_EINVAL, f, "%s '%s' is not valid UTF-8 (byte %zu)", what, q, bad);
        }
    }
    rc = find_duplicate(m->attrs, sizeof(ddb_attr), m->count, &a, &b);
    if (rc == 0)
        return 0;
    if (rc < 0)
        return fail(err, rc, f, "out of memory checking %ss", what);
    ddb_error_quote(q, sizeof(q), m->attrs[b].name.ptr, m->attrs[b].name.len);
    return fail(err, DDB_EINVAL, f, "%sduplicate attribute name '%s'", top ? "" : "map has ", q);
}

static const char *set_noun(ddb_type t)
{
    switch (t) {
    case DDB_TYPE_SS:
        return "string set";
    case DDB_TYPE_NS:
        return "number set";
    default:
        return "binary set";
    }
}

/* A number set member reduced to bytes that are equal exactly when the
 * numeric values are: sign, exponent, significant digits. */
typedef struct ns_key {
    ddb_str s;
    char buf[4 + DDB_NUMBER_MAX_DIGITS];
} ns_key;

#define NS_STACK_KEYS 32

static void make_ns_key(ns_key *k, const ddb_number *n)
{
    k->s.ptr = k->buf;
    if (n->ndigits == 0) {
        k->buf[0] = '0';
        k->s.len = 1;
        return;
    }
    k->buf[0] = n->negative ? '-' : '+';
    /* exponent is within [-129, 126]: offset it into one unsigned byte */
    k->buf[1] = (char)(unsigned char)(n->exponent + 200);
    memcpy(k->buf + 2, n->digits, (size_t)n->ndigits);
    k->s.len = 2 + (size_t)n->ndigits;
}

static void quote_member(char *dst, size_t cap, ddb_type set_type, const ddb_str *m)
{
    if (set_type == DDB_TYPE_BS) {
        /* raw bytes are shown as (the start of) their base64 */
        char b64[64];
        size_t n = m->len > 45 ? 45 : m->len;
        size_t w = ddb_base64_encode(b64, (const unsigned char *)m->ptr, n);
        snprintf(dst, cap, "%.*s%s", (int)w, b64, m->len > n ? "..." : "");
        return;
    }
    ddb_error_quote(dst, cap, m->ptr, m->len);
}

/* utf8: as walk's */
__attribute__((noinline)) static int check_set(const ddb_value *v, const frame *f, int utf8,
                                               size_t *size, ddb_error *err)
{
    ddb_type mt = ddb_type_set_member(v->type);
    const ddb_value *items = v->u.l.items;
    size_t n = v->u.l.count, a = 0, b = 0, total = 0;
    ns_key stack_keys[NS_STACK_KEYS];
    ns_key *keys = NULL;
    char q1[DDB_QUOTE_MAX * 2 + 8], q2[DDB_QUOTE_MAX * 2 + 8];
    int rc = 0;

    if (n == 0)
        return fail(err, DDB_EINVAL, f, "%s is empty", set_noun(v->type));
    if (mt == DDB_TYPE_N) {
        keys = n <= NS_STACK_KEYS ? stack_keys : malloc(n * sizeof(*keys));
        if (keys == NULL)
            return fail(err, DDB_ENOMEM, f, "out of memory checking number set");
    }
    for (size_t i = 0; i < n; i++) {
        const ddb_value *m = &items[i];
        size_t bad = 0;
        if (m->type != mt) {
            rc = fail(err, DDB_EINVAL, f, "%s member %zu is %s, expected %s", set_noun(v->type), i,
                      ddb_type_name(m->type), ddb_type_name(mt));
            goto done;
        }
        if (mt == DDB_TYPE_N) {
            ddb_number num;
            if ((rc = ddb_number_parse(&num, m->u.s.ptr, m->u.s.len, err)) != 0) {
                rc = prefix_path(err, rc, f);
                goto done;
            }
            make_ns_key(&keys[i], &num);
            total += ddb_number_size(&num);
        } else {
            if (utf8 && mt == DDB_TYPE_S && !ddb_utf8_valid(m->u.s.ptr, m->u.s.len, &bad)) {
                rc = fail(err, DDB_EINVAL, f, "string set member %zu is not valid UTF-8 (byte %zu)",
                          i, bad);
                goto done;
            }
            total += m->u.s.len;
        }
    }
    if (mt == DDB_TYPE_N)
        rc = find_duplicate(keys, sizeof(*keys), n, &a, &b);
    else
        rc = find_duplicate((const char *)items + offsetof(ddb_value, u.s), sizeof(ddb_value), n,
                            &a, &b);
    if (rc < 0) {
        rc = fail(err, rc, f, "out of memory checking %s", set_noun(v->type));
        goto done;
    }
    if (rc > 0) {
        quote_member(q1, sizeof(q1), v->type, &items[b].u.s);
        if (str_eq(&items[a].u.s, &items[b].u.s)) {
            rc = fail(err, DDB_EINVAL, f, "%s has duplicate member '%s'", set_noun(v->type), q1);
        } else {
            quote_member(q2, sizeof(q2), v->type, &items[a].u.s);
            rc = fail(err, DDB_EINVAL, f, "%s has duplicate member '%s' (same value as '%s')",
                      set_noun(v->type), q1, q2);
        }
        goto done;
    }
    *size += total;
done:
    if (keys != NULL && keys != stack_keys)
        free(keys);
    return rc;
}

/*
 * Validates v at nesting level depth (a top-level attribute value is level 1)
 * and adds its DynamoDB size to *size. One pass does both so each number is
 * parsed once. utf8: 0 when a parser checked every name and string already
 * (nested ones too: the JSON lexer checks each string it reads).
 */
static int walk(const ddb_value *v, int depth, const frame *f, int utf8, size_t *size,
                ddb_error *err)
{
    size_t bad = 0;
    int rc;

    if (depth > DDB_MAX_DEPTH)
        return fail(err, DDB_EINVAL, f, "nesting deeper than %d levels", DDB_MAX_DEPTH);
    switch (v->type) {
    case DDB_TYPE_S:
        if (utf8 && !ddb_utf8_valid(v->u.s.ptr, v->u.s.len, &bad))
            return fail(err, DDB_EINVAL, f, "string is not valid UTF-8 (byte %zu)", bad);
        *size += v->u.s.len;
        return 0;
    case DDB_TYPE_N: {
        ddb_number num;
        size_t plain = ddb_number_plain_size(v->u.s.ptr, v->u.s.len);
        if (plain == 0 && (rc = ddb_number_parse(&num, v->u.s.ptr, v->u.s.len, err)) != 0)
            return prefix_path(err, rc, f);
        *size += plain ? plain : ddb_number_size(&num);
        return 0;
    }
    case DDB_TYPE_B:
        *size += v->u.s.len;
        return 0;
    case DDB_TYPE_BOOL:
    case DDB_TYPE_NULL:
        *size += 1;
        return 0;
    case DDB_TYPE_L:
        *size += 3 + v->u.l.count;
        for (size_t i = 0; i < v->u.l.count; i++) {
            frame c = {f, FRAME_INDEX, NULL, 0, i};
            if ((rc = walk(&v->u.l.items[i], depth + 1, &c, utf8, size, err)) != 0)
                return rc;
        }
        return 0;
    case DDB_TYPE_M:
        if ((rc = check_names(&v->u.m, f, 0, utf8, err)) != 0)
            return rc;
        *size += 3 + v->u.m.count;
        for (size_t i = 0; i < v->u.m.count; i++) {
            const ddb_attr *at = &v->u.m.attrs[i];
            frame c = {f, FRAME_NAME, at->name.ptr, at->name.len, 0};
            *size += at->name.len;
            if ((rc = walk(&at->value, depth + 1, &c, utf8, size, err)) != 0)
                return rc;
        }
        return 0;
    case DDB_TYPE_SS:
    case DDB_TYPE_NS:
    case DDB_TYPE_BS:
        return check_set(v, f, utf8, size, err);
    default:
        return fail(err, DDB_EINVAL, f, "value has no valid type (%d)", (int)v->type);
    }
}

/*
 * walk for a parsed item (its UTF-8 checked as it was read), without the
 * frames only a message needs: 0 with the size added, or nonzero when
 * something is wrong, for walk to word. The frames cost a fifth of walking
 * a list of maps, which a real export has in every item.
 */
atomic_ulong ddb_item_walks_worded; /* item_internal.h */

static int walk_quiet(const ddb_value *v, int depth, size_t *size)
{
    if (depth > DDB_MAX_DEPTH)
        return 1;
    switch (v->type) {
    case DDB_TYPE_S:
    case DDB_TYPE_B:
        *size += v->u.s.len;
        return 0;
    case DDB_TYPE_N: {
        size_t plain = ddb_number_plain_size(v->u.s.ptr, v->u.s.len);
        if (plain == 0) {
            ddb_number num;
            if (ddb_number_parse(&num, v->u.s.ptr, v->u.s.len, NULL) != 0)
                return 1;
            plain = ddb_number_size(&num);
        }
        *size += plain;
        return 0;
    }
    case DDB_TYPE_BOOL:
    case DDB_TYPE_NULL:
        *size += 1;
        return 0;
    case DDB_TYPE_L:
        *size += 3 + v->u.l.count;
        for (size_t i = 0; i < v->u.l.count; i++)
            if (walk_quiet(&v->u.l.items[i], depth + 1, size) != 0)
                return 1;
        return 0;
    case DDB_TYPE_M: {
        const ddb_map *m = &v->u.m;
        size_t a, b;
        /* check_names of a nested map, its UTF-8 read already */
        for (size_t i = 0; i < m->count; i++) {
            if (m->attrs[i].name.len > NAME_MAX_BYTES)
                return 1;
            *size += m->attrs[i].name.len;
        }
        if (m->count > 1 && find_duplicate(m->attrs, sizeof(ddb_attr), m->count, &a, &b) != 0)
            return 1;
        *size += 3 + m->count;
        for (size_t i = 0; i < m->count; i++)
            if (walk_quiet(&m->attrs[i].value, depth + 1, size) != 0)
                return 1;
        return 0;
    }
    case DDB_TYPE_SS:
    case DDB_TYPE_NS:
    case DDB_TYPE_BS:
        return check_set(v, NULL, 0, size, NULL) != 0;
    default:
        return 1;
    }
}

int ddb_value_validate(const ddb_value *v, const char *path, ddb_error *err)
{
    frame root = {NULL, FRAME_NAME, path ? path : "", path ? strlen(path) : 0, 0};
    size_t size = 0;

    return walk(v, 1, &root, 1, &size, err);
}

/* Size of a number's text without failing: the documented formula on the
 * significant digits, or (invalid text) on every digit character. */
static size_t number_text_size(const ddb_str *s)
{
    ddb_number num;
    size_t digits = 0;

    if (ddb_number_parse(&num, s->ptr, s->len, NULL) == 0)
        return ddb_number_size(&num);
    for (size_t i = 0; i < s->len; i++)
        digits += s->ptr[i] >= '0' && s->ptr[i] <= '9';
    return 1 + (digits + 1) / 2;
}

size_t ddb_value_size(const ddb_value *v)
{
    size_t size = 0;

    switch (v->type) {
    case DDB_TYPE_S:
    case DDB_TYPE_B:
        return v->u.s.len;
    case DDB_TYPE_N:
        return number_text_size(&v->u.s);
    case DDB_TYPE_BOOL:
    case DDB_TYPE_NULL:
        return 1;
    case DDB_TYPE_L:
        size = 3 + v->u.l.count;
        for (size_t i = 0; i < v->u.l.count; i++)
            size += ddb_value_size(&v->u.l.items[i]);
        return size;
    case DDB_TYPE_M:
        size = 3 + v->u.m.count;
        for (size_t i = 0; i < v->u.m.count; i++)
            size += v->u.m.attrs[i].name.len + ddb_value_size(&v->u.m.attrs[i].value);
        return size;
    case DDB_TYPE_SS:
    case DDB_TYPE_BS:
        for (size_t i = 0; i < v->u.l.count; i++)
            size += v->u.l.items[i].u.s.len;
        return size;
    case DDB_TYPE_NS:
        for (size_t i = 0; i < v->u.l.count; i++)
            size += number_text_size(&v->u.l.items[i].u.s);
        return size;
    default:
        return 0;
    }
}

size_t ddb_item_size(const ddb_item *item)
{
    size_t size = 0;

    for (size_t i = 0; i < item->count; i++)
        size += item->attrs[i].name.len + ddb_value_size(&item->attrs[i].value);
    return size;
}

/* The owner of the memo that an item's names passed check_names. */
static const char names_checked;

/* utf8: 0 when a parser checked the names and strings already, at every
 * depth. sh: item's shape or NULL. */
static int validate(const ddb_item *item, const ddb_key_schema *ks, size_t *size_out, int utf8,
                    ddb_shape *sh, ddb_error *err)
{
    size_t size = 0;
    int rc;

    if (size_out)
        *size_out = 0;
    if (sh == NULL ||
        (ddb_shape_memo(sh, &names_checked, DDB_SHAPE_NAMES_CHECKED, NULL) == NULL &&
         (utf8 || ddb_shape_memo(sh, &names_checked, DDB_SHAPE_NAMES_PARSED, NULL) == NULL))) {
        if ((rc = check_names(item, NULL, 1, utf8, err)) != 0)
            return rc;
        if (ddb_shape_memo_put(sh, &names_checked,
                               utf8 ? DDB_SHAPE_NAMES_CHECKED : DDB_SHAPE_NAMES_PARSED, 1) == NULL)
            sh = NULL; /* no room: the key positions are not kept either */
    }
    for (size_t i = 0; i < item->count; i++) {
        const ddb_attr *at = &item->attrs[i];
        size += at->name.len;
        if (!utf8 && at->value.type == DDB_TYPE_S) {
            size += at->value.u.s.len;
            continue;
        }
        if (!utf8) {
            size_t quiet = size;
            if (walk_quiet(&at->value, 1, &quiet) == 0) {
                size = quiet;
                continue;
            }
            atomic_fetch_add_explicit(&ddb_item_walks_worded, 1, memory_order_relaxed);
        }
        {
            frame root = {NULL, FRAME_NAME, at->name.ptr, at->name.len, 0};
            if ((rc = walk(&at->value, 1, &root, utf8, &size, err)) != 0)
                return rc;
        }
    }
    if (size_out)
        *size_out = size;
    if (size > DDB_ITEM_MAX_SIZE)
        return ddb_error_set(err, DDB_ETOOBIG, "item size %zu bytes exceeds 400 KB (%u bytes)",
                             size, DDB_ITEM_MAX_SIZE);
    if (ks != NULL && ks->partition.name != NULL)
        return ddb_item_check_keys(item, ks, 1, 0, sh, err);
    return 0;
}

int ddb_item_validate(const ddb_item *item, const ddb_key_schema *ks, size_t *size_out,
                      ddb_error *err)
{
    return validate(item, ks, size_out, 1, NULL, err);
}

int ddb_item_validate_parsed(const ddb_item *item, const ddb_key_schema *ks, size_t *size_out,
                             ddb_error *err)
{
    return validate(item, ks, size_out, 0, NULL, err);
}

int ddb_item_validate_shaped(const ddb_item *item, const ddb_key_schema *ks, ddb_shape *shape,
                             int utf8_checked, size_t *size_out, ddb_error *err)
{
    return validate(item, ks, size_out, !utf8_checked, shape, err);
}

int ddb_item_expired(const ddb_item *item, const char *attr, uint64_t now)
{
    const ddb_value *v;
    char at[24], oldest[24];
    ddb_error err;
    assert(item != NULL && attr != NULL);
    v = ddb_map_getz(item, attr);
    if (v == NULL || v->type != DDB_TYPE_N)
        return 0;
    snprintf(at, sizeof(at), "%llu", (unsigned long long)now);
    snprintf(oldest, sizeof(oldest), "%llu",
             (unsigned long long)(now > DDB_TTL_HORIZON_S ? now - DDB_TTL_HORIZON_S : 0));
    /* an invalid number (DDB_EINVAL, negative) is not a time */
    return ddb_number_compare_text(v->u.s.ptr, v->u.s.len, at, strlen(at), &err) == -1 &&
           ddb_number_compare_text(v->u.s.ptr, v->u.s.len, oldest, strlen(oldest), &err) >= 0;
}
