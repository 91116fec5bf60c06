/* DynamoDB JSON: the lines reader ({"Item":..}, bare items, incremental
 * changes; gzip when it looks like gzip) and the AWS CLI scan reader. */
#include "fuzz_records.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_read_records(DDB_IN_DDBJSON, 0, data, size);
    fuzz_read_records(DDB_IN_SCAN, 0, data, size);
    return 0;
}
