/*
 * mapping.h — a declarative description of one single-table design: its
 * table, keys and indexes, and its entities with their key templates and
 * fields. The transformer that uses it is in transform.h.
 *
 * The language is documented in formats/README.md. A loaded mapping is
 * immutable and may be shared; decode/encode only allocate in the arena they
 * are given.
 */
#ifndef DDBPIPE_MAPPING_H
#define DDBPIPE_MAPPING_H

#include <regex.h>
#include <stddef.h>
#include <stdint.h>

#include "ddbpipe/arena.h"
#include "ddbpipe/error.h"
#include "ddbpipe/item.h"
#include "ddbpipe/value.h"

/* The name of the record field that carries undeclared attributes in
 * DynamoDB JSON form (CSV column, NDJSON key). */
#define DDB_EXTRA_FIELD "_extra"

typedef enum ddb_field_format {
    DDB_FMT_NONE = 0,
    DDB_FMT_DATE,     /* YYYY-MM-DD, a real calendar date */
    DDB_FMT_DATETIME, /* YYYY-MM-DDTHH:MM:SS[.fff][Z|+HH:MM] */
    DDB_FMT_WEEKDAY,  /* Monday..Sunday or Mon..Sun, any letter case */
    DDB_FMT_UUID      /* 8-4-4-4-12 hex */
} ddb_field_format;

typedef enum ddb_undeclared_policy {
    DDB_UNDECLARED_KEEP = 0, /* kept: _extra on decode, written back on encode */
    DDB_UNDECLARED_DROP,     /* silently omitted (the user asked for it) */
    DDB_UNDECLARED_REJECT    /* the record is rejected, naming the attributes */
} ddb_undeclared_policy;

typedef struct ddb_field {
    char *name;      /* record field name */
    size_t name_len; /* strlen(name), for lookups by length first */
    ddb_type type;   /* declared type */
    char *attribute; /* stored attribute name (default: name) */
    size_t attribute_len;
    char **aliases; /* other stored names accepted on decode */
    size_t n_aliases;
    int pad;          /* N in key strings: integer part zero-padded to this width */
    int store;        /* written as its own attribute on encode */
    int required;     /* encode rejects a record without it */
    int in_table_key; /* appears in the partition or sort key template */
    /* constraints, checked wherever the value appears */
    char **enum_values;
    char **enum_keys; /* enum given as an object: enum_keys[i] is how enum_values[i] is
                         spelt inside key templates (a Java enum's name() stored, its
                         getValue() in keys); NULL when keys use the value itself */
    size_t n_enum;
    char *pattern_text;
    regex_t pattern;
    int has_pattern;
    uint64_t pattern_id; /* unique in the process (a field freed and another made at its
                            address differ): what a memo of its matches is keyed by */
    ddb_field_format format;
    int precision; /* N: "precision"/"scale"/"integer" declared a DECIMAL(precision, scale)
                      every value must fit without rounding; 0 when undeclared */
    int scale;
    /* M: the members "fields" declares (one level: a member has no members
       of its own). Parquet writes such a map as a STRUCT of them; every
       other format and the transform keep the map as it is. */
    struct ddb_field *members;
    size_t n_members;
    struct ddb_gen_spec *gen; /* "generate": how values are made up (NULL: from the above) */
    char *spelling;           /* weekday format: how encode writes a day, as an example of the
                                 form ("Monday", "MONDAY", "monday", "Mon", "MON", "mon");
                                 default "Monday" */
} ddb_field;

typedef enum ddb_key_role {
    DDB_ROLE_PK = 0,  /* table partition key */
    DDB_ROLE_SK,      /* table sort key */
    DDB_ROLE_INDEX,   /* a secondary-index key attribute */
    DDB_ROLE_COMPUTED /* any other computed attribute */
} ddb_key_role;

/* How a field segment renders, fixed by its field when the template is
 * compiled (so the checks made per item need not look at the field). */
typedef enum ddb_tpl_how {
    DDB_TPL_RENDER = 0, /* only render knows: padding, weekdays, binary, N enums */
    DDB_TPL_OWN_S,      /* an S as its own bytes */
    DDB_TPL_OWN_N,      /* an unpadded N as its own text */
    DDB_TPL_ENUM_S      /* an S as its enum value's key spelling */
} ddb_tpl_how;

typedef struct ddb_tpl_seg {
    const char *lit; /* literal text (field < 0) */
    size_t lit_len;
    int field;       /* index into the entity's fields, or -1 for a literal */
    ddb_tpl_how how; /* a field's; DDB_TPL_RENDER for a literal */
    int any_text;    /* a field that takes any text that is not empty (an S without enum,
                        format or pattern) */
} ddb_tpl_seg;

typedef struct ddb_template {
    char *attr; /* attribute the template computes */
    size_t attr_len;
    ddb_type attr_type; /* S, N or B */
    ddb_key_role role;
    char *text;      /* the template as written */
    char *lit_store; /* unescaped literal text the segments point into */
    ddb_tpl_seg *segs;
    size_t n_segs;
    uint64_t fields;  /* bit i: field i is in the template (fields up to 63) */
    int fields_exact; /* no field past 63 is: fields says it all */
    int same_as;      /* an earlier key of the entity written the same way, or -1 */
} ddb_template;

typedef struct ddb_entity {
    char *name;
    char *type_value;   /* value of the table's entity-type attribute */
    ddb_template *keys; /* pk first, then sk, then the rest in declared order */
    size_t n_keys;
    ddb_field *fields;
    size_t n_fields;
    ddb_undeclared_policy undeclared;
} ddb_entity;

typedef struct ddb_index_def {
    char *name;
    int global;       /* GSI (1) or LSI (0) */
    ddb_key_attr pk;  /* LSI: the table's partition key */
    ddb_key_attr sk;  /* name NULL when the index has no sort key */
    char *projection; /* ALL, KEYS_ONLY or INCLUDE */
    char **non_key;   /* INCLUDE projection attributes */
    size_t n_non_key;
} ddb_index_def;

typedef struct ddb_table_def {
    char *name;
    ddb_key_attr pk;
    ddb_key_attr sk; /* name NULL without a sort key */
    char *type_attr; /* entity-type attribute, or NULL */
    ddb_index_def *indexes;
    size_t n_indexes;
    ddb_key_schema schema; /* for item validation */
} ddb_table_def;

typedef struct ddb_mapping {
    char *path; /* file it was loaded from, for messages */
    ddb_table_def table;
    ddb_entity *entities;
    size_t n_entities;
    /* storage behind schema.index_pk / index_sk */
    ddb_key_attr *index_pk_store;
    ddb_key_attr *index_sk_store;
} ddb_mapping;

/*
 * Loads and checks a mapping file. Every mistake is reported with the file,
 * the JSON path ("entities[2].keys.sk") and what is wrong: unknown properties,
 * templates naming undeclared fields, two fields without a separator between
 * them, key types, a missing partition-key template... *out is owned by the
 * caller (ddb_mapping_free). Returns 0, DDB_ENOTFOUND/DDB_EIO for the file,
 * DDB_EUSAGE for a bad mapping.
 */
DDB_MUST_USE int ddb_mapping_load(ddb_mapping **out, const char *path, ddb_error *err);

/* Same from text in memory; name is used in messages. */
DDB_MUST_USE int ddb_mapping_parse(ddb_mapping **out, const char *text, size_t len,
                                   const char *name, ddb_error *err);

void ddb_mapping_free(ddb_mapping *m);

/* Entity by name, or NULL. */
const ddb_entity *ddb_mapping_entity(const ddb_mapping *m, const char *name);

/* Field index by record field name, or -1. */
int ddb_entity_field_index(const ddb_entity *e, const char *name, size_t len);

/* ------------------------------------------------- the mapping's "generate" */

typedef enum ddb_gen_dist {
    DDB_GEN_UNIFORM = 0,
    DDB_GEN_NORMAL, /* around the middle of the range, 99.7% within it */
    DDB_GEN_ZIPF    /* small values common, large ones rare (P ~ 1/rank) */
} ddb_gen_dist;

/* A field's "generate" property, as loaded (and checked) with the mapping. */
typedef struct ddb_gen_spec {
    char *range_lo, *range_hi; /* "range": numbers, dates or date-times as text; NULL: none */
    char **one_of;             /* "oneOf": each value as text (JSON text for non-strings) */
    size_t n_one_of;
    double *weights; /* "weights": per oneOf value, or per enum value */
    size_t n_weights;
    ddb_gen_dist distribution; /* "distribution" over the range */
    uint64_t distinct;         /* "distinct": at most this many values (0: no limit); on a
                                  partition field: how many partitions */
    double absent;             /* "absent": share of records without the field */
    char *pattern;             /* "pattern": values from this expression (not a constraint) */
} ddb_gen_spec;

void ddb_gen_spec_free(ddb_gen_spec *s);

/* Calendar days for "generate" ranges of dates. */
/* "YYYY-MM-DD" of days since 1970-01-01 (proleptic Gregorian; out >= 11). */
void ddb_gen_date(char *out, int64_t days);

/* Days since 1970-01-01 of a valid "YYYY-MM-DD". */
int64_t ddb_gen_days(int year, unsigned month, unsigned day);

#endif
