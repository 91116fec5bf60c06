/*
 * The comparison engine: both sides fed straight into their outputs, the
 * differences read back from memory. Equal sides, a changed attribute, a
 * missing and an extra record, 1.0 against 1, repeated keys, a re-keyed side
 * (favorites v1 against v2, from formats/ at run time), sampling, and
 * buckets split to fit a tiny memory budget; the verdicts a caller acts on
 * (sync), with side B's item keys.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/diff.h"
#include "ddbpipe/generate.h"
#include "ddbpipe/transform.h"
#include "ddbpipe/sink.h"
#include "support/files.h"
#include "support/testutil.h"

static ddb_arena *a;
static char dir[64];
static int rejected;
static char last_reason[1024];
static int told;      /* ask for the verdicts, with side B's item keys (new_diff) */
static ddb_buf heard; /* the verdicts, a line each: kind, entity, a, b, B's key */

static void setup(void)
{
    cr_assert_eq(ddb_arena_new(&a, 0), 0);
    tu_mkdtemp(dir, sizeof(dir), "/tmp/ddb-diff-XXXXXX");
    rejected = 0;
    told = 0;
    ddb_buf_clear(&heard);
}

static void teardown(void)
{
    ddb_arena_free(a);
    ddb_buf_dispose(&heard);
    tu_rmtree(dir);
}

TestSuite(diff, .init = setup, .fini = teardown);

static void on_reject(void *ctx, int entity, const ddb_reject_info *info)
{
    (void)ctx;
    (void)entity;
    rejected++;
    snprintf(last_reason, sizeof(last_reason), "%s", info->reason);
}

#define MAPPING                                                                                    \
    "{\"table\":{\"name\":\"t\",\"partitionKey\":{\"name\":\"pk\"},"                               \
    "\"sortKey\":{\"name\":\"sk\",\"type\":\"N\"}},"                                               \
    "\"entities\":[{\"name\":\"Thing\",\"keys\":{\"pk\":\"T#{id}\",\"sk\":\"{n}\"},"               \
    "\"fields\":[{\"name\":\"id\"},{\"name\":\"n\",\"type\":\"N\"},{\"name\":\"label\"},"          \
    "{\"name\":\"score\",\"type\":\"N\"},{\"name\":\"tags\",\"type\":\"SS\"}]}]}"

static int on_verdict(void *ctx, const ddb_diff_verdict *v, ddb_error *err)
{
    ddb_buf *b = ctx;
    (void)err;
    ddb_buf_printf(b, "%s %s%s a=%.*s b=%.*s key=%.*s\n",
                   v->kind == DDB_DIFF_ONLY_A       ? "only_a"
                   : v->kind == DDB_DIFF_ONLY_B     ? "only_b"
                   : v->kind == DDB_DIFF_REPEATED_B ? "repeated_b"
                                                    : "different",
                   v->entity, v->is_item ? " (item)" : "", (int)v->a_len, v->a ? v->a : "",
                   (int)v->b_len, v->b ? v->b : "", v->b_key ? (int)v->b_key_len : 1, v->b_key ? v->b_key : "-");
    return 0;
}

static ddb_mapping *parse(const char *text)
{
    ddb_mapping *m = NULL;
    ddb_error err;
    cr_assert_eq(ddb_mapping_parse(&m, text, strlen(text), "inline", &err), 0, "%s", err.message);
    return m;
}

static ddb_diff *new_diff(const ddb_mapping *ma, const ddb_mapping *mb, double sample,
                          size_t max_memory)
{
    ddb_diff *d = NULL;
    ddb_diff_opts o;
    ddb_error err;
    static const char *const keys[] = {"pk", "sk"};
    memset(&o, 0, sizeof(o));
    o.work_dir = dir;
    o.sample = sample;
    o.max_memory = max_memory;
    o.fanout = max_memory ? 4 : 0;
    o.key_attrs = keys;
    o.n_key_attrs = 2;
    if (told) {
        o.verdict = on_verdict;
        o.verdict_ctx = &heard;
        o.keep_b_keys = 1;
    }
    cr_assert_eq(ddb_diff_new(&d, ma, mb, &o, &err), 0, "%s", err.message);
    return d;
}

static void feed(ddb_diff *d, int side, const char *const *items, size_t n)
{
    ddb_output *o;
    ddb_error err;
    cr_assert_eq(ddb_diff_side(d, side, &o, &err), 0);
    o->reject = on_reject;
    for (size_t i = 0; i < n; i++) {
        ddb_record rec;
        ddb_map item = tu_item(a, items[i]);
        memset(&rec, 0, sizeof(rec));
        rec.source = "test";
        rec.line = i + 1;
        rec.seq = i + 1;
        cr_assert_eq(o->vt->put(o, -1, DDB_REC_PUT, &item, 0, &rec, &err), 0, "%s", err.message);
    }
    cr_assert_eq(o->vt->finish(o, &err), 0, "%s", err.message);
}

/* Compares, returning the differences file's text (caller frees). */
static char *compare(ddb_diff *d)
{
    ddb_sink *s;
    ddb_error err;
    const char *data;
    size_t len;
    char *copy;
    cr_assert_eq(ddb_sink_new_memory(&s, &err), 0);
    cr_assert_eq(ddb_diff_compare(d, s, &err), 0, "%s", err.message);
    cr_assert_eq(ddb_sink_finish(s, &err), 0);
    data = ddb_sink_memory_data(s, &len);
    copy = strndup(data ? data : "", len);
    ddb_sink_free(s);
    return copy;
}

#define T(id, n, rest) "{\"pk\":{\"S\":\"T#" id "\"},\"sk\":{\"N\":\"" n "\"}" rest "}"

Test(diff, equal_sides_in_any_order_with_numbers_spelled_differently)
{
    ddb_mapping *m = parse(MAPPING);
    const char *side_a[] = {T("a", "1", ",\"label\":{\"S\":\"x\"},\"score\":{\"N\":\"1\"}"),
                            T("b", "2", ",\"tags\":{\"SS\":[\"p\",\"q\"]}"), T("c", "3", "")};
    const char *side_b[] = {T("c", "3.0", ""), T("b", "2", ",\"tags\":{\"SS\":[\"q\",\"p\"]}"),
                            T("a", "1", ",\"score\":{\"N\":\"1.0\"},\"label\":{\"S\":\"x\"}")};
    ddb_diff *d = new_diff(m, m, 0, 0);
    const ddb_diff_stats *st;
    char *text;
    feed(d, 0, side_a, 3);
    feed(d, 1, side_b, 3);
    text = compare(d);
    st = ddb_diff_get_stats(d);
    cr_assert_str_eq(text, "");
    cr_assert_eq(st->total.equal, 3);
    cr_assert_eq(st->total.different + st->total.only_a + st->total.only_b, 0);
    cr_assert_eq(st->rows[0].c.equal, 3);
    free(text);
    ddb_diff_free(d);
    ddb_mapping_free(m);
}

Test(diff, changed_missing_and_extra_records)
{
    ddb_mapping *m = parse(MAPPING);
    const char *side_a[] = {T("a", "1", ",\"label\":{\"S\":\"x\"}"), T("b", "2", ""),
                            T("c", "3", ",\"score\":{\"N\":\"7\"}")};
    const char *side_b[] = {T("a", "1", ",\"label\":{\"S\":\"y\"}"),
                            T("c", "3", ",\"score\":{\"N\":\"7.00\"}"), T("d", "4", "")};
    ddb_diff *d = new_diff(m, m, 0, 0);
    const ddb_diff_stats *st;
    ddb_buf json = DDB_BUF_INIT;
    char *text;
    feed(d, 0, side_a, 3);
    feed(d, 1, side_b, 3);
    text = compare(d);
    st = ddb_diff_get_stats(d);
    cr_assert_eq(st->total.equal, 1);
    cr_assert_eq(st->total.different, 1);
    cr_assert_eq(st->total.only_a, 1);
    cr_assert_eq(st->total.only_b, 1);
    cr_assert_not_null(strstr(text,
                              "{\"entity\":\"Thing\",\"key\":{\"id\":{\"S\":\"a\"},\"n\":{"
                              "\"N\":\"1\"}},\"diff\":\"different\",\"attributes\":{\"label\":"
                              "{\"a\":{\"S\":\"x\"},\"b\":{\"S\":\"y\"}}}}\n"),
                       "%s", text);
    cr_assert_not_null(strstr(text, "\"key\":{\"id\":{\"S\":\"b\"},\"n\":{\"N\":\"2\"}},\"diff\":"
                                    "\"only_in_a\",\"a\":{"),
                       "%s", text);
    cr_assert_not_null(strstr(text, "\"diff\":\"only_in_b\",\"b\":{\"id\":{\"S\":\"d\"}"), "%s",
                       text);
    ddb_diff_stats_json(&json, d);
    cr_assert_not_null(
        strstr(json.ptr, "\"equal\":1,\"different\":1,\"only_in_a\":1,\"only_in_b\":1"), "%s",
        json.ptr);
    cr_assert_not_null(strstr(json.ptr, "\"entities\":{\"Thing\":{\"equal\":1,\"different\":1"),
                       "%s", json.ptr);
    ddb_buf_dispose(&json);
    free(text);
    ddb_diff_free(d);
    ddb_mapping_free(m);
}

Test(diff, a_repeated_key_counts_once_and_the_last_one_is_compared)
{
    ddb_mapping *m = parse(MAPPING);
    const char *side_a[] = {T("a", "1", ",\"label\":{\"S\":\"old\"}"),
                            T("a", "1", ",\"label\":{\"S\":\"new\"}")};
    const char *side_b[] = {T("a", "1", ",\"label\":{\"S\":\"new\"}")};
    ddb_diff *d = new_diff(m, m, 0, 0);
    char *text;
    feed(d, 0, side_a, 2);
    feed(d, 1, side_b, 1);
    text = compare(d);
    cr_assert_eq(ddb_diff_get_stats(d)->total.equal, 1);
    cr_assert_eq(ddb_diff_get_stats(d)->total.dup_a, 1);
    free(text);
    ddb_diff_free(d);
    ddb_mapping_free(m);
}

Test(diff, items_that_do_not_decode_are_refused_and_unmatched_ones_compared_as_items)
{
    ddb_mapping *m = parse(MAPPING);
    const char *side_a[] = {"{\"pk\":{\"S\":\"other\"},\"sk\":{\"N\":\"1\"}}",
                            T("a", "1", ",\"score\":{\"S\":\"not a number\"}")};
    const char *side_b[] = {"{\"pk\":{\"S\":\"other\"},\"sk\":{\"N\":\"1.0\"}}"};
    ddb_diff *d = new_diff(m, m, 0, 0);
    const ddb_diff_stats *st;
    char *text;
    feed(d, 0, side_a, 2);
    cr_assert_eq(rejected, 1);
    cr_assert_not_null(strstr(last_reason, "score"), "%s", last_reason);
    feed(d, 1, side_b, 1);
    text = compare(d);
    st = ddb_diff_get_stats(d);
    cr_assert_eq(st->total.equal, 1);
    cr_assert_str_eq(st->rows[1].name, "(unmatched)");
    cr_assert_eq(st->rows[1].c.equal, 1);
    free(text);
    ddb_diff_free(d);
    ddb_mapping_free(m);
}

Test(diff, without_a_mapping_items_are_matched_by_their_key_attributes)
{
    const char *side_a[] = {"{\"pk\":{\"S\":\"x\"},\"sk\":{\"S\":\"1\"},\"v\":{\"N\":\"5\"}}",
                            "{\"pk\":{\"S\":\"y\"},\"sk\":{\"S\":\"1\"}}"};
    const char *side_b[] = {"{\"sk\":{\"S\":\"1\"},\"v\":{\"N\":\"5.0\"},\"pk\":{\"S\":\"x\"}}",
                            "{\"pk\":{\"S\":\"z\"}}"};
    ddb_diff *d = new_diff(NULL, NULL, 0, 0);
    char *text;
    feed(d, 0, side_a, 2);
    feed(d, 1, side_b, 2);
    cr_assert_eq(rejected, 1, "the item without its sort key is refused");
    cr_assert_not_null(strstr(last_reason, "sk"), "%s", last_reason);
    text = compare(d);
    cr_assert_eq(ddb_diff_get_stats(d)->total.equal, 1);
    cr_assert_eq(ddb_diff_get_stats(d)->total.only_a, 1);
    cr_assert_str_eq(ddb_diff_get_stats(d)->rows[ddb_diff_get_stats(d)->n_rows - 1].name,
                     "(items)");
    free(text);
    ddb_diff_free(d);
}

/* Items of favorites.json against the same records re-keyed with
 * favorites-v2.json: every record equal, whatever the two layouts are. */
Test(diff, a_re_keyed_side_compares_equal_through_its_own_mapping)
{
    ddb_mapping *v1 = tu_load_format("favorites.json"), *v2 = tu_load_format("favorites-v2.json");
    uint64_t counts[64];
    ddb_generator *g;
    ddb_error err;
    ddb_diff *d = new_diff(v1, v2, 0, 0);
    ddb_output *oa, *ob;
    uint64_t total = 0, seq = 0;
    char *text;
    for (size_t e = 0; e < v1->n_entities; e++)
        total += counts[e] = 30;
    cr_assert_eq(ddb_generator_new(&g, v1, counts, 4, &err), 0, "%s", err.message);
    cr_assert_eq(ddb_diff_side(d, 0, &oa, &err), 0);
    cr_assert_eq(ddb_diff_side(d, 1, &ob, &err), 0);
    oa->reject = ob->reject = on_reject;
    for (size_t e = 0; e < v1->n_entities; e++) {
        const ddb_entity *e2 = ddb_mapping_entity(v2, v1->entities[e].name);
        cr_assert_not_null(e2, "favorites-v2.json lacks %s", v1->entities[e].name);
        for (uint64_t j = 0; j < counts[e]; j++) {
            ddb_map rec;
            ddb_item i1, i2;
            ddb_record origin;
            memset(&origin, 0, sizeof(origin));
            origin.seq = ++seq;
            ddb_arena_reset(a);
            cr_assert_eq(ddb_generator_record(g, e, j, &rec, &i1, a, &err), 0, "%s", err.message);
            cr_assert_eq(ddb_transform_encode(&i2, v2, e2, &rec, 1, a, &err), 0, "%s", err.message);
            cr_assert_eq(oa->vt->put(oa, -1, DDB_REC_PUT, &i1, 0, &origin, &err), 0);
            cr_assert_eq(ob->vt->put(ob, -1, DDB_REC_PUT, &i2, 0, &origin, &err), 0);
        }
    }
    cr_assert_eq(oa->vt->finish(oa, &err), 0);
    cr_assert_eq(ob->vt->finish(ob, &err), 0);
    text = compare(d);
    cr_assert_eq(rejected, 0, "%s", last_reason);
    cr_assert_str_eq(text, "");
    cr_assert_eq(ddb_diff_get_stats(d)->total.equal, total);
    free(text);
    ddb_diff_free(d);
    ddb_generator_free(g);
    ddb_mapping_free(v1);
    ddb_mapping_free(v2);
}

/* 300 records a side, one in ten changed on side B. */
static void feed_many(ddb_diff *d)
{
    static char text[600][128];
    const char *side_a[300], *side_b[300];
    for (int i = 0; i < 300; i++) {
        snprintf(text[i], 128, "{\"pk\":{\"S\":\"T#k%d\"},\"sk\":{\"N\":\"%d\"}}", i, i);
        snprintf(text[300 + i], 128, "{\"pk\":{\"S\":\"T#k%d\"},\"sk\":{\"N\":\"%d\"}%s}", i, i,
                 i % 10 ? "" : ",\"label\":{\"S\":\"changed\"}");
        side_a[i] = text[i];
        side_b[i] = text[300 + i];
    }
    feed(d, 0, side_a, 300);
    feed(d, 1, side_b, 300);
}

Test(diff, a_sample_takes_the_same_keys_on_both_sides)
{
    ddb_mapping *m = parse(MAPPING);
    ddb_diff *d = new_diff(m, m, 0.3, 0);
    const ddb_diff_stats *st;
    char *text;
    feed_many(d);
    text = compare(d);
    st = ddb_diff_get_stats(d);
    cr_assert_eq(st->kept[0], st->kept[1]);
    cr_assert(st->kept[0] > 50 && st->kept[0] < 130, "%llu of 300 kept",
              (unsigned long long)st->kept[0]);
    cr_assert_eq(st->kept[0] + st->skipped[0], 300);
    cr_assert_eq(st->total.only_a + st->total.only_b, 0, "a sampled key missing on one side");
    cr_assert_eq(st->total.equal + st->total.different, st->kept[0]);
    cr_assert_gt(st->total.different, 0);
    free(text);
    ddb_diff_free(d);
    ddb_mapping_free(m);
}

Test(diff, buckets_too_large_for_memory_are_split_with_the_same_result)
{
    ddb_mapping *m = parse(MAPPING);
    ddb_diff *whole = new_diff(m, m, 0, 0), *split = new_diff(m, m, 0, 2048);
    char *t1, *t2;
    feed_many(whole);
    feed_many(split);
    t1 = compare(whole);
    t2 = compare(split);
    cr_assert_gt(ddb_diff_get_stats(split)->levels, 1);
    cr_assert_eq(ddb_diff_get_stats(whole)->levels, 1);
    cr_assert_eq(ddb_diff_get_stats(split)->total.different, 30);
    cr_assert_eq(ddb_diff_get_stats(split)->total.equal, 270);
    cr_assert_eq(ddb_diff_get_stats(whole)->total.different, 30);
    /* the same differences (the order follows the buckets) */
    {
        size_t lines = 0;
        for (char *p = t1, *nl; (nl = strchr(p, '\n')) != NULL; p = nl + 1, lines++) {
            *nl = '\0';
            cr_assert_not_null(strstr(t2, p), "%s", p);
        }
        cr_assert_eq(lines, 30);
    }
    free(t1);
    free(t2);
    ddb_diff_free(whole);
    ddb_diff_free(split);
    ddb_mapping_free(m);
}

Test(diff, each_difference_is_told_with_side_b_item_key)
{
    ddb_mapping *m = parse(MAPPING);
    const char *side_a[] = {T("a", "1", ",\"label\":{\"S\":\"x\"}"), T("b", "2", ""),
                            T("c", "3", "")};
    const char *side_b[] = {T("a", "1", ",\"label\":{\"S\":\"y\"}"), T("c", "3.0", ""),
                            T("d", "4", ""), "{\"pk\":{\"S\":\"other\"},\"sk\":{\"N\":\"9\"}}"};
    ddb_diff *d;
    char *text;
    told = 1;
    d = new_diff(m, m, 0, 0);
    feed(d, 0, side_a, 3);
    feed(d, 1, side_b, 4);
    text = compare(d);
    cr_assert_not_null(heard.ptr);
    cr_assert_not_null(
        strstr(heard.ptr, "different Thing a={\"id\":{\"S\":\"a\"},\"label\":{\"S\":\"x\"},\"n\":"
                          "{\"N\":\"1\"}} b={\"id\":{\"S\":\"a\"},\"label\":{\"S\":\"y\"},\"n\":"
                          "{\"N\":\"1\"}} key={\"pk\":{\"S\":\"T#a\"},\"sk\":{\"N\":\"1\"}}\n"),
        "%s", heard.ptr);
    cr_assert_not_null(strstr(heard.ptr, "only_a Thing a={\"id\":{\"S\":\"b\"},\"n\":{\"N\":\"2\"}}"
                                         " b= key=-\n"),
                       "%s", heard.ptr);
    /* B's key is the item's as stored (its table's attributes), not the record's fields */
    cr_assert_not_null(strstr(heard.ptr, "only_b Thing a= b={\"id\":{\"S\":\"d\"},\"n\":{\"N\":"
                                         "\"4\"}} key={\"pk\":{\"S\":\"T#d\"},\"sk\":{\"N\":\"4\"}}\n"),
                       "%s", heard.ptr);
    cr_assert_not_null(strstr(heard.ptr, "only_b (unmatched) (item) a= b={\"pk\":{\"S\":\"other\"},"
                                         "\"sk\":{\"N\":\"9\"}} key={\"pk\":{\"S\":\"other\"},"
                                         "\"sk\":{\"N\":\"9\"}}\n"),
                       "%s", heard.ptr);
    cr_assert_null(strstr(heard.ptr, "T#c"), "equal records are not told: %s", heard.ptr);
    /* the differences file is what it is without verdicts */
    cr_assert_not_null(strstr(text, "\"diff\":\"only_in_b\",\"b\":{\"id\":{\"S\":\"d\"}"), "%s",
                       text);
    free(text);
    ddb_diff_free(d);
    ddb_mapping_free(m);
}

Test(diff, side_b_item_keys_survive_buckets_split_to_fit_in_memory)
{
    ddb_mapping *m = parse(MAPPING);
    ddb_diff *d;
    size_t lines = 0;
    told = 1;
    d = new_diff(m, m, 0, 2048);
    feed_many(d);
    free(compare(d));
    cr_assert_gt(ddb_diff_get_stats(d)->levels, 1);
    cr_assert_not_null(heard.ptr);
    for (int i = 0; i < 300; i += 10) {
        char want[160];
        snprintf(want, sizeof(want), "key={\"pk\":{\"S\":\"T#k%d\"},\"sk\":{\"N\":\"%d\"}}\n", i, i);
        cr_assert_not_null(strstr(heard.ptr, want), "%s", want);
    }
    for (const char *p = heard.ptr; (p = strchr(p, '\n')) != NULL; p++)
        lines++;
    cr_assert_eq(lines, 30);
    ddb_diff_free(d);
    ddb_mapping_free(m);
}

Test(diff, a_key_repeated_on_side_b_is_told_for_all_but_the_last)
{
    ddb_mapping *m = parse(MAPPING);
    const char *side_a[] = {T("a", "1", ",\"label\":{\"S\":\"new\"}")};
    const char *side_b[] = {T("a", "1", ",\"label\":{\"S\":\"old\"}"),
                            T("a", "1.0", ",\"label\":{\"S\":\"new\"}")};
    ddb_diff *d;
    told = 1;
    d = new_diff(m, m, 0, 0);
    feed(d, 0, side_a, 1);
    feed(d, 1, side_b, 2);
    free(compare(d));
    cr_assert_eq(ddb_diff_get_stats(d)->total.equal, 1);
    cr_assert_eq(ddb_diff_get_stats(d)->total.dup_b, 1);
    cr_assert_not_null(heard.ptr);
    cr_assert_str_eq(heard.ptr, "repeated_b Thing a= b={\"id\":{\"S\":\"a\"},\"label\":{\"S\":\"old\"},"
                                "\"n\":{\"N\":\"1\"}} key={\"pk\":{\"S\":\"T#a\"},\"sk\":{\"N\":\"1\"}}\n");
    ddb_diff_free(d);
    ddb_mapping_free(m);
}
