/*
 * Mapping files: loading and checking. json-c is fine here: mappings are
 * small configuration files without 38-digit numbers. Every mistake is
 * reported with the JSON path of the offending property.
 *
 * This file reads the document and its properties; the table is checked in
 * mapping_table.c, the entities in mapping_entity.c.
 */
#include "ddbpipe/mapping.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/arena.h"
#include "ddbpipe/json.h"
#include "transform/gen_spec.h"
#include "transform/mapping_internal.h"
#include "transform/template.h"

__attribute__((format(printf, 3, 4))) int mapping_bad(mapping_loader *ld, const char *path,
                                                      const char *fmt, ...)
{
    char reason[700];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof(reason), fmt, ap);
    va_end(ap);
    return ddb_error_set(ld->err, DDB_EUSAGE, "mapping %s: %s: %s", ld->name, path, reason);
}

int mapping_nomem(mapping_loader *ld)
{
    return ddb_error_set(ld->err, DDB_ENOMEM, "out of memory loading mapping %s", ld->name);
}

/* *dst = a copy of s (NULL stays NULL). Returns 0 or DDB_ENOMEM. */
int mapping_dup_into(mapping_loader *ld, char **dst, const char *s)
{
    *dst = NULL;
    if (s != NULL && (*dst = strdup(s)) == NULL)
        return mapping_nomem(ld);
    return 0;
}

/* Rejects properties the language does not define, so a typo is an error and
 * not a silently ignored setting. */
int mapping_check_props(mapping_loader *ld, const char *path, json_object *obj,
                        const char *const *allowed)
{
    json_object_object_foreach(obj, key, val)
    {
        const char *const *a;
        (void)val;
        for (a = allowed; *a != NULL; a++)
            if (strcmp(*a, key) == 0)
                break;
        if (*a == NULL)
            return mapping_bad(ld, path, "unknown property \"%s\"", key);
    }
    return 0;
}

int mapping_get_string(mapping_loader *ld, const char *path, json_object *obj, const char *key,
                       int required, const char **out)
{
    json_object *v;
    *out = NULL;
    if (!json_object_object_get_ex(obj, key, &v) || json_object_is_type(v, json_type_null)) {
        if (required)
            return mapping_bad(ld, path, "missing \"%s\"", key);
        return 0;
    }
    if (!json_object_is_type(v, json_type_string))
        return mapping_bad(ld, path, "\"%s\" must be a string", key);
    *out = json_object_get_string(v);
    if (required && (*out)[0] == '\0')
        return mapping_bad(ld, path, "\"%s\" must not be empty", key);
    return 0;
}

int mapping_get_bool(mapping_loader *ld, const char *path, json_object *obj, const char *key,
                     int *out)
{
    json_object *v;
    if (!json_object_object_get_ex(obj, key, &v))
        return 0;
    if (!json_object_is_type(v, json_type_boolean))
        return mapping_bad(ld, path, "\"%s\" must be true or false", key);
    *out = json_object_get_boolean(v);
    return 0;
}

int mapping_get_string_array(mapping_loader *ld, const char *path, json_object *obj,
                             const char *key, char ***out, size_t *n_out)
{
    json_object *v;
    size_t n;
    *out = NULL;
    *n_out = 0;
    if (!json_object_object_get_ex(obj, key, &v))
        return 0;
    if (!json_object_is_type(v, json_type_array))
        return mapping_bad(ld, path, "\"%s\" must be an array of strings", key);
    n = json_object_array_length(v);
    if (n == 0)
        return 0;
    if ((*out = calloc(n, sizeof(char *))) == NULL)
        return mapping_nomem(ld);
    for (size_t i = 0; i < n; i++) {
        json_object *e = json_object_array_get_idx(v, i);
        if (!json_object_is_type(e, json_type_string))
            return mapping_bad(ld, path, "\"%s\"[%zu] must be a string", key, i);
        if (mapping_dup_into(ld, &(*out)[i], json_object_get_string(e)) != 0)
            return mapping_nomem(ld);
        (*n_out)++;
    }
    return 0;
}

/* The first name given twice in one object of v, or NULL. */
static const ddb_str *repeated_name(const ddb_value *v)
{
    const ddb_str *r = NULL;
    if (v->type == DDB_TYPE_M) {
        for (size_t i = 0; i < v->u.m.count && r == NULL; i++) {
            const ddb_str *a = &v->u.m.attrs[i].name;
            for (size_t j = i + 1; j < v->u.m.count && r == NULL; j++)
                if (a->len == v->u.m.attrs[j].name.len &&
                    memcmp(a->ptr, v->u.m.attrs[j].name.ptr, a->len) == 0)
                    r = &v->u.m.attrs[j].name;
            if (r == NULL)
                r = repeated_name(&v->u.m.attrs[i].value);
        }
    } else if (v->type == DDB_TYPE_L) {
        for (size_t i = 0; i < v->u.l.count && r == NULL; i++)
            r = repeated_name(&v->u.l.items[i]);
    }
    return r;
}

/* json-c keeps the last of a name given twice, without a word: a second
 * "fields" would drop the first's fields. Read again by ddbpipe's own parser,
 * which keeps every name, to find one. 0, or DDB_EUSAGE naming it. */
static int check_repeated_names(const mapping_loader *ld, const char *text, size_t len)
{
    ddb_json_parser *p = NULL;
    ddb_arena *a = NULL;
    ddb_value v;
    const ddb_str *r;
    int rc = 0;
    if (ddb_json_parser_new(&p) != 0 || ddb_arena_new(&a, 0) != 0) {
        rc = ddb_error_set(ld->err, DDB_ENOMEM, "out of memory");
        goto done;
    }
    /* what it cannot read, json-c could: nothing more to say */
    if (ddb_json_parse_plain(p, &v, text, len, a, NULL) == 0 && (r = repeated_name(&v)) != NULL)
        rc = ddb_error_set(ld->err, DDB_EUSAGE,
                           "mapping %s: \"%.*s\" is given twice in one object (byte %zu); each "
                           "name once",
                           ld->name, (int)(r->len > 80 ? 80 : r->len), r->ptr,
                           r->ptr >= text && r->ptr < text + len ? (size_t)(r->ptr - text) : 0);
done:
    ddb_json_parser_free(p);
    ddb_arena_free(a);
    return rc;
}

/* The JSON document of text into *root (the caller puts it, also on error):
 * strict (no trailing commas, no single quotes, nothing json-c forgives),
 * each name once in an object, nothing but white space after it. Returns 0,
 * DDB_EUSAGE saying what is wrong and where, or DDB_ENOMEM. */
static int parse_document(const mapping_loader *ld, json_tokener *tok, const char *text, size_t len,
                          json_object **root)
{
    int rc;

    /* text after the document is ours to word, below */
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_ALLOW_TRAILING_CHARS);
    *root = json_tokener_parse_ex(tok, text, (int)len);
    if (*root == NULL && json_tokener_get_error(tok) == json_tokener_continue)
        return ddb_error_set(ld->err, DDB_EUSAGE,
                             "mapping %s: not valid JSON: the file ends before the JSON document "
                             "does (empty, or cut short at byte %zu)",
                             ld->name, len);
    if (*root == NULL || json_tokener_get_error(tok) != json_tokener_success)
        return ddb_error_set(ld->err, DDB_EUSAGE, "mapping %s: not valid JSON: %s (near byte %zu)",
                             ld->name, json_tokener_error_desc(json_tokener_get_error(tok)),
                             json_tokener_get_parse_end(tok));
    if ((rc = check_repeated_names(ld, text, len)) != 0)
        return rc;
    for (size_t i = json_tokener_get_parse_end(tok); i < len; i++) {
        if (text[i] != ' ' && text[i] != '\t' && text[i] != '\n' && text[i] != '\r')
            return ddb_error_set(ld->err, DDB_EUSAGE,
                                 "mapping %s: text after the JSON document (byte %zu); a mapping "
                                 "is one JSON object",
                                 ld->name, i);
    }
    return 0;
}

/* The top level's "entities" into m->entities (m->table parsed already):
 * a non-empty array, no two entities of one name or (with a type
 * attribute) of one typeValue. Returns 0, DDB_EUSAGE or DDB_ENOMEM. */
static int parse_entities(mapping_loader *ld, json_object *root, ddb_mapping *m)
{
    json_object *v;
    size_t n;
    int rc;

    if (!json_object_object_get_ex(root, "entities", &v) ||
        !json_object_is_type(v, json_type_array) || json_object_array_length(v) == 0)
        return mapping_bad(ld, "(top level)", "\"entities\" must be a non-empty array");
    n = json_object_array_length(v);
    if ((m->entities = calloc(n, sizeof(*m->entities))) == NULL)
        return ddb_error_set(ld->err, DDB_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        char path[64];
        snprintf(path, sizeof(path), "entities[%zu]", i);
        m->n_entities++;
        if ((rc = mapping_parse_entity(ld, path, json_object_array_get_idx(v, i), &m->table,
                                       &m->entities[i])) != 0)
            return rc;
        for (size_t j = 0; j < i; j++) {
            if (strcmp(m->entities[j].name, m->entities[i].name) == 0)
                return mapping_bad(ld, path, "entity \"%s\" is declared twice",
                                   m->entities[i].name);
            if (m->table.type_attr &&
                strcmp(m->entities[j].type_value, m->entities[i].type_value) == 0)
                return mapping_bad(ld, path, "entities \"%s\" and \"%s\" have the same typeValue",
                                   m->entities[j].name, m->entities[i].name);
        }
    }
    return 0;
}

int ddb_mapping_parse(ddb_mapping **out, const char *text, size_t len, const char *name,
                      ddb_error *err)
{
    static const char *const props[] = {"table", "entities", "description", "$schema", NULL};
    mapping_loader ld = {name ? name : "(memory)", err};
    json_tokener *tok = NULL;
    json_object *root = NULL, *v;
    ddb_mapping *m = NULL;
    int rc = 0;

    *out = NULL;
    if ((tok = json_tokener_new()) == NULL || (m = calloc(1, sizeof(*m))) == NULL) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto done;
    }
    if (mapping_dup_into(&ld, &m->path, ld.name) != 0) {
        rc = DDB_ENOMEM;
        goto done;
    }
    if ((rc = parse_document(&ld, tok, text, len, &root)) != 0)
        goto done;
    if (!json_object_is_type(root, json_type_object)) {
        rc = mapping_bad(&ld, "(top level)", "must be an object with \"table\" and \"entities\"");
        goto done;
    }
    if ((rc = mapping_check_props(&ld, "(top level)", root, props)) != 0)
        goto done;
    if (!json_object_object_get_ex(root, "table", &v)) {
        rc = mapping_bad(&ld, "(top level)", "missing \"table\"");
        goto done;
    }
    if ((rc = mapping_parse_table(&ld, v, &m->table)) != 0 ||
        (rc = parse_entities(&ld, root, m)) != 0)
        goto done;
    if ((rc = mapping_build_schema(m)) != 0) {
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
            for (size_t j = 0; j < f->n_members; j++)
                free(f->members[j].name);
            free(f->members);
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
