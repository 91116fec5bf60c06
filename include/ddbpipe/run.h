/*
 * run.h — one run as the commands describe it, planned and carried out by the
 * engine: where records come from (files, a table scan), how they are
 * transformed (the mappings), where they go (files, a table, nowhere in a
 * dry run), and the policy around them: the output format a command writes
 * by default, the rejects file, the table to encode for, waiting for tables,
 * checkpoints and resuming.
 *
 * The command line fills a ddb_run_options from argv and prints; everything
 * it names here is plain data. Messages say what is wrong in the engine's
 * words; the failing option comes back as a ddb_run_field so the command line
 * can add its flag and a hint.
 *
 *   ddb_run_plan_new       options -> plan (checks, mappings, state file)
 *   ddb_run_plan_attach    the plan's tables: wait, create, scan reader, writer
 *   ddb_run_plan_open      the file outputs and the rejects file
 *   ddb_run_plan_execute   ddb_pipeline_run over it all -> summary
 */
#ifndef DDBPIPE_RUN_H
#define DDBPIPE_RUN_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "ddbpipe/error.h"

#include "ddbpipe/client.h"
#include "ddbpipe/generate.h"
#include "ddbpipe/managed.h"
#include "ddbpipe/output_null.h"
#include "ddbpipe/output_table.h"
#include "ddbpipe/pipeline.h"
#include "ddbpipe/reader_table.h"
#include "ddbpipe/table.h"
#include "ddbpipe/writer.h"

/* Which option a planning error is about. */
typedef enum ddb_run_field {
    DDB_RUN_F_NONE = 0,
    DDB_RUN_F_INPUTS,       /* input files (or their absence) */
    DDB_RUN_F_OUT,          /* the output folder */
    DDB_RUN_F_FORMAT,       /* the output format */
    DDB_RUN_F_MAPPING,      /* the (source) mapping */
    DDB_RUN_F_TO_MAPPING,   /* the mapping to re-key into */
    DDB_RUN_F_ENTITY,       /* the entity of the input records */
    DDB_RUN_F_INPUT_FORMAT, /* the input format */
    DDB_RUN_F_TYPES,        /* types for untyped inputs */
    DDB_RUN_F_SCAN_TABLE,   /* the table to read */
    DDB_RUN_F_SEGMENTS,     /* scan segments and their range */
    DDB_RUN_F_TARGET_TABLE, /* the table to write */
    DDB_RUN_F_CREATE_TABLE, /* creating the target table */
    DDB_RUN_F_WAIT,         /* waiting for a table to become ACTIVE */
    DDB_RUN_F_STATE,        /* the state file */
    DDB_RUN_F_RESUME,       /* resuming from it */
    DDB_RUN_F_REJECTS,      /* the rejects file */
    DDB_RUN_F_UNMATCHED,    /* the unmatched file */
    DDB_RUN_F_OVERWRITE,    /* writing into a folder holding other files */
    DDB_RUN_F_SHARD,        /* the share of the inputs to read */
    DDB_RUN_F_S3,           /* reaching the s3:// inputs */
    DDB_RUN_F_GENERATE,     /* the records to make up: how many of each entity */
    DDB_RUN_F_VIA_EXPORT,   /* reading the table through DynamoDB's export to S3 */
    DDB_RUN_F_EXPORT_TIME,  /* the export's point in time or incremental window */
    DDB_RUN_F_VIA_IMPORT,   /* writing the table through DynamoDB's import from S3 */
    DDB_RUN_F_LSI,          /* an import from S3 cannot create local secondary indexes */
    DDB_RUN_F_OWN_FILES,    /* the run's own files would be an input, a mapping, each other */
    DDB_RUN_F_TABLE_SCHEMA, /* a table exists, but not as the mapping describes it */
    DDB_RUN_F_SELECT        /* --entities, --where, --sample */
} ddb_run_field;

typedef struct ddb_run_options {
    const char *command; /* "export", ... for the summary and the fingerprint */
    ddb_mode mode;
    const char *const *inputs; /* files, "-" or export folders; borrowed */
    size_t n_inputs;
    int scan_allowed; /* the command may read a table instead of files */
    int writes_table; /* the command writes a table (import, migrate), not files */
    int own_output;   /* the caller hands the plan its output (ddb_run_plan_set_output: one
                         side of a comparison, say): no files and no table are written */

    /* records made up from the mapping (generate.h) instead of read from inputs */
    int generate;
    const ddb_gen_count *gen_counts; /* how many of each entity (entity NULL: of every
                                        entity not named); borrowed */
    size_t n_gen_counts;
    uint64_t gen_seed;

    /* mappings and input records */
    const char *mapping_path;
    const char *to_mapping_path;
    ddb_reader_opts reader; /* format, delimiter, max_line, no_verify, entity */
    const char *types;      /* "age=N,tags=SS" for untyped inputs, or NULL */
    int skip_expired;       /* leave out items expired by Time to Live (ddb_item_expired) */
    const char *ttl_attribute; /* ... by this attribute; NULL: the scanned table's
                                  (DescribeTimeToLive) */
    unsigned shard, shards; /* read only share I of N of an export's data files or of an
                               S3 prefix's objects (0: everything) */
    const char *sse;        /* S3 outputs: server-side encryption (AES256, aws:kms) */
    const char *sse_kms_key_id;

    /* only the data asked for (select.h): NULL/0 for everything */
    const char *select_entities; /* "A,B" */
    const char *select_where;    /* "F=V,F^=P,F>=A,..." */
    const char *select_project;  /* "F1,F2": only these fields written (export) */
    uint64_t select_sample;      /* the first N records asked for */

    /* a table to read */
    const char *scan_table;
    int segments; /* 0: 4 */
    int has_range;
    int segment_first, segment_last;
    int consistent_read;
    uint64_t page_size;
    double max_rcu;

    /* files to write */
    const char *out_dir;  /* required by commands that write files */
    int out_stream;       /* out_dir "-" is allowed: the items as DynamoDB JSON lines on
                             standard output, for a pipe */
    int folder_unmatched; /* a folder of files given as an input also gives its _unmatched
                             files (the items its run matched to no entity) */
    int format_set;       /* 0: the command's own format */
    ddb_out_format format;
    int gzip;
    char out_delimiter;
    uint64_t max_columns; /* CSV without a mapping: most columns (0: DDB_CSV_MAX_COLUMNS) */
    int extra_plain;  /* undeclared attributes as plain JSON, not typed */
    int typed_values; /* without a mapping, NDJSON values as DynamoDB JSON */
    ddb_parquet_codec parquet_codec; /* format parquet: its pages' codec */
    int parquet_codec_set;           /* --compression given (only parquet takes it) */
    uint64_t parquet_group_rows;     /* format parquet: rows per row group (0: the default) */
    uint64_t max_file_bytes;         /* format parquet: parts of this size (output_file.h) */
    const char *partition_by;        /* export: Hive folders by this field (output_file.h) */
    const char *key_attrs; /* "pk,sk": Parquet items (no mapping): their key columns (NULL:
                              the key schema of the table read, if one is) */

    /* the table read through DynamoDB's export to S3 (managed.h) instead of a Scan:
     * ExportTableToPointInTime to s3://bucket/prefix/, then the export read */
    const char *via_export;
    int has_since; /* incremental export from since (to until, or the latest time) */
    double since;
    int has_until; /* with since: the window's end; without: a full export as of until */
    double until;
    const char *export_view; /* incremental: NEW_AND_OLD_IMAGES (NULL) or NEW_IMAGE */
    /* the table written through DynamoDB's import from S3: the items uploaded to
     * s3://bucket/prefix/ (DynamoDB JSON, gzip), then ImportTable creates the table */
    const char *via_import;

    /* a table to write; NULL: the one its mapping names */
    const char *target_table;
    /* The identity each table is reached with, when the two differ (migrate --to-profile...):
     * messages about that table start with it, e.g. "target (profile b, region us-west-2)".
     * NULL or "": messages name the table only, as with one identity. Read when the plan
     * attaches (the caller may fill them in after ddb_run_plan_new). */
    const char *source_side, *target_side;
    /* The identities the tables are reached with, when the two differ (the options that give
     * them, never a secret): part of the run's fingerprint, so --resume refuses to go on
     * with another account, region, endpoint or role. NULL: one identity, not recorded. */
    const char *identity;
    int create_table;
    int delete_all;
    ddb_write_mode write_mode; /* import: whole items in batches, only where absent, or an
                                  update of the attributes given (output_table.h) */
    int dry_run;
    double max_wcu;
    size_t shuffle_window; /* table writes shuffled within this many items (0: in order) */
    int max_attempts;
    int wait_active_s;          /* how long to wait for a table still being created */
    int ignore_schema_mismatch; /* a mapping that does not describe its table is only a
                                   warning, not an error */

    /* accounting and checkpoints */
    /* Side files, NULL for the default: OUT/_ddbpipe/rejects.ndjson and
     * unmatched.ndjson[.gz] beside file outputs; for a table, STATE.rejects.ndjson
     * beside the state file, else ddbpipe-runs/<table>-<time>/rejects.ndjson. */
    const char *rejects_path;
    const char *unmatched_path;
    int overwrite;            /* write into an output folder holding files ddbpipe did not write */
    const char *summary_path; /* where the caller writes the summary (ddb_run_plan_write_file):
                                 an s3:// one connects S3 */
    uint64_t report_limit;
    int allow_extra_columns; /* CSV columns no field has become undeclared attributes */
    int limit_rejects;       /* stop once more than max_rejects records were rejected */
    uint64_t max_rejects;
    const char *state_path;
    int resume;
    double checkpoint_seconds;
    int threads; /* 1: one thread; otherwise N threads compute ahead (pipeline.h) */
    /* the options a resumed run must repeat, as text for the fingerprint */
    const char *fingerprint_options;

    /* hooks (all may be NULL) */
    ddb_report_fn report;
    void *report_ctx;
    void (*note)(void *ctx, const char *msg); /* things worth saying that are not problems */
    void *note_ctx;
    ddb_table_wait_fn on_wait; /* while a table is being created */
    void *wait_ctx;
    ddb_job_wait_fn on_job; /* while DynamoDB's export or import runs */
    void *job_ctx;
    void (*progress)(void *ctx, const ddb_summary *live, const ddb_reader *reading);
    void *progress_ctx;
    volatile sig_atomic_t *stop;
} ddb_run_options;

typedef struct ddb_run_plan ddb_run_plan;

/*
 * Checks the options against each other, loads the mappings, parses the
 * types and, under a state file, loads it and checks that it records this
 * very run. Nothing is written. *out is owned by the caller
 * (ddb_run_plan_free). On failure *field names the option at fault. Returns 0,
 * DDB_EUSAGE, DDB_ENOMEM. A state file that records a finished run gives a
 * plan with nothing to do (ddb_run_plan_done).
 */
DDB_MUST_USE int ddb_run_plan_new(ddb_run_plan **out, const ddb_run_options *o,
                                  ddb_run_field *field, ddb_error *err);

/* The plan reads or writes a table or S3, so it needs a client. */
int ddb_run_plan_needs_client(const ddb_run_plan *p);

/* The table written is reached through its own client c (another identity than the client
 * ddb_run_plan_attach is given, which still reads the source); before ddb_run_plan_attach. c is
 * borrowed and must outlive the plan. NULL: the same client for both. */
void ddb_run_plan_set_target_client(ddb_run_plan *p, ddb_client *c);

/* The plan reads or writes s3:// paths. */
int ddb_run_plan_needs_s3(const ddb_run_plan *p);

/* Where S3 is (endpoint NULL: AWS) and the region of its buckets by default;
 * before ddb_run_plan_attach. Copied. Returns 0 or DDB_ENOMEM. */
int ddb_run_plan_set_s3(ddb_run_plan *p, const char *endpoint, const char *region);

/* Writes a small file (the summary) to path, local or s3://, atomically.
 * Returns 0 or an error naming it. */
DDB_MUST_USE int ddb_run_plan_write_file(ddb_run_plan *p, const char *path, const char *data,
                                         size_t len, ddb_error *err);

/* A resume of a run that already finished: nothing to do. */
int ddb_run_plan_done(const ddb_run_plan *p);

/*
 * For a plan with S3 paths: connects S3 through c and lists the prefixes
 * given as inputs (s3://bucket/prefix/ is every object under it, in key
 * order, or the export in it). For a plan with tables: waits for them to be ready (creating the
 * target first when asked), then opens the scan reader and the table writer (or the dry-run
 * output). c is borrowed and must outlive the plan. Returns 0, DDB_ENOTFOUND (a table does not
 * exist), DDB_EUSAGE, DDB_EINTR, DDB_ENET, DDB_ENOMEM; *field says which table.
 */
DDB_MUST_USE int ddb_run_plan_attach(ddb_run_plan *p, ddb_client *c, ddb_run_field *field,
                                     ddb_error *err);

/* Creates the file outputs, the rejects file and the unmatched file. Returns 0, DDB_EIO (a folder
 * or file cannot be made), DDB_EUSAGE, DDB_ENOMEM; *field says which. */
DDB_MUST_USE int ddb_run_plan_open(ddb_run_plan *p, ddb_run_field *field, ddb_error *err);

/* Where the summary of a run that wrote its files belongs
 * (OUT/_ddbpipe/summary.json, describing what the folder holds), malloc'd;
 * NULL for other runs and for runs whose files were not written. */
char *ddb_run_plan_summary_path(const ddb_run_plan *p);

/* Runs the pipeline; fills *s (release with ddb_summary_dispose), its outputs
 * included. Returns what ddb_pipeline_run returns. */
DDB_MUST_USE int ddb_run_plan_execute(ddb_run_plan *p, ddb_summary *s, ddb_error *err);

/* What the run did besides the counts, for the summary a person reads. */
typedef struct ddb_run_report {
    int table_io;           /* 0: no table; 1: a table written; 2: a table scanned */
    const char *scan_table; /* with its stats, when a table was scanned */
    ddb_scan_stats scan;
    int queried; /* the table was read with a Query (--where fixed a key), not a Scan */
    const char *target_table; /* with write or dry-run stats when one was written */
    int dry_run;
    ddb_table_write_stats writes;
    ddb_dry_run_stats dry;
    size_t target_indexes;  /* indexes on the target, for the dry-run estimate */
    /* DescribeTable of the tables read and written (NULL: none, or not yet
     * created), for the estimate: sizes, billing mode, capacity; the plan's */
    const ddb_table_info *source, *target;
    int target_planned;  /* target: the table --create-table would make (a dry run) */
    int consistent_read; /* the Scan read strongly consistent (twice the units) */
    int resumed_from_state; /* the run went on from a checkpoint */
    /* DynamoDB's export or import, when the run went through one (NULL otherwise;
     * owned by the plan) */
    const ddb_export_info *export_job;
    const char *export_folder;
    const ddb_import_info *import_job;
    double job_seconds;  /* waited for the job */
    int job_interrupted; /* the wait was interrupted: the job goes on in AWS */
    uint64_t uploaded;   /* import: items uploaded for ImportTable */
} ddb_run_report;

void ddb_run_plan_report(const ddb_run_plan *p, ddb_run_report *out);

/* For live progress: the table writer (or NULL), the scan reader (or NULL),
 * and the size of the input files (0 when unknown). */
const ddb_output *ddb_run_plan_table_output(const ddb_run_plan *p);
const ddb_reader *ddb_run_plan_scan(const ddb_run_plan *p);
uint64_t ddb_run_plan_input_bytes(const ddb_run_plan *p);

/* The (source) mapping, once planned; NULL without one. Owned by the plan. */
const ddb_mapping *ddb_run_plan_mapping(const ddb_run_plan *p);

/* The table read, as DescribeTable gave it once attached; NULL otherwise. */
const ddb_table_info *ddb_run_plan_scanned_table(const ddb_run_plan *p);

/* The generator of a plan that makes records up; NULL otherwise. */
const ddb_generator *ddb_run_plan_generator(const ddb_run_plan *p);

/* Gives a plan made with own_output its output, borrowed: it must outlive
 * the plan and is not freed with it. Call before ddb_run_plan_open. */
void ddb_run_plan_set_output(ddb_run_plan *p, ddb_output *o);

/* Frees the plan, its mappings, readers and outputs. Accepts NULL. */
void ddb_run_plan_free(ddb_run_plan *p);

#endif
