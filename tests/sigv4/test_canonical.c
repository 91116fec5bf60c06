/*
 * Canonicalization corners the vectors don't reach, flags, and the errors
 * (which must never quote a secret).
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>

#include "ddbpipe/sigv4.h"

#define SECRET "SeCrEtKeyThatMustNeverLeak0123456789abcd"
#define TOKEN "TokenThatMustNeverLeak/+="

static ddb_sigv4_header host[] = {{"Host", "example.amazonaws.com"}};

static ddb_sigv4_request base(void)
{
    ddb_sigv4_request req;
    memset(&req, 0, sizeof(req));
    req.method = "GET";
    req.headers = host;
    req.header_count = 1;
    req.access_key_id = "AKIDEXAMPLE";
    req.secret_access_key = SECRET;
    req.region = "us-east-1";
    req.service = "service";
    req.amz_date = "20150830T123600Z";
    req.flags = DDB_SIGV4_NORMALIZE_PATH;
    return req;
}

/* Line k (0-based) of the canonical request. */
static void cr_line(char *out, size_t outlen, const ddb_sigv4_request *req, int k)
{
    ddb_sigv4_result *res = NULL;
    ddb_error err = {0};
    const char *p;
    cr_assert_eq(ddb_sigv4_sign(&res, req, &err), 0, "%s", err.message);
    p = res->canonical_request;
    for (int i = 0; i < k; i++)
        p = strchr(p, '\n') + 1;
    snprintf(out, outlen, "%.*s", (int)strcspn(p, "\n"), p);
    ddb_sigv4_result_free(res);
}

static void expect_path(const char *path, unsigned flags, const char *want)
{
    ddb_sigv4_request req = base();
    char got[256];
    req.path = path;
    req.flags = flags;
    cr_line(got, sizeof(got), &req, 1);
    cr_expect_str_eq(got, want, "path '%s' flags %u", path, flags);
}

static void expect_query(const char *query, const char *want)
{
    ddb_sigv4_request req = base();
    char got[256];
    req.query = query;
    cr_line(got, sizeof(got), &req, 2);
    cr_expect_str_eq(got, want, "query '%s'", query);
}

Test(sigv4, path_normalization_and_encoding)
{
    const unsigned n = DDB_SIGV4_NORMALIZE_PATH;
    expect_path(NULL, n, "/");
    expect_path("", 0, "/");
    expect_path("/a/./b/../c//d/", n, "/a/c/d/");
    expect_path("/a/b/..", n, "/a");
    expect_path("/..", n, "/");
    expect_path("/../../x", n, "/x");
    expect_path("/a/b/.", n, "/a/b");
    /* Non-S3 services sign the wire path encoded once more. */
    expect_path("/a%20b/c+d", n, "/a%2520b/c%2Bd");
    expect_path("/a b/\xc3\xa9", 0, "/a%20b/%C3%A9");
    /* S3: the wire path as it is. */
    expect_path("/a%20b//c/../d", DDB_SIGV4_PATH_ENCODED, "/a%20b//c/../d");
}

Test(sigv4, query_canonicalization)
{
    expect_query("b=2&a=1&a=0", "a=0&a=1&b=2");
    expect_query("flag", "flag=");
    expect_query("&&a=1&", "a=1");
    expect_query("x=a b&y=%2f&z=+", "x=a%20b&y=%2F&z=%2B");
    expect_query("k=%zz&j=%4", "j=%254&k=%25zz");
    expect_query("=v", "=v");
    /* Sorted on the encoded key: '%' sorts before letters. */
    expect_query("a=1&%C3%A9=2", "%C3%A9=2&a=1");
}

Test(sigv4, unsigned_headers_and_body_hash)
{
    ddb_sigv4_header h[] = {{"Host", "example.amazonaws.com"},
                            {"User-Agent", "curl/8"},
                            {"X-Amzn-Trace-Id", "Root=1"},
                            {"x-amz-content-sha256", "UNSIGNED-PAYLOAD"}};
    ddb_sigv4_request req = base();
    ddb_sigv4_result *res = NULL;
    ddb_error err = {0};

    req.headers = h;
    req.header_count = 4;
    req.flags |= DDB_SIGV4_SIGN_BODY;
    cr_assert_eq(ddb_sigv4_sign(&res, &req, &err), 0, "%s", err.message);
    cr_expect_str_eq(res->signed_headers, "host;x-amz-content-sha256;x-amz-date");
    cr_expect_str_eq(res->payload_hash, "UNSIGNED-PAYLOAD");
    cr_expect(strstr(res->canonical_request, "\nUNSIGNED-PAYLOAD") != NULL);
    /* The caller's X-Amz-Content-Sha256 is not added a second time. */
    cr_assert_eq(res->add_count, 2);
    cr_expect_str_eq(res->add[0].name, "X-Amz-Date");
    cr_expect_str_eq(res->add[1].name, "Authorization");
    ddb_sigv4_result_free(res);

    req.headers = host;
    req.header_count = 1;
    req.payload = "abc";
    req.payload_len = 3;
    cr_assert_eq(ddb_sigv4_sign(&res, &req, &err), 0, "%s", err.message);
    cr_expect_str_eq(res->payload_hash,
                     "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    cr_assert_eq(res->add_count, 3);
    cr_expect_str_eq(res->add[1].name, "X-Amz-Content-Sha256");
    cr_expect_str_eq(res->add[1].value, res->payload_hash);
    ddb_sigv4_result_free(res);
}

Test(sigv4, omit_session_token)
{
    ddb_sigv4_request req = base();
    ddb_sigv4_result *res = NULL;
    ddb_error err = {0};

    req.session_token = TOKEN;
    req.flags |= DDB_SIGV4_OMIT_SESSION_TOKEN;
    cr_assert_eq(ddb_sigv4_sign(&res, &req, &err), 0, "%s", err.message);
    cr_expect_str_eq(res->signed_headers, "host;x-amz-date");
    cr_expect(strstr(res->canonical_request, TOKEN) == NULL);
    cr_expect_str_eq(res->add[0].name, "X-Amz-Security-Token");
    cr_expect_str_eq(res->add[0].value, TOKEN);
    ddb_sigv4_result_free(res);
}

static void expect_error(const ddb_sigv4_request *req, int code, const char *needle)
{
    ddb_sigv4_result *res = (ddb_sigv4_result *)1;
    ddb_error err = {0};
    cr_expect_eq(ddb_sigv4_sign(&res, req, &err), code, "want %d for '%s', message: %s", code,
                 needle, err.message);
    cr_expect_null(res);
    cr_expect(strstr(err.message, needle) != NULL, "'%s' not in: %s", needle, err.message);
    cr_expect(strstr(err.message, SECRET) == NULL, "secret leaked: %s", err.message);
    cr_expect(strstr(err.message, TOKEN) == NULL, "token leaked: %s", err.message);
}

Test(sigv4, errors_name_the_problem_without_secrets)
{
    ddb_sigv4_request req = base();
    ddb_sigv4_header auth[] = {{"Host", "h"}, {"Authorization", "AWS4-HMAC-SHA256 x"}};
    ddb_sigv4_header tok[] = {{"Host", "h"}, {"X-Amz-Security-Token", TOKEN}};
    ddb_sigv4_header date[] = {{"Host", "h"}, {"X-Amz-Date", "20150830T123601Z"}};
    ddb_sigv4_header badname[] = {{"Host", "h"}, {"Bad Name", "v"}};
    ddb_sigv4_header ctl[] = {{"Host", "h"}, {"X-Thing", "a\x01" TOKEN}};

    req.session_token = TOKEN;
    req.header_count = 0;
    expect_error(&req, DDB_EINVAL, "no Host header");
    req.header_count = 2;
    req.headers = auth;
    expect_error(&req, DDB_EINVAL, "'Authorization' header");
    req.headers = tok;
    expect_error(&req, DDB_EINVAL, "'X-Amz-Security-Token' header");
    req.headers = date;
    expect_error(&req, DDB_EINVAL, "differs from the signing time 20150830T123600Z");
    req.headers = badname;
    expect_error(&req, DDB_EINVAL, "header name 'Bad Name'");
    req.headers = ctl;
    expect_error(&req, DDB_EINVAL, "control character");

    req = base();
    req.session_token = TOKEN;
    req.amz_date = "20150230T123600Z";
    expect_error(&req, DDB_EINVAL, "'20150230T123600Z' is not a UTC time");
    req = base();
    req.region = "us east";
    expect_error(&req, DDB_EINVAL, "region 'us east'");
    req = base();
    req.access_key_id = "AKID/evil";
    expect_error(&req, DDB_EINVAL, "access key id");
    req = base();
    req.secret_access_key = "";
    expect_error(&req, DDB_EINVAL, "secret access key is empty");
    req = base();
    req.payload_sha256 = "ABC";
    expect_error(&req, DDB_EINVAL, "payload_sha256");
}

Test(sigv4, dates)
{
    char s[17];
    time_t t = 0;
    ddb_error err = {0};

    cr_assert_eq(ddb_sigv4_format_date(s, 1440938160), 0);
    cr_expect_str_eq(s, "20150830T123600Z");
    cr_assert_eq(ddb_sigv4_parse_date(&t, "20150830T123600Z", &err), 0, "%s", err.message);
    cr_expect_eq(t, 1440938160);
    cr_expect_eq(ddb_sigv4_parse_date(&t, "2015-08-30T12:36:00Z", &err), DDB_EINVAL);
    cr_expect_eq(ddb_sigv4_parse_date(&t, "20151330T123600Z", NULL), DDB_EINVAL);
    cr_expect_eq(ddb_sigv4_parse_date(&t, "20150830T123660Z", NULL), DDB_EINVAL);
    ddb_sigv4_result_free(NULL);
}
