/*
 * JSON parsing straight into ddb_values. Recursive descent over a byte range;
 * containers are staged on a scratch stack and copied to the arena once their
 * length is known. Strings without escapes are not copied at all.
 */
#include "ddbpipe/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/codec.h"

/* JSON nesting allowed by the parser itself. DynamoDB's own limit (32 levels)
 * is enforced by item validation with a precise message; this bound only
 * protects the C stack from hostile input. */
#define JSON_MAX_NESTING 128
#define PATH_MAX_DEPTH 40

typedef struct path_elem {
    const char *name; /* NULL for a list index */
    size_t len;
    size_t index;
} path_elem;

struct ddb_json_parser {
    ddb_stack stack;
    path_elem path[PATH_MAX_DEPTH];
    int path_depth;
};

typedef struct ctx {
    ddb_json_parser *p;
    const char *start;
    const char *s;
    const char *end;
    ddb_arena *a;
    ddb_error *err;
    int nesting;
} ctx;

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
    ddb_stack_dispose(&p->stack);
    free(p);
}

static void path_push_name(ctx *c, const char *name, size_t len)
{
    ddb_json_parser *p = c->p;
    if (p->path_depth < PATH_MAX_DEPTH) {
        p->path[p->path_depth].name = name;
        p->path[p->path_depth].len = len;
    }
    p->path_depth++;
}

static void path_push_index(ctx *c, size_t index)
{
    ddb_json_parser *p = c->p;
    if (p->path_depth < PATH_MAX_DEPTH) {
        p->path[p->path_depth].name = NULL;
        p->path[p->path_depth].index = index;
    }
    p->path_depth++;
}

static void path_pop(ctx *c)
{
    c->p->path_depth--;
}

/* Renders the attribute path ("a.b[2].c") for messages; shows at most 80
 * bytes of each name so a hostile name cannot crowd out the reason. */
static void path_render(const ddb_json_parser *p, char *out, size_t cap)
{
    size_t n = 0;
    int depth = p->path_depth < PATH_MAX_DEPTH ? p->path_depth : PATH_MAX_DEPTH;
    out[0] = '\0';
    for (int i = 0; i < depth && n + 1 < cap; i++) {
        const path_elem *e = &p->path[i];
        int w;
        if (e->name != NULL) {
            int shown = (int)(e->len > 80 ? 80 : e->len);
            w = snprintf(out + n, cap - n, "%s%.*s%s", i ? "." : "", shown, e->name,
                         e->len > 80 ? "..." : "");
        } else {
            w = snprintf(out + n, cap - n, "[%zu]", e->index);
        }
        if (w < 0)
            break;
        n += (size_t)w;
    }
    if (p->path_depth > PATH_MAX_DEPTH && n + 4 < cap)
        memcpy(out + n, "...", 4);
}

__attribute__((format(printf, 2, 3))) static int fail(ctx *c, const char *fmt, ...)
{
    char reason[512];
    char path[400];
    va_list ap;
    size_t col = (size_t)(c->s - c->start) + 1;

    va_start(ap, fmt);
    vsnprintf(reason, sizeof(reason), fmt, ap);
    va_end(ap);
    path_render(c->p, path, sizeof(path));
    if (path[0])
        return ddb_error_set(c->err, DDB_EINVAL, "attribute '%s' (column %zu): %s", path, col,
                             reason);
    return ddb_error_set(c->err, DDB_EINVAL, "column %zu: %s", col, reason);
}

static int fail_oom(ctx *c)
{
    return ddb_error_set(c->err, DDB_ENOMEM, "out of memory while parsing JSON");
}

static void skip_ws(ctx *c)
{
    while (c->s < c->end && (*c->s == ' ' || *c->s == '\t' || *c->s == '\n' || *c->s == '\r'))
        c->s++;
}

/* Describes the current byte for "expected X, found Y" messages. */
static const char *found(ctx *c, char *tmp)
{
    if (c->s >= c->end)
        return "end of input";
    if ((unsigned char)*c->s >= 0x20 && (unsigned char)*c->s < 0x7f)
        snprintf(tmp, 8, "'%c'", *c->s);
    else
        snprintf(tmp, 8, "0x%02x", (unsigned char)*c->s);
    return tmp;
}

static int expect(ctx *c, char ch, const char *what)
{
    char tmp[8];
    skip_ws(c);
    if (c->s < c->end && *c->s == ch) {
        c->s++;
        return 0;
    }
    return fail(c, "expected %s, found %s", what, found(c, tmp));
}

static int hexval(char ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F')
        return ch - 'A' + 10;
    return -1;
}

static int read_hex4(ctx *c, const char *at, uint32_t *out)
{
    uint32_t v = 0;
    if (c->end - at < 4)
        return -1;
    for (int i = 0; i < 4; i++) {
        int h = hexval(at[i]);
        if (h < 0)
            return -1;
        v = v << 4 | (uint32_t)h;
    }
    *out = v;
    return 0;
}

/* Decodes the escaped string body [from, to) into arena memory. */
static int unescape(ctx *c, const char *from, const char *to, ddb_str *out)
{
    char *buf = ddb_arena_alloc(c->a, (size_t)(to - from) + 1);
    size_t n = 0;
    const char *q = from;

    if (buf == NULL)
        return fail_oom(c);
    while (q < to) {
        const char *run = q;
        while (q < to && *q != '\\')
            q++;
        memcpy(buf + n, run, (size_t)(q - run));
        n += (size_t)(q - run);
        if (q >= to)
            break;
        q++; /* backslash; the scanner guaranteed a following byte */
        switch (*q) {
        case '"':
        case '\\':
        case '/':
            buf[n++] = *q++;
            break;
        case 'b':
            buf[n++] = '\b';
            q++;
            break;
        case 'f':
            buf[n++] = '\f';
            q++;
            break;
        case 'n':
            buf[n++] = '\n';
            q++;
            break;
        case 'r':
            buf[n++] = '\r';
            q++;
            break;
        case 't':
            buf[n++] = '\t';
            q++;
            break;
        case 'u': {
            uint32_t cp, lo;
            if (read_hex4(c, q + 1, &cp) != 0) {
                c->s = q - 1;
                return fail(c, "invalid \\u escape in string");
            }
            q += 5;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                if (to - q < 6 || q[0] != '\\' || q[1] != 'u' || read_hex4(c, q + 2, &lo) != 0 ||
                    lo < 0xDC00 || lo > 0xDFFF) {
                    c->s = q - 6;
                    return fail(c, "unpaired UTF-16 surrogate \\u%04X in string", (unsigned)cp);
                }
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                q += 6;
            } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                c->s = q - 6;
                return fail(c, "unpaired UTF-16 surrogate \\u%04X in string", (unsigned)cp);
            }
            n += ddb_utf8_encode(buf + n, cp);
            break;
        }
        default:
            c->s = q - 1;
            return fail(c, "invalid escape '\\%c' in string", *q);
        }
    }
    buf[n] = '\0';
    out->ptr = buf;
    out->len = n;
    return 0;
}

/* Parses a string literal at c->s (which must be '"'). Zero-copy when the body
 * has no escapes. Validates UTF-8 and rejects raw control characters. */
static int parse_string(ctx *c, ddb_str *out)
{
    const char *body, *q;
    int escaped = 0, high = 0;

    if (c->s >= c->end || *c->s != '"') {
        char tmp[8];
        return fail(c, "expected a string, found %s", found(c, tmp));
    }
    body = q = c->s + 1;
    for (;;) {
        /* Fast path over ordinary ASCII. */
        while (q < c->end) {
            unsigned char ch = (unsigned char)*q;
            if (ch == '"' || ch == '\\' || ch < 0x20 || ch >= 0x80)
                break;
            q++;
        }
        if (q >= c->end) {
            c->s = body - 1;
            return fail(c, "unterminated string");
        }
        if (*q == '"')
            break;
        if (*q == '\\') {
            escaped = 1;
            if (q + 1 >= c->end) {
                c->s = body - 1;
                return fail(c, "unterminated string");
            }
            q += 2;
            continue;
        }
        if ((unsigned char)*q < 0x20) {
            c->s = q;
            return fail(c, "control character 0x%02x must be escaped in a string",
                        (unsigned char)*q);
        }
        high = 1;
        q++;
    }
    if (high) {
        size_t bad;
        if (!ddb_utf8_valid(body, (size_t)(q - body), &bad)) {
            c->s = body + bad;
            return fail(c, "invalid UTF-8 in string");
        }
    }
    c->s = q + 1;
    if (!escaped) {
        out->ptr = body;
        out->len = (size_t)(q - body);
        return 0;
    }
    return unescape(c, body, q, out);
}

/* RFC 8259 number grammar; the token's text is kept verbatim. */
static size_t scan_number(const char *s, const char *end)
{
    const char *q = s;
    if (q < end && *q == '-')
        q++;
    if (q >= end)
        return 0;
    if (*q == '0') {
        q++;
    } else if (*q >= '1' && *q <= '9') {
        while (q < end && *q >= '0' && *q <= '9')
            q++;
    } else {
        return 0;
    }
    if (q < end && *q == '.') {
        q++;
        if (q >= end || *q < '0' || *q > '9')
            return 0;
        while (q < end && *q >= '0' && *q <= '9')
            q++;
    }
    if (q < end && (*q == 'e' || *q == 'E')) {
        q++;
        if (q < end && (*q == '+' || *q == '-'))
            q++;
        if (q >= end || *q < '0' || *q > '9')
            return 0;
        while (q < end && *q >= '0' && *q <= '9')
            q++;
    }
    return (size_t)(q - s);
}

int ddb_json_is_number(const char *text, size_t len)
{
    return len > 0 && scan_number(text, text + len) == len;
}

static int match_literal(ctx *c, const char *lit, size_t n)
{
    if ((size_t)(c->end - c->s) >= n && memcmp(c->s, lit, n) == 0) {
        c->s += n;
        return 1;
    }
    return 0;
}

static int enter(ctx *c)
{
    if (++c->nesting > JSON_MAX_NESTING)
        return fail(c, "JSON nested deeper than %d levels", JSON_MAX_NESTING);
    return 0;
}

/* ------------------------------------------------------------ plain JSON */

static int parse_plain(ctx *c, ddb_value *out);

static int parse_plain_object(ctx *c, ddb_value *out)
{
    size_t count = 0;
    int rc;

    c->s++; /* '{' */
    if ((rc = enter(c)) != 0)
        return rc;
    skip_ws(c);
    if (c->s < c->end && *c->s == '}') {
        c->s++;
        goto done;
    }
    for (;;) {
        ddb_attr attr, *slot;
        skip_ws(c);
        if ((rc = parse_string(c, &attr.name)) != 0)
            return rc;
        if ((rc = expect(c, ':', "':' after object key")) != 0)
            return rc;
        path_push_name(c, attr.name.ptr, attr.name.len);
        rc = parse_plain(c, &attr.value);
        path_pop(c);
        if (rc != 0)
            return rc;
        if ((slot = ddb_stack_push(&c->p->stack, sizeof(attr))) == NULL)
            return fail_oom(c);
        *slot = attr;
        count++;
        skip_ws(c);
        if (c->s < c->end && *c->s == ',') {
            c->s++;
            continue;
        }
        if ((rc = expect(c, '}', "',' or '}' in object")) != 0)
            return rc;
        break;
    }
done:
    c->nesting--;
    out->type = DDB_TYPE_M;
    out->u.m.count = count;
    out->u.m.attrs = NULL;
    if (count) {
        out->u.m.attrs = ddb_stack_pop_to_arena(&c->p->stack, count * sizeof(ddb_attr), c->a);
        if (out->u.m.attrs == NULL)
            return fail_oom(c);
    }
    return 0;
}

static int parse_plain_array(ctx *c, ddb_value *out)
{
    size_t count = 0;
    int rc;

    c->s++; /* '[' */
    if ((rc = enter(c)) != 0)
        return rc;
    skip_ws(c);
    if (c->s < c->end && *c->s == ']') {
        c->s++;
        goto done;
    }
    for (;;) {
        ddb_value v, *slot;
        path_push_index(c, count);
        rc = parse_plain(c, &v);
        path_pop(c);
        if (rc != 0)
            return rc;
        if ((slot = ddb_stack_push(&c->p->stack, sizeof(v))) == NULL)
            return fail_oom(c);
        *slot = v;
        count++;
        skip_ws(c);
        if (c->s < c->end && *c->s == ',') {
            c->s++;
            continue;
        }
        if ((rc = expect(c, ']', "',' or ']' in array")) != 0)
            return rc;
        break;
    }
done:
    c->nesting--;
    out->type = DDB_TYPE_L;
    out->u.l.count = count;
    out->u.l.items = NULL;
    if (count) {
        out->u.l.items = ddb_stack_pop_to_arena(&c->p->stack, count * sizeof(ddb_value), c->a);
        if (out->u.l.items == NULL)
            return fail_oom(c);
    }
    return 0;
}

static int parse_plain(ctx *c, ddb_value *out)
{
    char tmp[8];
    size_t n;

    memset(out, 0, sizeof(*out));
    skip_ws(c);
    if (c->s >= c->end)
        return fail(c, "expected a value, found end of input");
    switch (*c->s) {
    case '{':
        return parse_plain_object(c, out);
    case '[':
        return parse_plain_array(c, out);
    case '"':
        out->type = DDB_TYPE_S;
        return parse_string(c, &out->u.s);
    case 't':
        if (match_literal(c, "true", 4)) {
            *out = ddb_value_bool(1);
            return 0;
        }
        break;
    case 'f':
        if (match_literal(c, "false", 5)) {
            *out = ddb_value_bool(0);
            return 0;
        }
        break;
    case 'n':
        if (match_literal(c, "null", 4)) {
            *out = ddb_value_null();
            return 0;
        }
        break;
    default:
        n = scan_number(c->s, c->end);
        if (n > 0) {
            *out = ddb_value_str(DDB_TYPE_N, c->s, n);
            c->s += n;
            return 0;
        }
        break;
    }
    return fail(c, "expected a JSON value, found %s", found(c, tmp));
}

static int finish_top(ctx *c)
{
    char tmp[8];
    skip_ws(c);
    if (c->s != c->end)
        return fail(c, "unexpected %s after the JSON value", found(c, tmp));
    return 0;
}

static void ctx_init(ctx *c, ddb_json_parser *p, const char *text, size_t len, ddb_arena *a,
                     ddb_error *err)
{
    c->p = p;
    c->start = c->s = text;
    c->end = text + len;
    c->a = a;
    c->err = err;
    c->nesting = 0;
    p->path_depth = 0;
    p->stack.len = 0;
}

int ddb_json_parse_plain(ddb_json_parser *p, ddb_value *out, const char *text, size_t len,
                         ddb_arena *a, ddb_error *err)
{
    ctx c;
    int rc;
    ctx_init(&c, p, text, len, a, err);
    if ((rc = parse_plain(&c, out)) != 0)
        return rc;
    return finish_top(&c);
}

/* ------------------------------------------------------------ typed JSON */

static int parse_typed(ctx *c, ddb_value *out);

static int parse_typed_map_body(ctx *c, ddb_map *out)
{
    size_t count = 0;
    int rc;

    if ((rc = expect(c, '{', "'{' to open an attribute map")) != 0)
        return rc;
    if ((rc = enter(c)) != 0)
        return rc;
    skip_ws(c);
    if (c->s < c->end && *c->s == '}') {
        c->s++;
        goto done;
    }
    for (;;) {
        ddb_attr attr, *slot;
        skip_ws(c);
        if ((rc = parse_string(c, &attr.name)) != 0)
            return rc;
        if ((rc = expect(c, ':', "':' after attribute name")) != 0)
            return rc;
        path_push_name(c, attr.name.ptr, attr.name.len);
        rc = parse_typed(c, &attr.value);
        path_pop(c);
        if (rc != 0)
            return rc;
        if ((slot = ddb_stack_push(&c->p->stack, sizeof(attr))) == NULL)
            return fail_oom(c);
        *slot = attr;
        count++;
        skip_ws(c);
        if (c->s < c->end && *c->s == ',') {
            c->s++;
            continue;
        }
        if ((rc = expect(c, '}', "',' or '}' in attribute map")) != 0)
            return rc;
        break;
    }
done:
    c->nesting--;
    out->count = count;
    out->attrs = NULL;
    if (count) {
        out->attrs = ddb_stack_pop_to_arena(&c->p->stack, count * sizeof(ddb_attr), c->a);
        if (out->attrs == NULL)
            return fail_oom(c);
    }
    return 0;
}

static int parse_base64(ctx *c, ddb_str *out)
{
    const char *at;
    ddb_str text;
    unsigned char *bytes;
    size_t n, bad;
    int rc;

    skip_ws(c);
    at = c->s;
    if ((rc = parse_string(c, &text)) != 0)
        return rc;
    bytes = ddb_arena_alloc(c->a, text.len / 4 * 3 + 1);
    if (bytes == NULL)
        return fail_oom(c);
    if (ddb_base64_decode(bytes, &n, text.ptr, text.len, &bad) != 0) {
        c->s = at;
        return fail(c, "invalid base64 at character %zu of the binary value", bad + 1);
    }
    out->ptr = (const char *)bytes;
    out->len = n;
    return 0;
}

/* Array of set members or list elements, for L (typed values) and SS/NS/BS. */
static int parse_typed_array(ctx *c, ddb_type type, ddb_value *out)
{
    ddb_type member = ddb_type_set_member(type);
    size_t count = 0;
    int rc;

    if ((rc = expect(c, '[', "'[' to open a list or set")) != 0)
        return rc;
    if ((rc = enter(c)) != 0)
        return rc;
    skip_ws(c);
    if (c->s < c->end && *c->s == ']') {
        c->s++;
        goto done;
    }
    for (;;) {
        ddb_value v, *slot;
        memset(&v, 0, sizeof(v));
        path_push_index(c, count);
        skip_ws(c);
        if (type == DDB_TYPE_L) {
            rc = parse_typed(c, &v);
        } else {
            v.type = member;
            rc = member == DDB_TYPE_B ? parse_base64(c, &v.u.s) : parse_string(c, &v.u.s);
        }
        path_pop(c);
        if (rc != 0)
            return rc;
        if ((slot = ddb_stack_push(&c->p->stack, sizeof(v))) == NULL)
            return fail_oom(c);
        *slot = v;
        count++;
        skip_ws(c);
        if (c->s < c->end && *c->s == ',') {
            c->s++;
            continue;
        }
        if ((rc = expect(c, ']', "',' or ']' in list")) != 0)
            return rc;
        break;
    }
done:
    c->nesting--;
    out->type = type;
    out->u.l.count = count;
    out->u.l.items = NULL;
    if (count) {
        out->u.l.items = ddb_stack_pop_to_arena(&c->p->stack, count * sizeof(ddb_value), c->a);
        if (out->u.l.items == NULL)
            return fail_oom(c);
    }
    return 0;
}

static int parse_typed(ctx *c, ddb_value *out)
{
    ddb_str tname;
    ddb_type type;
    const char *tat;
    char tmp[8];
    int rc;

    memset(out, 0, sizeof(*out));
    skip_ws(c);
    if (c->s >= c->end || *c->s != '{')
        return fail(c, "expected a typed value like {\"S\":\"...\"}, found %s", found(c, tmp));
    c->s++;
    skip_ws(c);
    if (c->s < c->end && *c->s == '}')
        return fail(c, "attribute value has no type");
    tat = c->s;
    if ((rc = parse_string(c, &tname)) != 0)
        return rc;
    if (ddb_type_parse(&type, tname.ptr, tname.len) != 0) {
        c->s = tat;
        return fail(c, "unknown type '%.*s' (expected S, N, B, BOOL, NULL, M, L, SS, NS or BS)",
                    (int)(tname.len > 20 ? 20 : tname.len), tname.ptr);
    }
    if ((rc = expect(c, ':', "':' after the type")) != 0)
        return rc;
    skip_ws(c);
    out->type = type;
    switch (type) {
    case DDB_TYPE_S:
    case DDB_TYPE_N:
        if ((rc = parse_string(c, &out->u.s)) != 0)
            return rc;
        break;
    case DDB_TYPE_B:
        if ((rc = parse_base64(c, &out->u.s)) != 0)
            return rc;
        break;
    case DDB_TYPE_BOOL:
        if (match_literal(c, "true", 4))
            out->u.boolean = 1;
        else if (match_literal(c, "false", 5))
            out->u.boolean = 0;
        else
            return fail(c, "BOOL must be true or false, found %s", found(c, tmp));
        break;
    case DDB_TYPE_NULL:
        if (!match_literal(c, "true", 4))
            return fail(c, "NULL must be true, found %s", found(c, tmp));
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
    skip_ws(c);
    if (c->s < c->end && *c->s == ',')
        return fail(c, "attribute value has more than one type");
    return expect(c, '}', "'}' to close the typed value");
}

int ddb_json_parse_typed_map(ddb_json_parser *p, ddb_map *out, const char *text, size_t len,
                             ddb_arena *a, ddb_error *err)
{
    ctx c;
    int rc;
    ctx_init(&c, p, text, len, a, err);
    if ((rc = parse_typed_map_body(&c, out)) != 0)
        return rc;
    return finish_top(&c);
}

int ddb_json_parse_typed_value(ddb_json_parser *p, ddb_value *out, const char *text, size_t len,
                               ddb_arena *a, ddb_error *err)
{
    ctx c;
    int rc;
    ctx_init(&c, p, text, len, a, err);
    if ((rc = parse_typed(&c, out)) != 0)
        return rc;
    return finish_top(&c);
}

static int key_is(const ddb_str *k, const char *lit)
{
    size_t n = strlen(lit);
    return k->len == n && memcmp(k->ptr, lit, n) == 0;
}

static int parse_change(ctx *c, ddb_json_change *ch)
{
    int rc, has_keys = 0;

    memset(ch, 0, sizeof(*ch));
    if ((rc = expect(c, '{', "'{'")) != 0)
        return rc;
    skip_ws(c);
    if (c->s < c->end && *c->s == '}')
        return fail(c, "empty change record (no Keys)");
    for (;;) {
        ddb_str key;
        const char *kat;
        skip_ws(c);
        kat = c->s;
        if ((rc = parse_string(c, &key)) != 0)
            return rc;
        if ((rc = expect(c, ':', "':'")) != 0)
            return rc;
        path_push_name(c, key.ptr, key.len);
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
            path_pop(c);
            c->s = kat;
            return fail(c, "unexpected key '%.*s' in a change record",
                        (int)(key.len > 40 ? 40 : key.len), key.ptr);
        }
        path_pop(c);
        if (rc != 0)
            return rc;
        skip_ws(c);
        if (c->s < c->end && *c->s == ',') {
            c->s++;
            continue;
        }
        if ((rc = expect(c, '}', "',' or '}'")) != 0)
            return rc;
        break;
    }
    if (!has_keys)
        return fail(c, "change record has no Keys");
    return 0;
}

int ddb_json_parse_line(ddb_json_parser *p, ddb_json_line_kind kind, ddb_map *item,
                        ddb_json_change *change, const char *text, size_t len, ddb_arena *a,
                        ddb_error *err)
{
    ctx c;
    int rc;
    ddb_str key;

    ctx_init(&c, p, text, len, a, err);
    switch (kind) {
    case DDB_JSON_LINE_BARE:
        rc = parse_typed_map_body(&c, item);
        break;
    case DDB_JSON_LINE_CHANGE:
        rc = parse_change(&c, change);
        break;
    case DDB_JSON_LINE_ITEM:
    default:
        if ((rc = expect(&c, '{', "'{'")) != 0)
            return rc;
        skip_ws(&c);
        if ((rc = parse_string(&c, &key)) != 0)
            return rc;
        if (!key_is(&key, "Item"))
            return fail(&c, "expected the key \"Item\", found \"%.*s\"",
                        (int)(key.len > 40 ? 40 : key.len), key.ptr);
        if ((rc = expect(&c, ':', "':'")) != 0)
            return rc;
        if ((rc = parse_typed_map_body(&c, item)) != 0)
            return rc;
        rc = expect(&c, '}', "'}' after the item (only \"Item\" is allowed)");
        break;
    }
    if (rc != 0)
        return rc;
    return finish_top(&c);
}

int ddb_json_sniff_line(ddb_json_line_kind *kind, const char *text, size_t len)
{
    ddb_json_parser *p = NULL;
    ddb_arena *a = NULL;
    ctx c;
    ddb_str key;
    ddb_map item;
    int result = 0;

    if (ddb_json_parser_new(&p) != 0 || ddb_arena_new(&a, 0) != 0)
        goto done;
    ctx_init(&c, p, text, len, a, NULL);
    skip_ws(&c);
    if (c.s >= c.end || *c.s != '{')
        goto done;
    c.s++;
    skip_ws(&c);
    if (parse_string(&c, &key) != 0)
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
