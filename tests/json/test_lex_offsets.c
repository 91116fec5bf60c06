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
