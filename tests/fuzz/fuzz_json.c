/*
 * JSON documents (reader_json.c over json_cursor.c): arrays of items, scan,
 * get-item and batch-get output, BatchWriteItem request files, NoSQL
 * Workbench models, documents one after another. Each input is read three
 * ways: for the first table it names, for a table named for the run (the
 * others' records passed over), and as a file whose format is told by its
 * content (the bidders: JSON documents, lines, CSV, or refused).
 */
#include "fuzz_records.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ddb_reader_opts o;
    ddb_reader *rd = NULL;
    ddb_error err;

    memset(&o, 0, sizeof(o));
    o.format = DDB_IN_JSON;
    o.max_line = 1u << 20;
    o.warn = fuzz_check_warning;
    fuzz_read_records_with(&o, data, size);
    o.table = "Forum";
    fuzz_read_records_with(&o, data, size);

    /* Told by content: a name that says nothing (neither .json nor .csv). */
    o.format = DDB_IN_AUTO;
    o.table = NULL;
    if (ddb_reader_open(&rd, fuzz_write_file(0, "input.dat", data, size), &o, &err) == 0)
        fuzz_drain_reader(rd, size);
    ddb_reader_free(rd);
    return 0;
}
