/*
 * transform_internal.h (private header of transform/) — what decode (transform_decode.c) and encode
 * (transform_encode.c) share: the per-field slots a record's values are
 * gathered in, and rendering key templates from them (transform.c).
 */
#ifndef DDBPIPE_TRANSFORM_INTERNAL_H
#define DDBPIPE_TRANSFORM_INTERNAL_H

#include "ddbpipe/buf.h"
#include "ddbpipe/transform.h"
#include "transform/template.h"

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
    uint64_t known;         /* bit i: slot i (up to 63) is set */
} tctx;

/* Decode's shortcut for index keys that are their known fields' rendering
 * (transform_decode.c): on unless a test turns it off to compare the two. */
extern int ddb_decode_shortcuts;

/* Sets err to "out of memory"; returns DDB_ENOMEM. */
int tf_oom(ddb_error *err);

/* A scalar value against its field's enum, pattern and format. Returns 0, or
 * DDB_EINVAL with the reason in err (when err is not NULL). */
int tf_check_constraints(const ddb_field *f, const ddb_value *v, ddb_error *err);

/* A slot set again (tf_set_slot): the value must agree with the one it
 * holds. Returns 0, or DDB_EINVAL naming both sources. */
int tf_set_slot_again(tctx *c, int fi, const ddb_value *v, const char *source);

/* Gives field fi of c's entity the value v, taken from source (an attribute
 * or key name, for messages); a field set before must agree (numbers by
 * value). Returns 0, or DDB_EINVAL naming both sources. Inline: a decode sets
 * a handful of slots per item, nearly all for the first time. */
static inline int tf_set_slot(tctx *c, int fi, const ddb_value *v, const char *source)
{
    slot *s = &c->slots[fi];
    if (s->set)
        return tf_set_slot_again(c, fi, v, source);
    s->value = *v;
    s->set = 1;
    s->source = source;
    if (fi < 64)
        c->known |= UINT64_C(1) << fi;
    if (c->vals != NULL)
        c->vals[fi] = &s->value; /* the renderer's view stays current */
    return 0;
}

/* The refusal of undeclared attribute name by entity e, which rejects them:
 * returns DDB_EINVAL with the message in err. */
int tf_refuse_undeclared(const ddb_entity *e, const ddb_str *name, ddb_error *err);

/* Points c->vals at the slots set (NULL for the others), in c's arena; call
 * once all slots are set. Returns 0 or DDB_ENOMEM. */
int tf_build_vals(tctx *c);

/* Key template t rendered from c->vals: the field's own value for a
 * non-string key, otherwise text rendered through buf and copied into c's
 * arena. NULL with *rc DDB_ENOMATCH (*missing = the absent field), DDB_EINVAL
 * (err says why) or DDB_ENOMEM. */
const ddb_value *tf_render_key(tctx *c, const ddb_template *t, ddb_buf *buf, int *missing, int *rc);

#endif
