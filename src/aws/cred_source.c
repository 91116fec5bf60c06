/*
 * Credential sources: the fetch dispatch, the refresh window, and the small
 * helpers every provider shares (times, token files, redaction).
 */
#include "aws/cred_source.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "aws/awsini.h"

#define TOKEN_FILE_MAX (64u << 10)
#define REFRESH_AHEAD_MS (5 * 60 * 1000LL)

ddb_cred_source *ddb_cred_source_new(ddb_cred_kind kind, const char *label)
{
    ddb_cred_source *s = calloc(1, sizeof(*s));
    if (s == NULL || (s->label = strdup(label)) == NULL) {
        free(s);
        return NULL;
    }
    s->kind = kind;
    return s;
}

void ddb_cred_source_free(ddb_cred_source *s)
{
    while (s) {
        ddb_cred_source *next = s->source;
        ddb_aws_credentials_free(s->keys);
        ddb_aws_credentials_free(s->cached);
        free(s->label);
        free(s->command);
        free(s->sts_url);
        free(s->sts_region);
        free(s->role_arn);
        free(s->session_name);
        free(s->external_id);
        free(s->token_file);
        free(s->sso_url);
        free(s->sso_cache_file);
        free(s->sso_account);
        free(s->sso_role);
        free(s->sso_login_hint);
        free(s->url);
        ddb_aws_free_secret(s->auth_token);
        free(s->auth_token_file);
        free(s);
        s = next;
    }
}

int64_t ddb_cred_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t ddb_cred_refresh_at_ms(time_t expiration, int64_t obtained_ms)
{
    int64_t exp_ms = (int64_t)expiration * 1000, ahead;
    if (expiration == 0)
        return INT64_MAX;
    ahead = (exp_ms - obtained_ms) / 2;
    if (ahead > REFRESH_AHEAD_MS)
        ahead = REFRESH_AHEAD_MS;
    if (ahead < 0)
        ahead = 0;
    return exp_ms - ahead;
}

/* The keys an assume-role source calls STS with: its source's cached ones
 * while they are good, else fresh ones. */
static int source_current(const ddb_aws_credentials **out, ddb_cred_source *s,
                          const ddb_cred_call *call, ddb_error *err)
{
    ddb_aws_credentials *fresh = NULL;
    int64_t now = ddb_cred_now_ms();
    int rc;

    if (s->cached && now < ddb_cred_refresh_at_ms(s->cached->expiration, s->cached_at_ms)) {
        *out = s->cached;
        return 0;
    }
    if ((rc = ddb_cred_fetch(&fresh, s, call, err)) != 0)
        return rc;
    ddb_aws_credentials_free(s->cached);
    s->cached = fresh;
    s->cached_at_ms = now;
    *out = fresh;
    return 0;
}

int ddb_cred_fetch(ddb_aws_credentials **out, ddb_cred_source *s, const ddb_cred_call *call,
                   ddb_error *err)
{
    const ddb_aws_credentials *with = NULL;
    int rc;

    *out = NULL;
    switch (s->kind) {
    case DDB_CRED_STATIC:
        return ddb_cred_make(out, s->keys->access_key_id, s->keys->secret_access_key,
                             s->keys->session_token, s->keys->expiration, strdup(s->label), err);
    case DDB_CRED_PROCESS:
        return ddb_process_fetch(out, s, err);
    case DDB_CRED_WEB_IDENTITY:
        return ddb_sts_assume_role_with_web_identity(out, s, call, err);
    case DDB_CRED_ASSUME_ROLE:
        if ((rc = source_current(&with, s->source, call, err)) != 0)
            return ddb_error_prefix(err, "%s: its source credentials: ", s->label);
        return ddb_sts_assume_role(out, s, with, call, err);
    case DDB_CRED_SSO:
        return ddb_sso_fetch(out, s, call, err);
    case DDB_CRED_CONTAINER:
        return ddb_container_fetch(out, s, call, err);
    case DDB_CRED_IMDS:
        return ddb_imds_fetch(out, s, call, err);
    }
    return ddb_error_set(err, DDB_ERROR, "unknown credential source");
}

int ddb_cred_make(ddb_aws_credentials **out, const char *id, const char *secret, const char *token,
                  time_t expiration, char *source, ddb_error *err)
{
    ddb_aws_credentials *c = calloc(1, sizeof(*c));
    *out = NULL;
    if (c == NULL || source == NULL || (c->access_key_id = strdup(id)) == NULL ||
        (c->secret_access_key = strdup(secret)) == NULL ||
        (token && *token && (c->session_token = strdup(token)) == NULL)) {
        if (c)
            c->source = source;
        else
            free(source);
        ddb_aws_credentials_free(c);
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    }
    c->expiration = expiration;
    c->source = source;
    *out = c;
    return 0;
}

int ddb_cred_percent_encode(ddb_buf *b, const char *value)
{
    static const char hex[] = "0123456789ABCDEF";
    for (const unsigned char *p = (const unsigned char *)value; *p; p++) {
        if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
            *p == '-' || *p == '_' || *p == '.' || *p == '~') {
            ddb_buf_putc(b, (char)*p);
        } else {
            char e[3] = {'%', hex[*p >> 4], hex[*p & 15]};
            ddb_buf_append(b, e, 3);
        }
    }
    return b->oom ? DDB_ENOMEM : 0;
}

int ddb_cred_parse_time(time_t *out, const char *s)
{
    struct tm tm;
    int n = 0, oh = 0, om = 0;
    memset(&tm, 0, sizeof(tm));
    if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
               &tm.tm_min, &tm.tm_sec, &n) != 6 ||
        n != 19)
        return -1;
    s += n;
    if (*s == '.')
        for (s++; *s >= '0' && *s <= '9'; s++)
            ;
    if ((*s == '+' || *s == '-') && sscanf(s + 1, "%2d:%2d%n", &oh, &om, &n) == 2 && n == 5 &&
        s[6] == '\0')
        om = (*s == '-' ? -1 : 1) * (oh * 60 + om);
    else if (strcmp(s, "Z") != 0 && strcmp(s, "z") != 0 && strcmp(s, "UTC") != 0)
        return -1;
    else
        om = 0;
    if (tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 ||
        tm.tm_min > 59 || tm.tm_sec > 60)
        return -1;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    *out = timegm(&tm) - (time_t)om * 60;
    return 0;
}

void ddb_cred_format_time(char *out, size_t cap, time_t t)
{
    struct tm tm;
    if (cap == 0)
        return;
    if (gmtime_r(&t, &tm) == NULL || strftime(out, cap, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
        snprintf(out, cap, "?");
}

void ddb_cred_redact(char *buf, const char *const *secrets, size_t count)
{
    for (size_t i = 0; buf && i < count; i++) {
        size_t n = secrets[i] ? strlen(secrets[i]) : 0;
        char *p;
        if (n < 4) /* absent, or too short to be a secret: redacting it would garble the text */
            continue;
        while ((p = strstr(buf, secrets[i])) != NULL) {
            memcpy(p, "****", 4);
            memmove(p + 4, p + n, strlen(p + n) + 1);
        }
    }
}

int ddb_cred_read_token_file(char **out, const char *path, const char *what, ddb_error *err)
{
    char *buf = NULL;
    size_t len = 0;
    ssize_t got;
    int fd, rc = 0;

    *out = NULL;
    if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
        return ddb_error_set(err, DDB_EIO, "cannot read the %s %s: %s", what, path,
                             strerror(errno));
    /* One allocation of the largest allowed size: no realloc leaves a copy. */
    if ((buf = malloc(TOKEN_FILE_MAX + 1)) == NULL) {
        close(fd);
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    }
    while ((got = read(fd, buf + len, TOKEN_FILE_MAX + 1 - len)) != 0) {
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            rc = ddb_error_set(err, DDB_EIO, "cannot read the %s %s: %s", what, path,
                               strerror(errno));
            break;
        }
        if ((len += (size_t)got) > TOKEN_FILE_MAX) {
            rc = ddb_error_set(err, DDB_ETOOBIG, "the %s %s is larger than %u bytes", what, path,
                               TOKEN_FILE_MAX);
            break;
        }
    }
    close(fd);
    if (rc == 0) {
        while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r' || buf[len - 1] == ' ' ||
                           buf[len - 1] == '\t'))
            len--;
        buf[len] = '\0';
        if (len == 0)
            rc = ddb_error_set(err, DDB_EIO, "the %s %s is empty", what, path);
        else if (memchr(buf, '\0', len) != NULL)
            rc = ddb_error_set(err, DDB_EIO, "the %s %s holds a NUL byte", what, path);
    }
    if (rc != 0) {
        OPENSSL_cleanse(buf, TOKEN_FILE_MAX + 1);
        free(buf);
        return rc;
    }
    *out = buf;
    return 0;
}
