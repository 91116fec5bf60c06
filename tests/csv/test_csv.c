/* Row syntax: quoting, terminators, BOM, empty lines, delimiters. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "csv_test_util.h"
#include "ddbpipe/source.h"

#define S(lit) lit, sizeof(lit) - 1
#define ROW(p, ...)                                                                                \
    csv_expect_row(p, sizeof((const char *[]){__VA_ARGS__}) / sizeof(const char *),                \
                   (const char *[]){__VA_ARGS__})

static void expect_end(ddb_csv *p)
{
    ddb_csv_row row;
    ddb_error err = {0};
    int rc = ddb_csv_next(p, &row, &err);

    cr_assert_eq(rc, DDB_ITEROVER, "rc %d (%s), expected the end", rc, err.message);
    /* Stays at the end. */
    cr_assert_eq(ddb_csv_next(p, &row, &err), DDB_ITEROVER);
}

Test(csv, simple_rows)
{
    ddb_csv *p = csv_over(S("a,b,c\n1,22,333\n"), 0, ',', 0);
    ddb_csv_row r = ROW(p, "a", "b", "c");

    cr_assert_eq(r.line, 1);
    cr_assert_eq(r.offset, 0);
    cr_assert_eq(r.raw_len, 5);
    cr_assert(memcmp(r.raw, "a,b,c", 5) == 0);
    cr_assert_eq(r.fields[0].quoted, 0);
    r = ROW(p, "1", "22", "333");
    cr_assert_eq(r.line, 2);
    cr_assert_eq(r.offset, 6);
    expect_end(p);
    ddb_csv_free(p);
}

Test(csv, quoted_delimiter_and_escapes)
{
    ddb_csv *p =
        csv_over(S("\"a,b\",c\n\"he said \"\"hi\"\"\",\"\"\"\"\n\"x\"\"\"\"y\"\n"), 0, ',', 0);
    ddb_csv_row r = ROW(p, "a,b", "c");

    cr_assert_eq(r.fields[0].quoted, 1);
    cr_assert_eq(r.fields[1].quoted, 0);
    r = ROW(p, "he said \"hi\"", "\"");
    cr_assert_eq(r.fields[0].quoted, 1);
    cr_assert_eq(r.fields[1].quoted, 1);
    /* raw keeps the escaped text */
    cr_assert_eq(r.raw_len, strlen("\"he said \"\"hi\"\"\",\"\"\"\""));
    cr_assert(memcmp(r.raw, "\"he said \"\"hi\"\"\"", 16) == 0);
    r = ROW(p, "x\"\"y");
    cr_assert_eq(r.line, 3);
    expect_end(p);
    ddb_csv_free(p);
}

Test(csv, quoted_newline_lf)
{
    ddb_csv *p = csv_over(S("id,text\n1,\"line one\nline two\nline three\"\n2,after\n"), 0, ',', 0);
    ddb_csv_row r = ROW(p, "id", "text");

    r = ROW(p, "1", "line one\nline two\nline three");
    cr_assert_eq(r.line, 2);
    cr_assert_eq(r.offset, 8);
    r = ROW(p, "2", "after");
    cr_assert_eq(r.line, 5);
    cr_assert_eq(r.offset, 8 + strlen("1,\"line one\nline two\nline three\"\n"));
    expect_end(p);
    ddb_csv_free(p);
}

Test(csv, quoted_newline_crlf)
{
    ddb_csv *p = csv_over(S("\"a\r\nb\",c\r\nd,e\r\n"), 0, ',', 0);
    ddb_csv_row r = ROW(p, "a\r\nb", "c");

    cr_assert_eq(r.line, 1);
    cr_assert_eq(r.raw_len, 8);
    r = ROW(p, "d", "e");
    cr_assert_eq(r.line, 3);
    cr_assert_eq(r.offset, 10);
    cr_assert_eq(r.raw_len, 3);
    expect_end(p);
    ddb_csv_free(p);
}

Test(csv, crlf_and_lf_files)
{
    ddb_csv *p = csv_over(S("a,b\r\nc,\"d\"\r\n"), 0, ',', 0);
    ddb_csv_row r = ROW(p, "a", "b");

    cr_assert_eq(r.raw_len, 3);
    r = ROW(p, "c", "d");
    cr_assert_eq(r.line, 2);
    cr_assert_eq(r.offset, 5);
    cr_assert_eq(r.raw_len, 5);
    expect_end(p);
    ddb_csv_free(p);

    p = csv_over(S("a,b\nc,\"d\"\n"), 0, ',', 0);
    ROW(p, "a", "b");
    r = ROW(p, "c", "d");
    cr_assert_eq(r.offset, 4);
    expect_end(p);
    ddb_csv_free(p);
}

Test(csv, bare_cr_is_data)
{
    ddb_csv *p = csv_over(S("a\rb,c\n\r,x\nlast\r"), 0, ',', 0);

    ROW(p, "a\rb", "c");
    ROW(p, "\r", "x");
    ROW(p, "last\r");
    expect_end(p);
    ddb_csv_free(p);
}

Test(csv, missing_final_newline)
{
    ddb_csv *p = csv_over(S("a,b\nc,d"), 0, ',', 0);
    ROW(p, "a", "b");
    ddb_csv_row r = ROW(p, "c", "d");
    cr_assert_eq(r.raw_len, 3);
    expect_end(p);
    ddb_csv_free(p);

    p = csv_over(S("x\n\"q\"\"\""), 0, ',', 0);
    ROW(p, "x");
    r = ROW(p, "q\"");
    cr_assert_eq(r.fields[0].quoted, 1);
    expect_end(p);
    ddb_csv_free(p);

    /* A trailing delimiter at EOF is a final empty field. */
    p = csv_over(S("a,"), 0, ',', 0);
    r = ROW(p, "a", "");
    cr_assert_eq(r.fields[1].quoted, 0);
    expect_end(p);
    ddb_csv_free(p);
}

Test(csv, bom_skipped_only_at_start)
{
    ddb_csv *p = csv_over(S("\xEF\xBB\xBFid,name\n1,\xEF\xBB\xBFx\n\xEF\xBB\xBF\n"), 0, ',', 0);
    ddb_csv_row r = ROW(p, "id", "name");

    cr_assert_eq(r.offset, 3);
    cr_assert_eq(r.line, 1);
    cr_assert_eq(r.raw_len, 7);
    r = ROW(p, "1", "\xEF\xBB\xBFx");
    cr_assert_eq(r.offset, 11);
    r = ROW(p, "\xEF\xBB\xBF");
    cr_assert_eq(r.line, 3);
    expect_end(p);
    ddb_csv_free(p);

    /* A BOM alone is an empty input; a partial BOM is data. */
    p = csv_over(S("\xEF\xBB\xBF"), 0, ',', 0);
    expect_end(p);
    ddb_csv_free(p);
    p = csv_over(S("\xEF\xBB"), 0, ',', 0);
    ROW(p, "\xEF\xBB");
    expect_end(p);
    ddb_csv_free(p);
}

Test(csv, empty_lines_skipped_with_line_numbers)
{
    ddb_csv *p = csv_over(S("\n\na\n\r\n\nb,c\n\n\n\"\"\n\nd"), 0, ',', 0);
    ddb_csv_row r = ROW(p, "a");

    cr_assert_eq(r.line, 3);
    cr_assert_eq(r.offset, 2);
    r = ROW(p, "b", "c");
    cr_assert_eq(r.line, 6);
    cr_assert_eq(r.offset, 7);
    /* "" is a row (one empty string), not an empty line */
    r = ROW(p, "");
    cr_assert_eq(r.line, 9);
    cr_assert_eq(r.fields[0].quoted, 1);
    r = ROW(p, "d");
    cr_assert_eq(r.line, 11);
    expect_end(p);
    ddb_csv_free(p);

    p = csv_over(S("\n\r\n\n"), 0, ',', 0);
    expect_end(p);
    ddb_csv_free(p);
    p = csv_over(S(""), 0, ',', 0);
    expect_end(p);
    ddb_csv_free(p);
}

Test(csv, each_delimiter)
{
    const char delims[] = {',', '\t', ';', '|'};

    for (size_t k = 0; k < sizeof(delims); k++) {
        char d = delims[k];
        char in[64];
        char quoted[8] = {'y', d, 'z', 0};
        char other[8];
        size_t o = 0;
        int n;
        ddb_csv *p;
        ddb_csv_row r;

        /* the last field holds the three other delimiters as data */
        for (const char *c = ",;|\t"; *c; c++)
            if (*c != d)
                other[o++] = *c;
        other[o] = 0;
        n = snprintf(in, sizeof(in), "x%c\"y%cz\"%c%c%s\n", d, d, d, d, other);
        p = csv_over(in, (size_t)n, 0, d, 0);
        r = ROW(p, "x", quoted, "", other);
        cr_assert_eq(r.fields[1].quoted, 1);
        cr_assert_eq(r.fields[2].quoted, 0);
        expect_end(p);
        ddb_csv_free(p);
    }
}

Test(csv, bad_delimiter_rejected)
{
    ddb_source *src = NULL;
    ddb_csv *p = NULL;
    ddb_error err = {0};

    cr_assert_eq(ddb_source_new_memory(&src, "a", 1, NULL, &err), 0);
    /* the source is owned by the parser even on failure (ASan checks the leak) */
    cr_assert_eq(ddb_csv_new(&p, src, '"', 0, &err), DDB_EUSAGE);
    cr_assert_null(p);
    cr_assert(strstr(err.message, "delimiter") != NULL, "%s", err.message);
}

Test(csv, quoted_empty_vs_unquoted_empty)
{
    ddb_csv *p = csv_over(S("\"\",,\"\"\n,\n"), 0, ',', 0);
    ddb_csv_row r = ROW(p, "", "", "");

    cr_assert_eq(r.fields[0].quoted, 1);
    cr_assert_eq(r.fields[1].quoted, 0);
    cr_assert_eq(r.fields[2].quoted, 1);
    r = ROW(p, "", "");
    cr_assert_eq(r.fields[0].quoted, 0);
    cr_assert_eq(r.fields[1].quoted, 0);
    expect_end(p);
    ddb_csv_free(p);
}
