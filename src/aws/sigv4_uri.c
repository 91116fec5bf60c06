/*
 * The canonical URI and query string of a SigV4 canonical request (for sigv4.c): the path's
 * segments percent-encoded (and normalized, unless S3's), the query's pairs decoded, encoded
 * again and sorted.
 */
#include "ddbpipe/sigv4.h"

#include <stdlib.h>
#include <string.h>

#include "ddbpipe/buf.h"
#include "aws/sigv4_internal.h"

int ddb_sigv4_is_unreserved(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_' || c == '.' || c == '~';
}

int ddb_sigv4_hex_value(unsigned char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static void uri_encode(ddb_buf *b, const char *s, size_t n, int keep_slash)
{
    static const char hex[] = "0123456789ABCDEF";
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (ddb_sigv4_is_unreserved(c) || (keep_slash && c == '/')) {
            ddb_buf_putc(b, (char)c);
        } else {
            char esc[3] = {'%', hex[c >> 4], hex[c & 15]};
            ddb_buf_append(b, esc, 3);
        }
    }
}

static void append_path_part(ddb_buf *b, const char *s, size_t n, unsigned flags)
{
    if (flags & DDB_SIGV4_PATH_ENCODED)
        ddb_buf_append(b, s, n);
    else
        uri_encode(b, s, n, 1);
}

int ddb_sigv4_canonical_path(ddb_buf *b, const char *path, unsigned flags)
{
    size_t len = path ? strlen(path) : 0, nseg = 0, i = 0;
    size_t(*seg)[2];

    if (len == 0)
        return ddb_buf_putc(b, '/');
    if (!(flags & DDB_SIGV4_NORMALIZE_PATH)) {
        if (path[0] != '/')
            ddb_buf_putc(b, '/');
        append_path_part(b, path, len, flags);
        return b->oom ? DDB_ENOMEM : 0;
    }
    /* A stack of segments: "." and empty segments vanish, ".." pops. */
    seg = malloc((len + 1) * sizeof(*seg));
    if (seg == NULL)
        return DDB_ENOMEM;
    while (i <= len) {
        size_t start = i;
        while (i < len && path[i] != '/')
            i++;
        size_t n = i - start;
        if (n == 2 && path[start] == '.' && path[start + 1] == '.') {
            if (nseg > 0)
                nseg--;
        } else if (n > 0 && !(n == 1 && path[start] == '.')) {
            seg[nseg][0] = start;
            seg[nseg][1] = n;
            nseg++;
        }
        i++;
    }
    for (i = 0; i < nseg; i++) {
        ddb_buf_putc(b, '/');
        append_path_part(b, path + seg[i][0], seg[i][1], flags);
    }
    if (nseg == 0 || path[len - 1] == '/')
        ddb_buf_putc(b, '/');
    free(seg);
    return b->oom ? DDB_ENOMEM : 0;
}

/* Percent-decodes then re-encodes one query key or value, so "%E1%88%B4"
 * and the raw bytes it stands for sign the same way. */
static void append_query_part(ddb_buf *b, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        int hi, lo;
        if (c == '%' && i + 2 < n && (hi = ddb_sigv4_hex_value((unsigned char)s[i + 1])) >= 0 &&
            (lo = ddb_sigv4_hex_value((unsigned char)s[i + 2])) >= 0) {
            c = (char)(hi << 4 | lo);
            i += 2;
        }
        uri_encode(b, &c, 1, 0);
    }
}

static int cmp_str_ptr(const void *a, const void *b)
{
    const char *const *x = a, *const *y = b;
    int c = strcmp(x[0], y[0]);
    return c ? c : strcmp(x[1], y[1]);
}

int ddb_sigv4_canonical_query(ddb_buf *b, const char *query)
{
    size_t n = 0, cap = 0, i;
    char **pairs = NULL; /* key, value, key, value... (encoded, NUL-terminated) */
    int rc = 0;
    const char *p = query;

    if (query == NULL || *query == '\0')
        return 0;
    for (const char *q = query; *q; q++)
        cap += *q == '&';
    cap = 2 * (cap + 1);
    pairs = calloc(cap, sizeof(*pairs));
    if (pairs == NULL)
        return DDB_ENOMEM;
    while (*p) {
        const char *end = strchr(p, '&'), *eq;
        if (end == NULL)
            end = p + strlen(p);
        if (end > p) {
            ddb_buf k = DDB_BUF_INIT, v = DDB_BUF_INIT;
            eq = memchr(p, '=', (size_t)(end - p));
            append_query_part(&k, p, (size_t)((eq ? eq : end) - p));
            if (eq)
                append_query_part(&v, eq + 1, (size_t)(end - eq - 1));
            ddb_buf_putc(&k, '\0');
            ddb_buf_putc(&v, '\0');
            pairs[n++] = k.ptr;
            pairs[n++] = v.ptr;
            if (k.oom || v.oom) {
                rc = DDB_ENOMEM;
                goto done;
            }
        }
        p = *end ? end + 1 : end;
    }
    qsort(pairs, n / 2, 2 * sizeof(*pairs), cmp_str_ptr);
    for (i = 0; i < n; i += 2) {
        if (i > 0)
            ddb_buf_putc(b, '&');
        ddb_buf_puts(b, pairs[i]);
        ddb_buf_putc(b, '=');
        ddb_buf_puts(b, pairs[i + 1]);
    }
    rc = b->oom ? DDB_ENOMEM : 0;
done:
    for (i = 0; i < n; i++)
        free(pairs[i]);
    free(pairs);
    return rc;
}
