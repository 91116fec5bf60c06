/*
 * client_loop.c — libcurl driven by socket events (curl_multi_socket_action
 * with an epoll set), not by curl_multi_perform: perform visits every
 * transfer on every call, and with 16 to 32 requests in flight that (one
 * socket check each) was about a tenth of an import's CPU. Here curl is only
 * asked about the sockets that are ready and the timeouts that are due.
 * Then the turns of the loop the client's callers drive (ddb_client_run,
 * _wait_fd, _step): the stop flag, delayed calls, what may start, what ended.
 */
#include <errno.h>
#include <poll.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "net/client_impl.h"
#include "ddbpipe/clock.h"

#define MAX_EVENTS 64

/* CURLMOPT_SOCKETFUNCTION: what curl wants to know about socket s. */
static int on_socket(CURL *easy, curl_socket_t s, int what, void *userp, void *socketp)
{
    ddb_client *c = userp;
    struct epoll_event ev;
    (void)easy;
    (void)socketp;
    if (what == CURL_POLL_REMOVE) {
        epoll_ctl(c->epfd, EPOLL_CTL_DEL, s, NULL); /* a closed socket has already left */
        return 0;
    }
    ev.events = (what & CURL_POLL_IN ? EPOLLIN : 0u) | (what & CURL_POLL_OUT ? EPOLLOUT : 0u);
    ev.data.u64 = (uint64_t)(unsigned)s;
    /* a socket number curl had closed and opened again is new to the set */
    if (epoll_ctl(c->epfd, EPOLL_CTL_MOD, s, &ev) != 0 && errno == ENOENT &&
        epoll_ctl(c->epfd, EPOLL_CTL_ADD, s, &ev) != 0)
        return -1;
    return 0;
}

/* CURLMOPT_TIMERFUNCTION: when curl wants to be called about timeouts. */
static int on_timer(CURLM *multi, long timeout_ms, void *userp)
{
    ddb_client *c = userp;
    (void)multi;
    c->timer_at_ms = timeout_ms < 0 ? UINT64_MAX : ddb_clock_ms() + (uint64_t)timeout_ms;
    return 0;
}

int ddb_client_loop_init(ddb_client *c)
{
    c->timer_at_ms = UINT64_MAX;
    if ((c->epfd = epoll_create1(EPOLL_CLOEXEC)) < 0)
        return -1;
    curl_multi_setopt(c->multi, CURLMOPT_SOCKETFUNCTION, on_socket);
    curl_multi_setopt(c->multi, CURLMOPT_SOCKETDATA, c);
    curl_multi_setopt(c->multi, CURLMOPT_TIMERFUNCTION, on_timer);
    curl_multi_setopt(c->multi, CURLMOPT_TIMERDATA, c);
    return 0;
}

void ddb_client_loop_dispose(ddb_client *c)
{
    if (c->epfd >= 0)
        close(c->epfd);
    c->epfd = -1;
}

int ddb_client_loop_run(ddb_client *c)
{
    struct epoll_event ev[MAX_EVENTS];
    int running = 0, n;

    do {
        n = epoll_wait(c->epfd, ev, MAX_EVENTS, 0);
        for (int i = 0; i < n; i++) {
            int flags = (ev[i].events & EPOLLIN ? CURL_CSELECT_IN : 0) |
                    (ev[i].events & EPOLLOUT ? CURL_CSELECT_OUT : 0) |
                    (ev[i].events & (EPOLLERR | EPOLLHUP) ? CURL_CSELECT_ERR : 0);
            if (curl_multi_socket_action(c->multi, (curl_socket_t)ev[i].data.u64, flags,
                                         &running) != CURLM_OK)
                return -1;
        }
    } while (n == MAX_EVENTS);
    if (c->timer_at_ms != UINT64_MAX && ddb_clock_ms() >= c->timer_at_ms) {
        c->timer_at_ms = UINT64_MAX;
        if (curl_multi_socket_action(c->multi, CURL_SOCKET_TIMEOUT, 0, &running) != CURLM_OK)
            return -1;
    }
    return 0;
}

long ddb_client_loop_timeout(const ddb_client *c)
{
    uint64_t now, at = c->timer_at_ms;
    if (at == UINT64_MAX)
        return -1;
    now = ddb_clock_ms();
    return at <= now ? 0 : (long)(at - now);
}

void ddb_client_loop_wait(ddb_client *c, int timeout_ms)
{
    struct epoll_event ev;
    long t = ddb_client_loop_timeout(c);
    if (t >= 0 && t < timeout_ms)
        timeout_ms = (int)t;
    if (timeout_ms > 0)
        (void)epoll_wait(c->epfd, &ev, 1, timeout_ms); /* level-triggered: run() sees it again */
}

/* ------------------------------------------------------------- turns */

static void promote_delayed(ddb_client *c, uint64_t now)
{
    while (c->delayed && c->delayed->wake_ms <= now) {
        call *cl = c->delayed;
        c->delayed = cl->next;
        ddb_client_enqueue_ready(c, cl);
    }
}

static void start_ready(ddb_client *c)
{
    while (c->ready_head && c->in_flight < c->concurrency) {
        call *cl = c->ready_head;
        c->ready_head = cl->next;
        if (c->ready_head == NULL)
            c->ready_tail = NULL;
        c->queued--;
        ddb_client_start_attempt(c, cl);
    }
}

/* How a transfer curl ended failed, in the retry rules' terms. */
static ddb_transfer_result curl_failure(CURLcode result)
{
    switch (result) {
    case CURLE_OK:
        return DDB_TRANSFER_OK;
    case CURLE_COULDNT_RESOLVE_HOST:
        return DDB_TRANSFER_RESOLVE;
    case CURLE_COULDNT_CONNECT:
        return DDB_TRANSFER_CONNECT;
    case CURLE_OPERATION_TIMEDOUT:
        return DDB_TRANSFER_TIMEOUT;
    default:
        return DDB_TRANSFER_FAILED;
    }
}

void ddb_client_loop_drain(ddb_client *c)
{
    CURLMsg *m;
    int left;
    while ((m = curl_multi_info_read(c->multi, &left)) != NULL) {
        CURLcode result = m->data.result;
        call *cl = NULL;
        long status = 0;
        if (m->msg != CURLMSG_DONE)
            continue;
        curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&cl);
        curl_easy_getinfo(m->easy_handle, CURLINFO_RESPONSE_CODE, &status);
        curl_multi_remove_handle(c->multi, m->easy_handle); /* m is gone after this */
        ddb_client_completed(c, cl, status, curl_failure(result),
                             cl->curl_err[0] ? cl->curl_err : curl_easy_strerror(result));
    }
}

/* The start of a turn of the loop: the stop flag, the idle hook, and what
 * may start now. Returns 0 or DDB_EINTR. */
static int turn_begin(ddb_client *c, ddb_error *err)
{
    uint64_t now;
    if (c->stop && *c->stop)
        return ddb_error_set(err, DDB_EINTR, "interrupted");
    now = ddb_clock_ms();
    if (c->on_idle && now - c->last_idle_ms >= 100) {
        c->last_idle_ms = now;
        c->on_idle(c->idle_ctx);
    }
    promote_delayed(c, now);
    start_ready(c);
    return 0;
}

/* How long a turn may wait for its sockets: at most 200 ms, less when
 * libcurl's timer or a delayed call is due sooner. */
static int turn_timeout(const ddb_client *c)
{
    long curl_timeout = ddb_client_loop_timeout(c);
    int timeout = curl_timeout < 0 || curl_timeout > 200 ? 200 : (int)curl_timeout;
    if (c->delayed) {
        uint64_t wake = c->delayed->wake_ms, now = ddb_clock_ms();
        if (wake <= now)
            timeout = 0;
        else if (wake - now < (uint64_t)timeout)
            timeout = (int)(wake - now);
    }
    return timeout;
}

int ddb_client_run(ddb_client *c, int (*until)(void *ctx), void *ctx, ddb_error *err)
{
    for (;;) {
        int timeout, rc;

        if (until && until(ctx))
            return 0;
        if ((rc = turn_begin(c, err)) != 0)
            return rc;
        if (c->in_flight == 0 && c->ready_head == NULL && c->delayed == NULL)
            return 0; /* nothing left that could change anything */
        if (ddb_client_loop_run(c) != 0)
            return ddb_error_set(err, DDB_ENET, "libcurl multi loop failed");
        ddb_client_loop_drain(c);
        if (until && until(ctx))
            return 0;
        if (c->in_flight == 0 && c->ready_head == NULL && c->delayed == NULL)
            return 0;
        if (c->ready_head && c->in_flight < c->concurrency)
            continue; /* new work from callbacks can start at once */
        timeout = turn_timeout(c);
        if (c->in_flight > 0) {
            ddb_client_loop_wait(c, timeout);
        } else if (timeout > 0) {
            struct timespec ts = {timeout / 1000, (long)(timeout % 1000) * 1000000L};
            nanosleep(&ts, NULL);
        }
    }
}

int ddb_client_wait_fd(ddb_client *c, int fd, int timeout_ms, ddb_error *err)
{
    uint64_t until = timeout_ms < 0 ? UINT64_MAX : ddb_clock_ms() + (uint64_t)timeout_ms;
    for (;;) {
        struct pollfd p[2] = {{.fd = fd, .events = POLLIN}, {.fd = c->epfd, .events = POLLIN}};
        int rc, wait;

        if (poll(p, 1, 0) > 0)
            return 0;
        if (ddb_clock_ms() >= until)
            return 1;
        if ((rc = turn_begin(c, err)) != 0)
            return rc;
        if (c->in_flight > 0) {
            if (ddb_client_loop_run(c) != 0)
                return ddb_error_set(err, DDB_ENET, "libcurl multi loop failed");
            ddb_client_loop_drain(c);
            if (c->ready_head && c->in_flight < c->concurrency)
                continue; /* new work from callbacks can start at once */
        }
        /* the input, or (with requests in flight) one of their sockets */
        wait = turn_timeout(c);
        if (until != UINT64_MAX && until - ddb_clock_ms() < (uint64_t)wait)
            wait = (int)(until - ddb_clock_ms());
        (void)poll(p, c->in_flight > 0 ? 2 : 1, wait < 0 ? 0 : wait);
    }
}

int ddb_client_step(ddb_client *c, ddb_error *err)
{
    promote_delayed(c, ddb_clock_ms());
    start_ready(c);
    if (c->in_flight == 0)
        return 0;
    if (ddb_client_loop_run(c) != 0)
        return ddb_error_set(err, DDB_ENET, "libcurl multi loop failed");
    ddb_client_loop_drain(c);
    start_ready(c);
    return 0;
}
