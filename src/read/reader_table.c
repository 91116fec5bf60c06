/*
 * The Scan reader: a live table as an input. Each of the segments this run
 * owns keeps one Scan request in flight (Segment/TotalSegments, paginated with
 * LastEvaluatedKey -> ExclusiveStartKey); pages that arrive wait in a bounded
 * FIFO and are handed out item by item. A segment asks for its next page as
 * soon as the previous one arrived, as long as the FIFO has room, so reading
 * overlaps the network.
 */
#include "ddbpipe/reader_table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ddbpipe/json.h"
#include "ddbpipe/mapping.h"
#include "ddbpipe/rate.h"
#include "ddbpipe/clock.h"
#include "read/scan_page.h"

typedef struct segment {
    int number;
    int in_flight;
    int done;
    char *start_key; /* ExclusiveStartKey for the next request (typed JSON) */
    uint64_t pages;
    uint64_t items;
    /* checkpoint: where to start again so nothing settled is read twice */
    char *ckpt_key; /* NULL with ckpt_done = 0: from the beginning */
    int ckpt_done;
} segment;

/* A page handed out whose items are not all settled yet (FIFO, read order). */
typedef struct consumed {
    struct consumed *next;
    int seg; /* index in segs */
    char *next_key;
    uint64_t remaining;
} consumed;

typedef struct table_reader {
    ddb_reader base;
    ddb_client *client;
    char *table;
    int total_segments;
    segment *segs;
    int n_segs;
    int consistent;
    const char *op; /* "Scan" or "Query" */
    char *members;  /* JSON members added to every request, or NULL */
    uint64_t page_size;
    scan_page *head, *tail; /* pages waiting to be read */
    int n_pages;
    int max_pages;
    scan_page *current; /* page being handed out (freed on the next call) */
    int failed;
    ddb_error failure;
    ddb_record rec;
    char *source;
    uint64_t count;
    uint64_t bytes;
    ddb_scan_stats stats;
    ddb_buf body;
    consumed *c_head, *c_tail;
    ddb_rate rate;    /* --max-rcu */
    double page_cost; /* capacity of the last page: the estimate for the next */
    uint32_t rate_wait_ms;
    struct scan_ctx *flying;
    /* Pages whose items were all handed out, kept for the next answers: a
     * page's arena and item slots are reused rather than freed and faulted
     * in again (a megabyte a page). At most max_pages; each arena keeps what
     * ddb_arena_reset keeps. */
    scan_page *spare;
    int n_spare;
    /* One parser for every page: it learns the items' skeletons, so items
     * alike are read in one pass and carry an id of their names. */
    ddb_json_parser *parser;
} table_reader;

typedef struct scan_ctx {
    struct scan_ctx *prev, *next; /* the reader's requests in flight */
    table_reader *tr;
    segment *seg;
    double taken;
} scan_ctx;

static void page_free(scan_page *p)
{
    if (p == NULL)
        return;
    free(p->next_key);
    ddb_arena_free(p->arena);
    free(p->items);
    free(p->body);
    free(p);
}

/* A page for an answer: a spare one, or a new one. NULL when out of memory. */
static scan_page *page_take(table_reader *tr)
{
    scan_page *pg = tr->spare;
    if (pg != NULL) {
        tr->spare = pg->next;
        tr->n_spare--;
        pg->next = NULL;
        return pg;
    }
    if ((pg = calloc(1, sizeof(*pg))) == NULL)
        return NULL;
    if (ddb_arena_new(&pg->arena, 0) != 0) {
        free(pg);
        return NULL;
    }
    return pg;
}

/* A page done with: emptied and kept for a later answer, or freed past
 * max_pages spares (the most the FIFO holds, so no more are ever needed).
 * Its body goes back to the client to receive a later answer into. */
static void page_recycle(table_reader *tr, scan_page *pg)
{
    if (pg == NULL)
        return;
    if (tr->n_spare >= tr->max_pages) {
        page_free(pg);
        return;
    }
    free(pg->next_key);
    ddb_client_reuse_body(tr->client, pg->body, pg->body_cap);
    pg->next_key = pg->body = NULL;
    ddb_arena_reset(pg->arena);
    if (pg->cap_items > 16384 && pg->n_items < pg->cap_items / 4) {
        /* slots for a page of unusually many items: not kept for the usual ones */
        free(pg->items);
        pg->items = NULL;
        pg->cap_items = 0;
    }
    pg->n_items = pg->cursor = 0;
    pg->next = tr->spare;
    tr->spare = pg;
    tr->n_spare++;
}

/* The page's LastEvaluatedKey (NULL or empty: none): the segment's next
 * start, or its end. */
static int take_next_key(table_reader *tr, segment *seg, scan_page *pg, const ddb_map *lek,
                         ddb_error *err)
{
    ddb_buf kb = DDB_BUF_INIT;
    char *key;

    if (lek == NULL || lek->count == 0) {
        free(seg->start_key);
        seg->start_key = NULL;
        seg->done = 1;
        return 0;
    }
    ddb_json_put_typed_map(&kb, lek);
    if ((key = ddb_buf_detach(&kb, NULL)) == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    /* The key just sent back as the next start: the same page for ever
     * (progress at 100%, the same items written again). Only the last
     * key is compared: keys are not ordered across partitions, so an
     * earlier one coming back proves nothing. Both are written the same
     * way (ddb_json_put_typed_map), so equal keys are equal text. */
    if (seg->start_key != NULL && strcmp(key, seg->start_key) == 0) {
        int rc =
            ddb_error_set(err, DDB_ENET,
                          "%s of %s segment %d: page %llu's LastEvaluatedKey %.300s is "
                          "the ExclusiveStartKey just sent: the service is repeating a "
                          "page (stopped rather than read the same items again)",
                          tr->op, tr->table, seg->number, (unsigned long long)seg->pages + 1, key);
        free(key);
        return rc;
    }
    free(seg->start_key);
    seg->start_key = key;
    if ((pg->next_key = strdup(key)) == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    return 0;
}

/* A Scan response -> typed items (scan_page_parse) and the segment's next
 * start. */
static int read_page(table_reader *tr, segment *seg, scan_page *pg, size_t len, ddb_error *err)
{
    scan_walk w = {tr->op, tr->table, tr->parser, &tr->stats};
    ddb_map lek;
    int rc;
    if ((rc = scan_page_parse(&w, pg, len, &lek, err)) != 0)
        return rc;
    return take_next_key(tr, seg, pg, &lek, err);
}

static int request_page(table_reader *tr, segment *seg, ddb_error *err);

static void scan_done(void *ctx, ddb_response *resp)
{
    scan_ctx *sc = ctx;
    table_reader *tr = sc->tr;
    segment *seg = sc->seg;
    scan_page *pg;
    ddb_error err;

    double taken = sc->taken, before = tr->stats.capacity_units;
    if (sc->prev)
        sc->prev->next = sc->next;
    else
        tr->flying = sc->next;
    if (sc->next)
        sc->next->prev = sc->prev;
    free(sc);
    seg->in_flight = 0;
    tr->stats.requests++;
    tr->stats.throttles += resp->throttles;
    if (resp->throttles > 0)
        ddb_rate_throttled(&tr->rate, ddb_clock_seconds());
    if (!resp->ok) {
        ddb_rate_settle(&tr->rate, taken, 0);
        if (!tr->failed) {
            char where[300];
            ddb_client_describe_target(tr->client, where, sizeof(where));
            tr->failed = 1;
            if (strcmp(resp->error_type, "ResourceNotFoundException") == 0)
                ddb_error_set(&tr->failure, DDB_ENET,
                              "table %s does not exist in %s (it was deleted during the run, or "
                              "this is the wrong region or endpoint): %s",
                              tr->table, where, resp->message);
            else
                ddb_error_set(&tr->failure, DDB_ENET,
                              "%s of %s segment %d failed after %d attempt%s (%s): %s%s%s", tr->op,
                              tr->table, seg->number, resp->attempts,
                              resp->attempts == 1 ? "" : "s", where, resp->error_type,
                              resp->error_type[0] ? ": " : "", resp->message);
        }
        return;
    }
    if ((pg = page_take(tr)) == NULL) {
        tr->failed = 1;
        ddb_error_set(&tr->failure, DDB_ENOMEM, "out of memory");
        return;
    }
    pg->segment = seg->number;
    pg->body = resp->body; /* take the body: items point into it */
    pg->body_cap = resp->body_cap;
    resp->body = NULL;
    tr->bytes += resp->body_len;
    if (read_page(tr, seg, pg, resp->body_len, &err) != 0) {
        page_recycle(tr, pg);
        tr->failed = 1;
        tr->failure = err;
        return;
    }
    seg->pages++;
    seg->items += pg->n_items;
    tr->page_cost = tr->stats.capacity_units - before;
    ddb_rate_settle(&tr->rate, taken, tr->page_cost);
    taken = 0;
    if (tr->tail)
        tr->tail->next = pg;
    else
        tr->head = pg;
    tr->tail = pg;
    tr->n_pages++;
    /* Ask for the next page at once if there is room for it. */
    if (!seg->done && tr->n_pages < tr->max_pages && request_page(tr, seg, &err) != 0) {
        tr->failed = 1;
        tr->failure = err;
    }
}

static int request_page(table_reader *tr, segment *seg, ddb_error *err)
{
    ddb_buf *b = &tr->body;
    scan_ctx *sc;
    double cost = ddb_rate_cost(&tr->rate, tr->page_cost);
    uint32_t wait;
    int rc;

    ddb_rate_tick(&tr->rate, ddb_clock_seconds());
    if ((wait = ddb_rate_take(&tr->rate, cost, ddb_clock_seconds())) != 0) {
        tr->rate_wait_ms = wait; /* --max-rcu: ask again later */
        return 0;
    }

    ddb_buf_clear(b);
    ddb_buf_puts(b, "{\"TableName\":");
    ddb_json_put_string(b, tr->table, strlen(tr->table));
    if (tr->total_segments > 1)
        ddb_buf_printf(b, ",\"Segment\":%d,\"TotalSegments\":%d", seg->number, tr->total_segments);
    if (tr->page_size)
        ddb_buf_printf(b, ",\"Limit\":%llu", (unsigned long long)tr->page_size);
    if (tr->consistent)
        ddb_buf_puts(b, ",\"ConsistentRead\":true");
    if (seg->start_key) {
        ddb_buf_puts(b, ",\"ExclusiveStartKey\":");
        ddb_buf_puts(b, seg->start_key);
    }
    if (tr->members)
        ddb_buf_puts(b, tr->members);
    ddb_buf_puts(b, ",\"ReturnConsumedCapacity\":\"TOTAL\"}");
    if (b->oom || (sc = malloc(sizeof(*sc))) == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    memset(sc, 0, sizeof(*sc));
    sc->tr = tr;
    sc->seg = seg;
    sc->taken = cost;
    if ((rc = ddb_client_submit(tr->client, tr->op, b->ptr, b->len, scan_done, sc, err)) != 0) {
        free(sc);
        return rc;
    }
    sc->next = tr->flying;
    if (tr->flying)
        tr->flying->prev = sc;
    tr->flying = sc;
    seg->in_flight = 1;
    return 0;
}

/* Settled pages at the front of the FIFO move their segment's checkpoint on. */
static int pop_settled(table_reader *tr)
{
    int popped = 0;
    while (tr->c_head && tr->c_head->remaining == 0) {
        consumed *c = tr->c_head;
        segment *s = &tr->segs[c->seg];
        free(s->ckpt_key);
        s->ckpt_key = c->next_key;
        s->ckpt_done = c->next_key == NULL;
        tr->c_head = c->next;
        if (tr->c_head == NULL)
            tr->c_tail = NULL;
        free(c);
        popped = 1;
    }
    return popped;
}

static int track_page(table_reader *tr, scan_page *pg)
{
    consumed *c = calloc(1, sizeof(*c));
    if (c == NULL)
        return DDB_ENOMEM;
    c->seg = pg->segment - tr->segs[0].number;
    c->next_key = pg->next_key;
    pg->next_key = NULL;
    c->remaining = pg->n_items;
    if (tr->c_tail)
        tr->c_tail->next = c;
    else
        tr->c_head = c;
    tr->c_tail = c;
    pop_settled(tr); /* an empty page may already be settled */
    return 0;
}

static int tr_settled(ddb_reader *r, uint64_t pos)
{
    table_reader *tr = (table_reader *)r;
    (void)pos;
    if (tr->c_head == NULL)
        return 1;
    if (tr->c_head->remaining > 0)
        tr->c_head->remaining--;
    return pop_settled(tr) && (tr->c_head == NULL || tr->c_head->remaining > 0);
}

static int tr_save_state(const ddb_reader *r, ddb_buf *out)
{
    const table_reader *tr = (const table_reader *)r;
    ddb_buf_printf(out, "{\"total_segments\":%d,\"segments\":[", tr->total_segments);
    for (int i = 0; i < tr->n_segs; i++) {
        const segment *s = &tr->segs[i];
        ddb_buf_printf(out, "%s{\"n\":%d,\"done\":%s,\"key\":", i ? "," : "", s->number,
                       s->ckpt_done ? "true" : "false");
        if (s->ckpt_key)
            ddb_json_put_string(out, s->ckpt_key, strlen(s->ckpt_key));
        else
            ddb_buf_puts(out, "null");
        ddb_buf_putc(out, '}');
    }
    ddb_buf_puts(out, "]}");
    return out->oom ? DDB_ENOMEM : 0;
}

static int tr_load_state(ddb_reader *r, const char *json, size_t len, ddb_error *err)
{
    table_reader *tr = (table_reader *)r;
    ddb_json_parser *p = NULL;
    ddb_arena *a = NULL;
    ddb_value root;
    const ddb_value *ts, *segs;
    int rc = 0;

    if (ddb_json_parser_new(&p) != 0 || ddb_arena_new(&a, 0) != 0) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto done;
    }
    if (ddb_json_parse_plain(p, &root, json, len, a, err) != 0 || root.type != DDB_TYPE_M ||
        (ts = ddb_map_getz(&root.u.m, "total_segments")) == NULL || ts->type != DDB_TYPE_N ||
        (segs = ddb_map_getz(&root.u.m, "segments")) == NULL || segs->type != DDB_TYPE_L) {
        rc = ddb_error_set(err, DDB_EUSAGE, "the saved scan state is unreadable");
        goto done;
    }
    if (strtol(ts->u.s.ptr, NULL, 10) != tr->total_segments || (int)segs->u.l.count != tr->n_segs) {
        rc = ddb_error_set(err, DDB_EUSAGE,
                           "the saved scan used %.*s segments (or another range of them); "
                           "resume with the same options",
                           (int)ts->u.s.len, ts->u.s.ptr);
        goto done;
    }
    for (int i = 0; i < tr->n_segs; i++) {
        const ddb_value *e = &segs->u.l.items[i], *done_v, *key_v, *n_v;
        segment *s = &tr->segs[i];
        if (e->type != DDB_TYPE_M || (n_v = ddb_map_getz(&e->u.m, "n")) == NULL ||
            n_v->type != DDB_TYPE_N || strtol(n_v->u.s.ptr, NULL, 10) != s->number ||
            (done_v = ddb_map_getz(&e->u.m, "done")) == NULL || done_v->type != DDB_TYPE_BOOL ||
            (key_v = ddb_map_getz(&e->u.m, "key")) == NULL ||
            (key_v->type != DDB_TYPE_S && key_v->type != DDB_TYPE_NULL)) {
            rc = ddb_error_set(err, DDB_EUSAGE, "the saved scan state does not fit segment %d",
                               s->number);
            goto done;
        }
        s->done = s->ckpt_done = done_v->u.boolean;
        free(s->start_key);
        free(s->ckpt_key);
        s->start_key = s->ckpt_key = NULL;
        if (key_v->type == DDB_TYPE_S &&
            ((s->start_key = strndup(key_v->u.s.ptr, key_v->u.s.len)) == NULL ||
             (s->ckpt_key = strndup(key_v->u.s.ptr, key_v->u.s.len)) == NULL)) {
            rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
            goto done;
        }
    }
done:
    ddb_arena_free(a);
    ddb_json_parser_free(p);
    return rc;
}

static int page_ready(void *ctx)
{
    table_reader *tr = ctx;
    return tr->head != NULL || tr->failed;
}

static int all_done(const table_reader *tr)
{
    for (int i = 0; i < tr->n_segs; i++)
        if (!tr->segs[i].done || tr->segs[i].in_flight)
            return 0;
    return 1;
}

static int tr_next(ddb_reader *r, ddb_record **out, ddb_error *err)
{
    table_reader *tr = (table_reader *)r;
    int rc;

    for (;;) {
        if (tr->current && tr->current->cursor < tr->current->n_items) {
            const scan_item *it = &tr->current->items[tr->current->cursor++];
            tr->rec.item = it->item;
            tr->rec.names_id = it->names_id;
            tr->rec.offset = tr->count++;
            tr->rec.pos = tr->rec.offset;
            *out = &tr->rec;
            return 0;
        }
        page_recycle(tr, tr->current);
        tr->current = NULL;
        if (tr->failed) {
            if (err)
                *err = tr->failure;
            return tr->failure.code ? tr->failure.code : DDB_ENET;
        }
        /* Segments idle for lack of room in the page FIFO may ask again now. */
        tr->rate_wait_ms = 0;
        for (int i = 0; i < tr->n_segs; i++) {
            segment *s = &tr->segs[i];
            if (!s->done && !s->in_flight && tr->n_pages < tr->max_pages &&
                (rc = request_page(tr, s, err)) != 0)
                return rc;
        }
        if (tr->head != NULL) {
            tr->current = tr->head;
            tr->head = tr->head->next;
            if (tr->head == NULL)
                tr->tail = NULL;
            tr->n_pages--;
            if (track_page(tr, tr->current) != 0)
                return ddb_error_set(err, DDB_ENOMEM, "out of memory");
            continue;
        }
        if (all_done(tr))
            return DDB_ITEROVER;
        if (tr->rate_wait_ms && ddb_client_pending(tr->client) == 0) {
            /* Only time helps: the read capacity limit. */
            struct timespec ts = {(time_t)(tr->rate_wait_ms / 1000),
                                  (long)(tr->rate_wait_ms % 1000) * 1000000L};
            nanosleep(&ts, NULL);
            continue;
        }
        if ((rc = ddb_client_run(tr->client, page_ready, tr, err)) != 0)
            return rc;
    }
}

static void tr_free(ddb_reader *r)
{
    table_reader *tr = (table_reader *)r;
    while (tr->flying) { /* requests abandoned by an interrupted run */
        struct scan_ctx *sc = tr->flying;
        tr->flying = sc->next;
        free(sc);
    }
    page_free(tr->current);
    while (tr->head) {
        scan_page *n = tr->head->next;
        page_free(tr->head);
        tr->head = n;
    }
    for (int i = 0; tr->segs && i < tr->n_segs; i++) {
        free(tr->segs[i].start_key);
        free(tr->segs[i].ckpt_key);
    }
    while (tr->c_head) {
        consumed *c = tr->c_head;
        tr->c_head = c->next;
        free(c->next_key);
        free(c);
    }
    free(tr->segs);
    free(tr->table);
    free(tr->source);
    free(tr->members);
    while (tr->spare) {
        scan_page *n = tr->spare->next;
        page_free(tr->spare);
        tr->spare = n;
    }
    ddb_json_parser_free(tr->parser);
    ddb_buf_dispose(&tr->body);
}

static uint64_t tr_bytes(const ddb_reader *r)
{
    return ((const table_reader *)r)->bytes;
}

static const ddb_reader_vtable table_vt = {"table scan",  tr_next, tr_free,    tr_bytes,
                                           tr_bytes,      NULL,    tr_settled, tr_save_state,
                                           tr_load_state, NULL};

int ddb_reader_new_table(ddb_reader **out, const ddb_table_reader_opts *o, ddb_error *err)
{
    table_reader *tr = calloc(1, sizeof(*tr));
    /* a Query is one sequence of pages: one segment */
    int total = o->total_segments > 0 && !o->query ? o->total_segments : 1;
    int first = o->has_range && !o->query ? o->segment_first : 0;
    int last = o->has_range && !o->query ? o->segment_last : total - 1;
    char name[600];

    *out = NULL;
    if (tr == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    if (first < 0 || first > last || last >= total) {
        free(tr);
        return ddb_error_set(err, DDB_EUSAGE,
                             "segment range %d-%d does not fit %d segment%s (numbered 0-%d)", first,
                             last, total, total == 1 ? "" : "s", total - 1);
    }
    snprintf(name, sizeof(name), "table %s", o->table);
    tr->base.vt = &table_vt;
    tr->base.name = strdup(name);
    tr->base.format = DDB_IN_AUTO;
    tr->base.expected_items = o->item_count;
    tr->client = o->client;
    tr->table = strdup(o->table);
    tr->source = strdup(name);
    tr->total_segments = total;
    tr->n_segs = last - first + 1;
    tr->segs = calloc((size_t)tr->n_segs, sizeof(segment));
    tr->consistent = o->consistent_read;
    tr->op = o->query ? "Query" : "Scan";
    tr->members = o->members ? strdup(o->members) : NULL;
    tr->page_size = o->page_size;
    tr->max_pages = tr->n_segs * 2 < 4 ? 4 : tr->n_segs * 2;
    if (tr->base.name == NULL || tr->table == NULL || tr->source == NULL || tr->segs == NULL ||
        (o->members && tr->members == NULL) || ddb_json_parser_new(&tr->parser) != 0) {
        tr_free(&tr->base);
        free(tr->base.name);
        free(tr);
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    }
    for (int i = 0; i < tr->n_segs; i++)
        tr->segs[i].number = first + i;
    ddb_rate_init(&tr->rate, o->max_rcu, ddb_clock_seconds());
    tr->rec.kind = DDB_REC_PUT;
    tr->rec.typed = 1;
    tr->rec.utf8_checked = 1; /* the parser checks names and strings (scan_page_parse) */
    tr->rec.source = tr->source;
    *out = &tr->base;
    return 0;
}

void ddb_table_reader_stats(const ddb_reader *r, ddb_scan_stats *out)
{
    *out = ((const table_reader *)r)->stats;
}
