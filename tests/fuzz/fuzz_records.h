/*
 * fuzz_records.h — reads a whole input with one of the record readers and
 * checks what comes out: a bad record carries a reason and its rejects-file
 * line is valid JSON; a valid typed item written as DynamoDB JSON parses back
 * to the same item; plain records do the same as plain JSON.
 */
#ifndef DDB_FUZZ_RECORDS_H
#define DDB_FUZZ_RECORDS_H

#include "ddbpipe/item.h"
#include "ddbpipe/json.h"
#include "ddbpipe/output.h"
#include "ddbpipe/reader.h"
#include "ddbpipe/rejects.h"
#include "fuzz.h"

static inline void fuzz_check_record(const ddb_record *rec, ddb_json_parser *p, ddb_arena *a,
                                     ddb_buf *b)
{
    ddb_error err;
    ddb_value v;
    ddb_map back;
    ddb_buf_clear(b);
    if (rec->kind == DDB_REC_BAD) {
        FUZZ_CHECK(rec->reason != NULL && rec->reason[0] != '\0', "a bad record without a reason");
        ddb_rejects_format(b, rec, "Entity", rec->reason);
        FUZZ_CHECK(!b->oom, "out of memory");
        FUZZ_CHECK(ddb_json_parse_plain(p, &v, b->ptr, b->len - 1, a, &err) == 0,
                   "rejects line is not JSON (%s): %s", err.message, b->ptr);
        return;
    }
    /* What fails validation is rejected before anything writes it. */
    if (ddb_item_validate(&rec->item, NULL, NULL, &err) != 0)
        return;
    if (rec->typed) {
        ddb_json_put_typed_map(b, &rec->item);
        FUZZ_CHECK(ddb_json_parse_typed_map(p, &back, b->ptr, b->len, a, &err) == 0,
                   "written item does not parse (%s): %s", err.message, b->ptr);
        FUZZ_CHECK(ddb_map_equal(&back, &rec->item), "item changed on the way: %s", b->ptr);
    } else {
        ddb_json_put_plain_map(b, &rec->item);
        FUZZ_CHECK(ddb_json_parse_plain(p, &v, b->ptr, b->len, a, &err) == 0,
                   "written record does not parse (%s): %s", err.message, b->ptr);
        FUZZ_CHECK(v.type == DDB_TYPE_M && v.u.m.count == rec->item.count,
                   "record changed on the way: %s", b->ptr);
    }
}

/* Reads every record of rd, checking each. */
static inline void fuzz_drain_reader(ddb_reader *rd, size_t size)
{
    ddb_json_parser *p = NULL;
    ddb_arena *a = NULL;
    ddb_buf b = DDB_BUF_INIT;
    ddb_error err;
    if (ddb_json_parser_new(&p) != 0 || ddb_arena_new(&a, 0) != 0)
        abort();
    for (size_t n = 0;; n++) {
        ddb_record *rec;
        int rc = ddb_reader_next(rd, &rec, &err);
        if (rc == DDB_EVERIFY)
            continue;
        if (rc != 0)
            break;
        /* Every record uses up input: more records than bytes is a reader
         * that does not move on. */
        FUZZ_CHECK(n <= size, "record %zu from %zu bytes", n, size);
        ddb_arena_reset(a);
        fuzz_check_record(rec, p, a, &b);
    }
    ddb_buf_dispose(&b);
    ddb_arena_free(a);
    ddb_json_parser_free(p);
}

/* A finding a reader reports on the side: it names what it is about. */
static inline void fuzz_check_warning(void *ctx, const char *msg)
{
    (void)ctx;
    FUZZ_CHECK(msg != NULL && msg[0] != '\0', "an empty warning");
}

/* Every record of data read with the options o (o->format says which reader;
 * gzip when it starts like gzip). */
static inline void fuzz_read_records_with(const ddb_reader_opts *o, const uint8_t *data,
                                          size_t size)
{
    ddb_source *src = NULL;
    ddb_reader *rd = NULL;
    ddb_error err;
    int rc;

    if (ddb_source_new_memory(&src, data, size, "fuzz", &err) != 0)
        abort();
    if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b &&
        ddb_source_new_gzip(&src, src, &err) != 0)
        return;
    if (o->format == DDB_IN_CSV)
        rc = ddb_reader_new_csv(&rd, src, "fuzz.csv", o, &err);
    else if (o->format == DDB_IN_SCAN)
        rc = ddb_reader_new_scan(&rd, src, "fuzz.json", o, &err);
    else if (o->format == DDB_IN_JSON)
        rc = ddb_reader_new_json(&rd, src, "fuzz.json", o, &err);
    else if (o->format == DDB_IN_DATAPIPELINE)
        rc = ddb_reader_new_datapipeline(&rd, src, "fuzz.json", o, &err);
    else
        rc = ddb_reader_new_lines(&rd, src, o->format, "fuzz.json", o, &err);
    if (rc == 0)
        fuzz_drain_reader(rd, size);
    ddb_reader_free(rd);
}

/* Every record of data read as fmt. */
static inline void fuzz_read_records(ddb_input_format fmt, char delimiter, const uint8_t *data,
                                     size_t size)
{
    ddb_reader_opts o;
    memset(&o, 0, sizeof(o));
    o.format = fmt;
    o.delimiter = delimiter;
    o.max_line = 1u << 20;
    o.warn = fuzz_check_warning;
    fuzz_read_records_with(&o, data, size);
}

#endif
