/*
 * test_summary.c — the end-of-run summary: the table for people and the JSON
 * document for machines.
 */
#include <criterion/criterion.h>

#include <string.h>

#include "ddbpipe/json.h"
#include "ddbpipe/pipeline.h"

Test(summary, table_and_json)
{
    ddb_entity_stats rows[2] = {{"Tag", 5, 3, 1, 1, 1, 0, 0, 0}, {"(none)", 0, 0, 0, 0, 0, 0, 0, 0}};
    ddb_summary s;
    ddb_buf b = DDB_BUF_INIT;
    char *outs[] = {"out/Tag.csv"};
    memset(&s, 0, sizeof(s));
    s.command = "export";
    s.entities = rows;
    s.n_entities = 2;
    s.total = (ddb_entity_stats){"total", 5, 3, 1, 1, 1, 0, 0, 0};
    s.committed = 1;
    s.outputs = outs;
    s.n_outputs = 1;
    s.input_errors = 2;

    ddb_summary_format(&b, &s);
    cr_assert_not_null(strstr(b.ptr, "Tag"), "%s", b.ptr);
    cr_assert_not_null(strstr(b.ptr, "written"), "%s", b.ptr);
    cr_assert_null(strstr(b.ptr, "(none)"), "an empty (none) row is hidden:\n%s", b.ptr);
    cr_assert_not_null(strstr(b.ptr, "deleted"), "deletes column when there are deletes");
    ddb_buf_clear(&b);

    ddb_summary_json(&b, &s, 3);
    cr_assert_not_null(strstr(b.ptr, "\"command\":\"export\""), "%s", b.ptr);
    cr_assert_not_null(
        strstr(b.ptr,
               "\"total\":{\"name\":\"total\",\"read\":5,\"written\":3,"
               "\"deleted\":1,\"rejected\":1,\"unmatched\":1,\"existing\":0,\"not_done\":0}"),
        "%s", b.ptr);
    cr_assert_not_null(strstr(b.ptr, "\"input_errors\":2"), "%s", b.ptr);
    cr_assert_not_null(strstr(b.ptr, "\"committed\":true"), "%s", b.ptr);
    cr_assert_not_null(strstr(b.ptr, "\"outputs\":[\"out/Tag.csv\"]"), "%s", b.ptr);
    cr_assert_not_null(strstr(b.ptr, "\"rejects_file\":null"), "%s", b.ptr);
    cr_assert_not_null(strstr(b.ptr, "\"exit_code\":3}"), "%s", b.ptr);
    {
        /* and it is one valid JSON document */
        ddb_value v;
        ddb_json_parser *p = NULL;
        ddb_arena *a = NULL;
        cr_assert_eq(ddb_arena_new(&a, 0), 0);
        cr_assert_eq(ddb_json_parser_new(&p), 0);
        cr_assert_eq(ddb_json_parse_plain(p, &v, b.ptr, b.len, a, NULL), 0, "%s", b.ptr);
        cr_assert_eq(v.type, DDB_TYPE_M);
        ddb_json_parser_free(p);
        ddb_arena_free(a);
    }
    ddb_buf_clear(&b);

    /* validate counts what would be written: the column says "valid" */
    s.command = "validate";
    ddb_summary_format(&b, &s);
    cr_assert_not_null(strstr(b.ptr, "valid"), "%s", b.ptr);
    cr_assert_null(strstr(b.ptr, "written"), "%s", b.ptr);
    ddb_buf_dispose(&b);
}

Test(summary, no_mapping_shows_the_none_row_and_changes)
{
    ddb_entity_stats rows[1] = {{"(none)", 4, 4, 0, 0, 0, 0, 0, 0}};
    ddb_summary s;
    ddb_buf b = DDB_BUF_INIT;
    memset(&s, 0, sizeof(s));
    s.command = "export";
    s.entities = rows;
    s.n_entities = 1;
    s.total = (ddb_entity_stats){"total", 4, 4, 0, 0, 0, 0, 0, 0};
    s.changes[DDB_CHANGE_INSERT] = 2;
    s.changes[DDB_CHANGE_REMOVE] = 1;
    ddb_summary_format(&b, &s);
    cr_assert_not_null(strstr(b.ptr, "(none)"), "%s", b.ptr);
    cr_assert_null(strstr(b.ptr, "deleted"), "no deletes column without deletes:\n%s", b.ptr);
    cr_assert_not_null(strstr(b.ptr, "changes: 2 inserted, 0 modified, 1 removed"), "%s", b.ptr);
    ddb_buf_clear(&b);
    ddb_summary_json(&b, &s, 0);
    cr_assert_not_null(strstr(b.ptr, "\"changes\":{\"inserted\":2,\"modified\":0,\"removed\":1}"),
                       "%s", b.ptr);
    cr_assert_not_null(strstr(b.ptr, "\"committed\":false"), "%s", b.ptr);
    cr_assert_not_null(strstr(b.ptr, "\"outputs\":[]"), "%s", b.ptr);
    ddb_buf_dispose(&b);
}

Test(summary, a_stopped_run_shows_what_is_not_done)
{
    ddb_entity_stats rows[2] = {{"Tag", 462, 0, 25, 0, 0, 0, 437, 0}, {"(none)", 0, 0, 0, 0, 0, 0, 0, 0}};
    ddb_summary s;
    ddb_buf b = DDB_BUF_INIT;
    memset(&s, 0, sizeof(s));
    s.command = "import";
    s.entities = rows;
    s.n_entities = 2;
    s.total = (ddb_entity_stats){"total", 462, 0, 25, 0, 0, 0, 437, 0};
    ddb_summary_format(&b, &s);
    cr_assert_not_null(strstr(b.ptr, "not done"), "%s", b.ptr);
    cr_assert_not_null(strstr(b.ptr, "437 records were read but not written"), "%s", b.ptr);
    ddb_buf_clear(&b);
    ddb_summary_json(&b, &s, 5);
    cr_assert_not_null(strstr(b.ptr, "\"not_done\":437"), "%s", b.ptr);
    cr_assert_not_null(strstr(b.ptr, "\"complete\":false"), "%s", b.ptr);
    ddb_buf_dispose(&b);
}
