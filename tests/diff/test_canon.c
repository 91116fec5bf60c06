/* Canonical DynamoDB JSON: equal values as DynamoDB compares them are the
 * same bytes, different values are not. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/canon.h"
#include "ddbpipe/number.h"
#include "support/testutil.h"

static ddb_arena *a;

static void setup(void)
{
    cr_assert_eq(ddb_arena_new(&a, 0), 0);
}

static void teardown(void)
{
    ddb_arena_free(a);
}

TestSuite(canon, .init = setup, .fini = teardown);

static char *canon(const char *item)
{
    ddb_map m = tu_item(a, item);
    ddb_buf b = DDB_BUF_INIT;
    cr_assert_eq(ddb_canon_map(&b, &m), 0);
    return ddb_buf_detach(&b, NULL);
}

static void same(const char *x, const char *y)
{
    char *p = canon(x), *q = canon(y);
    cr_assert_str_eq(p, q, "%s vs %s", x, y);
    free(p);
    free(q);
}

static void differ(const char *x, const char *y)
{
    char *p = canon(x), *q = canon(y);
    cr_assert_str_neq(p, q, "%s vs %s", x, y);
    free(p);
    free(q);
}

Test(canon, numbers_compare_by_value)
{
    same("{\"n\":{\"N\":\"1.0\"}}", "{\"n\":{\"N\":\"1\"}}");
    same("{\"n\":{\"N\":\"-0\"}}", "{\"n\":{\"N\":\"0.000\"}}");
    same("{\"n\":{\"N\":\"1E2\"}}", "{\"n\":{\"N\":\"100\"}}");
    same("{\"n\":{\"N\":\"12345678901234567890123456789012345678\"}}",
         "{\"n\":{\"N\":\"12345678901234567890123456789012345678.000\"}}");
    differ("{\"n\":{\"N\":\"12345678901234567890123456789012345678\"}}",
           "{\"n\":{\"N\":\"12345678901234567890123456789012345679\"}}");
    differ("{\"n\":{\"N\":\"1\"}}", "{\"n\":{\"S\":\"1\"}}");
}

Test(canon, sets_and_maps_ignore_order_lists_do_not)
{
    same(
        "{\"s\":{\"SS\":[\"b\",\"a\"]},\"m\":{\"M\":{\"y\":{\"N\":\"2\"},\"x\":{\"N\":\"1\"}}}}",
        "{\"m\":{\"M\":{\"x\":{\"N\":\"1.0\"},\"y\":{\"N\":\"2\"}}},\"s\":{\"SS\":[\"a\",\"b\"]}}");
    same("{\"s\":{\"NS\":[\"10\",\"9.50\",\"1\"]}}", "{\"s\":{\"NS\":[\"1.0\",\"9.5\",\"10\"]}}");
    differ("{\"l\":{\"L\":[{\"S\":\"a\"},{\"S\":\"b\"}]}}",
           "{\"l\":{\"L\":[{\"S\":\"b\"},{\"S\":\"a\"}]}}");
    differ("{\"s\":{\"SS\":[\"a\"]}}", "{\"s\":{\"SS\":[\"a\",\"b\"]}}");
}

Test(canon, binary_is_bytes_and_strings_are_exact)
{
    same("{\"b\":{\"B\":\"AAEC\"},\"bs\":{\"BS\":[\"AQ==\",\"AA==\"]}}",
         "{\"bs\":{\"BS\":[\"AA==\",\"AQ==\"]},\"b\":{\"B\":\"AAEC\"}}");
    differ("{\"b\":{\"B\":\"AAEC\"}}", "{\"b\":{\"B\":\"AAED\"}}");
    differ("{\"s\":{\"S\":\"caf\\u00e9\"}}", "{\"s\":{\"S\":\"cafe\\u0301\"}}");
    differ("{\"s\":{\"S\":\"a \"}}", "{\"s\":{\"S\":\"a\"}}");
    same("{\"t\":{\"BOOL\":true},\"z\":{\"NULL\":true}}",
         "{\"z\":{\"NULL\":true},\"t\":{\"BOOL\":true}}");
}

Test(canon, equal_tells_values_apart)
{
    ddb_map x = tu_item(a, "{\"v\":{\"NS\":[\"1\",\"2.0\"]},\"w\":{\"N\":\"3\"}}");
    ddb_map y = tu_item(a, "{\"v\":{\"NS\":[\"2\",\"1.00\"]},\"w\":{\"N\":\"4\"}}");
    cr_assert_eq(ddb_canon_equal(&x.attrs[0].value, &y.attrs[0].value), 1);
    cr_assert_eq(ddb_canon_equal(&x.attrs[1].value, &y.attrs[1].value), 0);
}

/* Numbers already in canonical text are copied, the rest parsed: both ways
 * must give what ddb_number_format gives. */
Test(canon, numbers_are_written_as_ddb_number_format_writes_them)
{
    static const char *texts[] = {"0",
                                  "-0",
                                  "1",
                                  "-1",
                                  "10",
                                  "0.5",
                                  "-0.5",
                                  "0.50",
                                  "007",
                                  "1E2",
                                  "1e-3",
                                  "12.340",
                                  "100.0",
                                  "-00.1",
                                  "+3",
                                  ".5",
                                  "5.",
                                  "0.000",
                                  "123456789012345678901234567890123456780000",
                                  "0.00000000000000000000000000000000000001"};
    for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
        ddb_value v = ddb_value_str(DDB_TYPE_N, texts[i], strlen(texts[i]));
        ddb_number n;
        ddb_buf got = DDB_BUF_INIT, want = DDB_BUF_INIT;
        cr_assert_eq(ddb_number_parse(&n, texts[i], strlen(texts[i]), NULL), 0, "%s", texts[i]);
        ddb_buf_puts(&want, "{\"N\":\"");
        ddb_number_format(&want, &n);
        ddb_buf_puts(&want, "\"}");
        ddb_canon_value(&got, &v);
        cr_assert_str_eq(got.ptr, want.ptr, "%s", texts[i]);
        ddb_buf_dispose(&got);
        ddb_buf_dispose(&want);
    }
}
