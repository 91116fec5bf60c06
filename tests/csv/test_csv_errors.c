/* Malformed and over-long rows: the error names the place and parsing goes on. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv_test_util.h"

#define S(lit) lit, sizeof(lit) - 1
#define ROW(p, ...)                                                                                \
    csv_expect_row(p, sizeof((const char *[]){__VA_ARGS__}) / sizeof(const char *),                \
                   (const char *[]){__VA_ARGS__})

/* Expects code from the next call, with msg in the error and the raw text. */
static ddb_csv_row expect_fail(ddb_csv *p, int code, const char *msg, const char *raw,
                               unsigned long long line)
{
    ddb_csv_row r;
    ddb_error err = {0};
    int rc = ddb_csv_next(p, &r, &err);

    cr_assert_eq(rc, code, "rc %d, want %d (%s)", rc, code, err.message);
    cr_assert_eq(err.code, code);
    cr_assert(strstr(err.message, msg) != NULL, "message '%s' lacks '%s'", err.message, msg);
    cr_assert_eq(r.line, line, "row line %llu, want %llu", (unsigned long long)r.line, line);
    cr_assert_eq(r.count, 0);
    if (raw != NULL) {
        cr_assert_eq(r.raw_len, strlen(raw), "raw '%.*s', want '%s'", (int)r.raw_len, r.raw, raw);
        cr_assert(memcmp(r.raw, raw, r.raw_len) == 0);
    }
    return r;
}

static void expect_end(ddb_csv *p)
{
    ddb_csv_row row;
    int rc = ddb_csv_next(p, &row, NULL);
    cr_assert_eq(rc, DDB_ITEROVER, "rc %d, expected the end", rc);
}

Test(csv, stray_quote_in_unquoted_field)
{
    ddb_csv *p = csv_over(S("a,b\nc,d\"e,f\r\ng,h\n"), 0, ',', 0);
    ddb_csv_row r;

    ROW(p, "a", "b");
    r = expect_fail(p, DDB_EINVAL, "line 2 (byte offset 7): unexpected '\"' inside an unquoted",
                    "c,d\"e,f", 2);
    cr_assert_eq(r.offset, 4);
    r = ROW(p, "g", "h");
    cr_assert_eq(r.line, 3);
    cr_assert_eq(r.offset, 13);
    expect_end(p);
    ddb_csv_free(p);
}

Test(csv, text_after_closing_quote)
{
    ddb_csv *p = csv_over(S("\"ab\"x,c\nnext,\"ok\"\n\"q\" \n"), 0, ',', 0);
    ddb_csv_row r;

    expect_fail(p, DDB_EINVAL, "line 1 (byte offset 4): unexpected character after a closing",
                "\"ab\"x,c", 1);
    r = ROW(p, "next", "ok");
    cr_assert_eq(r.line, 2);
    /* a space after the closing quote is text too */
    expect_fail(p, DDB_EINVAL, "line 3 (byte offset 21)", "\"q\" ", 3);
    expect_end(p);
    ddb_csv_free(p);
}

Test(csv, malformed_after_embedded_newline)
{
    /* The error is on physical line 3; the row started on line 2. */
    ddb_csv *p = csv_over(S("h\n\"a\nb\"x,y\nc\n"), 0, ',', 0);
    ddb_csv_row r;

    ROW(p, "h");
    r = expect_fail(p, DDB_EINVAL, "line 3 (byte offset 7):", "\"a\nb\"x,y", 2);
    cr_assert(strstr(ddb_error_code_name(DDB_EINVAL), "invalid") != NULL);
    r = ROW(p, "c");
    cr_assert_eq(r.line, 4);
    expect_end(p);
    ddb_csv_free(p);
}

Test(csv, malformed_message_names_row_start)
{
    ddb_csv *p = csv_over(S("\"a\nb\"x\n"), 0, ',', 0);
    ddb_error err = {0};
    ddb_csv_row r;

    cr_assert_eq(ddb_csv_next(p, &r, &err), DDB_EINVAL);
    cr_assert_str_eq(err.message, "line 2 (byte offset 5): unexpected character after a closing "
                                  "quote (row starts at line 1)");
    expect_end(p);
    ddb_csv_free(p);
}

Test(csv, unterminated_quote_at_eof)
{
    ddb_csv *p = csv_over(S("a\nb,\"cd\ne,f\n"), 0, ',', 0);

    ROW(p, "a");
    expect_fail(p, DDB_EINVAL, "line 2 (byte offset 4): unterminated quoted field", "b,\"cd\ne,f\n",
                2);
    expect_end(p);
    ddb_csv_free(p);
}

Test(csv, row_longer_than_max_row)
{
    char *in = malloc(200);
    size_t n = 0;
    ddb_csv *p;
    ddb_csv_row r;

    n += (size_t)sprintf(in + n, "short\n");
    memset(in + n, 'x', 50);
    n += 50;
    n += (size_t)sprintf(in + n, "\r\n0123456789\r\n01234567890\nok\n");
    p = csv_over(in, n, 0, ',', 10);
    ROW(p, "short");
    r = expect_fail(p, DDB_ETOOBIG, "line 2 (byte offset 6): row longer than the limit of 10",
                    "xxxxxxxxxx", 2);
    /* exactly max_row bytes (plus CRLF) is fine */
    r = ROW(p, "0123456789");
    cr_assert_eq(r.line, 3);
    /* raw is cut at max_row */
    expect_fail(p, DDB_ETOOBIG, "line 4", "0123456789", 4);
    r = ROW(p, "ok");
    cr_assert_eq(r.line, 5);
    expect_end(p);
    ddb_csv_free(p);
    free(in);
}

Test(csv, too_long_row_across_refills_keeps_quote_state)
{
    /* A 3 MB quoted field with newlines and a delimiter-looking tail, while
     * max_row is 1000: the skip must honour the quotes and count lines. */
    size_t big = 3u * 1024u * 1024u, n = 0;
    char *in = malloc(big + 64);
    ddb_csv *p;
    ddb_csv_row r;

    n += (size_t)sprintf(in, "a\n\"");
    for (size_t k = 0; k < big; k++)
        in[n++] = (k % 1000 == 999) ? '\n' : (k % 7 == 0 ? ',' : 'z');
    n += (size_t)sprintf(in + n, "\",tail\nnext,row\n");
    for (size_t chunk = 0; chunk <= 65536; chunk += 65536) {
        p = csv_over(in, n, chunk, ',', 1000);
        ROW(p, "a");
        r = expect_fail(p, DDB_ETOOBIG, "line 2 (byte offset 2)", NULL, 2);
        cr_assert_eq(r.raw_len, 1000);
        cr_assert_eq(r.raw[0], '"');
        r = ROW(p, "next", "row");
        cr_assert_eq(r.line, 2 + big / 1000 + 1, "line %llu", (unsigned long long)r.line);
        cr_assert_eq(r.offset, n - 9);
        expect_end(p);
        ddb_csv_free(p);
    }
    free(in);
}

Test(csv, malformed_row_longer_than_max_row)
{
    /* The bad line runs past max_row: reported once, skipped to its end. */
    char in[128];
    size_t n = (size_t)sprintf(in, "ab\"%060d\nok\n", 0);
    ddb_csv *p = csv_over(in, n, 0, ',', 20);
    ddb_csv_row r;

    r = expect_fail(p, DDB_EINVAL, "line 1 (byte offset 2)", NULL, 1);
    cr_assert_eq(r.raw_len, 20);
    r = ROW(p, "ok");
    cr_assert_eq(r.line, 2);
    expect_end(p);
    ddb_csv_free(p);
}
