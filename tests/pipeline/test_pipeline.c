/*
 * test_pipeline.c — readers -> transformer -> file output: the accounting
 * invariant (read = written + rejected + unmatched), input errors, convert,
 * encode, validate, --types and problem reports.
 */
#include <criterion/criterion.h>

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/client.h"
#include "ddbpipe/clock.h"
#include "ddbpipe/json.h"
#include "ddbpipe/pipeline.h"
#include "support/files.h"
#include "support/outputs.h"
#include "support/testutil.h"

static char tdir[64];
static char odir[128];
static ddb_mapping *fav, *fav2;
static ddb_arena *a;

static void setup(void)
{
    tu_mkdtemp(tdir, sizeof(tdir), "/tmp/ddb-pipeline-XXXXXX");
    snprintf(odir, sizeof(odir), "%s/out", tdir);
    fav = tu_load_format("favorites.json");
    fav2 = tu_load_format("favorites-v2.json");
    cr_assert_eq(ddb_arena_new(&a, 0), 0);
}

static void teardown(void)
{
    ddb_mapping_free(fav);
    ddb_mapping_free(fav2);
    ddb_arena_free(a);
    tu_rmtree(tdir);
}

TestSuite(pipeline, .init = setup, .fini = teardown);

/* ------------------------------------------------------------ helpers */

static size_t count_lines(const char *text)
{
    size_t n = 0;
    for (; *text; text++)
        if (*text == '\n')
            n++;
    return n;
}

/* The items of a DynamoDB JSON ({"Item":..}) file, in the test arena. */
static size_t file_items(const char *path, ddb_map *out, size_t max)
{
    char *text = tu_slurp_in(a, path);
    ddb_json_parser *p = NULL;
    ddb_error err;
    size_t n = 0;
    cr_assert_eq(ddb_json_parser_new(&p), 0);
    for (char *line = text; *line;) {
        char *nl = strchr(line, '\n');
        cr_assert_not_null(nl, "%s: unterminated line", path);
        cr_assert_lt(n, max);
        cr_assert_eq(ddb_json_parse_line(p, DDB_JSON_LINE_ITEM, &out[n], NULL, line,
                                         (size_t)(nl - line), a, &err),
                     0, "%s: %s", path, err.message);
        n++;
        line = nl + 1;
    }
    ddb_json_parser_free(p);
    return n;
}

/* Files under the output folder (temporary ones included). */
static int out_entries(void)
{
    DIR *d = opendir(odir);
    struct dirent *e;
    int n = 0;
    if (d == NULL)
        return 0;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    closedir(d);
    return n;
}

typedef struct reports {
    int n[3];
    int total;
    char msgs[64][600];
} reports;

static void on_report(void *ctx, int severity, const char *msg)
{
    reports *r = ctx;
    cr_assert(severity >= 0 && severity <= 2);
    r->n[severity]++;
    if (r->total < 64)
        snprintf(r->msgs[r->total], sizeof(r->msgs[0]), "%s", msg);
    r->total++;
}

static int reported(const reports *r, const char *needle)
{
    for (int i = 0; i < r->total && i < 64; i++)
        if (strstr(r->msgs[i], needle) != NULL)
            return 1;
    return 0;
}

static void base_opts(ddb_pipeline_opts *po, ddb_mode mode, const char *const *inputs, size_t n,
                      reports *rep)
{
    memset(po, 0, sizeof(*po));
    memset(rep, 0, sizeof(*rep));
    po->mode = mode;
    po->command = mode == DDB_MODE_VALIDATE ? "validate" : "test";
    po->inputs = inputs;
    po->n_inputs = n;
    po->report = on_report;
    po->report_ctx = rep;
}

static void expect_row(const ddb_entity_stats *st, uint64_t read, uint64_t written,
                       uint64_t rejected, uint64_t unmatched)
{
    cr_assert_eq(st->read, st->written + st->rejected + st->unmatched + st->not_done,
                 "%s: read %llu != written %llu + rejected %llu + unmatched %llu + not done %llu",
                 st->name, (unsigned long long)st->read, (unsigned long long)st->written,
                 (unsigned long long)st->rejected, (unsigned long long)st->unmatched,
                 (unsigned long long)st->not_done);
    cr_assert_eq(st->read, read, "%s read %llu", st->name, (unsigned long long)st->read);
    cr_assert_eq(st->written, written, "%s written %llu", st->name,
                 (unsigned long long)st->written);
    cr_assert_eq(st->rejected, rejected, "%s rejected %llu", st->name,
                 (unsigned long long)st->rejected);
    cr_assert_eq(st->unmatched, unmatched, "%s unmatched %llu", st->name,
                 (unsigned long long)st->unmatched);
}

/* ------------------------------------------------------------ items */

#define TAG_ITEM                                                                                   \
    "{\"pk\":{\"S\":\"Tag#u1\"},\"sk\":{\"S\":\"t9\"},\"lsiOneSk\":{\"S\":\"travel\"},"            \
    "\"lsiTwoSk\":{\"S\":\"1600000000000\"},\"lsiThreeSk\":{\"S\":\"1600000500000\"},"             \
    "\"tagName\":{\"S\":\"travel\"},\"createTime\":{\"N\":\"1600000000000\"},"                     \
    "\"lastAccessTime\":{\"N\":\"1600000500000\"}}"

#define TAG_ITEM_U2                                                                                \
    "{\"pk\":{\"S\":\"Tag#u2\"},\"sk\":{\"S\":\"t1\"},\"lsiOneSk\":{\"S\":\"food\"},"              \
    "\"tagName\":{\"S\":\"food\"}}"

/* lsiOneSk disagrees with tagName: the item belongs to Tag but is rejected */
#define TAG_ITEM_CONFLICT                                                                          \
    "{\"pk\":{\"S\":\"Tag#u3\"},\"sk\":{\"S\":\"t1\"},\"lsiOneSk\":{\"S\":\"a\"},"                 \
    "\"tagName\":{\"S\":\"b\"}}"

#define DATA_ITEM                                                                                  \
    "{\"pk\":{\"S\":\"FavoriteData#u1\"},\"sk\":{\"S\":\"d1\"},"                                   \
    "\"gsiOnePk\":{\"S\":\"FavoriteData#u1#image\"},"                                              \
    "\"gsiOneSk\":{\"S\":\"1600000000000#d1\"},\"creatorId\":{\"S\":\"c1\"},"                      \
    "\"title\":{\"S\":\"T\"},\"dataType\":{\"S\":\"IMAGE\"},\"clipTime\":{\"S\":"                  \
    "\"1600000000000\"}}"

#define DATATAG_ITEM                                                                               \
    "{\"pk\":{\"S\":\"FavoriteDataTag#u1#d1\"},\"sk\":{\"S\":\"t9\"},"                             \
    "\"gsiOnePk\":{\"S\":\"FavoriteDataTag#u1#t9\"},\"gsiOneSk\":{\"S\":\"1600000000000#d1\"},"    \
    "\"gsiTwoPk\":{\"S\":\"FavoriteDataTag#u1#t9#image\"},\"gsiTwoSk\":{\"S\":\"1600000000000#"    \
    "d1\"},"                                                                                       \
    "\"dataType\":{\"S\":\"IMAGE\"},\"clipTime\":{\"S\":\"1600000000000\"}}"

#define OTHER_ITEM "{\"pk\":{\"S\":\"Other#1\"},\"sk\":{\"S\":\"x\"},\"v\":{\"N\":\"1\"}}"

/* not a valid DynamoDB item: a number that is not a number */
#define INVALID_ITEM "{\"pk\":{\"S\":\"Tag#u9\"},\"sk\":{\"S\":\"t\"},\"n\":{\"N\":\"abc\"}}"

static const char *dump_text(void)
{
    return "{\"Item\":" TAG_ITEM "}\n"
           "{\"Item\":" DATA_ITEM "}\n"
           "{\"Item\":" DATATAG_ITEM "}\n"
           "{\"Item\":" OTHER_ITEM "}\n"
           "{\"Item\":{\"pk\":\n"
           "{\"Item\":" INVALID_ITEM "}\n"
           "{\"Item\":" TAG_ITEM_CONFLICT "}\n"
           "{\"Item\":" TAG_ITEM_U2 "}\n";
}

/* ------------------------------------------------------------ tests */

Test(pipeline, accounting_invariant_mixed_input)
{
    const char *dump = tu_put_file(tdir, "dump.json", dump_text());
    const char *incr = tu_put_file(
        tdir, "incr.json",
        "{\"Metadata\":{\"WriteTimestampMicros\":{\"N\":\"1\"}},\"Keys\":{\"pk\":{\"S\":\"Tag#u4\"}"
        ","
        "\"sk\":{\"S\":\"t4\"}},\"NewImage\":{\"pk\":{\"S\":\"Tag#u4\"},\"sk\":{\"S\":\"t4\"}}}\n"
        "{\"Metadata\":{\"WriteTimestampMicros\":{\"N\":\"2\"}},\"Keys\":{\"pk\":{\"S\":\"Tag#u1\"}"
        ","
        "\"sk\":{\"S\":\"t9\"}}}\n"
        "{\"Metadata\":{\"WriteTimestampMicros\":{\"N\":\"3\"}},\"Keys\":{\"pk\":{\"S\":\"Other#"
        "2\"},"
        "\"sk\":{\"S\":\"y\"}}}\n");
    const char *inputs[] = {dump, incr};
    ddb_pipeline_opts po;
    ddb_summary s;
    reports rep;
    ddb_rejects *rj = NULL, *um = NULL;
    ddb_error err;
    char *text;
    uint64_t sum_read = 0;

    base_opts(&po, DDB_MODE_EXPORT, inputs, 2, &rep);
    po.mapping = fav;
    po.output = tu_file_output(odir, DDB_OUT_CSV, fav, 1, 0);
    cr_assert_eq(ddb_rejects_new(&rj, tu_path(odir, "_rejects.ndjson"), &err), 0);
    cr_assert_eq(ddb_rejects_new(&um, tu_path(odir, "_unmatched.ndjson"), &err), 0);
    po.rejects = rj;
    po.unmatched = um;
    cr_assert_eq(ddb_pipeline_run(&s, &po, &err), 0, "%s", err.message);

    cr_assert_eq(s.n_entities, 4);
    cr_assert_str_eq(s.entities[0].name, "Tag");
    cr_assert_str_eq(s.entities[3].name, "(none)");
    /* Tag: 3 from the dump (one rejected) + insert + remove */
    expect_row(&s.entities[0], 5, 4, 1, 0);
    cr_assert_eq(s.entities[0].deleted, 1);
    expect_row(&s.entities[1], 1, 1, 0, 0);
    expect_row(&s.entities[2], 1, 1, 0, 0);
    /* (none): unmatched item, bad JSON, invalid item, unmatched remove */
    expect_row(&s.entities[3], 4, 0, 2, 2);
    expect_row(&s.total, 11, 6, 3, 2);
    for (size_t i = 0; i < s.n_entities; i++)
        sum_read += s.entities[i].read;
    cr_assert_eq(sum_read, s.total.read);
    cr_assert_eq(s.total.deleted, 1);
    cr_assert_eq(s.changes[DDB_CHANGE_INSERT], 1);
    cr_assert_eq(s.changes[DDB_CHANGE_REMOVE], 2);
    cr_assert_eq(s.input_errors, 0);
    cr_assert_eq(s.committed, 1);
    cr_assert_eq(s.output_failed, 0);
    cr_assert_gt(s.bytes_in, 0);
    cr_assert_gt(s.bytes_out, 0);
    cr_assert_not_null(s.rejects_path);
    cr_assert_str_eq(s.rejects_path, tu_path(odir, "_rejects.ndjson"));
    cr_assert_str_eq(s.unmatched_path, tu_path(odir, "_unmatched.ndjson"));
    cr_assert_eq(rep.n[DDB_REPORT_ERROR], 3);
    cr_assert(reported(&rep, "dump.json:5"), "bad JSON reported with its line");

    text = tu_slurp_in(a, tu_path(odir, "Tag.csv"));
    cr_assert_eq(count_lines(text), 1 + 3, "%s", text);
    cr_assert_not_null(strstr(text, "\nu1,t9,travel,1600000000000,1600000500000,\n"), "%s", text);
    cr_assert_not_null(strstr(text, "\nu4,t4,,,,\n"), "%s", text);
    text = tu_slurp_in(a, tu_path(odir, "Tag.deletes.csv"));
    cr_assert_not_null(strstr(text, "\nu1,t9,,,,\n"), "%s", text);
    text = tu_slurp_in(a, tu_path(odir, "FavoriteData.csv"));
    cr_assert_not_null(strstr(text, "\nu1,d1,c1,T,,,IMAGE,1600000000000,\n"), "%s", text);
    text = tu_slurp_in(a, tu_path(odir, "_unmatched.ndjson"));
    cr_assert_str_eq(text, "{\"Item\":" OTHER_ITEM "}\n"
                           "{\"Keys\":{\"pk\":{\"S\":\"Other#2\"},\"sk\":{\"S\":\"y\"}}}\n");
    text = tu_slurp_in(a, tu_path(odir, "_rejects.ndjson"));
    cr_assert_eq(count_lines(text), 3, "%s", text);
    cr_assert_not_null(strstr(text, "\"entity\":\"Tag\""), "%s", text);

    ddb_summary_dispose(&s);
    ddb_output_free(po.output);
    ddb_rejects_free(rj);
    ddb_rejects_free(um);
}

Test(pipeline, missing_input_counts_and_run_goes_on)
{
    const char *good =
        tu_put_file(tdir, "dump.json", "{\"Item\":" TAG_ITEM "}\n{\"Item\":{\"pk\":\n");
    const char *inputs[] = {tu_path(tdir, "missing.json"), good};
    ddb_pipeline_opts po;
    ddb_summary s;
    reports rep;
    ddb_rejects *rj = NULL;
    ddb_error err;

    base_opts(&po, DDB_MODE_EXPORT, inputs, 2, &rep);
    po.mapping = fav;
    po.output = tu_file_output(odir, DDB_OUT_NDJSON, fav, 1, 0);
    cr_assert_eq(ddb_rejects_new(&rj, tu_path(tdir, "rejects.ndjson"), &err), 0);
    po.rejects = rj;
    cr_assert_eq(ddb_pipeline_run(&s, &po, &err), 0, "%s", err.message);
    cr_assert_eq(s.input_errors, 1);
    cr_assert(reported(&rep, "missing.json"), "the missing input is named");
    /* the next input was still read; its good record is not done: the outputs were discarded */
    expect_row(&s.total, 2, 0, 1, 0);
    cr_assert_eq(s.total.not_done, 1);
    cr_assert_eq(s.committed, 0, "an input failed: nothing is committed");
    cr_assert_eq(s.n_outputs, 0);
    cr_assert(!tu_exists(tu_path(odir, "Tag.ndjson")));
    /* the rejects file is committed in any case */
    cr_assert(tu_exists(tu_path(tdir, "rejects.ndjson")));
    cr_assert_not_null(s.rejects_path);
    ddb_summary_dispose(&s);
    ddb_output_free(po.output);
    cr_assert_eq(out_entries(), 0, "no file (not even a temporary one) is left");
    ddb_rejects_free(rj);
}

Test(pipeline, truncated_scan_input_is_an_input_error)
{
    const char *scan = tu_put_file(tdir, "scan.json",
                                   "{\"Items\":[{\"pk\":{\"S\":\"Other#1\"},\"sk\":{\"S\":"
                                   "\"a\"}},{\"pk\":{\"S\":");
    const char *good = tu_put_file(tdir, "dump.json", "{\"Item\":" TAG_ITEM "}\n");
    const char *inputs[] = {scan, good};
    ddb_pipeline_opts po;
    ddb_summary s;
    reports rep;
    ddb_error err;

    base_opts(&po, DDB_MODE_EXPORT, inputs, 2, &rep);
    po.mapping = fav;
    po.output = tu_file_output(odir, DDB_OUT_CSV, fav, 1, 0);
    cr_assert_eq(ddb_pipeline_run(&s, &po, &err), 0, "%s", err.message);
    cr_assert_eq(s.input_errors, 1);
    cr_assert(reported(&rep, "scan.json"));
    /* nothing is committed, so neither the good record nor the unmatched one is done */
    expect_row(&s.total, 2, 0, 0, 0);
    cr_assert_eq(s.total.not_done, 2);
    cr_assert_eq(s.committed, 0);
    ddb_summary_dispose(&s);
    ddb_output_free(po.output);
    cr_assert_eq(out_entries(), 0);
}

Test(pipeline, convert_favorites_to_v2)
{
    const char *dump = tu_put_file(tdir, "dump.json", "{\"Item\":" TAG_ITEM "}\n");
    const char *inputs[] = {dump};
    ddb_pipeline_opts po;
    ddb_summary s;
    reports rep;
    ddb_error err;
    ddb_map items[4];
    ddb_map want =
        tu_item(a, "{\"PK\":{\"S\":\"USER#u1\"},\"SK\":{\"S\":\"TAG#t9\"},"
                   "\"LSI1SK\":{\"S\":\"TAGNAME#travel\"},"
                   "\"LSI2SK\":{\"S\":\"CREATED#00000001600000000000\"},\"_et\":{\"S\":\"TAG\"},"
                   "\"tn\":{\"S\":\"travel\"},\"ct\":{\"N\":\"1600000000000\"},"
                   "\"la\":{\"N\":\"1600000500000\"}}");

    base_opts(&po, DDB_MODE_CONVERT, inputs, 1, &rep);
    po.mapping = fav;
    po.to_mapping = fav2;
    po.output = tu_file_output(odir, DDB_OUT_DDBJSON, fav, 0, 0);
    cr_assert_eq(ddb_pipeline_run(&s, &po, &err), 0, "%s", err.message);
    expect_row(&s.entities[0], 1, 1, 0, 0);
    cr_assert_eq(s.committed, 1);
    cr_assert_eq(file_items(tu_path(odir, "Tag.json"), items, 4), 1);
    cr_assert(ddb_map_equal(&items[0], &want), "got %s", tu_typed(&items[0]));
    ddb_summary_dispose(&s);
    ddb_output_free(po.output);
}

Test(pipeline, encode_entity_from_file_name)
{
    const char *tag = tu_put_file(tdir, "Tag.csv",
                                  "userId,tagId,tagName,createTime,lastAccessTime,_extra\n"
                                  "u1,t9,travel,1600000000000,1600000500000,\n"
                                  "u2,,x,1,2,\n");
    const char *del = tu_put_file(tdir, "Tag.deletes.csv", "userId,tagId\nu1,t8\n");
    const char *nope = tu_put_file(tdir, "Nope.csv", "userId\nu1\n");
    const char *inputs[] = {tag, del, nope};
    ddb_pipeline_opts po;
    ddb_summary s;
    reports rep;
    ddb_error err;
    ddb_map items[4];
    ddb_map want = tu_item(a, TAG_ITEM);
    ddb_map want_del = tu_item(a, "{\"pk\":{\"S\":\"Tag#u1\"},\"sk\":{\"S\":\"t8\"}}");

    base_opts(&po, DDB_MODE_ENCODE, inputs, 2, &rep);
    po.mapping = fav;
    po.output = tu_file_output(odir, DDB_OUT_DDBJSON, fav, 0, 0);
    cr_assert_eq(ddb_pipeline_run(&s, &po, &err), 0, "%s", err.message);
    /* u2 has no tagId: the sort key cannot be computed */
    expect_row(&s.entities[0], 3, 2, 1, 0);
    cr_assert_eq(s.entities[0].deleted, 1);
    cr_assert(reported(&rep, "Tag.csv:3"), "%s", rep.msgs[0]);
    cr_assert_eq(s.committed, 1);
    cr_assert_eq(file_items(tu_path(odir, "Tag.json"), items, 4), 1);
    cr_assert(ddb_map_equal(&items[0], &want), "got %s", tu_typed(&items[0]));
    cr_assert_eq(file_items(tu_path(odir, "Tag.deletes.json"), items, 4), 1);
    cr_assert(ddb_map_equal(&items[0], &want_del), "got %s", tu_typed(&items[0]));
    ddb_summary_dispose(&s);
    ddb_output_free(po.output);

    /* a file named after no entity: an input error, nothing committed */
    {
        const char *inputs2[] = {nope};
        char cmd[300];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", odir);
        cr_assert_eq(system(cmd), 0);
        base_opts(&po, DDB_MODE_ENCODE, inputs2, 1, &rep);
        po.mapping = fav;
        po.output = tu_file_output(odir, DDB_OUT_DDBJSON, fav, 0, 0);
        cr_assert_eq(ddb_pipeline_run(&s, &po, &err), 0);
        cr_assert_eq(s.input_errors, 1);
        cr_assert(reported(&rep, "Nope.csv"));
        cr_assert_eq(s.total.read, 0);
        cr_assert_eq(s.committed, 0);
        ddb_summary_dispose(&s);
        ddb_output_free(po.output);
    }
}

Test(pipeline, encode_entity_option_overrides_name)
{
    const char *rows =
        tu_put_file(tdir, "rows.ndjson",
                    "{\"userId\":\"u1\",\"tagId\":\"t9\",\"tagName\":\"travel\","
                    "\"createTime\":1600000000000,\"lastAccessTime\":1600000500000}\n");
    const char *inputs[] = {rows};
    ddb_pipeline_opts po;
    ddb_summary s;
    reports rep;
    ddb_error err;
    ddb_map items[4];
    ddb_map want = tu_item(a, TAG_ITEM);

    base_opts(&po, DDB_MODE_ENCODE, inputs, 1, &rep);
    po.mapping = fav;
    po.reader.entity = "Tag";
    po.output = tu_file_output(odir, DDB_OUT_DDBJSON, fav, 0, 0);
    cr_assert_eq(ddb_pipeline_run(&s, &po, &err), 0, "%s", err.message);
    expect_row(&s.entities[0], 1, 1, 0, 0);
    cr_assert_eq(file_items(tu_path(odir, "Tag.json"), items, 4), 1);
    cr_assert(ddb_map_equal(&items[0], &want), "got %s", tu_typed(&items[0]));
    ddb_summary_dispose(&s);
    ddb_output_free(po.output);
}

Test(pipeline, validate_reports_reencoding_changes)
{
    /* TAG_ITEM without lsiOneSk: re-encoding would add it */
    const char *dump = tu_put_file(
        tdir, "dump.json",
        "{\"Item\":" TAG_ITEM "}\n"
        "{\"Item\":{\"pk\":{\"S\":\"Tag#u1\"},\"sk\":{\"S\":\"t2\"},\"tagName\":{\"S\":\"x\"}}}\n"
        "{\"Item\":" OTHER_ITEM "}\n");
    const char *inputs[] = {dump};
    ddb_pipeline_opts po;
    ddb_summary s;
    reports rep;
    ddb_error err;
    DIR *d;
    struct dirent *e;
    int n = 0;

    base_opts(&po, DDB_MODE_VALIDATE, inputs, 1, &rep);
    po.mapping = fav;
    cr_assert_eq(ddb_pipeline_run(&s, &po, &err), 0, "%s", err.message);
    expect_row(&s.entities[0], 2, 1, 1, 0);
    expect_row(&s.entities[3], 1, 0, 0, 1);
    cr_assert(reported(&rep, "re-encoding would add attribute 'lsiOneSk'"), "%s", rep.msgs[0]);
    cr_assert(reported(&rep, "dump.json:2"));
    cr_assert(reported(&rep, "unmatched"), "validate reports unmatched items");
    cr_assert_eq(s.committed, 0);
    cr_assert_null(s.rejects_path);
    /* nothing was written: the folder holds only the input */
    d = opendir(tdir);
    cr_assert_not_null(d);
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    closedir(d);
    cr_assert_eq(n, 1);
    ddb_summary_dispose(&s);
}

Test(pipeline, validate_record_file)
{
    const char *tag = tu_put_file(tdir, "Tag.csv",
                                  "userId,tagId,tagName\n"
                                  "u1,t1,x\n"
                                  "u2,,y\n");
    const char *inputs[] = {tag};
    ddb_pipeline_opts po;
    ddb_summary s;
    reports rep;
    ddb_error err;

    base_opts(&po, DDB_MODE_VALIDATE, inputs, 1, &rep);
    po.mapping = fav;
    cr_assert_eq(ddb_pipeline_run(&s, &po, &err), 0, "%s", err.message);
    expect_row(&s.entities[0], 2, 1, 1, 0);
    expect_row(&s.total, 2, 1, 1, 0);
    cr_assert(reported(&rep, "Tag.csv:3"));
    cr_assert_eq(s.committed, 0);
    ddb_summary_dispose(&s);
}

Test(pipeline, types_convert_untyped_csv)
{
    const char *csv = tu_put_file(tdir, "people.csv",
                                  "id,n,flag,tags\n"
                                  "a,5.50,true,\"[\"\"x\"\",\"\"y\"\"]\"\n"
                                  "b,notanumber,false,\n"
                                  "c,,,\n");
    const char *inputs[] = {csv};
    const ddb_type_hint types[] = {
        {"n", DDB_TYPE_N}, {"flag", DDB_TYPE_BOOL}, {"tags", DDB_TYPE_SS}};
    ddb_pipeline_opts po;
    ddb_summary s;
    reports rep;
    ddb_error err;
    ddb_map items[4];
    ddb_map want0 = tu_item(a, "{\"id\":{\"S\":\"a\"},\"n\":{\"N\":\"5.50\"},"
                               "\"flag\":{\"BOOL\":true},\"tags\":{\"SS\":[\"x\",\"y\"]}}");
    ddb_map want1 = tu_item(a, "{\"id\":{\"S\":\"c\"}}");

    base_opts(&po, DDB_MODE_EXPORT, inputs, 1, &rep);
    po.types = types;
    po.n_types = 3;
    po.output = tu_file_output(odir, DDB_OUT_DDBJSON, NULL, 0, 0);
    cr_assert_eq(ddb_pipeline_run(&s, &po, &err), 0, "%s", err.message);
    cr_assert_eq(s.n_entities, 1);
    expect_row(&s.total, 3, 2, 1, 0);
    cr_assert(reported(&rep, "people.csv:3"));
    cr_assert(reported(&rep, "n"));
    cr_assert_eq(file_items(tu_path(odir, "items.json"), items, 4), 2);
    cr_assert(ddb_map_equal(&items[0], &want0), "got %s", tu_typed(&items[0]));
    cr_assert(ddb_map_equal(&items[1], &want1), "got %s", tu_typed(&items[1]));
    ddb_summary_dispose(&s);
    ddb_output_free(po.output);
}

Test(pipeline, report_limit)
{
    const char *bad = tu_put_file(tdir, "bad.json",
                                  "{\"Item\":" OTHER_ITEM "}\n"
                                  "{x\n{y\n{z\n{w\n{v\n");
    const char *inputs[] = {bad};
    ddb_pipeline_opts po;
    ddb_summary s;
    reports rep;
    ddb_error err;

    base_opts(&po, DDB_MODE_EXPORT, inputs, 1, &rep);
    po.output = tu_file_output(odir, DDB_OUT_DDBJSON, NULL, 0, 0);
    po.report_limit = 2;
    cr_assert_eq(ddb_pipeline_run(&s, &po, &err), 0, "%s", err.message);
    expect_row(&s.total, 6, 1, 5, 0);
    cr_assert_eq(rep.n[DDB_REPORT_ERROR], 2);
    cr_assert_eq(rep.n[DDB_REPORT_INFO], 1, "one note that more problems were not shown");
    cr_assert(reported(&rep, "bad.json:2"));
    cr_assert(reported(&rep, "bad.json:3"));
    cr_assert(!reported(&rep, "bad.json:4"));
    ddb_summary_dispose(&s);
    ddb_output_free(po.output);

    /* 0 = every problem */
    {
        char cmd[300];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", odir);
        cr_assert_eq(system(cmd), 0);
    }
    base_opts(&po, DDB_MODE_EXPORT, inputs, 1, &rep);
    po.output = tu_file_output(odir, DDB_OUT_DDBJSON, NULL, 0, 0);
    cr_assert_eq(ddb_pipeline_run(&s, &po, &err), 0, "%s", err.message);
    cr_assert_eq(rep.n[DDB_REPORT_ERROR], 5);
    cr_assert_eq(rep.n[DDB_REPORT_INFO], 0);
    ddb_summary_dispose(&s);
    ddb_output_free(po.output);
}

Test(pipeline, no_mapping_export_writes_items)
{
    const char *dump = tu_put_file(tdir, "dump.json",
                                   "{\"Item\":" OTHER_ITEM "}\n"
                                   "{\"Item\":" TAG_ITEM "}\n");
    const char *inputs[] = {dump};
    ddb_pipeline_opts po;
    ddb_summary s;
    reports rep;
    ddb_error err;
    ddb_map items[4];
    const char *const *paths;

    base_opts(&po, DDB_MODE_EXPORT, inputs, 1, &rep);
    po.output = tu_file_output(odir, DDB_OUT_DDBJSON, NULL, 0, 0);
    cr_assert_eq(ddb_pipeline_run(&s, &po, &err), 0, "%s", err.message);
    cr_assert_eq(s.n_entities, 1);
    cr_assert_str_eq(s.entities[0].name, "(none)");
    expect_row(&s.total, 2, 2, 0, 0);
    cr_assert_eq(file_items(tu_path(odir, "items.json"), items, 4), 2);
    {
        ddb_map want = tu_item(a, TAG_ITEM);
        cr_assert(ddb_map_equal(&items[1], &want), "got %s", tu_typed(&items[1]));
    }
    cr_assert_eq(ddb_file_output_paths(po.output, &paths), 1);
    ddb_summary_dispose(&s);
    ddb_output_free(po.output);
}

static volatile sig_atomic_t run_stop;

static void *stop_later(void *arg)
{
    (void)arg;
    usleep(300000);
    run_stop = 1;
    return NULL;
}

/* A pipe whose writer pauses, read with a client in the run (its requests go
 * on while the input waits): the run's own stop flag ends the wait, even when
 * the client was given none. */
Test(pipeline, stop_flag_ends_a_wait_for_input_with_a_client, .timeout = 20)
{
    ddb_aws_credentials creds = {"AKIDEXAMPLE", "secret-not-real", NULL, 0, "test"};
    const char *fifo = tu_path(tdir, "paused.fifo");
    const char *inputs[] = {fifo};
    ddb_client_opts co;
    ddb_client *c = NULL;
    ddb_pipeline_opts po;
    ddb_summary s;
    reports rep;
    ddb_error err;
    pthread_t th;
    uint64_t t0;
    int rc, hold;
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    hold = open(fifo, O_RDWR | O_NONBLOCK); /* a writer that sends nothing */
    memset(&co, 0, sizeof(co));
    co.region = "us-east-1";
    co.endpoint = "http://127.0.0.1:9";
    co.credentials = &creds;
    cr_assert_eq(ddb_client_new(&c, &co, &err), 0, "%s", err.message);
    base_opts(&po, DDB_MODE_EXPORT, inputs, 1, &rep);
    po.mapping = fav;
    po.output = tu_file_output(odir, DDB_OUT_NDJSON, fav, 1, 0);
    po.client = c;
    po.stop = &run_stop;
    run_stop = 0;
    pthread_create(&th, NULL, stop_later, NULL);
    t0 = ddb_clock_ms();
    rc = ddb_pipeline_run(&s, &po, &err);
    pthread_join(th, NULL);
    cr_assert_lt(ddb_clock_ms() - t0, 5000, "the wait outlived the stop flag");
    cr_assert(rc == 0 || rc == DDB_EINTR, "%d %s", rc, err.message);
    ddb_summary_dispose(&s);
    ddb_output_free(po.output);
    close(hold);
    ddb_client_free(c);
}
