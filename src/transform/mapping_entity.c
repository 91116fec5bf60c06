/*
 * The entities of a mapping: each entity's fields with their constraints,
 * its key templates laid out one per key role of the table, and which
 * fields are stored as attributes of their own.
 */
#include <json-c/json.h>
#include <regex.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/number.h"
#include "transform/gen_spec.h"
#include "transform/mapping_internal.h"
#include "transform/pattern_limits.h"
#include "transform/template.h"

static int parse_format(mapping_loader *ld, const char *path, const char *s, ddb_field_format *out)
{
    if (strcmp(s, "date") == 0)
        *out = DDB_FMT_DATE;
    else if (strcmp(s, "datetime") == 0)
        *out = DDB_FMT_DATETIME;
    else if (strcmp(s, "weekday") == 0)
        *out = DDB_FMT_WEEKDAY;
    else if (strcmp(s, "uuid") == 0)
        *out = DDB_FMT_UUID;
    else
        return mapping_bad(ld, path,
                           "\"format\" must be date, datetime, weekday or uuid, not \"%s\"", s);
    return 0;
}

/* "enum": ["a", "b"] lists the allowed values; "enum": {"IMAGE": "image"} also
 * says how each value is spelt inside key templates, for designs that store one
 * spelling and key by another (Java's DynamoDBMapper stores an enum's name()
 * while key getters often use a getValue()). */
static int parse_enum(mapping_loader *ld, const char *path, json_object *obj, ddb_field *f)
{
    json_object *v;
    size_t n, i = 0;

    if (!json_object_object_get_ex(obj, "enum", &v) || !json_object_is_type(v, json_type_object))
        return mapping_get_string_array(ld, path, obj, "enum", &f->enum_values, &f->n_enum);
    n = (size_t)json_object_object_length(v);
    if (n == 0)
        return mapping_bad(ld, path, "\"enum\" must not be empty");
    f->enum_values = calloc(n, sizeof(char *));
    f->enum_keys = calloc(n, sizeof(char *));
    if (f->enum_values == NULL || f->enum_keys == NULL)
        return mapping_nomem(ld);
    json_object_object_foreach(v, value, spelling)
    {
        if (!json_object_is_type(spelling, json_type_string) ||
            json_object_get_string_len(spelling) == 0)
            return mapping_bad(
                ld, path, "\"enum\".%s must be a non-empty string (its spelling in keys)", value);
        f->n_enum = ++i;
        if (mapping_dup_into(ld, &f->enum_values[i - 1], value) != 0 ||
            mapping_dup_into(ld, &f->enum_keys[i - 1], json_object_get_string(spelling)) != 0)
            return mapping_nomem(ld);
        for (size_t j = 0; j + 1 < i; j++)
            if (strcmp(f->enum_keys[j], f->enum_keys[i - 1]) == 0)
                return mapping_bad(ld, path,
                                   "\"enum\": %s and %s have the same key spelling \"%s\"",
                                   f->enum_values[j], value, f->enum_keys[j]);
    }
    return 0;
}

/* "precision": P, "scale": S, or "integer": true (scale 0) declare an N field
 * a DECIMAL(P,S): Parquet stores it so, and a value that does not fit is
 * rejected rather than rounded. P defaults to 38, the most a Number holds. */
static int parse_decimal(mapping_loader *ld, const char *path, json_object *obj, ddb_field *f)
{
    json_object *p, *s;
    int has_p = json_object_object_get_ex(obj, "precision", &p);
    int has_s = json_object_object_get_ex(obj, "scale", &s);
    int integer = 0, rc;

    if ((rc = mapping_get_bool(ld, path, obj, "integer", &integer)) != 0)
        return rc;
    if (!has_p && !has_s && !integer)
        return 0;
    if (f->type != DDB_TYPE_N)
        return mapping_bad(ld, path,
                           "\"precision\", \"scale\" and \"integer\" apply to N "
                           "fields only");
    f->precision = DDB_NUMBER_MAX_DIGITS;
    if (has_p && (!json_object_is_type(p, json_type_int) || json_object_get_int64(p) < 1 ||
                  json_object_get_int64(p) > DDB_NUMBER_MAX_DIGITS))
        return mapping_bad(ld, path, "\"precision\" must be a whole number from 1 to 38");
    if (has_p)
        f->precision = json_object_get_int(p);
    if (has_s && (!json_object_is_type(s, json_type_int) || json_object_get_int64(s) < 0 ||
                  json_object_get_int64(s) > f->precision))
        return mapping_bad(ld, path,
                           "\"scale\" must be a whole number from 0 to the precision (%d)",
                           f->precision);
    f->scale = has_s ? json_object_get_int(s) : 0;
    if (integer && f->scale != 0)
        return mapping_bad(ld, path, "\"integer\": true means \"scale\": 0, not %d", f->scale);
    return 0;
}

/* A member of a declared map: a name, a type and for N a DECIMAL, nothing
 * the transform would check (the map stays a map in items and records). */
static int parse_member(mapping_loader *ld, const char *path, json_object *obj, ddb_field *f)
{
    static const char *const props[] = {"name",  "type",    "precision", "scale",
                                        "integer", "description", NULL};
    const char *name, *type;
    int rc;
    if (!json_object_is_type(obj, json_type_object))
        return mapping_bad(ld, path, "must be an object like {\"name\": \"rating\", \"type\": \"N\"}");
    if (json_object_object_get_ex(obj, "fields", NULL))
        return mapping_bad(ld, path,
                           "a map's members cannot declare \"fields\" of their own (one level "
                           "of nesting: declare it \"type\": \"M\" alone, a JSON column)");
    if ((rc = mapping_check_props(ld, path, obj, props)) != 0 ||
        (rc = mapping_get_string(ld, path, obj, "name", 1, &name)) != 0 ||
        (rc = mapping_get_string(ld, path, obj, "type", 1, &type)) != 0)
        return rc;
    if (mapping_dup_into(ld, &f->name, name) != 0)
        return mapping_nomem(ld);
    f->name_len = strlen(name);
    if (ddb_type_parse(&f->type, type, strlen(type)) != 0)
        return mapping_bad(ld, path,
                           "unknown type \"%s\" (S, N, B, BOOL, NULL, M, L, SS, NS or BS)", type);
    return parse_decimal(ld, path, obj, f);
}

/* "fields" of an M field: its members, each named once. */
static int parse_members(mapping_loader *ld, const char *path, json_object *obj, ddb_field *f)
{
    json_object *v;
    char sub[256];
    size_t n;
    int rc;
    if (!json_object_object_get_ex(obj, "fields", &v))
        return 0;
    if (f->type != DDB_TYPE_M)
        return mapping_bad(ld, path, "\"fields\" declares a map's members: M fields only");
    if (!json_object_is_type(v, json_type_array) || (n = json_object_array_length(v)) == 0)
        return mapping_bad(ld, path, "\"fields\" must be a non-empty array of member "
                                     "declarations like {\"name\": \"rating\", \"type\": \"N\"}");
    if ((f->members = calloc(n, sizeof(*f->members))) == NULL)
        return mapping_nomem(ld);
    for (size_t i = 0; i < n; i++) {
        snprintf(sub, sizeof(sub), "%s.fields[%zu]", path, i);
        f->n_members++;
        if ((rc = parse_member(ld, sub, json_object_array_get_idx(v, i), &f->members[i])) != 0)
            return rc;
        for (size_t j = 0; j < i; j++)
            if (strcmp(f->members[j].name, f->members[i].name) == 0)
                return mapping_bad(ld, sub, "member \"%s\" is declared twice", f->members[i].name);
    }
    return 0;
}
/* Every pattern compiled in the process gets the next of these (field_check.c's
 * memo of matches is keyed by it). */
static _Atomic uint64_t pattern_ids;

static int parse_field(mapping_loader *ld, const char *path, json_object *obj, ddb_field *f)
{
    static const char *const props[] = {
        "name",     "type",      "attribute", "aliases", "pad",      "store",
        "required", "enum",      "pattern",   "format",  "generate", "description",
        "spelling", "precision", "scale",     "integer", "fields",   NULL};
    const char *name, *type, *attr, *pattern, *format, *spelling;
    json_object *v;
    int rc;

    if (!json_object_is_type(obj, json_type_object))
        return mapping_bad(ld, path,
                           "must be an object like {\"name\": \"userId\", \"type\": \"S\"}");
    if ((rc = mapping_check_props(ld, path, obj, props)) != 0 ||
        (rc = mapping_get_string(ld, path, obj, "name", 1, &name)) != 0 ||
        (rc = mapping_get_string(ld, path, obj, "type", 0, &type)) != 0 ||
        (rc = mapping_get_string(ld, path, obj, "attribute", 0, &attr)) != 0 ||
        (rc = mapping_get_string(ld, path, obj, "pattern", 0, &pattern)) != 0 ||
        (rc = mapping_get_string(ld, path, obj, "format", 0, &format)) != 0)
        return rc;
    if (strcmp(name, DDB_EXTRA_FIELD) == 0)
        return mapping_bad(ld, path, "\"%s\" is reserved for undeclared attributes",
                           DDB_EXTRA_FIELD);
    if (mapping_dup_into(ld, &f->name, name) != 0)
        return mapping_nomem(ld);
    f->name_len = strlen(name);
    f->type = DDB_TYPE_S;
    if (type != NULL && ddb_type_parse(&f->type, type, strlen(type)) != 0)
        return mapping_bad(ld, path,
                           "unknown type \"%s\" (S, N, B, BOOL, NULL, M, L, SS, NS or BS)", type);
    if (mapping_dup_into(ld, &f->attribute, attr ? attr : name) != 0)
        return mapping_nomem(ld);
    f->attribute_len = strlen(f->attribute);
    f->store = -1; /* decided once the templates are known */
    if ((rc = mapping_get_bool(ld, path, obj, "store", &f->store)) != 0 ||
        (rc = mapping_get_bool(ld, path, obj, "required", &f->required)) != 0 ||
        (rc = mapping_get_string_array(ld, path, obj, "aliases", &f->aliases, &f->n_aliases)) !=
            0 ||
        (rc = parse_enum(ld, path, obj, f)) != 0 || (rc = parse_decimal(ld, path, obj, f)) != 0 ||
        (rc = parse_members(ld, path, obj, f)) != 0)
        return rc;
    if (f->enum_keys != NULL && f->type != DDB_TYPE_S)
        return mapping_bad(ld, path, "an \"enum\" with key spellings applies to S fields only");
    if (json_object_object_get_ex(obj, "pad", &v)) {
        if (!json_object_is_type(v, json_type_int) || json_object_get_int(v) < 1 ||
            json_object_get_int(v) > 64)
            return mapping_bad(ld, path, "\"pad\" must be a width between 1 and 64");
        if (f->type != DDB_TYPE_N)
            return mapping_bad(ld, path, "\"pad\" applies to N fields only");
        f->pad = json_object_get_int(v);
    }
    if (pattern != NULL) {
        char why[160], *anchored;
        if (ddb_pattern_check(pattern, why, sizeof(why)) != 0)
            return mapping_bad(ld, path, "\"pattern\" of field \"%s\" is too complex: %s", name,
                               why);
        if ((anchored = malloc(strlen(pattern) + 5)) == NULL)
            return mapping_nomem(ld);
        sprintf(anchored, "^(%s)$", pattern);
        rc = regcomp(&f->pattern, anchored, REG_EXTENDED | REG_NOSUB);
        free(anchored);
        if (rc != 0)
            return mapping_bad(ld, path,
                               "\"pattern\" is not a valid POSIX extended regular expression");
        f->has_pattern = 1;
        f->pattern_id = atomic_fetch_add(&pattern_ids, 1) + 1;
        if (mapping_dup_into(ld, &f->pattern_text, pattern) != 0)
            return mapping_nomem(ld);
    }
    if (format != NULL && (rc = parse_format(ld, path, format, &f->format)) != 0)
        return rc;
    if ((rc = mapping_get_string(ld, path, obj, "spelling", 0, &spelling)) != 0)
        return rc;
    if (spelling != NULL) {
        static const char *const forms[] = {"Monday", "MONDAY", "monday", "Mon", "MON", "mon"};
        size_t i;
        if (f->format != DDB_FMT_WEEKDAY)
            return mapping_bad(ld, path, "\"spelling\" applies to \"format\": \"weekday\" only");
        for (i = 0; i < 6 && strcmp(forms[i], spelling) != 0; i++)
            ;
        if (i == 6)
            return mapping_bad(
                ld, path,
                "\"spelling\" is how a day is written: Monday, MONDAY, monday, Mon, MON "
                "or mon, not \"%s\"",
                spelling);
        if (mapping_dup_into(ld, &f->spelling, spelling) != 0)
            return mapping_nomem(ld);
    }
    if (json_object_object_get_ex(obj, "generate", &v))
        return ddb_gen_spec_parse(&f->gen, v, f, ld->name, path, ld->err);
    return 0;
}

/* Compiles the entity's "keys" into e->keys (owned by e, also on failure):
 * the table's partition key first, then its sort key, then the rest. Returns
 * 0, DDB_EUSAGE (a key the table needs has no template, a bad template) or
 * DDB_ENOMEM. */
static int parse_keys(mapping_loader *ld, const char *path, json_object *obj,
                      const ddb_table_def *t, ddb_entity *e)
{
    char sub[300];
    json_object *keys;
    size_t n;

    if (!json_object_object_get_ex(obj, "keys", &keys) ||
        !json_object_is_type(keys, json_type_object))
        return mapping_bad(ld, path, "\"keys\" must be an object of attribute -> template");
    n = (size_t)json_object_object_length(keys);
    if ((e->keys = calloc(n ? n : 1, sizeof(*e->keys))) == NULL)
        return mapping_nomem(ld);
    {
        /* Table keys first, so matching and encoding see pk and sk before indexes. */
        const char *order[2] = {t->pk.name, t->sk.name};
        for (int pass = 0; pass < 3; pass++) {
            json_object_object_foreach(keys, attr, tv)
            {
                ddb_key_role role;
                ddb_type atype = mapping_table_attr_type(t, attr, &role);
                ddb_template *tp;
                if (pass < 2 && (order[pass] == NULL || strcmp(attr, order[pass]) != 0))
                    continue;
                if (pass == 2 && (role == DDB_ROLE_PK || role == DDB_ROLE_SK))
                    continue;
                snprintf(sub, sizeof(sub), "%s.keys.%s", path, attr);
                if (t->type_attr && strcmp(attr, t->type_attr) == 0)
                    return mapping_bad(ld, sub,
                                       "the entity-type attribute cannot be computed (it holds "
                                       "the entity's typeValue)");
                if (!json_object_is_type(tv, json_type_string))
                    return mapping_bad(ld, sub,
                                       "a key template must be a string like \"Tag#{userId}\"");
                tp = &e->keys[e->n_keys++];
                if (mapping_dup_into(ld, &tp->attr, attr) == 0)
                    tp->attr_len = strlen(attr);
                else
                    return mapping_nomem(ld);
                tp->attr_type = atype;
                tp->role = role;
                if (ddb_template_compile(tp, json_object_get_string(tv), e, sub, ld->err) != 0)
                    return ddb_error_prefix(ld->err, "mapping %s: ", ld->name);
            }
        }
    }
    if (e->n_keys == 0 || e->keys[0].role != DDB_ROLE_PK)
        return mapping_bad(ld, path, "\"keys\" needs a template for the partition key \"%s\"",
                           t->pk.name);
    if (t->sk.name != NULL && (e->n_keys < 2 || e->keys[1].role != DDB_ROLE_SK))
        return mapping_bad(ld, path, "\"keys\" needs a template for the sort key \"%s\"",
                           t->sk.name);
    /* keys written the same way (a GSI's sort key that repeats an LSI's):
     * decode checks one, and the other when it holds the same bytes */
    for (size_t k = 0; k < e->n_keys; k++)
        for (size_t j = 0; j < k && e->keys[k].same_as < 0; j++)
            if (e->keys[j].attr_type == e->keys[k].attr_type &&
                strcmp(e->keys[j].text, e->keys[k].text) == 0)
                e->keys[k].same_as = (int)j;
    return 0;
}

/* Decides which fields are stored as attributes of their own, once the key
 * templates are known, and refuses a field stored where a computed key or
 * the entity type goes. Returns 0 or DDB_EUSAGE. */
static int decide_storage(mapping_loader *ld, const char *path, const ddb_table_def *t,
                          ddb_entity *e)
{
    for (size_t i = 0; i < e->n_fields; i++) {
        ddb_field *f = &e->fields[i];
        for (size_t k = 0; k < e->n_keys; k++) {
            if (e->keys[k].role != DDB_ROLE_PK && e->keys[k].role != DDB_ROLE_SK)
                continue;
            for (size_t s = 0; s < e->keys[k].n_segs; s++)
                if (e->keys[k].segs[s].field == (int)i)
                    f->in_table_key = 1;
        }
        /* A field held in the table key is not stored again unless asked. */
        if (f->store < 0)
            f->store = !f->in_table_key;
        for (size_t k = 0; k < e->n_keys; k++) {
            const ddb_template *kt = &e->keys[k];
            if (strcmp(kt->attr, f->attribute) != 0)
                continue;
            /* "name": "{name}" — the key attribute is the field itself: it is
             * stored once, as the key. */
            if (kt->n_segs == 1 && kt->segs[0].field == (int)i) {
                f->store = 0;
                continue;
            }
            return mapping_bad(ld, path,
                               "field \"%s\" is stored in \"%s\", which is a computed key", f->name,
                               f->attribute);
        }
        if (t->type_attr && strcmp(t->type_attr, f->attribute) == 0)
            return mapping_bad(ld, path,
                               "field \"%s\" is stored in the entity-type attribute \"%s\"",
                               f->name, t->type_attr);
    }
    return 0;
}

int mapping_parse_entity(mapping_loader *ld, const char *path, json_object *obj,
                         const ddb_table_def *t, ddb_entity *e)
{
    static const char *const props[] = {"name",       "typeValue",   "keys", "fields",
                                        "undeclared", "description", NULL};
    char sub[300];
    const char *name, *type_value, *undeclared;
    json_object *fields;
    size_t n;
    int rc;

    if (!json_object_is_type(obj, json_type_object))
        return mapping_bad(ld, path, "must be an object");
    if ((rc = mapping_check_props(ld, path, obj, props)) != 0 ||
        (rc = mapping_get_string(ld, path, obj, "name", 1, &name)) != 0 ||
        (rc = mapping_get_string(ld, path, obj, "typeValue", 0, &type_value)) != 0 ||
        (rc = mapping_get_string(ld, path, obj, "undeclared", 0, &undeclared)) != 0)
        return rc;
    if (strchr(name, '/') || name[0] == '.' || name[0] == '_')
        return mapping_bad(ld, path,
                           "entity name \"%s\" must not start with '.' or '_' or contain '/'"
                           " (it names output files)",
                           name);
    if (mapping_dup_into(ld, &e->name, name) != 0 ||
        mapping_dup_into(ld, &e->type_value, type_value ? type_value : name) != 0)
        return mapping_nomem(ld);
    if (undeclared == NULL || strcmp(undeclared, "keep") == 0)
        e->undeclared = DDB_UNDECLARED_KEEP;
    else if (strcmp(undeclared, "drop") == 0)
        e->undeclared = DDB_UNDECLARED_DROP;
    else if (strcmp(undeclared, "reject") == 0)
        e->undeclared = DDB_UNDECLARED_REJECT;
    else
        return mapping_bad(ld, path, "\"undeclared\" must be keep, drop or reject");

    if (!json_object_object_get_ex(obj, "fields", &fields) ||
        !json_object_is_type(fields, json_type_array))
        return mapping_bad(ld, path, "\"fields\" must be an array of field declarations");
    n = json_object_array_length(fields);
    if (n && (e->fields = calloc(n, sizeof(*e->fields))) == NULL)
        return mapping_nomem(ld);
    for (size_t i = 0; i < n; i++) {
        snprintf(sub, sizeof(sub), "%s.fields[%zu]", path, i);
        e->n_fields++;
        if ((rc = parse_field(ld, sub, json_object_array_get_idx(fields, i), &e->fields[i])) != 0)
            return rc;
        for (size_t j = 0; j < i; j++) {
            if (strcmp(e->fields[j].name, e->fields[i].name) == 0)
                return mapping_bad(ld, sub, "field \"%s\" is declared twice", e->fields[i].name);
            if (strcmp(e->fields[j].attribute, e->fields[i].attribute) == 0)
                return mapping_bad(ld, sub,
                                   "fields \"%s\" and \"%s\" are stored in the same attribute",
                                   e->fields[j].name, e->fields[i].name);
        }
    }
    if ((rc = parse_keys(ld, path, obj, t, e)) != 0)
        return rc;
    return decide_storage(ld, path, t, e);
}
