/*
 * The client's HTTP transport (libcurl) against the scripted loopback server
 * of scripted.h, over TCP and TLS: connections kept and reused, answers in
 * pieces or chunked, dropped connections retried, timeouts, and TLS peers
 * verified against a CA bundle of the caller's.
 */
#include <criterion/criterion.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ddbpipe/client.h"
#include "ddbpipe/clock.h"
#include "scripted.h"

#define OK_HELLO "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nx-amz-crc32: 907060870\r\n\r\nhello"

static const ddb_aws_credentials creds = {"AKIDEXAMPLE", "secret-not-real", NULL, 0, "test"};

/* A client of url: attempts tries each, a quick backoff, the given timeouts
 * (0: the defaults) and CA bundle (NULL: the system's). */
static ddb_client *client_of(const char *url, int attempts, long connect_ms, long request_ms,
                             const char *ca)
{
    ddb_client *c = NULL;
    ddb_client_opts o;
    ddb_error err;
    scripted_opts(&o, url, &creds, attempts);
    o.connect_timeout_ms = connect_ms;
    o.request_timeout_ms = request_ms;
    o.ca_bundle = ca;
    o.no_gzip = 1;
    cr_assert_eq(ddb_client_new(&c, &o, &err), 0, "%s", err.message);
    return c;
}

/* The scripted server s (started) as the client's endpoint. */
static ddb_client *client_for(const server *s, int attempts, long request_ms, const char *ca)
{
    char url[64];
    snprintf(url, sizeof(url), "%s://127.0.0.1:%d", s->tls ? "https" : "http", s->port);
    return client_of(url, attempts, 2000, request_ms, ca);
}

/* One GetItem call; the response is the caller's (ddb_response_dispose). */
static void call(ddb_client *c, ddb_response *resp)
{
    ddb_error err;
    cr_assert_eq(ddb_client_call(c, "GetItem", "{\"a\":\"b\"}", 9, resp, &err), 0, "%s",
                 err.message);
}

/* n calls that must each come back 200 with "hello". */
static void expect_hellos(ddb_client *c, int n)
{
    for (int i = 0; i < n; i++) {
        ddb_response resp;
        call(c, &resp);
        cr_assert(resp.ok, "call %d: %s: %s", i, resp.error_type, resp.message);
        cr_assert_eq(resp.body_len, 5, "call %d: %zu bytes", i, resp.body_len);
        cr_assert_eq(memcmp(resp.body, "hello", 5), 0);
        ddb_response_dispose(&resp);
    }
}

/* The scripted server s with steps (tls as for server_start) answers calls
 * calls, each "hello", to a client trusting ca; s's counts stay readable. */
static void hellos(server *s, const step *steps, int n, int tls, const char *ca, int calls)
{
    ddb_client *c;
    server_start(s, steps, n, tls);
    c = client_for(s, 1, 0, ca);
    expect_hellos(c, calls);
    ddb_client_free(c);
    server_stop(s);
}

/* One call that must fail for good with error_type type and needle in its
 * message, after attempts attempts. */
static void expect_failure(ddb_client *c, const char *type, const char *needle, int attempts)
{
    ddb_response resp;
    call(c, &resp);
    cr_assert_not(resp.ok);
    cr_assert_str_eq(resp.error_type, type, "%s: %s", resp.error_type, resp.message);
    cr_assert(strstr(resp.message, needle) != NULL, "%s", resp.message);
    cr_assert_eq(resp.attempts, attempts);
    ddb_response_dispose(&resp);
}

Test(transport, answer_in_one_byte_pieces_and_request_sent_whole)
{
    step steps[] = {{OK_HELLO, 1, 0, 0, 0, 0}};
    server s;
    ddb_client *c;
    server_start(&s, steps, 1, 0);
    c = client_for(&s, 1, 0, NULL);
    expect_hellos(c, 1);
    cr_assert(strncmp(s.last.ptr, "POST / HTTP/1.1\r\n", 17) == 0, "%s", s.last.ptr);
    cr_assert(strstr(s.last.ptr, "\r\nX-Amz-Target: DynamoDB_20120810.GetItem\r\n") != NULL);
    cr_assert(strstr(s.last.ptr, "\r\nContent-Length: 9\r\n") != NULL, "%s", s.last.ptr);
    cr_assert(strstr(s.last.ptr, "\r\nExpect") == NULL, "no 100-continue wait: %s", s.last.ptr);
    cr_assert_eq(memcmp(s.last.ptr + s.last.len - 9, "{\"a\":\"b\"}", 9), 0);
    ddb_client_free(c);
    server_stop(&s);
}

Test(transport, chunked_body_and_a_continue_before_the_answer)
{
    step steps[] = {{"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n"
                     "\r\n5;name=value\r\nhello\r\n0\r\nX-Trailer: t\r\n\r\n",
                     3, 0, 0, 0, 0}};
    server s;
    hellos(&s, steps, 1, 0, NULL, 1);
}

Test(transport, kept_connection_serves_the_next_requests)
{
    step steps[] = {
        {OK_HELLO, 0, 0, 0, 0, 0}, {OK_HELLO, 7, 0, 0, 0, 0}, {OK_HELLO, 0, 0, 0, 0, 0}};
    server s;
    hellos(&s, steps, 3, 0, NULL, 3);
    cr_assert_eq(s.connections, 1);
}

/* A server that closes a kept connection as the next request arrives: the
 * request goes again on a fresh connection and is answered there, within
 * its one attempt. */
Test(transport, kept_connection_closed_unanswered_is_sent_again)
{
    step steps[] = {{OK_HELLO, 0, 0, 0, 0, 0}, {NULL, 0, 0, 0, 0, 0}, {OK_HELLO, 0, 0, 0, 0, 0}};
    server s;
    hellos(&s, steps, 3, 0, NULL, 2);
    cr_assert_eq(s.connections, 2);
    cr_assert_eq(s.requests, 3);
}

/* The same silence on a fresh connection, or a body cut short: a failed
 * attempt (ConnectionError), retried, and the next attempt answered. */
Test(transport, dropped_connection_is_retried)
{
    step steps[] = {{NULL, 0, 0, 0, 0, 0},
                    {"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhalf", 0, 1, 0, 0, 0},
                    {OK_HELLO, 0, 0, 0, 0, 0}};
    server s;
    ddb_client *c;
    ddb_response resp;
    server_start(&s, steps, 3, 0);
    c = client_for(&s, 3, 0, NULL);
    call(c, &resp);
    cr_assert(resp.ok, "%s: %s", resp.error_type, resp.message);
    cr_assert_eq(resp.attempts, 3);
    cr_assert_eq(s.connections, 3);
    ddb_response_dispose(&resp);
    ddb_client_free(c);
    server_stop(&s);
}

Test(transport, silent_server_times_out)
{
    step steps[] = {{NULL, 0, 0, 1, 0, 0}};
    server s;
    ddb_client *c;
    uint64_t t0;
    server_start(&s, steps, 1, 0);
    c = client_for(&s, 1, 300, NULL);
    t0 = ddb_clock_ms();
    expect_failure(c, "Timeout", "timed out after 3", 1);
    cr_assert_geq(ddb_clock_ms() - t0, 300);
    cr_assert_lt(ddb_clock_ms() - t0, 3000);
    ddb_client_free(c);
    server_stop(&s);
}

/* A listener whose backlog is full: the kernel drops further SYNs, so a
 * connection to it neither succeeds nor fails (a firewall that drops). */
typedef struct blackhole {
    int lfd, fill[3], port;
} blackhole;

static void blackhole_open(blackhole *b)
{
    struct sockaddr_in a;
    socklen_t al = sizeof(a);
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    b->lfd = socket(AF_INET, SOCK_STREAM, 0);
    cr_assert(bind(b->lfd, (struct sockaddr *)&a, sizeof(a)) == 0);
    cr_assert(listen(b->lfd, 0) == 0);
    getsockname(b->lfd, (struct sockaddr *)&a, &al);
    b->port = ntohs(a.sin_port);
    for (int i = 0; i < 3; i++) {
        b->fill[i] = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
        (void)connect(b->fill[i], (struct sockaddr *)&a, sizeof(a));
    }
    usleep(100000);
}

static void blackhole_close(blackhole *b)
{
    for (int i = 0; i < 3; i++)
        close(b->fill[i]);
    close(b->lfd);
}

/* url's connection must end at the connect timeout (300 ms), well before
 * the request's own (5 s). */
static void expect_connect_timeout(const char *url, const char *ca, const char *needle)
{
    ddb_client *c = client_of(url, 1, 300, 5000, ca);
    uint64_t t0 = ddb_clock_ms();
    expect_failure(c, "Timeout", needle, 1);
    cr_assert_geq(ddb_clock_ms() - t0, 300);
    cr_assert_lt(ddb_clock_ms() - t0, 2000);
    ddb_client_free(c);
}

Test(transport, connect_that_hangs_times_out_at_the_connect_timeout)
{
    blackhole b;
    char url[64];
    blackhole_open(&b);
    snprintf(url, sizeof(url), "http://127.0.0.1:%d", b.port);
    expect_connect_timeout(url, NULL, "after 3");
    blackhole_close(&b);
}

/* A server that takes the TCP connection but never answers the TLS hello:
 * the connect timeout, not the request's, ends it. */
Test(transport, tls_handshake_that_hangs_times_out_at_the_connect_timeout)
{
    step steps[] = {{NULL, 0, 0, 1, 0, 0}};
    server s;
    char url[64];
    server_start(&s, steps, 1, 0); /* plain TCP, silent */
    snprintf(url, sizeof(url), "https://127.0.0.1:%d", s.port);
    expect_connect_timeout(url, TLS_DIR "cert.pem", "SSL connection timeout");
    server_stop(&s);
}

Test(transport, refused_connection_is_a_connection_error)
{
    step steps[] = {{OK_HELLO, 0, 0, 0, 0, 0}};
    server s;
    char url[64];
    ddb_client *c;
    server_start(&s, steps, 1, 0);
    server_stop(&s); /* the port is closed now */
    snprintf(url, sizeof(url), "http://127.0.0.1:%d/", s.port);
    c = client_of(url, 2, 0, 0, NULL);
    expect_failure(c, "ConnectionError", "Failed to connect to 127.0.0.1 port", 2);
    ddb_client_free(c);
}

/* The CA bundle given (AWS_CA_BUNDLE) is trusted, and the connection kept. */
Test(transport, tls_with_the_servers_ca_trusted)
{
    step steps[] = {{OK_HELLO, 3, 0, 0, 0, 0}, {OK_HELLO, 0, 0, 0, 0, 0}};
    server s;
    hellos(&s, steps, 2, 1, TLS_DIR "cert.pem", 2);
    cr_assert_eq(s.connections, 1);
}

/* A TLS server (tls as for server_start) the client must refuse before any
 * request reaches it, trusting ca. */
static void expect_tls_refused(int tls, const char *ca)
{
    step steps[] = {{OK_HELLO, 0, 0, 0, 0, 0}};
    server s;
    ddb_client *c;
    server_start(&s, steps, 1, tls);
    c = client_for(&s, 1, 0, ca);
    expect_failure(c, "ConnectionError", "certificate", 1);
    cr_assert_eq(s.requests, 0, "a request went to a server the client should not trust");
    ddb_client_free(c);
    server_stop(&s);
}

Test(transport, tls_with_an_unknown_ca_is_refused)
{
    expect_tls_refused(1, NULL); /* the system's CAs: they do not know it */
}

/* A certificate the client trusts, but for another name: refused all the same. */
Test(transport, tls_certificate_for_another_name_is_refused)
{
    expect_tls_refused(2, TLS_DIR "other-cert.pem");
}

/* A server that answers 413 after the head and reads nothing more, 8 MB to
 * send: the answer is read while the body waits for room, not after a
 * timeout, and it is the error it says (not retried as a dropped
 * connection). */
Test(transport, answer_before_the_body_is_out_is_read)
{
    static char body[8 << 20];
    step steps[] = {{"HTTP/1.1 413 Request Entity Too Large\r\nContent-Length: 3\r\n"
                     "Connection: close\r\n\r\nbig",
                     0, 0, 0, 1, 0}};
    server s;
    ddb_client *c;
    ddb_response resp;
    ddb_error err;
    uint64_t t0;
    memset(body, 'x', sizeof(body));
    server_start(&s, steps, 1, 0);
    c = client_for(&s, 1, 20000, NULL);
    t0 = ddb_clock_ms();
    cr_assert_eq(ddb_client_call(c, "BatchWriteItem", body, sizeof(body), &resp, &err), 0, "%s",
                 err.message);
    cr_assert_eq(resp.http_status, 413, "%ld %s: %s", resp.http_status, resp.error_type,
                 resp.message);
    cr_assert_eq(resp.attempts, 1);
    cr_assert_lt(ddb_clock_ms() - t0, 5000);
    ddb_response_dispose(&resp);
    ddb_client_free(c);
    server_stop(&s);
}

/* ------------------------------------------------------------ the log */

typedef struct logged {
    int n;
    ddb_log_level level[8];
    char text[8][256];
} logged;

static void collect(void *ctx, ddb_log_level level, const char *message)
{
    logged *l = ctx;
    if (l->n < 8) {
        l->level[l->n] = level;
        snprintf(l->text[l->n], sizeof(l->text[0]), "%s", message);
    }
    l->n++;
}

/* One call answered 503 then 200, verbose, the log given to log (may be
 * NULL); the engine's stderr goes to a file meanwhile, which must stay
 * empty. */
static void retried_call(void (*log)(void *, ddb_log_level, const char *), logged *l, int verbose)
{
    step steps[] = {{"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n", 0, 0, 0, 0, 0},
                    {OK_HELLO, 0, 0, 0, 0, 0}};
    ddb_client *c = NULL;
    ddb_client_opts o;
    ddb_response resp;
    ddb_error err;
    char url[64];
    server s;
    FILE *tmp = tmpfile();
    int saved = dup(2);
    server_start(&s, steps, 2, 0);
    snprintf(url, sizeof(url), "http://127.0.0.1:%d", s.port);
    scripted_opts(&o, url, &creds, 3);
    o.no_gzip = 1;
    o.verbose = verbose;
    o.log = log;
    o.log_ctx = l;
    fflush(stderr);
    dup2(fileno(tmp), 2);
    cr_assert_eq(ddb_client_new(&c, &o, &err), 0, "%s", err.message);
    cr_assert_eq(ddb_client_call(c, "GetItem", "{}", 2, &resp, &err), 0, "%s", err.message);
    ddb_client_free(c);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    cr_assert(resp.ok, "%s: %s", resp.error_type, resp.message);
    cr_assert_eq(resp.attempts, 2);
    cr_assert_eq(ftell(tmp), 0, "the engine wrote %ld bytes to stderr", ftell(tmp));
    fclose(tmp);
    ddb_response_dispose(&resp);
    server_stop(&s);
}

Test(transport, attempts_are_logged_through_the_callback_not_to_stderr)
{
    logged l = {0};
    retried_call(collect, &l, 1);
    cr_assert_eq(l.n, 2, "%d messages", l.n);
    cr_assert_eq(l.level[0], DDB_LOG_INFO);
    cr_assert_str_eq(l.text[0], "GetItem attempt 1: HTTP 503 ");
    cr_assert_eq(l.level[1], DDB_LOG_DEBUG);
    cr_assert_str_eq(l.text[1], "GetItem attempt 2: 200 (5 bytes)");
}

Test(transport, nothing_is_logged_without_verbose_or_without_a_callback)
{
    logged l = {0};
    retried_call(collect, &l, 0);
    cr_assert_eq(l.n, 0, "%d messages without verbose", l.n);
    retried_call(NULL, NULL, 1); /* verbose, nowhere to log: silent */
}
