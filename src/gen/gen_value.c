/*
 * The value makers of single fields. Each field gets one, chosen once when
 * the generator is planned; making a value is then a few table lookups and
 * PRNG draws. Every maker can produce random values, and all but the
 * compound ones can also enumerate distinct values (nth), which key fields
 * need so that two records never share a key.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/canon.h"
#include "ddbpipe/number.h"
#include "gen/gen_internal.h"
#include "transform/gen_spec.h"
#include "gen/gen_words.h"
#include "transform/template.h"

enum {
    GK_LIST,   /* oneOf, enum, weekday names */
    GK_NUM,    /* integers (scaled decimals) in [lo, hi] */
    GK_DAYS,   /* dates: days in [lo, hi] */
    GK_SECS,   /* date-times: seconds in [lo, hi] */
    GK_MONTHS, /* "YYYY-MM": months since year 0 in [lo, hi] */
    GK_UUID,
    GK_PATTERN, /* strings of a regular expression */
    GK_TEXT,    /* text by field name: ids, names, titles, places... */
    GK_BYTES,
    GK_BOOL,
    GK_NULL,
    GK_SET, /* SS, NS, BS: distinct members from `member` */
    GK_MAP,
    GK_LIST_OF /* L: members from `member` */
};

struct gen_field {
    const ddb_field *f;
    ddb_type type;
    int kind;
    uint64_t size;
    const char *const *list; /* GK_LIST */
    size_t n_list;
    double *cum; /* cumulative weights, or NULL for uniform */
    int64_t lo, hi;
    int scale; /* GK_NUM: values are integers / 10^scale */
    ddb_gen_dist dist;
    gen_pattern *pat;
    int text;          /* GK_TEXT kind; also preferred for patterned fields */
    int weekday;       /* GK_LIST of a weekday field: days written in its spelling */
    int prefer_text;   /* GK_PATTERN: try the name-based text first when it matches */
    gen_field *member; /* GK_SET, GK_LIST_OF */
    uint64_t distinct;
    double absent;
    uint64_t name_key; /* orders the values of "distinct" */
};

static int text_value(const gen_field *g, const char *s, size_t n, ddb_value *out, ddb_arena *a);

/* Value i of a list; a day in the field's spelling, the one encode writes
 * (so the record comes back as it was made). */
static int list_value(const gen_field *g, size_t i, ddb_value *out, ddb_arena *a)
{
    const char *s = g->list[i];
    size_t n = strlen(s), spelt;
    char day[16];
    if (g->weekday && (spelt = ddb_weekday_spell(g->f, s, n, day)) > 0) {
        s = day;
        n = spelt;
    }
    return text_value(g, s, n, out, a);
}

/* The text made into a value of the field's type. */
static int text_value(const gen_field *g, const char *s, size_t n, ddb_value *out, ddb_arena *a)
{
    char *copy = ddb_arena_memdup(a, s, n);
    ddb_value tmp;
    if (copy == NULL)
        return DDB_ENOMEM;
    if (g->type == DDB_TYPE_S || g->type == DDB_TYPE_N) {
        *out = ddb_value_str(g->type, copy, n);
        return 0;
    }
    tmp = ddb_value_str(DDB_TYPE_S, copy, n);
    return ddb_value_convert(out, &tmp, g->type, a, NULL);
}

static int buf_value(const gen_field *g, ddb_buf *b, ddb_value *out, ddb_arena *a)
{
    int rc = b->oom ? DDB_ENOMEM : text_value(g, b->ptr ? b->ptr : "", b->len, out, a);
    ddb_buf_dispose(b);
    return rc;
}

static int bytes_value(const unsigned char *p, size_t n, ddb_value *out, ddb_arena *a)
{
    char *copy = ddb_arena_memdup(a, p, n);
    if (copy == NULL)
        return DDB_ENOMEM;
    *out = ddb_value_str(DDB_TYPE_B, copy, n);
    return 0;
}

/* -------------------------------------------------------------- planning */

static uint64_t span_size(int64_t lo, int64_t hi)
{
    uint64_t d = (uint64_t)hi - (uint64_t)lo;
    return d == UINT64_MAX ? GEN_UNBOUNDED : d + 1;
}

/* A range bound as an integer of 10^-scale units; -1 when it does not fit. */
static int scaled(const char *text, int scale, int64_t *out)
{
    ddb_number n;
    int64_t v = 0;
    int point;
    if (ddb_number_parse(&n, text, strlen(text), NULL) != 0)
        return -1;
    if (n.ndigits == 0) {
        *out = 0;
        return 0;
    }
    point = n.exponent + scale; /* digits before the scaled point */
    if (point > 18 || n.ndigits > point)
        return -1; /* too wide, or more fraction digits than the scale */
    for (int i = 0; i < point; i++)
        v = v * 10 + (i < n.ndigits ? n.digits[i] - '0' : 0);
    *out = n.negative ? -v : v;
    return 0;
}

static int frac_digits(const char *text)
{
    ddb_number n;
    if (ddb_number_parse(&n, text, strlen(text), NULL) != 0)
        return 0;
    return n.ndigits > n.exponent ? n.ndigits - n.exponent : 0;
}

static int set_cum(gen_field *g, const double *w, size_t n)
{
    double sum = 0;
    if (w == NULL)
        return 0;
    if ((g->cum = malloc(n * sizeof(double))) == NULL)
        return DDB_ENOMEM;
    for (size_t i = 0; i < n; i++)
        g->cum[i] = sum += w[i];
    return 0;
}

/* Numbers of a padded key: non-negative and no wider than the pad. */
static void clip_to_pad(gen_field *g, int pad)
{
    int64_t top;
    if (pad <= 0 || pad + g->scale > 18)
        return;
    top = gen_pow10(pad + g->scale) - 1;
    if (g->lo < 0)
        g->lo = 0;
    if (g->hi > top)
        g->hi = top;
    if (g->lo > g->hi)
        g->lo = 0;
}

static int plan_range(gen_field *g, const ddb_gen_spec *s, ddb_error *err, const char *who)
{
    const ddb_field *f = g->f;
    if (f->format == DDB_FMT_DATE) {
        g->kind = GK_DAYS;
        ddb_gen_parse_date(s->range_lo, &g->lo);
        ddb_gen_parse_date(s->range_hi, &g->hi);
    } else if (f->format == DDB_FMT_DATETIME) {
        g->kind = GK_SECS;
        ddb_gen_parse_datetime(s->range_lo, &g->lo);
        ddb_gen_parse_datetime(s->range_hi, &g->hi);
    } else {
        int a = frac_digits(s->range_lo), b = frac_digits(s->range_hi);
        g->kind = GK_NUM;
        g->scale = a > b ? a : b;
        if (scaled(s->range_lo, g->scale, &g->lo) != 0 ||
            scaled(s->range_hi, g->scale, &g->hi) != 0)
            return ddb_error_set(err, DDB_EUSAGE,
                                 "%s: \"range\" [%s, %s] needs more than 18 digits; use a "
                                 "narrower range or \"oneOf\"",
                                 who, s->range_lo, s->range_hi);
    }
    g->dist = s->distribution;
    return 0;
}

static int plan_pattern(gen_field *g, const char *re, ddb_error *err, const char *who)
{
    char why[200];
    int rc = gen_pattern_compile(&g->pat, re, why, sizeof(why));
    if (rc == DDB_ENOMEM)
        return ddb_error_set(err, rc, "out of memory");
    if (rc != 0)
        return ddb_error_set(err, DDB_EUSAGE,
                             "%s: cannot make values for the pattern '%s': %s; give the field a "
                             "\"generate\" property (e.g. {\"oneOf\": [...]}) in the mapping",
                             who, re, why);
    g->kind = GK_PATTERN;
    g->size = gen_pattern_size(g->pat);
    return 0;
}

static int plan(gen_field *g, const ddb_gen_spec *s, ddb_error *err, const char *who);

/* Sets and lists: a maker for their members, from the same field. */
static int plan_members(gen_field *g, const ddb_gen_spec *s, ddb_type member, ddb_error *err,
                        const char *who)
{
    gen_field *m = calloc(1, sizeof(*m));
    if (m == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    g->member = m;
    m->f = g->f;
    m->type = member;
    return plan(m, s, err, who);
}

static int plan_kind(gen_field *g, const ddb_gen_spec *s, ddb_error *err, const char *who);

/* A field named like a month ("month", "billingMonth") gets recent months
 * "YYYY-MM", when every one of them passes its constraints. */
static int months_fit(gen_field *g)
{
    char text[8];
    if (!gen_name_has(g->f->name, "month") || g->f->n_enum > 0 || g->f->format != DDB_FMT_NONE)
        return 0;
    g->lo = 2015 * 12;
    g->hi = 2025 * 12 + 11;
    for (int64_t m = g->lo; m <= g->hi; m++) {
        gen_month_text(text, m);
        if (!ddb_field_accepts_text(g->f, text, strlen(text), NULL))
            return 0;
    }
    g->kind = GK_MONTHS;
    return 1;
}

static int plan(gen_field *g, const ddb_gen_spec *s, ddb_error *err, const char *who)
{
    int rc = plan_kind(g, s, err, who);
    if (rc == 0 &&
        (g->kind == GK_NUM || g->kind == GK_DAYS || g->kind == GK_SECS || g->kind == GK_MONTHS))
        g->size = span_size(g->lo, g->hi);
    return rc;
}

static int plan_kind(gen_field *g, const ddb_gen_spec *s, ddb_error *err, const char *who)
{
    const ddb_field *f = g->f;
    ddb_type member = ddb_type_set_member(g->type);
    int64_t lo, hi;

    g->text = gen_text_kind(f->name);
    g->weekday = f->format == DDB_FMT_WEEKDAY;
    if (member != DDB_TYPE_NONE)
        return g->kind = GK_SET, plan_members(g, s, member, err, who);
    if (g->type == DDB_TYPE_L && !(s && s->n_one_of))
        return g->kind = GK_LIST_OF, plan_members(g, NULL, DDB_TYPE_S, err, who);
    if (s && s->n_one_of) {
        g->kind = GK_LIST;
        g->list = (const char *const *)s->one_of;
        g->n_list = s->n_one_of;
        g->size = g->n_list;
        return set_cum(g, s->weights, s->n_weights);
    }
    if (s && s->range_lo)
        return plan_range(g, s, err, who);
    if (s && s->pattern)
        return plan_pattern(g, s->pattern, err, who);
    if (f->n_enum > 0 && (g->type == DDB_TYPE_S || g->type == DDB_TYPE_N)) {
        g->kind = GK_LIST;
        g->list = (const char *const *)f->enum_values;
        g->n_list = f->n_enum;
        g->size = g->n_list;
        return set_cum(g, s ? s->weights : NULL, s ? s->n_weights : 0);
    }
    if (g->type == DDB_TYPE_S && f->format == DDB_FMT_DATE) {
        int birth = gen_name_has(f->name, "birth");
        g->kind = GK_DAYS;
        g->lo = birth ? ddb_gen_days(1940, 1, 1) : ddb_gen_days(2015, 1, 1);
        g->hi = birth ? ddb_gen_days(2005, 12, 31) : ddb_gen_days(2025, 12, 31);
        return 0;
    }
    if (g->type == DDB_TYPE_S && f->format == DDB_FMT_DATETIME) {
        g->kind = GK_SECS;
        g->lo = ddb_gen_days(2019, 1, 1) * 86400;
        g->hi = ddb_gen_days(2026, 1, 1) * 86400 - 1;
        return 0;
    }
    if (g->type == DDB_TYPE_S && f->format == DDB_FMT_WEEKDAY) {
        g->kind = GK_LIST;
        g->list = gen_weekdays;
        g->n_list = g->size = 7;
        return 0;
    }
    if (g->type == DDB_TYPE_S && f->format == DDB_FMT_UUID)
        return g->kind = GK_UUID, g->size = GEN_UNBOUNDED, 0;
    if (g->type == DDB_TYPE_S && months_fit(g))
        return 0;
    if (g->type == DDB_TYPE_S && !f->has_pattern && gen_name_is_time(f->name)) {
        /* A time kept as text (Java's String clipTime): epoch milliseconds,
         * which a later layout can re-type to a number. */
        g->kind = GK_NUM;
        gen_number_range(f->name, &lo, &hi, &g->scale);
        g->lo = lo;
        g->hi = hi;
        return 0;
    }
    if (f->has_pattern && (g->type == DDB_TYPE_S || g->type == DDB_TYPE_N)) {
        int rc = plan_pattern(g, f->pattern_text, err, who);
        g->prefer_text = g->text != GEN_T_GENERIC && g->type == DDB_TYPE_S;
        return rc;
    }
    switch (g->type) {
    case DDB_TYPE_N:
        g->kind = GK_NUM;
        gen_number_range(f->name, &lo, &hi, &g->scale);
        g->lo = lo;
        g->hi = hi;
        return 0;
    case DDB_TYPE_B:
        return g->kind = GK_BYTES, g->size = GEN_UNBOUNDED, 0;
    case DDB_TYPE_BOOL:
        return g->kind = GK_BOOL, g->size = 2, 0;
    case DDB_TYPE_NULL:
        return g->kind = GK_NULL, g->size = 1, 0;
    case DDB_TYPE_M:
        return g->kind = GK_MAP, g->size = 0, 0;
    default:
        g->kind = GK_TEXT;
        g->size = GEN_ID_SPACE;
        return 0;
    }
}

int gen_field_new(gen_field **out, const ddb_entity *e, size_t field, ddb_error *err)
{
    const ddb_field *f = &e->fields[field];
    gen_field *g = calloc(1, sizeof(*g));
    char who[300];
    int rc;

    *out = NULL;
    if (g == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    snprintf(who, sizeof(who), "%s.%s", e->name, f->name);
    g->f = f;
    g->type = f->type;
    g->name_key = ddb_hash64(f->name, f->name_len, 0x5eed);
    if ((rc = plan(g, f->gen, err, who)) != 0) {
        gen_field_free(g);
        return rc;
    }
    /* Ranges by name must fit a padded key; a range the user gave is kept
     * (and encoding says so if it does not fit). */
    if (g->kind == GK_NUM && f->type == DDB_TYPE_N && !(f->gen && f->gen->range_lo)) {
        clip_to_pad(g, f->pad);
        g->size = span_size(g->lo, g->hi);
    }
    if (f->gen) {
        g->distinct = f->gen->distinct;
        g->absent = f->gen->absent;
    }
    *out = g;
    return 0;
}

void gen_field_free(gen_field *g)
{
    if (g == NULL)
        return;
    gen_field_free(g->member);
    gen_pattern_free(g->pat);
    free(g->cum);
    free(g);
}

uint64_t gen_field_size(const gen_field *g)
{
    return g->size;
}

double gen_field_absent(const gen_field *g)
{
    return g->absent;
}

uint64_t gen_field_distinct(const gen_field *g)
{
    return g->distinct;
}

/* ---------------------------------------------------------------- nth */

int gen_field_nth(const gen_field *g, uint64_t k, uint64_t key, ddb_value *out, ddb_arena *a)
{
    char text[64];
    ddb_buf b = DDB_BUF_INIT;
    uint64_t x;

    switch (g->kind) {
    case GK_LIST:
        x = ddb_permute(k, g->n_list, key);
        return list_value(g, (size_t)x, out, a);
    case GK_NUM:
        gen_number_text(text, sizeof(text), g->lo + (int64_t)ddb_permute(k, g->size, key),
                        g->scale);
        return text_value(g, text, strlen(text), out, a);
    case GK_DAYS:
        ddb_gen_date(text, g->lo + (int64_t)ddb_permute(k, g->size, key));
        return text_value(g, text, strlen(text), out, a);
    case GK_SECS:
        gen_datetime_text(text, g->lo + (int64_t)ddb_permute(k, g->size, key));
        return text_value(g, text, strlen(text), out, a);
    case GK_MONTHS:
        gen_month_text(text, g->lo + (int64_t)ddb_permute(k, g->size, key));
        return text_value(g, text, strlen(text), out, a);
    case GK_UUID:
        gen_uuid_text(text, ddb_mix64(k ^ key), ddb_mix64(k + key));
        return text_value(g, text, 36, out, a);
    case GK_PATTERN:
        x = g->size == GEN_UNBOUNDED ? ddb_mix64(k ^ key) : ddb_permute(k, g->size, key);
        gen_pattern_nth(g->pat, x, &b);
        return buf_value(g, &b, out, a);
    case GK_TEXT:
        gen_id_text(text, ddb_permute(k % GEN_ID_SPACE, GEN_ID_SPACE, key));
        return text_value(g, text, GEN_ID_LEN, out, a);
    case GK_BYTES: {
        unsigned char bytes[16];
        uint64_t h = ddb_mix64(k ^ key), t = ddb_mix64(h);
        for (int i = 0; i < 8; i++) {
            bytes[i] = (unsigned char)(h >> (56 - 8 * i));
            bytes[8 + i] = (unsigned char)(t >> (56 - 8 * i));
        }
        return bytes_value(bytes, sizeof(bytes), out, a);
    }
    case GK_BOOL:
        *out = ddb_value_bool((int)ddb_permute(k, 2, key));
        return 0;
    case GK_NULL:
        *out = ddb_value_null();
        return 0;
    default:
        return DDB_EUSAGE; /* compound values are never keys */
    }
}

/* ------------------------------------------------------------- random */

static uint64_t pick_weighted(const gen_field *g, ddb_rng *r)
{
    double x = ddb_rng_unit(r) * g->cum[g->n_list - 1];
    for (size_t i = 0; i < g->n_list; i++)
        if (x < g->cum[i])
            return i;
    return g->n_list - 1;
}

/* An offset in [0, size) drawn from the field's distribution. */
static uint64_t draw_offset(const gen_field *g, ddb_rng *r)
{
    double u, x, n = (double)g->size;
    if (g->dist == DDB_GEN_NORMAL) {
        u = ddb_rng_unit(r);
        x = ddb_rng_unit(r);
        x = sqrt(-2.0 * log(1.0 - u)) * cos(6.283185307179586 * x); /* Box-Muller */
        x = n / 2.0 + x * n / 6.0;
    } else if (g->dist == DDB_GEN_ZIPF) {
        /* Log-uniform: density ~ 1/(x+1), i.e. Zipf's law with s = 1. */
        x = exp(ddb_rng_unit(r) * log(n + 1.0)) - 1.0;
    } else {
        return ddb_rng_below(r, g->size);
    }
    if (!(x >= 0))
        x = 0;
    if (x >= n)
        x = n - 1;
    return (uint64_t)x;
}

static int random_set(const gen_field *g, ddb_rng *r, uint64_t place, ddb_value *out, ddb_arena *a)
{
    const gen_field *m = g->member;
    uint64_t want = 1 + ddb_rng_below(r, 4);
    ddb_value *items;
    size_t n = 0;

    if (m->size > 0 && want > m->size)
        want = m->size;
    if ((items = ddb_arena_alloc(a, want * sizeof(*items))) == NULL)
        return DDB_ENOMEM;
    /* Members must differ as DynamoDB compares them ("1" and "1.0" are one
     * number): draw, and drop a draw equal to an earlier member. */
    for (int tries = 0; n < want && tries < 32; tries++) {
        int rc = gen_field_random(m, r, place, &items[n], a), dup = 0;
        if (rc != 0)
            return rc;
        for (size_t i = 0; i < n && !dup; i++)
            dup = ddb_canon_equal(&items[i], &items[n]) != 0;
        n += !dup;
    }
    out->type = g->type;
    out->u.l.items = items;
    out->u.l.count = n;
    return 0;
}

static int random_compound(const gen_field *g, ddb_rng *r, uint64_t place, ddb_value *out,
                           ddb_arena *a)
{
    size_t n = 1 + ddb_rng_below(r, 3);
    if (g->kind == GK_LIST_OF) {
        ddb_value *items = ddb_arena_alloc(a, (n + 1) * sizeof(*items));
        if (items == NULL)
            return DDB_ENOMEM;
        for (size_t i = 0; i < n; i++) {
            int rc = gen_field_random(g->member, r, place, &items[i], a);
            if (rc != 0)
                return rc;
        }
        out->type = DDB_TYPE_L;
        out->u.l.items = items;
        out->u.l.count = n;
        return 0;
    }
    {
        /* A map of a few named scores and words: {"en": "river", "votes": 812}. */
        ddb_attr *attrs = ddb_arena_alloc(a, n * sizeof(*attrs));
        uint64_t first = ddb_rng_below(r, gen_n_map_keys);
        if (attrs == NULL)
            return DDB_ENOMEM;
        for (size_t i = 0; i < n; i++) {
            const char *k = gen_map_keys[(first + i) % gen_n_map_keys];
            char text[32];
            attrs[i].name = (ddb_str){k, strlen(k)};
            if (i % 2 == 0) {
                snprintf(text, sizeof(text), "%u", (unsigned)ddb_rng_below(r, 10000));
                attrs[i].value = ddb_value_str(DDB_TYPE_N, ddb_arena_memdup(a, text, strlen(text)),
                                               strlen(text));
            } else {
                const char *w = PICK(r, gen_words, gen_n_words);
                attrs[i].value = ddb_value_str(DDB_TYPE_S, w, strlen(w));
            }
            if (attrs[i].value.u.s.ptr == NULL)
                return DDB_ENOMEM;
        }
        out->type = DDB_TYPE_M;
        out->u.m.attrs = attrs;
        out->u.m.count = n;
        return 0;
    }
}

int gen_field_random(const gen_field *g, ddb_rng *r, uint64_t place, ddb_value *out, ddb_arena *a)
{
    char text[64];
    ddb_buf b = DDB_BUF_INIT;

    if (g->distinct > 0 && g->size > 0 && g->kind != GK_SET)
        return gen_field_nth(g, ddb_rng_below(r, g->distinct < g->size ? g->distinct : g->size),
                             g->name_key, out, a);
    switch (g->kind) {
    case GK_LIST: {
        size_t i = g->cum ? pick_weighted(g, r) : ddb_rng_below(r, g->n_list);
        return list_value(g, i, out, a);
    }
    case GK_NUM:
        gen_number_text(text, sizeof(text), g->lo + (int64_t)draw_offset(g, r), g->scale);
        return text_value(g, text, strlen(text), out, a);
    case GK_DAYS:
        ddb_gen_date(text, g->lo + (int64_t)draw_offset(g, r));
        return text_value(g, text, strlen(text), out, a);
    case GK_SECS:
        gen_datetime_text(text, g->lo + (int64_t)draw_offset(g, r));
        return text_value(g, text, strlen(text), out, a);
    case GK_MONTHS:
        gen_month_text(text, g->lo + (int64_t)draw_offset(g, r));
        return text_value(g, text, strlen(text), out, a);
    case GK_UUID: {
        uint64_t hi = ddb_rng_next(r), lo = ddb_rng_next(r);
        ddb_gen_uuid(text, hi, lo);
        return text_value(g, text, 36, out, a);
    }
    case GK_PATTERN:
        if (g->prefer_text) {
            gen_random_text(&b, g->text, r, place);
            if (!b.oom && ddb_field_accepts_text(g->f, b.ptr, b.len, NULL))
                return buf_value(g, &b, out, a);
            ddb_buf_clear(&b);
        }
        gen_pattern_random(g->pat, r, &b);
        return buf_value(g, &b, out, a);
    case GK_TEXT:
        gen_random_text(&b, g->text, r, place);
        return buf_value(g, &b, out, a);
    case GK_BYTES: {
        unsigned char bytes[64];
        size_t n = 8 + ddb_rng_below(r, 41);
        for (size_t i = 0; i < n; i++)
            bytes[i] = (unsigned char)ddb_rng_below(r, 256);
        return bytes_value(bytes, n, out, a);
    }
    case GK_BOOL:
        *out = ddb_value_bool((int)ddb_rng_below(r, 2));
        return 0;
    case GK_NULL:
        *out = ddb_value_null();
        return 0;
    case GK_SET:
        return random_set(g, r, place, out, a);
    default:
        return random_compound(g, r, place, out, a);
    }
}
