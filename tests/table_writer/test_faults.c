/*
 * test_faults.c — the BatchWriteItem writer's accounting when things fail
 * inside it: the busy set cannot grow, a half of a split batch cannot be
 * sent. Every item put must end acknowledged or refused (nothing lost,
 * nothing leaked, the queue drains).
 *
 * This suite is linked with ld --wrap (see CMakeLists.txt): the client calls
 * the writer makes go to the stand-in below, which answers BatchWriteItem as
 * DynamoDB does (a ValidationException refuses the whole batch; otherwise
 * every item is taken), and ddb_keyset_add can be made to fail once. It
 * also notes the order the writes were sent in, for the shuffle window.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/output_table.h"
#include "write/output_table_internal.h"
#include "support/testutil.h"

/* ------------------------------------------------ the stand-in client */

typedef struct pending_call {
    ddb_call_done_fn done;
    void *ctx;
    size_t items; /* requests in the batch */
} pending_call;

static struct {
    pending_call calls[256];
    int n_calls, next_call;
    int submits, fail_submit_at; /* 1-based; 0 = never */
    int validation_answers;      /* this many batches are refused first */
    int keyset_adds, fail_keyset_add_at;
    int acks, rejects;
    char last_reason[512];
    char sent[4096][16]; /* "pk=v" of each write, in the order sent */
    int n_sent;
} fk;

int __real_ddb_keyset_add(ddb_keyset *s, const char *key, size_t len, uint64_t hash);
int __wrap_ddb_keyset_add(ddb_keyset *s, const char *key, size_t len, uint64_t hash);
int __wrap_ddb_client_submit(ddb_client *c, const char *operation, const char *body, size_t len,
                             ddb_call_done_fn done, void *ctx, ddb_error *err);
int __wrap_ddb_client_submit_owned(ddb_client *c, const char *operation, char *body, size_t len,
                                   ddb_call_done_fn done, void *ctx, ddb_error *err);
int __wrap_ddb_client_run(ddb_client *c, int (*until)(void *ctx), void *ctx, ddb_error *err);
int __wrap_ddb_client_step(ddb_client *c, ddb_error *err);
int __wrap_ddb_client_pending(const ddb_client *c);
int __wrap_ddb_client_concurrency(const ddb_client *c);

int __wrap_ddb_keyset_add(ddb_keyset *s, const char *key, size_t len, uint64_t hash)
{
    if (++fk.keyset_adds == fk.fail_keyset_add_at)
        return DDB_ENOMEM;
    return __real_ddb_keyset_add(s, key, len, hash);
}

static size_t count_requests(const char *body, size_t len)
{
    size_t n = 0;
    const char *p = body;
    while ((p = strstr(p, "Request\":{")) != NULL && p < body + len) {
        n++;
        p++;
    }
    return n;
}

/* Notes "pk=v" of each request of a batch (items as put() writes them). */
static void note_sent(const char *body, size_t len)
{
    const char *p = body, *end = body + len;
    while ((p = strstr(p, "\"pk\":{\"S\":\"")) != NULL && p < end) {
        const char *k = p + 11, *q = strchr(k, '"'), *v = strstr(q, "\"v\":{\"N\":\"");
        cr_assert_lt(fk.n_sent, 4096);
        cr_assert(q != NULL && v != NULL);
        snprintf(fk.sent[fk.n_sent++], 16, "%.*s=%.*s", (int)(q - k), k,
                 (int)strcspn(v + 10, "\""), v + 10);
        p = q;
    }
}

int __wrap_ddb_client_submit(ddb_client *c, const char *operation, const char *body, size_t len,
                             ddb_call_done_fn done, void *ctx, ddb_error *err)
{
    (void)c;
    cr_assert_str_eq(operation, "BatchWriteItem");
    if (++fk.submits == fk.fail_submit_at)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    cr_assert_lt(fk.n_calls - fk.next_call, 256);
    fk.calls[fk.n_calls++ % 256] = (pending_call){done, ctx, count_requests(body, len)};
    note_sent(body, len);
    return 0;
}

/* The writer's batches come this way: the body is the client's, so freed here. */
int __wrap_ddb_client_submit_owned(ddb_client *c, const char *operation, char *body, size_t len,
                                   ddb_call_done_fn done, void *ctx, ddb_error *err)
{
    int rc = __wrap_ddb_client_submit(c, operation, body, len, done, ctx, err);
    free(body);
    return rc;
}

static void answer_next(void)
{
    pending_call pc = fk.calls[fk.next_call++ % 256];
    static const char ok_body[] = "{\"UnprocessedItems\":{}}";
    ddb_response resp;
    memset(&resp, 0, sizeof(resp));
    resp.attempts = 1;
    if (fk.validation_answers > 0 && pc.items > 1) {
        fk.validation_answers--;
        resp.http_status = 400;
        strcpy(resp.error_type, "ValidationException");
        strcpy(resp.message, "One or more parameter values were invalid");
    } else {
        resp.ok = 1;
        resp.http_status = 200;
        resp.body = (char *)ok_body;
        resp.body_len = sizeof(ok_body) - 1;
    }
    pc.done(pc.ctx, &resp);
}

int __wrap_ddb_client_run(ddb_client *c, int (*until)(void *ctx), void *ctx, ddb_error *err)
{
    (void)c;
    (void)err;
    while (!until(ctx) && fk.next_call < fk.n_calls)
        answer_next();
    return 0;
}

int __wrap_ddb_client_step(ddb_client *c, ddb_error *err)
{
    (void)c;
    (void)err;
    return 0;
}

int __wrap_ddb_client_pending(const ddb_client *c)
{
    (void)c;
    return fk.n_calls - fk.next_call;
}

int __wrap_ddb_client_concurrency(const ddb_client *c)
{
    (void)c;
    return 4;
}

/* ------------------------------------------------ the writer under test */

static ddb_arena *a;
static ddb_table_info info;

static void on_ack(void *ctx, int entity, ddb_record_kind kind, uint64_t seq)
{
    (void)ctx;
    (void)entity;
    (void)kind;
    (void)seq;
    fk.acks++;
}

static void on_reject(void *ctx, int entity, const ddb_reject_info *ri)
{
    (void)ctx;
    (void)entity;
    fk.rejects++;
    snprintf(fk.last_reason, sizeof(fk.last_reason), "%s", ri->reason);
}

static void setup(void)
{
    memset(&fk, 0, sizeof(fk));
    memset(&info, 0, sizeof(info));
    info.schema.partition.name = "pk";
    info.schema.partition.type = DDB_TYPE_S;
    cr_assert_eq(ddb_arena_new(&a, 0), 0);
}

static void teardown(void)
{
    ddb_arena_free(a);
}

TestSuite(table_writer, .init = setup, .fini = teardown);

static ddb_output *writer_window(size_t window)
{
    ddb_table_output_opts o;
    ddb_output *out = NULL;
    ddb_error err;
    memset(&o, 0, sizeof(o));
    o.table = "t";
    o.info = &info;
    o.random_seed = 1;
    o.shuffle_window = window;
    cr_assert_eq(ddb_table_output_new(&out, &o, &err), 0);
    out->ack = on_ack;
    out->reject = on_reject;
    return out;
}

static ddb_output *writer(void)
{
    return writer_window(0);
}

static int put_v(ddb_output *o, const char *pk, int v, uint64_t seq, ddb_error *err)
{
    char text[128];
    ddb_map item;
    ddb_record origin;
    snprintf(text, sizeof(text), "{\"pk\":{\"S\":\"%s\"},\"v\":{\"N\":\"%d\"}}", pk, v);
    item = tu_item(a, text);
    memset(&origin, 0, sizeof(origin));
    origin.seq = seq;
    origin.source = "in.json";
    origin.line = seq;
    return o->vt->put(o, 0, DDB_REC_PUT, &item, 0, &origin, err);
}

static int put(ddb_output *o, const char *pk, uint64_t seq, ddb_error *err)
{
    return put_v(o, pk, 1, seq, err);
}

/* finish() ends a run that had to stop: every item acknowledged or refused
 * (the refused ones for want of memory), the queue empty; frees o. */
static void expect_stopped(ddb_output *o, int acks, int rejects)
{
    table_output *to = (table_output *)o;
    ddb_error err;
    cr_assert_neq(o->vt->finish(o, &err), 0, "the run must stop");
    cr_assert_eq(fk.acks, acks, "%d acknowledged, %d expected", fk.acks, acks);
    cr_assert_eq(fk.rejects, rejects, "%d refused, %d expected", fk.rejects, rejects);
    cr_assert(strstr(fk.last_reason, "out of memory") != NULL, "%s", fk.last_reason);
    cr_assert_eq(to->queued, 0);
    ddb_output_free(o);
}

/* The key cannot join the busy set: the put fails, and the writer neither
 * counts the item as queued nor keeps it. */
Test(table_writer, busy_set_failure_keeps_nothing_queued)
{
    ddb_output *o = writer();
    table_output *to = (table_output *)o;
    ddb_error err;
    cr_assert_eq(put(o, "a", 1, &err), 0);
    fk.fail_keyset_add_at = fk.keyset_adds + 1;
    cr_assert_eq(put(o, "b", 2, &err), DDB_ENOMEM);
    cr_assert_eq(to->queued, 1, "a put that failed must not stay queued");
    cr_assert_eq(o->vt->finish(o, &err), 0, "%s", err.message);
    cr_assert_eq(fk.acks, 1);
    cr_assert_eq(fk.rejects, 0);
    cr_assert_eq(to->queued, 0);
    ddb_output_free(o);
}

/* A later write of a busy key waits; when its turn comes and the busy set
 * cannot take it, it is refused (and the run stops), not left waiting. */
Test(table_writer, blocked_write_that_cannot_be_promoted_is_refused)
{
    ddb_output *o = writer();
    table_output *to = (table_output *)o;
    ddb_error err;
    cr_assert_eq(put(o, "a", 1, &err), 0);
    cr_assert_eq(put(o, "a", 2, &err), 0);
    cr_assert_eq(to->stats.blocked, 1);
    fk.fail_keyset_add_at = fk.keyset_adds + 1;
    expect_stopped(o, 1, 1);
}

/* A batch refused with a ValidationException is split in halves; a half
 * that cannot be sent is refused item by item, the other half still goes. */
Test(table_writer, split_half_that_cannot_be_sent_is_refused)
{
    ddb_output *o = writer();
    ddb_error err;
    for (uint64_t i = 1; i <= 4; i++) {
        char pk[8];
        snprintf(pk, sizeof(pk), "k%llu", (unsigned long long)i);
        cr_assert_eq(put(o, pk, i, &err), 0);
    }
    fk.validation_answers = 1;
    fk.fail_submit_at = 2; /* the first half of the split */
    expect_stopped(o, 2, 2);
    cr_assert_eq(fk.submits, 3, "the other half is still sent");
}

/* The same when a full batch cannot be sent at all. */
Test(table_writer, batch_that_cannot_be_sent_is_refused)
{
    ddb_output *o = writer();
    ddb_error err;
    cr_assert_eq(put(o, "a", 1, &err), 0);
    cr_assert_eq(put(o, "b", 2, &err), 0);
    fk.fail_submit_at = 1;
    expect_stopped(o, 0, 2);
}

/* ------------------------------------------------ the shuffle window */

/* Puts k000..k(n-1) in order through a writer with window w and finishes:
 * every one sent once and acknowledged; returns how many were sent out of
 * their input place. */
static int sent_out_of_place(size_t w, int n)
{
    ddb_output *o = writer_window(w);
    table_output *to = (table_output *)o;
    ddb_error err;
    char seen[1000] = {0};
    int moved = 0;
    cr_assert_leq(n, 1000);
    for (int i = 0; i < n; i++) {
        char pk[8];
        snprintf(pk, sizeof(pk), "k%03d", i);
        cr_assert_eq(put(o, pk, (uint64_t)i + 1, &err), 0, "%s", err.message);
        cr_assert_leq(to->shuffle.n, w, "the window holds at most its size");
    }
    cr_assert_eq(o->vt->finish(o, &err), 0, "%s", err.message);
    cr_assert_eq(fk.acks, n);
    cr_assert_eq(fk.n_sent, n, "each write sent once");
    for (int i = 0; i < n; i++) {
        int k = atoi(fk.sent[i] + 1);
        cr_assert(!seen[k], "%s sent twice", fk.sent[i]);
        seen[k] = 1;
        moved += k != i;
    }
    cr_assert_eq(to->queued, 0);
    ddb_output_free(o);
    return moved;
}

Test(table_writer, without_a_window_writes_keep_their_order)
{
    cr_assert_eq(sent_out_of_place(0, 600), 0);
}

/* A sorted input leaves in another order, every item still sent once. */
Test(table_writer, a_window_shuffles_a_sorted_input)
{
    int moved = sent_out_of_place(128, 600);
    cr_assert_gt(moved, 500, "only %d of 600 moved", moved);
}

/* Two writes of one key are never reordered: the later waits until the
 * earlier is answered, whatever the window does. */
Test(table_writer, a_window_keeps_the_order_of_one_key)
{
    ddb_output *o = writer_window(64);
    ddb_error err;
    int last[10];
    uint64_t seq = 0;
    for (int round = 0; round < 30; round++)
        for (int k = 0; k < 10; k++) {
            char pk[8];
            snprintf(pk, sizeof(pk), "s%d", k);
            cr_assert_eq(put_v(o, pk, round, ++seq, &err), 0, "%s", err.message);
        }
    cr_assert_eq(o->vt->finish(o, &err), 0, "%s", err.message);
    cr_assert_eq(fk.acks, 300);
    cr_assert_eq(fk.n_sent, 300);
    for (int k = 0; k < 10; k++)
        last[k] = -1;
    for (int i = 0; i < fk.n_sent; i++) {
        int k = fk.sent[i][1] - '0', v = atoi(strchr(fk.sent[i], '=') + 1);
        cr_assert_eq(v, last[k] + 1, "%s sent after s%d=%d", fk.sent[i], k, last[k]);
        last[k] = v;
    }
    ddb_output_free(o);
}

/* Many writes of one key: all but the first wait for it, none can join the
 * window; with the first one held there the waiting ones would pile up
 * past the queue's bound. */
Test(table_writer, one_key_written_many_times_does_not_stall_in_the_window)
{
    ddb_output *o = writer_window(4096);
    table_output *to = (table_output *)o;
    ddb_error err;
    for (int i = 0; i < 1000; i++) {
        cr_assert_eq(put_v(o, "same", i, (uint64_t)i + 1, &err), 0, "%s", err.message);
        cr_assert_leq(to->queued, to->max_queued, "%zu queued", to->queued);
    }
    cr_assert_eq(o->vt->finish(o, &err), 0, "%s", err.message);
    cr_assert_eq(fk.acks, 1000);
    cr_assert_eq(fk.n_sent, 1000);
    cr_assert_str_eq(fk.sent[999], "same=999");
    ddb_output_free(o);
}
