/*
 * wire_internal.h (private header of net/) — the pieces of the own HTTP path (wire.c):
 * the response parser (wire_parse.c), the host's addresses (wire_names.c),
 * TLS's setup (wire_tls.c) and the opening of connections (wire_connect.c).
 */
#ifndef DDBPIPE_WIRE_INTERNAL_H
#define DDBPIPE_WIRE_INTERNAL_H

#include <netdb.h>
#include <openssl/ssl.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/epoll.h>

#include "net/wire.h"

enum { P_STATUS, P_HEAD, P_LEN, P_EOF, P_CHUNK_SIZE, P_CHUNK_DATA, P_CHUNK_END, P_TRAILER };

/* The response being parsed on a connection. */
typedef struct wire_response {
    int phase;
    uint64_t left; /* body or chunk bytes still to come */
    long status;
    int close_after, chunked, has_length, http10, keep_alive;
    uint64_t length;
} wire_response;

/* Ready for a new response (at its status line). */
void ddb_wire_response_reset(wire_response *r);
/* Parses buf[*pos, len) for x, advancing *pos: its header lines and body
 * pieces go to x's callbacks. Returns 1 when the response is whole, 0 when
 * more is needed, -1 on a malformed response (why says), -2 when a callback
 * refused (out of memory). */
int ddb_wire_response_parse(wire_response *r, ddb_wire_xfer *x, const char *buf, size_t *pos,
                            size_t len, const char **why);

/* The host's addresses: looked up when first needed, and again on a thread
 * once ttl_ms old while the kept ones serve. host (malloc's) and port are
 * the owner's to set after init. */
typedef struct wire_names {
    char *host; /* without brackets: for the resolver, SNI and the name check */
    char port[8];
    struct addrinfo *ai;
    int n_ai;
    int good; /* the address that connected last: tried first */
    uint64_t resolved_ms;
    long ttl_ms;
    pthread_mutex_t mu;
    pthread_t lookup;
    int looking;            /* the thread runs, or ended and is not joined yet */
    int looked;             /* under mu: it ended */
    struct addrinfo *fresh; /* under mu: its answer; NULL when it failed */
    int notify;             /* an eventfd the thread signals when it ends (-1: none, and the first
                               lookup waits, as it does for an address written as one) */
    int numeric;            /* the host is an address: looking it up never waits */
} wire_names;

void ddb_wire_names_init(wire_names *n);
/* Joins a lookup still running, frees the addresses and host. */
void ddb_wire_names_dispose(wire_names *n);
/* The addresses for a new connection: 0 when they are there; 1 when a
 * thread is looking them up (notify tells when it ends); -1 when the host
 * does not resolve. */
int ddb_wire_names_resolve(wire_names *n);
/* Takes in the answer of a lookup thread that has ended: 1 when one had. */
int ddb_wire_names_settle(wire_names *n);

/* ------------------------------------------- the connections (wire.c) */

/* Waiting for an answer and idle alike: one mask, so a request and its
 * answer cost no epoll_ctl. */
#define WATCH_IN (EPOLLIN | EPOLLRDHUP)

enum { C_FREE, C_RESOLVING, C_CONNECTING, C_TLS, C_IDLE, C_SEND, C_RECV };

/* The event index of the names' eventfd: no connection's. */
#define NAMES_EVENT UINT32_MAX

typedef struct conn {
    int fd;
    SSL *ssl;
    int state;
    uint32_t events;        /* as registered; 0: not in the set */
    unsigned served;        /* responses completed on it */
    int addr;               /* addresses tried so far (from w->names.good on) */
    uint64_t opened_ms;     /* when its connecting began */
    uint64_t addr_deadline; /* when the address being tried has had its share */
    uint64_t idle_ms;       /* when it last became idle */
    ddb_wire_xfer *x;
    size_t sent;
    /* the response being parsed */
    char *buf;
    size_t pos, len, cap;
    int got_any;
    wire_response rsp;
} conn;

struct ddb_wire {
    int epfd;
    uint64_t tag;
    wire_names names;
    int tls, host_is_ip;
    SSL_CTX *ctx;
    BIO_METHOD *bio;
    long connect_timeout_ms;
    conn *c;
    int n;
    ddb_wire_xfer *done_head, *done_tail;
    uint64_t connections, resent;
};

/* x is done, with r and the message fmt makes: onto the done list that
 * ddb_wire_next_done empties. */
void ddb_wire_finish(ddb_wire *w, ddb_wire_xfer *x, ddb_wire_result r, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Registers connection k's socket in the epoll set for ev (0: out of it). */
void ddb_wire_set_events(ddb_wire *w, int k, uint32_t ev);
/* Ready for a new response on cn. */
void ddb_wire_reset_parser(conn *cn);
/* Closes connection k (socket, TLS, buffer) and frees its slot; an exchange
 * on it is the caller's to finish. */
void ddb_wire_close_conn(ddb_wire *w, int k);
/* Connection k broke (reason says how) with an exchange on it: sent again
 * on a fresh connection when a kept one had closed before answering, else
 * the exchange fails. */
void ddb_wire_broken(ddb_wire *w, int k, const char *reason);
/* After an SSL call on k returned r <= 0: 1 when it waits for the socket
 * (the events set), 0 when the peer closed, -1 when it broke (handed to
 * ddb_wire_broken). */
int ddb_wire_tls_outcome(ddb_wire *w, int k, int r);
/* Sends what is left of k's request as the socket takes it, then waits for
 * the answer. */
void ddb_wire_do_send(ddb_wire *w, int k);

/* ------------------------------------------ opening them (wire_connect.c) */

/* Opens slot k for x: the host's addresses (or, while a thread looks them
 * up, C_RESOLVING until ddb_wire_names_event), then a connection, TLS and
 * the request. x fails when the host does not resolve or nothing connects. */
void ddb_wire_open_conn(ddb_wire *w, int k, ddb_wire_xfer *x);
/* Tries k's addresses not tried yet, each with its share of the connect
 * time; x fails when none connects. */
void ddb_wire_try_connect(ddb_wire *w, int k);
/* The names' eventfd fired: the connections waiting for the lookup connect,
 * or fail when it found nothing. */
void ddb_wire_names_event(ddb_wire *w);
/* Connection k's connect has an outcome (the socket is writable). */
void ddb_wire_connect_event(ddb_wire *w, int k);
/* Connection k's TLS handshake goes on (its socket is ready). */
void ddb_wire_do_handshake(ddb_wire *w, int k);

/* A client context that verifies the peer against ca_file (NULL: libcurl's
 * CA file and folder), and the socket BIO method that sends with
 * MSG_NOSIGNAL. Returns 0, DDB_ENOMEM or DDB_ENET; what was made is the
 * caller's to free either way. */
int ddb_wire_tls_setup(SSL_CTX **ctx, BIO_METHOD **bio, const char *ca_file, ddb_error *err);
/* The reason of the last TLS failure of ssl (may be NULL), in out. */
const char *ddb_wire_tls_reason(const SSL *ssl, char *out, size_t cap);

#endif
