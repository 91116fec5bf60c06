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
/* Adds a copy of key (no-op when present). Returns 0 or DDB_ENOMEM. */
int ddb_keyset_add(ddb_keyset *s, const char *key, size_t len);
int ddb_keyset_contains(const ddb_keyset *s, const char *key, size_t len);
void ddb_keyset_remove(ddb_keyset *s, const char *key, size_t len);
void ddb_keyset_dispose(ddb_keyset *s);

#endif
