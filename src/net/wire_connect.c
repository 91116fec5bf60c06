/*
 * wire_connect.c — opening the own HTTP path's connections (wire.c): the
 * host's addresses (waiting in C_RESOLVING while a thread looks them up),
 * each address tried with its share of the connect time, then TLS's
 * handshake, then the request.
 */
#include "net/wire_internal.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ddbpipe/clock.h"

#define KEEPALIVE_S 60 /* TCP keepalive idle and interval, as libcurl's */

void ddb_wire_do_handshake(ddb_wire *w, int k)
{
    conn *cn = &w->c[k];
    int r;
    ERR_clear_error();
    errno = 0;
    r = SSL_connect(cn->ssl);
    if (r == 1) {
        cn->state = C_SEND;
        ddb_wire_do_send(w, k);
    } else if (ddb_wire_tls_outcome(w, k, r) == 0) {
        ddb_wire_broken(w, k, "the server closed the connection in the TLS handshake");
    }
}

static int start_tls(ddb_wire *w, int k)
{
    conn *cn = &w->c[k];
    BIO *b = BIO_new(w->bio);
    if (b == NULL || (cn->ssl = SSL_new(w->ctx)) == NULL) {
        BIO_free(b);
        return -1;
    }
    BIO_set_data(b, (void *)(intptr_t)cn->fd);
    SSL_set_bio(cn->ssl, b, b);
    SSL_set_mode(cn->ssl, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    if (w->host_is_ip) {
        if (X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(cn->ssl), w->names.host) != 1)
            return -1;
    } else if (SSL_set_tlsext_host_name(cn->ssl, w->names.host) != 1 ||
               SSL_set1_host(cn->ssl, w->names.host) != 1) {
        return -1;
    }
    cn->state = C_TLS;
    return 0;
}

/* --------------------------------------------------------- connecting */

static void connected(ddb_wire *w, int k)
{
    conn *cn = &w->c[k];
    w->connections++;
    w->names.good = (w->names.good + cn->addr - 1) % w->names.n_ai;
    if (w->tls) {
        if (start_tls(w, k) != 0) {
            char why[200];
            ddb_wire_broken(w, k, ddb_wire_tls_reason(cn->ssl, why, sizeof(why)));
            return;
        }
        ddb_wire_do_handshake(w, k);
        return;
    }
    cn->state = C_SEND;
    ddb_wire_do_send(w, k);
}

/* Tries the addresses not tried yet (the one that connected last first, then
 * the others in the resolver's order) until one connects or is connecting.
 * Each address gets its share of the connect time left, so one that drops
 * packets (a broken IPv6 route) leaves time for the next. */
void ddb_wire_try_connect(ddb_wire *w, int k)
{
    conn *cn = &w->c[k];
    int last = ECONNREFUSED, one = 1, idle = KEEPALIVE_S;
    while (cn->addr < w->names.n_ai) {
        struct addrinfo *ai = w->names.ai;
        uint64_t now = ddb_clock_ms(), end = cn->opened_ms + (uint64_t)w->connect_timeout_ms;
        for (int i = (w->names.good + cn->addr) % w->names.n_ai; i > 0; i--)
            ai = ai->ai_next;
        cn->addr++;
        cn->addr_deadline =
            now >= end ? now : now + (end - now) / (uint64_t)(w->names.n_ai - cn->addr + 1);
        cn->fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (cn->fd < 0) {
            last = errno;
            continue;
        }
        setsockopt(cn->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        setsockopt(cn->fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
        setsockopt(cn->fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
        setsockopt(cn->fd, IPPROTO_TCP, TCP_KEEPINTVL, &idle, sizeof(idle));
        if (connect(cn->fd, ai->ai_addr, ai->ai_addrlen) == 0) {
            connected(w, k);
            return;
        }
        if (errno == EINPROGRESS) {
            cn->state = C_CONNECTING;
            ddb_wire_set_events(w, k, EPOLLOUT);
            return;
        }
        last = errno;
        close(cn->fd);
        cn->fd = -1;
    }
    {
        ddb_wire_xfer *x = cn->x;
        cn->x = NULL;
        ddb_wire_close_conn(w, k);
        ddb_wire_finish(w, x, DDB_WIRE_CONNECT, "Failed to connect to %s port %s after %llu ms: %s",
                        w->names.host, w->names.port,
                        (unsigned long long)(ddb_clock_ms() - cn->opened_ms), strerror(last));
    }
}

void ddb_wire_open_conn(ddb_wire *w, int k, ddb_wire_xfer *x)
{
    conn *cn = &w->c[k];
    ddb_wire_reset_parser(cn);
    cn->x = x;
    x->conn = k;
    cn->sent = 0;
    cn->served = 0;
    cn->addr = 0;
    cn->opened_ms = ddb_clock_ms();
    switch (ddb_wire_names_resolve(&w->names)) {
    case 0:
        ddb_wire_try_connect(w, k);
        break;
    case 1:
        cn->state = C_RESOLVING; /* names_event goes on when the lookup ends */
        break;
    default:
        cn->x = NULL;
        ddb_wire_finish(w, x, DDB_WIRE_RESOLVE, "Could not resolve host: %s", w->names.host);
        break;
    }
}

/* A lookup thread has ended: the connections that waited for it connect, or
 * fail when it found nothing. */
void ddb_wire_names_event(ddb_wire *w)
{
    uint64_t n;
    if (read(w->names.notify, &n, sizeof(n)) < 0) {
        /* nothing to read: another event took it */
    }
    ddb_wire_names_settle(&w->names);
    if (w->names.looking)
        return;
    for (int k = 0; k < w->n; k++) {
        conn *cn = &w->c[k];
        ddb_wire_xfer *x = cn->x;
        if (cn->state != C_RESOLVING || x == NULL)
            continue;
        if (w->names.ai != NULL) {
            cn->state = C_FREE;
            ddb_wire_try_connect(w, k);
        } else {
            cn->x = NULL;
            ddb_wire_close_conn(w, k);
            ddb_wire_finish(w, x, DDB_WIRE_RESOLVE, "Could not resolve host: %s", w->names.host);
        }
    }
}

void ddb_wire_connect_event(ddb_wire *w, int k)
{
    conn *cn = &w->c[k];
    int e = 0;
    socklen_t el = sizeof(e);
    if (getsockopt(cn->fd, SOL_SOCKET, SO_ERROR, &e, &el) != 0)
        e = errno;
    if (e == 0) {
        connected(w, k);
        return;
    }
    ddb_wire_set_events(w, k, 0);
    close(cn->fd);
    cn->fd = -1;
    ddb_wire_try_connect(w, k);
}
