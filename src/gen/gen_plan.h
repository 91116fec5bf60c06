/*
 * gen_plan.h (private header of gen/) — the generator's plan (gen_plan.c: which entities
 * refer to which, the partition pools, the counts each owner holds) and
 * what the record maker (generate.c) reads of it.
 */
#ifndef DDBPIPE_GEN_PLAN_H
#define DDBPIPE_GEN_PLAN_H

#include <stdint.h>
#include <string.h>

#include "ddbpipe/generate.h"
#include "gen/gen_internal.h"

#define MAX_PARENTS 8
#define ATTEMPTS 8

typedef struct gent {
    const ddb_entity *e;
    uint64_t count;
    gen_field **fields;
    unsigned char *in_key;  /* in the table's partition or sort key template */
    unsigned char *in_part; /* in the partition key template */
    size_t n_key;
    int parents[MAX_PARENTS];
    int aligned[MAX_PARENTS]; /* shares the owner pool (else: any record of it) */
    size_t n_parents;
    int pool;      /* owner pool, or -1 */
    int pool_root; /* draws its partition fields from the pool */
    uint64_t modulus;
    int *src_parent; /* per field: parent slot the value is copied from, or -1 */
    size_t *rest;    /* key fields made here, distinct within the owner and parents */
    size_t n_rest;
    uint64_t rest_size;
    uint64_t key;
} gent;

typedef struct gpool {
    char names[256]; /* "userId" or "country,region" */
    int def;         /* entity whose field makers spell the pool's values */
    size_t *fields;  /* its partition fields */
    size_t n_fields;
    uint64_t size, capacity, lower;
    int fixed; /* "distinct" on a pool field sets the size */
} gpool;

/* Which attempt made a record valid, for records made again as parents. */
#define CACHE_SLOTS 16384
typedef struct cache_slot {
    uint64_t index;
    uint32_t entity; /* + 1; 0 = empty */
    uint32_t attempt;
} cache_slot;

struct ddb_generator {
    const ddb_mapping *m;
    cache_slot *cache; /* written by const functions: the plan never changes, the cache
                          only saves work */
    uint64_t seed;
    gent *ents;
    size_t n;
    gpool *pools;
    size_t n_pools, cap_pools;
    size_t *order; /* parents before children */
    uint64_t total;
};

static inline uint64_t mul_sat(uint64_t a, uint64_t b)
{
    if (a == 0 || b == 0)
        return 0;
    return a > GEN_UNBOUNDED / b ? GEN_UNBOUNDED : a * b;
}

/*
 * Records are laid out owner by owner: of `count` records over M owners, the
 * first count % M owners hold count / M + 1 records and the others count / M.
 * Consecutive records then share their owner, and a child's parents (of the
 * same owner) are made again from the attempt cache instead of checked anew.
 */
static inline uint64_t owned(uint64_t count, uint64_t modulus, uint64_t u)
{
    uint64_t q = count / modulus, r = count % modulus;
    return u >= modulus ? 0 : u < r ? q + 1 : q;
}

static inline void locate(uint64_t count, uint64_t modulus, uint64_t j, uint64_t *u, uint64_t *m)
{
    uint64_t q = count / modulus, r = count % modulus, big = r * (q + 1);
    if (j < big) {
        *u = j / (q + 1);
        *m = j % (q + 1);
    } else {
        *u = r + (j - big) / q;
        *m = (j - big) % q;
    }
}

static inline uint64_t index_of(uint64_t count, uint64_t modulus, uint64_t u, uint64_t m)
{
    uint64_t q = count / modulus, r = count % modulus;
    return u < r ? u * (q + 1) + m : r * (q + 1) + (u - r) * q + m;
}

static inline int field_named(const ddb_entity *e, const char *name, ddb_type type)
{
    int i = ddb_entity_field_index(e, name, strlen(name));
    return i >= 0 && e->fields[i].type == type ? i : -1;
}

/* Plans g (entities, counts and seed set): field makers, parents, pools
 * and moduli. Returns 0 or DDB_EUSAGE with the reason, DDB_ENOMEM. */
int gen_plan(ddb_generator *g, ddb_error *err);

/* Combinations of parent records owner u of t can refer to. */
uint64_t gen_combinations(const ddb_generator *g, const gent *t, uint64_t u);

#endif
