/*
 * An item's key attributes checked against its table's key schema (see item.h): the table's
 * keys present and the indexes' keys when there, each of its declared type, not empty, within
 * DynamoDB's byte limits; their positions kept per item shape.
 */
#include "ddbpipe/item.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ddbpipe/codec.h"
#include "ddbpipe/number.h"
#include "ddbpipe/shape.h"
#include "core/item_internal.h"

/*
 * One key attribute, item->attrs[at] (at < 0: absent): presence (when
 * required), declared type, non-empty, and the byte limit. validate is set
 * when the value was not already checked by walk() (key-only requests).
 */
static int check_key(const ddb_item *item, ptrdiff_t at, const ddb_key_attr *ka, const char *role,
                     size_t max, int required, int validate, ddb_error *err)
{
    const ddb_value *v = at >= 0 ? &item->attrs[at].value : NULL;
    size_t size, bad = 0;
    int rc;

    if (ka->type != DDB_TYPE_S && ka->type != DDB_TYPE_N && ka->type != DDB_TYPE_B)
        return ddb_error_set(err, DDB_EUSAGE, "%s '%s' is declared as %s; keys must be S, N or B",
                             role, ka->name, ddb_type_name(ka->type));
    if (v == NULL) {
        if (!required)
            return 0;
        return ddb_error_set(err, DDB_EINVAL, "missing %s '%s'", role, ka->name);
    }
    if (v->type != ka->type)
        return ddb_error_set(err, DDB_EINVAL, "%s '%s' must be %s, got %s", role, ka->name,
                             ddb_type_name(ka->type), ddb_type_name(v->type));
    if (v->type == DDB_TYPE_N) {
        ddb_number num;
        if ((rc = ddb_number_parse(&num, v->u.s.ptr, v->u.s.len, err)) != 0) {
            if (err)
                ddb_error_prefix(err, "%s '%s': ", role, ka->name);
            return rc;
        }
        size = ddb_number_size(&num);
    } else {
        if (v->u.s.len == 0)
            return ddb_error_set(err, DDB_EINVAL, "%s '%s' is empty", role, ka->name);
        if (validate && v->type == DDB_TYPE_S && !ddb_utf8_valid(v->u.s.ptr, v->u.s.len, &bad))
            return ddb_error_set(err, DDB_EINVAL, "%s '%s' is not valid UTF-8 (byte %zu)", role,
                                 ka->name, bad);
        size = v->u.s.len;
    }
    if (size > max)
        return ddb_error_set(err, DDB_ETOOBIG, "%s '%s' is %zu bytes (max %zu)", role, ka->name,
                             size, max);
    return 0;
}

/* Where a key attribute is in item, or -1; names is the item's name mask,
 * so the index keys a sparse item lacks are known absent without a search. */
static ptrdiff_t find_key(const ddb_item *item, uint64_t names, const ddb_key_attr *ka)
{
    size_t nlen;
    if (ka->name == NULL)
        return -1;
    nlen = strlen(ka->name);
    return names & ddb_name_bit(ka->name, nlen) ? ddb_map_find(item, ka->name, nlen) : -1;
}

/* The positions of ks's key attributes in an item of shape sh (partition,
 * sort, index partition keys, index sort keys), as bytes: the names are the
 * same for every item of a shape. */
static const signed char *key_positions(const ddb_item *item, const ddb_key_schema *ks,
                                        ddb_shape *sh)
{
    size_t n = 2 + ks->n_index_pk + ks->n_index_sk, got = 0;
    const signed char *kept = ddb_shape_memo(sh, ks, DDB_SHAPE_KEY_POSITIONS, &got);
    signed char *pos;
    uint64_t names;

    if (kept != NULL && got == n)
        return kept;
    if ((pos = ddb_shape_memo_put(sh, ks, DDB_SHAPE_KEY_POSITIONS, n)) == NULL)
        return NULL;
    names = ddb_shape_name_mask(sh);
    pos[0] = (signed char)find_key(item, names, &ks->partition);
    pos[1] = (signed char)find_key(item, names, &ks->sort);
    for (size_t i = 0; i < ks->n_index_pk; i++)
        pos[2 + i] = (signed char)find_key(item, names, &ks->index_pk[i]);
    for (size_t i = 0; i < ks->n_index_sk; i++)
        pos[2 + ks->n_index_pk + i] = (signed char)find_key(item, names, &ks->index_sk[i]);
    return pos;
}

/* 1 when check_key would pass the key at (-1: absent) without a word, known
 * at a glance, without the call: an index key the item does not have (a
 * sparse index) of a type a key can have, or a string of the declared type,
 * not empty, not too long, its UTF-8 checked by the parser already. */
static inline int nothing_to_check(const ddb_item *item, ptrdiff_t at, const ddb_key_attr *ka,
                                   size_t max, int required, int validate)
{
    const ddb_value *v;
    if (at < 0)
        return !required &&
               (ka->type == DDB_TYPE_S || ka->type == DDB_TYPE_N || ka->type == DDB_TYPE_B);
    v = &item->attrs[at].value;
    return !validate && v->type == DDB_TYPE_S && ka->type == DDB_TYPE_S && v->u.s.len - 1 < max;
}

int ddb_item_check_keys(const ddb_item *item, const ddb_key_schema *ks, int with_indexes,
                        int validate, ddb_shape *sh, ddb_error *err)
{
    const signed char *pos = sh ? key_positions(item, ks, sh) : NULL;
    uint64_t names = pos ? 0 : ddb_map_name_mask(item);
    size_t n_pk = ks->n_index_pk;
    int rc;

#define AT(i, ka) (pos ? (ptrdiff_t)pos[i] : find_key(item, names, ka))
#define CHECK(i, ka, role, max, required)                                                          \
    do {                                                                                           \
        ptrdiff_t at_ = AT(i, ka);                                                                 \
        if (!nothing_to_check(item, at_, ka, max, required, validate) &&                           \
            (rc = check_key(item, at_, ka, role, max, required, validate, err)) != 0)              \
            return rc;                                                                             \
    } while (0)
    CHECK(0, &ks->partition, "partition key", DDB_PARTITION_KEY_MAX, 1);
    if (ks->sort.name != NULL)
        CHECK(1, &ks->sort, "sort key", DDB_SORT_KEY_MAX, 1);
    if (!with_indexes)
        return 0;
    for (size_t i = 0; i < n_pk; i++)
        CHECK(2 + i, &ks->index_pk[i], "index partition key", DDB_PARTITION_KEY_MAX, 0);
    for (size_t i = 0; i < ks->n_index_sk; i++)
        CHECK(2 + n_pk + i, &ks->index_sk[i], "index sort key", DDB_SORT_KEY_MAX, 0);
#undef CHECK
#undef AT
    return 0;
}

int ddb_item_check_keys_shaped(const ddb_item *item, const ddb_key_schema *ks, ddb_shape *shape,
                               ddb_error *err)
{
    if (ks == NULL || ks->partition.name == NULL)
        return 0;
    return ddb_item_check_keys(item, ks, 1, 0, shape, err);
}

int ddb_item_validate_key(const ddb_item *key, const ddb_key_schema *ks, ddb_error *err)
{
    if (ks == NULL || ks->partition.name == NULL)
        return 0;
    return ddb_item_check_keys(key, ks, 0, 1, NULL, err);
}
