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
#include "ddbpipe/lines.h"
#include "ddbpipe/source.h"
#include "read/reader_internal.h"

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
    int first_done;      /* NDJSON: the first line was read (it decides what the input is) */
    int as_given;        /* NDJSON given as the format: lines read as plain, unchecked */
    char reason[DDB_ERROR_MAX];
} lines_reader;

static int blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
            return 0;
    return 1;
}

/* How a line is parsed: the reader's format and the shape of its lines
 * (decided by the first line; a file may mix shapes, each line is tried as
 * the one it looks like). */
typedef struct line_shape {
    ddb_input_format kind;
    ddb_json_line_kind shape;
    int known;
    int as_given; /* NDJSON: the format was given, not told (lines_reader's as_given) */
} line_shape;

/* Where a parse puts its results and its reason for refusing a line. */
typedef struct line_out {
    ddb_record *rec;
    ddb_json_parser *parser;
    ddb_arena *arena;
    char *reason; /* cap bytes, or NULL: allocated in arena when needed */
    size_t cap;
    int typed; /* NDJSON: the line was refused for holding DynamoDB JSON */
} line_out;

static int set_bad(line_out *o, const char *reason)
{
    if (o->reason == NULL) {
        o->cap = strlen(reason) + 1;
        if ((o->reason = ddb_arena_alloc(o->arena, o->cap)) == NULL)
            return DDB_ENOMEM;
    }
    ddb_record_set_bad(o->rec, o->reason, o->cap, reason);
    return 0;
}

/* sh is updated when a line settles what the file's lines are. */
static int parse_ddbjson(line_shape *sh, line_out *o, const char *line, size_t len)
{
    ddb_record *rec = o->rec;
    ddb_json_change ch;
    ddb_error perr;
    int rc;

    if (!sh->known) {
        /* The first line decides; an unrecognisable one is parsed as {"Item":..}
         * so its error message says what was expected. */
        if (!ddb_json_sniff_line(&sh->shape, line, len))
            sh->shape = DDB_JSON_LINE_ITEM;
        else
            sh->known = 1;
    }
    rc = ddb_json_parse_line(o->parser, sh->shape, &rec->item, &ch, line, len, o->arena, &perr);
    if (rc != 0) {
        /* A file may mix shapes (bare items after {"Item"} lines): try the one
         * this line looks like before calling it bad. */
        ddb_json_line_kind other = sh->shape;
        if (rc != DDB_ENOMEM && ddb_json_sniff_line(&other, line, len) && other != sh->shape) {
            rc = ddb_json_parse_line(o->parser, other, &rec->item, &ch, line, len, o->arena, &perr);
            if (rc == 0 && !sh->known) {
                sh->shape = other;
                sh->known = 1;
            }
        }
        if (rc != 0)
            return set_bad(o, perr.message);
        if (other == DDB_JSON_LINE_CHANGE)
            goto change;
        rec->kind = DDB_REC_PUT;
        return 0;
    }
    if (sh->shape != DDB_JSON_LINE_CHANGE) {
        rec->kind = DDB_REC_PUT;
        rec->names_id = ddb_json_parser_names_id(o->parser);
        return 0;
    }
change:
    rec->write_time = ch.write_time;
    if (ch.has_new_image) {
        rec->kind = DDB_REC_PUT;
        rec->change = ch.has_old_image ? DDB_CHANGE_MODIFY : DDB_CHANGE_INSERT;
        rec->item = ch.new_image;
    } else {
        rec->kind = DDB_REC_DELETE;
        rec->change = DDB_CHANGE_REMOVE;
        rec->item = ch.keys;
    }
    return 0;
}

/* A plain record holding DynamoDB JSON is refused (o->typed set) unless the
 * format was given: told from the content, it is no shape ddbpipe knows. */
static int parse_ndjson(const line_shape *sh, line_out *o, const char *line, size_t len)
{
    ddb_value v;
    ddb_error perr;
    char why[DDB_ERROR_MAX - 100];
    if (ddb_json_parse_plain(o->parser, &v, line, len, o->arena, &perr) != 0)
        return set_bad(o, perr.message);
    if (v.type != DDB_TYPE_M)
        return set_bad(o, "expected a JSON object per line");
    if (!sh->as_given && ddb_plain_holds_typed(&v.u.m, why, sizeof(why))) {
        o->typed = 1;
        return set_bad(o, why);
    }
    o->rec->kind = DDB_REC_PUT;
    o->rec->item = v.u.m;
    return 0;
}

static int parse_line(line_shape *sh, line_out *o, const char *line, size_t len)
{
    o->rec->reason = NULL;
    o->rec->item_text.ptr = NULL;
    o->rec->item_text.len = 0;
    /* the JSON lexer refuses invalid UTF-8 and unpaired surrogates */
    o->rec->utf8_checked = 1;
    o->rec->names_id = 0;
    if (sh->kind == DDB_IN_NDJSON)
        return parse_ndjson(sh, o, line, len);
    return parse_ddbjson(sh, o, line, len);
}

/* A deferred line's shape travels in rec->parse_as: the format's number
 * times 8 plus the line shape (decided by then), of NDJSON as_given. */
#define PARSE_AS(kind, shape) ((int)(kind)*8 + (int)(shape))

int ddb_record_parse(ddb_record *rec, ddb_json_parser *p, ddb_arena *a)
{
    line_shape sh = {(ddb_input_format)(rec->parse_as / 8), (ddb_json_line_kind)(rec->parse_as % 8),
                     1, 0};
    line_out o = {rec, p, a, NULL, 0, 0};
    if (!rec->unparsed)
        return 0;
    rec->unparsed = 0;
    if (sh.kind == DDB_IN_NDJSON) {
        sh.as_given = (int)sh.shape;
        sh.shape = 0;
    }
    return parse_line(&sh, &o, rec->raw, rec->raw_len);
}

/* The next non-blank line, into lr->rec's position fields and raw; a line
 * too long for the splitter comes back as a bad record (*done set). */
static int next_line(lines_reader *lr, ddb_record **out, int *done, ddb_error *err)
{
    const char *line;
    size_t len;
    int rc;

    *done = 0;
    for (;;) {
        rc = ddb_lines_next(lr->lines, &line, &len, err);
        if (rc == DDB_ITEROVER)
            return rc;
        ddb_arena_reset(lr->arena);
        memset(&lr->rec.write_time, 0, sizeof(lr->rec.write_time));
        lr->rec.change = DDB_CHANGE_NONE;
        lr->rec.unparsed = 0;
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
            /* the splitter's message names the file and line, which the
             * report of a bad record puts before its reason anyway */
            const char *why = strstr(err->message, "line longer than");
            ddb_record_set_bad(&lr->rec, lr->reason, sizeof(lr->reason), why ? why : err->message);
            ddb_error_clear(err);
            *out = &lr->rec;
            *done = 1;
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
    *out = &lr->rec;
    return 0;
}

/* Parses the line read. Of NDJSON, a first line holding DynamoDB JSON refuses
 * the input (what it is is unknown: a stream record, an API request); a later
 * one is rejected with its line. */
static int lines_parse_here(lines_reader *lr, ddb_error *err)
{
    line_shape sh = {lr->kind, lr->shape, lr->shape_known, lr->as_given};
    line_out o = {&lr->rec, lr->parser, lr->arena, lr->reason, sizeof(lr->reason), 0};
    int first = !lr->first_done;
    (void)parse_line(&sh, &o, lr->rec.raw, lr->rec.raw_len); /* a reason always fits lr->reason */
    lr->first_done = 1;
    if (o.typed && first)
        return ddb_error_set(err, DDB_EINVAL, "%s: line %llu: %s", lr->base.name,
                             (unsigned long long)lr->rec.line, lr->rec.reason);
    lr->shape = sh.shape;
    lr->shape_known = sh.known;
    if (lr->kind != DDB_IN_NDJSON && lr->rec.kind == DDB_REC_PUT &&
        lr->rec.change == DDB_CHANGE_NONE)
        lr->rec.item_text = ddb_json_parser_item_text(lr->parser);
    return 0;
}

static int lines_next(ddb_reader *r, ddb_record **out, ddb_error *err)
{
    lines_reader *lr = (lines_reader *)r;
    int done, rc = next_line(lr, out, &done, err);
    if (rc != 0 || done)
        return rc;
    return lines_parse_here(lr, err);
}

/* Lines are left unparsed once the file's shape is settled (before that,
 * parsing a line may settle it, so it is parsed here, in order). */
static int lines_next_unparsed(ddb_reader *r, ddb_record **out, ddb_error *err)
{
    lines_reader *lr = (lines_reader *)r;
    int done, rc = next_line(lr, out, &done, err);
    if (rc != 0 || done)
        return rc;
    if (lr->kind == DDB_IN_NDJSON ? !lr->first_done : !lr->shape_known)
        return lines_parse_here(lr, err);
    lr->rec.unparsed = 1;
    lr->rec.parse_as =
        PARSE_AS(lr->kind, lr->kind == DDB_IN_NDJSON ? lr->as_given : (int)lr->shape);
    lr->rec.kind = DDB_REC_PUT;
    lr->rec.reason = NULL;
    lr->rec.item.attrs = NULL;
    lr->rec.item.count = 0;
    lr->rec.item_text.ptr = NULL;
    lr->rec.item_text.len = 0;
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
    "JSON lines", lines_next, lines_free, lines_raw_bytes,    lines_decoded_bytes, lines_skip_to,
    NULL,         NULL,       NULL,       lines_next_unparsed};

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
    lr->as_given = opts != NULL && opts->format == DDB_IN_NDJSON;
    lr->rec.typed = kind != DDB_IN_NDJSON;
    lr->rec.source = lr->base.name;
    *out = &lr->base;
    return rc;
}
