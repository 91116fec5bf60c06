/*
 * test_swar.c — the word-at-a-time byte tests the key checks trust:
 * ddb_all_digits (plain digits), ddb_has_byte (a separator in a field) and
 * ddb_mem_eq (value.h), against byte-by-byte checks: every byte value in
 * every position, runs of every length around the word sizes, each in a
 * block of exactly its size (ASan sees a read past it).
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/value.h"
#include "core/swar.h"

static int slow_digits(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return 0;
    return 1;
}

Test(digits, every_byte_in_every_position)
{
    for (size_t len = 1; len <= 19; len++)
        for (size_t at = 0; at < len; at++)
            for (int b = 0; b < 256; b++) {
                char s[24];
                memset(s, '7', sizeof(s));
                s[at] = (char)b;
                cr_assert_eq(ddb_all_digits(s, len), slow_digits(s, len),
                             "byte 0x%02x at %zu of %zu", b, at, len);
            }
}

/* A byte that borrows or carries must not hide its neighbour: pairs of the
 * bytes just outside the digits, side by side. */
Test(digits, neighbours_at_the_edges)
{
    static const unsigned char edge[] = {0x00, 0x2f, 0x30, 0x39, 0x3a, 0x7f,
                                         0x80, 0xb9, 0xba, 0xcf, 0xd0, 0xff};
    for (size_t i = 0; i < sizeof(edge); i++)
        for (size_t j = 0; j < sizeof(edge); j++)
            for (size_t at = 0; at + 1 < 8; at++) {
                char s[8];
                memset(s, '0', sizeof(s));
                s[at] = (char)edge[i];
                s[at + 1] = (char)edge[j];
                cr_assert_eq(ddb_all_digits(s, 8), slow_digits(s, 8), "0x%02x 0x%02x at %zu",
                             edge[i], edge[j], at);
            }
}

Test(digits, empty_is_digits)
{
    cr_assert(ddb_all_digits("", 0));
}

Test(swar, has_byte_finds_it_at_every_offset)
{
    for (size_t len = 0; len <= 40; len++) {
        char *s = malloc(len ? len : 1);
        cr_assert_not_null(s);
        for (size_t i = 0; i < len; i++)
            s[i] = (char)('a' + i % 20);
        cr_assert(!ddb_has_byte(s, len, '#'), "none in %zu", len);
        for (size_t at = 0; at < len; at++) {
            char keep = s[at];
            s[at] = '#';
            cr_assert(ddb_has_byte(s, len, '#'), "at %zu of %zu", at, len);
            /* a byte that differs from '#' by one bit, or is '#' + 0x80 */
            s[at] = (char)('#' ^ 1);
            cr_assert(!ddb_has_byte(s, len, '#'), "0x22 at %zu of %zu", at, len);
            s[at] = (char)(0x80 | '#');
            cr_assert(!ddb_has_byte(s, len, '#'), "0xa3 at %zu of %zu", at, len);
            s[at] = keep;
        }
        free(s);
    }
}

Test(swar, mem_eq_sees_a_difference_at_every_offset)
{
    for (size_t len = 0; len <= 40; len++) {
        char *a = malloc(len ? len : 1), *b = malloc(len ? len : 1);
        cr_assert(a != NULL && b != NULL);
        for (size_t i = 0; i < len; i++)
            a[i] = b[i] = (char)(0x41 + i * 7 % 50);
        cr_assert(ddb_mem_eq(a, b, len), "equal, %zu", len);
        for (size_t at = 0; at < len; at++)
            for (int bit = 0; bit < 8; bit++) {
                b[at] ^= (char)(1 << bit);
                cr_assert(!ddb_mem_eq(a, b, len), "bit %d at %zu of %zu", bit, at, len);
                b[at] ^= (char)(1 << bit);
            }
        free(a);
        free(b);
    }
}
