/*
 * sigv4_signer.c — a SigV4 signer kept for a stream of requests of one simple
 * shape (a client's DynamoDB calls). ddb_sigv4_sign handles every request the
 * AWS suite has, and pays for it: a dozen allocations, header copies, a sort
 * and three hashing contexts a request, about 2.5 us where hashing the body
 * of a 25-item batch takes 6. This signer streams the canonical request into
 * one kept SHA-256 context and writes what it gives into the caller's struct;
 * anything it is not sure of goes back to ddb_sigv4_sign (NOT_SIMPLE).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/evp.h>

#include "ddbpipe/codec.h"
#include "ddbpipe/sigv4.h"
#include "aws/sigv4_internal.h"

#define ALGORITHM "AWS4-HMAC-SHA256"
#define MAX_HEADERS 8
#define MAX_NAME 64
#define MAX_SCOPE 200

struct ddb_sigv4_signer {
    EVP_MD_CTX *ctx;
    int have_date; /* date_s holds date_t's formatting (any time_t, -1 too) */
    time_t date_t;
    char date_s[17];
};

typedef struct simple_header {
    char name[MAX_NAME + 1]; /* lower-cased */
    size_t name_len;
    const char *value;
    size_t value_len;
} simple_header;

int ddb_sigv4_signer_new(ddb_sigv4_signer **out, ddb_error *err)
{
    ddb_sigv4_signer *s = calloc(1, sizeof(*s));
    *out = NULL;
    if (s == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "SigV4: out of memory");
    if ((s->ctx = EVP_MD_CTX_new()) == NULL) {
        ddb_sigv4_signer_free(s);
        return ddb_error_set(err, DDB_ENOMEM, "SigV4: out of memory");
    }
    if (ddb_sigv4_sha256_md() == NULL) {
        ddb_sigv4_signer_free(s);
        return ddb_error_set(err, DDB_ERROR, "SigV4: SHA-256 is not available from OpenSSL");
    }
    *out = s;
    return 0;
}

void ddb_sigv4_signer_free(ddb_sigv4_signer *s)
{
    if (s == NULL)
        return;
    EVP_MD_CTX_free(s->ctx);
    free(s);
}

/* A value canonical as it is: ddb_sigv4_sign would neither trim nor collapse
 * it, nor refuse it for a control character. */
static int canonical_as_is(const char *v, size_t *len)
{
    size_t n = 0;
    for (; v[n]; n++) {
        unsigned char c = (unsigned char)v[n];
        if (c < 0x20 || c == 0x7f || (c == ' ' && (n == 0 || v[n - 1] == ' ')))
            return 0;
    }
    *len = n;
    return n == 0 || v[n - 1] != ' ';
}

/* Is the lower-cased name of header x the literal lit? Lengths first: the
 * usual names (host, content-type, x-amz-target) differ from the reserved
 * ones in length. */
#define NAME_IS(x, lit)                                                                            \
    ((x)->name_len == sizeof(lit) - 1 && memcmp((x)->name, lit, sizeof(lit) - 1) == 0)

/* The request's headers, lower-cased, checked and sorted, plus X-Amz-Date and
 * the token as ddb_sigv4_sign adds them. 0, or NOT_SIMPLE. */
static int gather(simple_header *h, size_t *n, int *has_date, const ddb_sigv4_request *req,
                  const char *amz_date, const char *token)
{
    int has_host = 0;
    *n = 0;
    *has_date = 0;
    if (req->header_count > MAX_HEADERS)
        return DDB_SIGV4_NOT_SIMPLE;
    for (size_t i = 0; i < req->header_count; i++) {
        const char *name = req->headers[i].name, *value = req->headers[i].value;
        simple_header *x = &h[*n];
        size_t k = 0;
        if (name == NULL || value == NULL)
            return DDB_SIGV4_NOT_SIMPLE;
        for (; name[k]; k++) {
            unsigned char c = (unsigned char)name[k];
            if (k == MAX_NAME || !ddb_sigv4_is_tchar(c))
                return DDB_SIGV4_NOT_SIMPLE;
            x->name[k] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
        }
        x->name[k] = '\0';
        x->name_len = k;
        /* what ddb_sigv4_sign refuses is its to word */
        if (k == 0 || ddb_sigv4_value_refused(value))
            return DDB_SIGV4_NOT_SIMPLE;
        if (ddb_sigv4_is_unsigned_header(x->name))
            continue;
        if (!canonical_as_is(value, &x->value_len) || NAME_IS(x, "authorization") ||
            NAME_IS(x, "x-amz-security-token") || NAME_IS(x, "x-amz-content-sha256"))
            return DDB_SIGV4_NOT_SIMPLE;
        if (NAME_IS(x, "x-amz-date")) {
            /* only the signing time itself (without one, ddb_sigv4_sign takes
             * the header's) */
            if ((req->amz_date == NULL && req->timestamp == 0) || strcmp(value, amz_date) != 0)
                return DDB_SIGV4_NOT_SIMPLE;
            *has_date = 1;
        }
        has_host |= NAME_IS(x, "host");
        x->value = value;
        (*n)++;
    }
    if (!has_host)
        return DDB_SIGV4_NOT_SIMPLE;
    if (!*has_date) {
        memcpy(h[*n].name, "x-amz-date", 11);
        h[*n].name_len = 10;
        h[*n].value = amz_date;
        h[(*n)++].value_len = 16;
    }
    if (token && !(req->flags & DDB_SIGV4_OMIT_SESSION_TOKEN)) {
        if (!canonical_as_is(token, &h[*n].value_len))
            return DDB_SIGV4_NOT_SIMPLE;
        memcpy(h[*n].name, "x-amz-security-token", 21);
        h[*n].name_len = 20;
        h[(*n)++].value = token;
    }
    /* a handful: insertion sort; a repeated name is ddb_sigv4_sign's to join */
    for (size_t i = 1; i < *n; i++) {
        simple_header t = h[i];
        size_t j = i;
        for (; j > 0 && strcmp(h[j - 1].name, t.name) >= 0; j--) {
            if (strcmp(h[j - 1].name, t.name) == 0)
                return DDB_SIGV4_NOT_SIMPLE;
            h[j] = h[j - 1];
        }
        h[j] = t;
    }
    return 0;
}

/* The signing time: the request's, or now (formatted once a second). */
static int signing_date(ddb_sigv4_signer *s, char out[17], const ddb_sigv4_request *req,
                        ddb_error *err)
{
    time_t t;
    if (req->amz_date) {
        int rc = ddb_sigv4_parse_date(&t, req->amz_date, err);
        if (rc == 0)
            memcpy(out, req->amz_date, 17);
        return rc;
    }
    t = req->timestamp ? req->timestamp : time(NULL);
    if (!s->have_date || t != s->date_t) {
        if (ddb_sigv4_format_date(s->date_s, t) != 0)
            return ddb_error_set(err, DDB_EINVAL, "SigV4: timestamp %lld is out of range",
                                 (long long)t);
        s->date_t = t;
        s->have_date = 1;
    }
    memcpy(out, s->date_s, 17);
    return 0;
}

static int put(EVP_MD_CTX *ctx, const char *p, size_t n)
{
    return EVP_DigestUpdate(ctx, p, n) == 1;
}

/* The hex SHA-256 of the canonical request, streamed: nothing of it (the
 * session token among it) is copied anywhere. */
static int canonical_hash(EVP_MD_CTX *ctx, char out[65], const ddb_sigv4_request *req,
                          const simple_header *h, size_t n, const char *payload_hash)
{
    unsigned char md[32];
    unsigned int mdlen = 0;
    int ok = EVP_DigestInit_ex(ctx, ddb_sigv4_sha256_md(), NULL) == 1 &&
             put(ctx, req->method, strlen(req->method)) && put(ctx, "\n/\n\n", 4);
    for (size_t i = 0; ok && i < n; i++)
        ok = put(ctx, h[i].name, h[i].name_len) && put(ctx, ":", 1) &&
             put(ctx, h[i].value, h[i].value_len) && put(ctx, "\n", 1);
    ok = ok && put(ctx, "\n", 1);
    for (size_t i = 0; ok && i < n; i++)
        ok = (i == 0 || put(ctx, ";", 1)) && put(ctx, h[i].name, h[i].name_len);
    ok = ok && put(ctx, "\n", 1) && put(ctx, payload_hash, 64) &&
         EVP_DigestFinal_ex(ctx, md, &mdlen) == 1 && mdlen == 32;
    if (ok) {
        ddb_hex_encode(out, md, 32);
        out[64] = '\0';
    }
    return ok ? 0 : DDB_ERROR;
}

static char *append(char *w, const char *s, size_t n)
{
    memcpy(w, s, n);
    return w + n;
}

int ddb_sigv4_signer_sign(ddb_sigv4_signer *s, ddb_sigv4_signed *out, const ddb_sigv4_request *req,
                          ddb_error *err)
{
    simple_header h[MAX_HEADERS + 2];
    char date[17], body_hash[65], cr_hash[65], sig[65], scope[MAX_SCOPE + 1];
    char sts[sizeof(ALGORITHM) + 17 + MAX_SCOPE + 67];
    const char *token =
        req && req->session_token && *req->session_token ? req->session_token : NULL;
    unsigned char md[32];
    unsigned int mdlen = 0;
    size_t n = 0, region_len, service_len, akid_len, scope_len, sh_len = 0, auth_len;
    int rc, has_date = 0;
    char *w;

    if ((rc = ddb_sigv4_check_request(req, err)) != 0)
        return rc;
    if ((req->path && *req->path && strcmp(req->path, "/") != 0) || (req->query && *req->query) ||
        (req->flags & DDB_SIGV4_SIGN_BODY) || req->payload_sha256 ||
        (req->payload_len > 0 && req->payload == NULL))
        return DDB_SIGV4_NOT_SIMPLE;
    if ((rc = signing_date(s, date, req, err)) != 0)
        return rc;
    if ((rc = gather(h, &n, &has_date, req, date, token)) != 0)
        return rc;
    region_len = strlen(req->region);
    service_len = strlen(req->service);
    akid_len = strlen(req->access_key_id);
    scope_len = 8 + 1 + region_len + 1 + service_len + sizeof("/aws4_request") - 1;
    for (size_t i = 0; i < n; i++)
        sh_len += (i > 0) + h[i].name_len;
    auth_len = sizeof(ALGORITHM " Credential=") - 1 + akid_len + 1 + scope_len +
               sizeof(", SignedHeaders=") - 1 + sh_len + sizeof(", Signature=") - 1 + 64;
    if (scope_len > MAX_SCOPE || auth_len >= sizeof(out->authorization))
        return DDB_SIGV4_NOT_SIMPLE;

    if (EVP_DigestInit_ex(s->ctx, ddb_sigv4_sha256_md(), NULL) != 1 ||
        EVP_DigestUpdate(s->ctx, req->payload_len ? req->payload : "", req->payload_len) != 1 ||
        EVP_DigestFinal_ex(s->ctx, md, &mdlen) != 1 || mdlen != 32)
        return ddb_error_set(err, DDB_ERROR, "SigV4: SHA-256 failed in OpenSSL");
    ddb_hex_encode(body_hash, md, 32);
    body_hash[64] = '\0';
    if (canonical_hash(s->ctx, cr_hash, req, h, n, body_hash) != 0)
        return ddb_error_set(err, DDB_ERROR, "SigV4: SHA-256 failed in OpenSSL");

    w = append(scope, date, 8);
    *w++ = '/';
    w = append(w, req->region, region_len);
    *w++ = '/';
    w = append(w, req->service, service_len);
    w = append(w, "/aws4_request", sizeof("/aws4_request"));
    w = append(sts, ALGORITHM "\n", sizeof(ALGORITHM));
    w = append(w, date, 16);
    *w++ = '\n';
    w = append(w, scope, scope_len);
    *w++ = '\n';
    w = append(w, cr_hash, 65);
    if ((rc = ddb_sigv4_signature_with(sig, s->ctx, req, date, sts, err)) != 0)
        return rc;

    memcpy(out->amz_date, date, 17);
    memcpy(out->signature, sig, 65);
    memcpy(out->payload_hash, body_hash, 65);
    w = append(out->authorization, ALGORITHM " Credential=", sizeof(ALGORITHM " Credential=") - 1);
    w = append(w, req->access_key_id, akid_len);
    *w++ = '/';
    w = append(w, scope, scope_len);
    w = append(w, ", SignedHeaders=", sizeof(", SignedHeaders=") - 1);
    for (size_t i = 0; i < n; i++) {
        if (i > 0)
            *w++ = ';';
        w = append(w, h[i].name, h[i].name_len);
    }
    w = append(w, ", Signature=", sizeof(", Signature=") - 1);
    append(w, sig, 65);
    out->add_count = 0;
    if (token)
        out->add[out->add_count++] = (ddb_sigv4_header){"X-Amz-Security-Token", token};
    if (!has_date)
        out->add[out->add_count++] = (ddb_sigv4_header){"X-Amz-Date", out->amz_date};
    out->add[out->add_count++] = (ddb_sigv4_header){"Authorization", out->authorization};
    return 0;
}
