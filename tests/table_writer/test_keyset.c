/* The in-flight key set against a plain list: adds and removes in random
 * order, with probe chains that wrap around the end of the table, never lose
 * or invent a key (backward-shift deletion moves entries). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "keyset.h"

#define KEYS 300

static int in_list(const char *present, int k)
{
    return present[k];
}

Test(keyset, random_adds_and_removes_match_a_list)
{
    ddb_keyset s;
    char present[KEYS] = {0};
    uint64_t x = 88172645463325252ull;
    cr_assert_eq(ddb_keyset_init(&s, 4), 0);
    for (int step = 0; step < 200000; step++) {
        char key[32];
        int k, len;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        k = (int)(x % KEYS);
        len = snprintf(key, sizeof(key), "S:Tag#u%d\037S:t%d", k, k * 7);
        if ((x >> 32) % 3 == 0) {
            ddb_keyset_remove(&s, key, (size_t)len);
            present[k] = 0;
        } else {
            cr_assert_eq(ddb_keyset_add(&s, key, (size_t)len), 0);
            present[k] = 1;
        }
        if (step % 997 == 0) {
            size_t n = 0;
            for (int i = 0; i < KEYS; i++) {
                len = snprintf(key, sizeof(key), "S:Tag#u%d\037S:t%d", i, i * 7);
                cr_assert_eq(ddb_keyset_contains(&s, key, (size_t)len), in_list(present, i),
                             "key %d at step %d", i, step);
                n += (size_t)present[i];
            }
            cr_assert_eq(s.count, n);
        }
    }
    ddb_keyset_dispose(&s);
}

Test(keyset, removing_from_a_full_chain_keeps_the_rest_reachable)
{
    ddb_keyset s;
    char key[16];
    cr_assert_eq(ddb_keyset_init(&s, 8), 0);
    for (int i = 0; i < 8; i++)
        cr_assert_eq(ddb_keyset_add(&s, key, (size_t)snprintf(key, sizeof(key), "k%d", i)), 0);
    for (int i = 0; i < 8; i += 2)
        ddb_keyset_remove(&s, key, (size_t)snprintf(key, sizeof(key), "k%d", i));
    for (int i = 0; i < 8; i++)
        cr_assert_eq(ddb_keyset_contains(&s, key, (size_t)snprintf(key, sizeof(key), "k%d", i)),
                     i % 2, "k%d", i);
    ddb_keyset_dispose(&s);
}
