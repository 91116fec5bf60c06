/*
 * test_csv_reader.c — the CSV record reader: the header, absent vs empty
 * cells, bad rows, entity hints from file names, delimiters.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "ddbpipe/reader.h"
#include "support/files.h"
#include "support/readers.h"
#include "support/testutil.h"

static char tdir[64];

static void setup(void)
{
    tu_mkdtemp(tdir, sizeof(tdir), "/tmp/ddb-reader-csv-XXXXXX");
}

static void teardown(void)
{
    tu_rmtree(tdir);
}

TestSuite(csvreader, .init = setup, .fini = teardown);

static int csv_open(ddb_reader **r, const char *text, const char *name, const ddb_reader_opts *opts,
                    ddb_error *err)
{
    return ddb_reader_new_csv(r, tu_memory_source(text, strlen(text), name), name, opts, err);
}

static ddb_reader *csv_over(const char *text, const char *name, const ddb_reader_opts *opts)
{
    ddb_reader *r = NULL;
    ddb_error err;
    cr_assert_eq(csv_open(&r, text, name, opts, &err), 0, "%s", err.message);
    cr_assert_eq(r->format, DDB_IN_CSV);
    return r;
}

static void expect_header_error(const char *text, const char *needle)
{
    ddb_reader *r = (ddb_reader *)1;
    ddb_error err;
    ddb_error_clear(&err);
    cr_assert_eq(csv_open(&r, text, "Tag.csv", NULL, &err), DDB_EUSAGE, "%s", text);
    cr_assert_null(r);
    cr_assert_not_null(strstr(err.message, "Tag.csv"), "%s", err.message);
    cr_assert_not_null(strstr(err.message, needle), "%s", err.message);
}

Test(csvreader, header_duplicate_column)
{
    expect_header_error("userId,tagId,userId\nu1,t1,u2\n", "userId");
}

Test(csvreader, header_empty_column_name)
{
    expect_header_error("userId,,tagId\nu1,x,t1\n", "column 2");
    expect_header_error("\"\",tagId\nu1,t1\n", "column 1");
}

Test(csvreader, empty_file)
{
    expect_header_error("", "empty");
}

Test(csvreader, header_only_has_no_records)
{
    ddb_reader *r = csv_over("a,b\n", "x.csv", NULL);
    tu_expect_end(r);
    ddb_reader_free(r);
}

Test(csvreader, absent_vs_empty_cells)
{
    ddb_reader *r = csv_over("a,b,c,d\n1,,\"\",\" \"\n", "x.csv", NULL);
    ddb_record *rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_PUT);
    cr_assert_eq(rec->typed, 0);
    cr_assert_eq(rec->item.count, 3, "b is absent");
    tu_expect_s(&rec->item, "a", "1");
    cr_assert_null(ddb_map_getz(&rec->item, "b"));
    tu_expect_s(&rec->item, "c", "");
    tu_expect_s(&rec->item, "d", " ");
    tu_expect_end(r);
    ddb_reader_free(r);
}

Test(csvreader, all_cells_empty_gives_empty_record)
{
    ddb_reader *r = csv_over("a,b\n,\nx,y\n", "x.csv", NULL);
    ddb_record *rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_PUT);
    cr_assert_eq(rec->item.count, 0);
    cr_assert_eq(rec->line, 2);
    rec = tu_next_ok(r);
    tu_expect_s(&rec->item, "a", "x");
    tu_expect_end(r);
    ddb_reader_free(r);
}

Test(csvreader, wrong_field_count_is_bad)
{
    const char *text = "a,b,c\n1,2\n1,2,3,4\n5,6,7\n";
    ddb_reader *r = csv_over(text, "x.csv", NULL);
    ddb_record *rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_BAD);
    cr_assert_eq(rec->line, 2);
    cr_assert_eq(rec->offset, 6);
    cr_assert_str_eq(rec->reason, "row has 2 fields, the header has 3");
    cr_assert_eq(rec->item.count, 0);
    cr_assert_not_null(rec->raw);
    cr_assert_eq(rec->raw_len >= 3, 1);
    cr_assert_eq(memcmp(rec->raw, "1,2", 3), 0);
    rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_BAD);
    cr_assert_eq(rec->line, 3);
    cr_assert_str_eq(rec->reason, "row has 4 fields, the header has 3");
    rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_PUT);
    cr_assert_eq(rec->line, 4);
    cr_assert_null(rec->reason);
    tu_expect_s(&rec->item, "c", "7");
    tu_expect_end(r);
    ddb_reader_free(r);
}

Test(csvreader, one_field_row_against_wider_header)
{
    ddb_reader *r = csv_over("a,b\nonly\n", "x.csv", NULL);
    ddb_record *rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_BAD);
    cr_assert_str_eq(rec->reason, "row has 1 field, the header has 2");
    tu_expect_end(r);
    ddb_reader_free(r);
}

Test(csvreader, malformed_row_is_bad_and_reading_goes_on)
{
    ddb_reader *r = csv_over("a,b\nx\"y,z\nok,1\n", "x.csv", NULL);
    ddb_record *rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_BAD);
    cr_assert_eq(rec->line, 2);
    cr_assert_not_null(rec->reason);
    cr_assert_not_null(strstr(rec->reason, "line 2"), "%s", rec->reason);
    rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_PUT);
    cr_assert_eq(rec->line, 3);
    tu_expect_s(&rec->item, "a", "ok");
    tu_expect_end(r);
    ddb_reader_free(r);
}

Test(csvreader, quoted_newline_positions)
{
    const char *text = "a,b\n\"multi\nline\",1\nnext,2\n";
    ddb_reader *r = csv_over(text, "x.csv", NULL);
    ddb_record *rec = tu_next_ok(r);
    tu_expect_s(&rec->item, "a", "multi\nline");
    cr_assert_eq(rec->line, 2);
    cr_assert_eq(rec->offset, 4);
    rec = tu_next_ok(r);
    tu_expect_s(&rec->item, "a", "next");
    cr_assert_eq(rec->line, 4);
    cr_assert_eq(rec->offset, (uint64_t)(strstr(text, "next") - text));
    cr_assert_eq(rec->raw_len, 6);
    cr_assert_eq(memcmp(rec->raw, "next,2", 6), 0);
    tu_expect_end(r);
    ddb_reader_free(r);
}

Test(csvreader, entity_hint_from_gzip_file_name)
{
    const char *path = tu_put_gzip(tdir, "Tag.csv.gz", "userId,tagId\nu1,t1\n");
    ddb_reader *r = NULL;
    ddb_error err;
    ddb_record *rec;
    cr_assert_eq(ddb_reader_open(&r, path, NULL, &err), 0, "%s", err.message);
    cr_assert_eq(r->format, DDB_IN_CSV);
    rec = tu_next_ok(r);
    cr_assert_str_eq(r->entity_hint, "Tag");
    tu_expect_s(&rec->item, "userId", "u1");
    tu_expect_end(r);
    ddb_reader_free(r);
}

Test(csvreader, deletes_file_name)
{
    const char *path = tu_put_file(tdir, "Tag.deletes.csv", "userId,tagId\nu1,t1\n");
    ddb_reader *r = NULL;
    ddb_error err;
    int is_delete = 0;
    char *e;
    cr_assert_eq(ddb_reader_open(&r, path, NULL, &err), 0, "%s", err.message);
    tu_next_ok(r);
    cr_assert_str_eq(r->entity_hint, "Tag");
    cr_assert_eq(r->deletes, 1);
    ddb_reader_free(r);
    e = ddb_entity_from_filename(path, &is_delete);
    cr_assert_str_eq(e, "Tag");
    cr_assert_eq(is_delete, 1);
    free(e);
}

Test(csvreader, entity_option_overrides_file_name)
{
    ddb_reader_opts o;
    ddb_reader *r;
    memset(&o, 0, sizeof(o));
    o.entity = "FavoriteData";
    r = csv_over("userId\nu1\n", "dir/Tag.csv", &o);
    tu_next_ok(r);
    cr_assert_str_eq(r->entity_hint, "FavoriteData");
    ddb_reader_free(r);
}

Test(csvreader, no_hint_for_underscore_names)
{
    ddb_reader *r = csv_over("a\n1\n", "_something.csv", NULL);
    tu_next_ok(r);
    cr_assert_null(r->entity_hint);
    ddb_reader_free(r);
}

Test(csvreader, tsv_default_delimiter)
{
    ddb_reader *r = csv_over("a\tb\nx,y\tz\n", "dir/Tag.tsv", NULL);
    ddb_record *rec = tu_next_ok(r);
    cr_assert_eq(rec->item.count, 2);
    tu_expect_s(&rec->item, "a", "x,y");
    tu_expect_s(&rec->item, "b", "z");
    tu_expect_end(r);
    ddb_reader_free(r);
}

Test(csvreader, tsv_gz_default_delimiter_via_open)
{
    const char *path = tu_put_gzip(tdir, "Tag.tsv.gz", "a\tb\n1,2\t3\n");
    ddb_reader *r = NULL;
    ddb_reader_opts o;
    ddb_error err;
    ddb_record *rec;
    memset(&o, 0, sizeof(o));
    o.format = DDB_IN_CSV;
    cr_assert_eq(ddb_reader_open(&r, path, &o, &err), 0, "%s", err.message);
    rec = tu_next_ok(r);
    tu_expect_s(&rec->item, "a", "1,2");
    tu_expect_s(&rec->item, "b", "3");
    cr_assert_str_eq(r->entity_hint, "Tag");
    ddb_reader_free(r);
}

Test(csvreader, explicit_delimiter_wins)
{
    ddb_reader_opts o;
    ddb_reader *r;
    ddb_record *rec;
    memset(&o, 0, sizeof(o));
    o.delimiter = ';';
    r = csv_over("a;b\n1,5;2\n", "x.tsv", &o);
    rec = tu_next_ok(r);
    tu_expect_s(&rec->item, "a", "1,5");
    tu_expect_s(&rec->item, "b", "2");
    ddb_reader_free(r);
}

Test(csvreader, over_long_row_is_bad)
{
    ddb_reader_opts o;
    char text[512];
    char longcell[200];
    ddb_reader *r;
    ddb_record *rec;
    memset(longcell, 'q', sizeof(longcell) - 1);
    longcell[sizeof(longcell) - 1] = '\0';
    snprintf(text, sizeof(text), "a,b\n1,2\n%s,x\n3,4\n", longcell);
    memset(&o, 0, sizeof(o));
    o.max_line = 64;
    r = csv_over(text, "x.csv", &o);
    rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_PUT);
    rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_BAD);
    cr_assert_eq(rec->line, 3);
    rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_PUT);
    tu_expect_s(&rec->item, "a", "3");
    cr_assert_eq(rec->line, 4);
    tu_expect_end(r);
    ddb_reader_free(r);
}

Test(csvreader, crlf_rows)
{
    ddb_reader *r = csv_over("a,b\r\n1,2\r\n\"x\r\ny\",3\r\n", "x.csv", NULL);
    ddb_record *rec = tu_next_ok(r);
    tu_expect_s(&rec->item, "a", "1");
    tu_expect_s(&rec->item, "b", "2");
    cr_assert_eq(rec->raw_len, 3);
    rec = tu_next_ok(r);
    tu_expect_s(&rec->item, "a", "x\r\ny");
    tu_expect_s(&rec->item, "b", "3");
    cr_assert_eq(rec->line, 3);
    tu_expect_end(r);
    ddb_reader_free(r);
}

Test(csvreader, byte_order_mark_is_not_part_of_the_first_column)
{
    const char *path = tu_put_file(tdir, "Bom.csv", "\xEF\xBB\xBFid,n\nx,1\n");
    ddb_reader *r = NULL;
    ddb_error err;
    ddb_record *rec;
    cr_assert_eq(ddb_reader_open(&r, path, NULL, &err), 0, "%s", err.message);
    cr_assert_eq(r->format, DDB_IN_CSV);
    rec = tu_next_ok(r);
    tu_expect_s(&rec->item, "id", "x");
    tu_expect_s(&rec->item, "n", "1");
    tu_expect_end(r);
    ddb_reader_free(r);
}

/* ---------------------------------------------- what ddbpipe writes reads back */

Test(csvreader, typed_columns)
{
    ddb_reader *r =
        csv_over("id:N,name,blob:B,ok:BOOL,tags:SS,nums:NS,data:M,list:L,s:S\n"
                 "1.50,x,AAE=,true,\"[\"\"a\"\",\"\"b\"\"]\",\"[\"\"1\"\",\"\"2.0\"\"]\","
                 "\"{\"\"k\"\":{\"\"B\"\":\"\"AQ==\"\"}}\",\"[{\"\"N\"\":\"\"7\"\"}]\",7\n",
                 "t.csv", NULL);
    ddb_record *rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_PUT, "%s", rec->reason);
    cr_assert_eq(rec->typed, 0, "name is untyped");
    tu_expect_n(&rec->item, "id", "1.50");
    tu_expect_s(&rec->item, "name", "x");
    tu_expect_bytes(&rec->item, "blob", DDB_TYPE_B, "\0\1", 2);
    cr_assert_eq(ddb_map_getz(&rec->item, "ok")->type, DDB_TYPE_BOOL);
    cr_assert_eq(ddb_map_getz(&rec->item, "tags")->type, DDB_TYPE_SS);
    cr_assert_eq(ddb_map_getz(&rec->item, "nums")->type, DDB_TYPE_NS);
    cr_assert_eq(ddb_map_getz(&rec->item, "data")->type, DDB_TYPE_M);
    cr_assert_eq(ddb_map_getz(&ddb_map_getz(&rec->item, "data")->u.m, "k")->type, DDB_TYPE_B);
    cr_assert_eq(ddb_map_getz(&rec->item, "list")->type, DDB_TYPE_L);
    tu_expect_s(&rec->item, "s", "7");
    tu_expect_end(r);
    ddb_reader_free(r);
}

Test(csvreader, all_typed_columns_make_typed_records)
{
    ddb_reader *r = csv_over("id:N,_extra\n1,\n", "t.csv", NULL);
    cr_assert_eq(tu_next_ok(r)->typed, 1);
    ddb_reader_free(r);
}

Test(csvreader, bad_typed_cell_is_bad_with_the_column)
{
    ddb_reader *r = csv_over("id:N,tags:SS\nabc,\n1,\"[1]\"\n", "t.csv", NULL);
    ddb_record *rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_BAD);
    cr_assert_not_null(strstr(rec->reason, "column id (N)"), "%s", rec->reason);
    rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_BAD);
    cr_assert_not_null(strstr(rec->reason, "column tags (SS)"), "%s", rec->reason);
    ddb_reader_free(r);
}

/* A name whose suffix is no type is just a name. */
Test(csvreader, colon_without_a_type_is_part_of_the_name)
{
    ddb_reader *r = csv_over("a:b,time:12\nx,y\n", "t.csv", NULL);
    ddb_record *rec = tu_next_ok(r);
    tu_expect_s(&rec->item, "a:b", "x");
    tu_expect_s(&rec->item, "time:12", "y");
    ddb_reader_free(r);
}

Test(csvreader, extra_is_merged_back_typed_or_plain)
{
    ddb_reader *r =
        csv_over("pk,_extra\n"
                 "a,\"{\"\"n\"\":{\"\"N\"\":\"\"12345678901234567890123456789012345678\"\"},"
                 "\"\"s\"\":{\"\"SS\"\":[\"\"x\"\"]}}\"\n"
                 "b,\"{\"\"n\"\":1.50,\"\"l\"\":[1,\"\"x\"\"]}\"\n"
                 "c,\n",
                 "t.csv", NULL);
    ddb_record *rec = tu_next_ok(r);
    cr_assert_eq(rec->item.count, 3);
    tu_expect_n(&rec->item, "n", "12345678901234567890123456789012345678");
    cr_assert_eq(ddb_map_getz(&rec->item, "s")->type, DDB_TYPE_SS);
    cr_assert_null(ddb_map_getz(&rec->item, "_extra"));
    rec = tu_next_ok(r);
    tu_expect_n(&rec->item, "n", "1.50");
    cr_assert_eq(ddb_map_getz(&rec->item, "l")->type, DDB_TYPE_L);
    rec = tu_next_ok(r);
    cr_assert_eq(rec->item.count, 1);
    tu_expect_end(r);
    ddb_reader_free(r);
}

Test(csvreader, extra_colliding_with_a_column_or_not_json_is_bad)
{
    ddb_reader *r =
        csv_over("pk,_extra\na,\"{\"\"pk\"\":{\"\"S\"\":\"\"b\"\"}}\"\nb,{oops\n", "t.csv", NULL);
    ddb_record *rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_BAD);
    cr_assert_str_eq(rec->reason, "attribute 'pk' is both a column and in _extra");
    rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_BAD);
    cr_assert_not_null(strstr(rec->reason, "_extra: "), "%s", rec->reason);
    ddb_reader_free(r);
}

Test(csvreader, given_columns_first_row_is_data)
{
    const char *cols[] = {"id:N", "name"};
    ddb_reader_opts o = {.columns = cols, .n_columns = 2};
    ddb_reader *r = csv_over("1,a\n2,b,c\n", "rows.txt", &o);
    ddb_record *rec = tu_next_ok(r);
    tu_expect_n(&rec->item, "id", "1");
    cr_assert_eq(rec->line, 1);
    rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_BAD);
    cr_assert_str_eq(rec->reason, "row has 3 fields, the columns given are 2");
    tu_expect_end(r);
    ddb_reader_free(r);
}

Test(csvreader, short_and_long_rows_when_allowed)
{
    ddb_reader_opts o = {.allow_short_rows = 1, .allow_long_rows = 1};
    ddb_reader *r = csv_over("a,b,c\n1\n1,2,3,4,,6\n", "t.csv", &o);
    ddb_record *rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_PUT);
    cr_assert_eq(rec->item.count, 1);
    rec = tu_next_ok(r);
    cr_assert_eq(rec->item.count, 5);
    tu_expect_s(&rec->item, "_col4", "4");
    cr_assert_null(ddb_map_getz(&rec->item, "_col5"));
    tu_expect_s(&rec->item, "_col6", "6");
    tu_expect_end(r);
    ddb_reader_free(r);
    o.allow_long_rows = 0;
    r = csv_over("a,b\n1,2,3\n", "t.csv", &o);
    cr_assert_eq(tu_next_ok(r)->kind, DDB_REC_BAD);
    ddb_reader_free(r);
}

/* "c0,c1,...,c<n-1>" then, when dup is not NULL, one more column named dup;
 * then a row of the column numbers. malloc'd. */
static char *wide_csv(size_t n, const char *dup)
{
    size_t cap = n * 16 + 64, len = 0;
    char *t = malloc(cap);
    cr_assert_not_null(t);
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf(t + len, cap - len, "%sc%zu", i ? "," : "", i);
    if (dup != NULL)
        len += (size_t)snprintf(t + len, cap - len, ",%s", dup);
    t[len++] = '\n';
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf(t + len, cap - len, "%s%zu", i ? "," : "", i);
    t[len++] = '\n';
    t[len] = '\0';
    return t;
}

/* A header of 100,000 columns: each name is checked against the others through a hash, not
 * against every earlier one (which took seconds of CPU at this width). */
Test(csvreader, header_of_100000_columns)
{
    enum { WIDE = 100000 };
    char *text = wide_csv(WIDE, NULL);
    const char *path = tu_put_file(tdir, "wide.csv", text);
    ddb_reader *r = NULL;
    ddb_record *rec;
    ddb_error err;

    cr_assert_eq(ddb_reader_open(&r, path, NULL, &err), 0, "%s", err.message);
    cr_assert_eq(r->n_columns, WIDE);
    cr_assert_str_eq(r->columns[WIDE - 1], "c99999");
    rec = tu_next_ok(r);
    cr_assert_eq(rec->item.count, WIDE);
    tu_expect_s(&rec->item, "c99999", "99999");
    tu_expect_end(r);
    ddb_reader_free(r);
    free(text);

    text = wide_csv(WIDE, "c77777");
    path = tu_put_file(tdir, "wide-dup.csv", text);
    r = (ddb_reader *)1;
    cr_assert_eq(ddb_reader_open(&r, path, NULL, &err), DDB_EUSAGE);
    cr_assert_null(r);
    cr_assert_not_null(strstr(err.message, "\"c77777\" appears twice"), "%s", err.message);
    free(text);
}

/* Opens dir/name (text) with the spec file dir/name.spec (spec): 0 or the error. */
static int open_with_spec(ddb_reader **r, const char *name, const char *text, const char *spec,
                          ddb_error *err)
{
    char spec_name[128];
    ddb_reader_opts o;
    memset(&o, 0, sizeof(o));
    snprintf(spec_name, sizeof(spec_name), "%s.spec", name);
    o.types_file = tu_put_file(tdir, spec_name, spec);
    return ddb_reader_open(r, tu_put_file(tdir, name, text), &o, err);
}

/* dynamodb-csv's spec files: every type it knows, its delimiter option and blank rules. */
Test(csvreader, types_file_types_the_columns)
{
    ddb_reader *r = NULL;
    ddb_record *rec;
    ddb_error err;
    cr_assert_eq(open_with_spec(&r, "s.csv",
                                "pk,sk,dec,flag,js,sl,ss,dl,ds,note,gone\n"
                                "foo,1,12345678901234567890.5,True,\"[{\"\"a\"\": 1.50}]\",a b,x y,"
                                "10 10.1,1 2,,\"\"\n"
                                "foo,2,0.001,,{},c,z,3,4,\"\",x\n",
                                "# sample spec\n[CSV_SPEC]\npk=S\nsk = I\ndec=D\nflag=B\njs=J\n"
                                "sl=SL\nss=SS\ndl=DL\nds=DS\n\n[IMPORT_OPTION]\n"
                                "ConvertBlankToNullAttrs=note\nConvertBlankToDropAttrs=gone\n"
                                "; a comment\n[QUERY_OPTION]\nPKAttribute=pk\n",
                                &err),
                 0, "%s", err.message);
    rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_PUT, "%s", rec->reason);
    cr_assert_str_eq(
        tu_typed(&rec->item),
        "{\"pk\":{\"S\":\"foo\"},\"sk\":{\"N\":\"1\"},"
        "\"dec\":{\"N\":\"12345678901234567890.5\"},\"flag\":{\"BOOL\":true},"
        "\"js\":{\"L\":[{\"M\":{\"a\":{\"N\":\"1.50\"}}}]},"
        "\"sl\":{\"L\":[{\"S\":\"a\"},{\"S\":\"b\"}]},\"ss\":{\"SS\":[\"x\",\"y\"]},"
        "\"dl\":{\"L\":[{\"N\":\"10\"},{\"N\":\"10.1\"}]},\"ds\":{\"NS\":[\"1\",\"2\"]},"
        "\"note\":{\"NULL\":true}}");
    rec = tu_next_ok(r);
    cr_assert_eq(rec->kind, DDB_REC_PUT, "%s", rec->reason);
    cr_assert_str_eq(tu_typed(&rec->item),
                     "{\"pk\":{\"S\":\"foo\"},\"sk\":{\"N\":\"2\"},\"dec\":{\"N\":\"0.001\"},"
                     "\"flag\":{\"BOOL\":false},\"js\":{\"M\":{}},"
                     "\"sl\":{\"L\":[{\"S\":\"c\"}]},\"ss\":{\"SS\":[\"z\"]},"
                     "\"dl\":{\"L\":[{\"N\":\"3\"}]},\"ds\":{\"NS\":[\"4\"]},"
                     "\"note\":{\"NULL\":true},\"gone\":{\"S\":\"x\"}}");
    cr_assert(rec->typed == 0, "gone is untyped");
    tu_expect_end(r);
    ddb_reader_free(r);
}

Test(csvreader, types_file_delimiter_option)
{
    ddb_reader *r = NULL;
    ddb_error err;
    cr_assert_eq(
        open_with_spec(&r, "d.csv", "id,t\n1,a|b||c\n",
                       "[CSV_SPEC]\nid=S\nt=SL\n[DELIMITER_OPTION]\nDelimiterCharacter=|\n", &err),
        0, "%s", err.message);
    cr_assert_str_eq(tu_typed(&tu_next_ok(r)->item),
                     "{\"id\":{\"S\":\"1\"},\"t\":{\"L\":[{\"S\":\"a\"},{\"S\":\"b\"},{\"S\":\"\"},"
                     "{\"S\":\"c\"}]}}");
    tu_expect_end(r);
    ddb_reader_free(r);
}

/* Cells a spec's type cannot hold exactly, or that dynamodb-csv reads otherwise than they say,
 * are bad rows naming the column and type. */
Test(csvreader, types_file_bad_cells_are_bad_rows)
{
    static const char *const rows[][2] = {
        {"1.5,,,", "column i (I): \"1.5\" is not an integer"},
        {",FALSE,,", "column b (B): \"FALSE\" is neither blank"},
        {",,1 x,", "column dl (DL): member 2"},
        {",,,{", "column j (J)"},
    };
    for (size_t k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
        char text[128];
        ddb_reader *r = NULL;
        ddb_record *rec;
        ddb_error err;
        snprintf(text, sizeof(text), "i,b,dl,j\n%s\n", rows[k][0]);
        cr_assert_eq(
            open_with_spec(&r, "bad.csv", text, "[CSV_SPEC]\ni=I\nb=B\ndl=DL\nj=J\n", &err), 0,
            "%s", err.message);
        rec = tu_next_ok(r);
        cr_assert_eq(rec->kind, DDB_REC_BAD, "%s", rows[k][0]);
        cr_assert_not_null(strstr(rec->reason, rows[k][1]), "%s", rec->reason);
        ddb_reader_free(r);
    }
}

/* A spec the reader cannot apply exactly is refused, naming the file and line. */
Test(csvreader, types_file_refusals_name_file_and_line)
{
    static const char *const specs[][2] = {
        {"[CSV_SPEC]\nid=S\nprice=N\n", ".spec:3: unknown type \"N\" for column \"price\""},
        {"[CSV_SPEC]\nid=S\nnope=S\n", ".spec:3: \"nope\" is not a column of"},
        {"[CSV_SPEC]\nid=S\nid=I\n", ".spec:3: column \"id\" is named on line 2 already"},
        {"[CSV_SPEC]\ntyped=S\n", ".spec:2: column \"typed\" of"},
        {"id=S\n", ".spec:1: not a key=value line of a section"},
        {"[CSV]\nid=S\n", ".spec:1: unknown section [CSV]"},
        {"[CSV_SPEC]\nid=S\n  more\n", ".spec:3: an indented line"},
        {"[IMPORT_OPTION]\nConvertBlankToZero=id\n", ".spec:2: unknown key"},
    };
    for (size_t k = 0; k < sizeof(specs) / sizeof(specs[0]); k++) {
        ddb_reader *r = (ddb_reader *)1;
        ddb_error err;
        ddb_error_clear(&err);
        cr_assert_eq(open_with_spec(&r, "t.csv", "id,typed:N\n1,2\n", specs[k][0], &err),
                     DDB_EUSAGE, "%s", specs[k][0]);
        cr_assert_null(r);
        cr_assert_not_null(strstr(err.message, specs[k][1]), "%s", err.message);
    }
}
