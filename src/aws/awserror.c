/*
 * awserror.c — AWS's error rules (awserror.h): backoff with full jitter, and
 * reading what kind of error a service answered (throttling, server side, or
 * the caller's fault).
 */
#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "aws/awserror.h"
#include "ddbpipe/codec.h"

/* xorshift64*: deterministic jitter in tests, no global rand() state. */
static uint64_t next_random(uint64_t *s)
{
    uint64_t x = *s ? *s : 0x9E3779B97F4A7C15ull;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1Dull;
}

uint32_t ddb_backoff_ms(uint64_t *rng_state, int attempt, uint32_t base_ms, uint32_t cap_ms)
{
    uint64_t ceiling = base_ms;
    for (int i = 0; i < attempt && ceiling < cap_ms; i++)
        ceiling *= 2;
    if (ceiling > cap_ms)
        ceiling = cap_ms;
    if (ceiling == 0)
        return 0;
    return (uint32_t)(next_random(rng_state) % ceiling);
}

int ddb_error_is_throttling(const char *t)
{
    return strcmp(t, "ProvisionedThroughputExceededException") == 0 ||
           strcmp(t, "ThrottlingException") == 0 || strcmp(t, "RequestLimitExceeded") == 0 ||
           strcmp(t, "Throttling") == 0 || strcmp(t, "TooManyRequestsException") == 0 ||
           strcmp(t, "SlowDown") == 0; /* S3 */
}

int ddb_error_is_server_side(const char *t)
{
    return strcmp(t, "InternalServerError") == 0 || strcmp(t, "ServiceUnavailable") == 0 ||
           strcmp(t, "InternalFailure") == 0 ||
           /* S3: its own failure, and a connection it found idle too long */
           strcmp(t, "InternalError") == 0 || strcmp(t, "RequestTimeout") == 0;
}

/* Copies the value of "key":"..." from a small JSON error body (no nesting). */
static int json_string_field(const char *body, size_t len, const char *key, char *out, size_t cap)
{
    size_t klen = strlen(key);
    for (size_t i = 0; i + klen + 2 < len; i++) {
        size_t j;
        if (body[i] != '"' || memcmp(body + i + 1, key, klen) != 0 || body[i + 1 + klen] != '"')
            continue;
        j = i + klen + 2;
        while (j < len && (body[j] == ' ' || body[j] == ':'))
            j++;
        if (j >= len || body[j] != '"')
            continue;
        j++;
        {
            size_t n = 0;
            while (j < len && body[j] != '"' && n + 1 < cap) {
                if (body[j] == '\\' && j + 1 < len)
                    j++;
                out[n++] = body[j++];
            }
            out[n] = '\0';
        }
        return 1;
    }
    return 0;
}

void ddb_parse_error_body(const char *body, size_t len, const char *header_type, char *type,
                          size_t type_cap, char *message, size_t message_cap)
{
    char raw[256];
    type[0] = message[0] = '\0';
    if (header_type && header_type[0]) {
        size_t n = strcspn(header_type, ":");
        snprintf(type, type_cap, "%.*s", (int)n, header_type);
    } else if (body && json_string_field(body, len, "__type", raw, sizeof(raw))) {
        const char *hash = strrchr(raw, '#');
        snprintf(type, type_cap, "%s", hash ? hash + 1 : raw);
    }
    if (body && !json_string_field(body, len, "message", message, message_cap))
        json_string_field(body, len, "Message", message, message_cap);
}

const char *ddb_xml_find(const char *p, const char *end, const char *tag, size_t *len)
{
    size_t tl = strlen(tag);
    const char *a;
    assert(p != NULL && p <= end && tl > 0);
    /* "<tag>" then the first "</tag>" after it: AWS's answers have no
     * attributes on the elements read here and never nest one in itself. */
    for (a = p; (size_t)(end - a) >= tl + 2; a++)
        if (a[0] == '<' && memcmp(a + 1, tag, tl) == 0 && a[tl + 1] == '>')
            break;
    if ((size_t)(end - a) < tl + 2)
        return NULL;
    a += tl + 2;
    for (const char *b = a; (size_t)(end - b) >= tl + 3; b++)
        if (b[0] == '<' && b[1] == '/' && memcmp(b + 2, tag, tl) == 0 && b[tl + 2] == '>') {
            *len = (size_t)(b - a);
            return a;
        }
    return NULL;
}

/* The code point of the character reference at p ("&#13;" or "&#x0D;", at
 * most len bytes), with *n its length; 0 when p holds none or one XML does
 * not allow (NUL, a surrogate, beyond U+10FFFF). Parsed by hand: strtoul
 * would take a sign or spaces, and read on past len. */
static uint32_t char_ref(const char *p, size_t len, size_t *n)
{
    int hex = len > 2 && p[2] == 'x';
    size_t i = hex ? 3 : 2, first = i;
    uint32_t cp = 0;
    if (len < 4 || p[0] != '&' || p[1] != '#')
        return 0;
    for (; i < len && cp <= 0x10FFFF; i++) {
        int d = p[i] >= '0' && p[i] <= '9'          ? p[i] - '0'
                : hex && p[i] >= 'a' && p[i] <= 'f' ? p[i] - 'a' + 10
                : hex && p[i] >= 'A' && p[i] <= 'F' ? p[i] - 'A' + 10
                                                    : -1;
        if (d < 0)
            break;
        cp = cp * (hex ? 16 : 10) + (uint32_t)d;
    }
    if (i == first || i >= len || p[i] != ';' || cp == 0 || cp > 0x10FFFF ||
        (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    *n = i + 1;
    return cp;
}

size_t ddb_xml_decode(char *out, size_t cap, const char *p, size_t len)
{
    static const struct {
        const char *name;
        size_t len;
        char c;
    } ent[] = {{"&lt;", 4, '<'},
               {"&gt;", 4, '>'},
               {"&amp;", 5, '&'},
               {"&quot;", 6, '"'},
               {"&apos;", 6, '\''}};
    size_t i = 0, n = 0;
    assert(cap > 0);
    while (i < len) {
        char u[4];
        size_t k, step = 1, un = 1;
        uint32_t cp;
        u[0] = p[i];
        if (p[i] == '&') {
            for (k = 0; k < 5; k++)
                if (len - i >= ent[k].len && memcmp(p + i, ent[k].name, ent[k].len) == 0) {
                    u[0] = ent[k].c;
                    step = ent[k].len;
                    break;
                }
            if (k == 5 && (cp = char_ref(p + i, len - i, &step)) != 0)
                un = ddb_utf8_encode(u, cp);
        }
        if (n + un >= cap)
            break; /* cut to fit, never inside a character */
        memcpy(out + n, u, un);
        n += un;
        i += step;
    }
    out[n] = '\0';
    return n;
}

int ddb_parse_xml_error(const char *body, size_t len, char *type, size_t type_cap, char *message,
                        size_t message_cap)
{
    const char *p;
    size_t n;
    type[0] = message[0] = '\0';
    if (body == NULL || len == 0 || (p = ddb_xml_find(body, body + len, "Code", &n)) == NULL)
        return 0;
    ddb_xml_decode(type, type_cap, p, n);
    if ((p = ddb_xml_find(body, body + len, "Message", &n)) != NULL)
        ddb_xml_decode(message, message_cap, p, n);
    ddb_xml_one_line(type);
    ddb_xml_one_line(message);
    return 1;
}

void ddb_xml_one_line(char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20)
            *s = ' ';
}
