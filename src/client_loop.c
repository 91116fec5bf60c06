/*
 * client_loop.c — libcurl driven by socket events (curl_multi_socket_action
 * with an epoll set), not by curl_multi_perform: perform visits every
 * transfer on every call, and with 16 to 32 requests in flight that (one
 * socket check each) was about a tenth of an import's CPU. Here curl is only
 * asked about the sockets that are ready and the timeouts that are due.
 */
#include <errno.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "client_impl.h"
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
    ev.data.fd = s;
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
            if (curl_multi_socket_action(c->multi, ev[i].data.fd, flags, &running) != CURLM_OK)
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
    uint64_t now;
    if (c->timer_at_ms == UINT64_MAX)
        return -1;
    now = ddb_clock_ms();
    return c->timer_at_ms <= now ? 0 : (long)(c->timer_at_ms - now);
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
