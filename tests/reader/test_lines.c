/*
 * test_lines.c — the line readers (DynamoDB JSON lines and plain NDJSON):
 * positions, blank lines, bad lines, mixed shapes, over-long lines.
 */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "ddbpipe/reader.h"
#include "ddbpipe/source.h"
#include "support/readers.h"
#include "support/testutil.h"

static ddb_reader *lines_over(const char *text, ddb_input_format kind, size_t max_line)
{
    ddb_source *src = tu_memory_source(text, strlen(text), "mem.json");
    ddb_reader *r = NULL;
    ddb_reader_opts o;
    ddb_error err;
    memset(&o, 0, sizeof(o));
    o.max_line = max_line;
    cr_assert_eq(ddb_reader_new_lines(&r, src, kind, "mem.json", &o, &err), 0, "%s", err.message);
    return r;
}

static void expect_raw(const ddb_record *rec, const char *want)
{
    cr_assert_not_null(rec->raw);
    cr_assert_eq(rec->raw_len, strlen(want), "raw %.*s", (int)rec->raw_len, rec->raw);
    cr_assert_eq(memcmp(rec->raw, want, rec->raw_len), 0, "raw %.*s", (int)rec->raw_len, rec->raw);
}

#define L1 "{\"Item\":{\"a\":{\"S\":\"1\"}}}"
#define L4 "{\"Item\":{\"a\":{\"S\":\"2\"}}}"
#define L5 "{\"Item\":{\"a\":{\"S\":\"3\"}}}"

Test(lines, positions_and_blank_lines)
{
    /* line 2 empty, line 3 spaces: skipped but counted; CRLF on line 4; no
     * newline after the last line */
    const char *text = L1 "\n"
                          "\n"
                          "   \t\n" L4 "\r\n" L5;
    ddb_reader *r = lines_over(text, DDB_IN_DDBJSON, 0);
    ddb_record *rec;

    rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_PUT);
    cr_assert_eq(rec->line, 1);
    cr_assert_eq(rec->offset, 0);
    expect_raw(rec, L1);
    tu_expect_s(&rec->item, "a", "1");
    cr_assert_str_eq(rec->source, "mem.json");

    rec = tu_next_ok(r);
    cr_assert_eq(rec->line, 4);
    cr_assert_eq(rec->offset, strlen(L1) + 1 + 1 + 5);
    expect_raw(rec, L4);
    tu_expect_s(&rec->item, "a", "2");

    rec = tu_next_ok(r);
    cr_assert_eq(rec->line, 5);
    cr_assert_eq(rec->offset, strlen(L1) + 1 + 1 + 5 + strlen(L4) + 2);
    expect_raw(rec, L5);
    tu_expect_s(&rec->item, "a", "3");
    tu_expect_end(r);
    ddb_reader_free(r);
}

Test(lines, bad_line_then_good)
{
    const char *bad = "{\"Item\":{\"a\":{\"S\": }}}";
    char text[256];
    ddb_reader *r;
    ddb_record *rec;
    snprintf(text, sizeof(text), "%s\n%s\n%s\n", L1, bad, L4);
    r = lines_over(text, DDB_IN_DDBJSON, 0);

    rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_PUT);
    rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_BAD);
    cr_assert_eq(rec->line, 2);
    cr_assert_eq(rec->offset, strlen(L1) + 1);
    cr_assert_not_null(rec->reason);
    cr_assert_gt(strlen(rec->reason), 0);
    cr_assert_eq(rec->item.count, 0);
    expect_raw(rec, bad);
    rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_PUT);
    cr_assert_eq(rec->line, 3);
    cr_assert_null(rec->reason);
    tu_expect_s(&rec->item, "a", "2");
    tu_expect_end(r);
    ddb_reader_free(r);
}

Test(lines, not_json_at_all)
{
    ddb_reader *r = lines_over("hello world\n" L1 "\n", DDB_IN_DDBJSON, 0);
    ddb_record *rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_BAD);
    cr_assert_eq(rec->line, 1);
    expect_raw(rec, "hello world");
    rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_PUT);
    tu_expect_s(&rec->item, "a", "1");
    tu_expect_end(r);
    ddb_reader_free(r);
}

Test(lines, mixed_shapes_bare_after_item)
{
    const char *text = L1 "\n"
                          "{\"a\":{\"S\":\"bare\"},\"n\":{\"N\":\"7\"}}\n" L4 "\n";
    ddb_reader *r = lines_over(text, DDB_IN_DDBJSON, 0);
    ddb_record *rec;

    rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_PUT);
    tu_expect_s(&rec->item, "a", "1");
    rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_PUT, "reason: %s", rec->reason ? rec->reason : "");
    cr_assert_eq(rec->item.count, 2);
    tu_expect_s(&rec->item, "a", "bare");
    rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_PUT, "reason: %s", rec->reason ? rec->reason : "");
    cr_assert_eq(rec->item.count, 1);
    tu_expect_s(&rec->item, "a", "2");
    tu_expect_end(r);
    ddb_reader_free(r);
}

Test(lines, mixed_shapes_change_after_item)
{
    const char *text = L1 "\n"
                          "{\"Keys\":{\"a\":{\"S\":\"k\"}},\"OldImage\":{\"a\":{\"S\":\"k\"}}}\n";
    ddb_reader *r = lines_over(text, DDB_IN_DDBJSON, 0);
    ddb_record *rec;
    rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_PUT);
    cr_assert_eq(rec->change, DDB_CHANGE_NONE);
    rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_DELETE);
    cr_assert_eq(rec->change, DDB_CHANGE_REMOVE);
    tu_expect_s(&rec->item, "a", "k");
    tu_expect_end(r);
    ddb_reader_free(r);
}

Test(lines, item_envelope_with_unknown_key_is_bad)
{
    /* never half-read: an Item line with an extra envelope key is rejected */
    ddb_reader *r = lines_over(L1 "\n{\"Item\":{\"a\":{\"S\":\"x\"}},\"Extra\":1}\n" L4 "\n",
                               DDB_IN_DDBJSON, 0);
    ddb_record *rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_PUT);
    rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_BAD);
    cr_assert_eq(rec->line, 2);
    rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_PUT);
    tu_expect_end(r);
    ddb_reader_free(r);
}

Test(lines, over_long_line_is_bad_and_reading_goes_on)
{
    char text[1024];
    char longline[300];
    ddb_reader *r;
    ddb_record *rec;
    memset(longline, 'x', sizeof(longline) - 1);
    longline[sizeof(longline) - 1] = '\0';
    memcpy(longline, "{\"Item\":{\"a\":{\"S\":\"", 19);
    snprintf(text, sizeof(text), "%s\n%s\n%s\n", L1, longline, L4);
    r = lines_over(text, DDB_IN_DDBJSON, 64);

    rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_PUT);
    cr_assert_eq(rec->line, 1);
    rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_BAD);
    cr_assert_eq(rec->line, 2);
    cr_assert_not_null(rec->reason);
    cr_assert_not_null(strstr(rec->reason, "64"), "reason: %s", rec->reason);
    cr_assert_eq(rec->offset, strlen(L1) + 1);
    cr_assert_eq(rec->item.count, 0);
    rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_PUT);
    cr_assert_eq(rec->line, 3);
    cr_assert_eq(rec->offset, strlen(L1) + 1 + strlen(longline) + 1);
    tu_expect_s(&rec->item, "a", "2");
    tu_expect_end(r);
    ddb_reader_free(r);
}

Test(lines, ndjson_values_and_non_objects)
{
    const char *text = "{\"n\":1.50e3,\"big\":123456789012345678901234567890,\"b\":true,"
                       "\"z\":null,\"l\":[1,\"x\"]}\n"
                       "[1,2]\n"
                       "42\n"
                       "{\"ok\":\"yes\"}\n";
    ddb_reader *r = lines_over(text, DDB_IN_NDJSON, 0);
    ddb_record *rec;
    const ddb_value *v;

    cr_assert_eq(r->format, DDB_IN_NDJSON);
    rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_PUT);
    cr_assert_eq(rec->typed, 0);
    v = ddb_map_getz(&rec->item, "n");
    cr_assert_eq(v->type, DDB_TYPE_N);
    cr_assert_eq(v->u.s.len, 6);
    cr_assert_eq(memcmp(v->u.s.ptr, "1.50e3", 6), 0, "numbers keep their text");
    v = ddb_map_getz(&rec->item, "big");
    cr_assert_eq(v->u.s.len, 30);
    cr_assert_eq(ddb_map_getz(&rec->item, "z")->type, DDB_TYPE_NULL);
    cr_assert_eq(ddb_map_getz(&rec->item, "l")->u.l.count, 2);

    rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_BAD);
    cr_assert_eq(rec->line, 2);
    expect_raw(rec, "[1,2]");
    cr_assert_not_null(strstr(rec->reason, "object"), "%s", rec->reason);
    rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_BAD);
    cr_assert_eq(rec->line, 3);
    rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_PUT);
    cr_assert_eq(rec->line, 4);
    tu_expect_s(&rec->item, "ok", "yes");
    tu_expect_end(r);
    ddb_reader_free(r);
}

/* A plain line holding DynamoDB JSON ({"S": "x"} as a value): the first line
 * refuses the input, naming it and its keys; after plain lines it is
 * rejected; with the format given it is read as the plain JSON asked for. */
Test(lines, ndjson_holding_dynamodb_json)
{
    const char *stream =
        "{\"eventName\":\"INSERT\",\"dynamodb\":{\"Keys\":{\"Id\":{\"N\":\"1\"}}}}\n";
    const char *later = "{\"a\":1}\n{\"a\":{\"S\":\"x\"}}\n{\"a\":{\"S\":\"x\",\"n\":1}}\n";
    ddb_reader *r = lines_over(stream, DDB_IN_NDJSON, 0);
    ddb_reader_opts o;
    ddb_record *rec;
    ddb_error err;
    cr_assert_lt(ddb_reader_next(r, &rec, &err), 0);
    cr_assert_not_null(strstr(err.message, "mem.json: line 1: DynamoDB JSON values ({\"N\": ...} "
                                           "in \"dynamodb\") under top-level keys ddbpipe knows "
                                           "no shape of (eventName, dynamodb)"),
                       "%s", err.message);
    ddb_reader_free(r);

    r = lines_over(later, DDB_IN_NDJSON, 0);
    tu_expect_n(&tu_next_ok(r)->item, "a", "1");
    rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_BAD);
    cr_assert_eq(rec->line, 2);
    cr_assert_not_null(strstr(rec->reason, "{\"S\": ...} in \"a\""), "%s", rec->reason);
    rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_PUT);
    cr_assert_eq(ddb_map_getz(&rec->item, "a")->u.m.count, 2);
    tu_expect_end(r);
    ddb_reader_free(r);

    memset(&o, 0, sizeof(o));
    o.format = DDB_IN_NDJSON;
    cr_assert_eq(ddb_reader_new_lines(&r, tu_memory_source(stream, strlen(stream), "mem.json"),
                                      DDB_IN_NDJSON, "mem.json", &o, &err),
                 0);
    rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_PUT);
    cr_assert_eq(ddb_map_getz(&rec->item, "dynamodb")->type, DDB_TYPE_M);
    tu_expect_end(r);
    ddb_reader_free(r);
}

Test(lines, ndjson_bad_json_reason_and_text)
{
    ddb_reader *r = lines_over("{\"a\":\"x\"\n{\"a\":\"y\"}\n", DDB_IN_NDJSON, 0);
    ddb_record *rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_BAD);
    expect_raw(rec, "{\"a\":\"x\"");
    cr_assert_not_null(rec->reason);
    rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_PUT);
    tu_expect_s(&rec->item, "a", "y");
    tu_expect_end(r);
    ddb_reader_free(r);
}

Test(lines, change_fields_reset_between_records)
{
    /* a plain Item line after a change line carries no change kind or time */
    const char *text =
        "{\"Metadata\":{\"WriteTimestampMicros\":{\"N\":\"5\"}},\"Keys\":{\"a\":{\"S\":\"1\"}},"
        "\"NewImage\":{\"a\":{\"S\":\"1\"}}}\n"
        "{\"Metadata\":{\"WriteTimestampMicros\":{\"N\":\"6\"}},\"Keys\":{\"a\":{\"S\":\"2\"}},"
        "\"NewImage\":{\"a\":{\"S\":\"2\"}},\"OldImage\":{\"a\":{\"S\":\"1\"}}}\n" L1 "\n";
    ddb_reader *r = lines_over(text, DDB_IN_DDBJSON, 0);
    ddb_record *rec = tu_next_ok(r);
    cr_assert_eq(rec->change, DDB_CHANGE_INSERT);
    cr_assert_eq(rec->write_time.len, 1);
    rec = tu_next_ok(r);
    cr_assert_eq(rec->change, DDB_CHANGE_MODIFY);
    tu_expect_s(&rec->item, "a", "2");
    rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_PUT, "%s", rec->reason ? rec->reason : "");
    cr_assert_eq(rec->change, DDB_CHANGE_NONE);
    cr_assert_eq(rec->write_time.len, 0);
    tu_expect_s(&rec->item, "a", "1");
    tu_expect_end(r);
    ddb_reader_free(r);
}

Test(lines, entity_hint_from_name_and_option)
{
    ddb_source *src = NULL;
    ddb_reader *r = NULL;
    ddb_reader_opts o;
    ddb_error err;
    ddb_record *rec;
    memset(&o, 0, sizeof(o));
    cr_assert_eq(ddb_source_new_memory(&src, L1 "\n", strlen(L1) + 1, NULL, &err), 0);
    cr_assert_eq(ddb_reader_new_lines(&r, src, DDB_IN_DDBJSON, "x/Tag.json.gz", &o, &err), 0);
    rec = tu_next_ok(r);
    cr_assert_str_eq(r->entity_hint, "Tag");
    cr_assert_str_eq(rec->source, "x/Tag.json.gz");
    ddb_reader_free(r);

    o.entity = "FavoriteData";
    cr_assert_eq(ddb_source_new_memory(&src, L1 "\n", strlen(L1) + 1, NULL, &err), 0);
    cr_assert_eq(ddb_reader_new_lines(&r, src, DDB_IN_DDBJSON, "x/Tag.json.gz", &o, &err), 0);
    rec = tu_next_ok(r);
    cr_assert_str_eq(r->entity_hint, "FavoriteData");
    ddb_reader_free(r);
}
