/*
 * A DynamoDB JSON 1.0 request signed by the library and, separately, by hand
 * here: the canonical request is written out literally and the signature is
 * computed with OpenSSL's one-shot SHA256()/HMAC() (the library builds its
 * HMAC on EVP_Digest), so a shared mistake in a helper cannot hide.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>

#include <openssl/hmac.h>
#include <openssl/sha.h>

#include "ddbpipe/sigv4.h"

#define AKID "AKIAIOSFODNN7EXAMPLE"
#define SECRET "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
#define TOKEN "FwoGZXIvYXdzEXAMPLEsessionTOKEN+/=="
#define HOST "dynamodb.us-east-1.amazonaws.com"
#define DATE "20240527T101500Z"
#define BODY                                                                                       \
    "{\"RequestItems\":{\"unicorn_activities\":[{\"PutRequest\":{\"Item\":{\"name\":{\"S\":"       \
    "\"Sparkle\"},\"weight\":{\"N\":\"12.50\"}}}}]}}"

static void hex(char *out, const unsigned char *in, size_t n)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", in[i]);
}

static void sha256_hex(char out[65], const char *s, size_t n)
{
    unsigned char md[SHA256_DIGEST_LENGTH];
    SHA256((const unsigned char *)s, n, md);
    hex(out, md, sizeof(md));
}

static void hmac(unsigned char out[32], const void *key, size_t keylen, const char *msg)
{
    unsigned int len = 0;
    HMAC(EVP_sha256(), key, (int)keylen, (const unsigned char *)msg, strlen(msg), out, &len);
    cr_assert_eq(len, 32);
}

/* Builds the expected canonical request, string to sign and signature. */
static void expected(char *cr, size_t crlen, char *sts, size_t stslen, char sig[65],
                     const char *token)
{
    char body_hash[65], cr_hash[65];
    unsigned char k[32], s[32];

    sha256_hex(body_hash, BODY, strlen(BODY));
    if (token)
        snprintf(cr, crlen,
                 "POST\n/\n\n"
                 "content-type:application/x-amz-json-1.0\n"
                 "host:" HOST "\n"
                 "x-amz-date:" DATE "\n"
                 "x-amz-security-token:%s\n"
                 "x-amz-target:DynamoDB_20120810.BatchWriteItem\n\n"
                 "content-type;host;x-amz-date;x-amz-security-token;x-amz-target\n%s",
                 token, body_hash);
    else
        snprintf(cr, crlen,
                 "POST\n/\n\n"
                 "content-type:application/x-amz-json-1.0\n"
                 "host:" HOST "\n"
                 "x-amz-date:" DATE "\n"
                 "x-amz-target:DynamoDB_20120810.BatchWriteItem\n\n"
                 "content-type;host;x-amz-date;x-amz-target\n%s",
                 body_hash);
    sha256_hex(cr_hash, cr, strlen(cr));
    snprintf(sts, stslen,
             "AWS4-HMAC-SHA256\n" DATE "\n20240527/us-east-1/dynamodb/aws4_request\n%s", cr_hash);
    hmac(k, "AWS4" SECRET, strlen("AWS4" SECRET), "20240527");
    hmac(k, k, 32, "us-east-1");
    hmac(k, k, 32, "dynamodb");
    hmac(k, k, 32, "aws4_request");
    hmac(s, k, 32, sts);
    hex(sig, s, 32);
}

static ddb_sigv4_request dynamodb_request(const ddb_sigv4_header *h, size_t n)
{
    ddb_sigv4_request req;
    memset(&req, 0, sizeof(req));
    req.method = "POST";
    req.path = "/";
    req.headers = h;
    req.header_count = n;
    req.payload = BODY;
    req.payload_len = strlen(BODY);
    req.access_key_id = AKID;
    req.secret_access_key = SECRET;
    req.region = "us-east-1";
    req.service = "dynamodb";
    req.flags = DDB_SIGV4_FLAGS_DYNAMODB;
    return req;
}

Test(sigv4, dynamodb_batch_write_item)
{
    /* Mixed case and sloppy spacing, as a caller might write them. */
    const ddb_sigv4_header h[] = {{"Host", HOST},
                                  {"Content-Type", "application/x-amz-json-1.0"},
                                  {"X-Amz-Target", " DynamoDB_20120810.BatchWriteItem"},
                                  {"X-Amz-Date", DATE},
                                  {"User-Agent", "ddbpipe/0.1"}};
    ddb_sigv4_request req = dynamodb_request(h, 5);
    ddb_sigv4_result *res = NULL;
    ddb_error err = {0};
    char cr[2048], sts[512], sig[65], auth[512];

    expected(cr, sizeof(cr), sts, sizeof(sts), sig, NULL);
    cr_assert_eq(ddb_sigv4_sign(&res, &req, &err), 0, "%s", err.message);
    cr_expect_str_eq(res->canonical_request, cr);
    cr_expect_str_eq(res->string_to_sign, sts);
    cr_expect_str_eq(res->signature, sig);
    cr_expect_str_eq(res->amz_date, DATE);
    cr_expect_str_eq(res->signed_headers, "content-type;host;x-amz-date;x-amz-target");
    snprintf(auth, sizeof(auth),
             "AWS4-HMAC-SHA256 Credential=" AKID "/20240527/us-east-1/dynamodb/aws4_request, "
             "SignedHeaders=content-type;host;x-amz-date;x-amz-target, Signature=%s",
             sig);
    cr_expect_str_eq(res->authorization, auth);
    /* The request already carries X-Amz-Date: only Authorization is added. */
    cr_assert_eq(res->add_count, 1);
    cr_expect_str_eq(res->add[0].name, "Authorization");
    cr_expect_str_eq(res->add[0].value, auth);
    ddb_sigv4_result_free(res);
}

Test(sigv4, dynamodb_with_session_token_and_timestamp)
{
    const ddb_sigv4_header h[] = {{"host", HOST},
                                  {"content-type", "application/x-amz-json-1.0"},
                                  {"x-amz-target", "DynamoDB_20120810.BatchWriteItem"}};
    ddb_sigv4_request req = dynamodb_request(h, 3);
    ddb_sigv4_result *res = NULL;
    ddb_error err = {0};
    char cr[2048], sts[512], sig[65];

    req.session_token = TOKEN;
    req.timestamp = 1716804900; /* 2024-05-27T10:15:00Z */
    expected(cr, sizeof(cr), sts, sizeof(sts), sig, TOKEN);
    cr_assert_eq(ddb_sigv4_sign(&res, &req, &err), 0, "%s", err.message);
    cr_expect_str_eq(res->canonical_request, cr);
    cr_expect_str_eq(res->string_to_sign, sts);
    cr_expect_str_eq(res->signature, sig);
    cr_assert_eq(res->add_count, 3);
    cr_expect_str_eq(res->add[0].name, "X-Amz-Security-Token");
    cr_expect_str_eq(res->add[0].value, TOKEN);
    cr_expect_str_eq(res->add[1].name, "X-Amz-Date");
    cr_expect_str_eq(res->add[1].value, DATE);
    cr_expect_str_eq(res->add[2].name, "Authorization");
    cr_expect(strstr(res->add[2].value, "SignedHeaders=content-type;host;x-amz-date;"
                                        "x-amz-security-token;x-amz-target, Signature=") != NULL);
    ddb_sigv4_result_free(res);

    /* The same request given the date as text signs identically. */
    req.timestamp = 0;
    req.amz_date = DATE;
    cr_assert_eq(ddb_sigv4_sign(&res, &req, &err), 0, "%s", err.message);
    cr_expect_str_eq(res->signature, sig);
    ddb_sigv4_result_free(res);
}

/* The signing key is derived once per secret, day, region and service and
 * kept: signing in turn with two secrets, two days and two regions must give
 * each request the signature of its own credentials and scope. */
Test(sigv4, kept_signing_key_follows_secret_day_and_region)
{
    /* the last makes "AWS4" + secret longer than HMAC's 64-byte block: it is hashed first */
    static const char *secrets[] = {SECRET, "AnotherSecretKeyOfTheSameLength0000000000", "short",
                                    ("AnExtraordinarilyLongSecretAccessKeyOfOneHundredCharacters"
                                     "/ThatNoIssuerWritesButHMACMustStillTake+00")};
    static const char *dates[] = {DATE, "20240528T000001Z"};
    static const char *regions[] = {"us-east-1", "eu-west-1"};
    for (int round = 0; round < 2; round++) {
        /* the secret changes most often: alone, between two signatures */
        for (size_t di = 0; di < 2; di++) {
            for (size_t ri = 0; ri < 2; ri++) {
                for (size_t si = 0; si < 4; si++) {
                    const ddb_sigv4_header h[] = {{"Host", HOST}, {"X-Amz-Date", dates[di]}};
                    ddb_sigv4_request req = dynamodb_request(h, 2);
                    ddb_sigv4_result *res = NULL;
                    ddb_error err = {0};
                    unsigned char k[32], s[32];
                    char k0[160], date8[9], want[65];

                    req.secret_access_key = secrets[si];
                    req.region = regions[ri];
                    cr_assert_eq(ddb_sigv4_sign(&res, &req, &err), 0, "%s", err.message);
                    snprintf(k0, sizeof(k0), "AWS4%s", secrets[si]);
                    snprintf(date8, sizeof(date8), "%.8s", dates[di]);
                    hmac(k, k0, strlen(k0), date8);
                    hmac(k, k, 32, regions[ri]);
                    hmac(k, k, 32, "dynamodb");
                    hmac(k, k, 32, "aws4_request");
                    hmac(s, k, 32, res->string_to_sign);
                    hex(want, s, 32);
                    cr_expect_str_eq(res->signature, want, "secret %zu, date %zu, region %zu", si,
                                     di, ri);
                    ddb_sigv4_result_free(res);
                }
            }
        }
    }
}
