/*
 * test_ttl.c — Time to Live as --skip-expired judges it: which items have
 * expired (ddb_item_expired: a Number of epoch seconds in the past, not over
 * five years back, compared exactly), and the attribute a table's
 * DescribeTimeToLive answer names (ddb_table_ttl_parse).
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/item.h"
#include "ddbpipe/table.h"
#include "ddbpipe/value.h"

#define NOW 1800000000ull

static int expired_with(ddb_type type, const char *text)
{
    ddb_attr a = {{"ttl", 3}, ddb_value_str(type, text, strlen(text))};
    ddb_item item = {&a, 1};
    return ddb_item_expired(&item, "ttl", NOW);
}

Test(ttl, expired_is_a_number_of_seconds_in_the_past)
{
    static const char *const yes[] = {
        "1799999999", "1799999999.999999", "1.7E9", "17999999990E-1",
        "1642320001", "1642233600", /* exactly five years of days (1,826) before NOW */
    };
    static const char *const no[] = {
        "1800000000",      /* now: not yet before it */
        "1800000000.0001", /* after */
        "1800000001",
        "99999999999999999999999999999999999999",
        "1642233599",    /* more than five years back: DynamoDB leaves it */
        "1799999999000", /* milliseconds: a date far ahead */
        "-1",
        "0",
        "not a number",
    };
    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
        cr_assert_eq(expired_with(DDB_TYPE_N, yes[i]), 1, "%s", yes[i]);
    for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
        cr_assert_eq(expired_with(DDB_TYPE_N, no[i]), 0, "%s", no[i]);
    /* a TTL attribute of another type is passed over by DynamoDB */
    cr_assert_eq(expired_with(DDB_TYPE_S, "1799999999"), 0);
}

Test(ttl, absent_attribute_has_not_expired)
{
    ddb_attr a = {{"other", 5}, ddb_value_str(DDB_TYPE_N, "1", 1)};
    ddb_item item = {&a, 1}, empty = {NULL, 0};
    cr_assert_eq(ddb_item_expired(&item, "ttl", NOW), 0);
    cr_assert_eq(ddb_item_expired(&empty, "ttl", NOW), 0);
}

static int ttl_parse(char **name, const char *json, ddb_error *err)
{
    ddb_error_clear(err);
    return ddb_table_ttl_parse(name, json, "T", err);
}

Test(ttl, describe_time_to_live_answers)
{
    char *name = NULL;
    ddb_error err;
    cr_assert_eq(ttl_parse(&name,
                           "{\"TimeToLiveDescription\":{\"AttributeName\":\"expireAt\","
                           "\"TimeToLiveStatus\":\"ENABLED\"}}",
                           &err),
                 0, "%s", err.message);
    cr_assert_str_eq(name, "expireAt");
    free(name);
    cr_assert_eq(ttl_parse(&name,
                           "{\"TimeToLiveDescription\":{\"TimeToLiveStatus\":\"ENABLING\","
                           "\"AttributeName\":\"ttl\"}}",
                           &err),
                 0, "%s", err.message);
    cr_assert_str_eq(name, "ttl");
    free(name);
    /* what dynalite answers, and a table whose TTL is being turned off */
    cr_assert_eq(
        ttl_parse(&name, "{\"TimeToLiveDescription\":{\"TimeToLiveStatus\":\"DISABLED\"}}", &err),
        DDB_EUSAGE);
    cr_assert_null(name);
    cr_assert_not_null(strstr(err.message, "table T has Time to Live DISABLED"), "%s", err.message);
    cr_assert_eq(ttl_parse(&name,
                           "{\"TimeToLiveDescription\":{\"TimeToLiveStatus\":\"DISABLING\","
                           "\"AttributeName\":\"ttl\"}}",
                           &err),
                 DDB_EUSAGE);
    cr_assert_null(name);
    cr_assert_eq(ttl_parse(&name, "{\"Table\":{}}", &err), DDB_EINVAL);
    cr_assert_eq(ttl_parse(&name, "not json", &err), DDB_EINVAL);
    cr_assert_eq(
        ttl_parse(&name, "{\"TimeToLiveDescription\":{\"TimeToLiveStatus\":\"ENABLED\"}}", &err),
        DDB_EINVAL);
    cr_assert_null(name);
}
