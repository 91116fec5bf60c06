/*
 * source_gzip.c — the gzip source filter: concatenated members, padding, CRC and
 * length checks, inflated by Intel ISA-L or zlib (source.h).
 */
#include <assert.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>
#ifdef DDB_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif

#include "ddbpipe/source.h"
#include "io/io_internal.h"

#define GZ_INBUF (256u * 1024u)

/* ------------------------------------------------------------------ gzip */

/*
 * Two inflaters behind one small interface: Intel ISA-L (igzip) when it is
 * built in — it inflates several times faster than zlib, and decompression is
 * most of an export's CPU time — and zlib otherwise. Both inflate raw deflate
 * data only: the gzip header is read here, once for both, as gzip(1) reads it
 * (RFC 1952); the trailer here for zlib, by ISA-L itself. ISA-L's own header reader refused valid
 * files with a header CRC (FHCRC), failed on a file name longer than its
 * input buffer, and took the reserved flag bits, which gzip(1) refuses.
 */
enum gz_state { GZ_HEADER, GZ_MEMBER, GZ_TRAILER, GZ_BETWEEN, GZ_PADDING, GZ_EOF, GZ_FAILED };
enum gz_step { GZ_STEP_OK, GZ_STEP_END, GZ_STEP_ERROR };
/* The parts of a member's header, in their order; each but the first optional. */
enum gz_part { GZ_FIXED, GZ_XLEN, GZ_EXTRA, GZ_NAME, GZ_COMMENT, GZ_HCRC };

#define GZ_FHCRC 0x02
#define GZ_FEXTRA 0x04
#define GZ_FNAME 0x08
#define GZ_FCOMMENT 0x10
#define GZ_FRESERVED 0xe0

typedef struct gz_source {
    ddb_source base;
#ifdef DDB_HAVE_ISAL
    struct inflate_state *is;
#else
    z_stream zs;
    int zs_ready;
    uint32_t crc; /* CRC-32 of the member's bytes inflated so far */
#endif
    const unsigned char *next_in; /* the compressed bytes not consumed yet */
    size_t avail_in;
    enum gz_state state;
    enum gz_part part;
    unsigned char hold[10]; /* a header's fixed part, XLEN or CRC16, or a trailer, as it comes */
    size_t held;
    unsigned flags;    /* the member's FLG byte */
    size_t extra_left; /* of FEXTRA's bytes */
    uLong header_crc;  /* CRC-32 of the header's bytes so far, for FHCRC */
    int up_eof;
    uint64_t in_total; /* compressed bytes read from upstream */
    unsigned char *in;
    ddb_error failure; /* replayed on every read after a failure */
} gz_source;
/* Offset of the next compressed byte the inflater has not consumed yet. */
static uint64_t gz_offset(const gz_source *g)
{
    return g->in_total - g->avail_in;
}

/* Records a failure; gz_read reports it once the bytes decoded before it
 * have been handed out, and on every read after that. */
static void gz_fail(gz_source *g, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void gz_fail(gz_source *g, int code, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    ddb_error_vset(&g->failure, code, fmt, ap);
    va_end(ap);
    g->state = GZ_FAILED;
}

#ifdef DDB_HAVE_ISAL
static int gz_backend_init(gz_source *g)
{
    if ((g->is = malloc(sizeof(*g->is))) == NULL)
        return -1;
    isal_inflate_init(g->is);
    /* Raw deflate, and the trailer checked: its bit reader takes bytes past the deflate
     * data's end that it does not hand back, so the trailer cannot be read here. */
    g->is->crc_flag = ISAL_GZIP_NO_HDR_VER;
    return 0;
}

static int gz_backend_reset(gz_source *g)
{
    isal_inflate_reset(g->is);
    g->is->crc_flag = ISAL_GZIP_NO_HDR_VER;
    return 0;
}

/* Inflates into out; *produced receives the bytes written. */
static enum gz_step gz_backend_step(gz_source *g, unsigned char *out, size_t len, size_t *produced,
                                    const char **why)
{
    int rc;
    g->is->next_in = (uint8_t *)g->next_in;
    g->is->avail_in = (uint32_t)(g->avail_in > UINT32_MAX ? UINT32_MAX : g->avail_in);
    g->is->next_out = out;
    g->is->avail_out = (uint32_t)(len > UINT32_MAX ? UINT32_MAX : len);
    rc = isal_inflate(g->is);
    *produced = (size_t)(g->is->next_out - out);
    g->avail_in -= (size_t)(g->is->next_in - g->next_in);
    g->next_in = g->is->next_in;
    if (rc == ISAL_INCORRECT_CHECKSUM) {
        *why = "CRC-32 or length does not match";
        return GZ_STEP_ERROR;
    }
    if (rc != ISAL_DECOMP_OK && rc != ISAL_END_INPUT) {
        *why = "invalid deflate data";
        return GZ_STEP_ERROR;
    }
    return g->is->block_state == ISAL_BLOCK_FINISH ? GZ_STEP_END : GZ_STEP_OK;
}

/* What follows a member's deflate data: its trailer was read with it. */
static enum gz_state gz_backend_after_data(void)
{
    return GZ_BETWEEN;
}

/* The CRC-32 and length (mod 2^32) of the member inflated. */
static void gz_backend_sums(const gz_source *g, uint32_t *crc, uint32_t *len)
{
    *crc = g->is->crc;
    *len = g->is->total_out;
}

static void gz_backend_free(gz_source *g)
{
    free(g->is);
}
#else
static int gz_backend_init(gz_source *g)
{
    /* -15: raw deflate, the wrapper being read in gz_read_header and gz_read_trailer */
    if (inflateInit2(&g->zs, -15) != Z_OK)
        return -1;
    g->zs_ready = 1;
    return 0;
}

static int gz_backend_reset(gz_source *g)
{
    g->crc = 0;
    return inflateReset(&g->zs) == Z_OK ? 0 : -1;
}

static enum gz_step gz_backend_step(gz_source *g, unsigned char *out, size_t len, size_t *produced,
                                    const char **why)
{
    int zrc;
    g->zs.next_in = (Bytef *)g->next_in;
    g->zs.avail_in = (uInt)(g->avail_in > UINT_MAX ? UINT_MAX : g->avail_in);
    g->zs.next_out = out;
    g->zs.avail_out = (uInt)(len > UINT_MAX ? UINT_MAX : len);
    zrc = inflate(&g->zs, Z_NO_FLUSH);
    *produced = (size_t)(g->zs.next_out - out);
    g->crc = (uint32_t)crc32(g->crc, out, (uInt)*produced);
    g->avail_in -= (size_t)(g->zs.next_in - g->next_in);
    g->next_in = g->zs.next_in;
    if (zrc == Z_STREAM_END)
        return GZ_STEP_END;
    if (zrc == Z_OK || zrc == Z_BUF_ERROR) /* no progress: only when the input ran out */
        return GZ_STEP_OK;
    *why = zrc == Z_MEM_ERROR ? "out of memory" : g->zs.msg ? g->zs.msg : "invalid data";
    return GZ_STEP_ERROR;
}

/* What follows a member's deflate data: its trailer, for gz_read_trailer. */
static enum gz_state gz_backend_after_data(void)
{
    return GZ_TRAILER;
}

static void gz_backend_sums(const gz_source *g, uint32_t *crc, uint32_t *len)
{
    *crc = g->crc;
    *len = (uint32_t)g->zs.total_out;
}

static void gz_backend_free(gz_source *g)
{
    if (g->zs_ready)
        inflateEnd(&g->zs);
}
#endif

/* Fails the source on a member's broken header, deflate data or trailer. */
static void gz_corrupt(gz_source *g, const char *why)
{
    gz_fail(g, DDB_EIO, "corrupt gzip data in %s at compressed byte %llu: %s", g->base.name,
            (unsigned long long)gz_offset(g), why);
}

/* Consumes n input bytes, adding them to the header's CRC when in_crc. */
static void gz_consume(gz_source *g, size_t n, int in_crc)
{
    if (in_crc)
        g->header_crc = crc32(g->header_crc, g->next_in, (uInt)n);
    g->next_in += n;
    g->avail_in -= n;
}

/* Moves input into hold until it has want bytes (1) or the input runs out (0). */
static int gz_take(gz_source *g, size_t want, int in_crc)
{
    size_t n = want - g->held;
    assert(want <= sizeof(g->hold) && g->held <= want);
    if (n > g->avail_in)
        n = g->avail_in;
    memcpy(g->hold + g->held, g->next_in, n);
    gz_consume(g, n, in_crc);
    g->held += n;
    return g->held == want;
}

/* Skips a zero-terminated FNAME or FCOMMENT; 1 once past its zero. */
static int gz_skip_string(gz_source *g)
{
    const unsigned char *zero = memchr(g->next_in, 0, g->avail_in);
    gz_consume(g, zero ? (size_t)(zero - g->next_in) + 1 : g->avail_in, 1);
    return zero != NULL;
}

/* One part of the header from the input; 1 when it is complete (or absent). */
static int gz_header_part(gz_source *g)
{
    switch (g->part) {
    case GZ_FIXED:
        if (!gz_take(g, 10, 1))
            return 0;
        if (g->hold[0] != 0x1f || g->hold[1] != 0x8b || g->hold[2] != 8)
            return gz_corrupt(g, "not a gzip header"), 0;
        if (g->hold[3] & GZ_FRESERVED)
            return gz_corrupt(g, "reserved header flags are set"), 0;
        g->flags = g->hold[3];
        return 1;
    case GZ_XLEN:
        if (!(g->flags & GZ_FEXTRA) || !gz_take(g, 2, 1))
            return !(g->flags & GZ_FEXTRA);
        g->extra_left = (size_t)g->hold[0] | (size_t)g->hold[1] << 8;
        return 1;
    case GZ_EXTRA: {
        size_t n = g->extra_left < g->avail_in ? g->extra_left : g->avail_in;
        gz_consume(g, n, 1);
        g->extra_left -= n;
        return g->extra_left == 0;
    }
    case GZ_NAME:
        return !(g->flags & GZ_FNAME) || gz_skip_string(g);
    case GZ_COMMENT:
        return !(g->flags & GZ_FCOMMENT) || gz_skip_string(g);
    case GZ_HCRC: {
        uLong want = g->header_crc & 0xffff; /* the CRC16 is the CRC-32's low half */
        if (!(g->flags & GZ_FHCRC))
            return 1;
        if (!gz_take(g, 2, 0))
            return 0;
        if (((uLong)g->hold[0] | (uLong)g->hold[1] << 8) != want)
            return gz_corrupt(g, "header CRC does not match"), 0;
        return 1;
    }
    }
    return 0;
}

/* Reads the member's header as far as the input goes; the deflate data follows it. */
static void gz_read_header(gz_source *g)
{
    while (g->state == GZ_HEADER && gz_header_part(g)) {
        g->held = 0;
        if (g->part == GZ_HCRC)
            g->state = GZ_MEMBER;
        else
            g->part++;
    }
}

/* Reads the member's trailer as far as the input goes, and checks it. */
static void gz_read_trailer(gz_source *g)
{
    uint32_t crc, len;
    if (!gz_take(g, 8, 0))
        return;
    gz_backend_sums(g, &crc, &len);
    if (crc != ((uint32_t)g->hold[0] | (uint32_t)g->hold[1] << 8 | (uint32_t)g->hold[2] << 16 |
                (uint32_t)g->hold[3] << 24) ||
        len != ((uint32_t)g->hold[4] | (uint32_t)g->hold[5] << 8 | (uint32_t)g->hold[6] << 16 |
                (uint32_t)g->hold[7] << 24))
        gz_corrupt(g, "CRC-32 or length does not match");
    else
        g->state = GZ_BETWEEN;
}

/* A member starts: its header first. */
static void gz_start_member(gz_source *g)
{
    g->state = GZ_HEADER;
    g->part = GZ_FIXED;
    g->held = 0;
    g->header_crc = crc32(0, NULL, 0);
}

/* Refills the input buffer once the inflater has consumed it. */
static void gz_refill(gz_source *g)
{
    ssize_t n;

    if (g->avail_in > 0 || g->up_eof)
        return;
    n = ddb_source_read(g->base.upstream, g->in, GZ_INBUF, &g->failure);
    if (n < 0) {
        g->failure.code = (int)n;
        g->state = GZ_FAILED;
        return;
    }
    if (n == 0)
        g->up_eof = 1;
    g->next_in = g->in;
    g->avail_in = (size_t)n;
    g->in_total += (uint64_t)n;
}

/*
 * After a member ends another member must start with the gzip magic; all-zero
 * padding (tape or block padding) is accepted when it runs to the end.
 */
static void gz_after_member(gz_source *g)
{
    while (g->avail_in > 0) {
        if (g->state == GZ_BETWEEN && g->next_in[0] == 0x1f) {
            if (gz_backend_reset(g) != 0)
                gz_fail(g, DDB_ERROR, "cannot reset the gzip decoder for %s", g->base.name);
            else
                gz_start_member(g);
            return;
        }
        if (g->next_in[0] != 0) {
            gz_fail(g, DDB_EIO, "trailing garbage after gzip member in %s at byte %llu",
                    g->base.name, (unsigned long long)gz_offset(g));
            return;
        }
        g->state = GZ_PADDING;
        g->next_in++;
        g->avail_in--;
    }
    if (g->up_eof)
        g->state = GZ_EOF;
}

static void gz_truncated(gz_source *g)
{
    gz_fail(g, DDB_EIO, "unexpected end of gzip data in %s at compressed byte %llu", g->base.name,
            (unsigned long long)gz_offset(g));
}

static ssize_t gz_read(ddb_source *src, void *buf, size_t len, ddb_error *err)
{
    gz_source *g = (gz_source *)src;
    size_t produced = 0;

    if (len > UINT_MAX)
        len = UINT_MAX;
    while (produced < len && g->state != GZ_FAILED && g->state != GZ_EOF) {
        size_t got = 0;
        const char *why = NULL;
        enum gz_step step;
        if (g->avail_in == 0 && !g->up_eof) {
            /* Hand back what we have rather than block on a slow pipe. */
            if (produced > 0)
                break;
            gz_refill(g);
            continue;
        }
        if (g->state == GZ_HEADER || g->state == GZ_TRAILER) {
            if (g->avail_in == 0) /* and the upstream ended: the header or trailer is cut */
                gz_truncated(g);
            else if (g->state == GZ_HEADER)
                gz_read_header(g);
            else
                gz_read_trailer(g);
            continue;
        }
        if (g->state != GZ_MEMBER) {
            gz_after_member(g);
            continue;
        }
        /* Inflate straight into the caller's buffer: no intermediate copy. */
        step = gz_backend_step(g, (unsigned char *)buf + produced, len - produced, &got, &why);
        produced += got;
        if (step == GZ_STEP_END) {
            g->state = gz_backend_after_data();
            g->held = 0;
        } else if (step == GZ_STEP_ERROR) {
            gz_corrupt(g, why);
        } else if (g->up_eof && g->avail_in == 0 && got == 0)
            gz_truncated(g);
    }
    if (produced == 0 && g->state == GZ_FAILED) {
        if (err != NULL)
            *err = g->failure;
        return g->failure.code;
    }
    return (ssize_t)produced;
}

static void gz_free(ddb_source *src)
{
    gz_source *g = (gz_source *)src;

    gz_backend_free(g);
    free(g->in);
}

static const ddb_source_vtable gz_vtable = {gz_read, gz_free, NULL};

int ddb_source_new_gzip(ddb_source **out, ddb_source *upstream, ddb_error *err)
{
    gz_source *g;
    int rc = 0;

    *out = NULL;
    g = (gz_source *)ddb_source_alloc(sizeof(*g), &gz_vtable, upstream->name);
    if (g == NULL) {
        ddb_source_free(upstream);
        return ddb_error_set(err, DDB_ENOMEM, "out of memory creating a gzip decoder");
    }
    g->base.upstream = upstream;
    g->in = malloc(GZ_INBUF);
    if (g->in == NULL) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory creating a gzip decoder");
        goto done;
    }
    if (gz_backend_init(g) != 0) {
        rc = ddb_error_set(err, DDB_ENOMEM, "cannot initialise the gzip decoder for %s",
                           upstream->name);
        goto done;
    }
    gz_start_member(g);
done:
    if (rc != 0) {
        ddb_source_free(&g->base);
        return rc;
    }
    *out = &g->base;
    return 0;
}
