/* Strings from regular expressions: counting, enumeration, random choice,
 * and a clear refusal for what cannot be generated. */
#include <criterion/criterion.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/gen_internal.h"

static gen_pattern *compile_ok(const char *re)
{
    gen_pattern *p = NULL;
    char why[200] = "";
    cr_assert_eq(gen_pattern_compile(&p, re, why, sizeof(why)), 0, "%s: %s", re, why);
    return p;
}

static void assert_matches(const char *re, const char *s, size_t len)
{
    char anchored[256], *z = strndup(s, len);
    regex_t rx;
    snprintf(anchored, sizeof(anchored), "^(%s)$", re);
    cr_assert_eq(regcomp(&rx, anchored, REG_EXTENDED | REG_NOSUB), 0);
    cr_assert_eq(regexec(&rx, z, 0, NULL, 0), 0, "'%s' does not match %s", z, re);
    regfree(&rx);
    free(z);
}

Test(pattern, counts_the_strings)
{
    struct {
        const char *re;
        uint64_t size;
    } cases[] = {
        {"[0-9]{4}-(0[1-9]|1[0-2])", 120000},
        {"[A-Z]{2}", 676},
        {"([01][0-9]|2[0-3]):[0-5][0-9]", 1440},
        {"ab?c", 2},
        {"(cat|dog)s?", 4},
        {"x{2,3}", 2},
        {"[[:digit:]][[:upper:]]", 260},
        {"^v[0-9]$", 10},
        {"[a-z]+@[a-z]+\\.com", GEN_UNBOUNDED},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        gen_pattern *p = compile_ok(cases[i].re);
        if (cases[i].size == GEN_UNBOUNDED)
            cr_assert_gt(gen_pattern_size(p), (uint64_t)1 << 40, "%s", cases[i].re);
        else
            cr_assert_eq(gen_pattern_size(p), cases[i].size, "%s: %llu", cases[i].re,
                         (unsigned long long)gen_pattern_size(p));
        gen_pattern_free(p);
    }
}

/* Every string of a finite pattern, once each, and each one matches it. */
Test(pattern, nth_enumerates_distinct_matching_strings)
{
    const char *re = "([01][0-9]|2[0-3]):[0-5][0-9]";
    gen_pattern *p = compile_ok(re);
    uint64_t n = gen_pattern_size(p);
    char **seen = calloc(n, sizeof(char *));
    for (uint64_t k = 0; k < n; k++) {
        ddb_buf b = DDB_BUF_INIT;
        cr_assert_eq(gen_pattern_nth(p, k, &b), 0);
        assert_matches(re, b.ptr, b.len);
        for (uint64_t j = 0; j < k; j++)
            cr_assert_str_neq(seen[j], b.ptr, "%s twice", b.ptr);
        seen[k] = ddb_buf_detach(&b, NULL);
    }
    for (uint64_t k = 0; k < n; k++)
        free(seen[k]);
    free(seen);
    gen_pattern_free(p);
}

Test(pattern, random_strings_match)
{
    const char *res[] = {"[0-9]{4}-(0[1-9]|1[0-2])",
                         "wxid_[a-z0-9]{14}",
                         "[^#|]{3,6}",
                         "(https?://)?[a-z]+\\.(com|org)",
                         "a.b",
                         "\\w+-\\s-x*"};
    ddb_rng r;
    ddb_rng_seed(&r, 3);
    for (size_t i = 0; i < sizeof(res) / sizeof(res[0]); i++) {
        gen_pattern *p = compile_ok(res[i]);
        for (int k = 0; k < 200; k++) {
            ddb_buf b = DDB_BUF_INIT;
            cr_assert_eq(gen_pattern_random(p, &r, &b), 0);
            assert_matches(res[i], b.ptr ? b.ptr : "", b.len);
            /* negated brackets and "." never produce a template separator */
            cr_assert_null(b.ptr ? memchr(b.ptr, '#', b.len) : NULL);
            ddb_buf_dispose(&b);
        }
        gen_pattern_free(p);
    }
}

Test(pattern, unsupported_constructs_say_why)
{
    const char *res[] = {"(a)\\1", "\\bword", "[[.a.]]", "*ab", "(ab", "[é]", "x$y"};
    for (size_t i = 0; i < sizeof(res) / sizeof(res[0]); i++) {
        gen_pattern *p = NULL;
        char why[200] = "";
        cr_assert_eq(gen_pattern_compile(&p, res[i], why, sizeof(why)), DDB_EUSAGE, "%s", res[i]);
        cr_assert_null(p);
        cr_assert_gt(strlen(why), 5, "%s: no reason", res[i]);
    }
}

/* Patterns past the bounds are refused with the limit, before the parser
 * recurses into them (30,000 nested groups overflowed its stack) or makes
 * strings of a billion bytes (((a{1000}){1000}){1000}, or nested stars). */
Test(pattern, patterns_past_the_limits_say_which)
{
    size_t n = 30000;
    char *deep = malloc(2 * n + 2);
    cr_assert_not_null(deep);
    memset(deep, '(', n);
    deep[n] = 'a';
    memset(deep + n + 1, ')', n);
    deep[2 * n + 1] = '\0';
    const struct {
        const char *re, *why;
    } cases[] = {
        {deep, "longer than 4096 bytes"},
        {"(((((((((((((((((((((((((((((((((a)))))))))))))))))))))))))))))))))",
         "groups nest deeper than 32"},
        {"((a{1000}){1000}){1000}", "more than 10000 atoms"},
        {"a{1001}", "a repetition count over 1000"},
        {"((((((a*)*)*)*)*)*)", "longer than 100000 bytes"},
        {"(([a-z]{1000}){1000})", "more than 10000 atoms"},
        {"(((x{200}|y)+)+)+", "longer than 100000 bytes"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        gen_pattern *p = NULL;
        char why[200] = "";
        cr_assert_eq(gen_pattern_compile(&p, cases[i].re, why, sizeof(why)), DDB_EUSAGE, "%.40s",
                     cases[i].re);
        cr_assert_null(p);
        cr_assert_not_null(strstr(why, cases[i].why), "%.40s: %s", cases[i].re, why);
    }
    free(deep);
}

/* Just within the limits: compiled, and what it makes matches. */
Test(pattern, patterns_at_the_limits_make_strings)
{
    const char *re = "(((a*)*)*)*[b-c]{1000}";
    gen_pattern *p = compile_ok(re);
    ddb_rng r;
    ddb_rng_seed(&r, 5);
    for (int i = 0; i < 20; i++) {
        ddb_buf b = DDB_BUF_INIT;
        cr_assert_eq(gen_pattern_random(p, &r, &b), 0);
        cr_assert_geq(b.len, 1000);
        assert_matches(re, b.ptr, b.len);
        ddb_buf_dispose(&b);
    }
    gen_pattern_free(p);
}
