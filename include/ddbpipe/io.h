/*
 * io.h — byte streams: sources (read side), sinks (write side) and a line
 * splitter.
 *
 * A stream is a small struct with a const vtable and an upstream pointer, so
 * filters (gzip, an MD5 tap, a replay buffer) stack between the file and the
 * parser without the parser knowing. Freeing a stream frees its upstream.
 */
#ifndef DDBPIPE_IO_H
#define DDBPIPE_IO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ddbpipe/error.h"

/* ---------------------------------------------------------------- sources */

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

/* Opens path and, when its first bytes are the gzip magic (1f 8b), inserts a
 * gzip filter: the format is picked by content, never by the extension.
 * md5_out, when not NULL, receives an MD5 filter placed on the raw file bytes
 * (before decompression) whose digest the caller can read at the end; it is
 * owned by the returned chain. */
DDB_MUST_USE int ddb_source_open_auto(ddb_source **out, const char *path, ddb_source **md5_out,
                                      ddb_error *err);

/* The same over a source already open (raw bytes, e.g. an S3 object). Takes
 * ownership of raw, even on failure. */
DDB_MUST_USE int ddb_source_auto(ddb_source **out, ddb_source *raw, ddb_source **md5_out,
                                 ddb_error *err);

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

/* The last component of a path ("a/b/c.json" -> "c.json"), pointing into path. */
const char *ddb_path_base(const char *path);

/* Reads a whole regular file of at most max bytes into *out (malloc'd, with a
 * '\0' after its *len bytes). Returns 0, DDB_ENOTFOUND, DDB_ETOOBIG, DDB_EIO,
 * DDB_ENOMEM. */
DDB_MUST_USE int ddb_file_read_small(char **out, size_t *len, const char *path, size_t max,
                                     ddb_error *err);

/* dir/name (name alone for dir "."), malloc'd; NULL when out of memory. */
char *ddb_path_join(const char *dir, const char *name);

/* name in the folder of path ("a/b.x", "c" -> "a/c"; "b.x", "c" -> "c"),
 * malloc'd; NULL when out of memory. */
char *ddb_path_sibling(const char *path, const char *name);

/* Frees src and everything upstream of it. Accepts NULL. */
void ddb_source_free(ddb_source *src);

/* ------------------------------------------------------------------ lines */

typedef struct ddb_lines ddb_lines;

/* Splits a source into lines (LF or CRLF). Lines longer than max_line bytes
 * (0 = 64 MiB) are reported as DDB_ETOOBIG once and skipped. Takes ownership
 * of src, even on failure. */
DDB_MUST_USE int ddb_lines_new(ddb_lines **out, ddb_source *src, size_t max_line, ddb_error *err);

/*
 * Next line, without its terminator. *line stays valid until the next call.
 * Returns 0 with a line, DDB_ITEROVER at end, DDB_ETOOBIG for an over-long line
 * (skipped; the reader can go on), or another negative code on a read error.
 * A final line without a newline is still a line.
 */
int ddb_lines_next(ddb_lines *lr, const char **line, size_t *len, ddb_error *err);

/* 1-based number and byte offset (in the decoded stream) of the last line returned. */
uint64_t ddb_lines_lineno(const ddb_lines *lr);
uint64_t ddb_lines_offset(const ddb_lines *lr);

/* The underlying source (still owned by lr). */
ddb_source *ddb_lines_source(ddb_lines *lr);

void ddb_lines_free(ddb_lines *lr);

/* ------------------------------------------------------------------ sinks */

typedef struct ddb_sink ddb_sink;

typedef struct ddb_sink_vtable {
    /* Writes all len bytes or fails. Returns 0 or a negative code. */
    int (*write)(ddb_sink *s, const void *buf, size_t len, ddb_error *err);
    /* Flushes buffers to the upstream (gzip: a sync flush) without ending the
     * stream, so everything written so far can be read back. Only this stream:
     * ddb_sink_flush() walks the chain. */
    int (*flush)(ddb_sink *s, ddb_error *err);
    /* Ends the stream successfully: writes trailers, flushes and, for an
     * atomic file, fsyncs and renames it into place. Only this stream (must be
     * idempotent): ddb_sink_finish() then finishes the upstream. */
    int (*finish)(ddb_sink *s, ddb_error *err);
    /* Frees this stream's state. An unfinished atomic file is removed. */
    void (*free)(ddb_sink *s);
    /* Makes everything written so far durable and self-contained, so the file
     * can be cut at its current length and appended to later: gzip ends its
     * member (a resumed run appends new members), a file flushes and fsyncs.
     * Handles only this stream; ddb_sink_checkpoint walks the chain. */
    int (*checkpoint)(ddb_sink *s, ddb_error *err);
    /* A bottom stream's first half of finish (NULL: none; must be
     * idempotent): everything written is sent and confirmed at the
     * destination but not yet visible (an S3 upload's parts), so that finish
     * has only to make it visible, which cannot be half done. Filters have
     * none: ddb_sink_prepare() ends them with their finish. */
    int (*prepare)(ddb_sink *s, ddb_error *err);
    /* The state the last checkpoint described is saved (NULL: nothing to
     * do): what it named is now what a resumed run goes on from (an S3
     * upload it may continue rather than abort). Only this stream;
     * ddb_sink_saved() walks the chain. */
    void (*saved)(ddb_sink *s);
} ddb_sink_vtable;

struct ddb_sink {
    const ddb_sink_vtable *vt;
    ddb_sink *upstream; /* owned */
    char *name;         /* owned display name (final path) */
    uint64_t bytes_out; /* bytes accepted by this stream so far */
};

/* Opens path for writing through a 256 KiB buffer; "-" means standard output.
 * With atomic != 0 the data goes to a temporary file beside path that is
 * renamed onto path by finish(); until then path is untouched, and free()
 * without finish() removes the temporary file. */
DDB_MUST_USE int ddb_sink_open_file(ddb_sink **out, const char *path, int atomic, ddb_error *err);

/* mkdir -p: creates dir and the folders above it that are missing. Returns 0,
 * DDB_EIO naming the folder that cannot be made, or DDB_ENOMEM. */
int ddb_make_dirs(const char *dir, ddb_error *err);

/* Removes a folder of files (not of folders) ddbpipe made, with its files;
 * one that does not exist is fine. */
void ddb_remove_dir(const char *dir);

/* Writes len bytes to path atomically (a temporary file, fsync, rename): the
 * file is the old one or the new one, never half of one. Returns 0, DDB_EIO,
 * DDB_ENOMEM. */
/* Writes path (created or truncated) with data, without syncing it: for a
 * folder of new files that ddb_dir_sync() makes durable together. Returns 0,
 * DDB_EIO or DDB_ENOMEM. */
DDB_MUST_USE int ddb_file_write(const char *path, const void *data, size_t len, ddb_error *err);

/* Makes every file in dir, and dir itself, durable (fsync), starting all their
 * writeback first so that one journal commit serves them all. Returns 0 or
 * DDB_EIO naming the file. */
DDB_MUST_USE int ddb_dir_sync(const char *dir, ddb_error *err);

DDB_MUST_USE int ddb_file_write_atomic(const char *path, const void *data, size_t len,
                                       ddb_error *err);

/* Is something other than a regular file at path (a device such as
 * /dev/null, a FIFO, a folder)? A file ddbpipe writes whole there is written
 * into, never renamed over or removed: run as root, a rename puts a regular
 * file in /dev/null's place. 0 when nothing is there. */
int ddb_path_is_special(const char *path);

/* Whether ddb_make_dirs(dir) and files in it could be made: the nearest part
 * of dir that exists must be a folder this process may write. Returns 0, or
 * DDB_EIO naming the part at fault. */
int ddb_check_dir_writable(const char *dir, ddb_error *err);

/*
 * A file written under partial_path and renamed onto final_path by finish(),
 * like an atomic file, except that free() without finish() KEEPS the partial
 * file: an interrupted run can be resumed. With resume, the existing partial
 * file is cut to keep_len bytes and appended to (DDB_EIO if it is shorter);
 * otherwise it is created empty. bytes_out counts from keep_len.
 */
int ddb_sink_open_partial(ddb_sink **out, const char *final_path, const char *partial_path,
                          int resume, uint64_t keep_len, ddb_error *err);

/* Checkpoints the whole chain (filters first): see the vtable's checkpoint. */
int ddb_sink_checkpoint(ddb_sink *s, ddb_error *err);

/* Bytes in the file at the bottom of the chain (for a partial file: from its start). */
uint64_t ddb_sink_file_length(const ddb_sink *s);

/* A sink into a growable memory buffer (for tests). The data is returned by
 * ddb_sink_memory_data() and stays owned by the sink. */
int ddb_sink_new_memory(ddb_sink **out, ddb_error *err);
const char *ddb_sink_memory_data(ddb_sink *s, size_t *len);

/* gzip compression filter: level 1..9 with zlib; 0, the default, is Intel
 * ISA-L's level 2 where it is built in (about zlib 6's size at a twelfth of
 * its CPU), else zlib 6. Takes ownership of upstream, even on failure. */
int ddb_sink_new_gzip(ddb_sink **out, ddb_sink *upstream, int level, ddb_error *err);

/* Writes all len bytes (0 or a negative code; a failed file sink stays failed). */
DDB_MUST_USE int ddb_sink_write(ddb_sink *s, const void *buf, size_t len, ddb_error *err);
/* Flushes s, then each stream upstream of it, so the bottom file holds all
 * bytes written so far. */
DDB_MUST_USE int ddb_sink_flush(ddb_sink *s, ddb_error *err);
/* Finishes the whole chain, filter first, then its upstream. Without it,
 * buffered data is discarded by ddb_sink_free() and an atomic file never
 * appears. Errors (ENOSPC, a failed close or rename) name the path. */
DDB_MUST_USE int ddb_sink_finish(ddb_sink *s, ddb_error *err);
/* The first half of ddb_sink_finish, for outputs of several files that must
 * all appear or none: ends every filter of the chain (its trailer written
 * upstream) and prepares the bottom (vtable prepare). Interrupted or failed,
 * nothing is visible; ddb_sink_finish afterwards only commits. */
DDB_MUST_USE int ddb_sink_prepare(ddb_sink *s, ddb_error *err);

/* Tells s and everything upstream that the state their last checkpoint
 * (ddb_sink_checkpoint) described is saved. A checkpoint never saved names
 * nothing: a run that ends after it treats its uploads as unnamed. */
void ddb_sink_saved(ddb_sink *s);

/* Frees s and everything upstream. Accepts NULL. */
void ddb_sink_free(ddb_sink *s);

#endif
