/*
 * arena.h — bump allocator for per-record data.
 *
 * Every value of a record (strings, numbers, bytes, nested lists and maps)
 * lives in one arena that is reset when the record has been written, so the
 * hot path never calls malloc per attribute and memory stays bounded by the
 * largest record seen, not by the input size.
 */
#ifndef DDBPIPE_ARENA_H
#define DDBPIPE_ARENA_H

#include <stddef.h>

#include "ddbpipe/error.h"

typedef struct ddb_arena ddb_arena;

/* Creates an arena whose chunks are at least chunk_size bytes (0 = 64 KiB).
 * *out is owned by the caller; free with ddb_arena_free(). Returns 0 or DDB_ENOMEM. */
DDB_MUST_USE int ddb_arena_new(ddb_arena **out, size_t chunk_size);

/* Returns size bytes aligned for any scalar type, or NULL when out of memory.
 * The memory stays valid until the next ddb_arena_reset() or ddb_arena_free(). */
void *ddb_arena_alloc(ddb_arena *a, size_t size);

/* Like ddb_arena_alloc but zero-filled. */
void *ddb_arena_calloc(ddb_arena *a, size_t n, size_t size);

/* Copies n bytes and appends a NUL (so text stays usable as a C string). NULL on OOM. */
char *ddb_arena_memdup(ddb_arena *a, const void *src, size_t n);

/* Grows the most recent allocation p (of old_size bytes) in place when it is
 * the last block, else allocates and copies. NULL on OOM (p is left intact). */
void *ddb_arena_grow(ddb_arena *a, void *p, size_t old_size, size_t new_size);

/* Room for one more element in an array of count elements of size bytes
 * held in a (capacity *cap): returns the array, moved to twice the room when
 * full (initial elements at first), with *cap updated; NULL on OOM (the array
 * and *cap as they were). The caller stores the element at [count]. */
void *ddb_arena_array_reserve(ddb_arena *a, void *items, size_t count, size_t *cap, size_t size,
                              size_t initial);

/* Releases everything allocated so far. Keeps the first chunk (and up to a
 * few MiB of others) for reuse so a steady stream of records allocates nothing. */
void ddb_arena_reset(ddb_arena *a);

/* Frees the arena and all its chunks. Accepts NULL. */
void ddb_arena_free(ddb_arena *a);

/*
 * Builder for maps and lists whose length is not known in advance: entries are
 * staged on a scratch stack and copied into the arena once complete, so nested
 * parsing allocates each array exactly once.
 */
typedef struct ddb_stack {
    char *base;
    size_t len; /* bytes in use */
    size_t cap;
} ddb_stack;

#define DDB_STACK_INIT                                                                             \
    {                                                                                              \
        NULL, 0, 0                                                                                 \
    }

/* Pushes one element of size bytes; returns a pointer to it or NULL on OOM.
 * The pointer is valid until the next push (the stack may move). */
void *ddb_stack_push(ddb_stack *st, size_t size);

/* Copies the top `bytes` bytes into arena memory and pops them. NULL on OOM
 * (or when bytes == 0, in which case there is nothing to copy). */
void *ddb_stack_pop_to_arena(ddb_stack *st, size_t bytes, ddb_arena *a);

void ddb_stack_dispose(ddb_stack *st);

#endif
