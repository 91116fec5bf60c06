/* keyset.h (private header of core/) — a set of byte strings (item key signatures). */
#ifndef DDBPIPE_KEYSET_H
#define DDBPIPE_KEYSET_H

#include <stddef.h>
#include <stdint.h>

/* 16 bytes: the table is touched at random once when a key is added and once
 * when it is removed, hundreds of items later, so it is kept small (at 24
 * bytes a slot these two look-ups were 6% of an import's CPU, nearly all of
 * it waiting for memory), and the writer prefetches the slot it will need. */
struct ddb_keyset_slot {
    const char *key; /* borrowed; NULL: empty */
    uint32_t len;
    uint32_t hash; /* the low half of the key's hash: its home and a first test */
};

typedef struct ddb_keyset {
    struct ddb_keyset_slot *slots;
    size_t cap; /* power of two */
    size_t count;
} ddb_keyset;

/* Asks the cache for the slot where a key of this hash starts its probe. */
static inline void ddb_keyset_prefetch(const ddb_keyset *s, uint64_t hash)
{
    __builtin_prefetch(&s->slots[hash & (s->cap - 1)]);
}

/* Returns 0 or DDB_ENOMEM. */
int ddb_keyset_init(ddb_keyset *s, size_t initial);
/* The hash every call takes with its key: computed once per key by the caller.
 * Not ddb_hash64 (whose values the generator depends on): one multiply a word
 * and a full mix at the end, a third of its cost for a table's needs. */
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
