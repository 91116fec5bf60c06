/*
 * source.c — read-side byte streams: file/stdin, memory, gzip and MD5
 * filters, the sniff/replay wrapper and the generic entry points.
 *
 * Filters read their upstream through ddb_source_read() so every stream's
 * bytes_in stays right, and copy their upstream's name so errors raised deep
 * in a chain still name the file.
 */
#include "ddbpipe/fs.h"
#include "ddbpipe/source.h"
#include "io/io_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <zlib.h>

/* Allocates a source of struct size `size` whose name is a copy of name. */
ddb_source *ddb_source_alloc(size_t size, const ddb_source_vtable *vt, const char *name)
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
    int owns_fd;   /* 0 for stdin: never closed by us */
    int may_block; /* not a regular file: a read may wait for a writer */
} file_source;

static _Thread_local ddb_io_waiter thread_waiter;

ddb_io_waiter ddb_io_set_waiter(ddb_io_waiter w)
{
    ddb_io_waiter prev = thread_waiter;
    thread_waiter = w;
    return prev;
}

/* Waits until fd (a pipe, a FIFO) has something to read: through the
 * thread's waiter when there is one, else, with block, in poll() (without,
 * the read that follows blocks instead). Returns 0 or the waiter's error. */
static int wait_readable(int fd, int block, ddb_error *err)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    /* <= 0: a signal that cut this poll is the waiter's to see, not a
     * reason to block in read() */
    if (thread_waiter.wait != NULL)
        return poll(&p, 1, 0) <= 0 ? thread_waiter.wait(thread_waiter.ctx, fd, err) : 0;
    while (block && poll(&p, 1, -1) < 0 && errno == EINTR)
        ;
    return 0;
}

static ssize_t file_read(ddb_source *src, void *buf, size_t len, ddb_error *err)
{
    file_source *f = (file_source *)src;
    ssize_t n;
    int rc;

    if (len > (size_t)SSIZE_MAX)
        len = (size_t)SSIZE_MAX;
    if (f->may_block && (rc = wait_readable(f->fd, 0, err)) != 0)
        return rc;
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

static const ddb_source_vtable file_vtable = {file_read, file_free, NULL};

/* A FIFO's open() waits for a writer, deaf to a stop: it is opened without
 * waiting, then waited on as a pipe with no data yet is (the thread's waiter
 * sees a stop; Linux's poll reports nothing until a writer has come), and
 * read blocking like any pipe. Returns 0 with *fd_out, or an error (set). */
static int open_fifo(int *fd_out, const char *path, ddb_error *err)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), rc, flags;
    if (fd < 0)
        return ddb_error_set(err, errno == ENOENT ? DDB_ENOTFOUND : DDB_EIO, "cannot open %s: %s",
                             path, strerror(errno));
    rc = wait_readable(fd, 1, err);
    if (rc == 0 &&
        ((flags = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0))
        rc = ddb_error_set(err, DDB_EIO, "cannot read %s: %s", path, strerror(errno));
    if (rc != 0) {
        close(fd);
        return rc;
    }
    *fd_out = fd;
    return 0;
}

int ddb_source_open_file(ddb_source **out, const char *path, ddb_error *err)
{
    file_source *f = NULL;
    struct stat st;
    int is_stdin = strcmp(path, "-") == 0;
    int rc = 0;

    *out = NULL;
    f = (file_source *)ddb_source_alloc(sizeof(*f), &file_vtable, is_stdin ? "stdin" : path);
    if (f == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory opening %s", path);
    f->fd = -1;
    if (is_stdin) {
        f->fd = STDIN_FILENO;
        f->may_block = fstat(f->fd, &st) != 0 || !S_ISREG(st.st_mode);
        goto done;
    }
    /* a named FIFO (an anonymous pipe, /dev/fd/N, has its writer already) */
    if (lstat(path, &st) == 0 && S_ISFIFO(st.st_mode)) {
        if ((rc = open_fifo(&f->fd, path, err)) != 0)
            goto done;
    } else {
        do {
            f->fd = open(path, O_RDONLY | O_CLOEXEC);
        } while (f->fd < 0 && errno == EINTR);
    }
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
    f->may_block = fstat(f->fd, &st) != 0 || !(S_ISREG(st.st_mode) || S_ISBLK(st.st_mode));
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

static const ddb_source_vtable mem_vtable = {mem_read, mem_free, NULL};

int ddb_source_new_memory(ddb_source **out, const void *data, size_t len, const char *name,
                          ddb_error *err)
{
    mem_source *m;

    *out = NULL;
    m = (mem_source *)ddb_source_alloc(sizeof(*m), &mem_vtable, name ? name : "memory");
    if (m == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory creating a memory source");
    m->data = data;
    m->len = len;
    *out = &m->base;
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

static const ddb_source_vtable md5_vtable = {md5_read, md5_free, NULL};

int ddb_source_new_md5(ddb_source **out, ddb_source *upstream, ddb_error *err)
{
    md5_source *m;
    int rc = 0;

    *out = NULL;
    m = (md5_source *)ddb_source_alloc(sizeof(*m), &md5_vtable, upstream->name);
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

/* The sniffed head is lent where it lies, then the upstream's chunks. */
static ssize_t replay_borrow(ddb_source *src, const char **data, ddb_error *err)
{
    replay_source *r = (replay_source *)src;
    size_t n = r->len - r->pos;

    if (n == 0)
        return ddb_source_borrow(src->upstream, data, err);
    *data = (const char *)r->head + r->pos;
    r->pos = r->len;
    return (ssize_t)n;
}

static const ddb_source_vtable replay_vtable = {replay_read, replay_free, replay_borrow};

/* Would a read of s wait for a writer now? Asked of the file at the bottom
 * (a filter may hold bytes it has not handed out: then the answer is only
 * early, which costs a shorter sniff, never a wrong one). */
static int would_block(const ddb_source *s)
{
    struct pollfd p;
    while (s->upstream != NULL)
        s = s->upstream;
    if (s->vt != &file_vtable || !((const file_source *)s)->may_block)
        return 0;
    p.fd = ((const file_source *)s)->fd;
    p.events = POLLIN;
    p.revents = 0;
    return poll(&p, 1, 0) == 0;
}

int ddb_source_sniff(ddb_source **out, ddb_source *src, size_t want, const unsigned char **peek,
                     size_t *peek_len, ddb_error *err)
{
    return ddb_source_sniff_until(out, src, want, NULL, NULL, peek, peek_len, err);
}

int ddb_source_sniff_until(ddb_source **out, ddb_source *src, size_t want,
                           int (*enough)(void *ctx, const unsigned char *p, size_t n), void *ctx,
                           const unsigned char **peek, size_t *peek_len, ddb_error *err)
{
    replay_source *r;
    int rc = 0;

    *out = NULL;
    *peek = NULL;
    *peek_len = 0;
    r = (replay_source *)ddb_source_alloc(sizeof(*r), &replay_vtable, src->name);
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
        if (enough != NULL && r->len < want && would_block(src) && enough(ctx, r->head, r->len))
            break;
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

int ddb_source_open_auto(ddb_source **out, const char *path, unsigned flags, ddb_source **md5_out,
                         ddb_error *err)
{
    ddb_source *s = NULL;
    int rc;

    *out = NULL;
    if (md5_out != NULL)
        *md5_out = NULL;
    if ((rc = ddb_source_open_file(&s, path, err)) != 0)
        return rc;
    return ddb_source_auto(out, s, flags, md5_out, err);
}

int ddb_source_auto(ddb_source **out, ddb_source *s, unsigned flags, ddb_source **md5_out,
                    ddb_error *err)
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
        if (!(flags & DDB_SOURCE_ONE_THREAD) && ddb_source_reads_regular_file(s) &&
            (rc = ddb_source_new_readahead(&s, s, err)) != 0)
            return rc;
    }
    if (md5_out != NULL)
        *md5_out = md5;
    *out = s;
    return 0;
}

/* A local regular file under s: reading ahead of it never blocks on a pipe
 * or a terminal, so the thread always ends. */
int ddb_source_reads_regular_file(const ddb_source *s)
{
    struct stat st;
    while (s->upstream != NULL)
        s = s->upstream;
    return s->vt == &file_vtable && ((const file_source *)s)->owns_fd &&
           fstat(((const file_source *)s)->fd, &st) == 0 && S_ISREG(st.st_mode);
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

int ddb_source_can_borrow(const ddb_source *src)
{
    if (src->vt->borrow == NULL)
        return 0;
    /* the replay lends what its upstream lends, after the head */
    return src->vt != &replay_vtable || ddb_source_can_borrow(src->upstream);
}

ssize_t ddb_source_borrow(ddb_source *src, const char **data, ddb_error *err)
{
    ssize_t n = src->vt->borrow(src, data, err);
    if (n > 0)
        src->bytes_in += (uint64_t)n;
    return n;
}

uint64_t ddb_source_raw_bytes(const ddb_source *src)
{
    while (src->upstream != NULL) {
        if (ddb_source_is_readahead(src)) /* below it, the thread's */
            return ddb_readahead_raw_bytes(src);
        src = src->upstream;
    }
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
