/*
 * freewatch.h — include in exactly one file of a test binary linked with
 * ld --wrap=free,--wrap=realloc: every block freed, or moved by realloc (here
 * realloc always moves, so a growth that would leave a copy behind is seen),
 * is searched for fw_watched; fw_unwiped counts the blocks that held it.
 */
#ifndef DDB_FREEWATCH_H
#define DDB_FREEWATCH_H

#include <malloc.h>
#include <string.h>

#include "support/testutil.h"

void *__real_realloc(void *p, size_t n);
void __real_free(void *p);

static const char *fw_watched; /* the text no freed block may hold */
static int fw_unwiped;

void *__wrap_realloc(void *p, size_t n);
void *__wrap_realloc(void *p, size_t n)
{
    size_t old;
    void *q;
    if (p == NULL)
        return malloc(n);
    old = malloc_usable_size(p);
    if ((q = malloc(n ? n : 1)) == NULL)
        return NULL;
    memcpy(q, p, old < n ? old : n);
    if (fw_watched != NULL && tu_holds(p, old, fw_watched))
        fw_unwiped++;
    __real_free(p);
    return q;
}

void __wrap_free(void *p);
void __wrap_free(void *p)
{
    if (p != NULL && fw_watched != NULL && tu_holds(p, malloc_usable_size(p), fw_watched))
        fw_unwiped++;
    __real_free(p);
}

#endif
