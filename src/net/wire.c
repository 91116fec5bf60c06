/*
 * wire.c — HTTP/1.1 over keep-alive connections of our own (see wire.h).
 *
 * A connection is a slot: free, waiting for the host's addresses,
 * connecting, in its TLS handshake (those three in wire_connect.c), idle
 * (kept, watched for the server closing it), sending or receiving. The
 * request goes out in one sendmsg when the socket takes it; the response is
 * parsed as it arrives (Content-Length, chunked, or until the close) and
 * handed over line by line and body piece by piece. A request that finds a
 * kept connection closed before any byte of its answer came back is sent
 * once more on a fresh one, as libcurl does: servers close idle connections.
 */
#include "net/wire_internal.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <errno.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "ddbpipe/clock.h"

#define IDLE_MAX_MS 118000 /* libcurl's default for reusing an idle connection */
#define READ_ROOM 16384
/* ------------------------------------------------------------ helpers */

void ddb_wire_finish(ddb_wire *w, ddb_wire_xfer *x, ddb_wire_result r, const char *fmt, ...)
{
    x->result = r;
    x->conn = -1;
    if (fmt != NULL) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(x->message, sizeof(x->message), fmt, ap);
        va_end(ap);
    }
    x->next_done = NULL;
    if (w->done_tail)
        w->done_tail->next_done = x;
    else
        w->done_head = x;
    w->done_tail = x;
}

void ddb_wire_set_events(ddb_wire *w, int k, uint32_t ev)
{
    conn *cn = &w->c[k];
    struct epoll_event e;
    if (cn->events == ev)
        return;
    memset(&e, 0, sizeof(e));
    e.events = ev;
    e.data.u64 = w->tag | (uint32_t)k;
    if (ev == 0)
        epoll_ctl(w->epfd, EPOLL_CTL_DEL, cn->fd, &e);
    else
        epoll_ctl(w->epfd, cn->events ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, cn->fd, &e);
    cn->events = ev;
}

void ddb_wire_reset_parser(conn *cn)
{
    cn->pos = cn->len = 0;
    cn->got_any = 0;
    ddb_wire_response_reset(&cn->rsp);
}

void ddb_wire_close_conn(ddb_wire *w, int k)
{
    conn *cn = &w->c[k];
    if (cn->ssl)
        SSL_free(cn->ssl);
    cn->ssl = NULL;
    if (cn->fd >= 0) {
        ddb_wire_set_events(w, k, 0);
        close(cn->fd);
    }
    cn->fd = -1;
    cn->events = 0;
    cn->state = C_FREE;
    cn->served = 0;
    cn->x = NULL;
    free(cn->buf);
    cn->buf = NULL;
    cn->cap = 0;
    ddb_wire_reset_parser(cn);
}

static void do_recv(ddb_wire *w, int k);

/* After an SSL call on k returned r <= 0 (errno cleared before it): 1 when it
 * waits for the socket (the events set), 0 when the peer closed the
 * connection, -1 when it broke (handed to ddb_wire_broken()). */
int ddb_wire_tls_outcome(ddb_wire *w, int k, int r)
{
    conn *cn = &w->c[k];
    char why[200];
    switch (SSL_get_error(cn->ssl, r)) {
    case SSL_ERROR_WANT_READ:
        ddb_wire_set_events(w, k, WATCH_IN);
        return 1;
    case SSL_ERROR_WANT_WRITE:
        ddb_wire_set_events(w, k, EPOLLOUT);
        return 1;
    case SSL_ERROR_ZERO_RETURN:
        return 0;
    case SSL_ERROR_SYSCALL:
        if (errno == 0)
            return 0;
        ddb_wire_broken(w, k, strerror(errno));
        return -1;
    default:
        ddb_wire_broken(w, k, ddb_wire_tls_reason(cn->ssl, why, sizeof(why)));
        return -1;
    }
}

/* The connection broke while x was on it (reason says how): sent again on a
 * fresh connection when a kept one had closed before answering, else the
 * exchange fails. */
void ddb_wire_broken(ddb_wire *w, int k, const char *reason)
{
    conn *cn = &w->c[k];
    ddb_wire_xfer *x = cn->x;
    int stale = cn->served > 0 && !cn->got_any;
    char why[200];
    snprintf(why, sizeof(why), "%s", reason);
    cn->x = NULL;
    if (x != NULL)
        x->status = cn->rsp.status; /* a status line seen before the break */
    ddb_wire_close_conn(w, k);
    if (x == NULL)
        return;
    if (stale && !x->resent) {
        x->resent = 1;
        x->status = 0;
        w->resent++;
        ddb_wire_open_conn(w, k, x);
        return;
    }
    ddb_wire_finish(w, x, DDB_WIRE_FAILED, "%s", why);
}

/* ------------------------------------------------------------ sending */

static void sent_all(ddb_wire *w, int k)
{
    w->c[k].state = C_RECV;
    ddb_wire_set_events(w, k, WATCH_IN);
}

void ddb_wire_do_send(ddb_wire *w, int k)
{
    conn *cn = &w->c[k];
    ddb_wire_xfer *x = cn->x;
    size_t total = x->head_len + x->body_len;
    while (cn->sent < total) {
        int in_head = cn->sent < x->head_len;
        const char *p = in_head ? x->head + cn->sent : x->body + (cn->sent - x->head_len);
        size_t n = in_head ? x->head_len - cn->sent : total - cn->sent;
        if (cn->ssl == NULL) {
            struct iovec iov[2] = {{(void *)p, n}, {(void *)x->body, x->body_len}};
            struct msghdr m;
            ssize_t r;
            memset(&m, 0, sizeof(m));
            m.msg_iov = iov;
            m.msg_iovlen = in_head && x->body_len > 0 ? 2 : 1;
            r = sendmsg(cn->fd, &m, MSG_NOSIGNAL);
            if (r > 0) {
                cn->sent += (size_t)r;
                continue;
            }
            if (r < 0 && errno == EINTR)
                continue;
            if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
                /* and an answer that comes before the body is all out (413) */
                ddb_wire_set_events(w, k, EPOLLOUT | WATCH_IN);
                return;
            }
            ddb_wire_broken(w, k, strerror(r < 0 ? errno : EPIPE));
            return;
        } else {
            int r, rc;
            ERR_clear_error();
            errno = 0;
            r = SSL_write(cn->ssl, p, n > INT32_MAX ? INT32_MAX : (int)n);
            if (r > 0) {
                cn->sent += (size_t)r;
                continue;
            }
            if ((rc = ddb_wire_tls_outcome(w, k, r)) == 0)
                ddb_wire_broken(w, k, strerror(EPIPE));
            else if (rc == 1 && SSL_want_write(cn->ssl))
                /* an answer that comes before the body is all out is read
                 * while the write waits for room (OpenSSL allows it; the
                 * write goes on with the same bytes after) */
                ddb_wire_set_events(w, k, EPOLLOUT | WATCH_IN);
            return;
        }
    }
    sent_all(w, k);
}

/* ---------------------------------------------------------- receiving */

/* The response is whole: x goes back, and the connection is kept or closed. */
static void complete(ddb_wire *w, int k)
{
    conn *cn = &w->c[k];
    ddb_wire_xfer *x = cn->x;
    int keep = !cn->rsp.close_after && cn->pos == cn->len &&
               (!cn->rsp.http10 || cn->rsp.keep_alive) &&
               cn->sent == x->head_len + x->body_len; /* an early answer: the rest unsent */
    x->status = cn->rsp.status;
    cn->x = NULL;
    cn->served++;
    if (keep) {
        cn->state = C_IDLE;
        cn->idle_ms = ddb_clock_ms();
        ddb_wire_reset_parser(cn);
        ddb_wire_set_events(w, k, WATCH_IN);
    } else {
        ddb_wire_close_conn(w, k);
    }
    ddb_wire_finish(w, x, DDB_WIRE_OK, NULL);
}

static void do_recv(ddb_wire *w, int k)
{
    conn *cn = &w->c[k];
    ddb_wire_xfer *x = cn->x;
    const char *why = NULL;
    char reason[200];
    for (;;) {
        ssize_t r;
        int rc;
        if (cn->pos == cn->len) {
            cn->pos = cn->len = 0;
        } else if (cn->pos > 0 && cn->cap - cn->len < READ_ROOM / 2) {
            memmove(cn->buf, cn->buf + cn->pos, cn->len - cn->pos);
            cn->len -= cn->pos;
            cn->pos = 0;
        }
        if (cn->cap - cn->len < READ_ROOM / 2) {
            size_t ncap = cn->cap ? cn->cap * 2 : READ_ROOM;
            char *nb = realloc(cn->buf, ncap);
            if (nb == NULL) {
                cn->x = NULL;
                ddb_wire_close_conn(w, k);
                ddb_wire_finish(w, x, DDB_WIRE_NOMEM, "out of memory");
                return;
            }
            cn->buf = nb;
            cn->cap = ncap;
        }
        if (cn->ssl == NULL) {
            r = recv(cn->fd, cn->buf + cn->len, cn->cap - cn->len, 0);
            if (r < 0 && errno == EINTR)
                continue;
            if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
                return;
            if (r < 0) {
                ddb_wire_broken(w, k, strerror(errno));
                return;
            }
        } else {
            int n;
            ERR_clear_error();
            errno = 0;
            n = SSL_read(cn->ssl, cn->buf + cn->len, (int)(cn->cap - cn->len));
            r = n;
            if (n <= 0) {
                if (ddb_wire_tls_outcome(w, k, n) != 0)
                    return;
                r = 0; /* the end of the stream */
            }
        }
        if (r == 0) {
            if (cn->rsp.phase == P_EOF) {
                cn->rsp.close_after = 1;
                complete(w, k);
            } else if (!cn->got_any) {
                ddb_wire_broken(w, k, "Empty reply from server");
            } else {
                snprintf(reason, sizeof(reason),
                         "transfer closed with the response incomplete (%llu bytes of the body "
                         "missing)",
                         (unsigned long long)cn->rsp.left);
                ddb_wire_broken(w, k, reason);
            }
            return;
        }
        cn->got_any = 1;
        cn->len += (size_t)r;
        rc = ddb_wire_response_parse(&cn->rsp, x, cn->buf, &cn->pos, cn->len, &why);
        if (rc == 1) {
            complete(w, k);
            return;
        }
        if (rc < 0) {
            x->status = cn->rsp.status;
            cn->x = NULL;
            ddb_wire_close_conn(w, k);
            if (rc == -2)
                ddb_wire_finish(w, x, DDB_WIRE_NOMEM, "out of memory");
            else
                ddb_wire_finish(w, x, DDB_WIRE_FAILED, "%s", why);
            return;
        }
        /* A read that left room had all there was: epoll tells of more,
         * unless TLS holds decrypted bytes back. */
        if (cn->len < cn->cap && (cn->ssl == NULL || SSL_pending(cn->ssl) == 0))
            return;
    }
}

/* ------------------------------------------------------------- public */

int ddb_wire_new(ddb_wire **out, const char *url, int epfd, uint64_t tag, long connect_timeout_ms,
                 const char *ca_file, ddb_error *err)
{
    ddb_wire *w = NULL;
    CURLU *u = curl_url();
    char *scheme = NULL, *host = NULL, *port = NULL;
    int rc = 0;
    *out = NULL;
    if (u == NULL || (w = calloc(1, sizeof(*w))) == NULL) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto done;
    }
    ddb_wire_names_init(&w->names); /* first: freeing disposes of it */
    if (curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK ||
        curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
        curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK ||
        curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) != CURLUE_OK ||
        (strcmp(scheme, "https") != 0 && strcmp(scheme, "http") != 0) || strlen(port) >= 8) {
        rc = ddb_error_set(err, DDB_EUSAGE, "\"%s\" is not an http:// or https:// URL", url);
        goto done;
    }
    w->epfd = epfd;
    w->tag = tag;
    w->tls = strcmp(scheme, "https") == 0;
    w->connect_timeout_ms = connect_timeout_ms;
    snprintf(w->names.port, sizeof(w->names.port), "%s", port);
    if (host[0] == '[') {
        w->names.host = strndup(host + 1, strlen(host) - 2);
        w->host_is_ip = 1;
    } else {
        struct in_addr a4;
        w->names.host = strdup(host);
        w->host_is_ip = inet_pton(AF_INET, host, &a4) == 1;
    }
    if (w->names.host == NULL) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto done;
    }
    w->names.numeric = w->host_is_ip;
    if (epfd >= 0 && !w->host_is_ip) {
        /* the lookup thread's wake-up for the loop; without it the first
         * lookup waits, as it did before */
        struct epoll_event ev;
        int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
        memset(&ev, 0, sizeof(ev));
        ev.events = EPOLLIN;
        ev.data.u64 = tag | NAMES_EVENT;
        if (fd >= 0 && epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) == 0)
            w->names.notify = fd;
        else if (fd >= 0)
            close(fd);
    }
    if (w->tls && (rc = ddb_wire_tls_setup(&w->ctx, &w->bio, ca_file, err)) != 0)
        goto done;
    *out = w;
    w = NULL;
done:
    curl_free(scheme);
    curl_free(host);
    curl_free(port);
    curl_url_cleanup(u);
    ddb_wire_free(w);
    return rc;
}

void ddb_wire_free(ddb_wire *w)
{
    int notify;
    if (w == NULL)
        return;
    notify = w->names.notify;
    for (int k = 0; k < w->n; k++)
        ddb_wire_close_conn(w, k);
    free(w->c);
    ddb_wire_names_dispose(&w->names); /* joins a lookup still running: then its eventfd goes */
    if (notify >= 0) {
        epoll_ctl(w->epfd, EPOLL_CTL_DEL, notify, NULL);
        close(notify);
    }
    SSL_CTX_free(w->ctx);
    BIO_meth_free(w->bio);
    free(w);
}

void ddb_wire_start(ddb_wire *w, ddb_wire_xfer *x)
{
    int k, free_slot = -1;
    uint64_t now = ddb_clock_ms();
    x->conn = -1;
    x->status = 0;
    x->resent = 0;
    x->message[0] = '\0';
    x->deadline_ms = now + (uint64_t)(x->timeout_ms > 0 ? x->timeout_ms : 60000);
    for (k = 0; k < w->n; k++) {
        if (w->c[k].state == C_IDLE && now - w->c[k].idle_ms > IDLE_MAX_MS)
            ddb_wire_close_conn(w, k); /* idle too long: a firewall may have dropped it unseen */
        if (w->c[k].state == C_IDLE)
            break;
        if (free_slot < 0 && w->c[k].state == C_FREE)
            free_slot = k;
    }
    if (k < w->n) {
        conn *cn = &w->c[k];
        ddb_wire_reset_parser(cn);
        cn->x = x;
        cn->sent = 0;
        cn->state = C_SEND;
        x->conn = k;
        ddb_wire_do_send(w, k);
        return;
    }
    if (free_slot < 0) {
        int ncap = w->n ? w->n * 2 : 16;
        conn *nc = realloc(w->c, (size_t)ncap * sizeof(*nc));
        if (nc == NULL) {
            ddb_wire_finish(w, x, DDB_WIRE_NOMEM, "out of memory");
            return;
        }
        memset(nc + w->n, 0, (size_t)(ncap - w->n) * sizeof(*nc));
        for (int i = w->n; i < ncap; i++)
            nc[i].fd = -1;
        free_slot = w->n;
        w->c = nc;
        w->n = ncap;
    }
    ddb_wire_open_conn(w, free_slot, x);
}

void ddb_wire_cancel(ddb_wire *w, ddb_wire_xfer *x)
{
    ddb_wire_xfer **p;
    if (x->conn >= 0 && x->conn < w->n && w->c[x->conn].x == x) {
        w->c[x->conn].x = NULL;
        ddb_wire_close_conn(w, x->conn);
    }
    x->conn = -1;
    for (p = &w->done_head; *p; p = &(*p)->next_done) {
        if (*p == x) {
            *p = x->next_done;
            break;
        }
    }
    w->done_tail = NULL;
    for (ddb_wire_xfer *d = w->done_head; d; d = d->next_done)
        w->done_tail = d;
}

void ddb_wire_event(ddb_wire *w, uint32_t k, uint32_t events)
{
    conn *cn;
    if (k == NAMES_EVENT) {
        ddb_wire_names_event(w);
        return;
    }
    if (k >= (uint32_t)w->n)
        return;
    cn = &w->c[k];
    switch (cn->state) {
    case C_CONNECTING:
        ddb_wire_connect_event(w, (int)k);
        break;
    case C_TLS:
        ddb_wire_do_handshake(w, (int)k);
        break;
    case C_IDLE:
        ddb_wire_close_conn(w, (int)k); /* the server closed it, or spoke out of turn */
        break;
    case C_SEND:
        /* an answer before the body is all out (a 413, an error and a close)
         * is read, then the sending goes on if it may */
        if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))
            do_recv(w, (int)k);
        if (cn->state == C_SEND && cn->x != NULL)
            ddb_wire_do_send(w, (int)k);
        break;
    case C_RECV:
        do_recv(w, (int)k);
        break;
    default:
        break;
    }
}

long ddb_wire_expire(ddb_wire *w, uint64_t now)
{
    uint64_t next = UINT64_MAX;
    for (int k = 0; k < w->n; k++) {
        conn *cn = &w->c[k];
        ddb_wire_xfer *x = cn->x;
        uint64_t at, conn_at;
        if (x == NULL)
            continue;
        /* the connect time covers the TLS handshake, as libcurl's does */
        conn_at = cn->state == C_CONNECTING ? cn->addr_deadline
                  : cn->state == C_TLS || cn->state == C_RESOLVING
                      ? cn->opened_ms + (uint64_t)w->connect_timeout_ms
                      : UINT64_MAX;
        at = x->deadline_ms < conn_at ? x->deadline_ms : conn_at;
        if (now < at) {
            if (at < next)
                next = at;
            continue;
        }
        if (at == conn_at && cn->state == C_CONNECTING && cn->addr < w->names.n_ai &&
            now < x->deadline_ms) {
            /* this address had its share of the time: the next one */
            ddb_wire_set_events(w, k, 0);
            close(cn->fd);
            cn->fd = -1;
            ddb_wire_try_connect(w, k);
            k--; /* its new deadline, or its end, is looked at again */
            continue;
        }
        cn->x = NULL;
        if (cn->state == C_RESOLVING && at == conn_at) {
            ddb_wire_close_conn(w, k);
            ddb_wire_finish(w, x, DDB_WIRE_TIMEOUT, "Resolving timed out after %ld milliseconds",
                            w->connect_timeout_ms);
            continue;
        }
        ddb_wire_close_conn(w, k);
        if (at == conn_at)
            ddb_wire_finish(w, x, DDB_WIRE_TIMEOUT, "Connection timed out after %ld milliseconds",
                            w->connect_timeout_ms);
        else
            ddb_wire_finish(w, x, DDB_WIRE_TIMEOUT, "Operation timed out after %ld milliseconds",
                            x->timeout_ms);
    }
    return next == UINT64_MAX ? -1 : (long)(next - now);
}

ddb_wire_xfer *ddb_wire_next_done(ddb_wire *w)
{
    ddb_wire_xfer *x = w->done_head;
    if (x != NULL) {
        w->done_head = x->next_done;
        if (w->done_head == NULL)
            w->done_tail = NULL;
        x->next_done = NULL;
    }
    return x;
}

void ddb_wire_counts(const ddb_wire *w, uint64_t *connections, uint64_t *resent)
{
    *connections = w->connections;
    *resent = w->resent;
}

void ddb_wire_set_resolve_ttl(ddb_wire *w, long ms)
{
    w->names.ttl_ms = ms;
}
