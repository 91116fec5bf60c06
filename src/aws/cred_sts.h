/*
 * cred_sts.h (private header of aws/) — the pieces of the STS calls (cred_sts.c) that unit
 * tests check on their own: the form body, the signed request, and the XML
 * answers.
 */
#ifndef DDBPIPE_CRED_STS_H
#define DDBPIPE_CRED_STS_H

#include <stddef.h>
#include <time.h>

#include "aws/awshttp.h"
#include "aws/cred_source.h"
#include "ddbpipe/sigv4.h"

#define DDB_STS_CONTENT_TYPE "application/x-www-form-urlencoded; charset=utf-8"

typedef struct ddb_sts_request {
    char *host; /* Host header value: host[:port] of the STS URL */
    char *path;
    ddb_buf body;          /* the form; wiped on dispose */
    ddb_http_call http;    /* what ddb_http_send takes: the POST, its headers, STS's retries */
    ddb_sigv4_result *sig; /* NULL for an unsigned request */
} ddb_sts_request;

/* The form body of action for source s: Action, Version=2011-06-15, RoleArn,
 * RoleSessionName, ExternalId and DurationSeconds when set, WebIdentityToken
 * when given; values percent-encoded but for A-Z a-z 0-9 - _ . ~. Returns 0
 * or DDB_ENOMEM. */
int ddb_sts_form(ddb_buf *body, const char *action, const ddb_cred_source *s,
                 const char *web_token);

/* Builds the request to s->sts_url, signed with `with` (SigV4, service
 * "sts", region s->sts_region, at `when`, 0 = now) or unsigned when with is
 * NULL, to be sent under call (may be NULL). r is owned by the caller
 * (ddb_sts_request_dispose) when this returns 0; else DDB_EUSAGE (bad URL),
 * DDB_EINVAL (cannot sign) or DDB_ENOMEM. */
int ddb_sts_build(ddb_sts_request *r, const ddb_cred_source *s, const char *action,
                  const ddb_aws_credentials *with, const char *web_token, time_t when,
                  const ddb_cred_call *call, ddb_error *err);
void ddb_sts_request_dispose(ddb_sts_request *r);

/* Credentials from a successful answer: <result_tag><Credentials> with
 * AccessKeyId, SecretAccessKey, SessionToken and Expiration. source is taken
 * over (the new credentials' source). Returns 0, DDB_ERROR (a field missing
 * or malformed; the message names it, never a value but the expiration) or
 * DDB_ENOMEM. */
int ddb_sts_parse_credentials(ddb_aws_credentials **out, const char *body, size_t len,
                              const char *result_tag, char *source, ddb_error *err);

/* Code and Message of an <ErrorResponse> (empty strings when absent);
 * control characters in the message become spaces. */
void ddb_sts_parse_error(const char *body, size_t len, char *code, size_t code_cap, char *message,
                         size_t message_cap);

#endif
