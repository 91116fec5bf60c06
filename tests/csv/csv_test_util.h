/*
 * csv_test_util.h — helpers shared by the CSV tests: a source that hands out
 * data in small chunks, and a text dump of everything a parser returns so two
 * parses can be compared.
 */
#ifndef CSV_TEST_UTIL_H
#define CSV_TEST_UTIL_H

#include <stddef.h>

#include "ddbpipe/buf.h"
#include "ddbpipe/csv.h"
#include "ddbpipe/source.h"

/* A source over data that returns at most chunk bytes per read. */
ddb_source *chunk_source_new(const void *data, size_t len, size_t chunk);

/* Parser over data through a chunk source (chunk 0 = one memory source block). */
ddb_csv *csv_over(const void *data, size_t len, size_t chunk, char delim, size_t max_row);

/* Parses everything and describes each call's result, one line per call, in
 * out (cleared first): code, line, offset, raw and fields with escapes. */
void csv_dump(ddb_buf *out, ddb_csv *p);

/* Expects the next row to succeed with exactly count fields equal to want
 * (NUL-terminated strings). Returns the row for further checks. */
ddb_csv_row csv_expect_row(ddb_csv *p, size_t count, const char *const *want);

#endif
