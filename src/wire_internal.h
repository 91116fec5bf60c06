/*
 * wire_internal.h (internal) — the pieces of the own HTTP path (wire.c):
 * the response parser (wire_parse.c), the host's addresses (wire_names.c)
 * and TLS's setup (wire_tls.c).
 */
#ifndef DDBPIPE_WIRE_INTERNAL_H
#define DDBPIPE_WIRE_INTERNAL_H

#include <netdb.h>
#include <openssl/ssl.h>
#include <pthread.h>
#include <stdint.h>

#include "wire.h"

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

/* A client context that verifies the peer against ca_file (NULL: libcurl's
 * CA file and folder), and the socket BIO method that sends with
 * MSG_NOSIGNAL. Returns 0, DDB_ENOMEM or DDB_ENET; what was made is the
 * caller's to free either way. */
int ddb_wire_tls_setup(SSL_CTX **ctx, BIO_METHOD **bio, const char *ca_file, ddb_error *err);
/* The reason of the last TLS failure of ssl (may be NULL), in out. */
const char *ddb_wire_tls_reason(const SSL *ssl, char *out, size_t cap);

#endif
