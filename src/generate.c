/*
 * The generator's plan and its records. See generate.h for what is made.
 *
 * How records stay consistent without being kept: record j of entity E is
 * placed under an "owner" u = j mod M_E (a partition of a pool, e.g. one
 * user) and numbered m = j / M_E among that owner's records. A child's m
 * picks one combination of parent records of the same owner (mixed radix
 * over how many records each parent has there, with per-digit rotations so
 * neighbours do not share parents) and, past the combinations, a distinct
 * value of its own remaining key fields. Parent records are made again from
 * their index whenever a child needs them, so memory does not grow with the
 * counts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/canon.h"
#include "ddbpipe/generate.h"
#include "ddbpipe/number.h"
#include "ddbpipe/rng.h"
#include "gen_internal.h"

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
    size_t n_pools;
    size_t *order; /* parents before children */
    uint64_t total;
};

static uint64_t mul_sat(uint64_t a, uint64_t b)
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
static uint64_t owned(uint64_t count, uint64_t modulus, uint64_t u)
{
    uint64_t q = count / modulus, r = count % modulus;
    return u >= modulus ? 0 : u < r ? q + 1 : q;
}

static void locate(uint64_t count, uint64_t modulus, uint64_t j, uint64_t *u, uint64_t *m)
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

static uint64_t index_of(uint64_t count, uint64_t modulus, uint64_t u, uint64_t m)
{
    uint64_t q = count / modulus, r = count % modulus;
    return u < r ? u * (q + 1) + m : r * (q + 1) + (u - r) * q + m;
}

static uint64_t combinations(const ddb_generator *g, const gent *t, uint64_t u);

static int field_named(const ddb_entity *e, const char *name, ddb_type type)
{
    int i = ddb_entity_field_index(e, name, strlen(name));
    return i >= 0 && e->fields[i].type == type ? i : -1;
}

/* ----------------------------------------------------------------- plan */

static int plan_entity(ddb_generator *g, size_t i, ddb_error *err)
{
    gent *t = &g->ents[i];
    const ddb_entity *e = t->e;
    size_t nf = e->n_fields ? e->n_fields : 1;
    int rc;

    t->fields = calloc(nf, sizeof(*t->fields));
    t->in_key = calloc(nf, 1);
    t->in_part = calloc(nf, 1);
    t->src_parent = calloc(nf, sizeof(int));
    t->rest = calloc(nf, sizeof(size_t));
    if (!t->fields || !t->in_key || !t->in_part || !t->src_parent || !t->rest)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    t->key = ddb_hash64(e->name, strlen(e->name), g->seed);
    t->pool = -1;
    for (size_t f = 0; f < e->n_fields; f++) {
        t->in_key[f] = (unsigned char)e->fields[f].in_table_key;
        t->n_key += t->in_key[f];
        t->src_parent[f] = -1;
        if ((rc = gen_field_new(&t->fields[f], e, f, err)) != 0)
            return rc;
    }
    for (size_t s = 0; s < e->keys[0].n_segs; s++)
        if (e->keys[0].segs[s].field >= 0)
            t->in_part[e->keys[0].segs[s].field] = 1;
    return 0;
}

/* Is P a parent of E: every table-key field of P is a field of E (same name
 * and type), and P is the smaller key (or as small and declared first)? */
static int is_parent(const ddb_generator *g, size_t p, size_t e)
{
    const gent *P = &g->ents[p], *E = &g->ents[e];
    if (p == e || P->n_key == 0 || P->n_key > E->n_key || (P->n_key == E->n_key && p > e))
        return 0;
    for (size_t f = 0; f < P->e->n_fields; f++)
        if (P->in_key[f] && field_named(E->e, P->e->fields[f].name, P->e->fields[f].type) < 0)
            return 0;
    return 1;
}

static int is_ancestor(const ddb_generator *g, size_t a, size_t e)
{
    const gent *E = &g->ents[e];
    for (size_t i = 0; i < E->n_parents; i++)
        if ((size_t)E->parents[i] == a || is_ancestor(g, a, (size_t)E->parents[i]))
            return 1;
    return 0;
}

static int order_cmp_n(const ddb_generator *g, size_t a, size_t b)
{
    if (g->ents[a].n_key != g->ents[b].n_key)
        return g->ents[a].n_key < g->ents[b].n_key ? -1 : 1;
    return a < b ? -1 : a > b;
}

/* Parents of every entity (transitively reduced: FavoriteDataTag names Tag
 * and FavoriteData, not a User above both), visiting parents first. */
static int plan_parents(ddb_generator *g, ddb_error *err)
{
    if ((g->order = malloc(g->n * sizeof(size_t))) == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    for (size_t i = 0; i < g->n; i++)
        g->order[i] = i;
    for (size_t i = 1; i < g->n; i++)
        for (size_t j = i; j > 0 && order_cmp_n(g, g->order[j - 1], g->order[j]) > 0; j--) {
            size_t t = g->order[j];
            g->order[j] = g->order[j - 1];
            g->order[j - 1] = t;
        }
    for (size_t oi = 0; oi < g->n; oi++) {
        size_t e = g->order[oi];
        gent *E = &g->ents[e];
        int cand[64];
        size_t nc = 0;
        for (size_t p = 0; p < g->n && nc < 64; p++)
            if (is_parent(g, p, e))
                cand[nc++] = (int)p;
        for (size_t a = 0; a < nc; a++) {
            int implied = 0;
            for (size_t b = 0; b < nc && !implied; b++)
                implied = a != b && is_ancestor(g, (size_t)cand[a], (size_t)cand[b]);
            if (implied)
                continue;
            if (E->n_parents == MAX_PARENTS)
                return ddb_error_set(err, DDB_EUSAGE, "%s refers to more than %d entities",
                                     E->e->name, MAX_PARENTS);
            E->parents[E->n_parents++] = cand[a];
        }
    }
    return 0;
}

static void pool_name(char *out, size_t cap, const gent *t)
{
    size_t o = 0;
    out[0] = '\0';
    for (size_t f = 0; f < t->e->n_fields; f++)
        if (t->in_part[f])
            o += (size_t)snprintf(out + o, o < cap ? cap - o : 0, "%s%s", o ? "," : "",
                                  t->e->fields[f].name);
}

static int find_pool(ddb_generator *g, size_t e, ddb_error *err)
{
    gent *t = &g->ents[e];
    char name[256];
    gpool *p;
    pool_name(name, sizeof(name), t);
    for (size_t i = 0; i < g->n_pools; i++)
        if (strcmp(g->pools[i].names, name) == 0)
            return (int)i;
    p = realloc(g->pools, (g->n_pools + 1) * sizeof(*p));
    if (p == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    g->pools = p;
    p = &g->pools[g->n_pools];
    memset(p, 0, sizeof(*p));
    snprintf(p->names, sizeof(p->names), "%s", name);
    p->def = (int)e;
    if ((p->fields = calloc(t->e->n_fields + 1, sizeof(size_t))) == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    p->capacity = 1;
    for (size_t f = 0; f < t->e->n_fields; f++) {
        if (!t->in_part[f])
            continue;
        if (p->n_fields == 64)
            return ddb_error_set(err, DDB_EUSAGE, "%s has too many partition fields", t->e->name);
        p->fields[p->n_fields++] = f;
        p->capacity = mul_sat(p->capacity, gen_field_size(t->fields[f]));
        if (gen_field_distinct(t->fields[f]) && !p->fixed) {
            p->fixed = 1;
            p->size = gen_field_distinct(t->fields[f]);
        }
    }
    return (int)g->n_pools++;
}

/* Where each field's value comes from: a parent, the pool, or made here. */
static int plan_sources(ddb_generator *g, size_t e, ddb_error *err)
{
    gent *t = &g->ents[e];
    const ddb_entity *E = t->e;
    t->rest_size = 1;
    for (size_t f = 0; f < E->n_fields; f++) {
        const ddb_field *fd = &E->fields[f];
        for (size_t p = 0; p < t->n_parents && t->src_parent[f] < 0; p++)
            if (field_named(g->ents[t->parents[p]].e, fd->name, fd->type) >= 0)
                t->src_parent[f] = (int)p;
        if (t->src_parent[f] >= 0 || !t->in_key[f] || (t->pool_root && t->in_part[f]))
            continue;
        if (gen_field_size(t->fields[f]) == 0)
            return ddb_error_set(err, DDB_EUSAGE,
                                 "%s.%s: a key field needs distinct values, "
                                 "which this field's generator cannot list",
                                 E->name, fd->name);
        t->rest[t->n_rest++] = f;
        t->rest_size = mul_sat(t->rest_size, gen_field_size(t->fields[f]));
    }
    return 0;
}

/* Two parents that both hold a key field must agree on it: only the owner
 * pool's fields are kept consistent. */
static int check_shared(const ddb_generator *g, size_t e, ddb_error *err)
{
    const gent *t = &g->ents[e];
    for (size_t a = 0; a < t->n_parents; a++) {
        const gent *A = &g->ents[t->parents[a]];
        for (size_t b = a + 1; b < t->n_parents; b++) {
            const gent *B = &g->ents[t->parents[b]];
            for (size_t f = 0; f < A->e->n_fields; f++) {
                const ddb_field *fd = &A->e->fields[f];
                int bf = field_named(B->e, fd->name, fd->type), in_pool = 0;
                if (!A->in_key[f] || bf < 0 || !B->in_key[bf])
                    continue;
                if (t->aligned[a] && t->aligned[b] && A->pool >= 0) {
                    const gpool *p = &g->pools[A->pool];
                    const gent *D = &g->ents[p->def];
                    for (size_t k = 0; k < p->n_fields; k++)
                        in_pool |= strcmp(D->e->fields[p->fields[k]].name, fd->name) == 0;
                }
                if (!in_pool)
                    return ddb_error_set(err, DDB_EUSAGE,
                                         "%s refers to %s and %s, which both have the key field "
                                         "%s; records cannot be kept consistent on it",
                                         t->e->name, A->e->name, B->e->name, fd->name);
            }
        }
    }
    return 0;
}

static int plan_relations(ddb_generator *g, ddb_error *err)
{
    int rc;
    for (size_t oi = 0; oi < g->n; oi++) {
        size_t e = g->order[oi];
        gent *t = &g->ents[e];
        if (t->n_parents == 0) {
            size_t n_part = 0;
            for (size_t f = 0; f < t->e->n_fields; f++)
                n_part += t->in_part[f];
            /* Several items per partition: partitions come from a pool that
             * other entities with the same partition fields share. */
            if (n_part < t->n_key || t->n_key == 0) {
                t->pool_root = 1;
                if ((t->pool = find_pool(g, e, err)) < 0)
                    return t->pool;
            }
        } else {
            for (size_t p = 0; p < t->n_parents && t->pool < 0; p++)
                t->pool = g->ents[t->parents[p]].pool;
            for (size_t p = 0; p < t->n_parents; p++)
                t->aligned[p] = t->pool >= 0 && g->ents[t->parents[p]].pool == t->pool;
        }
        if ((rc = plan_sources(g, e, err)) != 0 || (rc = check_shared(g, e, err)) != 0)
            return rc;
    }
    return 0;
}

/* Moduli from the pool sizes, then every entity's count checked against the
 * distinct records its owners can hold. Returns 0; 1 with *who the entity
 * that does not fit and *room what one owner can hold; or DDB_EUSAGE. */
static int check_counts(ddb_generator *g, size_t *who, uint64_t *room, ddb_error *err)
{
    for (size_t oi = 0; oi < g->n; oi++) {
        size_t e = g->order[oi];
        gent *t = &g->ents[e];
        uint64_t mod = GEN_UNBOUNDED;
        *who = e;
        for (size_t p = 0; p < t->n_parents; p++) {
            const gent *P = &g->ents[t->parents[p]];
            if (t->count > 0 && P->count == 0)
                return ddb_error_set(err, DDB_EUSAGE,
                                     "%s refers to %s (through its key fields): give %s a "
                                     "count too",
                                     t->e->name, P->e->name, P->e->name);
            if (t->aligned[p] && P->modulus < mod)
                mod = P->modulus;
            if (t->aligned[p] && P->count < mod)
                mod = P->count;
        }
        t->modulus = t->pool_root                       ? g->pools[t->pool].size
                     : mod == GEN_UNBOUNDED || mod == 0 ? 1
                                                        : mod;
        for (uint64_t u = 0; t->count > 0 && u < t->modulus && u < t->count; u++) {
            *room = mul_sat(t->rest_size, combinations(g, t, u));
            if (owned(t->count, t->modulus, u) > *room)
                return 1;
        }
    }
    return 0;
}

static uint64_t ceil_div(uint64_t a, uint64_t b)
{
    return b == 0 ? a : a / b + (a % b != 0);
}

/* Pool sizes: about three items per partition for the smallest entity, at
 * least what the key fields of each entity need, shrunk while a child needs
 * more combinations of parents per owner. */
static int plan_counts(ddb_generator *g, ddb_error *err)
{
    size_t who;
    for (size_t i = 0; i < g->n_pools; i++) {
        gpool *p = &g->pools[i];
        uint64_t smallest = 0;
        p->lower = 1;
        for (size_t e = 0; e < g->n; e++) {
            const gent *t = &g->ents[e];
            if (!t->pool_root || t->pool != (int)i || t->count == 0)
                continue;
            if (smallest == 0 || t->count < smallest)
                smallest = t->count;
            if (ceil_div(t->count, t->rest_size) > p->lower)
                p->lower = ceil_div(t->count, t->rest_size);
        }
        if (!p->fixed)
            p->size = smallest > 3 ? ceil_div(smallest, 3) : 1;
        if (p->size < p->lower && !p->fixed)
            p->size = p->lower;
        if (p->size > p->capacity && p->n_fields == 0)
            return ddb_error_set(err, DDB_EUSAGE,
                                 "%s: its key has no fields (a fixed key), so it can have one "
                                 "record",
                                 g->ents[p->def].e->name);
        if (p->size > p->capacity)
            return ddb_error_set(err, DDB_EUSAGE,
                                 "the partition fields %s have only %llu distinct values, and "
                                 "%llu partitions are needed; widen them with \"generate\"",
                                 p->names, (unsigned long long)p->capacity,
                                 (unsigned long long)p->size);
    }
    for (;;) {
        uint64_t room = 0;
        gent *t;
        gpool *p;
        int rc = check_counts(g, &who, &room, err);
        if (rc <= 0)
            return rc;
        t = &g->ents[who];
        p = t->pool >= 0 ? &g->pools[t->pool] : NULL;
        /* Fewer owners give each owner more parent records to combine. */
        if (p == NULL || t->pool_root || p->fixed || p->size <= p->lower) {
            char per[300];
            snprintf(per, sizeof(per), p ? "partition of %s" : "run", p ? p->names : "");
            return ddb_error_set(err, DDB_EUSAGE,
                                 "%s: %llu records do not fit: its key fields and the records "
                                 "it refers to allow at most %llu per %s; raise the counts of "
                                 "the entities it refers to, or lower its own",
                                 t->e->name, (unsigned long long)t->count, (unsigned long long)room,
                                 per);
        }
        p->size = p->size * 2 / 3 > p->lower ? p->size * 2 / 3 : p->lower;
    }
}

/* A mapping whose records cannot be made (two entities the mapping cannot
 * tell apart, a pattern whose strings contain a template separator) is
 * refused before anything is written: the first record of each entity is
 * made once. */
static int try_first_records(const ddb_generator *g, ddb_error *err)
{
    ddb_arena *a;
    int rc = 0;
    if (ddb_arena_new(&a, 0) != 0)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    for (size_t e = 0; e < g->n && rc == 0; e++) {
        ddb_map rec;
        if (g->ents[e].count == 0)
            continue;
        ddb_arena_reset(a);
        rc = ddb_generator_record(g, e, 0, &rec, NULL, a, err);
        if (rc != 0 && rc != DDB_ENOMEM) {
            rc = DDB_EUSAGE; /* the mapping cannot be generated for: a usage error */
            if (err)
                err->code = rc;
        }
    }
    ddb_arena_free(a);
    return rc;
}

int ddb_generator_new(ddb_generator **out, const ddb_mapping *m, const uint64_t *counts,
                      uint64_t seed, ddb_error *err)
{
    ddb_generator *g = calloc(1, sizeof(*g));
    int rc = 0;

    *out = NULL;
    if (g == NULL || (g->ents = calloc(m->n_entities, sizeof(gent))) == NULL ||
        (g->cache = calloc(CACHE_SLOTS, sizeof(cache_slot))) == NULL) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto done;
    }
    g->m = m;
    g->seed = seed;
    g->n = m->n_entities;
    for (size_t i = 0; i < g->n; i++) {
        g->ents[i].e = &m->entities[i];
        g->ents[i].count = counts[i];
        g->total += counts[i];
        if ((rc = plan_entity(g, i, err)) != 0)
            goto done;
    }
    if ((rc = plan_parents(g, err)) != 0 || (rc = plan_relations(g, err)) != 0 ||
        (rc = plan_counts(g, err)) != 0 || (rc = try_first_records(g, err)) != 0)
        goto done;
    *out = g;
    g = NULL;
done:
    ddb_generator_free(g);
    return rc;
}

void ddb_generator_free(ddb_generator *g)
{
    if (g == NULL)
        return;
    for (size_t i = 0; g->ents && i < g->n; i++) {
        gent *t = &g->ents[i];
        for (size_t f = 0; t->fields && f < t->e->n_fields; f++)
            gen_field_free(t->fields[f]);
        free(t->fields);
        free(t->in_key);
        free(t->in_part);
        free(t->src_parent);
        free(t->rest);
    }
    for (size_t i = 0; i < g->n_pools; i++)
        free(g->pools[i].fields);
    free(g->pools);
    free(g->ents);
    free(g->order);
    free(g->cache);
    free(g);
}

uint64_t ddb_generator_total(const ddb_generator *g)
{
    return g->total;
}

/* -------------------------------------------------------------- records */

/* The tuple of values number k (mixed radix over the fields' sizes, each
 * digit rotated by the ones before it) for fields[0..n) of entity t. */
static int tuple_nth(const gent *t, const size_t *fields, size_t n, uint64_t k, uint64_t key,
                     ddb_value *vals, ddb_arena *a)
{
    uint64_t h = key;
    for (size_t i = 0; i < n; i++) {
        const gen_field *gf = t->fields[fields[i]];
        uint64_t size = gen_field_size(gf), d;
        int rc;
        if (size == GEN_UNBOUNDED) {
            d = k;
            k = 0;
        } else {
            d = (k % size + h % size) % size;
            k /= size;
        }
        if ((rc = gen_field_nth(gf, d, ddb_hash_combine(key, fields[i]), &vals[i], a)) != 0)
            return rc;
        h = ddb_hash_combine(h, d);
    }
    return 0;
}

static int make_record(const ddb_generator *g, size_t e, uint64_t j, int attempt, ddb_map *rec,
                       ddb_arena *a, ddb_error *err);

/* Do two records hold the same values (numbers by value)? */
static int same_record(const ddb_map *a, const ddb_map *b)
{
    if (a->count != b->count)
        return 0;
    for (size_t i = 0; i < a->count; i++) {
        const ddb_value *x = &a->attrs[i].value;
        const ddb_value *y = ddb_map_get(b, a->attrs[i].name.ptr, a->attrs[i].name.len);
        if (y == NULL || x->type != y->type)
            return 0;
        if (ddb_value_equal(x, y))
            continue;
        if (x->type == DDB_TYPE_N
                ? ddb_number_compare_text(x->u.s.ptr, x->u.s.len, y->u.s.ptr, y->u.s.len, NULL) != 0
                : ddb_canon_equal(x, y) != 1)
            return 0;
    }
    return 1;
}

static int mismatch(ddb_error *err, const ddb_map *made, const ddb_map *back)
{
    ddb_buf x = DDB_BUF_INIT, y = DDB_BUF_INIT;
    ddb_canon_map(&x, made);
    ddb_canon_map(&y, back);
    ddb_error_set(err, DDB_EINVAL, "the record does not decode back as made: %s became %s",
                  x.ptr ? x.ptr : "?", y.ptr ? y.ptr : "?");
    ddb_buf_dispose(&x);
    ddb_buf_dispose(&y);
    return DDB_EINVAL;
}

/* Makes one attempt at record j and checks that it encodes and decodes back
 * to itself. */
static int attempt_record(const ddb_generator *g, size_t e, uint64_t j, int attempt, ddb_map *rec,
                          ddb_item *item, ddb_arena *a, ddb_error *err)
{
    const ddb_entity *E = g->ents[e].e;
    ddb_decoded d;
    int rc;
    if ((rc = make_record(g, e, j, attempt, rec, a, err)) != 0 ||
        (rc = ddb_mapping_encode(item, g->m, E, rec, 1, a, err)) != 0 ||
        (rc = ddb_mapping_decode(&d, g->m, item, a, err)) != 0)
        return rc;
    if (d.entity != E)
        return ddb_error_set(err, DDB_EINVAL,
                             "the item decodes as a %s record: the mapping cannot tell %s items "
                             "from %s items",
                             d.entity->name, E->name, d.entity->name);
    return same_record(rec, &d.record) ? 0 : mismatch(err, rec, &d.record);
}

/* Record j of entity e: the first attempt that round-trips. With item NULL
 * (a parent made again for a child) an attempt found before is trusted. */
static int valid_record(const ddb_generator *g, size_t e, uint64_t j, ddb_map *rec, ddb_item *item,
                        ddb_arena *a, ddb_error *err)
{
    cache_slot *slot = &g->cache[ddb_hash_combine(j, e) & (CACHE_SLOTS - 1)];
    ddb_item it;
    int rc = 0;

    if (item == NULL && slot->entity == e + 1 && slot->index == j)
        return make_record(g, e, j, (int)slot->attempt, rec, a, err);
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
        rc = attempt_record(g, e, j, attempt, rec, &it, a, err);
        if (rc == 0) {
            slot->entity = (uint32_t)e + 1;
            slot->index = j;
            slot->attempt = (uint32_t)attempt;
            if (item)
                *item = it;
            return 0;
        }
        if (rc == DDB_ENOMEM)
            return rc;
    }
    return ddb_error_prefix(err, "cannot make %s record %llu: ", g->ents[e].e->name,
                            (unsigned long long)j);
}

/* The parent records of child record (u, g) of t, in parent order. */
static int parent_records(const ddb_generator *g, const gent *t, uint64_t u, uint64_t combo,
                          ddb_map *recs, ddb_arena *a, ddb_error *err)
{
    for (size_t p = 0; p < t->n_parents; p++) {
        const gent *P = &g->ents[t->parents[p]];
        uint64_t c = t->aligned[p] ? owned(P->count, P->modulus, u) : P->count, d, idx;
        int rc;
        if (c == 0)
            return ddb_error_set(err, DDB_EINVAL, "%s has no %s record to refer to", t->e->name,
                                 P->e->name);
        d = combo % c;
        combo /= c;
        idx = t->aligned[p] ? index_of(P->count, P->modulus, u, d) : d;
        if ((rc = valid_record(g, (size_t)t->parents[p], idx, &recs[p], NULL, a, err)) != 0)
            return rc;
    }
    return 0;
}

static uint64_t combinations(const ddb_generator *g, const gent *t, uint64_t u)
{
    uint64_t n = 1;
    for (size_t p = 0; p < t->n_parents; p++) {
        const gent *P = &g->ents[t->parents[p]];
        n = mul_sat(n, t->aligned[p] ? owned(P->count, P->modulus, u) : P->count);
    }
    return n;
}

/* The fields record j gets from outside itself: parents, pool, own keys. */
static int key_values(const ddb_generator *g, const gent *t, uint64_t j, ddb_value *vals,
                      unsigned char *have, ddb_arena *a, ddb_error *err)
{
    const ddb_entity *E = t->e;
    uint64_t u, m, combos, group;
    ddb_map prec[MAX_PARENTS];
    ddb_value rest[64];
    int rc;

    locate(t->count, t->modulus, j, &u, &m);
    combos = combinations(g, t, u);
    if (combos == 0)
        return ddb_error_set(err, DDB_EINVAL, "%s has no parent records to refer to", E->name);
    /* A permutation of the combinations, so neighbouring records do not share
     * their parents (and each combination is still used once). */
    group = ddb_permute(m % combos, combos, ddb_hash_combine(t->key, u));
    if ((rc = parent_records(g, t, u, group, prec, a, err)) != 0)
        return rc;
    group = ddb_hash_combine(ddb_hash_combine(t->key, u), group);
    for (size_t f = 0; f < E->n_fields; f++) {
        const ddb_value *v;
        if (t->src_parent[f] < 0)
            continue;
        v = ddb_map_getz(&prec[t->src_parent[f]], E->fields[f].name);
        if (v != NULL) {
            vals[f] = *v;
            have[f] = 1;
        }
    }
    if (t->pool_root) {
        const gpool *p = &g->pools[t->pool];
        const gent *D = &g->ents[p->def];
        ddb_value pv[64];
        if ((rc = tuple_nth(D, p->fields, p->n_fields, u,
                            ddb_hash64(p->names, strlen(p->names), g->seed), pv, a)) != 0)
            return ddb_error_set(err, rc, "out of memory");
        for (size_t k = 0; k < p->n_fields; k++) {
            const ddb_field *pf = &D->e->fields[p->fields[k]];
            int f = field_named(E, pf->name, pf->type);
            if (f >= 0) {
                vals[f] = pv[k];
                have[f] = 1;
            }
        }
    }
    if (t->n_rest > 64)
        return ddb_error_set(err, DDB_EUSAGE, "%s has too many key fields", E->name);
    if ((rc = tuple_nth(t, t->rest, t->n_rest, m / combos, group, rest, a)) != 0)
        return ddb_error_set(err, rc, "out of memory");
    for (size_t k = 0; k < t->n_rest; k++) {
        vals[t->rest[k]] = rest[k];
        have[t->rest[k]] = 1;
    }
    return 0;
}

static int make_record(const ddb_generator *g, size_t e, uint64_t j, int attempt, ddb_map *rec,
                       ddb_arena *a, ddb_error *err)
{
    const gent *t = &g->ents[e];
    const ddb_entity *E = t->e;
    size_t nf = E->n_fields;
    ddb_value *vals = ddb_arena_calloc(a, nf + 1, sizeof(ddb_value));
    unsigned char *have = ddb_arena_calloc(a, nf + 1, 1);
    ddb_attr *attrs = ddb_arena_calloc(a, nf + 1, sizeof(ddb_attr));
    uint64_t stream = ddb_hash_combine(ddb_hash_combine(t->key, j), (uint64_t)attempt);
    uint64_t place = ddb_mix64(stream);
    int rc;

    if (vals == NULL || have == NULL || attrs == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    if ((rc = key_values(g, t, j, vals, have, a, err)) != 0)
        return rc;
    rec->attrs = attrs;
    rec->count = 0;
    for (size_t f = 0; f < nf; f++) {
        const ddb_field *fd = &E->fields[f];
        if (!have[f] && t->src_parent[f] < 0) {
            ddb_rng r;
            /* One stream per field: adding a field changes no other field. */
            ddb_rng_seed(&r, ddb_hash_combine(stream, f));
            if (!fd->in_table_key && !fd->required &&
                ddb_rng_unit(&r) < gen_field_absent(t->fields[f]))
                continue;
            if ((rc = gen_field_random(t->fields[f], &r, place, &vals[f], a)) != 0)
                return ddb_error_set(err, rc, "out of memory");
            have[f] = 1;
        }
        if (!have[f])
            continue;
        attrs[rec->count].name.ptr = fd->name;
        attrs[rec->count].name.len = strlen(fd->name);
        attrs[rec->count++].value = vals[f];
    }
    return 0;
}

int ddb_generator_record(const ddb_generator *g, size_t entity, uint64_t index, ddb_map *record,
                         ddb_item *item, ddb_arena *a, ddb_error *err)
{
    ddb_map rec;
    int rc = valid_record(g, entity, index, &rec, item, a, err);
    if (rc == 0 && record)
        *record = rec;
    return rc;
}

void ddb_generator_describe(const ddb_generator *g, ddb_buf *out)
{
    for (size_t i = 0; i < g->n; i++) {
        const gent *t = &g->ents[i];
        ddb_buf_printf(out, "  %-24s %12llu", t->e->name, (unsigned long long)t->count);
        if (t->pool_root)
            ddb_buf_printf(out, "  in %llu partitions of %s",
                           (unsigned long long)g->pools[t->pool].size, g->pools[t->pool].names);
        if (t->n_parents) {
            ddb_buf_puts(out, "  refers to ");
            for (size_t p = 0; p < t->n_parents; p++)
                ddb_buf_printf(out, "%s%s", p ? ", " : "", g->ents[t->parents[p]].e->name);
            if (t->pool >= 0)
                ddb_buf_printf(out, " (same %s)", g->pools[t->pool].names);
        }
        ddb_buf_putc(out, '\n');
    }
}

uint64_t ddb_generator_count(const ddb_generator *g, size_t entity)
{
    return g->ents[entity].count;
}

const ddb_mapping *ddb_generator_mapping(const ddb_generator *g)
{
    return g->m;
}
