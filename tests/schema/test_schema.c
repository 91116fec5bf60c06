/*
 * test_schema.c — column types for the record files: numbers get the type
 * that holds every value exactly (BIGINT, DECIMAL(38,s), else text, never a
 * DOUBLE), the types survive a checkpoint, and the scripts name every column.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/arena.h"
#include "ddbpipe/json.h"
#include "ddbpipe/schema.h"
#include "support/files.h"

static char *type_of(const char *const *numbers, size_t n)
{
    static char out[40];
    ddb_num_shape sh = {0, 0, 0};
    for (size_t i = 0; i < n; i++)
        ddb_num_shape_add(&sh, numbers[i], strlen(numbers[i]));
    ddb_num_shape_duckdb(&sh, out, sizeof(out));
    return out;
}

#define TYPE_OF(...)                                                                               \
    type_of((const char *const[]){__VA_ARGS__},                                                    \
            sizeof((const char *const[]){__VA_ARGS__}) / sizeof(const char *))

Test(schema, integers_that_fit_are_bigint)
{
    cr_assert_str_eq(TYPE_OF("0", "-7", "1630061552447", "999999999999999999"), "BIGINT");
    cr_assert_str_eq(TYPE_OF("1E+3", "12.000"), "BIGINT"); /* integers, whatever the spelling */
}

Test(schema, longer_integers_are_decimal_38_0)
{
    cr_assert_str_eq(TYPE_OF("1000000000000000000"), "DECIMAL(38,0)");
    cr_assert_str_eq(TYPE_OF("99999999999999999999999999999999999999"), "DECIMAL(38,0)");
}

Test(schema, fractions_set_the_scale)
{
    cr_assert_str_eq(TYPE_OF("1.5", "-0.125", "3"), "DECIMAL(38,3)");
    cr_assert_str_eq(TYPE_OF("1.50"), "DECIMAL(38,1)"); /* trailing zeros are not needed */
    cr_assert_str_eq(TYPE_OF("5E-3"), "DECIMAL(38,3)");
    cr_assert_str_eq(TYPE_OF("0.00001234"), "DECIMAL(38,8)");
}

/* 38 significant digits, but no DECIMAL(38,s) holds them all together, or a
 * value beyond 10^38: text, exact, never DOUBLE. */
Test(schema, what_no_decimal_holds_is_text)
{
    cr_assert_str_eq(TYPE_OF("12345678901234567890.5", "0.123456789012345678901"), "VARCHAR");
    cr_assert_str_eq(TYPE_OF("1E+100"), "VARCHAR");
    cr_assert_str_eq(TYPE_OF("1E-130"), "VARCHAR");
}

/* Whole numbers written plainly take a short way; the shape is the one the
 * same values give spelt otherwise (with a sign, a point or an exponent). */
Test(schema, plain_integers_shape_as_their_other_spellings)
{
    static const char *plain[] = {"7",
                                  "10",
                                  "1630061552447",
                                  "999999999999999999",
                                  "1000000000000000000",
                                  "12345678901234567890123456789012345678"};
    for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
        char other[3][64];
        ddb_num_shape fast = {0, 0, 0};
        snprintf(other[0], sizeof(other[0]), "+%s", plain[i]);
        snprintf(other[1], sizeof(other[1]), "%s.0", plain[i]);
        snprintf(other[2], sizeof(other[2]), "%sE0", plain[i]);
        ddb_num_shape_add(&fast, plain[i], strlen(plain[i]));
        for (int k = 0; k < 3; k++) {
            ddb_num_shape slow = {0, 0, 0};
            ddb_num_shape_add(&slow, other[k], strlen(other[k]));
            cr_assert(fast.seen == slow.seen && fast.int_digits == slow.int_digits &&
                          fast.scale == slow.scale,
                      "%s: %d,%d; %s: %d,%d", plain[i], fast.int_digits, fast.scale, other[k],
                      slow.int_digits, slow.scale);
        }
    }
}

Test(schema, no_values_still_give_a_type)
{
    cr_assert_str_eq(type_of(NULL, 0), "DECIMAL(38,0)");
}

static const char *mapping_json =
    "{\"table\":{\"name\":\"t\",\"partitionKey\":{\"name\":\"pk\",\"type\":\"S\"}},"
    "\"entities\":[{\"name\":\"Reading\",\"keys\":{\"pk\":\"R#{id}\"},\"fields\":["
    "{\"name\":\"id\",\"type\":\"S\"},{\"name\":\"value\",\"type\":\"N\"},"
    "{\"name\":\"tags\",\"type\":\"SS\"},{\"name\":\"day\",\"type\":\"S\",\"format\":"
    "\"date\"},{\"name\":\"ok\",\"type\":\"BOOL\"}]}]}";

static ddb_map record(ddb_arena *a, const char *json)
{
    ddb_json_parser *p = NULL;
    ddb_map m;
    ddb_error err;
    cr_assert_eq(ddb_json_parser_new(&p), 0);
    cr_assert_eq(ddb_json_parse_typed_map(p, &m, json, strlen(json), a, &err), 0, "%s",
                 err.message);
    ddb_json_parser_free(p);
    return m;
}

static const char *notes_mapping_json =
    "{\"table\":{\"name\":\"t\",\"partitionKey\":{\"name\":\"pk\",\"type\":\"S\"}},"
    "\"entities\":[{\"name\":\"R\",\"keys\":{\"pk\":\"R#{id}\"},\"fields\":["
    "{\"name\":\"id\",\"type\":\"S\"},{\"name\":\"a\",\"type\":\"N\"},"
    "{\"name\":\"s\",\"type\":\"NS\"},{\"name\":\"t\",\"type\":\"S\"},"
    "{\"name\":\"b\",\"type\":\"N\"}]}]}";

/* A record's note (made on a worker thread), taken in, counts exactly as
 * observing the record does: fields present, numbers seen, the widest
 * integer part and the longest fraction, sets member by member, absent
 * fields and records without numbers included. */
Test(schema, a_note_counts_as_observing_its_record)
{
    static const char *const recs[][2] = {
        {"{\"id\":{\"S\":\"1\"},\"a\":{\"N\":\"12.25\"},\"b\":{\"N\":\"7\"}}", "3"},
        {"{\"id\":{\"S\":\"2\"},\"s\":{\"NS\":[\"1.5\",\"-100000000000000000000\",\"0.001\"]}}", "2"},
        {"{\"id\":{\"S\":\"3\"},\"t\":{\"S\":\"x\"}}", "2"},
        {"{\"id\":{\"S\":\"4\"},\"a\":{\"N\":\"-0.000123400\"},\"s\":{\"NS\":[\"9E+3\"]},"
         "\"t\":{\"S\":\"y\"},\"b\":{\"N\":\"123456789012345678901234567890.5\"}}", "5"},
        {"{\"id\":{\"S\":\"5\"},\"a\":{\"N\":\"0\"}}", "2"},
    };
    ddb_mapping *m = NULL;
    ddb_schema *direct = NULL, *noted = NULL;
    ddb_arena *a = NULL;
    ddb_buf want = DDB_BUF_INIT, got = DDB_BUF_INIT, note = DDB_BUF_INIT;
    ddb_error err;

    cr_assert_eq(ddb_mapping_parse(&m, notes_mapping_json, strlen(notes_mapping_json), "inline",
                                   &err),
                 0, "%s", err.message);
    cr_assert_eq(ddb_arena_new(&a, 0), 0);
    cr_assert_eq(ddb_schema_new(&direct, m, &err), 0);
    cr_assert_eq(ddb_schema_new(&noted, m, &err), 0);
    for (size_t i = 0; i < sizeof(recs) / sizeof(recs[0]); i++) {
        ddb_map rec = record(a, recs[i][0]);
        size_t n = (size_t)atoi(recs[i][1]);
        ddb_schema_observe(direct, 0, &rec, n);
        ddb_buf_clear(&note);
        ddb_buf_puts(&note, "line\n"); /* a note follows its line */
        cr_assert_eq(ddb_schema_note(m, 0, &rec, n, &note), 0);
        ddb_schema_observe_note(noted, 0, note.ptr + 5, note.len - 5);
        ddb_buf_clear(&want);
        ddb_buf_clear(&got);
        ddb_schema_save(direct, 0, &want);
        ddb_schema_save(noted, 0, &got);
        cr_assert_str_eq(got.ptr, want.ptr, "after record %zu", i + 1);
    }
    /* [present, seen, int_digits, scale] per field */
    cr_assert_str_eq(want.ptr, "[[5,0,0,0],[3,3,2,7],[2,4,21,3],[2,0,0,0],[2,2,30,1]]");
    ddb_buf_dispose(&want);
    ddb_buf_dispose(&got);
    ddb_buf_dispose(&note);
    ddb_schema_free(direct);
    ddb_schema_free(noted);
    ddb_arena_free(a);
    ddb_mapping_free(m);
}

Test(schema, types_survive_a_checkpoint_and_reach_the_scripts)
{
    ddb_mapping *m = NULL;
    ddb_schema *s = NULL, *again = NULL;
    ddb_arena *a = NULL;
    ddb_buf saved = DDB_BUF_INIT;
    ddb_json_parser *p = NULL;
    ddb_value root;
    ddb_error err;
    char dir[64], *text;
    size_t len;
    ddb_schema_file f = {0, "Reading.csv", NULL, 0};
    ddb_map rec;

    cr_assert_eq(ddb_mapping_parse(&m, mapping_json, strlen(mapping_json), "inline", &err), 0, "%s",
                 err.message);
    cr_assert_eq(ddb_arena_new(&a, 0), 0);
    cr_assert_eq(ddb_schema_new(&s, m, &err), 0);
    /* declared fields in field order, absent ones left out */
    rec = record(a, "{\"id\":{\"S\":\"a\"},\"value\":{\"N\":\"12.25\"}}");
    ddb_schema_observe(s, 0, &rec, 2);
    rec = record(a, "{\"id\":{\"S\":\"b\"},\"value\":{\"N\":\"-3\"},\"ok\":{\"BOOL\":true}}");
    ddb_schema_observe(s, 0, &rec, 3);
    ddb_schema_save(s, 0, &saved);

    cr_assert_eq(ddb_schema_new(&again, m, &err), 0);
    cr_assert_eq(ddb_json_parser_new(&p), 0);
    cr_assert_eq(ddb_json_parse_plain(p, &root, saved.ptr, saved.len, a, &err), 0);
    cr_assert_eq(ddb_schema_restore(again, 0, &root, &err), 0, "%s", err.message);

    tu_mkdtemp(dir, sizeof(dir), "/tmp/ddb-schema-XXXXXX");
    cr_assert_eq(ddb_schema_write(again, NULL, dir, DDB_OUT_CSV, ';', &f, 1, &err), 0, "%s",
                 err.message);
    text = tu_slurp(tu_path(dir, "load.duckdb.sql"), &len);
    cr_assert(strstr(text, "read_csv('Reading.csv'"), "%s", text);
    cr_assert(strstr(text, "delim = ';'"), "%s", text);
    cr_assert(strstr(text, "allow_quoted_nulls = false"), "%s", text);
    cr_assert(strstr(text, "'value': 'DECIMAL(38,2)'"), "%s", text);
    cr_assert(strstr(text, "'tags': 'JSON'"), "%s", text); /* a CSV cell holds JSON text */
    cr_assert(strstr(text, "'day': 'DATE'"), "%s", text);
    cr_assert(strstr(text, "'ok': 'BOOLEAN'"), "%s", text);
    free(text);
    text = tu_slurp(tu_path(dir, "Reading.athena.sql"), &len);
    cr_assert(strstr(text, "`value` decimal(38,2)"), "%s", text);
    cr_assert(strstr(text, "'skip.header.line.count' = '1'"), "%s", text);
    free(text);
    text = tu_slurp(tu_path(dir, "Reading.json"), &len);
    cr_assert(strstr(text, "{\"name\":\"value\",\"dynamodb\":\"N\",\"duckdb\":\"DECIMAL(38,2)\""),
              "%s", text);
    free(text);

    /* NDJSON keeps sets as arrays; a DECIMAL column is read from the number's
     * text (DuckDB's JSON reader would read it as a double), found by its key
     * (no map or list comes before it), and CAST */
    cr_assert_eq(ddb_schema_write(again, NULL, dir, DDB_OUT_NDJSON, 0, &f, 1, &err), 0);
    text = tu_slurp(tu_path(dir, "load.duckdb.sql"), &len);
    cr_assert(strstr(text, "\"tags\":\"VARCHAR[]\""), "%s", text);
    cr_assert(strstr(text, "CAST(CASE WHEN r.\"value\" IS NOT NULL THEN regexp_extract(line, "
                           "'\"value\":(-?[0-9][0-9.eE+-]*)', 1) END AS DECIMAL(38,2)) AS \"value\""),
              "%s", text);
    cr_assert(strstr(text, "\"value\":\"JSON\""), "%s", text);
    cr_assert_null(strstr(text, "ddbpipe_numbers_as_text"), "%s", text);
    cr_assert(strstr(text, "columns = {'line': 'VARCHAR'}, header = false"), "%s", text);
    free(text);

    /* a checkpoint of another shape is refused, not guessed at */
    cr_assert_eq(ddb_json_parse_plain(p, &root, "[[1,2]]", 7, a, &err), 0);
    cr_assert_eq(ddb_schema_restore(again, 0, &root, &err), DDB_EUSAGE);

    tu_rmtree(dir);
    ddb_json_parser_free(p);
    ddb_buf_dispose(&saved);
    ddb_schema_free(s);
    ddb_schema_free(again);
    ddb_arena_free(a);
    ddb_mapping_free(m);
}
