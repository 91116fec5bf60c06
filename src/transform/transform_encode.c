/*
 * transform_encode.c — records to items: every key and index attribute
 * computed from the fields, undeclared attributes carried along, and the
 * round-trip check that a decoded record encodes back to its very item.
 */
#include <stdio.h>
#include <string.h>

#include "ddbpipe/json.h"
#include "transform/template.h"
#include "transform/transform_internal.h"
#include "transform/transform_memo.h"

/* ---------------------------------------------------------- encode */

typedef struct extras {
    ddb_attr *attrs;
    size_t count;
    size_t cap;
} extras;

static int extras_add(extras *x, const ddb_attr *at, ddb_arena *a)
{
    ddb_attr *n = ddb_arena_array_reserve(a, x->attrs, x->count, &x->cap, sizeof(*n), 8);
    if (n == NULL)
        return DDB_ENOMEM;
    x->attrs = n;
    x->attrs[x->count++] = *at;
    return 0;
}

/* Takes a record value for field fi: converted to the declared type and checked. */
static int take_field(tctx *c, int fi, const ddb_value *v, const char *source)
{
    const ddb_field *f = &c->e->fields[fi];
    ddb_value conv;
    int rc;
    if ((rc = ddb_value_convert(&conv, v, f->type, c->a, c->err)) != 0)
        return ddb_error_prefix(c->err, "field %s: ", f->name);
    /* the constraint messages name the field themselves; a decoded record's
     * values passed them already */
    if (!c->decoded && (rc = tf_check_constraints(f, &conv, c->err)) != 0)
        return rc;
    if (f->format == DDB_FMT_WEEKDAY && conv.type == DDB_TYPE_S) {
        /* one day, one key: whatever the record's spelling, the mapping's */
        char day[16];
        size_t n = ddb_weekday_spell(f, conv.u.s.ptr, conv.u.s.len, day);
        char *copy = n ? ddb_arena_memdup(c->a, day, n) : NULL;
        if (n && copy == NULL)
            return tf_oom(c->err);
        if (n)
            conv = ddb_value_str(DDB_TYPE_S, copy, n);
    }
    return tf_set_slot(c, fi, &conv, source);
}

/* Unpacks `_extra`: JSON text (CSV), a plain-JSON map in DynamoDB JSON shape
 * (NDJSON) or, for typed records, a map of typed values. */
static int take_extra(tctx *c, const ddb_value *v, int typed, extras *x)
{
    ddb_value parsed;
    const ddb_map *mm;
    int rc;

    if (v->type == DDB_TYPE_NULL)
        return 0;
    if (v->type == DDB_TYPE_S) {
        ddb_json_parser *p = NULL;
        if (v->u.s.len == 0)
            return 0;
        if (ddb_json_parser_new(&p) != 0)
            return tf_oom(c->err);
        parsed.type = DDB_TYPE_M;
        rc = ddb_json_parse_typed_map(p, &parsed.u.m, v->u.s.ptr, v->u.s.len, c->a, c->err);
        ddb_json_parser_free(p);
        if (rc != 0)
            return ddb_error_prefix(c->err, "%s: ", DDB_EXTRA_FIELD);
        typed = 1;
        v = &parsed;
    }
    if (v->type != DDB_TYPE_M)
        return ddb_error_set(c->err, DDB_EINVAL, "%s must be an object of DynamoDB JSON values",
                             DDB_EXTRA_FIELD);
    mm = &v->u.m;
    for (size_t i = 0; i < mm->count; i++) {
        ddb_attr at = mm->attrs[i];
        int fi;
        if (!typed &&
            (rc = ddb_value_from_typed_json(&at.value, &mm->attrs[i].value, c->a, c->err)) != 0)
            return ddb_error_prefix(c->err, "%s.%.*s: ", DDB_EXTRA_FIELD, (int)at.name.len,
                                    at.name.ptr);
        fi = ddb_entity_field_index(c->e, at.name.ptr, at.name.len);
        if (fi >= 0) {
            if (!c->slots[fi].set && (rc = take_field(c, fi, &at.value, DDB_EXTRA_FIELD)) != 0)
                return rc;
            continue;
        }
        if (extras_add(x, &at, c->a) != 0)
            return tf_oom(c->err);
    }
    return 0;
}

/* A template without fields: the same text for every record. */
static int is_constant(const ddb_template *t)
{
    for (size_t i = 0; i < t->n_segs; i++)
        if (t->segs[i].field >= 0)
            return 0;
    return 1;
}

/*
 * A constant index key attribute ("GSI_2_SK": "root") belongs in the item
 * only when the index's other key attribute is there too: an index that
 * should be sparse must not get a sort key without a partition key. An LSI's
 * partition key is the table's, always there; a GSI without a sort key has
 * nothing to wait for.
 */
static int constant_wanted(const ddb_mapping *m, const char *attr, const ddb_attr *attrs, size_t n)
{
    int in_index = 0;
    for (size_t i = 0; i < m->table.n_indexes; i++) {
        const ddb_index_def *ix = &m->table.indexes[i];
        const char *other;
        if (ix->pk.name != NULL && strcmp(ix->pk.name, attr) == 0)
            other = ix->sk.name;
        else if (ix->sk.name != NULL && strcmp(ix->sk.name, attr) == 0)
            other = ix->global ? ix->pk.name : NULL;
        else
            continue;
        in_index = 1;
        if (other == NULL)
            return 1;
        for (size_t k = 0; k < n; k++)
            if (attrs[k].name.len == strlen(other) &&
                memcmp(attrs[k].name.ptr, other, attrs[k].name.len) == 0)
                return 1;
    }
    return !in_index;
}

/* Leaves out the constant index key attributes whose partner is absent. */
static size_t drop_lone_constants(const ddb_mapping *m, const ddb_entity *e, ddb_attr *attrs,
                                  size_t n)
{
    size_t keep = n;
    for (size_t k = 0; k < e->n_keys; k++) {
        const ddb_template *t = &e->keys[k];
        if (t->role != DDB_ROLE_INDEX || !is_constant(t) ||
            constant_wanted(m, t->attr, attrs, keep))
            continue;
        for (size_t i = 0; i < keep; i++) {
            if (attrs[i].name.ptr == t->attr) {
                memmove(&attrs[i], &attrs[i + 1], (keep - i - 1) * sizeof(*attrs));
                keep--;
                break;
            }
        }
    }
    return keep;
}

/* How encode ends: the item checked against DynamoDB's rules and the key
 * schema, or (a round-trip check of an item already checked) not. */
enum { ENC_FULL = 0, ENC_KEYS = 1, ENC_UNCHECKED = 2 };

/* Sorts the record's attributes: declared fields into c's slots, _extra's
 * attributes and undeclared ones into x. Then, unless keys_only, every
 * required field must be set and not NULL. Returns 0, DDB_EINVAL or
 * DDB_ENOMEM. */
static inline int take_record(tctx *c, const ddb_map *record, int typed, int keys_only, extras *x)
{
    const ddb_entity *e = c->e;
    int rc;

    for (size_t i = 0; i < record->count; i++) {
        const ddb_attr *at = &record->attrs[i];
        int fi = ddb_entity_field_index(e, at->name.ptr, at->name.len);
        if (fi >= 0) {
            if ((rc = take_field(c, fi, &at->value, "the record")) != 0)
                return rc;
        } else if (at->name.len == strlen(DDB_EXTRA_FIELD) &&
                   memcmp(at->name.ptr, DDB_EXTRA_FIELD, at->name.len) == 0) {
            if ((rc = take_extra(c, &at->value, typed, x)) != 0)
                return rc;
        } else if (extras_add(x, at, c->a) != 0) {
            return tf_oom(c->err);
        }
    }
    for (size_t i = 0; i < e->n_fields && !keys_only; i++) {
        if (e->fields[i].required && (!c->slots[i].set || c->slots[i].value.type == DDB_TYPE_NULL))
            return ddb_error_set(c->err, DDB_EINVAL, "required field %s is missing",
                                 e->fields[i].name);
    }
    return 0;
}

/* Appends to attrs (*n of them so far) each key attribute rendered from the
 * fields (only the table key's with keys_only); an index key whose field is
 * missing is left out (a sparse index). buf is scratch. Returns 0, DDB_EINVAL
 * (a table key's field is missing, or the rendering's error) or DDB_ENOMEM. */
static inline int put_keys(tctx *c, int keys_only, ddb_buf *buf, ddb_attr *attrs, size_t *n)
{
    const ddb_entity *e = c->e;
    int rc = 0;

    for (size_t k = 0; k < e->n_keys; k++) {
        const ddb_template *t = &e->keys[k];
        int table_key = t->role == DDB_ROLE_PK || t->role == DDB_ROLE_SK, missing = -1;
        const ddb_value *v;
        if (keys_only && !table_key)
            continue;
        v = tf_render_key(c, t, buf, &missing, &rc);
        if (rc == DDB_ENOMATCH) {
            if (table_key)
                return ddb_error_set(c->err, DDB_EINVAL,
                                     "cannot compute %s \"%s\": field %s is missing", t->attr,
                                     t->text, e->fields[missing].name);
            rc = 0;
            continue; /* sparse index: the item simply is not in it */
        }
        if (rc != 0) {
            ddb_error_prefix(c->err, "%s: ", t->attr);
            return rc;
        }
        attrs[*n].name.ptr = t->attr;
        attrs[*n].name.len = t->attr_len;
        attrs[(*n)++].value = *v;
    }
    return 0;
}

/* Appends to attrs (*n so far) the table's type attribute, if it has one,
 * and each stored field that is set, under its attribute name. */
static inline void put_stored(const tctx *c, ddb_attr *attrs, size_t *n)
{
    const ddb_entity *e = c->e;
    const char *type_attr = c->m->table.type_attr;

    if (type_attr) {
        attrs[*n].name.ptr = type_attr;
        attrs[*n].name.len = strlen(type_attr);
        attrs[(*n)++].value = ddb_value_str(DDB_TYPE_S, e->type_value, strlen(e->type_value));
    }
    for (size_t i = 0; i < e->n_fields; i++) {
        if (!e->fields[i].store || !c->slots[i].set)
            continue;
        attrs[*n].name.ptr = e->fields[i].attribute;
        attrs[*n].name.len = e->fields[i].attribute_len;
        attrs[(*n)++].value = c->slots[i].value;
    }
}

/* Appends to attrs (*n so far) the undeclared attributes x, as e's policy
 * says: dropped, refused, or kept unless one would overwrite an attribute
 * already there. Returns 0 or DDB_EINVAL. */
static inline int put_extras(const ddb_entity *e, const extras *x, ddb_attr *attrs, size_t *n,
                             ddb_error *err)
{
    for (size_t i = 0; i < x->count; i++) {
        const ddb_str *name = &x->attrs[i].name;
        if (e->undeclared == DDB_UNDECLARED_DROP)
            break;
        if (e->undeclared == DDB_UNDECLARED_REJECT)
            return tf_refuse_undeclared(e, name, err);
        if (ddb_map_find(&(ddb_map){attrs, *n}, name->ptr, name->len) >= 0)
            return ddb_error_set(err, DDB_EINVAL,
                                 "undeclared attribute '%.*s' would overwrite a computed or "
                                 "declared attribute of the same name",
                                 (int)name->len, name->ptr);
        attrs[(*n)++] = x->attrs[i];
    }
    return 0;
}

static int encode(ddb_item *out, const ddb_mapping *m, const ddb_entity *e, const ddb_map *record,
                  int typed, ddb_arena *a, ddb_error *err, int how)
{
    int keys_only = how == ENC_KEYS;
    tctx c = {m, e, a, err, NULL, NULL, how == ENC_UNCHECKED, 0};
    extras x = {NULL, 0, 0};
    ddb_buf buf = DDB_BUF_INIT;
    ddb_attr *attrs;
    size_t n = 0;
    int rc = 0;

    memset(out, 0, sizeof(*out));
    c.slots = ddb_arena_calloc(a, e->n_fields ? e->n_fields : 1, sizeof(slot));
    if (c.slots == NULL) {
        rc = tf_oom(err);
        goto done;
    }
    if ((rc = take_record(&c, record, typed, keys_only, &x)) != 0)
        goto done;
    attrs = ddb_arena_alloc(a, (e->n_keys + 1 + e->n_fields + x.count) * sizeof(*attrs));
    if (attrs == NULL || tf_build_vals(&c) != 0) {
        rc = tf_oom(err);
        goto done;
    }
    if ((rc = put_keys(&c, keys_only, &buf, attrs, &n)) != 0)
        goto done;
    if (!keys_only) {
        put_stored(&c, attrs, &n);
        if ((rc = put_extras(e, &x, attrs, &n, err)) != 0)
            goto done;
        n = drop_lone_constants(m, e, attrs, n);
    }
    out->attrs = attrs;
    out->count = n;
    if (how == ENC_UNCHECKED)
        rc = 0;
    else if (keys_only)
        rc = ddb_item_validate_key(out, &m->table.schema, err);
    else
        rc = ddb_item_validate(out, &m->table.schema, NULL, err);
done:
    ddb_buf_dispose(&buf);
    return rc;
}

int ddb_transform_encode(ddb_item *out, const ddb_mapping *m, const ddb_entity *e,
                         const ddb_map *record, int typed, ddb_arena *a, ddb_error *err)
{
    return encode(out, m, e, record, typed, a, err, ENC_FULL);
}

int ddb_transform_encode_key(ddb_item *out, const ddb_mapping *m, const ddb_entity *e,
                             const ddb_map *record, int typed, ddb_arena *a, ddb_error *err)
{
    return encode(out, m, e, record, typed, a, err, ENC_KEYS);
}

/* ---------------------------------------------------------- round trip */

/* The first attribute that differs between the item and its re-encoding. */
static int describe_change(char *out, size_t cap, const ddb_map *orig, const ddb_map *again)
{
    for (size_t i = 0; i < again->count; i++) {
        const ddb_value *o = ddb_map_get(orig, again->attrs[i].name.ptr, again->attrs[i].name.len);
        if (o == NULL || !ddb_value_equal(o, &again->attrs[i].value)) {
            snprintf(out, cap, "re-encoding would %s attribute '%.*s'", o ? "change" : "add",
                     (int)again->attrs[i].name.len, again->attrs[i].name.ptr);
            return 1;
        }
    }
    if (orig->count == again->count)
        return 0; /* every attribute of again is in orig: the same set */
    for (size_t i = 0; i < orig->count; i++) {
        if (ddb_map_get(again, orig->attrs[i].name.ptr, orig->attrs[i].name.len) == NULL) {
            snprintf(out, cap, "re-encoding would drop attribute '%.*s'",
                     (int)orig->attrs[i].name.len, orig->attrs[i].name.ptr);
            return 1;
        }
    }
    return 0;
}

int ddb_transform_round_trip(const ddb_mapping *m, const ddb_decoded *d, const ddb_item *item,
                             int keys_only, ddb_shape *shape, ddb_arena *a, ddb_error *err)
{
    ddb_item again;
    char why[600];
    int rc;

    if (!keys_only && ddb_roundtrip_memo_known(shape, d, item))
        return 0;
    rc = encode(&again, m, d->entity, &d->record, 1, a, err, keys_only ? ENC_KEYS : ENC_UNCHECKED);
    if (rc != 0)
        return rc;
    if (describe_change(why, sizeof(why), item, &again))
        return ddb_error_set(err, DDB_EINVAL, "%s", why);
    if (!keys_only)
        ddb_roundtrip_memo_learn(shape, d, item);
    return 0;
}
