/*
 * The Parquet writer's dictionary encoding (parquet-format Encodings.md,
 * "Dictionary Encoding"): a column chunk's distinct values once, PLAIN, in a
 * dictionary page, and its data page holding their indices, a bit width byte
 * then the RLE/bit-packed hybrid.
 */
#include "write/parquet_internal.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/array.h"
#include "write/parquet_thrift.h"

/* A value's hash: 8 bytes at a time, multiplied and folded (the values are
 * data, not an adversary's choice to collide; a collision costs a compare). */
static uint64_t hash_bytes(const unsigned char *p, size_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15u ^ n;
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdu;
        h ^= h >> 32;
        p += 8;
        n -= 8;
    }
    if (n > 0) {
        uint64_t w = 0;
        memcpy(&w, p, n);
        h = (h ^ w) * 0xc4ceb9fe1a85ec53u;
        h ^= h >> 29;
    }
    return h;
}

/* Doubles the slot table (it is kept under half full, so probes stay short). */
static int grow_slots(pq_dict *d)
{
    size_t n = d->n_slots ? d->n_slots * 2 : 1024;
    uint32_t *s = calloc(n, sizeof(*s));
    if (s == NULL)
        return -1;
    for (size_t e = 0; e < d->n; e++) {
        size_t i = (size_t)d->entries[e].hash & (n - 1);
        while (s[i] != 0)
            i = (i + 1) & (n - 1);
        s[i] = (uint32_t)e + 1;
    }
    free(d->slots);
    d->slots = s;
    d->n_slots = n;
    return 0;
}

/* The index of value p[0, n) in the dictionary, added when new; -1 when the
 * dictionary would pass its bound or memory runs out. */
static int64_t lookup(pq_dict *d, const unsigned char *p, size_t n, int width)
{
    uint64_t h = hash_bytes(p, n);
    size_t i;
    if ((d->n + 1) * 2 > d->n_slots && grow_slots(d) != 0)
        return -1;
    for (i = (size_t)h & (d->n_slots - 1); d->slots[i] != 0; i = (i + 1) & (d->n_slots - 1)) {
        const pq_dict_entry *e = &d->entries[d->slots[i] - 1];
        if (e->hash == h && e->len == n && memcmp(d->plain.ptr + e->at, p, n) == 0)
            return (int64_t)d->slots[i] - 1;
    }
    if (d->plain.len + n + 4 > PQ_DICT_BYTES)
        return -1;
    if (d->n == d->cap) {
        pq_dict_entry *ne = ddb_array_reserve(d->entries, d->n, &d->cap, sizeof(*ne), 256);
        if (ne == NULL)
            return -1;
        d->entries = ne;
    }
    if (width == 0) { /* a BYTE_ARRAY: PLAIN is its 4-byte length, then it */
        unsigned char len[4] = {(unsigned char)n, (unsigned char)(n >> 8), (unsigned char)(n >> 16),
                                (unsigned char)(n >> 24)};
        ddb_buf_append(&d->plain, len, 4);
    }
    d->entries[d->n] = (pq_dict_entry){h, d->plain.len, (uint32_t)n};
    ddb_buf_append(&d->plain, p, n);
    if (d->plain.oom)
        return -1;
    d->slots[i] = (uint32_t)++d->n;
    return (int64_t)d->n - 1;
}

static int bit_width(size_t n_entries)
{
    int bw = 0;
    while (n_entries > 1 && ((size_t)1 << bw) < n_entries)
        bw++;
    return bw;
}

int pq_dict_build(pq_dict *d, const unsigned char *vals, size_t len, int width, size_t count)
{
    size_t at = 0, k = 0, max_entries = count / 2;
    ddb_buf_clear(&d->plain);
    d->n = 0;
    if (d->n_slots)
        memset(d->slots, 0, d->n_slots * sizeof(*d->slots));
    if (count < 2)
        return 0;
    if (d->cap_idx < count) {
        uint32_t *ni = realloc(d->idx, count * sizeof(*ni));
        if (ni == NULL)
            return 0; /* PLAIN needs no more memory than it has */
        d->idx = ni;
        d->cap_idx = count;
    }
    for (; k < count; k++) {
        const unsigned char *p = vals + at;
        size_t n = (size_t)width;
        int64_t e;
        if (width == 0) {
            n = (size_t)p[0] | (size_t)p[1] << 8 | (size_t)p[2] << 16 | (size_t)p[3] << 24;
            p += 4;
            at += 4;
        }
        at += n;
        if ((e = lookup(d, p, n, width)) < 0 || d->n > max_entries)
            return 0;
        /* mostly new values after a first thousand: this column is not one for a dictionary */
        if (k == 1024 && d->n > 900)
            return 0;
        d->idx[k] = (uint32_t)e;
    }
    assert(at == len);
    d->bit_width = bit_width(d->n);
    /* it pays when the dictionary and the indices are smaller than the values */
    return d->plain.len + (count * (size_t)d->bit_width + 7) / 8 + 16 < len;
}

void pq_rle_encode_indices(ddb_buf *out, const uint32_t *v, size_t n, int bw)
{
    size_t i = 0, vbytes = (size_t)(bw + 7) / 8;
    assert(bw >= 0 && bw <= 32);
    if (bw == 0) { /* every index is 0: one run, its value in no bytes */
        pq_put_uvarint(out, (uint64_t)n << 1);
        return;
    }
    while (i < n) {
        size_t run = 1, start = i, groups = 0;
        while (i + run < n && v[i + run] == v[i])
            run++;
        if (run >= 8) {
            unsigned char le[4] = {(unsigned char)v[i], (unsigned char)(v[i] >> 8),
                                   (unsigned char)(v[i] >> 16), (unsigned char)(v[i] >> 24)};
            pq_put_uvarint(out, (uint64_t)run << 1);
            ddb_buf_append(out, le, vbytes);
            i += run;
            continue;
        }
        /* bit-packed groups of 8 until a run of 8 would begin a group */
        do {
            groups++;
            i += 8;
        } while (i + 8 <= n && !(v[i] == v[i + 7] && memcmp(v + i, v + i + 1, 7 * sizeof(*v)) == 0));
        i = i < n ? i : n;
        pq_put_uvarint(out, groups << 1 | 1);
        for (size_t g = 0; g < groups; g++) {
            /* LSB first: value k takes bits k*bw .. k*bw+bw-1 of the group's bw bytes */
            uint64_t acc = 0;
            int nbits = 0;
            for (size_t k = 0; k < 8; k++) {
                size_t at = start + g * 8 + k;
                acc |= (uint64_t)(at < n ? v[at] : 0) << nbits;
                for (nbits += bw; nbits >= 8; nbits -= 8, acc >>= 8)
                    ddb_buf_putc(out, (char)(acc & 0xff));
            }
        }
    }
}

void pq_dict_dispose(pq_dict *d)
{
    ddb_buf_dispose(&d->plain);
    free(d->slots);
    free(d->entries);
    free(d->idx);
    memset(d, 0, sizeof(*d));
}
