/*
 * source.h — byte streams, read side: files, standard input, memory, and the
 * filters that stack on them (gzip, an MD5 tap, a sniff-and-replay buffer, a
 * read-ahead thread).
 *
 * A stream is a small struct with a const vtable and an upstream pointer, so
 * filters stack between the file and the parser without the parser knowing.
 * Freeing a stream frees its upstream.
 */
#ifndef DDBPIPE_SOURCE_H
#define DDBPIPE_SOURCE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ddbpipe/error.h"

typedef struct ddb_source ddb_source;

typedef struct ddb_source_vtable {
    /* Reads up to len bytes. Returns the count (> 0), 0 at end of stream, or a
     * negative ddb_error_code with err filled. */
    ssize_t (*read)(ddb_source *src, void *buf, size_t len, ddb_error *err);
    /* Frees this stream's own state (not the upstream, not the struct name). */
    void (*free)(ddb_source *src);
    /* Lends the stream's next bytes where they already are instead of copying
     * them (NULL: the stream cannot): *data holds the count returned (> 0)
     * and stays valid until the next call on this source; 0 at the end, or a
     * negative code with err set, as read. */
    ssize_t (*borrow)(ddb_source *src, const char **data, ddb_error *err);
} ddb_source_vtable;

struct ddb_source {
    const ddb_source_vtable *vt;
    ddb_source *upstream; /* owned; freed with this source */
    char *name;           /* owned display name (the path, or "-" / "stdin") */
    uint64_t bytes_in;    /* bytes this stream has returned so far */
};

/* Opens a file for reading; "-" means standard input. Returns 0, DDB_ENOTFOUND
 * or DDB_EIO (message names the path and errno text). */
DDB_MUST_USE int ddb_source_open_file(ddb_source **out, const char *path, ddb_error *err);

/*
 * What a thread does while the file it reads has no data yet (a pipe, a FIFO,
 * a terminal, a socket; never a regular file): wait until fd is readable (or
 * at its end) and return 0, or return a negative code with err set (DDB_EINTR:
 * the run was interrupted), which the read returns. A pipeline's thread
 * drives its requests in flight meanwhile: an upload must not stall, and
 * time out, while its producer pauses.
 */
typedef struct ddb_io_waiter {
    int (*wait)(void *ctx, int fd, ddb_error *err);
    void *ctx;
} ddb_io_waiter;

/* Sets the calling thread's waiter ({NULL}: a read blocks) and returns the
 * one it replaces. Only file sources read on this thread consult it. */
ddb_io_waiter ddb_io_set_waiter(ddb_io_waiter w);

/* A source over caller memory (not copied; must outlive the source). For tests
 * and for buffers already in memory. name may be NULL. */
int ddb_source_new_memory(ddb_source **out, const void *data, size_t len, const char *name,
                          ddb_error *err);

/* gzip decompression filter. Handles concatenated gzip members (as `zcat`
 * does) and reports truncated or corrupt data as DDB_EIO naming the source and
 * the compressed byte offset. Takes ownership of upstream, even on failure. */
DDB_MUST_USE int ddb_source_new_gzip(ddb_source **out, ddb_source *upstream, ddb_error *err);

/* Pass-through filter computing the MD5 of every byte read through it. Takes
 * ownership of upstream, even on failure. */
DDB_MUST_USE int ddb_source_new_md5(ddb_source **out, ddb_source *upstream, ddb_error *err);

/* The MD5 of all bytes read so far through an MD5 filter (16 bytes). Returns
 * DDB_EINVAL when src is not an MD5 filter. Reading the whole stream first is
 * the caller's job. */
int ddb_source_md5_digest(ddb_source *src, unsigned char digest[16]);

/* Reads up to want bytes from src for content sniffing, then wraps src so the
 * sniffed bytes are read again first. *peek points at the bytes (valid while
 * *out lives), *peek_len may be < want at end of stream. Takes ownership of
 * src, even on failure. */
DDB_MUST_USE int ddb_source_sniff(ddb_source **out, ddb_source *src, size_t want,
                                  const unsigned char **peek, size_t *peek_len, ddb_error *err);

/* ddb_source_sniff that also stops, short of want, when the input would
 * make it wait (a pipe whose writer pauses) and enough(ctx, ...) (may be
 * NULL: never) says the bytes read so far are enough to tell the format: a
 * producer that writes a few lines and pauses sees them read at once. */
DDB_MUST_USE int ddb_source_sniff_until(ddb_source **out, ddb_source *src, size_t want,
                                        int (*enough)(void *ctx, const unsigned char *p, size_t n),
                                        void *ctx, const unsigned char **peek, size_t *peek_len,
                                        ddb_error *err);

/* Flags of ddb_source_open_auto and ddb_source_auto. */
enum {
    /* Inflate on the caller's thread: no readahead thread under a gzip file
     * (--threads 1 means one core, inflating included). */
    DDB_SOURCE_ONE_THREAD = 1u << 0
};

/* Opens path and, when its first bytes are the gzip magic (1f 8b), inserts a
 * gzip filter: the format is picked by content, never by the extension. A
 * gzip regular file is inflated ahead on a thread of its own unless flags
 * has DDB_SOURCE_ONE_THREAD. md5_out, when not NULL, receives an MD5 filter
 * placed on the raw file bytes (before decompression) whose digest the
 * caller can read at the end; it is owned by the returned chain. */
DDB_MUST_USE int ddb_source_open_auto(ddb_source **out, const char *path, unsigned flags,
                                      ddb_source **md5_out, ddb_error *err);

/* The same over a source already open (raw bytes, e.g. an S3 object). Takes
 * ownership of raw, even on failure. */
DDB_MUST_USE int ddb_source_auto(ddb_source **out, ddb_source *raw, unsigned flags,
                                 ddb_source **md5_out, ddb_error *err);

/* Reads through src->vt and counts the bytes in src->bytes_in. Returns > 0,
 * 0 at end of stream (also when len is 0), or a negative code with err set. */
ssize_t ddb_source_read(ddb_source *src, void *buf, size_t len, ddb_error *err);

/* Whether ddb_source_borrow() works on src for the rest of the stream. */
int ddb_source_can_borrow(const ddb_source *src);

/* Lends src's next bytes (vtable borrow) and counts them in src->bytes_in;
 * only where ddb_source_can_borrow(). Returns as the vtable's borrow. */
ssize_t ddb_source_borrow(ddb_source *src, const char **data, ddb_error *err);

/* Reads upstream ahead in a thread of its own, into a few buffers of 1 MiB
 * (bounded memory), so inflating overlaps parsing; bytes come out in order,
 * an error after the bytes read before it. Only over sources whose reads end
 * (a regular file, not a pipe): freeing waits for the thread. Takes upstream
 * (freed on failure). Returns 0, DDB_ENOMEM, DDB_ERROR. */
DDB_MUST_USE int ddb_source_new_readahead(ddb_source **out, ddb_source *upstream, ddb_error *err);

/* Bytes read from the bottom of the chain (the file itself): for progress. */
uint64_t ddb_source_raw_bytes(const ddb_source *src);

/* Frees src and everything upstream of it. Accepts NULL. */
void ddb_source_free(ddb_source *src);

#endif
