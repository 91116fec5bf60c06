/*
 * lines.h — a source split into lines (LF or CRLF), with each line's number
 * and byte offset for messages that name their place.
 */
#ifndef DDBPIPE_LINES_H
#define DDBPIPE_LINES_H

#include <stddef.h>
#include <stdint.h>

#include "ddbpipe/error.h"
#include "ddbpipe/source.h"

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

#endif
