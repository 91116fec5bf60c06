/*
 * The transformer: items <-> per-entity records under a mapping.
 *
 * Decode (transform_decode.c) gathers every field from the places it appears
 * (its own attribute, and each key template that mentions it), insists they
 * agree, and then re-renders each key from the result: an item decodes only
 * if encoding the record would give its keys back byte for byte. Encode
 * (transform_encode.c) is the inverse. This file holds what both use: the
 * slots a record's field values are gathered in, and rendering keys.
 */
#include <string.h>

#include "ddbpipe/number.h"
#include "transform/transform_internal.h"

int tf_oom(ddb_error *err)
{
    return ddb_error_set(err, DDB_ENOMEM, "out of memory");
}

int tf_refuse_undeclared(const ddb_entity *e, const ddb_str *name, ddb_error *err)
{
    return ddb_error_set(err, DDB_EINVAL,
                         "undeclared attribute '%.*s' (entity %s rejects undeclared attributes)",
                         (int)name->len, name->ptr, e->name);
}

/* ---------------------------------------------------------- field values */

/* Text form of scalar values, for constraint checks. */
int tf_check_constraints(const ddb_field *f, const ddb_value *v, ddb_error *err)
{
    if (v->type != DDB_TYPE_S && v->type != DDB_TYPE_N)
        return 0;
    if (f->n_enum == 0 && !f->has_pattern && f->format == DDB_FMT_NONE && f->precision == 0)
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

int tf_set_slot_again(tctx *c, int fi, const ddb_value *v, const char *source)
{
    slot *s = &c->slots[fi];
    if (!values_agree(&s->value, v)) {
        char a1[96], a2[96];
        ddb_value_describe(a1, sizeof(a1), &s->value);
        ddb_value_describe(a2, sizeof(a2), v);
        return ddb_error_set(c->err, DDB_EINVAL, "field %s: %s gives %s but %s gives %s",
                             c->e->fields[fi].name, s->source, a1, source, a2);
    }
    return 0;
}

/* The field values as the renderer wants them; call once all slots are set. */
int tf_build_vals(tctx *c)
{
    c->vals = ddb_arena_alloc(c->a, (c->e->n_fields ? c->e->n_fields : 1) * sizeof(*c->vals));
    if (c->vals == NULL)
        return tf_oom(c->err);
    for (size_t i = 0; i < c->e->n_fields; i++)
        c->vals[i] = c->slots[i].set ? &c->slots[i].value : NULL;
    return 0;
}

const ddb_value *tf_render_key(tctx *c, const ddb_template *t, ddb_buf *buf, int *missing, int *rc)
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
            *rc = tf_oom(c->err);
            return NULL;
        }
        *v = ddb_value_str(DDB_TYPE_S, text, buf->len);
        return v;
    }
}
