/*
 * test_pages.c — the Scan reader's pages, answered by a stand-in client
 * (ld --wrap: ddb_client_submit, ddb_client_run, ddb_client_pending,
 * ddb_client_reuse_body; ddb_arena_new counted): every item of many pages
 * read exactly, a page's arena used again rather than made anew for each
 * page and its body given back to the client, and answers that
 * are not a Scan page refused rather than read as the end of the table.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/arena.h"
#include "ddbpipe/buf.h"
#include "ddbpipe/client.h"
#include "ddbpipe/reader_table.h"

int __real_ddb_arena_new(ddb_arena **out, size_t chunk_size);
int __wrap_ddb_arena_new(ddb_arena **out, size_t chunk_size);
int __wrap_ddb_client_submit(ddb_client *c, const char *operation, const char *body, size_t len,
                             ddb_call_done_fn done, void *ctx, ddb_error *err);
int __wrap_ddb_client_run(ddb_client *c, int (*until)(void *ctx), void *ctx, ddb_error *err);
int __wrap_ddb_client_pending(const ddb_client *c);
void __wrap_ddb_client_reuse_body(ddb_client *c, char *body, size_t cap);

#define ITEMS_A_PAGE 50

/* The stand-in table: pages of ITEMS_A_PAGE items, page p's start key "p". */
static struct {
    int pages;            /* pages in the table */
    const char *override; /* this answer to every request instead, when set */
    ddb_call_done_fn done[8];
    void *ctx[8];
    int start[8];
    int n_calls;
    long arenas;       /* ddb_arena_new calls */
    long bodies_given; /* bodies given back to the client */
} st;

void __wrap_ddb_client_reuse_body(ddb_client *c, char *body, size_t cap)
{
    (void)c;
    cr_assert_not_null(body);
    cr_assert_gt(cap, strlen(body));
    st.bodies_given++;
    free(body);
}

int __wrap_ddb_arena_new(ddb_arena **out, size_t chunk_size)
{
    st.arenas++;
    return __real_ddb_arena_new(out, chunk_size);
}

int __wrap_ddb_client_submit(ddb_client *c, const char *operation, const char *body, size_t len,
                             ddb_call_done_fn done, void *ctx, ddb_error *err)
{
    const char *k = strstr(body, "\"ExclusiveStartKey\":{\"pk\":{\"S\":\"");
    (void)c, (void)len, (void)err;
    cr_assert_str_eq(operation, "Scan");
    cr_assert_lt(st.n_calls, 8);
    st.done[st.n_calls] = done;
    st.ctx[st.n_calls] = ctx;
    st.start[st.n_calls++] = k ? atoi(k + strlen("\"ExclusiveStartKey\":{\"pk\":{\"S\":\"")) : 0;
    return 0;
}

/* Page p: items p*ITEMS_A_PAGE + i, each with a 38-digit number, an escaped
 * string, a binary and a nested map with a number set. */
static char *page_body(int p)
{
    ddb_buf b = DDB_BUF_INIT;
    ddb_buf_puts(&b, "{\"Count\":50,\"Items\":[");
    for (int i = 0; i < ITEMS_A_PAGE; i++) {
        int n = p * ITEMS_A_PAGE + i;
        ddb_buf_printf(&b,
                       "%s{\"pk\":{\"S\":\"item%d\"},\"n\":{\"N\":\"1234567890123456789012345678901234567%d\"},"
                       "\"s\":{\"S\":\"a \\\"quoted\\\" [x] {y}\\\\\"},\"b\":{\"B\":\"AAEC\"},"
                       "\"m\":{\"M\":{\"ns\":{\"NS\":[\"1\",\"2.5\"]},\"l\":{\"L\":[{\"NULL\":true},"
                       "{\"BOOL\":false}]}}}}",
                       i ? "," : "", n, n % 10);
    }
    ddb_buf_puts(&b, "],\"ScannedCount\":50");
    if (p + 1 < st.pages)
        ddb_buf_printf(&b, ",\"LastEvaluatedKey\":{\"pk\":{\"S\":\"%d\"}}", p + 1);
    ddb_buf_puts(&b, ",\"ConsumedCapacity\":{\"TableName\":\"t\",\"CapacityUnits\":2.5}}");
    return ddb_buf_detach(&b, NULL);
}

int __wrap_ddb_client_run(ddb_client *c, int (*until)(void *ctx), void *ctx, ddb_error *err)
{
    (void)c, (void)err;
    while (!until(ctx) && st.n_calls > 0) {
        ddb_response resp;
        int k = --st.n_calls;
        memset(&resp, 0, sizeof(resp));
        resp.ok = 1;
        resp.http_status = 200;
        resp.attempts = 1;
        resp.body = st.override ? strdup(st.override) : page_body(st.start[k]);
        cr_assert_not_null(resp.body);
        resp.body_len = strlen(resp.body);
        resp.body_cap = resp.body_len + 1;
        st.done[k](st.ctx[k], &resp);
        free(resp.body); /* NULL when the reader took it */
    }
    return 0;
}

int __wrap_ddb_client_pending(const ddb_client *c)
{
    (void)c;
    return st.n_calls;
}

static ddb_reader *table_reader(void)
{
    ddb_table_reader_opts o;
    ddb_reader *r = NULL;
    ddb_error err;
    memset(&o, 0, sizeof(o));
    o.table = "t";
    cr_assert_eq(ddb_reader_new_table(&r, &o, &err), 0, "%s", err.message);
    return r;
}

Test(table_reader, many_pages_read_exactly_with_arenas_used_again, .timeout = 60)
{
    ddb_reader *r;
    ddb_record *rec;
    ddb_error err;
    ddb_scan_stats stats;
    int rc, n = 0;

    memset(&st, 0, sizeof(st));
    st.pages = 200;
    r = table_reader();
    while ((rc = ddb_reader_next(r, &rec, &err)) == 0) {
        char want[64];
        const ddb_value *v;
        snprintf(want, sizeof(want), "item%d", n);
        cr_assert(rec->utf8_checked);
        cr_assert_eq(rec->item.count, 5);
        cr_assert_eq(rec->item.attrs[0].value.u.s.len, strlen(want));
        cr_assert_eq(memcmp(rec->item.attrs[0].value.u.s.ptr, want, strlen(want)), 0);
        snprintf(want, sizeof(want), "1234567890123456789012345678901234567%d", n % 10);
        v = &rec->item.attrs[1].value;
        cr_assert_eq(v->type, DDB_TYPE_N);
        cr_assert_eq(v->u.s.len, 38);
        cr_assert_eq(memcmp(v->u.s.ptr, want, 38), 0);
        v = &rec->item.attrs[2].value;
        cr_assert_eq(v->u.s.len, strlen("a \"quoted\" [x] {y}\\"));
        cr_assert_eq(memcmp(v->u.s.ptr, "a \"quoted\" [x] {y}\\", v->u.s.len), 0);
        v = &rec->item.attrs[3].value;
        cr_assert_eq(v->type, DDB_TYPE_B);
        cr_assert_eq(v->u.s.len, 3);
        cr_assert_eq(memcmp(v->u.s.ptr, "\0\1\2", 3), 0);
        v = &rec->item.attrs[4].value;
        cr_assert_eq(v->type, DDB_TYPE_M);
        cr_assert_eq(v->u.m.attrs[0].value.type, DDB_TYPE_NS);
        cr_assert_eq(v->u.m.attrs[0].value.u.l.count, 2);
        cr_assert_eq(v->u.m.attrs[1].value.u.l.items[1].type, DDB_TYPE_BOOL);
        n++;
    }
    cr_assert_eq(rc, DDB_ITEROVER, "%s", err.message);
    cr_assert_eq(n, 200 * ITEMS_A_PAGE);
    ddb_table_reader_stats(r, &stats);
    cr_assert_eq(stats.scanned, 200 * ITEMS_A_PAGE);
    cr_assert_eq(stats.requests, 200);
    cr_assert_float_eq(stats.capacity_units, 500.0, 1e-9);
    /* a page's arena is made once and used again: not one per page */
    cr_assert_leq(st.arenas, 8, "%ld arenas for 200 pages", st.arenas);
    /* and its body goes back to the client for the next answers */
    cr_assert_geq(st.bodies_given, 200 - 8, "%ld bodies given back", st.bodies_given);
    ddb_reader_free(r);
}

/* The first call that fails: its message. */
static void expect_refused(const char *answer, const char *what)
{
    ddb_reader *r;
    ddb_record *rec;
    ddb_error err;
    int rc;

    memset(&st, 0, sizeof(st));
    st.override = answer;
    r = table_reader();
    ddb_error_clear(&err);
    while ((rc = ddb_reader_next(r, &rec, &err)) == 0)
        ;
    cr_assert_neq(rc, DDB_ITEROVER, "%s: read as the end of the table", answer);
    cr_assert(strstr(err.message, what) != NULL, "%s: %s", answer, err.message);
    ddb_reader_free(r);
}

Test(table_reader, answers_that_are_not_a_scan_page_are_refused)
{
    /* a key that is not a map read as "no key" ended the segment, and items not
     * in an array as none: both stopped the scan quietly, items unread */
    expect_refused("{\"Items\":[],\"LastEvaluatedKey\":\"k\"}", "LastEvaluatedKey");
    expect_refused("{\"Items\":{\"pk\":{\"S\":\"a\"}}}", "Items is not an array");
    expect_refused("{\"Items\":[{\"pk\":{\"S\":\"a\"}}],\"Items\":[]}", "Items given twice");
    expect_refused("{\"Items\":[{\"pk\":{\"X\":\"a\"}}]}", "item 0");
    expect_refused("{\"Items\":[{\"pk\":{\"S\":\"a\"}},]}", "unreadable response");
    expect_refused("{\"Items\":[],}", "unreadable response");
    expect_refused("{\"Items\":[]} x", "unreadable response");
    expect_refused("[]", "unreadable response");
    /* cut short in an item: the first, or one read by the skeleton of those before */
    expect_refused("{\"Items\":[{\"pk\":{\"S\":\"a\"}", "item 0 (byte 10 of the answer)");
    expect_refused(
        "{\"Items\":[{\"pk\":{\"S\":\"a\"}},{\"pk\":{\"S\":\"b\"}},{\"pk\":{\"S\":\"c\"}",
        "item 2 (byte 44 of the answer)");
    expect_refused(
        "{\"Items\":[{\"pk\":{\"S\":\"a\"}},{\"pk\":{\"S\":\"b\"}},{\"pk\":{\"S\":\"c\"}",
        "end of input");
}

/* Items found whole whatever their strings hold: the parser says where each
 * item ends as it reads it (ddb_json_parse_item_prefix), stepping over
 * strings (escaped quotes and backslashes, brackets inside them), each a
 * byte longer than the last so
 * they fall at every alignment. */
Test(table_reader, items_whole_whatever_falls_on_a_block_edge)
{
    ddb_buf b = DDB_BUF_INIT;
    ddb_reader *r;
    ddb_record *rec;
    ddb_error err;
    char *answer;
    int rc, n = 0;

    ddb_buf_puts(&b, "{\"Items\":[");
    for (int k = 0; k < 48; k++) {
        ddb_buf_printf(&b, "%s{\"pk\":{\"S\":\"%.*s\\\\\\\"}]\"},\"l\":{\"L\":[{\"M\":{}}, {\"S\":\"[\"}]}}",
                       k ? "," : "", k, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
    }
    ddb_buf_puts(&b, "]}");
    answer = ddb_buf_detach(&b, NULL);
    memset(&st, 0, sizeof(st));
    st.override = answer;
    r = table_reader();
    while ((rc = ddb_reader_next(r, &rec, &err)) == 0) {
        const ddb_value *v = &rec->item.attrs[0].value;
        cr_assert_eq(rec->item.count, 2);
        cr_assert_eq(v->u.s.len, (size_t)n + 4, "item %d: %zu bytes", n, v->u.s.len);
        cr_assert_eq(memcmp(v->u.s.ptr + n, "\\\"}]", 4), 0);
        cr_assert_eq(rec->item.attrs[1].value.u.l.count, 2);
        n++;
    }
    cr_assert_eq(rc, DDB_ITEROVER, "%s", err.message);
    cr_assert_eq(n, 48);
    ddb_reader_free(r);
    free(answer);
}
