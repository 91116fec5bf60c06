/*
 * What goes on the wire for each attempt of a call: DynamoDB's signed JSON
 * POST, or a generic signed request (S3), with the response headers and body
 * collected for the loop (client.c) to judge.
 */
#include <assert.h>
#include <curl/curl.h>
#include <openssl/crypto.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "aws/curl_socket.h"
#include "net/client_impl.h"
#include "ddbpipe/credprov.h"
#include "ddbpipe/sigv4.h"

size_t ddb_client_max_body(const call *cl)
{
    const http_part *hp = cl->http;
    if (hp == NULL)
        return DDB_CLIENT_MAX_BODY;
    if (hp->max_body > 0)
        return hp->max_body;
    /* the range, or an error document in its place after what was kept */
    if (hp->ranged)
        return (size_t)(hp->range_end - hp->range_start + 1) + DDB_CLIENT_MAX_HEADERS;
    return DDB_CLIENT_MAX_BODY;
}

/* A limit as a reader would write it: "64 KiB", "32 MiB", "1000 bytes". */
static void limit_text(char *out, size_t cap, size_t n)
{
    if (n >= (1u << 20) && n % (1u << 20) == 0)
        snprintf(out, cap, "%zu MiB", n >> 20);
    else if (n >= (1u << 10) && n % (1u << 10) == 0)
        snprintf(out, cap, "%zu KiB", n >> 10);
    else
        snprintf(out, cap, "%zu bytes", n);
}

void ddb_client_over_limit(call *cl)
{
    char limit[32];
    assert(cl->over != OVER_NONE);
    limit_text(limit, sizeof(limit),
               cl->over == OVER_HEADERS ? DDB_CLIENT_MAX_HEADERS : ddb_client_max_body(cl));
    snprintf(cl->resp.error_type, sizeof(cl->resp.error_type), "ResponseTooLarge");
    snprintf(cl->resp.message, sizeof(cl->resp.message),
             "the answer's %s passed %s, more than the service sends: a broken server or "
             "proxy (not retried)",
             cl->over == OVER_HEADERS ? "header lines" : "body", limit);
}

static size_t on_body(char *data, size_t size, size_t n, void *ud)
{
    call *cl = ud;
    if (cl->resp_body.len + size * n > ddb_client_max_body(cl)) {
        cl->over = OVER_BODY;
        return 0; /* curl aborts the transfer */
    }
    if (ddb_buf_append(&cl->resp_body, data, size * n) != 0)
        return 0; /* out of memory: curl aborts the transfer */
    return size * n;
}

/* Copies the trimmed value of a header line after its name's colon. */
static void header_value(const char *data, size_t len, size_t i, char *out, size_t cap)
{
    size_t k = 0;
    while (i < len && data[i] == ' ')
        i++;
    while (i < len && data[i] != '\r' && data[i] != '\n' && k + 1 < cap)
        out[k++] = data[i++];
    out[k] = '\0';
}

static size_t on_header(char *data, size_t size, size_t n, void *ud)
{
    call *cl = ud;
    size_t len = size * n;
    if ((cl->header_bytes += len) > DDB_CLIENT_MAX_HEADERS) {
        cl->over = OVER_HEADERS;
        return 0; /* curl aborts the transfer */
    }
    if (len > 5 && strncmp(data, "HTTP/", 5) == 0) {
        /* A new response (after a 100 Continue, a redirect): its own headers. */
        const char *sp = memchr(data, ' ', len);
        cl->status_seen = sp ? strtol(sp + 1, NULL, 10) : 0;
        ddb_buf_clear(&cl->resp_headers);
        return len;
    }
    if (ddb_buf_append(&cl->resp_headers, data, len) != 0)
        return 0;
    if (len > 14 && strncasecmp(data, "x-amz-crc32:", 12) == 0) {
        size_t i = 12, k = 0;
        while (i < len && data[i] == ' ')
            i++;
        while (i < len && data[i] >= '0' && data[i] <= '9' && k + 1 < sizeof(cl->crc))
            cl->crc[k++] = data[i++];
        cl->crc[k] = '\0';
    } else if (len > 18 && strncasecmp(data, "x-amzn-errortype:", 17) == 0) {
        header_value(data, len, 17, cl->errtype, sizeof(cl->errtype));
    } else if (len > 17 && strncasecmp(data, "content-encoding:", 17) == 0) {
        header_value(data, len, 17, cl->encoding, sizeof(cl->encoding));
        if (strcasecmp(cl->encoding, "identity") == 0)
            cl->encoding[0] = '\0';
    } else if (len > 16 && strncasecmp(data, "content-length:", 15) == 0) {
        /* the body's room at once, not by doubling (a Scan page is a megabyte
         * of JSON); a length past the limit fails before any of it comes */
        char num[24];
        unsigned long long body;
        header_value(data, len, 15, num, sizeof(num));
        body = strtoull(num, NULL, 10);
        /* a HEAD's Content-Length is the object's: no body comes */
        if (body == 0 || (cl->http != NULL && strcmp(cl->http->method, "HEAD") == 0))
            return len;
        if (body > ddb_client_max_body(cl) - cl->resp_body.len) {
            cl->over = OVER_BODY;
            return 0;
        }
        if (ddb_buf_reserve(&cl->resp_body, (size_t)body) != 0)
            return 0;
    }
    return len;
}

/* A request's signature: the headers to add, from the client's kept signer
 * or, for a request it hands back, ddb_sigv4_sign. The kept signer's token
 * header points into the credentials, held until signed_done. */
typedef struct signed_req {
    const ddb_aws_credentials *creds;
    ddb_sigv4_result *general;
    ddb_sigv4_signed kept;
    const ddb_sigv4_header *add;
    size_t add_count;
} signed_req;

/* The credentials of this attempt (the provider's current ones), signed into
 * the headers to add. Returns 0 or a signing error (message in cl->resp);
 * either way out is for signed_done. */
static int sign(ddb_client *c, call *cl, ddb_sigv4_request *req, signed_req *out)
{
    ddb_error err;
    int rc = DDB_SIGV4_NOT_SIMPLE;
    out->general = NULL;
    out->creds = c->prov ? ddb_credprov_acquire(c->prov, &cl->cred_gen) : c->creds;
    req->access_key_id = out->creds ? out->creds->access_key_id : "anonymous";
    req->secret_access_key = out->creds ? out->creds->secret_access_key : "anonymous";
    req->session_token = out->creds ? out->creds->session_token : NULL;
    if (c->signer != NULL && (rc = ddb_sigv4_signer_sign(c->signer, &out->kept, req, &err)) == 0) {
        out->add = out->kept.add;
        out->add_count = out->kept.add_count;
    } else if (rc == DDB_SIGV4_NOT_SIMPLE && (rc = ddb_sigv4_sign(&out->general, req, &err)) == 0) {
        out->add = out->general->add;
        out->add_count = out->general->add_count;
    }
    if (rc != 0)
        snprintf(cl->resp.message, sizeof(cl->resp.message), "signing failed: %.400s", err.message);
    return rc;
}

static void signed_done(ddb_client *c, signed_req *sr)
{
    if (c->prov)
        ddb_credprov_release(c->prov, sr->creds);
    sr->creds = NULL;
    ddb_sigv4_result_free(sr->general);
    sr->general = NULL;
}

static struct curl_slist *add_header(struct curl_slist *h, int *oom, const char *name,
                                     const char *value)
{
    char stack[4096], *line = stack;
    struct curl_slist *n = NULL;
    size_t nl = strlen(name), vl = strlen(value), len = nl + 2 + vl;

    /* "name: value" without a format to parse; a long one (a session token
     * can be) in its own allocation rather than cut */
    if (len >= sizeof(stack) && (line = malloc(len + 1)) == NULL) {
        *oom = 1;
        return h;
    }
    memcpy(line, name, nl);
    memcpy(line + nl, ": ", 2);
    memcpy(line + nl + 2, value, vl + 1);
    n = curl_slist_append(h, line);
    OPENSSL_cleanse(line, len + 1); /* may hold the session token */
    if (line != stack)
        free(line);
    if (n == NULL)
        *oom = 1;
    return n ? n : h;
}

/* The options every request of c shares, whatever it is. */
static void constant_options(const ddb_client *c, CURL *easy)
{
    curl_easy_setopt(easy, CURLOPT_USERAGENT, c->user_agent);
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    ddb_http_sockets_close_on_exec(easy);
    curl_easy_setopt(easy, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(easy, CURLOPT_SSL_VERIFYPEER, 1L);
    curl_easy_setopt(easy, CURLOPT_SSL_VERIFYHOST, 2L);
    if (c->ca_bundle != NULL) {
        /* that file alone, as the AWS CLI trusts it */
        curl_easy_setopt(easy, CURLOPT_CAINFO, c->ca_bundle);
        curl_easy_setopt(easy, CURLOPT_CAPATH, NULL);
    }
    if (c->no_proxy) {
        /* what libcurl would find in the environment, without looking
         * (five getenv calls a request) */
        curl_easy_setopt(easy, CURLOPT_PROXY, "");
        curl_easy_setopt(easy, CURLOPT_NOPROXY, "");
    }
    /* Signed requests never follow a redirect: S3's 301 is read, not followed. */
    curl_easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, c->connect_timeout_ms);
    curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, c->request_timeout_ms);
}

/* The options that point at the attempt's call. */
static void call_options(call *cl)
{
    CURL *easy = cl->slot->easy;
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, cl);
    curl_easy_setopt(easy, CURLOPT_HEADERDATA, cl);
    curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, cl->curl_err);
    curl_easy_setopt(easy, CURLOPT_PRIVATE, cl);
}

/* A handle set up once for DynamoDB's calls: POST to the endpoint with the
 * slot's header lines. */
static void set_up_dynamodb(const ddb_client *c, easy_slot *s)
{
    constant_options(c, s->easy);
    curl_easy_setopt(s->easy, CURLOPT_URL, c->url);
    curl_easy_setopt(s->easy, CURLOPT_POST, 1L);
    curl_easy_setopt(s->easy, CURLOPT_HTTPHEADER, s->node);
    /* Accept-Encoding is ours, not libcurl's (CURLOPT_ACCEPT_ENCODING):
     * DynamoDB's x-amz-crc32 is of the gzipped bytes, which libcurl would
     * decode before the CRC is checked (the AWS SDKs met this as CRC32
     * mismatches); the client decodes after (client_body.c). */
    curl_easy_setopt(s->easy, CURLOPT_HTTP_CONTENT_DECODING, 0L);
    s->ready = 1;
}

/* DynamoDB: POST / with X-Amz-Target, the JSON body signed. */
static int build_dynamodb(ddb_client *c, call *cl)
{
    char target[96];
    ddb_sigv4_header hdrs[3];
    ddb_sigv4_request req;
    signed_req sig;
    const char *names[DDB_EASY_LINES], *values[DDB_EASY_LINES];
    size_t n = 0;
    int rc;

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
    req.region = c->region;
    req.service = "dynamodb";
    req.flags = DDB_SIGV4_FLAGS_DYNAMODB;
    if (sign(c, cl, &req, &sig) != 0) {
        signed_done(c, &sig);
        return -1;
    }
    assert(sig.add_count <= DDB_SIGV4_MAX_ADDED);
    names[n] = "Content-Type", values[n++] = hdrs[1].value;
    names[n] = "X-Amz-Target", values[n++] = target;
    names[n] = "Expect", values[n++] = NULL;
    if (c->ask_gzip)
        names[n] = "Accept-Encoding", values[n++] = "gzip";
    for (size_t i = 0; i < sig.add_count; i++)
        names[n] = sig.add[i].name, values[n++] = sig.add[i].value;
    if (!cl->slot->ready)
        set_up_dynamodb(c, cl->slot);
    rc = ddb_client_slot_lines(cl->slot, names, values, n);
    signed_done(c, &sig);
    if (rc != 0) {
        snprintf(cl->resp.message, sizeof(cl->resp.message), "out of memory");
        return -1;
    }
    call_options(cl);
    curl_easy_setopt(cl->slot->easy, CURLOPT_POSTFIELDS, cl->body);
    curl_easy_setopt(cl->slot->easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)cl->len);
    return 0;
}

/* A generic request: the caller's headers plus Host (and Range for what is
 * still missing of a ranged GET), all signed. */
static int build_http(ddb_client *c, call *cl)
{
    http_part *hp = cl->http;
    CURL *easy = cl->slot->easy;
    struct curl_slist **h = &cl->headers; /* freed with the attempt, even on failure */
    ddb_sigv4_header *hdrs = calloc(hp->n_headers + 2, sizeof(*hdrs));
    ddb_sigv4_request req;
    signed_req sig = {0};
    char range[80];
    size_t n = 0;
    int oom = 0, rc = -1;

    if (hdrs == NULL) {
        snprintf(cl->resp.message, sizeof(cl->resp.message), "out of memory");
        return -1;
    }
    hdrs[n].name = "Host";
    hdrs[n++].value = hp->host;
    for (size_t i = 0; i < hp->n_headers; i++)
        hdrs[n++] = hp->headers[i];
    if (hp->ranged) {
        snprintf(range, sizeof(range), "bytes=%llu-%llu",
                 (unsigned long long)(hp->range_start + hp->kept),
                 (unsigned long long)hp->range_end);
        hdrs[n].name = "Range";
        hdrs[n++].value = range;
    }
    memset(&req, 0, sizeof(req));
    req.method = hp->method;
    req.path = hp->path;
    req.query = hp->query;
    req.headers = hdrs;
    req.header_count = n;
    req.payload = cl->body;
    req.payload_len = cl->len;
    req.region = hp->region ? hp->region : c->region;
    req.service = hp->service;
    req.flags = hp->sign_flags;
    if (sign(c, cl, &req, &sig) != 0)
        goto done;
    for (size_t i = 1; i < n; i++)
        *h = add_header(*h, &oom, hdrs[i].name, hdrs[i].value);
    *h = add_header(*h, &oom, "Expect", "");
    if (cl->len == 0 && strcmp(hp->method, "PUT") == 0)
        *h = add_header(*h, &oom, "Content-Length", "0");
    for (size_t i = 0; i < sig.add_count; i++)
        *h = add_header(*h, &oom, sig.add[i].name, sig.add[i].value);
    if (oom) {
        snprintf(cl->resp.message, sizeof(cl->resp.message), "out of memory");
        goto done;
    }
    if (strcmp(hp->method, "HEAD") == 0) {
        curl_easy_setopt(easy, CURLOPT_NOBODY, 1L);
    } else if (strcmp(hp->method, "GET") != 0) {
        curl_easy_setopt(easy, CURLOPT_CUSTOMREQUEST, hp->method);
        curl_easy_setopt(easy, CURLOPT_POSTFIELDS, cl->body ? cl->body : "");
        curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)cl->len);
    }
    constant_options(c, easy);
    call_options(cl);
    curl_easy_setopt(easy, CURLOPT_URL, hp->url);
    curl_easy_setopt(easy, CURLOPT_HTTPHEADER, cl->headers);
    rc = 0;
done:
    signed_done(c, &sig);
    free(hdrs);
    return rc;
}

void ddb_client_start_attempt(ddb_client *c, call *cl)
{
    int rc;

    if (ddb_client_hold_for_credentials(c, cl))
        return;
    cl->attempts++;
    cl->crc[0] = cl->errtype[0] = cl->curl_err[0] = cl->encoding[0] = '\0';
    cl->status_seen = 0;
    cl->header_bytes = 0;
    cl->over = OVER_NONE;
    ddb_buf_clear(&cl->resp_body);
    if (cl->resp_body.ptr == NULL && cl->http == NULL)
        cl->resp_body = ddb_client_take_spare_body(c);
    ddb_buf_clear(&cl->resp_headers);
    /* A ranged GET keeps the bytes earlier attempts received. */
    if (cl->http != NULL && cl->http->ranged)
        cl->resp_body.len = (size_t)cl->http->kept;
    cl->slot = ddb_client_get_slot(c, cl->http == NULL);
    if (cl->slot == NULL) {
        snprintf(cl->resp.message, sizeof(cl->resp.message), "out of memory");
        ddb_client_attempt_failed(c, cl, 0);
        return;
    }
    rc = cl->http ? build_http(c, cl) : build_dynamodb(c, cl);
    if (rc != 0 || curl_multi_add_handle(c->multi, cl->slot->easy) != CURLM_OK) {
        if (rc == 0)
            snprintf(cl->resp.message, sizeof(cl->resp.message), "libcurl refused the request");
        ddb_client_attempt_failed(c, cl, 0); /* gives back the handle and the lines */
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

/* Splits url into host[:port], raw path and raw query. */
static int split_url(http_part *hp, const char *url)
{
    const char *p = strstr(url, "://"), *slash, *q;
    if (p == NULL)
        return -1;
    p += 3;
    slash = strchr(p, '/');
    q = strchr(p, '?');
    if (q != NULL && (slash == NULL || q < slash))
        slash = NULL;
    if (slash == NULL) {
        size_t hl = q ? (size_t)(q - p) : strlen(p);
        hp->host = strndup(p, hl);
        hp->path = strdup("/");
    } else {
        hp->host = strndup(p, (size_t)(slash - p));
        hp->path = q ? strndup(slash, (size_t)(q - slash)) : strdup(slash);
    }
    hp->query = strdup(q ? q + 1 : "");
    return hp->host && hp->path && hp->query ? 0 : -1;
}

static void http_part_free(http_part *hp)
{
    if (hp == NULL)
        return;
    for (size_t i = 0; i < hp->n_headers; i++) {
        free((char *)hp->headers[i].name);
        free((char *)hp->headers[i].value);
    }
    free(hp->headers);
    free(hp->url);
    free(hp->host);
    free(hp->path);
    free(hp->query);
    free(hp->region);
    free(hp);
}

void ddb_client_call_free(call *cl)
{
    if (cl == NULL)
        return;
    ddb_buf_dispose(&cl->resp_body);
    ddb_buf_dispose(&cl->resp_headers);
    http_part_free(cl->http);
    free(cl->body);
    free(cl);
}

int ddb_client_submit_http(ddb_client *c, const ddb_http_call *hc, ddb_call_done_fn done, void *ctx,
                           ddb_error *err)
{
    call *cl = calloc(1, sizeof(*cl));
    http_part *hp = calloc(1, sizeof(*hp));
    int oom = cl == NULL || hp == NULL;

    if (!oom) {
        cl->http = hp;
        snprintf(hp->method, sizeof(hp->method), "%s", hc->method);
        snprintf(hp->service, sizeof(hp->service), "%s", hc->service ? hc->service : "s3");
        snprintf(cl->op, sizeof(cl->op), "%s %s", hp->service, hc->method);
        hp->sign_flags = hc->sign_flags;
        hp->ranged = hc->ranged;
        hp->range_start = hc->range_start;
        hp->range_end = hc->range_end;
        hp->max_body = hc->max_body;
        oom = (hp->url = strdup(hc->url)) == NULL || split_url(hp, hc->url) != 0 ||
              (hc->region && (hp->region = strdup(hc->region)) == NULL) ||
              (hp->headers = calloc(hc->n_headers + 1, sizeof(*hp->headers))) == NULL;
    }
    for (size_t i = 0; !oom && i < hc->n_headers; i++) {
        hp->headers[i].name = strdup(hc->headers[i].name);
        hp->headers[i].value = strdup(hc->headers[i].value);
        hp->n_headers++;
        oom = hp->headers[i].name == NULL || hp->headers[i].value == NULL;
    }
    if (!oom && hc->body_len > 0) {
        if ((cl->body = malloc(hc->body_len)) == NULL)
            oom = 1;
        else
            memcpy(cl->body, hc->body, hc->body_len);
        cl->len = hc->body_len;
    }
    if (oom) {
        if (cl)
            ddb_client_call_free(cl);
        else
            http_part_free(hp);
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    }
    cl->done = done;
    cl->ctx = ctx;
    c->queued++;
    ddb_client_enqueue_ready(c, cl);
    return 0;
}

int ddb_response_header(const ddb_response *resp, const char *name, char *out, size_t cap)
{
    size_t nlen = strlen(name);
    const char *p = resp->headers, *end = p ? p + resp->headers_len : NULL;
    out[0] = '\0';
    while (p != NULL && p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        size_t len = eol ? (size_t)(eol - p + 1) : (size_t)(end - p);
        if (len > nlen && p[nlen] == ':' && strncasecmp(p, name, nlen) == 0) {
            header_value(p, len, nlen + 1, out, cap);
            return 1;
        }
        p += len;
    }
    return 0;
}
