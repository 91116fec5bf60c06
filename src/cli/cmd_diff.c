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

#include "ddbpipe/json.h"
#include "ddbpipe/run.h"
#include "diff_cli.h"

static const run_spec diff_spec = {"diff", DDB_MODE_IMPORT,
                                   G_MAP | G_IN | G_DIFF | G_SAMPLE | G_AWS | G_COMMON};

static int write_summary(const char *path, const ddb_diff_outcome *r, const diff_side *sides,
                         int code)
{
    ddb_buf b = DDB_BUF_INIT;
    int rc;
    ddb_buf_puts(&b, "{\"command\":\"diff\",");
    ddb_diff_stats_json(&b, r->diff);
    diff_cli_sides_json(&b, r, sides);
    ddb_buf_puts(&b, ",\"differences_file\":");
    ddb_json_put_string(&b, r->differences, strlen(r->differences));
    ddb_buf_printf(&b, ",\"exit_code\":%d}\n", code);
    rc = b.oom ? (cli_error(NULL, "out of memory"), EXIT_OUTPUT)
               : cli_write_file(path, b.ptr, b.len, "summary");
    ddb_buf_dispose(&b);
    return rc;
}

static void print_report(const ddb_diff_outcome *r, const diff_side *sides, int code)
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
    diff_cli_sides_report(&b, r, sides, code);
    fputs(b.ptr, stderr);
    ddb_buf_dispose(&b);
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
    c.spec = &diff_spec;
    if ((code = diff_cli_check(&o, &a)) != 0 ||
        (code = diff_cli_sides(c.sides, &a, pos, npos,
                               "ddbpipe diff (A | --table T) (B | --to-table T2); see --help")) != 0 ||
        (code = diff_cli_fill(&o, &c)) != 0)
        goto done;
    if ((rc = ddb_diff_run(&r, &o, &err)) != 0) {
        code = diff_cli_stopped(&c, &r, rc, &err);
        goto done;
    }
    {
        const ddb_diff_stats *st = ddb_diff_get_stats(r.diff);
        code = diff_cli_verdict(&r, st->total.different + st->total.only_a + st->total.only_b > 0);
    }
    print_report(&r, c.sides, code);
    if (a.summary && write_summary(a.summary, &r, c.sides, code) != 0)
        code = EXIT_OUTPUT;
done:
    ddb_diff_outcome_dispose(&r); /* removes the comparison's work folder */
    cli_disconnect(&c.to_conn);
    cli_disconnect(&c.conn);
    free(pos);
    return code;
}
