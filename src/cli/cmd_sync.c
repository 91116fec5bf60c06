/*
 * sync: the target table made to hold the source's records, writing only
 * the differences. The sides are diff's (diff_cli.c), and so is the
 * comparison: the engine (ddb_sync_run, sync.h) acts on its verdicts. Here
 * are the options sync adds, the report and the exit status: 0 once the
 * target holds the source's records.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/clock.h"
#include "ddbpipe/json.h"
#include "ddbpipe/sync.h"
#include "diff_cli.h"

static const run_spec sync_spec = {"sync", DDB_MODE_IMPORT,
                                   G_MAP | G_IN | G_DIFF | G_AWS | G_COMMON | G_DRY | G_SYNC};

static const char sync_hint[] = "ddbpipe sync (SOURCE | --table T) --to-table TARGET; see --help";

/* Differences left in the target after the run: refused, or never answered. */
static uint64_t not_written(const ddb_sync_stats *st)
{
    return st->refused + (st->to_put - st->put) + (st->to_delete - st->deleted);
}

static void sync_json(ddb_buf *b, const ddb_sync_outcome *r, const ddb_sync_opts *o)
{
    const ddb_sync_stats *st = &r->st;
    const ddb_diff_stats *ds = ddb_diff_get_stats(r->diff.diff);
    ddb_buf_printf(b,
                   ",\"sync\":{\"dry_run\":%s,\"equal\":%llu,\"to_put\":%llu,\"to_delete\":%llu,"
                   "\"put\":%llu,\"deleted\":%llu,\"kept\":%llu,\"refused\":%llu,"
                   "\"capacity_units\":%.1f,\"batches\":%llu,\"unprocessed\":%llu,"
                   "\"throttles\":%llu,\"rejects_file\":",
                   o->dry_run ? "true" : "false", (unsigned long long)ds->total.equal,
                   (unsigned long long)st->to_put, (unsigned long long)st->to_delete,
                   (unsigned long long)st->put, (unsigned long long)st->deleted,
                   (unsigned long long)st->kept, (unsigned long long)st->refused,
                   st->writes.capacity_units, (unsigned long long)st->writes.batches,
                   (unsigned long long)st->writes.unprocessed,
                   (unsigned long long)st->writes.throttles);
    if (st->refused > 0)
        ddb_json_put_string(b, r->rejects, strlen(r->rejects));
    else
        ddb_buf_puts(b, "null");
    ddb_buf_putc(b, '}');
}

static int write_summary(const char *path, const ddb_sync_outcome *r, const ddb_sync_opts *o,
                         const diff_side *sides, int code, const char *estimate)
{
    ddb_buf b = DDB_BUF_INIT;
    int rc;
    ddb_buf_puts(&b, "{\"command\":\"sync\",");
    ddb_diff_stats_json(&b, r->diff.diff);
    sync_json(&b, r, o);
    if (estimate != NULL)
        ddb_buf_puts(&b, estimate);
    diff_cli_sides_json(&b, &r->diff, sides);
    ddb_buf_puts(&b, ",\"differences_file\":");
    ddb_json_put_string(&b, r->diff.differences, strlen(r->diff.differences));
    ddb_buf_printf(&b, ",\"exit_code\":%d}\n", code);
    rc = b.oom ? (cli_error(NULL, "out of memory"), EXIT_OUTPUT)
               : cli_write_file(path, b.ptr, b.len, "summary");
    ddb_buf_dispose(&b);
    return rc;
}

/* The first line: what the target holds now, and what was done to it. */
static void headline(ddb_buf *b, const ddb_sync_outcome *r, const ddb_sync_opts *o, int code)
{
    const ddb_sync_stats *st = &r->st;
    const ddb_diff_stats *ds = ddb_diff_get_stats(r->diff.diff);
    if (o->dry_run)
        ddb_buf_printf(b,
                       "ddbpipe sync (dry run, nothing written): %s: %llu equal, %llu to put, "
                       "%llu to delete",
                       code == EXIT_OK         ? "the target holds the source's records"
                       : code == EXIT_UNPROVEN ? "not proven equal"
                                               : "they differ",
                       (unsigned long long)ds->total.equal, (unsigned long long)st->to_put,
                       (unsigned long long)st->to_delete);
    else
        ddb_buf_printf(b, "ddbpipe sync: %s: %llu equal, %llu put, %llu deleted",
                       code == EXIT_OK         ? "the target holds the source's records"
                       : code == EXIT_UNPROVEN ? "not proven equal"
                                               : "NOT synced",
                       (unsigned long long)ds->total.equal, (unsigned long long)st->put,
                       (unsigned long long)st->deleted);
    if (st->kept > 0)
        ddb_buf_printf(b, ", %llu only in the target kept (--no-delete)",
                       (unsigned long long)st->kept);
    if (st->refused > 0)
        ddb_buf_printf(b, ", %llu not writable", (unsigned long long)st->refused);
    ddb_buf_putc(b, '\n');
}

/* The report; a dry run's estimate (its JSON member into *estimate) after
 * the sides. Returns code, or EXIT_USAGE when --prices cannot be read. */
static int print_report(const ddb_sync_outcome *r, const ddb_sync_opts *o, const diff_side *sides,
                        int code, const run_args *a, const char *region, char **estimate)
{
    const ddb_sync_stats *st = &r->st;
    ddb_buf b = DDB_BUF_INIT;
    headline(&b, r, o, code);
    ddb_buf_puts(&b, "  as found:\n");
    ddb_diff_stats_format(&b, r->diff.diff);
    diff_cli_sides_report(&b, &r->diff, sides, code);
    if (o->dry_run && cli_cost_sync_estimate(&b, estimate, &st->estimate, a->to_table,
                                             st->target_indexes, st->target_provisioned_wcu, a,
                                             region) != 0)
        code = EXIT_USAGE;
    if (st->writes.batches > 0)
        ddb_buf_printf(&b,
                       "  writes: %llu batches, %.1f capacity units, %llu unprocessed and "
                       "retried, %llu throttled\n",
                       (unsigned long long)st->writes.batches, st->writes.capacity_units,
                       (unsigned long long)st->writes.unprocessed,
                       (unsigned long long)st->writes.throttles);
    if (st->refused > 0)
        ddb_buf_printf(&b, "  not written, with why: %s\n", r->rejects);
    else if (!o->dry_run && not_written(st) > 0)
        ddb_buf_printf(&b, "  %llu writes were not answered\n",
                       (unsigned long long)not_written(st));
    fputs(b.ptr, stderr);
    ddb_buf_dispose(&b);
    return code;
}

/* While it writes: a line every --progress-interval (10 s), unless --quiet,
 * --progress off or json. */
typedef struct sync_progress {
    double every, last;
} sync_progress;

static void writing_hook(void *ctx, const ddb_sync_stats *st)
{
    sync_progress *p = ctx;
    double now = ddb_clock_seconds();
    if (now - p->last < p->every)
        return;
    p->last = now;
    fprintf(stderr, "ddbpipe sync: writing: %llu deleted, %llu put so far (%.1f capacity units)\n",
            (unsigned long long)st->deleted, (unsigned long long)st->put,
            st->writes.capacity_units);
}

/* What diff checks, and what sync asks more: a table target. */
static int check(ddb_diff_run_options *o, const run_args *a)
{
    int code = diff_cli_check(o, a);
    if (code != 0)
        return code;
    if (a->to_table == NULL) {
        cli_error(sync_hint,
                  "sync writes a table: give the target as --to-table (to make files hold "
                  "a table's records, export it again)");
        return EXIT_USAGE;
    }
    return 0;
}

/* --create-table: the target made before it is read, like the source table (keys and indexes
 * from --to-mapping when given), or from the mapping it is read with when the source is files.
 * The connections made here are the ones the comparison then reads with. Returns the exit
 * status after saying any problem. */
static int create_target(diff_cli *c)
{
    const run_args *a = c->a;
    cli_conn *to = cli_has_target_identity(&a->aws) ? &c->to_conn : &c->conn;
    const char *model = a->to_mapping ? a->to_mapping : a->table ? NULL : a->mapping;
    ddb_mapping *m = NULL;
    ddb_error err;
    int code;

    c->waiting.limit_s = (int)(a->wait_active ? a->wait_active : 600);
    c->waiting.last_said = -1;
    c->waiting.quiet = a->quiet;
    if (!a->table && model == NULL) {
        cli_error("--mapping FILE describes the table to create",
                  "--create-table needs the source table, or a mapping, to make the target from");
        return EXIT_USAGE;
    }
    if (model && ddb_mapping_load(&m, cli_mapping_path(model), &err) != 0) {
        cli_error(NULL, "%s", err.message);
        return EXIT_USAGE;
    }
    if ((code = cli_connect(&c->conn, &a->aws)) != 0 ||
        (to != &c->conn && (code = cli_connect_target(to, &a->aws)) != 0))
        goto done;
    cli_catch_stop_signals();
    if (a->table) {
        code = cli_create_like(&c->conn, to, a->table, a->to_table, m, 1, 0, &c->waiting);
    } else if (ddb_table_create(to->client, m, a->to_table, 1, c->waiting.limit_s, cli_stop_flag(),
                                cli_table_waiting, &c->waiting, &err) != 0) {
        cli_error(NULL, "%s%s%s", to->side, to->side[0] ? ": " : "", err.message);
        code = err.code == DDB_EINTR ? EXIT_INTERRUPTED : EXIT_SERVICE;
    }
done:
    ddb_mapping_free(m);
    return code;
}

int cmd_sync(int argc, char **argv)
{
    diff_cli c;
    run_args a;
    const char **pos = NULL;
    size_t npos = 0;
    int help = 0, code, rc;
    ddb_sync_run_options o;
    ddb_sync_outcome r;
    ddb_error err;
    sync_progress pr;
    char *estimate = NULL;

    memset(&c, 0, sizeof(c));
    memset(&r, 0, sizeof(r));
    memset(&o, 0, sizeof(o));
    c.a = &a;
    c.cmd = cli_find_command("sync");
    c.spec = &sync_spec;
    if ((code = cli_run_parse(c.cmd, sync_spec.groups, argc, argv, &a, &pos, &npos, &help)) != 0 ||
        help)
        goto done;
    cli_catch_broken_pipe(0);
    if ((code = check(&o.diff, &a)) != 0 ||
        (code = diff_cli_sides(c.sides, &a, pos, npos, sync_hint)) != 0 ||
        (code = diff_cli_fill(&o.diff, &c)) != 0 ||
        (a.create_table && !a.dry_run && (code = create_target(&c)) != 0))
        goto done;
    for (int s = 0; s < 2; s++)
        o.diff.side[s].dry_run = 0; /* the sides are read whatever; the writes are sync's */
    o.sync.no_delete = a.no_delete;
    o.sync.dry_run = a.dry_run;
    o.sync.max_wcu = (double)a.max_wcu;
    o.sync.shuffle_window = cli_shuffle_window(&a);
    if (!a.quiet &&
        !(a.progress && (strcmp(a.progress, "off") == 0 || strcmp(a.progress, "json") == 0))) {
        pr.every = a.progress_interval ? (double)a.progress_interval : 10;
        pr.last = ddb_clock_seconds();
        o.writing = writing_hook;
        o.writing_ctx = &pr;
    }
    if ((rc = ddb_sync_run(&r, &o, &err)) != 0) {
        code = diff_cli_stopped(&c, &r.diff, rc, &err);
        if (r.st.put + r.st.deleted > 0 || code == EXIT_INTERRUPTED)
            fprintf(stderr,
                    "ddbpipe sync: stopped after %llu put, %llu deleted: the target is part way; "
                    "sync again to finish (it writes only what still differs)\n",
                    (unsigned long long)r.st.put, (unsigned long long)r.st.deleted);
        goto done;
    }
    if (o.sync.dry_run)
        code =
            diff_cli_verdict(&r.diff, r.st.to_put + r.st.to_delete + r.st.kept + r.st.refused > 0);
    else
        code = diff_cli_verdict(&r.diff, not_written(&r.st) > 0);
    code = print_report(&r, &o.sync, c.sides, code, &a,
                        c.conn.config ? c.conn.config->region : NULL, &estimate);
    if (a.summary && write_summary(a.summary, &r, &o.sync, c.sides, code, estimate) != 0)
        code = EXIT_OUTPUT;
done:
    free(estimate);
    ddb_sync_outcome_dispose(&r); /* removes the comparison's work folder */
    cli_disconnect(&c.to_conn);
    cli_disconnect(&c.conn);
    free(pos);
    return code;
}
