#include "ddbpipe/error.h"

#include <stdio.h>
#include <string.h>

int ddb_error_vset(ddb_error *err, int code, const char *fmt, va_list ap)
{
    if (err == NULL)
        return code;
    err->code = code;
    vsnprintf(err->message, sizeof(err->message), fmt, ap);
    return code;
}

int ddb_error_set(ddb_error *err, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ddb_error_vset(err, code, fmt, ap);
    va_end(ap);
    return code;
}

int ddb_error_prefix(ddb_error *err, const char *fmt, ...)
{
    char prefix[DDB_ERROR_MAX];
    char old[DDB_ERROR_MAX];
    va_list ap;

    if (err == NULL)
        return DDB_ERROR;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof(prefix), fmt, ap);
    va_end(ap);
    memcpy(old, err->message, sizeof(old));
    {
        size_t pl = strnlen(prefix, sizeof(err->message) - 1);
        size_t ol = strnlen(old, sizeof(old));
        memcpy(err->message, prefix, pl);
        if (ol > sizeof(err->message) - 1 - pl)
            ol = sizeof(err->message) - 1 - pl;
        memcpy(err->message + pl, old, ol);
        err->message[pl + ol] = '\0';
    }
    return err->code;
}

void ddb_error_clear(ddb_error *err)
{
    if (err == NULL)
        return;
    err->code = DDB_OK;
    err->message[0] = '\0';
}

const char *ddb_error_code_name(int code)
{
    switch (code) {
    case DDB_OK:
        return "ok";
    case DDB_ENOMEM:
        return "out of memory";
    case DDB_EINVAL:
        return "invalid data";
    case DDB_EIO:
        return "I/O error";
    case DDB_ENOTFOUND:
        return "not found";
    case DDB_EVERIFY:
        return "verification failed";
    case DDB_EUSAGE:
        return "usage error";
    case DDB_ETOOBIG:
        return "too large";
    case DDB_ENOMATCH:
        return "no matching entity";
    case DDB_ENET:
        return "network error";
    case DDB_EINTR:
        return "interrupted";
    case DDB_ELIMIT:
        return "limit reached";
    case DDB_ITEROVER:
        return "end of iteration";
    default:
        return "error";
    }
}

size_t ddb_error_quote(char *dst, size_t cap, const char *s, size_t len)
{
    size_t n = len, o = 0;
    int cut = 0;

    if (cap == 0)
        return 0;
    if (n > DDB_QUOTE_MAX) {
        n = DDB_QUOTE_MAX;
        /* do not split a UTF-8 sequence */
        while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
            n--;
        cut = 1;
    }
    for (size_t i = 0; i < n && o + 1 < cap; i++) {
        unsigned char c = (unsigned char)s[i];
        dst[o++] = (c < 0x20 || c == 0x7F) ? '?' : (char)c;
    }
    if (cut)
        for (int k = 0; k < 3 && o + 1 < cap; k++)
            dst[o++] = '.';
    dst[o] = '\0';
    return o;
}
