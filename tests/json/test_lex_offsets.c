/* The string lexer takes sixteen (or eight) bytes a step: a quote, an escape,
 * a control character or a multi-byte character is found wherever it falls
 * in or across those steps, and strings of every length end where they end. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "ddbpipe/arena.h"
#include "ddbpipe/json.h"

static int lex(const char *json, size_t len, ddb_value *out, ddb_arena *a, ddb_json_parser *p)
{
    ddb_error err;
    ddb_error_clear(&err);
    return ddb_json_parse_plain(p, out, json, len, a, &err);
}

Test(lex, specials_at_every_offset)
{
    static const struct {
        const char *in;   /* as written in the JSON string */
        const char *want; /* the decoded bytes, NULL: an error */
    } specials[] = {
        {"\\\"", "\""},
        {"\\\\", "\\"},
        {"\\n", "\n"},
        {"\\u00e9", "\xC3\xA9"},
        {"\xC3\xA9", "\xC3\xA9"},
        {"\xE2\x82\xAC", "\xE2\x82\xAC"},
        {"\xF0\x9F\x98\x80", "\xF0\x9F\x98\x80"},
        {"\x01", NULL},
        {"\x1F", NULL},
        {"\xC3", NULL},
        {"\xFF", NULL},
    };
    ddb_arena *a = NULL;
    ddb_json_parser *p = NULL;
    cr_assert_eq(ddb_arena_new(&a, 0), 0);
    cr_assert_eq(ddb_json_parser_new(&p), 0);

    for (size_t s = 0; s < sizeof(specials) / sizeof(specials[0]); s++) {
        for (size_t before = 0; before < 40; before++) {
            for (size_t after = 0; after < 20; after += 3) {
                char json[128], want[128];
                ddb_value v;
                int n = snprintf(json, sizeof(json), "\"%.*s%s%.*s\"", (int)before,
                                 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", specials[s].in,
                                 (int)after, "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb");
                int rc = lex(json, (size_t)n, &v, a, p);
                if (specials[s].want == NULL) {
                    cr_assert_neq(rc, 0, "accepted %s", json);
                    continue;
                }
                snprintf(want, sizeof(want), "%.*s%s%.*s", (int)before,
                         "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", specials[s].want,
                         (int)after, "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb");
                cr_assert_eq(rc, 0, "refused %s", json);
                cr_assert_eq(v.type, DDB_TYPE_S);
                cr_assert_eq(v.u.s.len, strlen(want), "%s", json);
                cr_assert_eq(memcmp(v.u.s.ptr, want, v.u.s.len), 0, "%s", json);
                ddb_arena_reset(a);
            }
        }
    }
    /* a string cut off anywhere is unterminated, however long */
    for (size_t len = 1; len < 40; len++) {
        char json[64];
        ddb_value v;
        memset(json, 'x', sizeof(json));
        json[0] = '"';
        cr_assert_neq(lex(json, len, &v, a, p), 0);
    }
    ddb_json_parser_free(p);
    ddb_arena_free(a);
}

/* Within and after non-ASCII text (which the sixteen-byte step goes through
 * rather than stopping at each byte): every special is still found at every
 * alignment, and a bad byte anywhere before the end is still refused. */
Test(lex, specials_after_non_ascii_at_every_offset)
{
    static const struct {
        const char *in, *want;
    } specials[] = {
        {"\\\"", "\""},     {"\\u00e9", "\xC3\xA9"}, {"", ""},           {"\x01", NULL},
        {"\x1F", NULL},     {"\xFF", NULL},          {"\xE6\xBC", NULL}, {"\xED\xA0\x80", NULL},
        {"\xC0\xAF", NULL}, {"\x7F", "\x7F"},
    };
    static const char han[] = "\xE6\xBC\xA2"; /* three bytes, so alignments vary */
    ddb_arena *a = NULL;
    ddb_json_parser *p = NULL;
    cr_assert_eq(ddb_arena_new(&a, 0), 0);
    cr_assert_eq(ddb_json_parser_new(&p), 0);

    for (size_t s = 0; s < sizeof(specials) / sizeof(specials[0]); s++) {
        for (size_t shift = 0; shift < 3; shift++) {
            for (size_t chars = 0; chars < 14; chars++) {
                for (size_t after = 0; after < 40; after += 7) {
                    char body[256], json[300];
                    size_t n = 0;
                    ddb_value v;
                    int rc;
                    memset(body, 'a', shift);
                    n = shift;
                    for (size_t k = 0; k < chars; k++, n += 3)
                        memcpy(body + n, han, 3);
                    memcpy(body + n, specials[s].in, strlen(specials[s].in));
                    n += strlen(specials[s].in);
                    memset(body + n, 'b', after);
                    n += after;
                    json[0] = '"';
                    memcpy(json + 1, body, n);
                    json[n + 1] = '"';
                    rc = lex(json, n + 2, &v, a, p);
                    if (specials[s].want == NULL) {
                        cr_assert_neq(rc, 0, "accepted special %zu after %zu+%zu", s, shift, chars);
                    } else {
                        size_t wl = strlen(specials[s].want), pre = shift + 3 * chars;
                        cr_assert_eq(rc, 0, "refused special %zu after %zu+%zu", s, shift, chars);
                        cr_assert_eq(v.u.s.len, pre + wl + after);
                        cr_assert_eq(memcmp(v.u.s.ptr, body, pre), 0);
                        cr_assert_eq(memcmp(v.u.s.ptr + pre, specials[s].want, wl), 0);
                    }
                    ddb_arena_reset(a);
                }
            }
        }
    }
    ddb_json_parser_free(p);
    ddb_arena_free(a);
}
