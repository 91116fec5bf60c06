/*
 * IAM Identity Center (SSO): the access token `aws sso login` cached in
 * ~/.aws/sso/cache/<SHA-1 of the sso-session name, or of the start URL for
 * the legacy form>.json, exchanged at the portal's GetRoleCredentials
 * (GET /federation/credentials?account_id=..&role_name=.., the token in
 * x-amz-sso_bearer_token) for the role's credentials. ddbpipe never refreshes
 * the login itself: an expired or refused token is one error telling to run
 * `aws sso login`.
 */
#include <openssl/crypto.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aws/awshttp.h"
#include "aws/awsini.h"
#include "aws/cred_json.h"
#include "aws/cred_source.h"
#include "aws/cred_sso.h"

int ddb_sso_cache_path(char **out, const char *home, const char *key)
{
    unsigned char md[SHA_DIGEST_LENGTH];
    char hex[2 * SHA_DIGEST_LENGTH + 1];
    SHA1((const unsigned char *)key, strlen(key), md);
    for (int i = 0; i < SHA_DIGEST_LENGTH; i++)
        snprintf(hex + 2 * i, 3, "%02x", md[i]);
    *out = ddb_aws_xprintf("%s/.aws/sso/cache/%s.json", home, hex);
    return *out ? 0 : DDB_ENOMEM;
}

/* The cached access token (malloc'd, a secret), checked for expiry. */
static int load_token(char **out, const ddb_cred_source *s, ddb_error *err)
{
    json_object *root = NULL, *tok = NULL, *exp = NULL;
    char *text = NULL, what[600];
    time_t expires;
    int rc;

    *out = NULL;
    if ((rc = ddb_cred_read_token_file(&text, s->sso_cache_file, "SSO token cache file", err)) !=
        0) {
        char why[DDB_ERROR_MAX];
        snprintf(why, sizeof(why), "%s", err ? err->message : "");
        rc = ddb_error_set(err, DDB_EUSAGE, "%s: no usable SSO login (%s); run '%s'", s->label, why,
                           s->sso_login_hint);
        goto done;
    }
    snprintf(what, sizeof(what), "%s: the SSO token cache file %s", s->label, s->sso_cache_file);
    if ((rc = ddb_cred_json_parse(&root, text, strlen(text), what, err)) != 0)
        goto done;
    if (!json_object_object_get_ex(root, "accessToken", &tok) ||
        !json_object_is_type(tok, json_type_string) || json_object_get_string_len(tok) == 0 ||
        !json_object_object_get_ex(root, "expiresAt", &exp) ||
        !json_object_is_type(exp, json_type_string) ||
        ddb_cred_parse_time(&expires, json_object_get_string(exp)) != 0) {
        rc = ddb_error_set(err, DDB_EUSAGE,
                           "%s: the SSO token cache file %s has no valid accessToken and "
                           "expiresAt; run '%s'",
                           s->label, s->sso_cache_file, s->sso_login_hint);
        goto done;
    }
    if (expires <= (time_t)(ddb_cred_now_ms() / 1000)) {
        char when[32];
        ddb_cred_format_time(when, sizeof(when), expires);
        rc = ddb_error_set(err, DDB_EUSAGE, "%s: the SSO login expired at %s; run '%s'", s->label,
                           when, s->sso_login_hint);
        goto done;
    }
    if ((*out = strdup(json_object_get_string(tok))) == NULL)
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
done:
    ddb_cred_json_wipe(root);
    json_object_put(root);
    ddb_aws_free_secret(text);
    return rc;
}

int ddb_sso_fetch(ddb_aws_credentials **out, const ddb_cred_source *s, const ddb_cred_call *call,
                  ddb_error *err)
{
    static const ddb_cred_fields fields = {
        "accessKeyId", "secretAccessKey", "sessionToken", "expiration", 1, 1, 1};
    char *token = NULL, what[600], message[400] = "";
    const char *secrets[2] = {NULL, NULL};
    ddb_buf url = DDB_BUF_INIT;
    ddb_http_resp resp = {0};
    ddb_http_call http = {0};
    json_object *root = NULL, *rc_obj = NULL, *m = NULL;
    size_t n = strlen(s->sso_url);
    int rc, attempts = 0;

    *out = NULL;
    if ((rc = load_token(&token, s, err)) != 0)
        return rc;
    secrets[0] = token;
    ddb_buf_printf(&url, "%.*s/federation/credentials?account_id=",
                   (int)(n && s->sso_url[n - 1] == '/' ? n - 1 : n), s->sso_url);
    ddb_cred_percent_encode(&url, s->sso_account);
    ddb_buf_puts(&url, "&role_name=");
    ddb_cred_percent_encode(&url, s->sso_role);
    if (url.oom) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto done;
    }
    ddb_http_call_init(&http, "GET", url.ptr, &s->net, call);
    if ((rc = ddb_http_call_header(&http, "Accept", "application/json", err)) != 0 ||
        (rc = ddb_http_call_header(&http, "x-amz-sso_bearer_token", token, err)) != 0)
        goto done;
    if ((rc = ddb_http_send(&resp, &http.req, &http.policy, &attempts, err)) != 0) {
        ddb_error_prefix(err, "%s: SSO portal (%d attempt%s): ", s->label, attempts,
                         attempts == 1 ? "" : "s");
        goto done;
    }
    if (resp.status != 200) {
        if (ddb_cred_json_parse(&root, resp.body.ptr, resp.body.len, "", NULL) == 0 &&
            (json_object_object_get_ex(root, "message", &m) ||
             json_object_object_get_ex(root, "Message", &m)))
            snprintf(message, sizeof(message), ": %.300s", json_object_get_string(m));
        for (char *c = message; *c; c++)
            if ((unsigned char)*c < 0x20)
                *c = ' ';
        ddb_cred_redact(message, secrets, sizeof(secrets) / sizeof(secrets[0]));
        if (resp.status == 401 || strcmp(resp.error_type, "UnauthorizedException") == 0)
            rc = ddb_error_set(err, DDB_EUSAGE,
                               "%s: the SSO portal refused the cached login (HTTP %ld %s%s); run "
                               "'%s'",
                               s->label, resp.status, resp.error_type, message, s->sso_login_hint);
        else
            rc =
                ddb_error_set(err, resp.status >= 500 ? DDB_ENET : DDB_ERROR,
                              "%s: the SSO portal answered HTTP %ld %s%s (%d attempt%s)", s->label,
                              resp.status, resp.error_type[0] ? resp.error_type : "(no error type)",
                              message, attempts, attempts == 1 ? "" : "s");
        goto done;
    }
    snprintf(what, sizeof(what), "%s: the SSO portal's answer", s->label);
    if ((rc = ddb_cred_json_parse(&root, resp.body.ptr, resp.body.len, what, err)) != 0)
        goto done;
    if (!json_object_object_get_ex(root, "roleCredentials", &rc_obj) ||
        !json_object_is_type(rc_obj, json_type_object)) {
        rc = ddb_error_set(err, DDB_ERROR, "%s has no roleCredentials", what);
        goto done;
    }
    rc = ddb_cred_from_json(out, rc_obj, &fields, what, strdup(s->label), err);
done:
    ddb_cred_json_wipe(root);
    json_object_put(root);
    ddb_http_resp_dispose(&resp);
    ddb_http_call_dispose(&http);
    ddb_buf_dispose(&url);
    ddb_aws_free_secret(token);
    return rc;
}
