/*
 * The kept signer (ddb_sigv4_signer_sign) against ddb_sigv4_sign: on every
 * request of its simple shape the two must add the same headers with the
 * same values; on anything else it must hand the request back.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/sigv4.h"

static const char *const g_token_long =
    "IQoJb3JpZ2luX2VjEBYaCXVzLWVhc3QtMSJHMEUCIQDmJ1n3bBqWnA0Vh7m0m3Tz8w3oG3tq1Xk9pJ2dQ4Rt7wIgR"
    "3dW1xkG1yR3Qy9P3rQmB5tF2nD9ZrE2n7hJ8vL0u1cq7AII3///////////ARAAGgw0NTY3ODkwMTIzNDUiDPq0y6"
    "1nZ2o9Zs4XhCrXAf8yZr5b3N2pV0o6q3mC1f8n2eY7rS4tU5vW6xY7zA8bC9dE0fG1hI2jK3lM4nO5pQ6rS7tU8v"
    "W9xY0zA1bC2dE3fG4hI5jK6lM7nO8pQ9rS0tU1vW2xY3zA4bC5dE6fG7hI8jK9lM0nO1pQ2rS3tU4vW5xY6zA7bC"
    "8dE9fG0hI1jK2lM3nO4pQ5rS6tU7vW8xY9zA0bC1dE2fG3hI4jK5lM6nO7pQ8rS9tU0vW1xY2zA3bC4dE5fG6hI7"
    "jK8lM9nO0pQ1rS2tU3vW4xY5zA6bC7dE8fG9hI0jK1lM2nO3pQ4rS5tU6vW7xY8zA9bC0dE1fG2hI3jK4lM5nO6p"
    "Q7rS8tU9vW0xY1zA2bC3dE4fG5hI6jK7lM8nO9pQ0rS1tU2vW3xY4zA5bC6dE7fG8hI9jK0lM1nO2pQ3rS4tU5vW"
    "6xY7zA8bC9dE0fG1hI2jK3lM4nO5pQ6rS7tU8vW9xY0zA1bC2dE3fG4hI5jK6lM7nO8pQ9rS0tU1vW2xY3zA4==";

static void base_request(ddb_sigv4_request *req, ddb_sigv4_header *h, const char *host,
                         const char *target)
{
    h[0] = (ddb_sigv4_header){"Host", host};
    h[1] = (ddb_sigv4_header){"Content-Type", "application/x-amz-json-1.0"};
    h[2] = (ddb_sigv4_header){"X-Amz-Target", target};
    memset(req, 0, sizeof(*req));
    req->method = "POST";
    req->path = "/";
    req->query = "";
    req->headers = h;
    req->header_count = 3;
    req->access_key_id = "AKIDEXAMPLE";
    req->secret_access_key = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
    req->region = "us-east-1";
    req->service = "dynamodb";
    req->timestamp = 1440938160; /* 2015-08-30T12:36:00Z */
    req->flags = DDB_SIGV4_FLAGS_DYNAMODB;
}

/* Both signers on req: the same headers added, in the same order, with the
 * same values. */
static void expect_same(ddb_sigv4_signer *s, const ddb_sigv4_request *req, const char *label)
{
    ddb_sigv4_result *want = NULL;
    ddb_sigv4_signed got;
    ddb_error err = {0};
    int rc;

    cr_assert_eq(ddb_sigv4_sign(&want, req, &err), 0, "%s: %s", label, err.message);
    rc = ddb_sigv4_signer_sign(s, &got, req, &err);
    cr_assert_eq(rc, 0, "%s: the kept signer gave %d (%s)", label, rc, err.message);
    cr_expect_str_eq(got.signature, want->signature, "%s", label);
    cr_expect_str_eq(got.amz_date, want->amz_date, "%s", label);
    cr_expect_str_eq(got.payload_hash, want->payload_hash, "%s", label);
    cr_assert_eq(got.add_count, want->add_count, "%s", label);
    for (size_t i = 0; i < got.add_count; i++) {
        cr_expect_str_eq(got.add[i].name, want->add[i].name, "%s", label);
        cr_expect_str_eq(got.add[i].value, want->add[i].value, "%s: %s", label, got.add[i].name);
    }
    ddb_sigv4_result_free(want);
}

Test(signer, same_as_the_general_signer)
{
    static const char *const hosts[] = {"dynamodb.us-east-1.amazonaws.com", "127.0.0.1:8000",
                                        "localhost"};
    static const char *const targets[] = {"DynamoDB_20120810.BatchWriteItem",
                                          "DynamoDB_20120810.Scan",
                                          "DynamoDB_20120810.DescribeTable"};
    const char *tokens[] = {NULL, "", "AQoDYXdzEPT//////////wEXAMPLEtc764", g_token_long};
    /* SHA-256's block edges: 55 and 56 bytes pad into one or two blocks */
    static const size_t sizes[] = {0, 1, 55, 56, 63, 64, 65, 10000};
    static const time_t times[] = {1440938160, 1440979199 /* a day's last second */,
                                   1440979200 /* the next day's first */};
    char *body = malloc(10000);
    ddb_sigv4_signer *s = NULL;
    ddb_error err = {0};
    int n = 0;

    cr_assert_not_null(body);
    for (size_t i = 0; i < 10000; i++)
        body[i] = (char)('!' + (i * 7) % 90);
    cr_assert_eq(ddb_sigv4_signer_new(&s, &err), 0, "%s", err.message);
    for (size_t hi = 0; hi < 3; hi++)
        for (size_t ti = 0; ti < 3; ti++)
            for (size_t ki = 0; ki < 4; ki++)
                for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
                    for (size_t di = 0; di < 3; di++)
                        for (int omit = 0; omit < 2; omit++) {
                            ddb_sigv4_header h[3];
                            ddb_sigv4_request req;
                            char label[200];
                            base_request(&req, h, hosts[hi], targets[ti]);
                            req.session_token = tokens[ki];
                            req.payload = body;
                            req.payload_len = sizes[si];
                            req.timestamp = times[di];
                            if (omit)
                                req.flags |= DDB_SIGV4_OMIT_SESSION_TOKEN;
                            snprintf(label, sizeof(label),
                                     "host %zu target %zu token %zu size %zu "
                                     "time %zu omit %d",
                                     hi, ti, ki, sizes[si], di, omit);
                            expect_same(s, &req, label);
                            n++;
                        }
    cr_expect_eq(n, 3 * 3 * 4 * 8 * 3 * 2);
    ddb_sigv4_signer_free(s);
    free(body);
}

Test(signer, header_names_in_any_case_and_order)
{
    ddb_sigv4_header h[6];
    ddb_sigv4_request req;
    ddb_sigv4_signer *s = NULL;
    ddb_error err = {0};

    cr_assert_eq(ddb_sigv4_signer_new(&s, &err), 0, "%s", err.message);
    base_request(&req, h, "localhost:4567", "DynamoDB_20120810.Query");
    h[0] = (ddb_sigv4_header){"X-AMZ-TARGET", "DynamoDB_20120810.Query"};
    h[1] = (ddb_sigv4_header){"host", "localhost:4567"};
    h[2] = (ddb_sigv4_header){"content-TYPE", "application/x-amz-json-1.0"};
    /* left unsigned by both */
    h[3] = (ddb_sigv4_header){"User-Agent", "ddbpipe/1.0  (two spaces, not signed)"};
    /* after every other name, and before one */
    h[4] = (ddb_sigv4_header){"Zeta", "z"};
    h[5] = (ddb_sigv4_header){"Accept", ""};
    req.header_count = 6;
    req.payload = "{}";
    req.payload_len = 2;
    req.session_token = "tok";
    expect_same(s, &req, "mixed case");
    /* the signing time as the request's own header */
    h[3] = (ddb_sigv4_header){"X-Amz-Date", "20150830T123600Z"};
    expect_same(s, &req, "own X-Amz-Date");
    req.timestamp = 0;
    req.amz_date = "20150830T123600Z";
    expect_same(s, &req, "amz_date given");
    ddb_sigv4_signer_free(s);
}

/* Kept across requests: a new second, a new day, a new secret are all seen. */
Test(signer, kept_state_follows_time_and_keys)
{
    ddb_sigv4_header h[3];
    ddb_sigv4_request req;
    ddb_sigv4_signer *s = NULL;
    ddb_error err = {0};

    cr_assert_eq(ddb_sigv4_signer_new(&s, &err), 0, "%s", err.message);
    base_request(&req, h, "localhost", "DynamoDB_20120810.PutItem");
    req.payload = "{\"a\":1}";
    req.payload_len = 7;
    for (int round = 0; round < 3; round++) {
        req.timestamp = 1440979199 + round;
        expect_same(s, &req, "time");
        req.secret_access_key =
            round % 2 ? "another-secret" : "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
        expect_same(s, &req, "secret");
        req.region = round % 2 ? "eu-west-1" : "us-east-1";
        expect_same(s, &req, "region");
    }
    req.timestamp = 0; /* now */
    expect_same(s, &req, "now");
    ddb_sigv4_signer_free(s);
    /* any second, the last of 1969 too, on a signer that has formatted none */
    cr_assert_eq(ddb_sigv4_signer_new(&s, &err), 0, "%s", err.message);
    req.timestamp = (time_t)-1;
    expect_same(s, &req, "19691231T235959Z first");
    ddb_sigv4_signer_free(s);
}

static void expect_not_simple(ddb_sigv4_request *req, const char *label)
{
    ddb_sigv4_signer *s = NULL;
    ddb_sigv4_signed out;
    ddb_error err = {0};
    cr_assert_eq(ddb_sigv4_signer_new(&s, &err), 0, "%s", err.message);
    cr_expect_eq(ddb_sigv4_signer_sign(s, &out, req, &err), DDB_SIGV4_NOT_SIMPLE, "%s", label);
    ddb_sigv4_signer_free(s);
}

Test(signer, hands_back_what_is_not_simple)
{
    ddb_sigv4_header h[10];
    ddb_sigv4_request req;
    char akid[700];

    static const struct {
        const char *name, *value, *why;
    } odd[] = {
        {"X-Odd", "a  b", "a doubled space"},
        {"X-Odd", " a", "a leading space"},
        {"X-Odd", "a ", "a trailing space"},
        {"X-Odd", "a\tb", "a tab"},
        {"X-Odd", "a\nb", "a folded line"},
        {"X-Odd", "a\x01", "a control character"},
        {"x-amz-target", "again", "a repeated name"},
        {"Authorization", "x", "an Authorization header"},
        {"X-Amz-Security-Token", "x", "a token header"},
        {"X-Amz-Content-Sha256", "UNSIGNED-PAYLOAD", "a body hash header"},
        {"X-Amz-Date", "20150830T123601Z", "another X-Amz-Date"},
        {"A-Name-Longer-Than-Sixty-Four-Bytes-For-The-Kept-Signer-To-Lower-Case", "x",
         "a long name"},
    };
    for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
        base_request(&req, h, "localhost", "DynamoDB_20120810.Scan");
        h[3] = (ddb_sigv4_header){odd[i].name, odd[i].value};
        req.header_count = 4;
        expect_not_simple(&req, odd[i].why);
    }

    /* refused by ddb_sigv4_sign, which says why: an empty name, a control
     * character in a value, a header it leaves unsigned included */
    {
        static const struct {
            const char *name, *value;
        } bad[] = {{"", "v"}, {"User-Agent", "a\x01b"}, {"Expect", "x\x7f"}, {"X-Odd", "a\x1f"}};
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
            ddb_sigv4_result *res = NULL;
            ddb_error err = {0};
            base_request(&req, h, "localhost", "DynamoDB_20120810.Scan");
            h[3] = (ddb_sigv4_header){bad[i].name, bad[i].value};
            req.header_count = 4;
            expect_not_simple(&req, bad[i].name);
            cr_expect_eq(ddb_sigv4_sign(&res, &req, &err), DDB_EINVAL, "%s", bad[i].name);
            ddb_sigv4_result_free(res);
        }
    }
    base_request(&req, h, "localhost", "DynamoDB_20120810.Scan");
    req.path = "/tables";
    expect_not_simple(&req, "a path");
    base_request(&req, h, "localhost", "DynamoDB_20120810.Scan");
    req.query = "a=b";
    expect_not_simple(&req, "a query");
    base_request(&req, h, "localhost", "DynamoDB_20120810.Scan");
    req.flags |= DDB_SIGV4_SIGN_BODY;
    expect_not_simple(&req, "a signed body hash");
    base_request(&req, h, "localhost", "DynamoDB_20120810.Scan");
    req.payload_sha256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
    expect_not_simple(&req, "a given body hash");
    base_request(&req, h, "localhost", "DynamoDB_20120810.Scan");
    h[0] = (ddb_sigv4_header){"X-Not-Host", "localhost"};
    expect_not_simple(&req, "no Host");
    base_request(&req, h, "localhost", "DynamoDB_20120810.Scan");
    for (int i = 3; i < 10; i++)
        h[i] = (ddb_sigv4_header){"X-Extra", "x"};
    req.header_count = 10;
    expect_not_simple(&req, "ten headers");
    base_request(&req, h, "localhost", "DynamoDB_20120810.Scan");
    req.session_token = "tok en  with spaces";
    expect_not_simple(&req, "a token that is not canonical");
    base_request(&req, h, "localhost", "DynamoDB_20120810.Scan");
    memset(akid, 'A', sizeof(akid) - 1);
    akid[sizeof(akid) - 1] = '\0';
    req.access_key_id = akid;
    expect_not_simple(&req, "an Authorization longer than DDB_SIGV4_AUTH_MAX");
    /* and the general signer does sign that one */
    {
        ddb_sigv4_result *res = NULL;
        ddb_error err = {0};
        cr_expect_eq(ddb_sigv4_sign(&res, &req, &err), 0, "%s", err.message);
        ddb_sigv4_result_free(res);
    }
}

/* A request ddb_sigv4_sign refuses is refused the same way, not handed back. */
Test(signer, refuses_what_the_general_signer_refuses)
{
    ddb_sigv4_header h[3];
    ddb_sigv4_request req;
    ddb_sigv4_signer *s = NULL;
    ddb_sigv4_signed out;
    ddb_error err = {0};

    cr_assert_eq(ddb_sigv4_signer_new(&s, &err), 0, "%s", err.message);
    base_request(&req, h, "localhost", "DynamoDB_20120810.Scan");
    req.secret_access_key = "";
    cr_expect_eq(ddb_sigv4_signer_sign(s, &out, &req, &err), DDB_EINVAL);
    cr_expect(strstr(err.message, "secret access key is empty") != NULL, "%s", err.message);
    base_request(&req, h, "localhost", "DynamoDB_20120810.Scan");
    req.region = "us east";
    cr_expect_eq(ddb_sigv4_signer_sign(s, &out, &req, &err), DDB_EINVAL);
    base_request(&req, h, "localhost", "DynamoDB_20120810.Scan");
    req.timestamp = 0;
    req.amz_date = "20150230T000000Z"; /* no 30th of February */
    cr_expect_eq(ddb_sigv4_signer_sign(s, &out, &req, &err), DDB_EINVAL);
    ddb_sigv4_signer_free(s);
    ddb_sigv4_signer_free(NULL);
}
