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

int ddb_csv_typed_cell_text(ddb_buf *b, const ddb_value *v)
{
    if (!is_container(v->type))
        return ddb_csv_cell_text(b, v);
    /* {"T":body} -> body */
    return ddb_json_put_typed_body(b, v);
}

/*
 * Does v's cell text hold a quote for certain, so that its field is always
 * quoted? A map's, list's or set's DynamoDB JSON that is not empty does
 * ({"T": or a string in each member); as plain JSON, a map's (its names)
 * and a string or binary set's do, but a list or number set may be all
 * numbers and booleans.
 */
static int always_quoted(const ddb_value *v, int typed)
{
    switch (v->type) {
    case DDB_TYPE_M:
        return v->u.m.count > 0;
    case DDB_TYPE_SS:
    case DDB_TYPE_BS:
        return v->u.l.count > 0;
    case DDB_TYPE_L:
    case DDB_TYPE_NS:
        return typed && v->u.l.count > 0;
    default:
        return 0;
    }
}

/* v's field when always_quoted: its JSON written into it with the quotes
 * doubled as it goes, what ddb_csv_put_field would make of the text. */
static void put_json_field(ddb_buf *line, const ddb_value *v, int typed)
{
    ddb_buf_putc(line, '"');
    if (typed)
        ddb_json_put_typed_body_dq(line, v);
    else
        ddb_json_put_plain_value_dq(line, v);
    ddb_buf_putc(line, '"');
}

void ddb_csv_put_cell(ddb_buf *line, ddb_buf *cell, const ddb_value *v, char delim, int typed)
{
    if ((v->type == DDB_TYPE_S || v->type == DDB_TYPE_N) && v->u.s.len > 0) {
        /* their cell text is their own text: no copy through cell */
        ddb_csv_put_field(line, v->u.s.ptr, v->u.s.len, delim, 0);
        return;
    }
    if (always_quoted(v, typed)) {
        put_json_field(line, v, typed);
        return;
    }
    ddb_buf_clear(cell);
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

/* The _extra object (see ddb_csv_extra_text), its quotes doubled when dq. */
static size_t extra_text(ddb_buf *b, const ddb_map *rec, const unsigned char *used, int plain,
                         int dq)
{
    size_t n = 0;
    for (size_t i = 0; i < rec->count; i++) {
        const ddb_value *v = &rec->attrs[i].value;
        if (used[i])
            continue;
        ddb_buf_putc(b, n++ ? ',' : '{');
        if (dq) {
            ddb_json_put_string_dq(b, rec->attrs[i].name.ptr, rec->attrs[i].name.len);
            ddb_buf_putc(b, ':');
            plain ? ddb_json_put_plain_value_dq(b, v) : ddb_json_put_typed_value_dq(b, v);
        } else {
            ddb_json_put_string(b, rec->attrs[i].name.ptr, rec->attrs[i].name.len);
            ddb_buf_putc(b, ':');
            plain ? ddb_json_put_plain_value(b, v) : ddb_json_put_typed_value(b, v);
        }
    }
    if (n)
        ddb_buf_putc(b, '}');
    return n;
}

size_t ddb_csv_extra_text(ddb_buf *b, const ddb_map *rec, const unsigned char *used, int plain)
{
    return extra_text(b, rec, used, plain, 0);
}

size_t ddb_csv_put_extra(ddb_buf *line, const ddb_map *rec, const unsigned char *used, int plain)
{
    size_t at = line->len, n;
    /* an object with a member has a quote (its name): always quoted */
    ddb_buf_putc(line, '"');
    if ((n = extra_text(line, rec, used, plain, 1)) > 0)
        ddb_buf_putc(line, '"');
    else if ((line->len = at) < line->cap)
        line->ptr[at] = '\0'; /* nothing: no cell text at all */
    return n;
}
