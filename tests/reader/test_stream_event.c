/*
 * test_stream_event.c — the two readers of DynamoDB Streams records, files of
 * them (read/reader_stream.c) and GetRecords answers (table/streams.c, what
 * `migrate --live` reads), given the same records: the same eventNames
 * accepted (AWS's INSERT, MODIFY, REMOVE, as spelled), and any other refused
 * by both with the same message, never taken for one of the three.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>

#include "ddbpipe/json.h"
#include "ddbpipe/streams.h"
#include "read/reader_internal.h"

#define DYNAMODB                                                                                   \
    "\"dynamodb\":{\"Keys\":{\"Id\":{\"N\":\"1\"}},\"NewImage\":{\"Id\":{\"N\":\"1\"}},"           \
    "\"SequenceNumber\":\"100\",\"StreamViewType\":\"NEW_AND_OLD_IMAGES\"}"
#define NAMED(name) "{\"eventID\":\"1\",\"eventName\":" name "," DYNAMODB "}"

/* One record read as a file's record: its kind, change and reason (its item
 * goes with the arena). */
typedef struct from_file {
    ddb_record rec;
    char reason[512];
} from_file;

static void read_file_record(from_file *f, const char *text)
{
    ddb_json_parser *jp = NULL;
    ddb_arena *a = NULL;
    memset(f, 0, sizeof(*f));
    cr_assert_eq(ddb_json_parser_new(&jp), 0);
    cr_assert_eq(ddb_arena_new(&a, 0), 0);
    ddb_stream_record_parse(&f->rec, f->reason, sizeof(f->reason), jp, a, text, strlen(text));
    ddb_arena_free(a);
    ddb_json_parser_free(jp);
}

/* The same record as the one record of a GetRecords answer: 0 with *event,
 * or its error's message (without the page's "GetRecords: record 0: ") in why. */
static int read_live_record(ddb_stream_event *event, char *why, size_t cap, const char *record)
{
    char body[1024];
    ddb_stream_page *p = NULL;
    ddb_error err;
    int rc;
    const char *prefix = "GetRecords: record 0: ";
    snprintf(body, sizeof(body), "{\"Records\":[%s],\"NextShardIterator\":\"it\"}", record);
    ddb_error_clear(&err);
    rc = ddb_stream_page_parse(&p, body, strlen(body), &err);
    if (rc == 0) {
        cr_assert_eq(p->n_records, 1);
        *event = p->records[0].event;
    } else {
        cr_assert_eq(strncmp(err.message, prefix, strlen(prefix)), 0, "%s", err.message);
        snprintf(why, cap, "%s", err.message + strlen(prefix));
    }
    ddb_stream_page_free(p);
    return rc;
}

/* One record through both readers. */
typedef struct both {
    from_file f;
    int live_rc;
    ddb_stream_event event; /* live_rc 0 */
    char why[512];          /* live_rc not 0 */
} both;

static void read_both(both *b, const char *record)
{
    memset(b, 0, sizeof(*b));
    read_file_record(&b->f, record);
    b->live_rc = read_live_record(&b->event, b->why, sizeof(b->why), record);
}

/* The record of eventName name (its JSON text). */
static void read_named(both *b, const char *name)
{
    char record[512];
    snprintf(record, sizeof(record), NAMED("%s"), name);
    read_both(b, record);
}

Test(stream_event, both_readers_take_the_three_names_of_aws)
{
    static const struct {
        const char *name;
        ddb_stream_event event;
        ddb_change_kind change;
        ddb_record_kind kind;
    } ok[] = {{"\"INSERT\"", DDB_STREAM_INSERT, DDB_CHANGE_INSERT, DDB_REC_PUT},
              {"\"MODIFY\"", DDB_STREAM_MODIFY, DDB_CHANGE_MODIFY, DDB_REC_PUT},
              {"\"REMOVE\"", DDB_STREAM_REMOVE, DDB_CHANGE_REMOVE, DDB_REC_DELETE}};
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        both b;
        read_named(&b, ok[i].name);
        cr_assert_eq(b.f.rec.kind, ok[i].kind, "%s: %s", ok[i].name, b.f.reason);
        cr_assert_eq(b.f.rec.change, ok[i].change, "%s", ok[i].name);
        cr_assert_eq(b.live_rc, 0, "%s: %s", ok[i].name, b.why);
        cr_assert_eq(b.event, ok[i].event, "%s", ok[i].name);
    }
}

Test(stream_event, both_readers_refuse_any_other_name_alike)
{
    static const struct {
        const char *name, *message;
    } bad[] = {
        {"\"DELETE\"", "a stream record's eventName is INSERT, MODIFY or REMOVE, not \"DELETE\""},
        {"\"insert\"", "a stream record's eventName is INSERT, MODIFY or REMOVE, not \"insert\""},
        {"\"INSERT \"", "a stream record's eventName is INSERT, MODIFY or REMOVE, not \"INSERT \""},
        {"\"\"", "a stream record's eventName is INSERT, MODIFY or REMOVE, not \"\""},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        both b;
        read_named(&b, bad[i].name);
        cr_assert_eq(b.f.rec.kind, DDB_REC_BAD, "%s read as a change", bad[i].name);
        cr_assert_str_eq(b.f.reason, bad[i].message);
        cr_assert_eq(b.live_rc, DDB_EINVAL, "%s", bad[i].name);
        cr_assert_str_eq(b.why, bad[i].message);
    }
}

Test(stream_event, both_readers_refuse_a_record_without_one_alike)
{
    const char *message = "a stream record's eventName is INSERT, MODIFY or REMOVE; this one has "
                          "none";
    both b;
    read_both(&b, "{\"eventID\":\"1\"," DYNAMODB "}");
    cr_assert_eq(b.f.rec.kind, DDB_REC_BAD);
    cr_assert_str_eq(b.f.reason, message);
    cr_assert_eq(b.live_rc, DDB_EINVAL);
    cr_assert_str_eq(b.why, message);
}

Test(stream_event, a_name_that_is_not_a_string_is_none_of_the_three)
{
    ddb_value v;
    ddb_stream_event event = 0;
    ddb_error err;
    memset(&v, 0, sizeof(v));
    v.type = DDB_TYPE_N;
    v.u.s = (ddb_str){"1", 1};
    ddb_error_clear(&err);
    cr_assert_eq(ddb_stream_event_parse(&event, &v, &err), DDB_EINVAL);
    cr_assert_str_eq(err.message, "a stream record's eventName is INSERT, MODIFY or REMOVE; this "
                                  "one has one that is not a string");
    cr_assert_eq(event, 0);
}
