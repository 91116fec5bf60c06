#include <criterion/criterion.h>
#include <curl/curl.h>
#include <malloc.h>
#include <string.h>

#include "ddbpipe/client.h"
#include "aws/awserror.h"
#include "ddbpipe/table.h"
#include "support/freewatch.h"
#include "support/testutil.h"
#include "scripted.h"

/* An answer to ListTables with its CRC. */
#define OK_EMPTY "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nx-amz-crc32: 2745614147\r\n\r\n{}"

/* A client of the scripted server s, signing with creds. */
static ddb_client *scripted_client(const server *s, const ddb_aws_credentials *creds)
{
    ddb_client *c = NULL;
    ddb_client_opts o;
    ddb_error err;
    char url[64];
    snprintf(url, sizeof(url), "http://127.0.0.1:%d", s->port);
    scripted_opts(&o, url, creds, 1);
    cr_assert_eq(ddb_client_new(&c, &o, &err), 0, "%s", err.message);
    return c;
}

Test(client, backoff_is_full_jitter_under_the_capped_exponential)
{
    uint64_t rng = 12345;
    /* attempt n draws from [0, min(cap, base * 2^n)) */
    for (int attempt = 1; attempt <= 12; attempt++) {
        uint32_t ceiling = 50u << attempt;
        uint32_t lo = UINT32_MAX, hi = 0;
        if (ceiling > 20000)
            ceiling = 20000;
        for (int i = 0; i < 2000; i++) {
            uint32_t d = ddb_backoff_ms(&rng, attempt, 50, 20000);
            cr_assert_lt(d, ceiling, "attempt %d drew %u >= %u", attempt, d, ceiling);
            lo = d < lo ? d : lo;
            hi = d > hi ? d : hi;
        }
        /* full jitter: the whole range is used, not just the top */
        cr_assert_lt(lo, ceiling / 10, "attempt %d: lowest %u", attempt, lo);
        cr_assert_gt(hi, ceiling * 9 / 10, "attempt %d: highest %u", attempt, hi);
    }
}

Test(client, backoff_is_deterministic_for_a_seed)
{
    uint64_t a = 99, b = 99;
    for (int i = 1; i < 20; i++)
        cr_assert_eq(ddb_backoff_ms(&a, i, 25, 5000), ddb_backoff_ms(&b, i, 25, 5000));
}

Test(client, throttling_errors_are_recognised)
{
    cr_assert(ddb_error_is_throttling("ProvisionedThroughputExceededException"));
    cr_assert(ddb_error_is_throttling("ThrottlingException"));
    cr_assert(ddb_error_is_throttling("RequestLimitExceeded"));
    cr_assert_not(ddb_error_is_throttling("ValidationException"));
    cr_assert_not(ddb_error_is_throttling("ResourceNotFoundException"));
}

Test(client, error_body_type_after_hash_and_message_either_case)
{
    char type[128], msg[256];
    const char *b1 = "{\"__type\":\"com.amazonaws.dynamodb.v20120810#ResourceNotFoundException\","
                     "\"message\":\"Requested resource not found\"}";
    const char *b2 = "{\"__type\":\"com.amazon.coral.validate#ValidationException\","
                     "\"Message\":\"One or more \\\"parameter\\\" values were invalid\"}";
    ddb_parse_error_body(b1, strlen(b1), NULL, type, sizeof(type), msg, sizeof(msg));
    cr_assert_str_eq(type, "ResourceNotFoundException");
    cr_assert_str_eq(msg, "Requested resource not found");
    ddb_parse_error_body(b2, strlen(b2), NULL, type, sizeof(type), msg, sizeof(msg));
    cr_assert_str_eq(type, "ValidationException");
    cr_assert_str_eq(msg, "One or more \"parameter\" values were invalid");
}

Test(client, errortype_header_wins_up_to_its_colon)
{
    char type[128], msg[256];
    const char *b = "{\"__type\":\"x#Other\",\"message\":\"m\"}";
    ddb_parse_error_body(b, strlen(b), "ThrottlingException:http://internal.amazon.com/coral/",
                         type, sizeof(type), msg, sizeof(msg));
    cr_assert_str_eq(type, "ThrottlingException");
    cr_assert_str_eq(msg, "m");
}

Test(client, empty_or_garbage_bodies_give_empty_fields)
{
    char type[128], msg[256];
    ddb_parse_error_body("", 0, NULL, type, sizeof(type), msg, sizeof(msg));
    cr_assert_str_eq(type, "");
    cr_assert_str_eq(msg, "");
    ddb_parse_error_body("<html>502</html>", 16, NULL, type, sizeof(type), msg, sizeof(msg));
    cr_assert_str_eq(type, "");
}

Test(client, rejects_endpoints_that_are_not_http)
{
    ddb_client *c = NULL;
    ddb_client_opts o;
    ddb_error err;
    memset(&o, 0, sizeof(o));
    o.region = "us-east-1";
    o.endpoint = "ftp://example.com";
    cr_assert_eq(ddb_client_new(&c, &o, &err), DDB_EUSAGE);
    cr_assert(strstr(err.message, "ftp://example.com") != NULL);
    o.endpoint = "not a url";
    cr_assert_eq(ddb_client_new(&c, &o, &err), DDB_EUSAGE);
    o.endpoint = "http://127.0.0.1:9";
    cr_assert_eq(ddb_client_new(&c, &o, &err), 0, "%s", err.message);
    ddb_client_free(c);
}

/* Port 9 (discard) on loopback is closed here: every attempt is refused. */
static void refused_opts(ddb_client_opts *o, int attempts)
{
    memset(o, 0, sizeof(*o));
    o->region = "us-east-1";
    o->endpoint = "http://127.0.0.1:9";
    o->max_attempts = attempts;
    o->backoff_base_ms = 1;
    o->backoff_cap_ms = 5;
    o->random_seed = 1;
}

Test(client, connection_refused_is_retried_then_reported)
{
    ddb_client *c = NULL;
    ddb_client_opts o;
    ddb_response resp;
    ddb_error err;
    refused_opts(&o, 3);
    cr_assert_eq(ddb_client_new(&c, &o, &err), 0);
    cr_assert_eq(ddb_client_call(c, "ListTables", "{}", 2, &resp, &err), 0, "%s", err.message);
    cr_assert_not(resp.ok);
    cr_assert_eq(resp.attempts, 3);
    cr_assert(resp.retryable);
    cr_assert_str_eq(resp.error_type, "ConnectionError");
    ddb_response_dispose(&resp);
    ddb_client_free(c);
}

Test(table, create_request_has_every_index_and_attribute_once)
{
    ddb_mapping *m = tu_load_format("favorites.json");
    ddb_buf b = DDB_BUF_INIT;
    ddb_error err;
    cr_assert_eq(ddb_table_create_request(&b, m, "T1", &err), 0);
    cr_assert(strstr(b.ptr, "\"TableName\":\"T1\"") != NULL);
    cr_assert(strstr(b.ptr, "\"BillingMode\":\"PAY_PER_REQUEST\"") != NULL);
    /* pk, sk, 3 LSI sort keys, 2 GSIs x 2 keys: 9 definitions, pk and sk not repeated */
    {
        size_t n = 0;
        for (const char *p = b.ptr; (p = strstr(p, "\"AttributeType\"")) != NULL; p++)
            n++;
        cr_assert_eq(n, 9, "%s", b.ptr);
    }
    cr_assert(strstr(b.ptr, "\"LocalSecondaryIndexes\":[{\"IndexName\":\"lsiOne\"") != NULL);
    cr_assert(
        strstr(b.ptr,
               "\"IndexName\":\"gsiTwo\",\"KeySchema\":[{\"AttributeName\":\"gsiTwoPk\","
               "\"KeyType\":\"HASH\"},{\"AttributeName\":\"gsiTwoSk\",\"KeyType\":\"RANGE\"}]") !=
            NULL,
        "%s", b.ptr);
    ddb_buf_dispose(&b);
    ddb_mapping_free(m);
}

Test(table, create_request_projects_include_attributes)
{
    ddb_mapping *m = tu_load_fixture("movies-gsi3.json");
    ddb_buf b = DDB_BUF_INIT;
    ddb_error err;
    cr_assert_eq(ddb_table_create_request(&b, m, NULL, &err), 0);
    cr_assert(strstr(b.ptr, "\"TableName\":\"Movies\"") != NULL);
    cr_assert(
        strstr(b.ptr,
               "\"Projection\":{\"ProjectionType\":\"INCLUDE\",\"NonKeyAttributes\":[\"name\"]}") !=
        NULL);
    cr_assert(strstr(b.ptr, "\"ProjectionType\":\"KEYS_ONLY\"") != NULL);
    ddb_buf_dispose(&b);
    ddb_mapping_free(m);
}

/* ------------------------------------------------ libcurl's memory, watched */

/* libcurl allocates through these (curl_global_init_mem): each test counts
 * the blocks it holds, can refuse the copy of one header line, and looks at
 * every block freed for the session token. */
static struct {
    long live;
    const char *fail_prefix; /* curl_strdup of a line starting so fails */
    const char *secret;      /* must not be in any block curl frees */
    int secret_freed;
    int failed; /* copies refused */
} cm;

static void cm_note_free(void *p)
{
    if (p == NULL)
        return;
    cm.live--;
    if (cm.secret && tu_holds(p, malloc_usable_size(p), cm.secret))
        cm.secret_freed++;
}

static void *cm_malloc(size_t n)
{
    void *p = malloc(n);
    cm.live += p != NULL;
    return p;
}

static void cm_free(void *p)
{
    cm_note_free(p);
    free(p);
}

static void *cm_realloc(void *p, size_t n)
{
    void *q;
    if (p == NULL)
        return cm_malloc(n);
    if (n == 0) {
        cm_free(p);
        return NULL;
    }
    q = realloc(p, n);
    return q;
}

static char *cm_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p;
    if (cm.fail_prefix && strncmp(s, cm.fail_prefix, strlen(cm.fail_prefix)) == 0) {
        cm.failed++;
        return NULL;
    }
    if ((p = cm_malloc(n)) != NULL)
        memcpy(p, s, n);
    return p;
}

static void *cm_calloc(size_t n, size_t size)
{
    void *p = calloc(n, size);
    cm.live += p != NULL;
    return p;
}

static void watch_curl_memory(void)
{
    memset(&cm, 0, sizeof(cm));
    cr_assert_eq(curl_global_init_mem(CURL_GLOBAL_DEFAULT, cm_malloc, cm_free, cm_realloc,
                                      cm_strdup, cm_calloc),
                 CURLE_OK);
}

/* A DynamoDB call and an S3 GET, both to a closed port. */
static void refused_call(const ddb_aws_credentials *creds, int attempts)
{
    ddb_http_call hc = {.method = "GET",
                        .url = "http://127.0.0.1:9/bucket/key",
                        .service = "s3",
                        .sign_flags = DDB_SIGV4_SIGN_BODY | DDB_SIGV4_PATH_ENCODED};
    ddb_client *c = NULL;
    ddb_client_opts o;
    ddb_response resp;
    ddb_error err;
    refused_opts(&o, attempts);
    o.credentials = creds;
    cr_assert_eq(ddb_client_new(&c, &o, &err), 0, "%s", err.message);
    cr_assert_eq(ddb_client_call(c, "ListTables", "{}", 2, &resp, &err), 0, "%s", err.message);
    cr_assert_not(resp.ok);
    ddb_response_dispose(&resp);
    cr_assert_eq(ddb_client_call_http(c, &hc, &resp, &err), 0, "%s", err.message);
    cr_assert_not(resp.ok);
    ddb_response_dispose(&resp);
    ddb_client_free(c);
}

/* An attempt that fails before it is sent (here: a header line of a generic
 * request cannot be copied) gives back its easy handle and the header lines
 * it had. */
Test(client, failed_attempt_leaks_no_handle_or_headers)
{
    ddb_aws_credentials creds = {"AKIDEXAMPLE", "secret-not-real", NULL, 0, "test"};
    long before;
    watch_curl_memory();
    refused_call(&creds, 1); /* warm up: curl's own lazy allocations */
    before = cm.live;
    cm.fail_prefix = "Expect:";
    refused_call(&creds, 3);
    cr_assert_gt(cm.failed, 0, "no header line was refused");
    cr_assert_eq(cm.live, before, "%ld blocks of libcurl memory leaked", cm.live - before);
}

/* The session token travels in a header line: wiped before libcurl frees it. */
Test(client, session_token_is_wiped_before_its_header_is_freed)
{
    ddb_aws_credentials creds = {"AKIDEXAMPLE", "secret-not-real",
                                 "FwoGZXIvYXdzEXAMPLETOKENxyz0123456789", 0, "test"};
    watch_curl_memory();
    cm.secret = creds.session_token;
    refused_call(&creds, 2);
    cr_assert_eq(cm.secret_freed, 0, "%d blocks holding the token freed unwiped", cm.secret_freed);
}

/* A session token longer than a header line's stack buffer (STS's can be
 * kilobytes) reaches the server whole, on the next request too (the lines
 * are kept and rewritten in place). (What libcurl copies of a request it
 * sends, it frees unwiped: that is beyond the client's reach.) */
Test(client, long_session_token_is_sent_whole)
{
    static char token[6001];
    static char want[6100];
    ddb_aws_credentials creds = {"AKIDEXAMPLE", "secret-not-real", token, 0, "test"};
    step steps[] = {{OK_EMPTY, 0, 0, 0, 0, 0}, {OK_EMPTY, 0, 0, 0, 0, 0}};
    server s;
    ddb_client *c;
    for (size_t i = 0; i < sizeof(token) - 1; i++)
        token[i] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/"[i % 38];
    snprintf(want, sizeof(want), "\r\nX-Amz-Security-Token: %s\r\n", token);
    server_start(&s, steps, 2, 0);
    c = scripted_client(&s, &creds);
    for (int i = 0; i < 2; i++) {
        ddb_response resp;
        ddb_error err;
        cr_assert_eq(ddb_client_call(c, "ListTables", "{}", 2, &resp, &err), 0, "%s", err.message);
        cr_assert(resp.ok, "%s: %s", resp.error_type, resp.message);
        cr_assert(strstr(s.last.ptr, want) != NULL, "request %d: the token line is not whole", i);
        ddb_response_dispose(&resp);
    }
    ddb_client_free(c);
    server_stop(&s);
}

/* The header lines the client builds for libcurl hold the token: wiped
 * before they are freed, and never grown once the token is in (a block left
 * behind by a growth would hold it): tokens of many lengths, so some line
 * ends just past a power of two. */
Test(client, session_token_in_no_freed_block_of_the_client)
{
    static char token[4201];
    ddb_aws_credentials creds = {"AKIDEXAMPLE", "secret-not-real", token, 0, "test"};
    ddb_client *c = NULL;
    ddb_client_opts o;
    ddb_response resp;
    ddb_error err;
    refused_opts(&o, 1);
    o.credentials = &creds;
    cr_assert_eq(ddb_client_new(&c, &o, &err), 0, "%s", err.message);
    for (size_t len = 3700; len < sizeof(token); len += 7) {
        for (size_t i = 0; i < len; i++)
            token[i] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/"[i % 38];
        token[len] = '\0';
        fw_watched = token;
        fw_unwiped = 0;
        cr_assert_eq(ddb_client_call(c, "ListTables", "{}", 2, &resp, &err), 0, "%s", err.message);
        fw_watched = NULL;
        cr_assert_str_eq(resp.error_type, "ConnectionError");
        cr_assert(strstr(resp.message, "Failed to connect to 127.0.0.1 port 9 after") != NULL,
                  "%s", resp.message);
        cr_assert_eq(fw_unwiped, 0, "a token of %zu bytes: %d freed blocks held it", len,
                     fw_unwiped);
        ddb_response_dispose(&resp);
    }
    ddb_client_free(c);
}

static int calls_back;
static void count_back(void *ctx, ddb_response *resp)
{
    (void)resp;
    (*(int *)ctx)++;
}

static int nothing_pending(void *ctx)
{
    return ddb_client_pending(ctx) == 0;
}

/* A blocking call cut by the stop flag leaves its request queued; its
 * caller's context (on the caller's stack) is forgotten, so finishing the
 * request later, as the aborts after a stop do, calls nobody back. */
Test(client, forgotten_calls_finish_without_calling_back)
{
    ddb_aws_credentials creds = {"AKIDEXAMPLE", "secret-not-real", NULL, 0, "test"};
    volatile sig_atomic_t stop = 1;
    ddb_client *c = NULL;
    ddb_client_opts o;
    ddb_response resp;
    ddb_error err;
    int other = 0;

    refused_opts(&o, 1);
    o.credentials = &creds;
    cr_assert_eq(ddb_client_new(&c, &o, &err), 0, "%s", err.message);
    calls_back = 0;
    cr_assert_eq(ddb_client_submit(c, "ListTables", "{}", 2, count_back, &calls_back, &err), 0);
    cr_assert_eq(ddb_client_submit(c, "ListTables", "{}", 2, count_back, &other, &err), 0);
    ddb_client_forget(c, &calls_back);
    /* and a blocking call cut by the stop flag: it forgets its own context */
    ddb_client_set_stop_flag(c, &stop);
    cr_assert_eq(ddb_client_call(c, "ListTables", "{}", 2, &resp, &err), DDB_EINTR);
    ddb_client_set_stop_flag(c, NULL);
    cr_assert_gt(ddb_client_pending(c), 0);
    cr_assert_eq(ddb_client_run(c, nothing_pending, c, &err), 0, "%s", err.message);
    cr_assert_eq(calls_back, 0, "a forgotten call called back");
    cr_assert_eq(other, 1, "the other call was forgotten too");
    ddb_client_free(c);
}
