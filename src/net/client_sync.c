/*
 * client_sync.c — the blocking calls (ddb_client_call, _call_http): one
 * request queued like any other, then the client's loop run until its answer
 * is in (control-plane calls, DescribeTable, S3 listings and small objects).
 */
#include <string.h>

#include "ddbpipe/client.h"

typedef struct sync_call {
    ddb_response *resp;
    int done;
} sync_call;

static void sync_done(void *ctx, ddb_response *resp)
{
    sync_call *s = ctx;
    *s->resp = *resp;
    resp->body = NULL; /* ownership moves to the caller */
    resp->headers = NULL;
    s->done = 1;
}

static int sync_finished(void *ctx)
{
    return ((sync_call *)ctx)->done;
}

/* Runs the loop until the call queued last with sync_done is done. */
static int run_sync(ddb_client *c, sync_call *s, ddb_error *err)
{
    int rc;
    while (!s->done) {
        if ((rc = ddb_client_run(c, sync_finished, s, err)) != 0) {
            ddb_client_forget(c, s); /* s is on the caller's stack */
            return rc;
        }
    }
    return 0;
}

int ddb_client_call(ddb_client *c, const char *operation, const char *body, size_t len,
                    ddb_response *resp, ddb_error *err)
{
    sync_call s = {resp, 0};
    int rc;
    memset(resp, 0, sizeof(*resp));
    if ((rc = ddb_client_submit(c, operation, body, len, sync_done, &s, err)) != 0)
        return rc;
    return run_sync(c, &s, err);
}

int ddb_client_call_http(ddb_client *c, const ddb_http_call *hc, ddb_response *resp, ddb_error *err)
{
    sync_call s = {resp, 0};
    int rc;
    memset(resp, 0, sizeof(*resp));
    if ((rc = ddb_client_submit_http(c, hc, sync_done, &s, err)) != 0)
        return rc;
    return run_sync(c, &s, err);
}
