/*
 * test_faults.c — the BatchWriteItem writer's accounting when things fail
 * inside it: the busy set cannot grow, a half of a split batch cannot be
 * sent. Every item put must end acknowledged or refused (nothing lost,
 * nothing leaked, the queue drains).
 *
 * This suite is linked with ld --wrap (see CMakeLists.txt): the client calls
 * the writer makes go to the stand-in below, which answers BatchWriteItem as
 * DynamoDB does (a ValidationException refuses the whole batch; otherwise
 * every item is taken), and ddb_keyset_add can be made to fail once.
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

int __wrap_ddb_client_submit(ddb_client *c, const char *operation, const char *body, size_t len,
                             ddb_call_done_fn done, void *ctx, ddb_error *err)
{
    (void)c;
    cr_assert_str_eq(operation, "BatchWriteItem");
    if (++fk.submits == fk.fail_submit_at)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    cr_assert_lt(fk.n_calls, 256);
    fk.calls[fk.n_calls++] = (pending_call){done, ctx, count_requests(body, len)};
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
    pending_call pc = fk.calls[fk.next_call++];
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

static ddb_output *writer(void)
{
    ddb_table_output_opts o;
    ddb_output *out = NULL;
    ddb_error err;
    memset(&o, 0, sizeof(o));
    o.table = "t";
    o.info = &info;
    o.random_seed = 1;
    cr_assert_eq(ddb_table_output_new(&out, &o, &err), 0);
    out->ack = on_ack;
    out->reject = on_reject;
    return out;
}

static int put(ddb_output *o, const char *pk, uint64_t seq, ddb_error *err)
{
    char text[128];
    ddb_map item;
    ddb_record origin;
    snprintf(text, sizeof(text), "{\"pk\":{\"S\":\"%s\"},\"v\":{\"N\":\"1\"}}", pk);
    item = tu_item(a, text);
    memset(&origin, 0, sizeof(origin));
    origin.seq = seq;
    origin.source = "in.json";
    origin.line = seq;
    return o->vt->put(o, 0, DDB_REC_PUT, &item, 0, &origin, err);
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
