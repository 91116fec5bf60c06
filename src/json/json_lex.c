/*
 * The JSON lexer: error messages with the attribute path and column, strings
 * (escapes, surrogate pairs, UTF-8 validation), numbers. Strings are scanned
 * over plain ASCII in a tight loop and returned without a copy when they have
 * no escapes. See json_internal.h.
 */
#include "json/json_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ddbpipe/codec.h"
#include "core/swar.h"

/* Renders the attribute path ("a.b[2].c") for messages; shows at most 80
 * bytes of each name so a hostile name cannot crowd out the reason. */
static void path_render(const ddb_json_parser *p, char *out, size_t cap)
{
    size_t n = 0;
    int depth = p->path_depth < JSON_PATH_MAX_DEPTH ? p->path_depth : JSON_PATH_MAX_DEPTH;
    out[0] = '\0';
    for (int i = 0; i < depth && n + 1 < cap; i++) {
        const json_path_elem *e = &p->path[i];
        int w;
        if (e->name != NULL) {
            int shown = (int)(e->len > 80 ? 80 : e->len);
            w = snprintf(out + n, cap - n, "%s%.*s%s", i ? "." : "", shown, e->name,
                         e->len > 80 ? "..." : "");
        } else {
            w = snprintf(out + n, cap - n, "[%zu]", e->index);
        }
        if (w < 0)
            break;
        n += (size_t)w;
    }
    if (p->path_depth > JSON_PATH_MAX_DEPTH && n + 4 < cap)
        memcpy(out + n, "...", 4);
}

int ddb_json_lex_fail(json_ctx *c, const char *fmt, ...)
{
    char reason[512];
    char path[400];
    va_list ap;
    size_t col = (size_t)(c->s - c->start) + 1;

    va_start(ap, fmt);
    vsnprintf(reason, sizeof(reason), fmt, ap);
    va_end(ap);
    path_render(c->p, path, sizeof(path));
    if (path[0])
        return ddb_error_set(c->err, DDB_EINVAL, "attribute '%s' (column %zu): %s", path, col,
                             reason);
    return ddb_error_set(c->err, DDB_EINVAL, "column %zu: %s", col, reason);
}

int ddb_json_lex_oom(json_ctx *c)
{
    return ddb_error_set(c->err, DDB_ENOMEM, "out of memory while parsing JSON");
}

/* Describes the current byte for "expected X, found Y" messages. */
const char *ddb_json_lex_found(json_ctx *c, char *tmp)
{
    if (c->s >= c->end)
        return "end of input";
    if ((unsigned char)*c->s >= 0x20 && (unsigned char)*c->s < 0x7f)
        snprintf(tmp, 8, "'%c'", *c->s);
    else
        snprintf(tmp, 8, "0x%02x", (unsigned char)*c->s);
    return tmp;
}

static int hexval(char ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F')
        return ch - 'A' + 10;
    return -1;
}

static int read_hex4(json_ctx *c, const char *at, uint32_t *out)
{
    uint32_t v = 0;
    if (c->end - at < 4)
        return -1;
    for (int i = 0; i < 4; i++) {
        int h = hexval(at[i]);
        if (h < 0)
            return -1;
        v = v << 4 | (uint32_t)h;
    }
    *out = v;
    return 0;
}

/* Decodes the escaped string body [from, to) into arena memory. */
static int unescape(json_ctx *c, const char *from, const char *to, ddb_str *out)
{
    char *buf = ddb_arena_alloc(c->a, (size_t)(to - from) + 1);
    size_t n = 0;
    const char *q = from;

    if (buf == NULL)
        return ddb_json_lex_oom(c);
    while (q < to) {
        const char *run = q;
        while (q < to && *q != '\\')
            q++;
        memcpy(buf + n, run, (size_t)(q - run));
        n += (size_t)(q - run);
        if (q >= to)
            break;
        q++; /* backslash; the scanner guaranteed a following byte */
        switch (*q) {
        case '"':
        case '\\':
        case '/':
            buf[n++] = *q++;
            break;
        case 'b':
            buf[n++] = '\b';
            q++;
            break;
        case 'f':
            buf[n++] = '\f';
            q++;
            break;
        case 'n':
            buf[n++] = '\n';
            q++;
            break;
        case 'r':
            buf[n++] = '\r';
            q++;
            break;
        case 't':
            buf[n++] = '\t';
            q++;
            break;
        case 'u': {
            uint32_t cp, lo;
            if (read_hex4(c, q + 1, &cp) != 0) {
                c->s = q - 1;
                return ddb_json_lex_fail(c, "invalid \\u escape in string");
            }
            q += 5;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                if (to - q < 6 || q[0] != '\\' || q[1] != 'u' || read_hex4(c, q + 2, &lo) != 0 ||
                    lo < 0xDC00 || lo > 0xDFFF) {
                    c->s = q - 6;
                    return ddb_json_lex_fail(c, "unpaired UTF-16 surrogate \\u%04X in string",
                                             (unsigned)cp);
                }
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                q += 6;
            } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                c->s = q - 6;
                return ddb_json_lex_fail(c, "unpaired UTF-16 surrogate \\u%04X in string",
                                         (unsigned)cp);
            }
            n += ddb_utf8_encode(buf + n, cp);
            break;
        }
        default: {
            /* Not the byte itself: it may be half a UTF-8 character. */
            char tmp[8];
            c->s = q;
            ddb_json_lex_found(c, tmp);
            c->s = q - 1;
            return ddb_json_lex_fail(c, "invalid escape in string: '\\' then %s", tmp);
        }
        }
    }
    buf[n] = '\0';
    out->ptr = buf;
    out->len = n;
    return 0;
}

/* Parses a string literal at c->s (which must be '"'). Zero-copy when the body
 * has no escapes. Validates UTF-8 and rejects raw control characters. */

int ddb_json_lex_string_any(json_ctx *c, ddb_str *out)
{
    const char *body, *q;
    int escaped = 0, high = 0;

    if (c->s >= c->end || *c->s != '"') {
        char tmp[8];
        return ddb_json_lex_fail(c, "expected a string, found %s", ddb_json_lex_found(c, tmp));
    }
    body = q = c->s + 1;
    for (;;) {
#ifdef __SSE2__
        /* Plain ASCII until a byte says otherwise: one mask a step for a
         * quote, a backslash, a control character or a non-ASCII byte (all
         * below 0x20 as signed bytes but the first two). */
        while (!high && c->end - q >= 16) {
            __m128i x = _mm_loadu_si128((const __m128i *)(const void *)q);
            unsigned m = (unsigned)_mm_movemask_epi8(
                _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('"')),
                                          _mm_cmpeq_epi8(x, _mm_set1_epi8('\\'))),
                             _mm_cmplt_epi8(x, _mm_set1_epi8(0x20))));
            if (m != 0) {
                q += __builtin_ctz(m);
                goto special;
            }
            q += 16;
        }
        /* Sixteen bytes a step, through non-ASCII text too (a string of CJK
         * would otherwise leave this loop at every byte): non-ASCII bytes
         * (negative) only note that UTF-8 must be checked at the end. */
        while (c->end - q >= 16) {
            __m128i x = _mm_loadu_si128((const __m128i *)(const void *)q);
            unsigned m = ddb_sse_json_special(x);
            unsigned h = (unsigned)_mm_movemask_epi8(x);
            if (m != 0) {
                high |= (h & ((m & (0u - m)) - 1)) != 0; /* non-ASCII before it */
                q += __builtin_ctz(m);
                goto special;
            }
            high |= h != 0;
            q += 16;
        }
#endif
        /* Fast path over ordinary ASCII: eight bytes a step while none is a
         * quote, a backslash, a control character or non-ASCII. */
        while (c->end - q >= 8) {
            uint64_t x;
            memcpy(&x, q, 8);
            if ((x & DDB_SWAR_HIGHS) || ddb_swar_json_special(x))
                break;
            q += 8;
        }
        while (q < c->end) {
            unsigned char ch = (unsigned char)*q;
            if (ch == '"' || ch == '\\' || ch < 0x20 || ch >= 0x80)
                break;
            q++;
        }
        if (q >= c->end) {
            c->s = body - 1;
            return ddb_json_lex_fail(c, "unterminated string");
        }
#ifdef __SSE2__
    special:
#endif
        if (*q == '"')
            break;
        if (*q == '\\') {
            escaped = 1;
            if (q + 1 >= c->end) {
                c->s = body - 1;
                return ddb_json_lex_fail(c, "unterminated string");
            }
            q += 2;
            continue;
        }
        if ((unsigned char)*q < 0x20) {
            c->s = q;
            return ddb_json_lex_fail(c, "control character 0x%02x must be escaped in a string",
                                     (unsigned char)*q);
        }
        high = 1;
        q++;
    }
    if (high) {
        size_t bad;
        if (!ddb_utf8_valid(body, (size_t)(q - body), &bad)) {
            c->s = body + bad;
            return ddb_json_lex_fail(c, "invalid UTF-8 in string");
        }
    }
    c->s = q + 1;
    if (!escaped) {
        out->ptr = body;
        out->len = (size_t)(q - body);
        return 0;
    }
    return unescape(c, body, q, out);
}

/* RFC 8259 number grammar; the token's text is kept verbatim. */
size_t ddb_json_lex_number(const char *s, const char *end)
{
    const char *q = s;
    if (q < end && *q == '-')
        q++;
    if (q >= end)
        return 0;
    if (*q == '0') {
        q++;
    } else if (*q >= '1' && *q <= '9') {
        while (q < end && *q >= '0' && *q <= '9')
            q++;
    } else {
        return 0;
    }
    if (q < end && *q == '.') {
        q++;
        if (q >= end || *q < '0' || *q > '9')
            return 0;
        while (q < end && *q >= '0' && *q <= '9')
            q++;
    }
    if (q < end && (*q == 'e' || *q == 'E')) {
        q++;
        if (q < end && (*q == '+' || *q == '-'))
            q++;
        if (q >= end || *q < '0' || *q > '9')
            return 0;
        while (q < end && *q >= '0' && *q <= '9')
            q++;
    }
    return (size_t)(q - s);
}

int ddb_json_is_number(const char *text, size_t len)
{
    return len > 0 && ddb_json_lex_number(text, text + len) == len;
}

int ddb_json_lex_finish(json_ctx *c)
{
    char tmp[8];
    json_skip_ws(c);
    if (c->s != c->end)
        return ddb_json_lex_fail(c, "unexpected %s after the JSON value",
                                 ddb_json_lex_found(c, tmp));
    return 0;
}

void ddb_json_lex_init(json_ctx *c, ddb_json_parser *p, const char *text, size_t len, ddb_arena *a,
                       ddb_error *err)
{
    c->p = p;
    c->start = c->s = text;
    c->end = text + len;
    c->a = a;
    c->err = err;
    c->nesting = 0;
    p->path_depth = 0;
    p->stack.len = 0;
}
