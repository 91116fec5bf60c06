/*
 * The STS requests and answers on their own: the form body, the request
 * signed through ddb_sigv4_sign (canonical request as the SigV4 rules give it
 * for a form POST, like the shared post-x-www-form-urlencoded vector, and
 * the signature recomputed here independently from the string to sign), the
 * unsigned web identity request, the XML answers and error documents, and
 * the helpers every provider shares (times, redaction, JSON answers).
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "aws/cred_json.h"
#include "aws/cred_source.h"
#include "aws/cred_sts.h"

#define SECRET "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"

static ddb_cred_source *role_source(const char *url)
{
    ddb_cred_source *s = ddb_cred_source_new(DDB_CRED_ASSUME_ROLE, "role r");
    cr_assert_not_null(s);
    s->sts_url = strdup(url);
    s->sts_region = strdup("us-east-1");
    s->role_arn = strdup("arn:aws:iam::123456789012:role/x y+z");
    s->session_name = strdup("s@1");
    s->external_id = strdup("e/1");
    s->duration_seconds = 900;
    return s;
}

Test(sts, form_body_is_percent_encoded_in_order)
{
    ddb_cred_source *s = role_source("https://sts.us-east-1.amazonaws.com");
    ddb_buf b = DDB_BUF_INIT;
    cr_assert_eq(ddb_sts_form(&b, "AssumeRoleWithWebIdentity", s, "a.b-c_d~e+f/g="), 0);
    cr_expect_str_eq(b.ptr, "Action=AssumeRoleWithWebIdentity&Version=2011-06-15"
                            "&RoleArn=arn%3Aaws%3Aiam%3A%3A123456789012%3Arole%2Fx%20y%2Bz"
                            "&RoleSessionName=s%401&ExternalId=e%2F1&DurationSeconds=900"
                            "&WebIdentityToken=a.b-c_d~e%2Bf%2Fg%3D");
    ddb_buf_dispose(&b);
    ddb_cred_source_free(s);
}

static void hmac(unsigned char out[32], const void *key, size_t klen, const char *msg)
{
    unsigned int n = 32;
    HMAC(EVP_sha256(), key, (int)klen, (const unsigned char *)msg, strlen(msg), out, &n);
}

Test(sts, assume_role_is_signed_through_the_signer)
{
    ddb_cred_source *s = role_source("https://sts.us-east-1.amazonaws.com");
    ddb_aws_credentials with = {"AKIDEXAMPLE", SECRET, NULL, 0, NULL};
    ddb_sts_request r;
    ddb_error err = {0};
    char body_hash[65], want[1024], sig_hex[65];
    unsigned char k[32];

    cr_assert_eq(ddb_sts_build(&r, s, "AssumeRole", &with, NULL, 1440938160, NULL, &err), 0, "%s",
                 err.message);
    cr_assert_not_null(r.sig);
    cr_assert_eq(ddb_sigv4_sha256_hex(body_hash, r.body.ptr, r.body.len), 0);
    snprintf(want, sizeof(want),
             "POST\n/\n\n"
             "content-type:application/x-www-form-urlencoded; charset=utf-8\n"
             "host:sts.us-east-1.amazonaws.com\n"
             "x-amz-date:20150830T123600Z\n\n"
             "content-type;host;x-amz-date\n%s",
             body_hash);
    cr_expect_str_eq(r.sig->canonical_request, want);
    snprintf(want, sizeof(want),
             "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/sts/aws4_request\n");
    cr_expect(strncmp(r.sig->string_to_sign, want, strlen(want)) == 0, "%s", r.sig->string_to_sign);
    /* The signature, derived again here from the string to sign. */
    hmac(k, "AWS4" SECRET, strlen("AWS4" SECRET), "20150830");
    hmac(k, k, 32, "us-east-1");
    hmac(k, k, 32, "sts");
    hmac(k, k, 32, "aws4_request");
    hmac(k, k, 32, r.sig->string_to_sign);
    for (int i = 0; i < 32; i++)
        snprintf(sig_hex + 2 * i, 3, "%02x", k[i]);
    cr_expect_str_eq(r.sig->signature, sig_hex);
    /* The wire headers: Host and Content-Type as signed, then the signer's. */
    cr_expect_str_eq(r.http.lines[0], "Host: sts.us-east-1.amazonaws.com");
    cr_expect_str_eq(r.http.lines[1],
                     "Content-Type: application/x-www-form-urlencoded; charset=utf-8");
    cr_expect_str_eq(r.http.lines[2], "X-Amz-Date: 20150830T123600Z");
    snprintf(want, sizeof(want),
             "Authorization: AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/sts/"
             "aws4_request, SignedHeaders=content-type;host;x-amz-date, Signature=%s",
             sig_hex);
    cr_expect_str_eq(r.http.lines[3], want);
    cr_expect_null(r.http.lines[4]);
    ddb_sts_request_dispose(&r);
    ddb_cred_source_free(s);
}

Test(sts, chained_role_signs_its_session_token)
{
    ddb_cred_source *s = role_source("http://127.0.0.1:4566/sts/");
    ddb_aws_credentials with = {"ASIAEXAMPLE", SECRET, "the+session/token=", 0, NULL};
    ddb_sts_request r;
    ddb_error err = {0};
    cr_assert_eq(ddb_sts_build(&r, s, "AssumeRole", &with, NULL, 1440938160, NULL, &err), 0, "%s",
                 err.message);
    cr_expect_str_eq(r.host, "127.0.0.1:4566");
    cr_expect_str_eq(r.path, "/sts/");
    cr_expect(strstr(r.sig->canonical_request, "\n/sts/\n") != NULL, "%s",
              r.sig->canonical_request);
    cr_expect(strstr(r.sig->canonical_request, "host:127.0.0.1:4566\nx-amz-date:20150830T123600Z\n"
                                               "x-amz-security-token:the+session/token=\n") != NULL,
              "%s", r.sig->canonical_request);
    cr_expect_str_eq(r.http.lines[2], "X-Amz-Security-Token: the+session/token=");
    ddb_sts_request_dispose(&r);
    ddb_cred_source_free(s);
}

Test(sts, web_identity_is_unsigned)
{
    ddb_cred_source *s = role_source("https://sts.amazonaws.com");
    ddb_sts_request r;
    ddb_error err = {0};
    cr_assert_eq(ddb_sts_build(&r, s, "AssumeRoleWithWebIdentity", NULL, "jwt", 0, NULL, &err), 0);
    cr_expect_null(r.sig);
    cr_expect_str_eq(r.http.lines[0], "Host: sts.amazonaws.com");
    cr_expect_null(r.http.lines[2]);
    for (int i = 0; r.http.lines[i]; i++)
        cr_expect(strncmp(r.http.lines[i], "Authorization", 13) != 0);
    cr_expect(strstr(r.body.ptr, "&WebIdentityToken=jwt") != NULL);
    ddb_sts_request_dispose(&r);
    ddb_cred_source_free(s);
}

static const char assume_role_answer[] =
    "<AssumeRoleResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\">\n"
    "  <AssumeRoleResult>\n"
    "    <SourceIdentity>DevUser123</SourceIdentity>\n"
    "    <AssumedRoleUser>\n"
    "      <Arn>arn:aws:sts::123456789012:assumed-role/demo/John</Arn>\n"
    "      <AssumedRoleId>ARO123EXAMPLE123:John</AssumedRoleId>\n"
    "    </AssumedRoleUser>\n"
    "    <Credentials>\n"
    "      <SessionToken>AQoDYXdzEPT//////////wEXAMPLEtc764bNrC9SAPBSM22wDOk4x4HIZ8j4FZTwdQW"
    "LWsKWHGBuFqwAeMicRXmxfpSPfIeoIYRqTflfKD8YUuwthAx7mSEI/qkPpKPi/kMcGdQrmGdeehM4IC1NtBm"
    "UpampKsburEDy0KPkyQDYwT7WZ0wq5VSXDvp75YU9HFvlRd8Tx6q6fE8YQcHNVXAkiY9q6d+xo0rKwT38xVq"
    "r7ZD0u0iPPkUL64lIZbqBAz+scqKmlzm8FDrypNC9Yjc8fPOLn9FX9KSYvKTr4rvx3iSIlTJabIQwj2ICCR/"
    "oLxBA==</SessionToken>\n"
    "      <SecretAccessKey>wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY&amp;x</SecretAccessKey>\n"
    "      <Expiration>2019-11-09T13:34:41Z</Expiration>\n"
    "      <AccessKeyId>ASIAIOSFODNN7EXAMPLE</AccessKeyId>\n"
    "    </Credentials>\n"
    "    <PackedPolicySize>8</PackedPolicySize>\n"
    "  </AssumeRoleResult>\n"
    "  <ResponseMetadata>\n"
    "    <RequestId>c6104cbe-af31-11e0-8154-cbc7ccf896c7</RequestId>\n"
    "  </ResponseMetadata>\n"
    "</AssumeRoleResponse>\n";

Test(sts, credentials_from_the_answer)
{
    ddb_aws_credentials *c = NULL;
    ddb_error err = {0};
    cr_assert_eq(ddb_sts_parse_credentials(&c, assume_role_answer, strlen(assume_role_answer),
                                           "AssumeRoleResult", strdup("role x"), &err),
                 0, "%s", err.message);
    cr_expect_str_eq(c->access_key_id, "ASIAIOSFODNN7EXAMPLE");
    cr_expect_str_eq(c->secret_access_key, "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY&x");
    cr_expect(strncmp(c->session_token, "AQoDYXdzEPT//", 13) == 0);
    cr_expect(strstr(c->session_token, "oLxBA==") != NULL);
    cr_expect_eq(c->expiration, 1573306481);
    cr_expect_str_eq(c->source, "role x");
    ddb_aws_credentials_free(c);

    /* The wrong result element, a missing field, a bad time. */
    cr_expect_eq(ddb_sts_parse_credentials(&c, assume_role_answer, strlen(assume_role_answer),
                                           "AssumeRoleWithWebIdentityResult", strdup("r"), &err),
                 DDB_ERROR);
    cr_expect_null(c);
    cr_expect(strstr(err.message, "has no <AssumeRoleWithWebIdentityResult><Credentials>") != NULL);
    {
        const char *b = "<R><Credentials><AccessKeyId>A</AccessKeyId><SecretAccessKey>" SECRET
                        "</SecretAccessKey><Expiration>2019-11-09T13:34:41Z</Expiration>"
                        "</Credentials></R>";
        cr_expect_eq(ddb_sts_parse_credentials(&c, b, strlen(b), "R", strdup("r"), &err),
                     DDB_ERROR);
        cr_expect(strstr(err.message, "Credentials have no SessionToken") != NULL, "%s",
                  err.message);
        cr_expect(strstr(err.message, SECRET) == NULL);
    }
    {
        const char *b = "<R><Credentials><AccessKeyId>A</AccessKeyId><SecretAccessKey>" SECRET
                        "</SecretAccessKey><SessionToken>t</SessionToken><Expiration>soon"
                        "</Expiration></Credentials></R>";
        cr_expect_eq(ddb_sts_parse_credentials(&c, b, strlen(b), "R", strdup("r"), &err),
                     DDB_ERROR);
        cr_expect(strstr(err.message, "Expiration 'soon' is not an ISO 8601 time") != NULL, "%s",
                  err.message);
    }
}

Test(sts, error_documents)
{
    char code[64], msg[256];
    const char *e = "<ErrorResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\">\n"
                    "  <Error>\n    <Type>Sender</Type>\n    <Code>AccessDenied</Code>\n"
                    "    <Message>User: arn:aws:iam::1:user/a is not authorized to perform: "
                    "sts:AssumeRole on resource: arn:aws:iam::1:role/&quot;x&quot; &amp;\n"
                    "more</Message>\n  </Error>\n  <RequestId>r-1</RequestId>\n"
                    "</ErrorResponse>\n";
    ddb_sts_parse_error(e, strlen(e), code, sizeof(code), msg, sizeof(msg));
    cr_expect_str_eq(code, "AccessDenied");
    cr_expect_str_eq(msg, "User: arn:aws:iam::1:user/a is not authorized to perform: "
                          "sts:AssumeRole on resource: arn:aws:iam::1:role/\"x\" & more");
    ddb_sts_parse_error("<html>bad gateway</html>", 24, code, sizeof(code), msg, sizeof(msg));
    cr_expect_str_eq(code, "");
    cr_expect_str_eq(msg, "");
}

/* An error answer with no body at all: the response's buffer is NULL. Under
 * clang's -fsanitize=undefined (pointer-overflow) this fails if the parser
 * offsets the NULL body before testing it. */
Test(sts, error_without_a_body)
{
    char code[64] = "x", msg[64] = "y";
    ddb_sts_parse_error(NULL, 0, code, sizeof(code), msg, sizeof(msg));
    cr_expect_str_eq(code, "");
    cr_expect_str_eq(msg, "");
}

Test(sts, redaction_of_echoed_secrets)
{
    char m[256] = "token abc-secret-1 and abc-secret-1 again, key KEY0, short ab";
    const char *secrets[] = {NULL, "abc-secret-1", "ab", "KEY0"};
    ddb_cred_redact(m, secrets, 4);
    cr_expect_str_eq(m, "token **** and **** again, key ****, short ab");
}

Test(sts, times)
{
    time_t t;
    char s[32];
    cr_expect_eq(ddb_cred_parse_time(&t, "2019-11-09T13:34:41Z"), 0);
    cr_expect_eq(t, 1573306481);
    cr_expect_eq(ddb_cred_parse_time(&t, "2019-11-09T13:34:41.123Z"), 0);
    cr_expect_eq(t, 1573306481);
    cr_expect_eq(ddb_cred_parse_time(&t, "2019-11-09T15:34:41+02:00"), 0);
    cr_expect_eq(t, 1573306481);
    cr_expect_eq(ddb_cred_parse_time(&t, "2019-11-09T13:34:41UTC"), 0); /* old CLI SSO cache */
    cr_expect_eq(t, 1573306481);
    cr_expect_neq(ddb_cred_parse_time(&t, "2019-11-09 13:34:41"), 0);
    cr_expect_neq(ddb_cred_parse_time(&t, "2019-13-09T13:34:41Z"), 0);
    cr_expect_neq(ddb_cred_parse_time(&t, "2019-11-09T13:34:41"), 0);
    ddb_cred_format_time(s, sizeof(s), 1573306481);
    cr_expect_str_eq(s, "2019-11-09T13:34:41Z");
}

Test(sts, refresh_window)
{
    int64_t now = 1000000000000LL; /* ms */
    time_t hour = (time_t)(now / 1000) + 3600, eight = (time_t)(now / 1000) + 8;
    /* 5 minutes ahead for long-lived credentials, half the lifetime for short ones. */
    cr_expect_eq(ddb_cred_refresh_at_ms(hour, now), (int64_t)hour * 1000 - 300000);
    cr_expect_eq(ddb_cred_refresh_at_ms(eight, now), (int64_t)eight * 1000 - 4000);
    cr_expect_eq(ddb_cred_refresh_at_ms(0, now), INT64_MAX);
}

Test(sts, json_answers_of_every_provider)
{
    static const ddb_cred_fields sso = {
        "accessKeyId", "secretAccessKey", "sessionToken", "expiration", 1, 1, 1};
    static const ddb_cred_fields container = {
        "AccessKeyId", "SecretAccessKey", "Token", "Expiration", 1, 1, 0};
    char text[512];
    json_object *root = NULL, *rc = NULL;
    ddb_aws_credentials *c = NULL;
    ddb_error err = {0};

    snprintf(text, sizeof(text),
             "{\"roleCredentials\":{\"accessKeyId\":\"ASIASSO\",\"secretAccessKey\":\"" SECRET
             "\",\"sessionToken\":\"tok\",\"expiration\":%lld}}",
             (long long)(time(NULL) + 3600) * 1000);
    cr_assert_eq(ddb_cred_json_parse(&root, text, strlen(text), "sso", &err), 0);
    cr_assert(json_object_object_get_ex(root, "roleCredentials", &rc));
    cr_assert_eq(ddb_cred_from_json(&c, rc, &sso, "sso", strdup("sso"), &err), 0, "%s",
                 err.message);
    cr_expect_eq(c->expiration, time(NULL) + 3600);
    ddb_aws_credentials_free(c);
    ddb_cred_json_wipe(root);
    /* Wiped in place: the secret no longer sits in the tree json-c will free. */
    cr_expect(strstr(json_object_to_json_string(root), "wJalr") == NULL);
    json_object_put(root);

    snprintf(text, sizeof(text),
             "{\"AccessKeyId\":\"ASIACONT\",\"SecretAccessKey\":\"" SECRET
             "\",\"Expiration\":\"2099-01-01T00:00:00Z\"}");
    cr_assert_eq(ddb_cred_json_parse(&root, text, strlen(text), "c", &err), 0);
    cr_expect_eq(ddb_cred_from_json(&c, root, &container, "c", strdup("c"), &err), DDB_ERROR);
    cr_expect_str_eq(err.message, "c: \"Token\" is missing");
    json_object_put(root);

    cr_expect_eq(ddb_cred_json_parse(&root, "[1]", 3, "c: the answer", &err), DDB_ERROR);
    cr_expect_str_eq(err.message, "c: the answer is not a JSON object (another JSON value)");
    cr_expect_eq(ddb_cred_json_parse(&root, "{\"AccessKeyId\":\"" SECRET, 20, "c", &err),
                 DDB_ERROR);
    cr_expect(strstr(err.message, "wJalr") == NULL);
}
