/* Plain NDJSON records, and the same bytes as AWS Data Pipeline / EMR export lines (gzip when
 * it looks like gzip). */
#include "fuzz_records.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_read_records(DDB_IN_NDJSON, 0, data, size);
    fuzz_read_records(DDB_IN_DATAPIPELINE, 0, data, size);
    return 0;
}
