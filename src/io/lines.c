/*
 * lines.c — zero-copy line splitter over a ddb_source.
 *
 * This is the hot path for multi-GB inputs: the source reads straight into
 * one big buffer, lines are found with memchr and handed out as pointers into
 * that buffer, and a refill moves only the partial line at the tail.
 *
 * A source that can lend its chunks (a readahead's buffers) is not copied at
 * all: lines within a chunk are handed out where they are, and only a line a
 * chunk's end cuts is put together in the buffer, which then holds just that
 * line ([start, end), base its stream offset).
 */
#include "ddbpipe/lines.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define LINES_INITIAL_CAP (1024u * 1024u)
#define LINES_DEFAULT_MAX ((size_t)64 * 1024 * 1024)
/* Below this much free space a refill grows the buffer instead of reading a
 * sliver (only while a long line is being accumulated). */
#define LINES_MIN_READ (64u * 1024u)

struct ddb_lines {
    ddb_source *src;
    char *buf;
    size_t cap;
    size_t cap_limit; /* max_line plus room for CR LF */
    size_t start;     /* first byte of the current (unreturned) line */
    size_t scan;      /* bytes before this index hold no LF after start */
    size_t end;       /* end of valid data */
    uint64_t base;    /* stream offset of buf[0] */
    size_t max_line;
    int eof;
    int skipping;    /* discarding the rest of an over-long line */
    int borrow;      /* the source lends its chunks */
    const char *ext; /* the chunk lent: [ext_pos, ext_len) not yet taken */
    size_t ext_len, ext_pos;
    uint64_t ext_base; /* stream offset of ext[0] */
    uint64_t lineno;
    uint64_t offset;
};

int ddb_lines_new(ddb_lines **out, ddb_source *src, size_t max_line, ddb_error *err)
{
    ddb_lines *lr;

    *out = NULL;
    lr = calloc(1, sizeof(*lr));
    if (lr == NULL) {
        ddb_source_free(src);
        return ddb_error_set(err, DDB_ENOMEM, "out of memory creating a line reader");
    }
    lr->src = src;
    lr->borrow = ddb_source_can_borrow(src);
    lr->max_line = max_line ? max_line : LINES_DEFAULT_MAX;
    if (lr->max_line > SIZE_MAX / 2) /* keeps max_line + 2 and cap * 2 from wrapping */
        lr->max_line = SIZE_MAX / 2;
    lr->cap_limit = lr->max_line + 2;
    lr->cap = LINES_INITIAL_CAP;
    lr->buf = malloc(lr->cap);
    if (lr->buf == NULL) {
        ddb_lines_free(lr);
        return ddb_error_set(err, DDB_ENOMEM, "out of memory creating a line reader");
    }
    *out = lr;
    return 0;
}

/* Grows buf (doubling, up to cap_limit) until want bytes are free after end,
 * or it is as large as a line may make it. Returns 0 or DDB_ENOMEM. */
static int lines_grow(ddb_lines *lr, size_t want, ddb_error *err)
{
    size_t ncap = lr->cap;
    char *p;
    while (ncap - lr->end < want && ncap < lr->cap_limit)
        ncap = ncap < lr->cap_limit / 2 ? ncap * 2 : lr->cap_limit;
    if (ncap == lr->cap)
        return 0;
    if ((p = realloc(lr->buf, ncap)) == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "%s:%llu: out of memory for a %zu-byte line",
                             lr->src->name, (unsigned long long)(lr->lineno + 1), ncap);
    lr->buf = p;
    lr->cap = ncap;
    return 0;
}

/* Makes room and reads once. Returns 0 (lr->eof set at the end) or an error. */
static int lines_refill(ddb_lines *lr, ddb_error *err)
{
    int rc;
    ssize_t n;

    if (lr->start == lr->end) {
        lr->base += lr->end;
        lr->start = lr->scan = lr->end = 0;
    } else if (lr->start > 0) {
        size_t tail = lr->end - lr->start;
        memmove(lr->buf, lr->buf + lr->start, tail);
        lr->base += lr->start;
        lr->scan -= lr->start;
        lr->end = tail;
        lr->start = 0;
    }
    if ((rc = lines_grow(lr, LINES_MIN_READ, err)) != 0)
        return rc;
    if (lr->end == lr->cap) /* cannot happen: the length check fires first */
        return ddb_error_set(err, DDB_ERROR, "%s: line buffer full", lr->src->name);
    n = ddb_source_read(lr->src, lr->buf + lr->end, lr->cap - lr->end, err);
    if (n < 0)
        return (int)n;
    if (n == 0)
        lr->eof = 1;
    lr->end += (size_t)n;
    return 0;
}

static int lines_too_big(ddb_lines *lr, ddb_error *err)
{
    return ddb_error_set(err, DDB_ETOOBIG, "%s:%llu: line longer than the limit of %zu bytes",
                         lr->src->name, (unsigned long long)lr->lineno, lr->max_line);
}

/* A line found whole (in buf or in a chunk): counted, its CR cut. */
static int hand_out(ddb_lines *lr, const char *p, size_t n, uint64_t offset, const char **line,
                    size_t *len, ddb_error *err)
{
    lr->lineno++;
    lr->offset = offset;
    if (n > 0 && p[n - 1] == '\r')
        n--;
    if (n > lr->max_line)
        return lines_too_big(lr, err);
    *line = p;
    *len = n;
    return 0;
}

/* The last line, buf[start, end), without its LF: a lone CR at its end is
 * data, not half a terminator. DDB_ITEROVER when there is none. */
static int hand_out_last(ddb_lines *lr, const char **line, size_t *len, ddb_error *err)
{
    size_t s = lr->start, n = lr->end - s;
    if (n == 0)
        return DDB_ITEROVER;
    lr->start = lr->scan = lr->end;
    lr->lineno++;
    lr->offset = lr->base + s;
    if (n > lr->max_line)
        return lines_too_big(lr, err);
    *line = lr->buf + s;
    *len = n;
    return 0;
}

/* A line too long whatever follows, at offset: counted, dropped from buf. */
static int drop_too_big(ddb_lines *lr, uint64_t offset, ddb_error *err)
{
    lr->lineno++;
    lr->offset = offset;
    lr->start = lr->scan = lr->end;
    return lines_too_big(lr, err);
}

/* Adds p[0..n) to the line being put together in buf (offset: p's). */
static int append_partial(ddb_lines *lr, const char *p, size_t n, uint64_t offset, ddb_error *err)
{
    int rc;
    if (lr->start == lr->end) {
        lr->start = lr->scan = lr->end = 0;
        lr->base = offset;
    }
    if ((rc = lines_grow(lr, n, err)) != 0)
        return rc;
    memcpy(lr->buf + lr->end, p, n);
    lr->end += n;
    lr->scan = lr->end;
    return 0;
}

/* ddb_lines_next over lent chunks. */
static int next_borrowed(ddb_lines *lr, const char **line, size_t *len, ddb_error *err)
{
    for (;;) {
        const char *p, *nl;
        size_t left = lr->ext_len - lr->ext_pos, take;
        uint64_t at = lr->ext_base + lr->ext_pos;
        ssize_t n;
        int rc;

        if (left > 0) {
            p = lr->ext + lr->ext_pos; /* not before: ext is NULL until the first chunk */
            nl = memchr(p, '\n', left);
            take = nl ? (size_t)(nl - p) : left;
            if (lr->skipping) {
                lr->ext_pos += take + (nl != NULL);
                lr->skipping = nl == NULL;
                continue;
            }
            if (nl != NULL && lr->start == lr->end) {
                lr->ext_pos += take + 1;
                return hand_out(lr, p, take, at, line, len, err);
            }
            /* A line a chunk's end cuts. Past max_line plus a CR it is too
             * long whatever follows: dropped, and skipped to its LF. */
            if (lr->end - lr->start + take > lr->max_line + 1) {
                uint64_t from = lr->start == lr->end ? at : lr->base + lr->start;
                lr->ext_pos += take + (nl != NULL);
                lr->skipping = nl == NULL;
                return drop_too_big(lr, from, err);
            }
            if ((rc = append_partial(lr, p, take, at, err)) != 0)
                return rc;
            lr->ext_pos += take;
            if (nl != NULL) {
                size_t s = lr->start;
                lr->ext_pos++;
                lr->start = lr->scan = lr->end;
                return hand_out(lr, lr->buf + s, lr->end - s, lr->base + s, line, len, err);
            }
            continue;
        }
        if (lr->eof) /* nothing is kept of a line being skipped */
            return hand_out_last(lr, line, len, err);
        if ((n = ddb_source_borrow(lr->src, &lr->ext, err)) < 0)
            return (int)n;
        lr->ext_base = lr->src->bytes_in - (uint64_t)n;
        lr->ext_len = (size_t)n;
        lr->ext_pos = 0;
        lr->eof = n == 0;
    }
}

int ddb_lines_next(ddb_lines *lr, const char **line, size_t *len, ddb_error *err)
{
    int rc;

    *line = NULL;
    *len = 0;
    if (lr->borrow)
        return next_borrowed(lr, line, len, err);
    for (;;) {
        char *p;

        if (lr->skipping) {
            p = memchr(lr->buf + lr->start, '\n', lr->end - lr->start);
            if (p != NULL) {
                lr->start = lr->scan = (size_t)(p - lr->buf) + 1;
                lr->skipping = 0;
                continue;
            }
            lr->start = lr->scan = lr->end; /* drop it: never buffer a line being skipped */
            if (lr->eof)
                return DDB_ITEROVER;
            if ((rc = lines_refill(lr, err)) != 0)
                return rc;
            continue;
        }
        p = memchr(lr->buf + lr->scan, '\n', lr->end - lr->scan);
        if (p != NULL) {
            size_t s = lr->start, n = (size_t)(p - lr->buf) - s;
            lr->start = lr->scan = (size_t)(p - lr->buf) + 1;
            return hand_out(lr, lr->buf + s, n, lr->base + s, line, len, err);
        }
        lr->scan = lr->end;
        /* Without its LF the tail may still end in the CR of a CRLF. */
        if (lr->end - lr->start > lr->max_line + 1) {
            lr->skipping = 1;
            return drop_too_big(lr, lr->base + lr->start, err);
        }
        if (lr->eof)
            return hand_out_last(lr, line, len, err);
        if ((rc = lines_refill(lr, err)) != 0)
            return rc;
    }
}

uint64_t ddb_lines_lineno(const ddb_lines *lr)
{
    return lr->lineno;
}

uint64_t ddb_lines_offset(const ddb_lines *lr)
{
    return lr->offset;
}

ddb_source *ddb_lines_source(ddb_lines *lr)
{
    return lr->src;
}

void ddb_lines_free(ddb_lines *lr)
{
    if (lr == NULL)
        return;
    ddb_source_free(lr->src);
    free(lr->buf);
    free(lr);
}
