/*
 * The generator's plan: for every entity its field makers, its parents (the
 * entities whose table-key fields it holds), the pool its partitions come
 * from, and how many records each owner holds, checked against what the
 * key fields and the parents allow. See generate.h for the idea.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/array.h"
#include "ddbpipe/rng.h"
#include "gen/gen_plan.h"

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
    p = ddb_array_reserve(g->pools, g->n_pools, &g->cap_pools, sizeof(*p), 8);
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
            *room = mul_sat(t->rest_size, gen_combinations(g, t, u));
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

uint64_t gen_combinations(const ddb_generator *g, const gent *t, uint64_t u)
{
    uint64_t n = 1;
    for (size_t p = 0; p < t->n_parents; p++) {
        const gent *P = &g->ents[t->parents[p]];
        n = mul_sat(n, t->aligned[p] ? owned(P->count, P->modulus, u) : P->count);
    }
    return n;
}

/* The fields record j gets from outside itself: parents, pool, own keys. */

int gen_plan(ddb_generator *g, ddb_error *err)
{
    int rc;
    for (size_t i = 0; i < g->n; i++)
        if ((rc = plan_entity(g, i, err)) != 0)
            return rc;
    if ((rc = plan_parents(g, err)) != 0 || (rc = plan_relations(g, err)) != 0)
        return rc;
    return plan_counts(g, err);
}
