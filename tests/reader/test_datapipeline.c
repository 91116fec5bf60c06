/*
 * test_datapipeline.c — AWS Data Pipeline / EMR exports of DynamoDB: items typed with the Java
 * SDK's keys ({"s":..}, {"sS":..}, {"nULLValue":..}), the later lowercase ones ("ss", "null",
 * "bool"), and the older Hive text form (name 0x03 value, attributes split by 0x02); found by
 * content and by --input-format datapipeline; bad lines are bad records.
 */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "ddbpipe/json.h"
#include "ddbpipe/reader.h"
#include "support/files.h"
#include "support/readers.h"
#include "support/testutil.h"

static char tdir[64];

static void setup(void)
{
    tu_mkdtemp(tdir, sizeof(tdir), "/tmp/ddb-reader-dp-XXXXXX");
}

static void teardown(void)
{
    tu_rmtree(tdir);
}

TestSuite(datapipeline, .init = setup, .fini = teardown);

/* Opens dir/name holding text, by content (format DDB_IN_AUTO) or forced. */
static ddb_reader *open_file(const char *name, const char *text, ddb_input_format format)
{
    ddb_reader_opts o;
    ddb_reader *r = NULL;
    ddb_error err;
    memset(&o, 0, sizeof(o));
    o.format = format;
    cr_assert_eq(ddb_reader_open(&r, tu_put_file(tdir, name, text), &o, &err), 0, "%s",
                 err.message);
    return r;
}

static void expect_item(ddb_reader *r, const char *typed)
{
    ddb_record *rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_PUT, "%s", rec->reason ? rec->reason : "");
    cr_assert(rec->typed);
    cr_assert_str_eq(tu_typed(&rec->item), typed);
}

static void expect_bad(ddb_reader *r, uint64_t line, const char *needle)
{
    ddb_record *rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_BAD);
    cr_assert_eq(rec->line, line);
    cr_assert_not_null(strstr(rec->reason, needle), "%s", rec->reason);
}

Test(datapipeline, sdk_field_names_every_type)
{
    ddb_reader *r = open_file(
        "export-1",
        "{\"id\":{\"s\":\"x\"},\"n\":{\"n\":\"12345678901234567890.123456789012345678\"},"
        "\"b\":{\"b\":\"AAEC\"},\"tags\":{\"sS\":[\"a\",\"b\"]},\"ns\":{\"nS\":[\"1\",\"-2.5\"]},"
        "\"bs\":{\"bS\":[\"/w==\"]},\"m\":{\"m\":{\"k\":{\"l\":[{\"n\":\"1\"},{\"s\":\"y\"}]}}},"
        "\"nul\":{\"nULLValue\":true},\"ok\":{\"bOOL\":false}}\n",
        DDB_IN_AUTO);
    cr_assert_eq(r->format, DDB_IN_DATAPIPELINE);
    expect_item(r,
                "{\"id\":{\"S\":\"x\"},\"n\":{\"N\":\"12345678901234567890.123456789012345678\"},"
                "\"b\":{\"B\":\"AAEC\"},\"tags\":{\"SS\":[\"a\",\"b\"]},"
                "\"ns\":{\"NS\":[\"1\",\"-2.5\"]},\"bs\":{\"BS\":[\"/w==\"]},"
                "\"m\":{\"M\":{\"k\":{\"L\":[{\"N\":\"1\"},{\"S\":\"y\"}]}}},"
                "\"nul\":{\"NULL\":true},\"ok\":{\"BOOL\":false}}");
    tu_expect_end(r);
    ddb_reader_free(r);
}

Test(datapipeline, binary_is_decoded_from_base64)
{
    ddb_reader *r =
        open_file("b.txt", "{\"k\":{\"s\":\"1\"},\"b\":{\"b\":\"AAEC/w==\"}}\n", DDB_IN_AUTO);
    ddb_record *rec = tu_next_ok(r);
    tu_expect_bytes(&rec->item, "b", DDB_TYPE_B, "\x00\x01\x02\xff", 4);
    ddb_reader_free(r);
}

Test(datapipeline, later_lowercase_names)
{
    ddb_reader *r = open_file("part-00000",
                              "{\"id\":{\"s\":\"x\"},\"t\":{\"ss\":[\"a\"]},\"z\":{\"null\":true},"
                              "\"o\":{\"bool\":true}}\n",
                              DDB_IN_AUTO);
    cr_assert_eq(r->format, DDB_IN_DATAPIPELINE);
    expect_item(r, "{\"id\":{\"S\":\"x\"},\"t\":{\"SS\":[\"a\"]},\"z\":{\"NULL\":true},"
                   "\"o\":{\"BOOL\":true}}");
    ddb_reader_free(r);
}

Test(datapipeline, hive_text_form)
{
    ddb_reader *r = open_file("000000_0",
                              "id\003{\"s\":\"Seattle\"}\002scores\003{\"nS\":[\"100\",\"30\"]}\n"
                              "id\003{\"s\":\"Tokyo\"}\r\n",
                              DDB_IN_AUTO);
    cr_assert_eq(r->format, DDB_IN_DATAPIPELINE);
    expect_item(r, "{\"id\":{\"S\":\"Seattle\"},\"scores\":{\"NS\":[\"100\",\"30\"]}}");
    expect_item(r, "{\"id\":{\"S\":\"Tokyo\"}}");
    tu_expect_end(r);
    ddb_reader_free(r);
}

Test(datapipeline, bad_lines_are_bad_records_and_reading_goes_on)
{
    ddb_reader *r = open_file("bad.txt",
                              "{\"id\":{\"s\":\"1\"}}\n"
                              "{\"id\":{\"x\":\"1\"}}\n"
                              "{\"id\":{\"n\":\"1e999999\"}}\n"
                              "{\"id\":{\"s\":\"1\",\"n\":\"2\"}}\n"
                              "{\"id\":\"plain\"}\n"
                              "id{\"s\":\"1\"}\n"
                              "id\003{\"s\":\"1\"}\003{\"s\":\"2\"}\n"
                              "\003{\"s\":\"1\"}\n"
                              "id\003{\"s\":\"1\"}\002\002b\003{\"s\":\"2\"}\n"
                              "{\"id\":{\"b\":\"not base64!\"}}\n"
                              "{\"id\":{\"s\":\"2\"}}\n",
                              DDB_IN_AUTO);
    cr_assert_eq(r->format, DDB_IN_DATAPIPELINE);
    expect_item(r, "{\"id\":{\"S\":\"1\"}}");
    expect_bad(r, 2, "unknown type key 'x'");
    expect_bad(r, 3, "id");
    expect_bad(r, 4, "typed value");
    expect_bad(r, 5, "typed value");
    expect_bad(r, 6, "0x03");
    expect_bad(r, 7, "0x03");
    expect_bad(r, 8, "0x03");
    expect_bad(r, 9, "attribute 2");
    expect_bad(r, 10, "id");
    expect_item(r, "{\"id\":{\"S\":\"2\"}}");
    tu_expect_end(r);
    ddb_reader_free(r);
}

/* A plain record whose first attribute happens to be an object like {"s": ...} stays plain. */
Test(datapipeline, plain_records_are_not_taken_for_it)
{
    ddb_reader *r = open_file("p.json", "{\"user\":{\"s\":\"x\"},\"age\":5}\n", DDB_IN_AUTO);
    cr_assert_eq(r->format, DDB_IN_NDJSON);
    ddb_reader_free(r);
    r = open_file("d.json", "{\"user\":{\"S\":\"x\"}}\n", DDB_IN_AUTO);
    cr_assert_eq(r->format, DDB_IN_DDBJSON);
    ddb_reader_free(r);
}

Test(datapipeline, forced_by_name)
{
    ddb_input_format f = DDB_IN_AUTO;
    ddb_reader *r;
    cr_assert_eq(ddb_input_format_parse(&f, "datapipeline"), 0);
    cr_assert_eq(f, DDB_IN_DATAPIPELINE);
    cr_assert_str_eq(ddb_input_format_name(f), "datapipeline");
    /* DynamoDB's own spellings read too, when the format is given */
    r = open_file("f.json", "{\"id\":{\"S\":\"1\"},\"n\":{\"nUllvalue\":true}}\n", f);
    cr_assert_eq(r->format, DDB_IN_DATAPIPELINE);
    expect_item(r, "{\"id\":{\"S\":\"1\"},\"n\":{\"NULL\":true}}");
    ddb_reader_free(r);
}
