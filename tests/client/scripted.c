/*
 * The scripted loopback server of scripted.h.
 */
#include <criterion/criterion.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "scripted.h"

static size_t answer_len(const step *st)
{
    return st->len ? st->len : strlen(st->answer);
}

static ssize_t srv_read(SSL *ssl, int fd, char *p, size_t n)
{
    return ssl ? SSL_read(ssl, p, (int)n) : read(fd, p, n);
}

static void srv_write(SSL *ssl, int fd, const char *p, size_t n)
{
    if (ssl)
        SSL_write(ssl, p, (int)n);
    else if (write(fd, p, n) < 0)
        return;
}

/* Reads one request whole, then copies it to s->last (before it is answered,
 * so the test reads it after its answer without a race). Returns 0, or -1 at
 * the end. */
static int read_request(server *s, SSL *ssl, int fd)
{
    char buf[4096];
    size_t need = 0;
    ddb_buf cur = DDB_BUF_INIT;
    for (;;) {
        const char *end = cur.ptr ? strstr(cur.ptr, "\r\n\r\n") : NULL;
        ssize_t r;
        if (end != NULL && need == 0) {
            const char *cl = strstr(cur.ptr, "Content-Length:");
            need = (size_t)(end - cur.ptr) + 4 + (cl ? strtoul(cl + 15, NULL, 10) : 0);
        }
        if (need > 0 && cur.len >= need)
            break;
        if ((r = srv_read(ssl, fd, buf, sizeof(buf))) <= 0) {
            ddb_buf_dispose(&cur);
            return -1;
        }
        ddb_buf_append(&cur, buf, (size_t)r);
    }
    ddb_buf_dispose(&s->last);
    s->last = cur;
    return 0;
}

static void *serve(void *arg)
{
    server *s = arg;
    for (;;) {
        int fd = accept(s->lfd, NULL, NULL);
        SSL *ssl = NULL;
        if (fd < 0)
            return NULL;
        s->connections++;
        if (s->tls) {
            ssl = SSL_new(s->ctx);
            SSL_set_fd(ssl, fd);
            if (SSL_accept(ssl) != 1) {
                SSL_free(ssl);
                close(fd);
                continue;
            }
        }
        if (s->requests < s->n_steps && s->steps[s->requests].early) {
            /* the head only: the body stays unread, so the client's send blocks */
            char c, tail[4] = {0};
            while (memcmp(tail, "\r\n\r\n", 4) != 0 && srv_read(ssl, fd, &c, 1) == 1) {
                memmove(tail, tail + 1, 3);
                tail[3] = c;
            }
            srv_write(ssl, fd, s->steps[s->requests].answer, answer_len(&s->steps[s->requests]));
            s->requests++;
            usleep(500000);
        } else
            while (read_request(s, ssl, fd) == 0 && s->requests < s->n_steps) {
                const step *st = &s->steps[s->requests++];
                if (st->silent) {
                    struct pollfd p = {.fd = fd, .events = POLLIN};
                    poll(&p, 1, 5000); /* until the client gives up */
                    break;
                }
                if (st->answer == NULL)
                    break;
                if (st->piece == 0) {
                    srv_write(ssl, fd, st->answer, answer_len(st));
                } else {
                    for (size_t i = 0, n = answer_len(st); i < n; i += st->piece) {
                        srv_write(ssl, fd, st->answer + i, n - i < st->piece ? n - i : st->piece);
                        usleep(1000);
                    }
                }
                if (st->close_after)
                    break;
            }
        if (ssl)
            SSL_free(ssl);
        close(fd);
    }
}

void server_start(server *s, const step *steps, int n, int tls)
{
    struct sockaddr_in a;
    socklen_t al = sizeof(a);
    memset(s, 0, sizeof(*s));
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    /* a client that hangs up (a refused certificate, after TLS 1.3's server
     * side has finished) must not end the test process at the next write */
    signal(SIGPIPE, SIG_IGN);
    s->steps = steps;
    s->n_steps = n;
    s->tls = tls;
    s->lfd = socket(AF_INET, SOCK_STREAM, 0);
    cr_assert(bind(s->lfd, (struct sockaddr *)&a, sizeof(a)) == 0);
    cr_assert(listen(s->lfd, 8) == 0);
    getsockname(s->lfd, (struct sockaddr *)&a, &al);
    s->port = ntohs(a.sin_port);
    if (tls) {
        s->ctx = SSL_CTX_new(TLS_server_method());
        const char *cert = tls == 1 ? TLS_DIR "cert.pem" : TLS_DIR "other-cert.pem";
        const char *key = tls == 1 ? TLS_DIR "key.pem" : TLS_DIR "other-key.pem";
        cr_assert(SSL_CTX_use_certificate_file(s->ctx, cert, SSL_FILETYPE_PEM) == 1);
        cr_assert(SSL_CTX_use_PrivateKey_file(s->ctx, key, SSL_FILETYPE_PEM) == 1);
    }
    pthread_create(&s->th, NULL, serve, s);
}

void server_stop(server *s)
{
    shutdown(s->lfd, SHUT_RDWR); /* wakes accept */
    pthread_join(s->th, NULL);
    close(s->lfd);
    SSL_CTX_free(s->ctx);
    ddb_buf_dispose(&s->last);
}

void scripted_opts(ddb_client_opts *o, const char *url, const ddb_aws_credentials *creds,
                   int attempts)
{
    memset(o, 0, sizeof(*o));
    o->region = "us-east-1";
    o->endpoint = url;
    o->credentials = creds;
    o->max_attempts = attempts;
    o->backoff_base_ms = 1;
    o->backoff_cap_ms = 2;
    o->random_seed = 1;
}
