/*
 * parquet_chunk.c — a Parquet row group's column chunk, decoded for the reader
 * (reader_parquet.c): its pages (a dictionary page, then data pages v1) decompressed, their
 * RLE/bit-packed levels and PLAIN or dictionary-encoded values appended to the column.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <snappy-c.h>
#include <zstd.h>

#include "read/parquet_chunk.h"

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
    size_t c = *cap ? *cap : 256;
    void *np;
    if (need <= *cap)
        return 0;
    if (need > SIZE_MAX / 2 / size)
        return DDB_ENOMEM;
    while (c < need)
        c *= 2;
    if ((np = realloc(*p, c * size)) == NULL)
        return DDB_ENOMEM;
    *p = np;
    *cap = c;
    return 0;
}

static int decompress(pq_reader *r, int codec, const unsigned char *in, size_t n, size_t raw,
                      const unsigned char **out, ddb_error *err)
{
    unsigned char *buf;
    if (codec == 0) {
        *out = in;
        return n == raw ? 0 : pqr_refuse(r, err, "a page whose sizes disagree", NULL);
    }
    if (codec != 1 && codec != 2 && codec != 6)
        return pqr_refuse(r, err, "a codec other than ZSTD, SNAPPY, GZIP or none (LZ4, BROTLI)",
                          NULL);
    if ((buf = ddb_arena_alloc(r->pages, raw ? raw : 1)) == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    if (codec == 1) {
        size_t got = raw;
        if (snappy_uncompress((const char *)in, n, (char *)buf, &got) != SNAPPY_OK || got != raw)
            return ddb_error_set(err, DDB_EINVAL, "%s: a SNAPPY page does not inflate",
                                 r->base.name);
    } else if (codec == 6) {
        size_t got = ZSTD_decompress(buf, raw, in, n);
        if (ZSTD_isError(got) || got != raw)
            return ddb_error_set(err, DDB_EINVAL, "%s: a ZSTD page does not inflate", r->base.name);
    } else {
        uLongf got = (uLongf)raw;
        z_stream z;
        memset(&z, 0, sizeof(z));
        if (inflateInit2(&z, 15 + 32) != Z_OK)
            return ddb_error_set(err, DDB_ENOMEM, "out of memory");
        z.next_in = (Bytef *)in;
        z.avail_in = (uInt)n;
        z.next_out = buf;
        z.avail_out = (uInt)raw;
        got = inflate(&z, Z_FINISH) == Z_STREAM_END ? z.total_out : (uLongf)-1;
        inflateEnd(&z);
        if (got != raw)
            return ddb_error_set(err, DDB_EINVAL, "%s: a GZIP page does not inflate", r->base.name);
    }
    *out = buf;
    return 0;
}

/* One level block of a page v1: its 4-byte length, then the hybrid. */
static int levels(uint8_t *out, size_t count, const unsigned char **p, size_t *n, int max)
{
    uint32_t len;
    int width = 0;
    if (max == 0) {
        memset(out, 0, count);
        return 0;
    }
    while ((1 << width) <= max)
        width++;
    if (*n < 4)
        return DDB_EINVAL;
    len = (uint32_t)(*p)[0] | (uint32_t)(*p)[1] << 8 | (uint32_t)(*p)[2] << 16 |
          (uint32_t)(*p)[3] << 24;
    if (len > *n - 4 || pqr_rle_decode(out, count, *p + 4, len, width) != 0)
        return DDB_EINVAL;
    *p += 4 + len;
    *n -= 4 + len;
    return 0;
}

/* The PLAIN values of a page: count of them from p[0, n). */
static int plain_values(pqr_col *c, size_t count, const unsigned char *p, size_t n)
{
    int width = c->phys == PT_INT32 ? 4 : c->phys == PT_INT64 ? 8 : c->type_length;
    if (grow((void **)&c->vals, &c->cap_vals, c->n_vals + count, sizeof(pqr_val)) != 0)
        return DDB_ENOMEM;
    for (size_t i = 0; i < count; i++) {
        pqr_val *v = &c->vals[c->n_vals++];
        if (c->phys == PT_BOOLEAN) {
            if (i / 8 >= n)
                return DDB_EINVAL;
            v->p = NULL;
            v->n = (p[i / 8] >> (i % 8)) & 1;
        } else if (c->phys == PT_BYTES) {
            uint32_t len;
            if (n < 4)
                return DDB_EINVAL;
            len =
                (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
            if (len > n - 4)
                return DDB_EINVAL;
            v->p = p + 4;
            v->n = len;
            p += 4 + len;
            n -= 4 + len;
        } else {
            if ((size_t)width > n || width <= 0)
                return DDB_EINVAL;
            v->p = p;
            v->n = (size_t)width;
            p += width;
            n -= (size_t)width;
        }
    }
    return 0;
}

/* A dictionary-encoded page's values, count of them: a bit width byte, then
 * the indices in the RLE/bit-packed hybrid, each its dictionary's value. */
static int dict_values(pqr_col *c, size_t count, const unsigned char *p, size_t n)
{
    if (count == 0)
        return 0;
    if (n < 1 || grow((void **)&c->idx, &c->cap_idx, count, sizeof(uint32_t)) != 0 ||
        grow((void **)&c->vals, &c->cap_vals, c->n_vals + count, sizeof(pqr_val)) != 0 ||
        pqr_rle_decode_indices(c->idx, count, p + 1, n - 1, p[0]) != 0)
        return DDB_EINVAL;
    for (size_t i = 0; i < count; i++) {
        if (c->idx[i] >= c->n_dict)
            return DDB_EINVAL;
        c->vals[c->n_vals++] = c->dict[c->idx[i]];
    }
    return 0;
}

/* A data page v1 of column c: its levels and values appended. */
static int data_page(pq_reader *r, pqr_col *c, const pqr_node *dh, const unsigned char *p, size_t n,
                     ddb_error *err)
{
    int64_t declared = pqr_int(dh, 1, -1), encoding = pqr_int(dh, 2, 0);
    size_t count = (size_t)declared, present = 0;
    /* a level takes a row, or a value of at least a bit: more is a damaged header */
    if (declared < 0 || (uint64_t)declared > r->group_rows + 8 * (uint64_t)n ||
        (!c->list && c->n_levels + count > r->group_rows))
        return ddb_error_set(err, DDB_EINVAL,
                             "%s: column %s: a page of %lld values in a row "
                             "group of %llu rows",
                             r->base.name, c->name, (long long)declared,
                             (unsigned long long)r->group_rows);
    if (encoding != 0 && encoding != 2 && encoding != 8)
        return pqr_refuse(r, err,
                          "an encoding other than PLAIN or dictionary (delta, byte stream split)",
                          c->name);
    /* each its own capacity: a failure leaves both blocks owned and sized */
    if (grow((void **)&c->defs, &c->cap_levels, c->n_levels + count, 1) != 0 ||
        grow((void **)&c->reps, &c->cap_reps, c->n_levels + count, 1) != 0)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    if (levels(c->reps + c->n_levels, count, &p, &n, c->max_rep) != 0 ||
        levels(c->defs + c->n_levels, count, &p, &n, c->max_def) != 0)
        return ddb_error_set(err, DDB_EINVAL, "%s: column %s: levels cut short", r->base.name,
                             c->name);
    for (size_t i = 0; i < count; i++)
        present += c->defs[c->n_levels + i] == c->max_def;
    c->n_levels += count;
    if ((encoding == 0 ? plain_values(c, present, p, n) : dict_values(c, present, p, n)) != 0)
        return ddb_error_set(err, DDB_EINVAL, "%s: column %s: values cut short%s", r->base.name,
                             c->name, encoding == 0 ? "" : ", or an index past its dictionary");
    return 0;
}

/* A dictionary page: its PLAIN values are the chunk's dictionary. It comes
 * first in its chunk, so the values decode into c->vals, then change place. */
static int dict_page(pq_reader *r, pqr_col *c, const pqr_node *dh, const unsigned char *p, size_t n,
                     ddb_error *err)
{
    int64_t count = pqr_int(dh, 1, -1), encoding = pqr_int(dh, 2, 0);
    pqr_val *t;
    size_t cap;
    if (encoding != 0 && encoding != 2)
        return pqr_refuse(r, err, "a dictionary page not PLAIN", c->name);
    if (c->n_vals != 0 || c->n_levels != 0 || c->n_dict != 0)
        return pqr_refuse(r, err, "a dictionary page after the chunk's first page", c->name);
    /* a value takes at least a bit */
    if (count < 0 || (uint64_t)count > 8 * (uint64_t)n + 8 ||
        plain_values(c, (size_t)count, p, n) != 0)
        return ddb_error_set(err, DDB_EINVAL, "%s: column %s: a dictionary page cut short",
                             r->base.name, c->name);
    t = c->dict, c->dict = c->vals, c->vals = t;
    cap = c->cap_dict, c->cap_dict = c->cap_vals, c->cap_vals = cap;
    c->n_dict = c->n_vals;
    c->n_vals = 0;
    return 0;
}

/* Column c of row group chunk cc: every page of it. */
int pqr_read_chunk(pq_reader *r, pqr_col *c, const pqr_node *cc, ddb_error *err)
{
    const pqr_node *md = pqr_field(cc, 3);
    int64_t start = pqr_int(md, 9, -1), size = pqr_int(md, 7, -1), dict = pqr_int(md, 11, 0);
    int codec = (int)pqr_int(md, 4, 0), rc;
    unsigned char *bytes;
    size_t at = 0;
    c->n_levels = c->n_vals = c->lv = c->vi = c->n_dict = 0;
    if (dict > 0 && dict < start) /* the chunk begins with its dictionary page */
        start = dict;
    if (md == NULL || start < 4 || size < 0 || (uint64_t)(start + size) > r->size)
        return ddb_error_set(err, DDB_EINVAL, "%s: column %s: its chunk lies outside the file",
                             r->base.name, c->name);
    if ((bytes = ddb_arena_alloc(r->pages, (size_t)size + 1)) == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    if ((rc = pqr_read_at(r, bytes, (uint64_t)start, (size_t)size, err)) != 0)
        return rc;
    r->consumed += (uint64_t)size;
    while (at < (size_t)size) {
        pqr_node h;
        size_t used, clen, raw;
        const unsigned char *page = NULL;
        if ((rc = pqr_thrift_struct(&h, bytes + at, (size_t)size - at, &used, r->pages, err)) != 0)
            return rc;
        at += used;
        clen = (size_t)pqr_int(&h, 3, -1);
        raw = (size_t)pqr_int(&h, 2, -1);
        if (clen > (size_t)size - at)
            return ddb_error_set(err, DDB_EINVAL, "%s: column %s: a page runs past its chunk",
                                 r->base.name, c->name);
        if (pqr_int(&h, 1, -1) != 0 && pqr_int(&h, 1, -1) != 2)
            return pqr_refuse(
                r, err, "a page other than a data page v1 or a dictionary (v2, index)", c->name);
        if ((rc = decompress(r, codec, bytes + at, clen, raw, &page, err)) != 0)
            return rc;
        rc = pqr_int(&h, 1, -1) == 2 ? dict_page(r, c, pqr_field(&h, 7), page, raw, err)
                                     : data_page(r, c, pqr_field(&h, 5), page, raw, err);
        if (rc != 0)
            return rc;
        at += clen;
    }
    return 0;
}
