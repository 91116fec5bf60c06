#include "ddbpipe/sigv4.h"

#include <assert.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "ddbpipe/buf.h"
#include "ddbpipe/codec.h"
#include "aws/sigv4_internal.h"

#define ALGORITHM "AWS4-HMAC-SHA256"

/* Appends the strings up to a NULL: a "%s%s..." without a format to parse
 * (printf was a third of signing's time). The NULL must be written
 * (const char *)NULL: where NULL is a plain 0, an int, va_arg would read a
 * pointer the caller never passed (sentinel: the compiler says so where it
 * can tell). */
static void cat(ddb_buf *b, ...) __attribute__((sentinel));
static void cat(ddb_buf *b, ...)
{
    va_list ap;
    const char *s;
    va_start(ap, b);
    while ((s = va_arg(ap, const char *)) != NULL)
        ddb_buf_puts(b, s);
    va_end(ap);
}

typedef struct canon_header {
    char *name;  /* lower-cased */
    char *value; /* trimmed, whitespace runs collapsed */
    size_t order;
} canon_header;

static int is_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

int ddb_sigv4_is_tchar(unsigned char c)
{
    switch (c) { /* the delimiters of RFC 9110, 5.6.2 */
    case '"':
    case '(':
    case ')':
    case ',':
    case '/':
    case ':':
    case ';':
    case '<':
    case '=':
    case '>':
    case '?':
    case '@':
    case '[':
    case '\\':
    case ']':
    case '{':
    case '}':
        return 0;
    default:
        return c > 0x20 && c < 0x7f;
    }
}

static char *lower_dup(const char *s)
{
    size_t n = strlen(s);
    char *d = malloc(n + 1);
    if (d == NULL)
        return NULL;
    for (size_t i = 0; i <= n; i++)
        d[i] = (s[i] >= 'A' && s[i] <= 'Z') ? (char)(s[i] + 32) : s[i];
    return d;
}

/* Trims and collapses whitespace runs (folded lines included) to one space. */
static char *canon_value(const char *s)
{
    char *d = malloc(strlen(s) + 1), *w = d;
    int pending = 0;
    if (d == NULL)
        return NULL;
    for (; *s; s++) {
        if (is_space((unsigned char)*s)) {
            pending = w != d;
            continue;
        }
        if (pending)
            *w++ = ' ';
        pending = 0;
        *w++ = *s;
    }
    *w = '\0';
    return d;
}

static int cmp_header(const void *a, const void *b)
{
    const canon_header *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->order > y->order) - (x->order < y->order);
}

int ddb_sigv4_value_refused(const char *value)
{
    for (const char *p = value; *p; p++)
        if (((unsigned char)*p < 0x20 && !is_space((unsigned char)*p)) || *p == 0x7f)
            return 1;
    return 0;
}

int ddb_sigv4_is_unsigned_header(const char *lname)
{
    static const struct {
        const char *name;
        size_t len;
    } skip[] = {{"user-agent", 10}, {"x-amzn-trace-id", 15},   {"connection", 10},
                {"expect", 6},      {"transfer-encoding", 17}, {"upgrade", 7}};
    size_t n = strlen(lname);
    for (size_t i = 0; i < sizeof(skip) / sizeof(skip[0]); i++)
        if (n == skip[i].len && memcmp(lname, skip[i].name, n) == 0)
            return 1;
    return 0;
}

static int push_header(canon_header *h, size_t *n, const char *lname, const char *value)
{
    h[*n].name = strdup(lname);
    h[*n].value = strdup(value);
    h[*n].order = *n;
    (*n)++;
    return (h[*n - 1].name && h[*n - 1].value) ? 0 : DDB_ENOMEM;
}

static int check_label(const char *what, const char *s, ddb_error *err)
{
    if (s == NULL || *s == '\0')
        return ddb_error_set(err, DDB_EINVAL, "SigV4: %s is empty", what);
    for (const char *p = s; *p; p++)
        if (!ddb_sigv4_is_unreserved((unsigned char)*p))
            return ddb_error_set(err, DDB_EINVAL,
                                 "SigV4: %s '%s' has a character outside A-Z a-z 0-9 - _ . ~", what,
                                 s);
    return 0;
}

/* n as width digits at p */
static void put_digits(char *p, int n, int width)
{
    for (int i = width - 1; i >= 0; i--, n /= 10)
        p[i] = (char)('0' + n % 10);
}

int ddb_sigv4_format_date(char out[17], time_t t)
{
    struct tm tm;
    if (gmtime_r(&t, &tm) == NULL || tm.tm_year + 1900 < 0 || tm.tm_year + 1900 > 9999)
        return DDB_EINVAL;
    /* %Y%m%dT%H%M%SZ, without strftime's locale machinery */
    put_digits(out, tm.tm_year + 1900, 4);
    put_digits(out + 4, tm.tm_mon + 1, 2);
    put_digits(out + 6, tm.tm_mday, 2);
    out[8] = 'T';
    put_digits(out + 9, tm.tm_hour, 2);
    put_digits(out + 11, tm.tm_min, 2);
    put_digits(out + 13, tm.tm_sec, 2);
    out[15] = 'Z';
    out[16] = '\0';
    return 0;
}

int ddb_sigv4_parse_date(time_t *out, const char *s, ddb_error *err)
{
    struct tm tm;
    char again[17];
    int v[6], w[6] = {4, 2, 2, 2, 2, 2}, pos = 0;

    if (s == NULL || strlen(s) != 16 || s[8] != 'T' || s[15] != 'Z')
        goto bad;
    for (int f = 0; f < 6; f++) {
        v[f] = 0;
        if (pos == 8)
            pos++;
        for (int k = 0; k < w[f]; k++, pos++) {
            if (s[pos] < '0' || s[pos] > '9')
                goto bad;
            v[f] = v[f] * 10 + (s[pos] - '0');
        }
    }
    memset(&tm, 0, sizeof(tm));
    tm.tm_year = v[0] - 1900;
    tm.tm_mon = v[1] - 1;
    tm.tm_mday = v[2];
    tm.tm_hour = v[3];
    tm.tm_min = v[4];
    tm.tm_sec = v[5];
    *out = timegm(&tm);
    /* timegm() normalizes 20150230 to March 2nd; a round trip catches it. */
    if (ddb_sigv4_format_date(again, *out) != 0 || strcmp(again, s) != 0)
        goto bad;
    return 0;
bad:
    return ddb_error_set(err, DDB_EINVAL,
                         "SigV4: date '%.32s' is not a UTC time of the form YYYYMMDDTHHMMSSZ",
                         s ? s : "(null)");
}

/* Collects the signed headers (the caller's plus X-Amz-Date, the token and
 * the body hash as needed), validating what must or must not be there. */
static int collect_headers(canon_header *h, size_t *n, ddb_sigv4_result *res,
                           const ddb_sigv4_request *req, int *has_date, int *has_hash,
                           ddb_error *err)
{
    int has_host = 0, rc;
    const char *token = req->session_token && *req->session_token ? req->session_token : NULL;

    for (size_t i = 0; i < req->header_count; i++) {
        const char *name = req->headers[i].name, *value = req->headers[i].value;
        char *lname, *cval;
        if (name == NULL || *name == '\0' || value == NULL)
            return ddb_error_set(err, DDB_EINVAL, "SigV4: header %zu has no name or value", i);
        for (const char *p = name; *p; p++)
            if (!ddb_sigv4_is_tchar((unsigned char)*p))
                return ddb_error_set(err, DDB_EINVAL,
                                     "SigV4: header name '%.64s' has a character not allowed "
                                     "in an HTTP field name",
                                     name);
        if (ddb_sigv4_value_refused(value))
            return ddb_error_set(err, DDB_EINVAL,
                                 "SigV4: value of header '%.64s' has a control character", name);
        lname = lower_dup(name);
        if (lname == NULL)
            return ddb_error_set(err, DDB_ENOMEM, "SigV4: out of memory");
        if (strcmp(lname, "authorization") == 0 || strcmp(lname, "x-amz-security-token") == 0) {
            free(lname);
            return ddb_error_set(err, DDB_EINVAL,
                                 "SigV4: the request already has a '%s' header; the signer "
                                 "adds it",
                                 name);
        }
        if (ddb_sigv4_is_unsigned_header(lname)) {
            free(lname);
            continue;
        }
        cval = canon_value(value);
        rc = cval ? push_header(h, n, lname, cval) : DDB_ENOMEM;
        if (rc == 0 && strcmp(lname, "host") == 0)
            has_host = 1;
        if (rc == 0 && strcmp(lname, "x-amz-date") == 0 && !*has_date) {
            *has_date = 1;
            if (req->amz_date == NULL && req->timestamp == 0) {
                time_t ignored;
                if ((rc = ddb_sigv4_parse_date(&ignored, cval, err)) == 0)
                    memcpy(res->amz_date, cval, 17);
            } else if (strcmp(cval, res->amz_date) != 0) {
                rc = ddb_error_set(err, DDB_EINVAL,
                                   "SigV4: X-Amz-Date header '%.32s' differs from the signing "
                                   "time %s",
                                   cval, res->amz_date);
            }
        }
        if (rc == 0 && strcmp(lname, "x-amz-content-sha256") == 0 && !*has_hash) {
            /* The caller's hash (or UNSIGNED-PAYLOAD) is what gets signed. */
            *has_hash = 1;
            if (strlen(cval) >= sizeof(res->payload_hash))
                rc = ddb_error_set(err, DDB_EINVAL,
                                   "SigV4: X-Amz-Content-Sha256 value is longer than 64 bytes");
            else
                memcpy(res->payload_hash, cval, strlen(cval) + 1);
        }
        free(lname);
        free(cval);
        if (rc == DDB_ENOMEM)
            return ddb_error_set(err, DDB_ENOMEM, "SigV4: out of memory");
        if (rc != 0)
            return rc;
    }
    if (!has_host)
        return ddb_error_set(err, DDB_EINVAL,
                             "SigV4: the request has no Host header; the host must be signed, "
                             "so pass it explicitly");
    rc = 0;
    if (!*has_date)
        rc = push_header(h, n, "x-amz-date", res->amz_date);
    if (rc == 0 && token && !(req->flags & DDB_SIGV4_OMIT_SESSION_TOKEN))
        rc = push_header(h, n, "x-amz-security-token", token);
    if (rc == 0 && (req->flags & DDB_SIGV4_SIGN_BODY) && !*has_hash)
        rc = push_header(h, n, "x-amz-content-sha256", res->payload_hash);
    return rc ? ddb_error_set(err, DDB_ENOMEM, "SigV4: out of memory") : 0;
}

static int resolve_date(ddb_sigv4_result *res, const ddb_sigv4_request *req, ddb_error *err)
{
    time_t t;
    if (req->amz_date) {
        int rc = ddb_sigv4_parse_date(&t, req->amz_date, err);
        if (rc == 0)
            memcpy(res->amz_date, req->amz_date, 17);
        return rc;
    }
    t = req->timestamp ? req->timestamp : time(NULL);
    if (ddb_sigv4_format_date(res->amz_date, t) != 0)
        return ddb_error_set(err, DDB_EINVAL, "SigV4: timestamp %lld is out of range",
                             (long long)t);
    return 0;
}

static int resolve_payload_hash(ddb_sigv4_result *res, const ddb_sigv4_request *req, ddb_error *err)
{
    if (req->payload_len > 0 && req->payload == NULL)
        return ddb_error_set(err, DDB_EINVAL, "SigV4: payload is NULL but payload_len is %zu",
                             req->payload_len);
    if (req->payload_sha256) {
        size_t n = strlen(req->payload_sha256);
        for (size_t i = 0; i < n; i++)
            if (ddb_sigv4_hex_value((unsigned char)req->payload_sha256[i]) < 0 ||
                (req->payload_sha256[i] >= 'A' && req->payload_sha256[i] <= 'F'))
                n = 0;
        if (n != 64)
            return ddb_error_set(err, DDB_EINVAL,
                                 "SigV4: payload_sha256 is not 64 lower-case hex digits");
        memcpy(res->payload_hash, req->payload_sha256, 65);
        return 0;
    }
    if (ddb_sigv4_sha256_hex(res->payload_hash, req->payload, req->payload_len) != 0)
        return ddb_error_set(err, DDB_ERROR, "SigV4: SHA-256 failed in OpenSSL");
    return 0;
}

int ddb_sigv4_check_request(const ddb_sigv4_request *req, ddb_error *err)
{
    int rc;
    if (req == NULL || req->method == NULL || *req->method == '\0')
        return ddb_error_set(err, DDB_EINVAL, "SigV4: no HTTP method");
    for (const char *p = req->method; *p; p++)
        if (!ddb_sigv4_is_tchar((unsigned char)*p))
            return ddb_error_set(err, DDB_EINVAL, "SigV4: method '%.32s' is not an HTTP token",
                                 req->method);
    if (req->access_key_id == NULL || *req->access_key_id == '\0')
        return ddb_error_set(err, DDB_EINVAL, "SigV4: access key id is empty");
    /* It goes into "Credential=<id>/<scope>,"; don't echo it back either. */
    for (const char *p = req->access_key_id; *p; p++)
        if (!ddb_sigv4_is_tchar((unsigned char)*p) || *p == ',' || *p == '/')
            return ddb_error_set(err, DDB_EINVAL,
                                 "SigV4: access key id has a space, control character, ',' or "
                                 "'/'");
    if (req->secret_access_key == NULL || *req->secret_access_key == '\0')
        return ddb_error_set(err, DDB_EINVAL, "SigV4: secret access key is empty");
    if ((rc = check_label("region", req->region, err)) != 0)
        return rc;
    return check_label("service", req->service, err);
}

/* The signed headers, h[0..*n) sorted by name (calloc'ed; the caller frees
 * them even when this fails). *has_date and *has_hash: the caller gave
 * X-Amz-Date and X-Amz-Content-Sha256 itself. */
static int sorted_headers(canon_header **h, size_t *n, ddb_sigv4_result *res,
                          const ddb_sigv4_request *req, int *has_date, int *has_hash,
                          ddb_error *err)
{
    int rc;

    *n = 0;
    if ((*h = calloc(req->header_count + 3, sizeof(**h))) == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "SigV4: out of memory");
    if ((rc = collect_headers(*h, n, res, req, has_date, has_hash, err)) != 0)
        return rc;
    qsort(*h, *n, sizeof(**h), cmp_header);
    return 0;
}

/* The canonical request into cr (empty) and the signed header names into sh
 * (empty), from the sorted headers h[0..n): repeated names are one line of
 * comma-joined values. Returns 0, or -1 when out of memory. */
static int canonical_request(ddb_buf *cr, ddb_buf *sh, const ddb_sigv4_request *req,
                             const ddb_sigv4_result *res, const canon_header *h, size_t n)
{
    /* It holds the session token: room for all of it at once, so no growth
     * leaves a copy of the token in freed memory (the caller wipes the buffer
     * itself). Path and query at most triple when encoded. */
    size_t room = strlen(req->method) + 3 * strlen(req->path ? req->path : "") +
                  3 * strlen(req->query ? req->query : "") + 160;

    assert(cr->len == 0 && sh->len == 0);
    for (size_t i = 0; i < n; i++)
        room += 2 * strlen(h[i].name) + strlen(h[i].value) + 3;
    if (ddb_buf_reserve(cr, room) != 0)
        return -1;
    ddb_buf_puts(cr, req->method);
    ddb_buf_putc(cr, '\n');
    if (ddb_sigv4_canonical_path(cr, req->path, req->flags) != 0)
        return -1;
    ddb_buf_putc(cr, '\n');
    if (ddb_sigv4_canonical_query(cr, req->query) != 0)
        return -1;
    ddb_buf_putc(cr, '\n');
    for (size_t i = 0; i < n; i++) {
        int first = i == 0 || strcmp(h[i].name, h[i - 1].name) != 0;
        int last = i + 1 == n || strcmp(h[i].name, h[i + 1].name) != 0;
        if (first) {
            cat(cr, h[i].name, ":", (const char *)NULL);
            cat(sh, sh->len ? ";" : "", h[i].name, (const char *)NULL);
        } else {
            ddb_buf_putc(cr, ',');
        }
        ddb_buf_puts(cr, h[i].value);
        if (last)
            ddb_buf_putc(cr, '\n');
    }
    cat(cr, "\n", sh->ptr ? sh->ptr : "", "\n", res->payload_hash, (const char *)NULL);
    return cr->oom || sh->oom ? -1 : 0;
}

/* The credential scope (date/region/service/aws4_request) into
 * res->credential_scope and the string to sign into sts (empty), from the
 * canonical request cr. Returns 0, DDB_ENOMEM or DDB_ERROR (OpenSSL). */
static int string_to_sign(ddb_buf *sts, ddb_sigv4_result *res, const ddb_sigv4_request *req,
                          const ddb_buf *cr, ddb_error *err)
{
    ddb_buf scope = DDB_BUF_INIT;
    char cr_hash[65];
    int rc = 0;

    assert(sts->len == 0 && res->credential_scope == NULL);
    if (ddb_sigv4_sha256_hex(cr_hash, cr->ptr, cr->len) != 0) {
        rc = ddb_error_set(err, DDB_ERROR, "SigV4: SHA-256 failed in OpenSSL");
        goto done;
    }
    ddb_buf_append(&scope, res->amz_date, 8);
    cat(&scope, "/", req->region, "/", req->service, "/aws4_request", (const char *)NULL);
    cat(sts, ALGORITHM "\n", res->amz_date, "\n", scope.ptr ? scope.ptr : "", "\n", cr_hash,
        (const char *)NULL);
    if (sts->oom || scope.oom || (res->credential_scope = ddb_buf_detach(&scope, NULL)) == NULL)
        rc = ddb_error_set(err, DDB_ENOMEM, "SigV4: out of memory");
done:
    ddb_buf_dispose(&scope);
    return rc;
}

/* The headers the caller adds to the request: the token, X-Amz-Date and the
 * body hash when it did not give them, and Authorization. */
static void add_headers(ddb_sigv4_result *res, const ddb_sigv4_request *req, int has_date,
                        int has_hash)
{
    if (res->session_token)
        res->add[res->add_count++] = (ddb_sigv4_header){"X-Amz-Security-Token", res->session_token};
    if (!has_date)
        res->add[res->add_count++] = (ddb_sigv4_header){"X-Amz-Date", res->amz_date};
    if ((req->flags & DDB_SIGV4_SIGN_BODY) && !has_hash)
        res->add[res->add_count++] = (ddb_sigv4_header){"X-Amz-Content-Sha256", res->payload_hash};
    res->add[res->add_count++] = (ddb_sigv4_header){"Authorization", res->authorization};
}

static int build(ddb_sigv4_result *res, const ddb_sigv4_request *req, ddb_error *err)
{
    canon_header *h = NULL;
    size_t n = 0;
    int has_date = 0, has_hash = 0, rc;
    ddb_buf cr = DDB_BUF_INIT, sh = DDB_BUF_INIT, sts = DDB_BUF_INIT, auth = DDB_BUF_INIT;
    const char *token = req->session_token && *req->session_token ? req->session_token : NULL;

    if ((rc = resolve_date(res, req, err)) != 0 || (rc = resolve_payload_hash(res, req, err)) != 0)
        goto done;
    if ((rc = sorted_headers(&h, &n, res, req, &has_date, &has_hash, err)) != 0)
        goto done;
    if (canonical_request(&cr, &sh, req, res, h, n) != 0)
        goto oom;
    if ((rc = string_to_sign(&sts, res, req, &cr, err)) != 0)
        goto done;
    if ((rc = ddb_sigv4_compute_signature(res->signature, req, res->amz_date, sts.ptr, err)) != 0)
        goto done;
    cat(&auth, ALGORITHM " Credential=", req->access_key_id, "/", res->credential_scope,
        ", SignedHeaders=", sh.ptr ? sh.ptr : "", ", Signature=", res->signature,
        (const char *)NULL);
    if (token && (res->session_token = strdup(token)) == NULL)
        goto oom;
    if (auth.oom)
        goto oom;
    res->canonical_request = ddb_buf_detach(&cr, NULL);
    res->signed_headers = ddb_buf_detach(&sh, NULL);
    res->string_to_sign = ddb_buf_detach(&sts, NULL);
    res->authorization = ddb_buf_detach(&auth, NULL);
    add_headers(res, req, has_date, has_hash);
    rc = 0;
    goto done;
oom:
    rc = ddb_error_set(err, DDB_ENOMEM, "SigV4: out of memory");
done:
    for (size_t i = 0; h && i < n; i++) {
        /* The token is one of the values; don't leave it in freed memory. */
        if (h[i].value)
            OPENSSL_cleanse(h[i].value, strlen(h[i].value));
        free(h[i].name);
        free(h[i].value);
    }
    free(h);
    if (cr.ptr)
        OPENSSL_cleanse(cr.ptr, cr.len);
    ddb_buf_dispose(&cr);
    ddb_buf_dispose(&sh);
    ddb_buf_dispose(&sts);
    ddb_buf_dispose(&auth);
    return rc;
}

int ddb_sigv4_sign(ddb_sigv4_result **out, const ddb_sigv4_request *req, ddb_error *err)
{
    ddb_sigv4_result *res;
    int rc;

    *out = NULL;
    if ((rc = ddb_sigv4_check_request(req, err)) != 0)
        return rc;
    res = calloc(1, sizeof(*res));
    if (res == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "SigV4: out of memory");
    rc = build(res, req, err);
    if (rc != 0) {
        ddb_sigv4_result_free(res);
        return rc;
    }
    *out = res;
    return 0;
}

void ddb_sigv4_result_free(ddb_sigv4_result *res)
{
    if (res == NULL)
        return;
    if (res->session_token)
        OPENSSL_cleanse(res->session_token, strlen(res->session_token));
    if (res->canonical_request)
        OPENSSL_cleanse(res->canonical_request, strlen(res->canonical_request));
    free(res->session_token);
    free(res->canonical_request);
    free(res->string_to_sign);
    free(res->signed_headers);
    free(res->credential_scope);
    free(res->authorization);
    free(res);
}
