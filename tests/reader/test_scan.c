/*
 * test_scan.c — the AWS CLI scan output reader: a streamed document, items
 * split across buffer refills, tricky strings, malformed elements, truncated
 * documents and exact raw text.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/buf.h"
#include "ddbpipe/reader.h"
#include "support/readers.h"
#include "support/testutil.h"

static ddb_reader *scan_over(const char *text, size_t len)
{
    ddb_source *src = tu_memory_source(text, len, "scan.json");
    ddb_reader *r = NULL;
    ddb_error err;
    cr_assert_eq(ddb_reader_new_scan(&r, src, "scan.json", NULL, &err), 0, "%s", err.message);
    cr_assert_eq(r->format, DDB_IN_SCAN);
    return r;
}

/* The next call fails (not a record, not the end); returns the message. */
static const char *expect_fail(ddb_reader *r, int *rc_out)
{
    static ddb_error err;
    ddb_record *rec = NULL;
    ddb_error_clear(&err);
    int rc = ddb_reader_next(r, &rec, &err);
    cr_assert_lt(rc, 0);
    cr_assert_neq(rc, DDB_ITEROVER);
    cr_assert_gt(strlen(err.message), 0);
    if (rc_out)
        *rc_out = rc;
    return err.message;
}

static uint64_t line_at(const char *doc, size_t off)
{
    uint64_t line = 1;
    for (size_t i = 0; i < off; i++)
        if (doc[i] == '\n')
            line++;
    return line;
}

#define N_BIG 3000

Test(scan, items_across_buffer_refills, .timeout = 60)
{
    ddb_buf doc = DDB_BUF_INIT;
    static size_t off[N_BIG], len[N_BIG];
    char pad[480];
    int straddles = 0;
    ddb_reader *r;

    /* ~500 bytes per item, pretty-printed over several lines, with brackets
     * and escaped quotes inside strings; counters before and after Items */
    for (size_t i = 0; i < sizeof(pad) - 1; i++)
        pad[i] = "ab{c}[d]e,f:g"[i % 13];
    pad[sizeof(pad) - 1] = '\0';
    ddb_buf_puts(&doc, "{\n  \"Count\": 3000,\n  \"ScannedCount\": 3000,\n  \"Items\": [\n");
    for (int i = 0; i < N_BIG; i++) {
        if (i)
            ddb_buf_puts(&doc, ",\n");
        ddb_buf_puts(&doc, "    ");
        off[i] = doc.len;
        ddb_buf_printf(&doc,
                       "{\n      \"id\": {\"S\": \"item-%05d\"},\n"
                       "      \"q\": {\"S\": \"say \\\"hi\\\" ]}\"},\n"
                       "      \"pad\": {\"S\": \"%s\"}\n    }",
                       i, pad);
        len[i] = doc.len - off[i];
        if (off[i] < 1048576 && off[i] + len[i] > 1048576)
            straddles = 1;
    }
    ddb_buf_puts(&doc, "\n  ],\n  \"ConsumedCapacity\": null,\n"
                       "  \"LastEvaluatedKey\": {\"id\": {\"S\": \"item-]}\"}}\n}\n");
    cr_assert_eq(doc.oom, 0);
    cr_assert_gt(doc.len, 1048576u + 100000u, "the document must need a refill");
    cr_assert(straddles, "an item must straddle the 1 MiB buffer boundary");

    r = scan_over(doc.ptr, doc.len);
    for (int i = 0; i < N_BIG; i++) {
        char want[32];
        ddb_record *rec = tu_next_ok(r);
        cr_assert_eq(rec->kind, DDB_REC_PUT, "item %d: %s", i, rec->reason ? rec->reason : "");
        snprintf(want, sizeof(want), "item-%05d", i);
        tu_expect_s(&rec->item, "id", want);
        tu_expect_s(&rec->item, "q", "say \"hi\" ]}");
        tu_expect_s(&rec->item, "pad", pad);
        cr_assert_eq(rec->item.count, 3);
        cr_assert_eq(rec->offset, off[i], "item %d offset %llu", i,
                     (unsigned long long)rec->offset);
        cr_assert_eq(rec->line, line_at(doc.ptr, off[i]), "item %d line %llu", i,
                     (unsigned long long)rec->line);
        cr_assert_eq(rec->raw_len, len[i], "item %d", i);
        cr_assert_eq(memcmp(rec->raw, doc.ptr + off[i], len[i]), 0, "item %d raw", i);
    }
    tu_expect_end(r);
    cr_assert_eq(ddb_reader_decoded_bytes(r), doc.len);
    ddb_reader_free(r);
    ddb_buf_dispose(&doc);
}

Test(scan, one_item_larger_than_the_buffer, .timeout = 60)
{
    /* an element bigger than the 1 MiB block: the buffer must grow */
    ddb_buf doc = DDB_BUF_INIT;
    size_t big = 1536 * 1024;
    char *s = malloc(big + 1);
    ddb_reader *r;
    ddb_record *rec;
    const ddb_value *v;
    cr_assert_not_null(s);
    memset(s, 'z', big);
    s[big] = '\0';
    ddb_buf_puts(&doc,
                 "{\"Items\":[{\"id\":{\"S\":\"small\"}},{\"id\":{\"S\":\"big\"},\"v\":{\"S\":\"");
    ddb_buf_puts(&doc, s);
    ddb_buf_puts(&doc, "\"}},{\"id\":{\"S\":\"after\"}}],\"Count\":3}");
    r = scan_over(doc.ptr, doc.len);
    rec = tu_next_ok(r);
    tu_expect_s(&rec->item, "id", "small");
    rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_PUT);
    tu_expect_s(&rec->item, "id", "big");
    v = ddb_map_getz(&rec->item, "v");
    cr_assert_not_null(v);
    cr_assert_eq(v->u.s.len, big);
    rec = tu_next_ok(r);
    tu_expect_s(&rec->item, "id", "after");
    tu_expect_end(r);
    ddb_reader_free(r);
    ddb_buf_dispose(&doc);
    free(s);
}

Test(scan, strings_with_brackets_braces_and_quotes)
{
    const char *doc =
        "{\"Items\":[{\"s\":{\"S\":\"a]}{[\\\"q\\\" \\\\\"}},"
        "{\"t\":{\"S\":\"}\"},\"u\":{\"L\":[{\"S\":\"[\"},{\"M\":{\"k\":{\"S\":\"{\"}}}]}}"
        "],\"Count\":2}";
    ddb_reader *r = scan_over(doc, strlen(doc));
    ddb_record *rec = tu_next_ok(r);
    const ddb_value *u;
    cr_assert_eq(rec->kind, DDB_REC_PUT, "%s", rec->reason ? rec->reason : "");
    tu_expect_s(&rec->item, "s", "a]}{[\"q\" \\");
    cr_assert_eq(rec->raw_len, strlen("{\"s\":{\"S\":\"a]}{[\\\"q\\\" \\\\\"}}"));
    rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_PUT, "%s", rec->reason ? rec->reason : "");
    tu_expect_s(&rec->item, "t", "}");
    u = ddb_map_getz(&rec->item, "u");
    cr_assert_not_null(u);
    cr_assert_eq(u->type, DDB_TYPE_L);
    cr_assert_eq(u->u.l.count, 2);
    tu_expect_end(r);
    ddb_reader_free(r);
}

Test(scan, malformed_element_is_bad_with_its_line)
{
    const char *doc = "{\n"
                      "  \"Items\": [\n"
                      "    {\"id\": {\"S\": \"a\"}},\n"
                      "    {\"id\": {\"S\": \"b\"}},\n"
                      "    {\"id\": {\"X\": \"c\"}},\n"
                      "    {\"id\": {\"S\": \"d\"}}\n"
                      "  ],\n"
                      "  \"Count\": 4\n"
                      "}\n";
    ddb_reader *r = scan_over(doc, strlen(doc));
    ddb_record *rec;
    rec = tu_next_ok(r);
    tu_expect_s(&rec->item, "id", "a");
    cr_assert_eq(rec->line, 3);
    rec = tu_next_ok(r);
    tu_expect_s(&rec->item, "id", "b");
    cr_assert_eq(rec->line, 4);
    rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_BAD);
    cr_assert_eq(rec->line, 5);
    cr_assert_eq(rec->item.count, 0);
    cr_assert_not_null(rec->reason);
    cr_assert_gt(strlen(rec->reason), 0);
    cr_assert_eq(rec->raw_len, strlen("{\"id\": {\"X\": \"c\"}}"));
    cr_assert_eq(memcmp(rec->raw, "{\"id\": {\"X\": \"c\"}}", rec->raw_len), 0);
    cr_assert_eq(rec->offset, (uint64_t)(strstr(doc, "{\"id\": {\"X\"") - doc));
    rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_PUT);
    tu_expect_s(&rec->item, "id", "d");
    cr_assert_eq(rec->line, 6);
    tu_expect_end(r);
    ddb_reader_free(r);
}

Test(scan, truncated_inside_an_item_is_an_error)
{
    const char *doc = "{\"Items\":[{\"a\":{\"S\":\"1\"}},{\"a\":{\"S\":";
    ddb_reader *r = scan_over(doc, strlen(doc));
    ddb_record *rec = tu_next_ok(r);
    tu_expect_s(&rec->item, "a", "1");
    expect_fail(r, NULL);
    ddb_reader_free(r);
}

Test(scan, truncated_after_items_is_an_error)
{
    const char *doc = "{\"Items\":[{\"a\":{\"S\":\"1\"}}]";
    ddb_reader *r = scan_over(doc, strlen(doc));
    ddb_record *rec = tu_next_ok(r);
    tu_expect_s(&rec->item, "a", "1");
    expect_fail(r, NULL);
    ddb_reader_free(r);
}

Test(scan, unclosed_items_array_is_an_error)
{
    const char *doc = "{\"Items\":[{\"a\":{\"S\":\"1\"}},\n";
    ddb_reader *r = scan_over(doc, strlen(doc));
    int rc;
    const char *msg;
    tu_next_ok(r);
    msg = expect_fail(r, &rc);
    cr_assert_not_null(strstr(msg, "scan.json"), "%s", msg);
    ddb_reader_free(r);
}

/* A broken element that swallows the ']' of "Items" leaves the reader among
 * the document's other keys; the '}' that ends the document is no value: an
 * error, not an endless run of empty bad records (found by fuzzing). */
Test(scan, closing_brace_where_an_item_belongs_is_an_error, .timeout = 10)
{
    const char *doc = "{\"Items\":[{\"a\":{\"S\":\"1\"},{\"b\":{\"S\":\"2\"}}],\"Count\":2}\n";
    ddb_reader *r = scan_over(doc, strlen(doc));
    ddb_record *rec;
    ddb_error err;
    int rc, n = 0;
    while ((rc = ddb_reader_next(r, &rec, &err)) == 0) {
        cr_assert_lt(++n, 10, "record %d from a %zu-byte document", n, strlen(doc));
        cr_assert_gt(rec->raw_len, 0, "an empty record");
    }
    cr_assert_lt(rc, 0);
    cr_assert_neq(rc, DDB_ITEROVER, "the document is broken");
    cr_assert_not_null(strstr(err.message, "malformed JSON"), "%s", err.message);
    ddb_reader_free(r);
}

Test(scan, document_without_items_is_an_error)
{
    const char *doc = "{\"ConsumedCapacity\": null, \"LastEvaluatedKey\": {\"k\": {\"S\": \"a\"}}}";
    ddb_reader *r = scan_over(doc, strlen(doc));
    const char *msg = expect_fail(r, NULL);
    cr_assert_not_null(strstr(msg, "Items"), "%s", msg);
    ddb_reader_free(r);
}

/* A query or scan with Select COUNT answers Count and ScannedCount, no Items:
 * an input of no records, not an error (and not an item). */
Test(scan, select_count_output_holds_no_records)
{
    const char *doc = "{\"Count\": 0, \"ScannedCount\": 0, \"ConsumedCapacity\": null}";
    ddb_reader *r = scan_over(doc, strlen(doc));
    tu_expect_end(r);
    ddb_reader_free(r);
}

Test(scan, not_json_is_an_error)
{
    const char *doc = "Items: 1\n";
    ddb_reader *r = scan_over(doc, strlen(doc));
    cr_assert_not_null(strstr(expect_fail(r, NULL), "expected a JSON object or array"));
    ddb_reader_free(r);
}

/* Pages saved one after another (cat page-*.json) are read in turn. */
Test(scan, documents_one_after_another)
{
    const char *doc =
        "{\"Items\":[{\"a\":{\"S\":\"1\"}}],\"Count\":1}\n{\"Items\":[{\"a\":{\"S\":\"2\"}}]}";
    ddb_reader *r = scan_over(doc, strlen(doc));
    tu_expect_s(&tu_next_ok(r)->item, "a", "1");
    tu_expect_s(&tu_next_ok(r)->item, "a", "2");
    tu_expect_end(r);
    ddb_reader_free(r);
}

Test(scan, text_after_the_document_is_an_error)
{
    const char *doc = "{\"Items\":[{\"a\":{\"S\":\"1\"}}],\"Count\":1}\nCount: 1";
    ddb_reader *r = scan_over(doc, strlen(doc));
    tu_next_ok(r);
    expect_fail(r, NULL);
    ddb_reader_free(r);
}

Test(scan, empty_items)
{
    const char *doc = "{\"Items\": [], \"Count\": 0, \"ScannedCount\": 10}\n";
    ddb_reader *r = scan_over(doc, strlen(doc));
    tu_expect_end(r);
    ddb_reader_free(r);
}

Test(scan, keys_after_items_with_nested_values)
{
    const char *doc = "{\"Items\":[{\"a\":{\"S\":\"1\"}}],"
                      "\"Count\":1,\"ScannedCount\":1,"
                      "\"ConsumedCapacity\":{\"TableName\":\"T]\",\"CapacityUnits\":0.5,"
                      "\"Table\":{\"CapacityUnits\":0.5}},"
                      "\"LastEvaluatedKey\":{\"a\":{\"S\":\"}]\\\"\"}},\"NextToken\":\"abc\"}";
    ddb_reader *r = scan_over(doc, strlen(doc));
    ddb_record *rec = tu_next_ok(r);
    tu_expect_s(&rec->item, "a", "1");
    tu_expect_end(r);
    ddb_reader_free(r);
}
