/*
 * The DynamoDB client: a libcurl multi loop with a FIFO of calls ready to go,
 * a time-ordered list of calls waiting out their backoff, and at most
 * `concurrency` requests in flight. Every attempt is signed afresh (SigV4
 * dates go stale) and every 200 response is checked against x-amz-crc32.
 */
#include "ddbpipe/client.h"
#include "ddbpipe/clock.h"

#include <curl/curl.h>
#include <openssl/crypto.h>
#include <assert.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/client_impl.h"
#include "aws/awserror.h"
#include "ddbpipe/credprov.h"
#include "ddbpipe/sigv4.h"

#define MAX_CONCURRENCY 1024
#define MAX_CREDENTIAL_RETRIES 5
#define CREDENTIAL_HOLD_MS 120000 /* longest wait for a refresh before sending anyway */

/* Hands a message to the caller's log (with verbose set: no message is
 * formatted that would go nowhere). */
static void client_log(const ddb_client *c, ddb_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void client_log(const ddb_client *c, ddb_log_level level, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    assert(c->verbose && c->log != NULL);
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    c->log(c->log_ctx, level, msg);
}

void ddb_client_enqueue_ready(ddb_client *c, call *cl)
{
    cl->next = NULL;
    if (c->ready_tail)
        c->ready_tail->next = cl;
    else
        c->ready_head = cl;
    c->ready_tail = cl;
}

static void enqueue_delayed(ddb_client *c, call *cl)
{
    call **p = &c->delayed;
    while (*p && (*p)->wake_ms <= cl->wake_ms)
        p = &(*p)->next;
    cl->next = *p;
    *p = cl;
}

/* Is a proxy set where libcurl looks for one? When none is, it is told so
 * once (CURLOPT_PROXY ""), rather than reading five variables a request. */
static int proxy_in_environment(void)
{
    static const char *const names[] = {"http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy",
                                        "ALL_PROXY"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        const char *v = getenv(names[i]);
        if (v != NULL && v[0] != '\0')
            return 1;
    }
    return 0;
}

int ddb_client_new(ddb_client **out, const ddb_client_opts *o, ddb_error *err)
{
    ddb_client *c = NULL;
    CURLU *u = NULL;
    char *host = NULL, *port = NULL, *scheme = NULL;
    int rc = 0;

    *out = NULL;
    if (o->endpoint == NULL || o->region == NULL)
        return ddb_error_set(err, DDB_EUSAGE, "an endpoint and a region are needed");
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
        return ddb_error_set(err, DDB_ENET, "libcurl could not be initialised");
    if ((c = calloc(1, sizeof(*c))) == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    c->epfd = -1; /* before anything can fail: freeing closes it */
    if ((u = curl_url()) == NULL) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto done;
    }
    if (curl_url_set(u, CURLUPART_URL, o->endpoint, 0) != CURLUE_OK ||
        curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
        curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK ||
        (strcmp(scheme, "https") != 0 && strcmp(scheme, "http") != 0)) {
        rc = ddb_error_set(err, DDB_EUSAGE, "endpoint \"%s\" is not an http:// or https:// URL",
                           o->endpoint);
        goto done;
    }
    curl_url_get(u, CURLUPART_PORT, &port, 0);
    c->host = malloc(strlen(host) + (port ? strlen(port) : 0) + 2);
    c->url = strdup(o->endpoint);
    c->region = strdup(o->region);
    c->user_agent = strdup(o->user_agent ? o->user_agent : "ddbpipe/" DDB_VERSION);
    c->multi = curl_multi_init();
    if (c->host == NULL || c->url == NULL || c->region == NULL || c->user_agent == NULL ||
        c->multi == NULL) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto done;
    }
    sprintf(c->host, port ? "%s:%s" : "%s", host, port);
    c->creds = o->credentials;
    c->prov = o->provider;
    c->concurrency = o->concurrency > 0 ? o->concurrency : 16;
    if (c->concurrency > MAX_CONCURRENCY)
        c->concurrency = MAX_CONCURRENCY;
    c->max_concurrency = c->concurrency;
    c->stats.min_concurrency = c->concurrency;
    c->adaptive = !o->fixed_concurrency;
    c->max_attempts = o->max_attempts > 0 ? o->max_attempts : 10;
    c->base_ms = o->backoff_base_ms ? o->backoff_base_ms : 50;
    c->cap_ms = o->backoff_cap_ms ? o->backoff_cap_ms : 20000;
    c->connect_timeout_ms = o->connect_timeout_ms > 0 ? o->connect_timeout_ms : 5000;
    c->request_timeout_ms = o->request_timeout_ms > 0 ? o->request_timeout_ms : 60000;
    c->verbose = o->verbose && o->log != NULL;
    c->log = o->log;
    c->log_ctx = o->log_ctx;
    c->ask_gzip = !o->no_gzip;
    c->no_proxy = !proxy_in_environment();
    if ((rc = ddb_sigv4_signer_new(&c->signer, err)) != 0)
        goto done;
    c->notice = o->notice;
    c->notice_ctx = o->notice_ctx;
    c->rng = o->random_seed ? o->random_seed : (uint64_t)time(NULL) ^ (uint64_t)(uintptr_t)c;
    curl_multi_setopt(c->multi, CURLMOPT_MAXCONNECTS, (long)c->concurrency * 2);
    if (ddb_client_loop_init(c) != 0) {
        rc = ddb_error_set(err, DDB_ENET, "cannot create an epoll set for the connections");
        goto done;
    }
    if (o->ca_bundle && (c->ca_bundle = strdup(o->ca_bundle)) == NULL) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto done;
    }
    *out = c;
    c = NULL;
done:
    curl_free(scheme);
    curl_free(host);
    curl_free(port);
    curl_url_cleanup(u);
    ddb_client_free(c);
    return rc;
}

/* A call sent again for newer credentials waits while the refresh it asked
 * for runs, without using up an attempt. */
int ddb_client_hold_for_credentials(ddb_client *c, call *cl)
{
    uint64_t now;
    if (cl->cred_hold_ms == 0 || c->prov == NULL)
        return 0;
    now = ddb_clock_ms();
    if (!ddb_credprov_refreshing(c->prov) || now - cl->cred_hold_ms >= CREDENTIAL_HOLD_MS) {
        cl->cred_hold_ms = 0;
        return 0;
    }
    cl->wake_ms = now + 50;
    c->queued++;
    enqueue_delayed(c, cl);
    return 1;
}

/* A call refused for its credentials (expired, unknown) goes again with newer
 * ones instead of failing: returns 1 when it was queued for that. */
static int retry_with_new_credentials(ddb_client *c, call *cl)
{
    ddb_cred_verdict v;
    if (c->prov == NULL || cl->cred_retries >= MAX_CREDENTIAL_RETRIES)
        return 0;
    v = ddb_credprov_rejected(c->prov, cl->cred_gen, cl->resp.error_type);
    if (v == DDB_CRED_NOT_MINE)
        return 0;
    cl->cred_retries++;
    cl->attempts--; /* the credentials failed, not the request */
    cl->cred_hold_ms = v == DDB_CRED_WAIT ? ddb_clock_ms() : 0;
    if (c->verbose)
        client_log(c, DDB_LOG_INFO, "%s: %s with credentials of generation %llu; sending again %s",
                   cl->op, cl->resp.error_type, (unsigned long long)cl->cred_gen,
                v == DDB_CRED_WAIT ? "after the refresh" : "with newer ones");
    cl->wake_ms = ddb_clock_ms();
    c->queued++;
    enqueue_delayed(c, cl);
    return 1;
}

/* Frees a header list, wiping every line first: one holds the session token. */
static void free_headers(struct curl_slist *h)
{
    for (struct curl_slist *p = h; p != NULL; p = p->next)
        OPENSSL_cleanse(p->data, strlen(p->data));
    curl_slist_free_all(h);
}

/* Gives back what one attempt holds: its easy handle (kept for reuse; it must
 * be out of the multi handle) and its header lines. */
static void release_attempt(ddb_client *c, call *cl)
{
    ddb_client_put_slot(c, cl->slot);
    cl->slot = NULL;
    free_headers(cl->headers);
    cl->headers = NULL;
}

static void finish_call(ddb_client *c, call *cl)
{
    release_attempt(c, cl);
    cl->resp.attempts = cl->attempts;
    cl->resp.throttles = cl->throttles;
    if (!cl->resp.ok)
        c->stats.errors++;
    /* An empty success (HEAD, 204) still has a body the caller may own and free. */
    if (cl->resp.ok && cl->resp_body.ptr == NULL && ddb_buf_reserve(&cl->resp_body, 1) == 0)
        cl->resp_body.ptr[0] = '\0';
    cl->resp.body = cl->resp_body.ptr;
    cl->resp.body_len = cl->resp_body.len;
    cl->resp.body_cap = cl->resp_body.cap;
    cl->resp.headers = cl->resp_headers.ptr;
    cl->resp.headers_len = cl->resp_headers.len;
    if (cl->done)
        cl->done(cl->ctx, &cl->resp);
    /* The callback may have taken the body or the headers (set them NULL). */
    if (cl->resp.body == NULL)
        cl->resp_body.ptr = NULL, cl->resp_body.len = cl->resp_body.cap = 0;
    if (cl->resp.headers == NULL)
        cl->resp_headers.ptr = NULL, cl->resp_headers.len = cl->resp_headers.cap = 0;
    ddb_client_call_free(cl);
}

/* A failed attempt: schedule a retry or finish the call with the failure. */
void ddb_client_attempt_failed(ddb_client *c, call *cl, int retryable)
{
    release_attempt(c, cl);
    cl->resp.ok = 0;
    cl->resp.retryable = retryable;
    if (retryable && cl->attempts < c->max_attempts && !(c->stop && *c->stop) && !c->settling) {
        cl->wake_ms = ddb_clock_ms() + ddb_backoff_ms(&c->rng, cl->attempts, c->base_ms, c->cap_ms);
        c->queued++;
        enqueue_delayed(c, cl);
        return;
    }
    finish_call(c, cl);
}

/* A 2xx answer to a generic request: for a ranged GET, exactly the bytes asked
 * for (the rest of the range after a resumed attempt). Returns 0, or -1 with
 * the failure in cl->resp (not worth another attempt). */
static int check_range(call *cl, long status)
{
    http_part *hp = cl->http;
    char cr[128];
    unsigned long long first = 0, last = 0;
    uint64_t want_first = hp->range_start + hp->kept;
    if (!hp->ranged)
        return 0;
    if (status == 206 && ddb_response_header(&cl->resp, "content-range", cr, sizeof(cr)) &&
        sscanf(cr, "bytes %llu-%llu/", &first, &last) == 2 && first == want_first &&
        last == hp->range_end && cl->resp_body.len == hp->range_end - hp->range_start + 1)
        return 0;
    snprintf(cl->resp.error_type, sizeof(cl->resp.error_type), "RangeMismatch");
    snprintf(cl->resp.message, sizeof(cl->resp.message),
             "asked for bytes %llu-%llu, got HTTP %ld %s (%zu bytes in all)",
             (unsigned long long)want_first, (unsigned long long)hp->range_end, status,
             cr[0] ? cr : "without Content-Range", cl->resp_body.len);
    return -1;
}

/* The answer was a success: counts it for the adaptive limit and finishes. */
static void succeeded(ddb_client *c, call *cl, long status)
{
    cl->resp.ok = 1;
    /* Additive increase: one more request in flight per window of successes. */
    if (c->adaptive && c->concurrency < c->max_concurrency && ++c->successes >= c->concurrency) {
        c->concurrency++;
        c->successes = 0;
    }
    if (c->verbose && cl->wire_len != cl->resp_body.len)
        client_log(c, DDB_LOG_DEBUG, "%s attempt %d: %ld (%zu bytes, %zu as sent in %s)", cl->op,
                   cl->attempts, status, cl->resp_body.len, cl->wire_len, cl->encoding);
    else if (c->verbose)
        client_log(c, DDB_LOG_DEBUG, "%s attempt %d: %ld (%zu bytes)", cl->op, cl->attempts, status,
                   cl->resp_body.len);
    finish_call(c, cl);
}

/* Multiplicative decrease, at most once a second so one burst of throttled
 * answers does not collapse it to 1. */
static void throttled(ddb_client *c, call *cl)
{
    uint64_t now = ddb_clock_ms();
    cl->throttles++;
    c->stats.throttles++;
    if (c->adaptive && now - c->last_decrease_ms >= 1000) {
        c->last_decrease_ms = now;
        c->concurrency = c->concurrency / 2 > 0 ? c->concurrency / 2 : 1;
        c->successes = 0;
        c->stats.decreases++;
        if (c->concurrency < c->stats.min_concurrency)
            c->stats.min_concurrency = c->concurrency;
    }
}

/* A 200 whose body cannot be trusted or read (its CRC, its encoding): sent
 * for again, as the AWS SDKs do. */
static void unusable_answer(ddb_client *c, call *cl)
{
    if (c->verbose)
        client_log(c, DDB_LOG_INFO, "%s attempt %d: %s: %s", cl->op, cl->attempts,
                   cl->resp.error_type, cl->resp.message);
    ddb_client_attempt_failed(c, cl, 1);
}

/* Tells the notice callback once, at the first attempt that could not reach
 * its endpoint (DynamoDB's, or the S3 host of a generic request). */
static void tell_unreachable(ddb_client *c, const call *cl, ddb_transfer_result failure)
{
    char msg[700];
    const char *url = c->url;
    int url_len = (int)strlen(c->url);
    if (c->told_unreachable || c->notice == NULL ||
        (failure != DDB_TRANSFER_CONNECT && failure != DDB_TRANSFER_RESOLVE &&
         failure != DDB_TRANSFER_TIMEOUT))
        return;
    if (cl->http != NULL) {
        /* scheme://host[:port] of the request, not its object key */
        const char *p = strstr(cl->http->url, "://");
        url = cl->http->url;
        url_len = p ? (int)(p - url + 3 + strlen(cl->http->host)) : (int)strlen(url);
    }
    c->told_unreachable = 1;
    snprintf(msg, sizeof(msg),
             "cannot reach %.*s (%s); retrying up to %d attempts with backoff. Is the "
             "endpoint right?",
             url_len, url, cl->resp.message, c->max_attempts);
    c->notice(c->notice_ctx, msg);
}

void ddb_client_completed(ddb_client *c, call *cl, long status, ddb_transfer_result failure,
                          const char *message)
{
    char undecoded[450];
    int retryable;
    size_t kept = cl->http && cl->http->ranged ? (size_t)cl->http->kept : 0;

    for (call **p = &c->flying; *p; p = &(*p)->next) {
        if (*p == cl) {
            *p = cl->next;
            break;
        }
    }
    release_attempt(c, cl);
    c->in_flight--;
    c->stats.bytes_received += cl->resp_body.len - kept;
    memset(&cl->resp, 0, sizeof(cl->resp));
    cl->resp.http_status = status;
    cl->resp.headers = cl->resp_headers.ptr;
    cl->resp.headers_len = cl->resp_headers.len;

    if (cl->over != OVER_NONE) {
        ddb_client_over_limit(cl);
        if (c->verbose)
            client_log(c, DDB_LOG_INFO, "%s attempt %d: %s", cl->op, cl->attempts,
                       cl->resp.message);
        ddb_client_attempt_failed(c, cl, 0);
        return;
    }
    if (failure != DDB_TRANSFER_OK) {
        /* Refused, reset, dropped mid-response, timed out: worth another try.
         * A ranged GET keeps what arrived of its range. */
        if (cl->http && cl->http->ranged && cl->status_seen == 206)
            cl->http->kept = cl->resp_body.len;
        else if (cl->http && cl->http->ranged)
            cl->resp_body.len = kept;
        snprintf(cl->resp.message, sizeof(cl->resp.message), "%s", message);
        snprintf(cl->resp.error_type, sizeof(cl->resp.error_type), "%s",
                 failure == DDB_TRANSFER_TIMEOUT ? "Timeout" : "ConnectionError");
        if (c->verbose)
            client_log(c, DDB_LOG_INFO, "%s attempt %d: %s", cl->op, cl->attempts, cl->resp.message);
        tell_unreachable(c, cl, failure);
        ddb_client_attempt_failed(c, cl, 1);
        return;
    }
    cl->wire_len = cl->resp_body.len;
    undecoded[0] = '\0';
    if (cl->http == NULL && (status == 200 || cl->encoding[0] != '\0')) {
        if (ddb_client_body_ready(c, cl, status, undecoded, sizeof(undecoded)) != 0) {
            if (cl->over == OVER_NONE) {
                unusable_answer(c, cl);
                return;
            }
            ddb_client_over_limit(cl); /* decoded past the limit: as one sent past it */
            ddb_client_attempt_failed(c, cl, 0);
            return;
        }
        if (status == 200) {
            succeeded(c, cl, status);
            return;
        }
    }
    if (cl->http != NULL && status >= 200 && status < 300) {
        if (check_range(cl, status) == 0)
            succeeded(c, cl, status);
        else
            ddb_client_attempt_failed(c, cl, 0);
        return;
    }
    if (cl->http == NULL ||
        !ddb_parse_xml_error(cl->resp_body.ptr ? cl->resp_body.ptr + kept : NULL,
                             cl->resp_body.len - kept, cl->resp.error_type,
                             sizeof(cl->resp.error_type), cl->resp.message,
                             sizeof(cl->resp.message)))
        ddb_parse_error_body(cl->resp_body.ptr ? cl->resp_body.ptr + kept : NULL,
                             cl->resp_body.len - kept, cl->errtype, cl->resp.error_type,
                             sizeof(cl->resp.error_type), cl->resp.message,
                             sizeof(cl->resp.message));
    if (cl->resp.message[0] == '\0')
        snprintf(cl->resp.message, sizeof(cl->resp.message), "HTTP %ld%s%.400s", status,
                 undecoded[0] ? ", its body unreadable: " : "", undecoded);
    if (retry_with_new_credentials(c, cl))
        return;
    retryable = status >= 500 || ddb_error_is_throttling(cl->resp.error_type) ||
                ddb_error_is_server_side(cl->resp.error_type);
    if (ddb_error_is_throttling(cl->resp.error_type))
        throttled(c, cl);
    if (c->verbose)
        client_log(c, DDB_LOG_INFO, "%s attempt %d: HTTP %ld %s", cl->op, cl->attempts, status,
                   cl->resp.error_type);
    ddb_client_attempt_failed(c, cl, retryable);
}

int ddb_client_submit(ddb_client *c, const char *operation, const char *body, size_t len,
                      ddb_call_done_fn done, void *ctx, ddb_error *err)
{
    char *copy = malloc(len + 1);
    if (copy == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    memcpy(copy, body, len);
    copy[len] = '\0';
    return ddb_client_submit_owned(c, operation, copy, len, done, ctx, err);
}

int ddb_client_submit_owned(ddb_client *c, const char *operation, char *body, size_t len,
                            ddb_call_done_fn done, void *ctx, ddb_error *err)
{
    call *cl = calloc(1, sizeof(*cl));
    if (cl == NULL) {
        free(body);
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    }
    cl->body = body;
    cl->len = len;
    snprintf(cl->op, sizeof(cl->op), "%s", operation);
    cl->done = done;
    cl->ctx = ctx;
    c->queued++;
    ddb_client_enqueue_ready(c, cl);
    return 0;
}

int ddb_client_pending(const ddb_client *c)
{
    return c->in_flight + c->queued;
}

void ddb_client_reuse_body(ddb_client *c, char *body, size_t cap)
{
    ddb_buf *b;
    if (body == NULL)
        return;
    if (c->n_spare_body == DDB_CLIENT_SPARE_BODIES || cap > DDB_CLIENT_SPARE_BODY_MAX || cap == 0) {
        free(body);
        return;
    }
    b = &c->spare_body[c->n_spare_body++];
    b->ptr = body;
    b->len = 0;
    b->cap = cap;
    b->oom = 0;
}

ddb_buf ddb_client_take_spare_body(ddb_client *c)
{
    ddb_buf b = DDB_BUF_INIT;
    if (c->n_spare_body > 0)
        b = c->spare_body[--c->n_spare_body];
    return b;
}

void ddb_response_dispose(ddb_response *resp)
{
    if (resp == NULL)
        return;
    free(resp->body);
    free(resp->headers);
    resp->body = NULL;
    resp->body_len = 0;
    resp->headers = NULL;
    resp->headers_len = 0;
}

void ddb_client_describe_target(const ddb_client *c, char *out, size_t cap)
{
    snprintf(out, cap, "region %s, endpoint %s", c->region, c->url);
}

int ddb_client_concurrency(const ddb_client *c)
{
    return c->concurrency;
}

void ddb_client_set_stop_flag(ddb_client *c, volatile sig_atomic_t *flag)
{
    c->stop = flag;
}

void ddb_client_forget(ddb_client *c, void *ctx)
{
    call *lists[3] = {c->flying, c->ready_head, c->delayed};
    for (int i = 0; i < 3; i++)
        for (call *cl = lists[i]; cl != NULL; cl = cl->next)
            if (cl->ctx == ctx) {
                cl->done = NULL;
                cl->ctx = NULL;
            }
}

void ddb_client_set_idle(ddb_client *c, void (*idle)(void *ctx), void *ctx)
{
    c->on_idle = idle;
    c->idle_ctx = ctx;
}

void ddb_client_stats_get(const ddb_client *c, ddb_client_stats *out)
{
    *out = c->stats;
    out->in_flight = c->in_flight;
    out->queued = c->queued;
}

static void free_calls(call *cl)
{
    while (cl) {
        call *next = cl->next;
        ddb_client_call_free(cl);
        cl = next;
    }
}

void ddb_client_free(ddb_client *c)
{
    if (c == NULL)
        return;
    /* Calls still in flight are abandoned (an interrupted run). */
    while (c->flying) {
        call *cl = c->flying;
        c->flying = cl->next;
        if (cl->slot != NULL) {
            curl_multi_remove_handle(c->multi, cl->slot->easy);
            ddb_client_slot_free(cl->slot);
        }
        cl->slot = NULL;
        release_attempt(c, cl); /* its header lines, wiped */
        cl->next = NULL;
        free_calls(cl);
    }
    if (c->multi)
        curl_multi_cleanup(c->multi); /* may still tell on_socket of sockets it closes */
    ddb_client_loop_dispose(c);
    free_calls(c->ready_head);
    free_calls(c->delayed);
    for (int i = 0; i < c->n_ready; i++)
        ddb_client_slot_free(c->idle_ready[i]);
    for (int i = 0; i < c->n_other; i++)
        ddb_client_slot_free(c->idle_other[i]);
    for (int i = 0; i < c->n_spare_body; i++)
        ddb_buf_dispose(&c->spare_body[i]);
    free(c->idle_ready);
    free(c->idle_other);
    free(c->url);
    free(c->host);
    free(c->region);
    free(c->user_agent);
    free(c->ca_bundle);
    ddb_sigv4_signer_free(c->signer);
    free(c);
}

/* Finishes every call not in flight as never sent. */
static void cancel_waiting(ddb_client *c)
{
    call *cl;
    while ((cl = c->ready_head) != NULL || (cl = c->delayed) != NULL) {
        if (cl == c->ready_head) {
            if ((c->ready_head = cl->next) == NULL)
                c->ready_tail = NULL;
        } else {
            c->delayed = cl->next;
        }
        c->queued--;
        cl->resp.ok = 0;
        cl->resp.retryable = 0;
        snprintf(cl->resp.error_type, sizeof(cl->resp.error_type), "Cancelled");
        snprintf(cl->resp.message, sizeof(cl->resp.message),
                 "not sent: the run was interrupted first");
        finish_call(c, cl);
    }
}

int ddb_client_settle(ddb_client *c, ddb_error *err)
{
    int rc = 0;
    c->settling = 1;
    for (;;) {
        cancel_waiting(c);
        if (c->in_flight == 0)
            break;
        if (ddb_client_loop_run(c) != 0) {
            rc = ddb_error_set(err, DDB_ENET, "libcurl multi loop failed");
            break;
        }
        ddb_client_loop_drain(c);
        if (c->in_flight > 0 && c->ready_head == NULL && c->delayed == NULL)
            ddb_client_loop_wait(c, 100);
    }
    c->settling = 0;
    return rc;
}
