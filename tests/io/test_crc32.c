/* ddb_crc32 (ISA-L where built in) agrees with zlib's crc32() on every
 * length and alignment, and with the CRC DynamoDB documents for a body. */
#include <criterion/criterion.h>
#include <string.h>
#include <zlib.h>

#include "ddbpipe/checksum.h"

Test(crc32, agrees_with_zlib_on_every_length_and_alignment)
{
    static unsigned char buf[5000];
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < sizeof(buf); i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        buf[i] = (unsigned char)x;
    }
    for (size_t off = 0; off < 9; off++)
        for (size_t n = 0; n + off <= sizeof(buf); n += n < 70 ? 1 : 97)
            cr_assert_eq(ddb_crc32(buf + off, n), (uint32_t)crc32(0, buf + off, (uInt)n),
                         "offset %zu length %zu", off, n);
}

Test(crc32, known_values)
{
    cr_assert_eq(ddb_crc32("", 0), 0u);
    cr_assert_eq(ddb_crc32("123456789", 9), 0xcbf43926u); /* the CRC-32/IEEE check value */
    cr_assert_eq(ddb_crc32("{}", 2), 2745614147u);        /* an empty DynamoDB answer */
}
