/* Open addressing with linear probing and backward-shift deletion;
 * ddb_hash64 hashes. */
#include "core/keyset.h"

#include <stdlib.h>
#include <string.h>

#include "ddbpipe/error.h"
#include "ddbpipe/rng.h"

int ddb_keyset_init(ddb_keyset *s, size_t initial)
{
    size_t cap = 16;
    while (cap < initial * 2)
        cap *= 2;
    s->slots = calloc(cap, sizeof(*s->slots));
    s->cap = cap;
    s->count = 0;
    return s->slots ? 0 : DDB_ENOMEM;
}

static struct ddb_keyset_slot *find(const ddb_keyset *s, const char *key, size_t len, uint64_t h)
{
    size_t i = h & (s->cap - 1);
    for (;;) {
        struct ddb_keyset_slot *sl = &s->slots[i];
        if (sl->key == NULL)
            return NULL;
        /* the same pointer: a remove (the entry's own key), no bytes to read */
        if (sl->hash == (uint32_t)h && sl->len == len &&
            (sl->key == key || memcmp(sl->key, key, len) == 0))
            return sl;
        i = (i + 1) & (s->cap - 1);
    }
}

static int grow(ddb_keyset *s)
{
    ddb_keyset n;
    if (ddb_keyset_init(&n, s->count * 2 + 16) != 0)
        return DDB_ENOMEM;
    for (size_t i = 0; i < s->cap; i++) {
        struct ddb_keyset_slot *sl = &s->slots[i];
        size_t j;
        if (sl->key == NULL)
            continue;
        j = sl->hash & (n.cap - 1);
        while (n.slots[j].key != NULL)
            j = (j + 1) & (n.cap - 1);
        n.slots[j] = *sl;
        n.count++;
    }
    free(s->slots);
    *s = n;
    return 0;
}

uint64_t ddb_keyset_hash(const char *key, size_t len)
{
    const unsigned char *p = (const unsigned char *)key;
    uint64_t h = 0x9e3779b97f4a7c15ull ^ len, w;
    for (; len >= 8; p += 8, len -= 8) {
        memcpy(&w, p, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 29;
    }
    if (len > 0) {
        w = 0;
        memcpy(&w, p, len);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
    }
    return ddb_mix64(h);
}

int ddb_keyset_add(ddb_keyset *s, const char *key, size_t len, uint64_t h)
{
    size_t i;
    if (len > UINT32_MAX)
        return DDB_ENOMEM; /* no key is that long: DynamoDB's keys are at most 2 KB */
    if (find(s, key, len, h) != NULL)
        return 1;
    if ((s->count + 1) * 2 > s->cap && grow(s) != 0)
        return DDB_ENOMEM;
    i = h & (s->cap - 1);
    while (s->slots[i].key != NULL)
        i = (i + 1) & (s->cap - 1);
    s->slots[i].key = key;
    s->slots[i].len = (uint32_t)len;
    s->slots[i].hash = (uint32_t)h;
    s->count++;
    return 0;
}

int ddb_keyset_contains(const ddb_keyset *s, const char *key, size_t len, uint64_t h)
{
    return find(s, key, len, h) != NULL;
}

/* Backward-shift deletion: the entries after the hole that may live there
 * move back, so no tombstone lengthens later probes (a writer adds and
 * removes a key for every item). */
void ddb_keyset_remove(ddb_keyset *s, const char *key, size_t len, uint64_t h)
{
    struct ddb_keyset_slot *sl = find(s, key, len, h);
    size_t mask = s->cap - 1, hole, j;
    if (sl == NULL)
        return;
    s->count--;
    hole = (size_t)(sl - s->slots);
    for (j = (hole + 1) & mask; s->slots[j].key != NULL; j = (j + 1) & mask) {
        size_t home = s->slots[j].hash & mask;
        /* j may fill the hole when its home is not cyclically in (hole, j] */
        if (((j - home) & mask) >= ((j - hole) & mask)) {
            s->slots[hole] = s->slots[j];
            hole = j;
        }
    }
    s->slots[hole].key = NULL;
}

void ddb_keyset_dispose(ddb_keyset *s)
{
    free(s->slots);
    s->slots = NULL;
    s->cap = s->count = 0;
}
