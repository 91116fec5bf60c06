/* Lines split by next_unparsed and parsed later (ddb_record_parse, after the
 * reader moved on and with another parser and arena) are the records next
 * gives: items, incremental changes (insert, modify, remove), mixed shapes,
 * bad lines with their reasons, a line too long, a byte-order mark, plain
 * NDJSON. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/json.h"
#include "ddbpipe/reader.h"
#include "support/readers.h"
#include "support/testutil.h"

#define ITEM1 "{\"Item\":{\"pk\":{\"S\":\"a\\\"b\"},\"n\":{\"N\":\"1\"}}}"
#define BARE "{\"pk\":{\"S\":\"bare\"}}"
#define BAD "{\"Item\":{\"pk\":{\"X\":\"1\"}}}"
#define NEWIMG                                                                                     \
    "{\"Metadata\":{\"WriteTimestampMicros\":{\"N\":\"1700000000000000\"}},"                       \
    "\"Keys\":{\"pk\":{\"S\":\"k\"}},\"NewImage\":{\"pk\":{\"S\":\"k\"},\"v\":{\"N\":\"2\"}}}"
#define MODIFY                                                                                     \
    "{\"Metadata\":{\"WriteTimestampMicros\":{\"N\":\"1700000000000001\"}},"                       \
    "\"Keys\":{\"pk\":{\"S\":\"k\"}},\"OldImage\":{\"pk\":{\"S\":\"k\"}},"                         \
    "\"NewImage\":{\"pk\":{\"S\":\"k\"},\"v\":{\"N\":\"3\"}}}"
#define REMOVE                                                                                     \
    "{\"Metadata\":{\"WriteTimestampMicros\":{\"N\":\"1700000000000002\"}},"                       \
    "\"Keys\":{\"pk\":{\"S\":\"k\"}}}"

typedef struct seen {
    ddb_record_kind kind;
    ddb_change_kind change;
    char *item; /* typed JSON, or the reason of a bad record */
    char *write_time;
    uint64_t line, offset, pos;
} seen;

static ddb_reader *open_text(const char *text, ddb_input_format kind, size_t max_line)
{
    ddb_reader *r = NULL;
    ddb_reader_opts o;
    ddb_error err;
    memset(&o, 0, sizeof(o));
    o.max_line = max_line;
    cr_assert_eq(ddb_reader_new_lines(&r, tu_memory_source(text, strlen(text), "t.json"), kind,
                                      "t.json", &o, &err),
                 0);
    return r;
}

static seen describe(const ddb_record *rec)
{
    seen s = {rec->kind, rec->change, NULL, NULL, rec->line, rec->offset, rec->pos};
    s.item = strdup(rec->kind == DDB_REC_BAD ? rec->reason : tu_typed(&rec->item));
    s.write_time = strndup(rec->write_time.ptr ? rec->write_time.ptr : "", rec->write_time.len);
    return s;
}

/* Reads text both ways: parsed at once, and split first with every line
 * parsed only after all were read (the line texts kept, as a batch keeps
 * them). */
static void both_ways(const char *text, ddb_input_format kind, size_t max_line, size_t want)
{
    seen plain[16], later[16];
    ddb_record recs[16];
    char *lines[16], *reasons[16];
    size_t n = 0, m = 0;
    ddb_reader *r = open_text(text, kind, max_line);
    ddb_record *rec;
    ddb_error err;
    ddb_arena *a = NULL;
    ddb_json_parser *p = NULL;

    ddb_error_clear(&err);
    while (ddb_reader_next(r, &rec, &err) == 0)
        plain[n++] = describe(rec);
    ddb_reader_free(r);
    cr_assert_eq(n, want);

    cr_assert_eq(ddb_arena_new(&a, 0), 0);
    r = open_text(text, kind, max_line);
    cr_assert_not_null(r->vt->next_unparsed);
    while (r->vt->next_unparsed(r, &rec, &err) == 0) {
        recs[m] = *rec;
        reasons[m] = rec->kind == DDB_REC_BAD ? strdup(rec->reason) : NULL;
        if (reasons[m] != NULL)
            recs[m].reason = reasons[m];
        lines[m] = rec->raw ? strndup(rec->raw, rec->raw_len) : NULL;
        /* a line parsed at once (before the file's shape is settled) lives in
         * the reader's arena: kept as a batch keeps it */
        if (!rec->unparsed) {
            cr_assert_eq(ddb_map_copy(&recs[m].item, &rec->item, a), 0);
            recs[m].write_time.ptr = ddb_arena_memdup(
                a, rec->write_time.ptr ? rec->write_time.ptr : "", rec->write_time.len);
        }
        recs[m].raw = lines[m];
        m++;
    }
    ddb_reader_free(r); /* gone before any line is parsed */
    cr_assert_eq(m, n);
    cr_assert_eq(ddb_json_parser_new(&p), 0);
    for (size_t i = 0; i < m; i++) {
        cr_assert_eq(ddb_record_parse(&recs[i], p, a), 0);
        cr_assert_eq(recs[i].unparsed, 0);
        later[i] = describe(&recs[i]);
        cr_assert_eq(later[i].kind, plain[i].kind, "line %zu", i);
        cr_assert_eq(later[i].change, plain[i].change, "line %zu", i);
        cr_assert_str_eq(later[i].item, plain[i].item, "line %zu", i);
        cr_assert_str_eq(later[i].write_time, plain[i].write_time, "line %zu", i);
        cr_assert_eq(later[i].line, plain[i].line);
        cr_assert_eq(later[i].offset, plain[i].offset);
        cr_assert_eq(later[i].pos, plain[i].pos);
        free(later[i].item);
        free(later[i].write_time);
        free(plain[i].item);
        free(plain[i].write_time);
        free(lines[i]);
        free(reasons[i]);
    }
    ddb_json_parser_free(p);
    ddb_arena_free(a);
}

Test(unparsed, items_bad_lines_and_mixed_shapes)
{
    both_ways("\xEF\xBB\xBF" ITEM1 "\n\n" BAD "\n" BARE "\n  \n" ITEM1 "\nnot json\n",
              DDB_IN_DDBJSON, 0, 5);
}

Test(unparsed, incremental_changes)
{
    both_ways(NEWIMG "\n" MODIFY "\n" REMOVE "\n" BAD "\n", DDB_IN_DDBJSON, 0, 4);
}

Test(unparsed, a_first_line_that_settles_nothing)
{
    /* the first line is not recognisable: the shape is settled by a later one */
    both_ways("garbage\n" BARE "\n" ITEM1 "\n", DDB_IN_DDBJSON, 0, 3);
}

Test(unparsed, a_line_too_long)
{
    both_ways(ITEM1 "\n{\"Item\":{\"pk\":{\"S\":\""
                    "0123456789012345678901234567890123456789"
                    "\"}}}\n" ITEM1 "\n",
              DDB_IN_DDBJSON, 64, 3);
}

Test(unparsed, plain_ndjson)
{
    both_ways("{\"a\":1,\"b\":\"x\"}\n[1]\n{\"c\":{\"d\":null}}\n{bad\n", DDB_IN_NDJSON, 0, 4);
}

/* A plain line holding DynamoDB JSON after plain ones is rejected, whether
 * parsed at once or later (the first line of the file would refuse it). */
Test(unparsed, plain_ndjson_holding_dynamodb_json)
{
    both_ways("{\"a\":1}\n{\"a\":{\"S\":\"x\"}}\n{\"a\":{\"S\":\"x\",\"b\":2}}\n", DDB_IN_NDJSON, 0,
              3);
}
