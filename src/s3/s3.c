/*
 * S3: addressing, one request at a time with the bucket's region followed,
 * HEAD, GET of small objects, PUT, and ListObjectsV2 through all its pages.
 * Ranged reads are s3_source.c's, multipart uploads s3_sink.c's.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "aws/awserror.h"
#include "ddbpipe/array.h"
#include "ddbpipe/codec.h"
#include "s3/s3_internal.h"

#define DEFAULT_CHUNK (8u * 1024u * 1024u)
#define S3_SIGN_FLAGS (DDB_SIGV4_SIGN_BODY | DDB_SIGV4_PATH_ENCODED)

int ddb_s3_is_url(const char *path)
{
    return path != NULL && strncmp(path, "s3://", 5) == 0;
}

int ddb_s3_parse_url(char **bucket, char **key, const char *url, ddb_error *err)
{
    const char *b, *slash;
    *bucket = *key = NULL;
    if (!ddb_s3_is_url(url))
        return ddb_error_set(err, DDB_EUSAGE, "%s is not an s3:// URL", url);
    b = url + 5;
    slash = strchr(b, '/');
    if ((slash ? (size_t)(slash - b) : strlen(b)) == 0)
        return ddb_error_set(err, DDB_EUSAGE, "%s names no bucket (write s3://BUCKET/KEY)", url);
    *bucket = slash ? strndup(b, (size_t)(slash - b)) : strdup(b);
    *key = strdup(slash ? slash + 1 : "");
    if (*bucket == NULL || *key == NULL) {
        free(*bucket);
        free(*key);
        *bucket = *key = NULL;
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    }
    return 0;
}

void ddb_s3_encode(ddb_buf *b, const char *s, size_t len, int keep_slash)
{
    static const char hex[] = "0123456789ABCDEF";
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' ||
            (keep_slash && c == '/')) {
            ddb_buf_putc(b, (char)c);
        } else {
            ddb_buf_putc(b, '%');
            ddb_buf_putc(b, hex[c >> 4]);
            ddb_buf_putc(b, hex[c & 15]);
        }
    }
}

void ddb_s3_content_md5(char out[25], const void *data, size_t len)
{
    unsigned char md[16];
    unsigned int mdlen = 0;
    EVP_Digest(data, len, md, &mdlen, EVP_md5(), NULL);
    EVP_EncodeBlock((unsigned char *)out, md, 16);
}

/* ------------------------------------------------------------ context */

int ddb_s3_new(ddb_s3 **out, const ddb_s3_opts *o, ddb_error *err)
{
    ddb_s3 *s3 = calloc(1, sizeof(*s3));
    *out = NULL;
    if (s3 == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    if (o->region == NULL || o->client == NULL) {
        free(s3);
        return ddb_error_set(err, DDB_EUSAGE, "S3 needs a region and a client");
    }
    if (o->endpoint && strncmp(o->endpoint, "http://", 7) != 0 &&
        strncmp(o->endpoint, "https://", 8) != 0) {
        free(s3);
        return ddb_error_set(err, DDB_EUSAGE,
                             "S3 endpoint \"%s\" is not an http:// or https:// URL", o->endpoint);
    }
    s3->client = o->client;
    s3->stop = o->stop;
    s3->region = strdup(o->region);
    s3->endpoint = o->endpoint ? strdup(o->endpoint) : NULL;
    s3->sse = o->sse ? strdup(o->sse) : NULL;
    s3->sse_kms_key_id = o->sse_kms_key_id ? strdup(o->sse_kms_key_id) : NULL;
    s3->spool_dir = o->spool_dir ? strdup(o->spool_dir) : NULL;
    s3->chunk_size = o->chunk_size ? o->chunk_size : DEFAULT_CHUNK;
    s3->part_size = o->part_size ? o->part_size : DEFAULT_CHUNK;
    if (s3->part_size < DDB_S3_MIN_PART)
        s3->part_size = DDB_S3_MIN_PART;
    s3->window = o->window > 0 ? o->window : 8;
    s3->parts_in_flight = o->parts_in_flight > 0 ? o->parts_in_flight : 4;
    if (s3->region == NULL || (o->endpoint && s3->endpoint == NULL) || (o->sse && !s3->sse) ||
        (o->sse_kms_key_id && !s3->sse_kms_key_id) || (o->spool_dir && !s3->spool_dir)) {
        ddb_s3_free(s3);
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    }
    if (s3->endpoint) {
        size_t n = strlen(s3->endpoint);
        while (n > 0 && s3->endpoint[n - 1] == '/')
            s3->endpoint[--n] = '\0';
    }
    *out = s3;
    return 0;
}

void ddb_s3_free(ddb_s3 *s3)
{
    if (s3 == NULL)
        return;
    ddb_s3_fetch_free(s3);
    for (size_t i = 0; i < s3->n_regions; i++) {
        free(s3->regions[i].bucket);
        free(s3->regions[i].region);
    }
    free(s3->regions);
    free(s3->endpoint);
    free(s3->region);
    free(s3->sse);
    free(s3->sse_kms_key_id);
    free(s3->spool_dir);
    free(s3);
}

static const char *bucket_region(const ddb_s3 *s3, const char *bucket)
{
    for (size_t i = 0; i < s3->n_regions; i++)
        if (strcmp(s3->regions[i].bucket, bucket) == 0)
            return s3->regions[i].region;
    return s3->region;
}

static int set_bucket_region(ddb_s3 *s3, const char *bucket, const char *region)
{
    s3_region *n;
    for (size_t i = 0; i < s3->n_regions; i++) {
        if (strcmp(s3->regions[i].bucket, bucket) == 0) {
            char *r = strdup(region);
            if (r == NULL)
                return DDB_ENOMEM;
            free(s3->regions[i].region);
            s3->regions[i].region = r;
            return 0;
        }
    }
    if ((n = ddb_array_reserve(s3->regions, s3->n_regions, &s3->cap_regions, sizeof(*n), 4)) ==
        NULL)
        return DDB_ENOMEM;
    s3->regions = n;
    n[s3->n_regions].bucket = strdup(bucket);
    n[s3->n_regions].region = strdup(region);
    if (n[s3->n_regions].bucket == NULL || n[s3->n_regions].region == NULL) {
        free(n[s3->n_regions].bucket);
        free(n[s3->n_regions].region);
        return DDB_ENOMEM;
    }
    s3->n_regions++;
    return 0;
}

/* A bucket name usable as a DNS label in a virtual-hosted TLS name. */
static int dns_compatible(const char *b)
{
    size_t n = strlen(b);
    if (n < 3 || n > 63 || !isalnum((unsigned char)b[0]) || !isalnum((unsigned char)b[n - 1]))
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!(islower((unsigned char)b[i]) || isdigit((unsigned char)b[i]) || b[i] == '-'))
            return 0;
    return 1;
}

int ddb_s3_url(const ddb_s3 *s3, ddb_buf *url, const char **region, const char *bucket,
               const char *key, const char *query)
{
    const char *r = bucket_region(s3, bucket);
    *region = r;
    ddb_buf_clear(url);
    if (s3->endpoint != NULL || !dns_compatible(bucket)) {
        if (s3->endpoint != NULL)
            ddb_buf_puts(url, s3->endpoint);
        else
            ddb_buf_printf(url, "https://s3.%s.amazonaws.com%s", r,
                           strncmp(r, "cn-", 3) == 0 ? ".cn" : "");
        ddb_buf_putc(url, '/');
        ddb_s3_encode(url, bucket, strlen(bucket), 0);
        ddb_buf_putc(url, '/');
    } else {
        ddb_buf_printf(url, "https://%s.s3.%s.amazonaws.com%s/", bucket, r,
                       strncmp(r, "cn-", 3) == 0 ? ".cn" : "");
    }
    ddb_s3_encode(url, key, strlen(key), 1);
    if (query && *query) {
        ddb_buf_putc(url, '?');
        ddb_buf_puts(url, query);
    }
    return url->oom ? DDB_ENOMEM : 0;
}

/* The region a redirect or a wrong-region refusal names, or "". */
static void redirect_region(const ddb_response *resp, char *out, size_t cap)
{
    ddb_buf b = DDB_BUF_INIT;
    const char *p = resp->body, *end;
    out[0] = '\0';
    if (ddb_response_header(resp, "x-amz-bucket-region", out, cap) && out[0])
        return;
    if (p == NULL)
        return;
    end = p + resp->body_len;
    if (ddb_s3_xml_take(&p, end, "Region", &b) && b.ptr && !b.oom)
        snprintf(out, cap, "%s", b.ptr);
    ddb_buf_dispose(&b);
}

void ddb_s3_hold_stop(ddb_s3 *s3)
{
    if (s3->held++ == 0)
        ddb_client_set_stop_flag(s3->client, NULL);
}

void ddb_s3_release_stop(ddb_s3 *s3)
{
    if (s3->held > 0 && --s3->held == 0)
        ddb_client_set_stop_flag(s3->client, s3->stop);
}

/* ddb_s3_call, its answer's body at most max_body bytes (0: the client's
 * limit, DDB_CLIENT_MAX_BODY). */
static int s3_call(ddb_s3 *s3, ddb_response *resp, const char *method, const char *bucket,
                   const char *key, const char *query, const ddb_sigv4_header *headers,
                   size_t n_headers, const void *body, size_t len, size_t max_body, ddb_error *err)
{
    ddb_buf url = DDB_BUF_INIT;
    ddb_http_call hc;
    int rc = 0;

    memset(resp, 0, sizeof(*resp));
    for (int hop = 0; hop < 2; hop++) {
        char region[64];
        memset(&hc, 0, sizeof(hc));
        if (ddb_s3_url(s3, &url, &hc.region, bucket, key, query) != 0) {
            rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
            break;
        }
        hc.method = method;
        hc.url = url.ptr;
        hc.service = "s3";
        hc.headers = headers;
        hc.n_headers = n_headers;
        hc.body = body;
        hc.body_len = len;
        hc.sign_flags = S3_SIGN_FLAGS;
        hc.max_body = max_body;
        ddb_response_dispose(resp);
        if ((rc = ddb_client_call_http(s3->client, &hc, resp, err)) != 0 || resp->ok)
            break;
        /* 301 PermanentRedirect, 307, or a request signed for the wrong region. */
        if (resp->http_status != 301 && resp->http_status != 307 && resp->http_status != 400)
            break;
        redirect_region(resp, region, sizeof(region));
        if (region[0] == '\0' || strcmp(region, hc.region) == 0)
            break;
        if (set_bucket_region(s3, bucket, region) != 0) {
            rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
            break;
        }
    }
    ddb_buf_dispose(&url);
    return rc;
}

int ddb_s3_call(ddb_s3 *s3, ddb_response *resp, const char *method, const char *bucket,
                const char *key, const char *query, const ddb_sigv4_header *headers,
                size_t n_headers, const void *body, size_t len, ddb_error *err)
{
    return s3_call(s3, resp, method, bucket, key, query, headers, n_headers, body, len, 0, err);
}

int ddb_s3_fail(const ddb_response *resp, const char *what, const char *bucket, const char *key,
                ddb_error *err)
{
    const char *code = resp->error_type[0] ? resp->error_type : NULL;
    int rc = DDB_ENET;
    if (resp->http_status == 404 ||
        (code && (strcmp(code, "NoSuchKey") == 0 || strcmp(code, "NoSuchBucket") == 0 ||
                  strcmp(code, "NoSuchUpload") == 0)))
        rc = DDB_ENOTFOUND;
    else if (resp->http_status == 403 || resp->http_status == 400 || resp->http_status == 301)
        rc = DDB_EUSAGE;
    return ddb_error_set(err, rc, "s3://%s/%s: %s: %s%s%s (HTTP %ld%s)", bucket, key, what,
                         code ? code : "", code ? ": " : "",
                         resp->message[0] ? resp->message : "no answer", resp->http_status,
                         resp->attempts > 1 ? ", after retries" : "");
}

/* ------------------------------------------------------------- objects */

int ddb_s3_head(ddb_s3 *s3, ddb_s3_object *out, const char *bucket, const char *key, ddb_error *err)
{
    ddb_response resp;
    char v[256];
    int rc;

    memset(out, 0, sizeof(*out));
    if ((rc = ddb_s3_call(s3, &resp, "HEAD", bucket, key, NULL, NULL, 0, NULL, 0, err)) != 0)
        goto done;
    if (!resp.ok) {
        rc = ddb_s3_fail(&resp, "HEAD", bucket, key, err);
        goto done;
    }
    ddb_response_header(&resp, "content-length", v, sizeof(v));
    out->size = strtoull(v, NULL, 10);
    ddb_response_header(&resp, "etag", v, sizeof(v));
    out->etag = strdup(v);
    out->key = strdup(key);
    if (out->etag == NULL || out->key == NULL) {
        free(out->etag);
        free(out->key);
        memset(out, 0, sizeof(*out));
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
    }
done:
    ddb_response_dispose(&resp);
    return rc;
}

int ddb_s3_get(ddb_s3 *s3, char **data, size_t *len, const char *bucket, const char *key,
               size_t max, ddb_error *err)
{
    ddb_response resp;
    int rc;
    *data = NULL;
    *len = 0;
    /* the caller's limit is the client's: the object is never read past it */
    if ((rc = s3_call(s3, &resp, "GET", bucket, key, NULL, NULL, 0, NULL, 0, max, err)) != 0)
        goto done;
    if (!resp.ok && strcmp(resp.error_type, "ResponseTooLarge") == 0) {
        rc = ddb_error_set(err, DDB_ETOOBIG, "s3://%s/%s: %s", bucket, key, resp.message);
        goto done;
    }
    if (!resp.ok) {
        rc = ddb_s3_fail(&resp, "GET", bucket, key, err);
        goto done;
    }
    if (resp.body_len > max) {
        rc = ddb_error_set(err, DDB_ETOOBIG, "s3://%s/%s: larger than %zu bytes", bucket, key, max);
        goto done;
    }
    *data = resp.body;
    *len = resp.body_len;
    resp.body = NULL;
done:
    ddb_response_dispose(&resp);
    return rc;
}

/* The server-side encryption headers the run was given, into h; returns the count. */
static size_t sse_headers(const ddb_s3 *s3, ddb_sigv4_header *h)
{
    size_t n = 0;
    if (s3->sse) {
        h[n].name = "x-amz-server-side-encryption";
        h[n++].value = s3->sse;
    }
    if (s3->sse_kms_key_id) {
        h[n].name = "x-amz-server-side-encryption-aws-kms-key-id";
        h[n++].value = s3->sse_kms_key_id;
    }
    return n;
}

int ddb_s3_put(ddb_s3 *s3, const char *bucket, const char *key, const void *data, size_t len,
               ddb_error *err)
{
    ddb_sigv4_header h[4];
    ddb_response resp;
    char md5[25];
    size_t n = sse_headers(s3, h);
    int rc;

    ddb_s3_content_md5(md5, data, len);
    h[n].name = "Content-MD5";
    h[n++].value = md5;
    ddb_s3_hold_stop(s3); /* a commit: its answer says whether the object changed */
    rc = ddb_s3_call(s3, &resp, "PUT", bucket, key, NULL, h, n, data, len, err);
    ddb_s3_release_stop(s3);
    if (rc == 0 && !resp.ok)
        rc = ddb_s3_fail(&resp, "PutObject", bucket, key, err);
    ddb_response_dispose(&resp);
    return rc;
}

int ddb_s3_delete(ddb_s3 *s3, const char *bucket, const char *key, ddb_error *err)
{
    ddb_response resp;
    int rc;
    ddb_s3_hold_stop(s3); /* a commit, as ddb_s3_put */
    rc = ddb_s3_call(s3, &resp, "DELETE", bucket, key, NULL, NULL, 0, NULL, 0, err);
    ddb_s3_release_stop(s3);
    /* S3 answers 204 for a key that is not there; a 404 is a bucket that is
     * not (NoSuchBucket), not a file removed. NoSuchKey, as some
     * S3-compatible stores answer, is one. */
    if (rc == 0 && !resp.ok &&
        (rc = ddb_s3_fail(&resp, "DeleteObject", bucket, key, err)) == DDB_ENOTFOUND)
        rc = strcmp(resp.error_type, "NoSuchKey") == 0 ? 0 : DDB_EIO;
    ddb_response_dispose(&resp);
    return rc;
}

/* --------------------------------------------------------------- XML */

int ddb_s3_xml_take(const char **pp, const char *end, const char *tag, ddb_buf *out)
{
    size_t n;
    const char *p = ddb_xml_find(*pp, end, tag, &n);
    if (p == NULL)
        return 0;
    ddb_buf_clear(out);
    if (ddb_buf_reserve(out, n) == 0)
        out->len = ddb_xml_decode(out->ptr, n + 1, p, n);
    *pp = p + n + strlen(tag) + 3; /* past "</tag>" */
    return 1;
}

/* Percent-decodes in place (keys of a listing asked with encoding-type=url). */
static void url_decode(char *s)
{
    char *w = s;
    for (; *s; s++) {
        if (*s == '%' && isxdigit((unsigned char)s[1]) && isxdigit((unsigned char)s[2])) {
            char h[3] = {s[1], s[2], 0};
            *w++ = (char)strtol(h, NULL, 16);
            s += 2;
        } else {
            *w++ = *s;
        }
    }
    *w = '\0';
}

/* ------------------------------------------------------------- listing */

static int add_object(ddb_s3_listing *l, const char *key, uint64_t size, const char *etag)
{
    ddb_s3_object *o = ddb_array_reserve(l->objs, l->n, &l->cap, sizeof(*o), 64);
    if (o == NULL)
        return DDB_ENOMEM;
    l->objs = o;
    o = &l->objs[l->n];
    o->key = strdup(key);
    o->etag = strdup(etag);
    o->size = size;
    if (o->key == NULL || o->etag == NULL) {
        free(o->key);
        free(o->etag);
        return DDB_ENOMEM;
    }
    l->n++;
    return 0;
}

static int add_dir(ddb_s3_listing *l, const char *prefix)
{
    char **n = ddb_array_reserve(l->dirs, l->n_dirs, &l->cap_dirs, sizeof(*n), 16);
    if (n == NULL)
        return DDB_ENOMEM;
    l->dirs = n;
    if ((l->dirs[l->n_dirs] = strdup(prefix)) == NULL)
        return DDB_ENOMEM;
    l->n_dirs++;
    return 0;
}

/* A leaf of an element [c, e): decoded into out, or out cleared. */
static int take_leaf(const char *c, const char *e, const char *tag, ddb_buf *out)
{
    ddb_buf_clear(out);
    return ddb_s3_xml_take(&c, e, tag, out);
}

int ddb_s3_list_page(ddb_s3_listing *l, const char *body, size_t len, ddb_buf *token)
{
    const char *p, *end, *c;
    ddb_buf v = DDB_BUF_INIT, key = DDB_BUF_INIT, etag = DDB_BUF_INIT, size = DDB_BUF_INIT;
    int url_encoded = 0, truncated = 0, rc = 0;
    size_t n;

    ddb_buf_clear(token);
    if (body == NULL)
        return 0; /* an empty answer: no offset may be taken from NULL */
    end = body + len;
    if (take_leaf(body, end, "EncodingType", &v))
        url_encoded = v.ptr && strcmp(v.ptr, "url") == 0;
    if (take_leaf(body, end, "IsTruncated", &v))
        truncated = v.ptr && strcmp(v.ptr, "true") == 0;
    if (truncated && take_leaf(body, end, "NextContinuationToken", &v) && v.ptr)
        ddb_buf_puts(token, v.ptr);
    /* The elements holding others are found, not decoded: their leaves are
     * decoded once, each (a key written "a&amp;amp;b" is "a&amp;b"). */
    for (p = body; rc == 0 && (c = ddb_xml_find(p, end, "Contents", &n)) != NULL;) {
        p = c + n;
        if (!take_leaf(c, c + n, "Key", &key))
            continue;
        take_leaf(c, c + n, "ETag", &etag);
        take_leaf(c, c + n, "Size", &size);
        if (url_encoded && key.ptr)
            url_decode(key.ptr);
        if (key.ptr)
            rc = add_object(l, key.ptr, size.ptr ? strtoull(size.ptr, NULL, 10) : 0,
                            etag.ptr ? etag.ptr : "");
    }
    for (p = body; rc == 0 && (c = ddb_xml_find(p, end, "CommonPrefixes", &n)) != NULL;) {
        p = c + n;
        if (!take_leaf(c, c + n, "Prefix", &key))
            continue;
        if (url_encoded && key.ptr)
            url_decode(key.ptr);
        if (key.ptr)
            rc = add_dir(l, key.ptr);
    }
    if (v.oom || key.oom || etag.oom || size.oom || token->oom)
        rc = DDB_ENOMEM;
    ddb_buf_dispose(&v);
    ddb_buf_dispose(&key);
    ddb_buf_dispose(&etag);
    ddb_buf_dispose(&size);
    return rc;
}

/* A listing's next continuation token, kept in seen (each followed by its
 * NUL): 0, or DDB_ENET when it was given before. A token that comes back
 * would list the same keys again and again, growing the listing until memory
 * runs out; any earlier one counts, not only the last, as a cycle of pages
 * is as endless. A listing is bounded by its bucket (1000 keys a page), so
 * the tokens are few and a list searched from the start is enough. */
static int token_fresh(ddb_buf *seen, const ddb_buf *token, size_t page, const char *bucket,
                       const char *prefix, ddb_error *err)
{
    for (size_t at = 0; at < seen->len; at += strlen(seen->ptr + at) + 1)
        if (strcmp(seen->ptr + at, token->ptr) == 0)
            return ddb_error_set(err, DDB_ENET,
                                 "s3://%s/%s: ListObjectsV2: page %zu's NextContinuationToken "
                                 "\"%.200s\" was given before in this listing: the server is "
                                 "repeating itself (stopped rather than list the same keys "
                                 "again)",
                                 bucket, prefix, page, token->ptr);
    ddb_buf_append(seen, token->ptr, token->len + 1);
    return seen->oom ? ddb_error_set(err, DDB_ENOMEM, "out of memory") : 0;
}

int ddb_s3_list(ddb_s3 *s3, ddb_s3_object **objs, size_t *n_objs, char ***dirs, size_t *n_dirs,
                const char *bucket, const char *prefix, const char *delimiter, ddb_error *err)
{
    ddb_s3_listing l;
    ddb_buf q = DDB_BUF_INIT, token = DDB_BUF_INIT, seen = DDB_BUF_INIT;
    size_t page = 0;
    ddb_response resp;
    int rc = 0;

    memset(&l, 0, sizeof(l));
    memset(&resp, 0, sizeof(resp));
    do {
        ddb_buf_clear(&q);
        /* Parameters in the canonical (sorted) order. */
        if (token.len) {
            ddb_buf_puts(&q, "continuation-token=");
            ddb_s3_encode(&q, token.ptr, token.len, 0);
            ddb_buf_putc(&q, '&');
        }
        if (delimiter) {
            ddb_buf_puts(&q, "delimiter=");
            ddb_s3_encode(&q, delimiter, strlen(delimiter), 0);
            ddb_buf_putc(&q, '&');
        }
        ddb_buf_puts(&q, "encoding-type=url&list-type=2&prefix=");
        ddb_s3_encode(&q, prefix, strlen(prefix), 0);
        if (q.oom) {
            rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
            break;
        }
        ddb_response_dispose(&resp);
        if ((rc = ddb_s3_call(s3, &resp, "GET", bucket, "", q.ptr, NULL, 0, NULL, 0, err)) != 0)
            break;
        if (!resp.ok) {
            rc = ddb_s3_fail(&resp, "ListObjectsV2", bucket, prefix, err);
            break;
        }
        if ((rc = ddb_s3_list_page(&l, resp.body, resp.body_len, &token)) != 0) {
            rc = ddb_error_set(err, rc, "out of memory");
            break;
        }
        if (token.len > 0 && (rc = token_fresh(&seen, &token, ++page, bucket, prefix, err)) != 0)
            break;
    } while (token.len > 0);
    ddb_response_dispose(&resp);
    ddb_buf_dispose(&q);
    ddb_buf_dispose(&token);
    ddb_buf_dispose(&seen);
    if (rc != 0) {
        ddb_s3_objects_free(l.objs, l.n);
        for (size_t i = 0; i < l.n_dirs; i++)
            free(l.dirs[i]);
        free(l.dirs);
        return rc;
    }
    *objs = l.objs;
    *n_objs = l.n;
    if (dirs) {
        *dirs = l.dirs;
        *n_dirs = l.n_dirs;
    } else {
        for (size_t i = 0; i < l.n_dirs; i++)
            free(l.dirs[i]);
        free(l.dirs);
    }
    return 0;
}

void ddb_s3_objects_free(ddb_s3_object *objs, size_t n)
{
    for (size_t i = 0; objs && i < n; i++) {
        free(objs[i].key);
        free(objs[i].etag);
    }
    free(objs);
}
