/*
 * output_file.h — the file output: DIR/<Entity>.<ext>[.gz] per entity
 * (deletes in DIR/<Entity>.deletes.<ext>), or one DIR/items.<ext> without a
 * mapping. (Items no entity matches go to the pipeline's unmatched file, a
 * ddb_rejects, whatever the output.) Every file is written under a temporary name and
 * renamed into place by finish(), so files appear complete or not at all.
 */
#ifndef DDBPIPE_OUTPUT_FILE_H
#define DDBPIPE_OUTPUT_FILE_H

#include <stddef.h>

#include "ddbpipe/error.h"

#include "ddbpipe/mapping.h"
#include "ddbpipe/output.h"
#include "ddbpipe/writer.h"

struct ddb_s3;
struct ddb_store;

typedef struct ddb_file_output_opts {
    const char *dir; /* created if missing */
    ddb_out_format format;
    int gzip;
    char delimiter;             /* CSV */
    uint64_t max_columns;       /* CSV without a mapping (writer.h; 0: the default) */
    int extra_plain;            /* records: undeclared attributes as plain JSON (writer.h) */
    int typed_values;           /* NDJSON without a mapping: DynamoDB JSON values */
    const ddb_mapping *mapping; /* entity layout; NULL = one file */
    int records;                /* 1: entity records (export); 0: items (convert/encode) */
    const char *single_name;    /* file base name without a mapping ("items") */
    int resumable;              /* write DIR/.<name>.partial, kept when the run stops early */
    const char *resume_state;   /* JSON array saved by checkpoint(): continue those files */
    const char *schema_dir;     /* records with a mapping: the files' column types go there
                                   (schema.h), replaced as a whole by finish(); NULL = none */
    struct ddb_s3 *s3;          /* for a dir s3://bucket/prefix: objects, multipart uploads */
    struct ddb_store *store;    /* for a dir s3://bucket/prefix: where schema_dir is */
    const struct ddb_select *select; /* records: only the entities it asks for get files up
                                        front (NULL: every entity) */
    ddb_parquet_codec parquet_codec; /* format parquet (writer.h) */
    uint64_t parquet_group_rows;     /* format parquet: rows per row group (0: the default) */
    int encode_ahead; /* format parquet: row groups encoded on a thread of their own (the
                         files are the same; --threads 1 leaves it 0) */
    int write_behind; /* CSV without a mapping: its rows written out at the end by a thread
                         of their own (writer.h; --threads 1 leaves it 0) */
    uint64_t max_file_bytes; /* format parquet, records: an entity's files are parts of about
                                this size at most, DIR/<Entity>/part-NNNNN.parquet (0: one) */
    const char *partition_by; /* records: an entity declaring this field is written in Hive
                                 folders, DIR/<Entity>/FIELD=value/part-N.<ext> (NULL: none) */
    const ddb_key_attr *keys; /* Parquet without a mapping: key columns before "item"
                                 (writer.h) */
    size_t n_keys;
} ddb_file_output_opts;

/*
 * Per-entity files under opts->dir. With a mapping and records=1, one file
 * per entity is created up front (so an entity without records still gets a
 * file with its CSV header); without a mapping, DIR/items.<ext> likewise.
 * Returns 0, DDB_EIO (directory cannot be made), DDB_ENOMEM, DDB_EUSAGE
 * (Parquet resumable or gzipped).
 */
DDB_MUST_USE int ddb_file_output_new(ddb_output **out, const ddb_file_output_opts *opts,
                                     ddb_error *err);

/* Paths of the files committed by finish (valid until free), for the summary. */
size_t ddb_file_output_paths(const ddb_output *o, const char *const **paths);

#endif
