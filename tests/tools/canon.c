/*
 * ddbpipe-canon (test tool): prints each item of DynamoDB JSON inputs on one
 * line in a canonical form — attributes and map keys sorted bytewise, numbers
 * in canonical text, set members sorted — so two dumps of the same items can
 * be compared with sort and diff whatever the attribute order and whatever
 * number spelling the server returned.
 *   ddbpipe-canon FILE...   (any format ddbpipe reads; - for stdin)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/canon.h"
#include "ddbpipe/reader.h"

int main(int argc, char **argv)
{
    ddb_buf line = DDB_BUF_INIT;
    int status = 0;
    for (int i = 1; i < argc; i++) {
        ddb_reader *r = NULL;
        ddb_reader_opts o;
        ddb_error err;
        ddb_record *rec;
        int rc;
        memset(&o, 0, sizeof(o));
        o.format = DDB_IN_DDBJSON;
        if (ddb_reader_open(&r, argv[i], &o, &err) != 0) {
            fprintf(stderr, "ddbpipe-canon: %s\n", err.message);
            return 2;
        }
        while ((rc = ddb_reader_next(r, &rec, &err)) == 0) {
            if (rec->kind == DDB_REC_BAD) {
                fprintf(stderr, "ddbpipe-canon: %s:%llu: %s\n", argv[i],
                        (unsigned long long)rec->line, rec->reason);
                status = 1;
                continue;
            }
            ddb_buf_clear(&line);
            if (rec->kind == DDB_REC_DELETE)
                ddb_buf_puts(&line, "DELETE ");
            ddb_canon_map(&line, &rec->item);
            ddb_buf_putc(&line, '\n');
            fwrite(line.ptr, 1, line.len, stdout);
        }
        if (rc != DDB_ITEROVER) {
            fprintf(stderr, "ddbpipe-canon: %s\n", err.message);
            status = 1;
        }
        ddb_reader_free(r);
    }
    ddb_buf_dispose(&line);
    return status;
}
