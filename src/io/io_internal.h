/*
 * io_internal.h (private header of io/) — what the sources (source.c, source_gzip.c, source_readahead.c)
 * and the sinks (sink.c, sink_gzip.c) share.
 */
#ifndef DDBPIPE_IO_INTERNAL_H
#define DDBPIPE_IO_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "ddbpipe/sink.h"
#include "ddbpipe/source.h"

/* A zeroed source of size bytes with vt and a copy of name; NULL when out of
 * memory. */
ddb_source *ddb_source_alloc(size_t size, const ddb_source_vtable *vt, const char *name);

/* A local regular file at the bottom of s: reads from it always end. */
int ddb_source_reads_regular_file(const ddb_source *s);

/* s is a readahead source; the bytes its thread has read from the file. */
int ddb_source_is_readahead(const ddb_source *s);
uint64_t ddb_readahead_raw_bytes(const ddb_source *s);

/* A zeroed sink of size bytes with vt and a copy of name; NULL when out of
 * memory. */
ddb_sink *ddb_sink_alloc(size_t size, const ddb_sink_vtable *vt, const char *name);

/* Makes dir's entries durable (fsync of the folder); file systems that
 * cannot sync a folder say EINVAL, which is not a failure. of, when not NULL,
 * is the file it is done for, named in messages. Returns 0 or DDB_EIO. */
int ddb_io_fsync_dir(const char *dir, const char *of, ddb_error *err);

#endif
