/*
 * sink.h — byte streams, write side: files written atomically or resumably,
 * standard output, memory, and the gzip filter.
 *
 * As sources, a sink is a small struct with a const vtable and an upstream
 * pointer; freeing a sink frees its upstream.
 */
#ifndef DDBPIPE_SINK_H
#define DDBPIPE_SINK_H

#include <stddef.h>
#include <stdint.h>

#include "ddbpipe/buf.h"
#include "ddbpipe/error.h"

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

/*
 * A file written under partial_path and renamed onto final_path by finish(),
 * like an atomic file, except that free() without finish() KEEPS the partial
 * file: an interrupted run can be resumed. With resume, the existing partial
 * file is cut to keep_len bytes and appended to (DDB_EIO if it is shorter);
 * otherwise it is created empty. bytes_out counts from keep_len.
 */
int ddb_sink_open_partial(ddb_sink **out, const char *final_path, const char *partial_path,
                          int resume, uint64_t keep_len, ddb_error *err);

/*
 * A file sink (partial or atomic) whose file is scratch, deleted unsynced
 * at the end: no writeback is started as it is written. Otherwise the disk
 * writes what is thrown away, and deleting the file waits for those writes
 * (130 ms for a CSV spill of 480 MB). Other sinks: nothing.
 */
void ddb_sink_scratch(ddb_sink *s);

/*
 * Whether s can be emptied to be written again from its start: an atomic
 * file not yet finished (its temporary file, which nobody else sees) or a
 * memory sink. Not standard output, a partial file (a resumed run's), a
 * filter (gzip) or an S3 object.
 */
int ddb_sink_can_rewind(const ddb_sink *s);
/* Empties such a sink: what was written is dropped (the temporary file cut
 * to nothing) and bytes_out is 0 again. DDB_EUSAGE for any other sink, which
 * is left as it was; DDB_EIO when the file cannot be cut (the sink failed). */
int ddb_sink_rewind(ddb_sink *s, ddb_error *err);
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

/*
 * Writing behind: a thread of its own writes s while the caller makes the
 * next bytes (the no-mapping CSV lays its rows out under the header on one
 * core while the other copies them into the file, or compresses them).
 * Buffers change hands whole: ddb_sink_behind_swap queues full for the
 * thread and leaves full empty (one the thread has written, its room kept),
 * waiting while four are queued; so memory is five of the caller's buffers
 * and bytes go out in order. Between
 * start and end nothing else may touch s. A thread that cannot be had leaves
 * each swap writing in place: the same bytes. Not for a sink that drives a
 * network client (an S3 object): the client's callbacks would run on the
 * thread.
 */
typedef struct ddb_sink_behind ddb_sink_behind;
/* Starts writing behind into s (borrowed). Returns 0 or DDB_ENOMEM. */
DDB_MUST_USE int ddb_sink_behind_start(ddb_sink_behind **out, ddb_sink *s, ddb_error *err);
/* Hands full's bytes over (see above). Returns 0, or the error of a write
 * that failed before (sticky: later bytes are dropped, full cleared). */
DDB_MUST_USE int ddb_sink_behind_swap(ddb_sink_behind *b, ddb_buf *full, ddb_error *err);
/* Waits for the bytes handed over to be written, stops the thread and frees
 * b; s is the caller's again. Returns 0 or the first failed write's error.
 * Accepts NULL. */
int ddb_sink_behind_end(ddb_sink_behind *b, ddb_error *err);
/* Frees s and everything upstream. Accepts NULL. */
void ddb_sink_free(ddb_sink *s);

#endif
