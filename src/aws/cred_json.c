/*
 * Credentials out of the JSON answers of credential_process, the container
 * endpoint, instance metadata and the SSO portal: the same four values under
 * different names, checked the same way.
 */
#include "aws/cred_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

int ddb_cred_json_parse(json_object **out, const char *text, size_t len, const char *what,
                        ddb_error *err)
{
    enum json_tokener_error jerr = json_tokener_success;
    json_tokener *tok;
    json_object *root;

    *out = NULL;
    if (text == NULL || len == 0)
        return ddb_error_set(err, DDB_ERROR, "%s is empty", what);
    if ((tok = json_tokener_new()) == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    root = json_tokener_parse_ex(tok, text, (int)len);
    jerr = json_tokener_get_error(tok);
    json_tokener_free(tok);
    if (root == NULL || jerr != json_tokener_success ||
        !json_object_is_type(root, json_type_object)) {
        ddb_cred_json_wipe(root);
        json_object_put(root);
        /* Never quote the text: it may hold the secret half of a key. */
        return ddb_error_set(err, DDB_ERROR, "%s is not a JSON object (%s)", what,
                             root ? "another JSON value"
                                  : json_tokener_error_desc(jerr == json_tokener_success
                                                                ? json_tokener_error_parse_eof
                                                                : jerr));
    }
    *out = root;
    return 0;
}

void ddb_cred_json_wipe(json_object *o)
{
    if (o == NULL)
        return;
    if (json_object_is_type(o, json_type_string)) {
        OPENSSL_cleanse((char *)json_object_get_string(o), (size_t)json_object_get_string_len(o));
    } else if (json_object_is_type(o, json_type_object)) {
        json_object_object_foreach(o, k, v)
        {
            (void)k;
            ddb_cred_json_wipe(v);
        }
    } else if (json_object_is_type(o, json_type_array)) {
        for (size_t i = 0; i < json_object_array_length(o); i++)
            ddb_cred_json_wipe(json_object_array_get_idx(o, i));
    }
}

static int bad(ddb_error *err, const char *what, const char *name, json_object *v, char *source)
{
    free(source);
    return ddb_error_set(err, DDB_ERROR, "%s: \"%s\" is %s", what, name,
                         v ? "not a non-empty string" : "missing");
}

int ddb_cred_from_json(ddb_aws_credentials **out, json_object *obj, const ddb_cred_fields *f,
                       const char *what, char *source, ddb_error *err)
{
    json_object *id = NULL, *secret = NULL, *token = NULL, *exp = NULL;
    time_t expiration = 0;

    *out = NULL;
    json_object_object_get_ex(obj, f->id, &id);
    json_object_object_get_ex(obj, f->secret, &secret);
    json_object_object_get_ex(obj, f->token, &token);
    json_object_object_get_ex(obj, f->expiration, &exp);
    if (!json_object_is_type(id, json_type_string) || json_object_get_string_len(id) == 0)
        return bad(err, what, f->id, id, source);
    if (!json_object_is_type(secret, json_type_string) || json_object_get_string_len(secret) == 0)
        return bad(err, what, f->secret, secret, source);
    if ((token || f->token_required) &&
        (!json_object_is_type(token, json_type_string) || json_object_get_string_len(token) == 0))
        return bad(err, what, f->token, token, source);
    if (exp == NULL && f->expiration_required) {
        free(source);
        return ddb_error_set(err, DDB_ERROR, "%s: \"%s\" is missing", what, f->expiration);
    }
    if (exp && f->expiration_ms) {
        int64_t ms = json_object_get_int64(exp);
        if (!json_object_is_type(exp, json_type_int) || ms <= 0) {
            free(source);
            return ddb_error_set(err, DDB_ERROR, "%s: \"%s\" is not a time in milliseconds", what,
                                 f->expiration);
        }
        expiration = (time_t)(ms / 1000);
    } else if (exp && (!json_object_is_type(exp, json_type_string) ||
                       ddb_cred_parse_time(&expiration, json_object_get_string(exp)) != 0)) {
        free(source);
        return ddb_error_set(err, DDB_ERROR, "%s: \"%s\" '%.64s' is not an ISO 8601 time", what,
                             f->expiration, json_object_get_string(exp));
    }
    if (exp && expiration <= (time_t)(ddb_cred_now_ms() / 1000)) {
        char when[32];
        ddb_cred_format_time(when, sizeof(when), expiration);
        free(source);
        return ddb_error_set(err, DDB_ERROR, "%s: returned credentials that expired at %s", what,
                             when);
    }
    return ddb_cred_make(out, json_object_get_string(id), json_object_get_string(secret),
                         token ? json_object_get_string(token) : NULL, expiration, source, err);
}
