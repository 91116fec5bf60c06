/*
 * Shared pieces of ddbpipe-gen: the PRNG, the record builder, text helpers
 * and the design registry.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gen.h"

/* ------------------------------------------------------------------ PRNG */

int64_t gen_rng_range(gen_rng *r, int64_t lo, int64_t hi)
{
    return lo + (int64_t)gen_rng_below(r, (uint64_t)(hi - lo) + 1);
}

int gen_rng_chance(gen_rng *r, unsigned percent)
{
    return gen_rng_below(r, 100) < percent;
}

/* --------------------------------------------------------- record builder */

void gen_rec_init(gen_rec *r, ddb_arena *a)
{
    r->a = a;
    r->count = 0;
}

void gen_rec_put(gen_rec *r, const char *name, ddb_value v)
{
    if (name == NULL || r->count == GEN_MAX_ATTRS || v.type == DDB_TYPE_NONE)
        return; /* a design bug or OOM: encode reports the missing field */
    r->attrs[r->count].name.ptr = name;
    r->attrs[r->count].name.len = strlen(name);
    r->attrs[r->count++].value = v;
}

void gen_rec_s(gen_rec *r, const char *name, const char *s)
{
    gen_rec_put(r, name, ddb_value_str(DDB_TYPE_S, s, strlen(s)));
}

void gen_rec_n(gen_rec *r, const char *name, uint64_t v)
{
    gen_rec_put(r, name, gen_fmt(r->a, DDB_TYPE_N, "%llu", (unsigned long long)v));
}

ddb_map gen_rec_map(const gen_rec *r)
{
    ddb_map m;
    m.attrs = (ddb_attr *)r->attrs;
    m.count = r->count;
    return m;
}

int gen_rec_detach(ddb_map *out, const gen_rec *r, ddb_error *err)
{
    ddb_attr *copy = ddb_arena_alloc(r->a, (r->count ? r->count : 1) * sizeof(*copy));
    if (copy == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    if (r->count)
        memcpy(copy, r->attrs, r->count * sizeof(*copy));
    out->attrs = copy;
    out->count = r->count;
    return 0;
}

ddb_value gen_fmt(ddb_arena *a, ddb_type t, const char *fmt, ...)
{
    char small[256];
    ddb_value v = {DDB_TYPE_NONE, {{NULL, 0}}};
    va_list ap;
    int n;
    char *p;

    va_start(ap, fmt);
    n = vsnprintf(small, sizeof(small), fmt, ap);
    va_end(ap);
    if (n < 0)
        return v;
    if ((size_t)n < sizeof(small)) {
        p = ddb_arena_memdup(a, small, (size_t)n);
    } else {
        p = ddb_arena_alloc(a, (size_t)n + 1);
        if (p != NULL) {
            va_start(ap, fmt);
            vsnprintf(p, (size_t)n + 1, fmt, ap);
            va_end(ap);
        }
    }
    if (p == NULL)
        return v;
    return ddb_value_str(t, p, (size_t)n);
}

ddb_value gen_bytes(ddb_arena *a, gen_rng *r, size_t len, const char *magic, size_t magic_len)
{
    ddb_value v = {DDB_TYPE_NONE, {{NULL, 0}}};
    unsigned char *p = ddb_arena_alloc(a, len ? len : 1);
    if (p == NULL)
        return v;
    for (size_t i = 0; i < len; i++)
        p[i] = i < magic_len ? (unsigned char)magic[i] : (unsigned char)gen_rng_next(r);
    return ddb_value_str(DDB_TYPE_B, (const char *)p, len);
}

ddb_value gen_list(ddb_arena *a, ddb_type t, const ddb_value *items, size_t n)
{
    ddb_value v = {DDB_TYPE_NONE, {{NULL, 0}}};
    ddb_value *copy = ddb_arena_alloc(a, (n ? n : 1) * sizeof(*copy));
    if (copy == NULL)
        return v;
    if (n)
        memcpy(copy, items, n * sizeof(*copy));
    v.type = t;
    v.u.l.items = copy;
    v.u.l.count = n;
    return v;
}

ddb_value gen_map(ddb_arena *a, const ddb_attr *attrs, size_t n)
{
    ddb_value v = {DDB_TYPE_NONE, {{NULL, 0}}};
    ddb_attr *copy = ddb_arena_alloc(a, (n ? n : 1) * sizeof(*copy));
    if (copy == NULL)
        return v;
    if (n)
        memcpy(copy, attrs, n * sizeof(*copy));
    v.type = DDB_TYPE_M;
    v.u.m.attrs = copy;
    v.u.m.count = n;
    return v;
}

/* ------------------------------------------------------------------ text */

void gen_id_chars(char *out, size_t n, gen_rng *r, const char *alphabet)
{
    size_t k = strlen(alphabet);
    for (size_t i = 0; i < n; i++)
        out[i] = alphabet[gen_rng_below(r, k)];
    out[n] = '\0';
}

void gen_uuid(char out[37], gen_rng *r)
{
    uint64_t hi = gen_rng_next(r), lo = gen_rng_next(r);
    ddb_gen_uuid(out, hi, lo);
}

void gen_iso_ms(char *out, int64_t ms)
{
    char date[16];
    int64_t rem = ms % 86400000;
    gen_date_from_days(date, ms / 86400000);
    snprintf(out, 25, "%.10sT%02u:%02u:%02u.%03uZ", date, (unsigned)(rem / 3600000) % 24u,
             (unsigned)(rem / 60000 % 60), (unsigned)(rem / 1000 % 60), (unsigned)(rem % 1000));
}

ddb_value gen_long_number(ddb_arena *a, gen_rng *r, int digits, int point)
{
    char text[64];
    size_t n = 0;

    for (int i = 0; i < digits && n + 2 < sizeof(text); i++) {
        int last = i == digits - 1, first = i == 0;
        if (point > 0 && i == point)
            text[n++] = '.';
        text[n++] =
            (char)('0' + ((first || last) ? 1 + gen_rng_below(r, 9) : gen_rng_below(r, 10)));
    }
    text[n] = '\0';
    return gen_fmt(a, DDB_TYPE_N, "%s", text);
}

/* --------------------------------------------------------------- designs */

static const struct {
    const char *name;
    int (*create)(gen_design **out, const ddb_mapping *m, ddb_error *err);
} designs[] = {
    {"favorites", gen_favorites_new},
    {"movies", gen_movies_new},
    {"facility-capacity", gen_facility_new},
};

const char *gen_design_names(void)
{
    return "favorites, movies, facility-capacity";
}

int gen_design_new(gen_design **out, const char *name, const ddb_mapping *m, uint64_t seed,
                   int extras, ddb_error *err)
{
    gen_design *d = NULL;
    int rc;

    *out = NULL;
    for (size_t i = 0; i < GEN_COUNT(designs); i++) {
        if (strcmp(designs[i].name, name) != 0)
            continue;
        if ((rc = designs[i].create(&d, m, err)) != 0)
            return rc;
        d->m = m;
        d->extras = extras;
        gen_rng_seed(&d->rng, seed);
        if (ddb_arena_new(&d->scratch, 0) != 0) {
            gen_design_free(d);
            return ddb_error_set(err, DDB_ENOMEM, "out of memory");
        }
        *out = d;
        return 0;
    }
    return ddb_error_set(err, DDB_EUSAGE, "unknown design \"%s\" (known: %s)", name,
                         gen_design_names());
}

void gen_design_free(gen_design *d)
{
    if (d == NULL)
        return;
    ddb_arena_free(d->scratch);
    d->vt->free(d);
}

int gen_entity(const ddb_entity **out, const ddb_mapping *m, const char *name, ddb_error *err)
{
    *out = ddb_mapping_entity(m, name);
    if (*out == NULL)
        return ddb_error_set(err, DDB_EUSAGE, "%s: the design needs an entity named %s",
                             m->path ? m->path : "mapping", name);
    return 0;
}

int gen_encode(ddb_item *out, const ddb_mapping *m, const ddb_entity *e, const ddb_map *rec,
               ddb_arena *a, ddb_error *err)
{
    int rc = ddb_transform_encode(out, m, e, rec, 1, a, err);
    if (rc != 0)
        ddb_error_prefix(err, "generated %s record does not encode: ", e->name);
    return rc;
}

/* ------------------------------------------------------------------ files */

int gen_mkdirs(const char *path, ddb_error *err)
{
    char buf[4096];
    size_t n = strlen(path);

    if (n == 0 || n >= sizeof(buf))
        return ddb_error_set(err, DDB_EUSAGE, "bad directory path \"%s\"", path);
    memcpy(buf, path, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (buf[i] != '/' && buf[i] != '\0')
            continue;
        buf[i] = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return ddb_error_set(err, DDB_EIO, "cannot create directory %s: %s", buf,
                                 strerror(errno));
        buf[i] = i < n ? '/' : '\0';
    }
    return 0;
}

int gen_write_file(const char *path, const void *data, size_t len, ddb_error *err)
{
    FILE *f = fopen(path, "wb");
    int rc = 0;

    if (f == NULL)
        return ddb_error_set(err, DDB_EIO, "cannot create %s: %s", path, strerror(errno));
    if (len && fwrite(data, 1, len, f) != len)
        rc = ddb_error_set(err, DDB_EIO, "cannot write %s: %s", path, strerror(errno));
    if (fclose(f) != 0 && rc == 0)
        rc = ddb_error_set(err, DDB_EIO, "cannot write %s: %s", path, strerror(errno));
    return rc;
}
