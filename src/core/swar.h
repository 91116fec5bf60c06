/*
 * swar.h (private header of core/) — byte tests on eight bytes at once (SIMD within a register), for
 * the scanners of JSON strings and CSV cells. Exact as yes/no answers: a
 * word has such a byte exactly when the result is not 0 (which bit is set
 * says nothing).
 */
#ifndef DDBPIPE_SWAR_H
#define DDBPIPE_SWAR_H

#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define DDB_SWAR_ONES UINT64_C(0x0101010101010101)
#define DDB_SWAR_HIGHS UINT64_C(0x8080808080808080)

/* Not 0 when a byte of v is 0. */
static inline uint64_t ddb_swar_zero(uint64_t v)
{
    return (v - DDB_SWAR_ONES) & ~v & DDB_SWAR_HIGHS;
}

/* Not 0 when a byte of v equals c. */
static inline uint64_t ddb_swar_byte(uint64_t v, unsigned char c)
{
    return ddb_swar_zero(v ^ (DDB_SWAR_ONES * c));
}

/* Not 0 when a byte of v is below n (n <= 0x80; exact for bytes below
 * 0x80, which callers check first). */
static inline uint64_t ddb_swar_less(uint64_t v, unsigned char n)
{
    return (v - DDB_SWAR_ONES * n) & ~v & DDB_SWAR_HIGHS;
}

/* Not 0 when a byte of v is one a JSON string cannot hold as it is: '"',
 * '\\' or a control character (below 0x20). Non-ASCII bytes are not. */
static inline uint64_t ddb_swar_json_special(uint64_t v)
{
    return ((v - DDB_SWAR_ONES * 0x20) | ((v ^ (DDB_SWAR_ONES * '"')) - DDB_SWAR_ONES) |
            ((v ^ (DDB_SWAR_ONES * '\\')) - DDB_SWAR_ONES)) &
           ~v & DDB_SWAR_HIGHS;
}

/* Not 0 when a byte of v is not an ASCII digit: below '0' (its subtraction
 * borrows into the high bit), above '9' (its addition carries into it) or
 * non-ASCII. A borrow or carry across bytes starts only at a byte that is
 * caught already. */
static inline uint64_t ddb_swar_nondigit(uint64_t v)
{
    return ((v - DDB_SWAR_ONES * '0') | (v + DDB_SWAR_ONES * (0x7f - '9')) | v) & DDB_SWAR_HIGHS;
}

/* Are the n bytes at s all ASCII digits (1 when n is 0)? Keys and numbers
 * are mostly short runs of digits: eight at a time, then one by one. */
static inline int ddb_all_digits(const char *s, size_t n)
{
    uint64_t w;
    for (; n >= 8; s += 8, n -= 8) {
        memcpy(&w, s, 8);
        if (ddb_swar_nondigit(w))
            return 0;
    }
    for (; n > 0; s++, n--)
        if ((unsigned char)(*s - '0') > 9)
            return 0;
    return 1;
}

/* Does s[0, n) hold the byte c? Key fields are a few dozen bytes: eight at
 * a time inline, the last word overlapping the one before, without a call
 * to memchr. */
static inline int ddb_has_byte(const char *s, size_t n, char c)
{
    uint64_t w;
    uint32_t h, t;
    if (n >= 8) {
        for (; n > 8; s += 8, n -= 8) {
            memcpy(&w, s, 8);
            if (ddb_swar_byte(w, (unsigned char)c))
                return 1;
        }
        memcpy(&w, s + n - 8, 8);
        return ddb_swar_byte(w, (unsigned char)c) != 0;
    }
    if (n >= 4) { /* the first four and the last four, as one word */
        memcpy(&h, s, 4);
        memcpy(&t, s + n - 4, 4);
        return ddb_swar_byte((uint64_t)h | (uint64_t)t << 32, (unsigned char)c) != 0;
    }
    for (; n > 0; s++, n--)
        if (*s == c)
            return 1;
    return 0;
}

/* Does the word w hold a CSV cell's special byte: the delimiter, a quote, a
 * CR or an LF? */
static inline int ddb_swar_csv_special(uint64_t w, unsigned char delim)
{
    return (ddb_swar_byte(w, delim) | ddb_swar_byte(w, '"') | ddb_swar_byte(w, '\r') |
            ddb_swar_byte(w, '\n')) != 0;
}

#ifdef __SSE2__
/* The same for sixteen bytes, as a movemask: bit i set when byte i is '"',
 * '\\' or below 0x20 (non-ASCII bytes, negative as signed, are not). */
static inline unsigned ddb_sse_json_special(__m128i x)
{
    __m128i ctl = _mm_andnot_si128(_mm_cmplt_epi8(x, _mm_setzero_si128()),
                                   _mm_cmplt_epi8(x, _mm_set1_epi8(0x20)));
    return (unsigned)_mm_movemask_epi8(_mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('"')), _mm_cmpeq_epi8(x, _mm_set1_epi8('\\'))),
        ctl));
}

/* A short run, 4 <= n < 16 bytes: its first and last eight (or four) bytes
 * side by side in one vector, overlapping where n is not a multiple, so one
 * test looks at all of it. *lanes: the mask of the lanes that hold bytes (the
 * rest are 0). Nothing is read outside s[0, n). */
static inline __m128i ddb_sse_ends(const char *s, size_t n, unsigned *lanes)
{
    if (n >= 8) {
        *lanes = 0xffff;
        return _mm_unpacklo_epi64(_mm_loadl_epi64((const __m128i *)(const void *)s),
                                  _mm_loadl_epi64((const __m128i *)(const void *)(s + n - 8)));
    } else {
        uint32_t h, t;
        memcpy(&h, s, 4);
        memcpy(&t, s + n - 4, 4);
        *lanes = 0xff;
        return _mm_unpacklo_epi32(_mm_cvtsi32_si128((int)h), _mm_cvtsi32_si128((int)t));
    }
}

/* Writes the run ddb_sse_ends(s, n) took back to dst[0, n). */
static inline void ddb_sse_store_ends(char *dst, size_t n, __m128i v)
{
    if (n >= 8) {
        _mm_storel_epi64((__m128i *)(void *)dst, v);
        _mm_storel_epi64((__m128i *)(void *)(dst + n - 8), _mm_srli_si128(v, 8));
    } else {
        uint32_t h = (uint32_t)_mm_cvtsi128_si32(v),
                 t = (uint32_t)_mm_cvtsi128_si32(_mm_srli_si128(v, 4));
        memcpy(dst, &h, 4);
        memcpy(dst + n - 4, &t, 4);
    }
}
#endif

#endif
