/*
 * sink.c — write-side byte streams: file/stdout (optionally atomic via a
 * temporary file and rename), memory, and the gzip filter.
 *
 * Every system call result is checked, close() included: a full disk often
 * only shows up there, and a silently truncated export is the worst outcome.
 */
#ifdef __linux__
#define _GNU_SOURCE /* sync_file_range */
#endif
#include "ddbpipe/fs.h"
#include "ddbpipe/sink.h"
#include "ddbpipe/source.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ddbpipe/buf.h"
#include "io/io_internal.h"

#define FILE_BUF (256u * 1024u)
/* A file being written asks the kernel to start writing its pages out every
 * this much: the fsync that commits it then waits for the last stretch only,
 * not for the whole file, and the disk works while the run does. */
#define WRITEBACK_STEP (8u * 1024u * 1024u)
#define TMP_ATTEMPTS 1000

ddb_sink *ddb_sink_alloc(size_t size, const ddb_sink_vtable *vt, const char *name)
{
    ddb_sink *s = calloc(1, size);

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

typedef struct file_sink {
    ddb_sink base;
    int fd;
    int owns_fd; /* 0 for stdout */
    int finished;
    int failed;  /* a write failed: the file is incomplete, refuse to finish */
    char *tmp;   /* atomic mode: temporary path until renamed, else NULL */
    int keep;    /* partial mode: free() leaves tmp in place for a resumed run */
    int scratch; /* deleted unsynced at the end: no writeback (ddb_sink_scratch) */
    unsigned char *buf;
    size_t len;
    uint64_t written;   /* bytes written to fd by this sink */
    uint64_t writeback; /* up to here, writeback was started */
} file_sink;

/* The path being written, for messages: the final path, plus the temporary. */
static int file_error(file_sink *f, ddb_error *err, const char *what, int e)
{
    f->failed = 1;
    if (f->tmp != NULL)
        return ddb_error_set(err, DDB_EIO, "%s %s (temporary file %s): %s", what, f->base.name,
                             f->tmp, strerror(e));
    return ddb_error_set(err, DDB_EIO, "%s %s: %s", what, f->base.name, strerror(e));
}

/* Starts writing back what was written and not yet started (a hint: its
 * errors, if real, come back at fsync). Only for files that will be synced. */
static void start_writeback(file_sink *f)
{
    if (f->scratch) {
        f->writeback = f->written; /* nothing to start, nor to ask again */
        return;
    }
#ifdef __linux__
    if (f->tmp != NULL && f->written > f->writeback &&
        sync_file_range(f->fd, (off_t)f->writeback, (off_t)(f->written - f->writeback),
                        SYNC_FILE_RANGE_WRITE) == 0)
        f->writeback = f->written;
#else
    (void)f;
#endif
}

static int file_write_all(file_sink *f, const unsigned char *p, size_t n, ddb_error *err)
{
    while (n > 0) {
        ssize_t w = write(f->fd, p, n > (size_t)SSIZE_MAX ? (size_t)SSIZE_MAX : n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return file_error(f, err, "write", errno);
        }
        if (w == 0)
            return file_error(f, err, "write", EIO);
        p += w;
        n -= (size_t)w;
        f->written += (uint64_t)w;
    }
    if (f->written - f->writeback >= WRITEBACK_STEP)
        start_writeback(f);
    return 0;
}

static int file_check(file_sink *f, ddb_error *err)
{
    if (f->failed)
        return ddb_error_set(err, DDB_EIO, "%s: an earlier write failed", f->base.name);
    if (f->finished)
        return ddb_error_set(err, DDB_EINVAL, "%s: write after finish", f->base.name);
    return 0;
}

static int file_write(ddb_sink *s, const void *data, size_t len, ddb_error *err)
{
    file_sink *f = (file_sink *)s;
    int rc;

    if ((rc = file_check(f, err)) != 0)
        return rc;
    if (len <= FILE_BUF - f->len) {
        memcpy(f->buf + f->len, data, len);
        f->len += len;
        return 0;
    }
    if (f->len > 0) {
        if ((rc = file_write_all(f, f->buf, f->len, err)) != 0)
            return rc;
        f->len = 0;
    }
    if (len >= FILE_BUF) /* big blocks go straight out: no point copying */
        return file_write_all(f, data, len, err);
    memcpy(f->buf, data, len);
    f->len = len;
    return 0;
}

static int file_flush(ddb_sink *s, ddb_error *err)
{
    file_sink *f = (file_sink *)s;
    int rc;

    if (f->finished)
        return 0;
    if ((rc = file_check(f, err)) != 0)
        return rc;
    if (f->len > 0 && (rc = file_write_all(f, f->buf, f->len, err)) != 0)
        return rc;
    f->len = 0;
    return 0;
}

/* Makes the rename durable. */
static int fsync_parent(file_sink *f, ddb_error *err)
{
    const char *slash = strrchr(f->base.name, '/');
    char *dir;
    int rc;

    if (slash == NULL)
        dir = strdup(".");
    else if (slash == f->base.name)
        dir = strdup("/");
    else
        dir = strndup(f->base.name, (size_t)(slash - f->base.name));
    if (dir == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory finishing %s", f->base.name);
    rc = ddb_io_fsync_dir(dir, f->base.name, err);
    free(dir);
    return rc;
}

static int file_finish(ddb_sink *s, ddb_error *err)
{
    file_sink *f = (file_sink *)s;
    int rc, fd;

    if (f->finished)
        return 0;
    if ((rc = file_flush(s, err)) != 0)
        return rc;
    if (!f->owns_fd) {
        f->finished = 1;
        return 0;
    }
    if (f->tmp != NULL && fsync(f->fd) != 0)
        return file_error(f, err, "fsync", errno);
    fd = f->fd;
    f->fd = -1;
    /* Linux closes the descriptor even when close() reports an error. */
    if (close(fd) != 0)
        return file_error(f, err, "close", errno);
    if (f->tmp != NULL) {
        if (rename(f->tmp, f->base.name) != 0)
            return file_error(f, err, "rename onto", errno);
        free(f->tmp);
        f->tmp = NULL;
        f->finished = 1;
        return fsync_parent(f, err);
    }
    f->finished = 1;
    return 0;
}

static void file_free(ddb_sink *s)
{
    file_sink *f = (file_sink *)s;

    if (f->owns_fd && f->fd >= 0)
        close(f->fd);
    if (f->tmp != NULL) {
        if (!f->keep)
            unlink(f->tmp);
        free(f->tmp);
    }
    free(f->buf);
}

static int file_checkpoint(ddb_sink *s, ddb_error *err)
{
    file_sink *f = (file_sink *)s;
    int rc;
    if (f->finished)
        return 0;
    if ((rc = file_flush(s, err)) != 0)
        return rc;
    if (f->owns_fd && fsync(f->fd) != 0)
        return file_error(f, err, "fsync", errno);
    return 0;
}

/* Every file of a run is prepared before the first is finished: all their
 * pages are on their way to the disk before the first fsync waits, and the
 * journal commit that fsync makes covers the others' blocks too, so theirs
 * find little left to do (one commit for the set, not one per file). The
 * rename at finish is the commit, and nothing cuts it. */
static int file_prepare(ddb_sink *s, ddb_error *err)
{
    int rc = file_flush(s, err);
    if (rc == 0 && !((file_sink *)s)->finished)
        start_writeback((file_sink *)s);
    return rc;
}

static const ddb_sink_vtable file_vtable = {file_write,      file_flush,   file_finish, file_free,
                                            file_checkpoint, file_prepare, NULL};

/* Creates ".<base>.tmp-<pid>-<n>" beside path with O_EXCL; n counts up on
 * collisions, so two sinks on one path in one process still get their own. */
static int open_temp(file_sink *f, const char *path, ddb_error *err)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
    size_t cap = dirlen + strlen(base) + 64;
    int i;

    if (*base == '\0')
        return ddb_error_set(err, DDB_EIO, "cannot write %s: not a file name", path);
    f->tmp = malloc(cap);
    if (f->tmp == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory opening %s", path);
    for (i = 0; i < TMP_ATTEMPTS; i++) {
        snprintf(f->tmp, cap, "%.*s.%s.tmp-%ld-%d", (int)dirlen, path, base, (long)getpid(), i);
        f->fd = open(f->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (f->fd >= 0)
            return 0;
        if (errno != EEXIST && errno != EINTR)
            break;
    }
    {
        int e = errno;
        int rc = ddb_error_set(err, DDB_EIO, "cannot create temporary file %s for %s: %s", f->tmp,
                               path, strerror(e));
        free(f->tmp); /* never created: nothing to unlink */
        f->tmp = NULL;
        return rc;
    }
}

int ddb_sink_open_file(ddb_sink **out, const char *path, int atomic, ddb_error *err)
{
    file_sink *f;
    int is_stdout = strcmp(path, "-") == 0;
    int rc = 0;

    *out = NULL;
    f = (file_sink *)ddb_sink_alloc(sizeof(*f), &file_vtable, is_stdout ? "stdout" : path);
    if (f == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory opening %s", path);
    f->fd = -1;
    f->buf = malloc(FILE_BUF);
    if (f->buf == NULL) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory opening %s", path);
        goto done;
    }
    if (is_stdout) {
        f->fd = STDOUT_FILENO;
        goto done;
    }
    /* a device or a FIFO (/dev/null for a file not wanted) is written into */
    if (atomic && ddb_path_is_special(path))
        atomic = 0;
    if (atomic) {
        rc = open_temp(f, path, err);
    } else {
        do {
            f->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        } while (f->fd < 0 && errno == EINTR);
        if (f->fd < 0)
            rc = ddb_error_set(err, DDB_EIO, "cannot create %s: %s", path, strerror(errno));
    }
    if (rc == 0)
        f->owns_fd = 1;
done:
    if (rc != 0) {
        ddb_sink_free(&f->base);
        return rc;
    }
    *out = &f->base;
    return 0;
}

void ddb_sink_scratch(ddb_sink *s)
{
    if (s != NULL && s->vt == &file_vtable)
        ((file_sink *)s)->scratch = 1;
}

int ddb_sink_open_partial(ddb_sink **out, const char *final_path, const char *partial_path,
                          int resume, uint64_t keep_len, ddb_error *err)
{
    file_sink *f;
    int rc = 0;
    struct stat st;

    *out = NULL;
    f = (file_sink *)ddb_sink_alloc(sizeof(*f), &file_vtable, final_path);
    if (f == NULL || (f->buf = malloc(FILE_BUF)) == NULL ||
        (f->tmp = strdup(partial_path)) == NULL) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory opening %s", final_path);
        goto done;
    }
    f->fd = -1;
    f->keep = 1;
    do {
        f->fd = open(partial_path, O_WRONLY | O_CREAT | O_CLOEXEC | (resume ? 0 : O_TRUNC), 0644);
    } while (f->fd < 0 && errno == EINTR);
    if (f->fd < 0) {
        rc = ddb_error_set(err, DDB_EIO, "cannot open %s: %s", partial_path, strerror(errno));
        goto done;
    }
    f->owns_fd = 1;
    if (resume) {
        if (fstat(f->fd, &st) != 0 || (uint64_t)st.st_size < keep_len) {
            rc = ddb_error_set(err, DDB_EIO,
                               "cannot resume %s: it holds %lld bytes, the checkpoint says %llu",
                               partial_path, (long long)st.st_size, (unsigned long long)keep_len);
            goto done;
        }
        /* Whatever was written after the checkpoint is written again. */
        if (ftruncate(f->fd, (off_t)keep_len) != 0 || lseek(f->fd, 0, SEEK_END) < 0) {
            rc = ddb_error_set(err, DDB_EIO, "cannot resume %s: %s", partial_path, strerror(errno));
            goto done;
        }
        f->base.bytes_out = keep_len;
        f->written = f->writeback = keep_len;
    }
done:
    if (rc != 0) {
        if (f)
            f->keep = 1; /* never delete what a resume would need */
        ddb_sink_free(f ? &f->base : NULL);
        return rc;
    }
    *out = &f->base;
    return 0;
}

/* ---------------------------------------------------------------- memory */

typedef struct mem_sink {
    ddb_sink base;
    ddb_buf b;
} mem_sink;

static int mem_write(ddb_sink *s, const void *data, size_t len, ddb_error *err)
{
    if (ddb_buf_append(&((mem_sink *)s)->b, data, len) != 0)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory writing %s", s->name);
    return 0;
}

static int mem_nop(ddb_sink *s, ddb_error *err)
{
    (void)s;
    (void)err;
    return 0;
}

static void mem_free(ddb_sink *s)
{
    ddb_buf_dispose(&((mem_sink *)s)->b);
}

static const ddb_sink_vtable mem_vtable = {mem_write, mem_nop, mem_nop, mem_free,
                                           mem_nop,   NULL,    NULL};

int ddb_sink_new_memory(ddb_sink **out, ddb_error *err)
{
    mem_sink *m;

    *out = NULL;
    m = (mem_sink *)ddb_sink_alloc(sizeof(*m), &mem_vtable, "memory");
    if (m == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory creating a memory sink");
    m->b = (ddb_buf)DDB_BUF_INIT;
    *out = &m->base;
    return 0;
}

const char *ddb_sink_memory_data(ddb_sink *s, size_t *len)
{
    mem_sink *m = (mem_sink *)s;

    if (s == NULL || s->vt != &mem_vtable) {
        if (len != NULL)
            *len = 0;
        return NULL;
    }
    if (len != NULL)
        *len = m->b.len;
    return m->b.ptr ? m->b.ptr : "";
}

/* --------------------------------------------------------------- generic */

/* ------------------------------------------------------------ rewinding */

int ddb_sink_can_rewind(const ddb_sink *s)
{
    const file_sink *f = (const file_sink *)s;
    if (s == NULL)
        return 0;
    if (s->vt == &mem_vtable)
        return 1;
    return s->vt == &file_vtable && f->tmp != NULL && !f->keep && !f->finished && !f->failed;
}

int ddb_sink_rewind(ddb_sink *s, ddb_error *err)
{
    file_sink *f = (file_sink *)s;
    if (!ddb_sink_can_rewind(s))
        return ddb_error_set(err, DDB_EUSAGE, "%s cannot be written again from its start",
                             s != NULL ? s->name : "(no sink)");
    if (s->vt == &mem_vtable) {
        ddb_buf_clear(&((mem_sink *)s)->b);
    } else {
        f->len = 0;
        if (ftruncate(f->fd, 0) != 0)
            return file_error(f, err, "truncate", errno);
        if (lseek(f->fd, 0, SEEK_SET) != 0)
            return file_error(f, err, "seek", errno);
        f->written = f->writeback = 0;
    }
    s->bytes_out = 0;
    return 0;
}

int ddb_sink_write(ddb_sink *s, const void *buf, size_t len, ddb_error *err)
{
    int rc;

    if (len == 0)
        return 0;
    if ((rc = s->vt->write(s, buf, len, err)) != 0)
        return rc;
    s->bytes_out += len;
    return 0;
}

int ddb_sink_flush(ddb_sink *s, ddb_error *err)
{
    int rc;

    for (; s != NULL; s = s->upstream)
        if ((rc = s->vt->flush(s, err)) != 0)
            return rc;
    return 0;
}

int ddb_sink_finish(ddb_sink *s, ddb_error *err)
{
    int rc;

    for (; s != NULL; s = s->upstream)
        if ((rc = s->vt->finish(s, err)) != 0)
            return rc;
    return 0;
}

int ddb_sink_prepare(ddb_sink *s, ddb_error *err)
{
    int rc;

    for (; s != NULL; s = s->upstream) {
        if (s->upstream != NULL)
            rc = s->vt->finish(s, err); /* a filter: its end, into the stream below */
        else
            rc = s->vt->prepare ? s->vt->prepare(s, err) : 0;
        if (rc != 0)
            return rc;
    }
    return 0;
}

int ddb_sink_checkpoint(ddb_sink *s, ddb_error *err)
{
    for (; s != NULL; s = s->upstream) {
        int rc = s->vt->checkpoint ? s->vt->checkpoint(s, err) : 0;
        if (rc != 0)
            return rc;
    }
    return 0;
}

void ddb_sink_saved(ddb_sink *s)
{
    for (; s != NULL; s = s->upstream)
        if (s->vt->saved != NULL)
            s->vt->saved(s);
}

uint64_t ddb_sink_file_length(const ddb_sink *s)
{
    while (s->upstream != NULL)
        s = s->upstream;
    return s->bytes_out;
}

void ddb_sink_free(ddb_sink *s)
{
    while (s != NULL) {
        ddb_sink *up = s->upstream;
        s->vt->free(s);
        free(s->name);
        free(s);
        s = up;
    }
}
