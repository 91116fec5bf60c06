/* cred_json.h (private header of aws/) — credentials out of JSON answers (cred_json.c). */
#ifndef DDBPIPE_CRED_JSON_H
#define DDBPIPE_CRED_JSON_H

#include <json-c/json.h>

#include "aws/cred_source.h"

/* The names of the four values in one kind of answer. */
typedef struct ddb_cred_fields {
    const char *id, *secret, *token, *expiration;
    int token_required;
    int expiration_required;
    int expiration_ms; /* epoch milliseconds (SSO) instead of ISO 8601 */
} ddb_cred_fields;

/* Parses text as a JSON object; what names it in errors ("<source>: output"). *out owned by the
 * caller (wipe it with ddb_cred_json_wipe before json_object_put). Returns 0 or DDB_ERROR (the
 * message never quotes the text), DDB_ENOMEM. */
int ddb_cred_json_parse(json_object **out, const char *text, size_t len, const char *what,
                        ddb_error *err);

/* Wipes every string of a JSON tree in place (json-c frees without it). */
void ddb_cred_json_wipe(json_object *o);

/* Reads the four values of obj into new credentials (source taken over,
 * freed on failure). A missing or empty value, a bad or past expiration is
 * DDB_ERROR naming the field (and the expiration, never another value). */
int ddb_cred_from_json(ddb_aws_credentials **out, json_object *obj, const ddb_cred_fields *f,
                       const char *what, char *source, ddb_error *err);

#endif
