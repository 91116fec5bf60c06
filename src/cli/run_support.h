/*
 * run_support.h — what the pipeline commands (cmd_run.c) build on: their
 * options, exit status and summaries, and the flag SIGINT/SIGTERM set.
 */
#ifndef DDBPIPE_RUN_SUPPORT_H
#define DDBPIPE_RUN_SUPPORT_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "ddbpipe/buf.h"
#include "ddbpipe/pipeline.h"

typedef struct run_args {
    const char *out, *mapping, *to_mapping, *format, *input_format, *entity, *rejects, *summary;
    const char *unmatched;
    const char *types, *table, *to_table, *segment_range, *extra, *columns, *input_table;
    const char *shard, *sse, *sse_kms_key_id; /* S3 */
    char delimiter, out_delimiter;
    uint64_t max_rejects, max_line, segments, page_size;
    int overwrite;
    int gzip, no_verify, quiet, consistent_read, create_table, delete_all, dry_run, resume;
    int typed, allow_short_rows, allow_long_rows;
    int ignore_schema_mismatch, allow_extra_columns;
    const char *state, *progress;
    uint64_t checkpoint_interval, progress_interval, max_wcu, max_rcu, wait_active;
    cli_aws_args aws;
} run_args;

typedef struct run_spec {
    const char *name;
    ddb_mode mode;
    unsigned groups;
} run_spec;

/* Writes the JSON summary (--summary) to path atomically. Returns 0, or
 * EXIT_OUTPUT after printing the problem. */
int cli_write_summary_file(const char *path, const ddb_summary *s, int code);

/* The exit status of a run from its summary, the pipeline's return code rc
 * and table_io (0 none, 1 a table written, 2 a table scanned). */
int cli_exit_code(const ddb_summary *s, uint64_t max_rejects, int rc, int table_io);

/* Prints the summary of a run to stderr; extra (may be NULL) is appended
 * before the list of files written. */
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
 * signal ends the process the default way), and SIGPIPE's, which stops the
 * run the same way and marks the pipe broken. */
void cli_catch_stop_signals(void);

/* An output pipe (standard output or error) was closed by its reader. */
int cli_pipe_broken(void);

/* The flag the stop signals set, for the pipeline and the client to poll.
 * Never NULL; lives as long as the process. */
volatile sig_atomic_t *cli_stop_flag(void);

#endif
