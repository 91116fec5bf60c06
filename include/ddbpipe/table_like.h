/*
 * table_like.h — a table made like another: its whole definition read from the source's
 * account (DescribeTable, DescribeTimeToLive, DescribeContinuousBackups, ListTagsOfResource,
 * GetResourcePolicy) and given to a new table, in the same account or another (create-table
 * --like, and --create-table when the source is a table).
 *
 * What is copied: key schema and attribute definitions, every GSI and LSI with its projection
 * (or the keys and indexes of a mapping, when the design changes), billing mode with the
 * provisioned throughput of the table and of each GSI (on-demand stays on-demand, with its
 * maximum throughput), the stream's view type, server-side encryption with the KMS key the
 * source names, the table class, deletion protection, tags, Time to Live, point-in-time
 * recovery (with its recovery period) and the resource policy (the source table's ARN in it
 * replaced by the new table's). What cannot be copied is named in the notes: an AWS owned key
 * (it has no name to give), global table replicas, Kinesis streaming destinations,
 * contributor insights, Application Auto Scaling policies, and every part the endpoint would not
 * describe (an operation it does not know, or may not call).
 */
#ifndef DDBPIPE_TABLE_LIKE_H
#define DDBPIPE_TABLE_LIKE_H

#include <signal.h>

#include "ddbpipe/buf.h"
#include "ddbpipe/client.h"
#include "ddbpipe/error.h"
#include "ddbpipe/mapping.h"
#include "ddbpipe/table.h"

typedef struct ddb_table_like ddb_table_like;

/*
 * Reads table's whole definition through c. A description the endpoint does not give
 * (UnknownOperationException, AccessDeniedException: DynamoDB Local has no tags, say) leaves
 * that part out and adds a line saying so to the notes (ddb_table_like_notes). *out is owned by
 * the caller (ddb_table_like_free). Returns 0, DDB_ENOTFOUND (no such table), DDB_ENET,
 * DDB_ENOMEM.
 */
DDB_MUST_USE int ddb_table_like_read(ddb_table_like **out, ddb_client *c, const char *table,
                                     ddb_error *err);

/* The source table's name, as read. */
const char *ddb_table_like_name(const ddb_table_like *l);

/*
 * The CreateTable request of a table named name like l, appended to out; the keys,
 * attribute definitions and indexes are m's when m is not NULL (each GSI provisioned as the
 * source's index of its name, else as the table). What the request cannot carry is appended
 * to notes, one line each ("not copied: ..."). Returns 0 or DDB_ENOMEM.
 */
int ddb_table_like_request(ddb_buf *out, const ddb_table_like *l, const char *name,
                           const ddb_mapping *m, ddb_buf *notes, ddb_error *err);

/* How the new table is waited for (as ddb_table_create). */
typedef struct ddb_table_like_wait {
    int timeout_s; /* 0: 600 */
    volatile sig_atomic_t *stop;
    ddb_table_wait_fn on_wait;
    void *ctx;
} ddb_table_like_wait;

/*
 * Creates table name through c like l (ddb_table_like_request), waits until it and its
 * indexes are ACTIVE, then turns on what CreateTable cannot: Time to Live
 * (UpdateTimeToLive), point-in-time recovery (UpdateContinuousBackups) and the resource
 * policy (PutResourcePolicy). notes gets every line of ddb_table_like_notes and of the
 * request. An existing table is an error (DDB_EUSAGE) unless exists_ok, and is then left as it
 * is (*created 0). Returns 0, DDB_EUSAGE, DDB_EINTR, DDB_ENET, DDB_ENOMEM.
 */
DDB_MUST_USE int ddb_table_like_create(ddb_client *c, const ddb_table_like *l, const char *name,
                                       const ddb_mapping *m, int exists_ok,
                                       const ddb_table_like_wait *w, int *created, ddb_buf *notes,
                                       ddb_error *err);

/* What reading left out (one line each, "not copied: ..."), or "". */
const char *ddb_table_like_notes(const ddb_table_like *l);

void ddb_table_like_free(ddb_table_like *l);

#endif
