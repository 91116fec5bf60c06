/*
 * AWS STS over its Query protocol: AssumeRole (signed with SigV4 by
 * ddb_sigv4_sign, service "sts") and AssumeRoleWithWebIdentity (unsigned: the
 * web identity token is the proof). Requests are form-encoded POSTs; answers
 * are XML, <...Result><Credentials>...</Credentials> on success and
 * <ErrorResponse><Error><Code/><Message/></Error> on failure.
 */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "aws/awserror.h"
#include "aws/awshttp.h"
#include "aws/awsini.h"
#include "aws/cred_source.h"
#include "aws/cred_sts.h"
#include "ddbpipe/sigv4.h"

static const char *const sts_retry_codes[] = {"IDPCommunicationError", NULL};

static int form_put(ddb_buf *b, const char *key, const char *value)
{
    if (b->len)
        ddb_buf_putc(b, '&');
    ddb_buf_puts(b, key);
    ddb_buf_putc(b, '=');
    return ddb_cred_percent_encode(b, value);
}

int ddb_sts_form(ddb_buf *body, const char *action, const ddb_cred_source *s, const char *web_token)
{
    char duration[24];
    /* Reserved up front: the body may carry the web identity token, and a
     * reallocation would leave a copy of it behind. */
    if (ddb_buf_reserve(body, 4096 + (web_token ? strlen(web_token) * 3 : 0)) != 0)
        return DDB_ENOMEM;
    form_put(body, "Action", action);
    form_put(body, "Version", "2011-06-15");
    form_put(body, "RoleArn", s->role_arn);
    form_put(body, "RoleSessionName", s->session_name);
    if (s->external_id)
        form_put(body, "ExternalId", s->external_id);
    if (s->duration_seconds > 0) {
        snprintf(duration, sizeof(duration), "%d", s->duration_seconds);
        form_put(body, "DurationSeconds", duration);
    }
    if (web_token)
        form_put(body, "WebIdentityToken", web_token);
    return body->oom ? DDB_ENOMEM : 0;
}

/* The XML text [p, p + len) decoded into a malloc'd string of its own size
 * (it may be a secret: never grown, so no copy is left behind); NULL on OOM. */
static char *xml_text(const char *p, size_t len)
{
    char *out = malloc(len + 1);
    if (out != NULL)
        ddb_xml_decode(out, len + 1, p, len);
    return out;
}

void ddb_sts_parse_error(const char *body, size_t len, char *code, size_t code_cap, char *message,
                         size_t message_cap)
{
    const char *end, *p;
    size_t n;
    code[0] = message[0] = '\0';
    if (body == NULL)
        return; /* an empty answer's buffer: no offset may be taken from NULL */
    end = body + len;
    /* Decoded in place, not through the heap: the message may echo a secret
     * (redacted by the caller), and no copy of it is left in freed memory. */
    if ((p = ddb_xml_find(body, end, "Code", &n)) != NULL)
        ddb_xml_decode(code, code_cap, p, n);
    if ((p = ddb_xml_find(body, end, "Message", &n)) != NULL)
        ddb_xml_decode(message, message_cap, p, n);
    ddb_xml_one_line(message);
}

static void classify(ddb_http_resp *resp)
{
    char message[8];
    if (resp->error_type[0] == '\0')
        ddb_sts_parse_error(resp->body.ptr, resp->body.len, resp->error_type,
                            sizeof(resp->error_type), message, sizeof(message));
}

int ddb_sts_parse_credentials(ddb_aws_credentials **out, const char *body, size_t len,
                              const char *result_tag, char *source, ddb_error *err)
{
    static const char *const field[4] = {"AccessKeyId", "SecretAccessKey", "SessionToken",
                                         "Expiration"};
    const char *end = body + len, *p, *cred;
    char *v[4] = {NULL};
    size_t n, cn;
    time_t expiration = 0;
    int rc = 0;

    *out = NULL;
    if ((p = ddb_xml_find(body, end, result_tag, &n)) == NULL ||
        (cred = ddb_xml_find(p, p + n, "Credentials", &cn)) == NULL) {
        rc = ddb_error_set(err, DDB_ERROR, "%s: the answer has no <%s><Credentials>", source,
                           result_tag);
        goto done;
    }
    for (int i = 0; i < 4 && rc == 0; i++) {
        const char *f = ddb_xml_find(cred, cred + cn, field[i], &n);
        if (f == NULL || n == 0)
            rc = ddb_error_set(err, DDB_ERROR, "%s: the answer's Credentials have no %s", source,
                               field[i]);
        else if ((v[i] = xml_text(f, n)) == NULL)
            rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
    }
    if (rc == 0 && ddb_cred_parse_time(&expiration, v[3]) != 0)
        rc = ddb_error_set(err, DDB_ERROR, "%s: Expiration '%.40s' is not an ISO 8601 time", source,
                           v[3]);
    if (rc == 0) {
        rc = ddb_cred_make(out, v[0], v[1], v[2], expiration, source, err);
        source = NULL;
    }
done:
    free(source);
    for (int i = 0; i < 4; i++)
        ddb_aws_free_secret(v[i]);
    return rc;
}

/* Host header value (host[:port] as in the URL) and path of url. */
static int split_url(const char *url, char **host, char **path)
{
    CURLU *u = curl_url();
    char *h = NULL, *port = NULL, *pa = NULL;
    int rc = -1;
    *host = *path = NULL;
    if (u && curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
        curl_url_get(u, CURLUPART_HOST, &h, 0) == CURLUE_OK &&
        curl_url_get(u, CURLUPART_PATH, &pa, 0) == CURLUE_OK) {
        curl_url_get(u, CURLUPART_PORT, &port, 0);
        *host = port ? ddb_aws_xprintf("%s:%s", h, port) : strdup(h);
        *path = strdup(pa);
        rc = *host && *path ? 0 : -1;
    }
    curl_free(h);
    curl_free(port);
    curl_free(pa);
    curl_url_cleanup(u);
    return rc;
}

void ddb_sts_request_dispose(ddb_sts_request *r)
{
    ddb_http_call_dispose(&r->http);
    if (r->body.ptr)
        OPENSSL_cleanse(r->body.ptr, r->body.cap);
    ddb_buf_dispose(&r->body);
    ddb_sigv4_result_free(r->sig);
    free(r->host);
    free(r->path);
    memset(r, 0, sizeof(*r));
}

/* The SigV4 headers of r's POST, signed with `with` at `when`. */
static int sign(ddb_sts_request *r, const ddb_cred_source *s, const ddb_aws_credentials *with,
                time_t when, ddb_error *err)
{
    ddb_sigv4_header hdrs[2] = {{"Host", r->host}, {"Content-Type", DDB_STS_CONTENT_TYPE}};
    ddb_sigv4_request sr;
    int rc;
    memset(&sr, 0, sizeof(sr));
    sr.method = "POST";
    sr.path = r->path;
    sr.query = "";
    sr.headers = hdrs;
    sr.header_count = 2;
    sr.payload = r->body.ptr;
    sr.payload_len = r->body.len;
    sr.access_key_id = with->access_key_id;
    sr.secret_access_key = with->secret_access_key;
    sr.session_token = with->session_token;
    sr.region = s->sts_region;
    sr.service = "sts";
    sr.timestamp = when;
    sr.flags = DDB_SIGV4_NORMALIZE_PATH;
    if ((rc = ddb_sigv4_sign(&r->sig, &sr, err)) != 0)
        return rc;
    for (size_t i = 0; i < r->sig->add_count && rc == 0; i++)
        rc = ddb_http_call_header(&r->http, r->sig->add[i].name, r->sig->add[i].value, err);
    return rc;
}

int ddb_sts_build(ddb_sts_request *r, const ddb_cred_source *s, const char *action,
                  const ddb_aws_credentials *with, const char *web_token, time_t when,
                  const ddb_cred_call *call, ddb_error *err)
{
    int rc = 0;

    memset(r, 0, sizeof(*r));
    if (split_url(s->sts_url, &r->host, &r->path) != 0) {
        rc = ddb_error_set(err, DDB_EUSAGE, "STS endpoint '%.200s' is not a URL", s->sts_url);
        goto done;
    }
    if (ddb_sts_form(&r->body, action, s, web_token) != 0) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto done;
    }
    ddb_http_call_init(&r->http, "POST", s->sts_url, &s->net, call);
    r->http.req.body = r->body.ptr;
    r->http.req.body_len = r->body.len;
    r->http.policy.classify = classify;
    r->http.policy.retry_codes = sts_retry_codes;
    if ((rc = ddb_http_call_header(&r->http, "Host", r->host, err)) != 0 ||
        (rc = ddb_http_call_header(&r->http, "Content-Type", DDB_STS_CONTENT_TYPE, err)) != 0)
        goto done;
    if (with)
        rc = sign(r, s, with, when, err);
done:
    if (rc != 0)
        ddb_sts_request_dispose(r);
    return rc;
}

/* Sends an STS action; on HTTP 200 parses the credentials. with = NULL for
 * an unsigned request. */
static int sts_call(ddb_aws_credentials **out, const ddb_cred_source *s, const char *action,
                    const ddb_aws_credentials *with, const char *web_token,
                    const ddb_cred_call *call, ddb_error *err)
{
    /* What must not leak into error messages, even if STS echoed it. */
    const char *secrets[] = {with ? with->secret_access_key : NULL,
                             with ? with->session_token : NULL, web_token, NULL};
    ddb_sts_request r;
    ddb_http_resp resp = {0};
    char result_tag[64], code[128], message[600];
    int rc, attempts = 0;

    *out = NULL;
    if ((rc = ddb_sts_build(&r, s, action, with, web_token, 0, call, err)) != 0)
        return ddb_error_prefix(err, "%s: ", s->label);
    /* One signature serves every attempt: SigV4 allows 5 minutes of skew and
     * the retries of one call end well within that. */
    if ((rc = ddb_http_send(&resp, &r.http.req, &r.http.policy, &attempts, err)) != 0) {
        ddb_error_prefix(err, "%s: STS %s (%d attempt%s): ", s->label, action, attempts,
                         attempts == 1 ? "" : "s");
        goto done;
    }
    if (resp.status != 200) {
        ddb_sts_parse_error(resp.body.ptr, resp.body.len, code, sizeof(code), message,
                            sizeof(message));
        ddb_cred_redact(message, secrets, sizeof(secrets) / sizeof(secrets[0]));
        rc = ddb_error_set(err, resp.status >= 500 || code[0] == '\0' ? DDB_ENET : DDB_ERROR,
                           "%s: STS %s answered HTTP %ld %s%s%.400s (%d attempt%s)", s->label,
                           action, resp.status, code[0] ? code : "(no error code)",
                           message[0] ? ": " : "", message, attempts, attempts == 1 ? "" : "s");
        goto done;
    }
    snprintf(result_tag, sizeof(result_tag), "%sResult", action);
    if ((rc = ddb_sts_parse_credentials(out, resp.body.ptr, resp.body.len, result_tag,
                                        strdup(s->label), err)) != 0)
        goto done;
    if ((*out)->expiration != 0 && (*out)->expiration <= (time_t)(ddb_cred_now_ms() / 1000)) {
        char when[32];
        ddb_cred_format_time(when, sizeof(when), (*out)->expiration);
        ddb_aws_credentials_free(*out);
        *out = NULL;
        rc = ddb_error_set(err, DDB_ERROR,
                           "%s: STS returned credentials that expired at %s (is the clock "
                           "right?)",
                           s->label, when);
    }
done:
    ddb_sts_request_dispose(&r);
    ddb_http_resp_dispose(&resp);
    return rc;
}

int ddb_sts_assume_role(ddb_aws_credentials **out, const ddb_cred_source *s,
                        const ddb_aws_credentials *with, const ddb_cred_call *call, ddb_error *err)
{
    return sts_call(out, s, "AssumeRole", with, NULL, call, err);
}

int ddb_sts_assume_role_with_web_identity(ddb_aws_credentials **out, const ddb_cred_source *s,
                                          const ddb_cred_call *call, ddb_error *err)
{
    char *token = NULL;
    int rc;
    *out = NULL;
    /* Read at every call: EKS and CI runners rotate the file. */
    if ((rc = ddb_cred_read_token_file(&token, s->token_file, "web identity token file", err)) != 0)
        return ddb_error_prefix(err, "%s: ", s->label);
    rc = sts_call(out, s, "AssumeRoleWithWebIdentity", NULL, token, call, err);
    ddb_aws_free_secret(token);
    return rc;
}
