/*
 * diff: two sides (a table, files, an export folder), each read by a run
 * plan (run.h) in import mode into the diff's bucket output, then compared.
 * The engine (ddb_diff_run, diff.h) does the work; here are the sides as the
 * command line names them, the messages and progress through its hooks, the
 * report and the exit status: 0 only when the sides hold the same records.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ddbpipe/diff.h"
#include "ddbpipe/json.h"
#include "ddbpipe/run.h"
#include "progress.h"
#include "run_support.h"

static const run_spec diff_spec = {"diff", DDB_MODE_IMPORT,
                                   G_MAP | G_IN | G_DIFF | G_AWS | G_COMMON};

/* A side as the command line names it: a table or input paths. */
typedef struct side {
    const char *table;   /* or NULL: files */
    const char **inputs; /* into the command line's inputs */
    size_t n_inputs;
    char label[300];
} side;

/* What the engine's hooks print with, and the exit status they decide. */
typedef struct diff_cli {
    const run_args *a;
    const cli_command *cmd;
    cli_conn conn;
    cli_table_wait waiting;
    cli_progress progress;
    int code;       /* the exit status of a refused connection, else of the last side read */
    side sides[2];
} diff_cli;

/* "10%" or "0.1" -> 0.1. Returns 0 or -1. */
static int parse_share(const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s)
        return -1;
    if (*end == '%') {
        v /= 100;
        end++;
    }
    if (*end != '\0' || !(v > 0 && v <= 1))
        return -1;
    *out = v;
    return 0;
}

/* hooks.connect: once a side reads a table. */
static int connect_hook(void *ctx, ddb_client **client)
{
    diff_cli *c = ctx;
    if ((c->code = cli_connect(&c->conn, &c->a->aws)) != 0)
        return DDB_ERROR;
    cli_catch_stop_signals();
    *client = c->conn.client;
    return 0;
}

/* hooks.reading: live progress while a side is read. */
static void reading_hook(void *ctx, int s, ddb_run_plan *plan, ddb_client *client)
{
    diff_cli *c = ctx;
    (void)s;
    cli_start_progress(&c->progress, c->a, plan, client);
}

/* hooks.read: the side's exit status. A side read to its end is compared
 * even with rejects (exit 1); anything else worse stops the run. */
static int read_hook(void *ctx, int index, ddb_run_plan *plan, int rc, const ddb_summary *s,
                     const ddb_error *err)
{
    diff_cli *c = ctx;
    ddb_run_report rr;
    (void)index;
    cli_progress_end(&c->progress);
    if (c->conn.client)
        ddb_client_set_idle(c->conn.client, NULL, NULL);
    if (rc != 0 && rc != DDB_EINTR)
        cli_error(NULL, "%s", err->message);
    ddb_run_plan_report(plan, &rr);
    c->code = cli_exit_code(s, c->a->max_rejects == UINT64_MAX ? 0 : c->a->max_rejects, rc,
                            rr.table_io);
    return c->code == EXIT_OK || c->code == EXIT_REJECTS ? 0 : DDB_ERROR;
}

static void side_json(ddb_buf *b, const char *name, const char *label, const ddb_summary *s,
                      const ddb_diff_stats *st, int index)
{
    ddb_buf_printf(b, ",\"%s\":{\"source\":", name);
    ddb_json_put_string(b, label, strlen(label));
    ddb_buf_printf(b,
                   ",\"read\":%llu,\"rejected\":%llu,\"input_errors\":%llu,\"compared\":%llu,"
                   "\"left_out\":%llu,\"seconds\":%.3f}",
                   (unsigned long long)s->total.read, (unsigned long long)s->total.rejected,
                   (unsigned long long)s->input_errors, (unsigned long long)st->kept[index],
                   (unsigned long long)st->skipped[index], s->seconds);
}

static int write_summary(const char *path, const ddb_diff_outcome *r, const side *sides, int code)
{
    const ddb_diff_stats *st = ddb_diff_get_stats(r->diff);
    ddb_buf b = DDB_BUF_INIT;
    int rc;
    ddb_buf_puts(&b, "{\"command\":\"diff\",");
    ddb_diff_stats_json(&b, r->diff);
    side_json(&b, "a", sides[0].label, &r->s[0], st, 0);
    side_json(&b, "b", sides[1].label, &r->s[1], st, 1);
    ddb_buf_puts(&b, ",\"differences_file\":");
    ddb_json_put_string(&b, r->differences, strlen(r->differences));
    ddb_buf_printf(&b, ",\"exit_code\":%d}\n", code);
    rc = b.oom ? (cli_error(NULL, "out of memory"), EXIT_OUTPUT)
               : cli_write_file(path, b.ptr, b.len, "summary");
    ddb_buf_dispose(&b);
    return rc;
}

static void print_report(const ddb_diff_outcome *r, const side *sides, int code)
{
    const ddb_diff_stats *st = ddb_diff_get_stats(r->diff);
    ddb_buf b = DDB_BUF_INIT;
    ddb_buf_printf(&b,
                   "ddbpipe diff: %s: %llu equal, %llu different, %llu only in A, %llu "
                   "only in B\n",
                   code == EXIT_OK         ? "the same"
                   : code == EXIT_UNPROVEN ? "not proven equal (no difference found)"
                                           : "NOT the same",
                   (unsigned long long)st->total.equal, (unsigned long long)st->total.different,
                   (unsigned long long)st->total.only_a, (unsigned long long)st->total.only_b);
    ddb_diff_stats_format(&b, r->diff);
    for (int s = 0; s < 2; s++)
        ddb_buf_printf(&b, "  %c: %s: %llu read, %llu rejected, %llu compared%s (%.2f s)\n",
                       s ? 'B' : 'A', sides[s].label, (unsigned long long)r->s[s].total.read,
                       (unsigned long long)r->s[s].total.rejected,
                       (unsigned long long)st->kept[s], st->skipped[s] ? " (a sample)" : "",
                       r->s[s].seconds);
    if (st->levels > 1)
        ddb_buf_printf(&b, "  buckets were split %u level%s deep to fit in memory\n",
                       st->levels - 1, st->levels == 2 ? "" : "s");
    ddb_buf_printf(&b, "  differences: %s\n", r->differences);
    for (int s = 0; s < 2; s++)
        if (r->s[s].total.rejected > 0)
            ddb_buf_printf(&b, "  rejects of %c: %s\n", s ? 'B' : 'A', r->rejects[s]);
    if (code == EXIT_UNPROVEN)
        ddb_buf_printf(&b,
                       "  exit %d: %llu record%s rejected (A %llu, B %llu) were not compared: "
                       "the sides may still differ there\n",
                       code, (unsigned long long)(r->s[0].total.rejected + r->s[1].total.rejected),
                       r->s[0].total.rejected + r->s[1].total.rejected == 1 ? "" : "s",
                       (unsigned long long)r->s[0].total.rejected,
                       (unsigned long long)r->s[1].total.rejected);
    fputs(b.ptr, stderr);
    ddb_buf_dispose(&b);
}

/* Which side reads what: --table is A, --to-table is B, and input paths
 * fill the side without a table (two paths, A then B, when neither is one). */
static int assign_sides(side *sides, const run_args *a, const char **pos, size_t npos)
{
    const char *hint = "ddbpipe diff (A | --table T) (B | --to-table T2); see --help";
    size_t k = 0;
    sides[0].table = a->table;
    sides[1].table = a->to_table;
    if (!a->table && !a->to_table && npos != 2) {
        cli_error(hint, "give two inputs to compare (a file or folder each), or --table and "
                        "--to-table");
        return EXIT_USAGE;
    }
    if (a->table && a->to_table && npos > 0) {
        cli_error(hint, "with --table and --to-table, give no input files");
        return EXIT_USAGE;
    }
    if ((a->table != NULL) != (a->to_table != NULL) && npos == 0) {
        cli_error(hint, "give the files to compare with the table");
        return EXIT_USAGE;
    }
    for (int s = 0; s < 2; s++) {
        side *sd = &sides[s];
        if (sd->table) {
            snprintf(sd->label, sizeof(sd->label), "table %s", sd->table);
            continue;
        }
        sd->inputs = pos + k;
        sd->n_inputs = (!a->table && !a->to_table) ? 1 : npos;
        k += sd->n_inputs;
        snprintf(sd->label, sizeof(sd->label), "%s", sd->inputs[0]);
        if (sd->n_inputs > 1)
            snprintf(sd->label + strlen(sd->label), sizeof(sd->label) - strlen(sd->label),
                     " (and %zu more)", sd->n_inputs - 1);
    }
    return 0;
}

/* The rest of the engine's options from the command line: each side's run
 * (its input or table, its mapping), the comparison's, and the hooks into
 * c. Returns 0 or an exit status after printing the problem. */
static int fill_options(ddb_diff_run_options *o, diff_cli *c, const run_args *a)
{
    int code;
    for (int s = 0; s < 2; s++) {
        ddb_run_options *ro = &o->side[s];
        const side *sd = &c->sides[s];
        if ((code = cli_fill_run_options(ro, &diff_spec, a, sd->inputs, sd->n_inputs)) != 0)
            return code;
        ro->scan_table = sd->table;
        ro->mapping_path = s == 0 || a->to_mapping == NULL ? a->mapping : a->to_mapping;
        cli_run_hooks(ro, a, &c->waiting, &c->progress);
    }
    o->out_dir = a->out;
    o->key = a->key;
    o->diff.max_memory = (size_t)a->max_memory << 20;
    o->hooks.ctx = c;
    o->hooks.connect = connect_hook;
    o->hooks.reading = reading_hook;
    o->hooks.read = read_hook;
    return 0;
}

/* Says why a run stopped at r->step (unless a hook already did); returns
 * the exit status. */
static int stopped(const diff_cli *c, const ddb_diff_outcome *r, int rc, const ddb_error *err)
{
    switch (r->step) {
    case DDB_DIFF_PLAN:
        cli_run_problem(r->field, &diff_spec, c->cmd, c->a, err->message);
        return rc == DDB_ENOMEM ? EXIT_OUTPUT : EXIT_USAGE;
    case DDB_DIFF_CONNECT:
    case DDB_DIFF_READ:
        return c->code;
    case DDB_DIFF_ATTACH:
        cli_run_problem(r->field, &diff_spec, c->cmd, c->a, err->message);
        return cli_attach_exit(rc, r->field);
    case DDB_DIFF_KEY:
        cli_error(rc == DDB_EUSAGE ? "e.g. --key pk,sk, or --mapping FILE" : NULL, "%s",
                  err->message);
        return rc == DDB_EUSAGE ? EXIT_USAGE : EXIT_OUTPUT;
    case DDB_DIFF_OPEN:
        cli_open_problem(r->field, &diff_spec, c->cmd, c->a, err->message);
        return rc == DDB_EUSAGE ? EXIT_USAGE : EXIT_OUTPUT;
    default: /* SETUP, COMPARE */
        cli_error(NULL, "%s", err->message);
        return rc == DDB_EUSAGE ? EXIT_USAGE : EXIT_OUTPUT;
    }
}

int cmd_diff(int argc, char **argv)
{
    diff_cli c;
    run_args a;
    const char **pos = NULL;
    size_t npos = 0;
    int help = 0, code, rc;
    ddb_diff_run_options o;
    ddb_diff_outcome r;
    ddb_error err;

    memset(&c, 0, sizeof(c));
    memset(&r, 0, sizeof(r));
    memset(&o, 0, sizeof(o));
    c.a = &a;
    c.cmd = cli_find_command("diff");
    if ((code = cli_run_parse(c.cmd, diff_spec.groups, argc, argv, &a, &pos, &npos, &help)) != 0 ||
        help)
        goto done;
    /* its data goes to files: a closed pipe carries messages only */
    cli_catch_broken_pipe(0);
    code = EXIT_USAGE;
    if (a.to_mapping && !a.mapping) {
        cli_error("--mapping is side A's (and B's, unless --to-mapping differs)",
                  "--to-mapping needs --mapping");
        goto done;
    }
    if (a.sample && parse_share(a.sample, &o.diff.sample) != 0) {
        cli_error("e.g. --sample 10% or --sample 0.1", "bad --sample \"%s\"", a.sample);
        goto done;
    }
    if ((code = assign_sides(c.sides, &a, pos, npos)) != 0 || (code = fill_options(&o, &c, &a)) != 0)
        goto done;
    if ((rc = ddb_diff_run(&r, &o, &err)) != 0) {
        code = stopped(&c, &r, rc, &err);
        goto done;
    }
    {
        /* both sides' rejects (the hook's status is the last side's only): a
         * record not compared may differ, so no difference found proves nothing */
        const ddb_diff_stats *st = ddb_diff_get_stats(r.diff);
        int same = st->total.different + st->total.only_a + st->total.only_b == 0;
        uint64_t rejected = r.s[0].total.rejected + r.s[1].total.rejected;
        code = !same ? EXIT_REJECTS : rejected > 0 ? EXIT_UNPROVEN : EXIT_OK;
    }
    print_report(&r, c.sides, code);
    if (a.summary && write_summary(a.summary, &r, c.sides, code) != 0)
        code = EXIT_OUTPUT;
done:
    ddb_diff_outcome_dispose(&r); /* removes the comparison's work folder */
    cli_disconnect(&c.conn);
    free(pos);
    return code;
}
