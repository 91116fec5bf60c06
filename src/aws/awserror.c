/*
 * awserror.c — AWS's error rules (awserror.h): backoff with full jitter, and
 * reading what kind of error a service answered (throttling, server side, or
 * the caller's fault).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "aws/awserror.h"

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

/* The text of <tag>...</tag> in a small XML document (entities decoded for
 * the five predefined ones). Returns 1 when found. */
static int xml_field(const char *body, size_t len, const char *tag, char *out, size_t cap)
{
    char open[64], close[64];
    const char *p, *q, *end = body + len;
    size_t n = 0;
    snprintf(open, sizeof(open), "<%s>", tag);
    snprintf(close, sizeof(close), "</%s>", tag);
    for (p = body; p + strlen(open) <= end; p++)
        if (memcmp(p, open, strlen(open)) == 0)
            break;
    if (p + strlen(open) > end)
        return 0;
    p += strlen(open);
    for (q = p; q + strlen(close) <= end; q++)
        if (memcmp(q, close, strlen(close)) == 0)
            break;
    if (q + strlen(close) > end)
        return 0;
    while (p < q && n + 1 < cap) {
        static const char *const ent[][2] = {
            {"&lt;", "<"}, {"&gt;", ">"}, {"&amp;", "&"}, {"&quot;", "\""}, {"&apos;", "'"}};
        size_t k;
        for (k = 0; k < 5; k++) {
            size_t el = strlen(ent[k][0]);
            if ((size_t)(q - p) >= el && memcmp(p, ent[k][0], el) == 0) {
                out[n++] = ent[k][1][0];
                p += el;
                break;
            }
        }
        if (k == 5)
            out[n++] = *p++;
    }
    out[n] = '\0';
    return 1;
}

int ddb_parse_xml_error(const char *body, size_t len, char *type, size_t type_cap, char *message,
                        size_t message_cap)
{
    type[0] = message[0] = '\0';
    if (body == NULL || len == 0 || !xml_field(body, len, "Code", type, type_cap))
        return 0;
    xml_field(body, len, "Message", message, message_cap);
    return 1;
}
