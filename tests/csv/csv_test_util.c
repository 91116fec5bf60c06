#include "csv_test_util.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include "ddbpipe/source.h"

typedef struct chunk_source {
    ddb_source base;
    const unsigned char *data;
    size_t len;
    size_t pos;
    size_t chunk;
} chunk_source;

static ssize_t chunk_read(ddb_source *src, void *buf, size_t len, ddb_error *err)
{
    chunk_source *c = (chunk_source *)src;
    size_t n = c->len - c->pos;

    (void)err;
    if (n > c->chunk)
        n = c->chunk;
    if (n > len)
        n = len;
    memcpy(buf, c->data + c->pos, n);
    c->pos += n;
    return (ssize_t)n;
}

static void chunk_free(ddb_source *src)
{
    (void)src;
}

static const ddb_source_vtable chunk_vtable = {chunk_read, chunk_free, NULL};

ddb_source *chunk_source_new(const void *data, size_t len, size_t chunk)
{
    chunk_source *c = calloc(1, sizeof(*c));

    cr_assert_not_null(c);
    c->base.vt = &chunk_vtable;
    c->base.name = strdup("chunked");
    cr_assert_not_null(c->base.name);
    c->data = data;
    c->len = len;
    c->chunk = chunk;
    return &c->base;
}

ddb_csv *csv_over(const void *data, size_t len, size_t chunk, char delim, size_t max_row)
{
    ddb_source *src = NULL;
    ddb_csv *p = NULL;
    ddb_error err = {0};

    if (chunk == 0)
        cr_assert_eq(ddb_source_new_memory(&src, data, len, "mem", &err), 0, "%s", err.message);
    else
        src = chunk_source_new(data, len, chunk);
    cr_assert_eq(ddb_csv_new(&p, src, delim, max_row, &err), 0, "%s", err.message);
    return p;
}

static void put_escaped(ddb_buf *out, const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c >= 0x7f || c == '\\' || c == '<' || c == '>')
            ddb_buf_printf(out, "\\x%02x", c);
        else
            ddb_buf_putc(out, (char)c);
    }
}

void csv_dump(ddb_buf *out, ddb_csv *p)
{
    ddb_csv_row row;
    ddb_error err = {0};
    int rc, calls = 0;

    ddb_buf_clear(out);
    while ((rc = ddb_csv_next(p, &row, &err)) != DDB_ITEROVER) {
        cr_assert(++calls < 1000000, "parser does not end");
        ddb_buf_printf(out, "rc=%d line=%llu off=%llu raw=<", rc, (unsigned long long)row.line,
                       (unsigned long long)row.offset);
        put_escaped(out, row.raw, row.raw_len);
        ddb_buf_puts(out, ">");
        for (size_t k = 0; k < row.count; k++) {
            ddb_buf_puts(out, row.fields[k].quoted ? " q<" : " u<");
            put_escaped(out, row.fields[k].ptr, row.fields[k].len);
            ddb_buf_puts(out, ">");
        }
        if (rc != 0)
            ddb_buf_printf(out, " err=%s", err.message);
        ddb_buf_putc(out, '\n');
    }
    cr_assert(!out->oom);
}

ddb_csv_row csv_expect_row(ddb_csv *p, size_t count, const char *const *want)
{
    ddb_csv_row row;
    ddb_error err = {0};
    int rc = ddb_csv_next(p, &row, &err);

    cr_assert_eq(rc, 0, "rc %d: %s", rc, err.message);
    cr_assert_eq(row.count, count, "line %llu: %zu fields, want %zu", (unsigned long long)row.line,
                 row.count, count);
    for (size_t k = 0; k < count; k++) {
        size_t wl = strlen(want[k]);
        cr_assert_eq(row.fields[k].len, wl, "field %zu: length %zu, want %zu (%s)", k,
                     row.fields[k].len, wl, want[k]);
        cr_assert(memcmp(row.fields[k].ptr, want[k], wl) == 0, "field %zu: got '%.*s' want '%s'", k,
                  (int)row.fields[k].len, row.fields[k].ptr, want[k]);
    }
    return row;
}
