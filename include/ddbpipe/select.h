/*
 * select.h — only the data asked for: --entities A,B, --where on record
 * fields (FIELD=V, FIELD^=PREFIX, FIELD>=A, FIELD>A, FIELD<=B, FIELD<B),
 * --project F1,F2 (only those fields written), --sample N.
 *
 * A selection is applied to every record as it is decoded, whatever the
 * input, so what is written is exactly what was asked for. For a table it
 * also decides how little to read: when the fields fixed with = give the
 * partition key of a selected entity on the table or on one of its indexes
 * (through the mapping's key templates), one Query of that key, narrowed on
 * the sort key by the fixed fields it starts with (and begins_with or a range
 * on the next one); otherwise a Scan whose FilterExpression keeps the items
 * that can match (a superset: the records are filtered again as read).
 */
#ifndef DDBPIPE_SELECT_H
#define DDBPIPE_SELECT_H

#include <stddef.h>
#include <stdint.h>

#include "ddbpipe/error.h"
#include "ddbpipe/mapping.h"

typedef enum ddb_cond_op {
    DDB_COND_EQ = 0, /* FIELD=V */
    DDB_COND_PREFIX, /* FIELD^=P: begins with P */
    DDB_COND_GE,     /* FIELD>=A */
    DDB_COND_GT,     /* FIELD>A */
    DDB_COND_LE,     /* FIELD<=B */
    DDB_COND_LT      /* FIELD<B */
} ddb_cond_op;

typedef struct ddb_cond {
    char *field;
    ddb_cond_op op;
    char *value; /* as given: text for S, the number's text for N */
} ddb_cond;

typedef struct ddb_select {
    char **entities; /* asked for; n_entities 0: every entity */
    size_t n_entities;
    ddb_cond *conds; /* all must hold */
    size_t n_conds;
    char **project; /* the fields written; n_project 0: every field */
    size_t n_project;
    uint64_t sample; /* keep the first N records that match (0: all) */
} ddb_select;

/* What to send to read a table for a selection. Strings are malloc'd. */
typedef struct ddb_select_request {
    int query;          /* 1: Query, 0: Scan */
    char *index;        /* Query: the index (NULL: the table) */
    char *members;      /* JSON members to add to the request (",\"KeyConditionExpression\":..."),
                           or NULL */
    char *how;          /* for people: "Query of index gsiOne: gsiOnePk = FavoriteData#u7#IMAGE" */
} ddb_select_request;

/*
 * Parses the options: entities "A,B" (or NULL), where "F=V,F^=P,F>=A,..." (or
 * NULL; a value runs to the next comma, "\," is a comma in it), project
 * "F1,F2" (or NULL), sample N (0: all). *out is owned by the caller (ddb_select_free); NULL when nothing is
 * asked for. Returns 0, DDB_EUSAGE (names the part that does not parse),
 * DDB_ENOMEM.
 */
DDB_MUST_USE int ddb_select_parse(ddb_select **out, const char *entities, const char *where,
                                  const char *project, uint64_t sample, ddb_error *err);

/* Checks the selection against mapping m: every entity exists, every field of
 * --where is a field of a selected entity, of type S or N, and every N value a
 * number; every field of --project a field of a selected entity. Returns 0 or
 * DDB_EUSAGE. */
DDB_MUST_USE int ddb_select_check(const ddb_select *s, const ddb_mapping *m, ddb_error *err);

/* 1 when records of entity e are asked for. */
int ddb_select_entity(const ddb_select *s, const ddb_entity *e);

/* 1 when rec, a record of e, is asked for: of a selected entity, and every
 * condition holds (a field the record lacks holds none). */
int ddb_select_record(const ddb_select *s, const ddb_entity *e, const ddb_map *rec);

/* rec (a record of e, its first n_declared attributes declared) with only the
 * projected fields, into *out (attributes borrowed from rec, the array in a);
 * *out_declared of them declared. Without --project, rec itself. Returns 0 or
 * DDB_ENOMEM. */
DDB_MUST_USE int ddb_select_project(const ddb_select *s, const ddb_map *rec, size_t n_declared,
                                    ddb_map *out, size_t *out_declared, ddb_arena *a);

/* How to read the table of m for s (checked): a Query when the fixed fields
 * give a key, else a Scan with a filter; with --project, a
 * ProjectionExpression of the projected fields' attributes, those --where
 * reads, and the table's keys and type attribute (what tells the entity).
 * Returns 0 or DDB_ENOMEM. */
DDB_MUST_USE int ddb_select_plan(ddb_select_request *out, const ddb_select *s,
                                 const ddb_mapping *m, ddb_error *err);

void ddb_select_request_dispose(ddb_select_request *r);

void ddb_select_free(ddb_select *s);

#endif
