/*
 * A scripted HTTP server on loopback for the client's tests (test_transport.c,
 * test_gzip.c): a thread that reads each request whole and answers it as the
 * test says (in pieces, chunked, not at all, closing), over TCP or TLS with
 * the certificate in tests/client/tls/.
 */
#ifndef DDB_TEST_SCRIPTED_H
#define DDB_TEST_SCRIPTED_H

#include <openssl/ssl.h>
#include <pthread.h>
#include <stddef.h>

#include "ddbpipe/buf.h"
#include "ddbpipe/client.h"

#define TLS_DIR DDB_SOURCE_DIR "/tests/client/tls/"

typedef struct step {
    const char *answer; /* sent once the request is in; NULL: close without a word */
    size_t piece;       /* bytes per send, a millisecond apart (0: all at once) */
    int close_after;    /* close the connection after the answer */
    int silent;         /* answer nothing and keep the connection open */
    int early;          /* answer once the head is in, read nothing more, close 0.5 s later */
    size_t len;         /* the answer's bytes (0: up to its NUL; binary answers give it) */
} step;

typedef struct server {
    int lfd, port, tls; /* tls: 1 the certificate for 127.0.0.1, 2 one for other.example */
    SSL_CTX *ctx;
    const step *steps;
    int n_steps;
    pthread_t th;
    int requests, connections;
    ddb_buf last; /* the last request, as it came */
} server;

/* Listens on a free loopback port (s->port) and serves the n steps in
 * order, one per request, on a thread of its own. tls: 0 plain, 1 the
 * certificate for 127.0.0.1, 2 one for other.example. */
void server_start(server *s, const step *steps, int n, int tls);

/* Stops the thread and frees what the server holds. */
void server_stop(server *s);

/* Client options for url (a scripted server's), signing with creds (kept
 * by the caller), at most attempts tries, a backoff of a few milliseconds
 * and a fixed seed; everything else zero (the defaults). */
void scripted_opts(ddb_client_opts *o, const char *url, const ddb_aws_credentials *creds,
                   int attempts);

#endif
