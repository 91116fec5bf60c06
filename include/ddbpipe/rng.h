/*
 * rng.h — deterministic pseudo-random numbers and hashing for generated data
 * and key sampling: xoshiro256** seeded through splitmix64, a keyed
 * permutation of [0, n), and a seeded 64-bit hash of bytes.
 *
 * Nothing here reads a clock or the environment, and bytes are read in a fixed
 * (little-endian) order, so one seed gives the same values on every machine.
 */
#ifndef DDBPIPE_RNG_H
#define DDBPIPE_RNG_H

#include <stddef.h>
#include <stdint.h>

typedef struct ddb_rng {
    uint64_t s[4];
} ddb_rng;

/* One step of splitmix64: advances *state and returns the next output. */
uint64_t ddb_splitmix64(uint64_t *state);

/* The splitmix64 finalizer: a bijection of 64-bit values that mixes every
 * input bit into every output bit. */
uint64_t ddb_mix64(uint64_t x);

/* Seeds r from one 64-bit value (the four words come from splitmix64). */
void ddb_rng_seed(ddb_rng *r, uint64_t seed);

/* Next 64 random bits (xoshiro256**). */
uint64_t ddb_rng_next(ddb_rng *r);

/* Uniform in [0, n) by multiply-high; n == 0 gives 0. */
uint64_t ddb_rng_below(ddb_rng *r, uint64_t n);

/* Uniform in [0, 1) with 53 bits. */
double ddb_rng_unit(ddb_rng *r);

/* Seeded hash of len bytes; equal inputs and seeds give equal hashes on
 * every platform. */
uint64_t ddb_hash64(const void *data, size_t len, uint64_t seed);

/* Combines a hash with one more 64-bit value (order matters). */
uint64_t ddb_hash_combine(uint64_t h, uint64_t v);

/*
 * A permutation of [0, n) chosen by key: k (< n) maps to a distinct value in
 * [0, n), and consecutive k look unrelated. Cycle-walks a keyed bijection of
 * the smallest power of two >= n (under two steps on average). n == 0 or 1
 * gives 0.
 */
uint64_t ddb_permute(uint64_t k, uint64_t n, uint64_t key);

#endif
