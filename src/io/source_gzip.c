/*
 * source_gzip.c — the gzip source filter: concatenated members, padding, CRC and
 * length checks, inflated by Intel ISA-L or zlib (source.h).
 */
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
 * most of an export's CPU time — and zlib otherwise. Both check each member's
 * CRC-32 and length.
 */
enum gz_state { GZ_MEMBER, GZ_BETWEEN, GZ_PADDING, GZ_EOF, GZ_FAILED };
enum gz_step { GZ_STEP_OK, GZ_STEP_END, GZ_STEP_ERROR };

typedef struct gz_source {
    ddb_source base;
#ifdef DDB_HAVE_ISAL
    struct inflate_state *is;
#else
    z_stream zs;
    int zs_ready;
#endif
    const unsigned char *next_in; /* the compressed bytes not consumed yet */
    size_t avail_in;
    enum gz_state state;
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
    g->is->crc_flag = ISAL_GZIP; /* header parsed, CRC-32 and length checked */
    return 0;
}

static int gz_backend_reset(gz_source *g)
{
    isal_inflate_reset(g->is);
    g->is->crc_flag = ISAL_GZIP;
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
        *why = rc == ISAL_INVALID_WRAPPER ? "not a gzip header" : "invalid deflate data";
        return GZ_STEP_ERROR;
    }
    return g->is->block_state == ISAL_BLOCK_FINISH ? GZ_STEP_END : GZ_STEP_OK;
}

static void gz_backend_free(gz_source *g)
{
    free(g->is);
}
#else
static int gz_backend_init(gz_source *g)
{
    /* 15 + 16: gzip wrapper only, so zlib or raw deflate is reported as corrupt. */
    if (inflateInit2(&g->zs, 15 + 16) != Z_OK)
        return -1;
    g->zs_ready = 1;
    return 0;
}

static int gz_backend_reset(gz_source *g)
{
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
    g->avail_in -= (size_t)(g->zs.next_in - g->next_in);
    g->next_in = g->zs.next_in;
    if (zrc == Z_STREAM_END)
        return GZ_STEP_END;
    if (zrc == Z_OK || zrc == Z_BUF_ERROR) /* no progress: only when the input ran out */
        return GZ_STEP_OK;
    *why = zrc == Z_MEM_ERROR ? "out of memory" : g->zs.msg ? g->zs.msg : "invalid data";
    return GZ_STEP_ERROR;
}

static void gz_backend_free(gz_source *g)
{
    if (g->zs_ready)
        inflateEnd(&g->zs);
}
#endif

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
                g->state = GZ_MEMBER;
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
        if (g->state != GZ_MEMBER) {
            gz_after_member(g);
            continue;
        }
        /* Inflate straight into the caller's buffer: no intermediate copy. */
        step = gz_backend_step(g, (unsigned char *)buf + produced, len - produced, &got, &why);
        produced += got;
        if (step == GZ_STEP_END)
            g->state = GZ_BETWEEN;
        else if (step == GZ_STEP_ERROR)
            gz_fail(g, DDB_EIO, "corrupt gzip data in %s at compressed byte %llu: %s", src->name,
                    (unsigned long long)gz_offset(g), why);
        else if (g->up_eof && g->avail_in == 0 && got == 0)
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
    g->state = GZ_MEMBER;
done:
    if (rc != 0) {
        ddb_source_free(&g->base);
        return rc;
    }
    *out = &g->base;
    return 0;
}
