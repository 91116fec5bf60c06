/* The in-flight key set against a plain list: adds and removes in random
 * order, with probe chains that wrap around the end of the table, never lose
 * or invent a key (backward-shift deletion moves entries). Keys are borrowed:
 * each lives in its own buffer for as long as it is in the set. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "core/keyset.h"

#define KEYS 300

static size_t key_of(char (*keys)[32], int k)
{
    return (size_t)snprintf(keys[k], sizeof(keys[k]), "S:Tag#u%d\037S:t%d", k, k * 7);
}

Test(keyset, random_adds_and_removes_match_a_list)
{
    static char keys[KEYS][32], probe[32];
    ddb_keyset s;
    char present[KEYS] = {0};
    uint64_t x = 88172645463325252ull;
    cr_assert_eq(ddb_keyset_init(&s, 4), 0);
    for (int step = 0; step < 200000; step++) {
        int k;
        size_t len;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        k = (int)(x % KEYS);
        len = key_of(keys, k);
        if ((x >> 32) % 3 == 0) {
            ddb_keyset_remove(&s, keys[k], len, ddb_keyset_hash(keys[k], len));
            present[k] = 0;
        } else {
            cr_assert_eq(ddb_keyset_add(&s, keys[k], len, ddb_keyset_hash(keys[k], len)),
                         present[k] ? 1 : 0, "key %d at step %d", k, step);
            present[k] = 1;
        }
        if (step % 997 == 0) {
            size_t n = 0;
            for (int i = 0; i < KEYS; i++) {
                /* looked up by a copy: the set compares bytes, not pointers */
                len = (size_t)snprintf(probe, sizeof(probe), "S:Tag#u%d\037S:t%d", i, i * 7);
                cr_assert_eq(ddb_keyset_contains(&s, probe, len, ddb_keyset_hash(probe, len)),
                             present[i], "key %d at step %d", i, step);
                n += (size_t)present[i];
            }
            cr_assert_eq(s.count, n);
        }
    }
    ddb_keyset_dispose(&s);
}

Test(keyset, removing_from_a_full_chain_keeps_the_rest_reachable)
{
    static char keys[8][32];
    ddb_keyset s;
    cr_assert_eq(ddb_keyset_init(&s, 8), 0);
    for (int i = 0; i < 8; i++) {
        size_t len = (size_t)snprintf(keys[i], sizeof(keys[i]), "k%d", i);
        cr_assert_eq(ddb_keyset_add(&s, keys[i], len, ddb_keyset_hash(keys[i], len)), 0);
    }
    for (int i = 0; i < 8; i += 2)
        ddb_keyset_remove(&s, keys[i], strlen(keys[i]), ddb_keyset_hash(keys[i], strlen(keys[i])));
    for (int i = 0; i < 8; i++)
        cr_assert_eq(ddb_keyset_contains(&s, keys[i], strlen(keys[i]),
                                         ddb_keyset_hash(keys[i], strlen(keys[i]))),
                     i % 2, "k%d", i);
    ddb_keyset_dispose(&s);
}

/* The set's own hash spreads the keys a writer sees (a common prefix, a
 * counter at the end, lengths on both sides of a word) over the table:
 * 40,000 keys in 65,536 home slots, no slot home to many, and almost no two
 * keys sharing the 32 bits a slot keeps. */
Test(keyset, hash_spreads_keys_with_long_common_prefixes)
{
    static unsigned short home[65536];
    static uint32_t low[40000];
    char key[64];
    unsigned most = 0;
    size_t same = 0, distinct = 0;
    for (int i = 0; i < 40000; i++) {
        size_t len = (size_t)snprintf(key, sizeof(key), "{S%d:Tag#wxid_%d|S5:tag%02d", 10 + i % 7,
                                      i / 40, i % 40);
        uint64_t h = ddb_keyset_hash(key, len);
        distinct += home[h & 65535] == 0;
        if (++home[h & 65535] > most)
            most = home[h & 65535];
        low[i] = (uint32_t)h;
    }
    for (int i = 0; i < 40000; i++)
        for (int j = i + 1; j < i + 64 && j < 40000; j++)
            same += low[i] == low[j];
    /* at random: about 29,950 homes taken, the fullest one of 6 keys */
    cr_assert_geq(distinct, 29000, "%zu home slots taken", distinct);
    cr_assert_leq(most, 8, "a home slot of %u keys", most);
    cr_assert_eq(same, 0, "%zu neighbouring keys share their low 32 bits", same);
    cr_assert_neq(ddb_keyset_hash("a", 1), ddb_keyset_hash("a\0", 2));
}
