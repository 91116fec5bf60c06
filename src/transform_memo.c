/*
 * transform_memo.c — which item shapes are known to round-trip.
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
#include <stdlib.h>
#include <string.h>

#include "transform_memo.h"

#define MEMO_SHAPES 32    /* shapes remembered, replaced round-robin */
#define MEMO_MAX_ATTRS 40 /* larger items are always re-encoded */
#define MEMO_NAME_BYTES 1024

typedef struct shape {
    const ddb_entity *entity;
    size_t count;
    unsigned char types[MEMO_MAX_ATTRS];
    unsigned short lens[MEMO_MAX_ATTRS];
    char names[MEMO_NAME_BYTES]; /* the names back to back */
} shape;

struct ddb_roundtrip_memo {
    shape shapes[MEMO_SHAPES];
    size_t used; /* shapes[0..used) are filled */
    size_t next; /* the slot the next new shape takes once all are */
    size_t last; /* the slot that matched last: tried first */
};

int ddb_roundtrip_memo_new(ddb_roundtrip_memo **out)
{
    *out = calloc(1, sizeof(**out));
    return *out ? 0 : DDB_ENOMEM;
}

void ddb_roundtrip_memo_free(ddb_roundtrip_memo *memo)
{
    free(memo);
}

static int same_shape(const shape *s, const ddb_entity *e, const ddb_item *item)
{
    const char *p = s->names;
    if (s->entity != e || s->count != item->count)
        return 0;
    for (size_t i = 0; i < item->count; i++) {
        const ddb_attr *at = &item->attrs[i];
        if (s->types[i] != (unsigned char)at->value.type || s->lens[i] != at->name.len ||
            !ddb_mem_eq(p, at->name.ptr, at->name.len))
            return 0;
        p += at->name.len;
    }
    return 1;
}

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

int ddb_roundtrip_memo_known(ddb_roundtrip_memo *memo, const ddb_decoded *d, const ddb_item *item)
{
    if (memo == NULL || d->entity == NULL || item->count > MEMO_MAX_ATTRS)
        return 0;
    for (size_t k = 0; k < memo->used; k++) {
        size_t at = memo->last + k < memo->used ? memo->last + k : memo->last + k - memo->used;
        const shape *s = &memo->shapes[at];
        if (!same_shape(s, d->entity, item))
            continue;
        memo->last = at;
        return 1;
    }
    return 0;
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
    size_t bytes = 0;

    if (absent_key_with_fields(d, item))
        return 0;

    if (item->count > MEMO_MAX_ATTRS)
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
    for (size_t i = 0; i < item->count; i++)
        bytes += item->attrs[i].name.len;
    return bytes <= MEMO_NAME_BYTES && values_unchanged(d);
}

void ddb_roundtrip_memo_learn(ddb_roundtrip_memo *memo, const ddb_decoded *d, const ddb_item *item)
{
    shape *s;
    char *p;

    if (memo == NULL || d->entity == NULL || !may_remember(d, item))
        return;
    if (memo->used < MEMO_SHAPES) {
        memo->last = memo->used++;
    } else {
        memo->last = memo->next;
        memo->next = (memo->next + 1) % MEMO_SHAPES;
    }
    s = &memo->shapes[memo->last];
    s->entity = d->entity;
    s->count = item->count;
    p = s->names;
    for (size_t i = 0; i < item->count; i++) {
        const ddb_attr *at = &item->attrs[i];
        s->types[i] = (unsigned char)at->value.type;
        s->lens[i] = (unsigned short)at->name.len;
        memcpy(p, at->name.ptr, at->name.len);
        p += at->name.len;
    }
}
