/*
 * AWS CLI scan output: one JSON document {"Items":[{...},{...}], "Count":..,
 * "ScannedCount":.., ...}, often pretty-printed and as large as the table.
 * It is read as a stream: a small scanner follows the document structure
 * (strings, nesting) and hands each element of "Items" to the typed parser on
 * its own, so memory is bounded by the largest item, not the document.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/json.h"
#include "ddbpipe/reader.h"
#include "reader_internal.h"

#define SCAN_BLOCK (1024u * 1024u)
#define SCAN_DEFAULT_MAX (64u * 1024u * 1024u)

enum scan_state { SS_START, SS_KEY, SS_ITEMS, SS_DONE };

typedef struct scan_reader {
    ddb_reader base;
    ddb_source *src;
    ddb_arena *arena;
    ddb_json_parser *parser;
    char *buf;
    size_t cap, len, pos;
    uint64_t base_off; /* stream offset of buf[0] */
    uint64_t line;     /* line number at buf[pos] */
    int eof;
    size_t max;
    enum scan_state st;
    int seen_items;
    uint64_t skip_below;
    ddb_record rec;
    char reason[DDB_ERROR_MAX];
} scan_reader;

/* Reads more input, keeping buf[keep..len) (moved to the front). */
static int refill(scan_reader *sr, size_t keep, ddb_error *err)
{
    ssize_t got;
    if (keep > 0) {
        memmove(sr->buf, sr->buf + keep, sr->len - keep);
        sr->len -= keep;
        sr->pos -= keep;
        sr->base_off += keep;
    }
    if (sr->len == sr->cap) {
        size_t ncap = sr->cap * 2;
        char *nb;
        if (sr->cap >= sr->max + 1)
            return ddb_error_set(err, DDB_ETOOBIG,
                                 "%s: line %llu: an element of \"Items\" is larger than %zu bytes",
                                 sr->base.name, (unsigned long long)sr->line, sr->max);
        nb = realloc(sr->buf, ncap);
        if (nb == NULL)
            return ddb_error_set(err, DDB_ENOMEM, "out of memory");
        sr->buf = nb;
        sr->cap = ncap;
    }
    got = ddb_source_read(sr->src, sr->buf + sr->len, sr->cap - sr->len, err);
    if (got < 0)
        return (int)got;
    if (got == 0)
        sr->eof = 1;
    sr->len += (size_t)got;
    return 0;
}

static void advance(scan_reader *sr, size_t to)
{
    for (size_t i = sr->pos; i < to; i++)
        if (sr->buf[i] == '\n')
            sr->line++;
    sr->pos = to;
}

/* Skips whitespace (and, where allowed, one comma). 1 = a byte is available,
 * 0 = end of input, <0 = error. */
static int next_byte(scan_reader *sr, ddb_error *err)
{
    for (;;) {
        while (sr->pos < sr->len) {
            char c = sr->buf[sr->pos];
            if (c != ' ' && c != '\t' && c != '\r' && c != '\n')
                return 1;
            if (c == '\n')
                sr->line++;
            sr->pos++;
        }
        if (sr->eof)
            return 0;
        {
            int rc = refill(sr, sr->pos, err);
            if (rc != 0)
                return rc;
        }
    }
}

/*
 * Finds the end of the JSON value starting at buf[pos]: strings with escapes
 * and nested brackets are followed; a scalar ends at , } ] or whitespace.
 * Returns 1 with *end set, 0 when more input is needed, -1 on malformed text.
 */
static int value_end(const char *b, size_t pos, size_t len, int eof, size_t *end)
{
    size_t i = pos;
    int depth = 0, in_str = 0;
    if (b[i] != '{' && b[i] != '[' && b[i] != '"') {
        while (i < len && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' &&
               b[i] != '\n' && b[i] != '\r' && b[i] != '\t')
            i++;
        if (i == len && !eof)
            return 0;
        if (i == pos)
            return -1; /* a '}' or ']' where a value belongs: nothing to take, nothing read */
        *end = i;
        return 1;
    }
    for (; i < len; i++) {
        char c = b[i];
        if (in_str) {
            if (c == '\\')
                i++;
            else if (c == '"') {
                in_str = 0;
                if (depth == 0) {
                    *end = i + 1;
                    return 1;
                }
            }
            continue;
        }
        if (c == '"')
            in_str = 1;
        else if (c == '{' || c == '[')
            depth++;
        else if (c == '}' || c == ']') {
            if (--depth == 0) {
                *end = i + 1;
                return 1;
            }
            if (depth < 0)
                return -1;
        }
    }
    return eof ? -1 : 0;
}

/* The complete value at pos: refills until it is in the buffer. */
static int take_value(scan_reader *sr, size_t *end, ddb_error *err)
{
    for (;;) {
        int r = value_end(sr->buf, sr->pos, sr->len, sr->eof, end);
        if (r == 1)
            return 0;
        if (r < 0)
            return ddb_error_set(err, DDB_EINVAL,
                                 "%s: line %llu: malformed JSON (unbalanced brackets or an "
                                 "unterminated string)",
                                 sr->base.name, (unsigned long long)sr->line);
        if ((r = refill(sr, sr->pos, err)) != 0)
            return r;
    }
}

static int expect(scan_reader *sr, char c, const char *what, ddb_error *err)
{
    int rc = next_byte(sr, err);
    if (rc < 0)
        return rc;
    if (rc == 0 || sr->buf[sr->pos] != c)
        return ddb_error_set(err, DDB_EINVAL, "%s: line %llu: expected %s in AWS CLI scan output",
                             sr->base.name, (unsigned long long)sr->line, what);
    sr->pos++;
    return 0;
}

static int scan_next(ddb_reader *r, ddb_record **out, ddb_error *err)
{
    scan_reader *sr = (scan_reader *)r;
    size_t end;
    int rc;

    for (;;) {
        switch (sr->st) {
        case SS_START:
            if ((rc = next_byte(sr, err)) < 0)
                return rc;
            if (rc == 1 && sr->len - sr->pos >= 3 &&
                memcmp(sr->buf + sr->pos, "\xEF\xBB\xBF", 3) == 0)
                sr->pos += 3; /* byte-order mark */
            if ((rc = expect(sr, '{', "'{'", err)) != 0)
                return rc;
            sr->st = SS_KEY;
            break;
        case SS_KEY: {
            int is_items;
            if ((rc = next_byte(sr, err)) < 0)
                return rc;
            if (rc == 0)
                return ddb_error_set(err, DDB_EINVAL, "%s: unexpected end of the scan document",
                                     sr->base.name);
            if (sr->buf[sr->pos] == ',') {
                sr->pos++;
                break;
            }
            if (sr->buf[sr->pos] == '}') {
                sr->pos++;
                sr->st = SS_DONE;
                break;
            }
            if ((rc = take_value(sr, &end, err)) != 0)
                return rc;
            is_items = end - sr->pos == 7 && memcmp(sr->buf + sr->pos, "\"Items\"", 7) == 0;
            advance(sr, end);
            if ((rc = expect(sr, ':', "':'", err)) != 0)
                return rc;
            if (is_items) {
                if ((rc = expect(sr, '[', "'[' after \"Items\"", err)) != 0)
                    return rc;
                sr->seen_items = 1;
                sr->st = SS_ITEMS;
                break;
            }
            /* Count, ScannedCount, ConsumedCapacity, NextToken...: skipped. */
            if ((rc = next_byte(sr, err)) <= 0)
                return rc < 0 ? rc : ddb_error_set(err, DDB_EINVAL, "%s: truncated", sr->base.name);
            if ((rc = take_value(sr, &end, err)) != 0)
                return rc;
            advance(sr, end);
            break;
        }
        case SS_ITEMS: {
            ddb_error perr;
            if ((rc = next_byte(sr, err)) < 0)
                return rc;
            if (rc == 0)
                return ddb_error_set(err, DDB_EINVAL, "%s: \"Items\" array is not closed",
                                     sr->base.name);
            if (sr->buf[sr->pos] == ',') {
                sr->pos++;
                break;
            }
            if (sr->buf[sr->pos] == ']') {
                sr->pos++;
                sr->st = SS_KEY;
                break;
            }
            if ((rc = take_value(sr, &end, err)) != 0)
                return rc;
            if (sr->base_off + sr->pos < sr->skip_below) {
                advance(sr, end); /* resuming: already accounted for */
                break;
            }
            ddb_arena_reset(sr->arena);
            sr->rec.line = sr->line;
            sr->rec.offset = sr->base_off + sr->pos;
            sr->rec.pos = sr->rec.offset;
            sr->rec.raw = sr->buf + sr->pos;
            sr->rec.raw_len = end - sr->pos;
            if (ddb_json_parse_typed_map(sr->parser, &sr->rec.item, sr->rec.raw, sr->rec.raw_len,
                                         sr->arena, &perr) != 0) {
                snprintf(sr->reason, sizeof(sr->reason), "%s", perr.message);
                sr->rec.kind = DDB_REC_BAD;
                sr->rec.reason = sr->reason;
                sr->rec.item.count = 0;
            } else {
                sr->rec.kind = DDB_REC_PUT;
                sr->rec.reason = NULL;
            }
            /* The record points into buf: count its lines but keep it in place
             * until the next call (refills only happen then). */
            advance(sr, end);
            *out = &sr->rec;
            return 0;
        }
        case SS_DONE:
        default:
            if ((rc = next_byte(sr, err)) < 0)
                return rc;
            if (rc == 1)
                return ddb_error_set(err, DDB_EINVAL,
                                     "%s: line %llu: unexpected text after the scan document",
                                     sr->base.name, (unsigned long long)sr->line);
            if (!sr->seen_items)
                return ddb_error_set(err, DDB_EINVAL, "%s: no \"Items\" in the scan document",
                                     sr->base.name);
            return DDB_ITEROVER;
        }
    }
}

static void scan_free(ddb_reader *r)
{
    scan_reader *sr = (scan_reader *)r;
    ddb_source_free(sr->src);
    ddb_arena_free(sr->arena);
    ddb_json_parser_free(sr->parser);
    free(sr->buf);
}

static uint64_t scan_raw_bytes(const ddb_reader *r)
{
    return ddb_source_raw_bytes(((const scan_reader *)r)->src);
}

static uint64_t scan_decoded_bytes(const ddb_reader *r)
{
    return ((const scan_reader *)r)->src->bytes_in;
}

static int scan_skip_to(ddb_reader *r, uint64_t pos, ddb_error *err)
{
    (void)err;
    ((scan_reader *)r)->skip_below = pos;
    return 0;
}

static const ddb_reader_vtable scan_vtable = {
    "scan output", scan_next, scan_free, scan_raw_bytes, scan_decoded_bytes, scan_skip_to,
    NULL,          NULL,      NULL};

int ddb_reader_new_scan(ddb_reader **out, ddb_source *src, const char *name,
                        const ddb_reader_opts *opts, ddb_error *err)
{
    scan_reader *sr = calloc(1, sizeof(*sr));

    *out = NULL;
    if (sr == NULL) {
        ddb_source_free(src);
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    }
    sr->src = src;
    sr->cap = SCAN_BLOCK;
    sr->max = opts && opts->max_line ? opts->max_line : SCAN_DEFAULT_MAX;
    sr->line = 1;
    if ((sr->buf = malloc(sr->cap)) == NULL || ddb_arena_new(&sr->arena, 0) != 0 ||
        ddb_json_parser_new(&sr->parser) != 0 ||
        ddb_reader_base_init(&sr->base, &scan_vtable, name, DDB_IN_SCAN, opts) != 0) {
        scan_free(&sr->base);
        free(sr->base.name);
        free(sr->base.entity_hint);
        free(sr);
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    }
    sr->rec.typed = 1;
    sr->rec.source = sr->base.name;
    *out = &sr->base;
    return 0;
}
