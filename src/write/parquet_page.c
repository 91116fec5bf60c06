/*
 * The Parquet writer's pages: a row group's column, its levels and values
 * encoded, compressed and written with its header, and the statistics the
 * footer keeps of it.
 */
#include "write/parquet_internal.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <snappy-c.h>
#include <zstd.h>

#include "write/parquet_thrift.h"

/* A [4-byte length][RLE hybrid] level block. */
static void put_levels(ddb_buf *page, const char *levels, size_t n_levels, int max_level)
{
    size_t at = page->len;
    int bw = 0;
    while ((1 << bw) <= max_level)
        bw++;
    ddb_buf_append(page, "\0\0\0\0", 4);
    pq_rle_encode(page, (const uint8_t *)levels, n_levels, bw);
    if (!page->oom) {
        size_t n = page->len - at - 4;
        unsigned char *p = (unsigned char *)page->ptr + at;
        p[0] = (unsigned char)n;
        p[1] = (unsigned char)(n >> 8);
        p[2] = (unsigned char)(n >> 16);
        p[3] = (unsigned char)(n >> 24);
    }
}

/* Keeps v as the chunk's min or max when it is. Texts and bytes compare
 * bytewise, unsigned, as Parquet orders BYTE_ARRAY; decimals as numbers. */
static int bytes_cmp(const unsigned char *a, size_t alen, const unsigned char *b, size_t blen)
{
    int d = memcmp(a, b, alen < blen ? alen : blen);
    return d != 0 ? d : (alen > blen) - (alen < blen);
}

/* Two decimals in a column's physical form, as numbers: the sign bit
 * flipped, then the bytes from the most significant (INT32 and INT64 are
 * little-endian, a FIXED_LEN_BYTE_ARRAY big-endian). */
static int decimal_cmp(const unsigned char *a, const unsigned char *b, pq_decimal_form form)
{
    int n = form.bytes, top = form.type == 7 ? 0 : n - 1, step = form.type == 7 ? 1 : -1;
    int d = (a[top] ^ 0x80) - (b[top] ^ 0x80);
    for (int i = 1, at = top + step; d == 0 && i < n; i++, at += step)
        d = a[at] - b[at];
    return d;
}

typedef struct pq_span {
    const unsigned char *p;
    size_t n;
} pq_span;

/* A column chunk's values in their physical form, PLAIN: count of them in
 * p[0, len), each of width bytes, or BYTE_ARRAYs (width 0) with their
 * 4-byte lengths. */
typedef struct pq_values {
    const unsigned char *p;
    size_t len, count;
    int width;
} pq_values;

static const unsigned char *next_value(const pq_values *v, size_t *at, size_t *n)
{
    const unsigned char *p = v->p + *at;
    if (v->width > 0) {
        *n = (size_t)v->width;
        *at += *n;
        return p;
    }
    *n = (size_t)p[0] | (size_t)p[1] << 8 | (size_t)p[2] << 16 | (size_t)p[3] << 24;
    *at += 4 + *n;
    return p + 4;
}

/* The chunk's min and max of values v (every value, or a dictionary's). */
static void set_minmax(pq_chunk *ch, const pq_col *c, pq_values v)
{
    pq_decimal_form form = {0, 0};
    pq_span lo = {NULL, 0}, hi = {NULL, 0};
    size_t at = 0;
    if (pq_is_decimal(c))
        form = pq_decimal_form_of(c);
    while (at < v.len) {
        size_t n;
        const unsigned char *p = next_value(&v, &at, &n);
        if (lo.p == NULL) {
            lo = hi = (pq_span){p, n};
        } else if (form.bytes > 0) {
            if (decimal_cmp(p, lo.p, form) < 0)
                lo = (pq_span){p, n};
            if (decimal_cmp(p, hi.p, form) > 0)
                hi = (pq_span){p, n};
        } else {
            if (bytes_cmp(p, n, lo.p, lo.n) < 0)
                lo = (pq_span){p, n};
            if (bytes_cmp(p, n, hi.p, hi.n) > 0)
                hi = (pq_span){p, n};
        }
    }
    if (lo.p == NULL || lo.n > PQ_STATS_MAX || hi.n > PQ_STATS_MAX)
        return;
    memcpy(ch->min, lo.p, lo.n);
    memcpy(ch->max, hi.p, hi.n);
    ch->min_len = (uint8_t)lo.n;
    ch->max_len = (uint8_t)hi.n;
    ch->has_minmax = 1;
}

/* The 16-byte big-endian two's complement be in a column's physical form:
 * INT32 and INT64 little-endian, a FIXED_LEN_BYTE_ARRAY its low bytes
 * big-endian (the value fits, so the bytes left out are its sign). */
static void decimal_physical(unsigned char *out, const unsigned char be[16], pq_decimal_form form)
{
    if (form.type == 7) {
        memcpy(out, be + 16 - form.bytes, (size_t)form.bytes);
        return;
    }
    for (int i = 0; i < form.bytes; i++)
        out[i] = be[15 - i];
}

/* The column chunk's values as they are written: decimals converted into
 * f->fixed, the rest as gathered. */
static pq_values chunk_values(pq_file *f, const pq_col *c)
{
    pq_decimal_form form;
    size_t at = 0;
    if (!pq_is_decimal(c))
        return (pq_values){(const unsigned char *)c->values.ptr, c->values.len, c->n_present,
                           c->kind == PQ_BOOL};
    form = pq_decimal_form_of(c);
    ddb_buf_clear(&f->fixed);
    while (at < c->values.len) {
        uint32_t len;
        const char *p = pq_next_bytes(&c->values, &at, &len);
        unsigned char d[16], phys[16];
        pq_decimal_bytes(d, p, len, c->scale);
        decimal_physical(phys, d, form);
        ddb_buf_append(&f->fixed, phys, (size_t)form.bytes);
    }
    return (pq_values){(const unsigned char *)f->fixed.ptr, f->fixed.len, c->n_present, form.bytes};
}

static void put_bools(ddb_buf *page, pq_values v)
{
    for (size_t i = 0; i < v.len; i += 8) {
        unsigned char byte = 0;
        for (size_t k = 0; k < 8 && i + k < v.len; k++)
            byte |= (unsigned char)((v.p[i + k] & 1) << k);
        ddb_buf_putc(page, (char)byte);
    }
}

/* A place in a column chunk: a level slot, the values before it, and
 * their bytes. */
typedef struct pq_cut {
    size_t level, value, at;
} pq_cut;

/* The end of the data page that begins at from: PQ_PAGE_BYTES of values
 * past it, at a row's start (a list stays in one page, as readers expect),
 * or the chunk's end. */
static pq_cut next_cut(const pq_col *c, const pq_values *v, pq_cut from)
{
    pq_cut to = from;
    while (to.level < c->defs.len) {
        if (to.at - from.at >= PQ_PAGE_BYTES && (!c->max_rep || c->reps.ptr[to.level] == 0))
            break;
        if ((unsigned char)c->defs.ptr[to.level] == c->max_def) {
            size_t n;
            next_value(v, &to.at, &n);
            to.value++;
        }
        to.level++;
    }
    return to;
}

/* The uncompressed data page of the chunk from from to to: levels, then the
 * values, PLAIN or (dict not NULL) their indices in the dictionary, after
 * the indices' bit width. */
static void build_page(ddb_buf *page, const pq_col *c, pq_values v, const pq_dict *dict,
                       pq_cut from, pq_cut to)
{
    size_t n = to.level - from.level;
    ddb_buf_clear(page);
    if (c->max_rep)
        put_levels(page, c->reps.ptr + from.level, n, c->max_rep);
    put_levels(page, c->defs.ptr + from.level, n, c->max_def);
    if (dict != NULL) {
        ddb_buf_putc(page, (char)dict->bit_width);
        pq_rle_encode_indices(page, dict->idx + from.value, to.value - from.value,
                              dict->bit_width);
    } else if (to.value == from.value) {
        /* nulls alone: no values (and v.p may be NULL, which takes no offset) */
    } else if (c->kind == PQ_BOOL) {
        put_bools(page, (pq_values){v.p + from.at, to.at - from.at, to.value - from.value, 1});
    } else {
        ddb_buf_append(page, v.p + from.at, to.at - from.at);
    }
}

/* Level 1, as Arrow's Parquet writer: on the favorites bench input it is
 * both faster than zstd's default 3 (0.85x the export's CPU time) and
 * smaller (4.46 MB against 4.69 MB): dictionary indices and PLAIN columns
 * gain little from level 3's longer search. */
#define PQ_ZSTD_LEVEL 1

/* Compresses with the file's context, made on first use and kept for every
 * page (a context per page would allocate its tables each time). */
static int compress_zstd(pq_file *f, ddb_buf *out, const ddb_buf *in, ddb_error *err)
{
    size_t bound = ZSTD_compressBound(in->len), n;
    ddb_buf_clear(out);
    if (ddb_buf_reserve(out, bound) != 0 ||
        (f->zstd == NULL && (f->zstd = ZSTD_createCCtx()) == NULL))
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    n = ZSTD_compressCCtx(f->zstd, out->ptr, bound, in->ptr ? in->ptr : "", in->len, PQ_ZSTD_LEVEL);
    if (ZSTD_isError(n))
        return ddb_error_set(err, DDB_EIO, "zstd: %s", ZSTD_getErrorName(n));
    out->len = n;
    return 0;
}

static int compress_snappy(ddb_buf *out, const ddb_buf *in, ddb_error *err)
{
    size_t n = snappy_max_compressed_length(in->len);
    ddb_buf_clear(out);
    if (ddb_buf_reserve(out, n) != 0)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    if (snappy_compress(in->ptr ? in->ptr : "", in->len, out->ptr, &n) != SNAPPY_OK)
        return ddb_error_set(err, DDB_EIO, "snappy: cannot compress a page");
    out->len = n;
    return 0;
}

static int compress_gzip(ddb_buf *out, const ddb_buf *in, ddb_error *err)
{
    z_stream z;
    int zrc;
    memset(&z, 0, sizeof(z));
    /* windowBits 15 + 16: the gzip wrapper (RFC 1952), as Parquet's GZIP is */
    if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    ddb_buf_clear(out);
    if (ddb_buf_reserve(out, deflateBound(&z, in->len)) != 0) {
        deflateEnd(&z);
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    }
    z.next_in = (Bytef *)(in->ptr ? in->ptr : "");
    z.avail_in = (uInt)in->len;
    z.next_out = (Bytef *)out->ptr;
    z.avail_out = (uInt)deflateBound(&z, in->len);
    zrc = deflate(&z, Z_FINISH);
    out->len = z.total_out;
    deflateEnd(&z);
    return zrc == Z_STREAM_END ? 0 : ddb_error_set(err, DDB_EIO, "gzip: deflate failed (%d)", zrc);
}

enum { PQ_PAGE_DATA = 0, PQ_PAGE_DICT = 2 };           /* PageType */
enum { PQ_ENC_PLAIN = 0, PQ_ENC_RLE = 3, PQ_ENC_DICT = 8 }; /* Encoding (RLE_DICTIONARY) */

static void page_header(ddb_buf *b, int type, size_t raw, size_t packed, size_t n_values,
                        int encoding)
{
    pq_thrift t;
    ddb_buf_clear(b);
    pq_thrift_init(&t, b);
    pq_thrift_i32(&t, 1, type);
    pq_thrift_i32(&t, 2, (int32_t)raw);
    pq_thrift_i32(&t, 3, (int32_t)packed);
    if (type == PQ_PAGE_DATA) {
        pq_thrift_struct(&t, 5); /* DataPageHeader */
        pq_thrift_i32(&t, 1, (int32_t)n_values);
        pq_thrift_i32(&t, 2, encoding);
        pq_thrift_i32(&t, 3, PQ_ENC_RLE);
        pq_thrift_i32(&t, 4, PQ_ENC_RLE);
    } else {
        pq_thrift_struct(&t, 7); /* DictionaryPageHeader */
        pq_thrift_i32(&t, 1, (int32_t)n_values);
        pq_thrift_i32(&t, 2, PQ_ENC_PLAIN);
    }
    pq_thrift_end(&t);
    pq_thrift_end(&t);
}

/* One page of column c, raw compressed with the file's codec, written with
 * its header and counted into ch's sizes. */
static int write_page(pq_file *f, const pq_col *c, pq_chunk *ch, const ddb_buf *raw, int type,
                      size_t n_values, int encoding, ddb_error *err)
{
    const ddb_buf *body = raw;
    int rc;
    if (raw->oom || raw->len > INT32_MAX)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory (a Parquet page of %s)", c->name);
    if (f->opts.codec != PQ_CODEC_NONE) {
        rc = f->opts.codec == PQ_CODEC_ZSTD     ? compress_zstd(f, &f->packed, raw, err)
             : f->opts.codec == PQ_CODEC_SNAPPY ? compress_snappy(&f->packed, raw, err)
                                                : compress_gzip(&f->packed, raw, err);
        if (rc != 0)
            return rc;
        body = &f->packed;
    }
    page_header(&f->header, type, raw->len, body->len, n_values, encoding);
    if (f->header.oom)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    ch->uncompressed += (int64_t)(f->header.len + raw->len);
    ch->compressed += (int64_t)(f->header.len + body->len);
    if ((rc = pq_write(f, f->header.ptr, f->header.len, err)) != 0)
        return rc;
    return pq_write(f, body->ptr, body->len, err);
}

/* Column c's data pages: the dictionary's indices in one, PLAIN values in
 * pages of PQ_PAGE_BYTES, so that the page and its compression stay small
 * however large the row group. */
static int write_data_pages(pq_file *f, const pq_col *c, pq_chunk *ch, pq_values v, int dict,
                            ddb_error *err)
{
    pq_cut from = {0, 0, 0}, to;
    int rc;
    do {
        to = dict ? (pq_cut){c->defs.len, v.count, v.len} : next_cut(c, &v, from);
        build_page(&f->page, c, v, dict ? &f->dict : NULL, from, to);
        if ((rc = write_page(f, c, ch, &f->page, PQ_PAGE_DATA, to.level - from.level,
                             dict ? PQ_ENC_DICT : PQ_ENC_PLAIN, err)) != 0)
            return rc;
        from = to;
    } while (from.level < c->defs.len);
    return 0;
}

/* Column c of the row group: a dictionary page when one pays, then its data
 * pages; the chunk described in ch. */
static int write_chunk(pq_file *f, pq_col *c, pq_chunk *ch, ddb_error *err)
{
    pq_values v;
    int dict = 0, rc;
    memset(ch, 0, sizeof(*ch));
    if (c->kind == PQ_NUMBER && !c->decided && c->n_present > 0)
        pq_decide_number(c);
    v = chunk_values(f, c);
    if (f->fixed.oom)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory (a Parquet page of %s)", c->name);
    if (c->kind != PQ_BOOL)
        dict = pq_dict_build(&f->dict, v.p, v.len, v.width, v.count);
    if (dict) {
        /* the distinct values hold the chunk's min and max: fewer to compare */
        set_minmax(ch, c, (pq_values){(const unsigned char *)f->dict.plain.ptr, f->dict.plain.len,
                                      f->dict.n, v.width});
        ch->dict_offset = f->offset;
        if ((rc = write_page(f, c, ch, &f->dict.plain, PQ_PAGE_DICT, f->dict.n, PQ_ENC_PLAIN,
                             err)) != 0)
            return rc;
    } else if (c->kind != PQ_BOOL) {
        set_minmax(ch, c, v);
    }
    ch->offset = f->offset;
    ch->n_values = (int64_t)c->defs.len;
    ch->n_nulls = (int64_t)(c->defs.len - c->n_present);
    if ((rc = write_data_pages(f, c, ch, v, dict, err)) != 0)
        return rc;
    c->n_present = 0;
    return 0;
}

/* The buffers of a row group given back once it is written: a file keeps
 * none at its high-water mark while others gather (each file's page,
 * compression and column buffers made rich's export hold 221 MB). Making
 * them anew costs little beside encoding a row group. */
static void release_group(pq_file *f)
{
    for (size_t i = 0; i < f->n_cols; i++) {
        ddb_buf_dispose(&f->cols[i].defs);
        ddb_buf_dispose(&f->cols[i].reps);
        ddb_buf_dispose(&f->cols[i].values);
    }
    ddb_buf_dispose(&f->page);
    ddb_buf_dispose(&f->packed);
    ddb_buf_dispose(&f->fixed);
    pq_dict_dispose(&f->dict);
    ZSTD_freeCCtx(f->zstd);
    f->zstd = NULL;
    if (f->budget != NULL)
        f->budget->used -= f->gathered;
    f->gathered = 0;
}

int pq_write_group(pq_file *f, ddb_error *err)
{
    pq_group *g;
    int rc;
    if (f->n_groups == f->cap_groups) {
        size_t cap = f->cap_groups ? f->cap_groups * 2 : 4;
        pq_group *ng = realloc(f->groups, cap * sizeof(*ng));
        if (ng == NULL)
            return ddb_error_set(err, DDB_ENOMEM, "out of memory");
        f->groups = ng;
        for (size_t i = 0; i < f->n_cols; i++) {
            pq_chunk *nc = realloc(f->cols[i].chunks, cap * sizeof(*nc));
            if (nc == NULL)
                return ddb_error_set(err, DDB_ENOMEM, "out of memory");
            f->cols[i].chunks = nc;
        }
        f->cap_groups = cap;
    }
    g = &f->groups[f->n_groups];
    memset(g, 0, sizeof(*g));
    g->rows = (int64_t)f->group_rows;
    g->offset = f->offset;
    for (size_t i = 0; i < f->n_cols; i++) {
        pq_chunk *ch = &f->cols[i].chunks[f->n_groups];
        if ((rc = write_chunk(f, &f->cols[i], ch, err)) != 0)
            return rc;
        g->compressed += ch->compressed;
        g->uncompressed += ch->uncompressed;
    }
    f->n_groups++;
    f->raw_bytes += (int64_t)f->gathered;
    f->packed_bytes += g->compressed;
    f->rows += f->group_rows;
    f->group_rows = 0;
    release_group(f);
    return 0;
}

/* Would the row group gathered (bytes of values and levels) take the file
 * past opts.max_file_bytes? Its size is guessed at the ratio of the file's
 * row groups so far (1 before the first), 15% more to spare, and the footer
 * at most a few hundred bytes per column chunk. */
static int past_size(const pq_file *f, size_t bytes)
{
    double ratio = f->raw_bytes > 0 ? (double)f->packed_bytes / (double)f->raw_bytes : 1.0;
    double footer = 1024.0 + (double)(f->n_groups + 1) * (double)f->n_cols * (2 * PQ_STATS_MAX + 96);
    return (double)f->offset + 1.15 * ratio * (double)bytes + footer >= (double)f->opts.max_file_bytes;
}

int pq_full(const pq_file *f)
{
    return f->full;
}

int pq_end_row(pq_file *f, ddb_error *err)
{
    size_t bytes = 0;
    f->group_rows++;
    for (size_t i = 0; i < f->n_cols; i++) {
        const pq_col *c = &f->cols[i];
        if (c->defs.oom || c->reps.oom || c->values.oom)
            return ddb_error_set(err, DDB_ENOMEM, "out of memory (a Parquet row group)");
        bytes += c->values.len + c->defs.len + c->reps.len;
    }
    if (f->budget != NULL)
        f->budget->used += bytes - f->gathered;
    f->gathered = bytes;
    if (f->opts.max_file_bytes > 0 && past_size(f, bytes)) {
        /* the first row group only measures the ratio (a guess of 1 would end a
         * file of text at a fifth of its size); from the second, the file ends */
        f->full = f->raw_bytes > 0;
        return pq_write_group(f, err);
    }
    if (f->group_rows >= f->opts.group_rows || bytes >= f->opts.group_bytes)
        return pq_write_group(f, err);
    /* past the output's budget, the file gathering the most writes its row
     * group: the largest groups the budget allows, and no file's starved */
    if (f->budget != NULL && f->budget->used > f->budget->limit)
        return pq_write_group(pq_budget_largest(f->budget), err);
    return 0;
}

int pq_finish(pq_file *f, ddb_error *err)
{
    int rc;
    if (f->group_rows > 0 && (rc = pq_write_group(f, err)) != 0)
        return rc;
    /* a file without a value of a shared column says the table's type too */
    for (size_t i = 0; i < f->n_cols; i++)
        if (f->cols[i].plan != NULL && !f->cols[i].decided)
            pq_decide_number(&f->cols[i]);
    return pq_write_footer(f, err);
}
