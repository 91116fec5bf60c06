/*
 * ddbpipe-sink — a DynamoDB stand-in that answers at once, for measuring an
 * importer's own CPU. DescribeTable gives an ACTIVE table (pk S, sk S);
 * BatchWriteItem accepts every item ({"UnprocessedItems":{}} with
 * ConsumedCapacity); target Stats gives the items, BatchWriteItem requests and
 * body bytes it counted (and the items Scan served). Every 200 answer carries
 * x-amz-crc32, as DynamoDB's do, so the client's CRC check stays on.
 *
 *   ddbpipe-sink [--poll USEC] [--scan FILE] PORTFILE [TABLE]
 *
 * With --scan the table holds the items of FILE ({"Item":{...}} lines, plain
 * or gzip, read into memory at start), and Scan serves them: segment s of
 * TotalSegments t the items [s*n/t, (s+1)*n/t), in pages of at most 1 MB (or
 * Limit), each but the last with a LastEvaluatedKey whose sk is the index to
 * go on from. The pages are sent uncompressed (DynamoDB would gzip them: a
 * client's inflate is not in what it measures).
 *
 * With --poll the sink does not sleep until USEC microseconds have passed
 * without a request: it asks epoll without waiting, over and over. On
 * loopback the sender's sendmsg runs the receiver's TCP and, when the
 * receiver sleeps, wakes it (an inter-processor interrupt, dear in a virtual
 * machine): CPU the importer is charged for that DynamoDB across a network
 * would spend on its own machines. Polling takes that out of the importer's
 * figure, at the price of a core busy while requests come.
 *
 * Why in C, on one epoll thread: the Node sink it replaces spent about 130 us
 * of its own per request, so an importer faster than that waited on it, and
 * paid a sleep and a wake-up for nearly every answer. This one answers in a few
 * microseconds, as the benchmark's "answers every BatchWriteItem at once" asks.
 * Requests are read whole (Content-Length; a chunked body is refused with 411,
 * as no DynamoDB client here sends one) and may be pipelined.
 */
#define _GNU_SOURCE /* memmem, strncasecmp */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#define MAX_EVENTS 64
#define MAX_BODY (17u * 1024u * 1024u)

typedef struct conn {
    int fd;
    char *buf;
    size_t len, cap;
} conn;

static const char *table = "bench";
static unsigned long long items, requests, body_bytes, scanned;

/* The table Scan serves (--scan): items' typed JSON maps, one after another. */
static char *scan_text;
static size_t *scan_at, *scan_len, scan_n;
static char *page;
static size_t page_cap;

/* Sends all of p (the socket is non-blocking: waits for room when full). */
static uint64_t now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static int send_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && (errno == EAGAIN || errno == EINTR)) {
            struct pollfd pf = {fd, POLLOUT, 0};
            (void)poll(&pf, 1, 1000);
            continue;
        }
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static int answer(int fd, int status, const char *body, int with_crc)
{
    char head[512];
    size_t blen = strlen(body);
    int n;
    if (with_crc)
        n = snprintf(head, sizeof(head),
                     "HTTP/1.1 %d %s\r\nContent-Type: application/x-amz-json-1.0\r\n"
                     "x-amz-crc32: %lu\r\nContent-Length: %zu\r\nConnection: keep-alive\r\n\r\n",
                     status, status == 200 ? "OK" : "Bad Request",
                     crc32(0L, (const Bytef *)body, (uInt)blen), blen);
    else
        n = snprintf(head, sizeof(head),
                     "HTTP/1.1 %d %s\r\nContent-Type: application/x-amz-json-1.0\r\n"
                     "Content-Length: %zu\r\nConnection: keep-alive\r\n\r\n",
                     status, status == 200 ? "OK" : "Bad Request", blen);
    /* one send for head and body: the client reads the answer in one go */
    char out[4096];
    if ((size_t)n + blen <= sizeof(out)) {
        memcpy(out, head, (size_t)n);
        memcpy(out + n, body, blen);
        return send_all(fd, out, (size_t)n + blen);
    }
    return send_all(fd, head, (size_t)n) == 0 ? send_all(fd, body, blen) : -1;
}

static size_t count(const char *p, size_t n, const char *what)
{
    size_t k = 0, wl = strlen(what);
    const char *e = p + n, *q;
    while ((q = memmem(p, (size_t)(e - p), what, wl)) != NULL) {
        k++;
        p = q + wl;
    }
    return k;
}

/* The value of header name in head (the lines after the request line), or NULL; *vlen set. */
static const char *header(const char *head, size_t hlen, const char *name, size_t *vlen)
{
    size_t nl = strlen(name);
    const char *p = memchr(head, '\n', hlen), *e = head + hlen;
    while (p != NULL && ++p < e) {
        const char *eol = memchr(p, '\n', (size_t)(e - p));
        if (eol == NULL)
            eol = e;
        if ((size_t)(eol - p) > nl && p[nl] == ':' && strncasecmp(p, name, nl) == 0) {
            const char *v = p + nl + 1, *ve = eol;
            while (v < ve && (*v == ' ' || *v == '\t'))
                v++;
            while (ve > v && (ve[-1] == '\r' || ve[-1] == ' '))
                ve--;
            *vlen = (size_t)(ve - v);
            return v;
        }
        p = eol;
    }
    return NULL;
}

/* The number after "name": in the request body (its first mention), or dflt. */
static unsigned long long body_number(const char *body, size_t blen, const char *name,
                                      unsigned long long dflt)
{
    const char *p = memmem(body, blen, name, strlen(name));
    if (p == NULL)
        return dflt;
    p += strlen(name);
    while (p < body + blen && (*p == '"' || *p == ':' || *p == ' '))
        p++;
    return p < body + blen && *p >= '0' && *p <= '9' ? strtoull(p, NULL, 10) : dflt;
}

static int page_append(size_t *len, const char *p, size_t n)
{
    if (*len + n + 1 > page_cap) {
        size_t cap = page_cap ? page_cap : 1u << 20;
        char *np;
        while (cap < *len + n + 1)
            cap *= 2;
        if ((np = realloc(page, cap)) == NULL)
            return -1;
        page = np;
        page_cap = cap;
    }
    memcpy(page + *len, p, n);
    *len += n;
    page[*len] = '\0';
    return 0;
}

/* A Scan page of the --scan table: its segment's items from ExclusiveStartKey's
 * index on, up to 1 MB or Limit. */
static int scan_page(int fd, const char *body, size_t blen)
{
    unsigned long long seg = body_number(body, blen, "\"Segment\"", 0),
                       total = body_number(body, blen, "\"TotalSegments\"", 1),
                       limit = body_number(body, blen, "\"Limit\"", ~0ull);
    const char *esk = memmem(body, blen, "\"ExclusiveStartKey\"", 19);
    size_t lo, hi, i, len = 0, n = 0, bytes = 0;
    char tail[256];
    int ok = 0;

    if (total == 0 || seg >= total)
        total = 1, seg = 0;
    lo = (size_t)(seg * scan_n / total);
    hi = (size_t)((seg + 1) * scan_n / total);
    i = esk ? (size_t)body_number(esk, blen - (size_t)(esk - body), "\"sk\":{\"S\"", lo) : lo;
    ok = page_append(&len, "{\"Items\":[", 10) == 0;
    for (; ok && i < hi && i >= lo && n < limit && bytes < (1u << 20); i++, n++) {
        ok = (n == 0 || page_append(&len, ",", 1) == 0) &&
             page_append(&len, scan_text + scan_at[i], scan_len[i]) == 0;
        bytes += scan_len[i];
    }
    if (i < hi && i >= lo)
        snprintf(tail, sizeof(tail),
                 "],\"Count\":%zu,\"ScannedCount\":%zu,\"ConsumedCapacity\":{\"TableName\":"
                 "\"%s\",\"CapacityUnits\":%zu},\"LastEvaluatedKey\":{\"pk\":{\"S\":\"scan\"},"
                 "\"sk\":{\"S\":\"%zu\"}}}",
                 n, n, table, bytes / 8192 + 1, i);
    else
        snprintf(tail, sizeof(tail),
                 "],\"Count\":%zu,\"ScannedCount\":%zu,\"ConsumedCapacity\":{\"TableName\":"
                 "\"%s\",\"CapacityUnits\":%zu}}",
                 n, n, table, bytes / 8192 + 1);
    if (!ok || page_append(&len, tail, strlen(tail)) != 0)
        return -1;
    scanned += n;
    requests++;
    return answer(fd, 200, page, 1);
}

/* Reads FILE's {"Item":{...}} lines as the table Scan serves. */
static int load_scan(const char *path)
{
    gzFile f = gzopen(path, "rb");
    size_t len = 0, cap = 1u << 24, n_cap = 0;
    int r;

    if (f == NULL || (scan_text = malloc(cap)) == NULL)
        return -1;
    while ((r = gzread(f, scan_text + len, (unsigned)(cap - len - 1))) > 0) {
        len += (size_t)r;
        if (cap - len < (1u << 20)) {
            char *nt = realloc(scan_text, cap *= 2);
            if (nt == NULL)
                return -1;
            scan_text = nt;
        }
    }
    gzclose(f);
    if (r < 0)
        return -1;
    scan_text[len] = '\0';
    for (char *p = scan_text, *e = scan_text + len, *nl; p < e; p = nl + 1) {
        if ((nl = memchr(p, '\n', (size_t)(e - p))) == NULL)
            nl = e;
        if (nl - p < 10)
            continue;
        if (memcmp(p, "{\"Item\":{", 9) != 0 || nl[-1] != '}') {
            fprintf(stderr, "ddbpipe-sink: %s: a line that is not {\"Item\":{...}}\n", path);
            return -1;
        }
        if (scan_n == n_cap) {
            n_cap = n_cap ? n_cap * 2 : 65536;
            if ((scan_at = realloc(scan_at, n_cap * sizeof(*scan_at))) == NULL ||
                (scan_len = realloc(scan_len, n_cap * sizeof(*scan_len))) == NULL)
                return -1;
        }
        scan_at[scan_n] = (size_t)(p + 8 - scan_text);
        scan_len[scan_n++] = (size_t)(nl - 1 - (p + 8));
    }
    return 0;
}

static int handle(int fd, const char *head, size_t hlen, const char *body, size_t blen)
{
    char out[2048];
    size_t tl = 0;
    const char *t = header(head, hlen, "x-amz-target", &tl);
    const char *dot = t ? memchr(t, '.', tl) : NULL;
    if (dot != NULL) {
        tl -= (size_t)(dot + 1 - t);
        t = dot + 1;
    }
    if (t != NULL && tl == 13 && memcmp(t, "DescribeTable", 13) == 0) {
        snprintf(out, sizeof(out),
                 "{\"Table\":{\"TableName\":\"%s\",\"TableStatus\":\"ACTIVE\",\"ItemCount\":0,"
                 "\"TableSizeBytes\":0,\"TableArn\":\"arn:aws:dynamodb:us-east-1:000000000000:"
                 "table/%s\",\"KeySchema\":[{\"AttributeName\":\"pk\",\"KeyType\":\"HASH\"},"
                 "{\"AttributeName\":\"sk\",\"KeyType\":\"RANGE\"}],\"AttributeDefinitions\":"
                 "[{\"AttributeName\":\"pk\",\"AttributeType\":\"S\"},{\"AttributeName\":\"sk\","
                 "\"AttributeType\":\"S\"}],\"BillingModeSummary\":{\"BillingMode\":"
                 "\"PAY_PER_REQUEST\"}}}",
                 table, table);
        return answer(fd, 200, out, 1);
    }
    if (t != NULL && tl == 14 && memcmp(t, "BatchWriteItem", 14) == 0) {
        size_t n = count(body, blen, "\"PutRequest\"") + count(body, blen, "\"DeleteRequest\"");
        items += n;
        requests++;
        body_bytes += blen;
        snprintf(out, sizeof(out),
                 "{\"UnprocessedItems\":{},\"ConsumedCapacity\":[{\"TableName\":\"%s\","
                 "\"CapacityUnits\":%zu}]}",
                 table, n);
        return answer(fd, 200, out, 1);
    }
    if (t != NULL && tl == 4 && memcmp(t, "Scan", 4) == 0 && scan_text != NULL)
        return scan_page(fd, body, blen);
    if (t != NULL && tl == 5 && memcmp(t, "Stats", 5) == 0) {
        snprintf(out, sizeof(out),
                 "{\"items\":%llu,\"requests\":%llu,\"bytes\":%llu,\"scanned\":%llu}", items,
                 requests, body_bytes, scanned);
        return answer(fd, 200, out, 1);
    }
    snprintf(out, sizeof(out),
             "{\"__type\":\"com.amazon.coral.validate#ValidationException\",\"message\":"
             "\"unknown %.*s\"}",
             (int)(tl < 100 ? tl : 100), t ? t : "");
    return answer(fd, 400, out, 0);
}

/* Answers every whole request in c's buffer; -1 closes the connection. */
static int serve(conn *c)
{
    size_t at = 0;
    for (;;) {
        char *p = c->buf + at, *end;
        size_t avail = c->len - at, hlen, clen = 0, vl;
        const char *v;
        if (avail < 4 || (end = memmem(p, avail, "\r\n\r\n", 4)) == NULL)
            break;
        hlen = (size_t)(end - p) + 4;
        if (header(p, hlen, "transfer-encoding", &vl) != NULL) {
            static const char msg[] = "HTTP/1.1 411 Length Required\r\nContent-Length: 0\r\n"
                                      "Connection: close\r\n\r\n";
            (void)send_all(c->fd, msg, sizeof(msg) - 1);
            return -1;
        }
        if ((v = header(p, hlen, "content-length", &vl)) != NULL) {
            char num[32];
            snprintf(num, sizeof(num), "%.*s", (int)(vl < 31 ? vl : 31), v);
            clen = strtoull(num, NULL, 10);
        }
        if (clen > MAX_BODY)
            return -1;
        if (avail < hlen + clen) {
            if (c->cap < hlen + clen) { /* room for the rest of this request at once */
                memmove(c->buf, p, avail);
                c->len = avail;
                at = 0;
                char *nb = realloc(c->buf, hlen + clen);
                if (nb == NULL)
                    return -1;
                c->buf = nb;
                c->cap = hlen + clen;
            }
            break;
        }
        if (handle(c->fd, p, hlen, p + hlen, clen) != 0)
            return -1;
        at += hlen + clen;
    }
    if (at > 0) {
        memmove(c->buf, c->buf + at, c->len - at);
        c->len -= at;
    }
    return 0;
}

int main(int argc, char **argv)
{
    struct sockaddr_in sa;
    socklen_t sl = sizeof(sa);
    struct epoll_event ev, evs[MAX_EVENTS];
    int lfd, ep, one = 1;
    long poll_us = 0;
    uint64_t last_us = 0;
    FILE *pf;
    char tmp[4096];

    while (argc > 2 && (strcmp(argv[1], "--poll") == 0 || strcmp(argv[1], "--scan") == 0)) {
        if (strcmp(argv[1], "--poll") == 0) {
            poll_us = strtol(argv[2], NULL, 10);
        } else if (load_scan(argv[2]) != 0) {
            fprintf(stderr, "ddbpipe-sink: cannot read %s as a table to scan\n", argv[2]);
            return 1;
        }
        argc -= 2;
        argv += 2;
    }
    if (argc < 2 || poll_us < 0 || argv[1][0] == '-') {
        fprintf(stderr, "usage: ddbpipe-sink [--poll USEC] [--scan FILE] PORTFILE [TABLE]\n");
        return 2;
    }
    if (argc > 2)
        table = argv[2];
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if ((lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)) < 0 ||
        setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
        bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(lfd, 1024) != 0 ||
        getsockname(lfd, (struct sockaddr *)&sa, &sl) != 0 || (ep = epoll_create1(0)) < 0) {
        perror("ddbpipe-sink");
        return 1;
    }
    ev.events = EPOLLIN;
    ev.data.ptr = NULL;
    epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev);
    /* the port appears whole: written aside, then renamed */
    snprintf(tmp, sizeof(tmp), "%s.tmp", argv[1]);
    if ((pf = fopen(tmp, "w")) == NULL || fprintf(pf, "%d", ntohs(sa.sin_port)) < 0 ||
        fclose(pf) != 0 || rename(tmp, argv[1]) != 0) {
        perror(argv[1]);
        return 1;
    }
    for (;;) {
        int n = epoll_wait(ep, evs, MAX_EVENTS, poll_us > 0 ? 0 : -1);
        if (n == 0) {
            if (now_us() - last_us < (uint64_t)poll_us)
                continue; /* polling */
            n = epoll_wait(ep, evs, MAX_EVENTS, -1);
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n > 0 && poll_us > 0)
            last_us = now_us();
        if (n < 0) {
            perror("epoll_wait");
            return 1;
        }
        for (int i = 0; i < n; i++) {
            conn *c = evs[i].data.ptr;
            if (c == NULL) {
                int fd;
                while ((fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
                    conn *nc = calloc(1, sizeof(*nc));
                    if (nc == NULL || (nc->buf = malloc(65536)) == NULL) {
                        free(nc);
                        close(fd);
                        continue;
                    }
                    nc->fd = fd;
                    nc->cap = 65536;
                    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
                    ev.events = EPOLLIN;
                    ev.data.ptr = nc;
                    epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
                }
                continue;
            }
            for (;;) {
                ssize_t r;
                if (c->len == c->cap) {
                    char *nb = realloc(c->buf, c->cap * 2);
                    if (nb == NULL)
                        goto drop;
                    c->buf = nb;
                    c->cap *= 2;
                }
                r = recv(c->fd, c->buf + c->len, c->cap - c->len, 0);
                if (r > 0) {
                    c->len += (size_t)r;
                    if (c->len < c->cap)
                        break; /* the socket is drained */
                    continue;
                }
                if (r < 0 && (errno == EAGAIN || errno == EINTR))
                    break;
                goto drop; /* closed, or failed */
            }
            if (serve(c) == 0)
                continue;
        drop:
            close(c->fd);
            free(c->buf);
            free(c);
        }
    }
}
