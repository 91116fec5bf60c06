/*
 * A cursor over streamed JSON text (see json_cursor.h): the buffer, its
 * refills, and the structural scanner that finds where a value ends.
 */
#include "json/json_cursor.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json/json_internal.h"
#include "ddbpipe/source.h"

#define JCUR_BLOCK (1024u * 1024u)
#define JCUR_DEFAULT_MAX (64u * 1024u * 1024u)

int ddb_jcur_init(ddb_jcur *c, ddb_source *src, const char *name, size_t max, ddb_error *err)
{
    memset(c, 0, sizeof(*c));
    c->src = src;
    c->name = name;
    c->cap = JCUR_BLOCK;
    c->max = max ? max : JCUR_DEFAULT_MAX;
    c->line = 1;
    if ((c->buf = malloc(c->cap)) == NULL || ddb_json_parser_new(&c->parser) != 0 ||
        ddb_arena_new(&c->arena, 0) != 0) {
        ddb_jcur_dispose(c);
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    }
    return 0;
}

void ddb_jcur_dispose(ddb_jcur *c)
{
    ddb_source_free(c->src);
    ddb_json_parser_free(c->parser);
    ddb_arena_free(c->arena);
    free(c->buf);
    c->src = NULL;
    c->parser = NULL;
    c->arena = NULL;
    c->buf = NULL;
}

/* Reads more input, keeping what lies from the mark (or pos) on. */
static int refill(ddb_jcur *c, ddb_error *err)
{
    size_t keep = c->has_mark && c->mark < c->pos ? c->mark : c->pos;
    ssize_t got;
    if (keep > 0) {
        memmove(c->buf, c->buf + keep, c->len - keep);
        c->len -= keep;
        c->pos -= keep;
        if (c->has_mark)
            c->mark -= keep;
        c->base_off += keep;
    }
    if (c->len == c->cap) {
        size_t ncap = c->cap * 2;
        char *nb;
        if (c->cap >= c->max + 1)
            return ddb_error_set(err, DDB_ETOOBIG,
                                 "%s: line %llu: a JSON value is larger than %zu bytes", c->name,
                                 (unsigned long long)c->line, c->max);
        if ((nb = realloc(c->buf, ncap)) == NULL)
            return ddb_error_set(err, DDB_ENOMEM, "out of memory");
        c->buf = nb;
        c->cap = ncap;
    }
    got = ddb_source_read(c->src, c->buf + c->len, c->cap - c->len, err);
    if (got < 0)
        return (int)got;
    if (got == 0)
        c->eof = 1;
    c->len += (size_t)got;
    return 0;
}

void ddb_jcur_advance(ddb_jcur *c, size_t to)
{
    const char *p = c->buf + c->pos, *end = c->buf + to;
    while ((p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
        c->line++;
        p++;
    }
    c->pos = to;
}

int ddb_jcur_peek(ddb_jcur *c, ddb_error *err)
{
    for (;;) {
        while (c->pos < c->len) {
            char ch = c->buf[c->pos];
            if (ch != ' ' && ch != '\t' && ch != '\r' && ch != '\n') {
                if (c->base_off + c->pos == 0 && (unsigned char)ch == 0xEF) {
                    int rc = ddb_jcur_ensure(c, 3, err);
                    if (rc != 0)
                        return rc;
                    if (c->len - c->pos >= 3 && memcmp(c->buf + c->pos, "\xEF\xBB\xBF", 3) == 0) {
                        c->pos += 3; /* byte-order mark */
                        continue;
                    }
                }
                return 1;
            }
            if (ch == '\n')
                c->line++;
            c->pos++;
        }
        if (c->eof)
            return 0;
        {
            int rc = refill(c, err);
            if (rc != 0)
                return rc;
        }
    }
}

int ddb_jcur_ensure(ddb_jcur *c, size_t n, ddb_error *err)
{
    while (c->len - c->pos < n && !c->eof) {
        int rc = refill(c, err);
        if (rc != 0)
            return rc;
    }
    return 0;
}

int ddb_json_value_end(const char *b, size_t pos, size_t len, int eof, size_t *end)
{
    size_t i = pos;
    int depth = 0;
    if (b[i] != '{' && b[i] != '[' && b[i] != '"') {
        while (i < len && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' &&
               b[i] != '\n' && b[i] != '\r' && b[i] != '\t' && b[i] != ':')
            i++;
        if (i == len && !eof)
            return 0;
        if (i == pos)
            return -1; /* a '}' or ']' where a value belongs: nothing to take, nothing read */
        *end = i;
        return 1;
    }
    while (i < len) {
        char ch = b[i];
        if (ch == '"') {
            /* a string: to its closing quote, escapes skipped */
            for (i++; i < len; i++) {
                const char *q = memchr(b + i, '"', len - i), *bs;
                if (q == NULL) {
                    i = len;
                    break;
                }
                bs = memchr(b + i, '\\', (size_t)(q - (b + i)));
                if (bs == NULL) {
                    i = (size_t)(q - b);
                    break;
                }
                i = (size_t)(bs - b) + 1; /* skip the escaped byte */
            }
            if (i >= len)
                break;
            i++;
            if (depth == 0) {
                *end = i;
                return 1;
            }
            continue;
        }
        if (ch == '{' || ch == '[') {
            depth++;
        } else if (ch == '}' || ch == ']') {
            if (--depth == 0) {
                *end = i + 1;
                return 1;
            }
            if (depth < 0)
                return -1;
        }
        i++;
    }
    return eof ? -1 : 0;
}

int ddb_jcur_value(ddb_jcur *c, size_t *end, ddb_error *err)
{
    for (;;) {
        int r = ddb_json_value_end(c->buf, c->pos, c->len, c->eof, end);
        if (r == 1)
            return 0;
        if (r < 0)
            return ddb_error_set(err, DDB_EINVAL,
                                 "%s: line %llu: malformed JSON (unbalanced brackets or an "
                                 "unterminated string)",
                                 c->name, (unsigned long long)c->line);
        if ((r = refill(c, err)) != 0)
            return r;
    }
}

int ddb_jcur_expect(ddb_jcur *c, char ch, const char *what, ddb_error *err)
{
    int rc = ddb_jcur_peek(c, err);
    if (rc < 0)
        return rc;
    if (rc == 0)
        return ddb_error_set(err, DDB_EINVAL, "%s: line %llu: expected %s, found the end of input",
                             c->name, (unsigned long long)c->line, what);
    if (c->buf[c->pos] != ch)
        return ddb_error_set(err, DDB_EINVAL, "%s: line %llu: expected %s, found '%c'", c->name,
                             (unsigned long long)c->line, what, c->buf[c->pos]);
    c->pos++;
    return 0;
}

int ddb_jcur_key(ddb_jcur *c, const char **key, size_t *len, ddb_error *err)
{
    json_ctx jc;
    ddb_str s;
    size_t end;
    int rc = ddb_jcur_peek(c, err);
    if (rc < 0)
        return rc;
    if (rc == 0 || c->buf[c->pos] != '"')
        return ddb_error_set(err, DDB_EINVAL, "%s: line %llu: expected an object key", c->name,
                             (unsigned long long)c->line);
    if ((rc = ddb_jcur_value(c, &end, err)) != 0)
        return rc;
    ddb_arena_reset(c->arena);
    ddb_json_lex_init(&jc, c->parser, c->buf + c->pos, end - c->pos, c->arena, NULL);
    if (ddb_json_lex_string(&jc, &s) != 0)
        return ddb_error_set(err, DDB_EINVAL, "%s: line %llu: malformed object key", c->name,
                             (unsigned long long)c->line);
    /* The key may point into the buffer, which the next read moves. */
    if ((*key = ddb_arena_memdup(c->arena, s.ptr, s.len)) == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    *len = s.len;
    ddb_jcur_advance(c, end);
    return ddb_jcur_expect(c, ':', "':' after an object key", err);
}
