/* name_set.c — see name_set.h. */
#include "core/name_set.h"

#include <stdlib.h>
#include <string.h>

#include "ddbpipe/array.h"
#include "ddbpipe/error.h"
#include "ddbpipe/value.h"

/* A hash of a name: every byte counts
 * (names that differ in one byte only, as dates do, must not pile up in one
 * cluster), eight at a time, inline. Not a hash for anything kept or sent:
 * its values differ between machines of different byte order. */
static inline uint64_t name_hash(const char *p, size_t len)
{
    uint64_t h = (uint64_t)len * UINT64_C(0x9E3779B97F4A7C15), w;
    uint32_t lo, hi;
    for (; len >= 8; p += 8, len -= 8) {
        memcpy(&w, p, 8);
        h = (h ^ w) * UINT64_C(0xBF58476D1CE4E5B9);
        h ^= h >> 31;
    }
    if (len >= 4) { /* the first four and the last four of the rest */
        memcpy(&lo, p, 4);
        memcpy(&hi, p + len - 4, 4);
        w = (uint64_t)lo | (uint64_t)hi << 32;
    } else if (len > 0) {
        const unsigned char *u = (const unsigned char *)p;
        w = (uint64_t)u[0] | (uint64_t)u[len / 2] << 8 | (uint64_t)u[len - 1] << 16;
    } else {
        w = 0;
    }
    h = (h ^ w) * UINT64_C(0x94D049BB133111EB);
    return h ^ (h >> 29);
}

ptrdiff_t ddb_name_set_find(const ddb_name_set *s, const char *name, size_t len)
{
    if (s->n_slots == 0)
        return -1;
    for (size_t k = (size_t)name_hash(name, len) & (s->n_slots - 1); s->slots[k] != 0;
         k = (k + 1) & (s->n_slots - 1)) {
        size_t i = s->slots[k] - 1;
        if (s->at[i].len == len && ddb_mem_eq(s->at[i].name, name, len))
            return (ptrdiff_t)i;
    }
    return -1;
}

/* Puts position i in the table (its name not there yet). */
static void put_slot(uint32_t *slots, size_t n_slots, const char *name, size_t len, size_t i)
{
    size_t k = (size_t)name_hash(name, len) & (n_slots - 1);
    while (slots[k] != 0)
        k = (k + 1) & (n_slots - 1);
    slots[k] = (uint32_t)i + 1;
}

/* Room for one more name: in the array, and in a table at most half full. */
static int make_room(ddb_name_set *s)
{
    ddb_name *at = ddb_array_reserve(s->at, s->n, &s->cap, sizeof(*at), 16);
    if (at == NULL)
        return DDB_ENOMEM;
    s->at = at;
    if ((s->n + 1) * 2 > s->n_slots) {
        size_t n_slots = s->n_slots ? s->n_slots * 2 : 32;
        uint32_t *slots = calloc(n_slots, sizeof(*slots));
        if (slots == NULL)
            return DDB_ENOMEM;
        for (size_t i = 0; i < s->n; i++)
            put_slot(slots, n_slots, s->at[i].name, s->at[i].len, i);
        free(s->slots);
        s->slots = slots;
        s->n_slots = n_slots;
    }
    return 0;
}

int ddb_name_set_add(ddb_name_set *s, const char *name, size_t len, size_t *pos)
{
    ptrdiff_t at = ddb_name_set_find(s, name, len);
    char *copy;
    if (at >= 0) {
        *pos = (size_t)at;
        return 0;
    }
    if (make_room(s) != 0 || (copy = malloc(len + 1)) == NULL)
        return DDB_ENOMEM;
    memcpy(copy, name, len);
    copy[len] = '\0';
    s->at[s->n].name = copy;
    s->at[s->n].len = len;
    put_slot(s->slots, s->n_slots, name, len, s->n);
    *pos = s->n++;
    return 1;
}

void ddb_name_set_dispose(ddb_name_set *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->at[i].name);
    free(s->at);
    free(s->slots);
    memset(s, 0, sizeof(*s));
}
