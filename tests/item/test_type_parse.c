/* ddb_type_parse: exactly DynamoDB's ten type tags, each to its type (and back
 * by name), and every other string of up to five bytes over their letters
 * refused; ddb_map_getz agrees with a plain search, embedded NULs included. */
#include <criterion/criterion.h>
#include <string.h>

#include "ddbpipe/value.h"

Test(value, type_parse_knows_exactly_the_ten_tags)
{
    static const char letters[] = "SNBOLMUxs\0";
    ddb_type t;
    for (int i = DDB_TYPE_S; i <= DDB_TYPE_BS; i++) {
        const char *name = ddb_type_name((ddb_type)i);
        cr_assert_eq(ddb_type_parse(&t, name, strlen(name)), 0, "%s", name);
        cr_assert_eq(t, (ddb_type)i, "%s", name);
    }
    /* every string of up to five of those bytes: accepted exactly when it is a tag */
    for (size_t len = 0; len <= 5; len++) {
        size_t combos = 1;
        for (size_t k = 0; k < len; k++)
            combos *= sizeof(letters) - 1;
        for (size_t c = 0; c < combos; c++) {
            char s[6];
            size_t x = c;
            int want = 0;
            for (size_t k = 0; k < len; k++, x /= sizeof(letters) - 1)
                s[k] = letters[x % (sizeof(letters) - 1)];
            for (int i = DDB_TYPE_S; i <= DDB_TYPE_BS; i++)
                if (strlen(ddb_type_name((ddb_type)i)) == len &&
                    memcmp(ddb_type_name((ddb_type)i), s, len) == 0)
                    want = i;
            t = DDB_TYPE_NONE;
            if (want) {
                cr_assert_eq(ddb_type_parse(&t, s, len), 0);
                cr_assert_eq(t, (ddb_type)want);
            } else {
                cr_assert_neq(ddb_type_parse(&t, s, len), 0, "accepted '%.*s'", (int)len, s);
            }
        }
    }
}

Test(value, map_getz_finds_by_whole_name)
{
    ddb_attr attrs[] = {{{"gsiOnePk", 8}, {0}},
                        {{"pk\0x", 4}, {0}},
                        {{"pk", 2}, {0}},
                        {{"p", 1}, {0}},
                        {{"", 0}, {0}}};
    ddb_map m = {attrs, sizeof(attrs) / sizeof(attrs[0])};
    cr_assert_eq(ddb_map_getz(&m, "pk"), &attrs[2].value, "not the name with a NUL in it");
    cr_assert_eq(ddb_map_getz(&m, "p"), &attrs[3].value);
    cr_assert_eq(ddb_map_getz(&m, "gsiOnePk"), &attrs[0].value);
    cr_assert_eq(ddb_map_getz(&m, ""), &attrs[4].value);
    cr_assert_null(ddb_map_getz(&m, "gsiOneP"));
    cr_assert_null(ddb_map_getz(&m, "pkx"));
}
