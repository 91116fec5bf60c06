/*
 * The transformer: items <-> per-entity records under a mapping.
 *
 * Decode gathers every field from the places it appears (its own attribute,
 * and each key template that mentions it), insists they agree, and then
 * re-renders each key from the result: an item decodes only if encoding the
 * record would give its keys back byte for byte. Encode is the inverse.
 */
#include "ddbpipe/transform.h"

#include <stdio.h>
#include <string.h>

#include "ddbpipe/json.h"
#include "ddbpipe/number.h"
#include "template.h"
#include "transform_memo.h"

typedef struct slot {
    ddb_value value;
    int set;
    const char *source; /* where the value came from, for messages */
} slot;

typedef struct tctx {
    const ddb_mapping *m;
    const ddb_entity *e;
    ddb_arena *a;
    ddb_error *err;
    slot *slots;
    const ddb_value **vals; /* per field: its value or NULL, for rendering */
    int decoded;            /* the record comes from decode: its values passed the checks */
} tctx;

static int oom(ddb_error *err)
{
    return ddb_error_set(err, DDB_ENOMEM, "out of memory");
}

/* ---------------------------------------------------------- field values */

/* Text form of scalar values, for constraint checks. */
static int check_constraints(const ddb_field *f, const ddb_value *v, ddb_error *err)
{
    if (v->type != DDB_TYPE_S && v->type != DDB_TYPE_N)
        return 0;
    if (f->n_enum == 0 && !f->has_pattern && f->format == DDB_FMT_NONE)
        return 0;
    if (!ddb_field_accepts_text(f, v->u.s.ptr, v->u.s.len, err))
        return DDB_EINVAL;
    return 0;
}

static int values_agree(const ddb_value *a, const ddb_value *b)
{
    if (a->type == DDB_TYPE_N && b->type == DDB_TYPE_N) {
        /* The same text is the common case (a key and its stored copy): no parse. */
        if (a->u.s.len == b->u.s.len && memcmp(a->u.s.ptr, b->u.s.ptr, a->u.s.len) == 0)
            return 1;
        return ddb_number_compare_text(a->u.s.ptr, a->u.s.len, b->u.s.ptr, b->u.s.len, NULL) == 0;
    }
    return ddb_value_equal(a, b);
}

static int set_slot(tctx *c, int fi, const ddb_value *v, const char *source)
{
    slot *s = &c->slots[fi];
    if (!s->set) {
        s->value = *v;
        s->set = 1;
        s->source = source;
        return 0;
    }
    if (!values_agree(&s->value, v)) {
        char a1[96], a2[96];
        ddb_value_describe(a1, sizeof(a1), &s->value);
        ddb_value_describe(a2, sizeof(a2), v);
        return ddb_error_set(c->err, DDB_EINVAL, "field %s: %s gives %s but %s gives %s",
                             c->e->fields[fi].name, s->source, a1, source, a2);
    }
    return 0;
}

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

/* Matches one key attribute of the item against template t and records the
 * captured fields. Returns 0, DDB_ENOMATCH (does not fit) or an error. */
static int capture_key(tctx *c, const ddb_template *t, const ddb_value *v, int record)
{
    ddb_str caps_small[16];
    ddb_str *caps = caps_small;

    if (v->type != t->attr_type)
        return DDB_ENOMATCH;
    if (t->attr_type != DDB_TYPE_S) {
        const ddb_field *f = &c->e->fields[t->segs[0].field];
        if (f->type == DDB_TYPE_N && check_constraints(f, v, NULL) != 0)
            return DDB_ENOMATCH;
        return record ? set_slot(c, t->segs[0].field, v, t->attr) : 0;
    }
    if (t->n_segs > 16 && (caps = ddb_arena_alloc(c->a, t->n_segs * sizeof(*caps))) == NULL)
        return oom(c->err);
    if (!ddb_template_match(t, c->e, v->u.s.ptr, v->u.s.len, caps))
        return DDB_ENOMATCH;
    if (!record)
        return 0;
    for (size_t i = 0; i < t->n_segs; i++) {
        ddb_value fv;
        int rc, fi = t->segs[i].field;
        if (fi < 0)
            continue;
        if ((rc = capture_value(c, &c->e->fields[fi], &caps[i], &fv)) != 0)
            return ddb_error_prefix(c->err, "%s: ", t->attr);
        if ((rc = set_slot(c, fi, &fv, t->attr)) != 0)
            return rc;
    }
    return 0;
}

/* Does the item's table key (its values: table_key[0] the partition key,
 * [1] the sort key, NULL when absent) fit entity e? */
static int entity_matches(tctx *c, const ddb_entity *e, const ddb_value *const *table_key)
{
    c->e = e;
    for (size_t k = 0; k < e->n_keys && k < 2; k++) {
        const ddb_template *t = &e->keys[k];
        const ddb_value *v;
        if (t->role != DDB_ROLE_PK && t->role != DDB_ROLE_SK)
            break;
        v = table_key[t->role == DDB_ROLE_SK];
        if (v == NULL || capture_key(c, t, v, 0) != 0)
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

static int find_entity(tctx *c, const ddb_item *item, const ddb_entity **out)
{
    const ddb_mapping *m = c->m;
    const ddb_value *table_key[2];
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
    table_key[0] = m->table.pk.name ? ddb_map_getz(item, m->table.pk.name) : NULL;
    table_key[1] = m->table.sk.name ? ddb_map_getz(item, m->table.sk.name) : NULL;
    for (size_t i = 0; i < m->n_entities; i++) {
        if (entity_matches(c, &m->entities[i], table_key)) {
            *out = &m->entities[i];
            return 0;
        }
    }
    describe_keys(keys, sizeof(keys), m, item);
    return ddb_error_set(c->err, DDB_ENOMATCH, "no entity's key templates match (%s)", keys);
}

/* The field values as the renderer wants them; call once all slots are set. */
static int build_vals(tctx *c)
{
    c->vals = ddb_arena_alloc(c->a, (c->e->n_fields ? c->e->n_fields : 1) * sizeof(*c->vals));
    if (c->vals == NULL)
        return oom(c->err);
    for (size_t i = 0; i < c->e->n_fields; i++)
        c->vals[i] = c->slots[i].set ? &c->slots[i].value : NULL;
    return 0;
}

static const ddb_value *render_key(tctx *c, const ddb_template *t, ddb_buf *buf, int *missing,
                                   int *rc)
{
    const ddb_value *const *vals = c->vals;

    if (t->attr_type != DDB_TYPE_S) {
        const ddb_value *v = vals[t->segs[0].field];
        if (v == NULL || v->type == DDB_TYPE_NULL) {
            *missing = t->segs[0].field;
            *rc = DDB_ENOMATCH;
            return NULL;
        }
        *rc = 0;
        return v;
    }
    ddb_buf_clear(buf);
    *rc = ddb_template_render(buf, t, c->e, vals, missing, c->err);
    if (*rc != 0)
        return NULL;
    {
        ddb_value *v = ddb_arena_alloc(c->a, sizeof(*v));
        char *text = ddb_arena_memdup(c->a, buf->ptr, buf->len);
        if (v == NULL || text == NULL) {
            *rc = oom(c->err);
            return NULL;
        }
        *v = ddb_value_str(DDB_TYPE_S, text, buf->len);
        return v;
    }
}

/* ---------------------------------------------------------- decode */

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

static int decode(ddb_decoded *out, const ddb_mapping *m, const ddb_item *item, ddb_arena *a,
                  ddb_error *err, int keys_only)
{
    tctx c = {m, NULL, a, err, NULL, NULL, 0};
    const ddb_entity *e;
    unsigned char *consumed = NULL;
    ptrdiff_t *key_at = NULL; /* per key template: its attribute in item, or -1 */
    ddb_buf buf = DDB_BUF_INIT;
    size_t n_out = 0, hint = 0;
    ddb_attr *attrs;
    int rc;

    memset(out, 0, sizeof(*out));
    if ((rc = find_entity(&c, item, &e)) != 0)
        goto done;
    c.e = e;
    out->entity = e;
    c.slots = ddb_arena_calloc(a, e->n_fields ? e->n_fields : 1, sizeof(slot));
    consumed = ddb_arena_calloc(a, item->count ? item->count : 1, 1);
    key_at = ddb_arena_alloc(a, (e->n_keys ? e->n_keys : 1) * sizeof(*key_at));
    if (c.slots == NULL || consumed == NULL || key_at == NULL) {
        rc = oom(err);
        goto done;
    }

    /* Stored attributes first: their exact text is what the record keeps. */
    for (size_t i = 0; i < e->n_fields && !keys_only; i++) {
        const ddb_field *f = &e->fields[i];
        for (size_t k = 0; k <= f->n_aliases; k++) {
            const char *name = k == 0 ? f->attribute : f->aliases[k - 1];
            ptrdiff_t ai = find_from(item, name, k == 0 ? f->attribute_len : strlen(name), &hint);
            ddb_value v;
            if (ai < 0)
                continue;
            consumed[ai] = 1;
            if ((rc = ddb_value_convert(&v, &item->attrs[ai].value, f->type, a, err)) != 0) {
                ddb_error_prefix(err, "attribute %s (field %s): ", name, f->name);
                goto done;
            }
            if ((rc = check_constraints(f, &v, err)) != 0) {
                if (strcmp(name, f->name) != 0)
                    ddb_error_prefix(err, "attribute %s: ", name);
                goto done;
            }
            if ((rc = set_slot(&c, (int)i, &v, name)) != 0)
                goto done;
        }
    }
    /* Then every key attribute present: it must fit its template and agree. */
    for (size_t k = 0; k < e->n_keys; k++) {
        const ddb_template *t = &e->keys[k];
        ptrdiff_t ai = find_from(item, t->attr, t->attr_len, &hint);
        key_at[k] = ai;
        if (ai < 0)
            continue;
        if (keys_only && t->role != DDB_ROLE_PK && t->role != DDB_ROLE_SK) {
            key_at[k] = -1;
            continue;
        }
        consumed[ai] = 1;
        rc = capture_key(&c, t, &item->attrs[ai].value, 1);
        if (rc == DDB_ENOMATCH) {
            char d[96];
            ddb_value_describe(d, sizeof(d), &item->attrs[ai].value);
            rc = ddb_error_set(err, DDB_EINVAL, "%s %s does not fit template \"%s\"", t->attr, d,
                               t->text);
        }
        if (rc != 0)
            goto done;
    }
    /* Each key must come back byte for byte from the decoded fields. */
    if ((rc = build_vals(&c)) != 0)
        goto done;
    for (size_t k = 0; k < e->n_keys; k++) {
        const ddb_template *t = &e->keys[k];
        const ddb_value *have, *want;
        ddb_value text;
        int missing = -1;
        if (key_at[k] < 0)
            continue;
        have = &item->attrs[key_at[k]].value;
        if (t->attr_type == DDB_TYPE_S && have->type == DDB_TYPE_S &&
            ddb_template_renders_as(t, e, c.vals, have->u.s.ptr, have->u.s.len))
            continue; /* it comes back byte for byte: nothing to render */
        if (t->attr_type == DDB_TYPE_S) {
            /* rendered into buf and compared there: no copy of a key that matches */
            ddb_buf_clear(&buf);
            rc = ddb_template_render(&buf, t, e, c.vals, &missing, err);
            text = ddb_value_str(DDB_TYPE_S, buf.ptr ? buf.ptr : "", buf.len);
            want = &text;
        } else {
            want = render_key(&c, t, &buf, &missing, &rc);
        }
        if (rc == DDB_ENOMATCH)
            continue; /* cannot happen: its own fields were captured from it */
        if (rc != 0) {
            ddb_error_prefix(err, "%s: ", t->attr);
            goto done;
        }
        if (!ddb_value_equal(have, want)) {
            char d1[96], d2[96];
            ddb_value_describe(d1, sizeof(d1), have);
            ddb_value_describe(d2, sizeof(d2), want);
            rc = ddb_error_set(err, DDB_EINVAL,
                               "%s is %s but its fields give %s; encoding would change it", t->attr,
                               d1, d2);
            goto done;
        }
    }
    if (m->table.type_attr) {
        ptrdiff_t ai = ddb_map_find(item, m->table.type_attr, strlen(m->table.type_attr));
        if (ai >= 0)
            consumed[ai] = 1;
    }

    attrs = ddb_arena_alloc(a, (e->n_fields + item->count + 1) * sizeof(*attrs));
    if (attrs == NULL) {
        rc = oom(err);
        goto done;
    }
    for (size_t i = 0; i < e->n_fields; i++) {
        if (!c.slots[i].set)
            continue;
        attrs[n_out].name.ptr = e->fields[i].name;
        attrs[n_out].name.len = e->fields[i].name_len;
        attrs[n_out++].value = c.slots[i].value;
    }
    out->n_declared = n_out;
    for (size_t i = 0; i < item->count; i++) {
        if (consumed[i])
            continue;
        if (e->undeclared == DDB_UNDECLARED_DROP)
            continue;
        if (e->undeclared == DDB_UNDECLARED_REJECT) {
            rc = ddb_error_set(err, DDB_EINVAL,
                               "undeclared attribute '%.*s' (entity %s rejects "
                               "undeclared attributes)",
                               (int)item->attrs[i].name.len, item->attrs[i].name.ptr, e->name);
            goto done;
        }
        attrs[n_out++] = item->attrs[i];
    }
    out->record.attrs = attrs;
    out->record.count = n_out;
    rc = 0;
done:
    ddb_buf_dispose(&buf);
    return rc;
}

int ddb_transform_decode(ddb_decoded *out, const ddb_mapping *m, const ddb_item *item, ddb_arena *a,
                         ddb_error *err)
{
    return decode(out, m, item, a, err, 0);
}

int ddb_transform_decode_key(ddb_decoded *out, const ddb_mapping *m, const ddb_item *key,
                             ddb_arena *a, ddb_error *err)
{
    return decode(out, m, key, a, err, 1);
}

/* ---------------------------------------------------------- encode */

typedef struct extras {
    ddb_attr *attrs;
    size_t count;
    size_t cap;
} extras;

static int extras_add(extras *x, const ddb_attr *at, ddb_arena *a)
{
    if (x->count == x->cap) {
        size_t ncap = x->cap ? x->cap * 2 : 8;
        ddb_attr *n = ddb_arena_alloc(a, ncap * sizeof(*n));
        if (n == NULL)
            return DDB_ENOMEM;
        if (x->count)
            memcpy(n, x->attrs, x->count * sizeof(*n));
        x->attrs = n;
        x->cap = ncap;
    }
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
    if (!c->decoded && (rc = check_constraints(f, &conv, c->err)) != 0)
        return rc;
    if (f->format == DDB_FMT_WEEKDAY && conv.type == DDB_TYPE_S) {
        /* one day, one key: whatever the record's spelling, the mapping's */
        char day[16];
        size_t n = ddb_weekday_spell(f, conv.u.s.ptr, conv.u.s.len, day);
        char *copy = n ? ddb_arena_memdup(c->a, day, n) : NULL;
        if (n && copy == NULL)
            return oom(c->err);
        if (n)
            conv = ddb_value_str(DDB_TYPE_S, copy, n);
    }
    return set_slot(c, fi, &conv, source);
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
            return oom(c->err);
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
            return oom(c->err);
    }
    return 0;
}

static int out_has(const ddb_attr *attrs, size_t n, const ddb_str *name)
{
    for (size_t i = 0; i < n; i++)
        if (attrs[i].name.len == name->len && memcmp(attrs[i].name.ptr, name->ptr, name->len) == 0)
            return 1;
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

static int encode(ddb_item *out, const ddb_mapping *m, const ddb_entity *e, const ddb_map *record,
                  int typed, ddb_arena *a, ddb_error *err, int how)
{
    int keys_only = how == ENC_KEYS;
    tctx c = {m, e, a, err, NULL, NULL, how == ENC_UNCHECKED};
    extras x = {NULL, 0, 0};
    ddb_buf buf = DDB_BUF_INIT;
    ddb_attr *attrs;
    size_t n = 0;
    int rc = 0;

    memset(out, 0, sizeof(*out));
    c.slots = ddb_arena_calloc(a, e->n_fields ? e->n_fields : 1, sizeof(slot));
    if (c.slots == NULL) {
        rc = oom(err);
        goto done;
    }
    for (size_t i = 0; i < record->count; i++) {
        const ddb_attr *at = &record->attrs[i];
        int fi = ddb_entity_field_index(e, at->name.ptr, at->name.len);
        if (fi >= 0) {
            if ((rc = take_field(&c, fi, &at->value, "the record")) != 0)
                goto done;
        } else if (at->name.len == strlen(DDB_EXTRA_FIELD) &&
                   memcmp(at->name.ptr, DDB_EXTRA_FIELD, at->name.len) == 0) {
            if ((rc = take_extra(&c, &at->value, typed, &x)) != 0)
                goto done;
        } else if (extras_add(&x, at, a) != 0) {
            rc = oom(err);
            goto done;
        }
    }
    for (size_t i = 0; i < e->n_fields && !keys_only; i++) {
        if (e->fields[i].required && (!c.slots[i].set || c.slots[i].value.type == DDB_TYPE_NULL)) {
            rc = ddb_error_set(err, DDB_EINVAL, "required field %s is missing", e->fields[i].name);
            goto done;
        }
    }

    attrs = ddb_arena_alloc(a, (e->n_keys + 1 + e->n_fields + x.count) * sizeof(*attrs));
    if (attrs == NULL || build_vals(&c) != 0) {
        rc = oom(err);
        goto done;
    }
    for (size_t k = 0; k < e->n_keys; k++) {
        const ddb_template *t = &e->keys[k];
        int table_key = t->role == DDB_ROLE_PK || t->role == DDB_ROLE_SK, missing = -1;
        const ddb_value *v;
        if (keys_only && !table_key)
            continue;
        v = render_key(&c, t, &buf, &missing, &rc);
        if (rc == DDB_ENOMATCH) {
            if (table_key) {
                rc = ddb_error_set(err, DDB_EINVAL, "cannot compute %s \"%s\": field %s is missing",
                                   t->attr, t->text, e->fields[missing].name);
                goto done;
            }
            rc = 0;
            continue; /* sparse index: the item simply is not in it */
        }
        if (rc != 0) {
            ddb_error_prefix(err, "%s: ", t->attr);
            goto done;
        }
        attrs[n].name.ptr = t->attr;
        attrs[n].name.len = t->attr_len;
        attrs[n++].value = *v;
    }
    if (m->table.type_attr && !keys_only) {
        attrs[n].name.ptr = m->table.type_attr;
        attrs[n].name.len = strlen(m->table.type_attr);
        attrs[n++].value = ddb_value_str(DDB_TYPE_S, e->type_value, strlen(e->type_value));
    }
    for (size_t i = 0; i < e->n_fields && !keys_only; i++) {
        if (!e->fields[i].store || !c.slots[i].set)
            continue;
        attrs[n].name.ptr = e->fields[i].attribute;
        attrs[n].name.len = e->fields[i].attribute_len;
        attrs[n++].value = c.slots[i].value;
    }
    for (size_t i = 0; i < x.count && !keys_only; i++) {
        const ddb_str *name = &x.attrs[i].name;
        if (e->undeclared == DDB_UNDECLARED_DROP)
            break;
        if (e->undeclared == DDB_UNDECLARED_REJECT) {
            rc = ddb_error_set(err, DDB_EINVAL,
                               "undeclared attribute '%.*s' (entity %s rejects undeclared "
                               "attributes)",
                               (int)name->len, name->ptr, e->name);
            goto done;
        }
        if (out_has(attrs, n, name)) {
            rc = ddb_error_set(err, DDB_EINVAL,
                               "undeclared attribute '%.*s' would overwrite a computed or "
                               "declared attribute of the same name",
                               (int)name->len, name->ptr);
            goto done;
        }
        attrs[n++] = x.attrs[i];
    }
    if (!keys_only)
        n = drop_lone_constants(m, e, attrs, n);
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
                             int keys_only, ddb_roundtrip_memo *memo, ddb_arena *a, ddb_error *err)
{
    ddb_item again;
    char why[600];
    int rc;

    if (!keys_only && ddb_roundtrip_memo_known(memo, d, item))
        return 0;
    rc = encode(&again, m, d->entity, &d->record, 1, a, err, keys_only ? ENC_KEYS : ENC_UNCHECKED);
    if (rc != 0)
        return rc;
    if (describe_change(why, sizeof(why), item, &again))
        return ddb_error_set(err, DDB_EINVAL, "%s", why);
    if (!keys_only)
        ddb_roundtrip_memo_learn(memo, d, item);
    return 0;
}
