/*
 * table_internal.h (private header of table/) — reading the control plane's small JSON
 * answers with json-c, as table_like.c and autoscaling.c both do.
 */
#ifndef DDBPIPE_TABLE_INTERNAL_H
#define DDBPIPE_TABLE_INTERNAL_H

#include <json-c/json.h>
#include <stddef.h>

/* o[key], or NULL (o may be NULL, so lookups chain). */
static inline json_object *ddb_tj_member(json_object *o, const char *key)
{
    json_object *v = NULL;
    return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

/* o[key] when it is a string, else NULL. */
static inline const char *ddb_tj_str(json_object *o, const char *key)
{
    json_object *v = ddb_tj_member(o, key);
    return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

#endif
