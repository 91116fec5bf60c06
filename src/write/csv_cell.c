/*
 * csv_cell.c — a value as the text of one CSV cell (write/csv_cell.h).
 */
#include "write/csv_cell.h"

#include <string.h>

#include "ddbpipe/csv.h"
#include "ddbpipe/json.h"

int ddb_csv_cell_text(ddb_buf *b, const ddb_value *v)
{
    switch (v->type) {
    case DDB_TYPE_S:
    case DDB_TYPE_N:
        return ddb_buf_append(b, v->u.s.ptr, v->u.s.len);
    case DDB_TYPE_B:
        return ddb_buf_put_base64(b, (const unsigned char *)v->u.s.ptr, v->u.s.len);
    case DDB_TYPE_BOOL:
        return ddb_buf_puts(b, v->u.boolean ? "true" : "false");
    case DDB_TYPE_NULL:
        return ddb_buf_puts(b, "null");
    default:
        return ddb_json_put_plain_value(b, v);
    }
}

static int is_container(ddb_type t)
{
    return t == DDB_TYPE_M || t == DDB_TYPE_L || t == DDB_TYPE_SS || t == DDB_TYPE_NS ||
           t == DDB_TYPE_BS;
}

/* Appends a container's DynamoDB JSON, {"T":body}; *skip: the bytes before body. */
static int put_typed_container(ddb_buf *b, const ddb_value *v, size_t *skip)
{
    *skip = strlen(ddb_type_name(v->type)) + 4;
    return ddb_json_put_typed_value(b, v) != 0 || b->oom ? DDB_ENOMEM : 0;
}

int ddb_csv_typed_cell_text(ddb_buf *b, const ddb_value *v)
{
    size_t start = b->len, skip;
    if (!is_container(v->type))
        return ddb_csv_cell_text(b, v);
    /* {"T":body} -> body */
    if (put_typed_container(b, v, &skip) != 0)
        return DDB_ENOMEM;
    memmove(b->ptr + start, b->ptr + start + skip, b->len - start - skip - 1);
    b->len -= skip + 1;
    return 0;
}

void ddb_csv_put_cell(ddb_buf *line, ddb_buf *cell, const ddb_value *v, char delim, int typed)
{
    if ((v->type == DDB_TYPE_S || v->type == DDB_TYPE_N) && v->u.s.len > 0) {
        /* their cell text is their own text: no copy through cell */
        ddb_csv_put_field(line, v->u.s.ptr, v->u.s.len, delim, 0);
        return;
    }
    ddb_buf_clear(cell);
    if (typed && is_container(v->type)) {
        /* the body of {"T":body} as it lies, not moved to the front first */
        size_t skip;
        if (put_typed_container(cell, v, &skip) == 0)
            ddb_csv_put_field(line, cell->ptr + skip, cell->len - skip - 1, delim, 0);
        else
            line->oom = 1; /* a row a cell short must not be written */
        return;
    }
    if (typed)
        ddb_csv_typed_cell_text(cell, v);
    else
        ddb_csv_cell_text(cell, v);
    if (cell->oom) {
        line->oom = 1;
        return;
    }
    /* An empty value (string or binary) is quoted so it does not read back as "absent". */
    ddb_csv_put_field(line, cell->ptr ? cell->ptr : "", cell->len, delim, cell->len == 0);
}

size_t ddb_csv_extra_text(ddb_buf *b, const ddb_map *rec, const unsigned char *used, int plain)
{
    size_t n = 0;
    for (size_t i = 0; i < rec->count; i++) {
        if (used[i])
            continue;
        ddb_buf_putc(b, n++ ? ',' : '{');
        ddb_json_put_string(b, rec->attrs[i].name.ptr, rec->attrs[i].name.len);
        ddb_buf_putc(b, ':');
        if (plain)
            ddb_json_put_plain_value(b, &rec->attrs[i].value);
        else
            ddb_json_put_typed_value(b, &rec->attrs[i].value);
    }
    if (n)
        ddb_buf_putc(b, '}');
    return n;
}
