/*
 * What diff and sync share on the command line (diff_cli.h): the sides, the
 * hooks that print while they are read, why a run stopped, and the report of
 * the sides. The two commands differ only in what they do with the verdicts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/json.h"
#include "ddbpipe/run.h"
#include "diff_cli.h"

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

int diff_cli_check(ddb_diff_run_options *o, const run_args *a)
{
    if (a->to_mapping && !a->mapping) {
        cli_error("--mapping is side A's (and B's, unless --to-mapping differs)",
                  "--to-mapping needs --mapping");
        return EXIT_USAGE;
    }
    if (a->sample && parse_share(a->sample, &o->diff.sample) != 0) {
        cli_error("e.g. --sample 10% or --sample 0.1", "bad --sample \"%s\"", a->sample);
        return EXIT_USAGE;
    }
    return 0;
}

/* hooks.connect: for each side that reads a table; side B (the target) with its own
 * identity when a --to-* option gave one, else the one connection both share. */
static int connect_hook(void *ctx, int side, ddb_client **client)
{
    diff_cli *c = ctx;
    cli_conn *conn = side == 1 && cli_has_target_identity(&c->a->aws) ? &c->to_conn : &c->conn;
    if (conn->client == NULL &&
        (c->code = conn == &c->to_conn ? cli_connect_target(conn, &c->a->aws)
                                       : cli_connect(conn, &c->a->aws)) != 0)
        return DDB_ERROR;
    cli_catch_stop_signals();
    if (conn->side[0] != '\0') {
        size_t n = strlen(c->sides[side].label);
        snprintf(c->sides[side].label + n, sizeof(c->sides[side].label) - n, " on the %s",
                 conn->side);
    }
    *client = conn->client;
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
    if (c->to_conn.client)
        ddb_client_set_idle(c->to_conn.client, NULL, NULL);
    if (rc != 0 && rc != DDB_EINTR)
        cli_error(NULL, "%s", err->message);
    ddb_run_plan_report(plan, &rr);
    c->code =
        cli_exit_code(s, c->a->max_rejects == UINT64_MAX ? 0 : c->a->max_rejects, rc, rr.table_io);
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

void diff_cli_sides_json(ddb_buf *b, const ddb_diff_outcome *r, const diff_side *sides)
{
    const ddb_diff_stats *st = ddb_diff_get_stats(r->diff);
    side_json(b, "a", sides[0].label, &r->s[0], st, 0);
    side_json(b, "b", sides[1].label, &r->s[1], st, 1);
}

void diff_cli_sides_report(ddb_buf *b, const ddb_diff_outcome *r, const diff_side *sides, int code)
{
    uint64_t rejected = r->s[0].total.rejected + r->s[1].total.rejected;
    const ddb_diff_stats *st = ddb_diff_get_stats(r->diff);
    for (int s = 0; s < 2; s++)
        ddb_buf_printf(b, "  %c: %s: %llu read, %llu rejected, %llu compared%s (%.2f s)\n",
                       s ? 'B' : 'A', sides[s].label, (unsigned long long)r->s[s].total.read,
                       (unsigned long long)r->s[s].total.rejected, (unsigned long long)st->kept[s],
                       st->skipped[s] ? " (a sample)" : "", r->s[s].seconds);
    if (st->levels > 1)
        ddb_buf_printf(b, "  buckets were split %u level%s deep to fit in memory\n", st->levels - 1,
                       st->levels == 2 ? "" : "s");
    ddb_buf_printf(b, "  differences: %s\n", r->differences);
    for (int s = 0; s < 2; s++)
        if (r->s[s].total.rejected > 0)
            ddb_buf_printf(b, "  rejects of %c: %s\n", s ? 'B' : 'A', r->rejects[s]);
    if (code == EXIT_UNPROVEN)
        ddb_buf_printf(b,
                       "  exit %d: %llu record%s rejected (A %llu, B %llu) were not compared: "
                       "the sides may still differ there\n",
                       code, (unsigned long long)rejected, rejected == 1 ? "" : "s",
                       (unsigned long long)r->s[0].total.rejected,
                       (unsigned long long)r->s[1].total.rejected);
}

int diff_cli_verdict(const ddb_diff_outcome *r, int differ)
{
    /* both sides' rejects (the hook's status is the last side's only): a
     * record not compared may differ, so no difference found proves nothing */
    uint64_t rejected = r->s[0].total.rejected + r->s[1].total.rejected;
    return differ ? EXIT_REJECTS : rejected > 0 ? EXIT_UNPROVEN : EXIT_OK;
}

int diff_cli_sides(diff_side *sides, const run_args *a, const char **pos, size_t npos,
                   const char *hint)
{
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
    if (cli_check_target_identity(&a->aws, a->to_table != NULL) != 0)
        return EXIT_USAGE;
    for (int s = 0; s < 2; s++) {
        diff_side *sd = &sides[s];
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

int diff_cli_fill(ddb_diff_run_options *o, diff_cli *c)
{
    const run_args *a = c->a;
    int code;
    for (int s = 0; s < 2; s++) {
        ddb_run_options *ro = &o->side[s];
        const diff_side *sd = &c->sides[s];
        if ((code = cli_fill_run_options(ro, c->spec, a, sd->inputs, sd->n_inputs)) != 0)
            return code;
        ro->scan_table = sd->table;
        /* read when the side attaches, after connect_hook named the sides */
        ro->source_side = s == 0 ? c->conn.side : c->to_conn.side;
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

int diff_cli_stopped(const diff_cli *c, const ddb_diff_outcome *r, int rc, const ddb_error *err)
{
    switch (r->step) {
    case DDB_DIFF_PLAN:
        cli_run_problem(r->field, c->spec, c->cmd, c->a, err->message);
        return rc == DDB_ENOMEM ? EXIT_OUTPUT : EXIT_USAGE;
    case DDB_DIFF_CONNECT:
    case DDB_DIFF_READ:
        return c->code;
    case DDB_DIFF_ATTACH:
        cli_run_problem(r->field, c->spec, c->cmd, c->a, err->message);
        return cli_attach_exit(rc, r->field);
    case DDB_DIFF_KEY:
        cli_error(rc == DDB_EUSAGE ? "e.g. --key pk,sk, or --mapping FILE" : NULL, "%s",
                  err->message);
        return rc == DDB_EUSAGE ? EXIT_USAGE : EXIT_OUTPUT;
    case DDB_DIFF_OPEN:
        cli_open_problem(r->field, c->spec, c->cmd, c->a, err->message);
        return rc == DDB_EUSAGE ? EXIT_USAGE : EXIT_OUTPUT;
    default: /* SETUP, COMPARE (sync's writes too: the table failed, or an interrupt) */
        if (rc == DDB_EINTR)
            return EXIT_INTERRUPTED;
        cli_error(NULL, "%s", err->message);
        return rc == DDB_EUSAGE                        ? EXIT_USAGE
               : rc == DDB_ENET || rc == DDB_ENOTFOUND ? EXIT_SERVICE
                                                       : EXIT_OUTPUT;
    }
}
