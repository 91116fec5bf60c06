#include "ddbpipe/arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/error.h"

#define ARENA_ALIGN 16
#define ARENA_DEFAULT_CHUNK (64u * 1024u)
/* Chunks kept across resets beyond the first: enough for large items without
 * holding on to the memory of one pathological record forever. */
#define ARENA_KEEP_BYTES (4u * 1024u * 1024u)

typedef struct chunk {
    struct chunk *next;
    size_t size; /* usable bytes after the header */
    size_t used;
    /* data follows, aligned */
} chunk;

struct ddb_arena {
    chunk *head; /* current chunk (most recent first) */
    size_t chunk_size;
    void *last; /* most recent allocation, for ddb_arena_grow */
    size_t last_size;
};

#define CHUNK_HDR ((sizeof(chunk) + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1))

static char *chunk_data(chunk *c)
{
    return (char *)c + CHUNK_HDR;
}

static chunk *chunk_new(size_t size)
{
    chunk *c = malloc(CHUNK_HDR + size);
    if (c == NULL)
        return NULL;
    c->next = NULL;
    c->size = size;
    c->used = 0;
    return c;
}

int ddb_arena_new(ddb_arena **out, size_t chunk_size)
{
    ddb_arena *a = calloc(1, sizeof(*a));
    if (a == NULL)
        return DDB_ENOMEM;
    a->chunk_size = chunk_size ? chunk_size : ARENA_DEFAULT_CHUNK;
    a->head = chunk_new(a->chunk_size);
    if (a->head == NULL) {
        free(a);
        return DDB_ENOMEM;
    }
    *out = a;
    return 0;
}

void *ddb_arena_alloc(ddb_arena *a, size_t size)
{
    size_t need = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
    chunk *c = a->head;
    void *p;

    if (need < size)
        return NULL; /* overflow */
    if (need == 0)
        need = ARENA_ALIGN;
    if (c->size - c->used < need) {
        /* Look for a kept chunk with room before allocating a new one. */
        chunk *prev = c, *it = c->next;
        while (it != NULL && it->size - it->used < need) {
            prev = it;
            it = it->next;
        }
        if (it != NULL) {
            prev->next = it->next;
        } else {
            size_t sz = need > a->chunk_size ? need : a->chunk_size;
            it = chunk_new(sz);
            if (it == NULL)
                return NULL;
        }
        it->next = a->head;
        a->head = it;
        c = it;
    }
    p = chunk_data(c) + c->used;
    c->used += need;
    a->last = p;
    a->last_size = need;
    return p;
}

void *ddb_arena_calloc(ddb_arena *a, size_t n, size_t size)
{
    void *p;
    if (size != 0 && n > SIZE_MAX / size)
        return NULL;
    p = ddb_arena_alloc(a, n * size);
    if (p != NULL)
        memset(p, 0, n * size);
    return p;
}

char *ddb_arena_memdup(ddb_arena *a, const void *src, size_t n)
{
    char *p = ddb_arena_alloc(a, n + 1);
    if (p == NULL)
        return NULL;
    if (n)
        memcpy(p, src, n);
    p[n] = '\0';
    return p;
}

void *ddb_arena_grow(ddb_arena *a, void *p, size_t old_size, size_t new_size)
{
    void *np;
    if (p != NULL && p == a->last) {
        chunk *c = a->head;
        size_t need = (new_size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
        size_t start = (size_t)((char *)p - chunk_data(c));
        if (need >= new_size && start + need <= c->size) {
            c->used = start + need;
            a->last_size = need;
            return p;
        }
    }
    np = ddb_arena_alloc(a, new_size);
    if (np == NULL)
        return NULL;
    if (p != NULL && old_size)
        memcpy(np, p, old_size < new_size ? old_size : new_size);
    return np;
}

void *ddb_arena_array_reserve(ddb_arena *a, void *items, size_t count, size_t *cap, size_t size,
                              size_t initial)
{
    size_t ncap;
    void *n;
    if (count < *cap)
        return items;
    ncap = *cap ? *cap * 2 : initial;
    if (ncap < *cap || (size != 0 && ncap > SIZE_MAX / size))
        return NULL;
    if ((n = ddb_arena_grow(a, items, count * size, ncap * size)) == NULL)
        return NULL;
    *cap = ncap;
    return n;
}

void ddb_arena_reset(ddb_arena *a)
{
    chunk *c = a->head, *keep = NULL, *next;
    size_t kept = 0;

    /* Keep chunks up to a budget (always at least one) so steady streams reuse them. */
    for (; c != NULL; c = next) {
        next = c->next;
        if (keep == NULL || kept + c->size <= ARENA_KEEP_BYTES) {
            c->used = 0;
            c->next = keep;
            keep = c;
            kept += c->size;
        } else {
            free(c);
        }
    }
    a->head = keep;
    if (a->head == NULL)
        a->head = chunk_new(a->chunk_size); /* cannot normally happen */
    a->last = NULL;
    a->last_size = 0;
}

void ddb_arena_free(ddb_arena *a)
{
    chunk *c, *next;
    if (a == NULL)
        return;
    for (c = a->head; c != NULL; c = next) {
        next = c->next;
        free(c);
    }
    free(a);
}

void *ddb_stack_push(ddb_stack *st, size_t size)
{
    void *p;
    if (st->len + size > st->cap) {
        size_t cap = st->cap ? st->cap : 4096;
        char *nb;
        while (cap < st->len + size)
            cap *= 2;
        nb = realloc(st->base, cap);
        if (nb == NULL)
            return NULL;
        st->base = nb;
        st->cap = cap;
    }
    p = st->base + st->len;
    st->len += size;
    return p;
}

void *ddb_stack_pop_to_arena(ddb_stack *st, size_t bytes, ddb_arena *a)
{
    void *p;
    if (bytes == 0)
        return NULL;
    p = ddb_arena_alloc(a, bytes);
    if (p == NULL)
        return NULL;
    memcpy(p, st->base + st->len - bytes, bytes);
    st->len -= bytes;
    return p;
}

void ddb_stack_dispose(ddb_stack *st)
{
    free(st->base);
    st->base = NULL;
    st->len = st->cap = 0;
}
