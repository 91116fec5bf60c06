/*
 * The client's own HTTP/1.1 path (src/wire.c) against the scripted loopback
 * server of scripted.h, over TCP and TLS.
 */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <netdb.h>
#include <netinet/in.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <pthread.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ddbpipe/buf.h"
#include "ddbpipe/client.h"
#include "ddbpipe/clock.h"
#include "scripted.h"
#include "net/wire.h"

#define TAG (1ull << 63)

/* ------------------------------------------------------------ the client */

typedef struct got {
    ddb_buf head, body;
    int lines;
} got;

static int on_header(void *ud, const char *line, size_t len)
{
    got *g = ud;
    g->lines++;
    return ddb_buf_append(&g->head, line, len);
}

static int on_body(void *ud, const char *data, size_t len)
{
    return ddb_buf_append(&((got *)ud)->body, data, len);
}

static const char REQ_HEAD[] = "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 11\r\n\r\n";

static void xfer_init(ddb_wire_xfer *x, got *g, long timeout_ms)
{
    memset(x, 0, sizeof(*x));
    memset(g, 0, sizeof(*g));
    x->head = REQ_HEAD;
    x->head_len = strlen(REQ_HEAD);
    x->body = "{\"a\":\"b\"}\r\n";
    x->body_len = 11;
    x->timeout_ms = timeout_ms;
    x->on_header = on_header;
    x->on_body = on_body;
    x->ud = g;
}

static void got_free(got *g)
{
    ddb_buf_dispose(&g->head);
    ddb_buf_dispose(&g->body);
}

/* Runs the engine as the client's loop does until x is back (or 10 s). */
static void exchange(ddb_wire *w, int epfd, ddb_wire_xfer *x)
{
    uint64_t until = ddb_clock_ms() + 10000;
    ddb_wire_start(w, x);
    while (ddb_clock_ms() < until) {
        struct epoll_event ev[8];
        ddb_wire_xfer *d = ddb_wire_next_done(w);
        int n;
        if (d != NULL) {
            cr_assert_eq(d, x);
            cr_assert_null(ddb_wire_next_done(w));
            return;
        }
        n = epoll_wait(epfd, ev, 8, 20);
        for (int i = 0; i < n; i++) {
            cr_assert(ev[i].data.u64 & TAG, "an event without the engine's tag");
            ddb_wire_event(w, (uint32_t)ev[i].data.u64, ev[i].events);
        }
        ddb_wire_expire(w, ddb_clock_ms());
    }
    cr_assert_fail("the exchange did not end");
}

typedef struct rig {
    server s;
    ddb_wire *w;
    int epfd;
} rig;

static void rig_up(rig *r, const step *steps, int n, int tls, const char *ca)
{
    char url[64];
    ddb_error err;
    server_start(&r->s, steps, n, tls);
    snprintf(url, sizeof(url), "%s://127.0.0.1:%d", tls ? "https" : "http", r->s.port);
    r->epfd = epoll_create1(0);
    cr_assert_eq(ddb_wire_new(&r->w, url, r->epfd, TAG, 2000, ca, &err), 0, "%s", err.message);
}

static void rig_down(rig *r)
{
    ddb_wire_free(r->w);
    close(r->epfd);
    server_stop(&r->s);
}

static uint64_t connections(const rig *r)
{
    uint64_t c, resent;
    ddb_wire_counts(r->w, &c, &resent);
    return c;
}

static uint64_t resent(const rig *r)
{
    uint64_t c, n;
    ddb_wire_counts(r->w, &c, &n);
    return n;
}

/* One exchange that must succeed with a body of body_len bytes. */
static void expect_ok(rig *r, size_t body_len, int i)
{
    ddb_wire_xfer x;
    got g;
    xfer_init(&x, &g, 5000);
    exchange(r->w, r->epfd, &x);
    cr_assert_eq(x.result, DDB_WIRE_OK, "request %d: %s", i, x.message);
    cr_assert_eq(g.body.len, body_len, "request %d: %zu bytes", i, g.body.len);
    cr_assert_eq(r->s.last.len, x.head_len + x.body_len, "request %d came in as %zu bytes", i,
                 r->s.last.len);
    got_free(&g);
}

/* One exchange that must end in failure, with needle in its message. */
static void expect_failure(rig *r, ddb_wire_result want, const char *needle, long timeout_ms)
{
    ddb_wire_xfer x;
    got g;
    xfer_init(&x, &g, timeout_ms);
    exchange(r->w, r->epfd, &x);
    cr_assert_eq(x.result, want, "%d: %s", x.result, x.message);
    cr_assert(strstr(x.message, needle) != NULL, "%s", x.message);
    got_free(&g);
}

#define OK_HELLO "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nx-amz-crc32: 907060870\r\n\r\nhello"

Test(wire, answer_in_one_byte_pieces_and_request_sent_whole)
{
    step steps[] = {{OK_HELLO, 1, 0, 0, 0, 0}};
    ddb_wire_xfer x;
    got g;
    rig r;
    rig_up(&r, steps, 1, 0, NULL);
    xfer_init(&x, &g, 5000);
    exchange(r.w, r.epfd, &x);
    cr_assert_eq(x.result, DDB_WIRE_OK, "%s", x.message);
    cr_assert_eq(x.status, 200);
    cr_assert_eq(g.body.len, 5);
    cr_assert_eq(memcmp(g.body.ptr, "hello", 5), 0);
    cr_assert_eq(g.lines, 4, "status, two headers, the blank line: %d", g.lines);
    cr_assert_str_eq(g.head.ptr, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n"
                                 "x-amz-crc32: 907060870\r\n\r\n");
    cr_assert_eq(r.s.last.len, x.head_len + x.body_len);
    cr_assert_eq(memcmp(r.s.last.ptr, REQ_HEAD, x.head_len), 0);
    cr_assert_eq(memcmp(r.s.last.ptr + x.head_len, x.body, x.body_len), 0);
    got_free(&g);
    rig_down(&r);
}

Test(wire, chunked_body_with_extension_and_trailer)
{
    step steps[] = {{"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                     "5;name=value\r\nhello\r\n6\r\n world\r\nA\r\n0123456789\r\n"
                     "0\r\nX-Trailer: t\r\n\r\n",
                     3, 0, 0, 0, 0}};
    ddb_wire_xfer x;
    got g;
    rig r;
    rig_up(&r, steps, 1, 0, NULL);
    xfer_init(&x, &g, 5000);
    exchange(r.w, r.epfd, &x);
    cr_assert_eq(x.result, DDB_WIRE_OK, "%s", x.message);
    cr_assert_eq(g.body.len, 21);
    cr_assert_eq(memcmp(g.body.ptr, "hello world0123456789", 21), 0);
    got_free(&g);
    rig_down(&r);
}

Test(wire, continue_then_the_answer)
{
    step steps[] = {
        {"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok", 0, 0,
         0, 0, 0}};
    ddb_wire_xfer x;
    got g;
    rig r;
    rig_up(&r, steps, 1, 0, NULL);
    xfer_init(&x, &g, 5000);
    exchange(r.w, r.epfd, &x);
    cr_assert_eq(x.result, DDB_WIRE_OK, "%s", x.message);
    cr_assert_eq(x.status, 201);
    cr_assert_eq(g.body.len, 2);
    got_free(&g);
    rig_down(&r);
}

Test(wire, kept_connection_serves_the_next_requests)
{
    step steps[] = {
        {OK_HELLO, 0, 0, 0, 0, 0}, {OK_HELLO, 7, 0, 0, 0, 0}, {OK_HELLO, 0, 0, 0, 0, 0}};
    rig r;
    rig_up(&r, steps, 3, 0, NULL);
    for (int i = 0; i < 3; i++)
        expect_ok(&r, 5, i);
    cr_assert_eq(connections(&r), 1);
    cr_assert_eq(r.s.connections, 1);
    rig_down(&r);
}

Test(wire, body_until_close_then_a_new_connection)
{
    step steps[] = {{"HTTP/1.0 200 OK\r\n\r\nto the end", 4, 1, 0, 0, 0},
                    {OK_HELLO, 0, 0, 0, 0, 0}};
    rig r;
    rig_up(&r, steps, 2, 0, NULL);
    expect_ok(&r, 10, 0);
    expect_ok(&r, 5, 1);
    cr_assert_eq(connections(&r), 2);
    rig_down(&r);
}

/* A server that closes a kept connection as the request arrives: sent again
 * once, on a fresh connection, and answered there. */
Test(wire, kept_connection_closed_unanswered_is_resent_once)
{
    step steps[] = {{OK_HELLO, 0, 0, 0, 0, 0}, {NULL, 0, 0, 0, 0, 0}, {OK_HELLO, 0, 0, 0, 0, 0}};
    rig r;
    rig_up(&r, steps, 3, 0, NULL);
    expect_ok(&r, 5, 0);
    expect_ok(&r, 5, 1);
    cr_assert_eq(resent(&r), 1);
    cr_assert_eq(connections(&r), 2);
    cr_assert_eq(r.s.requests, 3);
    rig_down(&r);
}

/* On a fresh connection the same silence is a failure: not sent again. */
Test(wire, fresh_connection_closed_unanswered_fails)
{
    step steps[] = {{NULL, 0, 0, 0, 0, 0}, {OK_HELLO, 0, 0, 0, 0, 0}};
    rig r;
    rig_up(&r, steps, 2, 0, NULL);
    expect_failure(&r, DDB_WIRE_FAILED, "Empty reply", 5000);
    cr_assert_eq(resent(&r), 0);
    rig_down(&r);
}

Test(wire, body_cut_short_fails)
{
    step steps[] = {{"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhalf", 0, 1, 0, 0, 0}};
    rig r;
    rig_up(&r, steps, 1, 0, NULL);
    expect_failure(&r, DDB_WIRE_FAILED, "6 bytes of the body missing", 5000);
    rig_down(&r);
}

Test(wire, malformed_answers_fail)
{
    static const char *const bad[] = {
        "HTTP/1.1 2x0 OK\r\n\r\n",
        "SMTP ready\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 5x\r\n\r\nhello",
        "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!",
        "HTTP/1.1 200 OK\r\nno colon here\r\n\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabX\r\n0\r\n\r\n",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        step steps[] = {{bad[i], 0, 1, 0, 0, 0}};
        rig r;
        rig_up(&r, steps, 1, 0, NULL);
        expect_failure(&r, DDB_WIRE_FAILED, "malformed", 5000);
        rig_down(&r);
    }
}

Test(wire, silent_server_times_out)
{
    step steps[] = {{NULL, 0, 0, 1, 0, 0}};
    rig r;
    uint64_t t0;
    rig_up(&r, steps, 1, 0, NULL);
    t0 = ddb_clock_ms();
    expect_failure(&r, DDB_WIRE_TIMEOUT, "timed out after 300 milliseconds", 300);
    cr_assert_geq(ddb_clock_ms() - t0, 300);
    rig_down(&r);
}

Test(wire, refused_connection_is_a_connect_failure)
{
    server s;
    step steps[] = {{OK_HELLO, 0, 0, 0, 0, 0}};
    ddb_wire *w = NULL;
    ddb_wire_xfer x;
    ddb_error err;
    char url[64];
    got g;
    int epfd = epoll_create1(0);
    server_start(&s, steps, 1, 0);
    server_stop(&s); /* the port is closed now */
    snprintf(url, sizeof(url), "http://127.0.0.1:%d/", s.port);
    cr_assert_eq(ddb_wire_new(&w, url, epfd, TAG, 2000, NULL, &err), 0, "%s", err.message);
    xfer_init(&x, &g, 5000);
    exchange(w, epfd, &x);
    cr_assert_eq(x.result, DDB_WIRE_CONNECT, "%s", x.message);
    cr_assert(strstr(x.message, "Connection refused") != NULL, "%s", x.message);
    got_free(&g);
    ddb_wire_free(w);
    close(epfd);
}

Test(wire, tls_with_the_servers_ca_trusted)
{
    step steps[] = {{OK_HELLO, 3, 0, 0, 0, 0}, {OK_HELLO, 0, 0, 0, 0, 0}};
    rig r;
    rig_up(&r, steps, 2, 1, TLS_DIR "cert.pem");
    expect_ok(&r, 5, 0);
    expect_ok(&r, 5, 1);
    cr_assert_eq(connections(&r), 1);
    rig_down(&r);
}

Test(wire, tls_with_an_unknown_ca_is_refused)
{
    step steps[] = {{OK_HELLO, 0, 0, 0, 0, 0}};
    rig r;
    rig_up(&r, steps, 1, 1, NULL); /* the system's CAs: they do not know it */
    expect_failure(&r, DDB_WIRE_FAILED, "certificate", 5000);
    cr_assert_eq(r.s.requests, 0, "a request went to an unverified server");
    rig_down(&r);
}

/* A certificate the client trusts, but for another name: refused all the same. */
Test(wire, tls_certificate_for_another_name_is_refused)
{
    step steps[] = {{OK_HELLO, 0, 0, 0, 0, 0}};
    rig r;
    rig_up(&r, steps, 1, 2, TLS_DIR "other-cert.pem");
    expect_failure(&r, DDB_WIRE_FAILED, "certificate", 5000);
    cr_assert_eq(r.s.requests, 0, "a request went to a server of another name");
    rig_down(&r);
}

Test(wire, not_http_urls_are_refused)
{
    ddb_wire *w = NULL;
    ddb_error err;
    cr_assert_eq(ddb_wire_new(&w, "ftp://127.0.0.1/", -1, TAG, 1000, NULL, &err), DDB_EUSAGE);
    cr_assert_null(w);
    cr_assert_eq(ddb_wire_new(&w, "https://127.0.0.1/", -1, TAG, 1000, "/nonexistent/ca.pem", &err),
                 DDB_ENET);
    cr_assert(strstr(err.message, "/nonexistent/ca.pem") != NULL, "%s", err.message);
}

/* ------------------------------------------- connecting takes too long */

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

/* An exchange with url that must end at the connect timeout (300 ms), well
 * before its own (5 s). */
static void expect_connect_timeout(const char *url, const char *ca)
{
    ddb_wire *w = NULL;
    ddb_wire_xfer x;
    ddb_error err;
    got g;
    uint64_t t0;
    int epfd = epoll_create1(0);
    cr_assert_eq(ddb_wire_new(&w, url, epfd, TAG, 300, ca, &err), 0, "%s", err.message);
    xfer_init(&x, &g, 5000);
    t0 = ddb_clock_ms();
    exchange(w, epfd, &x);
    cr_assert_eq(x.result, DDB_WIRE_TIMEOUT, "%d %s", x.result, x.message);
    cr_assert(strstr(x.message, "Connection timed out after 300 milliseconds") != NULL, "%s",
              x.message);
    cr_assert_lt(ddb_clock_ms() - t0, 2000);
    got_free(&g);
    ddb_wire_free(w);
    close(epfd);
}

Test(wire, connect_that_hangs_times_out_at_the_connect_timeout)
{
    blackhole b;
    char url[64];
    blackhole_open(&b);
    snprintf(url, sizeof(url), "http://127.0.0.1:%d", b.port);
    expect_connect_timeout(url, NULL);
    blackhole_close(&b);
}

/* A server that takes the TCP connection but never answers the TLS hello:
 * the connect timeout, not the request's, ends it (as with libcurl). */
Test(wire, tls_handshake_that_hangs_times_out_at_the_connect_timeout)
{
    step steps[] = {{NULL, 0, 0, 1, 0, 0}};
    server s;
    char url[64];
    server_start(&s, steps, 1, 0); /* plain TCP, silent */
    snprintf(url, sizeof(url), "https://127.0.0.1:%d", s.port);
    expect_connect_timeout(url, TLS_DIR "cert.pem");
    server_stop(&s);
}

/* The resolver is the test's for the name "two.test": two addresses, the
 * first one a black hole, the second the server (their ports in the
 * addresses); for "slow.test", the server's after 0.6 s; for "none.test",
 * no address after 0.3 s. Other names go to the C library's. */
static int fake_ports[2];
static char fake_tag;
static int slow_lookups;

int getaddrinfo(const char *node, const char *service, const struct addrinfo *hints,
                struct addrinfo **res);
int getaddrinfo(const char *node, const char *service, const struct addrinfo *hints,
                struct addrinfo **res)
{
    struct addrinfo *head = NULL, **tail = &head;
    int n = 2;
    if (node != NULL && strcmp(node, "none.test") == 0) {
        usleep(300000);
        return EAI_NONAME;
    }
    if (node != NULL && strcmp(node, "slow.test") == 0) {
        /* a resolver that takes its time: one address, the server's */
        __atomic_add_fetch(&slow_lookups, 1, __ATOMIC_SEQ_CST);
        usleep(600000);
        fake_ports[0] = fake_ports[1];
        n = 1;
    } else if (node == NULL || strcmp(node, "two.test") != 0) {
        int (*real)(const char *, const char *, const struct addrinfo *, struct addrinfo **) =
            (int (*)(const char *, const char *, const struct addrinfo *, struct addrinfo **))dlsym(
                RTLD_NEXT, "getaddrinfo");
        return real(node, service, hints, res);
    }
    for (int i = 0; i < n; i++) {
        struct addrinfo *ai = calloc(1, sizeof(*ai) + sizeof(struct sockaddr_in));
        struct sockaddr_in *sa = (struct sockaddr_in *)(ai + 1);
        sa->sin_family = AF_INET;
        sa->sin_port = htons((uint16_t)fake_ports[i]);
        sa->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        ai->ai_family = AF_INET;
        ai->ai_socktype = SOCK_STREAM;
        ai->ai_addr = (struct sockaddr *)sa;
        ai->ai_addrlen = sizeof(*sa);
        ai->ai_canonname = &fake_tag;
        *tail = ai;
        tail = &ai->ai_next;
    }
    *res = head;
    return 0;
}

void freeaddrinfo(struct addrinfo *ai);
void freeaddrinfo(struct addrinfo *ai)
{
    if (ai != NULL && ai->ai_canonname == &fake_tag) {
        while (ai != NULL) {
            struct addrinfo *next = ai->ai_next;
            free(ai);
            ai = next;
        }
        return;
    }
    ((void (*)(struct addrinfo *))dlsym(RTLD_NEXT, "freeaddrinfo"))(ai);
}

/* The first address drops packets: it gets half the connect time, the second
 * answers; the next connection goes to the second at once. */
Test(wire, address_that_hangs_gives_way_to_the_next)
{
    step steps[] = {{OK_HELLO, 0, 1, 0, 0, 0}, {OK_HELLO, 0, 1, 0, 0, 0}};
    blackhole b;
    server s;
    ddb_wire *w = NULL;
    ddb_error err;
    int epfd = epoll_create1(0);
    blackhole_open(&b);
    server_start(&s, steps, 2, 0);
    fake_ports[0] = b.port;
    fake_ports[1] = s.port;
    cr_assert_eq(ddb_wire_new(&w, "http://two.test:1", epfd, TAG, 1000, NULL, &err), 0, "%s",
                 err.message);
    for (int i = 0; i < 2; i++) {
        ddb_wire_xfer x;
        got g;
        uint64_t t0 = ddb_clock_ms(), took;
        xfer_init(&x, &g, 5000);
        exchange(w, epfd, &x);
        took = ddb_clock_ms() - t0;
        cr_assert_eq(x.result, DDB_WIRE_OK, "request %d: %s", i, x.message);
        if (i == 0)
            cr_assert(took >= 450 && took < 900, "the black hole's share: %llu ms",
                      (unsigned long long)took);
        else
            cr_assert_lt(took, 300, "the second connection went to the black hole first");
        got_free(&g);
    }
    cr_assert_eq(s.connections, 2);
    ddb_wire_free(w);
    close(epfd);
    server_stop(&s);
    blackhole_close(&b);
}

/* -------------------------------------------- answered before it is sent */

/* A server that answers 413 after the head and reads nothing more, 8 MB to
 * send: the write waits for room that never comes, and the answer is read
 * meanwhile, not after a timeout. Over TLS too (before: the write failed
 * when the server closed). */
static void early_answer(int tls)
{
    static char body[8 << 20];
    step steps[] = {{"HTTP/1.1 413 Request Entity Too Large\r\nContent-Length: 3\r\n"
                     "Connection: close\r\n\r\nbig",
                     0, 0, 0, 1, 0}};
    ddb_wire_xfer x;
    got g;
    rig r;
    uint64_t t0;
    memset(body, 'x', sizeof(body));
    rig_up(&r, steps, 1, tls, tls ? TLS_DIR "cert.pem" : NULL);
    xfer_init(&x, &g, 20000);
    x.body = body;
    x.body_len = sizeof(body);
    t0 = ddb_clock_ms();
    exchange(r.w, r.epfd, &x);
    cr_assert_eq(x.result, DDB_WIRE_OK, "%s", x.message);
    cr_assert_eq(x.status, 413);
    cr_assert_eq(g.body.len, 3);
    cr_assert_lt(ddb_clock_ms() - t0, 5000);
    cr_assert_eq(connections(&r), 1);
    got_free(&g);
    rig_down(&r);
}

Test(wire, answer_before_the_body_is_out_is_read)
{
    early_answer(0);
}

Test(wire, answer_before_the_body_is_out_is_read_over_tls)
{
    early_answer(1);
}

/* ------------------------------------------------ the client on the wire */

static int c_done, ab_done;
static rlim_t fd_limit;

static void ab_back(void *ctx, ddb_response *resp)
{
    (void)ctx;
    (void)resp;
    ab_done++;
}

/* C's answer: B and A are queued; the step's last start sends B on C's kept
 * connection, and A, for want of a descriptor, fails as it starts. */
static void c_back(void *ctx, ddb_response *resp)
{
    ddb_client *c = ctx;
    struct rlimit rl;
    ddb_error err;
    int lowest = dup(0);
    (void)resp;
    c_done = 1;
    cr_assert_eq(ddb_client_submit(c, "B", "{}", 2, ab_back, NULL, &err), 0);
    cr_assert_eq(ddb_client_submit(c, "A", "{}", 2, ab_back, NULL, &err), 0);
    close(lowest);
    getrlimit(RLIMIT_NOFILE, &rl);
    fd_limit = rl.rlim_cur;
    rl.rlim_cur = (rlim_t)lowest; /* no new descriptor from here on */
    setrlimit(RLIMIT_NOFILE, &rl);
}

/* An attempt that ended as it started, not yet taken from the wire when the
 * client is freed with another still on its connection: nothing of it may
 * be left for the wire to read (ASan's heap-use-after-free before). */
Test(wire, client_freed_with_an_ended_attempt_not_yet_taken)
{
    step steps[] = {{OK_HELLO, 0, 0, 0, 0, 0}, {NULL, 0, 0, 1, 0, 0}};
    ddb_aws_credentials creds = {"AKIDEXAMPLE", "secret-not-real", NULL, 0, "test"};
    ddb_client *c = NULL;
    ddb_client_opts o;
    ddb_error err;
    struct rlimit rl;
    char url[64];
    server s;
    uint64_t until;
    server_start(&s, steps, 2, 0);
    snprintf(url, sizeof(url), "http://127.0.0.1:%d", s.port);
    memset(&o, 0, sizeof(o));
    o.region = "us-east-1";
    o.endpoint = url;
    o.credentials = &creds;
    o.max_attempts = 1;
    o.random_seed = 1;
    cr_assert_eq(ddb_client_new(&c, &o, &err), 0, "%s", err.message);
    cr_assert_eq(ddb_client_submit(c, "C", "{}", 2, c_back, c, &err), 0);
    until = ddb_clock_ms() + 5000;
    while (!c_done && ddb_clock_ms() < until) {
        cr_assert_eq(ddb_client_step(c, &err), 0, "%s", err.message);
        usleep(1000);
    }
    cr_assert(c_done, "C was not answered");
    getrlimit(RLIMIT_NOFILE, &rl);
    rl.rlim_cur = fd_limit;
    setrlimit(RLIMIT_NOFILE, &rl);
    cr_assert_eq(ab_done, 0, "A or B finished before the client was freed");
    cr_assert_eq(ddb_client_pending(c), 2);
    ddb_client_free(c);
    server_stop(&s);
}

/* The first lookup of a name runs on a thread too, and the loop turns while
 * it does: a request whose time (0.2 s) ends during a 0.6 s lookup ends on
 * time, and the next one, after the lookup, takes the address it found
 * without asking again (before: the loop stopped in the resolver). */
/* A rig whose wire asks the test's resolver for slow.test (the server's
 * address, after 0.6 s). */
static void rig_up_slow(rig *r, const step *steps, int n)
{
    ddb_error err;
    server_start(&r->s, steps, n, 0);
    fake_ports[1] = r->s.port;
    r->epfd = epoll_create1(0);
    cr_assert_eq(ddb_wire_new(&r->w, "http://slow.test:1", r->epfd, TAG, 5000, NULL, &err), 0, "%s",
                 err.message);
}

Test(wire, the_first_lookup_does_not_stop_the_loop)
{
    step steps[] = {{OK_HELLO, 0, 1, 0, 0, 0}};
    rig r;
    rig_up_slow(&r, steps, 1);
    for (int i = 0; i < 2; i++) {
        ddb_wire_xfer x;
        got g;
        uint64_t t0, took;
        xfer_init(&x, &g, i == 0 ? 200 : 5000);
        t0 = ddb_clock_ms();
        exchange(r.w, r.epfd, &x);
        took = ddb_clock_ms() - t0;
        if (i == 0) {
            cr_assert_eq(x.result, DDB_WIRE_TIMEOUT, "%d: %s", x.result, x.message);
            cr_assert_lt(took, 450, "the loop waited %llu ms for the resolver",
                         (unsigned long long)took);
            usleep(700000); /* the lookup ends meanwhile */
        } else {
            cr_assert_eq(x.result, DDB_WIRE_OK, "%s", x.message);
            cr_assert_lt(took, 300, "the second request waited %llu ms", (unsigned long long)took);
        }
        got_free(&g);
    }
    cr_assert_eq(__atomic_load_n(&slow_lookups, __ATOMIC_SEQ_CST), 1);
    rig_down(&r);
}

/* A name that does not resolve, slowly: the request fails as the lookup
 * ends, with the name in the message. */
Test(wire, a_name_that_does_not_resolve_fails_when_its_lookup_ends)
{
    ddb_wire *w = NULL;
    ddb_wire_xfer x;
    got g;
    ddb_error err;
    uint64_t t0, took;
    int epfd = epoll_create1(0);
    cr_assert_eq(ddb_wire_new(&w, "http://none.test:1", epfd, TAG, 5000, NULL, &err), 0, "%s",
                 err.message);
    xfer_init(&x, &g, 5000);
    t0 = ddb_clock_ms();
    exchange(w, epfd, &x);
    took = ddb_clock_ms() - t0;
    cr_assert_eq(x.result, DDB_WIRE_RESOLVE, "%d: %s", x.result, x.message);
    cr_assert(strstr(x.message, "Could not resolve host: none.test") != NULL, "%s", x.message);
    cr_assert(took >= 250 && took < 2000, "%llu ms", (unsigned long long)took);
    got_free(&g);
    ddb_wire_free(w);
    close(epfd);
}

/* Once the host's addresses are stale, a new connection does not wait for a
 * slow resolver: the kept addresses serve while a thread asks again. (Only
 * the very first lookup waits.) */
Test(wire, a_slow_lookup_again_does_not_stop_the_loop)
{
    step steps[] = {{OK_HELLO, 0, 1, 0, 0, 0},
                    {OK_HELLO, 0, 1, 0, 0, 0},
                    {OK_HELLO, 0, 1, 0, 0, 0},
                    {OK_HELLO, 0, 1, 0, 0, 0}};
    rig r;
    rig_up_slow(&r, steps, 4);
    ddb_wire_set_resolve_ttl(r.w, 0); /* stale at once */
    for (int i = 0; i < 4; i++) {
        ddb_wire_xfer x;
        got g;
        uint64_t t0, took;
        if (i == 3)
            usleep(800000); /* the lookup thread has ended: its answer is taken in */
        t0 = ddb_clock_ms();
        xfer_init(&x, &g, 5000);
        exchange(r.w, r.epfd, &x);
        took = ddb_clock_ms() - t0;
        cr_assert_eq(x.result, DDB_WIRE_OK, "request %d: %s", i, x.message);
        if (i == 0)
            cr_assert_geq(took, 550, "the first lookup is waited for");
        else
            cr_assert_lt(took, 400, "request %d waited %llu ms for the resolver", i,
                         (unsigned long long)took);
        got_free(&g);
    }
    cr_assert_geq(__atomic_load_n(&slow_lookups, __ATOMIC_SEQ_CST), 2);
    cr_assert_eq(r.s.connections, 4);
    rig_down(&r); /* joins a lookup still running */
}
