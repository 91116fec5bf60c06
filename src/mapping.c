/*
 * Mapping files: loading and checking. json-c is fine here: mappings are
 * small configuration files without 38-digit numbers. Every mistake is
 * reported with the JSON path of the offending property.
 */
#include "ddbpipe/mapping.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen_spec.h"
#include "template.h"

typedef struct loader {
    const char *name;
    ddb_error *err;
} loader;

__attribute__((format(printf, 3, 4))) static int bad(loader *ld, const char *path, const char *fmt,
                                                     ...)
{
    char reason[700];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof(reason), fmt, ap);
    va_end(ap);
    return ddb_error_set(ld->err, DDB_EUSAGE, "mapping %s: %s: %s", ld->name, path, reason);
}

static int nomem(loader *ld)
{
    return ddb_error_set(ld->err, DDB_ENOMEM, "out of memory loading mapping %s", ld->name);
}

/* *dst = a copy of s (NULL stays NULL). Returns 0 or DDB_ENOMEM. */
static int dup_into(loader *ld, char **dst, const char *s)
{
    *dst = NULL;
    if (s != NULL && (*dst = strdup(s)) == NULL)
        return nomem(ld);
    return 0;
}

/* Rejects properties the language does not define, so a typo is an error and
 * not a silently ignored setting. */
static int check_props(loader *ld, const char *path, json_object *obj, const char *const *allowed)
{
    json_object_object_foreach(obj, key, val)
    {
        const char *const *a;
        (void)val;
        for (a = allowed; *a != NULL; a++)
            if (strcmp(*a, key) == 0)
                break;
        if (*a == NULL)
            return bad(ld, path, "unknown property \"%s\"", key);
    }
    return 0;
}

static int get_string(loader *ld, const char *path, json_object *obj, const char *key, int required,
                      const char **out)
{
    json_object *v;
    *out = NULL;
    if (!json_object_object_get_ex(obj, key, &v) || json_object_is_type(v, json_type_null)) {
        if (required)
            return bad(ld, path, "missing \"%s\"", key);
        return 0;
    }
    if (!json_object_is_type(v, json_type_string))
        return bad(ld, path, "\"%s\" must be a string", key);
    *out = json_object_get_string(v);
    if (required && (*out)[0] == '\0')
        return bad(ld, path, "\"%s\" must not be empty", key);
    return 0;
}

static int get_bool(loader *ld, const char *path, json_object *obj, const char *key, int *out)
{
    json_object *v;
    if (!json_object_object_get_ex(obj, key, &v))
        return 0;
    if (!json_object_is_type(v, json_type_boolean))
        return bad(ld, path, "\"%s\" must be true or false", key);
    *out = json_object_get_boolean(v);
    return 0;
}

static int get_string_array(loader *ld, const char *path, json_object *obj, const char *key,
                            char ***out, size_t *n_out)
{
    json_object *v;
    size_t n;
    *out = NULL;
    *n_out = 0;
    if (!json_object_object_get_ex(obj, key, &v))
        return 0;
    if (!json_object_is_type(v, json_type_array))
        return bad(ld, path, "\"%s\" must be an array of strings", key);
    n = json_object_array_length(v);
    if (n == 0)
        return 0;
    if ((*out = calloc(n, sizeof(char *))) == NULL)
        return nomem(ld);
    for (size_t i = 0; i < n; i++) {
        json_object *e = json_object_array_get_idx(v, i);
        if (!json_object_is_type(e, json_type_string))
            return bad(ld, path, "\"%s\"[%zu] must be a string", key, i);
        if (dup_into(ld, &(*out)[i], json_object_get_string(e)) != 0)
            return nomem(ld);
        (*n_out)++;
    }
    return 0;
}

static int parse_key_attr(loader *ld, const char *path, json_object *obj, ddb_key_attr *out)
{
    static const char *const props[] = {"name", "type", NULL};
    const char *name, *type;
    ddb_type t = DDB_TYPE_S;
    int rc;

    if (!json_object_is_type(obj, json_type_object))
        return bad(ld, path, "must be an object like {\"name\": \"pk\", \"type\": \"S\"}");
    if ((rc = check_props(ld, path, obj, props)) != 0 ||
        (rc = get_string(ld, path, obj, "name", 1, &name)) != 0 ||
        (rc = get_string(ld, path, obj, "type", 0, &type)) != 0)
        return rc;
    if (type != NULL && (ddb_type_parse(&t, type, strlen(type)) != 0 ||
                         (t != DDB_TYPE_S && t != DDB_TYPE_N && t != DDB_TYPE_B)))
        return bad(ld, path, "key type must be S, N or B, not \"%s\"", type);
    out->type = t;
    return (out->name = strdup(name)) == NULL ? nomem(ld) : 0;
}

static int parse_index(loader *ld, const char *path, json_object *obj, const ddb_table_def *t,
                       ddb_index_def *out)
{
    static const char *const props[] = {"name",        "type",       "partitionKey",
                                        "sortKey",     "projection", "nonKeyAttributes",
                                        "description", NULL};
    char sub[256];
    const char *name, *kind, *proj;
    json_object *v;
    int rc;

    if ((rc = check_props(ld, path, obj, props)) != 0 ||
        (rc = get_string(ld, path, obj, "name", 1, &name)) != 0 ||
        (rc = get_string(ld, path, obj, "type", 1, &kind)) != 0 ||
        (rc = get_string(ld, path, obj, "projection", 0, &proj)) != 0)
        return rc;
    if (dup_into(ld, &out->name, name) != 0)
        return nomem(ld);
    if (strcmp(kind, "GSI") == 0)
        out->global = 1;
    else if (strcmp(kind, "LSI") != 0)
        return bad(ld, path, "\"type\" must be \"GSI\" or \"LSI\", not \"%s\"", kind);
    if (json_object_object_get_ex(obj, "partitionKey", &v)) {
        if (!out->global)
            return bad(ld, path,
                       "an LSI shares the table's partition key; remove \"partitionKey\"");
        snprintf(sub, sizeof(sub), "%s.partitionKey", path);
        if ((rc = parse_key_attr(ld, sub, v, &out->pk)) != 0)
            return rc;
    } else if (out->global) {
        return bad(ld, path, "a GSI needs a \"partitionKey\"");
    } else {
        if ((out->pk.name = strdup(t->pk.name)) == NULL)
            return nomem(ld);
        out->pk.type = t->pk.type;
    }
    if (json_object_object_get_ex(obj, "sortKey", &v)) {
        snprintf(sub, sizeof(sub), "%s.sortKey", path);
        if ((rc = parse_key_attr(ld, sub, v, &out->sk)) != 0)
            return rc;
    } else if (!out->global) {
        return bad(ld, path, "an LSI needs a \"sortKey\"");
    }
    if (proj != NULL && strcmp(proj, "ALL") != 0 && strcmp(proj, "KEYS_ONLY") != 0 &&
        strcmp(proj, "INCLUDE") != 0)
        return bad(ld, path, "\"projection\" must be ALL, KEYS_ONLY or INCLUDE");
    if (dup_into(ld, &out->projection, proj ? proj : "ALL") != 0)
        return nomem(ld);
    return get_string_array(ld, path, obj, "nonKeyAttributes", &out->non_key, &out->n_non_key);
}

/* The JSON path of key slot k as check_key_names numbers them. */
static void key_path(char *out, size_t cap, const ddb_table_def *t, size_t k)
{
    if (k < 2)
        snprintf(out, cap, "table.%s", k == 0 ? "partitionKey" : "sortKey");
    else if (k % 2 == 0 && !t->indexes[(k - 2) / 2].global)
        snprintf(out, cap, "table.partitionKey (shared by table.indexes[%zu])", (k - 2) / 2);
    else
        snprintf(out, cap, "table.indexes[%zu].%s", (k - 2) / 2,
                 k % 2 == 0 ? "partitionKey" : "sortKey");
}

/* Type of a key attribute as the table declares it (S when it is not a key). */
static ddb_type table_attr_type(const ddb_table_def *t, const char *attr, ddb_key_role *role)
{
    *role = DDB_ROLE_COMPUTED;
    if (strcmp(attr, t->pk.name) == 0) {
        *role = DDB_ROLE_PK;
        return t->pk.type;
    }
    if (t->sk.name && strcmp(attr, t->sk.name) == 0) {
        *role = DDB_ROLE_SK;
        return t->sk.type;
    }
    for (size_t i = 0; i < t->n_indexes; i++) {
        const ddb_index_def *ix = &t->indexes[i];
        if (ix->global && strcmp(attr, ix->pk.name) == 0) {
            *role = DDB_ROLE_INDEX;
            return ix->pk.type;
        }
        if (ix->sk.name && strcmp(attr, ix->sk.name) == 0) {
            *role = DDB_ROLE_INDEX;
            return ix->sk.type;
        }
    }
    return DDB_TYPE_S;
}

/* One attribute name keys one role of an index (DynamoDB refuses a key schema
 * naming it twice, and the entity templates are laid out one per role), has
 * one type wherever it keys something (AttributeDefinitions holds one), and is
 * never the entity-type attribute, which encode writes itself. */
static int check_key_names(loader *ld, const ddb_table_def *t)
{
    char path[96], other[96];
    size_t n = 2 + 2 * t->n_indexes, k = 0;
    const ddb_key_attr **keys = calloc(n, sizeof(*keys));
    int rc = 0;

    if (keys == NULL)
        return ddb_error_set(ld->err, DDB_ENOMEM, "out of memory");
    /* slot 2i+2: index i's partition key, 2i+3: its sort key */
    keys[0] = &t->pk;
    keys[1] = t->sk.name ? &t->sk : NULL;
    for (size_t i = 0; i < t->n_indexes; i++) {
        keys[2 + 2 * i] = &t->indexes[i].pk;
        keys[3 + 2 * i] = t->indexes[i].sk.name ? &t->indexes[i].sk : NULL;
    }
    for (k = 0; k < n && rc == 0; k++) {
        if (keys[k] == NULL)
            continue;
        key_path(path, sizeof(path), t, k);
        if (k % 2 == 1 && strcmp(keys[k]->name, keys[k - 1]->name) == 0) {
            rc = bad(ld, path, "\"%s\" is already %s partition key", keys[k]->name,
                     k == 1 ? "the" : "the index's");
            break;
        }
        for (size_t j = 0; j < k; j++) {
            if (keys[j] == NULL || strcmp(keys[j]->name, keys[k]->name) != 0 ||
                keys[j]->type == keys[k]->type)
                continue;
            key_path(other, sizeof(other), t, j);
            rc = bad(ld, path, "\"%s\" is type %s here but %s in %s", keys[k]->name,
                     ddb_type_name(keys[k]->type), ddb_type_name(keys[j]->type), other);
            break;
        }
        if (rc == 0 && t->type_attr && strcmp(t->type_attr, keys[k]->name) == 0)
            rc = bad(ld, "table.entityTypeAttribute", "\"%s\" is a key attribute (of %s)",
                     t->type_attr, path);
    }
    free(keys);
    return rc;
}

static int parse_table(loader *ld, json_object *obj, ddb_table_def *t)
{
    static const char *const props[] = {
        "name", "partitionKey", "sortKey", "indexes", "entityTypeAttribute", "description", NULL};
    json_object *v;
    const char *name, *type_attr;
    int rc;

    if (!json_object_is_type(obj, json_type_object))
        return bad(ld, "table", "must be an object");
    if ((rc = check_props(ld, "table", obj, props)) != 0 ||
        (rc = get_string(ld, "table", obj, "name", 1, &name)) != 0 ||
        (rc = get_string(ld, "table", obj, "entityTypeAttribute", 0, &type_attr)) != 0)
        return rc;
    if (dup_into(ld, &t->name, name) != 0 || dup_into(ld, &t->type_attr, type_attr) != 0)
        return nomem(ld);
    if (!json_object_object_get_ex(obj, "partitionKey", &v))
        return bad(ld, "table", "missing \"partitionKey\"");
    if ((rc = parse_key_attr(ld, "table.partitionKey", v, &t->pk)) != 0)
        return rc;
    if (json_object_object_get_ex(obj, "sortKey", &v) &&
        (rc = parse_key_attr(ld, "table.sortKey", v, &t->sk)) != 0)
        return rc;
    if (json_object_object_get_ex(obj, "indexes", &v)) {
        size_t n;
        if (!json_object_is_type(v, json_type_array))
            return bad(ld, "table.indexes", "must be an array");
        n = json_object_array_length(v);
        if (n && (t->indexes = calloc(n, sizeof(*t->indexes))) == NULL)
            return nomem(ld);
        for (size_t i = 0; i < n; i++) {
            char path[64];
            json_object *ix = json_object_array_get_idx(v, i);
            snprintf(path, sizeof(path), "table.indexes[%zu]", i);
            t->n_indexes++;
            if (!json_object_is_type(ix, json_type_object))
                return bad(ld, path, "must be an object");
            if ((rc = parse_index(ld, path, ix, t, &t->indexes[i])) != 0)
                return rc;
            for (size_t j = 0; j < i; j++)
                if (strcmp(t->indexes[j].name, t->indexes[i].name) == 0)
                    return bad(ld, path, "index name \"%s\" is used twice", t->indexes[i].name);
        }
    }
    return check_key_names(ld, t);
}

static int parse_format(loader *ld, const char *path, const char *s, ddb_field_format *out)
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
        return bad(ld, path, "\"format\" must be date, datetime, weekday or uuid, not \"%s\"", s);
    return 0;
}

/* "enum": ["a", "b"] lists the allowed values; "enum": {"IMAGE": "image"} also
 * says how each value is spelt inside key templates, for designs that store one
 * spelling and key by another (Java's DynamoDBMapper stores an enum's name()
 * while key getters often use a getValue()). */
static int parse_enum(loader *ld, const char *path, json_object *obj, ddb_field *f)
{
    json_object *v;
    size_t n, i = 0;

    if (!json_object_object_get_ex(obj, "enum", &v) || !json_object_is_type(v, json_type_object))
        return get_string_array(ld, path, obj, "enum", &f->enum_values, &f->n_enum);
    n = (size_t)json_object_object_length(v);
    if (n == 0)
        return bad(ld, path, "\"enum\" must not be empty");
    f->enum_values = calloc(n, sizeof(char *));
    f->enum_keys = calloc(n, sizeof(char *));
    if (f->enum_values == NULL || f->enum_keys == NULL)
        return nomem(ld);
    json_object_object_foreach(v, value, spelling)
    {
        if (!json_object_is_type(spelling, json_type_string) ||
            json_object_get_string_len(spelling) == 0)
            return bad(ld, path, "\"enum\".%s must be a non-empty string (its spelling in keys)",
                       value);
        f->n_enum = ++i;
        if (dup_into(ld, &f->enum_values[i - 1], value) != 0 ||
            dup_into(ld, &f->enum_keys[i - 1], json_object_get_string(spelling)) != 0)
            return nomem(ld);
        for (size_t j = 0; j + 1 < i; j++)
            if (strcmp(f->enum_keys[j], f->enum_keys[i - 1]) == 0)
                return bad(ld, path, "\"enum\": %s and %s have the same key spelling \"%s\"",
                           f->enum_values[j], value, f->enum_keys[j]);
    }
    return 0;
}

static int parse_field(loader *ld, const char *path, json_object *obj, ddb_field *f)
{
    static const char *const props[] = {"name",     "type",        "attribute", "aliases", "pad",
                                        "store",    "required",    "enum",      "pattern", "format",
                                        "generate", "description", "spelling",  NULL};
    const char *name, *type, *attr, *pattern, *format, *spelling;
    json_object *v;
    int rc;

    if (!json_object_is_type(obj, json_type_object))
        return bad(ld, path, "must be an object like {\"name\": \"userId\", \"type\": \"S\"}");
    if ((rc = check_props(ld, path, obj, props)) != 0 ||
        (rc = get_string(ld, path, obj, "name", 1, &name)) != 0 ||
        (rc = get_string(ld, path, obj, "type", 0, &type)) != 0 ||
        (rc = get_string(ld, path, obj, "attribute", 0, &attr)) != 0 ||
        (rc = get_string(ld, path, obj, "pattern", 0, &pattern)) != 0 ||
        (rc = get_string(ld, path, obj, "format", 0, &format)) != 0)
        return rc;
    if (strcmp(name, DDB_EXTRA_FIELD) == 0)
        return bad(ld, path, "\"%s\" is reserved for undeclared attributes", DDB_EXTRA_FIELD);
    if (dup_into(ld, &f->name, name) != 0)
        return nomem(ld);
    f->name_len = strlen(name);
    f->type = DDB_TYPE_S;
    if (type != NULL && ddb_type_parse(&f->type, type, strlen(type)) != 0)
        return bad(ld, path, "unknown type \"%s\" (S, N, B, BOOL, NULL, M, L, SS, NS or BS)", type);
    if (dup_into(ld, &f->attribute, attr ? attr : name) != 0)
        return nomem(ld);
    f->attribute_len = strlen(f->attribute);
    f->store = -1; /* decided once the templates are known */
    if ((rc = get_bool(ld, path, obj, "store", &f->store)) != 0 ||
        (rc = get_bool(ld, path, obj, "required", &f->required)) != 0 ||
        (rc = get_string_array(ld, path, obj, "aliases", &f->aliases, &f->n_aliases)) != 0 ||
        (rc = parse_enum(ld, path, obj, f)) != 0)
        return rc;
    if (f->enum_keys != NULL && f->type != DDB_TYPE_S)
        return bad(ld, path, "an \"enum\" with key spellings applies to S fields only");
    if (json_object_object_get_ex(obj, "pad", &v)) {
        if (!json_object_is_type(v, json_type_int) || json_object_get_int(v) < 1 ||
            json_object_get_int(v) > 64)
            return bad(ld, path, "\"pad\" must be a width between 1 and 64");
        if (f->type != DDB_TYPE_N)
            return bad(ld, path, "\"pad\" applies to N fields only");
        f->pad = json_object_get_int(v);
    }
    if (pattern != NULL) {
        char *anchored = malloc(strlen(pattern) + 5);
        if (anchored == NULL)
            return nomem(ld);
        sprintf(anchored, "^(%s)$", pattern);
        rc = regcomp(&f->pattern, anchored, REG_EXTENDED | REG_NOSUB);
        free(anchored);
        if (rc != 0)
            return bad(ld, path, "\"pattern\" is not a valid POSIX extended regular expression");
        f->has_pattern = 1;
        if (dup_into(ld, &f->pattern_text, pattern) != 0)
            return nomem(ld);
    }
    if (format != NULL && (rc = parse_format(ld, path, format, &f->format)) != 0)
        return rc;
    if ((rc = get_string(ld, path, obj, "spelling", 0, &spelling)) != 0)
        return rc;
    if (spelling != NULL) {
        static const char *const forms[] = {"Monday", "MONDAY", "monday", "Mon", "MON", "mon"};
        size_t i;
        if (f->format != DDB_FMT_WEEKDAY)
            return bad(ld, path, "\"spelling\" applies to \"format\": \"weekday\" only");
        for (i = 0; i < 6 && strcmp(forms[i], spelling) != 0; i++)
            ;
        if (i == 6)
            return bad(ld, path,
                       "\"spelling\" is how a day is written: Monday, MONDAY, monday, Mon, MON "
                       "or mon, not \"%s\"",
                       spelling);
        if (dup_into(ld, &f->spelling, spelling) != 0)
            return nomem(ld);
    }
    if (json_object_object_get_ex(obj, "generate", &v))
        return ddb_gen_spec_parse(&f->gen, v, f, ld->name, path, ld->err);
    return 0;
}

static int parse_entity(loader *ld, const char *path, json_object *obj, const ddb_table_def *t,
                        ddb_entity *e)
{
    static const char *const props[] = {"name",       "typeValue",   "keys", "fields",
                                        "undeclared", "description", NULL};
    char sub[300];
    const char *name, *type_value, *undeclared;
    json_object *fields, *keys;
    size_t n;
    int rc;

    if (!json_object_is_type(obj, json_type_object))
        return bad(ld, path, "must be an object");
    if ((rc = check_props(ld, path, obj, props)) != 0 ||
        (rc = get_string(ld, path, obj, "name", 1, &name)) != 0 ||
        (rc = get_string(ld, path, obj, "typeValue", 0, &type_value)) != 0 ||
        (rc = get_string(ld, path, obj, "undeclared", 0, &undeclared)) != 0)
        return rc;
    if (strchr(name, '/') || name[0] == '.' || name[0] == '_')
        return bad(ld, path,
                   "entity name \"%s\" must not start with '.' or '_' or contain '/'"
                   " (it names output files)",
                   name);
    if (dup_into(ld, &e->name, name) != 0 ||
        dup_into(ld, &e->type_value, type_value ? type_value : name) != 0)
        return nomem(ld);
    if (undeclared == NULL || strcmp(undeclared, "keep") == 0)
        e->undeclared = DDB_UNDECLARED_KEEP;
    else if (strcmp(undeclared, "drop") == 0)
        e->undeclared = DDB_UNDECLARED_DROP;
    else if (strcmp(undeclared, "reject") == 0)
        e->undeclared = DDB_UNDECLARED_REJECT;
    else
        return bad(ld, path, "\"undeclared\" must be keep, drop or reject");

    if (!json_object_object_get_ex(obj, "fields", &fields) ||
        !json_object_is_type(fields, json_type_array))
        return bad(ld, path, "\"fields\" must be an array of field declarations");
    n = json_object_array_length(fields);
    if (n && (e->fields = calloc(n, sizeof(*e->fields))) == NULL)
        return nomem(ld);
    for (size_t i = 0; i < n; i++) {
        snprintf(sub, sizeof(sub), "%s.fields[%zu]", path, i);
        e->n_fields++;
        if ((rc = parse_field(ld, sub, json_object_array_get_idx(fields, i), &e->fields[i])) != 0)
            return rc;
        for (size_t j = 0; j < i; j++) {
            if (strcmp(e->fields[j].name, e->fields[i].name) == 0)
                return bad(ld, sub, "field \"%s\" is declared twice", e->fields[i].name);
            if (strcmp(e->fields[j].attribute, e->fields[i].attribute) == 0)
                return bad(ld, sub, "fields \"%s\" and \"%s\" are stored in the same attribute",
                           e->fields[j].name, e->fields[i].name);
        }
    }

    if (!json_object_object_get_ex(obj, "keys", &keys) ||
        !json_object_is_type(keys, json_type_object))
        return bad(ld, path, "\"keys\" must be an object of attribute -> template");
    n = (size_t)json_object_object_length(keys);
    if ((e->keys = calloc(n ? n : 1, sizeof(*e->keys))) == NULL)
        return nomem(ld);
    {
        /* Table keys first, so matching and encoding see pk and sk before indexes. */
        const char *order[2] = {t->pk.name, t->sk.name};
        for (int pass = 0; pass < 3; pass++) {
            json_object_object_foreach(keys, attr, tv)
            {
                ddb_key_role role;
                ddb_type atype = table_attr_type(t, attr, &role);
                ddb_template *tp;
                if (pass < 2 && (order[pass] == NULL || strcmp(attr, order[pass]) != 0))
                    continue;
                if (pass == 2 && (role == DDB_ROLE_PK || role == DDB_ROLE_SK))
                    continue;
                snprintf(sub, sizeof(sub), "%s.keys.%s", path, attr);
                if (t->type_attr && strcmp(attr, t->type_attr) == 0)
                    return bad(ld, sub,
                               "the entity-type attribute cannot be computed (it holds "
                               "the entity's typeValue)");
                if (!json_object_is_type(tv, json_type_string))
                    return bad(ld, sub, "a key template must be a string like \"Tag#{userId}\"");
                tp = &e->keys[e->n_keys++];
                if (dup_into(ld, &tp->attr, attr) == 0)
                    tp->attr_len = strlen(attr);
                else
                    return nomem(ld);
                tp->attr_type = atype;
                tp->role = role;
                if ((rc = ddb_template_compile(tp, json_object_get_string(tv), e, sub, ld->err)) !=
                    0)
                    return ddb_error_prefix(ld->err, "mapping %s: ", ld->name);
            }
        }
    }
    if (e->n_keys == 0 || e->keys[0].role != DDB_ROLE_PK)
        return bad(ld, path, "\"keys\" needs a template for the partition key \"%s\"", t->pk.name);
    if (t->sk.name != NULL && (e->n_keys < 2 || e->keys[1].role != DDB_ROLE_SK))
        return bad(ld, path, "\"keys\" needs a template for the sort key \"%s\"", t->sk.name);

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
            return bad(ld, path, "field \"%s\" is stored in \"%s\", which is a computed key",
                       f->name, f->attribute);
        }
        if (t->type_attr && strcmp(t->type_attr, f->attribute) == 0)
            return bad(ld, path, "field \"%s\" is stored in the entity-type attribute \"%s\"",
                       f->name, t->type_attr);
    }
    return 0;
}

static int build_schema(ddb_mapping *m)
{
    ddb_table_def *t = &m->table;
    size_t npk = 0, nsk = 0;
    t->schema.partition = t->pk;
    t->schema.sort = t->sk;
    if (t->n_indexes) {
        m->index_pk_store = calloc(t->n_indexes, sizeof(ddb_key_attr));
        m->index_sk_store = calloc(t->n_indexes, sizeof(ddb_key_attr));
        if (m->index_pk_store == NULL || m->index_sk_store == NULL)
            return DDB_ENOMEM;
    }
    for (size_t i = 0; i < t->n_indexes; i++) {
        if (t->indexes[i].global)
            m->index_pk_store[npk++] = t->indexes[i].pk;
        if (t->indexes[i].sk.name)
            m->index_sk_store[nsk++] = t->indexes[i].sk;
    }
    t->schema.index_pk = m->index_pk_store;
    t->schema.n_index_pk = npk;
    t->schema.index_sk = m->index_sk_store;
    t->schema.n_index_sk = nsk;
    return 0;
}

int ddb_mapping_parse(ddb_mapping **out, const char *text, size_t len, const char *name,
                      ddb_error *err)
{
    static const char *const props[] = {"table", "entities", "description", "$schema", NULL};
    loader ld = {name ? name : "(memory)", err};
    json_tokener *tok = NULL;
    json_object *root = NULL, *v;
    ddb_mapping *m = NULL;
    int rc = 0;

    *out = NULL;
    if ((tok = json_tokener_new()) == NULL || (m = calloc(1, sizeof(*m))) == NULL) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto done;
    }
    if (dup_into(&ld, &m->path, ld.name) != 0) {
        rc = DDB_ENOMEM;
        goto done;
    }
    root = json_tokener_parse_ex(tok, text, (int)len);
    if (root == NULL || json_tokener_get_error(tok) != json_tokener_success) {
        rc = ddb_error_set(err, DDB_EUSAGE, "mapping %s: not valid JSON: %s (near byte %zu)",
                           ld.name, json_tokener_error_desc(json_tokener_get_error(tok)),
                           json_tokener_get_parse_end(tok));
        goto done;
    }
    for (size_t i = json_tokener_get_parse_end(tok); i < len; i++) {
        if (text[i] != ' ' && text[i] != '\t' && text[i] != '\n' && text[i] != '\r') {
            rc = ddb_error_set(err, DDB_EUSAGE,
                               "mapping %s: text after the JSON document (byte %zu); a mapping "
                               "is one JSON object",
                               ld.name, i);
            goto done;
        }
    }
    if (!json_object_is_type(root, json_type_object)) {
        rc = bad(&ld, "(top level)", "must be an object with \"table\" and \"entities\"");
        goto done;
    }
    if ((rc = check_props(&ld, "(top level)", root, props)) != 0)
        goto done;
    if (!json_object_object_get_ex(root, "table", &v)) {
        rc = bad(&ld, "(top level)", "missing \"table\"");
        goto done;
    }
    if ((rc = parse_table(&ld, v, &m->table)) != 0)
        goto done;
    if (!json_object_object_get_ex(root, "entities", &v) ||
        !json_object_is_type(v, json_type_array) || json_object_array_length(v) == 0) {
        rc = bad(&ld, "(top level)", "\"entities\" must be a non-empty array");
        goto done;
    }
    m->entities = calloc(json_object_array_length(v), sizeof(*m->entities));
    if (m->entities == NULL) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < json_object_array_length(v); i++) {
        char path[64];
        snprintf(path, sizeof(path), "entities[%zu]", i);
        m->n_entities++;
        if ((rc = parse_entity(&ld, path, json_object_array_get_idx(v, i), &m->table,
                               &m->entities[i])) != 0)
            goto done;
        for (size_t j = 0; j < i; j++) {
            if (strcmp(m->entities[j].name, m->entities[i].name) == 0) {
                rc = bad(&ld, path, "entity \"%s\" is declared twice", m->entities[i].name);
                goto done;
            }
            if (m->table.type_attr &&
                strcmp(m->entities[j].type_value, m->entities[i].type_value) == 0) {
                rc = bad(&ld, path, "entities \"%s\" and \"%s\" have the same typeValue",
                         m->entities[j].name, m->entities[i].name);
                goto done;
            }
        }
    }
    if ((rc = build_schema(m)) != 0) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto done;
    }
    *out = m;
    m = NULL;
done:
    if (root)
        json_object_put(root);
    if (tok)
        json_tokener_free(tok);
    ddb_mapping_free(m);
    return rc;
}

int ddb_mapping_load(ddb_mapping **out, const char *path, ddb_error *err)
{
    FILE *f = NULL;
    char *text = NULL;
    size_t len = 0, cap = 0;
    int rc = 0;

    *out = NULL;
    if ((f = fopen(path, "rb")) == NULL) {
        rc = ddb_error_set(err, errno == ENOENT ? DDB_ENOTFOUND : DDB_EIO,
                           "cannot open mapping %s: %s", path, strerror(errno));
        goto done;
    }
    for (;;) {
        size_t got;
        if (len + 4096 > cap) {
            char *nt = realloc(text, cap = cap ? cap * 2 : 16384);
            if (nt == NULL) {
                rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
                goto done;
            }
            text = nt;
        }
        got = fread(text + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        rc = ddb_error_set(err, DDB_EIO, "cannot read mapping %s: %s", path, strerror(errno));
        goto done;
    }
    rc = ddb_mapping_parse(out, text, len, path, err);
done:
    if (f)
        fclose(f);
    free(text);
    return rc;
}

static void free_strv(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

void ddb_mapping_free(ddb_mapping *m)
{
    if (m == NULL)
        return;
    for (size_t i = 0; i < m->n_entities; i++) {
        ddb_entity *e = &m->entities[i];
        for (size_t k = 0; k < e->n_keys; k++)
            ddb_template_dispose(&e->keys[k]);
        for (size_t k = 0; k < e->n_fields; k++) {
            ddb_field *f = &e->fields[k];
            free(f->name);
            free(f->attribute);
            free_strv(f->aliases, f->n_aliases);
            free_strv(f->enum_values, f->n_enum);
            free_strv(f->enum_keys, f->enum_keys ? f->n_enum : 0);
            free(f->spelling);
            if (f->has_pattern)
                regfree(&f->pattern);
            free(f->pattern_text);
            ddb_gen_spec_free(f->gen);
        }
        free(e->keys);
        free(e->fields);
        free(e->name);
        free(e->type_value);
    }
    free(m->entities);
    for (size_t i = 0; i < m->table.n_indexes; i++) {
        ddb_index_def *ix = &m->table.indexes[i];
        free(ix->name);
        free((char *)ix->pk.name);
        free((char *)ix->sk.name);
        free(ix->projection);
        free_strv(ix->non_key, ix->n_non_key);
    }
    free(m->table.indexes);
    free((char *)m->table.pk.name);
    free((char *)m->table.sk.name);
    free(m->table.name);
    free(m->table.type_attr);
    free(m->index_pk_store);
    free(m->index_sk_store);
    free(m->path);
    free(m);
}

const ddb_entity *ddb_mapping_entity(const ddb_mapping *m, const char *name)
{
    for (size_t i = 0; i < m->n_entities; i++)
        if (strcmp(m->entities[i].name, name) == 0)
            return &m->entities[i];
    return NULL;
}

int ddb_entity_field_index(const ddb_entity *e, const char *name, size_t len)
{
    for (size_t i = 0; i < e->n_fields; i++)
        if (e->fields[i].name_len == len && ddb_mem_eq(e->fields[i].name, name, len))
            return (int)i;
    return -1;
}
