/* keyset.h (internal) — a set of byte strings (item key signatures). */
#ifndef DDBPIPE_KEYSET_H
#define DDBPIPE_KEYSET_H

#include <stddef.h>
#include <stdint.h>

typedef struct ddb_keyset {
    struct ddb_keyset_slot *slots;
    size_t cap; /* power of two */
    size_t count;
} ddb_keyset;

/* Returns 0 or DDB_ENOMEM. */
int ddb_keyset_init(ddb_keyset *s, size_t initial);
/* The hash every call takes with its key: computed once per key by the caller. */
uint64_t ddb_keyset_hash(const char *key, size_t len);
/* Adds key, which is borrowed: its bytes must stay as they are until it is
 * removed or the set disposed of. Returns 0 when added, 1 when it was there
 * already (nothing changes), DDB_ENOMEM (the set as it was). */
int ddb_keyset_add(ddb_keyset *s, const char *key, size_t len, uint64_t hash);
int ddb_keyset_contains(const ddb_keyset *s, const char *key, size_t len, uint64_t hash);
void ddb_keyset_remove(ddb_keyset *s, const char *key, size_t len, uint64_t hash);
/* Frees the table (not the borrowed keys). */
void ddb_keyset_dispose(ddb_keyset *s);

#endif
