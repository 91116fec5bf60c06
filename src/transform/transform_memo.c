/*
 * transform_memo.c — which item shapes are known to round-trip: a memo kept
 * with the shape (shape.h) of the types its items had, per entity.
 *
 * The round-trip check re-encodes every decoded record and compares the
 * result with the item: about a sixth of an export's CPU. What it can find
 * beyond decode's own checks (every key attribute the item has re-renders
 * byte for byte from the decoded fields) depends on the item's shape (its
 * attribute names and types, in order), not on its values, as long as
 * re-encoding takes the decoded values unchanged:
 *   - keys that would be added (all their fields present, the attribute not),
 *   - stored fields that would be added, renamed (aliases) or dropped,
 *   - the type attribute, lone constant index keys, dropped undeclared ones,
 *   - a value of another type than its field's (re-encoding converts it).
 * So a shape that round-tripped once round-trips again, for an entity whose
 * fields encode as they decode (no weekday spelling), for records whose
 * declared values already have their field's type, when no undeclared
 * attribute is read back as a field (`_extra`, or a field's own name), and
 * when no key the item lacks has any of its fields: re-encoding renders those
 * fields before it meets the missing one, and refuses some values (empty,
 * holding the next separator, too wide for their padding) that others pass.
 */
#include <string.h>

#include "ddbpipe/shape.h"
#include "transform/transform_memo.h"

/* Re-encoding takes every declared value of this record unchanged: decode
 * gives each its field's type (or NULL), which this checks of the first item
 * of a shape. The declared attributes come in field order, named by the
 * fields' own names. */
static int values_unchanged(const ddb_decoded *d)
{
    const ddb_entity *e = d->entity;
    size_t fi = 0;
    for (size_t i = 0; i < d->n_declared; i++) {
        const ddb_attr *at = &d->record.attrs[i];
        while (fi < e->n_fields && e->fields[fi].name != at->name.ptr)
            fi++;
        if (fi == e->n_fields)
            return 0;
        if (at->value.type != e->fields[fi].type && at->value.type != DDB_TYPE_NULL)
            return 0;
    }
    return 1;
}

int ddb_roundtrip_memo_known(const ddb_shape *sh, const ddb_decoded *d, const ddb_item *item)
{
    size_t n = 0;
    const unsigned char *types;

    if (sh == NULL || d->entity == NULL)
        return 0;
    types = ddb_shape_memo(sh, d->entity, DDB_SHAPE_ROUND_TRIP, &n);
    if (types == NULL || n != item->count)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (types[i] != (unsigned char)item->attrs[i].value.type)
            return 0;
    return 1;
}

/* Has the record a value (not NULL) for field fi? */
static int field_present(const ddb_decoded *d, int fi)
{
    const char *name = d->entity->fields[fi].name;
    for (size_t i = 0; i < d->n_declared; i++)
        if (d->record.attrs[i].name.ptr == name)
            return d->record.attrs[i].value.type != DDB_TYPE_NULL;
    return 0;
}

/* A key the item lacks but some of whose fields it has: re-encoding renders
 * those fields before it meets the missing one, and refuses some values
 * (empty, holding the next separator, unpaddable) that others pass. */
static int absent_key_with_fields(const ddb_decoded *d, const ddb_item *item)
{
    const ddb_entity *e = d->entity;
    for (size_t k = 0; k < e->n_keys; k++) {
        const ddb_template *t = &e->keys[k];
        if (ddb_map_find(item, t->attr, t->attr_len) >= 0)
            continue;
        for (size_t s = 0; s < t->n_segs; s++)
            if (t->segs[s].field >= 0 && field_present(d, t->segs[s].field))
                return 1;
    }
    return 0;
}

/* Shapes whose verdict could depend on values are never remembered. */
static int may_remember(const ddb_decoded *d, const ddb_item *item)
{
    const ddb_entity *e = d->entity;

    if (absent_key_with_fields(d, item))
        return 0;
    for (size_t i = 0; i < e->n_fields; i++)
        if (e->fields[i].format == DDB_FMT_WEEKDAY)
            return 0;
    for (size_t i = d->n_declared; i < d->record.count; i++) {
        const ddb_str *n = &d->record.attrs[i].name;
        if (ddb_entity_field_index(e, n->ptr, n->len) >= 0 ||
            (n->len == strlen(DDB_EXTRA_FIELD) && ddb_mem_eq(n->ptr, DDB_EXTRA_FIELD, n->len)))
            return 0;
    }
    return values_unchanged(d);
}

void ddb_roundtrip_memo_learn(ddb_shape *sh, const ddb_decoded *d, const ddb_item *item)
{
    unsigned char *types;

    if (sh == NULL || d->entity == NULL || !may_remember(d, item))
        return;
    if ((types = ddb_shape_memo_put(sh, d->entity, DDB_SHAPE_ROUND_TRIP, item->count)) == NULL)
        return;
    for (size_t i = 0; i < item->count; i++)
        types[i] = (unsigned char)item->attrs[i].value.type;
}
