/* ddb_cstr_eq: a C string against counted bytes, as strlen + memcmp would
 * say, including bytes after an embedded NUL and strings of every length. */
#include <criterion/criterion.h>
#include <string.h>

#include "ddbpipe/value.h"

Test(value, cstr_eq_agrees_with_strlen_and_memcmp)
{
    static const char *z[] = {"", "a", "pk", "gsiOnePk", "gsiOneSk", "lsiOneSk", "tagName"};
    static const char bytes[] = "gsiOnePk\0gsiOneSkx";
    for (size_t i = 0; i < sizeof(z) / sizeof(z[0]); i++)
        for (size_t off = 0; off < sizeof(bytes) - 1; off++)
            for (size_t n = 0; off + n < sizeof(bytes); n++) {
                int want = strlen(z[i]) == n && memcmp(z[i], bytes + off, n) == 0;
                cr_assert_eq(ddb_cstr_eq(z[i], bytes + off, n), want, "\"%s\" at %zu len %zu", z[i],
                             off, n);
            }
    cr_assert(ddb_cstr_eq("a", "a\0b", 1));
    cr_assert_not(ddb_cstr_eq("a", "a\0b", 2)); /* never reads past "a"'s terminator */
}
