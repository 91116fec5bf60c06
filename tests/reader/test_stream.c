/*
 * test_stream.c — DynamoDB Streams records as input: get-records output and
 * Lambda events ({"Records": [..]}), Kinesis Data Streams records one per
 * line or run together; INSERT/MODIFY as puts of NewImage, REMOVE as a
 * delete of Keys, and what is rejected (no NewImage, another eventSource,
 * an unknown key, a bad eventName) without stopping the input.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/reader.h"
#include "support/files.h"
#include "support/readers.h"

static char tdir[64];

static void setup(void)
{
    tu_mkdtemp(tdir, sizeof(tdir), "/tmp/ddb-stream-XXXXXX");
}

static void teardown(void)
{
    tu_rmtree(tdir);
}

TestSuite(stream, .init = setup, .fini = teardown);

static ddb_reader *open_as(const char *name, const char *text, int gzip, ddb_input_format want)
{
    const char *path = gzip ? tu_put_gzip(tdir, name, text) : tu_put_file(tdir, name, text);
    ddb_reader *r = NULL;
    ddb_error err;
    ddb_error_clear(&err);
    cr_assert_eq(ddb_reader_open(&r, path, NULL, &err), 0, "%s: %s", path, err.message);
    cr_assert_eq(r->format, want, "%s: format %s", name, ddb_input_format_name(r->format));
    return r;
}

static ddb_reader *open_stream(const char *name, const char *text, int gzip)
{
    return open_as(name, text, gzip, DDB_IN_JSON);
}

static void expect_change(ddb_reader *r, ddb_record_kind kind, ddb_change_kind change,
                          const char *id)
{
    ddb_record *rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, kind, "kind %d (%s)", rec->kind, rec->reason ? rec->reason : "");
    cr_assert_eq(rec->change, change);
    cr_assert_eq(rec->typed, 1);
    tu_expect_n(&rec->item, "Id", id);
}

static void expect_bad(ddb_reader *r, uint64_t line, const char *why)
{
    ddb_record *rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_BAD, "line %llu", (unsigned long long)rec->line);
    cr_assert_eq(rec->line, line, "line %llu", (unsigned long long)rec->line);
    cr_assert_not_null(strstr(rec->reason, why), "%s", rec->reason);
}

#define REC(name, body) "{\"eventID\":\"1\",\"eventName\":\"" name "\",\"dynamodb\":{" body "}}"
#define KEYS(id) "\"Keys\":{\"Id\":{\"N\":\"" id "\"}}"
#define IMAGE(id, msg) "\"NewImage\":{\"Id\":{\"N\":\"" id "\"},\"Msg\":{\"S\":\"" msg "\"}}"

Test(stream, lambda_event_puts_and_deletes_in_order)
{
    ddb_reader *r = open_stream(
        "event.json",
        "{\"Records\": [\n" REC("INSERT", KEYS("1") "," IMAGE("1", "new")) ",\n" REC(
            "MODIFY",
            KEYS("1") ",\"OldImage\":{\"Id\":{\"N\":\"1\"}}," IMAGE(
                "1",
                "changed")) ",\n" REC("REMOVE",
                                      KEYS("1") ",\"OldImage\":{\"Id\":{\"N\":\"1\"}}") "\n]}\n",
        0);
    ddb_record *rec;
    expect_change(r, DDB_REC_PUT, DDB_CHANGE_INSERT, "1");
    rec = tu_next_ok(r);
    cr_assert_eq(rec->change, DDB_CHANGE_MODIFY);
    cr_assert_eq(rec->line, 3);
    tu_expect_s(&rec->item, "Msg", "changed");
    expect_change(r, DDB_REC_DELETE, DDB_CHANGE_REMOVE, "1");
    tu_expect_end(r);
    ddb_reader_free(r);
}

/* get-records output, "NextShardIterator" before or after "Records", one
 * document after another; a KEYS_ONLY INSERT is rejected, its REMOVE read. */
Test(stream, get_records_output_and_keys_only)
{
    ddb_reader *r = open_stream(
        "get-records.json",
        "{\"NextShardIterator\": \"it|1\",\n \"Records\": [" REC(
            "INSERT",
            KEYS(
                "7") ",\"StreamViewType\":\"KEYS_ONLY\"") ",\n" REC("REMOVE",
                                                                    KEYS(
                                                                        "7")) "]}\n"
                                                                              "{\"Records\": [" REC(
                                                                                  "INSERT",
                                                                                  KEYS("8") "," IMAGE(
                                                                                      "8",
                                                                                      "x")) "], "
                                                                                            "\"Next"
                                                                                            "ShardI"
                                                                                            "terato"
                                                                                            "r\": "
                                                                                            "null}"
                                                                                            "\n",
        0);
    expect_bad(r, 2, "a stream INSERT record without NewImage (StreamViewType KEYS_ONLY)");
    expect_change(r, DDB_REC_DELETE, DDB_CHANGE_REMOVE, "7");
    expect_change(r, DDB_REC_PUT, DDB_CHANGE_INSERT, "8");
    tu_expect_end(r);
    ddb_reader_free(r);
}

/* Kinesis Data Streams records, gzip, one per line and two run together; a
 * TTL removal is a delete like any other. */
Test(stream, kinesis_records_lines_and_run_together)
{
    const char *ttl = "{\"awsRegion\":\"us-west-2\",\"eventID\":\"e\",\"eventName\":\"REMOVE\","
                      "\"userIdentity\":{\"type\":\"Service\",\"principalId\":"
                      "\"dynamodb.amazonaws.com\"},\"recordFormat\":\"application/json\","
                      "\"tableName\":\"T\",\"dynamodb\":{\"ApproximateCreationDateTime\":"
                      "1637189226120042," KEYS("2") ",\"SizeBytes\":9},\"eventSource\":"
                                                    "\"aws:dynamodb\"}";
    char text[2048];
    snprintf(text, sizeof(text),
             "{\"awsRegion\":\"us-west-2\",\"eventID\":\"a\",\"eventName\":\"INSERT\","
             "\"userIdentity\":null,\"recordFormat\":\"application/json\",\"tableName\":\"T\","
             "\"dynamodb\":{\"ApproximateCreationDateTime\":1637189224145960," KEYS("2") "," IMAGE(
                 "2", "k") ",\"SizeBytes\":9},\"eventSource\":\"aws:dynamodb\"}\n%s%s\n",
             ttl, ttl);
    ddb_reader *r = open_stream("kinesis.json.gz", text, 1);
    ddb_record *rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_PUT);
    cr_assert_str_eq(rec->table, "T");
    cr_assert_eq(rec->by_ttl, 0);
    tu_expect_s(&rec->item, "Msg", "k");
    expect_change(r, DDB_REC_DELETE, DDB_CHANGE_REMOVE, "2");
    rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_DELETE);
    cr_assert_eq(rec->by_ttl, 1);
    cr_assert_eq(rec->line, 2);
    tu_expect_end(r);
    ddb_reader_free(r);
}

/* A removal by Time to Live is told by its userIdentity, in the Lambda
 * event's spelling or the API's (GetRecords: PrincipalId, Type); another
 * principal, or a user's removal, is not one. */
Test(stream, removals_by_time_to_live)
{
    static const struct {
        const char *identity;
        int by_ttl;
    } cases[] = {
        {"{\"type\":\"Service\",\"principalId\":\"dynamodb.amazonaws.com\"}", 1},
        {"{\"PrincipalId\":\"dynamodb.amazonaws.com\",\"Type\":\"Service\"}", 1},
        {"{\"type\":\"Service\",\"principalId\":\"events.amazonaws.com\"}", 0},
        {"{\"type\":\"User\",\"principalId\":\"dynamodb.amazonaws.com\"}", 0},
        {"{\"principalId\":\"dynamodb.amazonaws.com\"}", 0},
        {"null", 0},
    };
    char text[512];
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        snprintf(text, sizeof(text),
                 "[{\"eventID\":\"1\",\"eventName\":\"REMOVE\",\"userIdentity\":%s,"
                 "\"dynamodb\":{" KEYS("3") "}}]\n",
                 cases[i].identity);
        ddb_reader *r = open_stream("ttl.json", text, 0);
        ddb_record *rec = tu_next_ok(r);
        cr_assert_eq(rec->kind, DDB_REC_DELETE, "%s", cases[i].identity);
        cr_assert_eq(rec->by_ttl, cases[i].by_ttl, "%s", cases[i].identity);
        tu_expect_end(r);
        ddb_reader_free(r);
    }
}

/* What cannot be applied is rejected, one record at a time, and the input
 * goes on: never the event written as an item. */
Test(stream, records_that_cannot_be_applied_are_rejected)
{
    ddb_reader *r = open_stream(
        "bad.json",
        "[" REC("MODIFY", KEYS("1") ",\"OldImage\":{\"Id\":{\"N\":\"1\"}}") ",\n" REC(
            "UPDATE",
            KEYS("1") "," IMAGE(
                "1",
                "a")) ",\n" REC("INSERT",
                                KEYS("1") "," IMAGE(
                                    "1",
                                    "a") ",\"Extra\":1") ",\n"
                                                         "{\"eventID\":\"1\",\"eventName\":"
                                                         "\"INSERT\",\"eventSource\":\"aws:s3\","
                                                         "\"dynamodb\":{" IMAGE(
                                                             "1",
                                                             "a") "}},\n"
                                                                  "{\"eventID\":\"1\","
                                                                  "\"eventName\":\"INSERT\","
                                                                  "\"dynamodb\":{" IMAGE("1", "a") "},\"extra\":true},\n" REC("REMOVE", "\"SizeBytes\":1") ",\n" REC(
                                                                      "INSERT",
                                                                      "\"NewImage\":{\"Id\":{\"Q\":"
                                                                      "\"x\"}}") ",\n" REC("INSERT",
                                                                                           KEYS("9") "," IMAGE(
                                                                                               "9",
                                                                                               "o"
                                                                                               "k")) "]\n",
        0);
    expect_bad(r, 1, "a stream MODIFY record without NewImage: the item as written is not in it");
    expect_bad(r, 2, "eventName is INSERT, MODIFY or REMOVE");
    expect_bad(r, 3, "unexpected key \"Extra\" in a stream record's \"dynamodb\"");
    expect_bad(r, 4, "not a DynamoDB stream record (eventSource \"aws:s3\")");
    expect_bad(r, 5, "unexpected key \"extra\" in a stream record");
    expect_bad(r, 6, "a stream REMOVE record without Keys");
    expect_bad(r, 7, "");
    expect_change(r, DDB_REC_PUT, DDB_CHANGE_INSERT, "9");
    tu_expect_end(r);
    ddb_reader_free(r);
}

/* Other documents with "Records" (S3 event notifications) and items whose
 * attributes happen to be called eventName and dynamodb stay what they were. */
Test(stream, look_alikes_stay_what_they_were)
{
    ddb_reader *r = open_as("s3.json",
                            "{\"Records\": [{\"eventSource\": \"aws:s3\", \"eventName\": "
                            "\"ObjectCreated:Put\"}]}\n",
                            0, DDB_IN_NDJSON);
    ddb_record *rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_PUT);
    cr_assert_not_null(ddb_map_getz(&rec->item, "Records"));
    tu_expect_end(r);
    ddb_reader_free(r);

    r = open_stream("typed.json",
                    "[{\"eventName\": {\"S\": \"x\"}, \"dynamodb\": {\"S\": \"y\"}}]\n", 0);
    rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_PUT);
    cr_assert_eq(rec->change, DDB_CHANGE_NONE);
    tu_expect_s(&rec->item, "dynamodb", "y");
    tu_expect_end(r);
    ddb_reader_free(r);
}

/* A first record larger than the bytes its document is told from (the
 * first MiB), "dynamodb" before "eventName" as in the Lambda Developer
 * Guide's example event: still a stream event, read whole. */
Test(stream, large_first_record_with_dynamodb_first)
{
    size_t big = 1500 * 1024, cap = big + 1024;
    char *text = malloc(cap), *pad = malloc(big + 1);
    cr_assert_not_null(text);
    cr_assert_not_null(pad);
    memset(pad, 'x', big);
    pad[big] = '\0';
    snprintf(text, cap,
             "{\n  \"Records\": [\n    {\n      \"eventID\": \"1\",\n      \"dynamodb\": {"
             "\"Keys\": {\"Id\": {\"N\": \"1\"}}, \"NewImage\": {\"Id\": {\"N\": \"1\"}, "
             "\"Msg\": {\"S\": \"%s\"}}},\n      \"eventName\": \"INSERT\"\n    }\n  ]\n}\n",
             pad);
    ddb_reader *r = open_stream("big.json", text, 0);
    ddb_record *rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_PUT, "%s", rec->reason ? rec->reason : "");
    cr_assert_eq(rec->change, DDB_CHANGE_INSERT);
    cr_assert_eq(ddb_map_getz(&rec->item, "Msg")->u.s.len, big);
    tu_expect_end(r);
    ddb_reader_free(r);
    free(text);
    free(pad);
}

/* The view type a rejection names is the record's string, nothing else. */
Test(stream, view_type_named_only_when_a_string)
{
    ddb_reader *r =
        open_stream("views.json",
                    "[" REC("INSERT", KEYS("1") ",\"StreamViewType\":\"OLD_IMAGE\"") ",\n" REC(
                        "INSERT", KEYS("1") ",\"StreamViewType\":12345") "]\n",
                    0);
    expect_bad(r, 1, "without NewImage (StreamViewType OLD_IMAGE): the item");
    expect_bad(r, 2, "a stream INSERT record without NewImage: the item");
    tu_expect_end(r);
    ddb_reader_free(r);
}
