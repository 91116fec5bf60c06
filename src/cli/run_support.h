/*
 * run_support.h (private header of cli/) — what the pipeline commands (cmd_run.c, and generate and
 * diff, which run the same plans) build on: their options (run_options.c),
 * exit status and summaries, and the flag SIGINT/SIGTERM set.
 */
#ifndef DDBPIPE_RUN_SUPPORT_H
#define DDBPIPE_RUN_SUPPORT_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "ddbpipe/buf.h"
#include "ddbpipe/live.h"
#include "ddbpipe/pipeline.h"
#include "ddbpipe/run.h"
#include "progress.h"

/* Option groups: each command accepts the groups it has a use for. */
enum {
    G_OUT = 1 << 0,     /* file outputs */
    G_MAP = 1 << 1,     /* --mapping */
    G_TOMAP = 1 << 2,   /* --to-mapping */
    G_ENTITY = 1 << 3,  /* --entity */
    G_IN = 1 << 4,      /* file input options */
    G_SCAN = 1 << 5,    /* a table as the source: --table + scan options */
    G_IMPORT = 1 << 6,  /* a table as the target of import: --table, --create-table, --delete */
    G_MIGRATE = 1 << 7, /* migrate's --to-table, --create-table */
    G_AWS = 1 << 8,
    G_DRY = 1 << 9,
    G_COMMON = 1 << 10,  /* max-rejects, summary, quiet, progress */
    G_STATE = 1 << 11,   /* --state, --resume */
    G_RECORDS = 1 << 12, /* writes records (export): any output format */
    G_ITEMS = 1 << 13,   /* writes items to files (convert, encode): DynamoDB JSON */
    G_SIDE = 1 << 14,    /* --rejects, --unmatched: where records not written go */
    G_GEN = 1 << 15,     /* generate: --count, --seed, records made up instead of inputs */
    G_DIFF = 1 << 16,    /* diff: two sides (--table, --to-table, --to-mapping), scan options */
    G_VIAEXP = 1 << 17,  /* export: the table read through DynamoDB's export to S3 */
    G_VIAIMP = 1 << 18,  /* import: the table written through DynamoDB's import from S3 */
    G_SYNC = 1 << 19,    /* sync: what it writes to its target (--no-delete, --max-wcu) */
    G_SAMPLE = 1 << 20,  /* diff: --sample (sync compares every key) */
    G_SELECT = 1 << 21   /* --entities, --where, --sample: only the records asked for */
};

typedef struct run_args {
    const char *out, *mapping, *to_mapping, *format, *input_format, *entity, *rejects, *summary;
    const char *unmatched, *types_file;
    const char *types, *table, *to_table, *segment_range, *extra, *columns, *input_table;
    const char *compression; /* --compression: Parquet's codec */
    const char *partition_by; /* --partition-by FIELD: Hive folders */
    const char *max_file_size; /* --max-file-size SIZE: Parquet parts */
    const char *shard, *sse, *sse_kms_key_id; /* S3 */
    const char *via_export, *since, *until, *export_view, *export_format, *via_import;
    char delimiter, out_delimiter;
    uint64_t max_rejects, max_line, segments, page_size, max_columns;
    uint64_t row_group_rows; /* --row-group-rows: Parquet */
    int overwrite;
    int gzip, no_verify, quiet, consistent_read, create_table, delete_all, dry_run, resume;
    int update, if_not_exists, no_delete;
    int no_shuffle;          /* --no-shuffle: table writes in input order */
    uint64_t shuffle_window; /* --shuffle-window N (0: DDB_SHUFFLE_WINDOW) */
    const char *prices;      /* --prices FILE: the dry run's price table */
    int typed, allow_short_rows, allow_long_rows;
    int ignore_schema_mismatch, allow_extra_columns;
    int skip_expired;
    const char *ttl_attribute;
    const char *state, *progress;
    uint64_t checkpoint_interval, progress_interval, max_wcu, max_rcu, wait_active, threads;
    cli_aws_args aws;
    const char *count; /* generate */
    uint64_t seed;
    const char *key, *sample; /* diff; sample also --sample N of G_SELECT */
    const char *entities, *where, *project;
    uint64_t max_memory;
    int live;                /* migrate --live: replay and follow the source's stream */
    uint64_t stop_when_idle; /* --live: seconds without a change before stopping (0: never) */
} run_args;

typedef struct run_spec {
    const char *name;
    ddb_mode mode;
    unsigned groups;
} run_spec;

/* The options of a command (its groups) into out (room for 64), pointing
 * into *a, ending with a zeroed entry. */
void cli_run_declare_options(cli_opt *out, run_args *a, unsigned groups);

/* Parses the command line into *a (its defaults set first) and the inputs
 * (*inputs freed by the caller), prints --help, and refuses a bad --progress
 * or a URL where a local path belongs. Returns 0 (with *help set when help
 * was printed) or an exit status. */
int cli_run_parse(const cli_command *cmd, unsigned groups, int argc, char **argv, run_args *a,
                  const char ***inputs, size_t *n_inputs, int *help);

/* The options the engine knows nothing of (flags, strings to parse) into o.
 * Returns 0 or EXIT_USAGE after saying what is wrong. */
/* A table run's dry-run estimate (cost_cli.c): the table for the summary
 * appended to b, its JSON member into *json (malloc'd); prices of region.
 * Returns 0, or EXIT_USAGE when --prices cannot be read (said). */
int cli_cost_estimate(ddb_buf *b, char **json, const ddb_run_report *rr, const ddb_summary *s,
                      const run_args *a, const char *region);

/* A sync's dry-run estimate of its writes d into table (n_indexes indexes,
 * -1: unknown; prov_wcu its provisioned WCU, 0: on-demand), as
 * cli_cost_estimate. */
int cli_cost_sync_estimate(ddb_buf *b, char **json, const ddb_dry_run_stats *d, const char *table,
                           long n_indexes, uint64_t prov_wcu, const run_args *a,
                           const char *region);

/* export --table --dry-run: the Scan's estimate from t's DescribeTable
 * (ItemCount, TableSizeBytes), printed, and written to --summary. Returns
 * the exit status. */
int cli_cost_export_estimate(const ddb_table_info *t, const run_args *a, const char *region);

/* The capacity a table run consumed, as a JSON member (malloc'd; NULL on OOM). */
char *cli_cost_consumed_json(const ddb_run_report *rr);

/* The shuffle window --no-shuffle and --shuffle-window ask for. */
size_t cli_shuffle_window(const run_args *a);

int cli_fill_run_options(ddb_run_options *o, const run_spec *spec, const run_args *a,
                         const char **inputs, size_t n_inputs);

/* The plan's hooks into the command line: notes, waiting for tables, live
 * progress (progress set up by cli_start_progress before the run). */
void cli_run_hooks(ddb_run_options *ro, const run_args *a, cli_table_wait *waiting,
                   cli_progress *progress);

/* Prints a planning problem with the flag behind it and what to do. */
void cli_run_problem(ddb_run_field f, const run_spec *spec, const cli_command *cmd,
                     const run_args *a, const char *message);

/* The same for a failure to open the plan's files. */
void cli_open_problem(ddb_run_field f, const run_spec *spec, const cli_command *cmd,
                      const run_args *a, const char *message);

/* Exit status for a failure to attach the plan's tables. */
int cli_attach_exit(int rc, ddb_run_field f);

/* Live progress from the plan's parts (the plan calls cli_progress_update). */
void cli_start_progress(cli_progress *pr, const run_args *a, ddb_run_plan *plan,
                        ddb_client *client);

/* The managed paths (managed.c): their options for the command's groups,
 * written to out; returns how many. */
size_t cli_managed_options(cli_opt *out, run_args *ap, unsigned groups);

/* An option and the commands' groups (G_*) it belongs to. */
typedef struct grouped_opt {
    unsigned groups;
    cli_opt opt;
} grouped_opt;

/* The entries of all (n) that belong to one of groups into out, in their
 * order; returns how many. */
size_t cli_pick_options(cli_opt *out, const grouped_opt *all, size_t n, unsigned groups);

/* The managed paths (managed.c): the options of --via-export and
 * --via-import into o; returns 0 or EXIT_USAGE after saying what is wrong. */
int cli_fill_managed_options(ddb_run_options *o, const run_args *a);

/* While DynamoDB's export or import runs (ddb_job_wait_fn): a line at once,
 * at every change of status and every 30 s. ctx is a cli_job_wait. */
typedef struct cli_job_wait {
    int quiet;
    double last_said; /* < 0: never */
    char last_status[32];
} cli_job_wait;
void cli_job_waiting(void *ctx, const ddb_job_progress *p);

/* The hint of a managed path's planning problem, or NULL. */
const char *cli_managed_hint(ddb_run_field f, const run_args *a);

/* The summary's lines about the export or import. */
void cli_managed_summary(ddb_buf *b, const ddb_run_report *rr, const ddb_summary *s,
                         const run_args *a);

/* An export waited for and interrupted: where it will be, and how to read it
 * later (after the engine's message). */
void cli_managed_interrupted(const ddb_run_report *rr, const run_args *a);

/* generate (cmd_generate.c): --count "Tag=100,FavoriteData=1k" or a bare N
 * (for every entity not named) as a list by name; *names holds the names
 * the list points into. Both freed by the caller. Returns 0 or EXIT_USAGE
 * after printing the problem. */
int cli_parse_counts(const char *spec, ddb_gen_count **list, size_t *n, char **names);

/* Prints what the generator is about to make (unless --quiet). */
void cli_describe_generator(const ddb_generator *g, uint64_t seed);

/* Writes len bytes of text to path atomically. Returns 0, or EXIT_OUTPUT
 * after printing "cannot write the <what>: ...". */
int cli_write_file(const char *path, const char *text, size_t len, const char *what);

/* Writes the JSON summary (--summary) to path atomically. Returns 0, or
 * EXIT_OUTPUT after printing the problem. */
int cli_write_summary_file(const char *path, const ddb_summary *s, int code);

/* The exit status of a run from its summary, the pipeline's return code rc
 * and table_io (0 none, 1 a table written, 2 a table scanned). */
int cli_exit_code(const ddb_summary *s, uint64_t max_rejects, int rc, int table_io);

/* Prints the summary of a run to stderr; extra (may be NULL) is appended
 * before the list of files written. max_rejects is --max-rejects as given,
 * UINT64_MAX when it was not. */
void cli_print_summary(const char *cmd, const ddb_summary *s, int code, uint64_t max_rejects,
                       const char *extra, int quiet);

/* A URL (any scheme://) given where a local path belongs is refused, so it
 * never becomes a folder named "s3:"; with s3_ok, s3://bucket/key is a path
 * ddbpipe writes to. Returns 0, or EXIT_USAGE after printing the problem. */
int cli_refuse_url(const char *opt, const char *value, int s3_ok);

/* Parses a --segment-range "A-B" (0 <= A <= B). Returns 0, or -1 when it is
 * malformed (*first and *last untouched). */
int cli_parse_range(const char *s, int *first, int *last);

/* Installs the SIGINT/SIGTERM handlers that set the stop flag (a second
 * signal ends the process the default way), and SIGPIPE's (as
 * cli_catch_broken_pipe, keeping what it was told of standard output). */
void cli_catch_stop_signals(void);

/* Installs the SIGPIPE handler: when data_out (standard output carries the
 * run's data) and standard output's reader went away, it stops the run as
 * an interrupt does and marks the pipe broken; any other closed pipe (the
 * messages on standard error, a standard output with no data) stops
 * nothing, its writes just fail. Call it before anything is written. */
void cli_catch_broken_pipe(int data_out);

/* The data output on standard output was closed by its reader. */
int cli_pipe_broken(void);

/* The flag the stop signals set, for the pipeline and the client to poll.
 * Never NULL; lives as long as the process. */
volatile sig_atomic_t *cli_stop_flag(void);

/* migrate --live (cmd_live.c): the engine's live migration and what it borrows. */
typedef struct cli_live {
    ddb_live *live;
    ddb_mapping *mapping, *to_mapping;
    char endpoint[512]; /* the Streams endpoint */
} cli_live;

/* --live and --stop-when-idle against the other options. Returns 0, or
 * EXIT_USAGE after printing the problem. */
int cli_live_check(const run_args *a);

/* Before the copy: the stream checked and its position taken (or loaded
 * with --resume). to_conn: the target's own identity, or one without a client (the
 * target is reached through conn). Returns 0 or the exit status after printing the problem;
 * cli_live_dispose either way. */
int cli_live_prepare(cli_live *lv, const run_args *a, cli_conn *conn, cli_conn *to_conn);

/* After the copy: replays and follows the stream; prints its summary.
 * Returns the exit status. */
int cli_live_run(cli_live *lv, const run_args *a);

void cli_live_dispose(cli_live *lv);

#endif
