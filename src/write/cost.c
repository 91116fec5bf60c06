/*
 * cost.c — capacity units by DynamoDB's rules (cost.h). The item size rules
 * are ddb_value_size()'s; what is added here is which attributes an index
 * entry holds.
 */
#include "ddbpipe/cost.h"

#include <assert.h>
#include <string.h>

static uint64_t kb_units(size_t size)
{
    return size == 0 ? 1 : ((uint64_t)size + 1023) / 1024;
}

static int has_attr(const ddb_map *item, const char *name)
{
    return name != NULL && ddb_map_getz(item, name) != NULL;
}

/* The size of one attribute (name and value) of item, 0 when absent. */
static size_t attr_size(const ddb_map *item, const char *name)
{
    const ddb_value *v = name ? ddb_map_getz(item, name) : NULL;
    return v ? strlen(name) + ddb_value_size(v) : 0;
}

/* Whether name is one of the n names in list (NULLs allowed). */
static int among(const char *name, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (list[i] != NULL && strcmp(list[i], name) == 0)
            return 1;
    return 0;
}

/* The size of ix's entry for item: the table's and the index's keys, and
 * the projected attributes (all of them for ALL). */
static size_t index_entry_size(const ddb_map *item, size_t size, const ddb_table_info *t,
                               const ddb_index_info *ix)
{
    const char *keys[4] = {t->pk.name, t->sk.name, ix->pk.name, ix->sk.name};
    size_t n = 0;
    if (ix->projection != NULL && strcmp(ix->projection, "ALL") == 0)
        return size;
    for (size_t i = 0; i < 4; i++)
        if (keys[i] != NULL && !among(keys[i], keys, i))
            n += attr_size(item, keys[i]);
    for (size_t i = 0; i < ix->n_non_key; i++)
        if (!among(ix->non_key[i], keys, 4))
            n += attr_size(item, ix->non_key[i]);
    return n;
}

uint64_t ddb_cost_put_units(const ddb_map *item, size_t size, const ddb_table_info *t,
                            uint64_t *index_units)
{
    assert(item != NULL && index_units != NULL);
    *index_units = 0;
    for (size_t i = 0; t != NULL && i < t->n_indexes; i++) {
        const ddb_index_info *ix = &t->indexes[i];
        /* an index holds only the items that carry its key attributes (sparse) */
        if (!has_attr(item, ix->pk.name) || (ix->sk.name && !has_attr(item, ix->sk.name)))
            continue;
        *index_units += kb_units(index_entry_size(item, size, t, ix));
    }
    return kb_units(size);
}

uint64_t ddb_cost_scan_units(uint64_t bytes, int consistent)
{
    uint64_t units = (bytes + 4095) / 4096;
    return consistent ? units : (units + 1) / 2;
}
