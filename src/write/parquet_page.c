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
#include <zstd.h>

#include "write/parquet_thrift.h"

/* A [4-byte length][RLE hybrid] level block. */
static void put_levels(ddb_buf *page, const ddb_buf *levels, int max_level)
{
    size_t at = page->len;
    int bw = 0;
    while ((1 << bw) <= max_level)
        bw++;
    ddb_buf_append(page, "\0\0\0\0", 4);
    pq_rle_encode(page, (const uint8_t *)levels->ptr, levels->len, bw);
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
 * bytewise, unsigned, as Parquet orders BYTE_ARRAY (decimals: put_decimals). */
static int bytes_cmp(const unsigned char *a, size_t alen, const unsigned char *b, size_t blen)
{
    int d = memcmp(a, b, alen < blen ? alen : blen);
    return d != 0 ? d : (alen > blen) - (alen < blen);
}

typedef struct pq_span {
    const unsigned char *p;
    size_t n;
} pq_span;

static void keep_minmax(pq_span *lo, pq_span *hi, const unsigned char *p, size_t n)
{
    if (lo->p == NULL || bytes_cmp(p, n, lo->p, lo->n) < 0)
        *lo = (pq_span){p, n};
    if (hi->p == NULL || bytes_cmp(p, n, hi->p, hi->n) > 0)
        *hi = (pq_span){p, n};
}

static void set_minmax(pq_chunk *ch, pq_span lo, pq_span hi)
{
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

/* Decimals into the page (and their min/max, compared as 16 signed bytes). */
static void put_decimals(ddb_buf *page, pq_col *c, pq_chunk *ch)
{
    pq_decimal_form form = pq_decimal_form_of(c);
    unsigned char lo_b[16], hi_b[16], lo_p[16], hi_p[16];
    size_t at = 0, seen = 0;
    while (at < c->values.len) {
        uint32_t len;
        const char *p = pq_next_bytes(&c->values, &at, &len);
        unsigned char d[16], phys[16];
        pq_decimal_bytes(d, p, len, c->scale);
        decimal_physical(phys, d, form);
        ddb_buf_append(page, phys, (size_t)form.bytes);
        d[0] ^= 0x80;
        if (seen == 0 || memcmp(d, lo_b, 16) < 0)
            memcpy(lo_b, d, 16), memcpy(lo_p, phys, (size_t)form.bytes);
        if (seen++ == 0 || memcmp(d, hi_b, 16) > 0)
            memcpy(hi_b, d, 16), memcpy(hi_p, phys, (size_t)form.bytes);
    }
    if (seen > 0)
        set_minmax(ch, (pq_span){lo_p, (size_t)form.bytes}, (pq_span){hi_p, (size_t)form.bytes});
}

static void put_bools(ddb_buf *page, const pq_col *c)
{
    for (size_t i = 0; i < c->values.len; i += 8) {
        unsigned char byte = 0;
        for (size_t k = 0; k < 8 && i + k < c->values.len; k++)
            byte |= (unsigned char)((c->values.ptr[i + k] & 1) << k);
        ddb_buf_putc(page, (char)byte);
    }
}

static void put_byte_arrays(ddb_buf *page, const pq_col *c, pq_chunk *ch)
{
    pq_span lo = {NULL, 0}, hi = {NULL, 0};
    size_t at = 0;
    while (at < c->values.len) {
        uint32_t len;
        const char *p = pq_next_bytes(&c->values, &at, &len);
        keep_minmax(&lo, &hi, (const unsigned char *)p, len);
    }
    ddb_buf_append(page, c->values.ptr, c->values.len);
    set_minmax(ch, lo, hi);
}

/* The uncompressed page: levels, then values. */
static void build_page(ddb_buf *page, pq_col *c, pq_chunk *ch)
{
    ddb_buf_clear(page);
    if (c->max_rep)
        put_levels(page, &c->reps, c->max_rep);
    put_levels(page, &c->defs, c->max_def);
    if (c->kind == PQ_BOOL)
        put_bools(page, c);
    else if (pq_is_decimal(c))
        put_decimals(page, c, ch);
    else
        put_byte_arrays(page, c, ch);
}

static int compress_zstd(ddb_buf *out, const ddb_buf *in, ddb_error *err)
{
    size_t bound = ZSTD_compressBound(in->len), n;
    ddb_buf_clear(out);
    if (ddb_buf_reserve(out, bound) != 0)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    n = ZSTD_compress(out->ptr, bound, in->ptr ? in->ptr : "", in->len, 3);
    if (ZSTD_isError(n))
        return ddb_error_set(err, DDB_EIO, "zstd: %s", ZSTD_getErrorName(n));
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

static void page_header(ddb_buf *b, size_t raw, size_t packed, size_t n_values)
{
    pq_thrift t;
    ddb_buf_clear(b);
    pq_thrift_init(&t, b);
    pq_thrift_i32(&t, 1, 0); /* DATA_PAGE */
    pq_thrift_i32(&t, 2, (int32_t)raw);
    pq_thrift_i32(&t, 3, (int32_t)packed);
    pq_thrift_struct(&t, 5); /* DataPageHeader */
    pq_thrift_i32(&t, 1, (int32_t)n_values);
    pq_thrift_i32(&t, 2, 0); /* PLAIN */
    pq_thrift_i32(&t, 3, 3); /* RLE */
    pq_thrift_i32(&t, 4, 3); /* RLE */
    pq_thrift_end(&t);
    pq_thrift_end(&t);
}

/* Column c of the row group: one page, its chunk described in ch. */
static int write_chunk(pq_file *f, pq_col *c, pq_chunk *ch, ddb_error *err)
{
    const ddb_buf *body = &f->page;
    int rc;
    memset(ch, 0, sizeof(*ch));
    if (c->kind == PQ_NUMBER && !c->decided && c->n_present > 0)
        pq_decide_number(c);
    build_page(&f->page, c, ch);
    if (f->page.oom || f->page.len > INT32_MAX)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory (a Parquet page of %s)", c->name);
    if (f->opts.codec != PQ_CODEC_NONE) {
        rc = f->opts.codec == PQ_CODEC_ZSTD ? compress_zstd(&f->packed, &f->page, err)
                                            : compress_gzip(&f->packed, &f->page, err);
        if (rc != 0)
            return rc;
        body = &f->packed;
    }
    page_header(&f->header, f->page.len, body->len, c->defs.len);
    if (f->header.oom)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    ch->offset = f->offset;
    ch->n_values = (int64_t)c->defs.len;
    ch->n_nulls = (int64_t)(c->defs.len - c->n_present);
    ch->uncompressed = (int64_t)(f->header.len + f->page.len);
    ch->compressed = (int64_t)(f->header.len + body->len);
    if ((rc = pq_write(f, f->header.ptr, f->header.len, err)) != 0 ||
        (rc = pq_write(f, body->ptr, body->len, err)) != 0)
        return rc;
    ddb_buf_clear(&c->defs);
    ddb_buf_clear(&c->reps);
    ddb_buf_clear(&c->values);
    c->n_present = 0;
    return 0;
}

/* Writes the rows gathered as one row group. */
static int write_group(pq_file *f, ddb_error *err)
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
    f->rows += f->group_rows;
    f->group_rows = 0;
    return 0;
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
    if (f->group_rows >= f->opts.group_rows || bytes >= f->opts.group_bytes)
        return write_group(f, err);
    return 0;
}

int pq_finish(pq_file *f, ddb_error *err)
{
    int rc;
    if (f->group_rows > 0 && (rc = write_group(f, err)) != 0)
        return rc;
    /* a file without a value of a shared column says the table's type too */
    for (size_t i = 0; i < f->n_cols; i++)
        if (f->cols[i].plan != NULL && !f->cols[i].decided)
            pq_decide_number(&f->cols[i]);
    return pq_write_footer(f, err);
}
