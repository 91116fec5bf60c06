/*
 * ddbpipe-canon (test tool): prints each item of DynamoDB JSON inputs on one
 * line in a canonical form — attributes and map keys sorted bytewise, numbers
 * in canonical text, set members sorted — so two dumps of the same items can
 * be compared with sort and diff whatever the attribute order and whatever
 * number spelling the server returned.
 *   ddbpipe-canon FILE...   (any format ddbpipe reads; - for stdin)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/json.h"
#include "ddbpipe/number.h"
#include "ddbpipe/reader.h"

static void put_value(ddb_buf *b, const ddb_value *v);

static int cmp_attr(const void *a, const void *b)
{
    const ddb_attr *x = a, *y = b;
    size_t n = x->name.len < y->name.len ? x->name.len : y->name.len;
    int c = memcmp(x->name.ptr, y->name.ptr, n);
    return c ? c : (x->name.len > y->name.len) - (x->name.len < y->name.len);
}

static void put_map(ddb_buf *b, const ddb_map *m)
{
    ddb_attr *sorted = malloc((m->count ? m->count : 1) * sizeof(*sorted));
    memcpy(sorted, m->attrs, m->count * sizeof(*sorted));
    qsort(sorted, m->count, sizeof(*sorted), cmp_attr);
    ddb_buf_putc(b, '{');
    for (size_t i = 0; i < m->count; i++) {
        if (i)
            ddb_buf_putc(b, ',');
        ddb_json_put_string(b, sorted[i].name.ptr, sorted[i].name.len);
        ddb_buf_putc(b, ':');
        put_value(b, &sorted[i].value);
    }
    ddb_buf_putc(b, '}');
    free(sorted);
}

static void put_number(ddb_buf *b, const ddb_str *s)
{
    ddb_number n;
    if (ddb_number_parse(&n, s->ptr, s->len, NULL) == 0)
        ddb_number_format(b, &n);
    else
        ddb_buf_append(b, s->ptr, s->len);
}

static int cmp_str(const void *a, const void *b)
{
    const char *const *x = a, *const *y = b;
    return strcmp(*x, *y);
}

static void put_value(ddb_buf *b, const ddb_value *v)
{
    ddb_buf_printf(b, "{\"%s\":", ddb_type_name(v->type));
    switch (v->type) {
    case DDB_TYPE_N:
        ddb_buf_putc(b, '"');
        put_number(b, &v->u.s);
        ddb_buf_putc(b, '"');
        break;
    case DDB_TYPE_M:
        put_map(b, &v->u.m);
        break;
    case DDB_TYPE_SS:
    case DDB_TYPE_NS:
    case DDB_TYPE_BS: {
        char **members = calloc(v->u.l.count + 1, sizeof(char *));
        for (size_t i = 0; i < v->u.l.count; i++) {
            ddb_buf m = DDB_BUF_INIT;
            if (v->type == DDB_TYPE_NS)
                put_number(&m, &v->u.l.items[i].u.s);
            else
                ddb_json_put_typed_value(&m, &v->u.l.items[i]);
            members[i] = ddb_buf_detach(&m, NULL);
        }
        qsort(members, v->u.l.count, sizeof(char *), cmp_str);
        ddb_buf_putc(b, '[');
        for (size_t i = 0; i < v->u.l.count; i++) {
            ddb_buf_printf(b, "%s\"%s\"", i ? "," : "", members[i]);
            free(members[i]);
        }
        ddb_buf_putc(b, ']');
        free(members);
        break;
    }
    case DDB_TYPE_L:
        ddb_buf_putc(b, '[');
        for (size_t i = 0; i < v->u.l.count; i++) {
            if (i)
                ddb_buf_putc(b, ',');
            put_value(b, &v->u.l.items[i]);
        }
        ddb_buf_putc(b, ']');
        break;
    default: {
        ddb_buf t = DDB_BUF_INIT;
        ddb_json_put_typed_value(&t, v);
        /* strip the {"T": prefix and the closing brace */
        const char *colon = strchr(t.ptr, ':');
        ddb_buf_append(b, colon + 1, t.len - (size_t)(colon + 1 - t.ptr) - 1);
        ddb_buf_dispose(&t);
        break;
    }
    }
    ddb_buf_putc(b, '}');
}

int main(int argc, char **argv)
{
    ddb_buf line = DDB_BUF_INIT;
    int status = 0;
    for (int i = 1; i < argc; i++) {
        ddb_reader *r = NULL;
        ddb_reader_opts o;
        ddb_error err;
        ddb_record *rec;
        int rc;
        memset(&o, 0, sizeof(o));
        o.format = DDB_IN_DDBJSON;
        if (ddb_reader_open(&r, argv[i], &o, &err) != 0) {
            fprintf(stderr, "ddbpipe-canon: %s\n", err.message);
            return 2;
        }
        while ((rc = ddb_reader_next(r, &rec, &err)) == 0) {
            if (rec->kind == DDB_REC_BAD) {
                fprintf(stderr, "ddbpipe-canon: %s:%llu: %s\n", argv[i],
                        (unsigned long long)rec->line, rec->reason);
                status = 1;
                continue;
            }
            ddb_buf_clear(&line);
            if (rec->kind == DDB_REC_DELETE)
                ddb_buf_puts(&line, "DELETE ");
            put_map(&line, &rec->item);
            ddb_buf_putc(&line, '\n');
            fwrite(line.ptr, 1, line.len, stdout);
        }
        if (rc != DDB_ITEROVER) {
            fprintf(stderr, "ddbpipe-canon: %s\n", err.message);
            status = 1;
        }
        ddb_reader_free(r);
    }
    ddb_buf_dispose(&line);
    return status;
}
