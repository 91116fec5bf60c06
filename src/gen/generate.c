/*
 * The generator's records (the plan is gen_plan.c). See generate.h for what
 * is made.
 *
 * How records stay consistent without being kept: record j of entity E
 * belongs to an "owner" u (a partition of a pool, e.g. one user; records are
 * laid out owner by owner) and is the m-th of that owner's records. A child's
 * m picks one combination of parent records of the same owner (through a
 * keyed permutation of the combinations, so neighbouring records do not share
 * their parents) and, past the combinations, a distinct value of its own
 * remaining key fields. Parent records are made again from their index
 * whenever a child needs them, so memory does not grow with the counts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/canon.h"
#include "ddbpipe/generate.h"
#include "ddbpipe/number.h"
#include "ddbpipe/rng.h"
#include "ddbpipe/transform.h"
#include "gen/gen_plan.h"

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
    }
    if ((rc = gen_plan(g, err)) != 0 || (rc = try_first_records(g, err)) != 0)
        goto done;
    *out = g;
    g = NULL;
done:
    ddb_generator_free(g);
    return rc;
}

int ddb_generator_counts(uint64_t *counts, const ddb_mapping *m, const ddb_gen_count *list,
                         size_t n, ddb_error *err)
{
    uint64_t others = 0;
    for (size_t i = 0; i < n; i++)
        if (list[i].entity == NULL)
            others = list[i].n;
    for (size_t i = 0; i < m->n_entities; i++)
        counts[i] = others;
    for (size_t i = 0; i < n; i++) {
        const ddb_entity *e;
        if (list[i].entity == NULL)
            continue;
        if ((e = ddb_mapping_entity(m, list[i].entity)) == NULL)
            return ddb_error_set(err, DDB_EUSAGE,
                                 "records of \"%s\" asked for, which is not an entity of %s",
                                 list[i].entity, m->path);
        counts[e - m->entities] = list[i].n;
    }
    return 0;
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
        (rc = ddb_transform_encode(item, g->m, E, rec, 1, a, err)) != 0 ||
        (rc = ddb_transform_decode(&d, g->m, item, a, err)) != 0)
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

static int key_values(const ddb_generator *g, const gent *t, uint64_t j, ddb_value *vals,
                      unsigned char *have, ddb_arena *a, ddb_error *err)
{
    const ddb_entity *E = t->e;
    uint64_t u, m, combos, group;
    ddb_map prec[MAX_PARENTS];
    ddb_value rest[64];
    int rc;

    locate(t->count, t->modulus, j, &u, &m);
    combos = gen_combinations(g, t, u);
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
        attrs[rec->count].name.len = fd->name_len;
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
