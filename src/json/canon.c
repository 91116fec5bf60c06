/*
 * Canonical DynamoDB JSON. Sets and maps are sorted by the bytes of their
 * members' canonical text (and of attribute names), so the order a server or
 * a file happened to use never makes two equal values look different.
 */
#include "ddbpipe/canon.h"

#include <stdlib.h>
#include <string.h>

#include "ddbpipe/error.h"
#include "ddbpipe/json.h"
#include "ddbpipe/number.h"

typedef struct span {
    size_t off, len;
} span;

/* qsort has no context argument; the buffer the spans point into is passed
 * through this (single-threaded use per call chain, restored on return). */
static _Thread_local const char *sort_base;

static int cmp_span(const void *a, const void *b)
{
    const span *x = a, *y = b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(sort_base + x->off, sort_base + y->off, n);
    return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* Is the text already in canonical form (what ddb_number_format writes):
 * -?(0|[1-9][0-9]*)(.[0-9]*[1-9])?, not "-0", at most 38 digits? Most
 * numbers are, and need no parsing. */
static int is_canonical_number(const char *p, size_t n)
{
    size_t i = 0, digits = 0, lead = 0;
    if (n > 0 && p[0] == '-')
        i++;
    if (i >= n || p[i] < '0' || p[i] > '9' || (p[i] == '0' && i + 1 < n && p[i + 1] != '.'))
        return 0;
    if (p[i] == '0')
        lead = 1;
    for (; i < n && p[i] >= '0' && p[i] <= '9'; i++)
        digits++;
    if (i < n) {
        if (p[i] != '.' || i + 1 == n || p[n - 1] == '0')
            return 0;
        for (i++; i < n; i++, digits++)
            if (p[i] < '0' || p[i] > '9')
                return 0;
    }
    if (lead && p[0] == '-' && n == 2)
        return 0;
    /* "0.05" counts its leading zeros as digits: then the check is only
     * stricter than DynamoDB's, and such numbers take the slow path. */
    return digits <= DDB_NUMBER_MAX_DIGITS;
}

static int put_number(ddb_buf *b, const ddb_str *s)
{
    ddb_number n;
    ddb_buf_putc(b, '"');
    if (is_canonical_number(s->ptr, s->len))
        ddb_buf_append(b, s->ptr, s->len);
    else if (ddb_number_parse(&n, s->ptr, s->len, NULL) == 0)
        ddb_number_format(b, &n);
    else
        ddb_buf_append(b, s->ptr, s->len);
    return ddb_buf_putc(b, '"');
}

/* The scalar text of a set member: a JSON string (S: the string, N: the
 * canonical number, B: base64). */
static int put_member(ddb_buf *b, const ddb_value *m)
{
    if (m->type == DDB_TYPE_N)
        return put_number(b, &m->u.s);
    if (m->type == DDB_TYPE_B) {
        ddb_buf_putc(b, '"');
        ddb_buf_put_base64(b, (const unsigned char *)m->u.s.ptr, m->u.s.len);
        return ddb_buf_putc(b, '"');
    }
    return ddb_json_put_string(b, m->u.s.ptr, m->u.s.len);
}

/*
 * Writes n elements (each by put(i)) separated by commas, then reorders them
 * bytewise. Elements are written first and sorted as spans of the buffer, so
 * nested values are canonicalised once.
 */
static int put_sorted(ddb_buf *b, size_t n, int (*put)(ddb_buf *, const void *, size_t),
                      const void *ctx)
{
    span small[16], *sp = n <= 16 ? small : malloc(n * sizeof(span));
    size_t start = b->len;
    char *copy = NULL;
    const char *saved = sort_base;
    int rc = 0;

    if (sp == NULL) {
        b->oom = 1;
        return DDB_ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        sp[i].off = b->len;
        put(b, ctx, i);
        sp[i].len = b->len - sp[i].off;
    }
    if (b->oom) {
        rc = DDB_ENOMEM;
        goto done;
    }
    if ((copy = malloc(b->len - start + 1)) == NULL) {
        b->oom = 1;
        rc = DDB_ENOMEM;
        goto done;
    }
    memcpy(copy, b->ptr + start, b->len - start);
    for (size_t i = 0; i < n; i++)
        sp[i].off -= start;
    sort_base = copy;
    qsort(sp, n, sizeof(span), cmp_span);
    sort_base = saved;
    b->len = start;
    for (size_t i = 0; i < n; i++) {
        if (i)
            ddb_buf_putc(b, ',');
        ddb_buf_append(b, copy + sp[i].off, sp[i].len);
    }
done:
    free(copy);
    if (sp != small)
        free(sp);
    return rc ? rc : (b->oom ? DDB_ENOMEM : 0);
}

static int put_set_member(ddb_buf *b, const void *ctx, size_t i)
{
    return put_member(b, &((const ddb_value *)ctx)->u.l.items[i]);
}

static int put_attr(ddb_buf *b, const void *ctx, size_t i)
{
    const ddb_attr *at = &((const ddb_map *)ctx)->attrs[i];
    ddb_json_put_string(b, at->name.ptr, at->name.len);
    ddb_buf_putc(b, ':');
    return ddb_canon_value(b, &at->value);
}

int ddb_canon_map(ddb_buf *out, const ddb_map *m)
{
    ddb_buf_putc(out, '{');
    put_sorted(out, m->count, put_attr, m);
    ddb_buf_putc(out, '}');
    return out->oom ? DDB_ENOMEM : 0;
}

int ddb_canon_value(ddb_buf *out, const ddb_value *v)
{
    ddb_buf_puts(out, "{\"");
    ddb_buf_puts(out, ddb_type_name(v->type));
    ddb_buf_puts(out, "\":");
    switch (v->type) {
    case DDB_TYPE_N:
        put_number(out, &v->u.s);
        break;
    case DDB_TYPE_S:
    case DDB_TYPE_B:
        put_member(out, v);
        break;
    case DDB_TYPE_BOOL:
        ddb_buf_puts(out, v->u.boolean ? "true" : "false");
        break;
    case DDB_TYPE_NULL:
        ddb_buf_puts(out, "true");
        break;
    case DDB_TYPE_M:
        ddb_canon_map(out, &v->u.m);
        break;
    case DDB_TYPE_L:
        ddb_buf_putc(out, '[');
        for (size_t i = 0; i < v->u.l.count; i++) {
            if (i)
                ddb_buf_putc(out, ',');
            ddb_canon_value(out, &v->u.l.items[i]);
        }
        ddb_buf_putc(out, ']');
        break;
    case DDB_TYPE_SS:
    case DDB_TYPE_NS:
    case DDB_TYPE_BS:
        ddb_buf_putc(out, '[');
        put_sorted(out, v->u.l.count, put_set_member, v);
        ddb_buf_putc(out, ']');
        break;
    default:
        ddb_buf_puts(out, "null");
        break;
    }
    ddb_buf_putc(out, '}');
    return out->oom ? DDB_ENOMEM : 0;
}

int ddb_canon_equal(const ddb_value *a, const ddb_value *b)
{
    ddb_buf x = DDB_BUF_INIT, y = DDB_BUF_INIT;
    int eq;
    if (a->type != b->type)
        return 0;
    ddb_canon_value(&x, a);
    ddb_canon_value(&y, b);
    eq = x.oom || y.oom ? -1 : x.len == y.len && memcmp(x.ptr, y.ptr, x.len) == 0;
    ddb_buf_dispose(&x);
    ddb_buf_dispose(&y);
    return eq;
}
