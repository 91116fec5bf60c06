/*
 * Runs every case folder of the aws-c-auth SigV4 suite (DDB_SHARED_DIR/sigv4/v4)
 * through ddb_sigv4_sign() and compares, exactly, the canonical request, the
 * string to sign, the signature and the signed request (Authorization line
 * included). The folders are discovered at run time; one failing case fails
 * the test, and every failing case is named in the log and the message.
 */
#include <criterion/criterion.h>
#include <criterion/logging.h>

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include <json-c/json.h>

#include "ddbpipe/buf.h"
#include "ddbpipe/sigv4.h"

#define VECTOR_DIR DDB_SHARED_DIR "/sigv4/v4"
#define MAX_HEADERS 64

typedef struct raw_request {
    char *text;   /* whole request.txt */
    char *method; /* pieces below are separate allocations */
    char *path;
    char *query;
    char *names[MAX_HEADERS];
    char *values[MAX_HEADERS];
    ddb_sigv4_header headers[MAX_HEADERS];
    size_t nheaders;
    size_t head_len; /* request line + header lines, each ending in '\n' */
    const char *body;
    size_t body_len;
} raw_request;

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *p = NULL;
    long n;
    if (f == NULL)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (p = malloc((size_t)n + 1)) != NULL) {
        if (fread(p, 1, (size_t)n, f) != (size_t)n) {
            free(p);
            p = NULL;
        } else {
            p[n] = '\0';
            if (len)
                *len = (size_t)n;
        }
    }
    fclose(f);
    return p;
}

static int fail(char *why, size_t whylen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(char *why, size_t whylen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, whylen, fmt, ap);
    va_end(ap);
    return -1;
}

/* dir + "/" + name into out; -1 when it does not fit. */
static int join(char *out, size_t outlen, const char *dir, const char *name)
{
    int n = snprintf(out, outlen, "%s/%s", dir, name);
    return n < 0 || (size_t)n >= outlen ? -1 : 0;
}

static char *dup_n(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

static void raw_request_dispose(raw_request *r)
{
    free(r->text);
    free(r->method);
    free(r->path);
    free(r->query);
    for (size_t i = 0; i < r->nheaders; i++) {
        free(r->names[i]);
        free(r->values[i]);
    }
}

/* Request line "METHOD TARGET VERSION" (the target may hold spaces), header
 * lines "Name:value" with folded continuation lines, a blank line, the body. */
static int parse_request(raw_request *r, const char *path, char *why, size_t whylen)
{
    size_t len = 0, pos = 0;
    char *blank, *line_end, *sp1, *sp2, *q;

    memset(r, 0, sizeof(*r));
    if ((r->text = slurp(path, &len)) == NULL)
        return fail(why, whylen, "cannot read %s", path);
    blank = strstr(r->text, "\n\n");
    r->head_len = blank ? (size_t)(blank - r->text) + 1 : len;
    r->body = blank ? blank + 2 : r->text + len;
    r->body_len = (size_t)(r->text + len - r->body);

    line_end = memchr(r->text, '\n', r->head_len);
    if (line_end == NULL)
        return fail(why, whylen, "no request line");
    sp1 = memchr(r->text, ' ', (size_t)(line_end - r->text));
    for (sp2 = line_end; sp2 > r->text && *sp2 != ' '; sp2--)
        ;
    if (sp1 == NULL || sp2 <= sp1)
        return fail(why, whylen, "bad request line");
    r->method = dup_n(r->text, (size_t)(sp1 - r->text));
    q = memchr(sp1 + 1, '?', (size_t)(sp2 - sp1 - 1));
    r->path = dup_n(sp1 + 1, (size_t)((q ? q : sp2) - sp1 - 1));
    r->query = q ? dup_n(q + 1, (size_t)(sp2 - q - 1)) : NULL;

    pos = (size_t)(line_end - r->text) + 1;
    while (pos < r->head_len) {
        const char *line = r->text + pos, *colon;
        const char *end = memchr(line, '\n', r->head_len - pos);
        size_t n = end ? (size_t)(end - line) : r->head_len - pos;
        pos += n + 1;
        if (line[0] == ' ' || line[0] == '\t') {
            /* Folded value: keep the line break, the signer must collapse it. */
            char *v;
            size_t old;
            if (r->nheaders == 0)
                return fail(why, whylen, "continuation before any header");
            old = strlen(r->values[r->nheaders - 1]);
            v = realloc(r->values[r->nheaders - 1], old + n + 2);
            v[old] = '\n';
            memcpy(v + old + 1, line, n);
            v[old + 1 + n] = '\0';
            r->values[r->nheaders - 1] = v;
            continue;
        }
        colon = memchr(line, ':', n);
        if (colon == NULL || r->nheaders == MAX_HEADERS)
            return fail(why, whylen, "bad header line '%.*s'", (int)n, line);
        r->names[r->nheaders] = dup_n(line, (size_t)(colon - line));
        r->values[r->nheaders] = dup_n(colon + 1, (size_t)(line + n - colon - 1));
        r->nheaders++;
    }
    for (size_t i = 0; i < r->nheaders; i++)
        r->headers[i] = (ddb_sigv4_header){r->names[i], r->values[i]};
    return 0;
}

static const char *json_str(json_object *o, const char *key)
{
    json_object *v;
    return json_object_object_get_ex(o, key, &v) ? json_object_get_string(v) : NULL;
}

static int json_flag(json_object *o, const char *key)
{
    json_object *v;
    return json_object_object_get_ex(o, key, &v) && json_object_get_boolean(v);
}

/* Describes where two texts first differ, by line. Returns 0 when equal. */
static int diff_text(const char *what, const char *got, const char *want, char *why, size_t whylen)
{
    size_t line = 1;
    const char *g = got, *w = want;
    if (got == NULL)
        return fail(why, whylen, "%s missing", what);
    if (strcmp(got, want) == 0)
        return 0;
    while (*g && *g == *w) {
        if (*g == '\n') {
            line++;
            got = g + 1;
            want = w + 1;
        }
        g++;
        w++;
    }
    fail(why, whylen, "%s differs at line %zu: got '%.*s', expected '%.*s'", what, line,
         (int)strcspn(got, "\n"), got, (int)strcspn(want, "\n"), want);
    return -1;
}

/* Header names are case-insensitive: lower-case them (not the values) in the
 * header block so the comparison doesn't depend on the names' spelling. */
static void lower_header_names(char *s)
{
    char *line = strchr(s, '\n');
    while (line && line[1] && line[1] != '\n') {
        line++;
        if (*line != ' ' && *line != '\t')
            for (char *p = line; *p && *p != ':' && *p != '\n'; p++)
                if (*p >= 'A' && *p <= 'Z')
                    *p = (char)(*p + 32);
        line = strchr(line, '\n');
    }
}

static int check_signed_request(const raw_request *r, const ddb_sigv4_result *res, const char *want,
                                char *why, size_t whylen)
{
    ddb_buf got = DDB_BUF_INIT;
    char *want_copy = strdup(want), *auth_line;
    int rc = 0;

    ddb_buf_append(&got, r->text, r->head_len);
    if (r->head_len == 0 || r->text[r->head_len - 1] != '\n')
        ddb_buf_putc(&got, '\n');
    for (size_t i = 0; i < res->add_count; i++)
        ddb_buf_printf(&got, "%s:%s\n", res->add[i].name, res->add[i].value);
    ddb_buf_putc(&got, '\n');
    ddb_buf_append(&got, r->body, r->body_len);

    auth_line = strstr(want, "\nAuthorization:");
    if (auth_line == NULL) {
        rc = fail(why, whylen, "expected signed request has no Authorization line");
    } else {
        size_t n = strcspn(auth_line + 15, "\n");
        if (strlen(res->authorization) != n || memcmp(res->authorization, auth_line + 15, n))
            rc = fail(why, whylen, "Authorization differs: got '%s', expected '%.*s'",
                      res->authorization, (int)n, auth_line + 15);
    }
    if (rc == 0) {
        lower_header_names(got.ptr);
        lower_header_names(want_copy);
        rc = diff_text("signed request", got.ptr, want_copy, why, whylen);
    }
    ddb_buf_dispose(&got);
    free(want_copy);
    return rc;
}

static int parse_iso_time(time_t *out, const char *s)
{
    struct tm tm;
    memset(&tm, 0, sizeof(tm));
    if (s == NULL || sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                            &tm.tm_hour, &tm.tm_min, &tm.tm_sec) != 6)
        return -1;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    *out = timegm(&tm);
    return 0;
}

static int g_simple_cases;

/* The kept signer (ddb_sigv4_signer_sign) on the same case: a request of its
 * simple shape must come out as the suite has it, byte for byte; any other is
 * handed back (NOT_SIMPLE), never signed differently. */
static int signer_case(const ddb_sigv4_request *req, const raw_request *r, const char *want_sig,
                       const char *want_request, char *why, size_t whylen)
{
    ddb_sigv4_signer *s = NULL;
    ddb_sigv4_signed out;
    ddb_sigv4_result view;
    ddb_error err = {0};
    int rc;

    cr_assert_eq(ddb_sigv4_signer_new(&s, &err), 0, "%s", err.message);
    rc = ddb_sigv4_signer_sign(s, &out, req, &err);
    ddb_sigv4_signer_free(s);
    if (rc == DDB_SIGV4_NOT_SIMPLE)
        return 0;
    if (rc != 0)
        return fail(why, whylen, "the kept signer failed: %s", err.message);
    g_simple_cases++;
    if (diff_text("the kept signer's signature", out.signature, want_sig, why, whylen) != 0)
        return -1;
    memset(&view, 0, sizeof(view));
    view.authorization = out.authorization;
    view.add_count = out.add_count;
    memcpy(view.add, out.add, sizeof(out.add));
    return check_signed_request(r, &view, want_request, why, whylen);
}

static int run_case(const char *dir, char *why, size_t whylen)
{
    char path[4096];
    raw_request r;
    json_object *ctx = NULL, *creds = NULL;
    ddb_sigv4_request req;
    ddb_sigv4_result *res = NULL;
    ddb_error err = {0};
    static const char *const expected_files[] = {
        "header-canonical-request.txt", "header-string-to-sign.txt", "header-signature.txt",
        "header-signed-request.txt"};
    char *want[4] = {NULL};
    int rc = -1;

    memset(&r, 0, sizeof(r));
    if (join(path, sizeof(path), dir, "request.txt") != 0) {
        fail(why, whylen, "path too long");
        goto done;
    }
    if (parse_request(&r, path, why, whylen) != 0)
        goto done;
    ctx = join(path, sizeof(path), dir, "context.json") ? NULL : json_object_from_file(path);
    if (ctx == NULL || !json_object_object_get_ex(ctx, "credentials", &creds)) {
        fail(why, whylen, "cannot parse %s", path);
        goto done;
    }
    for (int i = 0; i < 4; i++) {
        if (join(path, sizeof(path), dir, expected_files[i]) != 0 ||
            (want[i] = slurp(path, NULL)) == NULL) {
            fail(why, whylen, "cannot read %s", path);
            goto done;
        }
    }
    memset(&req, 0, sizeof(req));
    req.method = r.method;
    req.path = r.path;
    req.query = r.query;
    req.headers = r.headers;
    req.header_count = r.nheaders;
    req.payload = r.body;
    req.payload_len = r.body_len;
    req.access_key_id = json_str(creds, "access_key_id");
    req.secret_access_key = json_str(creds, "secret_access_key");
    req.session_token = json_str(creds, "token");
    req.region = json_str(ctx, "region");
    req.service = json_str(ctx, "service");
    if (parse_iso_time(&req.timestamp, json_str(ctx, "timestamp")) != 0) {
        fail(why, whylen, "bad timestamp in context.json");
        goto done;
    }
    req.flags = (json_flag(ctx, "normalize") ? DDB_SIGV4_NORMALIZE_PATH : 0) |
                (json_flag(ctx, "sign_body") ? DDB_SIGV4_SIGN_BODY : 0) |
                (json_flag(ctx, "omit_session_token") ? DDB_SIGV4_OMIT_SESSION_TOKEN : 0);

    if (ddb_sigv4_sign(&res, &req, &err) != 0) {
        fail(why, whylen, "sign failed: %s", err.message);
        goto done;
    }
    if (diff_text("canonical request", res->canonical_request, want[0], why, whylen) != 0 ||
        diff_text("string to sign", res->string_to_sign, want[1], why, whylen) != 0 ||
        diff_text("signature", res->signature, want[2], why, whylen) != 0 ||
        check_signed_request(&r, res, want[3], why, whylen) != 0)
        goto done;
    if (signer_case(&req, &r, want[2], want[3], why, whylen) != 0)
        goto done;
    rc = 0;
done:
    for (int i = 0; i < 4; i++)
        free(want[i]);
    json_object_put(ctx);
    ddb_sigv4_result_free(res);
    raw_request_dispose(&r);
    return rc;
}

static int is_case_dir(const struct dirent *e)
{
    char path[4096];
    struct stat st;
    if (e->d_name[0] == '.')
        return 0;
    return join(path, sizeof(path), VECTOR_DIR, e->d_name) == 0 && stat(path, &st) == 0 &&
           S_ISDIR(st.st_mode);
}

Test(sigv4, aws_c_auth_vectors)
{
    struct dirent **list = NULL;
    int n = scandir(VECTOR_DIR, &list, is_case_dir, alphasort);
    size_t failed = 0;
    ddb_buf names = DDB_BUF_INIT;

    cr_assert_gt(n, 0, "no SigV4 vector folders under %s", VECTOR_DIR);
    for (int i = 0; i < n; i++) {
        char dir[4096], why[2048];
        cr_assert_eq(join(dir, sizeof(dir), VECTOR_DIR, list[i]->d_name), 0);
        if (run_case(dir, why, sizeof(why)) != 0) {
            failed++;
            cr_log_error("SigV4 vector %s: %s", list[i]->d_name, why);
            ddb_buf_printf(&names, "%s%s", names.len ? ", " : "", list[i]->d_name);
        }
    }
    cr_log_info("SigV4 vectors: %d run, %zu failed, %d also through the kept signer", n, failed,
                g_simple_cases);
    /* the vanilla GETs and POSTs, header case and order, the session tokens */
    cr_expect_geq(g_simple_cases, 9, "only %d vectors were simple enough for the kept signer",
                  g_simple_cases);
    for (int i = 0; i < n; i++)
        free(list[i]);
    free(list);
    cr_expect_eq(failed, 0, "%zu of %d SigV4 vectors failed: %s", failed, n,
                 names.ptr ? names.ptr : "");
    ddb_buf_dispose(&names);
}
