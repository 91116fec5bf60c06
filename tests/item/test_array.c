/* ddb_array_reserve: a heap array grows by doubling from its first size,
 * keeps its elements, and refuses an overflowing size leaving the array and
 * its capacity as they were. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>

#include "ddbpipe/array.h"

Test(array, reserve_doubles_and_keeps_the_elements)
{
    uint32_t *items = NULL;
    size_t count = 0, cap = 0;
    for (uint32_t i = 0; i < 5000; i++) {
        uint32_t *n = ddb_array_reserve(items, count, &cap, sizeof(*n), 16);
        cr_assert_not_null(n);
        cr_assert_gt(cap, count);
        items = n;
        items[count++] = i ^ 0x5a5a;
        if (count == 16)
            cr_assert_eq(cap, 16);
        if (count == 17)
            cr_assert_eq(cap, 32);
    }
    for (uint32_t i = 0; i < count; i++)
        cr_assert_eq(items[i], i ^ 0x5a5a);
    {
        size_t huge = SIZE_MAX / 4 + 1, before = huge;
        cr_assert_null(ddb_array_reserve(items, huge, &huge, 8, 16));
        cr_assert_eq(huge, before);
    }
    free(items);
}
