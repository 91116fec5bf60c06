/*
 * client_easy.c — the easy handles the client keeps between attempts, and
 * the header lines of DynamoDB's calls kept with them. An import sends a
 * request every 25 items; resetting a handle and setting it up again
 * (libcurl copies the URL, the user agent, the CA file) and building a
 * curl_slist (a node and a copy per line) cost a dozen allocations a request
 * that a handle kept set up, its lines rewritten in place, does not.
 */
#include <assert.h>
#include <openssl/crypto.h>
#include <stdlib.h>
#include <string.h>

#include "net/client_impl.h"

static easy_slot *pop(easy_slot **stack, int *n)
{
    return *n > 0 ? stack[--*n] : NULL;
}

easy_slot *ddb_client_get_slot(ddb_client *c, int dynamodb)
{
    easy_slot *s = NULL;
    if (dynamodb && (s = pop(c->idle_ready, &c->n_ready)) != NULL)
        return s;
    /* a generic request takes a set-up handle only when no other is left */
    if ((s = pop(c->idle_other, &c->n_other)) != NULL ||
        (s = pop(c->idle_ready, &c->n_ready)) != NULL) {
        curl_easy_reset(s->easy);
        s->ready = 0;
        return s;
    }
    if ((s = calloc(1, sizeof(*s))) == NULL)
        return NULL;
    if ((s->easy = curl_easy_init()) == NULL) {
        free(s);
        return NULL;
    }
    return s;
}

/* Grows a stack of idle handles to room for every handle in use. */
static int idle_room(ddb_client *c)
{
    easy_slot **r, **o;
    int ncap;
    if (c->n_ready < c->cap_idle && c->n_other < c->cap_idle)
        return 0;
    ncap = c->cap_idle ? c->cap_idle * 2 : 16;
    if ((r = realloc(c->idle_ready, (size_t)ncap * sizeof(*r))) == NULL)
        return -1;
    c->idle_ready = r;
    if ((o = realloc(c->idle_other, (size_t)ncap * sizeof(*o))) == NULL)
        return -1;
    c->idle_other = o;
    c->cap_idle = ncap;
    return 0;
}

void ddb_client_put_slot(ddb_client *c, easy_slot *s)
{
    if (s == NULL)
        return;
    if (idle_room(c) != 0) {
        ddb_client_slot_free(s);
        return;
    }
    if (s->ready)
        c->idle_ready[c->n_ready++] = s;
    else
        c->idle_other[c->n_other++] = s;
}

/* Wipes and frees a block of header lines: they hold the session token. */
static void lines_free(char *lines, size_t cap)
{
    if (lines != NULL)
        OPENSSL_cleanse(lines, cap);
    free(lines);
}

void ddb_client_slot_free(easy_slot *s)
{
    if (s == NULL)
        return;
    curl_easy_cleanup(s->easy);
    lines_free(s->lines, s->cap);
    free(s);
}

int ddb_client_slot_lines(easy_slot *s, const char *const *names, const char *const *values,
                          size_t n)
{
    size_t need = 0, at = 0;
    assert(n > 0 && n <= DDB_EASY_LINES);
    for (size_t i = 0; i < n; i++)
        need += strlen(names[i]) + 2 + (values[i] ? strlen(values[i]) : 0) + 1;
    if (need > s->cap) {
        /* a new block, not realloc: the old one would be freed unwiped */
        char *p = malloc(need + 256);
        if (p == NULL)
            return -1;
        lines_free(s->lines, s->cap);
        s->lines = p;
        s->cap = need + 256;
    }
    for (size_t i = 0; i < n; i++) {
        size_t nl = strlen(names[i]);
        s->node[i].data = s->lines + at;
        s->node[i].next = i + 1 < n ? &s->node[i + 1] : NULL;
        memcpy(s->lines + at, names[i], nl);
        at += nl;
        s->lines[at++] = ':';
        if (values[i] != NULL) {
            size_t vl = strlen(values[i]);
            s->lines[at++] = ' ';
            memcpy(s->lines + at, values[i], vl);
            at += vl;
        }
        s->lines[at++] = '\0';
    }
    return 0;
}
