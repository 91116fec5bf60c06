/*
 * sigv4_internal.h — what sigv4.c (the canonical request) takes from
 * sigv4_crypto.c (the signature).
 */
#ifndef DDBPIPE_SIGV4_INTERNAL_H
#define DDBPIPE_SIGV4_INTERNAL_H

#include "ddbpipe/sigv4.h"

/* The hex signature of string_to_sign for req's secret, region and service
 * on amz_date's day, into out. Returns 0, DDB_ENOMEM or DDB_ERROR (OpenSSL
 * failed), with err set. */
int ddb_sigv4_compute_signature(char out[65], const ddb_sigv4_request *req, const char *amz_date,
                                const char *string_to_sign, ddb_error *err);

#endif
