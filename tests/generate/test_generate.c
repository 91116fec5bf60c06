/*
 * The generator against every mapping in formats/ (read at run time, so the
 * checks follow the mapping language and not one design's keys) and against
 * small inline mappings for the "generate" property and the count checks.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/canon.h"
#include "ddbpipe/generate.h"
#include "ddbpipe/item.h"
#include "ddbpipe/number.h"
#include "ddbpipe/transform.h"
#include "support/testutil.h"

typedef struct made {
    size_t entity;
    char *rec;  /* canonical record */
    char *item; /* canonical item */
    ddb_map fields;
} made;

static ddb_arena *keep; /* records kept for the whole test */

static char *canon_map(const ddb_map *m)
{
    ddb_buf b = DDB_BUF_INIT;
    cr_assert_eq(ddb_canon_map(&b, m), 0);
    return ddb_buf_detach(&b, NULL);
}

static char *canon_value(const ddb_value *v)
{
    ddb_buf b = DDB_BUF_INIT;
    cr_assert_eq(ddb_canon_value(&b, v), 0);
    return ddb_buf_detach(&b, NULL);
}

/* Makes every record and checks, independently of the generator's own
 * check, that encoding gives its item and decoding gives it back. */
static made *make_all(const ddb_mapping *m, const uint64_t *counts, uint64_t seed, size_t *n)
{
    ddb_generator *g;
    ddb_error err;
    ddb_arena *a;
    made *out;
    size_t k = 0, total = 0;

    cr_assert_eq(ddb_generator_new(&g, m, counts, seed, &err), 0, "%s: %s", m->path, err.message);
    for (size_t e = 0; e < m->n_entities; e++)
        total += counts[e];
    cr_assert_eq(ddb_generator_total(g), total);
    out = calloc(total + 1, sizeof(made));
    cr_assert_eq(ddb_arena_new(&a, 0), 0);
    for (size_t e = 0; e < m->n_entities; e++) {
        for (uint64_t j = 0; j < counts[e]; j++) {
            ddb_map rec;
            ddb_item item, again;
            ddb_decoded d;
            char *x, *y;
            ddb_arena_reset(a);
            cr_assert_eq(ddb_generator_record(g, e, j, &rec, &item, a, &err), 0, "%s: %s",
                         m->entities[e].name, err.message);
            cr_assert_eq(ddb_item_validate(&item, &m->table.schema, NULL, &err), 0, "%s",
                         err.message);
            cr_assert_eq(ddb_transform_encode(&again, m, &m->entities[e], &rec, 1, a, &err), 0,
                         "%s", err.message);
            x = canon_map(&item);
            y = canon_map(&again);
            cr_assert_str_eq(x, y);
            free(y);
            cr_assert_eq(ddb_transform_decode(&d, m, &item, a, &err), 0, "%s: %s", x, err.message);
            cr_assert_eq(d.entity, &m->entities[e], "%s decodes as %s", x, d.entity->name);
            out[k].rec = canon_map(&rec);
            y = canon_map(&d.record);
            cr_assert_str_eq(out[k].rec, y, "made %s, decoded %s", out[k].rec, y);
            free(y);
            out[k].item = x;
            out[k].entity = e;
            cr_assert_eq(ddb_map_copy(&out[k].fields, &rec, keep), 0);
            k++;
        }
    }
    ddb_arena_free(a);
    ddb_generator_free(g);
    *n = k;
    return out;
}

static void free_made(made *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(v[i].rec);
        free(v[i].item);
    }
    free(v);
}

static void setup(void)
{
    cr_assert_eq(ddb_arena_new(&keep, 0), 0);
}

static void teardown(void)
{
    ddb_arena_free(keep);
}

TestSuite(generate, .init = setup, .fini = teardown);

/* The mappings in formats/, whatever they are today. */
static size_t format_files(char names[][256], size_t cap)
{
    char dir[1024];
    DIR *d;
    struct dirent *de;
    size_t n = 0;
    snprintf(dir, sizeof(dir), "%s/formats", DDB_SOURCE_DIR);
    cr_assert_not_null(d = opendir(dir));
    while ((de = readdir(d)) != NULL && n < cap) {
        size_t len = strlen(de->d_name);
        if (len > 5 && strcmp(de->d_name + len - 5, ".json") == 0)
            snprintf(names[n++], 256, "%s", de->d_name);
    }
    closedir(d);
    cr_assert_gt(n, 0);
    return n;
}

/* Is P a parent of E in the generator's sense: every table-key field of P
 * is a field of E (same name and type), and P's key is the smaller? */
static int parent_of(const ddb_entity *p, const ddb_entity *e, size_t pi, size_t ei)
{
    size_t np = 0, ne = 0;
    for (size_t f = 0; f < e->n_fields; f++)
        ne += e->fields[f].in_table_key;
    for (size_t f = 0; f < p->n_fields; f++) {
        int i;
        if (!p->fields[f].in_table_key)
            continue;
        np++;
        i = ddb_entity_field_index(e, p->fields[f].name, strlen(p->fields[f].name));
        if (i < 0 || e->fields[i].type != p->fields[f].type)
            return 0;
    }
    return pi != ei && np > 0 && (np < ne || (np == ne && pi < ei));
}

static char *field_text(const ddb_map *rec, const char *name)
{
    const ddb_value *v = ddb_map_getz(rec, name);
    return v ? canon_value(v) : strdup("(absent)");
}

/* Record r refers to a record of P that exists: one whose P-key fields have
 * r's values. */
static int has_parent(const made *all, size_t n, size_t pe, const ddb_entity *p, const made *r)
{
    for (size_t i = 0; i < n; i++) {
        int same = all[i].entity == pe;
        for (size_t f = 0; same && f < p->n_fields; f++) {
            char *x, *y;
            if (!p->fields[f].in_table_key)
                continue;
            x = field_text(&all[i].fields, p->fields[f].name);
            y = field_text(&r->fields, p->fields[f].name);
            same = strcmp(x, y) == 0;
            free(x);
            free(y);
        }
        if (same)
            return 1;
    }
    return 0;
}

Test(generate, every_record_of_every_format_round_trips_and_refers_to_existing_records)
{
    char names[32][256];
    size_t nf = format_files(names, 32), checked = 0;
    for (size_t i = 0; i < nf; i++) {
        ddb_mapping *m = tu_load_format(names[i]);
        uint64_t counts[64];
        size_t n, refs = 0;
        made *all;
        for (size_t e = 0; e < m->n_entities; e++)
            counts[e] = 40;
        all = make_all(m, counts, 11, &n);
        /* primary keys are unique across the table */
        for (size_t a = 0; a < n; a++)
            for (size_t b = a + 1; b < n; b++)
                cr_assert_str_neq(all[a].item, all[b].item);
        for (size_t r = 0; r < n; r++) {
            const ddb_entity *e = &m->entities[all[r].entity];
            for (size_t p = 0; p < m->n_entities; p++) {
                if (!parent_of(&m->entities[p], e, p, all[r].entity))
                    continue;
                cr_assert(has_parent(all, n, p, &m->entities[p], &all[r]),
                          "%s: %s record %s refers to no existing %s", names[i], e->name,
                          all[r].rec, m->entities[p].name);
                refs++;
            }
        }
        cr_log_info("%s: %zu records, %zu references checked", names[i], n, refs);
        checked += refs;
        free_made(all, n);
        ddb_mapping_free(m);
    }
    cr_assert_gt(checked, 100, "the formats hold entities that refer to others");
}

static char *concat_all(const ddb_mapping *m, const uint64_t *counts, uint64_t seed)
{
    size_t n;
    made *all = make_all(m, counts, seed, &n);
    ddb_buf b = DDB_BUF_INIT;
    for (size_t i = 0; i < n; i++)
        ddb_buf_puts(&b, all[i].item);
    free_made(all, n);
    return ddb_buf_detach(&b, NULL);
}

Test(generate, same_seed_same_records_other_seed_other_records)
{
    char names[32][256];
    size_t nf = format_files(names, 32);
    for (size_t i = 0; i < nf; i++) {
        ddb_mapping *m = tu_load_format(names[i]);
        uint64_t counts[64];
        char *a, *b, *c;
        for (size_t e = 0; e < m->n_entities; e++)
            counts[e] = 15;
        a = concat_all(m, counts, 5);
        b = concat_all(m, counts, 5);
        c = concat_all(m, counts, 6);
        cr_assert_str_eq(a, b, "%s", names[i]);
        cr_assert_str_neq(a, c, "%s", names[i]);
        free(a);
        free(b);
        free(c);
        ddb_mapping_free(m);
    }
}

/* ------------------------------------------------------------ inline */

static ddb_mapping *parse(const char *text)
{
    ddb_mapping *m = NULL;
    ddb_error err;
    cr_assert_eq(ddb_mapping_parse(&m, text, strlen(text), "inline", &err), 0, "%s", err.message);
    return m;
}

#define SHOP                                                                                       \
    "{\"table\":{\"name\":\"t\",\"partitionKey\":{\"name\":\"pk\"},\"sortKey\":{\"name\":\"sk\"}}" \
    ","                                                                                            \
    "\"entities\":["                                                                               \
    "{\"name\":\"Customer\",\"keys\":{\"pk\":\"C#{customerId}\",\"sk\":\"PROFILE\"},"              \
    " \"fields\":[{\"name\":\"customerId\"},{\"name\":\"email\"},{\"name\":\"country\"},"          \
    "  {\"name\":\"city\"}]},"                                                                     \
    "{\"name\":\"Order\",\"keys\":{\"pk\":\"C#{customerId}\",\"sk\":\"O#{orderId}\"},"             \
    " \"fields\":[{\"name\":\"customerId\"},{\"name\":\"orderId\",\"format\":\"uuid\"},"           \
    "  {\"name\":\"total\",\"type\":\"N\",\"generate\":{\"range\":[\"0.01\",\"99.99\"],"           \
    "   \"distribution\":\"normal\"}},"                                                            \
    "  {\"name\":\"status\",\"generate\":{\"oneOf\":[\"new\",\"paid\",\"sent\"],"                  \
    "   \"weights\":[1,0,3]}},"                                                                    \
    "  {\"name\":\"channel\",\"enum\":[\"web\",\"app\"],\"generate\":{\"weights\":[0,1]}},"        \
    "  {\"name\":\"coupon\",\"generate\":{\"pattern\":\"[A-Z]{3}-[0-9]{2}\",\"absent\":0.5}},"     \
    "  {\"name\":\"store\",\"generate\":{\"distinct\":3}},"                                        \
    "  {\"name\":\"day\",\"format\":\"date\",\"generate\":{\"range\":[\"2024-02-27\","             \
    "   \"2024-03-02\"]}},"                                                                        \
    "  {\"name\":\"tags\",\"type\":\"SS\",\"generate\":{\"oneOf\":[\"a\",\"b\",\"c\"]}},"          \
    "  {\"name\":\"qty\",\"type\":\"N\",\"generate\":{\"range\":[1,5],\"distribution\":\"zipf\"}}" \
    "]}]}"

Test(generate, honours_the_generate_property)
{
    ddb_mapping *m = parse(SHOP);
    uint64_t counts[2] = {20, 400};
    size_t n, absent = 0, sent = 0, ones = 0;
    char stores[8][64];
    size_t n_stores = 0;
    made *all = make_all(m, counts, 1, &n);
    for (size_t i = 0; i < n; i++) {
        const ddb_map *r = &all[i].fields;
        const ddb_value *v;
        if (all[i].entity != 1)
            continue;
        v = ddb_map_getz(r, "total");
        cr_assert(ddb_number_compare_text(v->u.s.ptr, v->u.s.len, "0.01", 4, NULL) >= 0);
        cr_assert(ddb_number_compare_text(v->u.s.ptr, v->u.s.len, "99.99", 5, NULL) <= 0);
        v = ddb_map_getz(r, "status");
        cr_assert(v->u.s.len == 3 || v->u.s.len == 4);
        cr_assert_neq(strncmp(v->u.s.ptr, "paid", 4), 0, "weight 0 was drawn");
        sent += v->u.s.len == 4 && strncmp(v->u.s.ptr, "sent", 4) == 0;
        v = ddb_map_getz(r, "channel");
        cr_assert_eq(strncmp(v->u.s.ptr, "app", 3), 0);
        v = ddb_map_getz(r, "coupon");
        if (v == NULL)
            absent++;
        else
            cr_assert(v->u.s.len == 6 && v->u.s.ptr[3] == '-');
        v = ddb_map_getz(r, "store");
        {
            size_t k;
            for (k = 0; k < n_stores; k++)
                if (strlen(stores[k]) == v->u.s.len &&
                    memcmp(stores[k], v->u.s.ptr, v->u.s.len) == 0)
                    break;
            if (k == n_stores) {
                cr_assert_lt(n_stores, 3, "more than 3 distinct stores");
                snprintf(stores[n_stores++], 64, "%.*s", (int)v->u.s.len, v->u.s.ptr);
            }
        }
        v = ddb_map_getz(r, "day");
        cr_assert(v->u.s.len == 10 && strncmp(v->u.s.ptr, "2024-0", 6) == 0);
        cr_assert(strncmp(v->u.s.ptr, "2024-02-2", 9) == 0 ||
                      strncmp(v->u.s.ptr, "2024-03-0", 9) == 0,
                  "%.10s", v->u.s.ptr);
        v = ddb_map_getz(r, "tags");
        cr_assert_eq(v->type, DDB_TYPE_SS);
        cr_assert(v->u.l.count >= 1 && v->u.l.count <= 3);
        v = ddb_map_getz(r, "qty");
        ones += v->u.s.len == 1 && v->u.s.ptr[0] == '1';
    }
    cr_assert(absent > 120 && absent < 280, "absent %zu of 400", absent);
    cr_assert(sent > 220, "weights 1:0:3 gave %zu 'sent' of 400", sent);
    cr_assert(ones > 100, "zipf over 1..5 gave %zu ones of 400", ones);
    /* orders belong to existing customers */
    for (size_t i = 0; i < n; i++)
        if (all[i].entity == 1)
            cr_assert(has_parent(all, n, 0, &m->entities[0], &all[i]));
    free_made(all, n);
    ddb_mapping_free(m);
}

#define WEEK                                                                                       \
    "{\"table\":{\"name\":\"t\",\"partitionKey\":{\"name\":\"pk\"},\"sortKey\":{\"name\":\"sk\"}}" \
    ","                                                                                            \
    "\"entities\":["                                                                               \
    "{\"name\":\"Site\",\"keys\":{\"pk\":\"S#{siteId}\",\"sk\":\"INFO\"},"                         \
    " \"fields\":[{\"name\":\"siteId\"}]},"                                                        \
    "{\"name\":\"Hours\",\"keys\":{\"pk\":\"S#{siteId}\",\"sk\":\"{day}\"},"                       \
    " \"fields\":[{\"name\":\"siteId\"},{\"name\":\"day\",\"format\":\"weekday\"}]}]}"

Test(generate, counts_that_cannot_be_met_are_refused_with_the_reason)
{
    ddb_mapping *m = parse(WEEK);
    ddb_generator *g = NULL;
    ddb_error err;
    uint64_t fits[2] = {3, 21}, over[2] = {3, 22}, orphan[2] = {0, 5};
    size_t n;
    made *all = make_all(m, fits, 1, &n); /* 7 weekdays x 3 sites: exactly full */
    free_made(all, n);
    cr_assert_eq(ddb_generator_new(&g, m, over, 1, &err), DDB_EUSAGE);
    cr_assert_not_null(strstr(err.message, "Hours"), "%s", err.message);
    cr_assert_not_null(strstr(err.message, "at most 21"), "%s", err.message);
    cr_assert_eq(ddb_generator_new(&g, m, orphan, 1, &err), DDB_EUSAGE);
    cr_assert_not_null(strstr(err.message, "give Site a count"), "%s", err.message);
    ddb_mapping_free(m);
}

#define LINKS                                                                                      \
    "{\"table\":{\"name\":\"t\",\"partitionKey\":{\"name\":\"pk\"},\"sortKey\":{\"name\":\"sk\"}}" \
    ","                                                                                            \
    "\"entities\":["                                                                               \
    "{\"name\":\"Tag\",\"keys\":{\"pk\":\"T#{userId}\",\"sk\":\"{tagId}\"},"                       \
    " \"fields\":[{\"name\":\"userId\"},{\"name\":\"tagId\"}]},"                                   \
    "{\"name\":\"Item\",\"keys\":{\"pk\":\"I#{userId}\",\"sk\":\"{itemId}\"},"                     \
    " \"fields\":[{\"name\":\"userId\"},{\"name\":\"itemId\"},{\"name\":\"kind\","                 \
    "  \"enum\":[\"x\",\"y\"]}]},"                                                                 \
    "{\"name\":\"ItemTag\",\"keys\":{\"pk\":\"IT#{userId}#{itemId}\",\"sk\":\"{tagId}\","          \
    " \"gsi\":\"{userId}#{tagId}#{kind}\"},"                                                       \
    " \"fields\":[{\"name\":\"userId\"},{\"name\":\"itemId\"},{\"name\":\"tagId\"},"               \
    "  {\"name\":\"kind\",\"enum\":[\"x\",\"y\"]}]}]}"

/* Two parents sharing the user: the link takes both from the same user, and
 * the fields it repeats (kind) from its item. Up to every combination. */
Test(generate, links_refer_to_parents_of_the_same_owner)
{
    ddb_mapping *m = parse(LINKS);
    ddb_generator *g = NULL;
    ddb_error err;
    uint64_t counts[3] = {10, 10, 100}, over[3] = {10, 10, 101};
    size_t n;
    made *all = make_all(m, counts, 2, &n);
    for (size_t i = 0; i < n; i++) {
        if (all[i].entity != 2)
            continue;
        cr_assert(has_parent(all, n, 0, &m->entities[0], &all[i]), "%s", all[i].rec);
        cr_assert(has_parent(all, n, 1, &m->entities[1], &all[i]), "%s", all[i].rec);
        for (size_t k = 0; k < n; k++) {
            char *a, *b, *c, *d;
            if (all[k].entity != 1)
                continue;
            a = field_text(&all[k].fields, "itemId");
            b = field_text(&all[i].fields, "itemId");
            c = field_text(&all[k].fields, "kind");
            d = field_text(&all[i].fields, "kind");
            if (strcmp(a, b) == 0)
                cr_assert_str_eq(c, d, "the link's kind is not its item's");
            free(a);
            free(b);
            free(c);
            free(d);
        }
    }
    free_made(all, n);
    cr_assert_eq(ddb_generator_new(&g, m, over, 1, &err), DDB_EUSAGE);
    cr_assert_not_null(strstr(err.message, "ItemTag: 101 records do not fit"), "%s", err.message);
    ddb_mapping_free(m);
}

Test(generate, reader_hands_out_every_record_and_skips_cheaply)
{
    ddb_mapping *m = tu_load_format("movies.json");
    uint64_t counts[64];
    ddb_generator *g;
    ddb_reader *r;
    ddb_record *rec;
    ddb_error err;
    uint64_t n = 0, total = 0;
    char first_after_skip[4096] = "", direct[4096] = "";
    ddb_decoded d;
    ddb_arena *a;
    cr_assert_eq(ddb_arena_new(&a, 0), 0);
    for (size_t e = 0; e < m->n_entities; e++)
        total += counts[e] = 7;
    cr_assert_eq(ddb_generator_new(&g, m, counts, 3, &err), 0, "%s", err.message);
    cr_assert_eq(ddb_reader_new_generator(&r, g, &err), 0);
    cr_assert_eq(r->expected_items, total);
    while (ddb_reader_next(r, &rec, &err) == 0) {
        cr_assert_eq(rec->kind, DDB_REC_PUT);
        cr_assert_eq(rec->pos, n);
        ddb_arena_reset(a);
        cr_assert_eq(ddb_transform_decode(&d, m, &rec->item, a, &err), 0, "%s", err.message);
        if (n == 9)
            snprintf(direct, sizeof(direct), "%s", tu_typed(&rec->item));
        n++;
    }
    cr_assert_eq(n, total);
    ddb_reader_free(r);
    cr_assert_eq(ddb_reader_new_generator(&r, g, &err), 0);
    cr_assert_eq(r->vt->skip_to(r, 9, &err), 0);
    cr_assert_eq(ddb_reader_next(r, &rec, &err), 0);
    snprintf(first_after_skip, sizeof(first_after_skip), "%s", tu_typed(&rec->item));
    cr_assert_str_eq(first_after_skip, direct);
    ddb_reader_free(r);
    ddb_generator_free(g);
    ddb_mapping_free(m);
    ddb_arena_free(a);
}

static void load_fails(const char *field, const char *want)
{
    char text[2048];
    ddb_mapping *m = NULL;
    ddb_error err;
    snprintf(text, sizeof(text),
             "{\"table\":{\"name\":\"t\",\"partitionKey\":{\"name\":\"pk\"}},\"entities\":[{"
             "\"name\":\"E\",\"keys\":{\"pk\":\"{id}\"},\"fields\":[{\"name\":\"id\"},%s]}]}",
             field);
    cr_assert_eq(ddb_mapping_parse(&m, text, strlen(text), "bad.json", &err), DDB_EUSAGE, "%s",
                 field);
    cr_assert_not_null(strstr(err.message, "entities[0].fields[1].generate"), "%s", err.message);
    cr_assert_not_null(strstr(err.message, want), "%s: %s", field, err.message);
}

Test(generate, mistakes_in_the_generate_property_are_mapping_errors)
{
    load_fails("{\"name\":\"x\",\"generate\":{\"rnage\":[1,2]}}", "unknown property \"rnage\"");
    load_fails("{\"name\":\"x\",\"type\":\"BOOL\",\"generate\":{\"range\":[1,2]}}", "\"range\"");
    load_fails("{\"name\":\"x\",\"type\":\"N\",\"generate\":{\"range\":[5,2]}}", "above");
    load_fails("{\"name\":\"x\",\"type\":\"N\",\"generate\":{\"oneOf\":[\"1\",\"two\"]}}",
               "not a number");
    load_fails("{\"name\":\"x\",\"enum\":[\"a\"],\"generate\":{\"oneOf\":[\"b\"]}}",
               "is not one of a");
    load_fails("{\"name\":\"x\",\"generate\":{\"oneOf\":[\"a\",\"b\"],\"weights\":[1]}}",
               "2 numbers");
    load_fails("{\"name\":\"x\",\"generate\":{\"absent\":1.5}}", "\"absent\"");
    load_fails("{\"name\":\"x\",\"required\":true,\"generate\":{\"absent\":0.5}}", "required");
    load_fails("{\"name\":\"x\",\"format\":\"date\",\"generate\":{\"range\":[\"2024-13-01\","
               "\"2024-12-01\"]}}",
               "dates");
    load_fails("{\"name\":\"x\",\"generate\":{\"pattern\":\"(a\"}}", "not a valid");
    load_fails("{\"name\":\"x\",\"generate\":{\"pattern\":\"((a{1000}){1000}){1000}\"}}",
               "\"pattern\" of field \"x\" is too complex: more than 10000 atoms");
    load_fails("{\"name\":\"x\",\"generate\":{\"range\":[1,2],\"oneOf\":[\"1\"]}}", "one of");
}

/* Two entities whose keys look alike and no constraint tells apart: the
 * generator says so when planning, before any record is handed out. */
Test(generate, entities_the_mapping_cannot_tell_apart_are_refused_at_the_start)
{
    ddb_mapping *m =
        parse("{\"table\":{\"name\":\"t\",\"partitionKey\":{\"name\":\"pk\"}},\"entities\":["
              "{\"name\":\"A\",\"keys\":{\"pk\":\"{x}\"},\"fields\":[{\"name\":\"x\"}]},"
              "{\"name\":\"B\",\"keys\":{\"pk\":\"{y}\"},\"fields\":[{\"name\":\"y\"}]}]}");
    ddb_generator *g = NULL;
    ddb_error err;
    uint64_t counts[2] = {3, 3}, only_a[2] = {3, 0};
    cr_assert_eq(ddb_generator_new(&g, m, counts, 1, &err), DDB_EUSAGE);
    cr_assert_null(g);
    cr_assert_not_null(strstr(err.message, "cannot tell B items from A items"), "%s", err.message);
    cr_assert_eq(ddb_generator_new(&g, m, only_a, 1, &err), 0, "%s", err.message);
    ddb_generator_free(g);
    ddb_mapping_free(m);
}
