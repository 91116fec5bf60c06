/*
 * reader_datapipeline.c — DynamoDB tables exported by AWS Data Pipeline and by EMR (Hive and the
 * emr-dynamodb-connector): one item per line, each value typed by a key the Java SDK's field
 * names spelled, not DynamoDB's: {"name":{"s":"x"},"n":{"n":"5"},"tags":{"sS":["a","b"]},
 * "nul":{"nULLValue":true},"ok":{"bOOL":true}} (the later connector writes "ss", "null",
 * "bool"; it reads any case, and so does this reader). B and BS hold base64, as there.
 *
 * Older exports (Hive's DynamoDBExportSerDe text form) have no braces around the item: each
 * attribute is its name, byte 0x03 (ETX), its value in the same JSON; attributes are separated
 * by byte 0x02 (STX): id<ETX>{"s":"Seattle"}<STX>scores<ETX>{"nS":["100","30"]}.
 *
 * Numbers stay their text. A line that is not exactly one of these shapes is a bad record,
 * never guessed at.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/json.h"
#include "ddbpipe/lines.h"
#include "ddbpipe/number.h"
#include "ddbpipe/reader.h"
#include "ddbpipe/source.h"
#include "read/reader_internal.h"

#define STX '\002' /* between attributes of the older form */
#define ETX '\003' /* between a name and its value there */

typedef struct dp_reader {
    ddb_reader base;
    ddb_lines *lines;
    ddb_arena *arena;
    ddb_json_parser *parser;
    ddb_record rec;
    uint64_t skip_below; /* lines starting before this offset are skipped unparsed */
    char reason[DDB_ERROR_MAX];
} dp_reader;

/* The type keys, lowercased, and DynamoDB's names for them. "nullvalue" is the SDK's
 * nULLValue field; the others are its fields (sS, bOOL) or the later lowercase names. */
static const struct {
    const char *key, *type;
} type_keys[] = {{"s", "S"},       {"n", "N"},       {"b", "B"},           {"ss", "SS"},
                 {"ns", "NS"},     {"bs", "BS"},     {"m", "M"},           {"l", "L"},
                 {"bool", "BOOL"}, {"null", "NULL"}, {"nullvalue", "NULL"}};

/* DynamoDB's name for the type key k[0, len) in any case, or NULL. */
static const char *type_for_key(const char *k, size_t len)
{
    for (size_t i = 0; i < sizeof(type_keys) / sizeof(type_keys[0]); i++) {
        const char *t = type_keys[i].key;
        size_t j = 0;
        while (j < len && t[j] != '\0' && (k[j] | 0x20) == t[j])
            j++;
        if (j == len && t[j] == '\0')
            return type_keys[i].type;
    }
    return NULL;
}

/* Renames the type keys of the plain tree v ({"sS":[...]}, maps and lists within) to
 * DynamoDB's, so that it reads as DynamoDB JSON; numbers are checked here, where their
 * text still is what the line said. The parser bounds the depth of the recursion. */
static int canon_typed(ddb_value *v, ddb_error *err)
{
    ddb_attr *t;
    ddb_value *in;
    const char *type;
    if (v->type != DDB_TYPE_M || v->u.m.count != 1)
        return ddb_error_set(err, DDB_EINVAL, "expected a typed value like {\"s\": \"x\"}");
    t = &v->u.m.attrs[0];
    if ((type = type_for_key(t->name.ptr, t->name.len)) == NULL)
        return ddb_error_set(err, DDB_EINVAL, "unknown type key '%.*s'", (int)t->name.len,
                             t->name.ptr);
    t->name.ptr = type;
    t->name.len = strlen(type);
    in = &t->value;
    if (strcmp(type, "N") == 0 && in->type == DDB_TYPE_S)
        return ddb_number_validate(in->u.s.ptr, in->u.s.len, err);
    if (strcmp(type, "M") == 0 && in->type == DDB_TYPE_M) {
        for (size_t i = 0; i < in->u.m.count; i++)
            if (canon_typed(&in->u.m.attrs[i].value, err) != 0)
                return DDB_EINVAL;
    } else if ((strcmp(type, "L") == 0 || strcmp(type, "NS") == 0) && in->type == DDB_TYPE_L) {
        for (size_t i = 0; i < in->u.l.count; i++) {
            ddb_value *m = &in->u.l.items[i];
            if (type[0] == 'L' ? canon_typed(m, err) != 0
                               : m->type == DDB_TYPE_S &&
                                     ddb_number_validate(m->u.s.ptr, m->u.s.len, err) != 0)
                return DDB_EINVAL;
        }
    }
    return 0;
}

/* One attribute's value from its JSON text. */
static int typed_value(dp_reader *dr, ddb_value *out, ddb_value *plain, ddb_error *err)
{
    if (canon_typed(plain, err) != 0)
        return DDB_EINVAL;
    return ddb_value_from_typed_json(out, plain, dr->arena, err);
}

/* {"name":{"s":"x"},...}: the attributes of the object. */
static int parse_object(dp_reader *dr, ddb_map *out, const char *line, size_t len, ddb_error *err)
{
    ddb_value plain;
    int rc;
    if ((rc = ddb_json_parse_plain(dr->parser, &plain, line, len, dr->arena, err)) != 0)
        return rc;
    if (plain.type != DDB_TYPE_M)
        return ddb_error_set(err, DDB_EINVAL, "not a JSON object");
    for (size_t i = 0; i < plain.u.m.count; i++) {
        ddb_attr *at = &plain.u.m.attrs[i];
        ddb_value typed;
        if ((rc = typed_value(dr, &typed, &at->value, err)) != 0)
            return ddb_error_prefix(err, "attribute '%.*s': ", (int)at->name.len, at->name.ptr);
        at->value = typed;
    }
    *out = plain.u.m;
    return 0;
}

/* name<ETX>value<STX>name<ETX>value...: Hive's text form, split as its SerDe splits it. */
static int parse_separated(dp_reader *dr, ddb_map *out, const char *line, size_t len,
                           ddb_error *err)
{
    size_t n = 1, k = 0;
    ddb_attr *attrs;
    for (size_t i = 0; i < len; i++)
        n += line[i] == STX;
    if ((attrs = ddb_arena_alloc(dr->arena, n * sizeof(*attrs))) == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    for (const char *p = line, *end = line + len; k < n; k++) {
        const char *stop = memchr(p, STX, (size_t)(end - p)), *etx;
        ddb_value plain;
        int rc;
        if (stop == NULL)
            stop = end;
        etx = memchr(p, ETX, (size_t)(stop - p));
        if (etx == NULL || etx == p || memchr(etx + 1, ETX, (size_t)(stop - etx - 1)) != NULL)
            return ddb_error_set(err, DDB_EINVAL,
                                 "attribute %zu is not name<0x03>value (one 0x03 byte after a "
                                 "name that is not empty)",
                                 k + 1);
        attrs[k].name.ptr = p;
        attrs[k].name.len = (size_t)(etx - p);
        rc = ddb_json_parse_plain(dr->parser, &plain, etx + 1, (size_t)(stop - etx - 1), dr->arena,
                                  err);
        if (rc == 0)
            rc = typed_value(dr, &attrs[k].value, &plain, err);
        if (rc != 0)
            return ddb_error_prefix(err, "attribute '%.*s': ", (int)attrs[k].name.len, p);
        p = stop + 1;
    }
    out->attrs = attrs;
    out->count = n;
    return 0;
}

static int blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
            return 0;
    return 1;
}

static int dp_next(ddb_reader *r, ddb_record **out, ddb_error *err)
{
    dp_reader *dr = (dp_reader *)r;
    const char *line;
    size_t len;
    ddb_error perr;
    int rc;

    do {
        rc = ddb_lines_next(dr->lines, &line, &len, err);
    } while ((rc == 0 && blank(line, len)) ||
             ((rc == 0 || rc == DDB_ETOOBIG) && ddb_lines_offset(dr->lines) < dr->skip_below));
    if (rc == DDB_ITEROVER)
        return rc;
    ddb_arena_reset(dr->arena);
    memset(&dr->rec, 0, sizeof(dr->rec));
    dr->rec.typed = 1;
    dr->rec.source = dr->base.name;
    dr->rec.line = ddb_lines_lineno(dr->lines);
    dr->rec.offset = dr->rec.pos = ddb_lines_offset(dr->lines);
    *out = &dr->rec;
    if (rc == DDB_ETOOBIG) {
        ddb_record_set_bad(&dr->rec, dr->reason, sizeof(dr->reason), err->message);
        ddb_error_clear(err);
        return 0;
    }
    if (rc != 0)
        return ddb_error_prefix(err, "%s: ", dr->base.name);
    dr->rec.raw = line;
    dr->rec.raw_len = len;
    len -= len > 0 && line[len - 1] == '\r';
    if (len > 0 && line[0] == '{')
        rc = parse_object(dr, &dr->rec.item, line, len, &perr);
    else
        rc = parse_separated(dr, &dr->rec.item, line, len, &perr);
    if (rc == DDB_ENOMEM)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    if (rc != 0) {
        ddb_record_set_bad(&dr->rec, dr->reason, sizeof(dr->reason), perr.message);
        return 0;
    }
    dr->rec.kind = DDB_REC_PUT;
    return 0;
}

static void dp_free(ddb_reader *r)
{
    dp_reader *dr = (dp_reader *)r;
    ddb_lines_free(dr->lines);
    ddb_arena_free(dr->arena);
    ddb_json_parser_free(dr->parser);
}

static uint64_t dp_raw_bytes(const ddb_reader *r)
{
    return ddb_source_raw_bytes(ddb_lines_source(((const dp_reader *)r)->lines));
}

static uint64_t dp_decoded_bytes(const ddb_reader *r)
{
    return ddb_lines_source(((const dp_reader *)r)->lines)->bytes_in;
}

static int dp_skip_to(ddb_reader *r, uint64_t pos, ddb_error *err)
{
    (void)err;
    ((dp_reader *)r)->skip_below = pos;
    return 0;
}

static const ddb_reader_vtable dp_vtable = {"Data Pipeline export",
                                            dp_next,
                                            dp_free,
                                            dp_raw_bytes,
                                            dp_decoded_bytes,
                                            dp_skip_to,
                                            NULL,
                                            NULL,
                                            NULL,
                                            NULL};

int ddb_reader_new_datapipeline(ddb_reader **out, ddb_source *src, const char *name,
                                const ddb_reader_opts *opts, ddb_error *err)
{
    dp_reader *dr = calloc(1, sizeof(*dr));
    int rc;

    *out = NULL;
    if (dr == NULL) {
        ddb_source_free(src);
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    }
    if ((rc = ddb_lines_new(&dr->lines, src, opts ? opts->max_line : 0, err)) != 0) {
        free(dr);
        return rc;
    }
    if (ddb_arena_new(&dr->arena, 0) != 0 || ddb_json_parser_new(&dr->parser) != 0 ||
        ddb_reader_base_init(&dr->base, &dp_vtable, name, DDB_IN_DATAPIPELINE, opts) != 0) {
        dp_free(&dr->base);
        free(dr->base.name);
        free(dr->base.entity_hint);
        free(dr);
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    }
    *out = &dr->base;
    return 0;
}

/* ---------------------------------------------------------------- bidding */

/* At p[i] (past a '{' or an 0x03), does a typed value start whose type key only these exports
 * spell: {"s":, {"sS":, {"nULLValue":...? DynamoDB's own spellings ("S") bid nothing here. */
static int lowercase_typed_at(const unsigned char *p, size_t i, size_t n)
{
    size_t klen = 0;
    const unsigned char *k;
    i = ddb_sniff_skip_ws(p, i, n);
    if (i >= n || p[i] != '{' || (k = ddb_sniff_first_key(p, i, n, &klen)) == NULL)
        return 0;
    return k[0] >= 'a' && k[0] <= 'z' && type_for_key((const char *)k, klen) != NULL;
}

/* Does line read as an item of these exports? */
static int first_line_reads(const unsigned char *line, size_t len)
{
    dp_reader dr;
    ddb_map item;
    ddb_error err;
    int ok = 0;
    memset(&dr, 0, sizeof(dr));
    if (ddb_arena_new(&dr.arena, 0) == 0 && ddb_json_parser_new(&dr.parser) == 0) {
        len -= len > 0 && line[len - 1] == '\r';
        ok = (line[0] == '{' ? parse_object(&dr, &item, (const char *)line, len, &err)
                             : parse_separated(&dr, &item, (const char *)line, len, &err)) == 0;
    }
    ddb_arena_free(dr.arena);
    ddb_json_parser_free(dr.parser);
    return ok;
}

/* The first line: an object whose first attribute's value is typed by such a key, or a name,
 * an 0x03 byte and such a value. */
static int bid_datapipeline(const unsigned char *p, size_t n, const char *path)
{
    size_t i = ddb_sniff_start(p, n), klen = 0, eol;
    const unsigned char *k, *sep;
    (void)path;
    if (i == n)
        return 0;
    for (eol = i; eol < n && p[eol] != '\n'; eol++)
        ;
    if (p[i] == '{') {
        if ((k = ddb_sniff_first_key(p, i, n, &klen)) == NULL)
            return 0;
        sep = p + ddb_sniff_skip_ws(p, (size_t)(k - p) + klen + 1, n);
        if (sep >= p + n || *sep != ':' || !lowercase_typed_at(p, (size_t)(sep - p) + 1, n))
            return 0;
    } else {
        sep = memchr(p + i, ETX, eol - i);
        if (sep == NULL || sep == p + i || !lowercase_typed_at(p, (size_t)(sep - p) + 1, n))
            return 0;
    }
    /* A plain record may hold an object like {"s": ...} too: a whole first line must read
     * as an item, every attribute typed so. */
    return eol == n && n >= SNIFF_BYTES ? 60 : first_line_reads(p + i, eol - i) ? 75 : 0;
}

const ddb_reader_bidder ddb_datapipeline_bidder = {DDB_IN_DATAPIPELINE, bid_datapipeline,
                                                   ddb_reader_new_datapipeline};
