/*
 * Deterministic randomness: xoshiro256** (Blackman and Vigna) seeded through
 * splitmix64, a keyed permutation by cycle-walking, and a portable hash.
 */
#include "ddbpipe/rng.h"

#include <string.h>

uint64_t ddb_mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

uint64_t ddb_splitmix64(uint64_t *state)
{
    return ddb_mix64(*state += 0x9e3779b97f4a7c15ull);
}

void ddb_rng_seed(ddb_rng *r, uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++)
        r->s[i] = ddb_splitmix64(&x);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t ddb_rng_next(ddb_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

uint64_t ddb_rng_below(ddb_rng *r, uint64_t n)
{
    /* Multiply-high: the bias is below n / 2^64, far under anything a test
     * data set could show. */
    if (n == 0)
        return 0;
    return (uint64_t)(((unsigned __int128)ddb_rng_next(r) * n) >> 64);
}

double ddb_rng_unit(ddb_rng *r)
{
    return (double)(ddb_rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

uint64_t ddb_hash_combine(uint64_t h, uint64_t v)
{
    return ddb_mix64(h ^ ddb_mix64(v + 0x9e3779b97f4a7c15ull));
}

uint64_t ddb_hash64(const void *data, size_t len, uint64_t seed)
{
    const unsigned char *p = data;
    uint64_t h = ddb_mix64(seed ^ ((uint64_t)len * 0x9e3779b97f4a7c15ull));
    while (len >= 8) {
        /* the eight bytes as a little-endian word, whatever the machine */
        uint64_t w;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        memcpy(&w, p, 8); /* one load, not eight shifts */
#else
        w = 0;
        for (int i = 7; i >= 0; i--)
            w = (w << 8) | p[i];
#endif
        h = ddb_mix64(h ^ w) + 0x632be59bd9b4e019ull;
        p += 8;
        len -= 8;
    }
    if (len > 0) {
        uint64_t w = 0;
        for (size_t i = len; i-- > 0;)
            w = (w << 8) | p[i];
        h = ddb_mix64(h ^ w ^ ((uint64_t)len << 59));
    }
    return ddb_mix64(h);
}

/* A keyed bijection of the b-bit values (mask = 2^b - 1): adding a constant,
 * xor with a right shift and multiplying by an odd number are each
 * invertible modulo 2^b. */
static uint64_t bijection(uint64_t x, int bits, uint64_t mask, uint64_t key)
{
    int shift = bits / 2 + 1;
    for (int round = 0; round < 3; round++) {
        key = ddb_mix64(key + (uint64_t)round);
        x = (x + key) & mask;
        x ^= x >> shift;
        x = (x * (key | 1)) & mask;
        x ^= x >> shift;
    }
    return x;
}

uint64_t ddb_permute(uint64_t k, uint64_t n, uint64_t key)
{
    int bits = 0;
    uint64_t mask, x = k;
    if (n <= 1)
        return 0;
    while (bits < 64 && ((n - 1) >> bits) != 0)
        bits++;
    mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
    do
        x = bijection(x, bits, mask, key);
    while (x >= n);
    return x;
}
