/*
 * The Parquet reader's decoding of the format's framing: the Thrift compact
 * protocol (thrift-compact-protocol.md) into a tree, and the RLE/bit-packed
 * hybrid of levels (parquet-format Encodings.md). Every length is checked
 * against the bytes there are: a damaged file is an error, never a read past
 * its end.
 */
#include "read/parquet_read.h"

#include <string.h>

#define PQR_DEPTH 16

typedef struct tin {
    const unsigned char *p;
    size_t n, at;
    ddb_arena *a;
    ddb_error *err;
} tin;

static int cut(tin *t)
{
    return ddb_error_set(t->err, DDB_EINVAL, "the Parquet footer or a page header is cut short "
                                             "or damaged (at byte %zu of %zu)",
                         t->at, t->n);
}

static int uvarint(tin *t, uint64_t *v)
{
    *v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        unsigned char b;
        if (t->at >= t->n)
            return cut(t);
        b = t->p[t->at++];
        *v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return 0;
    }
    return cut(t);
}

static int svarint(tin *t, int64_t *v)
{
    uint64_t u;
    int rc = uvarint(t, &u);
    *v = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
    return rc;
}

static int value(tin *t, pqr_node *out, int type, int depth);

/* A list's (or set's) elements. */
static int list(tin *t, pqr_node *out, int depth)
{
    uint64_t size;
    int elem, rc;
    if (t->at >= t->n)
        return cut(t);
    elem = t->p[t->at] & 0x0f;
    size = t->p[t->at++] >> 4;
    if (size == 15 && (rc = uvarint(t, &size)) != 0)
        return rc;
    if (size > t->n - t->at) /* every element takes a byte at least */
        return cut(t);
    out->n = (size_t)size;
    if (size && (out->kids = ddb_arena_alloc(t->a, size * sizeof(pqr_node))) == NULL)
        return ddb_error_set(t->err, DDB_ENOMEM, "out of memory");
    for (size_t i = 0; i < size; i++) {
        memset(&out->kids[i], 0, sizeof(pqr_node));
        /* a bool element is a byte of its own */
        if (elem == 1 || elem == 2) {
            if (t->at >= t->n)
                return cut(t);
            out->kids[i].type = elem;
            out->kids[i].i = t->p[t->at++] == 1;
        } else if ((rc = value(t, &out->kids[i], elem, depth + 1)) != 0) {
            return rc;
        }
    }
    return 0;
}

/* A map is only passed over: nothing Parquet's footer holds is one. */
static int skip_map(tin *t, int depth)
{
    uint64_t size;
    int rc, kt = 0, vt = 0;
    pqr_node scratch;
    if ((rc = uvarint(t, &size)) != 0)
        return rc;
    if (size == 0)
        return 0;
    if (t->at >= t->n || size > t->n - t->at)
        return cut(t);
    kt = t->p[t->at] >> 4;
    vt = t->p[t->at++] & 0x0f;
    for (uint64_t i = 0; i < size; i++) {
        memset(&scratch, 0, sizeof(scratch));
        if ((rc = value(t, &scratch, kt, depth + 1)) != 0 ||
            (rc = value(t, &scratch, vt, depth + 1)) != 0)
            return rc;
    }
    return 0;
}

static int fields(tin *t, pqr_node *out, int depth);

static int value(tin *t, pqr_node *out, int type, int depth)
{
    uint64_t len;
    int rc;
    if (depth > PQR_DEPTH)
        return ddb_error_set(t->err, DDB_EINVAL, "the Parquet footer nests deeper than %d",
                             PQR_DEPTH);
    out->type = type;
    switch (type) {
    case 1:
    case 2:
        out->i = type == 1;
        return 0;
    case 3:
        if (t->at >= t->n)
            return cut(t);
        out->i = (signed char)t->p[t->at++];
        return 0;
    case 4:
    case 5:
    case 6:
        return svarint(t, &out->i);
    case 7:
        if (t->n - t->at < 8)
            return cut(t);
        t->at += 8;
        return 0;
    case 8:
        if ((rc = uvarint(t, &len)) != 0)
            return rc;
        if (len > t->n - t->at)
            return cut(t);
        out->p = t->p + t->at;
        out->len = (size_t)len;
        t->at += (size_t)len;
        return 0;
    case 9:
    case 10:
        return list(t, out, depth);
    case 11:
        return skip_map(t, depth);
    case 12:
        return fields(t, out, depth);
    default:
        return ddb_error_set(t->err, DDB_EINVAL,
                             "the Parquet footer holds an unknown Thrift type %d", type);
    }
}

/* A struct's fields up to its stop byte, kept in a growing array. */
static int fields(tin *t, pqr_node *out, int depth)
{
    size_t cap = 0;
    int16_t last = 0;
    out->n = 0;
    out->kids = NULL;
    for (;;) {
        unsigned char b;
        int64_t id;
        int rc, type;
        if (t->at >= t->n)
            return cut(t);
        if ((b = t->p[t->at++]) == 0)
            return 0;
        type = b & 0x0f;
        if (b >> 4) {
            id = last + (b >> 4);
        } else if ((rc = svarint(t, &id)) != 0) {
            return rc;
        }
        if (out->n == cap) {
            pqr_node *k = ddb_arena_alloc(t->a, (cap ? cap * 2 : 8) * sizeof(pqr_node));
            if (k == NULL)
                return ddb_error_set(t->err, DDB_ENOMEM, "out of memory");
            if (out->n)
                memcpy(k, out->kids, out->n * sizeof(pqr_node));
            out->kids = k;
            cap = cap ? cap * 2 : 8;
        }
        memset(&out->kids[out->n], 0, sizeof(pqr_node));
        out->kids[out->n].id = (int16_t)id;
        if ((rc = value(t, &out->kids[out->n], type, depth + 1)) != 0)
            return rc;
        out->n++;
        last = (int16_t)id;
    }
}

int pqr_thrift_struct(pqr_node *out, const unsigned char *p, size_t n, size_t *used, ddb_arena *a,
                      ddb_error *err)
{
    tin t = {p, n, 0, a, err};
    int rc;
    memset(out, 0, sizeof(*out));
    out->type = 12;
    rc = fields(&t, out, 0);
    *used = t.at;
    return rc;
}

const pqr_node *pqr_field(const pqr_node *s, int16_t id)
{
    for (size_t i = 0; s != NULL && i < s->n; i++)
        if (s->kids[i].id == id)
            return &s->kids[i];
    return NULL;
}

int64_t pqr_int(const pqr_node *s, int16_t id, int64_t def)
{
    const pqr_node *f = pqr_field(s, id);
    return f != NULL ? f->i : def;
}

/* The hybrid's runs into out8 (levels) or out32 (dictionary indices). */
static int rle_decode(uint8_t *out8, uint32_t *out32, size_t count, const unsigned char *p,
                      size_t n, int width)
{
    size_t at = 0, got = 0, vbytes = (size_t)(width + 7) / 8;
    uint64_t mask = ((uint64_t)1 << width) - 1;
    while (got < count) {
        uint64_t h = 0;
        int shift = 0;
        do {
            if (at >= n || shift > 56)
                return DDB_EINVAL;
            h |= (uint64_t)(p[at] & 0x7f) << shift;
            shift += 7;
        } while (p[at++] & 0x80);
        if (h & 1) { /* bit-packed: groups of 8, width bytes each */
            uint64_t groups = h >> 1;
            if (groups > (n - at) / (width ? (size_t)width : 1))
                return DDB_EINVAL;
            for (uint64_t g = 0; g < groups; g++, at += (size_t)width) {
                uint64_t acc = 0;
                int bits = 0;
                size_t byte = at;
                for (int k = 0; k < 8 && got < count; k++, got++) {
                    while (bits < width) { /* up to 32 bits a value: 40 held at most */
                        acc |= (uint64_t)p[byte++] << bits;
                        bits += 8;
                    }
                    if (out8 != NULL)
                        out8[got] = (uint8_t)(acc & mask);
                    else
                        out32[got] = (uint32_t)(acc & mask);
                    acc >>= width;
                    bits -= width;
                }
            }
        } else { /* a run of one value */
            uint64_t run = h >> 1;
            uint32_t v = 0;
            if (n - at < vbytes)
                return DDB_EINVAL;
            for (size_t k = 0; k < vbytes; k++)
                v |= (uint32_t)p[at + k] << (8 * k);
            at += vbytes;
            for (uint64_t k = 0; k < run && got < count; k++, got++) {
                if (out8 != NULL)
                    out8[got] = (uint8_t)v;
                else
                    out32[got] = v;
            }
        }
    }
    return 0;
}

int pqr_rle_decode(uint8_t *out, size_t count, const unsigned char *p, size_t n, int width)
{
    return rle_decode(out, NULL, count, p, n, width);
}

int pqr_rle_decode_indices(uint32_t *out, size_t count, const unsigned char *p, size_t n, int width)
{
    return width < 0 || width > 32 ? DDB_EINVAL : rle_decode(NULL, out, count, p, n, width);
}
