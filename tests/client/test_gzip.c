/*
 * DynamoDB's gzip answers (src/net/client_body.c), through the whole client
 * (libcurl), against the scripted server: the request asks for gzip,
 * x-amz-crc32 is checked over the gzipped bytes as DynamoDB computes it, and
 * the caller gets the decoded body; an answer that cannot be decoded is an
 * error, never a body.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "ddbpipe/checksum.h"
#include "ddbpipe/client.h"
#include "scripted.h"

/* A Scan page's worth of JSON that compresses as real items do. */
static char *page_json(size_t *len)
{
    ddb_buf b = DDB_BUF_INIT;
    ddb_buf_puts(&b, "{\"Count\":2000,\"Items\":[");
    for (int i = 0; i < 2000; i++) {
        char item[160];
        snprintf(
            item, sizeof(item),
            "%s{\"pk\":{\"S\":\"Tag#user%05d\"},\"sk\":{\"S\":\"tag%03d\"},\"n\":{\"N\":\"%d\"}}",
            i ? "," : "", i / 7, i % 97, i * 31);
        ddb_buf_puts(&b, item);
    }
    ddb_buf_puts(&b, "],\"ScannedCount\":2000}");
    *len = b.len;
    return ddb_buf_detach(&b, NULL);
}

/* data gzipped (one member, as a server writes it). */
static unsigned char *gzip_bytes(const char *data, size_t len, size_t *out_len)
{
    z_stream z;
    unsigned char *out = malloc(len + 1024);
    memset(&z, 0, sizeof(z));
    cr_assert_eq(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
    z.next_in = (unsigned char *)data;
    z.avail_in = (uInt)len;
    z.next_out = out;
    z.avail_out = (uInt)(len + 1024);
    cr_assert_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
    *out_len = z.total_out;
    deflateEnd(&z);
    return out;
}

/* An HTTP answer: status, extra header lines, x-amz-crc32 = crc, the body. */
static char *answer(int status, const char *headers, uint32_t crc, const void *body, size_t len,
                    size_t *out_len)
{
    ddb_buf b = DDB_BUF_INIT;
    char head[512];
    snprintf(head, sizeof(head),
             "HTTP/1.1 %d X\r\nContent-Type: application/x-amz-json-1.0\r\n%sx-amz-crc32: %u\r\n"
             "Content-Length: %zu\r\n\r\n",
             status, headers, crc, len);
    ddb_buf_puts(&b, head);
    ddb_buf_append(&b, body, len);
    *out_len = b.len;
    return ddb_buf_detach(&b, NULL);
}

typedef struct run {
    server s;
    ddb_client *c;
    ddb_response resp;
    int rc;
} run;

/* One Scan call, at most `attempts` tries. */
static void call(run *r, const step *steps, int n, int attempts, int no_gzip)
{
    ddb_aws_credentials creds = {"AKIDEXAMPLE", "secret-not-real", NULL, 0, "test"};
    ddb_client_opts o;
    ddb_error err;
    char url[64];
    server_start(&r->s, steps, n, 0);
    snprintf(url, sizeof(url), "http://127.0.0.1:%d", r->s.port);
    scripted_opts(&o, url, &creds, attempts);
    o.no_gzip = no_gzip;
    cr_assert_eq(ddb_client_new(&r->c, &o, &err), 0, "%s", err.message);
    r->rc = ddb_client_call(r->c, "Scan", "{}", 2, &r->resp, &err);
    cr_assert_eq(r->rc, 0, "%s", err.message);
}

static void done(run *r)
{
    ddb_response_dispose(&r->resp);
    ddb_client_free(r->c);
    server_stop(&r->s);
}

Test(gzip, answer_is_decoded_after_its_crc)
{
    size_t plain_len, gz_len, ans_len;
    char *plain = page_json(&plain_len);
    unsigned char *gz = gzip_bytes(plain, plain_len, &gz_len);
    char *ans =
        answer(200, "Content-Encoding: gzip\r\n", ddb_crc32(gz, gz_len), gz, gz_len, &ans_len);
    step steps[] = {{ans, 0, 0, 0, 0, ans_len}};
    run r;
    call(&r, steps, 1, 1, 0);
    cr_assert(r.resp.ok, "%s: %s", r.resp.error_type, r.resp.message);
    cr_assert_eq(r.resp.body_len, plain_len);
    cr_assert(memcmp(r.resp.body, plain, plain_len) == 0);
    cr_assert_eq(r.resp.body[plain_len], '\0');
    cr_assert(gz_len * 4 < plain_len, "the page should compress (%zu of %zu)", gz_len, plain_len);
    cr_assert(strstr(r.s.last.ptr, "\r\nAccept-Encoding: gzip\r\n") != NULL, "%s", r.s.last.ptr);
    done(&r);
    free(ans);
    free(gz);
    free(plain);
}

/* A CRC of the decoded bytes is not DynamoDB's, but stand-ins have sent it
 * (LocalStack #429): it passes too, gzip's own CRC-32 guarding those bytes.
 * A CRC of neither is a mismatch, sent for again. */
Test(gzip, crc_of_the_decoded_bytes_passes_and_of_neither_fails)
{
    size_t plain_len, gz_len, ans_len, bad_len;
    char *plain = page_json(&plain_len);
    unsigned char *gz = gzip_bytes(plain, plain_len, &gz_len);
    char *ans = answer(200, "Content-Encoding: gzip\r\n", ddb_crc32(plain, plain_len), gz, gz_len,
                       &ans_len);
    char *bad = answer(200, "Content-Encoding: gzip\r\n", ddb_crc32(plain, plain_len - 1), gz,
                       gz_len, &bad_len);
    {
        step steps[] = {{ans, 0, 0, 0, 0, ans_len}};
        run r;
        call(&r, steps, 1, 1, 0);
        cr_assert(r.resp.ok, "%s: %s", r.resp.error_type, r.resp.message);
        cr_assert_eq(r.resp.body_len, plain_len);
        done(&r);
    }
    {
        step steps[] = {{bad, 0, 0, 0, 0, bad_len}, {bad, 0, 0, 0, 0, bad_len}};
        run r;
        call(&r, steps, 2, 2, 0);
        cr_assert_not(r.resp.ok);
        cr_assert_str_eq(r.resp.error_type, "CRC32Mismatch");
        cr_assert_eq(r.resp.attempts, 2);
        done(&r);
    }
    free(bad);
    free(ans);
    free(gz);
    free(plain);
}

/* gzip whose own trailer is wrong (the transport CRC matches the bytes): an
 * error, not a body, and tried again; the second answer is good. */
Test(gzip, corrupt_gzip_is_an_error_then_retried)
{
    size_t plain_len, gz_len, bad_len, good_len;
    char *plain = page_json(&plain_len);
    unsigned char *gz = gzip_bytes(plain, plain_len, &gz_len);
    char *good =
        answer(200, "Content-Encoding: gzip\r\n", ddb_crc32(gz, gz_len), gz, gz_len, &good_len);
    char *bad;
    gz[gz_len - 8] ^= 0x55; /* the member's CRC-32 */
    bad = answer(200, "Content-Encoding: gzip\r\n", ddb_crc32(gz, gz_len), gz, gz_len, &bad_len);
    {
        step steps[] = {{bad, 0, 0, 0, 0, bad_len}};
        run r;
        call(&r, steps, 1, 1, 0);
        cr_assert_not(r.resp.ok);
        cr_assert_str_eq(r.resp.error_type, "ContentEncodingError");
        cr_assert(strstr(r.resp.message, "gzip answer of") != NULL, "%s", r.resp.message);
        done(&r);
    }
    {
        step steps[] = {{bad, 0, 0, 0, 0, bad_len}, {good, 0, 0, 0, 0, good_len}};
        run r;
        call(&r, steps, 2, 3, 0);
        cr_assert(r.resp.ok, "%s: %s", r.resp.error_type, r.resp.message);
        cr_assert_eq(r.resp.attempts, 2);
        cr_assert_eq(r.resp.body_len, plain_len);
        done(&r);
    }
    free(good);
    free(bad);
    free(gz);
    free(plain);
}

Test(gzip, an_encoding_not_asked_for_is_an_error)
{
    size_t ans_len;
    char *ans = answer(200, "Content-Encoding: br\r\n", ddb_crc32("{}", 2), "{}", 2, &ans_len);
    step steps[] = {{ans, 0, 0, 0, 0, ans_len}};
    run r;
    call(&r, steps, 1, 1, 0);
    cr_assert_not(r.resp.ok);
    cr_assert(strstr(r.resp.message, "'br', which was not asked for") != NULL, "%s",
              r.resp.message);
    done(&r);
    free(ans);
}

/* An error answer may come gzipped too: its type is read from the decoded body. */
Test(gzip, gzipped_error_answer_is_read)
{
    static const char err_body[] =
        "{\"__type\":\"com.amazon.coral.validate#ValidationException\",\"message\":\"bad key\"}";
    size_t gz_len, ans_len;
    unsigned char *gz = gzip_bytes(err_body, strlen(err_body), &gz_len);
    char *ans =
        answer(400, "Content-Encoding: gzip\r\n", ddb_crc32(gz, gz_len), gz, gz_len, &ans_len);
    step steps[] = {{ans, 0, 0, 0, 0, ans_len}};
    run r;
    call(&r, steps, 1, 3, 0);
    cr_assert_not(r.resp.ok);
    cr_assert_str_eq(r.resp.error_type, "ValidationException");
    cr_assert_str_eq(r.resp.message, "bad key");
    cr_assert_eq(r.resp.attempts, 1, "a validation error is not retried");
    done(&r);
    free(ans);
    free(gz);
}

/* no_gzip (DDBPIPE_NO_GZIP): nothing asked; and a CRC that fails while gzip
 * was asked for and not used names the way out. */
Test(gzip, not_asked_when_turned_off_and_the_hint_when_asked)
{
    {
        step steps[] = {
            {"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nx-amz-crc32: 2745614147\r\n\r\n{}", 0, 0, 0,
             0, 0}};
        run r;
        call(&r, steps, 1, 1, 1);
        cr_assert(r.resp.ok, "%s", r.resp.message);
        cr_assert(strstr(r.s.last.ptr, "Accept-Encoding") == NULL, "%s", r.s.last.ptr);
        done(&r);
    }
    {
        step steps[] = {
            {"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nx-amz-crc32: 1\r\n\r\n{}", 0, 0, 0, 0, 0}};
        run r;
        call(&r, steps, 1, 1, 0);
        cr_assert_str_eq(r.resp.error_type, "CRC32Mismatch");
        cr_assert(strstr(r.resp.message, "DDBPIPE_NO_GZIP=1") != NULL, "%s", r.resp.message);
        done(&r);
    }
}

/* An error answer marked gzip whose body will not decode (a proxy's empty
 * 400): still the error its status and headers say, not retried as a
 * transport fault, the reason in the message. */
Test(gzip, undecodable_error_answer_keeps_its_status)
{
    step steps[] = {{"HTTP/1.1 400 Bad Request\r\nContent-Encoding: gzip\r\n"
                     "x-amzn-ErrorType: ValidationException:http://internal.amazon.com/\r\n"
                     "Content-Length: 0\r\n\r\n",
                     0, 0, 0, 0, 0}};
    run r;
    call(&r, steps, 1, 3, 0);
    cr_assert_not(r.resp.ok);
    cr_assert_eq(r.resp.http_status, 400);
    cr_assert_str_eq(r.resp.error_type, "ValidationException");
    cr_assert_eq(r.resp.attempts, 1, "retried %d times", r.resp.attempts);
    cr_assert(strstr(r.resp.message, "HTTP 400, its body unreadable: gzip answer of 0 bytes") !=
                  NULL,
              "%s", r.resp.message);
    done(&r);
}

/* A gzip answer that decodes past DDB_CLIENT_MAX_BODY (40 MiB of spaces come
 * in 40 KiB): fails once, naming the limit, and is not sent for again; the
 * decoding stops at the limit rather than filling memory. */
Test(gzip, answer_decoding_past_the_limit_fails_once)
{
    size_t plain_len = 40u << 20, gz_len, ans_len;
    char *plain = malloc(plain_len);
    unsigned char *gz;
    char *ans;
    cr_assert_not_null(plain);
    memset(plain, ' ', plain_len);
    gz = gzip_bytes(plain, plain_len, &gz_len);
    ans = answer(200, "Content-Encoding: gzip\r\n", ddb_crc32(gz, gz_len), gz, gz_len, &ans_len);
    step steps[] = {{ans, 0, 0, 0, 0, ans_len}, {ans, 0, 0, 0, 0, ans_len}};
    run r;
    call(&r, steps, 2, 2, 0);
    cr_assert_not(r.resp.ok);
    cr_assert_str_eq(r.resp.error_type, "ResponseTooLarge", "%s", r.resp.message);
    cr_assert(strstr(r.resp.message, "32 MiB") != NULL, "%s", r.resp.message);
    cr_assert_eq(r.resp.attempts, 1);
    done(&r);
    free(ans);
    free(gz);
    free(plain);
}

/* A body given back (ddb_client_reuse_body) receives the next DynamoDB
 * answer: the memory is used again, not faulted in anew for each page. */
Test(gzip, a_body_given_back_receives_the_next_answer)
{
    size_t plain_len, ans_len;
    char *plain = page_json(&plain_len);
    char *ans = answer(200, "", ddb_crc32(plain, plain_len), plain, plain_len, &ans_len);
    step steps[] = {{ans, 0, 0, 0, 0, ans_len}, {ans, 0, 0, 0, 0, ans_len}};
    ddb_aws_credentials creds = {"AKIDEXAMPLE", "secret-not-real", NULL, 0, "test"};
    ddb_client_opts o;
    ddb_response again;
    ddb_error err;
    char url[64], *first;
    run r;

    /* as call() does, with the credentials kept for the second call */
    server_start(&r.s, steps, 2, 0);
    snprintf(url, sizeof(url), "http://127.0.0.1:%d", r.s.port);
    scripted_opts(&o, url, &creds, 1);
    o.no_gzip = 1;
    cr_assert_eq(ddb_client_new(&r.c, &o, &err), 0, "%s", err.message);
    cr_assert_eq(ddb_client_call(r.c, "Scan", "{}", 2, &r.resp, &err), 0, "%s", err.message);
    cr_assert(r.resp.ok, "%s: %s", r.resp.error_type, r.resp.message);
    cr_assert_gt(r.resp.body_cap, plain_len);
    first = r.resp.body;
    ddb_client_reuse_body(r.c, r.resp.body, r.resp.body_cap);
    r.resp.body = NULL;
    cr_assert_eq(ddb_client_call(r.c, "Scan", "{}", 2, &again, &err), 0, "%s", err.message);
    cr_assert(again.ok, "%s: %s", again.error_type, again.message);
    cr_assert_eq(again.body, first, "the answer came into new memory");
    cr_assert_eq(again.body_len, plain_len);
    cr_assert(memcmp(again.body, plain, plain_len) == 0);
    ddb_response_dispose(&again);
    done(&r);
    free(ans);
    free(plain);
}

/* A gzip answer is decoded into a body given back too (a fresh one is a
 * megabyte faulted in for every Scan page), and the memory its gzip bytes
 * came into is kept for a later answer. */
Test(gzip, a_gzip_answer_is_decoded_into_a_body_given_back)
{
    size_t plain_len, gz_len, ans_len;
    char *plain = page_json(&plain_len);
    unsigned char *gz = gzip_bytes(plain, plain_len, &gz_len);
    char *ans =
        answer(200, "Content-Encoding: gzip\r\n", ddb_crc32(gz, gz_len), gz, gz_len, &ans_len);
    step steps[] = {{ans, 0, 0, 0, 0, ans_len},
                    {ans, 0, 0, 0, 0, ans_len},
                    {ans, 0, 0, 0, 0, ans_len},
                    {ans, 0, 0, 0, 0, ans_len}};
    ddb_aws_credentials creds = {"AKIDEXAMPLE", "secret-not-real", NULL, 0, "test"};
    ddb_client_opts o;
    ddb_response first, second, again;
    ddb_error err;
    char url[64];
    run r;

    server_start(&r.s, steps, 4, 0);
    snprintf(url, sizeof(url), "http://127.0.0.1:%d", r.s.port);
    scripted_opts(&o, url, &creds, 1);
    cr_assert_eq(ddb_client_new(&r.c, &o, &err), 0, "%s", err.message);
    cr_assert_eq(ddb_client_call(r.c, "Scan", "{}", 2, &first, &err), 0, "%s", err.message);
    cr_assert_eq(ddb_client_call(r.c, "Scan", "{}", 2, &second, &err), 0, "%s", err.message);
    cr_assert(first.ok && second.ok, "%s: %s", second.error_type, second.message);
    /* two given back: one receives the gzip bytes, the other what they decode to */
    ddb_client_reuse_body(r.c, first.body, first.body_cap);
    ddb_client_reuse_body(r.c, second.body, second.body_cap);
    for (int round = 0; round < 2; round++) {
        cr_assert_eq(ddb_client_call(r.c, "Scan", "{}", 2, &again, &err), 0, "%s", err.message);
        cr_assert(again.ok, "%s: %s", again.error_type, again.message);
        cr_assert(again.body == first.body || again.body == second.body,
                  "round %d: the answer was decoded into new memory", round);
        cr_assert_eq(again.body_len, plain_len);
        cr_assert(memcmp(again.body, plain, plain_len) == 0);
        /* given back again: the gzip bytes' memory was kept, so both are there once more */
        ddb_client_reuse_body(r.c, again.body, again.body_cap);
        again.body = NULL;
        ddb_response_dispose(&again);
    }
    first.body = second.body = NULL;
    ddb_response_dispose(&first);
    ddb_response_dispose(&second);
    memset(&r.resp, 0, sizeof(r.resp));
    done(&r);
    free(ans);
    free(gz);
    free(plain);
}
