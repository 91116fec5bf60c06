/*
 * output_file_internal.h (private header of write/) — the file output's state, shared by
 * output_file.c (the output: records put, files committed, checkpoints, the column types)
 * and output_slots.c (where each entity's records go, and the writer opened there).
 */
#ifndef DDBPIPE_WRITE_OUTPUT_FILE_INTERNAL_H
#define DDBPIPE_WRITE_OUTPUT_FILE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "ddbpipe/buf.h"
#include "ddbpipe/error.h"
#include "ddbpipe/mapping.h"
#include "ddbpipe/output.h"
#include "ddbpipe/output_file.h"
#include "ddbpipe/schema.h"
#include "ddbpipe/sink.h"
#include "ddbpipe/writer.h"
#include "write/parquet.h"

typedef struct file_slot {
    ddb_writer *w;
    char *path;      /* partitioned: the entity's folder */
    int partitioned; /* its files are committed one by one, as each is finished */
    int parts;       /* the folder holds parts of --max-file-size */
} file_slot;

typedef struct file_output {
    ddb_output base;
    ddb_file_output_opts opts;
    char *dir;
    size_t n; /* slots per kind: entities, or 1 without a mapping */
    file_slot *puts;
    file_slot *dels;
    char **committed;
    size_t n_committed, cap_committed;
    /* resuming: the files of the interrupted run and their checkpointed lengths */
    char **resume_paths;
    uint64_t *resume_bytes;
    char **resume_s3; /* an S3 object's upload state, or NULL */
    size_t n_resume;
    ddb_schema *schema; /* column types of the entity files, when asked for */
    int finishing;      /* fo_finish began: what is sent is past any checkpoint */
    ddb_buf scratch;    /* a refused record's JSON */
    /* per entity (or the one slot without a mapping), how its files' lines
     * are made, for any thread (fo_format); NULL: only its writer knows */
    ddb_line_format **formats;
    unsigned char *cells; /* per entity: a CSV union writer's, made as cells (ddb_csv_union_cells) */
    pq_budget *pq_budget; /* Parquet: the row groups' memory all its files share */
} file_output;

/*
 * Opens slot's writer for entity index (-1: none, items) and kind (deletes), setting
 * slot->path (owned by the slot, freed with it): one file, a CSV whose header waits in a
 * spill, or with --partition-by / --max-file-size the entity's folder of Hive partitions or
 * parts (slot->partitioned, whose files count into fo's bytes_out as each is finished).
 * In resumable mode a file the checkpoint names is continued. slot must be empty. Returns
 * 0, DDB_ENOMEM, DDB_EUSAGE (the folder holds an earlier run's files, S3 without access),
 * DDB_EIO, or the sink's error; slot->path may be set on failure (freed with the output).
 */
DDB_MUST_USE int ddb_file_slot_open(file_slot *slot, file_output *fo, int index, int deletes,
                                    ddb_error *err);

/* The file of entity index (-1: none) and kind, as a slot that is not partitioned names it:
 * malloc'd, NULL when out of memory. */
char *ddb_file_slot_path(const file_output *fo, int index, int deletes);

/* The entity of slot index (NULL: none, or no mapping); points into fo's mapping. */
const ddb_entity *ddb_file_slot_entity(const file_output *fo, int index);

/* Whether e's records (NULL: items) go to Hive folders or parts of --max-file-size: a writer
 * of their own, that takes records, never lines made ahead. */
int ddb_file_slot_partitioned(const file_output *fo, const ddb_entity *e);

/* Whether e's records (NULL: items) go to a CSV union writer, whose columns come from the
 * records themselves. */
int ddb_file_slot_union_csv(const file_output *fo, const ddb_entity *e);

/* The options of the writers of fo's files (the line formats are made with the same). */
ddb_writer_opts ddb_file_slot_writer_opts(const file_output *fo);

/* The bytes the file under s's chain (its gzip, say) received: what reached the disk or
 * the bucket. */
uint64_t ddb_file_slot_sink_bytes(const ddb_sink *s);

#endif
