/*
 * output_check.h — an output in front of another that lets through only what
 * the destination behind will take: items valid for a key schema (as a table
 * writer checks them, ddb_item_validate), and no deletes where deletes
 * cannot be carried out. The rest is refused with its reason (a reject), so
 * nothing is found bad only after it was uploaded. Files bound for an
 * ImportTable sit behind it.
 */
#ifndef DDBPIPE_OUTPUT_CHECK_H
#define DDBPIPE_OUTPUT_CHECK_H

#include "ddbpipe/error.h"
#include "ddbpipe/item.h"
#include "ddbpipe/output.h"

typedef struct ddb_check_output_opts {
    const ddb_key_schema *schema; /* borrowed; must outlive the output */
    const char *no_deletes;       /* why a delete is refused; NULL: deletes pass */
} ddb_check_output_opts;

/* An output checking what goes to upstream, which it owns from now on (also
 * on failure). Returns 0 or DDB_ENOMEM. */
DDB_MUST_USE int ddb_check_output_new(ddb_output **out, ddb_output *upstream,
                                      const ddb_check_output_opts *opts, ddb_error *err);

#endif
