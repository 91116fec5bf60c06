/* ddb_arena_array_reserve: an arena array grows by doubling, keeps what it
 * held when it moves, and refuses a size that would overflow without
 * touching the array. */
#include <criterion/criterion.h>
#include <stdint.h>

#include "ddbpipe/arena.h"

Test(arena, array_reserve_grows_and_keeps_the_elements)
{
    ddb_arena *a = NULL;
    uint64_t *items = NULL, *filler;
    size_t count = 0, cap = 0;
    cr_assert_eq(ddb_arena_new(&a, 256), 0);
    for (uint64_t i = 0; i < 1000; i++) {
        uint64_t *n = ddb_arena_array_reserve(a, items, count, &cap, sizeof(*n), 4);
        cr_assert_not_null(n);
        cr_assert_gt(cap, count);
        items = n;
        items[count++] = i * 3;
        if (i % 7 == 0) /* something else allocated after it: the next growth copies */
            cr_assert_not_null(filler = ddb_arena_alloc(a, 24));
    }
    cr_assert_eq(cap, 1024);
    for (uint64_t i = 0; i < count; i++)
        cr_assert_eq(items[i], i * 3, "element %llu", (unsigned long long)i);
    {
        size_t huge = SIZE_MAX / 8 + 1, before = huge;
        cr_assert_null(ddb_arena_array_reserve(a, items, huge, &huge, 16, 4));
        cr_assert_eq(huge, before);
    }
    ddb_arena_free(a);
}
