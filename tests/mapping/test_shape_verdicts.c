/*
 * What validation, decode and the round-trip check keep with an item's shape
 * (shape.h: its names) must never change a verdict, a message or a record.
 * Every item the generator makes for the shipped mappings, and variants of
 * each with its names changed (a byte flipped, an attribute dropped,
 * doubled, moved, renamed to nothing or to bad UTF-8) or a value's type
 * changed, go through one shape cache in turn, as a pipeline thread's items
 * do, and are judged with it and without: both must agree.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/generate.h"
#include "ddbpipe/item.h"
#include "ddbpipe/mapping.h"
#include "ddbpipe/shape.h"
#include "ddbpipe/transform.h"
#include "support/testutil.h"

/* shape.c: every shape of a count hashes alike while set */
extern int ddb_shape_collide;

/* Validation against ks, then (when it passes and ks is m's) decode with m
 * and the round trip: rc, message and record, as text in out. */
static void judge(ddb_buf *out, const ddb_mapping *m, const ddb_key_schema *ks,
                  const ddb_item *item, ddb_shape *sh, int utf8_checked, int keys_only,
                  ddb_arena *a)
{
    ddb_decoded d;
    ddb_error err;
    int rc;

    ddb_buf_clear(out);
    ddb_error_clear(&err);
    rc = keys_only ? 0 : ddb_item_validate_shaped(item, ks, sh, utf8_checked, NULL, &err);
    ddb_buf_printf(out, "valid=%d %s|", rc, rc ? err.message : "");
    if (rc != 0 || ks != &m->table.schema)
        return;
    ddb_error_clear(&err);
    rc = ddb_transform_decode_shaped(&d, m, item, keys_only, sh, a, &err);
    ddb_buf_printf(out, "decode=%d %s|", rc, rc ? err.message : "");
    if (rc != 0)
        return;
    ddb_buf_printf(out, "%s %zu ", d.entity->name, d.n_declared);
    ddb_json_put_typed_map(out, &d.record);
    ddb_error_clear(&err);
    rc = ddb_transform_round_trip(m, &d, item, keys_only, sh, a, &err);
    ddb_buf_printf(out, "|trip=%d %s", rc, rc ? err.message : "");
}

typedef struct run {
    const ddb_mapping *m;
    const ddb_mapping *other; /* another mapping, with other key names, for the same shapes */
    ddb_key_schema permuted;  /* m's key schema with its names in other places */
    ddb_key_attr index_keys[64];
    ddb_shape_cache *shapes;
    ddb_arena *a;
    size_t judged, passed, step;
} run;

static void agree(run *r, const ddb_item *item)
{
    ddb_buf with = DDB_BUF_INIT, without = DDB_BUF_INIT;
    int utf8_checked = (int)(r->step % 3 != 0), keys_only = r->step % 7 == 0;
    const ddb_mapping *m = r->step % 4 == 0 ? r->other : r->m;
    const ddb_key_schema *ks = r->step % 5 == 0 ? &r->permuted : &m->table.schema;
    ddb_shape *sh = ddb_shape_cache_find(r->shapes, item);

    r->step++;
    judge(&with, m, ks, item, sh, utf8_checked, keys_only, r->a);
    judge(&without, m, ks, item, NULL, utf8_checked, keys_only, r->a);
    if (strcmp(with.ptr, without.ptr) != 0) {
        ddb_buf it = DDB_BUF_INIT;
        ddb_json_put_typed_map(&it, item);
        cr_assert_fail("%s: %s\n  with its shape: %s\n  without:        %s", r->m->path, it.ptr,
                       with.ptr, without.ptr);
    }
    r->judged++;
    r->passed += strstr(with.ptr, "trip=0") != NULL;
    ddb_buf_dispose(&with);
    ddb_buf_dispose(&without);
}

/* A copy of item's attributes in a, with room for one more. */
static ddb_item copy(const ddb_item *item, ddb_arena *a)
{
    ddb_item v = {ddb_arena_alloc(a, (item->count + 1) * sizeof(ddb_attr)), item->count};
    memcpy(v.attrs, item->attrs, item->count * sizeof(ddb_attr));
    return v;
}

static void renamed(run *r, const ddb_item *item, size_t i, const char *name, size_t len)
{
    ddb_item v = copy(item, r->a);
    v.attrs[i].name.ptr = ddb_arena_memdup(r->a, name, len);
    v.attrs[i].name.len = len;
    agree(r, &v);
    agree(r, &v);
}

static void variants(run *r, const ddb_item *item)
{
    for (size_t i = 0; i < item->count; i++) {
        const ddb_str *nm = &item->attrs[i].name;
        char buf[300];
        ddb_item v;
        if (nm->len + 1 >= sizeof(buf))
            continue;
        memcpy(buf, nm->ptr, nm->len);
        buf[nm->len - 1] ^= 1; /* a byte flipped: last, then first */
        renamed(r, item, i, buf, nm->len);
        memcpy(buf, nm->ptr, nm->len);
        buf[0] ^= 1;
        renamed(r, item, i, buf, nm->len);
        renamed(r, item, i, "", 0);
        memcpy(buf, nm->ptr, nm->len);
        buf[nm->len] = (char)0xff; /* not UTF-8 */
        renamed(r, item, i, buf, nm->len + 1);
        if (i > 0) /* another attribute's name: doubled */
            renamed(r, item, i, item->attrs[i - 1].name.ptr, item->attrs[i - 1].name.len);
        v = copy(item, r->a); /* dropped */
        memmove(&v.attrs[i], &v.attrs[i + 1], (v.count - i - 1) * sizeof(ddb_attr));
        v.count--;
        agree(r, &v);
        agree(r, &v);
        v = copy(item, r->a); /* doubled at the end */
        v.attrs[v.count++] = item->attrs[i];
        agree(r, &v);
        if (i + 1 < item->count) { /* moved one on */
            ddb_attr t;
            v = copy(item, r->a);
            t = v.attrs[i];
            v.attrs[i] = v.attrs[i + 1];
            v.attrs[i + 1] = t;
            agree(r, &v);
            agree(r, &v);
        }
        v = copy(item, r->a); /* the same names, another type */
        if (v.attrs[i].value.type == DDB_TYPE_S)
            v.attrs[i].value = ddb_value_str(DDB_TYPE_N, "1", 1);
        else
            v.attrs[i].value = ddb_value_str(DDB_TYPE_S, "1", 1);
        agree(r, &v);
        agree(r, &v);
        agree(r, item); /* and the item itself again */
    }
}

/* ks with the same number of key attributes, each named as another one:
 * the partition key as the sort key and back, the index keys in reverse. */
static void permute(run *r, const ddb_key_schema *ks)
{
    size_t n = ks->n_index_pk + ks->n_index_sk;
    cr_assert(n <= 64);
    for (size_t i = 0; i < ks->n_index_pk; i++)
        r->index_keys[n - 1 - i] = ks->index_pk[i];
    for (size_t i = 0; i < ks->n_index_sk; i++)
        r->index_keys[ks->n_index_sk - 1 - i] = ks->index_sk[i];
    r->permuted = *ks;
    if (ks->sort.name != NULL) {
        r->permuted.partition = ks->sort;
        r->permuted.sort = ks->partition;
    }
    r->permuted.index_sk = r->index_keys;
    r->permuted.index_pk = r->index_keys + ks->n_index_sk;
}

static void check_mapping(const char *name, const ddb_mapping *other, size_t *judged,
                          size_t *passed)
{
    ddb_mapping *m = tu_load_format(name);
    uint64_t counts[64];
    ddb_generator *g;
    ddb_error err;
    run r;

    memset(&r, 0, sizeof(r));
    r.m = m;
    r.other = other;
    permute(&r, &m->table.schema);
    cr_assert(m->n_entities <= 64);
    for (size_t e = 0; e < m->n_entities; e++)
        counts[e] = 6;
    cr_assert_eq(ddb_generator_new(&g, m, counts, 11, &err), 0, "%s: %s", name, err.message);
    cr_assert_eq(ddb_arena_new(&r.a, 0), 0);
    cr_assert_eq(ddb_shape_cache_new(&r.shapes), 0);
    for (size_t e = 0; e < m->n_entities; e++) {
        for (uint64_t j = 0; j < counts[e]; j++) {
            ddb_item item;
            ddb_arena_reset(r.a);
            cr_assert_eq(ddb_generator_record(g, e, j, NULL, &item, r.a, &err), 0, "%s",
                         err.message);
            agree(&r, &item);
            variants(&r, &item);
        }
    }
    *judged += r.judged;
    *passed += r.passed;
    ddb_shape_cache_free(r.shapes);
    ddb_generator_free(g);
    ddb_arena_free(r.a);
    ddb_mapping_free(m);
}

static void all_mappings(void)
{
    static const char *const formats[] = {"favorites.json", "favorites-v2.json",
                                          "facility-capacity.json", "movies.json"};
    /* favorites-v2 names the keys PK and SK, the others pk, sk or facilityId */
    ddb_mapping *v2 = tu_load_format("favorites-v2.json"), *v1 = tu_load_format("favorites.json");
    size_t judged = 0, passed = 0;
    for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
        check_mapping(formats[i], i == 1 ? v1 : v2, &judged, &passed);
    ddb_mapping_free(v1);
    ddb_mapping_free(v2);
    cr_assert_gt(judged, 5000, "%zu judged", judged);
    cr_assert_gt(passed, 500, "%zu passed", passed);
}

/* Two entities whose items have the same names, read the other way round:
 * one shape, two entities' positions. */
Test(shape_verdicts, one_shape_two_entities)
{
    static const char mapping[] =
        "{\"table\": {\"name\": \"T\", \"partitionKey\": {\"name\": \"pk\", \"type\": \"S\"},"
        " \"sortKey\": {\"name\": \"sk\", \"type\": \"S\"}},"
        " \"entities\": ["
        "  {\"name\": \"A\", \"keys\": {\"pk\": \"A#{id}\", \"sk\": \"x\"},"
        "   \"fields\": [{\"name\": \"id\", \"type\": \"S\"},"
        "    {\"name\": \"first\", \"type\": \"S\", \"attribute\": \"a1\"},"
        "    {\"name\": \"second\", \"type\": \"S\", \"attribute\": \"a2\"}]},"
        "  {\"name\": \"B\", \"keys\": {\"pk\": \"B#{id}\", \"sk\": \"x\"},"
        "   \"fields\": [{\"name\": \"id\", \"type\": \"S\"},"
        "    {\"name\": \"first\", \"type\": \"S\", \"attribute\": \"a2\"},"
        "    {\"name\": \"second\", \"type\": \"S\", \"attribute\": \"a1\"}]}]}";
    static const char *const items[] = {
        "{\"pk\":{\"S\":\"A#1\"},\"sk\":{\"S\":\"x\"},\"a1\":{\"S\":\"p\"},\"a2\":{\"S\":\"q\"}}",
        "{\"pk\":{\"S\":\"B#1\"},\"sk\":{\"S\":\"x\"},\"a1\":{\"S\":\"p\"},\"a2\":{\"S\":\"q\"}}",
    };
    ddb_mapping *m = NULL;
    ddb_error err;
    run r;

    ddb_error_clear(&err);
    cr_assert_eq(ddb_mapping_parse(&m, mapping, strlen(mapping), "two.json", &err), 0, "%s",
                 err.message);
    memset(&r, 0, sizeof(r));
    r.m = r.other = m;
    permute(&r, &m->table.schema);
    cr_assert_eq(ddb_arena_new(&r.a, 0), 0);
    cr_assert_eq(ddb_shape_cache_new(&r.shapes), 0);
    for (int i = 0; i < 40; i++) {
        ddb_map item = tu_item(r.a, items[i % 2]);
        agree(&r, &item);
    }
    cr_assert_gt(r.passed, 10);
    ddb_shape_cache_free(r.shapes);
    ddb_arena_free(r.a);
    ddb_mapping_free(m);
}

Test(shape_verdicts, never_change)
{
    all_mappings();
}

/* With every shape of a count hashing alike, only the names tell shapes
 * apart: the verdicts still agree. */
Test(shape_verdicts, never_change_when_hashes_collide)
{
    ddb_shape_collide = 1;
    all_mappings();
    ddb_shape_collide = 0;
}
