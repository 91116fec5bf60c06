/*
 * mapping_internal.h (private header of transform/) — what the parts of the mapping loader share:
 * reading JSON properties with errors that name the mapping and the JSON path
 * (mapping.c, which also loads the whole document), the table with its keys
 * and indexes (mapping_table.c), and the entities with their fields and key
 * templates (mapping_entity.c).
 */
#ifndef DDBPIPE_MAPPING_INTERNAL_H
#define DDBPIPE_MAPPING_INTERNAL_H

#include <json-c/json.h>
#include <stddef.h>

#include "ddbpipe/mapping.h"

/* The mapping being loaded: its name for messages and where errors go. */
typedef struct mapping_loader {
    const char *name;
    ddb_error *err;
} mapping_loader;

/* Sets "mapping NAME: PATH: reason" as DDB_EUSAGE. Returns DDB_EUSAGE. */
__attribute__((format(printf, 3, 4))) int mapping_bad(mapping_loader *ld, const char *path,
                                                      const char *fmt, ...);

/* Sets an out-of-memory error naming the mapping. Returns DDB_ENOMEM. */
int mapping_nomem(mapping_loader *ld);

/* *dst = a copy of s (NULL stays NULL), owned by the caller. Returns 0 or
 * DDB_ENOMEM. */
int mapping_dup_into(mapping_loader *ld, char **dst, const char *s);

/* 0 when obj has no property outside allowed (NULL-terminated); otherwise
 * DDB_EUSAGE naming the first unknown one. */
int mapping_check_props(mapping_loader *ld, const char *path, json_object *obj,
                        const char *const *allowed);

/* *out = obj's string property key, borrowed from obj (NULL when absent or
 * null and not required). Returns 0, or DDB_EUSAGE when it is missing but
 * required, not a string, or required and empty. */
int mapping_get_string(mapping_loader *ld, const char *path, json_object *obj, const char *key,
                       int required, const char **out);

/* *out = obj's boolean property key, left alone when absent. Returns 0 or
 * DDB_EUSAGE when it is not a boolean. */
int mapping_get_bool(mapping_loader *ld, const char *path, json_object *obj, const char *key,
                     int *out);

/* *out = copies of obj's array of strings key (*n_out of them), owned by the
 * caller even on failure, where *n_out counts the ones to free. NULL and 0
 * when absent or empty. Returns 0, DDB_EUSAGE or DDB_ENOMEM. */
int mapping_get_string_array(mapping_loader *ld, const char *path, json_object *obj,
                             const char *key, char ***out, size_t *n_out);

/* Parses the "table" object into t and checks its key names. What it
 * allocates is owned by t, also on failure (ddb_mapping_free releases it).
 * Returns 0, DDB_EUSAGE or DDB_ENOMEM with the error set. */
int mapping_parse_table(mapping_loader *ld, json_object *obj, ddb_table_def *t);

/* Type of a key attribute as the table declares it (S when it is not a key);
 * *role says which key it is (DDB_ROLE_COMPUTED when none). */
ddb_type mapping_table_attr_type(const ddb_table_def *t, const char *attr, ddb_key_role *role);

/* Fills m->table.schema from the table's keys and indexes; the index key
 * arrays it points to are owned by m. Returns 0 or DDB_ENOMEM (no error
 * message set). */
int mapping_build_schema(ddb_mapping *m);

/* Parses one entity at path (e.g. "entities[2]") into e against table t:
 * fields, key templates and which fields are stored. What it allocates is
 * owned by e, also on failure (ddb_mapping_free releases it). Returns 0,
 * DDB_EUSAGE or DDB_ENOMEM with the error set. */
int mapping_parse_entity(mapping_loader *ld, const char *path, json_object *obj,
                         const ddb_table_def *t, ddb_entity *e);

#endif
