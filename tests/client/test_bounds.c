/*
 * Hostile servers on loopback (scripted.h): answers past what DynamoDB or S3
 * send (header lines without end, bodies past DDB_CLIENT_MAX_BODY) fail the
 * call once, naming the limit, without taking the memory they offer; an S3
 * listing whose continuation token comes back stops instead of listing the
 * same keys for ever.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/client.h"
#include "ddbpipe/s3.h"
#include "scripted.h"

static const ddb_aws_credentials creds = {"AKIDEXAMPLE", "secret-not-real", NULL, 0, "test"};

/* A client of the scripted server s (started): at most attempts tries. */
static ddb_client *client_for(const server *s, int attempts)
{
    ddb_client *c = NULL;
    ddb_client_opts o;
    ddb_error err;
    char url[64];
    snprintf(url, sizeof(url), "http://127.0.0.1:%d", s->port);
    scripted_opts(&o, url, &creds, attempts);
    o.no_gzip = 1;
    cr_assert_eq(ddb_client_new(&c, &o, &err), 0, "%s", err.message);
    return c;
}

/* A 200 "hello" after a status line and head of its own (head: header lines
 * of pad bytes of "X-Pad" lines in all, then extra), body_len bytes of body
 * claimed and sent (0: "hello"). */
static char *answer(size_t pad, size_t body_len, size_t *len)
{
    ddb_buf b = DDB_BUF_INIT;
    char line[1024];
    memset(line, 'p', sizeof(line));
    memcpy(line, "X-Pad: ", 7);
    memcpy(line + sizeof(line) - 2, "\r\n", 2);
    ddb_buf_puts(&b, "HTTP/1.1 200 OK\r\n");
    for (size_t n = 0; n < pad; n += sizeof(line))
        ddb_buf_append(&b, line, sizeof(line));
    if (body_len == 0) {
        ddb_buf_puts(&b, "Content-Length: 5\r\nx-amz-crc32: 907060870\r\n\r\nhello");
    } else {
        ddb_buf_printf(&b, "Content-Length: %zu\r\n\r\n", body_len);
        cr_assert_eq(ddb_buf_reserve(&b, body_len), 0);
        memset(b.ptr + b.len, ' ', body_len);
        b.len += body_len;
    }
    cr_assert_not(b.oom);
    *len = b.len;
    return ddb_buf_detach(&b, NULL);
}

/* A chunked 200 of n chunks of 1 MiB each (no Content-Length to judge it by). */
static char *chunked(int n, size_t *len)
{
    ddb_buf b = DDB_BUF_INIT;
    ddb_buf_puts(&b, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
    for (int i = 0; i < n; i++) {
        ddb_buf_puts(&b, "100000\r\n");
        cr_assert_eq(ddb_buf_reserve(&b, 1u << 20), 0);
        memset(b.ptr + b.len, ' ', 1u << 20);
        b.len += 1u << 20;
        ddb_buf_puts(&b, "\r\n");
    }
    ddb_buf_puts(&b, "0\r\n\r\n");
    cr_assert_not(b.oom);
    *len = b.len;
    return ddb_buf_detach(&b, NULL);
}

/* One GetItem call, at most attempts tries, against a server of the n steps;
 * *resp is the caller's (ddb_response_dispose). */
static void get_item(const step *steps, int n, int attempts, ddb_response *resp)
{
    server s;
    ddb_client *c;
    ddb_error err;
    server_start(&s, steps, n, 0);
    c = client_for(&s, attempts);
    cr_assert_eq(ddb_client_call(c, "GetItem", "{}", 2, resp, &err), 0, "%s", err.message);
    ddb_client_free(c);
    server_stop(&s);
}

/* A GetItem call against the server answering ans (twice, for a retry that
 * must not come) must fail ResponseTooLarge naming limit, once. */
static void expect_too_large(const char *ans, size_t len, const char *limit)
{
    step steps[] = {{ans, 0, 1, 0, 0, len}, {ans, 0, 1, 0, 0, len}};
    ddb_response resp;
    get_item(steps, 2, 3, &resp);
    cr_assert_not(resp.ok, "an answer past the limit was taken (%zu bytes)", resp.body_len);
    cr_assert_str_eq(resp.error_type, "ResponseTooLarge", "%s", resp.message);
    cr_assert(strstr(resp.message, limit) != NULL, "%s", resp.message);
    cr_assert_eq(resp.attempts, 1, "not retried: %d attempts", resp.attempts);
    ddb_response_dispose(&resp);
}

Test(bounds, header_lines_past_64_kib_fail_the_call)
{
    size_t len;
    char *ans = answer(8u << 20, 0, &len);
    expect_too_large(ans, len, "header lines passed 64 KiB");
    free(ans);
}

Test(bounds, headers_just_under_the_limit_pass)
{
    size_t len;
    char *ans = answer(60u << 10, 0, &len);
    step steps[] = {{ans, 0, 0, 0, 0, len}};
    ddb_response resp;
    get_item(steps, 1, 1, &resp);
    cr_assert(resp.ok, "%s: %s", resp.error_type, resp.message);
    cr_assert_eq(resp.body_len, 5);
    ddb_response_dispose(&resp);
    free(ans);
}

Test(bounds, body_claimed_past_32_mib_fails_the_call)
{
    size_t len;
    char *ans = answer(0, (32u << 20) + 1, &len);
    expect_too_large(ans, len, "body passed 32 MiB");
    free(ans);
}

Test(bounds, chunked_body_past_32_mib_fails_the_call)
{
    size_t len;
    char *ans = chunked(40, &len);
    expect_too_large(ans, len, "body passed 32 MiB");
    free(ans);
}

/* An S3 context on a client of the scripted server serving steps, and what
 * a listing through it found. */
typedef struct s3_run {
    server s;
    ddb_client *c;
    ddb_s3 *s3;
    ddb_s3_object *objs;
    size_t n;
    ddb_error err;
} s3_run;

static void s3_start(s3_run *r, const step *steps, int n)
{
    ddb_s3_opts o;
    char url[64];
    memset(r, 0, sizeof(*r));
    server_start(&r->s, steps, n, 0);
    r->c = client_for(&r->s, 1);
    snprintf(url, sizeof(url), "http://127.0.0.1:%d", r->s.port);
    memset(&o, 0, sizeof(o));
    o.client = r->c;
    o.region = "us-east-1";
    o.endpoint = url;
    cr_assert_eq(ddb_s3_new(&r->s3, &o, &r->err), 0, "%s", r->err.message);
}

/* Lists s3://bkt/prefix through a new run of steps; its status. */
static int s3_list(s3_run *r, const step *steps, int n, const char *prefix)
{
    s3_start(r, steps, n);
    return ddb_s3_list(r->s3, &r->objs, &r->n, NULL, NULL, "bkt", prefix, NULL, &r->err);
}

static void s3_done(s3_run *r)
{
    ddb_s3_objects_free(r->objs, r->n);
    ddb_s3_free(r->s3);
    ddb_client_free(r->c);
    server_stop(&r->s);
}

/* A ListObjectsV2 page of one key, truncated with token (NULL: the last). */
static char *list_page(const char *key, const char *token)
{
    ddb_buf body = DDB_BUF_INIT, b = DDB_BUF_INIT;
    ddb_buf_printf(&body,
                   "<?xml version=\"1.0\" encoding=\"UTF-8\"?><ListBucketResult>"
                   "<Name>bkt</Name><IsTruncated>%s</IsTruncated>",
                   token ? "true" : "false");
    if (token)
        ddb_buf_printf(&body, "<NextContinuationToken>%s</NextContinuationToken>", token);
    ddb_buf_printf(&body,
                   "<Contents><Key>%s</Key><Size>1</Size><ETag>\"e\"</ETag></Contents>"
                   "</ListBucketResult>",
                   key);
    ddb_buf_printf(&b, "HTTP/1.1 200 OK\r\nContent-Length: %zu\r\n\r\n%s", body.len, body.ptr);
    ddb_buf_dispose(&body);
    cr_assert_not(b.oom);
    return ddb_buf_detach(&b, NULL);
}

/* A token given before, not only the one just sent, ends the listing: a
 * cycle of pages is as endless as one page. */
Test(bounds, listing_whose_token_comes_back_stops)
{
    char *p[] = {list_page("a", "tok-A"), list_page("b", "tok-B"), list_page("c", "tok-A"),
                 list_page("d", NULL)};
    step steps[] = {
        {p[0], 0, 0, 0, 0, 0}, {p[1], 0, 0, 0, 0, 0}, {p[2], 0, 0, 0, 0, 0}, {p[3], 0, 0, 0, 0, 0}};
    s3_run r;
    int rc = s3_list(&r, steps, 4, "pre/");
    cr_assert_eq(rc, DDB_ENET, "rc %d, %zu keys: %s", rc, r.n, rc ? r.err.message : "");
    cr_assert(strstr(r.err.message, "\"tok-A\" was given before") != NULL, "%s", r.err.message);
    cr_assert(strstr(r.err.message, "page 3") != NULL, "%s", r.err.message);
    cr_assert(strstr(r.err.message, "s3://bkt/pre/") != NULL, "%s", r.err.message);
    cr_assert_eq(r.s.requests, 3, "%d requests", r.s.requests);
    s3_done(&r);
    for (int i = 0; i < 4; i++)
        free(p[i]);
}

Test(bounds, listing_of_distinct_tokens_reads_every_page)
{
    char *p[] = {list_page("a", "tok-A"), list_page("b", "tok-B"), list_page("c", NULL)};
    step steps[] = {{p[0], 0, 0, 0, 0, 0}, {p[1], 0, 0, 0, 0, 0}, {p[2], 0, 0, 0, 0, 0}};
    s3_run r;
    cr_assert_eq(s3_list(&r, steps, 3, ""), 0, "%s", r.err.message);
    cr_assert_eq(r.n, 3);
    cr_assert_str_eq(r.objs[2].key, "c");
    cr_assert(strstr(r.s.last.ptr, "continuation-token=tok-B") != NULL, "%s", r.s.last.ptr);
    s3_done(&r);
    for (int i = 0; i < 3; i++)
        free(p[i]);
}

/* A listing answer past the limit fails the listing, naming it, rather than
 * being read whole. */
Test(bounds, listing_body_past_the_limit_fails)
{
    size_t len;
    char *ans = chunked(40, &len);
    step steps[] = {{ans, 0, 1, 0, 0, len}};
    s3_run r;
    int rc = s3_list(&r, steps, 1, "");
    cr_assert_eq(rc, DDB_ENET, "rc %d, %zu keys", rc, r.n);
    cr_assert(strstr(r.err.message, "ResponseTooLarge") != NULL, "%s", r.err.message);
    cr_assert(strstr(r.err.message, "32 MiB") != NULL, "%s", r.err.message);
    s3_done(&r);
    free(ans);
}

/* An object read whole (a manifest) is read no further than the caller's
 * limit, however long the answer says it is. */
Test(bounds, object_read_whole_stops_at_its_limit)
{
    size_t len, got = 0;
    char *ans = answer(0, 5000, &len), *data = NULL;
    step steps[] = {{ans, 0, 1, 0, 0, len}};
    s3_run r;
    int rc;
    s3_start(&r, steps, 1);
    rc = ddb_s3_get(r.s3, &data, &got, "bkt", "manifest.json", 1000, &r.err);
    cr_assert_eq(rc, DDB_ETOOBIG, "rc %d", rc);
    cr_assert(strstr(r.err.message, "s3://bkt/manifest.json") != NULL, "%s", r.err.message);
    cr_assert(strstr(r.err.message, "1000 bytes") != NULL, "%s", r.err.message);
    cr_assert_null(data);
    s3_done(&r);
    free(ans);
}
