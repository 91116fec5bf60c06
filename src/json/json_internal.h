/*
 * json_internal.h (private header of json/) — the lexer under the JSON parser: the parse
 * context, error messages naming the attribute path and column, whitespace,
 * strings (escapes, UTF-8), numbers and literals. json_lex.c implements it;
 * json_parse.c builds values on top of it.
 *
 * The helpers called for every token are static inline here so the parser's
 * hot loops do not pay a call across files for them.
 */
#ifndef DDBPIPE_JSON_INTERNAL_H
#define DDBPIPE_JSON_INTERNAL_H

#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "ddbpipe/json.h"

/* JSON nesting allowed by the parser itself. DynamoDB's own limit (32 levels)
 * is enforced by item validation with a precise message; this bound only
 * protects the C stack from hostile input. */
#define JSON_MAX_NESTING 128
#define JSON_PATH_MAX_DEPTH 40

typedef struct json_path_elem {
    const char *name; /* NULL for a list index */
    size_t len;
    size_t index;
} json_path_elem;

/* Skeletons of lines read before (json_skeleton.c), the most recent first. */
#define JSON_SKELS 8
typedef struct json_skel json_skel;

struct ddb_json_parser {
    ddb_stack stack;
    json_path_elem path[JSON_PATH_MAX_DEPTH];
    int path_depth;
    ddb_str item_text; /* the last ITEM or BARE line's item object, verbatim */
    json_skel *skel[JSON_SKELS];
    size_t skel_last;                              /* the one that read the last line */
    unsigned short shared[JSON_SKELS][JSON_SKELS]; /* leading literals i and j share */
    uint64_t names_id;                             /* ddb_json_parser_names_id */
    uint64_t skel_hits, skel_misses;
    int skel_off; /* skeletons matched too few lines: not tried any more */
};

typedef struct json_ctx {
    ddb_json_parser *p;
    const char *start;
    const char *s;
    const char *end;
    ddb_arena *a;
    ddb_error *err;
    int nesting;
} json_ctx;

/* Starts parsing text[0, len) with p's scratch stack and path, allocating
 * into a; messages go to err (may be NULL). */
void ddb_json_lex_init(json_ctx *c, ddb_json_parser *p, const char *text, size_t len, ddb_arena *a,
                       ddb_error *err);

/* Sets a DDB_EINVAL error at the current position ("attribute 'a.b[2]'
 * (column N): reason") and returns DDB_EINVAL. */
__attribute__((format(printf, 2, 3))) int ddb_json_lex_fail(json_ctx *c, const char *fmt, ...);

/* Sets and returns DDB_ENOMEM. */
int ddb_json_lex_oom(json_ctx *c);

/* Describes the current byte for "expected X, found Y" messages; tmp has room
 * for 8 bytes. */
const char *ddb_json_lex_found(json_ctx *c, char *tmp);

/* Parses a string literal at c->s (which must be '"'). Zero-copy when the body
 * has no escapes, else decoded into the arena. Validates UTF-8 and rejects raw
 * control characters. Returns 0 or fails with the position of the problem. */
int ddb_json_lex_string_any(json_ctx *c, ddb_str *out);

/* ddb_json_lex_string_any, with the usual case inline: a string of plain
 * ASCII (no escape, no control character, nothing to check as UTF-8) that
 * ends within sixteen bytes, found in one look: most names and values of a
 * DynamoDB JSON line. */
static inline int ddb_json_lex_string(json_ctx *c, ddb_str *out)
{
#ifdef __SSE2__
    if (c->end - c->s >= 17 && *c->s == '"') {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(c->s + 1));
        unsigned q = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8('"')));
        /* a backslash, a control character or a non-ASCII byte (negative) */
        unsigned sp = (unsigned)_mm_movemask_epi8(_mm_or_si128(
            _mm_cmpeq_epi8(x, _mm_set1_epi8('\\')), _mm_cmplt_epi8(x, _mm_set1_epi8(0x20))));
        if (q != 0 && (sp & ((q & (0u - q)) - 1)) == 0) {
            size_t n = (size_t)__builtin_ctz(q);
            out->ptr = c->s + 1;
            out->len = n;
            c->s += n + 2;
            return 0;
        }
    }
#endif
    return ddb_json_lex_string_any(c, out);
}

/* Length of the RFC 8259 number at s (0 when there is none). */
size_t ddb_json_lex_number(const char *s, const char *end);

/* Reads the line text[0, len) of the given kind (ddb_json_line_kind: ITEM or
 * BARE) by a skeleton p learned: 1 with item filled (in a) and p->item_text
 * set, exactly as ddb_json_parse_line would; 0 when no skeleton fits (the
 * parser must read it); DDB_ENOMEM. With used (BARE only), the item need
 * only begin text, as ddb_json_parse_item_prefix reads it: *used is one
 * past its '}'. */
int ddb_json_skel_read(ddb_json_parser *p, int kind, ddb_map *item, const char *text, size_t len,
                       size_t *used, ddb_arena *a);

/* Learns the skeleton of a line the parser has just read into item (and
 * p->item_text), if its values are all S or N without escapes. Cannot fail:
 * without memory, nothing is learned. */
void ddb_json_skel_learn(ddb_json_parser *p, int kind, const ddb_map *item, const char *text,
                         size_t len);

/* Frees p's skeletons. */
void ddb_json_skel_free_all(ddb_json_parser *p);

/* Fails unless only whitespace follows the top-level value. */
int ddb_json_lex_finish(json_ctx *c);

static inline void json_skip_ws(json_ctx *c)
{
    while (c->s < c->end && (*c->s == ' ' || *c->s == '\t' || *c->s == '\n' || *c->s == '\r'))
        c->s++;
}

/* Skips whitespace and consumes ch, or fails "expected <what>, found ...". */
static inline int json_expect(json_ctx *c, char ch, const char *what)
{
    char tmp[8];
    json_skip_ws(c);
    if (c->s < c->end && *c->s == ch) {
        c->s++;
        return 0;
    }
    return ddb_json_lex_fail(c, "expected %s, found %s", what, ddb_json_lex_found(c, tmp));
}

/* Consumes the literal lit (n bytes) when it is next; returns 1 if it was. */
static inline int json_match(json_ctx *c, const char *lit, size_t n)
{
    if ((size_t)(c->end - c->s) >= n && memcmp(c->s, lit, n) == 0) {
        c->s += n;
        return 1;
    }
    return 0;
}

/* One more level of containers; the caller decrements c->nesting on leaving. */
static inline int json_enter(json_ctx *c)
{
    if (++c->nesting > JSON_MAX_NESTING)
        return ddb_json_lex_fail(c, "JSON nested deeper than %d levels", JSON_MAX_NESTING);
    return 0;
}

/* The attribute path for messages: pushed around each member and element.
 * Levels past JSON_PATH_MAX_DEPTH are counted but not recorded. */
static inline void json_path_push_name(json_ctx *c, const char *name, size_t len)
{
    ddb_json_parser *p = c->p;
    if (p->path_depth < JSON_PATH_MAX_DEPTH) {
        p->path[p->path_depth].name = name;
        p->path[p->path_depth].len = len;
    }
    p->path_depth++;
}

static inline void json_path_push_index(json_ctx *c, size_t index)
{
    ddb_json_parser *p = c->p;
    if (p->path_depth < JSON_PATH_MAX_DEPTH) {
        p->path[p->path_depth].name = NULL;
        p->path[p->path_depth].index = index;
    }
    p->path_depth++;
}

static inline void json_path_pop(json_ctx *c)
{
    c->p->path_depth--;
}

#endif
