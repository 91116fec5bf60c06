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
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "client_internal.h"
#include "ddbpipe/credprov.h"
#include "ddbpipe/sigv4.h"

#define MAX_CONCURRENCY 1024
#define MAX_CREDENTIAL_RETRIES 5
#define CREDENTIAL_HOLD_MS 120000 /* longest wait for a refresh before sending anyway */

typedef struct call {
    struct call *next;
    char op[64];
    char *body;
    size_t len;
    ddb_call_done_fn done;
    void *ctx;
    int attempts;
    uint64_t throttles;
    uint64_t wake_ms;
    uint64_t cred_gen;     /* generation of the credentials the attempt was signed with */
    int cred_retries;      /* sent again because of its credentials */
    uint64_t cred_hold_ms; /* waiting for a refresh since (0: not waiting) */
    /* per attempt */
    CURL *easy;
    struct curl_slist *headers;
    ddb_buf resp_body;
    char crc[16];
    char errtype[128];
    char curl_err[CURL_ERROR_SIZE];
    ddb_response resp;
} call;

struct ddb_client {
    CURLM *multi;
    char *url;
    char *host; /* host[:port] as sent in Host */
    char *region;
    char *user_agent;
    const ddb_aws_credentials *creds;
    struct ddb_credprov *prov;
    int concurrency;     /* current limit of requests in flight (adaptive) */
    int max_concurrency; /* what the user asked for */
    int adaptive;
    int successes; /* since the last change */
    uint64_t last_decrease_ms;
    int max_attempts;
    uint32_t base_ms, cap_ms;
    long connect_timeout_ms, request_timeout_ms;
    int verbose;
    void (*notice)(void *ctx, const char *msg);
    void *notice_ctx;
    int told_unreachable;
    uint64_t rng;
    call *ready_head, *ready_tail;
    call *delayed; /* sorted by wake_ms */
    call *flying;  /* in flight (linked through next) */
    int in_flight;
    int queued;
    CURL **idle; /* easy handles kept for reuse */
    int n_idle, cap_idle;
    volatile sig_atomic_t *stop;
    void (*on_idle)(void *ctx);
    void *idle_ctx;
    uint64_t last_idle_ms;
    ddb_client_stats stats;
};

static size_t on_body(char *data, size_t size, size_t n, void *ud)
{
    call *cl = ud;
    if (ddb_buf_append(&cl->resp_body, data, size * n) != 0)
        return 0; /* out of memory: curl aborts the transfer */
    return size * n;
}

static size_t on_header(char *data, size_t size, size_t n, void *ud)
{
    call *cl = ud;
    size_t len = size * n;
    if (len > 14 && strncasecmp(data, "x-amz-crc32:", 12) == 0) {
        size_t i = 12, k = 0;
        while (i < len && data[i] == ' ')
            i++;
        while (i < len && data[i] >= '0' && data[i] <= '9' && k + 1 < sizeof(cl->crc))
            cl->crc[k++] = data[i++];
        cl->crc[k] = '\0';
    } else if (len > 18 && strncasecmp(data, "x-amzn-errortype:", 17) == 0) {
        size_t i = 17, k = 0;
        while (i < len && data[i] == ' ')
            i++;
        while (i < len && data[i] != '\r' && data[i] != '\n' && k + 1 < sizeof(cl->errtype))
            cl->errtype[k++] = data[i++];
        cl->errtype[k] = '\0';
    }
    return len;
}

static void enqueue_ready(ddb_client *c, call *cl)
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
    if ((c = calloc(1, sizeof(*c))) == NULL || (u = curl_url()) == NULL) {
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
    c->verbose = o->verbose;
    c->notice = o->notice;
    c->notice_ctx = o->notice_ctx;
    c->rng = o->random_seed ? o->random_seed : (uint64_t)time(NULL) ^ (uint64_t)(uintptr_t)c;
    curl_multi_setopt(c->multi, CURLMOPT_MAXCONNECTS, (long)c->concurrency * 2);
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

static CURL *get_easy(ddb_client *c)
{
    if (c->n_idle > 0) {
        CURL *e = c->idle[--c->n_idle];
        curl_easy_reset(e);
        return e;
    }
    return curl_easy_init();
}

static void put_easy(ddb_client *c, CURL *e)
{
    if (c->n_idle == c->cap_idle) {
        int ncap = c->cap_idle ? c->cap_idle * 2 : 16;
        CURL **n = realloc(c->idle, (size_t)ncap * sizeof(CURL *));
        if (n == NULL) {
            curl_easy_cleanup(e);
            return;
        }
        c->idle = n;
        c->cap_idle = ncap;
    }
    c->idle[c->n_idle++] = e;
}

static void attempt_failed(ddb_client *c, call *cl, int retryable);

/* A call sent again for newer credentials waits while the refresh it asked
 * for runs, without using up an attempt. */
static int hold_for_credentials(ddb_client *c, call *cl)
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
        fprintf(stderr, "ddbpipe: %s: %s with credentials of generation %llu; sending again %s\n",
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

/* Appends a copy of line; on failure the list is left as it was. */
static int add_header(struct curl_slist **h, const char *line)
{
    struct curl_slist *n = curl_slist_append(*h, line);
    if (n == NULL)
        return -1;
    *h = n;
    return 0;
}

/* Gives back what one attempt holds: its easy handle (kept for reuse; it must
 * be out of the multi handle) and its header lines. */
static void release_attempt(ddb_client *c, call *cl)
{
    if (cl->easy != NULL)
        put_easy(c, cl->easy);
    cl->easy = NULL;
    free_headers(cl->headers);
    cl->headers = NULL;
}

/* Signs and starts one attempt. */
static void start(ddb_client *c, call *cl)
{
    char target[96];
    ddb_sigv4_header hdrs[3];
    ddb_sigv4_request req;
    ddb_sigv4_result *sig = NULL;
    const ddb_aws_credentials *creds;
    ddb_error err;
    int rc, bad = 0;

    if (hold_for_credentials(c, cl))
        return;
    cl->attempts++;
    cl->crc[0] = cl->errtype[0] = cl->curl_err[0] = '\0';
    ddb_buf_clear(&cl->resp_body);
    snprintf(target, sizeof(target), "DynamoDB_20120810.%s", cl->op);
    hdrs[0].name = "Host";
    hdrs[0].value = c->host;
    hdrs[1].name = "Content-Type";
    hdrs[1].value = "application/x-amz-json-1.0";
    hdrs[2].name = "X-Amz-Target";
    hdrs[2].value = target;
    memset(&req, 0, sizeof(req));
    req.method = "POST";
    req.path = "/";
    req.query = "";
    req.headers = hdrs;
    req.header_count = 3;
    req.payload = cl->body;
    req.payload_len = cl->len;
    creds = c->prov ? ddb_credprov_acquire(c->prov, &cl->cred_gen) : c->creds;
    req.access_key_id = creds ? creds->access_key_id : "anonymous";
    req.secret_access_key = creds ? creds->secret_access_key : "anonymous";
    req.session_token = creds ? creds->session_token : NULL;
    req.region = c->region;
    req.service = "dynamodb";
    req.flags = DDB_SIGV4_FLAGS_DYNAMODB;
    rc = ddb_sigv4_sign(&sig, &req, &err);
    if (c->prov)
        ddb_credprov_release(c->prov, creds);
    if (rc != 0) {
        snprintf(cl->resp.message, sizeof(cl->resp.message), "signing failed: %.400s", err.message);
        attempt_failed(c, cl, 0);
        return;
    }
    {
        char line[2048];
        snprintf(line, sizeof(line), "X-Amz-Target: %s", target);
        bad = add_header(&cl->headers, "Content-Type: application/x-amz-json-1.0") ||
              add_header(&cl->headers, line) || add_header(&cl->headers, "Expect:");
        for (size_t i = 0; i < sig->add_count && !bad; i++) {
            snprintf(line, sizeof(line), "%s: %s", sig->add[i].name, sig->add[i].value);
            bad = add_header(&cl->headers, line);
        }
        OPENSSL_cleanse(line, sizeof(line)); /* held the session token */
    }
    ddb_sigv4_result_free(sig);
    cl->easy = get_easy(c);
    if (cl->easy == NULL || bad) {
        snprintf(cl->resp.message, sizeof(cl->resp.message), "out of memory");
        attempt_failed(c, cl, 0);
        return;
    }
    curl_easy_setopt(cl->easy, CURLOPT_URL, c->url);
    curl_easy_setopt(cl->easy, CURLOPT_POST, 1L);
    curl_easy_setopt(cl->easy, CURLOPT_POSTFIELDS, cl->body);
    curl_easy_setopt(cl->easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)cl->len);
    curl_easy_setopt(cl->easy, CURLOPT_HTTPHEADER, cl->headers);
    curl_easy_setopt(cl->easy, CURLOPT_USERAGENT, c->user_agent);
    curl_easy_setopt(cl->easy, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(cl->easy, CURLOPT_WRITEDATA, cl);
    curl_easy_setopt(cl->easy, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(cl->easy, CURLOPT_HEADERDATA, cl);
    curl_easy_setopt(cl->easy, CURLOPT_ERRORBUFFER, cl->curl_err);
    curl_easy_setopt(cl->easy, CURLOPT_PRIVATE, cl);
    curl_easy_setopt(cl->easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(cl->easy, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(cl->easy, CURLOPT_SSL_VERIFYPEER, 1L);
    curl_easy_setopt(cl->easy, CURLOPT_SSL_VERIFYHOST, 2L);
    curl_easy_setopt(cl->easy, CURLOPT_CONNECTTIMEOUT_MS, c->connect_timeout_ms);
    curl_easy_setopt(cl->easy, CURLOPT_TIMEOUT_MS, c->request_timeout_ms);
    curl_easy_setopt(cl->easy, CURLOPT_ACCEPT_ENCODING, "");
    if (curl_multi_add_handle(c->multi, cl->easy) != CURLM_OK) {
        snprintf(cl->resp.message, sizeof(cl->resp.message), "libcurl refused the request");
        attempt_failed(c, cl, 0);
        return;
    }
    cl->next = c->flying;
    c->flying = cl;
    c->in_flight++;
    c->stats.requests++;
    c->stats.bytes_sent += cl->len;
    if (cl->attempts > 1)
        c->stats.retries++;
}

static void finish_call(ddb_client *c, call *cl)
{
    release_attempt(c, cl);
    cl->resp.attempts = cl->attempts;
    cl->resp.throttles = cl->throttles;
    if (cl->resp.ok) {
        cl->resp.body = cl->resp_body.ptr ? cl->resp_body.ptr : (char *)"";
        cl->resp.body_len = cl->resp_body.len;
    } else {
        c->stats.errors++;
        cl->resp.body = cl->resp_body.ptr;
        cl->resp.body_len = cl->resp_body.len;
    }
    if (cl->done)
        cl->done(cl->ctx, &cl->resp);
    /* The callback may have taken the body (set resp.body = NULL). */
    if (cl->resp.body == NULL)
        cl->resp_body.ptr = NULL, cl->resp_body.len = cl->resp_body.cap = 0;
    ddb_buf_dispose(&cl->resp_body);
    free(cl->body);
    free(cl);
}

/* A failed attempt: schedule a retry or finish the call with the failure. */
static void attempt_failed(ddb_client *c, call *cl, int retryable)
{
    release_attempt(c, cl);
    cl->resp.ok = 0;
    cl->resp.retryable = retryable;
    if (retryable && cl->attempts < c->max_attempts && !(c->stop && *c->stop)) {
        cl->wake_ms = ddb_clock_ms() + ddb_backoff_ms(&c->rng, cl->attempts, c->base_ms, c->cap_ms);
        c->queued++;
        enqueue_delayed(c, cl);
        return;
    }
    finish_call(c, cl);
}

static void completed(ddb_client *c, call *cl, CURLcode result)
{
    long status = 0;
    int retryable;

    for (call **p = &c->flying; *p; p = &(*p)->next) {
        if (*p == cl) {
            *p = cl->next;
            break;
        }
    }
    curl_multi_remove_handle(c->multi, cl->easy);
    curl_easy_getinfo(cl->easy, CURLINFO_RESPONSE_CODE, &status);
    release_attempt(c, cl);
    c->in_flight--;
    c->stats.bytes_received += cl->resp_body.len;
    memset(&cl->resp, 0, sizeof(cl->resp));
    cl->resp.http_status = status;

    if (result != CURLE_OK) {
        /* Refused, reset, dropped mid-response, timed out: worth another try. */
        snprintf(cl->resp.message, sizeof(cl->resp.message), "%s",
                 cl->curl_err[0] ? cl->curl_err : curl_easy_strerror(result));
        snprintf(cl->resp.error_type, sizeof(cl->resp.error_type), "%s",
                 result == CURLE_OPERATION_TIMEDOUT ? "Timeout" : "ConnectionError");
        if (c->verbose)
            fprintf(stderr, "ddbpipe: %s attempt %d: %s\n", cl->op, cl->attempts, cl->resp.message);
        if (!c->told_unreachable && c->notice != NULL &&
            (result == CURLE_COULDNT_CONNECT || result == CURLE_COULDNT_RESOLVE_HOST ||
             result == CURLE_OPERATION_TIMEDOUT)) {
            char msg[700];
            c->told_unreachable = 1;
            snprintf(msg, sizeof(msg),
                     "cannot reach %s (%s); retrying up to %d attempts with backoff. Is the "
                     "endpoint right?",
                     c->url, cl->resp.message, c->max_attempts);
            c->notice(c->notice_ctx, msg);
        }
        attempt_failed(c, cl, 1);
        return;
    }
    if (status == 200) {
        if (cl->crc[0]) {
            unsigned long want = strtoul(cl->crc, NULL, 10);
            unsigned long got =
                crc32(0L, (const Bytef *)(cl->resp_body.ptr ? cl->resp_body.ptr : ""),
                      (uInt)cl->resp_body.len);
            if (want != got) {
                snprintf(cl->resp.error_type, sizeof(cl->resp.error_type), "CRC32Mismatch");
                snprintf(cl->resp.message, sizeof(cl->resp.message),
                         "response CRC32 %lu does not match x-amz-crc32 %lu", got, want);
                attempt_failed(c, cl, 1);
                return;
            }
        }
        cl->resp.ok = 1;
        /* Additive increase: one more request in flight per window of successes. */
        if (c->adaptive && c->concurrency < c->max_concurrency &&
            ++c->successes >= c->concurrency) {
            c->concurrency++;
            c->successes = 0;
        }
        if (c->verbose)
            fprintf(stderr, "ddbpipe: %s attempt %d: 200 (%zu bytes)\n", cl->op, cl->attempts,
                    cl->resp_body.len);
        finish_call(c, cl);
        return;
    }
    ddb_parse_error_body(cl->resp_body.ptr, cl->resp_body.len, cl->errtype, cl->resp.error_type,
                         sizeof(cl->resp.error_type), cl->resp.message, sizeof(cl->resp.message));
    if (cl->resp.message[0] == '\0')
        snprintf(cl->resp.message, sizeof(cl->resp.message), "HTTP %ld", status);
    if (retry_with_new_credentials(c, cl))
        return;
    retryable = status >= 500 || ddb_error_is_throttling(cl->resp.error_type) ||
                ddb_client_error_is_server_side(cl->resp.error_type);
    if (ddb_error_is_throttling(cl->resp.error_type)) {
        uint64_t now = ddb_clock_ms();
        cl->throttles++;
        c->stats.throttles++;
        /* Multiplicative decrease, at most once a second so one burst of
         * throttled answers does not collapse it to 1. */
        if (c->adaptive && now - c->last_decrease_ms >= 1000) {
            c->last_decrease_ms = now;
            c->concurrency = c->concurrency / 2 > 0 ? c->concurrency / 2 : 1;
            c->successes = 0;
            c->stats.decreases++;
            if (c->concurrency < c->stats.min_concurrency)
                c->stats.min_concurrency = c->concurrency;
        }
    }
    if (c->verbose)
        fprintf(stderr, "ddbpipe: %s attempt %d: HTTP %ld %s\n", cl->op, cl->attempts, status,
                cl->resp.error_type);
    attempt_failed(c, cl, retryable);
}

int ddb_client_submit(ddb_client *c, const char *operation, const char *body, size_t len,
                      ddb_call_done_fn done, void *ctx, ddb_error *err)
{
    call *cl = calloc(1, sizeof(*cl));
    if (cl == NULL || (cl->body = malloc(len + 1)) == NULL) {
        free(cl);
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    }
    memcpy(cl->body, body, len);
    cl->body[len] = '\0';
    cl->len = len;
    snprintf(cl->op, sizeof(cl->op), "%s", operation);
    cl->done = done;
    cl->ctx = ctx;
    c->queued++;
    enqueue_ready(c, cl);
    return 0;
}

static void promote_delayed(ddb_client *c, uint64_t now)
{
    while (c->delayed && c->delayed->wake_ms <= now) {
        call *cl = c->delayed;
        c->delayed = cl->next;
        enqueue_ready(c, cl);
    }
}

static void start_ready(ddb_client *c)
{
    while (c->ready_head && c->in_flight < c->concurrency) {
        call *cl = c->ready_head;
        c->ready_head = cl->next;
        if (c->ready_head == NULL)
            c->ready_tail = NULL;
        c->queued--;
        start(c, cl);
    }
}

static void drain_messages(ddb_client *c)
{
    CURLMsg *m;
    int left;
    while ((m = curl_multi_info_read(c->multi, &left)) != NULL) {
        call *cl = NULL;
        if (m->msg != CURLMSG_DONE)
            continue;
        curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&cl);
        completed(c, cl, m->data.result);
    }
}

int ddb_client_run(ddb_client *c, int (*until)(void *ctx), void *ctx, ddb_error *err)
{
    for (;;) {
        int running = 0, timeout;
        long curl_timeout = -1;
        uint64_t now;

        if (until && until(ctx))
            return 0;
        if (c->stop && *c->stop)
            return ddb_error_set(err, DDB_EINTR, "interrupted");
        now = ddb_clock_ms();
        if (c->on_idle && now - c->last_idle_ms >= 100) {
            c->last_idle_ms = now;
            c->on_idle(c->idle_ctx);
        }
        promote_delayed(c, now);
        start_ready(c);
        if (c->in_flight == 0 && c->ready_head == NULL && c->delayed == NULL)
            return 0; /* nothing left that could change anything */
        if (curl_multi_perform(c->multi, &running) != CURLM_OK)
            return ddb_error_set(err, DDB_ENET, "libcurl multi loop failed");
        drain_messages(c);
        if (until && until(ctx))
            return 0;
        if (c->in_flight == 0 && c->ready_head == NULL && c->delayed == NULL)
            return 0;
        if (c->ready_head && c->in_flight < c->concurrency)
            continue; /* new work from callbacks can start at once */
        curl_multi_timeout(c->multi, &curl_timeout);
        timeout = curl_timeout < 0 || curl_timeout > 200 ? 200 : (int)curl_timeout;
        if (c->delayed) {
            uint64_t wake = c->delayed->wake_ms;
            now = ddb_clock_ms();
            if (wake <= now)
                timeout = 0;
            else if (wake - now < (uint64_t)timeout)
                timeout = (int)(wake - now);
        }
        if (c->in_flight > 0) {
            if (curl_multi_poll(c->multi, NULL, 0, timeout, NULL) != CURLM_OK)
                return ddb_error_set(err, DDB_ENET, "libcurl poll failed");
        } else if (timeout > 0) {
            struct timespec ts = {timeout / 1000, (long)(timeout % 1000) * 1000000L};
            nanosleep(&ts, NULL);
        }
    }
}

int ddb_client_step(ddb_client *c, ddb_error *err)
{
    int running = 0;
    promote_delayed(c, ddb_clock_ms());
    start_ready(c);
    if (c->in_flight == 0)
        return 0;
    if (curl_multi_perform(c->multi, &running) != CURLM_OK)
        return ddb_error_set(err, DDB_ENET, "libcurl multi loop failed");
    drain_messages(c);
    start_ready(c);
    return 0;
}

int ddb_client_pending(const ddb_client *c)
{
    return c->in_flight + c->queued;
}

typedef struct sync_call {
    ddb_response *resp;
    int done;
} sync_call;

static void sync_done(void *ctx, ddb_response *resp)
{
    sync_call *s = ctx;
    *s->resp = *resp;
    resp->body = NULL; /* ownership moves to the caller */
    s->done = 1;
}

static int sync_finished(void *ctx)
{
    return ((sync_call *)ctx)->done;
}

int ddb_client_call(ddb_client *c, const char *operation, const char *body, size_t len,
                    ddb_response *resp, ddb_error *err)
{
    sync_call s = {resp, 0};
    int rc;
    memset(resp, 0, sizeof(*resp));
    if ((rc = ddb_client_submit(c, operation, body, len, sync_done, &s, err)) != 0)
        return rc;
    while (!s.done) {
        if ((rc = ddb_client_run(c, sync_finished, &s, err)) != 0)
            return rc;
    }
    return 0;
}

void ddb_response_dispose(ddb_response *resp)
{
    if (resp == NULL)
        return;
    free(resp->body);
    resp->body = NULL;
    resp->body_len = 0;
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
        ddb_buf_dispose(&cl->resp_body);
        free(cl->body);
        free(cl);
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
        curl_multi_remove_handle(c->multi, cl->easy);
        curl_easy_cleanup(cl->easy);
        free_headers(cl->headers);
        cl->next = NULL;
        free_calls(cl);
    }
    if (c->multi)
        curl_multi_cleanup(c->multi);
    free_calls(c->ready_head);
    free_calls(c->delayed);
    for (int i = 0; i < c->n_idle; i++)
        curl_easy_cleanup(c->idle[i]);
    free(c->idle);
    free(c->url);
    free(c->host);
    free(c->region);
    free(c->user_agent);
    free(c);
}
