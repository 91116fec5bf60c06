/*
 * diff_cli.h (private header of cli/) — what diff and sync share on the
 * command line: the two sides as it names them, the engine's hooks that
 * print and decide the exit status while the sides are read, and the report
 * of the sides. sync is diff's run acting on its verdicts (sync.h), so the
 * two read their sides the same way.
 */
#ifndef DDBPIPE_CLI_DIFF_CLI_H
#define DDBPIPE_CLI_DIFF_CLI_H

#include "cli.h"
#include "ddbpipe/diff.h"
#include "progress.h"
#include "run_support.h"

/* A side as the command line names it: a table or input paths. */
typedef struct diff_side {
    const char *table;   /* or NULL: files */
    const char **inputs; /* into the command line's inputs */
    size_t n_inputs;
    char label[300];
} diff_side;

/* What the engine's hooks print with, and the exit status they decide. */
typedef struct diff_cli {
    const run_args *a;
    const cli_command *cmd;
    const run_spec *spec;
    cli_conn conn;
    cli_conn to_conn; /* side B's own identity (--to-profile...), when given */
    cli_table_wait waiting;
    cli_progress progress;
    int code; /* the exit status of a refused connection, else of the last side read */
    diff_side sides[2];
} diff_cli;

/* Which side reads what: --table is A, --to-table is B, and input paths
 * fill the side without a table (two paths, A then B, when neither is one).
 * hint is the command's usage. Returns 0 or EXIT_USAGE after printing why. */
int diff_cli_sides(diff_side *sides, const run_args *a, const char **pos, size_t npos,
                   const char *hint);

/* The options both commands check alike (--to-mapping, --sample) into o.
 * Returns 0 or EXIT_USAGE after printing why. */
int diff_cli_check(ddb_diff_run_options *o, const run_args *a);

/* The rest of the engine's options from the command line: each side's run,
 * the comparison's, and the hooks into c (c->a, c->spec, c->sides set).
 * Returns 0 or an exit status after printing the problem. */
int diff_cli_fill(ddb_diff_run_options *o, diff_cli *c);

/* Says why a run stopped at r->step (unless a hook already did); returns
 * the exit status. */
int diff_cli_stopped(const diff_cli *c, const ddb_diff_outcome *r, int rc, const ddb_error *err);

/* The exit status of a comparison that ran: 1 when the sides differ, 7
 * when nothing differs but a side rejected records, else 0. */
int diff_cli_verdict(const ddb_diff_outcome *r, int differ);

/* The summary's "a" and "b" members (each with a leading comma). */
void diff_cli_sides_json(ddb_buf *b, const ddb_diff_outcome *r, const diff_side *sides);

/* The report's lines after the counts: each side, the splits, the files,
 * and why exit status 7 (code) proves nothing. */
void diff_cli_sides_report(ddb_buf *b, const ddb_diff_outcome *r, const diff_side *sides, int code);

#endif
