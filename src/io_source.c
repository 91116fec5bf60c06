/*
 * io_source.c — read-side byte streams: file/stdin, memory, gzip and MD5
 * filters, the sniff/replay wrapper and the generic entry points.
 *
 * Filters read their upstream through ddb_source_read() so every stream's
 * bytes_in stays right, and copy their upstream's name so errors raised deep
 * in a chain still name the file.
 */
#include "ddbpipe/io.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <zlib.h>

#define GZ_INBUF (256u * 1024u)

/* Allocates a source of struct size `size` whose name is a copy of name. */
static ddb_source *source_alloc(size_t size, const ddb_source_vtable *vt, const char *name)
{
    ddb_source *s = calloc(1, size);

    if (s == NULL)
        return NULL;
    s->name = strdup(name);
    if (s->name == NULL) {
        free(s);
        return NULL;
    }
    s->vt = vt;
    return s;
}

/* ------------------------------------------------------------------ file */

typedef struct file_source {
    ddb_source base;
    int fd;
    int owns_fd; /* 0 for stdin: never closed by us */
} file_source;

static ssize_t file_read(ddb_source *src, void *buf, size_t len, ddb_error *err)
{
    file_source *f = (file_source *)src;
    ssize_t n;

    if (len > (size_t)SSIZE_MAX)
        len = (size_t)SSIZE_MAX;
    do {
        n = read(f->fd, buf, len);
    } while (n < 0 && errno == EINTR);
    if (n < 0)
        return ddb_error_set(err, DDB_EIO, "read %s at byte %llu: %s", src->name,
                             (unsigned long long)src->bytes_in, strerror(errno));
    return n;
}

static void file_free(ddb_source *src)
{
    file_source *f = (file_source *)src;

    if (f->owns_fd && f->fd >= 0)
        close(f->fd);
}

static const ddb_source_vtable file_vtable = {file_read, file_free};

int ddb_source_open_file(ddb_source **out, const char *path, ddb_error *err)
{
    file_source *f = NULL;
    struct stat st;
    int is_stdin = strcmp(path, "-") == 0;
    int rc = 0;

    *out = NULL;
    f = (file_source *)source_alloc(sizeof(*f), &file_vtable, is_stdin ? "stdin" : path);
    if (f == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory opening %s", path);
    f->fd = -1;
    if (is_stdin) {
        f->fd = STDIN_FILENO;
        goto done;
    }
    do {
        f->fd = open(path, O_RDONLY | O_CLOEXEC);
    } while (f->fd < 0 && errno == EINTR);
    if (f->fd < 0) {
        int e = errno;
        rc = ddb_error_set(err, e == ENOENT ? DDB_ENOTFOUND : DDB_EIO, "cannot open %s: %s", path,
                           strerror(e));
        goto done;
    }
    f->owns_fd = 1;
    if (fstat(f->fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        rc = ddb_error_set(err, DDB_EIO, "cannot read %s: %s", path, strerror(EISDIR));
        goto done;
    }
    (void)posix_fadvise(f->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
done:
    if (rc != 0) {
        ddb_source_free(&f->base);
        return rc;
    }
    *out = &f->base;
    return 0;
}

/* ---------------------------------------------------------------- memory */

typedef struct mem_source {
    ddb_source base;
    const unsigned char *data;
    size_t len;
    size_t pos;
} mem_source;

static ssize_t mem_read(ddb_source *src, void *buf, size_t len, ddb_error *err)
{
    mem_source *m = (mem_source *)src;
    size_t n = m->len - m->pos;

    (void)err;
    if (n > len)
        n = len;
    if (n > (size_t)SSIZE_MAX)
        n = (size_t)SSIZE_MAX;
    if (n)
        memcpy(buf, m->data + m->pos, n);
    m->pos += n;
    return (ssize_t)n;
}

static void mem_free(ddb_source *src)
{
    (void)src;
}

static const ddb_source_vtable mem_vtable = {mem_read, mem_free};

int ddb_source_new_memory(ddb_source **out, const void *data, size_t len, const char *name,
                          ddb_error *err)
{
    mem_source *m;

    *out = NULL;
    m = (mem_source *)source_alloc(sizeof(*m), &mem_vtable, name ? name : "memory");
    if (m == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory creating a memory source");
    m->data = data;
    m->len = len;
    *out = &m->base;
    return 0;
}

/* ------------------------------------------------------------------ gzip */

enum gz_state { GZ_MEMBER, GZ_BETWEEN, GZ_PADDING, GZ_EOF, GZ_FAILED };

typedef struct gz_source {
    ddb_source base;
    z_stream zs;
    int zs_ready;
    enum gz_state state;
    int up_eof;
    uint64_t in_total; /* compressed bytes read from upstream */
    unsigned char *in;
    ddb_error failure; /* replayed on every read after a failure */
} gz_source;

/* Offset of the next compressed byte zlib has not consumed yet. */
static uint64_t gz_offset(const gz_source *g)
{
    return g->in_total - g->zs.avail_in;
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

/* Refills the input buffer once zlib has consumed it. */
static void gz_refill(gz_source *g)
{
    ssize_t n;

    if (g->zs.avail_in > 0 || g->up_eof)
        return;
    n = ddb_source_read(g->base.upstream, g->in, GZ_INBUF, &g->failure);
    if (n < 0) {
        g->failure.code = (int)n;
        g->state = GZ_FAILED;
        return;
    }
    if (n == 0)
        g->up_eof = 1;
    g->zs.next_in = g->in;
    g->zs.avail_in = (uInt)n;
    g->in_total += (uint64_t)n;
}

/*
 * After a member ends another member must start with the gzip magic; all-zero
 * padding (tape or block padding) is accepted when it runs to the end.
 */
static void gz_after_member(gz_source *g)
{
    while (g->zs.avail_in > 0) {
        if (g->state == GZ_BETWEEN && g->zs.next_in[0] == 0x1f) {
            if (inflateReset(&g->zs) != Z_OK)
                gz_fail(g, DDB_ERROR, "cannot reset the gzip decoder for %s", g->base.name);
            else
                g->state = GZ_MEMBER;
            return;
        }
        if (g->zs.next_in[0] != 0) {
            gz_fail(g, DDB_EIO, "trailing garbage after gzip member in %s at byte %llu",
                    g->base.name, (unsigned long long)gz_offset(g));
            return;
        }
        g->state = GZ_PADDING;
        g->zs.next_in++;
        g->zs.avail_in--;
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
    int zrc;

    if (len > UINT_MAX)
        len = UINT_MAX;
    while (produced < len && g->state != GZ_FAILED && g->state != GZ_EOF) {
        if (g->zs.avail_in == 0 && !g->up_eof) {
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
        g->zs.next_out = (unsigned char *)buf + produced;
        g->zs.avail_out = (uInt)(len - produced);
        zrc = inflate(&g->zs, Z_NO_FLUSH);
        produced = len - g->zs.avail_out;
        switch (zrc) {
        case Z_OK:
        case Z_BUF_ERROR: /* no progress: only when the input ran out */
            if (g->up_eof && g->zs.avail_in == 0 && g->zs.avail_out > 0)
                gz_truncated(g);
            break;
        case Z_STREAM_END:
            g->state = GZ_BETWEEN;
            break;
        case Z_MEM_ERROR:
            gz_fail(g, DDB_ENOMEM, "out of memory decompressing %s", src->name);
            break;
        default: /* Z_DATA_ERROR, Z_NEED_DICT, Z_STREAM_ERROR */
            gz_fail(g, DDB_EIO, "corrupt gzip data in %s at compressed byte %llu: %s", src->name,
                    (unsigned long long)gz_offset(g), g->zs.msg ? g->zs.msg : "invalid data");
            break;
        }
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

    if (g->zs_ready)
        inflateEnd(&g->zs);
    free(g->in);
}

static const ddb_source_vtable gz_vtable = {gz_read, gz_free};

int ddb_source_new_gzip(ddb_source **out, ddb_source *upstream, ddb_error *err)
{
    gz_source *g;
    int rc = 0;

    *out = NULL;
    g = (gz_source *)source_alloc(sizeof(*g), &gz_vtable, upstream->name);
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
    /* 15 + 16: gzip wrapper only, so zlib or raw deflate is reported as corrupt. */
    if (inflateInit2(&g->zs, 15 + 16) != Z_OK) {
        rc = ddb_error_set(err, DDB_ENOMEM, "cannot initialise the gzip decoder for %s",
                           upstream->name);
        goto done;
    }
    g->zs_ready = 1;
    g->state = GZ_MEMBER;
done:
    if (rc != 0) {
        ddb_source_free(&g->base);
        return rc;
    }
    *out = &g->base;
    return 0;
}

/* ------------------------------------------------------------------- md5 */

typedef struct md5_source {
    ddb_source base;
    EVP_MD_CTX *ctx;
} md5_source;

static ssize_t md5_read(ddb_source *src, void *buf, size_t len, ddb_error *err)
{
    md5_source *m = (md5_source *)src;
    ssize_t n = ddb_source_read(src->upstream, buf, len, err);

    if (n > 0 && EVP_DigestUpdate(m->ctx, buf, (size_t)n) != 1)
        return ddb_error_set(err, DDB_ERROR, "MD5 update failed for %s", src->name);
    return n;
}

static void md5_free(ddb_source *src)
{
    EVP_MD_CTX_free(((md5_source *)src)->ctx);
}

static const ddb_source_vtable md5_vtable = {md5_read, md5_free};

int ddb_source_new_md5(ddb_source **out, ddb_source *upstream, ddb_error *err)
{
    md5_source *m;
    int rc = 0;

    *out = NULL;
    m = (md5_source *)source_alloc(sizeof(*m), &md5_vtable, upstream->name);
    if (m == NULL) {
        ddb_source_free(upstream);
        return ddb_error_set(err, DDB_ENOMEM, "out of memory creating an MD5 filter");
    }
    m->base.upstream = upstream;
    m->ctx = EVP_MD_CTX_new();
    if (m->ctx == NULL) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory creating an MD5 filter");
        goto done;
    }
    if (EVP_DigestInit_ex(m->ctx, EVP_md5(), NULL) != 1) {
        rc = ddb_error_set(err, DDB_ERROR, "MD5 is not available from OpenSSL");
        goto done;
    }
done:
    if (rc != 0) {
        ddb_source_free(&m->base);
        return rc;
    }
    *out = &m->base;
    return 0;
}

int ddb_source_md5_digest(ddb_source *src, unsigned char digest[16])
{
    EVP_MD_CTX *copy = NULL;
    unsigned int dlen = 0;
    int rc = 0;

    if (src == NULL || src->vt != &md5_vtable)
        return DDB_EINVAL;
    /* Finalise a copy so hashing can go on and the digest can be asked again. */
    copy = EVP_MD_CTX_new();
    if (copy == NULL) {
        rc = DDB_ENOMEM;
        goto done;
    }
    if (EVP_MD_CTX_copy_ex(copy, ((md5_source *)src)->ctx) != 1 ||
        EVP_DigestFinal_ex(copy, digest, &dlen) != 1 || dlen != 16)
        rc = DDB_ERROR;
done:
    EVP_MD_CTX_free(copy);
    return rc;
}

/* ----------------------------------------------------------- sniff/replay */

typedef struct replay_source {
    ddb_source base;
    unsigned char *head;
    size_t len;
    size_t pos;
} replay_source;

static ssize_t replay_read(ddb_source *src, void *buf, size_t len, ddb_error *err)
{
    replay_source *r = (replay_source *)src;
    size_t n = r->len - r->pos;

    if (n == 0)
        return ddb_source_read(src->upstream, buf, len, err);
    if (n > len)
        n = len;
    memcpy(buf, r->head + r->pos, n);
    r->pos += n;
    return (ssize_t)n;
}

static void replay_free(ddb_source *src)
{
    free(((replay_source *)src)->head);
}

static const ddb_source_vtable replay_vtable = {replay_read, replay_free};

int ddb_source_sniff(ddb_source **out, ddb_source *src, size_t want, const unsigned char **peek,
                     size_t *peek_len, ddb_error *err)
{
    replay_source *r;
    int rc = 0;

    *out = NULL;
    *peek = NULL;
    *peek_len = 0;
    r = (replay_source *)source_alloc(sizeof(*r), &replay_vtable, src->name);
    if (r == NULL) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory sniffing %s", src->name);
        ddb_source_free(src);
        return rc;
    }
    r->base.upstream = src;
    r->head = malloc(want ? want : 1);
    if (r->head == NULL) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory sniffing %s", src->name);
        goto done;
    }
    /* Short reads are normal on pipes: keep going until want or the end. */
    while (r->len < want) {
        ssize_t n = ddb_source_read(src, r->head + r->len, want - r->len, err);
        if (n < 0) {
            rc = (int)n;
            goto done;
        }
        if (n == 0)
            break;
        r->len += (size_t)n;
    }
done:
    if (rc != 0) {
        ddb_source_free(&r->base);
        return rc;
    }
    *peek = r->head;
    *peek_len = r->len;
    *out = &r->base;
    return 0;
}

int ddb_source_open_auto(ddb_source **out, const char *path, ddb_source **md5_out, ddb_error *err)
{
    ddb_source *s = NULL;
    int rc;

    *out = NULL;
    if (md5_out != NULL)
        *md5_out = NULL;
    if ((rc = ddb_source_open_file(&s, path, err)) != 0)
        return rc;
    return ddb_source_auto(out, s, md5_out, err);
}

int ddb_source_auto(ddb_source **out, ddb_source *s, ddb_source **md5_out, ddb_error *err)
{
    ddb_source *md5 = NULL;
    const unsigned char *peek;
    size_t peek_len;
    int rc;

    *out = NULL;
    if (md5_out != NULL)
        *md5_out = NULL;
    if (md5_out != NULL) {
        if ((rc = ddb_source_new_md5(&md5, s, err)) != 0)
            return rc;
        s = md5;
    }
    if ((rc = ddb_source_sniff(&s, s, 2, &peek, &peek_len, err)) != 0)
        return rc;
    if (peek_len == 2 && peek[0] == 0x1f && peek[1] == 0x8b) {
        if ((rc = ddb_source_new_gzip(&s, s, err)) != 0)
            return rc;
    }
    if (md5_out != NULL)
        *md5_out = md5;
    *out = s;
    return 0;
}

/* --------------------------------------------------------------- generic */

ssize_t ddb_source_read(ddb_source *src, void *buf, size_t len, ddb_error *err)
{
    ssize_t n;

    if (len == 0)
        return 0;
    n = src->vt->read(src, buf, len, err);
    if (n > 0)
        src->bytes_in += (uint64_t)n;
    return n;
}

uint64_t ddb_source_raw_bytes(const ddb_source *src)
{
    while (src->upstream != NULL)
        src = src->upstream;
    return src->bytes_in;
}

void ddb_source_free(ddb_source *src)
{
    while (src != NULL) {
        ddb_source *up = src->upstream;
        src->vt->free(src);
        free(src->name);
        free(src);
        src = up;
    }
}

const char *ddb_path_base(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

char *ddb_path_join(const char *dir, const char *name)
{
    size_t n = strlen(dir);
    char *p;
    if (strcmp(dir, ".") == 0)
        return strdup(name);
    p = malloc(n + strlen(name) + 2);
    if (p != NULL)
        sprintf(p, "%s%s%s", dir, n > 0 && dir[n - 1] == '/' ? "" : "/", name);
    return p;
}

char *ddb_path_sibling(const char *path, const char *name)
{
    size_t dir = (size_t)(ddb_path_base(path) - path);
    char *p = malloc(dir + strlen(name) + 1);
    if (p != NULL) {
        memcpy(p, path, dir);
        strcpy(p + dir, name);
    }
    return p;
}

int ddb_file_read_small(char **out, size_t *len, const char *path, size_t max, ddb_error *err)
{
    FILE *f = fopen(path, "rb");
    struct stat st;
    int rc = 0;

    *out = NULL;
    if (f == NULL)
        return ddb_error_set(err, errno == ENOENT ? DDB_ENOTFOUND : DDB_EIO, "%s: %s", path,
                             strerror(errno));
    if (fstat(fileno(f), &st) != 0 || (uint64_t)st.st_size > max)
        rc = ddb_error_set(err, DDB_ETOOBIG, "%s: larger than %zu bytes", path, max);
    else if ((*out = malloc((size_t)st.st_size + 1)) == NULL)
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
    else if ((*len = fread(*out, 1, (size_t)st.st_size, f)) != (size_t)st.st_size)
        rc = ddb_error_set(err, DDB_EIO, "%s: read error", path);
    else
        (*out)[*len] = '\0';
    if (rc != 0) {
        free(*out);
        *out = NULL;
    }
    fclose(f);
    return rc;
}
