/*
 * The AWS CLI's INI files (config, credentials): reading them without leaving
 * copies of secrets behind, parsing them as botocore does (see awsconfig.h
 * for the syntax) and looking up a profile's keys.
 */
#include "aws/awsini.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "ddbpipe/array.h"
#include "ddbpipe/buf.h"

#define INI_MAX_BYTES (1u << 20)

static int is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

static char *trim(char *s, char *end)
{
    while (s < end && is_ws(*s))
        s++;
    while (end > s && is_ws(end[-1]))
        end--;
    *end = '\0';
    return s;
}

char *ddb_aws_xprintf(const char *fmt, ...)
{
    va_list ap;
    char *s;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || (s = malloc((size_t)n + 1)) == NULL)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

void ddb_aws_free_secret(char *s)
{
    if (s) {
        OPENSSL_cleanse(s, strlen(s));
        free(s);
    }
}

void ddb_ini_dispose(ddb_ini_file *f)
{
    for (size_t i = 0; i < f->n; i++) {
        free(f->e[i].key);
        ddb_aws_free_secret(f->e[i].value);
    }
    for (size_t i = 0; i < f->nsec; i++)
        free(f->sec[i].name);
    free(f->e);
    free(f->sec);
    free(f->path);
}

static int ini_add(ddb_ini_file *f, size_t sec, char *key, const char *value, unsigned line)
{
    ddb_ini_entry *e = ddb_array_reserve(f->e, f->n, &f->e_cap, sizeof(*e), 16);
    if (e == NULL)
        return free(key), DDB_ENOMEM;
    f->e = e;
    e[f->n] = (ddb_ini_entry){sec, key, strdup(value), line};
    for (char *p = key; *p; p++)
        *p = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
    f->n++;
    return e[f->n - 1].value ? 0 : DDB_ENOMEM;
}

/* Parses text (modified in place) into f; see awsconfig.h for the syntax. */
static int ini_parse(ddb_ini_file *f, char *text, ddb_error *err)
{
    long cur = -1, last = -1;
    int nested = 0;
    unsigned line = 0;
    char *p = text;

    if (strncmp(p, "\xEF\xBB\xBF", 3) == 0)
        p += 3;
    while (*p) {
        char *eol = strchr(p, '\n'), *raw = p, *t, *d, *close;
        line++;
        p = eol ? eol + 1 : raw + strlen(raw);
        t = trim(raw, eol ? eol : p);
        if (*t == '\0' || *t == '#' || *t == ';')
            continue;
        if (t != raw && last >= 0) { /* indented: continues the last key */
            ddb_ini_entry *pe = &f->e[last];
            if (nested) {
                if ((d = strchr(t, '=')) == NULL)
                    goto syntax;
                char *sub = trim(t, d), *val = trim(d + 1, d + 1 + strlen(d + 1));
                char *key = ddb_aws_xprintf("%s.%s", pe->key, sub);
                if (key == NULL || ini_add(f, (size_t)cur, key, val, line) != 0)
                    return ddb_error_set(err, DDB_ENOMEM, "out of memory");
            } else {
                char *v = ddb_aws_xprintf("%s %s", pe->value, t);
                if (v == NULL)
                    return ddb_error_set(err, DDB_ENOMEM, "out of memory");
                ddb_aws_free_secret(pe->value);
                pe->value = v;
            }
            continue;
        }
        if (*t == '[') {
            ddb_ini_section *s;
            if ((close = strrchr(t, ']')) == NULL)
                return ddb_error_set(err, DDB_EINVAL, "%s:%u: '[' without a closing ']'", f->path,
                                     line);
            t = trim(t + 1, close);
            for (size_t i = 0; i < f->nsec; i++)
                if (strcmp(f->sec[i].name, t) == 0)
                    return ddb_error_set(err, DDB_EINVAL,
                                         "%s:%u: duplicate section [%s] (first at line %u)",
                                         f->path, line, t, f->sec[i].line);
            if (*t == '\0')
                return ddb_error_set(err, DDB_EINVAL, "%s:%u: empty section name", f->path, line);
            if ((s = ddb_array_reserve(f->sec, f->nsec, &f->sec_cap, sizeof(*s), 8)) == NULL)
                return ddb_error_set(err, DDB_ENOMEM, "out of memory");
            f->sec = s;
            s[f->nsec] = (ddb_ini_section){strdup(t), line};
            if (s[f->nsec].name == NULL)
                return ddb_error_set(err, DDB_ENOMEM, "out of memory");
            cur = (long)f->nsec++;
            last = -1;
            continue;
        }
        if (cur < 0)
            return ddb_error_set(err, DDB_EINVAL, "%s:%u: '%.40s' is outside any [section]",
                                 f->path, line, t);
        d = t + strcspn(t, "=:");
        if (*d == '\0' || d == t)
            goto syntax;
        char *val = trim(d + 1, d + 1 + strlen(d + 1)), *key = trim(t, d);
        for (size_t i = 0; i < f->n; i++)
            if (f->e[i].section == (size_t)cur && strcasecmp(f->e[i].key, key) == 0)
                return ddb_error_set(err, DDB_EINVAL,
                                     "%s:%u: duplicate key '%s' in [%s] (first at line %u)",
                                     f->path, line, key, f->sec[cur].name, f->e[i].line);
        if ((key = strdup(key)) == NULL || ini_add(f, (size_t)cur, key, val, line) != 0)
            return ddb_error_set(err, DDB_ENOMEM, "out of memory");
        last = (long)f->n - 1;
        nested = *val == '\0';
    }
    return 0;
syntax:
    return ddb_error_set(err, DDB_EINVAL, "%s:%u: expected 'key = value' or '[section]'", f->path,
                         line);
}

int ddb_ini_load(ddb_ini_file *f, ddb_error *err)
{
    ddb_buf b = DDB_BUF_INIT;
    int fd, rc = 0;
    ssize_t got;
    struct stat st;

    if (f->path == NULL)
        return 0;
    if ((fd = open(f->path, O_RDONLY | O_CLOEXEC)) < 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            return 0;
        return ddb_error_set(err, DDB_EIO, "%s: %s", f->path, strerror(errno));
    }
    /* One allocation, so no realloc leaves a copy of the keys behind. */
    if (fstat(fd, &st) == 0 && st.st_size > 0 && st.st_size <= INI_MAX_BYTES &&
        ddb_buf_reserve(&b, (size_t)st.st_size + 4096) != 0)
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
    while (rc == 0) {
        if (ddb_buf_reserve(&b, 4096) != 0) {
            rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        } else if ((got = read(fd, b.ptr + b.len, 4096)) < 0) {
            if (errno != EINTR)
                rc = ddb_error_set(err, DDB_EIO, "%s: %s", f->path, strerror(errno));
        } else if (got == 0) {
            break;
        } else if ((b.len += (size_t)got) > INI_MAX_BYTES) {
            rc =
                ddb_error_set(err, DDB_ETOOBIG, "%s: larger than %u bytes", f->path, INI_MAX_BYTES);
        }
    }
    close(fd);
    if (rc == 0) {
        b.ptr[b.len] = '\0';
        if (memchr(b.ptr, '\0', b.len) != NULL)
            rc = ddb_error_set(err, DDB_EINVAL, "%s: contains a NUL byte", f->path);
        else if ((rc = ini_parse(f, b.ptr, err)) == 0)
            f->present = 1;
    }
    if (b.ptr)
        OPENSSL_cleanse(b.ptr, b.cap);
    ddb_buf_dispose(&b);
    return rc;
}

/* Config files name profiles [default] and [profile NAME] (services:
 * [services NAME]); credentials files name them [NAME]. */
static int section_is(const ddb_ini_file *f, size_t i, int config, const char *kind,
                      const char *name)
{
    const char *s = f->sec[i].name;
    size_t k = strlen(kind), n = strlen(name);
    if (!config)
        return strcmp(s, name) == 0;
    if (strcmp(kind, "profile") == 0 && strcmp(s, "default") == 0)
        return strcmp(name, "default") == 0;
    if (strncmp(s, kind, k) != 0 || !is_ws(s[k]))
        return 0;
    for (s += k; is_ws(*s); s++)
        ;
    if (*s == '"' && strlen(s) == n + 2 && s[n + 1] == '"')
        s++;
    return strncmp(s, name, n) == 0 && (s[n] == '\0' || s[n] == '"');
}

int ddb_ini_has(const ddb_ini_file *f, int config, const char *kind, const char *name)
{
    for (size_t i = 0; i < f->nsec; i++)
        if (section_is(f, i, config, kind, name))
            return 1;
    return 0;
}

const char *ddb_ini_get_at(const ddb_ini_file *f, int config, const char *kind, const char *name,
                           const char *key, unsigned *line)
{
    const char *v = NULL;
    for (size_t i = 0; i < f->n; i++)
        if (strcmp(f->e[i].key, key) == 0 && section_is(f, f->e[i].section, config, kind, name)) {
            v = f->e[i].value;
            *line = f->e[i].line;
        }
    return v;
}

const char *ddb_ini_get(const ddb_ini_file *f, int config, const char *kind, const char *name,
                        const char *key)
{
    unsigned line;
    return ddb_ini_get_at(f, config, kind, name, key, &line);
}
