/*
 * Records in a spill file as binary frames (see spill_codec.h). Packing
 * measures a record first and then writes it with no bounds checks; unpacking
 * trusts nothing in the frame, since a spill is a file on disk that a crash,
 * a full disk or a hand may have cut.
 */
#include <stdlib.h>
#include <string.h>

#include "write/spill_codec.h"
#include "ddbpipe/source.h"

#define SPILL_MAX_DEPTH 64 /* DynamoDB nests at most 32 levels */
#define SPILL_CHUNK (1u << 20)

static size_t varint_size(size_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

static char *put_varint(char *o, size_t v)
{
    while (v >= 0x80) {
        *o++ = (char)(unsigned char)(v | 0x80);
        v >>= 7;
    }
    *o++ = (char)(unsigned char)v;
    return o;
}

static size_t map_size(const ddb_map *m);

static size_t value_size(const ddb_value *v)
{
    size_t n = 1;
    switch (v->type) {
    case DDB_TYPE_S:
    case DDB_TYPE_N:
    case DDB_TYPE_B:
        return n + varint_size(v->u.s.len) + v->u.s.len;
    case DDB_TYPE_BOOL:
        return n + 1;
    case DDB_TYPE_M:
        return n + map_size(&v->u.m);
    case DDB_TYPE_L:
    case DDB_TYPE_SS:
    case DDB_TYPE_NS:
    case DDB_TYPE_BS:
        n += varint_size(v->u.l.count);
        for (size_t i = 0; i < v->u.l.count; i++)
            n += value_size(&v->u.l.items[i]);
        return n;
    default: /* NULL, and NONE never reaches a writer */
        return n;
    }
}

static size_t map_size(const ddb_map *m)
{
    size_t n = varint_size(m->count);
    for (size_t i = 0; i < m->count; i++)
        n += varint_size(m->attrs[i].name.len) + m->attrs[i].name.len +
             value_size(&m->attrs[i].value);
    return n;
}

static char *put_bytes(char *o, const ddb_str *s)
{
    o = put_varint(o, s->len);
    if (s->len)
        memcpy(o, s->ptr, s->len);
    return o + s->len;
}

static char *put_map(char *o, const ddb_map *m);

static char *put_value(char *o, const ddb_value *v)
{
    *o++ = (char)v->type;
    switch (v->type) {
    case DDB_TYPE_S:
    case DDB_TYPE_N:
    case DDB_TYPE_B:
        return put_bytes(o, &v->u.s);
    case DDB_TYPE_BOOL:
        *o++ = (char)(v->u.boolean != 0);
        return o;
    case DDB_TYPE_M:
        return put_map(o, &v->u.m);
    case DDB_TYPE_L:
    case DDB_TYPE_SS:
    case DDB_TYPE_NS:
    case DDB_TYPE_BS:
        o = put_varint(o, v->u.l.count);
        for (size_t i = 0; i < v->u.l.count; i++)
            o = put_value(o, &v->u.l.items[i]);
        return o;
    default:
        return o;
    }
}

static char *put_map(char *o, const ddb_map *m)
{
    o = put_varint(o, m->count);
    for (size_t i = 0; i < m->count; i++) {
        o = put_bytes(o, &m->attrs[i].name);
        o = put_value(o, &m->attrs[i].value);
    }
    return o;
}

int ddb_spill_pack(ddb_buf *b, const ddb_map *rec)
{
    size_t body = map_size(rec);
    char *o;
    if (body > UINT32_MAX) {
        b->oom = 1; /* no item comes near 4 GiB; refuse rather than wrap */
        return DDB_ENOMEM;
    }
    if (ddb_buf_reserve(b, DDB_SPILL_FRAME_HEAD + body) != 0)
        return DDB_ENOMEM;
    o = b->ptr + b->len;
    for (int i = 0; i < DDB_SPILL_FRAME_HEAD; i++)
        o[i] = (char)(unsigned char)(body >> (8 * i));
    o = put_map(o + DDB_SPILL_FRAME_HEAD, rec);
    b->len = (size_t)(o - b->ptr);
    b->ptr[b->len] = '\0';
    return 0;
}

/* ------------------------------------------------------------- unpacking */

typedef struct cursor {
    const unsigned char *p, *end;
    ddb_arena *a;
    const char *why; /* the first thing found wrong */
    int oom;
} cursor;

static int get_varint(cursor *c, size_t *out)
{
    size_t v = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (c->p == c->end) {
            c->why = "a length runs past the end of the record";
            return -1;
        }
        unsigned char byte = *c->p++;
        v |= (size_t)(byte & 0x7f) << shift;
        if (!(byte & 0x80)) {
            *out = v;
            return 0;
        }
    }
    c->why = "a length is longer than 64 bits";
    return -1;
}

static int get_bytes(cursor *c, ddb_str *s)
{
    size_t n;
    if (get_varint(c, &n) != 0)
        return -1;
    if (n > (size_t)(c->end - c->p)) {
        c->why = "a string runs past the end of the record";
        return -1;
    }
    s->ptr = (const char *)c->p;
    s->len = n;
    c->p += n;
    return 0;
}

/* A count of things that each take at least one byte cannot exceed the bytes left. */
static int get_count(cursor *c, size_t *n)
{
    if (get_varint(c, n) != 0)
        return -1;
    if (*n > (size_t)(c->end - c->p)) {
        c->why = "a count is larger than the record";
        return -1;
    }
    return 0;
}

static int get_map(cursor *c, ddb_map *m, int depth);

static int get_value(cursor *c, ddb_value *v, int depth)
{
    unsigned char t;
    memset(v, 0, sizeof(*v));
    if (c->p == c->end) {
        c->why = "a value runs past the end of the record";
        return -1;
    }
    t = *c->p++;
    v->type = (ddb_type)t;
    switch (t) {
    case DDB_TYPE_S:
    case DDB_TYPE_N:
    case DDB_TYPE_B:
        return get_bytes(c, &v->u.s);
    case DDB_TYPE_BOOL:
        if (c->p == c->end || *c->p > 1) {
            c->why = "a BOOL is neither 0 nor 1";
            return -1;
        }
        v->u.boolean = *c->p++;
        return 0;
    case DDB_TYPE_NULL:
        return 0;
    case DDB_TYPE_M:
        if (depth >= SPILL_MAX_DEPTH)
            break;
        return get_map(c, &v->u.m, depth + 1);
    case DDB_TYPE_L:
    case DDB_TYPE_SS:
    case DDB_TYPE_NS:
    case DDB_TYPE_BS: {
        size_t n;
        if (depth >= SPILL_MAX_DEPTH)
            break;
        if (get_count(c, &n) != 0)
            return -1;
        v->u.l.count = n;
        if (n == 0)
            return 0;
        if ((v->u.l.items = ddb_arena_alloc(c->a, n * sizeof(ddb_value))) == NULL) {
            c->oom = 1;
            return -1;
        }
        for (size_t i = 0; i < n; i++) {
            if (get_value(c, &v->u.l.items[i], depth + 1) != 0)
                return -1;
            if (t != DDB_TYPE_L && v->u.l.items[i].type != ddb_type_set_member(v->type)) {
                c->why = "a set has a member of another type";
                return -1;
            }
        }
        return 0;
    }
    default:
        c->why = "a value has an unknown type";
        return -1;
    }
    c->why = "values nest too deep";
    return -1;
}

static int get_map(cursor *c, ddb_map *m, int depth)
{
    size_t n;
    m->attrs = NULL;
    m->count = 0;
    if (get_count(c, &n) != 0)
        return -1;
    if (n == 0)
        return 0;
    if ((m->attrs = ddb_arena_alloc(c->a, n * sizeof(ddb_attr))) == NULL) {
        c->oom = 1;
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        if (get_bytes(c, &m->attrs[i].name) != 0 || get_value(c, &m->attrs[i].value, depth) != 0)
            return -1;
        m->count = i + 1;
    }
    return 0;
}

int ddb_spill_unpack(ddb_map *out, const char *body, size_t len, ddb_arena *a, ddb_error *err)
{
    cursor c = {(const unsigned char *)body, (const unsigned char *)body + len, a, NULL, 0};
    if (get_map(&c, out, 0) != 0) {
        if (c.oom)
            return ddb_error_set(err, DDB_ENOMEM, "out of memory");
        return ddb_error_set(err, DDB_EIO, "%s", c.why);
    }
    if (c.p != c.end)
        return ddb_error_set(err, DDB_EIO, "%zu bytes follow the record in its frame",
                             (size_t)(c.end - c.p));
    return 0;
}

/* ---------------------------------------------------------------- reader */

struct ddb_spill_reader {
    ddb_source *src;
    char *buf;
    size_t cap, start, end; /* unread bytes: buf[start..end) */
    uint64_t offset;        /* file offset of buf[start] */
    uint64_t frames;
    int eof, magic_seen;
};

int ddb_spill_reader_new(ddb_spill_reader **out, ddb_source *src, ddb_error *err)
{
    ddb_spill_reader *r = calloc(1, sizeof(*r));
    *out = NULL;
    if (r == NULL || (r->buf = malloc(SPILL_CHUNK)) == NULL) {
        free(r);
        ddb_source_free(src);
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    }
    r->src = src;
    r->cap = SPILL_CHUNK;
    *out = r;
    return 0;
}

/* Has at least want unread bytes buffered, unless the file ends first.
 * Returns 0 (check end - start), or a reading error. */
static int fill(ddb_spill_reader *r, size_t want, ddb_error *err)
{
    while (!r->eof && r->end - r->start < want) {
        ssize_t got;
        if (r->start > 0) {
            memmove(r->buf, r->buf + r->start, r->end - r->start);
            r->end -= r->start;
            r->start = 0;
        }
        if (r->end == r->cap) {
            /* grown as bytes arrive, not to what a frame head claims: a
             * damaged head is "cut short" with memory bounded by the file */
            char *nb = r->cap <= SIZE_MAX / 2 ? realloc(r->buf, r->cap * 2) : NULL;
            if (nb == NULL)
                return ddb_error_set(err, DDB_ENOMEM, "out of memory");
            r->buf = nb;
            r->cap *= 2;
        }
        if ((got = r->src->vt->read(r->src, r->buf + r->end, r->cap - r->end, err)) < 0)
            return (int)got;
        if (got == 0)
            r->eof = 1;
        r->end += (size_t)got;
    }
    return 0;
}

int ddb_spill_reader_next(ddb_spill_reader *r, const char **body, size_t *len, ddb_error *err)
{
    const unsigned char *h;
    size_t n = 0;
    int rc;

    if (!r->magic_seen) {
        if ((rc = fill(r, DDB_SPILL_MAGIC_LEN, err)) != 0)
            return rc;
        if (r->end - r->start < DDB_SPILL_MAGIC_LEN ||
            memcmp(r->buf + r->start, DDB_SPILL_MAGIC, DDB_SPILL_MAGIC_LEN) != 0)
            return ddb_error_set(err, DDB_EIO,
                                 "%s is not a spill file of this ddbpipe (a run started by an "
                                 "older version cannot be resumed by this one: start it again "
                                 "without --resume)",
                                 r->src->name);
        r->start += DDB_SPILL_MAGIC_LEN;
        r->offset += DDB_SPILL_MAGIC_LEN;
        r->magic_seen = 1;
    }
    if ((rc = fill(r, DDB_SPILL_FRAME_HEAD, err)) != 0)
        return rc;
    if (r->end == r->start)
        return DDB_ITEROVER;
    if (r->end - r->start < DDB_SPILL_FRAME_HEAD)
        goto cut;
    h = (const unsigned char *)r->buf + r->start;
    for (int i = 0; i < DDB_SPILL_FRAME_HEAD; i++)
        n |= (size_t)h[i] << (8 * i);
    if ((rc = fill(r, DDB_SPILL_FRAME_HEAD + n, err)) != 0)
        return rc;
    if (r->end - r->start < DDB_SPILL_FRAME_HEAD + n)
        goto cut;
    *body = r->buf + r->start + DDB_SPILL_FRAME_HEAD;
    *len = n;
    r->start += DDB_SPILL_FRAME_HEAD + n;
    r->offset += DDB_SPILL_FRAME_HEAD + n;
    r->frames++;
    return 0;
cut:
    return ddb_error_set(err, DDB_EIO, "%s: record %llu (byte %llu) is cut short", r->src->name,
                         (unsigned long long)r->frames + 1, (unsigned long long)r->offset);
}

uint64_t ddb_spill_reader_count(const ddb_spill_reader *r)
{
    return r->frames;
}

void ddb_spill_reader_free(ddb_spill_reader *r)
{
    if (r == NULL)
        return;
    ddb_source_free(r->src);
    free(r->buf);
    free(r);
}
