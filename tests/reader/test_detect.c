/*
 * test_detect.c — ddb_reader_open picks the reader by content: gzip by its
 * magic bytes, then the first bytes/line (Item lines, bare typed lines,
 * incremental changes, plain NDJSON, CSV, AWS CLI scan output); forced
 * formats, folders and empty files.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "ddbpipe/reader.h"
#include "support/files.h"
#include "support/readers.h"
#include "support/testutil.h"

static char tdir[64];

static void setup(void)
{
    tu_mkdtemp(tdir, sizeof(tdir), "/tmp/ddb-reader-detect-XXXXXX");
}

static void teardown(void)
{
    tu_rmtree(tdir);
}

TestSuite(detect, .init = setup, .fini = teardown);

static ddb_reader *open_ok(const char *path, const ddb_reader_opts *opts)
{
    ddb_reader *r = NULL;
    ddb_error err;
    ddb_error_clear(&err);
    cr_assert_eq(ddb_reader_open(&r, path, opts, &err), 0, "%s: %s", path, err.message);
    cr_assert_not_null(r);
    return r;
}

Test(detect, gzip_by_magic_not_by_extension)
{
    const char *text = "{\"Item\":{\"id\":{\"S\":\"a\"},\"n\":{\"N\":\"1.50\"}}}\n"
                       "{\"Item\":{\"id\":{\"S\":\"b\"}}}\n";
    const char *path = tu_put_gzip(tdir, "data.csv", text);
    struct stat st;
    ddb_reader *r = open_ok(path, NULL);
    ddb_record *rec;

    cr_assert_eq(r->format, DDB_IN_DDBJSON, "format %s", ddb_input_format_name(r->format));
    rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_PUT);
    cr_assert_eq(rec->typed, 1);
    cr_assert_eq(rec->item.count, 2);
    tu_expect_s(&rec->item, "id", "a");
    tu_expect_n(&rec->item, "n", "1.50");
    cr_assert_eq(rec->line, 1);
    rec = tu_next_ok(r);
    tu_expect_s(&rec->item, "id", "b");
    cr_assert_eq(rec->line, 2);
    tu_expect_end(r);
    cr_assert_eq(stat(path, &st), 0);
    cr_assert_eq(r->total_bytes, (uint64_t)st.st_size);
    cr_assert_eq(ddb_reader_raw_bytes(r), (uint64_t)st.st_size);
    cr_assert_eq(ddb_reader_decoded_bytes(r), strlen(text));
    ddb_reader_free(r);
}

Test(detect, item_lines)
{
    const char *path = tu_put_file(
        tdir, "dump.json", "{\"Item\":{\"pk\":{\"S\":\"Tag#u1\"},\"sk\":{\"S\":\"t1\"}}}\n");
    ddb_reader *r = open_ok(path, NULL);
    ddb_record *rec;
    cr_assert_eq(r->format, DDB_IN_DDBJSON);
    rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_PUT);
    cr_assert_eq(rec->change, DDB_CHANGE_NONE);
    cr_assert_eq(rec->item.count, 2);
    tu_expect_s(&rec->item, "pk", "Tag#u1");
    tu_expect_s(&rec->item, "sk", "t1");
    cr_assert_str_eq(rec->source, path);
    tu_expect_end(r);
    ddb_reader_free(r);
}

Test(detect, bare_typed_lines)
{
    const char *path = tu_put_file(tdir, "bare.ndjson",
                                   "{\"id\":{\"S\":\"x\"},\"v\":{\"N\":\"2\"}}\n"
                                   "{\"id\":{\"S\":\"y\"},\"v\":{\"BOOL\":true}}\n");
    ddb_reader *r = open_ok(path, NULL);
    ddb_record *rec;
    cr_assert_eq(r->format, DDB_IN_DDBJSON, "format %s", ddb_input_format_name(r->format));
    rec = tu_next_ok(r);
    cr_assert_eq(rec->typed, 1);
    tu_expect_s(&rec->item, "id", "x");
    tu_expect_n(&rec->item, "v", "2");
    rec = tu_next_ok(r);
    tu_expect_s(&rec->item, "id", "y");
    cr_assert_eq(ddb_map_getz(&rec->item, "v")->type, DDB_TYPE_BOOL);
    cr_assert_eq(ddb_map_getz(&rec->item, "v")->u.boolean, 1);
    tu_expect_end(r);
    ddb_reader_free(r);
}

Test(detect, incremental_change_lines)
{
    const char *path = tu_put_file(
        tdir, "incr.json",
        /* INSERT: NewImage only */
        "{\"Metadata\":{\"WriteTimestampMicros\":{\"N\":\"1680000000000001\"}},"
        "\"Keys\":{\"id\":{\"S\":\"a\"}},\"NewImage\":{\"id\":{\"S\":\"a\"},\"v\":{\"N\":\"1\"}}}\n"
        /* MODIFY: both images */
        "{\"Metadata\":{\"WriteTimestampMicros\":{\"N\":\"1680000000000002\"}},"
        "\"Keys\":{\"id\":{\"S\":\"a\"}},\"NewImage\":{\"id\":{\"S\":\"a\"},\"v\":{\"N\":\"2\"}},"
        "\"OldImage\":{\"id\":{\"S\":\"a\"},\"v\":{\"N\":\"1\"}}}\n"
        /* REMOVE: keys (and the old image) only */
        "{\"Metadata\":{\"WriteTimestampMicros\":{\"N\":\"1680000000000003\"}},"
        "\"Keys\":{\"id\":{\"S\":\"a\"}},\"OldImage\":{\"id\":{\"S\":\"a\"},\"v\":{\"N\":\"2\"}}}"
        "\n");
    ddb_reader *r = open_ok(path, NULL);
    ddb_record *rec;

    cr_assert_eq(r->format, DDB_IN_DDBJSON);
    rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_PUT);
    cr_assert_eq(rec->change, DDB_CHANGE_INSERT);
    cr_assert_eq(rec->item.count, 2);
    tu_expect_n(&rec->item, "v", "1");
    cr_assert_eq(rec->write_time.len, 16);
    cr_assert_eq(memcmp(rec->write_time.ptr, "1680000000000001", 16), 0);

    rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_PUT);
    cr_assert_eq(rec->change, DDB_CHANGE_MODIFY);
    tu_expect_n(&rec->item, "v", "2");
    cr_assert_eq(memcmp(rec->write_time.ptr, "1680000000000002", 16), 0);

    rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_DELETE);
    cr_assert_eq(rec->change, DDB_CHANGE_REMOVE);
    cr_assert_eq(rec->item.count, 1, "a delete carries the keys only");
    tu_expect_s(&rec->item, "id", "a");
    cr_assert_eq(memcmp(rec->write_time.ptr, "1680000000000003", 16), 0);
    tu_expect_end(r);
    ddb_reader_free(r);
}

Test(detect, plain_ndjson)
{
    const char *path = tu_put_file(tdir, "people.ndjson",
                                   "{\"id\":\"a\",\"n\":1.50,\"tags\":[\"x\"]}\n"
                                   "{\"id\":\"b\",\"n\":2}\n");
    ddb_reader *r = open_ok(path, NULL);
    ddb_record *rec;
    cr_assert_eq(r->format, DDB_IN_NDJSON, "format %s", ddb_input_format_name(r->format));
    rec = tu_next_ok(r);
    cr_assert_eq(rec->typed, 0);
    tu_expect_s(&rec->item, "id", "a");
    tu_expect_n(&rec->item, "n", "1.50");
    cr_assert_eq(ddb_map_getz(&rec->item, "tags")->type, DDB_TYPE_L);
    cr_assert_str_eq(r->entity_hint, "people");
    rec = tu_next_ok(r);
    tu_expect_s(&rec->item, "id", "b");
    tu_expect_end(r);
    ddb_reader_free(r);
}

Test(detect, csv)
{
    const char *path = tu_put_file(tdir, "Tag.csv", "userId,tagId\nu1,t1\n");
    ddb_reader *r = open_ok(path, NULL);
    ddb_record *rec;
    cr_assert_eq(r->format, DDB_IN_CSV, "format %s", ddb_input_format_name(r->format));
    rec = tu_next_ok(r);
    cr_assert_eq(rec->typed, 0);
    cr_assert_eq(rec->line, 2);
    tu_expect_s(&rec->item, "userId", "u1");
    tu_expect_s(&rec->item, "tagId", "t1");
    cr_assert_str_eq(r->entity_hint, "Tag");
    tu_expect_end(r);
    ddb_reader_free(r);
}

/* What `aws dynamodb scan` prints: "Items" first, the counters after. */
Test(detect, scan_output_items_first)
{
    const char *path = tu_put_file(tdir, "scan.json",
                                   "{\n"
                                   "    \"Items\": [\n"
                                   "        {\n"
                                   "            \"id\": {\n"
                                   "                \"S\": \"a\"\n"
                                   "            }\n"
                                   "        }\n"
                                   "    ],\n"
                                   "    \"Count\": 1,\n"
                                   "    \"ScannedCount\": 1,\n"
                                   "    \"ConsumedCapacity\": null,\n"
                                   "    \"LastEvaluatedKey\": {\"id\": {\"S\": \"a\"}}\n"
                                   "}\n");
    ddb_reader *r = open_ok(path, NULL);
    ddb_record *rec;
    cr_assert_eq(r->format, DDB_IN_JSON, "format %s", ddb_input_format_name(r->format));
    rec = tu_next_ok(r);
    cr_assert_eq(rec->typed, 1);
    cr_assert_eq(rec->line, 3);
    tu_expect_s(&rec->item, "id", "a");
    tu_expect_end(r);
    ddb_reader_free(r);
}

Test(detect, forced_format_ndjson_over_typed_text)
{
    const char *path = tu_put_file(tdir, "typed.json", "{\"id\":{\"S\":\"x\"}}\n");
    ddb_reader_opts o = {.format = DDB_IN_NDJSON};
    ddb_reader *r = open_ok(path, &o);
    ddb_record *rec;
    const ddb_value *v;
    cr_assert_eq(r->format, DDB_IN_NDJSON);
    rec = tu_next_ok(r);
    cr_assert_eq(rec->typed, 0);
    v = ddb_map_getz(&rec->item, "id");
    cr_assert_not_null(v);
    cr_assert_eq(v->type, DDB_TYPE_M, "plain JSON: the typed wrapper is just an object");
    tu_expect_s(&v->u.m, "S", "x");
    tu_expect_end(r);
    ddb_reader_free(r);
}

Test(detect, forced_format_csv_and_scan)
{
    const char *csv = tu_put_file(tdir, "rows.json", "a,b\n1,2\n");
    const char *scan =
        tu_put_file(tdir, "rows.txt", "{\"Count\":1,\"Items\":[{\"id\":{\"S\":\"q\"}}]}");
    ddb_reader_opts oc = {.format = DDB_IN_CSV};
    ddb_reader_opts os = {.format = DDB_IN_SCAN};
    ddb_reader *r = open_ok(csv, &oc);
    ddb_record *rec;
    cr_assert_eq(r->format, DDB_IN_CSV);
    rec = tu_next_ok(r);
    tu_expect_s(&rec->item, "a", "1");
    tu_expect_s(&rec->item, "b", "2");
    tu_expect_end(r);
    ddb_reader_free(r);

    r = open_ok(scan, &os);
    cr_assert_eq(r->format, DDB_IN_SCAN);
    rec = tu_next_ok(r);
    tu_expect_s(&rec->item, "id", "q");
    tu_expect_end(r);
    ddb_reader_free(r);
}

Test(detect, input_format_names)
{
    ddb_input_format f;
    cr_assert_eq(ddb_input_format_parse(&f, "scan"), 0);
    cr_assert_eq(f, DDB_IN_SCAN);
    cr_assert_eq(ddb_input_format_parse(&f, "dynamodb-json"), 0);
    cr_assert_eq(f, DDB_IN_DDBJSON);
    cr_assert_eq(ddb_input_format_parse(&f, "csv"), 0);
    cr_assert_eq(f, DDB_IN_CSV);
    cr_assert_eq(ddb_input_format_parse(&f, "xml"), DDB_EUSAGE);
    cr_assert_str_eq(ddb_input_format_name(DDB_IN_NDJSON), "ndjson");
    cr_assert_str_eq(ddb_input_format_name(DDB_IN_DDBJSON), "ddb-json");
}

Test(detect, missing_file)
{
    ddb_reader *r = (ddb_reader *)1;
    ddb_error err;
    const char *path = tu_path(tdir, "nope.json");
    cr_assert_eq(ddb_reader_open(&r, path, NULL, &err), DDB_ENOTFOUND);
    cr_assert_null(r);
    cr_assert_not_null(strstr(err.message, "nope.json"), "%s", err.message);
}

Test(detect, empty_json_file_has_no_records)
{
    const char *path = tu_put_file(tdir, "empty.json", "");
    ddb_reader *r = open_ok(path, NULL);
    tu_expect_end(r);
    ddb_reader_free(r);
}

Test(detect, whitespace_only_file_has_no_records)
{
    const char *path = tu_put_file(tdir, "blank.ndjson", "\n   \n\n");
    ddb_reader *r = open_ok(path, NULL);
    tu_expect_end(r);
    ddb_reader_free(r);
}

Test(detect, empty_csv_file_is_usage_error)
{
    ddb_reader *r = (ddb_reader *)1;
    ddb_error err;
    const char *path = tu_put_file(tdir, "Empty.csv", "");
    cr_assert_eq(ddb_reader_open(&r, path, NULL, &err), DDB_EUSAGE);
    cr_assert_null(r);
    cr_assert_not_null(strstr(err.message, "Empty.csv"), "%s", err.message);
}

Test(detect, folder_with_forced_format_is_usage_error)
{
    ddb_reader *r = (ddb_reader *)1;
    ddb_reader_opts o = {.format = DDB_IN_CSV};
    ddb_error err;
    char sub[300];
    snprintf(sub, sizeof(sub), "%s/rows", tdir);
    cr_assert_eq(mkdir(sub, 0755), 0);
    cr_assert_eq(ddb_reader_open(&r, sub, &o, &err), DDB_EUSAGE);
    cr_assert_null(r);
    cr_assert_not_null(strstr(err.message, "rows"), "%s", err.message);
}

/* A folder is read only as an Export to S3 folder. */
Test(detect, folder_without_manifest_is_usage_error)
{
    ddb_reader *r = (ddb_reader *)1;
    ddb_error err;
    char sub[300];
    snprintf(sub, sizeof(sub), "%s/somedir", tdir);
    cr_assert_eq(mkdir(sub, 0755), 0);
    ddb_error_clear(&err);
    int rc = ddb_reader_open(&r, sub, NULL, &err);
    cr_assert_null(r);
    cr_assert_not_null(strstr(err.message, "somedir"), "%s", err.message);
    cr_assert_eq(rc, DDB_EUSAGE, "rc %d (%s): %s", rc, ddb_error_code_name(rc), err.message);
}

Test(detect, folder_with_two_exports_is_usage_error)
{
    ddb_reader *r = (ddb_reader *)1;
    ddb_error err;
    char sub[300];
    const char *ids[] = {"01700000000000-aaaaaaaa", "01700000000000-bbbbbbbb"};
    snprintf(sub, sizeof(sub), "%s/exports", tdir);
    cr_assert_eq(mkdir(sub, 0755), 0);
    for (int i = 0; i < 2; i++) {
        char d[400], f[500];
        FILE *fp;
        snprintf(d, sizeof(d), "%s/%s", sub, ids[i]);
        cr_assert_eq(mkdir(d, 0755), 0);
        snprintf(f, sizeof(f), "%s/manifest-summary.json", d);
        fp = fopen(f, "w");
        cr_assert_not_null(fp);
        fclose(fp);
    }
    ddb_error_clear(&err);
    cr_assert_eq(ddb_reader_open(&r, sub, NULL, &err), DDB_EUSAGE, "%s", err.message);
    cr_assert_null(r);
    cr_assert_not_null(strstr(err.message, "exports"), "%s", err.message);
}

/* Scan output whose first key is not "Items" (Count/ScannedCount first, as
 * other tools and `--query` print it) is still scan output, not NDJSON. */
Test(detect, scan_output_counts_before_items)
{
    const char *path = tu_put_file(tdir, "scan2.json",
                                   "{\n"
                                   "  \"Count\": 2,\n"
                                   "  \"ScannedCount\": 2,\n"
                                   "  \"ConsumedCapacity\": {\"TableName\": \"T\", "
                                   "\"CapacityUnits\": 0.5},\n"
                                   "  \"Items\": [\n"
                                   "    {\"id\": {\"S\": \"a\"}},\n"
                                   "    {\"id\": {\"S\": \"b\"}}\n"
                                   "  ],\n"
                                   "  \"LastEvaluatedKey\": {\"id\": {\"S\": \"b\"}}\n"
                                   "}\n");
    ddb_reader *r = open_ok(path, NULL);
    ddb_record *rec;
    cr_assert_eq(r->format, DDB_IN_JSON, "format %s", ddb_input_format_name(r->format));
    rec = tu_next_ok(r);
    tu_expect_s(&rec->item, "id", "a");
    cr_assert_eq(rec->line, 6);
    rec = tu_next_ok(r);
    tu_expect_s(&rec->item, "id", "b");
    tu_expect_end(r);
    ddb_reader_free(r);
}

/* The same on one line: a first line that is valid JSON but not a typed item
 * is not taken for plain NDJSON (one record holding "Items"). */
Test(detect, scan_output_compact_count_first)
{
    const char *path =
        tu_put_file(tdir, "scan3.json",
                    "{\"Count\":1,\"ScannedCount\":1,\"Items\":[{\"id\":{\"S\":\"z\"}}]}\n");
    ddb_reader *r = open_ok(path, NULL);
    ddb_record *rec;
    cr_assert_eq(r->format, DDB_IN_JSON, "format %s", ddb_input_format_name(r->format));
    rec = tu_next_ok(r);
    tu_expect_s(&rec->item, "id", "z");
    tu_expect_end(r);
    ddb_reader_free(r);
}

/* Plain records whose first key happens to be one of a response's ("Count")
 * are lines, even when a later line has a key that holds a document's
 * records: the first line, whole, decides, as it does when a pipe pauses
 * after it (reader_sniff.c). Before, the later "Items" made the file a JSON
 * document, which then failed to read. */
Test(detect, later_lines_do_not_make_a_document)
{
    const char *path = tu_put_file(tdir, "counts.json",
                                   "{\"Count\":3,\"name\":\"a\"}\n"
                                   "{\"Count\":1,\"name\":\"b\"}\n"
                                   "{\"Items\":5,\"name\":\"c\"}\n");
    ddb_reader *r = open_ok(path, NULL);
    ddb_record *rec;
    cr_assert_eq(r->format, DDB_IN_NDJSON, "format %s", ddb_input_format_name(r->format));
    rec = tu_next_ok(r);
    cr_assert_eq(rec->typed, 0);
    tu_expect_s(&rec->item, "name", "a");
    rec = tu_next_ok(r);
    tu_expect_s(&rec->item, "name", "b");
    rec = tu_next_ok(r);
    tu_expect_s(&rec->item, "name", "c");
    tu_expect_end(r);
    ddb_reader_free(r);
}

/* A stray byte of another encoding (Latin-1's e acute) does not make a .csv
 * file something other than text: the file is CSV, its bytes read as they are
 * (the item check then rejects that row, with its reason: cli.sh). Before, the
 * whole file was refused as of no known format. */
Test(detect, csv_with_one_latin1_byte)
{
    const char *path = tu_put_file(tdir, "latin1.csv", "id,name\n1,a\n2,caf\xe9\n3,c\n");
    ddb_reader *r = open_ok(path, NULL);
    ddb_record *rec;
    cr_assert_eq(r->format, DDB_IN_CSV, "format %s", ddb_input_format_name(r->format));
    rec = tu_next_ok(r);
    tu_expect_s(&rec->item, "name", "a");
    rec = tu_next_ok(r);
    tu_expect_s(&rec->item, "name", "caf\xe9");
    rec = tu_next_ok(r);
    tu_expect_s(&rec->item, "name", "c");
    tu_expect_end(r);
    ddb_reader_free(r);
}

/* Bytes that are not text (invalid sequences throughout) are still no
 * format, whatever the name says. */
Test(detect, binary_named_csv_is_refused)
{
    char bin[512], path[128];
    ddb_reader *r = NULL;
    ddb_error err;
    FILE *f;
    for (size_t i = 0; i < sizeof(bin); i++)
        bin[i] = (char)(0x80 + (i * 37) % 128);
    snprintf(path, sizeof(path), "%s/blob.csv", tdir);
    cr_assert_not_null(f = fopen(path, "wb"));
    cr_assert_eq(fwrite(bin, 1, sizeof(bin), f), sizeof(bin));
    fclose(f);
    ddb_error_clear(&err);
    cr_assert_neq(ddb_reader_open(&r, path, NULL, &err), 0);
    cr_assert(strstr(err.message, "cannot tell the format") != NULL, "%s", err.message);
    cr_assert_null(r);
}

/* One malformed first line (`{"Item":{"id":{"X":"1"}}}`) does not decide the
 * format of the whole file: it is DynamoDB JSON (judged by the first key
 * "Item"), the first line is BAD and the others are items. */
Test(detect, bad_first_line_does_not_flip_the_format)
{
    const char *path = tu_put_file(tdir, "dump2.json",
                                   "{\"Item\":{\"id\":{\"X\":\"1\"}}}\n"
                                   "{\"Item\":{\"id\":{\"S\":\"2\"}}}\n");
    ddb_reader *r = open_ok(path, NULL);
    ddb_record *rec;
    cr_assert_eq(r->format, DDB_IN_DDBJSON, "format %s", ddb_input_format_name(r->format));
    rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_BAD);
    rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_PUT);
    cr_assert_eq(rec->typed, 1);
    tu_expect_s(&rec->item, "id", "2");
    tu_expect_end(r);
    ddb_reader_free(r);
}

/* A UTF-8 byte-order mark before JSON lines (PowerShell's Out-File -Encoding
 * utf8 writes one) is skipped by the lines reader too, as by the CSV reader. */
Test(detect, byte_order_mark_before_json_lines)
{
    const char *path = tu_put_file(tdir, "bom.json",
                                   "\xEF\xBB\xBF{\"Item\":{\"id\":{\"S\":\"a\"}}}\n"
                                   "{\"Item\":{\"id\":{\"S\":\"b\"}}}\n");
    ddb_reader *r = open_ok(path, NULL);
    ddb_record *rec;
    cr_assert_eq(r->format, DDB_IN_DDBJSON, "format %s", ddb_input_format_name(r->format));
    rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_PUT, "%s", rec->reason ? rec->reason : "");
    tu_expect_s(&rec->item, "id", "a");
    rec = tu_next_ok(r);
    tu_expect_s(&rec->item, "id", "b");
    tu_expect_end(r);
    ddb_reader_free(r);
}

/* Amazon Ion (an ION export's data file, text or binary, gzip'd or not) is
 * named as such, not misread as CSV or JSON. */
Test(detect, amazon_ion_is_refused_by_name)
{
    static const char *const texts[] = {
        "$ion_1_0 {Item:{name:\"u1\",n:1.,tags:[\"a\",\"b\"]}}\n{Item:{name:\"u2\",n:2.}}\n",
        "{Item:{name:\"u1\",n:1.}}\n{Item:{name:\"u2\",n:2.}}\n",
    };
    static const unsigned char binary[] = {0xE0, 0x01, 0x00, 0xEA, 0xEE, 0x90, 0x81, 0x83};
    for (size_t i = 0; i < 3; i++) {
        ddb_reader *r = (ddb_reader *)1;
        ddb_error err;
        char name[32];
        const char *path;
        snprintf(name, sizeof(name), "part-%zu.ion", i);
        if (i < 2)
            path = i == 0 ? tu_put_gzip(tdir, name, texts[i]) : tu_put_file(tdir, name, texts[i]);
        else
            path = tu_put_bytes(tdir, name, binary, sizeof(binary));
        ddb_error_clear(&err);
        cr_assert_eq(ddb_reader_open(&r, path, NULL, &err), DDB_EUSAGE, "%s", path);
        cr_assert_null(r);
        cr_assert_not_null(strstr(err.message, name), "%s", err.message);
        cr_assert_not_null(strstr(err.message, "Amazon Ion"), "%s", err.message);
    }
}
