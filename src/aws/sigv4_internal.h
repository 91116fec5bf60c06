/*
 * sigv4_internal.h (private header of aws/) — what sigv4.c (the canonical request) takes from
 * sigv4_crypto.c (the signature) and sigv4_uri.c (its canonical URI and query string).
 */
#ifndef DDBPIPE_SIGV4_INTERNAL_H
#define DDBPIPE_SIGV4_INTERNAL_H

#include <openssl/evp.h>

#include "ddbpipe/buf.h"
#include "ddbpipe/sigv4.h"

/* The hex signature of string_to_sign for req's secret, region and service
 * on amz_date's day, into out. Returns 0, DDB_ENOMEM or DDB_ERROR (OpenSSL
 * failed), with err set. */
int ddb_sigv4_compute_signature(char out[65], const ddb_sigv4_request *req, const char *amz_date,
                                const char *string_to_sign, ddb_error *err);

/* The same, hashing through the caller's ctx (left in no particular state)
 * rather than a context made for the call. */
int ddb_sigv4_signature_with(char out[65], EVP_MD_CTX *ctx, const ddb_sigv4_request *req,
                             const char *amz_date, const char *string_to_sign, ddb_error *err);

/* SHA-256, fetched from OpenSSL once for the process; NULL if it cannot be. */
const EVP_MD *ddb_sigv4_sha256_md(void);

/* What ddb_sigv4_sign checks of a request before anything else: a method
 * that is an HTTP token, an access key id, a secret, a region and a service
 * of the allowed characters. Returns 0 or DDB_EINVAL with err set (never
 * quoting a secret). */
int ddb_sigv4_check_request(const ddb_sigv4_request *req, ddb_error *err);

/* A character allowed in an HTTP field name or method (RFC 9110's tchar). */
int ddb_sigv4_is_tchar(unsigned char c);

/* A header value ddb_sigv4_sign refuses: a control character other than the
 * whitespace it folds (or DEL), whether or not the header is signed. */
int ddb_sigv4_value_refused(const char *value);

/* A header (lower-case name) that proxies may change, so it is never signed. */
int ddb_sigv4_is_unsigned_header(const char *lname);

/* A character RFC 3986 leaves unencoded (ALPHA, DIGIT, "-", "_", ".", "~"). */
int ddb_sigv4_is_unreserved(unsigned char c);

/* The value of a hex digit (either case), or -1 when c is none. */
int ddb_sigv4_hex_value(unsigned char c);

/* Appends the canonical URI of path (NULL or "": "/") to b: each segment percent-encoded unless
 * flags has DDB_SIGV4_PATH_ENCODED, and with DDB_SIGV4_NORMALIZE_PATH "." and empty segments
 * dropped and ".." popped. Returns 0 or DDB_ENOMEM. */
int ddb_sigv4_canonical_path(ddb_buf *b, const char *path, unsigned flags);

/* Appends the canonical query string of query (NULL or "": nothing) to b: each key and value
 * percent-decoded and encoded again, the pairs sorted by key, then value. Returns 0 or
 * DDB_ENOMEM. */
int ddb_sigv4_canonical_query(ddb_buf *b, const char *query);

#endif
