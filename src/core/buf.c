#include "ddbpipe/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/codec.h"
#include "ddbpipe/error.h"

int ddb_buf_reserve_grow(ddb_buf *b, size_t extra)
{
    size_t need, cap;
    char *p;

    if (b->oom)
        return DDB_ENOMEM;
    need = b->len + extra + 1;
    if (need < b->len) {
        b->oom = 1;
        return DDB_ENOMEM;
    }
    if (need <= b->cap)
        return 0;
    cap = b->cap ? b->cap : 256;
    while (cap < need)
        cap = cap * 2 > cap ? cap * 2 : need;
    p = realloc(b->ptr, cap);
    if (p == NULL) {
        b->oom = 1;
        return DDB_ENOMEM;
    }
    b->ptr = p;
    b->cap = cap;
    return 0;
}

int ddb_buf_append_grow(ddb_buf *b, const void *data, size_t len)
{
    if (ddb_buf_reserve(b, len) != 0)
        return DDB_ENOMEM;
    if (len)
        memcpy(b->ptr + b->len, data, len);
    b->len += len;
    b->ptr[b->len] = '\0';
    return 0;
}

int ddb_buf_puts(ddb_buf *b, const char *s)
{
    return ddb_buf_append(b, s, strlen(s));
}

int ddb_buf_putc_grow(ddb_buf *b, char c)
{
    if (b->len + 2 > b->cap && ddb_buf_reserve(b, 1) != 0)
        return DDB_ENOMEM;
    b->ptr[b->len++] = c;
    b->ptr[b->len] = '\0';
    return 0;
}

int ddb_buf_printf(ddb_buf *b, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || ddb_buf_reserve(b, (size_t)n) != 0)
        return DDB_ENOMEM;
    va_start(ap, fmt);
    vsnprintf(b->ptr + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
    return 0;
}

int ddb_buf_put_u64(ddb_buf *b, uint64_t v)
{
    char tmp[24];
    size_t i = sizeof(tmp);
    do {
        tmp[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    return ddb_buf_append(b, tmp + i, sizeof(tmp) - i);
}

int ddb_buf_put_base64(ddb_buf *b, const unsigned char *data, size_t len)
{
    size_t n = ddb_base64_encoded_len(len);
    if (ddb_buf_reserve(b, n) != 0)
        return DDB_ENOMEM;
    b->len += ddb_base64_encode(b->ptr + b->len, data, len);
    b->ptr[b->len] = '\0';
    return 0;
}

void ddb_buf_clear(ddb_buf *b)
{
    b->len = 0;
    if (b->ptr)
        b->ptr[0] = '\0';
}

void ddb_buf_dispose(ddb_buf *b)
{
    if (b == NULL)
        return;
    free(b->ptr);
    b->ptr = NULL;
    b->len = b->cap = 0;
    b->oom = 0;
}

char *ddb_buf_detach(ddb_buf *b, size_t *len_out)
{
    char *p = b->ptr;
    if (len_out)
        *len_out = b->len;
    b->ptr = NULL;
    b->len = b->cap = 0;
    return p;
}
