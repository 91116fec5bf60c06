/*
 * wire_names.c — the addresses of the own HTTP path's host (wire.c), kept a
 * minute as libcurl's DNS cache keeps them. A lookup runs on a thread of its
 * own, the first as well as a lookup again once they are stale: a slow
 * resolver must not stop the loop (libcurl's threaded resolver did not
 * either). The thread tells the loop it has ended through an eventfd in the
 * loop's epoll set.
 */
#include <netdb.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ddbpipe/clock.h"
#include "net/wire_internal.h"

#define RESOLVE_TTL_MS 60000

void ddb_wire_names_init(wire_names *w)
{
    memset(w, 0, sizeof(*w));
    w->ttl_ms = RESOLVE_TTL_MS;
    w->notify = -1;
    pthread_mutex_init(&w->mu, NULL);
}

void ddb_wire_names_dispose(wire_names *w)
{
    if (w->looking) {
        pthread_join(w->lookup, NULL); /* waits for the resolver, at most its own timeout */
        if (w->fresh)
            freeaddrinfo(w->fresh);
    }
    pthread_mutex_destroy(&w->mu);
    if (w->ai)
        freeaddrinfo(w->ai);
    free(w->host);
    memset(w, 0, sizeof(*w));
}

static struct addrinfo *lookup(const wire_names *w)
{
    struct addrinfo hints, *ai = NULL;
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    if (getaddrinfo(w->host, w->port, &hints, &ai) != 0)
        return NULL;
    return ai;
}

static void *lookup_main(void *arg)
{
    wire_names *w = arg;
    struct addrinfo *ai = lookup(w);
    uint64_t one = 1;
    pthread_mutex_lock(&w->mu);
    w->fresh = ai;
    w->looked = 1;
    pthread_mutex_unlock(&w->mu);
    if (w->notify >= 0 && write(w->notify, &one, sizeof(one)) < 0) {
        /* the counter is at its top: the loop has a wake-up coming anyway */
    }
    return NULL;
}

/* Keeps ai (NULL: the lookup failed, and the addresses kept serve another
 * while) as the host's addresses as of now. */
static void install(wire_names *w, struct addrinfo *ai, uint64_t now)
{
    w->resolved_ms = now;
    if (ai == NULL)
        return;
    if (w->ai)
        freeaddrinfo(w->ai);
    w->ai = ai;
    w->n_ai = 0;
    w->good = 0;
    for (; ai != NULL; ai = ai->ai_next)
        w->n_ai++;
}

/* The answer of a lookup thread that has ended, taken in; 1 when one was. */
static int take_lookup(wire_names *w, uint64_t now)
{
    struct addrinfo *ai;
    int ended;
    if (!w->looking)
        return 0;
    pthread_mutex_lock(&w->mu);
    ended = w->looked;
    ai = w->fresh;
    w->fresh = NULL;
    pthread_mutex_unlock(&w->mu);
    if (!ended)
        return 0;
    pthread_join(w->lookup, NULL);
    w->looking = w->looked = 0;
    install(w, ai, now);
    return 1;
}

int ddb_wire_names_settle(wire_names *w)
{
    return take_lookup(w, ddb_clock_ms());
}

int ddb_wire_names_resolve(wire_names *w)
{
    uint64_t now = ddb_clock_ms();
    int ended = take_lookup(w, now);
    if (w->ai == NULL) {
        if (w->looking)
            return 1;
        if (ended)
            return -1; /* the lookup this connection would wait for found nothing */
        /* the first lookup of a name on a thread too: a slow resolver must not
         * stop the loop (the progress line, Ctrl-C, the other requests) */
        if (w->notify >= 0 && !w->numeric &&
            pthread_create(&w->lookup, NULL, lookup_main, w) == 0) {
            w->looking = 1;
            return 1;
        }
        install(w, lookup(w), now);
        return w->ai != NULL ? 0 : -1;
    }
    if (now - w->resolved_ms >= (uint64_t)w->ttl_ms && !w->looking) {
        if (pthread_create(&w->lookup, NULL, lookup_main, w) == 0)
            w->looking = 1;
        else
            w->resolved_ms = now; /* no thread: the kept ones serve another while */
    }
    return 0;
}
