/* The deterministic PRNG, hash and keyed permutation behind generate and diff. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/rng.h"

Test(rng, same_seed_same_sequence)
{
    ddb_rng a, b, c;
    int differs = 0;
    ddb_rng_seed(&a, 42);
    ddb_rng_seed(&b, 42);
    ddb_rng_seed(&c, 43);
    for (int i = 0; i < 1000; i++) {
        uint64_t x = ddb_rng_next(&a);
        cr_assert_eq(x, ddb_rng_next(&b));
        differs |= x != ddb_rng_next(&c);
    }
    cr_assert(differs);
}

/* Fixed values: the generated data of a seed must not change between
 * versions or machines (the hash reads bytes in a fixed order). */
Test(rng, known_values)
{
    ddb_rng r;
    uint64_t s = 0;
    ddb_rng_seed(&r, 1);
    cr_assert_eq(ddb_splitmix64(&s), 0xe220a8397b1dcdafull);
    cr_assert_eq(ddb_rng_next(&r), 0xb3f2af6d0fc710c5ull);
    cr_assert_eq(ddb_hash64("", 0, 0), ddb_hash64("", 0, 0));
    cr_assert_neq(ddb_hash64("a", 1, 0), ddb_hash64("b", 1, 0));
    cr_assert_neq(ddb_hash64("ab", 2, 0), ddb_hash64("ba", 2, 0));
    cr_assert_neq(ddb_hash64("abcdefghi", 9, 0), ddb_hash64("abcdefghi", 9, 1));
}

/* ddb_hash64's values are the generator's data: pinned, so a faster hash
 * cannot change what a seed generates. */
Test(rng, hash64_values_are_pinned)
{
    static const char *const in[] = {"", "a", "abcdefgh", "abcdefghi",
                                     "{\"S\":\"Tag#wxid_uozfcn5t787yv6\"}|{\"S\":\"tag01\"}"};
    static const uint64_t want[] = {0x0000000000000000ull, 0xa009b404574fb4c6ull,
                                    0x18584116c3d7afcfull, 0xf2223f68d0dd48afull,
                                    0x9fa4277a517bcb6dull};
    for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++)
        cr_assert_eq(ddb_hash64(in[i], strlen(in[i]), 7 * i), want[i], "input %zu", i);
}

Test(rng, below_stays_in_range)
{
    ddb_rng r;
    ddb_rng_seed(&r, 7);
    cr_assert_eq(ddb_rng_below(&r, 0), 0);
    for (int i = 0; i < 10000; i++) {
        cr_assert_lt(ddb_rng_below(&r, 7), 7);
        double u = ddb_rng_unit(&r);
        cr_assert(u >= 0 && u < 1);
    }
}

/* Every k below n maps to a distinct value below n, for awkward sizes too. */
Test(rng, permute_is_a_bijection)
{
    static const uint64_t sizes[] = {1, 2, 3, 7, 8, 9, 100, 127, 128, 129, 1000, 4097};
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        uint64_t n = sizes[s];
        unsigned char *seen = calloc(n, 1);
        for (uint64_t k = 0; k < n; k++) {
            uint64_t v = ddb_permute(k, n, 0x1234 + s);
            cr_assert_lt(v, n, "n=%llu", (unsigned long long)n);
            cr_assert_eq(seen[v], 0, "n=%llu: %llu twice", (unsigned long long)n,
                         (unsigned long long)v);
            seen[v] = 1;
        }
        free(seen);
    }
}

Test(rng, permute_depends_on_the_key_and_handles_huge_n)
{
    int moved = 0;
    for (uint64_t k = 0; k < 100; k++)
        moved |= ddb_permute(k, 1000, 1) != ddb_permute(k, 1000, 2);
    cr_assert(moved);
    /* near 2^64: still below n and one-to-one on a sample */
    uint64_t n = UINT64_MAX - 5, prev = ddb_permute(0, n, 9);
    for (uint64_t k = 1; k < 1000; k++) {
        uint64_t v = ddb_permute(k, n, 9);
        cr_assert_lt(v, n);
        cr_assert_neq(v, prev);
        prev = v;
    }
}
