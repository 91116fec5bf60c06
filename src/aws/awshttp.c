/*
 * Synchronous HTTP for the credential providers, with the DynamoDB client's
 * retry policy (see awshttp.h).
 */
#include "aws/awshttp.h"

#include <assert.h>
#include <curl/curl.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>

#include <openssl/crypto.h>

#include "aws/awserror.h"
#include "aws/awsini.h"

typedef struct exchange {
    ddb_http_resp *resp;
    atomic_int *abort;
    int too_big;
} exchange;

static curl_socket_t open_close_on_exec(void *ctx, curlsocktype purpose,
                                        struct curl_sockaddr *addr)
{
    (void)ctx;
    (void)purpose;
    return socket(addr->family, addr->socktype | SOCK_CLOEXEC, addr->protocol);
}

void ddb_http_sockets_close_on_exec(CURL *easy)
{
    assert(easy != NULL);
    curl_easy_setopt(easy, CURLOPT_OPENSOCKETFUNCTION, open_close_on_exec);
    curl_easy_setopt(easy, CURLOPT_OPENSOCKETDATA, NULL);
}

static size_t on_body(char *data, size_t size, size_t n, void *ud)
{
    exchange *x = ud;
    size_t len = size * n;
    /* The buffer was reserved up front: appending never reallocates, so no
     * copy of a secret is left behind in freed memory. */
    if (x->resp->body.len + len > DDB_HTTP_MAX_BODY) {
        x->too_big = 1;
        return 0;
    }
    memcpy(x->resp->body.ptr + x->resp->body.len, data, len);
    x->resp->body.len += len;
    x->resp->body.ptr[x->resp->body.len] = '\0';
    return len;
}

static size_t on_header(char *data, size_t size, size_t n, void *ud)
{
    exchange *x = ud;
    size_t len = size * n, i = 17, k = 0;
    if (len > 18 && strncasecmp(data, "x-amzn-errortype:", 17) == 0) {
        char *t = x->resp->error_type;
        while (i < len && data[i] == ' ')
            i++;
        while (i < len && data[i] != ':' && data[i] != '\r' && data[i] != '\n' &&
               k + 1 < sizeof(x->resp->error_type))
            t[k++] = data[i++];
        t[k] = '\0';
    }
    return len;
}

static int on_progress(void *ud, curl_off_t a, curl_off_t b, curl_off_t c, curl_off_t d)
{
    exchange *x = ud;
    (void)a, (void)b, (void)c, (void)d;
    return x->abort && atomic_load_explicit(x->abort, memory_order_relaxed) ? 1 : 0;
}

static void wipe_list(struct curl_slist *h)
{
    for (struct curl_slist *p = h; p; p = p->next)
        OPENSSL_cleanse(p->data, strlen(p->data));
    curl_slist_free_all(h);
}

int ddb_http_perform(ddb_http_resp *resp, const ddb_http_req *req, ddb_error *err)
{
    char curl_err[CURL_ERROR_SIZE] = "";
    struct curl_slist *h = NULL;
    exchange x = {resp, req->abort, 0};
    CURL *e = NULL;
    CURLcode cc;
    int rc = 0;

    ddb_http_resp_dispose(resp);
    if (ddb_buf_reserve(&resp->body, DDB_HTTP_MAX_BODY + 1) != 0 || (e = curl_easy_init()) == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    resp->body.ptr[0] = '\0';
    h = curl_slist_append(h, "Expect:");
    for (size_t i = 0; h && req->headers && req->headers[i]; i++) {
        struct curl_slist *n = curl_slist_append(h, req->headers[i]);
        if (n == NULL) {
            wipe_list(h);
            h = NULL;
        }
        h = n;
    }
    if (h == NULL) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto done;
    }
    curl_easy_setopt(e, CURLOPT_URL, req->url);
    curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, req->method);
    if (strcmp(req->method, "GET") != 0) {
        curl_easy_setopt(e, CURLOPT_POSTFIELDS, req->body ? req->body : "");
        curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)req->body_len);
    }
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(e, CURLOPT_USERAGENT,
                     req->user_agent ? req->user_agent : "ddbpipe/" DDB_VERSION);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, &x);
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, &x);
    curl_easy_setopt(e, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(e, CURLOPT_XFERINFODATA, &x);
    curl_easy_setopt(e, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, curl_err);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    ddb_http_sockets_close_on_exec(e);
    curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 1L);
    curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 2L);
    if (req->ca_file != NULL && req->ca_file[0] != '\0') {
        curl_easy_setopt(e, CURLOPT_CAINFO, req->ca_file);
        curl_easy_setopt(e, CURLOPT_CAPATH, NULL);
    }
    /* Credentials never follow a redirect, and no proxy sees link-local
     * metadata traffic unless the environment says so explicitly. */
    curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS,
                     req->connect_timeout_ms > 0 ? req->connect_timeout_ms : 5000L);
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, req->timeout_ms > 0 ? req->timeout_ms : 30000L);
    cc = curl_easy_perform(e);
    if (cc == CURLE_OK) {
        curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &resp->status);
    } else if (x.too_big) {
        rc = ddb_error_set(err, DDB_ETOOBIG, "%s: response body over %u bytes", req->url,
                           DDB_HTTP_MAX_BODY);
    } else if (req->abort && atomic_load_explicit(req->abort, memory_order_relaxed)) {
        rc = ddb_error_set(err, DDB_EINTR, "interrupted");
    } else {
        snprintf(resp->transport, sizeof(resp->transport), "%s",
                 curl_err[0] ? curl_err : curl_easy_strerror(cc));
        rc = ddb_error_set(err, DDB_ENET, "%s: %s", req->url, resp->transport);
    }
done:
    wipe_list(h);
    curl_easy_cleanup(e);
    return rc;
}

void ddb_http_call_init(ddb_http_call *c, const char *method, const char *url,
                        const ddb_cred_net *net, const ddb_cred_call *call)
{
    assert(method != NULL && url != NULL && net != NULL);
    memset(c, 0, sizeof(*c));
    c->req.method = method;
    c->req.url = url;
    c->req.headers = (const char *const *)c->lines;
    c->req.connect_timeout_ms = net->connect_timeout_ms;
    c->req.timeout_ms = net->timeout_ms;
    c->req.ca_file = net->ca_file;
    c->req.abort = call ? call->abort : NULL;
    c->policy.max_attempts = net->max_attempts;
    c->policy.rng = call ? call->rng : NULL;
}

int ddb_http_call_header(ddb_http_call *c, const char *name, const char *value, ddb_error *err)
{
    char *line;
    if (c->n_lines >= DDB_HTTP_MAX_LINES - 1)
        return ddb_error_set(err, DDB_ETOOBIG, "%s: more than %d header lines", c->req.url,
                             DDB_HTTP_MAX_LINES - 1);
    if ((line = ddb_aws_xprintf("%s: %s", name, value)) == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    c->lines[c->n_lines++] = line;
    return 0;
}

void ddb_http_call_dispose(ddb_http_call *c)
{
    for (int i = 0; i < c->n_lines; i++)
        ddb_aws_free_secret(c->lines[i]);
    memset(c, 0, sizeof(*c));
}

static int is_extra_code(const char *type, const char *const *codes)
{
    for (size_t i = 0; codes && codes[i]; i++)
        if (strcmp(type, codes[i]) == 0)
            return 1;
    return 0;
}

int ddb_http_retryable(const ddb_http_resp *resp, int rc, const ddb_http_policy *policy)
{
    if (rc == DDB_ENET)
        return 1; /* refused, reset, timed out: as the client does */
    if (rc != 0)
        return 0;
    if (resp->status >= 200 && resp->status < 300)
        return 0;
    return resp->status >= 500 || ddb_error_is_throttling(resp->error_type) ||
           ddb_error_is_server_side(resp->error_type) ||
           is_extra_code(resp->error_type, policy ? policy->retry_codes : NULL);
}

int ddb_http_sleep(uint32_t ms, atomic_int *abort)
{
    while (ms > 0) {
        uint32_t step = ms > 50 ? 50 : ms;
        struct timespec ts = {0, (long)step * 1000000L};
        if (abort && *abort)
            return DDB_EINTR;
        nanosleep(&ts, NULL);
        ms -= step;
    }
    return abort && *abort ? DDB_EINTR : 0;
}

int ddb_http_send(ddb_http_resp *resp, const ddb_http_req *req, const ddb_http_policy *policy,
                  int *attempts, ddb_error *err)
{
    static const ddb_http_policy defaults = {0};
    const ddb_http_policy *p = policy ? policy : &defaults;
    int max = p->max_attempts > 0 ? p->max_attempts : 10, n = 0, rc;
    uint64_t local_rng = (uint64_t)time(NULL) ^ (uint64_t)(uintptr_t)resp;
    uint64_t *rng = p->rng ? p->rng : &local_rng;

    for (;;) {
        n++;
        rc = ddb_http_perform(resp, req, err);
        if (rc == 0 && (resp->status < 200 || resp->status >= 300) && p->classify)
            p->classify(resp);
        if (n >= max || !ddb_http_retryable(resp, rc, p))
            break;
        if (ddb_http_sleep(
                ddb_backoff_ms(rng, n, p->base_ms ? p->base_ms : 50, p->cap_ms ? p->cap_ms : 20000),
                req->abort) != 0) {
            rc = ddb_error_set(err, DDB_EINTR, "interrupted");
            break;
        }
    }
    if (attempts)
        *attempts = n;
    return rc;
}

void ddb_http_resp_dispose(ddb_http_resp *resp)
{
    if (resp->body.ptr)
        OPENSSL_cleanse(resp->body.ptr, resp->body.cap);
    ddb_buf_dispose(&resp->body);
    resp->status = 0;
    resp->error_type[0] = resp->transport[0] = '\0';
}
