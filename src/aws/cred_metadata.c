/*
 * Credentials from the machine the job runs on: the container credentials
 * endpoint (ECS, Fargate, EKS Pod Identity) and EC2 instance metadata
 * (IMDSv2: a session token from PUT /latest/api/token, then the role's name,
 * then its credentials, each GET carrying the token).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "aws/awshttp.h"
#include "aws/awsini.h"
#include "aws/cred_json.h"
#include "aws/cred_metadata.h"
#include "aws/cred_source.h"

#define IMDS_TOKEN_TTL "21600"

/* A short, safe quote of an error answer: its "message" when it is JSON. */
static void quote_message(char *out, size_t cap, const ddb_http_resp *resp,
                          const char *const *secrets)
{
    json_object *root = NULL, *m = NULL;
    out[0] = '\0';
    if (ddb_cred_json_parse(&root, resp->body.ptr, resp->body.len, "", NULL) == 0 &&
        (json_object_object_get_ex(root, "message", &m) ||
         json_object_object_get_ex(root, "Message", &m)) &&
        json_object_is_type(m, json_type_string))
        snprintf(out, cap, ": %.300s", json_object_get_string(m));
    ddb_cred_json_wipe(root);
    json_object_put(root);
    for (char *c = out; *c; c++)
        if ((unsigned char)*c < 0x20)
            *c = ' ';
    ddb_cred_redact(out, secrets, 2);
}

int ddb_container_url_allowed(const char *url)
{
    static const char *const hosts[] = {"169.254.170.2", "169.254.170.23", "[fd00:ec2::23]",
                                        "localhost"};
    const char *h, *end;
    size_t n;
    if (strncasecmp(url, "https://", 8) == 0)
        return 1;
    if (strncasecmp(url, "http://", 7) != 0)
        return 0;
    h = url + 7;
    if ((end = strchr(h, '@')) != NULL && end < h + strcspn(h, "/?#"))
        return 0; /* userinfo: refuse rather than guess which host is meant */
    if (*h == '[')
        n = (end = strchr(h, ']')) ? (size_t)(end - h) + 1 : 0;
    else
        n = strcspn(h, ":/?#");
    if (n == 0)
        return 0;
    for (size_t i = 0; i < sizeof(hosts) / sizeof(hosts[0]); i++)
        if (strlen(hosts[i]) == n && strncasecmp(h, hosts[i], n) == 0)
            return 1;
    /* Loopback: 127.0.0.0/8 and ::1. */
    if (n == 5 && strncmp(h, "[::1]", 5) == 0)
        return 1;
    if (strncmp(h, "127.", 4) == 0) {
        int dots = 0;
        for (size_t i = 0; i < n; i++) {
            if (h[i] == '.')
                dots++;
            else if (h[i] < '0' || h[i] > '9')
                return 0;
        }
        return dots == 3;
    }
    return 0;
}

int ddb_container_fetch(ddb_aws_credentials **out, const ddb_cred_source *s,
                        const ddb_cred_call *call, ddb_error *err)
{
    static const ddb_cred_fields fields = {
        "AccessKeyId", "SecretAccessKey", "Token", "Expiration", 1, 1, 0};
    char *token = NULL, what[600], msg[400];
    const char *secrets[2] = {NULL, NULL};
    ddb_http_resp resp = {0};
    ddb_http_call http = {0};
    json_object *root = NULL;
    int rc = 0, attempts = 0;

    *out = NULL;
    /* EKS Pod Identity rotates the token file: read it at every call. */
    if (s->auth_token_file && (rc = ddb_cred_read_token_file(&token, s->auth_token_file,
                                                             "container authorization token "
                                                             "file",
                                                             err)) != 0)
        return ddb_error_prefix(err, "%s: ", s->label);
    if (token == NULL && s->auth_token && (token = strdup(s->auth_token)) == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    if (token && strpbrk(token, "\r\n")) {
        rc = ddb_error_set(err, DDB_EUSAGE, "%s: the authorization token holds a line break",
                           s->label);
        goto done;
    }
    secrets[0] = token;
    ddb_http_call_init(&http, "GET", s->url, &s->net, call);
    http.policy.base_ms = 500;
    http.policy.cap_ms = 1000;
    if ((rc = ddb_http_call_header(&http, "Accept", "application/json", err)) != 0 ||
        (token && (rc = ddb_http_call_header(&http, "Authorization", token, err)) != 0))
        goto done;
    if ((rc = ddb_http_send(&resp, &http.req, &http.policy, &attempts, err)) != 0) {
        ddb_error_prefix(err, "%s (%d attempt%s): ", s->label, attempts, attempts == 1 ? "" : "s");
        goto done;
    }
    if (resp.status != 200) {
        quote_message(msg, sizeof(msg), &resp, secrets);
        rc = ddb_error_set(err, resp.status >= 500 ? DDB_ENET : DDB_ERROR,
                           "%s answered HTTP %ld%s (%d attempt%s)", s->label, resp.status, msg,
                           attempts, attempts == 1 ? "" : "s");
        goto done;
    }
    snprintf(what, sizeof(what), "%s: the answer", s->label);
    if ((rc = ddb_cred_json_parse(&root, resp.body.ptr, resp.body.len, what, err)) == 0)
        rc = ddb_cred_from_json(out, root, &fields, s->label, strdup(s->label), err);
done:
    ddb_cred_json_wipe(root);
    json_object_put(root);
    ddb_http_resp_dispose(&resp);
    ddb_http_call_dispose(&http);
    ddb_aws_free_secret(token);
    return rc;
}

/* ---- EC2 instance metadata (IMDSv2) ------------------------------------ */

typedef struct imds {
    const char *base;
    const ddb_cred_net *net;
    const ddb_cred_call *call;
    char token[256];
} imds;

static int imds_request(ddb_http_resp *resp, imds *m, const char *method, const char *path,
                        ddb_error *err)
{
    char url[1024];
    ddb_http_call http;
    size_t n = strlen(m->base);
    int rc;

    snprintf(url, sizeof(url), "%.*s/%s", (int)(n && m->base[n - 1] == '/' ? n - 1 : n), m->base,
             path);
    ddb_http_call_init(&http, method, url, m->net, m->call);
    /* The metadata service is near or absent: a second each, one attempt,
     * unless the profile says otherwise. */
    if (http.req.connect_timeout_ms <= 0)
        http.req.connect_timeout_ms = 1000;
    if (http.req.timeout_ms <= 0)
        http.req.timeout_ms = 1000;
    if (http.policy.max_attempts <= 0)
        http.policy.max_attempts = 1;
    if (strcmp(method, "PUT") == 0)
        rc = ddb_http_call_header(&http, "X-aws-ec2-metadata-token-ttl-seconds", IMDS_TOKEN_TTL,
                                  err);
    else
        rc = ddb_http_call_header(&http, "X-aws-ec2-metadata-token", m->token, err);
    if (rc == 0)
        rc = ddb_http_send(resp, &http.req, &http.policy, NULL, err);
    ddb_http_call_dispose(&http);
    return rc;
}

/* The session token. DDB_ENOTFOUND when no metadata service answers. */
static int imds_token(imds *m, ddb_error *err)
{
    ddb_http_resp resp = {0};
    int rc = imds_request(&resp, m, "PUT", "latest/api/token", err);
    if (rc == DDB_ENET) {
        rc = ddb_error_set(err, DDB_ENOTFOUND, "no instance metadata service answered at %s (%s)",
                           m->base, resp.transport);
    } else if (rc == 0 && resp.status != 200) {
        rc = ddb_error_set(err,
                           resp.status == 403 || resp.status == 404 || resp.status == 405
                               ? DDB_ENOTFOUND
                               : DDB_ERROR,
                           "the instance metadata service at %s refused an IMDSv2 token (HTTP "
                           "%ld)",
                           m->base, resp.status);
    } else if (rc == 0 && (resp.body.len == 0 || resp.body.len >= sizeof(m->token) ||
                           strpbrk(resp.body.ptr, "\r\n"))) {
        rc = ddb_error_set(err, DDB_ERROR,
                           "the instance metadata service at %s gave a malformed token", m->base);
    } else if (rc == 0) {
        memcpy(m->token, resp.body.ptr, resp.body.len + 1);
    }
    ddb_http_resp_dispose(&resp);
    return rc;
}

/* GET path with the token into resp (status 200 checked); what names it. */
static int imds_get(ddb_http_resp *resp, imds *m, const char *path, const char *what,
                    ddb_error *err)
{
    int rc = imds_request(resp, m, "GET", path, err);
    if (rc == DDB_ENET)
        return ddb_error_set(err, DDB_ENOTFOUND, "instance metadata at %s: %s: %s", m->base, what,
                             resp->transport);
    if (rc == 0 && resp->status == 404)
        return ddb_error_set(err, DDB_ENOTFOUND, "instance metadata at %s has no %s (HTTP 404)",
                             m->base, what);
    if (rc == 0 && resp->status != 200)
        return ddb_error_set(err, DDB_ERROR, "instance metadata at %s: %s: HTTP %ld%s", m->base,
                             what, resp->status,
                             resp->status == 401 ? " (the IMDSv2 token was refused)" : "");
    if (rc == 0 && resp->body.len == 0)
        return ddb_error_set(err, DDB_ERROR, "instance metadata at %s: %s: empty answer", m->base,
                             what);
    return rc;
}

int ddb_imds_fetch(ddb_aws_credentials **out, const ddb_cred_source *s, const ddb_cred_call *call,
                   ddb_error *err)
{
    static const ddb_cred_fields fields = {
        "AccessKeyId", "SecretAccessKey", "Token", "Expiration", 1, 1, 0};
    imds m = {s->url, &s->net, call, ""};
    ddb_http_resp resp = {0};
    json_object *root = NULL, *code = NULL;
    char role[256], path[512], what[600];
    int rc;

    *out = NULL;
    if ((rc = imds_token(&m, err)) != 0)
        goto done;
    if ((rc = imds_get(&resp, &m, "latest/meta-data/iam/security-credentials/",
                       "IAM role attached to the instance", err)) != 0)
        goto done;
    snprintf(role, sizeof(role), "%.*s", (int)strcspn(resp.body.ptr, "\r\n"), resp.body.ptr);
    if (role[0] == '\0' || strpbrk(role, "/?#%")) {
        rc = ddb_error_set(err, DDB_ERROR, "instance metadata at %s: malformed role name", m.base);
        goto done;
    }
    snprintf(path, sizeof(path), "latest/meta-data/iam/security-credentials/%s", role);
    snprintf(what, sizeof(what), "credentials of role '%s'", role);
    if ((rc = imds_get(&resp, &m, path, what, err)) != 0)
        goto done;
    snprintf(what, sizeof(what), "%s: role '%s': the answer", s->label, role);
    if ((rc = ddb_cred_json_parse(&root, resp.body.ptr, resp.body.len, what, err)) != 0)
        goto done;
    /* A 200 answer can still carry an error (e.g. the role does not trust EC2). */
    if (json_object_object_get_ex(root, "Code", &code) &&
        strcmp(json_object_get_string(code), "Success") != 0) {
        rc = ddb_error_set(err, DDB_ERROR, "%s: role '%s': Code %.60s", s->label, role,
                           json_object_get_string(code));
        goto done;
    }
    snprintf(what, sizeof(what), "%s: role '%s'", s->label, role);
    rc = ddb_cred_from_json(out, root, &fields, what,
                            ddb_aws_xprintf("%s, role '%s'", s->label, role), err);
done:
    ddb_cred_json_wipe(root);
    json_object_put(root);
    ddb_http_resp_dispose(&resp);
    OPENSSL_cleanse(m.token, sizeof(m.token));
    return rc;
}

int ddb_imds_region(char **out, const char *base_url, const ddb_cred_net *net, ddb_error *err)
{
    imds m = {base_url, net, NULL, ""};
    ddb_http_resp resp = {0};
    int rc;
    *out = NULL;
    if ((rc = imds_token(&m, err)) == 0 &&
        (rc = imds_get(&resp, &m, "latest/meta-data/placement/region", "region", err)) == 0) {
        size_t n = strcspn(resp.body.ptr, "\r\n");
        if ((*out = strndup(resp.body.ptr, n > 63 ? 63 : n)) == NULL)
            rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
    }
    ddb_http_resp_dispose(&resp);
    OPENSSL_cleanse(m.token, sizeof(m.token));
    return rc;
}
