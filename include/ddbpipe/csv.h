/*
 * csv.h — RFC 4180 CSV: a streaming row parser and field quoting for writers.
 */
#ifndef DDBPIPE_CSV_H
#define DDBPIPE_CSV_H

#include <stddef.h>
#include <stdint.h>

#include "ddbpipe/buf.h"
#include "ddbpipe/error.h"
#include "ddbpipe/source.h"

typedef struct ddb_csv ddb_csv;

typedef struct ddb_csv_field {
    const char *ptr; /* unescaped bytes ("" turned into "); valid until the next row */
    size_t len;
    int quoted; /* the field was written in quotes (so "" is an empty string, not absent) */
} ddb_csv_field;

typedef struct ddb_csv_row {
    const ddb_csv_field *fields;
    size_t count;
    uint64_t line;   /* 1-based physical line where the row starts */
    uint64_t offset; /* byte offset of the row start in the decoded stream */
    const char *raw; /* the row's original text, terminator excluded */
    size_t raw_len;
} ddb_csv_row;

/*
 * Reads CSV rows from src (owned by the parser from now on, even on failure).
 * delimiter is ',', '\t', ';' or '|'. Rules: fields may be quoted with '"',
 * a quote inside a quoted field is written "", quoted fields may hold
 * delimiters, CR, LF; rows end with LF or CRLF (a final row may lack it); a
 * UTF-8 byte-order mark at the very start is skipped; empty lines (no bytes
 * at all) are skipped but still counted in line numbers. A bare CR (not
 * followed by LF) is data, not a row end. max_row bounds the bytes of one row
 * (0 = 64 MiB). The input is read in blocks of 1 MiB, growing only for a
 * longer row. Returns DDB_EUSAGE for another delimiter, DDB_ENOMEM.
 */
DDB_MUST_USE int ddb_csv_new(ddb_csv **out, ddb_source *src, char delimiter, size_t max_row,
                             ddb_error *err);

/*
 * Next row. Returns 0 with *row filled (valid until the next call),
 * DDB_ITEROVER at end, DDB_EINVAL for a malformed row (a stray quote inside
 * an unquoted field, text after a closing quote, an unterminated quoted field
 * at end of input) with err naming the line and byte offset — the parser has
 * skipped to the next line and the caller may go on — DDB_ETOOBIG for an
 * over-long row (skipped likewise), or another negative code on a read error.
 * On DDB_EINVAL / DDB_ETOOBIG, *row still carries line, offset and raw text
 * (fields NULL, count 0). The message reads "line N (byte offset O): reason",
 * N and O locating the offending byte (for an unterminated field, its opening
 * quote), plus "(row starts at line L)" when the row began on an earlier line.
 * A malformed row's raw text runs to the end of the physical line where the
 * error is (to the end of input when unterminated); raw text never exceeds
 * max_row bytes, so an over-long row's raw is its first max_row bytes.
 */
int ddb_csv_next(ddb_csv *p, ddb_csv_row *row, ddb_error *err);

void ddb_csv_free(ddb_csv *p);

/* Appends one field, quoted only when needed (it contains the delimiter, a
 * quote, CR or LF, or leading/trailing space or tab, or force_quote is set).
 * An empty field is written as nothing unless force_quote: pass it to keep an
 * empty string distinct from an absent value (and a one-column row with an
 * empty value from an empty line, which the parser skips). Returns 0 or
 * DDB_ENOMEM. */
int ddb_csv_put_field(ddb_buf *b, const char *s, size_t len, char delimiter, int force_quote);

#endif
