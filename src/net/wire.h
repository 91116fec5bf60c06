/*
 * wire.h (private header of net/) — HTTP/1.1 exchanges with one origin (scheme, host,
 * port) over keep-alive connections of our own: plain TCP, or TLS through
 * OpenSSL with the peer verified. The client's DynamoDB calls go this way;
 * libcurl's path costs about twice the CPU per request (its own work, two
 * poll calls and epoll changes per request), which an import of small
 * batches pays for every 25 items.
 *
 * The engine never waits: the client's epoll set holds its sockets (the
 * event's data is tag | connection index), and the client hands it the
 * events, the time, and takes the finished exchanges.
 */
#ifndef DDBPIPE_WIRE_H
#define DDBPIPE_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "ddbpipe/error.h"

/* How an exchange ended. */
typedef enum ddb_wire_result {
    DDB_WIRE_OK = 0,  /* a whole response (any status) */
    DDB_WIRE_RESOLVE, /* the host name did not resolve */
    DDB_WIRE_CONNECT, /* no address accepted a connection */
    DDB_WIRE_TIMEOUT, /* connect or request time ran out */
    DDB_WIRE_FAILED,  /* dropped, reset, TLS or protocol failure */
    DDB_WIRE_NOMEM,
} ddb_wire_result;

typedef struct ddb_wire ddb_wire;

/* One request and what became of it. The caller owns it and its buffers
 * until it comes back from ddb_wire_next_done (or is cancelled). */
typedef struct ddb_wire_xfer {
    /* set by the caller */
    const char *head; /* request line and header lines, ending "\r\n\r\n" */
    size_t head_len;
    const char *body;
    size_t body_len;
    long timeout_ms; /* the whole exchange, connecting included */
    /* each header line of the response, its CRLF included: the status line
     * first, the blank line last; a 1xx response's lines too */
    int (*on_header)(void *ud, const char *line, size_t len);
    int (*on_body)(void *ud, const char *data, size_t len); /* 0, or -1 to fail */
    void *ud;
    /* results */
    long status;
    ddb_wire_result result;
    char message[256];
    /* the engine's */
    struct ddb_wire_xfer *next_done;
    uint64_t deadline_ms;
    int conn;   /* index, or -1 */
    int resent; /* sent again once on a fresh connection */
} ddb_wire_xfer;

/* An engine for url's origin ("http://host[:port]..." or "https://..."),
 * its sockets in epfd with events' data tag | index (tag's low 32 bits
 * zero). ca_file: a PEM bundle to trust instead of the system's (NULL: the
 * same CA file and folder as libcurl's). Returns 0, DDB_EUSAGE (not such a
 * URL), DDB_ENOMEM or DDB_ENET (TLS could not be set up). */
int ddb_wire_new(ddb_wire **out, const char *url, int epfd, uint64_t tag, long connect_timeout_ms,
                 const char *ca_file, ddb_error *err);
/* Closes every connection; exchanges still in it are dropped unanswered. */
void ddb_wire_free(ddb_wire *w);

/* Starts x on an idle connection (sent at once when the socket takes it) or
 * a new one. A failure to start is an exchange that ends at once: x comes
 * back from ddb_wire_next_done like any other. */
void ddb_wire_start(ddb_wire *w, ddb_wire_xfer *x);
/* Abandons x, in flight: its connection is closed, x is not handed back. */
void ddb_wire_cancel(ddb_wire *w, ddb_wire_xfer *x);
/* What epoll said of the connection at index (the data's low 32 bits). */
void ddb_wire_event(ddb_wire *w, uint32_t index, uint32_t events);
/* Ends the exchanges whose time ran out by now. Returns the ms until the
 * next deadline after that, or -1 when none is set. */
long ddb_wire_expire(ddb_wire *w, uint64_t now_ms);
/* The next finished exchange, or NULL. */
ddb_wire_xfer *ddb_wire_next_done(ddb_wire *w);

/* How long the host's addresses are kept before they are looked up again
 * (60 s, as libcurl's DNS cache; tests shorten it). */
void ddb_wire_set_resolve_ttl(ddb_wire *w, long ms);

/* Counters for tests and the benchmark: connections opened, and exchanges
 * sent again on a fresh connection after a kept one turned out closed. */
void ddb_wire_counts(const ddb_wire *w, uint64_t *connections, uint64_t *resent);

#endif
