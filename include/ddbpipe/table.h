/*
 * table.h — control-plane operations on a DynamoDB table: describe it (its
 * real key schema and index key types, which writes are validated against),
 * and create it with every index from a mapping.
 */
#ifndef DDBPIPE_TABLE_H
#define DDBPIPE_TABLE_H

#include <stddef.h>
#include <signal.h>
#include <stdint.h>

#include "ddbpipe/error.h"

#include "ddbpipe/buf.h"
#include "ddbpipe/client.h"
#include "ddbpipe/item.h"
#include "ddbpipe/mapping.h"

typedef struct ddb_index_info {
    char *name;
    int global;
    char *status; /* GSIs: ACTIVE, CREATING...; LSIs: NULL */
    ddb_key_attr pk;
    ddb_key_attr sk;  /* name NULL without a sort key */
    char *projection; /* ALL, KEYS_ONLY or INCLUDE */
    char **non_key;   /* INCLUDE: the projected attributes */
    size_t n_non_key;
} ddb_index_info;

typedef struct ddb_table_info {
    char *name;
    char *arn;          /* TableArn: what ExportTableToPointInTime names the table by */
    char *status;       /* ACTIVE, CREATING, ... */
    char *billing_mode; /* PAY_PER_REQUEST or PROVISIONED */
    uint64_t item_count;
    uint64_t size_bytes;
    uint64_t read_capacity; /* provisioned only */
    uint64_t write_capacity;
    ddb_index_info *indexes;
    size_t n_indexes;
    ddb_key_schema schema; /* the table key plus every index key, for validation */
    /* storage behind schema */
    ddb_key_attr pk, sk;
    ddb_key_attr *index_pk, *index_sk;
} ddb_table_info;

/* DescribeTable. *out owned by the caller (ddb_table_info_free). Returns 0,
 * DDB_ENOTFOUND (ResourceNotFoundException: the message names the table and
 * the endpoint's region), DDB_ENET for other failures. */
DDB_MUST_USE int ddb_table_describe(ddb_table_info **out, ddb_client *c, const char *table,
                                    ddb_error *err);

/* A table description as DescribeTable answers it ({"Table": {...}}; also
 * what dynamodump keeps in schema.json). table NULL: the name in the text.
 * *out owned by the caller. Returns 0, DDB_EINVAL (not a description),
 * DDB_ENOMEM. */
DDB_MUST_USE int ddb_table_info_parse(ddb_table_info **out, const char *json, const char *table,
                                      ddb_error *err);

void ddb_table_info_free(ddb_table_info *t);

/* The attribute Time to Live deletes table's items by, from a
 * DescribeTimeToLive answer ({"TimeToLiveDescription": {"TimeToLiveStatus":
 * .., "AttributeName": ..}}; table names it in messages): ENABLED or ENABLING
 * give *out (malloc'd, the caller's). DDB_EUSAGE when TTL is DISABLED or
 * DISABLING (no item will be deleted as expired: the message says so),
 * DDB_EINVAL when the text is no such answer, DDB_ENOMEM. */
DDB_MUST_USE int ddb_table_ttl_parse(char **out, const char *json, const char *table,
                                     ddb_error *err);

/* DescribeTimeToLive of table, read by ddb_table_ttl_parse. Returns its
 * codes, DDB_ENOTFOUND (no such table), DDB_ENET. */
DDB_MUST_USE int ddb_table_ttl_attribute(char **out, ddb_client *c, const char *table,
                                         ddb_error *err);

/* Called while waiting for a table: its latest description and the seconds
 * waited so far (for a progress message). */
typedef void (*ddb_table_wait_fn)(void *ctx, const ddb_table_info *t, double waited_s);

/* The CreateTable request for mapping m under name table (default: the
 * mapping's table name): key schema, attribute definitions, every GSI and LSI
 * with its projection, on-demand billing. Appended to out. */
int ddb_table_create_request(ddb_buf *out, const ddb_mapping *m, const char *table, ddb_error *err);

/* Flags for ddb_table_creation_params. */
#define DDB_TABLE_NO_LSI                                                                           \
    1u /* leave the local secondary indexes (and the attributes only they                          \
          use) out: ImportTable's TableCreationParameters has none */

/* The same table description as ddb_table_create_request, with flags (the
 * TableCreationParameters of ImportTable take DDB_TABLE_NO_LSI). Appended to
 * out. Returns 0 or DDB_ENOMEM. */
int ddb_table_creation_params(ddb_buf *out, const ddb_mapping *m, const char *table, unsigned flags,
                              ddb_error *err);

/* CreateTable, then waits (ddb_table_wait_ready) until the table and all its
 * indexes are ACTIVE or timeout_s passes. An existing table is an error
 * (DDB_EUSAGE) unless exists_ok. Returns 0, DDB_EUSAGE, DDB_EINTR, DDB_ENET. */
DDB_MUST_USE int ddb_table_create(ddb_client *c, const ddb_mapping *m, const char *table,
                                  int exists_ok, int timeout_s, volatile sig_atomic_t *stop,
                                  ddb_table_wait_fn on_wait, void *ctx, ddb_error *err);

/*
 * DescribeTable, then, while the table is CREATING or UPDATING (or, with
 * gsis, one of its global indexes is CREATING or UPDATING), polls again
 * (every 1 s, slowing to 5 s) until it is ready, timeout_s seconds pass or
 * *stop is set; on_wait (may be NULL) hears about every poll. Real tables take
 * seconds to minutes to become ACTIVE, and scripts create one and write to it
 * at once. *out (the ready table) is owned by the caller. Returns 0;
 * DDB_ENOTFOUND (no such table: the message names the region and endpoint);
 * DDB_EUSAGE when the table is DELETING, ARCHIVED or otherwise unusable, or
 * still not ready after timeout_s (0 = do not wait); DDB_EINTR; DDB_ENET.
 */
DDB_MUST_USE int ddb_table_wait_ready(ddb_table_info **out, ddb_client *c, const char *table,
                                      int gsis, int timeout_s, volatile sig_atomic_t *stop,
                                      ddb_table_wait_fn on_wait, void *ctx, ddb_error *err);

/*
 * Compares a mapping's table (its keys, their types, and every index with its
 * keys and projection) with the real table. Appends each difference to why
 * ("the table's sort key is moment (S), the mapping's sk (S); ...") and
 * returns how many there are (0: the mapping describes the table). The
 * table's name may differ: one mapping serves develop.X and prod.X.
 */
int ddb_table_check_mapping(const ddb_table_info *t, const ddb_mapping *m, ddb_buf *why);

/* A human description (the describe command). */
void ddb_table_info_format(ddb_buf *out, const ddb_table_info *t);

#endif
