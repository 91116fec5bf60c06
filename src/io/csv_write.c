/*
 * csv_write.c — the quoting of the cells the CSV writers put out (RFC 4180):
 * a cell is quoted when it holds the delimiter, a quote, a CR or an LF, or
 * begins or ends with a space or a tab; quotes inside are doubled.
 */
#include "ddbpipe/csv.h"

#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "core/swar.h"

#ifdef __SSE2__
/* Mask of the 16 bytes at s that are the delimiter, a quote, a CR or an LF. */
static inline unsigned special_v(__m128i v, __m128i d)
{
    return (unsigned)_mm_movemask_epi8(
        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, d), _mm_cmpeq_epi8(v, _mm_set1_epi8('"'))),
                     _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('\r')),
                                  _mm_cmpeq_epi8(v, _mm_set1_epi8('\n')))));
}

static inline unsigned special16(const char *s, __m128i d)
{
    return special_v(_mm_loadu_si128((const __m128i *)(const void *)s), d);
}
#endif

/* Cells copied as they are looked at: from four bytes with SSE2, eight
 * without. */
#ifdef __SSE2__
#define COPY_MIN 4
#else
#define COPY_MIN 8
#endif

/* Does a cell of COPY_MIN bytes or more, s[0, len), need no quotes? It is copied to
 * dst (room for len bytes) while it is looked at: each step is stored once
 * checked, the last one overlapping the one before, so nothing is written
 * past len (what was written counts only when it needs no quotes). */
static inline int copy_plain(char *dst, const char *s, size_t len, char delimiter)
{
    if (s[0] == ' ' || s[0] == '\t' || s[len - 1] == ' ' || s[len - 1] == '\t')
        return 0;
#ifdef __SSE2__
    if (len >= 16) {
        __m128i d = _mm_set1_epi8(delimiter);
        for (size_t i = 0; i + 16 < len; i += 16) {
            if (special16(s + i, d))
                return 0;
            _mm_storeu_si128((__m128i *)(void *)(dst + i),
                             _mm_loadu_si128((const __m128i *)(const void *)(s + i)));
        }
        if (special16(s + len - 16, d))
            return 0;
        _mm_storeu_si128((__m128i *)(void *)(dst + len - 16),
                         _mm_loadu_si128((const __m128i *)(const void *)(s + len - 16)));
        return 1;
    }
    {
        /* 4 to 15 bytes: the first and last eight (or four), checked as one */
        unsigned lanes;
        __m128i v = ddb_sse_ends(s, len, &lanes);
        if (special_v(v, _mm_set1_epi8(delimiter)) & lanes)
            return 0;
        ddb_sse_store_ends(dst, len, v);
        return 1;
    }
#else
    uint64_t x;
    for (size_t i = 0; i + 8 < len; i += 8) {
        memcpy(&x, s + i, 8);
        if (ddb_swar_csv_special(x, (unsigned char)delimiter))
            return 0;
        memcpy(dst + i, &x, 8);
    }
    memcpy(&x, s + len - 8, 8);
    if (ddb_swar_csv_special(x, (unsigned char)delimiter))
        return 0;
    memcpy(dst + len - 8, &x, 8);
    return 1;
#endif
}

/* Does a cell shorter than COPY_MIN bytes need quotes? */
static inline int short_needs_quotes(const char *s, size_t len, char delimiter)
{
    if (s[0] == ' ' || s[0] == '\t' || s[len - 1] == ' ' || s[len - 1] == '\t')
        return 1;
    for (size_t i = 0; i < len; i++)
        if (s[i] == delimiter || s[i] == '"' || s[i] == '\r' || s[i] == '\n')
            return 1;
    return 0;
}

/* Copies s[0, len) to dst doubling each quote; dst has room for 2 * len + 1
 * bytes (bytes past the copy are written, then overwritten or left past the
 * end: a store at d, where at most 2 * k bytes stand for the first k of s and
 * k + 16 <= len, ends by 2 * len - 16). JSON in a cell (a map, _extra) has a quote every few
 * bytes, so most 16-byte blocks hold some: a block is copied as the runs
 * between its quotes, one 16-byte store per run (each loaded from s where it
 * starts, so no shift is needed). In the last 32 bytes, where such a load
 * could read past s, a block without a quote still goes in one store, the
 * rest a byte at a time. Returns the bytes written. */
static size_t put_doubled(char *dst, const char *s, size_t len)
{
    char *d = dst;
    size_t i = 0;
#ifdef __SSE2__
    const __m128i q = _mm_set1_epi8('"');
    for (; i + 32 <= len; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
        unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, q));
        size_t start = 0;
        while (m != 0) {
            size_t at = (size_t)__builtin_ctz(m);
            m &= m - 1;
            _mm_storeu_si128((__m128i *)(void *)d,
                             _mm_loadu_si128((const __m128i *)(const void *)(s + i + start)));
            d += at + 1 - start;
            *d++ = '"';
            start = at + 1;
        }
        _mm_storeu_si128((__m128i *)(void *)d,
                         _mm_loadu_si128((const __m128i *)(const void *)(s + i + start)));
        d += 16 - start;
    }
    if (i + 16 <= len) { /* 16 to 31 bytes left: a block without a quote still in one */
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
        if (_mm_movemask_epi8(_mm_cmpeq_epi8(v, q)) == 0) {
            _mm_storeu_si128((__m128i *)(void *)d, v);
            d += 16;
            i += 16;
        }
    }
#endif
    for (; i < len; i++) {
        d[0] = s[i];
        d[1] = '"';
        d += 1 + (s[i] == '"');
    }
    return (size_t)(d - dst);
}

int ddb_csv_put_field(ddb_buf *b, const char *s, size_t len, char delimiter, int force_quote)
{
    int quote = force_quote;

    if (!quote && len >= COPY_MIN) {
        if ((b->cap - b->len <= len || b->oom) && ddb_buf_reserve(b, len) != 0)
            return DDB_ENOMEM;
        if (copy_plain(b->ptr + b->len, s, len, delimiter)) {
            b->len += len;
            b->ptr[b->len] = '\0';
            return 0;
        }
        quote = 1;
    } else if (!quote && len > 0) {
        quote = short_needs_quotes(s, len, delimiter);
    }
    if (!quote)
        return ddb_buf_append(b, s, len);
    /* at most every byte a quote, doubled, and the two around it */
    if (len > (SIZE_MAX - 3) / 2 || ddb_buf_reserve(b, 2 * len + 2) != 0)
        return DDB_ENOMEM;
    b->ptr[b->len++] = '"';
    b->len += put_doubled(b->ptr + b->len, s, len);
    ddb_buf_putc(b, '"');
    return b->oom ? DDB_ENOMEM : 0;
}
