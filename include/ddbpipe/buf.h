/*
 * buf.h — growable byte buffer used to build output lines and request bodies.
 */
#ifndef DDBPIPE_BUF_H
#define DDBPIPE_BUF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct ddb_buf {
    char *ptr; /* always NUL-terminated when cap > 0 */
    size_t len;
    size_t cap;
    int oom; /* set once an allocation failed; later appends are no-ops */
} ddb_buf;

#define DDB_BUF_INIT                                                                               \
    {                                                                                              \
        NULL, 0, 0, 0                                                                              \
    }

/* Ensures room for extra more bytes (+NUL). Returns 0 or DDB_ENOMEM (and sets b->oom). */
int ddb_buf_reserve_grow(ddb_buf *b, size_t extra);

/* ddb_buf_reserve_grow, inline while there is room already (a string or a
 * number put into a line: millions of calls an export). */
static inline int ddb_buf_reserve(ddb_buf *b, size_t extra)
{
    if (b->cap - b->len > extra && !b->oom)
        return 0;
    return ddb_buf_reserve_grow(b, extra);
}

/* Appenders: on allocation failure they set b->oom and return DDB_ENOMEM;
 * callers building a line can append freely and check b->oom once at the end. */
int ddb_buf_append_grow(ddb_buf *b, const void *data, size_t len);

/* Inline while the bytes fit (most appends: cells, names, short values);
 * ddb_buf_append_grow otherwise. */
static inline int ddb_buf_append(ddb_buf *b, const void *data, size_t len)
{
    if (b->cap - b->len > len && !b->oom) { /* cap > 0: ptr is there */
        if (len)
            memcpy(b->ptr + b->len, data, len);
        b->len += len;
        b->ptr[b->len] = '\0';
        return 0;
    }
    return ddb_buf_append_grow(b, data, len);
}
int ddb_buf_puts(ddb_buf *b, const char *s);
int ddb_buf_putc_grow(ddb_buf *b, char c);

/* Inline while there is room (every delimiter of every row); grows otherwise. */
static inline int ddb_buf_putc(ddb_buf *b, char c)
{
    if (b->cap - b->len > 1 && !b->oom) { /* cap > 0: ptr is there */
        b->ptr[b->len++] = c;
        b->ptr[b->len] = '\0';
        return 0;
    }
    return ddb_buf_putc_grow(b, c);
}
int ddb_buf_printf(ddb_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int ddb_buf_put_u64(ddb_buf *b, uint64_t v);

/* Appends standard base64 (with padding) of len bytes. */
int ddb_buf_put_base64(ddb_buf *b, const unsigned char *data, size_t len);

/* Empties the buffer, keeping its memory. */
void ddb_buf_clear(ddb_buf *b);

/* Frees the memory and resets to DDB_BUF_INIT. Accepts NULL. */
void ddb_buf_dispose(ddb_buf *b);

/* Hands the buffer's memory to the caller (free() it); b becomes empty.
 * Returns NULL when nothing was ever allocated. */
char *ddb_buf_detach(ddb_buf *b, size_t *len_out);

#endif
