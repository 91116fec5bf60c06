/*
 * The shape cache (shape.c) must tell two items' names apart whenever one
 * byte differs, whatever the hash says, and keep memos per tag and owner.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "ddbpipe/rng.h"
#include "ddbpipe/shape.h"

static const char owner; /* a memo owner: only its address counts */

/* shape.c: every shape of a count hashes alike while set */
extern int ddb_shape_collide;

/* An item of n attributes named names[i] (values unused). */
static ddb_map item_of(ddb_attr *attrs, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        attrs[i].name.ptr = names[i];
        attrs[i].name.len = strlen(names[i]);
        attrs[i].value = ddb_value_str(DDB_TYPE_S, "v", 1);
    }
    return (ddb_map){attrs, n};
}

Test(shape, same_names_same_shape_other_names_other)
{
    ddb_shape_cache *c;
    ddb_attr a1[3], a2[3], a3[3];
    const char *n1[] = {"pk", "sk", "title"};
    char pk[] = "pk", sk[] = "sk", title[] = "title"; /* the same bytes elsewhere */
    const char *n2[] = {pk, sk, title};
    const char *n3[] = {"pk", "sk", "titlf"};
    ddb_map i1 = item_of(a1, n1, 3), i2 = item_of(a2, n2, 3), i3 = item_of(a3, n3, 3);
    ddb_shape *s1, *s3;

    cr_assert_eq(ddb_shape_cache_new(&c), 0);
    s1 = ddb_shape_cache_find(c, &i1);
    cr_assert_not_null(s1);
    cr_assert_eq(ddb_shape_cache_find(c, &i2), s1);
    s3 = ddb_shape_cache_find(c, &i3);
    cr_assert_not_null(s3);
    cr_assert_neq(s3, s1);
    cr_assert_eq(ddb_shape_cache_find(c, &i1), s1, "the first shape is still kept");
    cr_assert_eq(ddb_shape_name_mask(s1), ddb_map_name_mask(&i1));
    ddb_shape_cache_free(c);
}

/* One byte changed anywhere in a name of any length up to 80 (the words
 * hold 16 bytes of a name: the rest must be compared too), or the same
 * bytes split between two names another way: never the same shape. */
static void every_byte_counts(void)
{
    ddb_shape_cache *c;
    char base[81], other[81];
    ddb_attr a[2], b[2];
    size_t tried = 0;

    cr_assert_eq(ddb_shape_cache_new(&c), 0);
    for (size_t len = 1; len <= 80; len++) {
        for (size_t i = 0; i < len; i++)
            base[i] = (char)('a' + (i * 7 + len) % 26);
        base[len] = '\0';
        for (size_t at = 0; at < len; at++) {
            const char *nb[] = {"pk", base}, *no[] = {"pk", other};
            ddb_map ib, io;
            ddb_shape *sb, *so;
            memcpy(other, base, len + 1);
            other[at] ^= 0x20;
            ib = item_of(a, nb, 2);
            io = item_of(b, no, 2);
            sb = ddb_shape_cache_find(c, &ib);
            /* a memo on the first: the second must not see it */
            *(char *)ddb_shape_memo_put(sb, &owner, DDB_SHAPE_KEY_POSITIONS, 1) = 1;
            so = ddb_shape_cache_find(c, &io);
            cr_assert_not_null(so);
            cr_assert_null(ddb_shape_memo(so, &owner, DDB_SHAPE_KEY_POSITIONS, NULL),
                           "'%s' taken for '%s'", other, base);
            tried++;
        }
    }
    {
        const char *x[] = {"ab", "c"}, *y[] = {"a", "bc"};
        ddb_map ix = item_of(a, x, 2), iy = item_of(b, y, 2);
        ddb_shape *sx = ddb_shape_cache_find(c, &ix);
        *(char *)ddb_shape_memo_put(sx, &owner, DDB_SHAPE_KEY_POSITIONS, 1) = 1;
        cr_assert_null(
            ddb_shape_memo(ddb_shape_cache_find(c, &iy), &owner, DDB_SHAPE_KEY_POSITIONS, NULL));
    }
    cr_assert_gt(tried, 3000);
    ddb_shape_cache_free(c);
}

Test(shape, every_byte_counts)
{
    every_byte_counts();
}

/* The same when every shape hashes alike: the names alone tell them apart. */
Test(shape, every_byte_counts_when_hashes_collide)
{
    ddb_shape_collide = 1;
    every_byte_counts();
    ddb_shape_collide = 0;
}

/* Names that share their first and last eight bytes and length but differ
 * in between: the hash is the same, the shapes are not. */
Test(shape, same_words_differ_in_the_middle)
{
    ddb_shape_cache *c;
    const char *x[] = {"headhead-MIDDLE1-tailtail"}, *y[] = {"headhead-MIDDLE2-tailtail"};
    ddb_attr a[1], b[1];
    ddb_map ix = item_of(a, x, 1), iy = item_of(b, y, 1);
    ddb_shape *sx, *sy;

    cr_assert_eq(ddb_shape_cache_new(&c), 0);
    sx = ddb_shape_cache_find(c, &ix);
    sy = ddb_shape_cache_find(c, &iy);
    cr_assert_neq(sx, sy);
    cr_assert_eq(ddb_shape_cache_find(c, &iy), sy);
    cr_assert_neq(ddb_shape_cache_find(c, &ix), sy);
    ddb_shape_cache_free(c);
}

Test(shape, too_large_items_have_none)
{
    ddb_shape_cache *c;
    static ddb_attr attrs[DDB_SHAPE_MAX_NAMES + 1];
    static char names[DDB_SHAPE_MAX_NAMES + 1][24];
    static char big[1100];
    const char *np[DDB_SHAPE_MAX_NAMES + 1];
    ddb_map item;

    cr_assert_eq(ddb_shape_cache_new(&c), 0);
    for (size_t i = 0; i <= DDB_SHAPE_MAX_NAMES; i++) {
        snprintf(names[i], sizeof(names[i]), "n%zu", i);
        np[i] = names[i];
    }
    item = item_of(attrs, np, DDB_SHAPE_MAX_NAMES);
    cr_assert_not_null(ddb_shape_cache_find(c, &item));
    item = item_of(attrs, np, DDB_SHAPE_MAX_NAMES + 1);
    cr_assert_null(ddb_shape_cache_find(c, &item));
    memset(big, 'x', sizeof(big) - 1);
    np[0] = big;
    item = item_of(attrs, np, 1);
    cr_assert_null(ddb_shape_cache_find(c, &item), "over a KB of names is not kept");
    cr_assert_null(ddb_shape_cache_find(NULL, &item));
    ddb_shape_cache_free(c);
    ddb_shape_cache_free(NULL);
}

Test(shape, memos_by_tag_and_owner)
{
    ddb_shape_cache *c;
    const char *n[] = {"pk"};
    ddb_attr a[1];
    ddb_map item = item_of(a, n, 1);
    static const char owner1 = 0, owner2 = 0;
    ddb_shape *s;
    unsigned char *p;
    const unsigned char *q;
    size_t len = 0;

    cr_assert_eq(ddb_shape_cache_new(&c), 0);
    s = ddb_shape_cache_find(c, &item);
    cr_assert_null(ddb_shape_memo(s, &owner1, DDB_SHAPE_KEY_POSITIONS, NULL));
    p = ddb_shape_memo_put(s, &owner1, DDB_SHAPE_KEY_POSITIONS, 3);
    memcpy(p, "\1\2\3", 3);
    p = ddb_shape_memo_put(s, &owner1, DDB_SHAPE_TABLE_KEYS, 2);
    memcpy(p, "\7\7", 2);
    q = ddb_shape_memo(s, &owner1, DDB_SHAPE_KEY_POSITIONS, &len);
    cr_assert(q != NULL && len == 3 && memcmp(q, "\1\2\3", 3) == 0);
    cr_assert_null(ddb_shape_memo(s, &owner2, DDB_SHAPE_KEY_POSITIONS, NULL), "another owner");
    /* another owner's memo of the tag replaces it */
    p = ddb_shape_memo_put(s, &owner2, DDB_SHAPE_KEY_POSITIONS, 1);
    *p = 9;
    cr_assert_null(ddb_shape_memo(s, &owner1, DDB_SHAPE_KEY_POSITIONS, NULL));
    q = ddb_shape_memo(s, &owner2, DDB_SHAPE_KEY_POSITIONS, &len);
    cr_assert(q != NULL && len == 1 && *q == 9);
    q = ddb_shape_memo(s, &owner1, DDB_SHAPE_TABLE_KEYS, &len);
    cr_assert(q != NULL && len == 2 && memcmp(q, "\7\7", 2) == 0, "other tags stay");
    /* room runs out: the memos go, the newest is whole */
    for (int i = 0; i < 200; i++) {
        p = ddb_shape_memo_put(s, &owner1, DDB_SHAPE_ROUND_TRIP, 40);
        cr_assert_not_null(p);
        memset(p, i, 40);
        q = ddb_shape_memo(s, &owner1, DDB_SHAPE_ROUND_TRIP, &len);
        cr_assert(q == p && len == 40 && q[39] == (unsigned char)i);
    }
    cr_assert_null(ddb_shape_memo_put(s, &owner1, DDB_SHAPE_ROUND_TRIP, 100000), "too large");
    cr_assert_null(ddb_shape_memo_put(NULL, &owner1, DDB_SHAPE_ROUND_TRIP, 1));
    cr_assert_null(ddb_shape_memo(NULL, &owner1, DDB_SHAPE_ROUND_TRIP, NULL));
    ddb_shape_cache_free(c);
}

/* Many more shapes than are kept, in a random order, each with a memo of
 * its own number: a shape found again either has its own memo or none. */
static void many_shapes_never_mixed(size_t min_found)
{
    ddb_shape_cache *c;
    char names[500][3][16];
    ddb_attr attrs[3];
    ddb_rng rng;
    size_t found = 0;

    cr_assert_eq(ddb_shape_cache_new(&c), 0);
    ddb_rng_seed(&rng, 42);
    for (int i = 0; i < 500; i++)
        for (int k = 0; k < 3; k++)
            snprintf(names[i][k], sizeof(names[i][k]), "%c%d", 'a' + k, (i * (k + 3)) % 997);
    for (int step = 0; step < 20000; step++) {
        int i = (int)(ddb_rng_next(&rng) % 500);
        const char *np[] = {names[i][0], names[i][1], names[i][2]};
        ddb_map item = item_of(attrs, np, 3);
        ddb_shape *s = ddb_shape_cache_find(c, &item);
        const int *kept = ddb_shape_memo(s, &owner, DDB_SHAPE_ROUND_TRIP, NULL);
        cr_assert_not_null(s);
        if (kept != NULL) {
            cr_assert_eq(*kept, i, "shape %d has the memo of %d", i, *kept);
            found++;
        } else {
            *(int *)ddb_shape_memo_put(s, &owner, DDB_SHAPE_ROUND_TRIP, sizeof(int)) = i;
        }
    }
    cr_assert_geq(found, min_found, "shapes are kept (%zu found)", found);
    ddb_shape_cache_free(c);
}

Test(shape, many_shapes_never_mixed)
{
    many_shapes_never_mixed(1000);
}

/* All in one set of two: few are found again, none mixed. */
Test(shape, many_shapes_never_mixed_when_hashes_collide)
{
    ddb_shape_collide = 1;
    many_shapes_never_mixed(10);
    ddb_shape_collide = 0;
}

/* A names id met before finds its shape; once that shape is made over for
 * other names (its set full of others), the id no longer finds it and the
 * names are read again. */
Test(shape, a_names_id_finds_its_shape_until_it_is_made_over)
{
    ddb_shape_cache *c;
    ddb_attr a[2], b[2], d[2];
    const char *na[] = {"pk", "sk"}, *nb[] = {"pk", "sb"}, *nd[] = {"pk", "sd"};
    ddb_map ia = item_of(a, na, 2), ib = item_of(b, nb, 2), id = item_of(d, nd, 2);
    ddb_shape *sa;

    ddb_shape_collide = 1; /* every item of two names goes to one set of two */
    cr_assert_eq(ddb_shape_cache_new(&c), 0);
    sa = ddb_shape_cache_find_named(c, &ia, 7);
    cr_assert_not_null(sa);
    cr_assert_eq(ddb_shape_cache_find_named(c, &ia, 7), sa);
    cr_assert_eq(ddb_shape_cache_find_named(c, &ia, 0), sa, "no id: read as before");
    /* two other shapes take both ways of the set: sa's place is made over */
    cr_assert_not_null(ddb_shape_cache_find(c, &ib));
    cr_assert_not_null(ddb_shape_cache_find(c, &id));
    cr_assert_eq(ddb_shape_name_mask(ddb_shape_cache_find_named(c, &ia, 7)),
                 ddb_map_name_mask(&ia));
    cr_assert_eq(ddb_shape_cache_find_named(c, &ia, 7), ddb_shape_cache_find(c, &ia));
    ddb_shape_collide = 0;
    ddb_shape_cache_free(c);
}

/* A make that fails in a names id's slot (names too long to keep) leaves it
 * so that the id still finds a shape of exactly its names. */
Test(shape, a_names_id_survives_a_failed_make_in_its_slot)
{
    ddb_shape_cache *c;
    static char long1[700], long2[700];
    ddb_attr a[2], b[2];
    const char *na[] = {"pk", "sk"}, *nb[] = {long1, long2};
    ddb_map ia, ib;
    ddb_shape *sa;

    memset(long1, 'x', sizeof(long1) - 1);
    memset(long2, 'y', sizeof(long2) - 1);
    ia = item_of(a, na, 2);
    ib = item_of(b, nb, 2);
    ddb_shape_collide = 1; /* both go to one set of two ways */
    cr_assert_eq(ddb_shape_cache_new(&c), 0);
    cr_assert_not_null(sa = ddb_shape_cache_find_named(c, &ia, 7));
    /* two items too long to keep take the set's ways: the first fails where sa was not,
     * the second where it was */
    cr_assert_null(ddb_shape_cache_find(c, &ib));
    cr_assert_null(ddb_shape_cache_find(c, &ib));
    sa = ddb_shape_cache_find_named(c, &ia, 7);
    cr_assert_not_null(sa);
    cr_assert_eq(ddb_shape_name_mask(sa), ddb_map_name_mask(&ia));
    cr_assert_eq(sa, ddb_shape_cache_find(c, &ia), "the names were read again and kept");
    ddb_shape_collide = 0;
    ddb_shape_cache_free(c);
}
