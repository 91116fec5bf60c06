/*
 * JSON writers: DynamoDB JSON (typed) and plain JSON, appended to a ddb_buf.
 * Appenders record allocation failure in the buffer (b->oom), so callers
 * check once per line instead of after every fragment.
 */
#include "ddbpipe/json.h"

#include <string.h>

#include "ddbpipe/number.h"

/* Bytes that need an escape in a JSON string: control characters, '"' and '\\'. */
static const unsigned char needs_escape[256] = {
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0,
};

int ddb_json_put_string(ddb_buf *b, const char *s, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    size_t i = 0;

    if (ddb_buf_reserve(b, len + 2) != 0)
        return DDB_ENOMEM;
    b->ptr[b->len++] = '"';
    while (i < len) {
        size_t run = i;
        while (i < len && !needs_escape[(unsigned char)s[i]])
            i++;
        if (i > run)
            ddb_buf_append(b, s + run, i - run);
        if (i >= len)
            break;
        switch (s[i]) {
        case '"':
            ddb_buf_append(b, "\\\"", 2);
            break;
        case '\\':
            ddb_buf_append(b, "\\\\", 2);
            break;
        case '\n':
            ddb_buf_append(b, "\\n", 2);
            break;
        case '\r':
            ddb_buf_append(b, "\\r", 2);
            break;
        case '\t':
            ddb_buf_append(b, "\\t", 2);
            break;
        case '\b':
            ddb_buf_append(b, "\\b", 2);
            break;
        case '\f':
            ddb_buf_append(b, "\\f", 2);
            break;
        default: {
            char u[6] = {'\\', 'u', '0', '0', hex[(unsigned char)s[i] >> 4],
                         hex[(unsigned char)s[i] & 15]};
            ddb_buf_append(b, u, 6);
            break;
        }
        }
        i++;
    }
    ddb_buf_putc(b, '"');
    return b->oom ? DDB_ENOMEM : 0;
}

static void put_b64_string(ddb_buf *b, const ddb_str *bytes)
{
    ddb_buf_putc(b, '"');
    ddb_buf_put_base64(b, (const unsigned char *)bytes->ptr, bytes->len);
    ddb_buf_putc(b, '"');
}

static void put_members(ddb_buf *b, const ddb_value *v)
{
    ddb_buf_putc(b, '[');
    for (size_t i = 0; i < v->u.l.count; i++) {
        const ddb_value *m = &v->u.l.items[i];
        if (i)
            ddb_buf_putc(b, ',');
        if (v->type == DDB_TYPE_L)
            ddb_json_put_typed_value(b, m);
        else if (v->type == DDB_TYPE_BS)
            put_b64_string(b, &m->u.s);
        else
            ddb_json_put_string(b, m->u.s.ptr, m->u.s.len);
    }
    ddb_buf_putc(b, ']');
}

int ddb_json_put_typed_value(ddb_buf *b, const ddb_value *v)
{
    ddb_buf_append(b, "{\"", 2);
    ddb_buf_puts(b, ddb_type_name(v->type));
    ddb_buf_append(b, "\":", 2);
    switch (v->type) {
    case DDB_TYPE_S:
    case DDB_TYPE_N:
        ddb_json_put_string(b, v->u.s.ptr, v->u.s.len);
        break;
    case DDB_TYPE_B:
        put_b64_string(b, &v->u.s);
        break;
    case DDB_TYPE_BOOL:
        ddb_buf_puts(b, v->u.boolean ? "true" : "false");
        break;
    case DDB_TYPE_NULL:
        ddb_buf_puts(b, "true");
        break;
    case DDB_TYPE_M:
        ddb_json_put_typed_map(b, &v->u.m);
        break;
    default:
        put_members(b, v);
        break;
    }
    ddb_buf_putc(b, '}');
    return b->oom ? DDB_ENOMEM : 0;
}

/* {"name":<value>,...} with each value written by put. */
static int put_map(ddb_buf *b, const ddb_map *m, int (*put)(ddb_buf *, const ddb_value *))
{
    ddb_buf_putc(b, '{');
    for (size_t i = 0; i < m->count; i++) {
        if (i)
            ddb_buf_putc(b, ',');
        ddb_json_put_string(b, m->attrs[i].name.ptr, m->attrs[i].name.len);
        ddb_buf_putc(b, ':');
        put(b, &m->attrs[i].value);
    }
    ddb_buf_putc(b, '}');
    return b->oom ? DDB_ENOMEM : 0;
}

int ddb_json_put_typed_map(ddb_buf *b, const ddb_map *m)
{
    return put_map(b, m, ddb_json_put_typed_value);
}

static void put_plain_number(ddb_buf *b, const ddb_str *text)
{
    ddb_number n;
    if (ddb_json_is_number(text->ptr, text->len)) {
        ddb_buf_append(b, text->ptr, text->len);
        return;
    }
    /* DynamoDB accepts "+5", ".5" and "5." which JSON does not: write the same
     * value in canonical form rather than emit invalid JSON. */
    if (ddb_number_parse(&n, text->ptr, text->len, NULL) == 0)
        ddb_number_format(b, &n);
    else
        ddb_json_put_string(b, text->ptr, text->len); /* not a number at all: keep the text */
}

int ddb_json_put_plain_value(ddb_buf *b, const ddb_value *v)
{
    switch (v->type) {
    case DDB_TYPE_S:
        ddb_json_put_string(b, v->u.s.ptr, v->u.s.len);
        break;
    case DDB_TYPE_N:
        put_plain_number(b, &v->u.s);
        break;
    case DDB_TYPE_B:
        put_b64_string(b, &v->u.s);
        break;
    case DDB_TYPE_BOOL:
        ddb_buf_puts(b, v->u.boolean ? "true" : "false");
        break;
    case DDB_TYPE_NULL:
        ddb_buf_puts(b, "null");
        break;
    case DDB_TYPE_M:
        ddb_json_put_plain_map(b, &v->u.m);
        break;
    default:
        ddb_buf_putc(b, '[');
        for (size_t i = 0; i < v->u.l.count; i++) {
            if (i)
                ddb_buf_putc(b, ',');
            ddb_json_put_plain_value(b, &v->u.l.items[i]);
        }
        ddb_buf_putc(b, ']');
        break;
    }
    return b->oom ? DDB_ENOMEM : 0;
}

int ddb_json_put_plain_map(ddb_buf *b, const ddb_map *m)
{
    return put_map(b, m, ddb_json_put_plain_value);
}
