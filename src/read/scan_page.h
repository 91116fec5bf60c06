/*
 * scan_page.h (private header of read/) — one Scan or Query answer read into
 * typed items for the table reader (reader_table.c): the page that holds
 * them, and the walk of the answer's JSON that fills it.
 */
#ifndef DDBPIPE_READ_SCAN_PAGE_H
#define DDBPIPE_READ_SCAN_PAGE_H

#include <stddef.h>
#include <stdint.h>

#include "ddbpipe/arena.h"
#include "ddbpipe/error.h"
#include "ddbpipe/json.h"
#include "ddbpipe/reader_table.h"
#include "ddbpipe/value.h"

/* One item of a page, with the id of its names (ddb_json_parser_names_id). */
typedef struct scan_item {
    ddb_map item;
    uint64_t names_id;
} scan_item;

typedef struct scan_page {
    struct scan_page *next;
    int segment;
    char *next_key;  /* the segment's LastEvaluatedKey after this page; NULL: it was the last */
    char *body;      /* the response; values point into it */
    size_t body_cap; /* malloc'd at body: given back to the client for the next answers */
    ddb_arena *arena;
    scan_item *items; /* malloc'd, kept with the page when it is used again */
    size_t cap_items;
    size_t n_items;
    size_t cursor;
} scan_page;

/* What the walk needs of the reader: names for its messages, the parser
 * (one for every page, so it learns the items' skeletons), the gauges. */
typedef struct scan_walk {
    const char *op; /* "Scan" or "Query" */
    const char *table;
    ddb_json_parser *parser;
    ddb_scan_stats *stats; /* ScannedCount and ConsumedCapacity added to */
} scan_walk;

/*
 * Reads the answer pg->body[0, len) in one walk: its items appended to
 * pg->items (values in pg->arena or pointing into the body), its
 * LastEvaluatedKey into *lek ({NULL, 0} when there is none). Each item is
 * parsed once, where it lies, as a bare DynamoDB JSON line is (UTF-8,
 * types, base64 checked). Returns 0, DDB_EINVAL when the answer is not a
 * Scan page ("<op> of <table>: ..." with the byte), or DDB_ENOMEM.
 */
int scan_page_parse(const scan_walk *w, scan_page *pg, size_t len, ddb_map *lek, ddb_error *err);

#endif
