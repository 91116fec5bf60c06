/*
 * run_support.h — what the pipeline commands (cmd_run.c) build on: their
 * options, the fingerprint --resume checks, exit status and summaries, and
 * the flag SIGINT/SIGTERM set.
 */
#ifndef DDBPIPE_RUN_SUPPORT_H
#define DDBPIPE_RUN_SUPPORT_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "ddbpipe/buf.h"
#include "ddbpipe/pipeline.h"

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
    G_COMMON = 1 << 10, /* rejects, summary, quiet, progress */
    G_STATE = 1 << 11,  /* --state, --resume */
    G_GEN = 1 << 12,    /* generate: --count, --seed, records made up instead of inputs */
    G_DIFF = 1 << 13    /* diff: two sides (--table, --to-table, --to-mapping), scan options */
};

typedef struct run_args {
    const char *out, *mapping, *to_mapping, *format, *input_format, *entity, *rejects, *summary;
    const char *types, *table, *to_table, *segment_range;
    char delimiter, out_delimiter;
    uint64_t max_rejects, max_line, segments, page_size;
    int gzip, no_verify, quiet, consistent_read, create_table, delete_all, dry_run, resume;
    const char *state, *progress;
    uint64_t checkpoint_interval, progress_interval, max_wcu, max_rcu;
    cli_aws_args aws;
    const char *count; /* generate */
    uint64_t seed;
    const char *key, *sample; /* diff */
    uint64_t max_memory;
} run_args;

typedef struct run_spec {
    const char *name;
    ddb_mode mode;
    unsigned groups;
} run_spec;

/* Appends to b the JSON fingerprint of a run: the inputs (with sizes and
 * times), the mappings' SHA-256 and every option that changes what is
 * written. Returns 0, or -1 when b ran out of memory. */
int cli_build_fingerprint(ddb_buf *b, const run_spec *spec, const run_args *a,
                          const char *const *inputs, size_t n_inputs);

/* Writes len bytes of text to path atomically. Returns 0, or EXIT_OUTPUT
 * after printing "cannot write the <what>: ...". */
int cli_write_file(const char *path, const char *text, size_t len, const char *what);

/* Checks the values of --progress and --input-format. Returns 0, or
 * EXIT_USAGE after printing the problem. */
int cli_check_run_args(const run_args *a);

/* Writes the JSON summary (--summary) to path atomically. Returns 0, or
 * EXIT_OUTPUT after printing the problem. */
int cli_write_summary_file(const char *path, const ddb_summary *s, int code);

/* The exit status of a run from its summary, the pipeline's return code rc
 * and table_io (0 none, 1 a table written, 2 a table scanned). */
int cli_exit_code(const ddb_summary *s, uint64_t max_rejects, int rc, int table_io);

/* Prints the summary of a run to stderr; extra (may be NULL) is appended
 * before the list of files written. */
void cli_print_summary(const char *cmd, const ddb_summary *s, int code, uint64_t max_rejects,
                       const char *extra);

/* The options of the groups (cmd_run.c), pointing into *a; out has room
 * for 64 and ends with an empty entry. Returns how many. */
size_t cli_run_options(cli_opt *out, run_args *a, unsigned groups);

/* DescribeTable, then a parallel Scan reader over the table with the scan
 * options of *a (its expected_items from the description). Returns 0 or an
 * exit code after printing the problem. */
struct ddb_table_info;
int cli_open_scan(ddb_reader **scan, struct ddb_table_info **info, ddb_client *client,
                  const char *table, const run_args *a);

/* Loads a mapping, printing the problem (naming --opt) on failure. Returns
 * 0 or EXIT_USAGE. */
int cli_load_mapping(const char *path, const char *opt, ddb_mapping **out);

/* generate: the generator of --count and --seed over mapping m, and the
 * reader over it (the plan is printed unless --quiet). Returns 0 or an exit
 * code after printing the problem. */
struct ddb_generator;
int cli_generator_open(struct ddb_generator **gen, ddb_reader **reader, const ddb_mapping *m,
                       const run_args *a);

/* Parses a --segment-range "A-B" (0 <= A <= B). Returns 0, or -1 when it is
 * malformed (*first and *last untouched). */
int cli_parse_range(const char *s, int *first, int *last);

/* Installs the SIGINT/SIGTERM handlers that set the stop flag; a second
 * signal ends the process the default way. */
void cli_catch_stop_signals(void);

/* The flag the stop signals set, for the pipeline and the client to poll.
 * Never NULL; lives as long as the process. */
volatile sig_atomic_t *cli_stop_flag(void);

#endif
