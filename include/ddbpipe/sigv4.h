/*
 * sigv4.h — AWS Signature Version 4, Authorization-header form.
 *
 * The signer takes a request exactly as it will go on the wire (method, raw
 * path, raw query, headers, body) and returns the headers to add plus every
 * intermediate string, so tests can compare each step with the published
 * vectors (aws-c-auth's v4 suite) and the HTTP client can log the canonical
 * request when AWS answers SignatureDoesNotMatch.
 *
 * Canonicalization, as the vectors expect:
 * - Path: with DDB_SIGV4_NORMALIZE_PATH, "." and ".." segments are removed and
 *   runs of '/' collapse (a trailing '/' is kept). Then every byte outside
 *   A-Z a-z 0-9 - _ . ~ and '/' is percent-encoded, '%' included: a path that
 *   is already encoded on the wire ("/a%20b") is encoded a second time
 *   ("/a%2520b"), which is what every service except S3 expects. S3 signs the
 *   wire path as is: pass DDB_SIGV4_PATH_ENCODED (and no NORMALIZE_PATH).
 * - Query: split on '&'; each key and value is percent-decoded, then encoded
 *   with the unreserved set; pairs are sorted by encoded key, then value.
 * - Headers: names lower-cased; values trimmed, inner runs of whitespace
 *   (including the line breaks of folded values) collapsed to one space;
 *   repeated names joined with ',' in their original order; sorted by name.
 *   Every header passed is signed except user-agent, x-amzn-trace-id,
 *   connection, expect, transfer-encoding and upgrade, which proxies and
 *   HTTP libraries add or rewrite.
 * Secrets (secret key, session token) never appear in error messages; the
 * derived signing keys are cleansed before the call returns.
 */
#ifndef DDBPIPE_SIGV4_H
#define DDBPIPE_SIGV4_H

#include <stddef.h>
#include <time.h>

#include "ddbpipe/error.h"

/* One HTTP header. In a request the strings are the caller's; in a result
 * they point into the result (or at static names). */
typedef struct ddb_sigv4_header {
    const char *name;
    const char *value;
} ddb_sigv4_header;

enum {
    /* Remove dot segments and repeated slashes (every service but S3). */
    DDB_SIGV4_NORMALIZE_PATH = 1u << 0,
    /* Add and sign X-Amz-Content-Sha256 (S3 needs it; DynamoDB does not). */
    DDB_SIGV4_SIGN_BODY = 1u << 1,
    /* Add X-Amz-Security-Token after signing instead of signing it (a few
     * services, e.g. IoT, want it unsigned). */
    DDB_SIGV4_OMIT_SESSION_TOKEN = 1u << 2,
    /* The path is already URI-encoded and is signed as is (S3). */
    DDB_SIGV4_PATH_ENCODED = 1u << 3
};

/* What DynamoDB expects. */
#define DDB_SIGV4_FLAGS_DYNAMODB DDB_SIGV4_NORMALIZE_PATH

typedef struct ddb_sigv4_request {
    const char *method; /* "POST" */
    const char *path;   /* raw path as on the wire; NULL or "" means "/" */
    const char *query;  /* raw query without '?'; NULL or "" for none */
    const ddb_sigv4_header *headers;
    size_t header_count; /* must include Host; may include X-Amz-Date */
    const void *payload; /* body bytes (NULL when payload_len is 0) */
    size_t payload_len;
    const char *payload_sha256; /* optional lower-case hex SHA-256 of the body */
    const char *access_key_id;
    const char *secret_access_key;
    const char *session_token; /* NULL or "" for long-term credentials */
    const char *region;        /* "us-east-1" */
    const char *service;       /* "dynamodb" */
    const char *amz_date;      /* "YYYYMMDDTHHMMSSZ"; NULL to use timestamp */
    time_t timestamp;          /* used when amz_date is NULL; 0 means now */
    unsigned int flags;        /* DDB_SIGV4_* */
} ddb_sigv4_request;

#define DDB_SIGV4_MAX_ADDED 4

typedef struct ddb_sigv4_result {
    char *canonical_request;
    char *string_to_sign;
    char *signed_headers;   /* "content-type;host;x-amz-date;x-amz-target" */
    char *credential_scope; /* "20150830/us-east-1/service/aws4_request" */
    char *authorization;    /* value of the Authorization header */
    char *session_token;    /* copy of the token (cleansed on free), or NULL */
    char signature[65];     /* lower-case hex */
    char amz_date[17];      /* the X-Amz-Date used */
    char payload_hash[65];  /* hex SHA-256 of the body, or the caller's hash */
    /* Headers the caller must add to the request, in this order:
     * X-Amz-Security-Token (when there is a token), X-Amz-Date (unless the
     * request had it), X-Amz-Content-Sha256 (with DDB_SIGV4_SIGN_BODY, unless
     * the request had it), Authorization. */
    ddb_sigv4_header add[DDB_SIGV4_MAX_ADDED];
    size_t add_count;
} ddb_sigv4_result;

/* Signs req. *out is owned by the caller (ddb_sigv4_result_free). Returns 0,
 * DDB_EINVAL for a request that cannot be signed (no Host header, an
 * Authorization or X-Amz-Security-Token header already present, an
 * X-Amz-Date header that differs from the signing time, a bad amz_date,
 * region or service, an empty key), DDB_ENOMEM, or DDB_ERROR when OpenSSL
 * fails. On failure *out is NULL. Secrets are never quoted in err. */
DDB_MUST_USE int ddb_sigv4_sign(ddb_sigv4_result **out, const ddb_sigv4_request *req,
                                ddb_error *err);

/* Frees a result, cleansing the session token copy. Accepts NULL. */
void ddb_sigv4_result_free(ddb_sigv4_result *res);

/* ddb_sigv4_signer_sign's answer when a request is not of the simple shape
 * it signs: sign it with ddb_sigv4_sign. */
#define DDB_SIGV4_NOT_SIMPLE 1

/* Longest Authorization value ddb_sigv4_signer_sign writes (a longer one is
 * DDB_SIGV4_NOT_SIMPLE). */
#define DDB_SIGV4_AUTH_MAX 768

/* A signer kept for a stream of requests of one simple shape (a client's
 * DynamoDB calls): its hashing state is made once, not per request, and
 * nothing is allocated or copied per request. One thread at a time. */
typedef struct ddb_sigv4_signer ddb_sigv4_signer;

/* What the signer gives: the headers to add (add[], as in ddb_sigv4_result:
 * X-Amz-Security-Token pointing at the request's token, X-Amz-Date unless the
 * request had it, Authorization), pointing into this struct or the request. */
typedef struct ddb_sigv4_signed {
    char amz_date[17];
    char signature[65];
    char payload_hash[65];
    char authorization[DDB_SIGV4_AUTH_MAX];
    ddb_sigv4_header add[3];
    size_t add_count;
} ddb_sigv4_signed;

/* A new signer, owned by the caller (ddb_sigv4_signer_free). Returns 0, or
 * DDB_ENOMEM / DDB_ERROR (OpenSSL) with *out NULL. */
int ddb_sigv4_signer_new(ddb_sigv4_signer **out, ddb_error *err);

/* Frees a signer. Accepts NULL. */
void ddb_sigv4_signer_free(ddb_sigv4_signer *s);

/* Signs req as ddb_sigv4_sign would, to the byte, when req is simple: path
 * "/" (or none) and no query, no DDB_SIGV4_SIGN_BODY, at most 8 headers with
 * distinct names of at most 64 bytes, values (and the session token) already
 * canonical (no leading, trailing or doubled spaces, no control characters),
 * no Authorization, X-Amz-Security-Token or X-Amz-Content-Sha256 header,
 * X-Amz-Date only when it is the signing time given, and an Authorization that fits. Returns 0 with
 * *out filled; DDB_SIGV4_NOT_SIMPLE (out untouched: sign with ddb_sigv4_sign, which also names what
 * is wrong with a bad request); or what ddb_sigv4_sign returns for a request it refuses. */
DDB_MUST_USE int ddb_sigv4_signer_sign(ddb_sigv4_signer *s, ddb_sigv4_signed *out,
                                       const ddb_sigv4_request *req, ddb_error *err);

/* Formats t (UTC) as "YYYYMMDDTHHMMSSZ" + NUL. Returns 0, or DDB_EINVAL when
 * t cannot be represented with a four-digit year. */
int ddb_sigv4_format_date(char out[17], time_t t);

/* Parses "YYYYMMDDTHHMMSSZ" (a real calendar time, UTC). Returns 0 or
 * DDB_EINVAL (message names the text and what is wrong). */
int ddb_sigv4_parse_date(time_t *out, const char *amz_date, ddb_error *err);

/* Lower-case hex SHA-256 of len bytes + NUL. Returns 0 or DDB_ERROR. */
int ddb_sigv4_sha256_hex(char out[65], const void *data, size_t len);

#endif
