/*
 * run_managed.h (private header of run/) — the part of a run plan (run.c) that goes
 * through DynamoDB's own export to S3 or import from S3 (managed.h):
 *
 *   export: ExportTableToPointInTime when the plan is attached, waited for,
 *     and the export folder it wrote becomes the run's input;
 *   import: the items are uploaded to the S3 prefix by the pipeline (gzip
 *     DynamoDB JSON files behind a checking output), then ImportTable
 *     creates the table from them and is waited for.
 *
 * The job's ClientToken and ARN live in the state file ("managed"), written
 * before the job is asked for and again once it has an ARN, so a resumed run
 * follows the same job and never starts a second one.
 */
#ifndef DDBPIPE_RUN_MANAGED_H
#define DDBPIPE_RUN_MANAGED_H

#include "ddbpipe/checkpoint.h"
#include "ddbpipe/managed.h"
#include "ddbpipe/output.h"
#include "ddbpipe/run.h"

typedef struct ddb_run_managed {
    char token[33];               /* the job's ClientToken ("" before the plan has one) */
    char *arn;                    /* the job's ARN once asked for */
    char *folder;                 /* export: the folder DynamoDB writes */
    int done;                     /* import: the job has ended (the state says so) */
    int uploaded_before;          /* import: an earlier process uploaded every item: only the
                                     import itself is left to follow */
    unsigned table_flags;         /* import: DDB_TABLE_NO_LSI when the LSIs are left out */
    ddb_output *files;            /* import: the S3 file output (owned by the plan's output) */
    ddb_key_attr *index_sk;       /* import: the sort keys of the indexes the table gets */
    ddb_key_schema schema;        /* import: the items are checked against it */
    ddb_export_info *export_info; /* the latest description of the job */
    ddb_import_info *import_info;
    double waited;   /* seconds waited for the job */
    int interrupted; /* the wait was cut short: the job goes on in AWS */
    uint64_t uploaded;
    char *json; /* the state's "managed" object, as now */
} ddb_run_managed;

struct ddb_run_plan;

/* Options that go with the managed paths, or do not. Returns 0 or DDB_EUSAGE
 * with *field set. */
int ddb_run_managed_check(const struct ddb_run_plan *p, ddb_run_field *field, ddb_error *err);

/* The options a resumed run must repeat, appended to the fingerprint's text
 * (nothing without a managed path, so older state files still match). */
void ddb_run_managed_fingerprint(const ddb_run_options *o, ddb_buf *b);

/* A state whose records are all settled but whose import is still to be
 * followed: not a finished run. */
int ddb_run_managed_pending(const ddb_state *st);

/* A resumed run: the job its state records. Called with p->state loaded and
 * its fingerprint checked. A state saved before any record was read (it
 * holds only the job) is let go of: the records are read from the start. A
 * complete one leaves only the import to follow (uploaded_before). Returns 0,
 * DDB_EUSAGE, DDB_ENOMEM. */
int ddb_run_managed_resume(struct ddb_run_plan *p, ddb_run_field *field, ddb_error *err);

/* A run with a managed path gets its ClientToken (a resumed one has it
 * already). Returns 0 or DDB_ERROR. */
int ddb_run_managed_start(struct ddb_run_plan *p, ddb_error *err);

/* Attaches the managed side: export — the table described, the export asked
 * for (or the recorded one followed) and waited for, its folder the input;
 * import — the table must not exist, the prefix must be empty, and the
 * output becomes the checked S3 files. Returns 0, DDB_ENOTFOUND, DDB_EUSAGE,
 * DDB_EINTR, DDB_ENET, DDB_ENOMEM with *field set. */
int ddb_run_managed_attach(struct ddb_run_plan *p, ddb_run_field *field, ddb_error *err);

/* The state's "managed" object made anew from what the plan knows of its job
 * (m->json). Returns 0 or DDB_ENOMEM. */
int ddb_run_managed_record(struct ddb_run_plan *p);

/* Writes the state file (when there is one) with the job as it is now: for
 * an import into the saved state, its counts kept; for an export (asked for
 * before any record is read) a state of the job alone. Returns 0 or the
 * error of reading or writing it. */
int ddb_run_managed_save(struct ddb_run_plan *p, ddb_error *err);

/* The state's "managed" member for the pipeline's checkpoints (NULL: none). */
const char *ddb_run_managed_state(const struct ddb_run_plan *p);

/* After the pipeline (which returned rc): an import asks for ImportTable,
 * waits for it and makes the summary say what it imported. Returns rc, or
 * the import's failure (DDB_EINTR, DDB_EUSAGE, DDB_ENET). */
int ddb_run_managed_import(struct ddb_run_plan *p, ddb_summary *s, int rc, ddb_error *err);

/* What the report says of the job. */
void ddb_run_managed_report(const struct ddb_run_plan *p, ddb_run_report *out);

void ddb_run_managed_dispose(ddb_run_managed *m);

#endif
