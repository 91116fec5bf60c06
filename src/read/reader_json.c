/*
 * JSON documents: everything people keep DynamoDB items in that is not one
 * item per line. A document may be pretty-printed and as large as a table,
 * and several may follow one another in a file:
 *
 *   [ {...}, {...} ]                    a JSON array of items: DynamoDB JSON, plain JSON
 *                                       (dynein's json / json-compact export, the AWS docs'
 *                                       moviedata.json), {"Item":..} or write requests
 *   {"Items": [...], "Count": ..}       AWS CLI scan / query output (dynamodump's data files)
 *   {"Count": .., "ScannedCount": ..}   a scan / query with Select COUNT: no records
 *   {"Item": {...}}                     get-item output
 *   {"Table": [{"PutRequest": ..}, {"DeleteRequest": ..}], "Other": [..]}
 *                                       BatchWriteItem request items (the AWS docs' sample
 *                                       data; batch-write-item --request-items); also under
 *                                       "RequestItems" / "UnprocessedItems"
 *   {"Responses": {"Table": [...]}}     batch-get-item output
 *   {"Responses": [{"Item": ..}, {}]}   transact-get-items output ({}: a key not found)
 *   [{"Put": ..}, {"Delete": ..}, ..]   a TransactWriteItems request file (--transact-items):
 *                                       Put an item, Delete a key; Update and ConditionCheck
 *                                       carry no item and are rejected
 *   {"Records": [{"eventName": .., "dynamodb": {"Keys": .., "NewImage": ..}}, ..],
 *    "NextShardIterator": ..}           DynamoDB Streams records: get-records output, a Lambda
 *                                       function's event; Kinesis Data Streams records one
 *                                       after another. A put of NewImage or a delete of Keys
 *                                       (reader_stream.c)
 *   {"name": "DynamoDB-export", "version": 3, "entries": [{"url": .., "mandatory": true}]}
 *                                       the manifest of an AWS Data Pipeline (EMR) export: it
 *                                       lists the data files beside it and holds no records
 *   {"ModelName": .., "DataModel": [{"TableName": .., "TableData": [..],
 *     "TableFacets": [{"TableData": [..]}]}]}   a NoSQL Workbench model
 *   {...}                               one item (typed or plain), pretty-printed
 *
 * The document is walked with a cursor (json_cursor.h) and a small stack of
 * frames; each element that is a record is handed to the parser on its own,
 * so memory is bounded by the largest element. Records carry the table their
 * document names for them (request files, models, transaction actions); an
 * input naming several tables is read for one of them (opts->table, else the
 * first it names) and its records for the others are rejected, never mixed in.
 *
 * A plain record that holds DynamoDB JSON ({"S": ..} as a value) is a document
 * whose shape ddbpipe does not know: never read as plain items (check_plain).
 *
 * This file walks the document, keeps the frames and chooses the table;
 * reader_json_shape.c knows the shapes above from their text (which one a
 * document or an element is, how an element becomes a record) and holds the
 * bidder that detects these inputs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/array.h"
#include "ddbpipe/json.h"
#include "ddbpipe/reader.h"
#include "ddbpipe/source.h"
#include "json/json_cursor.h"
#include "read/reader_internal.h"
#include "read/reader_json_shape.h"

enum frame_kind {
    FR_ENVELOPE, /* an AWS response/request object: its keys say what they hold */
    FR_TABLES,   /* {"TableName": [...], ...}: one array per table */
    FR_ITEMS,    /* an array of items */
    FR_REQUESTS, /* an array of write requests */
    FR_MODELS,   /* a Workbench model's DataModel: one object per table */
    FR_MODEL,    /* one table of a model */
    FR_FACETS,   /* its TableFacets */
    FR_FACET     /* one facet */
};

typedef struct frame {
    unsigned char kind;
    unsigned char shape; /* FR_ITEMS */
    unsigned char holds; /* FR_TABLES: FR_ITEMS or FR_REQUESTS */
    unsigned char found; /* FR_ENVELOPE: it held records */
    unsigned char count; /* FR_ENVELOPE: it said Count (1) and ScannedCount (2); it is a
                            Data Pipeline export's manifest (4) */
    uint64_t line;       /* where it starts, for messages */
} frame;

#define MAX_FRAMES 8
#define SNIFF_WINDOW (64u * 1024u)

typedef struct json_reader {
    ddb_reader base;
    ddb_jcur cur;
    ddb_arena *arena;
    ddb_json_parser *parser;
    frame stack[MAX_FRAMES];
    int depth;        /* 0: between documents */
    char *table;      /* the table the current records belong to, or NULL */
    char *chosen;     /* the table whose records are read (opts->table or the first named) */
    int chosen_given; /* it is opts->table */
    /* chosen_given: the other tables' records, passed over (and said at the end) */
    struct skipped {
        char *table;
        uint64_t records;
    } * skipped;
    size_t n_skipped, cap_skipped;
    void (*warn)(void *ctx, const char *msg);
    void *warn_ctx;
    uint64_t skip_below;
    int plain_seen;   /* a plain record was read: the first decides what the input is */
    int as_given;     /* the format was given, not told: plain records are read unchecked */
    char counted[24]; /* an envelope's Count, as its text */
    ddb_record rec;
    char reason[DDB_ERROR_MAX];
} json_reader;

/* --------------------------------------------------------------- frames */

static int push(json_reader *jr, enum frame_kind kind, enum jdoc_shape shape, ddb_error *err)
{
    frame *f;
    if (jr->depth >= MAX_FRAMES)
        return ddb_error_set(err, DDB_EINVAL, "%s: line %llu: the document nests too deeply",
                             jr->base.name, (unsigned long long)jr->cur.line);
    f = &jr->stack[jr->depth++];
    memset(f, 0, sizeof(*f));
    f->kind = (unsigned char)kind;
    f->shape = (unsigned char)shape;
    f->line = jr->cur.line;
    return 0;
}

/* Expects open ('[' or '{') and pushes a frame for what it opens. */
static int open_frame(json_reader *jr, char open, enum frame_kind kind, enum jdoc_shape shape,
                      const char *what, ddb_error *err)
{
    int rc = ddb_jcur_expect(&jr->cur, open, what, err);
    return rc != 0 ? rc : push(jr, kind, shape, err);
}

static int set_table(json_reader *jr, const char *name, size_t len, ddb_error *err)
{
    free(jr->table);
    if ((jr->table = strndup(name, len)) == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    return 0;
}

/* Skips the value at the cursor. */
static int skip_value(json_reader *jr, ddb_error *err)
{
    size_t end;
    int rc = ddb_jcur_peek(&jr->cur, err);
    if (rc <= 0)
        return rc < 0 ? rc
                      : ddb_error_set(err, DDB_EINVAL, "%s: the document ends inside an object",
                                      jr->base.name);
    if ((rc = ddb_jcur_value(&jr->cur, &end, err)) != 0)
        return rc;
    ddb_jcur_advance(&jr->cur, end);
    return 0;
}

/* A Workbench model's TableName: a JSON string. */
static int read_table_name(json_reader *jr, ddb_error *err)
{
    size_t end;
    ddb_value v;
    ddb_error perr;
    int rc = ddb_jcur_peek(&jr->cur, err);
    if (rc <= 0)
        return rc < 0 ? rc : skip_value(jr, err);
    if ((rc = ddb_jcur_value(&jr->cur, &end, err)) != 0)
        return rc;
    ddb_arena_reset(jr->arena);
    if (ddb_json_parse_plain(jr->parser, &v, jr->cur.buf + jr->cur.pos, end - jr->cur.pos,
                             jr->arena, &perr) != 0 ||
        v.type != DDB_TYPE_S)
        return ddb_error_set(err, DDB_EINVAL, "%s: line %llu: TableName is not a string",
                             jr->base.name, (unsigned long long)jr->cur.line);
    ddb_jcur_advance(&jr->cur, end);
    return set_table(jr, v.u.s.ptr, v.u.s.len, err);
}

static int key_is(const char *k, size_t len, const char *s)
{
    return strlen(s) == len && memcmp(k, s, len) == 0;
}

/* An envelope's Count: kept (its text) to say what a Select COUNT answer,
 * which holds no items, counted. */
static int read_count(json_reader *jr, frame *f, ddb_error *err)
{
    size_t end, n;
    int rc = ddb_jcur_peek(&jr->cur, err);
    if (rc <= 0)
        return rc < 0 ? rc : skip_value(jr, err);
    if ((rc = ddb_jcur_value(&jr->cur, &end, err)) != 0)
        return rc;
    n = end - jr->cur.pos < sizeof(jr->counted) - 1 ? end - jr->cur.pos : sizeof(jr->counted) - 1;
    memcpy(jr->counted, jr->cur.buf + jr->cur.pos, n);
    jr->counted[n] = '\0';
    f->count |= 1;
    ddb_jcur_advance(&jr->cur, end);
    return 0;
}

/* An envelope's "name": "DynamoDB-export" makes it a Data Pipeline export's
 * manifest (the bidder took it for one), which holds no records. */
static int read_name(json_reader *jr, frame *f, ddb_error *err)
{
    static const char want[] = "\"DynamoDB-export\"";
    size_t end;
    int rc = ddb_jcur_peek(&jr->cur, err);
    if (rc <= 0)
        return rc < 0 ? rc : skip_value(jr, err);
    if ((rc = ddb_jcur_value(&jr->cur, &end, err)) != 0)
        return rc;
    if (end - jr->cur.pos == sizeof(want) - 1 &&
        memcmp(jr->cur.buf + jr->cur.pos, want, sizeof(want) - 1) == 0)
        f->count |= 4;
    ddb_jcur_advance(&jr->cur, end);
    return 0;
}

static int take_record(json_reader *jr, enum jdoc_shape shape, ddb_error *err);

/* One key of an object frame: descends into what holds records, skips the
 * rest. Returns 1 when it took a record (get-item's "Item"), 0 or an error. */
static int object_key(json_reader *jr, frame *f, const char *k, size_t len, ddb_error *err)
{
    switch (f->kind) {
    case FR_ENVELOPE:
        if (key_is(k, len, "Item")) {
            int rc = ddb_jcur_peek(&jr->cur, err);
            if (rc <= 0)
                return rc < 0 ? rc : skip_value(jr, err);
            f->found = 1;
            return take_record(jr, JSH_TYPED, err);
        }
        if (key_is(k, len, "Items")) {
            f->found = 1;
            return open_frame(jr, '[', FR_ITEMS, JSH_TYPED, "'[' after \"Items\"", err);
        }
        if (key_is(k, len, "Responses")) {
            int rc = ddb_jcur_peek(&jr->cur, err);
            f->found = 1;
            if (rc > 0 && jr->cur.buf[jr->cur.pos] == '[') /* TransactGetItems */
                return open_frame(jr, '[', FR_ITEMS, JSH_RESPONSE, "'[' after \"Responses\"", err);
            if (open_frame(jr, '{', FR_TABLES, 0, "'{' after \"Responses\"", err) != 0)
                return err->code;
            jr->stack[jr->depth - 1].holds = FR_ITEMS;
            return 0;
        }
        if (key_is(k, len, "RequestItems") || key_is(k, len, "UnprocessedItems")) {
            f->found = 1;
            if (open_frame(jr, '{', FR_TABLES, 0, "'{' after the request items", err) != 0)
                return err->code;
            jr->stack[jr->depth - 1].holds = FR_REQUESTS;
            return 0;
        }
        if (key_is(k, len, "DataModel")) {
            f->found = 1;
            return open_frame(jr, '[', FR_MODELS, 0, "'[' after \"DataModel\"", err);
        }
        if (key_is(k, len, "Records")) {
            f->found = 1;
            return open_frame(jr, '[', FR_ITEMS, JSH_STREAM, "'[' after \"Records\"", err);
        }
        if (key_is(k, len, "Count"))
            return read_count(jr, f, err);
        if (key_is(k, len, "ScannedCount"))
            f->count |= 2;
        if (key_is(k, len, "name"))
            return read_name(jr, f, err);
        return skip_value(jr, err);
    case FR_TABLES:
        if (set_table(jr, k, len, err) != 0)
            return err->code;
        return f->holds == FR_ITEMS
                   ? open_frame(jr, '[', FR_ITEMS, JSH_TYPED, "'[' of a table's items", err)
                   : open_frame(jr, '[', FR_REQUESTS, JSH_REQUEST, "'[' of a table's requests",
                                err);
    case FR_MODEL:
        if (key_is(k, len, "TableName"))
            return read_table_name(jr, err);
        if (key_is(k, len, "TableData"))
            return open_frame(jr, '[', FR_ITEMS, JSH_TYPED, "'[' after \"TableData\"", err);
        if (key_is(k, len, "TableFacets"))
            return open_frame(jr, '[', FR_FACETS, 0, "'[' after \"TableFacets\"", err);
        return skip_value(jr, err);
    case FR_FACET:
        if (key_is(k, len, "TableData"))
            return open_frame(jr, '[', FR_ITEMS, JSH_TYPED, "'[' after \"TableData\"", err);
        return skip_value(jr, err);
    default:
        return skip_value(jr, err);
    }
}

/* ------------------------------------------------------------- records */

static void set_bad(json_reader *jr, const char *reason)
{
    ddb_record_set_bad(&jr->rec, jr->reason, sizeof(jr->reason), reason);
}
/* Counts a record of a table the run does not read. */
static int note_skipped(json_reader *jr, ddb_error *err)
{
    struct skipped *sk;
    for (size_t i = 0; i < jr->n_skipped; i++) {
        if (strcmp(jr->skipped[i].table, jr->table) == 0) {
            jr->skipped[i].records++;
            return 0;
        }
    }
    if ((sk = ddb_array_reserve(jr->skipped, jr->n_skipped, &jr->cap_skipped, sizeof(*sk), 4)) ==
        NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    jr->skipped = sk;
    if ((sk[jr->n_skipped].table = strdup(jr->table)) == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    sk[jr->n_skipped++].records = 1;
    return 0;
}

/*
 * The record's table: the one the run reads, or not. With the table named
 * for the run, the others' records are passed over (counted, said at the end:
 * the run asked for one table); without, the first table named is read and
 * the others' records are rejected, so a file with several tables is never
 * silently read for one. Returns 0 to take the record, 1 to pass it over, 2
 * when it is rejected (made DDB_REC_BAD), or an error.
 */
static int check_table(json_reader *jr, ddb_error *err)
{
    jr->rec.table = jr->table;
    if (jr->table == NULL)
        return 0;
    if (jr->chosen == NULL && (jr->chosen = strdup(jr->table)) == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    if (strcmp(jr->chosen, jr->table) == 0)
        return 0;
    if (jr->chosen_given)
        return note_skipped(jr, err) != 0 ? err->code : 1;
    {
        char why[600];
        snprintf(why, sizeof(why),
                 "a record of table %s; this input is read for table %s (the first it names)",
                 jr->table, jr->chosen);
        set_bad(jr, why);
    }
    return 2;
}

/* At the end: the records of other tables that were passed over. */
static void say_skipped(json_reader *jr)
{
    for (size_t i = 0; i < jr->n_skipped && jr->warn; i++) {
        char msg[700];
        snprintf(msg, sizeof(msg),
                 "%s: %llu record%s of table %s not read (the run reads table %s)", jr->base.name,
                 (unsigned long long)jr->skipped[i].records, jr->skipped[i].records == 1 ? "" : "s",
                 jr->skipped[i].table, jr->chosen);
        jr->warn(jr->warn_ctx, msg);
    }
    for (size_t i = 0; i < jr->n_skipped; i++)
        free(jr->skipped[i].table);
    jr->n_skipped = 0; /* said once */
}

/* A TransactWriteItems action names its own table (each may name another),
 * as a Kinesis Data Streams record does (one stream may carry several
 * tables' changes): the record's table is the one its element names, none
 * when it names none. */
static int element_table(json_reader *jr, enum jdoc_shape shape, size_t end, ddb_error *err)
{
    const char *text = jr->cur.buf + jr->cur.pos;
    ddb_str t;
    if (shape != JSH_TRANSACT && shape != JSH_STREAM)
        return 0;
    ddb_arena_reset(jr->arena);
    if (shape == JSH_TRANSACT)
        ddb_jdoc_transact_table(&t, jr->parser, jr->arena, text, end - jr->cur.pos);
    else
        ddb_stream_record_table(&t, jr->parser, jr->arena, text, end - jr->cur.pos);
    if (t.ptr != NULL)
        return set_table(jr, t.ptr, t.len, err);
    free(jr->table);
    jr->table = NULL;
    return 0;
}

/* A plain record holding DynamoDB JSON is a document ddbpipe does not know:
 * the first one refuses the input (what it is is unknown), a later one is
 * rejected (the input was plain records until then). */
static int check_plain(json_reader *jr, ddb_error *err)
{
    char why[DDB_ERROR_MAX - 100];
    int first = !jr->plain_seen;
    jr->plain_seen = 1;
    if (jr->as_given || jr->rec.kind != DDB_REC_PUT ||
        !ddb_plain_holds_typed(&jr->rec.item, why, sizeof(why)))
        return 0;
    if (first)
        return ddb_error_set(err, DDB_EINVAL, "%s: line %llu: %s", jr->base.name,
                             (unsigned long long)jr->rec.line, why);
    set_bad(jr, why);
    return 0;
}

/* Takes the value at the cursor as one record of the given shape. Returns 1
 * with the record, 0 when it was skipped (resuming), <0 on error. */
static int take_record(json_reader *jr, enum jdoc_shape shape, ddb_error *err)
{
    ddb_jcur *c = &jr->cur;
    size_t end;
    int rc;
    if ((rc = ddb_jcur_value(c, &end, err)) != 0)
        return rc;
    if (shape == JSH_UNKNOWN) {
        shape = ddb_jdoc_element_shape((const unsigned char *)c->buf, c->pos, end);
        if (jr->depth > 0)
            jr->stack[jr->depth - 1].shape = (unsigned char)shape;
    }
    if ((rc = element_table(jr, shape, end, err)) != 0)
        return rc;
    if (shape == JSH_RESPONSE && ddb_jdoc_holds_nothing(c->buf + c->pos, end - c->pos)) {
        ddb_jcur_advance(c, end); /* a key TransactGetItems did not find: no item */
        return 0;
    }
    if (ddb_jcur_offset(c) < jr->skip_below) {
        if ((rc = check_table(jr, err)) < 0)
            return rc;
        ddb_jcur_advance(c, end); /* resuming: already accounted for */
        return 0;
    }
    ddb_arena_reset(jr->arena);
    jr->rec.line = c->line;
    jr->rec.offset = ddb_jcur_offset(c);
    jr->rec.pos = jr->rec.offset;
    jr->rec.raw = c->buf + c->pos;
    jr->rec.raw_len = end - c->pos;
    jr->rec.reason = NULL;
    jr->rec.change = DDB_CHANGE_NONE;
    jr->rec.by_ttl = 0;
    if ((rc = check_table(jr, err)) < 0)
        return rc;
    if (rc == 1) {
        ddb_jcur_advance(c, end);
        return 0;
    }
    if (rc == 0) {
        ddb_jdoc_parse_element(&jr->rec, jr->reason, sizeof(jr->reason), jr->parser, jr->arena,
                               shape, jr->rec.raw, jr->rec.raw_len);
        if (shape == JSH_PLAIN && (rc = check_plain(jr, err)) != 0)
            return rc;
    }
    /* The record points into the buffer: count its lines but keep it in place
     * until the next call (refills only happen then). */
    ddb_jcur_advance(c, end);
    return 1;
}

/* ---------------------------------------------------------------- next */

static const char *frame_what(const frame *f)
{
    switch (f->kind) {
    case FR_ITEMS:
    case FR_REQUESTS:
    case FR_MODELS:
    case FR_FACETS:
        return "an array";
    default:
        return "an object";
    }
}

static int pop(json_reader *jr, ddb_error *err)
{
    frame *f = &jr->stack[--jr->depth];
    if (f->kind == FR_ENVELOPE && !f->found && f->count == 3) {
        /* A query or scan with Select COUNT: no items to read, and said. */
        if (jr->warn) {
            char msg[600];
            snprintf(msg, sizeof(msg),
                     "%s: line %llu: a query or scan answer with Select COUNT (Count %s): it "
                     "holds no items, 0 records read",
                     jr->base.name, (unsigned long long)f->line, jr->counted);
            jr->warn(jr->warn_ctx, msg);
        }
        return 0;
    }
    if (f->kind == FR_ENVELOPE && !f->found && (f->count & 4)) {
        /* read beside the data files it lists (a folder of the export) */
        if (jr->warn) {
            char msg[600];
            snprintf(msg, sizeof(msg),
                     "%s: line %llu: the manifest of a Data Pipeline export: it lists the "
                     "export's data files and holds no items, 0 records read",
                     jr->base.name, (unsigned long long)f->line);
            jr->warn(jr->warn_ctx, msg);
        }
        return 0;
    }
    if (f->kind == FR_ENVELOPE && !f->found)
        return ddb_error_set(err, DDB_EINVAL,
                             "%s: line %llu: the document holds no items (no \"Items\", \"Item\", "
                             "request items or model data)",
                             jr->base.name, (unsigned long long)f->line);
    if (f->kind == FR_MODEL || f->kind == FR_TABLES) {
        free(jr->table);
        jr->table = NULL;
    }
    return 0;
}

/* At the top level: the next document. Returns 1 with a record (a lone item),
 * 0 to go on, DDB_ITEROVER at the end, or an error. */
static int next_document(json_reader *jr, ddb_error *err)
{
    ddb_jcur *c = &jr->cur;
    int rc = ddb_jcur_peek(c, err);
    if (rc < 0)
        return rc;
    if (rc == 0) {
        say_skipped(jr);
        return DDB_ITEROVER;
    }
    free(jr->table); /* no frame names a table between documents */
    jr->table = NULL;
    if (c->buf[c->pos] == '[') {
        c->pos++;
        return push(jr, FR_ITEMS, JSH_UNKNOWN, err);
    }
    if (c->buf[c->pos] != '{')
        return ddb_error_set(err, DDB_EINVAL,
                             "%s: line %llu: expected a JSON object or array, found '%c'",
                             jr->base.name, (unsigned long long)c->line, c->buf[c->pos]);
    if ((rc = ddb_jcur_ensure(c, SNIFF_WINDOW, err)) != 0)
        return rc;
    switch (ddb_jdoc_classify((const unsigned char *)c->buf, c->pos, c->len)) {
    case JDOC_ENVELOPE:
        c->pos++;
        return push(jr, FR_ENVELOPE, 0, err);
    case JDOC_TABLES:
        c->pos++;
        if ((rc = push(jr, FR_TABLES, 0, err)) != 0)
            return rc;
        jr->stack[jr->depth - 1].holds = FR_REQUESTS;
        return 0;
    default:
        return take_record(jr, JSH_UNKNOWN, err);
    }
}

/* In a frame: the next key or element. Returns 1 with a record, 0 to go on. */
static int next_in_frame(json_reader *jr, ddb_error *err)
{
    ddb_jcur *c = &jr->cur;
    frame *f = &jr->stack[jr->depth - 1];
    int object = f->kind == FR_ENVELOPE || f->kind == FR_TABLES || f->kind == FR_MODEL ||
                 f->kind == FR_FACET;
    const char *k;
    size_t klen;
    int rc = ddb_jcur_peek(c, err);
    if (rc < 0)
        return rc;
    if (rc == 0)
        return ddb_error_set(err, DDB_EINVAL,
                             "%s: the input ends inside %s that starts at line %llu", jr->base.name,
                             frame_what(f), (unsigned long long)f->line);
    if (c->buf[c->pos] == ',') {
        c->pos++;
        return 0;
    }
    if (c->buf[c->pos] == (object ? '}' : ']')) {
        c->pos++;
        return pop(jr, err);
    }
    if (object) {
        if ((rc = ddb_jcur_key(c, &k, &klen, err)) != 0)
            return rc;
        return object_key(jr, f, k, klen, err);
    }
    switch (f->kind) {
    case FR_MODELS:
        return open_frame(jr, '{', FR_MODEL, 0, "'{' of a table of the model", err);
    case FR_FACETS:
        return open_frame(jr, '{', FR_FACET, 0, "'{' of a facet", err);
    default:
        return take_record(jr, (enum jdoc_shape)f->shape, err);
    }
}

static int json_next(ddb_reader *r, ddb_record **out, ddb_error *err)
{
    json_reader *jr = (json_reader *)r;
    for (;;) {
        int rc = jr->depth == 0 ? next_document(jr, err) : next_in_frame(jr, err);
        if (rc == 1) {
            *out = &jr->rec;
            return 0;
        }
        if (rc != 0)
            return rc;
    }
}

static void json_free(ddb_reader *r)
{
    json_reader *jr = (json_reader *)r;
    ddb_jcur_dispose(&jr->cur);
    ddb_arena_free(jr->arena);
    ddb_json_parser_free(jr->parser);
    free(jr->table);
    free(jr->chosen);
    for (size_t i = 0; i < jr->n_skipped; i++)
        free(jr->skipped[i].table);
    free(jr->skipped);
}

static uint64_t json_raw_bytes(const ddb_reader *r)
{
    return ddb_source_raw_bytes(((const json_reader *)r)->cur.src);
}

static uint64_t json_decoded_bytes(const ddb_reader *r)
{
    return ((const json_reader *)r)->cur.src->bytes_in;
}

static int json_skip_to(ddb_reader *r, uint64_t pos, ddb_error *err)
{
    (void)err;
    ((json_reader *)r)->skip_below = pos;
    return 0;
}

static const ddb_reader_vtable json_vtable = {
    "JSON document", json_next, json_free, json_raw_bytes, json_decoded_bytes,
    json_skip_to,    NULL,      NULL,      NULL,           NULL};

static int new_json(ddb_reader **out, ddb_source *src, const char *name, ddb_input_format format,
                    const ddb_reader_opts *opts, ddb_error *err)
{
    json_reader *jr = calloc(1, sizeof(*jr));
    int rc;

    *out = NULL;
    if (jr == NULL) {
        ddb_source_free(src);
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    }
    if (ddb_reader_base_init(&jr->base, &json_vtable, name, format, opts) != 0) {
        ddb_source_free(src);
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto fail;
    }
    if ((rc = ddb_jcur_init(&jr->cur, src, jr->base.name, opts ? opts->max_line : 0, err)) != 0)
        goto fail;
    if (ddb_arena_new(&jr->arena, 0) != 0 || ddb_json_parser_new(&jr->parser) != 0 ||
        (opts && opts->table && (jr->chosen = strdup(opts->table)) == NULL)) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto fail;
    }
    jr->chosen_given = jr->chosen != NULL;
    jr->as_given = opts != NULL && opts->format != DDB_IN_AUTO;
    if (opts != NULL) {
        jr->warn = opts->warn;
        jr->warn_ctx = opts->warn_ctx;
    }
    jr->rec.typed = 1;
    jr->rec.source = jr->base.name;
    *out = &jr->base;
    return 0;
fail:
    json_free(&jr->base);
    free(jr->base.name);
    free(jr->base.entity_hint);
    free(jr);
    return rc;
}

int ddb_reader_new_json(ddb_reader **out, ddb_source *src, const char *name,
                        const ddb_reader_opts *opts, ddb_error *err)
{
    return new_json(out, src, name, DDB_IN_JSON, opts, err);
}

int ddb_reader_new_scan(ddb_reader **out, ddb_source *src, const char *name,
                        const ddb_reader_opts *opts, ddb_error *err)
{
    return new_json(out, src, name, DDB_IN_SCAN, opts, err);
}
