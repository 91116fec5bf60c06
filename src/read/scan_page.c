/*
 * scan_page.c — a Scan or Query answer walked member by member, its Items
 * item by item: no tree of the page is built first, and no pass finds where
 * an item ends before it is parsed; the parser reads each item where it lies
 * and says where it ended (ddb_json_parse_item_prefix).
 */
#include "read/scan_page.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "json/json_cursor.h" /* ddb_json_value_end */

static size_t skip_ws(const char *b, size_t i, size_t len)
{
    while (i < len && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r'))
        i++;
    return i;
}

/* The error for an answer that is not the JSON of a Scan page, at byte at. */
static int unreadable(const scan_walk *w, size_t at, const char *what, ddb_error *err)
{
    return ddb_error_set(err, DDB_EINVAL, "%s of %s: unreadable response: byte %zu: %s", w->op,
                         w->table, at, what);
}

/* Room for one more item in pg->items. */
static int page_reserve(scan_page *pg)
{
    scan_item *n;
    size_t cap = pg->cap_items ? pg->cap_items * 2 : 256;
    if (pg->n_items < pg->cap_items)
        return 0;
    if ((n = realloc(pg->items, cap * sizeof(*n))) == NULL)
        return DDB_ENOMEM;
    pg->items = n;
    pg->cap_items = cap;
    return 0;
}

/* The Items array of an answer, from b[*at] (its '[') to past its ']'. */
static int parse_items(const scan_walk *w, scan_page *pg, size_t *at, size_t len, ddb_error *err)
{
    const char *b = pg->body;
    size_t i = skip_ws(b, *at + 1, len), used;
    int rc;

    if (b[*at] != '[')
        return unreadable(w, *at, "Items is not an array", err);
    if (i < len && b[i] == ']') {
        *at = i + 1;
        return 0;
    }
    for (;;) {
        i = skip_ws(b, i, len);
        if (i >= len || b[i] != '{')
            return unreadable(w, i, "an item that is not a whole JSON object", err);
        if (page_reserve(pg) != 0)
            return ddb_error_set(err, DDB_ENOMEM, "out of memory");
        if ((rc = ddb_json_parse_item_prefix(w->parser, &pg->items[pg->n_items].item, &used, b + i,
                                             len - i, pg->arena, err)) != 0)
            return ddb_error_prefix(err, "%s of %s: item %zu (byte %zu of the answer): ", w->op,
                                    w->table, pg->n_items, i);
        pg->items[pg->n_items++].names_id = ddb_json_parser_names_id(w->parser);
        i = skip_ws(b, i + used, len);
        if (i < len && b[i] == ',') {
            i++;
            continue;
        }
        if (i < len && b[i] == ']')
            break;
        return unreadable(w, i, "expected ',' or ']' after an item", err);
    }
    *at = i + 1;
    return 0;
}

/* A member of the answer other than Items and LastEvaluatedKey, b[at, end):
 * read whole (so it is checked as JSON), the gauges kept. */
static int read_member(const scan_walk *w, scan_page *pg, const ddb_value *name, size_t at,
                       size_t end, ddb_error *err)
{
    ddb_value v;
    const ddb_value *cu;
    if (ddb_json_parse_plain(w->parser, &v, pg->body + at, end - at, pg->arena, err) != 0)
        return ddb_error_prefix(err, "%s of %s: unreadable response at byte %zu: ", w->op, w->table,
                                at);
    if (name->u.s.len == 12 && memcmp(name->u.s.ptr, "ScannedCount", 12) == 0 &&
        v.type == DDB_TYPE_N)
        w->stats->scanned += strtoull(v.u.s.ptr, NULL, 10);
    if (name->u.s.len == 16 && memcmp(name->u.s.ptr, "ConsumedCapacity", 16) == 0 &&
        v.type == DDB_TYPE_M && (cu = ddb_map_getz(&v.u.m, "CapacityUnits")) != NULL &&
        cu->type == DDB_TYPE_N)
        w->stats->capacity_units += strtod(cu->u.s.ptr, NULL); /* a gauge, not data */
    return 0;
}

static int is_name(const ddb_value *name, const char *lit)
{
    size_t n = strlen(lit);
    return name->u.s.len == n && memcmp(name->u.s.ptr, lit, n) == 0;
}

/* The value of the member name, from b[*at] to past it: Items item by item,
 * the rest whole. A member named twice is refused: which one to believe
 * cannot be said. seen counts Items (bit 0) and LastEvaluatedKey (bit 1). */
static int read_value(const scan_walk *w, scan_page *pg, const ddb_value *name, size_t *at,
                      size_t len, int *seen, ddb_map *lek, ddb_error *err)
{
    const char *b = pg->body;
    size_t i = *at, end;
    int rc;

    if (is_name(name, "Items")) {
        if ((*seen & 1) || i >= len)
            return unreadable(w, i, "Items given twice, or without a value", err);
        *seen |= 1;
        return parse_items(w, pg, at, len, err);
    }
    if (i >= len || ddb_json_value_end(b, i, len, 1, &end) != 1)
        return unreadable(w, i, "expected a JSON value", err);
    if (!is_name(name, "LastEvaluatedKey"))
        rc = read_member(w, pg, name, i, end, err);
    else if (*seen & 2)
        rc = unreadable(w, i, "LastEvaluatedKey given twice", err);
    else if ((rc = ddb_json_parse_typed_map(w->parser, lek, b + i, end - i, pg->arena, err)) != 0)
        ddb_error_prefix(err, "%s of %s: unreadable LastEvaluatedKey: ", w->op, w->table);
    *seen |= 2 * is_name(name, "LastEvaluatedKey");
    *at = end;
    return rc;
}

int scan_page_parse(const scan_walk *w, scan_page *pg, size_t len, ddb_map *lek, ddb_error *err)
{
    const char *b = pg->body;
    int seen = 0;
    size_t i = skip_ws(b, 0, len), end;
    int rc;

    assert(w != NULL && pg != NULL && b != NULL && lek != NULL);
    lek->attrs = NULL;
    lek->count = 0;
    if (i >= len || b[i] != '{')
        return unreadable(w, i, "not a JSON object", err);
    i = skip_ws(b, i + 1, len);
    for (int more = i >= len || b[i] != '}'; more;) {
        ddb_value name;
        if (i >= len || b[i] != '"' || ddb_json_value_end(b, i, len, 1, &end) != 1 ||
            ddb_json_parse_plain(w->parser, &name, b + i, end - i, pg->arena, err) != 0)
            return unreadable(w, i, "expected a member name", err);
        i = skip_ws(b, end, len);
        if (i >= len || b[i] != ':')
            return unreadable(w, i, "expected ':' after a member name", err);
        i = skip_ws(b, i + 1, len);
        if ((rc = read_value(w, pg, &name, &i, len, &seen, lek, err)) != 0)
            return rc;
        i = skip_ws(b, i, len);
        if (i < len && b[i] == '}')
            more = 0;
        else if (i < len && b[i] == ',')
            i = skip_ws(b, i + 1, len);
        else
            return unreadable(w, i, "expected ',' or '}' after a member", err);
    }
    if (skip_ws(b, i + 1, len) != len)
        return unreadable(w, i, "not one whole JSON object", err);
    return 0;
}
