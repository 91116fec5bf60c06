/*
 * test_json_docs.c — JSON documents: arrays of items (typed, plain, wrapped,
 * write requests), pretty-printed items, get-item and batch-get output,
 * BatchWriteItem request files with several tables, NoSQL Workbench models
 * in both layouts, documents one after another; detection of each, the
 * refusal to guess a format, and dynamodump backup folders.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ddbpipe/reader.h"
#include "support/files.h"
#include "support/readers.h"
#include "support/testutil.h"

static char tdir[64];

static void setup(void)
{
    tu_mkdtemp(tdir, sizeof(tdir), "/tmp/ddb-json-docs-XXXXXX");
}

static void teardown(void)
{
    tu_rmtree(tdir);
}

TestSuite(jsondoc, .init = setup, .fini = teardown);

/* Opens text saved as name, by content; the format must be want. */
static ddb_reader *open_text(const char *name, const char *text, ddb_input_format want,
                             const ddb_reader_opts *opts)
{
    const char *path = tu_put_file(tdir, name, text);
    ddb_reader *r = NULL;
    ddb_error err;
    ddb_error_clear(&err);
    cr_assert_eq(ddb_reader_open(&r, path, opts, &err), 0, "%s: %s", path, err.message);
    cr_assert_eq(r->format, want, "%s: format %s", name, ddb_input_format_name(r->format));
    return r;
}

static const char *next_fails(ddb_reader *r)
{
    static ddb_error err;
    ddb_record *rec;
    ddb_error_clear(&err);
    int rc = ddb_reader_next(r, &rec, &err);
    cr_assert(rc < 0 && rc != DDB_ITEROVER, "rc %d", rc);
    return err.message;
}

Test(jsondoc, array_of_plain_items_pretty)
{
    ddb_reader *r = open_text("movies.json",
                              "[\n    {\n        \"year\": 2013,\n        \"title\": \"Rush\",\n"
                              "        \"info\": {\"rating\": 8.3, \"genres\": [\"Action\"]}\n"
                              "    },\n    {\"year\": 2013.50, \"title\": \"Prisoners\"}\n]\n",
                              DDB_IN_JSON, NULL);
    ddb_record *rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_PUT);
    cr_assert_eq(rec->typed, 0);
    cr_assert_eq(rec->line, 2);
    tu_expect_n(&rec->item, "year", "2013");
    tu_expect_s(&rec->item, "title", "Rush");
    cr_assert_eq(ddb_map_getz(&rec->item, "info")->type, DDB_TYPE_M);
    rec = tu_next_ok(r);
    cr_assert_eq(rec->line, 7);
    tu_expect_n(&rec->item, "year", "2013.50"); /* the number's own text */
    cr_assert_null(rec->table);
    tu_expect_end(r);
    ddb_reader_free(r);
}

Test(jsondoc, array_of_typed_items_one_line)
{
    ddb_reader *r = open_text("items.json",
                              "[{\"pk\":{\"S\":\"a\"},\"n\":{\"N\":\"1.0\"}},{\"pk\":{\"S\":\"b\"},"
                              "\"s\":{\"SS\":[\"x\"]}}]",
                              DDB_IN_JSON, NULL);
    ddb_record *rec = tu_next_ok(r);
    cr_assert_eq(rec->typed, 1);
    tu_expect_n(&rec->item, "n", "1.0");
    rec = tu_next_ok(r);
    cr_assert_eq(ddb_map_getz(&rec->item, "s")->type, DDB_TYPE_SS);
    tu_expect_end(r);
    ddb_reader_free(r);
}

Test(jsondoc, array_of_item_wrappers_and_a_bad_element)
{
    ddb_reader *r =
        open_text("wrapped.json",
                  "[{\"Item\":{\"pk\":{\"S\":\"a\"}}},\n{\"Item\":{\"pk\":{\"Q\":\"b\"}}},\n"
                  "{\"Item\":{\"pk\":{\"S\":\"c\"}}}]",
                  DDB_IN_JSON, NULL);
    ddb_record *rec = tu_next_ok(r);
    tu_expect_s(&rec->item, "pk", "a");
    rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_BAD);
    cr_assert_eq(rec->line, 2);
    cr_assert_not_null(strstr(rec->raw, "\"Q\""));
    rec = tu_next_ok(r);
    tu_expect_s(&rec->item, "pk", "c");
    tu_expect_end(r);
    ddb_reader_free(r);
}

static const char *batch = "{\n"
                           "  \"Forum\": [\n"
                           "    {\"PutRequest\": {\"Item\": {\"Name\": {\"S\": \"Amazon S3\"},\n"
                           "                              \"Threads\": {\"N\": \"0\"}}}},\n"
                           "    {\"DeleteRequest\": {\"Key\": {\"Name\": {\"S\": \"Old\"}}}}\n"
                           "  ],\n"
                           "  \"Thread\": [\n"
                           "    {\"PutRequest\": {\"Item\": {\"ForumName\": {\"S\": \"S3\"}}}}\n"
                           "  ]\n"
                           "}\n";

Test(jsondoc, batch_write_request_file_first_table)
{
    ddb_reader *r = open_text("batch.json", batch, DDB_IN_JSON, NULL);
    ddb_record *rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_PUT);
    cr_assert_str_eq(rec->table, "Forum");
    cr_assert_eq(rec->line, 3);
    tu_expect_s(&rec->item, "Name", "Amazon S3");
    tu_expect_n(&rec->item, "Threads", "0");
    rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_DELETE);
    cr_assert_eq(rec->item.count, 1);
    tu_expect_s(&rec->item, "Name", "Old");
    /* The next table is not mixed in: its records are rejected. */
    rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_BAD);
    cr_assert_str_eq(rec->table, "Thread");
    cr_assert_not_null(strstr(rec->reason, "table Thread"), "%s", rec->reason);
    cr_assert_not_null(strstr(rec->reason, "read for table Forum (the first it names)"), "%s",
                       rec->reason);
    tu_expect_end(r);
    ddb_reader_free(r);
}

static void collect_warning(void *ctx, const char *msg)
{
    snprintf(ctx, 512, "%s", msg);
}

/* The table named for the run: the others' records are passed over, and said. */
Test(jsondoc, batch_write_request_file_chosen_table)
{
    char warning[512] = "";
    ddb_reader_opts o = {.table = "Thread", .warn = collect_warning, .warn_ctx = warning};
    ddb_reader *r = open_text("batch.json", batch, DDB_IN_JSON, &o);
    ddb_record *rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_PUT);
    cr_assert_str_eq(rec->table, "Thread");
    tu_expect_s(&rec->item, "ForumName", "S3");
    cr_assert_eq(rec->line, 8);
    tu_expect_end(r);
    cr_assert_not_null(strstr(warning, "2 records of table Forum not read (the run reads table "
                                       "Thread)"),
                       "%s", warning);
    ddb_reader_free(r);
}

Test(jsondoc, batch_write_one_line_and_request_items_envelope)
{
    ddb_reader *r =
        open_text("b1.json", "{\"T\":[{\"PutRequest\":{\"Item\":{\"k\":{\"S\":\"1\"}}}}]}\n",
                  DDB_IN_JSON, NULL);
    tu_expect_s(&tu_next_ok(r)->item, "k", "1");
    tu_expect_end(r);
    ddb_reader_free(r);
    r = open_text("b2.json",
                  "{\"RequestItems\":{\"T\":[{\"DeleteRequest\":{\"Key\":{\"k\":{\"S\":\"2\"}}}}]},"
                  "\"ReturnConsumedCapacity\":\"TOTAL\"}",
                  DDB_IN_JSON, NULL);
    cr_assert_eq(tu_next_ok(r)->kind, DDB_REC_DELETE);
    tu_expect_end(r);
    ddb_reader_free(r);
}

Test(jsondoc, malformed_write_requests_are_bad)
{
    ddb_reader *r = open_text("b.json",
                              "{\"T\":[{\"PutRequest\":{\"Item\":{\"k\":{\"S\":\"1\"}}}},\n"
                              "{\"PutRequest\":{\"Key\":{\"k\":{\"S\":\"1\"}}}},\n"
                              "{\"PutRequest\":{\"Item\":{\"k\":{\"S\":\"1\"}}},\"Extra\":1}]}\n",
                              DDB_IN_JSON, NULL);
    tu_next_ok(r);
    cr_assert_not_null(strstr(tu_next_ok(r)->reason, "unexpected key \"Key\""));
    cr_assert_not_null(strstr(tu_next_ok(r)->reason, "unexpected key \"Extra\""));
    tu_expect_end(r);
    ddb_reader_free(r);
}

Test(jsondoc, get_item_output_pretty)
{
    ddb_reader *r = open_text("get.json",
                              "{\n    \"Item\": {\n        \"Id\": {\n            \"N\": \"101\"\n"
                              "        }\n    },\n    \"ConsumedCapacity\": {\"TableName\": "
                              "\"ProductCatalog\", \"CapacityUnits\": 0.5}\n}\n",
                              DDB_IN_JSON, NULL);
    ddb_record *rec = tu_next_ok(r);
    tu_expect_n(&rec->item, "Id", "101");
    cr_assert_eq(rec->line, 2);
    tu_expect_end(r);
    ddb_reader_free(r);
}

Test(jsondoc, pretty_items_one_after_another)
{
    ddb_reader *r = open_text("items.json",
                              "{\n  \"pk\": {\"S\": \"a\"}\n}\n{\n  \"pk\": {\"S\": \"b\"},\n"
                              "  \"m\": {\"M\": {\"x\": {\"N\": \"1\"}}}\n}\n",
                              DDB_IN_JSON, NULL);
    tu_expect_s(&tu_next_ok(r)->item, "pk", "a");
    ddb_record *rec = tu_next_ok(r);
    tu_expect_s(&rec->item, "pk", "b");
    cr_assert_eq(rec->line, 4);
    tu_expect_end(r);
    ddb_reader_free(r);
}

Test(jsondoc, pretty_plain_item)
{
    ddb_reader *r = open_text("one.json", "{\n  \"id\": 7,\n  \"tags\": [\"a\", \"b\"]\n}\n",
                              DDB_IN_JSON, NULL);
    ddb_record *rec = tu_next_ok(r);
    cr_assert_eq(rec->typed, 0);
    tu_expect_n(&rec->item, "id", "7");
    tu_expect_end(r);
    ddb_reader_free(r);
}

Test(jsondoc, batch_get_output)
{
    ddb_reader *r = open_text("bg.json",
                              "{\"Responses\":{\"A\":[{\"k\":{\"S\":\"1\"}}]},"
                              "\"UnprocessedKeys\":{}}\n",
                              DDB_IN_JSON, NULL);
    ddb_record *rec = tu_next_ok(r);
    cr_assert_str_eq(rec->table, "A");
    tu_expect_end(r);
    ddb_reader_free(r);
}

Test(jsondoc, workbench_model_table_data_and_facets)
{
    ddb_reader *r =
        open_text("model.json",
                  "{\n  \"ModelName\": \"Shop\",\n  \"ModelMetadata\": {\"Author\": \"x\"},\n"
                  "  \"DataModel\": [\n    {\n      \"TableName\": \"OnlineShop\",\n"
                  "      \"KeyAttributes\": {\"PartitionKey\": {\"AttributeName\": \"PK\", "
                  "\"AttributeType\": \"S\"}},\n"
                  "      \"TableFacets\": [\n        {\"FacetName\": \"customer\",\n"
                  "         \"TableData\": [{\"PK\": {\"S\": \"c#1\"}}], \"NonKeyAttributes\": "
                  "[]}\n      ],\n"
                  "      \"TableData\": [{\"PK\": {\"S\": \"p#1\"}}, {\"PK\": {\"S\": \"p#2\"}}]\n"
                  "    }\n  ]\n}\n",
                  DDB_IN_JSON, NULL);
    ddb_record *rec = tu_next_ok(r);
    tu_expect_s(&rec->item, "PK", "c#1");
    cr_assert_str_eq(rec->table, "OnlineShop");
    tu_expect_s(&tu_next_ok(r)->item, "PK", "p#1");
    tu_expect_s(&tu_next_ok(r)->item, "PK", "p#2");
    tu_expect_end(r);
    ddb_reader_free(r);
}

Test(jsondoc, envelope_without_items_is_an_error)
{
    ddb_reader *r = open_text("c.json", "{\n  \"Count\": 0\n}\n", DDB_IN_JSON, NULL);
    cr_assert_not_null(strstr(next_fails(r), "holds no items"));
    ddb_reader_free(r);
}

Test(jsondoc, truncated_array_is_an_error)
{
    ddb_reader *r = open_text("t.json", "[\n{\"a\": 1},\n{\"a\": 2}", DDB_IN_JSON, NULL);
    tu_next_ok(r);
    tu_next_ok(r);
    cr_assert_not_null(strstr(next_fails(r), "ends inside an array that starts at line 1"));
    ddb_reader_free(r);
    r = open_text("u.json", "[\n{\"a\": 1},\n{\"a\": \"2}\n", DDB_IN_JSON, NULL);
    tu_next_ok(r);
    cr_assert_not_null(strstr(next_fails(r), "line 3: malformed JSON"));
    ddb_reader_free(r);
}

Test(jsondoc, resume_skips_elements_before_the_position)
{
    ddb_reader *r = open_text("p.json", "[{\"a\":1},\n{\"a\":2},\n{\"a\":3}]", DDB_IN_JSON, NULL);
    ddb_record *rec;
    uint64_t second;
    tu_next_ok(r);
    second = tu_next_ok(r)->pos;
    ddb_reader_free(r);
    r = open_text("p.json", "[{\"a\":1},\n{\"a\":2},\n{\"a\":3}]", DDB_IN_JSON, NULL);
    ddb_error err;
    cr_assert_eq(r->vt->skip_to(r, second, &err), 0);
    rec = tu_next_ok(r);
    tu_expect_n(&rec->item, "a", "2");
    cr_assert_eq(rec->line, 2);
    tu_expect_n(&tu_next_ok(r)->item, "a", "3");
    tu_expect_end(r);
    ddb_reader_free(r);
}

/* TransactWriteItems request files (aws dynamodb transact-write-items
 * --transact-items file://..): a Put is its Item, a Delete its Key to delete;
 * an Update and a ConditionCheck carry no item and are rejected saying so.
 * Each action names its table: the first named is read, the others' rejected. */
Test(jsondoc, transact_write_items_actions)
{
    ddb_reader *r = open_text(
        "transact-items.json",
        "[\n"
        "  {\"Put\": {\"Item\": {\"Artist\": {\"S\": \"Acme Band\"}, \"Year\": {\"N\": "
        "\"2020\"}},\n"
        "           \"TableName\": \"MusicCollection\",\n"
        "           \"ConditionExpression\": \"attribute_not_exists(Artist)\"}},\n"
        "  {\"Update\": {\"Key\": {\"Artist\": {\"S\": \"Acme Band\"}},\n"
        "              \"UpdateExpression\": \"SET AlbumTitle = :v\",\n"
        "              \"ExpressionAttributeValues\": {\":v\": {\"S\": \"New\"}},\n"
        "              \"TableName\": \"MusicCollection\"}},\n"
        "  {\"Delete\": {\"Key\": {\"Artist\": {\"S\": \"No One You Know\"}},\n"
        "              \"TableName\": \"MusicCollection\"}},\n"
        "  {\"ConditionCheck\": {\"Key\": {\"Artist\": {\"S\": \"x\"}}, \"TableName\": "
        "\"MusicCollection\",\n"
        "                      \"ConditionExpression\": \"attribute_exists(Artist)\"}},\n"
        "  {\"Put\": {\"TableName\": \"Other\", \"Item\": {\"Artist\": {\"S\": \"y\"}}}},\n"
        "  {\"Put\": {\"Key\": {\"Artist\": {\"S\": \"z\"}}, \"TableName\": "
        "\"MusicCollection\"}},\n"
        "  {\"Delete\": {\"TableName\": \"MusicCollection\"}}\n"
        "]\n",
        DDB_IN_JSON, NULL);
    ddb_record *rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_PUT);
    cr_assert_eq(rec->typed, 1);
    cr_assert_eq(rec->line, 2);
    cr_assert_str_eq(rec->table, "MusicCollection");
    cr_assert_eq(rec->item.count, 2);
    tu_expect_s(&rec->item, "Artist", "Acme Band");
    tu_expect_n(&rec->item, "Year", "2020");
    rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_BAD);
    cr_assert_eq(rec->line, 5);
    cr_assert_not_null(strstr(rec->reason, "a TransactWriteItems Update carries no item"), "%s",
                       rec->reason);
    rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_DELETE);
    cr_assert_eq(rec->item.count, 1);
    tu_expect_s(&rec->item, "Artist", "No One You Know");
    rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_BAD);
    cr_assert_not_null(strstr(rec->reason, "a TransactWriteItems ConditionCheck carries no item"),
                       "%s", rec->reason);
    rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_BAD);
    cr_assert_str_eq(rec->table, "Other");
    cr_assert_not_null(strstr(rec->reason, "read for table MusicCollection"), "%s", rec->reason);
    rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_BAD);
    cr_assert_not_null(strstr(rec->reason, "unexpected key \"Key\" in a TransactWriteItems Put"),
                       "%s", rec->reason);
    rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_BAD);
    cr_assert_not_null(strstr(rec->reason, "a TransactWriteItems Delete without a Key"), "%s",
                       rec->reason);
    tu_expect_end(r);
    ddb_reader_free(r);
}

/* With the table named for the run, the other tables' actions are passed
 * over and counted; a plain item whose attribute happens to be "Put" stays an
 * item. */
Test(jsondoc, transact_write_items_chosen_table_and_a_put_attribute)
{
    char warning[512] = "";
    ddb_reader_opts o = {.table = "B", .warn = collect_warning, .warn_ctx = warning};
    ddb_reader *r = open_text("t.json",
                              "[{\"Put\":{\"TableName\":\"A\",\"Item\":{\"k\":{\"S\":\"1\"}}}},\n"
                              "{\"Delete\":{\"TableName\":\"B\",\"Key\":{\"k\":{\"S\":\"2\"}}}}]\n",
                              DDB_IN_JSON, &o);
    ddb_record *rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_DELETE);
    cr_assert_str_eq(rec->table, "B");
    tu_expect_end(r);
    cr_assert_not_null(strstr(warning, "1 record of table A not read"), "%s", warning);
    ddb_reader_free(r);
    r = open_text("p.json", "[\n{\"Put\": {\"where\": \"shelf\"}, \"n\": 1}\n]\n", DDB_IN_JSON,
                  NULL);
    rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_PUT);
    cr_assert_eq(rec->typed, 0);
    tu_expect_n(&rec->item, "n", "1");
    tu_expect_end(r);
    ddb_reader_free(r);
}

/* TransactGetItems output: its items are the responses' Items; a response
 * without one (a key not found: {} or null) holds no item. */
Test(jsondoc, transact_get_items_output)
{
    ddb_reader *r = open_text(
        "tg.json",
        "{\n  \"ConsumedCapacity\": [{\"TableName\": \"T\", \"CapacityUnits\": 4.0}],\n"
        "  \"Responses\": [\n    {\"Item\": {\"k\": {\"S\": \"1\"}}},\n    {},\n    null,\n"
        "    {\"Item\": {\"k\": {\"S\": \"2\"}, \"n\": {\"N\": \"7\"}}}\n  ]\n}\n",
        DDB_IN_JSON, NULL);
    ddb_record *rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_PUT);
    cr_assert_eq(rec->line, 4);
    tu_expect_s(&rec->item, "k", "1");
    rec = tu_next_ok(r);
    cr_assert_eq(rec->line, 7);
    tu_expect_s(&rec->item, "k", "2");
    tu_expect_n(&rec->item, "n", "7");
    tu_expect_end(r);
    ddb_reader_free(r);
    r = open_text("tg1.json", "{\"Responses\":[{\"Item\":{\"k\":{\"S\":\"1\"}}},{\"Item\":{}}]}\n",
                  DDB_IN_JSON, NULL);
    tu_expect_s(&tu_next_ok(r)->item, "k", "1");
    cr_assert_eq(tu_next_ok(r)->item.count, 0);
    tu_expect_end(r);
    ddb_reader_free(r);
}

/* A query or scan with Select COUNT: Count and ScannedCount, no Items. An
 * input of 0 records, said in a warning; on one line too (a document, not a
 * plain record with attributes Count and ScannedCount). */
Test(jsondoc, select_count_output_holds_no_records)
{
    char warning[512] = "";
    ddb_reader_opts o = {.warn = collect_warning, .warn_ctx = warning};
    ddb_reader *r = open_text(
        "count.json",
        "{\n    \"Count\": 12,\n    \"ScannedCount\": 40,\n    \"ConsumedCapacity\": null\n}\n",
        DDB_IN_JSON, &o);
    tu_expect_end(r);
    cr_assert_not_null(strstr(warning, "count.json: line 1: a query or scan answer with Select "
                                       "COUNT (Count 12): it holds no items, 0 records read"),
                       "%s", warning);
    ddb_reader_free(r);
    r = open_text("count1.json", "{\"Count\":3,\"ScannedCount\":3}\n", DDB_IN_JSON, NULL);
    tu_expect_end(r);
    ddb_reader_free(r);
}

/* An input error naming the file, the top-level keys and the shapes known. */
static void expect_typed_refused(const char *name, const char *text, ddb_input_format format,
                                 const char *keys)
{
    ddb_reader *r = open_text(name, text, format, NULL);
    const char *msg = next_fails(r);
    cr_assert_not_null(strstr(msg, name), "%s", msg);
    cr_assert_not_null(strstr(msg, "DynamoDB JSON values"), "%s", msg);
    cr_assert_not_null(strstr(msg, keys), "%s", msg);
    cr_assert_not_null(strstr(msg, "ddbpipe reads items"), "%s", msg);
    ddb_reader_free(r);
}

/* DynamoDB JSON under an envelope ddbpipe does not know is never read as
 * plain items: "Records" whose elements are not stream records (no
 * eventName, or not an object with "dynamodb"), an array of such, NDJSON
 * lines of them. (Stream records themselves are read: test_stream.c.) */
Test(jsondoc, dynamodb_json_under_unknown_keys_is_refused)
{
    expect_typed_refused("s3.json",
                         "{\n  \"Records\": [\n    {\"eventSource\": \"aws:s3\",\n"
                         "     \"s3\": {\"object\": {\"key\": {\"S\": \"a.txt\"}}}}\n  ]\n}\n",
                         DDB_IN_JSON, "(Records)");
    expect_typed_refused("records.json",
                         "[\n  {\"eventID\": \"1\", \"event\": \"REMOVE\",\n"
                         "   \"dynamodb\": {\"Keys\": {\"Id\": {\"N\": \"101\"}}}}\n]\n",
                         DDB_IN_JSON, "(eventID, event, dynamodb)");
    expect_typed_refused(
        "records.ndjson",
        "{\"eventName\":\"INSERT\",\"change\":{\"NewImage\":{\"a\":{\"BOOL\":true}}}}\n"
        "{\"eventName\":\"INSERT\",\"change\":{\"NewImage\":{\"a\":{\"S\":\"x\"}}}}\n",
        DDB_IN_NDJSON, "(eventName, change)");
    expect_typed_refused("stream1.json",
                         "{\"Records\":[{\"dynamodb\":{\"Keys\":{\"Id\":{\"N\":\"1\"}}}}]}\n",
                         DDB_IN_NDJSON, "{\"N\": ...} in \"Records\"");
}

/* Each shape of a DynamoDB JSON value (one key, a type name, a value of that
 * type's JSON kind) is refused; objects that are not one (a second key, a
 * number for N, an unknown name, a wrong kind) are plain values as before. */
Test(jsondoc, what_looks_like_dynamodb_json)
{
    static const char *const typed[] = {
        "{\"S\": \"x\"}",    "{\"N\": \"1\"}", "{\"B\": \"AA==\"}", "{\"BOOL\": false}",
        "{\"NULL\": true}",  "{\"M\": {}}",    "{\"L\": []}",       "{\"SS\": [\"a\"]}",
        "{\"NS\": [\"1\"]}", "{\"BS\": []}"};
    static const char *const plain[] = {"{\"S\": \"x\", \"t\": 1}",
                                        "{\"N\": 1}",
                                        "{\"Q\": \"x\"}",
                                        "{\"BOOL\": \"yes\"}",
                                        "{\"NULL\": null}",
                                        "{\"M\": []}",
                                        "{\"L\": {}}",
                                        "{\"SS\": \"a\"}",
                                        "{}",
                                        "{\"s\": \"x\"}",
                                        "[{\"n\": {\"x\": 1}}]"};
    char text[256];
    for (size_t i = 0; i < sizeof(typed) / sizeof(typed[0]); i++) {
        snprintf(text, sizeof(text), "{\"id\": 1,\n \"deep\": [{\"v\": %s}]}\n", typed[i]);
        expect_typed_refused("typed.json", text, DDB_IN_JSON, "(id, deep)");
    }
    for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
        snprintf(text, sizeof(text), "{\"id\": 1,\n \"deep\": [{\"v\": %s}]}\n", plain[i]);
        ddb_reader *r = open_text("plain.json", text, DDB_IN_JSON, NULL);
        ddb_record *rec = tu_next_ok(r);
        cr_assert_eq(rec->kind, DDB_REC_PUT, "%s", plain[i]);
        cr_assert_eq(rec->typed, 0);
        cr_assert_eq(ddb_map_getz(&rec->item, "deep")->type, DDB_TYPE_L);
        tu_expect_end(r);
        ddb_reader_free(r);
    }
}

/* After plain records, one holding DynamoDB JSON is rejected (the input was
 * plain until then); "_extra" (ddbpipe's own records keep undeclared
 * attributes there, typed) is not looked into; a format given reads it all
 * as plain JSON, as asked. */
Test(jsondoc, typed_values_after_plain_records_extra_and_forced)
{
    const char *text = "[\n{\"id\": 1, \"_extra\": {\"x\": {\"S\": \"kept\"}}},\n"
                       "{\"id\": 2, \"meta\": {\"S\": \"x\"}},\n{\"id\": 3}\n]\n";
    ddb_reader_opts forced = {.format = DDB_IN_JSON};
    ddb_reader *r = open_text("mixed.json", text, DDB_IN_JSON, NULL);
    ddb_record *rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_PUT);
    cr_assert_eq(ddb_map_getz(&rec->item, "_extra")->type, DDB_TYPE_M);
    rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_BAD);
    cr_assert_eq(rec->line, 3);
    cr_assert_not_null(strstr(rec->reason, "{\"S\": ...} in \"meta\""), "%s", rec->reason);
    tu_expect_n(&tu_next_ok(r)->item, "id", "3");
    tu_expect_end(r);
    ddb_reader_free(r);
    r = open_text("forced.json", "{\n \"Records\": [{\"a\": {\"S\": \"x\"}}]\n}\n", DDB_IN_JSON,
                  &forced);
    rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_PUT);
    cr_assert_eq(ddb_map_getz(&rec->item, "Records")->type, DDB_TYPE_L);
    tu_expect_end(r);
    ddb_reader_free(r);
}

/* One object per line stays with the line readers (a bad line does not end
 * the file); the same objects pretty-printed are a document. */
Test(jsondoc, lines_stay_lines)
{
    ddb_reader *r = open_text("l.json", "{\"Item\":{\"a\":{\"S\":\"1\"}}}\n{\"Item\":{}}\n",
                              DDB_IN_DDBJSON, NULL);
    ddb_reader_free(r);
    r = open_text("l.ndjson", "{\"a\":1}\n{\"a\":2}\n", DDB_IN_NDJSON, NULL);
    ddb_reader_free(r);
}

static void expect_refused(const char *name, const char *text)
{
    const char *path = tu_put_file(tdir, name, text);
    ddb_reader *r = (ddb_reader *)1;
    ddb_error err;
    cr_assert_eq(ddb_reader_open(&r, path, NULL, &err), DDB_EUSAGE, "%s", name);
    cr_assert_null(r);
    cr_assert_not_null(strstr(err.message, "cannot tell the format"), "%s", err.message);
}

/* Neither clearly CSV nor JSON: an error, never a guess. */
Test(jsondoc, neither_csv_nor_json_is_refused)
{
    expect_refused("notes.txt", "just some words\nand more words\n");
    expect_refused("page.html", "<html><body>x,y</body></html>\n");
    expect_refused("blob.bin", "a,b\n\x01\x00\xff,\xfe\n");
    expect_refused("uneven.dat", "a,b,c\nd,e\n");
}

Test(jsondoc, clearly_csv_is_accepted)
{
    ddb_reader_free(open_text("rows.dat", "a,b\n1,2\n", DDB_IN_CSV, NULL));
    ddb_reader_free(open_text("one.csv", "name\nx\n", DDB_IN_CSV, NULL));
    ddb_reader_free(open_text("tabs.txt", "a\tb\tc\n1\t2\t3\n", DDB_IN_CSV, NULL));
}

/* ------------------------------------------------------------ dynamodump */

static void put_dump(const char *table)
{
    char dir[512], data[600];
    snprintf(dir, sizeof(dir), "%s/dump/%s", tdir, table);
    snprintf(data, sizeof(data), "%s/data", dir);
    cr_assert_eq(mkdir(tu_path(tdir, "dump"), 0755) == 0 || 1, 1);
    cr_assert_eq(mkdir(dir, 0755), 0);
    cr_assert_eq(mkdir(data, 0755), 0);
    tu_put_file(dir, "schema.json",
                "{\n  \"Table\": {\n    \"AttributeDefinitions\": [{\"AttributeName\": \"id\", "
                "\"AttributeType\": \"N\"}],\n    \"TableName\": \"testTable\",\n"
                "    \"KeySchema\": [{\"KeyType\": \"HASH\", \"AttributeName\": \"id\"}]\n  }\n}");
    tu_put_file(data, "0002.json",
                "{\n  \"Count\": 1,\n  \"Items\": [\n    {\"id\": {\"N\": \"3\"}}\n  ]\n}");
    tu_put_file(data, "0001.json",
                "{\n  \"Count\": 2,\n  \"Items\": [\n    {\"id\": {\"N\": \"1\"}, \"b\": {\"B\": "
                "\"AAE=\"}},\n    {\"id\": {\"S\": \"2\"}}\n  ],\n  \"ScannedCount\": 2\n}");
}

Test(jsondoc, dynamodump_table_folder)
{
    ddb_reader *r = NULL;
    ddb_record *rec;
    ddb_error err;
    put_dump("testTable");
    /* The dump folder holding one table, or the table's own folder. */
    for (int k = 0; k < 2; k++) {
        char path[512];
        snprintf(path, sizeof(path), "%s/dump%s", tdir, k ? "/testTable" : "");
        cr_assert_eq(ddb_reader_open(&r, path, NULL, &err), 0, "%s", err.message);
        cr_assert_eq(r->format, DDB_IN_DYNAMODUMP);
        cr_assert_null(r->entity_hint);
        rec = tu_next_ok(r);
        tu_expect_n(&rec->item, "id", "1");
        tu_expect_bytes(&rec->item, "b", DDB_TYPE_B, "\0\1", 2);
        cr_assert_str_eq(rec->table, "testTable");
        cr_assert_not_null(strstr(rec->source, "0001.json"));
        rec = tu_next_ok(r);
        cr_assert_eq(rec->kind, DDB_REC_BAD); /* the key is a number */
        cr_assert_not_null(strstr(rec->reason, "the key of table testTable"), "%s", rec->reason);
        rec = tu_next_ok(r);
        tu_expect_n(&rec->item, "id", "3");
        cr_assert_not_null(strstr(rec->source, "0002.json"));
        tu_expect_end(r);
        ddb_reader_free(r);
    }
}

Test(jsondoc, folder_of_two_dynamodump_tables_is_refused)
{
    ddb_reader *r = (ddb_reader *)1;
    ddb_error err;
    put_dump("a");
    put_dump("b");
    cr_assert_eq(ddb_reader_open(&r, tu_path(tdir, "dump"), NULL, &err), DDB_EUSAGE);
    cr_assert_not_null(strstr(err.message, "2 dynamodump tables"), "%s", err.message);
}

/* A dynamodump folder is one input, never a folder of files (its schema.json
 * would be read as items); a folder of files beside it still lists them. */
Test(jsondoc, dynamodump_folder_is_not_a_folder_of_files)
{
    char **files = NULL;
    size_t n = 7;
    ddb_error err;
    put_dump("testTable");
    for (int k = 0; k < 2; k++) {
        char path[512];
        snprintf(path, sizeof(path), "%s/dump%s", tdir, k ? "/testTable" : "");
        cr_assert_eq(ddb_reader_list_folder(&files, &n, path, 0, &err), 0, "%s", err.message);
        cr_assert_eq(n, 0, "%s listed as %zu files", path, n);
        cr_assert_null(files);
    }
    cr_assert_eq(mkdir(tu_path(tdir, "docs"), 0777), 0);
    tu_put_file(tdir, "docs/b.json", "[{\"pk\": \"b\"}]");
    tu_put_file(tdir, "docs/a.json", "[{\"pk\": \"a\"}]");
    cr_assert_eq(ddb_reader_list_folder(&files, &n, tu_path(tdir, "docs"), 0, &err), 0, "%s",
                 err.message);
    cr_assert_eq(n, 2);
    cr_assert_not_null(strstr(files[0], "/a.json"));
    for (size_t i = 0; i < n; i++)
        free(files[i]);
    free(files);
}
