/*
 * JSON parsing straight into ddb_values. Recursive descent over a byte range;
 * containers are staged on a scratch stack and copied to the arena once their
 * length is known. Strings without escapes are not copied at all. The lexer
 * (strings, numbers, messages) is in json_lex.c.
 */
#include "ddbpipe/json.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/codec.h"
#include "json/json_internal.h"

int ddb_json_parser_new(ddb_json_parser **out)
{
    ddb_json_parser *p = calloc(1, sizeof(*p));
    if (p == NULL)
        return DDB_ENOMEM;
    *out = p;
    return 0;
}

void ddb_json_parser_free(ddb_json_parser *p)
{
    if (p == NULL)
        return;
    ddb_json_skel_free_all(p);
    ddb_stack_dispose(&p->stack);
    free(p);
}

/* ------------------------------------------------------------ containers */

/* Parses one member value or array element (plain or typed JSON). */
typedef int (*value_parser)(json_ctx *c, ddb_value *out);

/* The members of an object into m (object 1: {name, value} pairs,
 * colon_what naming the ':' after each name) or the elements of an array
 * into l (object 0),
 * whose opening bracket was just consumed, through the closing one;
 * close_what names what may follow each. Each value goes through
 * parse_value; the pairs or values are staged on the scratch stack and copied
 * to the arena in one piece. One walk for both, so objects and arrays cannot
 * drift apart in what they accept or how they word an error. Always inlined,
 * into parse_members and parse_elements: there object is a constant, and
 * each copy has only its own steps (called as one function for both, it
 * cost 4% more instructions on an export of lists of maps). */
static inline __attribute__((always_inline)) int
parse_container(json_ctx *c, int object, value_parser parse_value, const char *colon_what,
                const char *close_what, ddb_map *m, ddb_list *l)
{
    const char close = object ? '}' : ']';
    const size_t size = object ? sizeof(ddb_attr) : sizeof(ddb_value);
    size_t n = 0;
    void *items = NULL;
    int rc;

    if ((rc = json_enter(c)) != 0)
        return rc;
    json_skip_ws(c);
    if (c->s < c->end && *c->s == close) {
        c->s++;
        goto done;
    }
    for (;;) {
        ddb_attr attr;
        void *slot;
        if (object) {
            json_skip_ws(c);
            if ((rc = ddb_json_lex_string(c, &attr.name)) != 0)
                return rc;
            if ((rc = json_expect(c, ':', colon_what)) != 0)
                return rc;
            json_path_push_name(c, attr.name.ptr, attr.name.len);
        } else {
            json_path_push_index(c, n);
        }
        rc = parse_value(c, &attr.value);
        json_path_pop(c);
        if (rc != 0)
            return rc;
        if ((slot = ddb_stack_push(&c->p->stack, size)) == NULL)
            return ddb_json_lex_oom(c);
        if (object)
            *(ddb_attr *)slot = attr;
        else
            *(ddb_value *)slot = attr.value;
        n++;
        json_skip_ws(c);
        if (c->s < c->end && *c->s == ',') {
            c->s++;
            continue;
        }
        if ((rc = json_expect(c, close, close_what)) != 0)
            return rc;
        break;
    }
done:
    c->nesting--;
    if (n && (items = ddb_stack_pop_to_arena(&c->p->stack, n * size, c->a)) == NULL)
        return ddb_json_lex_oom(c);
    if (object) {
        m->count = n;
        m->attrs = items;
    } else {
        l->count = n;
        l->items = items;
    }
    return 0;
}

/* An object's members into out (see parse_container). */
static int parse_members(json_ctx *c, value_parser parse_value, const char *colon_what,
                         const char *close_what, ddb_map *out)
{
    return parse_container(c, 1, parse_value, colon_what, close_what, out, NULL);
}

/* An array's elements into out (see parse_container). */
static int parse_elements(json_ctx *c, value_parser parse_value, const char *close_what,
                          ddb_list *out)
{
    return parse_container(c, 0, parse_value, NULL, close_what, NULL, out);
}

/* ------------------------------------------------------------ plain JSON */

static int parse_plain(json_ctx *c, ddb_value *out)
{
    char tmp[8];
    size_t n;
    int rc;

    memset(out, 0, sizeof(*out));
    json_skip_ws(c);
    if (c->s >= c->end)
        return ddb_json_lex_fail(c, "expected a value, found end of input");
    switch (*c->s) {
    case '{':
        c->s++;
        if ((rc = parse_members(c, parse_plain, "':' after object key", "',' or '}' in object",
                                &out->u.m)) != 0)
            return rc;
        out->type = DDB_TYPE_M;
        return 0;
    case '[':
        c->s++;
        if ((rc = parse_elements(c, parse_plain, "',' or ']' in array", &out->u.l)) != 0)
            return rc;
        out->type = DDB_TYPE_L;
        return 0;
    case '"':
        out->type = DDB_TYPE_S;
        return ddb_json_lex_string(c, &out->u.s);
    case 't':
        if (json_match(c, "true", 4)) {
            *out = ddb_value_bool(1);
            return 0;
        }
        break;
    case 'f':
        if (json_match(c, "false", 5)) {
            *out = ddb_value_bool(0);
            return 0;
        }
        break;
    case 'n':
        if (json_match(c, "null", 4)) {
            *out = ddb_value_null();
            return 0;
        }
        break;
    default:
        n = ddb_json_lex_number(c->s, c->end);
        if (n > 0) {
            *out = ddb_value_str(DDB_TYPE_N, c->s, n);
            c->s += n;
            return 0;
        }
        break;
    }
    return ddb_json_lex_fail(c, "expected a JSON value, found %s", ddb_json_lex_found(c, tmp));
}

int ddb_json_parse_plain(ddb_json_parser *p, ddb_value *out, const char *text, size_t len,
                         ddb_arena *a, ddb_error *err)
{
    json_ctx c;
    int rc;
    ddb_json_lex_init(&c, p, text, len, a, err);
    if ((rc = parse_plain(&c, out)) != 0)
        return rc;
    return ddb_json_lex_finish(&c);
}

/* ------------------------------------------------------------ typed JSON */

static int parse_typed(json_ctx *c, ddb_value *out);

static int parse_typed_map_body(json_ctx *c, ddb_map *out)
{
    int rc;
    if ((rc = json_expect(c, '{', "'{' to open an attribute map")) != 0)
        return rc;
    return parse_members(c, parse_typed, "':' after attribute name", "',' or '}' in attribute map",
                         out);
}

static int parse_base64(json_ctx *c, ddb_str *out)
{
    const char *at;
    ddb_str text;
    unsigned char *bytes;
    size_t n, bad;
    int rc;

    json_skip_ws(c);
    at = c->s;
    if ((rc = ddb_json_lex_string(c, &text)) != 0)
        return rc;
    bytes = ddb_arena_alloc(c->a, text.len / 4 * 3 + 1);
    if (bytes == NULL)
        return ddb_json_lex_oom(c);
    if (ddb_base64_decode(bytes, &n, text.ptr, text.len, &bad) != 0) {
        c->s = at;
        return ddb_json_lex_fail(c, "invalid base64 at character %zu of the binary value", bad + 1);
    }
    out->ptr = (const char *)bytes;
    out->len = n;
    return 0;
}

/* Set members: bare strings (SS, NS) or base64 strings (BS). */
static int parse_set_member(json_ctx *c, ddb_type member, ddb_value *out)
{
    memset(out, 0, sizeof(*out));
    json_skip_ws(c);
    out->type = member;
    return member == DDB_TYPE_B ? parse_base64(c, &out->u.s) : ddb_json_lex_string(c, &out->u.s);
}

static int parse_ss_member(json_ctx *c, ddb_value *out)
{
    return parse_set_member(c, DDB_TYPE_S, out);
}

static int parse_ns_member(json_ctx *c, ddb_value *out)
{
    return parse_set_member(c, DDB_TYPE_N, out);
}

static int parse_bs_member(json_ctx *c, ddb_value *out)
{
    return parse_set_member(c, DDB_TYPE_B, out);
}

/* Array of list elements (L: typed values) or set members (SS/NS/BS). */
static int parse_typed_array(json_ctx *c, ddb_type type, ddb_value *out)
{
    value_parser element = type == DDB_TYPE_SS   ? parse_ss_member
                           : type == DDB_TYPE_NS ? parse_ns_member
                           : type == DDB_TYPE_BS ? parse_bs_member
                                                 : parse_typed;
    int rc;

    if ((rc = json_expect(c, '[', "'[' to open a list or set")) != 0)
        return rc;
    if ((rc = parse_elements(c, element, "',' or ']' in list", &out->u.l)) != 0)
        return rc;
    out->type = type;
    return 0;
}

static int parse_typed(json_ctx *c, ddb_value *out)
{
    ddb_str tname;
    ddb_type type;
    const char *tat;
    char tmp[8];
    int rc;

    memset(out, 0, sizeof(*out));
    /* The usual value in its compact form, {"S":"..."} or {"N":"..."}: the
     * same checks as the general walk below, without its steps. */
    if (c->end - c->s >= 6 && c->s[0] == '{' && c->s[1] == '"' &&
        (c->s[2] == 'S' || c->s[2] == 'N') && c->s[3] == '"' && c->s[4] == ':' && c->s[5] == '"') {
        out->type = c->s[2] == 'S' ? DDB_TYPE_S : DDB_TYPE_N;
        c->s += 5;
        if ((rc = ddb_json_lex_string(c, &out->u.s)) != 0)
            return rc;
        if (c->s < c->end && *c->s == '}') {
            c->s++;
            return 0;
        }
        goto close; /* white space, a second type or junk: as the general walk says */
    }
    json_skip_ws(c);
    if (c->s >= c->end || *c->s != '{')
        return ddb_json_lex_fail(c, "expected a typed value like {\"S\":\"...\"}, found %s",
                                 ddb_json_lex_found(c, tmp));
    c->s++;
    json_skip_ws(c);
    if (c->s < c->end && *c->s == '}')
        return ddb_json_lex_fail(c, "attribute value has no type");
    tat = c->s;
    /* "S", "N", "SS"...: a short plain tag needs no lexer call. */
    if (c->end - c->s >= 3 && c->s[0] == '"' && c->s[1] >= 'A' && c->s[1] <= 'Z' &&
        (c->s[2] == '"' ||
         (c->end - c->s >= 4 && c->s[2] >= 'A' && c->s[2] <= 'Z' && c->s[3] == '"'))) {
        tname.ptr = c->s + 1;
        tname.len = c->s[2] == '"' ? 1 : 2;
        c->s += tname.len + 2;
    } else if ((rc = ddb_json_lex_string(c, &tname)) != 0) {
        return rc;
    }
    if (ddb_type_parse(&type, tname.ptr, tname.len) != 0) {
        c->s = tat;
        return ddb_json_lex_fail(
            c, "unknown type '%.*s' (expected S, N, B, BOOL, NULL, M, L, SS, NS or BS)",
            (int)(tname.len > 20 ? 20 : tname.len), tname.ptr);
    }
    if ((rc = json_expect(c, ':', "':' after the type")) != 0)
        return rc;
    json_skip_ws(c);
    out->type = type;
    switch (type) {
    case DDB_TYPE_S:
    case DDB_TYPE_N:
        if ((rc = ddb_json_lex_string(c, &out->u.s)) != 0)
            return rc;
        break;
    case DDB_TYPE_B:
        if ((rc = parse_base64(c, &out->u.s)) != 0)
            return rc;
        break;
    case DDB_TYPE_BOOL:
        if (json_match(c, "true", 4))
            out->u.boolean = 1;
        else if (json_match(c, "false", 5))
            out->u.boolean = 0;
        else
            return ddb_json_lex_fail(c, "BOOL must be true or false, found %s",
                                     ddb_json_lex_found(c, tmp));
        break;
    case DDB_TYPE_NULL:
        if (!json_match(c, "true", 4))
            return ddb_json_lex_fail(c, "NULL must be true, found %s", ddb_json_lex_found(c, tmp));
        break;
    case DDB_TYPE_M:
        if ((rc = parse_typed_map_body(c, &out->u.m)) != 0)
            return rc;
        break;
    default:
        if ((rc = parse_typed_array(c, type, out)) != 0)
            return rc;
        break;
    }
close:
    json_skip_ws(c);
    if (c->s < c->end && *c->s == ',')
        return ddb_json_lex_fail(c, "attribute value has more than one type");
    return json_expect(c, '}', "'}' to close the typed value");
}

int ddb_json_parse_typed_map(ddb_json_parser *p, ddb_map *out, const char *text, size_t len,
                             ddb_arena *a, ddb_error *err)
{
    json_ctx c;
    int rc;
    ddb_json_lex_init(&c, p, text, len, a, err);
    if ((rc = parse_typed_map_body(&c, out)) != 0)
        return rc;
    return ddb_json_lex_finish(&c);
}

static int key_is(const ddb_str *k, const char *lit)
{
    size_t n = strlen(lit);
    return k->len == n && memcmp(k->ptr, lit, n) == 0;
}

static int parse_change(json_ctx *c, ddb_json_change *ch)
{
    int rc, has_keys = 0;

    memset(ch, 0, sizeof(*ch));
    if ((rc = json_expect(c, '{', "'{'")) != 0)
        return rc;
    json_skip_ws(c);
    if (c->s < c->end && *c->s == '}')
        return ddb_json_lex_fail(c, "empty change record (no Keys)");
    for (;;) {
        ddb_str key;
        const char *kat;
        json_skip_ws(c);
        kat = c->s;
        if ((rc = ddb_json_lex_string(c, &key)) != 0)
            return rc;
        if ((rc = json_expect(c, ':', "':'")) != 0)
            return rc;
        json_path_push_name(c, key.ptr, key.len);
        if (key_is(&key, "Keys")) {
            rc = parse_typed_map_body(c, &ch->keys);
            has_keys = 1;
        } else if (key_is(&key, "NewImage")) {
            rc = parse_typed_map_body(c, &ch->new_image);
            ch->has_new_image = 1;
        } else if (key_is(&key, "OldImage")) {
            rc = parse_typed_map_body(c, &ch->old_image);
            ch->has_old_image = 1;
        } else if (key_is(&key, "Metadata")) {
            ddb_map meta;
            const ddb_value *wt;
            rc = parse_typed_map_body(c, &meta);
            if (rc == 0 && (wt = ddb_map_getz(&meta, "WriteTimestampMicros")) != NULL &&
                wt->type == DDB_TYPE_N)
                ch->write_time = wt->u.s;
        } else {
            json_path_pop(c);
            c->s = kat;
            return ddb_json_lex_fail(c, "unexpected key '%.*s' in a change record",
                                     (int)(key.len > 40 ? 40 : key.len), key.ptr);
        }
        json_path_pop(c);
        if (rc != 0)
            return rc;
        json_skip_ws(c);
        if (c->s < c->end && *c->s == ',') {
            c->s++;
            continue;
        }
        if ((rc = json_expect(c, '}', "',' or '}'")) != 0)
            return rc;
        break;
    }
    if (!has_keys)
        return ddb_json_lex_fail(c, "change record has no Keys");
    return 0;
}

/* Forgets the last line's item, then reads text by a skeleton p learned
 * (ddb_json_skel_read; used as there). Returns 1 when it did, 0 when the
 * parser must read the text, or DDB_ENOMEM (err set). */
static int read_by_skeleton(ddb_json_parser *p, ddb_json_line_kind kind, ddb_map *item,
                            const char *text, size_t len, size_t *used, ddb_arena *a,
                            ddb_error *err)
{
    int rc;
    p->names_id = 0; /* nothing of the last line's outlives this one */
    p->item_text.ptr = NULL;
    p->item_text.len = 0;
    if (kind == DDB_JSON_LINE_CHANGE ||
        (rc = ddb_json_skel_read(p, kind, item, text, len, used, a)) == 0)
        return 0;
    return rc > 0 ? 1 : ddb_error_set(err, rc, "out of memory while parsing JSON");
}

int ddb_json_parse_line(ddb_json_parser *p, ddb_json_line_kind kind, ddb_map *item,
                        ddb_json_change *change, const char *text, size_t len, ddb_arena *a,
                        ddb_error *err)
{
    json_ctx c;
    int rc;
    ddb_str key;
    const char *at = NULL, *item_end = NULL;

    if ((rc = read_by_skeleton(p, kind, item, text, len, NULL, a, err)) != 0)
        return rc > 0 ? 0 : rc;
    ddb_json_lex_init(&c, p, text, len, a, err);
    switch (kind) {
    case DDB_JSON_LINE_BARE:
        json_skip_ws(&c);
        at = c.s;
        if ((rc = parse_typed_map_body(&c, item)) == 0)
            item_end = c.s;
        break;
    case DDB_JSON_LINE_CHANGE:
        rc = parse_change(&c, change);
        break;
    case DDB_JSON_LINE_ITEM:
    default:
        if ((rc = json_expect(&c, '{', "'{'")) != 0)
            return rc;
        json_skip_ws(&c);
        if ((rc = ddb_json_lex_string(&c, &key)) != 0)
            return rc;
        if (!key_is(&key, "Item"))
            return ddb_json_lex_fail(&c, "expected the key \"Item\", found \"%.*s\"",
                                     (int)(key.len > 40 ? 40 : key.len), key.ptr);
        if ((rc = json_expect(&c, ':', "':'")) != 0)
            return rc;
        json_skip_ws(&c);
        at = c.s;
        if ((rc = parse_typed_map_body(&c, item)) != 0)
            return rc;
        item_end = c.s;
        rc = json_expect(&c, '}', "'}' after the item (only \"Item\" is allowed)");
        break;
    }
    if (rc != 0 || (rc = ddb_json_lex_finish(&c)) != 0)
        return rc;
    if (item_end != NULL) {
        p->item_text.ptr = at;
        p->item_text.len = (size_t)(item_end - at);
        ddb_json_skel_learn(p, kind, item, text, len);
    }
    return 0;
}

int ddb_json_parse_item_prefix(ddb_json_parser *p, ddb_map *item, size_t *used, const char *text,
                               size_t len, ddb_arena *a, ddb_error *err)
{
    json_ctx c;
    const char *at;
    int rc;

    assert(p != NULL && item != NULL && used != NULL && a != NULL);
    if ((rc = read_by_skeleton(p, DDB_JSON_LINE_BARE, item, text, len, used, a, err)) != 0)
        return rc > 0 ? 0 : rc;
    ddb_json_lex_init(&c, p, text, len, a, err);
    json_skip_ws(&c);
    at = c.s;
    if ((rc = parse_typed_map_body(&c, item)) != 0)
        return rc;
    *used = (size_t)(c.s - text);
    p->item_text.ptr = at;
    p->item_text.len = (size_t)(c.s - at);
    /* learned from the item alone: the skeleton's tail ends at its '}' */
    ddb_json_skel_learn(p, DDB_JSON_LINE_BARE, item, text, *used);
    return 0;
}

ddb_str ddb_json_parser_item_text(const ddb_json_parser *p)
{
    return p->item_text;
}

uint64_t ddb_json_parser_names_id(const ddb_json_parser *p)
{
    return p->names_id;
}

int ddb_json_sniff_line(ddb_json_line_kind *kind, const char *text, size_t len)
{
    ddb_json_parser *p = NULL;
    ddb_arena *a = NULL;
    json_ctx c;
    ddb_str key;
    ddb_map item;
    int result = 0;

    if (ddb_json_parser_new(&p) != 0 || ddb_arena_new(&a, 0) != 0)
        goto done;
    ddb_json_lex_init(&c, p, text, len, a, NULL);
    json_skip_ws(&c);
    if (c.s >= c.end || *c.s != '{')
        goto done;
    c.s++;
    json_skip_ws(&c);
    if (ddb_json_lex_string(&c, &key) != 0)
        goto done;
    if (key_is(&key, "Item")) {
        ddb_map m;
        if (ddb_json_parse_line(p, DDB_JSON_LINE_ITEM, &m, NULL, text, len, a, NULL) == 0) {
            *kind = DDB_JSON_LINE_ITEM;
            result = 1;
            goto done;
        }
    }
    if (key_is(&key, "Keys") || key_is(&key, "Metadata") || key_is(&key, "NewImage") ||
        key_is(&key, "OldImage")) {
        ddb_json_change ch;
        if (ddb_json_parse_line(p, DDB_JSON_LINE_CHANGE, NULL, &ch, text, len, a, NULL) == 0) {
            *kind = DDB_JSON_LINE_CHANGE;
            result = 1;
            goto done;
        }
    }
    if (ddb_json_parse_typed_map(p, &item, text, len, a, NULL) == 0 && item.count > 0) {
        *kind = DDB_JSON_LINE_BARE;
        result = 1;
    }
done:
    ddb_arena_free(a);
    ddb_json_parser_free(p);
    return result;
}
