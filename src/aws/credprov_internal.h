/* credprov_internal.h (private header of aws/) — creating a provider (awsconfig.c does, from the chain). */
#ifndef DDBPIPE_CREDPROV_INTERNAL_H
#define DDBPIPE_CREDPROV_INTERNAL_H

#include "aws/cred_source.h"
#include "ddbpipe/credprov.h"

/* A provider over root (taken over), starting with first (taken over: the
 * credentials root gave at start-up, obtained at obtained_ms). Returns 0 or
 * DDB_ENOMEM (root and first freed). */
int ddb_credprov_new(ddb_credprov **out, ddb_cred_source *root, ddb_aws_credentials *first,
                     int64_t obtained_ms, ddb_error *err);

#endif
