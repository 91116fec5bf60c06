/* ddb_json_parse_item_prefix: an item read where it lies in a longer text
 * (a Scan answer's Items), which must say exactly where the item ended,
 * whatever its strings hold, and refuse an item cut short, whether the
 * parser reads it or a skeleton it learned. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "ddbpipe/json.h"

extern int ddb_json_skeletons;

static ddb_json_parser *p;
static ddb_arena *a;

static void setup(void)
{
    cr_assert_eq(ddb_json_parser_new(&p), 0);
    cr_assert_eq(ddb_arena_new(&a, 0), 0);
}

static void teardown(void)
{
    ddb_json_parser_free(p);
    ddb_arena_free(a);
    ddb_json_skeletons = 1;
}

TestSuite(item_prefix, .init = setup, .fini = teardown);

/* Items whose ends a naive look would miss: braces and quotes in strings,
 * escapes, nesting, sets and binaries; and items a skeleton learns (S and N
 * only). */
static const char *const items[] = {
    "{\"pk\":{\"S\":\"a\"},\"n\":{\"N\":\"1\"}}",
    "{\"pk\":{\"S\":\"b}]\"},\"n\":{\"N\":\"-2.5E+3\"}}",
    "{\"pk\":{\"S\":\"c\\\"}\\\\\"},\"n\":{\"N\":\"3\"}}",
    /* one literal: clang takes two in an array for a missing comma */
    "{\"m\":{\"M\":{\"in\":{\"M\":{\"deep\":{\"S\":\"}}}\"},\"l\":{\"L\":[{\"M\":{}},{\"L\":[]}]}}}}}}",
    "{\"s\":{\"SS\":[\"x\\\"]\",\"{y\"]},\"ns\":{\"NS\":[\"1\",\"2\"]},\"bs\":{\"BS\":[\"AQ==\"]}}",
    "{\"b\":{\"B\":\"AAEC/w==\"},\"t\":{\"BOOL\":true},\"z\":{\"NULL\":true}}",
    " \n{ \"sp\" : { \"S\" : \"\\u007d\" } }",
    "{}",
};
#define N_ITEMS (sizeof(items) / sizeof(items[0]))

/* The item as DynamoDB JSON, and its item text. */
static void describe(char *out, size_t cap, const ddb_map *m)
{
    ddb_buf b = DDB_BUF_INIT;
    ddb_str t = ddb_json_parser_item_text(p);
    cr_assert_eq(ddb_json_put_typed_map(&b, m), 0);
    snprintf(out, cap, "%s | %.*s", b.ptr ? b.ptr : "", (int)t.len, t.ptr ? t.ptr : "");
    ddb_buf_dispose(&b);
}

/* Reads every item of text (items one after another, separated by sep)
 * and checks each against the item read alone as a line. */
static void read_all(const char *sep)
{
    char text[4096] = "", alone[1024], prefixed[1024];
    size_t at = 0, len;
    ddb_error err;

    for (size_t k = 0; k < N_ITEMS; k++)
        snprintf(text + strlen(text), sizeof(text) - strlen(text), "%s%s", k ? sep : "", items[k]);
    len = strlen(text);
    for (size_t k = 0; k < N_ITEMS; k++) {
        ddb_map m, line;
        size_t used = 0, n = strlen(items[k]);
        ddb_error_clear(&err);
        cr_assert_eq(ddb_json_parse_item_prefix(p, &m, &used, text + at, len - at, a, &err), 0,
                     "item %zu: %s", k, err.message);
        cr_assert_eq(used, n, "item %zu ends at %zu, not %zu", k, used, n);
        describe(prefixed, sizeof(prefixed), &m);
        cr_assert_eq(ddb_json_parse_line(p, DDB_JSON_LINE_BARE, &line, NULL, items[k], n, a, &err),
                     0);
        describe(alone, sizeof(alone), &line);
        cr_assert_str_eq(prefixed, alone, "item %zu", k);
        at += used + strlen(sep);
    }
}

Test(item_prefix, each_item_ends_where_it_closes)
{
    read_all(",");
    read_all(" ,\n");
    read_all("]}"); /* what follows is not read */
}

Test(item_prefix, a_skeleton_ends_the_item_at_its_close_too)
{
    static const char *const alike[] = {
        "{\"pk\":{\"S\":\"one\"},\"n\":{\"N\":\"1\"}}",
        "{\"pk\":{\"S\":\"t}w\\\"o\"},\"n\":{\"N\":\"22\"}}",
        "{\"pk\":{\"S\":\"three\"},\"n\":{\"N\":\"333\"}}",
    };
    char text[512] = "";
    size_t len;

    for (size_t k = 0; k < 3; k++)
        snprintf(text + strlen(text), sizeof(text) - strlen(text), "%s,", alike[k]);
    text[strlen(text) - 1] = ']'; /* the end of the Items */
    len = strlen(text);
    for (int round = 0; round < 3; round++) { /* the later rounds by the skeleton */
        size_t at = 0;
        for (size_t k = 0; k < 3; k++) {
            ddb_map m;
            size_t used = 0;
            ddb_error err;
            cr_assert_eq(ddb_json_parse_item_prefix(p, &m, &used, text + at, len - at, a, &err), 0,
                         "%s", err.message);
            cr_assert_eq(used, strlen(alike[k]), "round %d item %zu: %zu", round, k, used);
            cr_assert_eq(m.count, 2);
            if (round > 0) /* read by the skeleton, which gives the names' id */
                cr_assert_neq(ddb_json_parser_names_id(p), 0, "round %d item %zu", round, k);
            at += used + 1;
        }
    }
}

/* Every cut of every item is refused, by the parser and after a skeleton
 * learned its whole form. */
static void cuts_refused(void)
{
    for (size_t k = 0; k < N_ITEMS; k++) {
        size_t n = strlen(items[k]), used;
        char cut[1024];
        ddb_map m;
        ddb_error err;
        cr_assert_eq(ddb_json_parse_item_prefix(p, &m, &used, items[k], n, a, &err), 0);
        for (size_t c = 0; c < n; c++) {
            memcpy(cut, items[k], c); /* an exact copy: nothing after the cut to read */
            ddb_error_clear(&err);
            cr_assert_eq(ddb_json_parse_item_prefix(p, &m, &used, cut, c, a, &err), DDB_EINVAL,
                         "item %zu cut at %zu was read (%zu bytes)", k, c, used);
            cr_assert_neq(err.message[0], '\0');
        }
    }
}

Test(item_prefix, a_cut_item_is_refused)
{
    cuts_refused();
}

Test(item_prefix, a_cut_item_is_refused_without_skeletons)
{
    ddb_json_skeletons = 0;
    cuts_refused();
}

Test(item_prefix, the_error_says_what_is_wrong)
{
    const char *cut = "{\"pk\":{\"S\":\"a\"},\"n\":{\"N\":";
    ddb_map m;
    size_t used;
    ddb_error err;
    ddb_error_clear(&err);
    cr_assert_eq(ddb_json_parse_item_prefix(p, &m, &used, cut, strlen(cut), a, &err), DDB_EINVAL);
    cr_assert(strstr(err.message, "end of input") != NULL, "%s", err.message);
    ddb_error_clear(&err);
    cr_assert_eq(ddb_json_parse_item_prefix(p, &m, &used, "[]", 2, a, &err), DDB_EINVAL);
    cr_assert(strstr(err.message, "'{'") != NULL, "%s", err.message);
}
