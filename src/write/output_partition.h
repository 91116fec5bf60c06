/*
 * output_partition.h (private header of write/) — an entity's records in
 * Hive-style folders, DIR/FIELD=value/part-N.<ext>, one field's value per
 * folder, as Athena, Glue, Spark and DuckDB (hive_partitioning) read them.
 */
#ifndef DDBPIPE_WRITE_OUTPUT_PARTITION_H
#define DDBPIPE_WRITE_OUTPUT_PARTITION_H

#include <stddef.h>

#include "ddbpipe/buf.h"
#include "ddbpipe/error.h"
#include "ddbpipe/mapping.h"
#include "ddbpipe/writer.h"

/* The folder of a record without the field (or with NULL), as Hive names it. */
#define DDB_HIVE_DEFAULT_PARTITION "__HIVE_DEFAULT_PARTITION__"

/* Files open at once per partitioned writer: each Parquet one holds a row
 * group in memory, so this bounds memory whatever the number of values. */
#define DDB_PARTITION_OPEN_MAX 16

/* Where the partitioned writer's files go: open makes a file's sink (and its
 * folder), done is told each file finished and in place, with its sink. */
typedef struct ddb_partition_io {
    int (*open)(void *ctx, const char *path, ddb_sink **out, ddb_error *err);
    int (*done)(void *ctx, const char *path, const ddb_sink *sink, ddb_error *err);
    void *ctx;
} ddb_partition_io;

/* Appends value's n bytes to out as Hive escapes a path name (its
 * FileUtils.escapePathName): control characters, DEL and "#%'*\/:=?\\{[]^
 * become %XX; an empty value is the default partition. */
void ddb_hive_escape(ddb_buf *out, const char *value, size_t n);

/*
 * A writer of e's records in fmt under dir (files named .ext), one folder per value of e's
 * field field (an S, N or BOOL), each file part-N.<ext>, N counting the
 * files of this writer; the field itself is not in the files (Hive takes it
 * from the folder). At most max_open files are open (0:
 * DDB_PARTITION_OPEN_MAX): the least recently written one is finished to
 * make room, and a later record of its value opens a new part. Returns 0,
 * DDB_ENOMEM, DDB_EUSAGE (a field of another type).
 */
DDB_MUST_USE int ddb_writer_new_partitioned(ddb_writer **out, const char *dir, ddb_out_format fmt,
                                            const char *ext, const ddb_entity *e, size_t field,
                                            const ddb_writer_opts *wo, const ddb_partition_io *io,
                                            size_t max_open, ddb_error *err);

/*
 * A writer of e's records (NULL: items) in Parquet files dir/part-NNNNN.ext,
 * each ended when it reaches wo->parquet_max_file_bytes and the next one
 * begun; the parts share each number column's type. Returns 0 or DDB_ENOMEM.
 */
DDB_MUST_USE int ddb_writer_new_parts(ddb_writer **out, const char *dir, const char *ext,
                                      const ddb_entity *e, const ddb_writer_opts *wo,
                                      const ddb_partition_io *io, ddb_error *err);

/* The type the files of a partitioned Parquet writer hold in their column
 * col (they have none for the partition field): as pq_writer_number_type.
 * 0, or -1 when w is not one. */
int ddb_partitioned_number_type(const ddb_writer *w, size_t col, int *as_text, int *scale);

#endif
