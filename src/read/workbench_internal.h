/*
 * workbench_internal.h (private header of read/) — the draft of a mapping from a NoSQL
 * Workbench model, shared by the model reader (workbench.c) and the
 * derivation of key templates and fields (workbench_draft.c).
 */
#ifndef DDBPIPE_WORKBENCH_INTERNAL_H
#define DDBPIPE_WORKBENCH_INTERNAL_H

#include <json-c/json.h>
#include <stddef.h>

#include "ddbpipe/arena.h"
#include "ddbpipe/buf.h"
#include "ddbpipe/error.h"
#include "ddbpipe/value.h"

typedef struct wb_key {
    const char *name; /* NULL: none */
    ddb_type type;
} wb_key;

typedef struct wb_index {
    json_object *def;
    int global;
    wb_key pk, sk; /* an LSI's pk.name is NULL */
} wb_index;

typedef struct wb_field {
    const char *name;
    const char *attr; /* stored: the items' attribute (the name, unless that is no identifier) */
    ddb_type type;
    int stored;        /* the items hold it as an attribute of that name */
    int in_table_key;  /* it appears in the partition or sort key template */
    const char **vals; /* per sample item: its value, or NULL */
} wb_field;

typedef struct wb_entity {
    const char *name;
    const char *type_value;
    const char *pk_alias, *sk_alias;
    json_object *non_key; /* the facet's attribute names */
    json_object **items;
    size_t n_items, cap_items;
    wb_field *fields;
    size_t n_fields, cap_fields;
    const char **key_attr; /* templates: attribute -> text */
    const char **key_tpl;
    size_t n_keys;
} wb_entity;

typedef struct wb_draft {
    json_object *root, *table;
    const char *table_name;
    wb_key pk, sk;
    wb_index *indexes;
    size_t n_indexes;
    wb_entity *entities;
    size_t n_entities;
    const char *type_attr; /* the entity-type attribute found, or NULL */
    ddb_arena *a;
    ddb_buf *notes;
    ddb_error *err;
} wb_draft;

/* The text and type of an item's S, N or B attribute, or NULL. */
const char *wb_item_text(json_object *item, const char *attr, ddb_type *type);

/* 1: the table's partition or sort key; 2: an index key; 0: neither. */
int wb_is_key_attr(const wb_draft *d, const char *name);

/* The attribute's type as the model declares it, else as the items hold it. */
ddb_type wb_attr_type(const wb_draft *d, const wb_entity *e, const char *name);

/* The separators key templates are split at. */
const char *wb_seps(void);

int wb_is_ident(const char *s);

/* Key templates and fields of every entity. Returns 0 or DDB_ENOMEM. */
int wb_derive_entities(wb_draft *d);

/* The mapping as JSON text. Returns 0 or DDB_ENOMEM. */
int wb_write_mapping(const wb_draft *d, ddb_buf *out);

/* Loads the drafted mapping and decodes the model's items with it; the notes
 * say how many come back exactly. */
void wb_check_draft(wb_draft *d, const ddb_buf *mapping, const char *model_path);

#endif
