#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/buf.h"
#include "ddbpipe/error.h"
#include "ddbpipe/number.h"

static int parse(ddb_number *n, const char *text, ddb_error *err)
{
    return ddb_number_parse(n, text, strlen(text), err);
}

static int valid(const char *text)
{
    return ddb_number_validate(text, strlen(text), NULL) == 0;
}

/* Formats text's canonical form into a fresh malloc'd string. */
static char *canon(const char *text)
{
    ddb_number n;
    ddb_buf b = DDB_BUF_INIT;

    cr_assert_eq(parse(&n, text, NULL), 0, "'%s' should parse", text);
    cr_assert_eq(ddb_number_format(&b, &n), 0);
    return ddb_buf_detach(&b, NULL);
}

static int cmp(const char *a, const char *b)
{
    return ddb_number_compare_text(a, strlen(a), b, strlen(b), NULL);
}

/* repeat c n times after prefix, then suffix */
static char *build(const char *prefix, char c, size_t n, const char *suffix)
{
    size_t pl = strlen(prefix), sl = strlen(suffix);
    char *s = malloc(pl + n + sl + 1);

    cr_assert_not_null(s);
    memcpy(s, prefix, pl);
    memset(s + pl, c, n);
    memcpy(s + pl + n, suffix, sl + 1);
    return s;
}

Test(number, thirty_eight_vs_thirty_nine_digits)
{
    ddb_error err = {0};
    ddb_number n;

    cr_assert_eq(parse(&n, "12345678901234567890123456789012345678", &err), 0);
    cr_assert_eq(n.ndigits, 38);
    cr_assert_eq(n.exponent, 38);
    cr_assert_eq(parse(&n, "-1.2345678901234567890123456789012345678", &err), 0);
    cr_assert_eq(n.ndigits, 38);
    cr_assert_eq(parse(&n, "123456789012345678901234567890123456789", &err), DDB_EINVAL);
    cr_assert(strstr(err.message, "more than 38 significant digits (39)") != NULL, "%s",
              err.message);
    cr_assert(strstr(err.message, "'123456789012345678901234567890123456789'") != NULL, "%s",
              err.message);
    cr_assert_eq(parse(&n, "1.23456789012345678901234567890123456789", &err), DDB_EINVAL);
}

Test(number, leading_and_trailing_zeros_not_significant)
{
    ddb_number n;

    cr_assert_eq(parse(&n, "0001.2300", NULL), 0);
    cr_assert_eq(n.ndigits, 3);
    cr_assert_str_eq(n.digits, "123");
    cr_assert_eq(n.exponent, 1);
    cr_assert_eq(n.negative, 0);

    cr_assert_eq(parse(&n, "1000000000000000000000000000000000000000000", NULL), 0);
    cr_assert_eq(n.ndigits, 1);
    cr_assert_eq(n.exponent, 43);

    /* 38 significant digits wrapped in many zeros on both sides */
    cr_assert(valid("0000000000.00000123456789012345678901234567890123456780000000000"));
    cr_assert(valid("00000000001234567890123456789012345678.00000000000000000000000000"));
    /* a zero in the middle is significant */
    cr_assert(!valid("1000000000000000000000000000000000000001"));
    cr_assert_eq(parse(&n, "-0.0012300", NULL), 0);
    cr_assert_eq(n.negative, 1);
    cr_assert_str_eq(n.digits, "123");
    cr_assert_eq(n.exponent, -2);
}

Test(number, exact_limits_accepted)
{
    cr_assert(valid("1E-130"));
    cr_assert(valid("-1E-130"));
    cr_assert(valid("0.1E-129"));
    cr_assert(valid("9.9999999999999999999999999999999999999E+125"));
    cr_assert(valid("-9.9999999999999999999999999999999999999E+125"));
    cr_assert(valid("99999999999999999999999999999999999999E+88"));
    cr_assert(valid("1E+125"));
    cr_assert(valid("9.9999999999999999999999999999999999999e125"));
}

Test(number, beyond_limits_rejected)
{
    ddb_error err = {0};

    cr_assert_eq(ddb_number_validate("1E-131", 6, &err), DDB_EINVAL);
    cr_assert(strstr(err.message, "'1E-131'") != NULL, "%s", err.message);
    cr_assert(strstr(err.message, "below 1E-130") != NULL, "%s", err.message);
    cr_assert_eq(ddb_number_validate("1E+126", 6, &err), DDB_EINVAL);
    cr_assert(strstr(err.message, "'1E+126' is too large") != NULL, "%s", err.message);
    cr_assert(!valid("10E+125"));
    cr_assert(!valid("-1E+126"));
    cr_assert(!valid("-1E-131"));
    cr_assert(!valid("0.09E-129"));
    cr_assert(!valid("0.99999999999999999999999999999999999999E-130"));
    cr_assert(!valid("1" /* 127 digits */
                     "00000000000000000000000000000000000000000000000000000000000000"
                     "0000000000000000000000000000000000000000000000000000000000000000"));
}

Test(number, huge_exponent_text_is_out_of_range_not_overflow)
{
    ddb_error err = {0};
    char *zeros;

    cr_assert_eq(ddb_number_validate("1E+99999999999999999999", 23, &err), DDB_EINVAL);
    cr_assert(strstr(err.message, "too large") != NULL, "%s", err.message);
    cr_assert_eq(ddb_number_validate("1E-99999999999999999999", 23, &err), DDB_EINVAL);
    cr_assert(strstr(err.message, "too small") != NULL, "%s", err.message);
    cr_assert(!valid("1E+9223372036854775808"));
    cr_assert(!valid("-1e-9223372036854775809"));
    /* digit position and exponent combine: 200 zeros after the point, then E+200 */
    zeros = build("0.", '0', 200, "1E+200");
    cr_assert(valid(zeros));
    free(zeros);
    zeros = build("1", '0', 300, "E-300");
    cr_assert(valid(zeros));
    free(zeros);
}

Test(number, zero_in_any_spelling)
{
    ddb_number n;

    cr_assert_eq(parse(&n, "0", NULL), 0);
    cr_assert_eq(n.ndigits, 0);
    cr_assert_eq(parse(&n, "-0", NULL), 0);
    cr_assert_eq(n.ndigits, 0);
    cr_assert_eq(n.negative, 0);
    cr_assert_eq(n.exponent, 0);
    cr_assert(valid("0E+1000"));
    cr_assert(valid("-0.000e-99999999999999999999"));
    cr_assert(valid("0000000000000000000000000000000000000000000000000.0"));
    cr_assert(valid(".0"));
    cr_assert(valid("0."));
    cr_assert_eq(ddb_number_size(&n), 1);
}

Test(number, malformed_texts)
{
    const char *bad[] = {"",      "+",    "-",   ".",     "1e",       "1e+", "1..2", " 1",
                         "1 ",    "0x10", "NaN", "nan",   "Infinity", "1,5", "--1",  "+-1",
                         "1e1.5", "e5",   ".e1", "1.2.3", "1e--1",    "١"};
    ddb_error err = {0};

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        ddb_error_clear(&err);
        cr_assert_eq(ddb_number_validate(bad[i], strlen(bad[i]), &err), DDB_EINVAL,
                     "'%s' should be rejected", bad[i]);
        cr_assert(strncmp(err.message, "not a number: '", 15) == 0, "'%s': %s", bad[i],
                  err.message);
    }
    cr_assert_eq(ddb_number_validate("1..2", 4, &err), DDB_EINVAL);
    cr_assert_str_eq(err.message, "not a number: '1..2' (unexpected '.' at offset 2)");
    cr_assert_eq(ddb_number_validate("1e", 2, &err), DDB_EINVAL);
    cr_assert_str_eq(err.message, "not a number: '1e' (ends early)");
    cr_assert_eq(ddb_number_validate("12\0", 3, &err), DDB_EINVAL);
    cr_assert(strstr(err.message, "byte 0x00 at offset 2") != NULL, "%s", err.message);
    cr_assert_eq(ddb_number_validate(NULL, 0, &err), DDB_EINVAL);
}

Test(number, accepted_syntax_variants)
{
    const char *ok[] = {"+1",  "-1",   "1.",   ".5",     "-.5", "1e5",
                        "1E5", "1e+5", "1e-5", "+.5E-0", "007", "1.500"};

    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
        cr_assert(valid(ok[i]), "'%s' should be valid", ok[i]);
}

Test(number, long_text_is_truncated_in_messages)
{
    char *text = build("1", 'x', 200, "");
    ddb_error err = {0};

    cr_assert_eq(ddb_number_validate(text, strlen(text), &err), DDB_EINVAL);
    cr_assert(strstr(err.message, "...'") != NULL, "%s", err.message);
    cr_assert_lt(strlen(err.message), 140, "%s", err.message);
    free(text);

    text = build("1", '1', 100, "");
    cr_assert_eq(ddb_number_validate(text, strlen(text), &err), DDB_EINVAL);
    cr_assert(strstr(err.message, "more than 38 significant digits (101)") != NULL, "%s",
              err.message);
    cr_assert(strstr(err.message, "...'") != NULL, "%s", err.message);
    free(text);
}

Test(number, compare_is_exact)
{
    cr_assert_eq(cmp("1.0", "1"), 0);
    cr_assert_eq(cmp("-0", "0"), 0);
    cr_assert_eq(cmp("0E+5", "-0.000"), 0);
    cr_assert_eq(cmp("1E2", "100"), 0);
    cr_assert_eq(cmp("0001.2300", "1.23"), 0);
    cr_assert_eq(cmp("0.1", "0.10000000000000000000000000000000000001"), -1);
    cr_assert_eq(cmp("0.10000000000000000000000000000000000001", "0.1"), 1);
    cr_assert_eq(cmp("-2", "-1"), -1);
    cr_assert_eq(cmp("-1", "0"), -1);
    cr_assert_eq(cmp("0", "1E-130"), -1);
    cr_assert_eq(cmp("-1E-130", "0"), -1);
    cr_assert_eq(cmp("12", "120"), -1);
    cr_assert_eq(cmp("-12", "-120"), 1);
    cr_assert_eq(cmp("0.5", "1"), -1);
    cr_assert_eq(cmp("9", "10"), -1);
    cr_assert_eq(cmp("2", "10"), -1);
    cr_assert_eq(cmp("123", "1229"), -1);
    cr_assert_eq(cmp("9.9999999999999999999999999999999999999E+125", "1E+125"), 1);
    cr_assert_eq(ddb_number_compare_text("1", 1, "x", 1, NULL), DDB_EINVAL);
}

Test(number, format_canonical_plain_text)
{
    struct {
        const char *in, *out;
    } cases[] = {
        {"0", "0"},
        {"-0", "0"},
        {"0E+1000", "0"},
        {"1200", "1200"},
        {"12E2", "1200"},
        {"-0.00012e0", "-0.00012"},
        {"1.2E-4", "0.00012"},
        {"12.5", "12.5"},
        {"0001.2300", "1.23"},
        {"-12.34E1", "-123.4"},
        {"+7", "7"},
        {".5", "0.5"},
        {"1.", "1"},
        {"-1E-1", "-0.1"},
    };
    char *s;

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        s = canon(cases[i].in);
        cr_assert_str_eq(s, cases[i].out, "format('%s')", cases[i].in);
        free(s);
    }

    s = canon("1E+125");
    cr_assert_eq(strlen(s), 126);
    cr_assert_eq(s[0], '1');
    cr_assert_eq(strspn(s + 1, "0"), 125);
    free(s);

    s = canon("1E-130");
    cr_assert_eq(strlen(s), 2 + 129 + 1);
    cr_assert_eq(strncmp(s, "0.", 2), 0);
    cr_assert_eq(strspn(s + 2, "0"), 129);
    cr_assert_eq(s[131], '1');
    free(s);

    s = canon("-9.9999999999999999999999999999999999999E+125");
    cr_assert_eq(strlen(s), 127);
    cr_assert_eq(s[0], '-');
    cr_assert_eq(strspn(s + 1, "9"), 38);
    cr_assert_eq(strspn(s + 39, "0"), 88);
    free(s);
}

Test(number, format_round_trips)
{
    const char *texts[] = {"0",
                           "1",
                           "-1",
                           "3.14159",
                           "1E-130",
                           "-1E+125",
                           "0.1",
                           "0.10000000000000000000000000000000000001",
                           "12345678901234567890123456789012345678E-50",
                           "-5e-3",
                           "100.001"};

    for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
        char *once = canon(texts[i]);
        char *twice = canon(once);
        cr_assert_eq(cmp(once, texts[i]), 0, "'%s' -> '%s'", texts[i], once);
        cr_assert_str_eq(once, twice);
        cr_assert_eq(strchr(once, 'E'), NULL);
        free(once);
        free(twice);
    }
}

Test(number, size_follows_documented_formula)
{
    ddb_number n;

    cr_assert_eq(parse(&n, "12345", NULL), 0);
    cr_assert_eq(ddb_number_size(&n), 4); /* 1 + ceil(5/2) */
    cr_assert_eq(parse(&n, "100", NULL), 0);
    cr_assert_eq(ddb_number_size(&n), 2); /* one significant digit */
    cr_assert_eq(parse(&n, "12", NULL), 0);
    cr_assert_eq(ddb_number_size(&n), 2);
    cr_assert_eq(parse(&n, "-0.0012300", NULL), 0);
    cr_assert_eq(ddb_number_size(&n), 3);
    cr_assert_eq(parse(&n, "12345678901234567890123456789012345678", NULL), 0);
    cr_assert_eq(ddb_number_size(&n), 20);
}

Test(number, plain_uint)
{
    cr_assert(ddb_number_is_plain_uint("0", 1));
    cr_assert(ddb_number_is_plain_uint("12345678901234567890123456789012345678901", 41));
    cr_assert(ddb_number_is_plain_uint("007", 3));
    cr_assert(!ddb_number_is_plain_uint("", 0));
    cr_assert(!ddb_number_is_plain_uint("-1", 2));
    cr_assert(!ddb_number_is_plain_uint("+1", 2));
    cr_assert(!ddb_number_is_plain_uint("1.0", 3));
    cr_assert(!ddb_number_is_plain_uint("1e3", 3));
    cr_assert(!ddb_number_is_plain_uint(" 1", 2));
    /* length is honoured, not the NUL */
    cr_assert(ddb_number_is_plain_uint("12x", 2));
}

/* Is t what the shortcut takes: 1 to 38 digits, at most one point with a
 * digit on each side? */
static int plain_text(const char *t, size_t len)
{
    size_t digits = 0, points = 0;
    for (size_t k = 0; k < len; k++) {
        if (t[k] == '.' && k > 0 && k + 1 < len)
            points++;
        else if (t[k] >= '0' && t[k] <= '9')
            digits++;
        else
            return 0;
    }
    return len > 0 && digits <= 38 && points <= 1;
}

/* The plain-number shortcut gives ddb_number_size of what ddb_number_parse
 * reads, and 0 (parse it) for anything else. */
Test(number, plain_size_agrees_with_parse)
{
    static const char *const texts[] = {
        "0",
        "00",
        "7",
        "10",
        "1000",
        "0010",
        "1630061552447",
        "99999999999999999999999999999999999999",
        "00000000000000000000000000000000000001",
        "10000000000000000000000000000000000000",
        "123456789012345678901234567890123456789",
        "-1",
        "+1",
        "1.5",
        "0.5",
        "0.0",
        "10.01",
        "100.00",
        "0.000000000000000000000000000000000001",
        "99538094834753478885.675102296122207765",
        "99538094834753478885.6751022961222077651",
        "1.2.3",
        "1.",
        ".5",
        "1e3",
        "",
        " 1",
        "1 ",
        "1a",
        "\xd9\xa3",
        "0x10",
    };
    for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
        const char *t = texts[i];
        size_t len = strlen(t), plain = ddb_number_plain_size(t, len);
        ddb_number n;
        if (plain_text(t, len)) {
            cr_assert_eq(ddb_number_parse(&n, t, len, NULL), 0, "%s", t);
            cr_assert_eq(plain, ddb_number_size(&n), "%s: %zu, parse says %zu", t, plain,
                         ddb_number_size(&n));
        } else {
            cr_assert_eq(plain, 0, "%s is not a plain number", t);
        }
    }
    /* every length from 1 to 41, with zeros around, and a point at every place */
    for (size_t len = 1; len <= 41; len++) {
        for (size_t dot = 0; dot <= len; dot++) {
            char t[42];
            ddb_number n;
            for (size_t k = 0; k < len; k++)
                t[k] = (char)(k % 3 == 0 ? '0' : '0' + (char)(k % 10));
            if (dot < len)
                t[dot] = '.';
            if (plain_text(t, len)) {
                cr_assert_eq(ddb_number_parse(&n, t, len, NULL), 0, "%.*s", (int)len, t);
                cr_assert_eq(ddb_number_plain_size(t, len), ddb_number_size(&n), "%.*s", (int)len,
                             t);
            } else {
                cr_assert_eq(ddb_number_plain_size(t, len), 0, "%.*s", (int)len, t);
            }
        }
    }
}
