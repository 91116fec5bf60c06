/* run_s3.h (private header of run/) — the S3 side of a run plan (run.c): connecting S3,
 * listing the prefixes given as inputs, sharding their objects. */
#ifndef DDBPIPE_RUN_S3_H
#define DDBPIPE_RUN_S3_H

#include "ddbpipe/run.h"
#include "ddbpipe/s3.h"
#include "ddbpipe/store.h"

typedef struct ddb_run_s3 {
    char *endpoint, *region; /* from ddb_run_plan_set_s3 */
    ddb_s3 *s3;
    ddb_store *store;
    uint64_t input_bytes; /* of the S3 objects listed among the inputs */
} ddb_run_s3;

/* Does the run read or write s3:// paths? */
int ddb_run_s3_needed(const ddb_run_options *o);

/* Connects S3 through c and expands the inputs: an s3:// folder (a key
 * prefix) that is not an export becomes its objects, as a local folder of
 * files does. *out (malloc'd names, ddb_store_names_free) and *n_out are set
 * on success. Returns 0, DDB_ENOTFOUND, DDB_EUSAGE, DDB_ENET, DDB_ENOMEM. */
int ddb_run_s3_connect(ddb_run_s3 *rs, const ddb_run_options *o, const char *const *inputs,
                       size_t n_inputs, char ***out, size_t *n_out, ddb_client *c, ddb_error *err);

/* The expansion alone, over a connected rs: for inputs known only later
 * (the folder of an export DynamoDB has just written). */
int ddb_run_s3_expand(ddb_run_s3 *rs, const ddb_run_options *o, const char *const *inputs,
                      size_t n_inputs, char ***out, size_t *n_out, ddb_error *err);

/* A small file written whole, to S3 when path is s3://, else atomically on disk. */
int ddb_run_s3_write_file(ddb_run_s3 *rs, const char *path, const char *data, size_t len,
                          ddb_error *err);

void ddb_run_s3_dispose(ddb_run_s3 *rs);

#endif
