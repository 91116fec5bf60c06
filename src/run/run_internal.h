/*
 * run_internal.h (private header of run/) — the run plan's parts shared by run.c (checking,
 * running), run_target.c (the tables it scans and writes) and run_files.c (the output folder,
 * rejects and unmatched files).
 */
#ifndef DDBPIPE_RUN_INTERNAL_H
#define DDBPIPE_RUN_INTERNAL_H

#include "ddbpipe/checkpoint.h"
#include "ddbpipe/generate.h"
#include "ddbpipe/outdir.h"
#include "ddbpipe/rejects.h"
#include "ddbpipe/run.h"
#include "ddbpipe/select.h"
#include "run/run_managed.h"
#include "run/run_s3.h"

struct ddb_run_plan {
    ddb_run_options o;
    ddb_mapping *mapping, *to_mapping;
    ddb_type_hint *types;
    size_t n_types;
    ddb_state *state; /* resuming from it */
    char *ttl_attribute; /* --skip-expired on a table: its TTL attribute (DescribeTimeToLive) */
    int done;         /* the state records a finished run */
    ddb_buf fingerprint;
    ddb_out_format format;
    int writes_files;
    int streams; /* the items go to standard output, not to files in a folder */
    uint64_t input_bytes;
    ddb_client *client;
    ddb_client *target_client; /* the target's own identity; NULL: client */
    ddb_table_info *source, *target;
    ddb_table_info *planned; /* a dry run's target as --create-table would make it */
    ddb_reader *scan;
    ddb_generator *gen;
    ddb_reader *gen_reader; /* over gen */
    ddb_output *output;
    int output_borrowed; /* the caller's (own_output): not freed here */
    ddb_rejects *rejects, *unmatched;
    char *rejects_path, *unmatched_path;
    ddb_outdir *outdir;      /* file outputs: the folder as one unit */
    ddb_store *outdir_store; /* the bucket's, for an s3:// outdir (p->s3.store); else NULL */
    char *run_dir;           /* a table target's own folder for its side files */
    int out_committed;       /* the folder now holds this run's files */
    char *schema_dir;        /* OUT/_ddbpipe/schema: the entity files' column types */
    ddb_key_attr item_keys[2]; /* Parquet items: their key columns (names in item_key_text) */
    size_t n_item_keys;
    char *item_key_text;
    char **inputs;           /* the inputs with folders of files expanded; owned */
    size_t n_inputs;
    ddb_run_s3 s3;           /* S3 inputs and outputs (run_s3.c) */
    ddb_run_managed managed; /* DynamoDB's export or import through S3 (run_managed.c) */
    struct ddb_select *select;      /* --entities, --where, --sample; NULL: everything */
    ddb_select_request select_req; /* the table's Query or Scan for it */
    char *select_how;               /* how the selection is read, for the summary */
};

/* --create-table with a table as the source (run_create.c): the target (through target) made
 * like the source (through p->client), its keys and indexes tm's when not NULL; the notes of
 * what was not copied said through the plan's note hook. Returns what ddb_table_like_create
 * returns, or ddb_table_like_read's failures on the source. */
int ddb_run_create_like(ddb_run_plan *p, ddb_client *target, const ddb_mapping *tm,
                        ddb_error *err);

/* The selection (run_select.c): parsed and checked against the mapping (0,
 * DDB_EUSAGE with *field, DDB_ENOMEM); the table reader's Query or Scan for it
 * (0 or DDB_ENOMEM; to borrows from the plan); named in the summary; freed. */
int ddb_run_select_new(ddb_run_plan *p, ddb_run_field *field, ddb_error *err);
int ddb_run_select_table(ddb_run_plan *p, ddb_table_reader_opts *to, ddb_error *err);
void ddb_run_select_summary(const ddb_run_plan *p, ddb_summary *s);
void ddb_run_select_dispose(ddb_run_plan *p);

/* Sets err (DDB_EUSAGE) and *field = which; returns DDB_EUSAGE. */
int ddb_run_fail(ddb_run_field *field, ddb_run_field which, ddb_error *err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Says something worth saying that is not a problem, through o.note. */
void ddb_run_note(const ddb_run_plan *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* ddbpipe-runs/<name>-<UTC time>[-n] (name: a table, or a table ARN's table,
 * other bytes made '_'): a folder of the run's own, so a clean run's missing
 * rejects file is never mistaken for an older run's. Not made here. Returns
 * the path (the caller frees it), or NULL when out of memory. */
char *ddb_run_folder_name(const char *table);

/* The fingerprint of the run and, under a state file, the state it resumes
 * from, checked against it (run_state.c). Returns 0 or DDB_EUSAGE/DDB_ENOMEM
 * with *field set; p->done when the state records a finished run. */
int ddb_run_load_state(ddb_run_plan *p, ddb_run_field *field, ddb_error *err);

/* A mapping that does not describe its table reads nothing or writes junk:
 * DDB_EUSAGE naming the differences (*field DDB_RUN_F_TABLE_SCHEMA), unless
 * told to go on (a warning). */
int ddb_run_check_schema(ddb_run_plan *p, const ddb_table_info *t, const ddb_mapping *m,
                         const char *path, ddb_run_field *field, ddb_error *err);

/* Before anything is read or written: the run's own files (--state,
 * --rejects, --unmatched, --summary) are none of its inputs or mappings, and
 * not each other (a mistyped --state naming the input overwrote it before it
 * was read). Returns 0, or DDB_EUSAGE with *field set. */
int ddb_run_check_own_files(ddb_run_plan *p, ddb_run_field *field, ddb_error *err);

/* Before anything is written: the output folder holds nothing but a previous
 * run's files (or the caller allows it). Returns 0, DDB_EUSAGE, DDB_EIO,
 * DDB_ENOMEM with *field set. */
int ddb_run_check_out(ddb_run_plan *p, ddb_run_field *field, ddb_error *err);
/* The same for an s3:// output prefix, once the plan has S3 (after
 * ddb_run_s3_connect): refuses a prefix holding objects ddbpipe did not
 * write, as for a local folder. */
int ddb_run_check_out_s3(ddb_run_plan *p, ddb_run_field *field, ddb_error *err);

/* After the pipeline: the committed files replace the previous run's. */
void ddb_run_commit_out(ddb_run_plan *p, ddb_summary *s);

#endif
