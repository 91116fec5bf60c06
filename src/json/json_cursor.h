/*
 * json_cursor.h (private header of json/) — a cursor over a stream of JSON text that follows
 * its structure without building it: whitespace, punctuation, and the extent
 * of one complete value (strings with escapes, nested brackets). Readers of
 * JSON documents (scan output, arrays of items, BatchWriteItem requests,
 * NoSQL Workbench models) walk the document with it and hand each element
 * they want to the parser on its own, so memory is bounded by the largest
 * element, never by the document.
 *
 * The text lives in one buffer that refills from the source; buf[pos] is the
 * next byte. A refill drops what lies before pos (or before the mark, when
 * one is set), so pointers into buf stay valid only until the next call that
 * may read.
 */
#ifndef DDBPIPE_JSON_CURSOR_H
#define DDBPIPE_JSON_CURSOR_H

#include <stddef.h>
#include <stdint.h>

#include "ddbpipe/error.h"
#include "ddbpipe/source.h"

typedef struct ddb_jcur {
    ddb_source *src;  /* owned */
    const char *name; /* the input, for messages (not owned) */
    char *buf;
    size_t cap, len, pos;
    uint64_t base_off; /* stream offset of buf[0] */
    uint64_t line;     /* line number at buf[pos] */
    int eof;
    size_t max;  /* the largest value kept whole */
    size_t mark; /* with has_mark: refills keep buf[mark..) */
    int has_mark;
    struct ddb_json_parser *parser; /* decodes keys */
    struct ddb_arena *arena;
} ddb_jcur;

/* Starts a cursor over src (owned from now on, even on failure). max = 0:
 * 64 MiB. Returns 0 or DDB_ENOMEM. */
int ddb_jcur_init(ddb_jcur *c, ddb_source *src, const char *name, size_t max, ddb_error *err);
void ddb_jcur_dispose(ddb_jcur *c);

/* Skips whitespace (and a byte-order mark at the very start). Returns 1 when
 * a byte is available at buf[pos], 0 at the end of input, <0 on error. */
int ddb_jcur_peek(ddb_jcur *c, ddb_error *err);

/* Makes at least n bytes from pos available (fewer at the end of input).
 * Returns 0 or an error. */
int ddb_jcur_ensure(ddb_jcur *c, size_t n, ddb_error *err);

/* The complete value starting at buf[pos] is in the buffer: *end is one past
 * it. Returns 0, DDB_EINVAL (malformed: the message names the line),
 * DDB_ETOOBIG (longer than max) or a read error. */
int ddb_jcur_value(ddb_jcur *c, size_t *end, ddb_error *err);

/* Moves pos to `to`, counting the lines passed. */
void ddb_jcur_advance(ddb_jcur *c, size_t to);

/* After whitespace, the byte ch (consumed); else DDB_EINVAL saying what was
 * expected. */
int ddb_jcur_expect(ddb_jcur *c, char ch, const char *what, ddb_error *err);

/* Reads an object key ("..." then ':'): *key points at its unescaped bytes
 * (valid until the next call on c). Returns 0 or an error. */
int ddb_jcur_key(ddb_jcur *c, const char **key, size_t *len, ddb_error *err);

static inline uint64_t ddb_jcur_offset(const ddb_jcur *c)
{
    return c->base_off + c->pos;
}

/*
 * Finds the end of the JSON value starting at b[pos] within b[0, len):
 * strings with escapes and nested brackets are followed; a scalar ends at
 * , } ] or whitespace. Returns 1 with *end set, 0 when more text is needed
 * (only when !eof), -1 on malformed text (an empty scalar included).
 */
int ddb_json_value_end(const char *b, size_t pos, size_t len, int eof, size_t *end);

#endif
