#include "ddbpipe/codec.h"

#include <string.h>

static const char b64_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* 0..63 for alphabet characters, 64 for '=', 255 for anything else. */
#define X 255
static const unsigned char b64_value[256] = {
    X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,
    X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  62, X,  X,  X,  63,
    52, 53, 54, 55, 56, 57, 58, 59, 60, 61, X,  X,  X,  64, X,  X,  X,  0,  1,  2,  3,  4,  5,  6,
    7,  8,  9,  10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, X,  X,  X,  X,  X,
    X,  26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48,
    49, 50, 51, X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,
    X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,
    X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,
    X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,
    X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,
    X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,
};
#undef X

size_t ddb_base64_encoded_len(size_t n)
{
    return (n + 2) / 3 * 4;
}

size_t ddb_base64_encode(char *out, const unsigned char *in, size_t n)
{
    size_t i = 0, o = 0;
    for (; i + 3 <= n; i += 3) {
        unsigned v = (unsigned)in[i] << 16 | (unsigned)in[i + 1] << 8 | in[i + 2];
        out[o++] = b64_alphabet[v >> 18];
        out[o++] = b64_alphabet[(v >> 12) & 63];
        out[o++] = b64_alphabet[(v >> 6) & 63];
        out[o++] = b64_alphabet[v & 63];
    }
    if (n - i == 1) {
        unsigned v = (unsigned)in[i] << 16;
        out[o++] = b64_alphabet[v >> 18];
        out[o++] = b64_alphabet[(v >> 12) & 63];
        out[o++] = '=';
        out[o++] = '=';
    } else if (n - i == 2) {
        unsigned v = (unsigned)in[i] << 16 | (unsigned)in[i + 1] << 8;
        out[o++] = b64_alphabet[v >> 18];
        out[o++] = b64_alphabet[(v >> 12) & 63];
        out[o++] = b64_alphabet[(v >> 6) & 63];
        out[o++] = '=';
    }
    return o;
}

int ddb_base64_decode(unsigned char *out, size_t *out_len, const char *in, size_t len,
                      size_t *bad_at)
{
    size_t i, o = 0;

    if (len % 4 != 0) {
        if (bad_at)
            *bad_at = len;
        return -1;
    }
    for (i = 0; i < len; i += 4) {
        unsigned char a = b64_value[(unsigned char)in[i]];
        unsigned char b = b64_value[(unsigned char)in[i + 1]];
        unsigned char c = b64_value[(unsigned char)in[i + 2]];
        unsigned char d = b64_value[(unsigned char)in[i + 3]];
        int last = i + 4 == len;

        if (a > 63 || b > 63) {
            if (bad_at)
                *bad_at = a > 63 ? i : i + 1;
            return -1;
        }
        if (c == 64 || d == 64) {
            /* Padding only in the final quantum, "xx==" or "xxx=", with zero spare bits. */
            if (!last || (c == 64 && d != 64) || c == 255 || d == 255) {
                if (bad_at)
                    *bad_at = c > 63 ? i + 2 : i + 3;
                return -1;
            }
            if (c == 64) {
                if (b & 15) {
                    if (bad_at)
                        *bad_at = i + 1;
                    return -1;
                }
                out[o++] = (unsigned char)(a << 2 | b >> 4);
            } else {
                if (c & 3) {
                    if (bad_at)
                        *bad_at = i + 2;
                    return -1;
                }
                out[o++] = (unsigned char)(a << 2 | b >> 4);
                out[o++] = (unsigned char)(b << 4 | c >> 2);
            }
            break;
        }
        if (c > 63 || d > 63) {
            if (bad_at)
                *bad_at = c > 63 ? i + 2 : i + 3;
            return -1;
        }
        out[o++] = (unsigned char)(a << 2 | b >> 4);
        out[o++] = (unsigned char)(b << 4 | c >> 2);
        out[o++] = (unsigned char)(c << 6 | d);
    }
    *out_len = o;
    return 0;
}

/*
 * UTF-8 as a DFA with one 64-bit row per byte (after Per Vognsen's shift
 * DFA): a state is the shift that selects its next state's six bits from
 * the row, so a run of non-ASCII text costs a load, a shift and a mask per
 * byte with no branch. States: ERROR 0 (sticky), ACCEPT 6, C1 12 / C2 18 /
 * C3 24 (one, two, three continuation bytes to go), E0 30 (then A0..BF: no
 * overlong), ED 36 (80..9F: no surrogates), F0 42 (90..BF), F4 48 (80..8F:
 * nothing past U+10FFFF). The rows were generated from those rules;
 * tests/json/test_utf8.c checks them against a decoder on every sequence.
 */
#define UTF8_ACCEPT 6
static const uint64_t utf8_dfa[256] = {
    UINT64_C(0x00000000000180), UINT64_C(0x00000000000180), UINT64_C(0x00000000000180),
    UINT64_C(0x00000000000180), UINT64_C(0x00000000000180), UINT64_C(0x00000000000180),
    UINT64_C(0x00000000000180), UINT64_C(0x00000000000180), UINT64_C(0x00000000000180),
    UINT64_C(0x00000000000180), UINT64_C(0x00000000000180), UINT64_C(0x00000000000180),
    UINT64_C(0x00000000000180), UINT64_C(0x00000000000180), UINT64_C(0x00000000000180),
    UINT64_C(0x00000000000180), UINT64_C(0x00000000000180), UINT64_C(0x00000000000180),
    UINT64_C(0x00000000000180), UINT64_C(0x00000000000180), UINT64_C(0x00000000000180),
    UINT64_C(0x00000000000180), UINT64_C(0x00000000000180), UINT64_C(0x00000000000180),
    UINT64_C(0x00000000000180), UINT64_C(0x00000000000180), UINT64_C(0x00000000000180),
    UINT64_C(0x00000000000180), UINT64_C(0x00000000000180), UINT64_C(0x00000000000180),
    UINT64_C(0x00000000000180), UINT64_C(0x00000000000180), UINT64_C(0x00000000000180),
    UINT64_C(0x00000000000180), UINT64_C(0x00000000000180), UINT64_C(0x00000000000180),
    UINT64_C(0x00000000000180), UINT64_C(0x00000000000180), UINT64_C(0x00000000000180),
    UINT64_C(0x00000000000180), UINT64_C(0x00000000000180), UINT64_C(0x00000000000180),
    UINT64_C(0x00000000000180), UINT64_C(0x00000000000180), UINT64_C(0x00000000000180),
    UINT64_C(0x00000000000180), UINT64_C(0x00000000000180), UINT64_C(0x00000000000180),
    UINT64_C(0x00000000000180), UINT64_C(0x00000000000180), UINT64_C(0x00000000000180),
    UINT64_C(0x00000000000180), UINT64_C(0x00000000000180), UINT64_C(0x00000000000180),
    UINT64_C(0x00000000000180), UINT64_C(0x00000000000180), UINT64_C(0x00000000000180),
    UINT64_C(0x00000000000180), UINT64_C(0x00000000000180), UINT64_C(0x00000000000180),
    UINT64_C(0x00000000000180), UINT64_C(0x00000000000180), UINT64_C(0x00000000000180),
    UINT64_C(0x00000000000180), UINT64_C(0x00000000000180), UINT64_C(0x00000000000180),
    UINT64_C(0x00000000000180), UINT64_C(0x00000000000180), UINT64_C(0x00000000000180),
    UINT64_C(0x00000000000180), UINT64_C(0x00000000000180), UINT64_C(0x00000000000180),
    UINT64_C(0x00000000000180), UINT64_C(0x00000000000180), UINT64_C(0x00000000000180),
    UINT64_C(0x00000000000180), UINT64_C(0x00000000000180), UINT64_C(0x00000000000180),
    UINT64_C(0x00000000000180), UINT64_C(0x00000000000180), UINT64_C(0x00000000000180),
    UINT64_C(0x00000000000180), UINT64_C(0x00000000000180), UINT64_C(0x00000000000180),
    UINT64_C(0x00000000000180), UINT64_C(0x00000000000180), UINT64_C(0x00000000000180),
    UINT64_C(0x00000000000180), UINT64_C(0x00000000000180), UINT64_C(0x00000000000180),
    UINT64_C(0x00000000000180), UINT64_C(0x00000000000180), UINT64_C(0x00000000000180),
    UINT64_C(0x00000000000180), UINT64_C(0x00000000000180), UINT64_C(0x00000000000180),
    UINT64_C(0x00000000000180), UINT64_C(0x00000000000180), UINT64_C(0x00000000000180),
    UINT64_C(0x00000000000180), UINT64_C(0x00000000000180), UINT64_C(0x00000000000180),
    UINT64_C(0x00000000000180), UINT64_C(0x00000000000180), UINT64_C(0x00000000000180),
    UINT64_C(0x00000000000180), UINT64_C(0x00000000000180), UINT64_C(0x00000000000180),
    UINT64_C(0x00000000000180), UINT64_C(0x00000000000180), UINT64_C(0x00000000000180),
    UINT64_C(0x00000000000180), UINT64_C(0x00000000000180), UINT64_C(0x00000000000180),
    UINT64_C(0x00000000000180), UINT64_C(0x00000000000180), UINT64_C(0x00000000000180),
    UINT64_C(0x00000000000180), UINT64_C(0x00000000000180), UINT64_C(0x00000000000180),
    UINT64_C(0x00000000000180), UINT64_C(0x00000000000180), UINT64_C(0x00000000000180),
    UINT64_C(0x00000000000180), UINT64_C(0x00000000000180), UINT64_C(0x00000000000180),
    UINT64_C(0x00000000000180), UINT64_C(0x00000000000180), UINT64_C(0x1200c012306000),
    UINT64_C(0x1200c012306000), UINT64_C(0x1200c012306000), UINT64_C(0x1200c012306000),
    UINT64_C(0x1200c012306000), UINT64_C(0x1200c012306000), UINT64_C(0x1200c012306000),
    UINT64_C(0x1200c012306000), UINT64_C(0x1200c012306000), UINT64_C(0x1200c012306000),
    UINT64_C(0x1200c012306000), UINT64_C(0x1200c012306000), UINT64_C(0x1200c012306000),
    UINT64_C(0x1200c012306000), UINT64_C(0x1200c012306000), UINT64_C(0x1200c012306000),
    UINT64_C(0x0048c012306000), UINT64_C(0x0048c012306000), UINT64_C(0x0048c012306000),
    UINT64_C(0x0048c012306000), UINT64_C(0x0048c012306000), UINT64_C(0x0048c012306000),
    UINT64_C(0x0048c012306000), UINT64_C(0x0048c012306000), UINT64_C(0x0048c012306000),
    UINT64_C(0x0048c012306000), UINT64_C(0x0048c012306000), UINT64_C(0x0048c012306000),
    UINT64_C(0x0048c012306000), UINT64_C(0x0048c012306000), UINT64_C(0x0048c012306000),
    UINT64_C(0x0048c012306000), UINT64_C(0x00480312306000), UINT64_C(0x00480312306000),
    UINT64_C(0x00480312306000), UINT64_C(0x00480312306000), UINT64_C(0x00480312306000),
    UINT64_C(0x00480312306000), UINT64_C(0x00480312306000), UINT64_C(0x00480312306000),
    UINT64_C(0x00480312306000), UINT64_C(0x00480312306000), UINT64_C(0x00480312306000),
    UINT64_C(0x00480312306000), UINT64_C(0x00480312306000), UINT64_C(0x00480312306000),
    UINT64_C(0x00480312306000), UINT64_C(0x00480312306000), UINT64_C(0x00480312306000),
    UINT64_C(0x00480312306000), UINT64_C(0x00480312306000), UINT64_C(0x00480312306000),
    UINT64_C(0x00480312306000), UINT64_C(0x00480312306000), UINT64_C(0x00480312306000),
    UINT64_C(0x00480312306000), UINT64_C(0x00480312306000), UINT64_C(0x00480312306000),
    UINT64_C(0x00480312306000), UINT64_C(0x00480312306000), UINT64_C(0x00480312306000),
    UINT64_C(0x00480312306000), UINT64_C(0x00480312306000), UINT64_C(0x00480312306000),
    UINT64_C(0x00000000000000), UINT64_C(0x00000000000000), UINT64_C(0x00000000000300),
    UINT64_C(0x00000000000300), UINT64_C(0x00000000000300), UINT64_C(0x00000000000300),
    UINT64_C(0x00000000000300), UINT64_C(0x00000000000300), UINT64_C(0x00000000000300),
    UINT64_C(0x00000000000300), UINT64_C(0x00000000000300), UINT64_C(0x00000000000300),
    UINT64_C(0x00000000000300), UINT64_C(0x00000000000300), UINT64_C(0x00000000000300),
    UINT64_C(0x00000000000300), UINT64_C(0x00000000000300), UINT64_C(0x00000000000300),
    UINT64_C(0x00000000000300), UINT64_C(0x00000000000300), UINT64_C(0x00000000000300),
    UINT64_C(0x00000000000300), UINT64_C(0x00000000000300), UINT64_C(0x00000000000300),
    UINT64_C(0x00000000000300), UINT64_C(0x00000000000300), UINT64_C(0x00000000000300),
    UINT64_C(0x00000000000300), UINT64_C(0x00000000000300), UINT64_C(0x00000000000300),
    UINT64_C(0x00000000000300), UINT64_C(0x00000000000300), UINT64_C(0x00000000000780),
    UINT64_C(0x00000000000480), UINT64_C(0x00000000000480), UINT64_C(0x00000000000480),
    UINT64_C(0x00000000000480), UINT64_C(0x00000000000480), UINT64_C(0x00000000000480),
    UINT64_C(0x00000000000480), UINT64_C(0x00000000000480), UINT64_C(0x00000000000480),
    UINT64_C(0x00000000000480), UINT64_C(0x00000000000480), UINT64_C(0x00000000000480),
    UINT64_C(0x00000000000900), UINT64_C(0x00000000000480), UINT64_C(0x00000000000480),
    UINT64_C(0x00000000000a80), UINT64_C(0x00000000000600), UINT64_C(0x00000000000600),
    UINT64_C(0x00000000000600), UINT64_C(0x00000000000c00), UINT64_C(0x00000000000000),
    UINT64_C(0x00000000000000), UINT64_C(0x00000000000000), UINT64_C(0x00000000000000),
    UINT64_C(0x00000000000000), UINT64_C(0x00000000000000), UINT64_C(0x00000000000000),
    UINT64_C(0x00000000000000), UINT64_C(0x00000000000000), UINT64_C(0x00000000000000),
    UINT64_C(0x00000000000000),
};

/* The first index >= i of a non-ASCII byte, or len: eight bytes a step. */
static size_t skip_ascii(const unsigned char *p, size_t i, size_t len)
{
    uint64_t w;
    while (i + 8 <= len) {
        memcpy(&w, p + i, 8);
        if (w & 0x8080808080808080ull)
            break;
        i += 8;
    }
    while (i < len && p[i] < 0x80)
        i++;
    return i;
}

/* Character by character: where the first bad sequence starts. */
static int utf8_valid_slow(const char *s, size_t len, size_t *bad_at)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;

    for (;;) {
        unsigned char c;
        size_t n;
        uint32_t cp;

        if ((i = skip_ascii(p, i, len)) == len)
            return 1;
        c = p[i];
        if (c >= 0xC2 && c <= 0xDF) {
            n = 1;
            cp = c & 0x1F;
        } else if (c >= 0xE0 && c <= 0xEF) {
            n = 2;
            cp = c & 0x0F;
        } else if (c >= 0xF0 && c <= 0xF4) {
            n = 3;
            cp = c & 0x07;
        } else {
            goto bad;
        }
        if (len - i <= n)
            goto bad;
        for (size_t k = 1; k <= n; k++) {
            if ((p[i + k] & 0xC0) != 0x80)
                goto bad;
            cp = cp << 6 | (p[i + k] & 0x3F);
        }
        if ((n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) || cp > 0x10FFFF ||
            (cp >= 0xD800 && cp <= 0xDFFF))
            goto bad;
        i += n + 1;
    }
bad:
    if (bad_at)
        *bad_at = i;
    return 0;
}

int ddb_utf8_valid(const char *s, size_t len, size_t *bad_at)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    uint64_t state = UTF8_ACCEPT;

    while (i < len) {
        size_t end;
        if (state == UTF8_ACCEPT && (i = skip_ascii(p, i, len)) == len)
            break; /* ASCII between characters */
        end = len - i > 32 ? i + 32 : len;
        for (; i < end; i++)
            state = (utf8_dfa[p[i]] >> state) & 63;
        if (state == 0)
            break;
    }
    if (state == UTF8_ACCEPT)
        return 1;
    /* Rare: the careful walk says where the bad sequence starts. */
    return utf8_valid_slow(s, len, bad_at);
}

size_t ddb_utf8_encode(char *out, uint32_t cp)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | cp >> 6);
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp >= 0xD800 && cp <= 0xDFFF)
        return 0;
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | cp >> 12);
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    if (cp <= 0x10FFFF) {
        out[0] = (char)(0xF0 | cp >> 18);
        out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[3] = (char)(0x80 | (cp & 0x3F));
        return 4;
    }
    return 0;
}

void ddb_hex_encode(char *out, const unsigned char *in, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = hex[in[i] >> 4];
        out[2 * i + 1] = hex[in[i] & 15];
    }
}
