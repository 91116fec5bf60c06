/*
 * Value conversion between the shapes records arrive in (CSV text, plain
 * JSON, DynamoDB JSON) and the types a mapping declares. Used by the
 * transformer for every field, and directly for `_extra` and --types.
 */

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "ddbpipe/codec.h"
#include "ddbpipe/json.h"
#include "ddbpipe/mapping.h"
#include "ddbpipe/number.h"

static int oom(ddb_error *err)
{
    return ddb_error_set(err, DDB_ENOMEM, "out of memory");
}

void ddb_value_describe(char *out, size_t cap, const ddb_value *v)
{
    switch (v->type) {
    case DDB_TYPE_S:
    case DDB_TYPE_N:
        snprintf(out, cap, "'%.*s%s'", (int)(v->u.s.len > 60 ? 60 : v->u.s.len), v->u.s.ptr,
                 v->u.s.len > 60 ? "..." : "");
        break;
    case DDB_TYPE_BOOL:
        snprintf(out, cap, "%s", v->u.boolean ? "true" : "false");
        break;
    default:
        snprintf(out, cap, "a %s value", ddb_type_name(v->type));
        break;
    }
}

static int parse_json_text(ddb_value *out, const ddb_str *text, ddb_arena *a, ddb_error *err)
{
    ddb_json_parser *p = NULL;
    int rc;
    if (ddb_json_parser_new(&p) != 0)
        return oom(err);
    rc = ddb_json_parse_plain(p, out, text->ptr, text->len, a, err);
    ddb_json_parser_free(p);
    return rc;
}

static int convert_members(ddb_value *out, const ddb_value *in, ddb_type want, ddb_arena *a,
                           ddb_error *err)
{
    ddb_type member = ddb_type_set_member(want);
    ddb_value *items = NULL;

    if (in->u.l.count == 0 && member != DDB_TYPE_NONE)
        return ddb_error_set(err, DDB_EINVAL,
                             "an empty list cannot become a %s (sets are never "
                             "empty)",
                             ddb_type_name(want));
    if (in->u.l.count) {
        items = ddb_arena_alloc(a, in->u.l.count * sizeof(*items));
        if (items == NULL)
            return oom(err);
    }
    for (size_t i = 0; i < in->u.l.count; i++) {
        int rc;
        if (member == DDB_TYPE_NONE) { /* to L: members keep their own types */
            items[i] = in->u.l.items[i];
            continue;
        }
        if ((rc = ddb_value_convert(&items[i], &in->u.l.items[i], member, a, err)) != 0)
            return ddb_error_prefix(err, "member %zu: ", i);
        if (items[i].type == DDB_TYPE_NULL)
            return ddb_error_set(err, DDB_EINVAL, "member %zu: null cannot be a set member", i);
    }
    out->type = want;
    out->u.l.items = items;
    out->u.l.count = in->u.l.count;
    return 0;
}

int ddb_value_convert(ddb_value *out, const ddb_value *v, ddb_type want, ddb_arena *a,
                      ddb_error *err)
{
    char what[96];

    if (v->type == want || v->type == DDB_TYPE_NULL) {
        *out = *v;
        return 0;
    }
    switch (want) {
    case DDB_TYPE_S:
        if (v->type == DDB_TYPE_N) {
            *out = ddb_value_str(DDB_TYPE_S, v->u.s.ptr, v->u.s.len);
            return 0;
        }
        if (v->type == DDB_TYPE_BOOL) {
            *out = v->u.boolean ? ddb_value_str(DDB_TYPE_S, "true", 4)
                                : ddb_value_str(DDB_TYPE_S, "false", 5);
            return 0;
        }
        break;
    case DDB_TYPE_N:
        if (v->type == DDB_TYPE_S) {
            if (ddb_number_validate(v->u.s.ptr, v->u.s.len, err) != 0)
                return DDB_EINVAL;
            *out = ddb_value_str(DDB_TYPE_N, v->u.s.ptr, v->u.s.len);
            return 0;
        }
        break;
    case DDB_TYPE_B:
        if (v->type == DDB_TYPE_S) {
            unsigned char *bytes = ddb_arena_alloc(a, v->u.s.len / 4 * 3 + 1);
            size_t n, bad;
            if (bytes == NULL)
                return oom(err);
            if (ddb_base64_decode(bytes, &n, v->u.s.ptr, v->u.s.len, &bad) != 0)
                return ddb_error_set(err, DDB_EINVAL, "invalid base64 at character %zu", bad + 1);
            *out = ddb_value_str(DDB_TYPE_B, (const char *)bytes, n);
            return 0;
        }
        break;
    case DDB_TYPE_BOOL:
        if (v->type == DDB_TYPE_S) {
            if (v->u.s.len == 4 && strncasecmp(v->u.s.ptr, "true", 4) == 0) {
                *out = ddb_value_bool(1);
                return 0;
            }
            if (v->u.s.len == 5 && strncasecmp(v->u.s.ptr, "false", 5) == 0) {
                *out = ddb_value_bool(0);
                return 0;
            }
        }
        break;
    case DDB_TYPE_NULL:
        if (v->type == DDB_TYPE_S &&
            ((v->u.s.len == 4 && strncasecmp(v->u.s.ptr, "null", 4) == 0) ||
             (v->u.s.len == 4 && strncasecmp(v->u.s.ptr, "true", 4) == 0))) {
            *out = ddb_value_null();
            return 0;
        }
        break;
    case DDB_TYPE_M:
    case DDB_TYPE_L:
    case DDB_TYPE_SS:
    case DDB_TYPE_NS:
    case DDB_TYPE_BS:
        if (v->type == DDB_TYPE_S) {
            /* CSV cells hold M, L and sets as JSON text. */
            ddb_value parsed;
            int rc = parse_json_text(&parsed, &v->u.s, a, err);
            if (rc != 0)
                return ddb_error_prefix(err, "JSON text for a %s value: ", ddb_type_name(want));
            if (parsed.type == DDB_TYPE_S)
                break; /* a JSON string would loop: not a container */
            return ddb_value_convert(out, &parsed, want, a, err);
        }
        if (want == DDB_TYPE_M)
            break;
        if (v->type == DDB_TYPE_L || v->type == DDB_TYPE_SS || v->type == DDB_TYPE_NS ||
            v->type == DDB_TYPE_BS)
            return convert_members(out, v, want, a, err);
        break;
    default:
        break;
    }
    ddb_value_describe(what, sizeof(what), v);
    return ddb_error_set(err, DDB_EINVAL, "%s (%s) cannot be converted to %s", what,
                         ddb_type_name(v->type), ddb_type_name(want));
}

int ddb_value_from_typed_json(ddb_value *out, const ddb_value *plain, ddb_arena *a, ddb_error *err)
{
    const ddb_attr *t;
    ddb_type type;

    if (plain->type != DDB_TYPE_M || plain->u.m.count != 1)
        return ddb_error_set(err, DDB_EINVAL, "expected a typed value like {\"S\": \"x\"}");
    t = &plain->u.m.attrs[0];
    if (ddb_type_parse(&type, t->name.ptr, t->name.len) != 0)
        return ddb_error_set(err, DDB_EINVAL, "unknown type '%.*s'", (int)t->name.len, t->name.ptr);
    memset(out, 0, sizeof(*out));
    out->type = type;
    switch (type) {
    case DDB_TYPE_S:
    case DDB_TYPE_N:
        if (t->value.type != DDB_TYPE_S)
            return ddb_error_set(err, DDB_EINVAL, "%s needs a string", ddb_type_name(type));
        out->u.s = t->value.u.s;
        return 0;
    case DDB_TYPE_B:
        if (t->value.type != DDB_TYPE_S)
            return ddb_error_set(err, DDB_EINVAL, "B needs a base64 string");
        return ddb_value_convert(out, &t->value, DDB_TYPE_B, a, err);
    case DDB_TYPE_BOOL:
        if (t->value.type != DDB_TYPE_BOOL)
            return ddb_error_set(err, DDB_EINVAL, "BOOL needs true or false");
        *out = t->value;
        return 0;
    case DDB_TYPE_NULL:
        if (t->value.type != DDB_TYPE_BOOL || !t->value.u.boolean)
            return ddb_error_set(err, DDB_EINVAL, "NULL needs true");
        *out = ddb_value_null();
        return 0;
    case DDB_TYPE_M: {
        ddb_attr *attrs = NULL;
        if (t->value.type != DDB_TYPE_M)
            return ddb_error_set(err, DDB_EINVAL, "M needs an object");
        if (t->value.u.m.count &&
            (attrs = ddb_arena_alloc(a, t->value.u.m.count * sizeof(*attrs))) == NULL)
            return oom(err);
        for (size_t i = 0; i < t->value.u.m.count; i++) {
            int rc;
            attrs[i].name = t->value.u.m.attrs[i].name;
            rc = ddb_value_from_typed_json(&attrs[i].value, &t->value.u.m.attrs[i].value, a, err);
            if (rc != 0)
                return rc;
        }
        out->u.m.attrs = attrs;
        out->u.m.count = t->value.u.m.count;
        return 0;
    }
    default: {
        ddb_value *items = NULL;
        ddb_type member = ddb_type_set_member(type);
        if (t->value.type != DDB_TYPE_L)
            return ddb_error_set(err, DDB_EINVAL, "%s needs an array", ddb_type_name(type));
        if (t->value.u.l.count &&
            (items = ddb_arena_alloc(a, t->value.u.l.count * sizeof(*items))) == NULL)
            return oom(err);
        for (size_t i = 0; i < t->value.u.l.count; i++) {
            const ddb_value *src = &t->value.u.l.items[i];
            int rc;
            if (member == DDB_TYPE_NONE)
                rc = ddb_value_from_typed_json(&items[i], src, a, err);
            else if (src->type != DDB_TYPE_S)
                rc = ddb_error_set(err, DDB_EINVAL, "%s members must be strings",
                                   ddb_type_name(type));
            else
                rc = ddb_value_convert(&items[i], src, member, a, err);
            if (rc != 0)
                return rc;
        }
        out->u.l.items = items;
        out->u.l.count = t->value.u.l.count;
        return 0;
    }
    }
}
