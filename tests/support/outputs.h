/* Writers and outputs in the Criterion suites (header-only, test code only). */
#ifndef DDB_TU_OUTPUTS_H
#define DDB_TU_OUTPUTS_H

#include <criterion/criterion.h>
#include <string.h>

#include "ddbpipe/output.h"
#include "ddbpipe/output_file.h"
#include "ddbpipe/writer.h"

/* Finishes w and checks everything it wrote into its memory sink. */
static inline void tu_expect_writer_output(ddb_writer *w, const char *want)
{
    ddb_error err;
    size_t len = 0;
    const char *data;
    cr_assert_eq(ddb_writer_finish(w, &err), 0, "%s", err.message);
    data = ddb_sink_memory_data(w->sink, &len);
    if (len == 0)
        data = "";
    cr_assert_eq(len, strlen(want), "output:\n%.*s\nwant:\n%s", (int)len, data, want);
    cr_assert_eq(memcmp(data, want, len), 0, "output:\n%.*s\nwant:\n%s", (int)len, data, want);
}

/* A writer of entity e (may be NULL) into a memory sink (w->sink). */
static inline ddb_writer *tu_memory_writer(ddb_out_format fmt, const ddb_entity *e,
                                           const ddb_writer_opts *o)
{
    ddb_sink *sink = NULL;
    ddb_writer *w = NULL;
    ddb_error err;
    cr_assert_eq(ddb_sink_new_memory(&sink, &err), 0);
    cr_assert_eq(ddb_writer_new(&w, fmt, sink, e, o, &err), 0, "%s", err.message);
    return w;
}

/* The file output into dir: per entity of m (records = 1 for entity records)
 * or one file "items". */
static inline ddb_output *tu_file_output(const char *dir, ddb_out_format fmt, const ddb_mapping *m,
                                         int records, int gzip)
{
    ddb_file_output_opts fo;
    ddb_output *o = NULL;
    ddb_error err;
    memset(&fo, 0, sizeof(fo));
    fo.dir = dir;
    fo.format = fmt;
    fo.gzip = gzip;
    fo.mapping = m;
    fo.records = records;
    fo.single_name = "items";
    cr_assert_eq(ddb_file_output_new(&o, &fo, &err), 0, "%s", err.message);
    return o;
}

#endif
