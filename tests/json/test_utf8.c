/* The UTF-8 check (a table-driven DFA with a character-by-character walk for
 * the position of a bad sequence) against a plain decoder written here from
 * the Unicode Standard's table of well-formed byte sequences: the same
 * verdict and the same position on every sequence of up to four bytes drawn
 * from the boundary bytes of each range, at every alignment, in ASCII and in
 * non-ASCII text, and on random strings. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/codec.h"

/* Unicode 15, table 3-7: the well-formed sequence starting at s[i], its
 * length, or 0. */
static size_t well_formed_at(const unsigned char *s, size_t n, size_t i)
{
    unsigned char b = s[i];
    unsigned char lo = 0x80, hi = 0xBF;
    size_t len;
    if (b <= 0x7F)
        return 1;
    if (b >= 0xC2 && b <= 0xDF)
        len = 2;
    else if (b >= 0xE0 && b <= 0xEF)
        len = 3;
    else if (b >= 0xF0 && b <= 0xF4)
        len = 4;
    else
        return 0;
    if (b == 0xE0)
        lo = 0xA0;
    else if (b == 0xED)
        hi = 0x9F;
    else if (b == 0xF0)
        lo = 0x90;
    else if (b == 0xF4)
        hi = 0x8F;
    if (n - i < len)
        return 0;
    if (s[i + 1] < lo || s[i + 1] > hi)
        return 0;
    for (size_t k = 2; k < len; k++)
        if (s[i + k] < 0x80 || s[i + k] > 0xBF)
            return 0;
    return len;
}

static int reference(const unsigned char *s, size_t n, size_t *bad)
{
    for (size_t i = 0; i < n;) {
        size_t l = well_formed_at(s, n, i);
        if (l == 0) {
            *bad = i;
            return 0;
        }
        i += l;
    }
    return 1;
}

static void agree(const unsigned char *s, size_t n)
{
    size_t want_bad = (size_t)-1, got_bad = (size_t)-1;
    int want = reference(s, n, &want_bad);
    int got = ddb_utf8_valid((const char *)s, n, &got_bad);
    if (got != want || (!want && got_bad != want_bad)) {
        char hex[3 * 64 + 1] = "";
        for (size_t i = 0; i < n && i < 64; i++)
            snprintf(hex + 3 * i, 4, "%02x ", s[i]);
        cr_assert_fail("%s: valid %d (want %d), bad at %zu (want %zu)", hex, got, want, got_bad,
                       want_bad);
    }
}

/* Every boundary of every range in table 3-7, and one ASCII letter. */
static const unsigned char edges[] = {0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF,
                                      0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xEC, 0xED, 0xEE,
                                      0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF};
#define N_EDGES (sizeof(edges))

Test(utf8, every_short_sequence_of_boundary_bytes_after_every_prefix)
{
    /* an ASCII run (the eight-byte step) or non-ASCII text before it */
    static const char *const prefixes[] = {"",
                                           "a",
                                           "abcdefg",
                                           "abcdefghijklmnopq",
                                           "\xE6\xBC\xA2",
                                           "\xC3\xA9\xE6\xBC\xA2\xF0\x9F\x98\x80",
                                           "\xE6\xBC\xA2\xE6\xBC\xA2\xE6\xBC\xA2\xE6\xBC\xA2"
                                           "\xE6\xBC\xA2\xE6\xBC\xA2\xE6\xBC\xA2\xE6\xBC\xA2"
                                           "\xE6\xBC\xA2\xE6\xBC\xA2\xE6\xBC\xA2"};
    for (size_t pi = 0; pi < sizeof(prefixes) / sizeof(prefixes[0]); pi++) {
        unsigned char s[64];
        size_t pl = strlen(prefixes[pi]);
        memcpy(s, prefixes[pi], pl);
        for (size_t a = 0; a < N_EDGES; a++) {
            s[pl] = edges[a];
            agree(s, pl + 1);
            for (size_t b = 0; b < N_EDGES; b++) {
                s[pl + 1] = edges[b];
                agree(s, pl + 2);
                for (size_t c = 0; c < N_EDGES; c++) {
                    s[pl + 2] = edges[c];
                    agree(s, pl + 3);
                    for (size_t d = 0; d < N_EDGES; d++) {
                        s[pl + 3] = edges[d];
                        agree(s, pl + 4);
                        memcpy(s + pl + 4, "xyz", 3); /* and with text after it */
                        agree(s, pl + 7);
                    }
                }
            }
        }
    }
}

Test(utf8, every_lead_and_second_byte)
{
    unsigned char s[8];
    for (unsigned a = 0; a < 256; a++) {
        for (unsigned b = 0; b < 256; b++) {
            s[0] = (unsigned char)a;
            s[1] = (unsigned char)b;
            s[2] = 0x80;
            s[3] = 0xBF;
            for (size_t n = 1; n <= 4; n++)
                agree(s, n);
        }
    }
}

/* Random strings of whole characters of every length, with a random byte
 * sometimes in place of one. */
Test(utf8, random_text)
{
    static const char *const chars[] = {"a",
                                        "\x7F",
                                        "\xC2\x80",
                                        "\xDF\xBF",
                                        "\xE0\xA0\x80",
                                        "\xED\x9F\xBF",
                                        "\xEE\x80\x80",
                                        "\xEF\xBF\xBF",
                                        "\xF0\x90\x80\x80",
                                        "\xF4\x8F\xBF\xBF",
                                        "\xE6\xBC\xA2"};
    unsigned seed = 12345;
    for (int round = 0; round < 20000; round++) {
        unsigned char s[300];
        size_t n = 0;
        int parts = (int)(rand_r(&seed) % 60);
        for (int k = 0; k < parts; k++) {
            const char *c = chars[rand_r(&seed) % (sizeof(chars) / sizeof(chars[0]))];
            memcpy(s + n, c, strlen(c));
            n += strlen(c);
        }
        if (round % 3 == 0 && n > 0)
            s[rand_r(&seed) % n] = (unsigned char)(rand_r(&seed) & 0xFF);
        if (round % 7 == 0 && n > 0)
            n = rand_r(&seed) % n; /* cut anywhere */
        agree(s, n);
    }
}
