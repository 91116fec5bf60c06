/* ddb_map_copy_within: the copy of an item parsed from a line points into the
 * line's copy where its strings lie in the line, copies the rest (unescaped
 * strings, nested values), and outlives the original line and arena. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/arena.h"
#include "ddbpipe/json.h"
#include "ddbpipe/value.h"
#include "support/testutil.h"

static int inside(const char *p, const char *base, size_t len)
{
    return (uintptr_t)p >= (uintptr_t)base && (uintptr_t)p < (uintptr_t)base + len;
}

Test(value, copy_within_points_into_the_lines_copy_and_outlives_the_line)
{
    const char *text = "{\"pk\":{\"S\":\"Tag#u1\"},\"esc\":{\"S\":\"a\\\"b\"},"
                       "\"n\":{\"N\":\"12345678901234567890123456789012345678\"},"
                       "\"m\":{\"M\":{\"k\":{\"SS\":[\"x\",\"y\"]}}},\"b\":{\"B\":\"AAE=\"}}";
    size_t len = strlen(text);
    char *line = strdup(text), *line_copy;
    ddb_arena *parse_arena = NULL, *keep = NULL;
    ddb_json_parser *p = NULL;
    ddb_error err;
    ddb_map item, copy, expect;

    ddb_error_clear(&err);
    cr_assert_eq(ddb_arena_new(&parse_arena, 0), 0);
    cr_assert_eq(ddb_arena_new(&keep, 0), 0);
    cr_assert_eq(ddb_json_parser_new(&p), 0);
    cr_assert_eq(ddb_json_parse_typed_map(p, &item, line, len, parse_arena, &err), 0, "%s",
                 err.message);
    line_copy = ddb_arena_memdup(keep, line, len);
    cr_assert_eq(ddb_map_copy_within(&copy, &item, line, len, line_copy, keep), 0);

    cr_assert(inside(copy.attrs[0].name.ptr, line_copy, len), "a name in the line");
    cr_assert(inside(copy.attrs[0].value.u.s.ptr, line_copy, len), "a plain string in the line");
    cr_assert_not(inside(copy.attrs[1].value.u.s.ptr, line_copy, len),
                  "an unescaped string is not the line's text");
    cr_assert_not(inside(copy.attrs[4].value.u.s.ptr, line_copy, len), "bytes are decoded");

    /* the original line and arena go; the copy stays what was parsed */
    memset(line, 'X', len);
    free(line);
    ddb_arena_free(parse_arena);
    cr_assert_eq(ddb_arena_new(&parse_arena, 0), 0);
    cr_assert_eq(ddb_json_parse_typed_map(p, &expect, text, len, parse_arena, &err), 0);
    cr_assert(ddb_map_equal(&copy, &expect), "%s", tu_typed(&copy));
    cr_assert_eq(copy.attrs[1].value.u.s.len, 3);
    cr_assert_eq(memcmp(copy.attrs[1].value.u.s.ptr, "a\"b", 3), 0);

    /* without a line to point into: a plain deep copy */
    cr_assert_eq(ddb_map_copy_within(&copy, &expect, NULL, 0, NULL, keep), 0);
    cr_assert_not(inside(copy.attrs[0].name.ptr, text, len));
    cr_assert(ddb_map_equal(&copy, &expect));

    ddb_json_parser_free(p);
    ddb_arena_free(parse_arena);
    ddb_arena_free(keep);
}
