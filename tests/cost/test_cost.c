/*
 * test_cost.c — the write and read units of cost.h by DynamoDB's rules (the
 * "Item sizes" and index write pages of the Developer Guide), and the price
 * table's loading.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/cost.h"
#include "support/testutil.h"

static ddb_arena *a;
static ddb_table_info *t;

/* pk/sk table with a GSI of each projection and an LSI, as DescribeTable gives them */
static const char described[] =
    "{\"Table\":{\"TableName\":\"t\",\"KeySchema\":[{\"AttributeName\":\"pk\",\"KeyType\":\"HASH\"}"
    ","
    "{\"AttributeName\":\"sk\",\"KeyType\":\"RANGE\"}],\"AttributeDefinitions\":["
    "{\"AttributeName\":\"pk\",\"AttributeType\":\"S\"},{\"AttributeName\":\"sk\","
    "\"AttributeType\":"
    "\"S\"},{\"AttributeName\":\"g\",\"AttributeType\":\"S\"},{\"AttributeName\":\"l\","
    "\"AttributeType\":\"N\"}],\"GlobalSecondaryIndexes\":["
    "{\"IndexName\":\"all\",\"KeySchema\":[{\"AttributeName\":\"g\",\"KeyType\":\"HASH\"}],"
    "\"Projection\":{\"ProjectionType\":\"ALL\"}},"
    "{\"IndexName\":\"keys\",\"KeySchema\":[{\"AttributeName\":\"g\",\"KeyType\":\"HASH\"},"
    "{\"AttributeName\":\"sk\",\"KeyType\":\"RANGE\"}],\"Projection\":{\"ProjectionType\":"
    "\"KEYS_ONLY\"}}],\"LocalSecondaryIndexes\":[{\"IndexName\":\"byl\",\"KeySchema\":["
    "{\"AttributeName\":\"pk\",\"KeyType\":\"HASH\"},{\"AttributeName\":\"l\",\"KeyType\":"
    "\"RANGE\"}],\"Projection\":{\"ProjectionType\":\"INCLUDE\",\"NonKeyAttributes\":[\"big\"]}}]}"
    "}";

static void setup(void)
{
    ddb_error err;
    cr_assert_eq(ddb_arena_new(&a, 0), 0);
    cr_assert_eq(ddb_table_info_parse(&t, described, NULL, &err), 0, "%s", err.message);
}

static void teardown(void)
{
    ddb_table_info_free(t);
    ddb_arena_free(a);
}

TestSuite(cost, .init = setup, .fini = teardown);

/* units of item (JSON) in t: the table's returned, the indexes' in *ix */
static uint64_t units(const char *json, uint64_t *ix)
{
    ddb_map m = tu_item(a, json);
    ddb_error err;
    size_t size = 0;
    cr_assert_eq(ddb_item_validate(&m, NULL, &size, &err), 0, "%s", err.message);
    return ddb_cost_put_units(&m, size, t, ix);
}

/* A 1,500-byte string: the item is over 1 KB (2 units); each index that holds
 * it costs by its projection (the numbers DynamoDB Local reports for it). */
Test(cost, each_index_by_its_projection)
{
    char json[2048];
    uint64_t ix;
    snprintf(json, sizeof(json),
             "{\"pk\":{\"S\":\"a\"},\"sk\":{\"S\":\"1\"},\"g\":{\"S\":\"x\"},\"l\":{\"N\":\"5\"},"
             "\"big\":{\"S\":\"%01500d\"}}",
             0);
    cr_assert_eq(units(json, &ix), 2);
    cr_assert_eq(ix, 2 + 1 + 2, "ALL 2, KEYS_ONLY 1, INCLUDE big 2: got %llu",
                 (unsigned long long)ix);
}

/* An index holds only items with its key attributes (a sparse index). */
Test(cost, an_item_without_an_index_key_costs_that_index_nothing)
{
    uint64_t ix;
    cr_assert_eq(units("{\"pk\":{\"S\":\"a\"},\"sk\":{\"S\":\"1\"}}", &ix), 1);
    cr_assert_eq(ix, 0);
    cr_assert_eq(units("{\"pk\":{\"S\":\"a\"},\"sk\":{\"S\":\"1\"},\"l\":{\"N\":\"1\"}}", &ix), 1);
    cr_assert_eq(ix, 1, "the LSI only");
}

/* 1 KB exactly is one unit; a byte more is two. */
Test(cost, writes_are_counted_per_started_kilobyte)
{
    char json[1200];
    uint64_t ix;
    /* names pk, sk, v (5 bytes) + "a" + "1" (2) + the string: 1024 - 7 = 1017 */
    snprintf(json, sizeof(json),
             "{\"pk\":{\"S\":\"a\"},\"sk\":{\"S\":\"1\"},\"v\":{\"S\":\"%01017d\"}}", 0);
    cr_assert_eq(units(json, &ix), 1);
    snprintf(json, sizeof(json),
             "{\"pk\":{\"S\":\"a\"},\"sk\":{\"S\":\"1\"},\"v\":{\"S\":\"%01018d\"}}", 0);
    cr_assert_eq(units(json, &ix), 2);
}

/* Scan: 4 KB units summed over the pages, halved when eventually consistent. */
Test(cost, scan_units)
{
    cr_assert_eq(ddb_cost_scan_units(6000, 0), 1);
    cr_assert_eq(ddb_cost_scan_units(6000, 1), 2);
    cr_assert_eq(ddb_cost_scan_units(4096 * 10, 0), 5);
    cr_assert_eq(ddb_cost_scan_units(4096 * 10 + 1, 0), 6);
    cr_assert_eq(ddb_cost_scan_units(0, 1), 0);
}

Test(cost, the_built_in_price_table_has_us_east_1)
{
    ddb_prices *p = NULL;
    ddb_error err;
    const ddb_region_prices *r;
    cr_assert_eq(ddb_prices_load(&p, NULL, &err), 0, "%s", err.message);
    cr_assert_not_null(r = ddb_prices_region(p, "us-east-1"));
    cr_assert(r->write_per_million > 0 && r->read_per_million > 0);
    cr_assert(r->export_per_gb > 0 && r->import_per_gb > 0);
    cr_assert_null(ddb_prices_region(p, "nowhere-1"));
    cr_assert_str_neq(ddb_prices_as_of(p), "(undated)");
    ddb_prices_free(p);
}
