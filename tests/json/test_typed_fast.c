/* The compact {"S":"..."} / {"N":"..."} value is read by a shortcut in
 * parse_typed; the same value with a space after its '{' takes the general
 * walk. Both must give the same item or the same error (its column aside),
 * for values well formed and not: a second type, white space or junk before
 * the closing brace, a cut, an escape, a bad byte. */
#include <criterion/criterion.h>
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "ddbpipe/json.h"

static int parse(const char *text, ddb_buf *out, ddb_arena *a, ddb_json_parser *p)
{
    ddb_map m;
    ddb_error err;
    int rc;
    ddb_error_clear(&err);
    ddb_buf_clear(out);
    rc = ddb_json_parse_typed_map(p, &m, text, strlen(text), a, &err);
    if (rc == 0) {
        ddb_json_put_typed_map(out, &m);
    } else {
        /* the message without its column numbers */
        for (const char *s = err.message; *s; s++)
            if (!isdigit((unsigned char)*s))
                ddb_buf_putc(out, *s);
    }
    return rc;
}

Test(json, compact_typed_values_read_as_the_general_walk_reads_them)
{
    static const char *const values[] = {
        "{\"S\":\"abc\"}",
        "{\"N\":\"12.5\"}",
        "{\"S\":\"\"}",
        "{\"S\":\"a\\\"b\"}",
        "{\"S\":\"\\u00e9x\"}",
        "{\"S\":\"\xe6\xbc\xa2\"}",
        "{\"S\":\"x\",\"N\":\"1\"}",
        "{\"S\":\"x\" }",
        "{\"S\":\"x\"]",
        "{\"S\":\"x\"",
        "{\"S\":\"x",
        "{\"S\":\"ctl\x01\"}",
        "{\"S\":\"\xff\"}",
        "{\"N\":\"\"}",
        "{\"S\":\"x\"}}",
        "{\"S\":\"abcdefghijklmnopqrstuvwxyz0123456789\"}",
        "{\"S\":\"x\"\n}",
    };
    ddb_arena *a;
    ddb_json_parser *p;
    ddb_buf fast = DDB_BUF_INIT, walk = DDB_BUF_INIT;
    cr_assert_eq(ddb_arena_new(&a, 0), 0);
    cr_assert_eq(ddb_json_parser_new(&p), 0);
    for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
        char t1[256], t2[256];
        int r1, r2;
        snprintf(t1, sizeof(t1), "{\"a\":%s}", values[i]);
        snprintf(t2, sizeof(t2), "{\"a\":{ %s}", values[i] + 1);
        r1 = parse(t1, &fast, a, p);
        r2 = parse(t2, &walk, a, p);
        cr_assert_eq(r1, r2, "%s: %d, the general walk %d", t1, r1, r2);
        cr_assert_str_eq(fast.ptr ? fast.ptr : "", walk.ptr ? walk.ptr : "", "%s", t1);
        ddb_arena_reset(a);
    }
    ddb_buf_dispose(&fast);
    ddb_buf_dispose(&walk);
    ddb_json_parser_free(p);
    ddb_arena_free(a);
}
