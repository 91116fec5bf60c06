/*
 * transform_decode.c — items to records: finds the item's entity by its
 * table key, gathers every field from its own attribute and from each key
 * template that mentions it, and checks that every key comes back byte for
 * byte from the result.
 */
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "ddbpipe/shape.h"
#include "transform/template.h"
#include "transform/transform_internal.h"

/* Turns a captured key slice into the field's typed value. */
static int capture_value(tctx *c, const ddb_field *f, const ddb_str *cap, ddb_value *out)
{
    if (f->type == DDB_TYPE_N) {
        const char *p = cap->ptr;
        size_t n = cap->len;
        if (f->pad) {
            /* Undo the padding; keep one digit before a point. */
            while (n > 1 && p[0] == '0' && p[1] != '.') {
                p++;
                n--;
            }
        }
        *out = ddb_value_str(DDB_TYPE_N, p, n);
        return 0;
    }
    if (f->type == DDB_TYPE_B) {
        ddb_value s = ddb_value_str(DDB_TYPE_S, cap->ptr, cap->len);
        return ddb_value_convert(out, &s, DDB_TYPE_B, c->a, c->err);
    }
    if (f->enum_keys != NULL) {
        /* The key spells the value differently: the record holds the value. */
        int ei = ddb_field_enum_index(f, cap->ptr, cap->len, 1);
        if (ei >= 0) {
            *out = ddb_value_str(DDB_TYPE_S, f->enum_values[ei], strlen(f->enum_values[ei]));
            return 0;
        }
    }
    *out = ddb_value_str(DDB_TYPE_S, cap->ptr, cap->len);
    return 0;
}

/* A table key value matched while finding the entity, kept so that decoding
 * takes its fields without matching it again. */
typedef struct key_match {
    const ddb_template *t; /* NULL: none kept */
    const ddb_value *v;
    ddb_str caps[8];
} key_match;

/* Matches one key attribute of the item against template t and records the
 * captured fields. keep (may be NULL) holds a match of t against v made
 * before, or receives this one when not recording. back (may be NULL; when
 * recording) is set to 1 when the key is sure to come back from the fields
 * as it is (ddb_template_caps_come_back), else 0. Returns 0, DDB_ENOMATCH
 * (does not fit) or an error. */
static int capture_key(tctx *c, const ddb_template *t, const ddb_value *v, int record,
                       key_match *keep, int *back)
{
    ddb_str caps_small[16];
    ddb_str *caps = caps_small;
    int known = keep != NULL && keep->t == t && keep->v == v;

    if (v->type != t->attr_type)
        return DDB_ENOMATCH;
    if (t->attr_type != DDB_TYPE_S) {
        const ddb_field *f = &c->e->fields[t->segs[0].field];
        if (f->type == DDB_TYPE_N && tf_check_constraints(f, v, NULL) != 0)
            return DDB_ENOMATCH;
        return record ? tf_set_slot(c, t->segs[0].field, v, t->attr) : 0;
    }
    if (known) {
        caps = keep->caps;
    } else {
        int kept = keep != NULL && !record && t->n_segs <= 8;
        if (kept)
            caps = keep->caps;
        else if (t->n_segs > 16 &&
                 (caps = ddb_arena_alloc(c->a, t->n_segs * sizeof(*caps))) == NULL)
            return tf_oom(c->err);
        if (keep != NULL)
            keep->t = NULL;
        if (!ddb_template_match(t, c->e, v->u.s.ptr, v->u.s.len, caps))
            return DDB_ENOMATCH;
        if (kept) {
            keep->t = t;
            keep->v = v;
        }
    }
    if (!record)
        return 0;
    for (size_t i = 0; i < t->n_segs; i++) {
        ddb_value fv;
        int rc, fi = t->segs[i].field;
        if (fi < 0)
            continue;
        if ((rc = capture_value(c, &c->e->fields[fi], &caps[i], &fv)) != 0)
            return ddb_error_prefix(c->err, "%s: ", t->attr);
        if ((rc = tf_set_slot(c, fi, &fv, t->attr)) != 0)
            return rc;
    }
    if (back != NULL)
        *back = ddb_template_caps_come_back(t, c->vals, caps);
    return 0;
}

/* Does the literal that template t begins with rule out v? Most entities
 * are told apart by it ("mov#" against "act#"). */
static int literal_rules_out(const ddb_template *t, const ddb_value *v)
{
    return ddb_decode_shortcuts && t->n_segs > 0 && t->segs[0].field < 0 &&
           v->type == DDB_TYPE_S &&
           (v->u.s.len < t->segs[0].lit_len ||
            !ddb_mem_eq(v->u.s.ptr, t->segs[0].lit, t->segs[0].lit_len));
}

/* Does the item's table key (its values: table_key[0] the partition key,
 * [1] the sort key, NULL when absent) fit entity e? The matches are kept in
 * km[0] and km[1]. Both keys' literals are looked at before either is
 * captured: entities that share a partition key ("mov#{movieId}" for a
 * movie, its cast, its streams) differ in the sort key, and a capture
 * checks every field it takes. */
static int entity_matches(tctx *c, const ddb_entity *e, const ddb_value *const *table_key,
                          key_match *km)
{
    size_t n = 0;
    c->e = e;
    for (; n < e->n_keys && n < 2; n++) {
        const ddb_template *t = &e->keys[n];
        if (t->role != DDB_ROLE_PK && t->role != DDB_ROLE_SK)
            break;
        if (table_key[t->role == DDB_ROLE_SK] == NULL ||
            literal_rules_out(t, table_key[t->role == DDB_ROLE_SK]))
            return 0;
    }
    for (size_t k = 0; k < n; k++) {
        const ddb_template *t = &e->keys[k];
        if (capture_key(c, t, table_key[t->role == DDB_ROLE_SK], 0,
                        &km[t->role == DDB_ROLE_SK], NULL) != 0)
            return 0;
    }
    return 1;
}

static void describe_keys(char *out, size_t cap, const ddb_mapping *m, const ddb_item *item)
{
    const char *names[2] = {m->table.pk.name, m->table.sk.name};
    size_t n = 0;
    out[0] = '\0';
    for (int i = 0; i < 2 && names[i]; i++) {
        const ddb_value *v = ddb_map_getz(item, names[i]);
        char d[96];
        if (v == NULL)
            snprintf(d, sizeof(d), "missing");
        else
            ddb_value_describe(d, sizeof(d), v);
        n +=
            (size_t)snprintf(out + n, n < cap ? cap - n : 0, "%s%s %s", i ? ", " : "", names[i], d);
        if (n >= cap)
            break;
    }
}

/* Where the mapping's table key attributes are in item (-1: absent), kept
 * with item's shape sh (may be NULL). */
static void table_key_positions(ptrdiff_t at[2], const ddb_mapping *m, const ddb_item *item,
                                ddb_shape *sh)
{
    const signed char *kept = ddb_shape_memo(sh, m, DDB_SHAPE_TABLE_KEYS, NULL);
    signed char *keep;

    if (kept != NULL) {
        at[0] = kept[0];
        at[1] = kept[1];
        return;
    }
    at[0] = m->table.pk.name ? ddb_map_find(item, m->table.pk.name, strlen(m->table.pk.name)) : -1;
    at[1] = m->table.sk.name ? ddb_map_find(item, m->table.sk.name, strlen(m->table.sk.name)) : -1;
    if ((keep = ddb_shape_memo_put(sh, m, DDB_SHAPE_TABLE_KEYS, 2)) != NULL) {
        keep[0] = (signed char)at[0];
        keep[1] = (signed char)at[1];
    }
}

static int find_entity(tctx *c, const ddb_item *item, ddb_shape *sh, const ddb_entity **out,
                       key_match *km)
{
    const ddb_mapping *m = c->m;
    const ddb_value *table_key[2];
    ptrdiff_t at[2];
    char keys[256];

    *out = NULL;
    if (m->table.type_attr) {
        const ddb_value *tv = ddb_map_getz(item, m->table.type_attr);
        if (tv != NULL) {
            if (tv->type == DDB_TYPE_S) {
                for (size_t i = 0; i < m->n_entities; i++) {
                    const char *want = m->entities[i].type_value;
                    if (strlen(want) == tv->u.s.len &&
                        memcmp(want, tv->u.s.ptr, tv->u.s.len) == 0) {
                        *out = &m->entities[i];
                        return 0;
                    }
                }
            }
            {
                char d[96];
                ddb_value_describe(d, sizeof(d), tv);
                return ddb_error_set(c->err, DDB_ENOMATCH,
                                     "%s %s is not the typeValue of any entity", m->table.type_attr,
                                     d);
            }
        }
    }
    /* every entity's table key templates name the table's key attributes */
    table_key_positions(at, m, item, sh);
    table_key[0] = at[0] >= 0 ? &item->attrs[at[0]].value : NULL;
    table_key[1] = at[1] >= 0 ? &item->attrs[at[1]].value : NULL;
    for (size_t i = 0; i < m->n_entities; i++) {
        if (entity_matches(c, &m->entities[i], table_key, km)) {
            *out = &m->entities[i];
            return 0;
        }
    }
    describe_keys(keys, sizeof(keys), m, item);
    return ddb_error_set(c->err, DDB_ENOMATCH, "no entity's key templates match (%s)", keys);
}

int ddb_transform_entity_of(const ddb_entity **out, const ddb_mapping *m, const ddb_item *item,
                            ddb_shape *shape, ddb_arena *a)
{
    ddb_error quiet;
    tctx c = {m, NULL, a, &quiet, NULL, NULL, 0, 0};
    key_match km[2];
    int rc;

    assert(out != NULL && m != NULL && item != NULL && a != NULL);
    km[0].t = km[1].t = NULL;
    ddb_error_clear(&quiet);
    rc = find_entity(&c, item, shape, out, km);
    if (rc != 0)
        *out = NULL;
    return rc == DDB_ENOMEM ? rc : 0;
}

/* ---------------------------------------------------------- decode */

int ddb_decode_shortcuts = 1;

/* An index key whose fields are all known already (from stored attributes
 * or the table key) and that is exactly their rendering, split by a match
 * the same way (ddb_template_matches_as): matching it could only give those
 * same values again, so it is not matched. (Any other key is matched as
 * before, for the same message.) */
static int known_already(const tctx *c, const ddb_template *t, const ddb_value *v)
{
    if (!ddb_decode_shortcuts || t->role == DDB_ROLE_PK || t->role == DDB_ROLE_SK ||
        t->attr_type != DDB_TYPE_S || v->type != DDB_TYPE_S)
        return 0;
    if (t->fields_exact) {
        if ((t->fields & ~c->known) != 0)
            return 0;
    } else {
        for (size_t i = 0; i < t->n_segs; i++)
            if (t->segs[i].field >= 0 && c->vals[t->segs[i].field] == NULL)
                return 0;
    }
    return ddb_template_matches_as(t, c->e, c->vals, v->u.s.ptr, v->u.s.len);
}

/* ddb_map_find starting at *hint (where the last name was found, plus one):
 * items of one entity tend to list their attributes in the mapping's order,
 * so most names are found at the first try. */
static ptrdiff_t find_from(const ddb_map *m, const char *name, size_t len, size_t *hint)
{
    size_t n = m->count, start = *hint < n ? *hint : 0;
    for (size_t k = 0; k < n; k++) {
        size_t i = start + k < n ? start + k : start + k - n;
        const ddb_str *nm = &m->attrs[i].name;
        if (nm->len == len && ddb_mem_eq(nm->ptr, name, len)) {
            *hint = i + 1;
            return (ptrdiff_t)i;
        }
    }
    return -1;
}

/* Does every key attribute the item has (key_at[k] its index, or -1) come
 * back byte for byte from the decoded fields (c->vals)? Keys in verified
 * (bit k) were seen to already. Returns 0, or DDB_EINVAL saying which does
 * not, or render's error. buf is scratch. */
static int keys_come_back(tctx *c, const ddb_item *item, const ptrdiff_t *key_at, uint64_t verified,
                          ddb_buf *buf)
{
    const ddb_entity *e = c->e;
    int rc = 0;

    for (size_t k = 0; k < e->n_keys; k++) {
        const ddb_template *t = &e->keys[k];
        const ddb_value *have, *want;
        ddb_value text;
        int missing = -1;
        if (key_at[k] < 0 || (k < 64 && (verified >> k & 1)))
            continue;
        have = &item->attrs[key_at[k]].value;
        if (t->attr_type == DDB_TYPE_S && have->type == DDB_TYPE_S &&
            ddb_template_renders_as(t, e, c->vals, have->u.s.ptr, have->u.s.len))
            continue; /* it comes back byte for byte: nothing to render */
        if (t->attr_type == DDB_TYPE_S) {
            /* rendered into buf and compared there: no copy of a key that matches */
            ddb_buf_clear(buf);
            rc = ddb_template_render(buf, t, e, c->vals, &missing, c->err);
            text = ddb_value_str(DDB_TYPE_S, buf->ptr ? buf->ptr : "", buf->len);
            want = &text;
        } else {
            want = tf_render_key(c, t, buf, &missing, &rc);
        }
        if (rc == DDB_ENOMATCH)
            continue; /* cannot happen: its own fields were captured from it */
        if (rc != 0) {
            ddb_error_prefix(c->err, "%s: ", t->attr);
            return rc;
        }
        if (!ddb_value_equal(have, want)) {
            char d1[96], d2[96];
            ddb_value_describe(d1, sizeof(d1), have);
            ddb_value_describe(d2, sizeof(d2), want);
            return ddb_error_set(c->err, DDB_EINVAL,
                                 "%s is %s but its fields give %s; encoding would change it",
                                 t->attr, d1, d2);
        }
    }
    return 0;
}

/* The record: the fields set, in field order, then the item's attributes
 * nothing consumed (as the entity's undeclared policy says). Returns 0,
 * DDB_EINVAL (an entity that rejects undeclared attributes) or DDB_ENOMEM. */
static int build_record(ddb_decoded *out, tctx *c, const ddb_item *item,
                        const unsigned char *consumed)
{
    const ddb_entity *e = c->e;
    ddb_attr *attrs = ddb_arena_alloc(c->a, (e->n_fields + item->count + 1) * sizeof(*attrs));
    size_t n_out = 0;

    if (attrs == NULL)
        return tf_oom(c->err);
    for (size_t i = 0; i < e->n_fields; i++) {
        if (!c->slots[i].set)
            continue;
        attrs[n_out].name.ptr = e->fields[i].name;
        attrs[n_out].name.len = e->fields[i].name_len;
        attrs[n_out++].value = c->slots[i].value;
    }
    out->n_declared = n_out;
    for (size_t i = 0; i < item->count; i++) {
        if (consumed[i] || e->undeclared == DDB_UNDECLARED_DROP)
            continue;
        if (e->undeclared == DDB_UNDECLARED_REJECT)
            return tf_refuse_undeclared(e, &item->attrs[i].name, c->err);
        attrs[n_out++] = item->attrs[i];
    }
    out->record.attrs = attrs;
    out->record.count = n_out;
    return 0;
}

/*
 * Where decode finds, in item, each of e's stored attributes (field by field,
 * its attribute and then its aliases; none when keys_only) and then each key
 * template's attribute, or -1: n of them, in the arena. The searches depend
 * only on the names, so they are kept with item's shape sh (may be NULL).
 * NULL when out of memory.
 */
static ptrdiff_t *attr_positions(const ddb_entity *e, const ddb_item *item, ddb_shape *sh,
                                 int keys_only, ddb_arena *a)
{
    int tag = keys_only ? DDB_SHAPE_KEY_ONLY_POSITIONS : DDB_SHAPE_FIELD_POSITIONS;
    size_t n = e->n_keys, k = 0, hint = 0, got = 0;
    const signed char *kept;
    signed char *keep;
    ptrdiff_t *pos;
    uint64_t names; /* most fields are not attributes of an item */

    if ((kept = ddb_shape_memo(sh, e, tag, &got)) != NULL) {
        /* kept for this entity and tag: got is their number, n */
        if ((pos = ddb_arena_alloc(a, (got ? got : 1) * sizeof(*pos))) == NULL)
            return NULL;
        for (size_t i = 0; i < got; i++)
            pos[i] = kept[i];
        return pos;
    }
    for (size_t i = 0; i < e->n_fields && !keys_only; i++)
        n += 1 + e->fields[i].n_aliases;
    if ((pos = ddb_arena_alloc(a, (n ? n : 1) * sizeof(*pos))) == NULL)
        return NULL;
    names = sh ? ddb_shape_name_mask(sh) : ddb_map_name_mask(item);
    for (size_t i = 0; i < e->n_fields && !keys_only; i++) {
        const ddb_field *f = &e->fields[i];
        for (size_t j = 0; j <= f->n_aliases; j++) {
            const char *name = j == 0 ? f->attribute : f->aliases[j - 1];
            size_t nlen = j == 0 ? f->attribute_len : strlen(name);
            pos[k++] = names & ddb_name_bit(name, nlen) ? find_from(item, name, nlen, &hint) : -1;
        }
    }
    for (size_t i = 0; i < e->n_keys; i++) {
        const ddb_template *t = &e->keys[i];
        pos[k++] = names & ddb_name_bit(t->attr, t->attr_len)
                       ? find_from(item, t->attr, t->attr_len, &hint)
                       : -1;
    }
    if ((keep = ddb_shape_memo_put(sh, e, tag, n)) != NULL)
        for (size_t i = 0; i < n; i++)
            keep[i] = (signed char)pos[i];
    return pos;
}

/* The slots, the renderer's view of them (kept current as they are set, so
 * it is there for the keys) and the consumed marks (one per attribute of
 * item): one zeroed block in c's arena. Returns 0 or DDB_ENOMEM. */
static int alloc_slots(tctx *c, const ddb_item *item, unsigned char **consumed)
{
    size_t nf = c->e->n_fields ? c->e->n_fields : 1;
    char *block = ddb_arena_calloc(
        c->a, 1, nf * (sizeof(slot) + sizeof(*c->vals)) + (item->count ? item->count : 1));

    if (block == NULL)
        return tf_oom(c->err);
    c->slots = (slot *)(void *)block;
    c->vals = (const ddb_value **)(void *)(block + nf * sizeof(slot));
    *consumed = (unsigned char *)block + nf * (sizeof(slot) + sizeof(*c->vals));
    return 0;
}

/* Sets the fields from their stored attributes (each field's attribute,
 * then its aliases; pos[] says where they are, as attr_positions lists them)
 * and marks those consumed: their exact text is what the record keeps.
 * *used: how many positions that is (the keys' follow). Returns 0, or the
 * conversion's, constraint's or slot's error. */
static inline int decode_stored(tctx *c, const ddb_item *item, const ptrdiff_t *pos,
                                unsigned char *consumed, size_t *used)
{
    const ddb_entity *e = c->e;
    size_t pi = 0;
    int rc;

    for (size_t i = 0; i < e->n_fields; i++) {
        const ddb_field *f = &e->fields[i];
        for (size_t k = 0; k <= f->n_aliases; k++) {
            const char *name = k == 0 ? f->attribute : f->aliases[k - 1];
            ptrdiff_t ai = pos[pi++];
            ddb_value v;
            if (ai < 0)
                continue;
            consumed[ai] = 1;
            if ((rc = ddb_value_convert(&v, &item->attrs[ai].value, f->type, c->a, c->err)) != 0) {
                ddb_error_prefix(c->err, "attribute %s (field %s): ", name, f->name);
                return rc;
            }
            if ((rc = tf_check_constraints(f, &v, c->err)) != 0) {
                if (strcmp(name, f->name) != 0)
                    ddb_error_prefix(c->err, "attribute %s: ", name);
                return rc;
            }
            if ((rc = tf_set_slot(c, (int)i, &v, name)) != 0)
                return rc;
        }
    }
    *used = pi;
    return 0;
}

/* Key k's part of decode_keys (its attribute is in item: key_at[k] >= 0):
 * sets the fields key k's value gives, or sees that they are known already
 * (then sets bit k of *verified, as when the key is sure to come back as it
 * is). Returns 0, DDB_EINVAL (it does not fit its template) or capture_key's
 * error. */
static inline int decode_key(tctx *c, const ddb_item *item, const ptrdiff_t *key_at, size_t k,
                             key_match *km, uint64_t *verified)
{
    const ddb_template *t = &c->e->keys[k];
    const ddb_value *v = &item->attrs[key_at[k]].value;
    int back = 0, rc;

    assert(key_at[k] >= 0);
    if (k < 64 && ddb_decode_shortcuts && t->same_as >= 0 && key_at[t->same_as] >= 0 &&
        ddb_value_equal(v, &item->attrs[key_at[t->same_as]].value)) {
        /* an earlier key written the same way holds the same bytes: what
         * was found for it (fields, errors, coming back) holds for this */
        *verified |= UINT64_C(1) << k;
        return 0;
    }
    if (k < 64 && known_already(c, t, v)) {
        *verified |= UINT64_C(1) << k;
        return 0;
    }
    rc = capture_key(c, t, v, 1,
                     t->role == DDB_ROLE_PK   ? &km[0]
                     : t->role == DDB_ROLE_SK ? &km[1]
                                              : NULL,
                     &back);
    if (rc == 0 && back && k < 64 && ddb_decode_shortcuts)
        *verified |= UINT64_C(1) << k; /* its fields are its captures: it comes back */
    if (rc == DDB_ENOMATCH) {
        char d[96];
        ddb_value_describe(d, sizeof(d), v);
        rc = ddb_error_set(c->err, DDB_EINVAL, "%s %s does not fit template \"%s\"", t->attr, d,
                           t->text);
    }
    return rc;
}

/* Then every key attribute present (key_at[k], or -1): it must fit its
 * template and agree with the fields set so far; it is consumed. With
 * keys_only the index keys are passed over (key_at[k] becomes -1). km holds
 * find_entity's matches of the table key. Bit k of *verified: key k is seen
 * to come back as it is. */
static inline int decode_keys(tctx *c, const ddb_item *item, ptrdiff_t *key_at,
                              unsigned char *consumed, key_match *km, int keys_only,
                              uint64_t *verified)
{
    const ddb_entity *e = c->e;
    int rc;

    for (size_t k = 0; k < e->n_keys; k++) {
        const ddb_template *t = &e->keys[k];
        ptrdiff_t ai = key_at[k];
        if (ai < 0)
            continue;
        if (keys_only && t->role != DDB_ROLE_PK && t->role != DDB_ROLE_SK) {
            key_at[k] = -1;
            continue;
        }
        consumed[ai] = 1;
        if ((rc = decode_key(c, item, key_at, k, km, verified)) != 0)
            return rc;
    }
    return 0;
}

static int decode(ddb_decoded *out, const ddb_mapping *m, const ddb_item *item, ddb_shape *sh,
                  ddb_arena *a, ddb_error *err, int keys_only)
{
    tctx c = {m, NULL, a, err, NULL, NULL, 0, 0};
    const ddb_entity *e;
    unsigned char *consumed = NULL;
    ptrdiff_t *pos = NULL;    /* attr_positions: the stored attributes', then the keys' */
    ptrdiff_t *key_at = NULL; /* per key template: its attribute in item, or -1 (in pos) */
    size_t n_stored = 0;      /* positions in pos before the keys' */
    ddb_buf buf = DDB_BUF_INIT;
    uint64_t verified = 0; /* keys seen to be their fields' rendering */
    key_match km[2];       /* only .t is read before it is set */
    int rc;

    km[0].t = km[1].t = NULL;
    memset(out, 0, sizeof(*out));
    if ((rc = find_entity(&c, item, sh, &e, km)) != 0)
        goto done;
    c.e = e;
    out->entity = e;
    if ((rc = alloc_slots(&c, item, &consumed)) != 0)
        goto done;
    if ((pos = attr_positions(e, item, sh, keys_only, a)) == NULL) {
        rc = tf_oom(err);
        goto done;
    }
    if (!keys_only && (rc = decode_stored(&c, item, pos, consumed, &n_stored)) != 0)
        goto done;
    key_at = pos + n_stored;
    if ((rc = decode_keys(&c, item, key_at, consumed, km, keys_only, &verified)) != 0)
        goto done;
    /* Each key must come back byte for byte from the decoded fields. */
    if ((rc = keys_come_back(&c, item, key_at, verified, &buf)) != 0)
        goto done;
    if (m->table.type_attr) {
        ptrdiff_t ai = ddb_map_find(item, m->table.type_attr, strlen(m->table.type_attr));
        if (ai >= 0)
            consumed[ai] = 1;
    }
    rc = build_record(out, &c, item, consumed);
done:
    ddb_buf_dispose(&buf);
    return rc;
}

int ddb_transform_decode(ddb_decoded *out, const ddb_mapping *m, const ddb_item *item, ddb_arena *a,
                         ddb_error *err)
{
    return decode(out, m, item, NULL, a, err, 0);
}

int ddb_transform_decode_key(ddb_decoded *out, const ddb_mapping *m, const ddb_item *key,
                             ddb_arena *a, ddb_error *err)
{
    return decode(out, m, key, NULL, a, err, 1);
}

int ddb_transform_decode_shaped(ddb_decoded *out, const ddb_mapping *m, const ddb_item *item,
                                int keys_only, ddb_shape *shape, ddb_arena *a, ddb_error *err)
{
    return decode(out, m, item, shape, a, err, keys_only);
}
