/*
 * json_write_tpl.h (private header of json/, included only by json_write.c,
 * twice) — the JSON writers, as JSON (JW_DQ 0) and as JSON whose every quote
 * is doubled (JW_DQ 1): the inside of a quoted CSV cell, written straight
 * into the cell instead of written and then doubled in a second pass (a
 * map's or list's JSON has a quote every few bytes). The two are the same
 * code, so a cell always holds its value's JSON exactly, only doubled.
 *
 * The includer defines JW_DQ, JW(name) (the name of this copy's function),
 * JW_Q (the quote as written) and JW_QLEN (its length).
 */
/* s escaped for the inside of a JSON string into o, which has room for six
 * bytes per byte of s (an escape is at most six); returns the new end. */
static char *JW(escape_into)(char *o, const char *s, size_t len)
{
    static const char hex[] = "0123456789abcdef";
#ifdef __SSE2__
    char *const o0 = o;
#endif
    size_t i = 0;

#ifdef __SSE2__
    if (len >= 4 && len < 16) {
        /* a short string with nothing to escape, the usual name or value:
         * its first and last eight (or four) bytes, looked at and copied as
         * one */
        unsigned lanes;
        __m128i v = ddb_sse_ends(s, len, &lanes);
        if ((ddb_sse_json_special(v) & lanes) == 0) {
            ddb_sse_store_ends(o, len, v);
            return o + len;
        }
    }
#endif
    while (i < len) {
        unsigned char c;
#ifdef __SSE2__
        /* sixteen plain bytes a step: none below 0x20 (high bytes are plain),
         * no '"', no '\\' */
        while (len - i >= 16) {
            __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
            if (ddb_sse_json_special(x) != 0)
                break;
            _mm_storeu_si128((__m128i *)(void *)o, x);
            o += 16;
            i += 16;
        }
        if (i == len)
            break;
        if (len >= 16 && len - i < 16 && (size_t)(o - o0) == i) {
            /* the tail, nothing escaped so far: the last sixteen bytes,
             * overlapping what was copied as it is */
            __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(s + len - 16));
            if (ddb_sse_json_special(x) == 0) {
                _mm_storeu_si128((__m128i *)(void *)(o0 + len - 16), x);
                return o0 + len;
            }
        }
#endif
        /* eight plain bytes at a time */
        while (len - i >= 8) {
            uint64_t w;
            memcpy(&w, s + i, 8);
            if (ddb_swar_json_special(w))
                break;
            memcpy(o, s + i, 8);
            o += 8;
            i += 8;
        }
        /* the rest up to the next byte needing an escape, a byte at a time */
        while (i < len && !needs_escape[(unsigned char)s[i]])
            *o++ = s[i++];
        if (i == len)
            break;
        c = (unsigned char)s[i++];
        *o++ = '\\';
        switch (c) {
        case '"':
            *o++ = '"';
#if JW_DQ
            *o++ = '"'; /* doubled for the CSV cell around it */
#endif
            break;
        case '\\':
            *o++ = '\\';
            break;
        case '\n':
            *o++ = 'n';
            break;
        case '\r':
            *o++ = 'r';
            break;
        case '\t':
            *o++ = 't';
            break;
        case '\b':
            *o++ = 'b';
            break;
        case '\f':
            *o++ = 'f';
            break;
        default:
            memcpy(o, "u00", 3);
            o[3] = hex[c >> 4];
            o[4] = hex[c & 15];
            o += 5;
            break;
        }
    }
    return o;
}

/* s escaped for the inside of a JSON string, appended to b. */
static int JW(put_escaped)(ddb_buf *b, const char *s, size_t len)
{
    size_t i = 0;
    while (i < len) {
        /* room for a whole chunk once, then no bounds check per byte */
        size_t n = len - i > 4096 ? 4096 : len - i;
        if (ddb_buf_reserve(b, n * 6) != 0)
            return DDB_ENOMEM;
        b->len = (size_t)(JW(escape_into)(b->ptr + b->len, s + i, n) - b->ptr);
        i += n;
    }
    return 0;
}

/* The usual name or value (4 to 15 bytes, nothing to escape, room in b)
 * without a call: the values of a nested map or list each cost a call and
 * its register saves otherwise, a fifth of writing them. */
static inline int JW(put_string)(ddb_buf *b, const char *s, size_t len)
{
#ifdef __SSE2__
    if (len >= 4 && len < 16 && b->cap - b->len > 16 + 2 * JW_QLEN && !b->oom) {
        unsigned lanes;
        __m128i v = ddb_sse_ends(s, len, &lanes);
        if ((ddb_sse_json_special(v) & lanes) == 0) {
            char *o = b->ptr + b->len;
            memcpy(o, JW_Q, JW_QLEN);
            ddb_sse_store_ends(o + JW_QLEN, len, v);
            memcpy(o + JW_QLEN + len, JW_Q, JW_QLEN);
            o[len + 2 * JW_QLEN] = '\0';
            b->len += len + 2 * JW_QLEN;
            return 0;
        }
    }
#endif
    return JW(ddb_json_put_string)(b, s, len);
}

int JW(ddb_json_put_string)(ddb_buf *b, const char *s, size_t len)
{
    if (len <= 4096) {
        /* the usual name or value: one reservation for it and its quotes */
        char *o;
        if (ddb_buf_reserve(b, len * 6 + 2 * JW_QLEN) != 0)
            return DDB_ENOMEM;
        o = b->ptr + b->len;
        memcpy(o, JW_Q, JW_QLEN);
        o = JW(escape_into)(o + JW_QLEN, s, len);
        memcpy(o, JW_Q, JW_QLEN);
        o += JW_QLEN;
        b->len = (size_t)(o - b->ptr);
        b->ptr[b->len] = '\0';
        return 0;
    }
    if (ddb_buf_append(b, JW_Q, JW_QLEN) != 0 || JW(put_escaped)(b, s, len) != 0)
        return DDB_ENOMEM;
    return ddb_buf_append(b, JW_Q, JW_QLEN);
}

static void JW(put_b64_string)(ddb_buf *b, const ddb_str *bytes)
{
    ddb_buf_append(b, JW_Q, JW_QLEN);
    ddb_buf_put_base64(b, (const unsigned char *)bytes->ptr, bytes->len);
    ddb_buf_append(b, JW_Q, JW_QLEN);
}

static void JW(put_members)(ddb_buf *b, const ddb_value *v)
{
    ddb_buf_putc(b, '[');
    for (size_t i = 0; i < v->u.l.count; i++) {
        const ddb_value *m = &v->u.l.items[i];
        if (i)
            ddb_buf_putc(b, ',');
        if (v->type == DDB_TYPE_L)
            JW(ddb_json_put_typed_value)(b, m);
        else if (v->type == DDB_TYPE_BS)
            JW(put_b64_string)(b, &m->u.s);
        else
            JW(put_string)(b, m->u.s.ptr, m->u.s.len);
    }
    ddb_buf_putc(b, ']');
}

/* {"T": for each type, in ddb_type's order: one append, not three and a strlen */
#define JW_OPEN(t)                                                                                 \
    {                                                                                              \
        "{" JW_Q t JW_Q ":", (unsigned char)(sizeof(t) + 1 + 2 * JW_QLEN)                          \
    }
static const struct {
    char text[16]; /* {""BOOL"": and zeros: copied whole */
    unsigned char len;
} JW(typed_open)[] = {
    JW_OPEN("?"), JW_OPEN("S"), JW_OPEN("N"),  JW_OPEN("B"),  JW_OPEN("BOOL"), JW_OPEN("NULL"),
    JW_OPEN("M"), JW_OPEN("L"), JW_OPEN("SS"), JW_OPEN("NS"), JW_OPEN("BS"),
};
#undef JW_OPEN
/* the longest, {""BOOL"":, leaves zeros after it for the buffer's NUL */
_Static_assert(sizeof("BOOL") + 1 + 2 * JW_QLEN < sizeof(JW(typed_open)[0].text),
               "a typed_open entry must leave a zero after its text");

int JW(ddb_json_put_typed_value)(ddb_buf *b, const ddb_value *v)
{
    unsigned t = (unsigned)v->type < sizeof(JW(typed_open)) / sizeof(JW(typed_open)[0])
                     ? (unsigned)v->type
                     : 0u;
    if (b->cap - b->len > sizeof(JW(typed_open)[t].text) && !b->oom) {
        /* one fixed copy of the whole entry, not a call: its zeros end the text */
        memcpy(b->ptr + b->len, JW(typed_open)[t].text, sizeof(JW(typed_open)[t].text));
        b->len += JW(typed_open)[t].len;
    } else {
        ddb_buf_append(b, JW(typed_open)[t].text, JW(typed_open)[t].len);
    }
    switch (v->type) {
    case DDB_TYPE_S:
    case DDB_TYPE_N:
        JW(put_string)(b, v->u.s.ptr, v->u.s.len);
        break;
    case DDB_TYPE_B:
        JW(put_b64_string)(b, &v->u.s);
        break;
    case DDB_TYPE_BOOL:
        ddb_buf_puts(b, v->u.boolean ? "true" : "false");
        break;
    case DDB_TYPE_NULL:
        ddb_buf_puts(b, "true");
        break;
    case DDB_TYPE_M:
        JW(ddb_json_put_typed_map)(b, &v->u.m);
        break;
    default:
        JW(put_members)(b, v);
        break;
    }
    ddb_buf_putc(b, '}');
    return b->oom ? DDB_ENOMEM : 0;
}

int JW(ddb_json_put_typed_body)(ddb_buf *b, const ddb_value *v)
{
    assert(v->type == DDB_TYPE_M || v->type == DDB_TYPE_L || v->type == DDB_TYPE_SS ||
           v->type == DDB_TYPE_NS || v->type == DDB_TYPE_BS);
    if (v->type == DDB_TYPE_M)
        JW(ddb_json_put_typed_map)(b, &v->u.m);
    else
        JW(put_members)(b, v);
    return b->oom ? DDB_ENOMEM : 0;
}

/* {"name":<value>,...} with each value written by put. */
static int JW(put_map)(ddb_buf *b, const ddb_map *m, int (*put)(ddb_buf *, const ddb_value *))
{
    ddb_buf_putc(b, '{');
    for (size_t i = 0; i < m->count; i++) {
        if (i)
            ddb_buf_putc(b, ',');
        JW(put_string)(b, m->attrs[i].name.ptr, m->attrs[i].name.len);
        ddb_buf_putc(b, ':');
        put(b, &m->attrs[i].value);
    }
    ddb_buf_putc(b, '}');
    return b->oom ? DDB_ENOMEM : 0;
}

int JW(ddb_json_put_typed_map)(ddb_buf *b, const ddb_map *m)
{
    return JW(put_map)(b, m, JW(ddb_json_put_typed_value));
}

static void JW(put_plain_number)(ddb_buf *b, const ddb_str *text)
{
    ddb_number n;
    if (ddb_json_is_number(text->ptr, text->len)) {
        ddb_buf_append(b, text->ptr, text->len);
        return;
    }
    /* DynamoDB accepts "+5", ".5" and "5." which JSON does not: write the same
     * value in canonical form rather than emit invalid JSON. */
    if (ddb_number_parse(&n, text->ptr, text->len, NULL) == 0)
        ddb_number_format(b, &n);
    else
        JW(put_string)(b, text->ptr, text->len); /* not a number at all: keep the text */
}

int JW(ddb_json_put_plain_value)(ddb_buf *b, const ddb_value *v)
{
    switch (v->type) {
    case DDB_TYPE_S:
        JW(put_string)(b, v->u.s.ptr, v->u.s.len);
        break;
    case DDB_TYPE_N:
        JW(put_plain_number)(b, &v->u.s);
        break;
    case DDB_TYPE_B:
        JW(put_b64_string)(b, &v->u.s);
        break;
    case DDB_TYPE_BOOL:
        ddb_buf_puts(b, v->u.boolean ? "true" : "false");
        break;
    case DDB_TYPE_NULL:
        ddb_buf_puts(b, "null");
        break;
    case DDB_TYPE_M:
        JW(ddb_json_put_plain_map)(b, &v->u.m);
        break;
    default:
        ddb_buf_putc(b, '[');
        for (size_t i = 0; i < v->u.l.count; i++) {
            if (i)
                ddb_buf_putc(b, ',');
            JW(ddb_json_put_plain_value)(b, &v->u.l.items[i]);
        }
        ddb_buf_putc(b, ']');
        break;
    }
    return b->oom ? DDB_ENOMEM : 0;
}

int JW(ddb_json_put_plain_map)(ddb_buf *b, const ddb_map *m)
{
    return JW(put_map)(b, m, JW(ddb_json_put_plain_value));
}
