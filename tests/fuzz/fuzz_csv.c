/*
 * CSV (typed columns such as price:N, _extra). The first byte picks the
 * delimiter (bits 0-1: , tab ; |), and allows short rows (bit 2), long rows
 * (bit 3), and gives the columns instead of a header row (bit 4).
 */
#include "fuzz_records.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char delims[4] = {',', '\t', ';', '|'};
    static const char *const columns[] = {"id:N", "name", "tags:SS", "data:M", "_extra"};
    ddb_reader_opts o;
    if (size == 0)
        return 0;
    memset(&o, 0, sizeof(o));
    o.format = DDB_IN_CSV;
    o.delimiter = delims[data[0] & 3];
    o.max_line = 1u << 20;
    o.allow_short_rows = (data[0] & 4) != 0;
    o.allow_long_rows = (data[0] & 8) != 0;
    if (data[0] & 16) {
        o.columns = columns;
        o.n_columns = sizeof(columns) / sizeof(columns[0]);
    }
    fuzz_read_records_with(&o, data + 1, size - 1);
    return 0;
}
