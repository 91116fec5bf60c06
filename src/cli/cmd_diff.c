/*
 * diff: two sides (a table, files, an export folder), each read by a run
 * plan (run.h) in import mode into the diff's bucket output, then compared.
 * The engine (diff.h) does the work; here are the sides, the report and the
 * exit status: 0 only when the sides hold the same records.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "ddbpipe/diff.h"
#include "ddbpipe/json.h"
#include "ddbpipe/run.h"
#include "ddbpipe/sink.h"
#include "progress.h"
#include "run_support.h"

static const run_spec diff_spec = {"diff", DDB_MODE_IMPORT,
                                   G_MAP | G_IN | G_DIFF | G_AWS | G_COMMON};

typedef struct side {
    const char *table;   /* or NULL: files */
    const char **inputs; /* into the command line's inputs */
    size_t n_inputs;
    ddb_run_options ro;
    ddb_run_plan *plan;
    ddb_summary s;
    int rc;
    char label[300];
    char rejects[4096], unmatched[4096];
} side;

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

/* The key attributes of items compared without a mapping: --key, else the
 * key schema of a side that is a table. Returns 0, or -1 when there are none
 * (or no memory for them). */
static int key_attrs(const run_args *a, side *sides, char **names, size_t *n)
{
    *n = 0;
    if (a->key != NULL) {
        char *copy = strdup(a->key), *save = NULL, *tok;
        for (tok = copy ? strtok_r(copy, ",", &save) : NULL; tok && *n < 2;
             tok = strtok_r(NULL, ",", &save))
            if ((names[*n] = strdup(tok)) != NULL)
                (*n)++;
        free(copy);
        return *n > 0 ? 0 : -1;
    }
    for (int s = 0; s < 2 && *n == 0; s++) {
        const ddb_table_info *t = ddb_run_plan_scanned_table(sides[s].plan);
        if (t == NULL)
            continue;
        if ((names[*n] = strdup(t->pk.name)) != NULL)
            (*n)++;
        if (t->sk.name && (names[*n] = strdup(t->sk.name)) != NULL)
            (*n)++;
    }
    return *n > 0 ? 0 : -1;
}

/* A side's run options: the command's, with its own input (files or a
 * table), mapping and rejects file, into the diff's output. */
static int side_options(side *sd, int index, const run_args *a)
{
    ddb_run_options *o = &sd->ro;
    int code = cli_fill_run_options(o, &diff_spec, a, sd->inputs, sd->n_inputs);
    if (code != 0)
        return code;
    o->scan_allowed = 1;
    o->scan_table = sd->table;
    o->own_output = 1;
    o->folder_unmatched = 1; /* an export's unmatched items are compared too */
    o->mapping_path = index == 0 || a->to_mapping == NULL ? a->mapping : a->to_mapping;
    o->to_mapping_path = NULL;
    /* Import mode passes items as they are (the diff output decodes them), so
     * nothing reaches the unmatched file; each side still has its own. */
    snprintf(sd->rejects, sizeof(sd->rejects), "%s/_rejects_%c.ndjson", a->out, index ? 'b' : 'a');
    snprintf(sd->unmatched, sizeof(sd->unmatched), "%s/_unmatched_%c.ndjson", a->out,
             index ? 'b' : 'a');
    o->rejects_path = sd->rejects;
    o->unmatched_path = sd->unmatched;
    return 0;
}

/* Reads one side into the diff, with progress (the plan's progress hook
 * points there). Returns the side's exit status. */
static int run_side(side *sd, const run_args *a, const cli_command *cmd, ddb_client *client,
                    cli_progress *progress)
{
    ddb_run_field field = DDB_RUN_F_NONE;
    ddb_run_report rr;
    ddb_error err;
    int rc;

    if ((rc = ddb_run_plan_open(sd->plan, &field, &err)) != 0) {
        cli_open_problem(field, &diff_spec, cmd, a, err.message);
        return rc == DDB_EUSAGE ? EXIT_USAGE : EXIT_OUTPUT;
    }
    cli_start_progress(progress, a, sd->plan, client);
    sd->rc = ddb_run_plan_execute(sd->plan, &sd->s, &err);
    cli_progress_end(progress);
    if (client)
        ddb_client_set_idle(client, NULL, NULL);
    if (sd->rc != 0 && sd->rc != DDB_EINTR)
        cli_error(NULL, "%s", err.message);
    ddb_run_plan_report(sd->plan, &rr);
    return cli_exit_code(&sd->s, a->max_rejects == UINT64_MAX ? 0 : a->max_rejects, sd->rc,
                         rr.table_io);
}

static void side_json(ddb_buf *b, const char *name, const side *sd, const ddb_diff_stats *st,
                      int index)
{
    ddb_buf_printf(b, ",\"%s\":{\"source\":", name);
    ddb_json_put_string(b, sd->label, strlen(sd->label));
    ddb_buf_printf(b,
                   ",\"read\":%llu,\"rejected\":%llu,\"input_errors\":%llu,\"compared\":%llu,"
                   "\"left_out\":%llu,\"seconds\":%.3f}",
                   (unsigned long long)sd->s.total.read, (unsigned long long)sd->s.total.rejected,
                   (unsigned long long)sd->s.input_errors, (unsigned long long)st->kept[index],
                   (unsigned long long)st->skipped[index], sd->s.seconds);
}

static int write_summary(const char *path, const ddb_diff *d, const side *sides,
                         const char *differences, int code)
{
    ddb_buf b = DDB_BUF_INIT;
    int rc;
    ddb_buf_puts(&b, "{\"command\":\"diff\",");
    ddb_diff_stats_json(&b, d);
    side_json(&b, "a", &sides[0], ddb_diff_get_stats(d), 0);
    side_json(&b, "b", &sides[1], ddb_diff_get_stats(d), 1);
    ddb_buf_puts(&b, ",\"differences_file\":");
    ddb_json_put_string(&b, differences, strlen(differences));
    ddb_buf_printf(&b, ",\"exit_code\":%d}\n", code);
    rc = b.oom ? (cli_error(NULL, "out of memory"), EXIT_OUTPUT)
               : cli_write_file(path, b.ptr, b.len, "summary");
    ddb_buf_dispose(&b);
    return rc;
}

static void print_report(const ddb_diff *d, const side *sides, const char *differences, int code)
{
    const ddb_diff_stats *st = ddb_diff_get_stats(d);
    ddb_buf b = DDB_BUF_INIT;
    ddb_buf_printf(&b,
                   "ddbpipe diff: %s: %llu equal, %llu different, %llu only in A, %llu "
                   "only in B\n",
                   code == EXIT_OK ? "the same" : "NOT the same",
                   (unsigned long long)st->total.equal, (unsigned long long)st->total.different,
                   (unsigned long long)st->total.only_a, (unsigned long long)st->total.only_b);
    ddb_diff_stats_format(&b, d);
    for (int s = 0; s < 2; s++)
        ddb_buf_printf(&b, "  %c: %s: %llu read, %llu rejected, %llu compared%s (%.2f s)\n",
                       s ? 'B' : 'A', sides[s].label, (unsigned long long)sides[s].s.total.read,
                       (unsigned long long)sides[s].s.total.rejected,
                       (unsigned long long)st->kept[s], st->skipped[s] ? " (a sample)" : "",
                       sides[s].s.seconds);
    if (st->levels > 1)
        ddb_buf_printf(&b, "  buckets were split %u level%s deep to fit in memory\n",
                       st->levels - 1, st->levels == 2 ? "" : "s");
    ddb_buf_printf(&b, "  differences: %s\n", differences);
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

/* Plans both sides and attaches their tables. Returns 0 or an exit status
 * after printing the problem. */
static int plan_sides(side *sides, const run_args *a, const cli_command *cmd, cli_conn *conn,
                      cli_table_wait *waiting, cli_progress *progress)
{
    ddb_run_field field = DDB_RUN_F_NONE;
    ddb_error err;
    int rc, code;

    for (int s = 0; s < 2; s++) {
        if ((code = side_options(&sides[s], s, a)) != 0)
            return code;
        cli_run_hooks(&sides[s].ro, a, waiting, progress);
        if ((rc = ddb_run_plan_new(&sides[s].plan, &sides[s].ro, &field, &err)) != 0) {
            cli_run_problem(field, &diff_spec, cmd, a, err.message);
            return rc == DDB_ENOMEM ? EXIT_OUTPUT : EXIT_USAGE;
        }
    }
    if (!ddb_run_plan_needs_client(sides[0].plan) && !ddb_run_plan_needs_client(sides[1].plan))
        return 0;
    if ((code = cli_connect(conn, &a->aws)) != 0)
        return code;
    cli_catch_stop_signals();
    for (int s = 0; s < 2; s++)
        if (ddb_run_plan_needs_client(sides[s].plan) &&
            (rc = ddb_run_plan_attach(sides[s].plan, conn->client, &field, &err)) != 0) {
            cli_run_problem(field, &diff_spec, cmd, a, err.message);
            return cli_attach_exit(rc, field);
        }
    return 0;
}

int cmd_diff(int argc, char **argv)
{
    const cli_command *cmd = cli_find_command("diff");
    run_args a;
    const char **pos = NULL;
    size_t npos = 0, n_keys = 0;
    int help = 0, code;
    side sides[2];
    ddb_diff *d = NULL;
    ddb_diff_opts dopts;
    cli_conn conn;
    cli_table_wait waiting;
    cli_progress progress;
    ddb_sink *out = NULL;
    ddb_error err;
    char *keys[2] = {NULL, NULL}, differences[4096];

    memset(sides, 0, sizeof(sides));
    memset(&conn, 0, sizeof(conn));
    memset(&dopts, 0, sizeof(dopts));
    if ((code = cli_run_parse(cmd, diff_spec.groups, argc, argv, &a, &pos, &npos, &help)) != 0 ||
        help)
        goto done;
    code = EXIT_USAGE;
    if (a.out == NULL)
        a.out = ".";
    if (a.to_mapping && !a.mapping) {
        cli_error("--mapping is side A's (and B's, unless --to-mapping differs)",
                  "--to-mapping needs --mapping");
        goto done;
    }
    if (a.sample && parse_share(a.sample, &dopts.sample) != 0) {
        cli_error("e.g. --sample 10% or --sample 0.1", "bad --sample \"%s\"", a.sample);
        goto done;
    }
    if ((code = assign_sides(sides, &a, pos, npos)) != 0 ||
        (code = plan_sides(sides, &a, cmd, &conn, &waiting, &progress)) != 0)
        goto done;
    code = EXIT_USAGE;
    if (a.mapping == NULL && key_attrs(&a, sides, keys, &n_keys) != 0) {
        cli_error("e.g. --key pk,sk, or --mapping FILE",
                  "without a mapping or a table, diff needs --key: the key attributes");
        goto done;
    }
    dopts.work_dir = a.out;
    dopts.key_attrs = (const char *const *)keys;
    dopts.n_key_attrs = n_keys;
    dopts.max_memory = (size_t)a.max_memory << 20;
    if (mkdir(a.out, 0777) != 0 && errno != EEXIST) {
        cli_error(NULL, "cannot create folder %s: %s", a.out, strerror(errno));
        code = EXIT_OUTPUT;
        goto done;
    }
    if (ddb_diff_new(&d, ddb_run_plan_mapping(sides[0].plan), ddb_run_plan_mapping(sides[1].plan),
                     &dopts, &err) != 0) {
        cli_error(NULL, "%s", err.message);
        code = err.code == DDB_EUSAGE ? EXIT_USAGE : EXIT_OUTPUT;
        goto done;
    }
    for (int s = 0; s < 2; s++) {
        ddb_output *o;
        if (ddb_diff_side(d, s, &o, &err) != 0) {
            cli_error(NULL, "%s", err.message);
            code = EXIT_OUTPUT;
            goto done;
        }
        ddb_run_plan_set_output(sides[s].plan, o);
    }
    /* A side read to its end is compared even with rejects (exit 1); one that
     * stopped (past --max-rejects, interrupted, failed) would compare half a side. */
    for (int s = 0; s < 2; s++)
        if ((code = run_side(&sides[s], &a, cmd, conn.client, &progress)) != EXIT_OK &&
            (code != EXIT_REJECTS || sides[s].rc != 0))
            goto done;
    snprintf(differences, sizeof(differences), "%s/differences.ndjson", a.out);
    if (ddb_sink_open_file(&out, differences, 1, &err) != 0 ||
        ddb_diff_compare(d, out, &err) != 0 || ddb_sink_finish(out, &err) != 0) {
        cli_error(NULL, "%s", err.message);
        code = EXIT_OUTPUT;
        goto done;
    }
    {
        const ddb_diff_stats *st = ddb_diff_get_stats(d);
        int same = st->total.different + st->total.only_a + st->total.only_b == 0;
        code = code == EXIT_REJECTS || !same ? EXIT_REJECTS : EXIT_OK;
    }
    print_report(d, sides, differences, code);
    if (a.summary && write_summary(a.summary, d, sides, differences, code) != 0)
        code = EXIT_OUTPUT;
done:
    ddb_sink_free(out);
    ddb_diff_free(d); /* with the sides' outputs, which the plans only borrow */
    for (int s = 0; s < 2; s++) {
        ddb_run_plan_free(sides[s].plan);
        ddb_summary_dispose(&sides[s].s);
    }
    cli_disconnect(&conn);
    free(keys[0]);
    free(keys[1]);
    free(pos);
    return code;
}
