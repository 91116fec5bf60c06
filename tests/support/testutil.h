/* Helpers shared by the Criterion suites (header-only, test code only). */
#ifndef DDB_TESTUTIL_H
#define DDB_TESTUTIL_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "ddbpipe/json.h"
#include "ddbpipe/mapping.h"

/* Does the size bytes at block hold text anywhere (a secret left in memory)? */
static inline int tu_holds(const void *block, size_t size, const char *text)
{
    size_t n = strlen(text);
    for (size_t i = 0; i + n <= size; i++)
        if (memcmp((const char *)block + i, text, n) == 0)
            return 1;
    return 0;
}

/* Parses DynamoDB JSON text into an item living in arena a (text is copied so
 * values do not point at the caller's literal). */
static inline ddb_map tu_item(ddb_arena *a, const char *text)
{
    ddb_json_parser *p;
    ddb_map m;
    ddb_error err;
    char *copy = ddb_arena_memdup(a, text, strlen(text));
    cr_assert_eq(ddb_json_parser_new(&p), 0);
    cr_assert_eq(ddb_json_parse_typed_map(p, &m, copy, strlen(copy), a, &err), 0, "%s: %s", text,
                 err.message);
    ddb_json_parser_free(p);
    return m;
}

/* Plain JSON object text -> map (untyped record, as NDJSON gives it). */
static inline ddb_map tu_plain(ddb_arena *a, const char *text)
{
    ddb_json_parser *p;
    ddb_value v;
    ddb_error err;
    char *copy = ddb_arena_memdup(a, text, strlen(text));
    cr_assert_eq(ddb_json_parser_new(&p), 0);
    cr_assert_eq(ddb_json_parse_plain(p, &v, copy, strlen(copy), a, &err), 0, "%s", err.message);
    cr_assert_eq(v.type, DDB_TYPE_M);
    ddb_json_parser_free(p);
    return v.u.m;
}

/* Typed JSON text of a map; returns a static buffer (one at a time). */
static inline const char *tu_typed(const ddb_map *m)
{
    static char out[65536];
    ddb_buf b = DDB_BUF_INIT;
    ddb_json_put_typed_map(&b, m);
    cr_assert_lt(b.len, sizeof(out));
    memcpy(out, b.ptr, b.len + 1);
    ddb_buf_dispose(&b);
    return out;
}

static inline const char *tu_plain_text(const ddb_map *m)
{
    static char out[65536];
    ddb_buf b = DDB_BUF_INIT;
    ddb_json_put_plain_map(&b, m);
    cr_assert_lt(b.len, sizeof(out));
    memcpy(out, b.ptr, b.len + 1);
    ddb_buf_dispose(&b);
    return out;
}

static inline ddb_mapping *tu_load_mapping_in(const char *dir, const char *name)
{
    char path[1024];
    ddb_mapping *m = NULL;
    ddb_error err;
    snprintf(path, sizeof(path), "%s/%s/%s", DDB_SOURCE_DIR, dir, name);
    cr_assert_eq(ddb_mapping_load(&m, path, &err), 0, "%s", err.message);
    return m;
}

/* A shipped mapping: formats/<name>. */
static inline ddb_mapping *tu_load_format(const char *name)
{
    return tu_load_mapping_in("formats", name);
}

/* A mapping kept for the language's features (padding, renames, aliases...)
 * rather than for a seed: tests/support/mappings/<name>. */
static inline ddb_mapping *tu_load_fixture(const char *name)
{
    return tu_load_mapping_in("tests/support/mappings", name);
}

#endif
