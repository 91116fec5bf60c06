/*
 * ddbpipe-floor — the least CPU an importer can spend per BatchWriteItem
 * request on this machine: it sends prepared requests of a given size over
 * keep-alive HTTP/1.1 connections to ddbpipe-sink (bench/sink/sink.c) and reads the answers,
 * doing only what any SigV4 importer must do per request besides that: the
 * SHA-256 of the body (SigV4 signs it) and the CRC32 of the answer (the
 * x-amz-crc32 check). No input is read, parsed or encoded.
 *
 *   ddbpipe-floor [--curl] PORT REQUESTS BODY_BYTES CONNECTIONS
 *
 * With --curl the same requests go through libcurl's multi interface (as
 * ddbpipe's client sends them) instead of plain sockets: what the HTTP
 * library itself costs.
 *
 * Prints its CPU (user + system) per request and per item at 25 items a
 * request. bench/run.sh gives it the request count and mean body size that
 * ddbpipe's import sent, so the two rows compare like with like.
 */
#define _GNU_SOURCE /* memmem */
#include <arpa/inet.h>
#include <curl/curl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/evp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zlib.h>

#define MAX_CONN 64
#define ITEMS 25

typedef struct conn {
    int fd;
    char buf[65536];
    size_t len;
} conn;

static int send_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* The request: headers as a SigV4-signed BatchWriteItem carries them, then a
 * body of exactly body_len bytes holding ITEMS put requests. */
static char *make_request(int port, size_t body_len, size_t *len_out, size_t *body_at)
{
    static const char put[] = "{\"PutRequest\":{\"Item\":{\"pk\":{\"S\":\"";
    static const char put_end[] = "\"}}}}";
    char head[2048];
    size_t per, at = 0, hl;
    char *req, *body;

    hl = (size_t)snprintf(
        head, sizeof(head),
        "POST / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUser-Agent: ddbpipe-floor\r\n"
        "Accept: */*\r\nAccept-Encoding: deflate, gzip, br, zstd\r\n"
        "Content-Type: application/x-amz-json-1.0\r\n"
        "X-Amz-Target: DynamoDB_20120810.BatchWriteItem\r\n"
        "X-Amz-Date: 20261123T000000Z\r\n"
        "Authorization: AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20261123/us-east-1/"
        "dynamodb/aws4_request, SignedHeaders=content-type;host;x-amz-date;x-amz-target, "
        "Signature=%064d\r\nContent-Length: %zu\r\n\r\n",
        port, 0, body_len);
    if ((req = malloc(hl + body_len + 1)) == NULL)
        return NULL;
    memcpy(req, head, hl);
    body = req + hl;
    at += (size_t)sprintf(body, "{\"RequestItems\":{\"bench\":[");
    per = (body_len - at - 3) / ITEMS;
    for (int i = 0; i < ITEMS; i++) {
        size_t start = at, fill;
        at += (size_t)sprintf(body + at, "%s%s", i ? "," : "", put);
        fill = per - (at - start) - (sizeof(put_end) - 1);
        memset(body + at, 'x', fill);
        at += fill;
        memcpy(body + at, put_end, sizeof(put_end) - 1);
        at += sizeof(put_end) - 1;
    }
    memset(body + at, ' ', body_len - 3 - at); /* pad to the exact size */
    memcpy(body + body_len - 3, "]}}", 3);
    *len_out = hl + body_len;
    *body_at = hl;
    return req;
}

/* A whole answer at the front of c->buf: its length, else 0. */
static size_t answer_length(const conn *c)
{
    const char *end = memmem(c->buf, c->len, "\r\n\r\n", 4), *cl;
    size_t head, body;
    if (end == NULL)
        return 0;
    head = (size_t)(end - c->buf) + 4;
    cl = memmem(c->buf, head, "Content-Length: ", 16);
    if (cl == NULL)
        cl = memmem(c->buf, head, "content-length: ", 16);
    body = cl ? strtoul(cl + 16, NULL, 10) : 0;
    return c->len >= head + body ? head + body : 0;
}

/* The requests over plain sockets; 0, or 1 with a message. */
static int run_sockets(int port, long requests, int nconn, const char *req, size_t req_len,
                       size_t body_at, size_t body_len, const EVP_MD *sha256, unsigned long *sink)
{
    static conn conns[MAX_CONN];
    struct pollfd pf[MAX_CONN];
    unsigned char md[EVP_MAX_MD_SIZE];
    long sent = 0, done = 0;

    for (int i = 0; i < nconn; i++) {
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
        int one = 1;
        conns[i].fd = socket(AF_INET, SOCK_STREAM, 0);
        inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
        setsockopt(conns[i].fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        if (connect(conns[i].fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
            perror("ddbpipe-floor: connect");
            return 1;
        }
        pf[i].fd = conns[i].fd;
        pf[i].events = POLLIN;
    }
    for (int i = 0; i < nconn && sent < requests; i++, sent++) {
        unsigned int n = 0;
        EVP_Digest(req + body_at, body_len, md, &n, sha256, NULL); /* SigV4's payload hash */
        *sink += md[0];
        if (send_all(conns[i].fd, req, req_len) != 0)
            return 1;
    }
    while (done < requests) {
        if (poll(pf, (nfds_t)nconn, 10000) <= 0) {
            fprintf(stderr, "ddbpipe-floor: no answer\n");
            return 1;
        }
        for (int i = 0; i < nconn; i++) {
            conn *c = &conns[i];
            ssize_t r;
            size_t whole;
            if (!(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            r = recv(c->fd, c->buf + c->len, sizeof(c->buf) - c->len, 0);
            if (r <= 0) {
                fprintf(stderr, "ddbpipe-floor: connection closed\n");
                return 1;
            }
            c->len += (size_t)r;
            if ((whole = answer_length(c)) == 0)
                continue;
            *sink += crc32(0, (const unsigned char *)c->buf, (unsigned)whole); /* x-amz-crc32 */
            memmove(c->buf, c->buf + whole, c->len - whole);
            c->len -= whole;
            done++;
            if (sent < requests) {
                unsigned int n = 0;
                EVP_Digest(req + body_at, body_len, md, &n, sha256, NULL);
                *sink += md[0];
                if (send_all(c->fd, req, req_len) != 0)
                    return 1;
                sent++;
            }
        }
    }
    for (int i = 0; i < nconn; i++)
        close(conns[i].fd);
    return 0;
}

typedef struct answer {
    unsigned char buf[4096];
    size_t len;
} answer;

static size_t on_body(char *p, size_t size, size_t n, void *data)
{
    answer *a = data;
    size_t take = size * n < sizeof(a->buf) - a->len ? size * n : sizeof(a->buf) - a->len;
    memcpy(a->buf + a->len, p, take);
    a->len += take;
    return size * n;
}

/* One request on handle e, its body hashed first, as ddbpipe's client does. */
static void start_curl(CURLM *m, CURL *e, const char *url, struct curl_slist *h, const char *body,
                       size_t body_len, answer *a, const EVP_MD *sha256, unsigned long *sink)
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    EVP_Digest(body, body_len, md, &n, sha256, NULL);
    *sink += md[0];
    a->len = 0;
    curl_easy_reset(e);
    curl_easy_setopt(e, CURLOPT_URL, url);
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(e, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body_len);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, a);
    curl_easy_setopt(e, CURLOPT_PRIVATE, a);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_multi_add_handle(m, e);
}

/* The requests through libcurl's multi interface; 0, or 1 with a message. */
static int run_curl(int port, long requests, int nconn, const char *body, size_t body_len,
                    const EVP_MD *sha256, unsigned long *sink)
{
    static answer answers[MAX_CONN];
    CURL *easy[MAX_CONN];
    CURLM *m = curl_multi_init();
    struct curl_slist *h = NULL;
    long sent = 0, done = 0;
    char url[64];

    snprintf(url, sizeof(url), "http://127.0.0.1:%d/", port);
    h = curl_slist_append(h, "Content-Type: application/x-amz-json-1.0");
    h = curl_slist_append(h, "X-Amz-Target: DynamoDB_20120810.BatchWriteItem");
    h = curl_slist_append(h, "X-Amz-Date: 20261123T000000Z");
    h = curl_slist_append(h, "Authorization: AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/"
                             "20261123/us-east-1/dynamodb/aws4_request, SignedHeaders=content-type;"
                             "host;x-amz-date;x-amz-target, Signature=0000000000000000000000000000"
                             "000000000000000000000000000000000000");
    h = curl_slist_append(h, "Expect:");
    for (int i = 0; i < nconn && sent < requests; i++, sent++) {
        easy[i] = curl_easy_init();
        start_curl(m, easy[i], url, h, body, body_len, &answers[i], sha256, sink);
    }
    while (done < requests) {
        CURLMsg *msg;
        int running, left;
        curl_multi_perform(m, &running);
        while ((msg = curl_multi_info_read(m, &left)) != NULL) {
            answer *a = NULL;
            if (msg->msg != CURLMSG_DONE)
                continue;
            if (msg->data.result != CURLE_OK) {
                fprintf(stderr, "ddbpipe-floor: %s\n", curl_easy_strerror(msg->data.result));
                return 1;
            }
            curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&a);
            *sink += crc32(0, a->buf, (unsigned)a->len); /* x-amz-crc32 */
            curl_multi_remove_handle(m, msg->easy_handle);
            done++;
            if (sent < requests) {
                start_curl(m, msg->easy_handle, url, h, body, body_len, a, sha256, sink);
                sent++;
            }
        }
        if (done < requests && curl_multi_poll(m, NULL, 0, 10000, NULL) != CURLM_OK)
            return 1;
    }
    for (int i = 0; i < nconn && i < requests; i++)
        curl_easy_cleanup(easy[i]);
    curl_multi_cleanup(m);
    curl_slist_free_all(h);
    return 0;
}

int main(int argc, char **argv)
{
    unsigned long sink = 0;
    long requests;
    size_t body_len, req_len, body_at;
    int port, nconn, use_curl = argc > 1 && strcmp(argv[1], "--curl") == 0, rc;
    struct rusage ru;
    double cpu;
    EVP_MD *sha256;
    char *req;

    argv += use_curl;
    argc -= use_curl;
    if (argc != 5) {
        fprintf(stderr, "usage: ddbpipe-floor [--curl] PORT REQUESTS BODY_BYTES CONNECTIONS\n");
        return 2;
    }
    port = atoi(argv[1]);
    requests = atol(argv[2]);
    body_len = strtoul(argv[3], NULL, 10);
    nconn = atoi(argv[4]);
    if (port <= 0 || requests <= 0 || body_len < 2048 || nconn <= 0 || nconn > MAX_CONN) {
        fprintf(stderr, "ddbpipe-floor: bad arguments\n");
        return 2;
    }
    if ((req = make_request(port, body_len, &req_len, &body_at)) == NULL ||
        (sha256 = EVP_MD_fetch(NULL, "SHA256", NULL)) == NULL) /* once, as ddbpipe does */
        return 1;
    if (use_curl) {
        curl_global_init(CURL_GLOBAL_DEFAULT);
        rc = run_curl(port, requests, nconn, req + body_at, body_len, sha256, &sink);
    } else {
        rc = run_sockets(port, requests, nconn, req, req_len, body_at, body_len, sha256, &sink);
    }
    if (rc != 0)
        return rc;
    getrusage(RUSAGE_SELF, &ru);
    cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
          (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
    printf("%s: %ld requests of %zu body bytes over %d connections: %.3f s of CPU, %.1f us a "
           "request, %.2f us an item (%d a request) [%lu]\n",
           use_curl ? "libcurl" : "sockets", requests, body_len, nconn, cpu,
           cpu * 1e6 / (double)requests, cpu * 1e6 / (double)requests / ITEMS, ITEMS, sink & 1);
    EVP_MD_free(sha256);
    free(req);
    return 0;
}
