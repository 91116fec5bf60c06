/*
 * array.h — growing heap arrays by doubling, in one place.
 */
#ifndef DDBPIPE_ARRAY_H
#define DDBPIPE_ARRAY_H

#include <stddef.h>

/*
 * Room for one more element in a heap array of count elements of size bytes
 * (capacity *cap; items may be NULL while *cap is 0): returns the array,
 * reallocated to twice the room when full (initial elements at first), with
 * *cap updated; NULL on OOM or overflow, the array and *cap as they were
 * (still owned by the caller). The caller stores the element at [count].
 */
void *ddb_array_reserve(void *items, size_t count, size_t *cap, size_t size, size_t initial);

#endif
