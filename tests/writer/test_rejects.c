/*
 * test_rejects.c — the rejects file: one JSON line per rejected input with
 * source, line, offset, entity, reason and the original text (base64 when it
 * is not UTF-8), written atomically and only when something was rejected.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/codec.h"
#include "ddbpipe/rejects.h"
#include "support/files.h"
#include "support/readers.h"
#include "support/testutil.h"

static char tdir[64];
static char rpath[128];
static ddb_arena *a;

static void setup(void)
{
    tu_mkdtemp(tdir, sizeof(tdir), "/tmp/ddb-rejects-XXXXXX");
    snprintf(rpath, sizeof(rpath), "%s/_rejects.ndjson", tdir);
    cr_assert_eq(ddb_arena_new(&a, 0), 0);
}

static void teardown(void)
{
    ddb_arena_free(a);
    tu_rmtree(tdir);
}

TestSuite(rejects, .init = setup, .fini = teardown);

/* The lines of the rejects file (arena copies), as plain-JSON maps. */
static size_t read_lines(ddb_map *out, size_t max)
{
    FILE *f = fopen(rpath, "rb");
    char line[8192];
    size_t n = 0;
    cr_assert_not_null(f, "%s", rpath);
    while (fgets(line, sizeof(line), f) != NULL) {
        size_t len = strlen(line);
        cr_assert_gt(len, 0);
        cr_assert_eq(line[len - 1], '\n', "every line ends with a newline");
        line[len - 1] = '\0';
        cr_assert_lt(n, max);
        out[n++] = tu_plain(a, line);
    }
    fclose(f);
    return n;
}

static ddb_record bad_record(const char *raw, size_t raw_len)
{
    ddb_record rec;
    memset(&rec, 0, sizeof(rec));
    rec.kind = DDB_REC_BAD;
    rec.source = "in/dump.json";
    rec.line = 7;
    rec.offset = 1234;
    rec.raw = raw;
    rec.raw_len = raw_len;
    rec.reason = "byte 9: unexpected '}'";
    return rec;
}

Test(rejects, line_has_every_field)
{
    ddb_rejects *r = NULL;
    ddb_error err;
    const char *raw = "{\"pk\": }\t\"quoted\" \\ é";
    ddb_record rec = bad_record(raw, strlen(raw));
    ddb_map lines[4];

    cr_assert_eq(ddb_rejects_new(&r, rpath, &err), 0);
    cr_assert_str_eq(ddb_rejects_path(r), rpath);
    cr_assert_eq(ddb_rejects_write(r, &rec, "Tag", rec.reason, &err), 0, "%s", err.message);
    cr_assert_eq(ddb_rejects_count(r), 1);
    cr_assert(!tu_exists(rpath), "written atomically: nothing before finish");
    cr_assert_eq(ddb_rejects_finish(r, &err), 0, "%s", err.message);
    cr_assert(tu_exists(rpath));
    ddb_rejects_free(r);

    cr_assert_eq(read_lines(lines, 4), 1);
    tu_expect_bytes(&lines[0], "source", DDB_TYPE_S, "in/dump.json", 12);
    tu_expect_n(&lines[0], "line", "7");
    tu_expect_n(&lines[0], "offset", "1234");
    tu_expect_bytes(&lines[0], "entity", DDB_TYPE_S, "Tag", 3);
    tu_expect_bytes(&lines[0], "reason", DDB_TYPE_S, "byte 9: unexpected '}'", 22);
    tu_expect_bytes(&lines[0], "text", DDB_TYPE_S, raw, strlen(raw));
    cr_assert_null(ddb_map_getz(&lines[0], "text_base64"));
}

Test(rejects, non_utf8_text_as_base64)
{
    ddb_rejects *r = NULL;
    ddb_error err;
    static const char raw[] = {'\xff', '\xfe', 'a', 'b', '\0', 'c', '\xc3'};
    ddb_record rec = bad_record(raw, sizeof(raw));
    ddb_map lines[4];
    const ddb_value *b64;
    unsigned char decoded[64];
    size_t dlen = 0, bad_at = 0;

    cr_assert_eq(ddb_rejects_new(&r, rpath, &err), 0);
    cr_assert_eq(ddb_rejects_write(r, &rec, NULL, "not UTF-8", &err), 0, "%s", err.message);
    cr_assert_eq(ddb_rejects_finish(r, &err), 0);
    ddb_rejects_free(r);

    cr_assert_eq(read_lines(lines, 4), 1);
    cr_assert_null(ddb_map_getz(&lines[0], "text"));
    cr_assert_null(ddb_map_getz(&lines[0], "entity"), "no entity was given");
    b64 = ddb_map_getz(&lines[0], "text_base64");
    cr_assert_not_null(b64);
    cr_assert_eq(b64->type, DDB_TYPE_S);
    cr_assert_eq(ddb_base64_decode(decoded, &dlen, b64->u.s.ptr, b64->u.s.len, &bad_at), 0);
    cr_assert_eq(dlen, sizeof(raw));
    cr_assert_eq(memcmp(decoded, raw, sizeof(raw)), 0);
}

/* A file name or a reason that is not UTF-8 (a message quoting bad input)
 * still gives a JSON line: the stray bytes become U+FFFD. */
Test(rejects, names_and_reasons_that_are_not_utf8_stay_json)
{
    ddb_rejects *r = NULL;
    ddb_error err;
    ddb_record rec = bad_record("x", 1);
    ddb_map lines[4];
    const ddb_value *v;
    rec.source = "in\xfe.json";
    cr_assert_eq(ddb_rejects_new(&r, rpath, &err), 0);
    cr_assert_eq(ddb_rejects_write(r, &rec, "T\xc3", "bad escape '\\\xe2'", &err), 0);
    cr_assert_eq(ddb_rejects_finish(r, &err), 0);
    ddb_rejects_free(r);
    cr_assert_eq(read_lines(lines, 4), 1, "the line must be JSON");
    v = ddb_map_getz(&lines[0], "source");
    cr_assert_eq(v->u.s.len, strlen("in\xef\xbf\xbd.json"));
    cr_assert_eq(memcmp(v->u.s.ptr, "in\xef\xbf\xbd.json", v->u.s.len), 0);
    v = ddb_map_getz(&lines[0], "reason");
    cr_assert_eq(memcmp(v->u.s.ptr, "bad escape '\\\xef\xbf\xbd'", v->u.s.len), 0);
    v = ddb_map_getz(&lines[0], "entity");
    cr_assert_eq(memcmp(v->u.s.ptr, "T\xef\xbf\xbd", v->u.s.len), 0);
}

Test(rejects, several_lines_and_count)
{
    ddb_rejects *r = NULL;
    ddb_error err;
    ddb_record rec = bad_record("x", 1);
    ddb_map lines[8];
    cr_assert_eq(ddb_rejects_new(&r, rpath, &err), 0);
    for (int i = 0; i < 3; i++) {
        rec.line = (uint64_t)i + 1;
        cr_assert_eq(ddb_rejects_write(r, &rec, "Tag", "why", &err), 0);
    }
    cr_assert_eq(ddb_rejects_count(r), 3);
    cr_assert_eq(ddb_rejects_finish(r, &err), 0);
    ddb_rejects_free(r);
    cr_assert_eq(read_lines(lines, 8), 3);
    tu_expect_n(&lines[2], "line", "3");
}

Test(rejects, item_without_text)
{
    ddb_rejects *r = NULL;
    ddb_error err;
    ddb_record rec;
    ddb_map lines[4];
    const ddb_value *item;
    memset(&rec, 0, sizeof(rec));
    rec.kind = DDB_REC_PUT;
    rec.source = NULL; /* no name: "-" */
    rec.line = 0;      /* unknown: no "line" */
    rec.offset = 99;
    rec.item = tu_item(a, "{\"pk\":{\"S\":\"Tag#u1\"},\"n\":{\"N\":\"1\"}}");
    cr_assert_eq(ddb_rejects_new(&r, rpath, &err), 0);
    cr_assert_eq(ddb_rejects_write(r, &rec, "Tag", "bad key", &err), 0);
    rec.kind = DDB_REC_DELETE;
    rec.item = tu_item(a, "{\"pk\":{\"S\":\"Tag#u2\"}}");
    cr_assert_eq(ddb_rejects_write(r, &rec, NULL, "bad key", &err), 0);
    cr_assert_eq(ddb_rejects_finish(r, &err), 0);
    ddb_rejects_free(r);

    cr_assert_eq(read_lines(lines, 4), 2);
    tu_expect_bytes(&lines[0], "source", DDB_TYPE_S, "-", 1);
    cr_assert_null(ddb_map_getz(&lines[0], "line"));
    tu_expect_n(&lines[0], "offset", "99");
    item = ddb_map_getz(&lines[0], "item");
    cr_assert_not_null(item);
    cr_assert_eq(item->type, DDB_TYPE_M);
    {
        /* the item in DynamoDB JSON: {"pk":{"S":"Tag#u1"},...} */
        const ddb_value *pk = ddb_map_getz(&item->u.m, "pk");
        cr_assert_not_null(pk);
        cr_assert_eq(pk->type, DDB_TYPE_M);
        tu_expect_bytes(&pk->u.m, "S", DDB_TYPE_S, "Tag#u1", 6);
    }
    cr_assert_not_null(ddb_map_getz(&lines[1], "keys"));
    cr_assert_null(ddb_map_getz(&lines[1], "item"));
}

Test(rejects, nothing_rejected_nothing_created)
{
    ddb_rejects *r = NULL;
    ddb_error err;
    cr_assert_eq(ddb_rejects_new(&r, rpath, &err), 0);
    cr_assert_eq(ddb_rejects_count(r), 0);
    cr_assert_eq(ddb_rejects_finish(r, &err), 0);
    ddb_rejects_free(r);
    cr_assert(!tu_exists(rpath));
    {
        /* and the folder holds no temporary file either */
        char cmd[200];
        snprintf(cmd, sizeof(cmd), "test -z \"$(ls -A '%s')\"", tdir);
        cr_assert_eq(system(cmd), 0);
    }
}

Test(rejects, free_without_finish_removes_the_file)
{
    ddb_rejects *r = NULL;
    ddb_error err;
    ddb_record rec = bad_record("x", 1);
    char cmd[200];
    cr_assert_eq(ddb_rejects_new(&r, rpath, &err), 0);
    cr_assert_eq(ddb_rejects_write(r, &rec, NULL, "why", &err), 0);
    ddb_rejects_free(r);
    cr_assert(!tu_exists(rpath));
    snprintf(cmd, sizeof(cmd), "test -z \"$(ls -A '%s')\"", tdir);
    cr_assert_eq(system(cmd), 0);
}

Test(rejects, late_reject_info)
{
    ddb_rejects *r = NULL;
    ddb_error err;
    ddb_reject_info info;
    ddb_map lines[4];
    const ddb_value *keys;
    const char *json = "{\"pk\":{\"S\":\"Tag#u1\"}}";
    memset(&info, 0, sizeof(info));
    info.source = "Tag.csv";
    info.line = 12;
    info.offset = 345;
    info.reason = "unprocessed after 10 attempts";
    info.item_json = json;
    info.item_len = strlen(json);
    info.is_delete = 1;
    cr_assert_eq(ddb_rejects_new(&r, rpath, &err), 0);
    cr_assert_eq(ddb_rejects_write_info(r, &info, "Tag", &err), 0, "%s", err.message);
    cr_assert_eq(ddb_rejects_count(r), 1);
    cr_assert_eq(ddb_rejects_finish(r, &err), 0);
    ddb_rejects_free(r);
    cr_assert_eq(read_lines(lines, 4), 1);
    tu_expect_bytes(&lines[0], "source", DDB_TYPE_S, "Tag.csv", 7);
    tu_expect_n(&lines[0], "line", "12");
    tu_expect_n(&lines[0], "offset", "345");
    tu_expect_bytes(&lines[0], "entity", DDB_TYPE_S, "Tag", 3);
    tu_expect_bytes(&lines[0], "reason", DDB_TYPE_S, info.reason, strlen(info.reason));
    keys = ddb_map_getz(&lines[0], "keys");
    cr_assert_not_null(keys);
    cr_assert_eq(keys->type, DDB_TYPE_M);
    cr_assert_not_null(ddb_map_getz(&keys->u.m, "pk"));
}

/* A .gz path (the unmatched file beside gzip outputs) is written compressed. */
Test(rejects, gz_path_is_compressed)
{
    char gz[160], cmd[400];
    ddb_rejects *r = NULL;
    ddb_error err;
    snprintf(gz, sizeof(gz), "%s/_unmatched.ndjson.gz", tdir);
    cr_assert_eq(ddb_rejects_new(&r, gz, &err), 0);
    cr_assert_eq(ddb_rejects_append(r, "{\"Item\":{}}\n", 12, 1, &err), 0, "%s", err.message);
    cr_assert_eq(ddb_rejects_finish(r, &err), 0, "%s", err.message);
    ddb_rejects_free(r);
    snprintf(cmd, sizeof(cmd), "test \"$(gzip -dc '%s')\" = '{\"Item\":{}}'", gz);
    cr_assert_eq(system(cmd), 0, "not the gzip of the line");
}

/* A clean run leaves no rejects file, and none from an earlier run at the
 * path to be taken for its own. */
Test(rejects, nothing_rejected_removes_an_earlier_file)
{
    ddb_rejects *r = NULL;
    ddb_error err;
    FILE *f = fopen(rpath, "wb");
    cr_assert_not_null(f);
    fputs("{\"reason\":\"from yesterday\"}\n", f);
    fclose(f);
    cr_assert_eq(ddb_rejects_new(&r, rpath, &err), 0, "%s", err.message);
    cr_assert_eq(ddb_rejects_finish(r, &err), 0, "%s", err.message);
    ddb_rejects_free(r);
    cr_assert_not(tu_exists(rpath));
}

/* The folder is made with the first line (no empty run folders), but a path
 * that could never be written fails at once. */
Test(rejects, folder_made_with_the_first_line)
{
    char deep[200], dir[160], blocker[160];
    ddb_rejects *r = NULL;
    ddb_error err;
    snprintf(dir, sizeof(dir), "%s/runs/t-1", tdir);
    snprintf(deep, sizeof(deep), "%s/rejects.ndjson", dir);
    cr_assert_eq(ddb_rejects_new(&r, deep, &err), 0, "%s", err.message);
    cr_assert_not(tu_exists(dir));
    cr_assert_eq(ddb_rejects_append(r, "{}\n", 3, 1, &err), 0, "%s", err.message);
    cr_assert_eq(ddb_rejects_finish(r, &err), 0, "%s", err.message);
    ddb_rejects_free(r);
    cr_assert(tu_exists(deep));

    snprintf(blocker, sizeof(blocker), "%s/file", tdir);
    tu_put_file(tdir, "file", "x");
    snprintf(deep, sizeof(deep), "%s/sub/rejects.ndjson", blocker);
    cr_assert_eq(ddb_rejects_new(&r, deep, &err), DDB_EIO);
    cr_assert(strstr(err.message, "is not a folder"), "%s", err.message);
}
