/*
 * The "table" of a mapping: its name, partition and sort keys, secondary
 * indexes and entity-type attribute, checked so that the key schema is one
 * DynamoDB accepts and the entity templates can be laid out one per key role;
 * and the key schema that items are validated against, derived from it.
 */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "transform/mapping_internal.h"

static int parse_key_attr(mapping_loader *ld, const char *path, json_object *obj, ddb_key_attr *out)
{
    static const char *const props[] = {"name", "type", NULL};
    const char *name, *type;
    ddb_type t = DDB_TYPE_S;
    int rc;

    if (!json_object_is_type(obj, json_type_object))
        return mapping_bad(ld, path, "must be an object like {\"name\": \"pk\", \"type\": \"S\"}");
    if ((rc = mapping_check_props(ld, path, obj, props)) != 0 ||
        (rc = mapping_get_string(ld, path, obj, "name", 1, &name)) != 0 ||
        (rc = mapping_get_string(ld, path, obj, "type", 0, &type)) != 0)
        return rc;
    if (type != NULL && (ddb_type_parse(&t, type, strlen(type)) != 0 ||
                         (t != DDB_TYPE_S && t != DDB_TYPE_N && t != DDB_TYPE_B)))
        return mapping_bad(ld, path, "key type must be S, N or B, not \"%s\"", type);
    out->type = t;
    return (out->name = strdup(name)) == NULL ? mapping_nomem(ld) : 0;
}

static int parse_index(mapping_loader *ld, const char *path, json_object *obj,
                       const ddb_table_def *t, ddb_index_def *out)
{
    static const char *const props[] = {"name",        "type",       "partitionKey",
                                        "sortKey",     "projection", "nonKeyAttributes",
                                        "description", NULL};
    char sub[256];
    const char *name, *kind, *proj;
    json_object *v;
    int rc;

    if ((rc = mapping_check_props(ld, path, obj, props)) != 0 ||
        (rc = mapping_get_string(ld, path, obj, "name", 1, &name)) != 0 ||
        (rc = mapping_get_string(ld, path, obj, "type", 1, &kind)) != 0 ||
        (rc = mapping_get_string(ld, path, obj, "projection", 0, &proj)) != 0)
        return rc;
    if (mapping_dup_into(ld, &out->name, name) != 0)
        return mapping_nomem(ld);
    if (strcmp(kind, "GSI") == 0)
        out->global = 1;
    else if (strcmp(kind, "LSI") != 0)
        return mapping_bad(ld, path, "\"type\" must be \"GSI\" or \"LSI\", not \"%s\"", kind);
    if (json_object_object_get_ex(obj, "partitionKey", &v)) {
        if (!out->global)
            return mapping_bad(ld, path,
                               "an LSI shares the table's partition key; remove \"partitionKey\"");
        snprintf(sub, sizeof(sub), "%s.partitionKey", path);
        if ((rc = parse_key_attr(ld, sub, v, &out->pk)) != 0)
            return rc;
    } else if (out->global) {
        return mapping_bad(ld, path, "a GSI needs a \"partitionKey\"");
    } else {
        if ((out->pk.name = strdup(t->pk.name)) == NULL)
            return mapping_nomem(ld);
        out->pk.type = t->pk.type;
    }
    if (json_object_object_get_ex(obj, "sortKey", &v)) {
        snprintf(sub, sizeof(sub), "%s.sortKey", path);
        if ((rc = parse_key_attr(ld, sub, v, &out->sk)) != 0)
            return rc;
    } else if (!out->global) {
        return mapping_bad(ld, path, "an LSI needs a \"sortKey\"");
    }
    if (proj != NULL && strcmp(proj, "ALL") != 0 && strcmp(proj, "KEYS_ONLY") != 0 &&
        strcmp(proj, "INCLUDE") != 0)
        return mapping_bad(ld, path, "\"projection\" must be ALL, KEYS_ONLY or INCLUDE");
    if (mapping_dup_into(ld, &out->projection, proj ? proj : "ALL") != 0)
        return mapping_nomem(ld);
    return mapping_get_string_array(ld, path, obj, "nonKeyAttributes", &out->non_key,
                                    &out->n_non_key);
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
ddb_type mapping_table_attr_type(const ddb_table_def *t, const char *attr, ddb_key_role *role)
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
static int check_key_names(mapping_loader *ld, const ddb_table_def *t)
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
            rc = mapping_bad(ld, path, "\"%s\" is already %s partition key", keys[k]->name,
                             k == 1 ? "the" : "the index's");
            break;
        }
        for (size_t j = 0; j < k; j++) {
            if (keys[j] == NULL || strcmp(keys[j]->name, keys[k]->name) != 0 ||
                keys[j]->type == keys[k]->type)
                continue;
            key_path(other, sizeof(other), t, j);
            rc = mapping_bad(ld, path, "\"%s\" is type %s here but %s in %s", keys[k]->name,
                             ddb_type_name(keys[k]->type), ddb_type_name(keys[j]->type), other);
            break;
        }
        if (rc == 0 && t->type_attr && strcmp(t->type_attr, keys[k]->name) == 0)
            rc = mapping_bad(ld, "table.entityTypeAttribute", "\"%s\" is a key attribute (of %s)",
                             t->type_attr, path);
    }
    free(keys);
    return rc;
}

int mapping_parse_table(mapping_loader *ld, json_object *obj, ddb_table_def *t)
{
    static const char *const props[] = {
        "name", "partitionKey", "sortKey", "indexes", "entityTypeAttribute", "description", NULL};
    json_object *v;
    const char *name, *type_attr;
    int rc;

    if (!json_object_is_type(obj, json_type_object))
        return mapping_bad(ld, "table", "must be an object");
    if ((rc = mapping_check_props(ld, "table", obj, props)) != 0 ||
        (rc = mapping_get_string(ld, "table", obj, "name", 1, &name)) != 0 ||
        (rc = mapping_get_string(ld, "table", obj, "entityTypeAttribute", 0, &type_attr)) != 0)
        return rc;
    if (mapping_dup_into(ld, &t->name, name) != 0 ||
        mapping_dup_into(ld, &t->type_attr, type_attr) != 0)
        return mapping_nomem(ld);
    if (!json_object_object_get_ex(obj, "partitionKey", &v))
        return mapping_bad(ld, "table", "missing \"partitionKey\"");
    if ((rc = parse_key_attr(ld, "table.partitionKey", v, &t->pk)) != 0)
        return rc;
    if (json_object_object_get_ex(obj, "sortKey", &v) &&
        (rc = parse_key_attr(ld, "table.sortKey", v, &t->sk)) != 0)
        return rc;
    if (json_object_object_get_ex(obj, "indexes", &v)) {
        size_t n;
        if (!json_object_is_type(v, json_type_array))
            return mapping_bad(ld, "table.indexes", "must be an array");
        n = json_object_array_length(v);
        if (n && (t->indexes = calloc(n, sizeof(*t->indexes))) == NULL)
            return mapping_nomem(ld);
        for (size_t i = 0; i < n; i++) {
            char path[64];
            json_object *ix = json_object_array_get_idx(v, i);
            snprintf(path, sizeof(path), "table.indexes[%zu]", i);
            t->n_indexes++;
            if (!json_object_is_type(ix, json_type_object))
                return mapping_bad(ld, path, "must be an object");
            if ((rc = parse_index(ld, path, ix, t, &t->indexes[i])) != 0)
                return rc;
            for (size_t j = 0; j < i; j++)
                if (strcmp(t->indexes[j].name, t->indexes[i].name) == 0)
                    return mapping_bad(ld, path, "index name \"%s\" is used twice",
                                       t->indexes[i].name);
        }
    }
    return check_key_names(ld, t);
}

int mapping_build_schema(ddb_mapping *m)
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
