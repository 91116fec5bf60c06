/*
 * Line-oriented readers: DynamoDB JSON lines ({"Item":..}, bare items,
 * incremental change records) and plain NDJSON. One record per non-empty
 * line; values point into the line buffer and the reader's arena, both
 * recycled on the next call.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/json.h"
#include "ddbpipe/reader.h"
#include "reader_internal.h"

typedef struct lines_reader {
    ddb_reader base;
    ddb_lines *lines;
    ddb_arena *arena;
    ddb_json_parser *parser;
    ddb_input_format kind;
    int shape_known;
    ddb_json_line_kind shape;
    ddb_record rec;
    uint64_t skip_below; /* lines starting before this offset are skipped unparsed */
    char reason[DDB_ERROR_MAX];
} lines_reader;

static int blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
            return 0;
    return 1;
}

static void set_bad(lines_reader *lr, const char *reason)
{
    ddb_record_set_bad(&lr->rec, lr->reason, sizeof(lr->reason), reason);
}

static void parse_ddbjson(lines_reader *lr, const char *line, size_t len)
{
    ddb_json_change ch;
    ddb_error perr;
    int rc;

    if (!lr->shape_known) {
        /* The first line decides; an unrecognisable one is parsed as {"Item":..}
         * so its error message says what was expected. */
        if (!ddb_json_sniff_line(&lr->shape, line, len))
            lr->shape = DDB_JSON_LINE_ITEM;
        else
            lr->shape_known = 1;
    }
    rc =
        ddb_json_parse_line(lr->parser, lr->shape, &lr->rec.item, &ch, line, len, lr->arena, &perr);
    if (rc != 0) {
        /* A file may mix shapes (bare items after {"Item"} lines): try the one
         * this line looks like before calling it bad. */
        ddb_json_line_kind other = lr->shape;
        if (rc != DDB_ENOMEM && ddb_json_sniff_line(&other, line, len) && other != lr->shape) {
            ddb_arena_reset(lr->arena);
            rc = ddb_json_parse_line(lr->parser, other, &lr->rec.item, &ch, line, len, lr->arena,
                                     &perr);
            if (rc == 0 && !lr->shape_known) {
                lr->shape = other;
                lr->shape_known = 1;
            }
        }
        if (rc != 0) {
            set_bad(lr, perr.message);
            return;
        }
        if (other == DDB_JSON_LINE_CHANGE)
            goto change;
        lr->rec.kind = DDB_REC_PUT;
        return;
    }
    if (lr->shape != DDB_JSON_LINE_CHANGE) {
        lr->rec.kind = DDB_REC_PUT;
        return;
    }
change:
    lr->rec.write_time = ch.write_time;
    if (ch.has_new_image) {
        lr->rec.kind = DDB_REC_PUT;
        lr->rec.change = ch.has_old_image ? DDB_CHANGE_MODIFY : DDB_CHANGE_INSERT;
        lr->rec.item = ch.new_image;
    } else {
        lr->rec.kind = DDB_REC_DELETE;
        lr->rec.change = DDB_CHANGE_REMOVE;
        lr->rec.item = ch.keys;
    }
}

static void parse_ndjson(lines_reader *lr, const char *line, size_t len)
{
    ddb_value v;
    ddb_error perr;
    if (ddb_json_parse_plain(lr->parser, &v, line, len, lr->arena, &perr) != 0) {
        set_bad(lr, perr.message);
        return;
    }
    if (v.type != DDB_TYPE_M) {
        set_bad(lr, "expected a JSON object per line");
        return;
    }
    lr->rec.kind = DDB_REC_PUT;
    lr->rec.item = v.u.m;
}

static int lines_next(ddb_reader *r, ddb_record **out, ddb_error *err)
{
    lines_reader *lr = (lines_reader *)r;
    const char *line;
    size_t len;
    int rc;

    for (;;) {
        rc = ddb_lines_next(lr->lines, &line, &len, err);
        if (rc == DDB_ITEROVER)
            return rc;
        ddb_arena_reset(lr->arena);
        memset(&lr->rec.write_time, 0, sizeof(lr->rec.write_time));
        lr->rec.change = DDB_CHANGE_NONE;
        lr->rec.line = ddb_lines_lineno(lr->lines);
        lr->rec.offset = ddb_lines_offset(lr->lines);
        lr->rec.pos = lr->rec.offset;
        if (lr->rec.offset < lr->skip_below) {
            ddb_error_clear(err);
            continue; /* resuming: already accounted for */
        }
        if (rc == DDB_ETOOBIG) {
            /* Skipped by the splitter: report it as a bad record, then go on. */
            lr->rec.raw = NULL;
            lr->rec.raw_len = 0;
            lr->rec.item_text.ptr = NULL;
            lr->rec.item_text.len = 0;
            set_bad(lr, err->message);
            ddb_error_clear(err);
            *out = &lr->rec;
            return 0;
        }
        if (rc != 0)
            return rc;
        if (lr->rec.offset == 0 && len >= 3 && memcmp(line, "\xEF\xBB\xBF", 3) == 0) {
            line += 3; /* a UTF-8 byte-order mark is not part of the first record */
            len -= 3;
        }
        if (blank(line, len))
            continue;
        break;
    }
    lr->rec.raw = line;
    lr->rec.raw_len = len;
    lr->rec.reason = NULL;
    lr->rec.item_text.ptr = NULL;
    lr->rec.item_text.len = 0;
    if (lr->kind == DDB_IN_NDJSON) {
        parse_ndjson(lr, line, len);
    } else {
        parse_ddbjson(lr, line, len);
        if (lr->rec.kind == DDB_REC_PUT && lr->rec.change == DDB_CHANGE_NONE)
            lr->rec.item_text = ddb_json_parser_item_text(lr->parser);
    }
    *out = &lr->rec;
    return 0;
}

static void lines_free(ddb_reader *r)
{
    lines_reader *lr = (lines_reader *)r;
    ddb_lines_free(lr->lines);
    ddb_arena_free(lr->arena);
    ddb_json_parser_free(lr->parser);
}

static uint64_t lines_raw_bytes(const ddb_reader *r)
{
    const lines_reader *lr = (const lines_reader *)r;
    return ddb_source_raw_bytes(ddb_lines_source(lr->lines));
}

static uint64_t lines_decoded_bytes(const ddb_reader *r)
{
    const lines_reader *lr = (const lines_reader *)r;
    return ddb_lines_source(lr->lines)->bytes_in;
}

static int lines_skip_to(ddb_reader *r, uint64_t pos, ddb_error *err)
{
    (void)err;
    ((lines_reader *)r)->skip_below = pos;
    return 0;
}

static const ddb_reader_vtable lines_vtable = {
    "JSON lines", lines_next, lines_free, lines_raw_bytes, lines_decoded_bytes, lines_skip_to,
    NULL,         NULL,       NULL};

int ddb_reader_new_lines(ddb_reader **out, ddb_source *src, ddb_input_format kind, const char *name,
                         const ddb_reader_opts *opts, ddb_error *err)
{
    lines_reader *lr = calloc(1, sizeof(*lr));
    int rc = 0;

    *out = NULL;
    if (lr == NULL) {
        ddb_source_free(src);
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    }
    if ((rc = ddb_lines_new(&lr->lines, src, opts ? opts->max_line : 0, err)) != 0) {
        free(lr);
        return rc;
    }
    if (ddb_arena_new(&lr->arena, 0) != 0 || ddb_json_parser_new(&lr->parser) != 0 ||
        ddb_reader_base_init(&lr->base, &lines_vtable, name, kind, opts) != 0) {
        lines_free(&lr->base);
        free(lr->base.name);
        free(lr->base.entity_hint);
        free(lr);
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    }
    lr->kind = kind;
    lr->rec.typed = kind != DDB_IN_NDJSON;
    lr->rec.source = lr->base.name;
    *out = &lr->base;
    return rc;
}
