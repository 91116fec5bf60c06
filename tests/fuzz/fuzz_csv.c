/* CSV with a header row; the first byte picks the delimiter (, tab ; |). */
#include "fuzz_records.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char delims[4] = {',', '\t', ';', '|'};
    if (size == 0)
        return 0;
    fuzz_read_records(DDB_IN_CSV, delims[data[0] & 3], data + 1, size - 1);
    return 0;
}
