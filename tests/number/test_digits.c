/*
 * test_digits.c — ddb_all_digits (swar.h), which the key checks and the
 * column types trust to say "plain digits": every byte value in every
 * position of an eight-byte word, and runs of every length around the word
 * size, against a byte-by-byte check.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "swar.h"

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
