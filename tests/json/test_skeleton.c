/* Lines of DynamoDB JSON are read by the skeleton of lines read before
 * (json_skeleton.c) when their bytes around the strings are the same. What
 * comes out must be what the parser gives without skeletons, line for line:
 * the item (names, types, bytes), the item's text, or the same error. The
 * lines here are variations of a few learned ones: other values, escapes,
 * bad strings, other names, types, spaces and cuts, and random edits. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/json.h"
#include "json/json_internal.h"

extern int ddb_json_skeletons;

/* The names ids met so far, each with the names of its first item. */
typedef struct named {
    uint64_t id;
    char names[512];
} named;

static named ids[8192];
static size_t n_ids;

/* Every item with an id has the names of the first item with it. */
static void check_names_id(uint64_t id, const ddb_map *m, const char *line)
{
    char names[512] = "";
    if (id == 0)
        return;
    for (size_t i = 0; i < m->count; i++)
        snprintf(names + strlen(names), sizeof(names) - strlen(names), "%.*s|",
                 (int)m->attrs[i].name.len, m->attrs[i].name.ptr);
    for (size_t i = 0; i < n_ids; i++)
        if (ids[i].id == id) {
            cr_assert_str_eq(names, ids[i].names, "names id %llu: %s", (unsigned long long)id,
                             line);
            return;
        }
    cr_assert_lt(n_ids, 8192);
    ids[n_ids].id = id;
    snprintf(ids[n_ids++].names, sizeof(ids[0].names), "%s", names);
}

/* What parsing the line says, as text: the item and its text, or the error. */
static void transcript(ddb_buf *out, ddb_json_parser *p, ddb_json_line_kind kind, const char *line,
                       size_t len, ddb_arena *a)
{
    ddb_map m;
    ddb_error err;
    int rc;
    ddb_error_clear(&err);
    memset(&m, 0, sizeof(m));
    rc = ddb_json_parse_line(p, kind, &m, NULL, line, len, a, &err);
    ddb_buf_printf(out, "rc %d: ", rc);
    if (rc == 0) {
        ddb_str t = ddb_json_parser_item_text(p);
        check_names_id(ddb_json_parser_names_id(p), &m, line);
        ddb_json_put_typed_map(out, &m);
        for (size_t i = 0; i < m.count; i++) /* the types and lengths exactly */
            ddb_buf_printf(out, " %s:%d:%zu", ddb_type_name(m.attrs[i].value.type),
                           (int)m.attrs[i].name.len,
                           m.attrs[i].value.type <= DDB_TYPE_B ? m.attrs[i].value.u.s.len : 0);
        ddb_buf_printf(out, " text@%td+%zu", t.ptr ? t.ptr - line : -1, t.len);
    } else {
        ddb_buf_puts(out, err.message);
    }
    ddb_buf_putc(out, '\n');
}

/* Runs the lines through one parser with skeletons and one without; every
 * line must read the same. Returns the first parser's count of lines read by
 * a skeleton; *off says whether it gave skeletons up. */
static uint64_t same_either_way(ddb_json_line_kind kind, const char *const *lines, size_t n,
                                int *off)
{
    uint64_t hits;
    ddb_json_parser *with, *without;
    ddb_arena *a;
    ddb_buf x = DDB_BUF_INIT, y = DDB_BUF_INIT;
    cr_assert_eq(ddb_json_parser_new(&with), 0);
    cr_assert_eq(ddb_json_parser_new(&without), 0);
    cr_assert_eq(ddb_arena_new(&a, 0), 0);
    for (size_t i = 0; i < n; i++) {
        /* each line in a block of exactly its length: ASan sees a byte read past it */
        size_t len = strlen(lines[i]);
        char *line = malloc(len ? len : 1);
        memcpy(line, lines[i], len);
        ddb_buf_clear(&x);
        ddb_buf_clear(&y);
        ddb_json_skeletons = 1;
        transcript(&x, with, kind, line, len, a);
        ddb_json_skeletons = 0;
        transcript(&y, without, kind, line, len, a);
        free(line);
        ddb_json_skeletons = 1;
        ddb_buf_putc(&x, '\0');
        ddb_buf_putc(&y, '\0');
        cr_assert_str_eq(x.ptr, y.ptr, "line %zu: %s", i, lines[i]);
    }
    ddb_buf_dispose(&x);
    ddb_buf_dispose(&y);
    ddb_arena_free(a);
    hits = with->skel_hits;
    if (off != NULL)
        *off = with->skel_off;
    ddb_json_parser_free(with);
    ddb_json_parser_free(without);
    return hits;
}

#define TAG "{\"Item\":{\"pk\":{\"S\":\"Tag#u1\"},\"sk\":{\"S\":\"t9\"},\"n\":{\"N\":\"12\"}}}"

Test(skeleton, variations_read_as_the_parser_reads_them)
{
    static const char *const lines[] = {
        TAG, /* learned */
        TAG,
        "{\"Item\":{\"pk\":{\"S\":\"Tag#u2-longer-than-sixteen-bytes\"},\"sk\":{\"S\":\"\"},"
        "\"n\":{\"N\":\"-1.5E+3\"}}}",
        /* escapes, decoded into the arena */
        "{\"Item\":{\"pk\":{\"S\":\"a\\\"b\\\\c\\u00e9\\n\"},\"sk\":{\"S\":\"t\"},\"n\":{\"N\":"
        "\"1\"}}}",
        /* UTF-8, good and bad; a raw control character */
        "{\"Item\":{\"pk\":{\"S\":\"\xe6\x97\xa5\xe6\x9c\xac\"},\"sk\":{\"S\":\"t\"},\"n\":{\"N\":"
        "\"1\"}}}",
        "{\"Item\":{\"pk\":{\"S\":\"\xe6\x97\"},\"sk\":{\"S\":\"t\"},\"n\":{\"N\":\"1\"}}}",
        "{\"Item\":{\"pk\":{\"S\":\"a\tb\"},\"sk\":{\"S\":\"t\"},\"n\":{\"N\":\"1\"}}}",
        /* a bad escape, a string never closed */
        "{\"Item\":{\"pk\":{\"S\":\"a\\qb\"},\"sk\":{\"S\":\"t\"},\"n\":{\"N\":\"1\"}}}",
        "{\"Item\":{\"pk\":{\"S\":\"abc",
        /* other types, names, spaces, order; a missing or extra attribute */
        "{\"Item\":{\"pk\":{\"S\":\"x\"},\"sk\":{\"N\":\"9\"},\"n\":{\"N\":\"1\"}}}",
        "{\"Item\":{\"pk\":{\"S\":\"x\"},\"sK\":{\"S\":\"9\"},\"n\":{\"N\":\"1\"}}}",
        "{\"Item\":{\"pk\":{\"S\":\"x\"}, \"sk\":{\"S\":\"9\"},\"n\":{\"N\":\"1\"}}}",
        "{\"Item\":{\"sk\":{\"S\":\"9\"},\"pk\":{\"S\":\"x\"},\"n\":{\"N\":\"1\"}}}",
        "{\"Item\":{\"pk\":{\"S\":\"x\"},\"sk\":{\"S\":\"9\"}}}",
        "{\"Item\":{\"pk\":{\"S\":\"x\"},\"sk\":{\"S\":\"9\"},\"n\":{\"N\":\"1\"},\"b\":{\"BOOL\":"
        "true}}}",
        "{\"Item\":{\"pk\":{\"S\":\"x\"},\"sk\":{\"S\":\"9\"},\"n\":{\"N\":\"1\",\"S\":\"2\"}}}",
        /* whatever follows the item: space is allowed, the rest is not */
        TAG " ",
        TAG "x",
        TAG "}",
        "{\"Item\":{\"pk\":{\"S\":\"x\"},\"sk\":{\"S\":\"9\"},\"n\":{\"N\":\"1\"}}",
        /* a name twice; a value that holds the next literal's bytes */
        "{\"Item\":{\"pk\":{\"S\":\"x\"},\"pk\":{\"S\":\"9\"},\"n\":{\"N\":\"1\"}}}",
        "{\"Item\":{\"pk\":{\"S\":\"x\\\"},\\\"sk\\\":{\\\"S\\\":\\\"\"},\"sk\":{\"S\":\"9\"},"
        "\"n\":{\"N\":\"1\"}}}",
        /* a second shape, then both in turn */
        "{\"Item\":{\"pk\":{\"S\":\"Fav#u1\"},\"sk\":{\"S\":\"d1\"},\"title\":{\"S\":\"T\"}}}",
        TAG,
        "{\"Item\":{\"pk\":{\"S\":\"Fav#u2\"},\"sk\":{\"S\":\"d2\"},\"title\":{\"S\":\"U\"}}}",
        "{\"Item\":{\"pk\":{\"S\":\"Tag#u3\"},\"sk\":{\"S\":\"t3\"},\"n\":{\"N\":\"3\"}}}",
        /* shapes that share their first steps and part after */
        "{\"Item\":{\"pk\":{\"S\":\"Fav#u2\"},\"sk\":{\"S\":\"d2\"},\"title\":{\"S\":\"U\"},"
        "\"url\":{\"S\":\"http://x\"}}}",
        "{\"Item\":{\"pk\":{\"S\":\"Fav#u2\"},\"sk\":{\"S\":\"d2\"},\"title\":{\"S\":\"U\"}}}",
        "{\"Item\":{\"pk\":{\"S\":\"Fav#u2\"},\"sk\":{\"S\":\"d2\"},\"title\":{\"S\":\"U\"},"
        "\"url\":{\"S\":\"http://y\"}}}",
        /* a line begun by one skeleton and ended by another */
        "{\"Item\": {\"pk\":{\"S\":\"x\"},\"q\":{\"S\":\"9\"}}}",
        "{\"Item\": {\"pk\":{\"S\":\"y\"},\"sk\":{\"S\":\"9\"},\"n\":{\"N\":\"1\"}}}",
        "{\"Item\":{\"pk\":{\"S\":\"z\"},\"q\":{\"S\":\"9\"}}}",
        TAG,
        /* an item with no attributes, a map, a list */
        "{\"Item\":{}}",
        "{\"Item\":{\"pk\":{\"S\":\"x\"},\"m\":{\"M\":{\"a\":{\"S\":\"b\"}}}}}",
        "{\"Item\":{\"pk\":{\"S\":\"x\"},\"l\":{\"L\":[{\"S\":\"b\"}]}}}",
        "{\"Item\":{\"pk\":{\"S\":\"y\"},\"m\":{\"M\":{\"a\":{\"S\":\"c\"}}}}}",
    };
    /* at least the lines said to be made of a learned skeleton */
    cr_assert_geq(
        same_either_way(DDB_JSON_LINE_ITEM, lines, sizeof(lines) / sizeof(lines[0]), NULL), 10);
}

Test(skeleton, bare_items_and_kinds_kept_apart)
{
    static const char *const lines[] = {
        "{\"pk\":{\"S\":\"a\"},\"sk\":{\"S\":\"b\"}}",
        "{\"pk\":{\"S\":\"c\"},\"sk\":{\"S\":\"d\"}}",
        " {\"pk\":{\"S\":\"c\"},\"sk\":{\"S\":\"d\"}}",
        "{\"pk\":{\"S\":\"c\"},\"sk\":{\"S\":\"d\"}} ",
        "{\"pk\":{\"S\":\"c\"},\"sk\":{\"S\":\"\\u0000\"}}",
    };
    cr_assert_geq(
        same_either_way(DDB_JSON_LINE_BARE, lines, sizeof(lines) / sizeof(lines[0]), NULL), 2);
}

Test(skeleton, random_edits_read_as_the_parser_reads_them)
{
    /* Each round learns a line, then reads copies of it with one to three
     * bytes replaced, inserted or removed at random places, the bytes drawn
     * from those that matter to JSON. */
    static const char *const bases[] = {
        TAG,
        /* parenthesised: one string each, as clang's -Wstring-concatenation wants it said */
        ("{\"Item\":{\"pk\":{\"S\":\"FavoriteDataTag#wxid_uozfcn5t787yv6#7122207765277428025\"},"
         "\"sk\":{\"S\":\"tag04\"},\"gsiOneSk\":{\"S\":\"1570219089658#7122207765277428025\"},"
         "\"clipTime\":{\"S\":\"1570219089658\"},\"dataType\":{\"S\":\"LINK\"}}}"),
        ("{\"Item\":{\"pk\":{\"S\":\"Tag#wxid\"},\"lsiOneSk\":{\"S\":\"\xe7\xbe\x8e\xe9\xa3\x9f\"},"
         "\"createTime\":{\"N\":\"1630061552447\"}}}"),
    };
    static const char bytes[] = "\"\\{}[]:, \t\nSNabu0\x80\xc3\x01";
    uint32_t x = 12345;
    char **lines = calloc(2000, sizeof(char *));
    size_t n = 0;
    for (int round = 0; round < 200; round++) {
        const char *base = bases[round % 3];
        size_t blen = strlen(base);
        lines[n++] = strdup(base);
        for (int v = 0; v < 9; v++) {
            char *s = malloc(blen + 4);
            size_t len = blen;
            memcpy(s, base, blen);
            for (int e = 0, edits = 1 + v % 3; e < edits; e++) {
                size_t at;
                char b;
                x = x * 1664525u + 1013904223u;
                at = (x >> 8) % (len + 1);
                x = x * 1664525u + 1013904223u;
                b = bytes[(x >> 8) % (sizeof(bytes) - 1)];
                if (v % 3 == 0 && at < len) {
                    s[at] = b;
                } else if (v % 3 == 1) {
                    memmove(s + at + 1, s + at, len - at);
                    s[at] = b;
                    len++;
                } else if (at < len) {
                    memmove(s + at, s + at + 1, len - at - 1);
                    len--;
                }
            }
            s[len] = '\0';
            lines[n++] = s;
        }
    }
    cr_assert_geq(same_either_way(DDB_JSON_LINE_ITEM, (const char *const *)lines, n, NULL), 200);
    for (size_t i = 0; i < n; i++)
        free(lines[i]);
    free(lines);
}

Test(skeleton, many_shapes_give_skeletons_up)
{
    /* Lines of ever new names: after the trial, no skeleton is kept or
     * tried, and the lines still read as the parser reads them. */
    char **lines = calloc(5000, sizeof(char *));
    for (size_t i = 0; i < 5000; i++) {
        lines[i] = malloc(64);
        snprintf(lines[i], 64, "{\"Item\":{\"pk\":{\"S\":\"x\"},\"a%zu\":{\"S\":\"v\"}}}", i);
    }
    int off = 0;
    cr_assert_eq(same_either_way(DDB_JSON_LINE_ITEM, (const char *const *)lines, 5000, &off), 0);
    cr_assert(off);
    for (size_t i = 0; i < 5000; i++)
        free(lines[i]);
    free(lines);
}

Test(skeleton, long_strings_are_not_kept)
{
    /* A skeleton keeps the bytes around the strings only (ASan: no more is
     * written, nothing past them read); lines with other long strings read
     * by it as by the parser. */
    size_t big = 100000;
    char *lines[3];
    for (int i = 0; i < 3; i++) {
        lines[i] = malloc(big + 64);
        sprintf(lines[i], "{\"Item\":{\"pk\":{\"S\":\"");
        memset(lines[i] + strlen(lines[i]), 'a' + i, big);
        sprintf(lines[i] + 20 + big, "\"},\"n\":{\"N\":\"%d\"}}}", i);
    }
    cr_assert_geq(same_either_way(DDB_JSON_LINE_ITEM, (const char *const *)lines, 3, NULL), 2);
    for (int i = 0; i < 3; i++)
        free(lines[i]);
}

Test(skeleton, names_ids_hold_across_parsers_and_replaced_slots)
{
    /* Two parsers meet twelve shapes (more than their slots) in opposite
     * orders, three times: skeletons are replaced and learned again, and
     * every names id either parser gives still means one list of names. */
    ddb_json_parser *p[2];
    ddb_arena *a;
    ddb_buf out = DDB_BUF_INIT;
    char line[128];
    cr_assert_eq(ddb_json_parser_new(&p[0]), 0);
    cr_assert_eq(ddb_json_parser_new(&p[1]), 0);
    cr_assert_eq(ddb_arena_new(&a, 0), 0);
    n_ids = 0;
    for (int round = 0; round < 3; round++)
        for (int shape = 0; shape < 12; shape++)
            for (int w = 0; w < 2; w++) {
                int sh = w ? 11 - shape : shape;
                for (int rep = 0; rep < 3; rep++) {
                    snprintf(line, sizeof(line),
                             "{\"Item\":{\"pk\":{\"S\":\"x%d\"},\"a%d\":{\"S\":\"v%d\"}}}", rep, sh,
                             round);
                    ddb_buf_clear(&out);
                    transcript(&out, p[w], DDB_JSON_LINE_ITEM, line, strlen(line), a);
                }
            }
    cr_assert_gt(n_ids, 12, "ids were given (%zu), more than one per shape", n_ids);
    ddb_buf_dispose(&out);
    ddb_arena_free(a);
    ddb_json_parser_free(p[0]);
    ddb_json_parser_free(p[1]);
}
