#include "ddbpipe/array.h"

#include <stdint.h>
#include <stdlib.h>

void *ddb_array_reserve(void *items, size_t count, size_t *cap, size_t size, size_t initial)
{
    size_t ncap;
    void *n;
    if (count < *cap)
        return items;
    ncap = *cap ? *cap * 2 : initial;
    if (ncap < *cap || ncap <= count || (size != 0 && ncap > SIZE_MAX / size))
        return NULL;
    if ((n = realloc(items, ncap * size)) == NULL)
        return NULL;
    *cap = ncap;
    return n;
}
