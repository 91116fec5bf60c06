/*
 * The pipeline commands: export, convert, encode, validate, import, migrate
 * and generate (diff runs the same plans, cmd_diff.c). Their options are
 * parsed into a ddb_run_options by run_options.c; this file lets the engine
 * plan and run (run.h), and prints: the flag behind a problem, the progress,
 * the summary and the exit status.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ddbpipe/run.h"
#include "progress.h"
#include "run_support.h"

/* An s3:// output that failed: the bucket or the endpoint, not the folder. */
static const char S3_OUT_HINT[] =
    "--out s3://BUCKET/PREFIX: the bucket must exist and the credentials may write to it; "
    "for an S3 server of your own set AWS_ENDPOINT_URL_S3";

/* The flag behind a planning problem (message), and what to do about it. */
static const char *hint_for(ddb_run_field f, const run_spec *spec, const cli_command *cmd,
                            const run_args *a, const char *message, char *buf, size_t cap)
{
    switch (f) {
    case DDB_RUN_F_INPUTS:
        snprintf(buf, cap, "ddbpipe %s", cmd->usage);
        return buf;
    case DDB_RUN_F_OUT:
        if ((spec->groups & G_GEN) && a->out && strcmp(a->out, "-") == 0)
            return "e.g. ddbpipe generate ... --out - | ddbpipe import - --table T";
        if (spec->groups & G_GEN)
            return a->out ? "--out DIR (or -) for files, or --table NAME for a table"
                          : "--out DIR is required (or - for standard output, or --table NAME)";
        if (a->out && strncmp(a->out, "s3://", 5) == 0)
            return S3_OUT_HINT;
        return a->out ? "--out DIR: a folder for the output files"
                      : "--out DIR is required: the folder for the output files";
    case DDB_RUN_F_FORMAT:
        return "items are written as DynamoDB JSON (--format ddb-json, or leave --format out) "
               "or Parquet (--format parquet)";
    case DDB_RUN_F_MAPPING:
        return a->mapping ? "check the file given to --mapping (see formats/README.md)"
                          : "pass the table's mapping, e.g. --mapping formats/favorites.json";
    case DDB_RUN_F_TO_MAPPING:
        return a->to_mapping ? "check the file given to --to-mapping (see formats/README.md)"
                             : "e.g. --to-mapping formats/favorites-v2.json";
    case DDB_RUN_F_ENTITY:
        return "--entity NAME: the \"name\" of an entity in the mapping";
    case DDB_RUN_F_TYPES:
        return "--types name=N,other=BOOL (types: S N B BOOL NULL M L SS NS BS)";
    case DDB_RUN_F_SEGMENTS:
        return "see --segments and --segment-range (A-B, e.g. --segments 8 --segment-range 0-3)";
    case DDB_RUN_F_TARGET_TABLE: {
        /* the table could not be asked about at all: not a matter of its name
         * (only the failure's own words are read: a table may be named
         * "certificates") */
        const char *conn = strstr(message, " failed: ConnectionError: ");
        if (conn != NULL && strstr(conn, "certificate") != NULL)
            return "the endpoint's TLS certificate is not trusted; AWS_CA_BUNDLE=FILE (or the "
                   "profile's ca_bundle) names a PEM file of CAs to trust";
        if (conn != NULL || strstr(message, " failed: Timeout: ") != NULL)
            return strncmp(message, "target (", 8) == 0
                       ? "check --to-endpoint-url (or --to-region) and the network"
                       : "check --endpoint-url (or the region) and the network";
        return spec->groups & G_MIGRATE ? "--to-table NAME; create it first, or add --create-table"
                                        : "--table NAME; create it first, or add --create-table";
    }
    case DDB_RUN_F_TABLE_SCHEMA:
        /* --create-table would not help: the table is there, with other keys */
        return "give the mapping that describes that table, or name another table; "
               "--ignore-schema-mismatch goes on anyway";
    case DDB_RUN_F_CREATE_TABLE:
        return "--create-table builds the table from --mapping";
    case DDB_RUN_F_WAIT:
        return "raise --wait-active, or check the table";
    case DDB_RUN_F_STATE:
        return "--state FILE: add --resume to continue the run it records, or remove the file "
               "to start over";
    case DDB_RUN_F_RESUME:
        return "--resume with --state FILE and exactly the command that was interrupted, or "
               "remove the state file to start over";
    case DDB_RUN_F_REJECTS:
        return "--rejects FILE: check that its folder is writable";
    case DDB_RUN_F_OVERWRITE:
        return "give an empty or new folder, or add --overwrite to write there anyway";
    case DDB_RUN_F_S3:
        return "check the s3:// paths, AWS_ENDPOINT_URL_S3 and the credentials' S3 permissions";
    case DDB_RUN_F_SELECT:
        return "--entities A,B and --where FIELD=VALUE,FIELD^=PREFIX,FIELD>=A,FIELD<B name "
               "entities and fields of --mapping; --sample N";
    case DDB_RUN_F_SHARD:
        return "--shard I/N with 1 <= I <= N, e.g. --shard 2/3";
    case DDB_RUN_F_UNMATCHED:
        return "--unmatched FILE: check that its folder is writable, and that it is not the "
               "rejects file";
    case DDB_RUN_F_OWN_FILES:
        return "--state, --rejects, --unmatched and --summary each need a file of their own, "
               "not an input or a mapping";
    case DDB_RUN_F_VIA_EXPORT:
    case DDB_RUN_F_EXPORT_TIME:
    case DDB_RUN_F_VIA_IMPORT:
    case DDB_RUN_F_LSI:
        return cli_managed_hint(f, a);
    case DDB_RUN_F_GENERATE:
        return a->count ? "--count Tag=100,FavoriteData=1k (k, M, G allowed; or --count N for "
                          "every entity); see formats/README.md for \"generate\""
                        : "--count Tag=100,FavoriteData=1k, or --count N for every entity";
    default:
        return NULL;
    }
}

void cli_run_problem(ddb_run_field f, const run_spec *spec, const cli_command *cmd,
                     const run_args *a, const char *message)
{
    char hint[512];
    cli_error(hint_for(f, spec, cmd, a, message, hint, sizeof(hint)), "%s", message);
}

void cli_open_problem(ddb_run_field f, const run_spec *spec, const cli_command *cmd,
                      const run_args *a, const char *message)
{
    if (f == DDB_RUN_F_OUT)
        cli_error(a->out && strncmp(a->out, "s3://", 5) == 0 ? S3_OUT_HINT
                                                              : "check that the folder is writable",
                  "%s", message);
    else
        cli_run_problem(f, spec, cmd, a, message);
}

int cli_attach_exit(int rc, ddb_run_field f)
{
    if (rc == DDB_EINTR)
        return EXIT_INTERRUPTED;
    if (f == DDB_RUN_F_SEGMENTS)
        return EXIT_USAGE;
    if (f == DDB_RUN_F_S3) /* listing S3 inputs: refused, missing */
        return rc == DDB_ENET ? EXIT_SERVICE : EXIT_INPUT;
    if (f == DDB_RUN_F_WAIT)
        return EXIT_SERVICE; /* still not ACTIVE */
    if (rc == DDB_ENOTFOUND || rc == DDB_EUSAGE)
        return EXIT_USAGE; /* a table that is not there, or not the mapping's */
    return EXIT_SERVICE;
}

static void print_note(void *ctx, const char *msg)
{
    (void)ctx;
    fprintf(stderr, "ddbpipe: %s\n", msg);
}

void cli_run_hooks(ddb_run_options *ro, const run_args *a, cli_table_wait *waiting,
                   cli_progress *progress)
{
    static cli_job_wait job;
    job.quiet = a->quiet;
    job.last_said = -1;
    job.last_status[0] = '\0';
    ro->on_job = cli_job_waiting;
    ro->job_ctx = &job;
    waiting->quiet = a->quiet;
    waiting->limit_s = (int)a->wait_active;
    waiting->last_said = -1;
    ro->note = print_note;
    ro->on_wait = cli_table_waiting;
    ro->wait_ctx = waiting;
    ro->progress = cli_progress_update; /* set up by cli_start_progress before it is called */
    ro->progress_ctx = progress;
}

/* The table scanned, and how much of DynamoDB's answers came gzipped. */
static void read_lines(ddb_buf *b, const ddb_run_report *rr, ddb_client *client)
{
    if (rr->scan_table)
        ddb_buf_printf(b,
                       "  %s of %s: %llu pages, %llu items scanned, %.1f RCU, %llu throttled\n",
                       rr->queried ? "query" : "scan", rr->scan_table,
                       (unsigned long long)rr->scan.requests,
                       (unsigned long long)rr->scan.scanned, rr->scan.capacity_units,
                       (unsigned long long)rr->scan.throttles);
    if (client != NULL) {
        ddb_client_stats cs;
        ddb_client_stats_get(client, &cs);
        if (cs.gzip_json > 0) {
            char sent[32], json[32];
            ddb_summary_bytes(sent, sizeof(sent), cs.gzip_sent);
            ddb_summary_bytes(json, sizeof(json), cs.gzip_json);
            ddb_buf_printf(b, "  DynamoDB's answers came gzipped: %s for %s of JSON\n", sent, json);
        }
    }
}

/* The table written: its batches, retries and capacity, and what is not done. */
static void table_write_lines(ddb_buf *b, const ddb_run_report *rr, const ddb_summary *s,
                              const run_args *a)
{
    const ddb_table_write_stats *ws = &rr->writes;
    ddb_buf_printf(b,
                   "  %s: %llu batches, %llu items retried as unprocessed, %llu throttled, "
                   "%llu batches split, %llu waited for an earlier write of their key, "
                   "%.1f WCU (%.1f WCU/s)\n",
                   rr->target_table, (unsigned long long)ws->batches,
                   (unsigned long long)ws->unprocessed, (unsigned long long)ws->throttles,
                   (unsigned long long)ws->splits, (unsigned long long)ws->blocked,
                   ws->capacity_units, s->seconds > 0 ? ws->capacity_units / s->seconds : 0);
    if (a->update)
        ddb_buf_printf(b, "  updated in place (UpdateItem): %llu items\n",
                       (unsigned long long)ws->updated);
    if (s->interrupted || s->total.not_done > 0)
        ddb_buf_printf(b,
                       "  written = confirmed by DynamoDB: %llu items; %llu not done (never "
                       "sent, or sent without an answer)\n",
                       (unsigned long long)s->total.written, (unsigned long long)s->total.not_done);
}

/* How the run ended when it did not simply finish: a closed pipe, an
 * interrupt (and how to go on), or a resume. */
static void ending_lines(ddb_buf *b, const ddb_summary *s, const run_args *a)
{
    if (cli_pipe_broken())
        ddb_buf_printf(b,
                       "  stopped: the data output (standard output) was closed by its reader "
                       "(broken pipe); "
                       "%s\n",
                       a->state ? "checkpoint saved, continue with --resume"
                                : "no output file was written, temporary files removed");
    else if (s->interrupted && a->state)
        ddb_buf_printf(b,
                       "  interrupted: checkpoint saved in %s; continue with the same command and "
                       "--resume\n",
                       a->state);
    else if (s->interrupted)
        ddb_buf_puts(b, "  interrupted (run with --state FILE to be able to resume)\n");
    else if (s->resumed)
        ddb_buf_printf(b, "  resumed from %s\n", a->state);
}

/* The lines of the summary that are not counts: the tables, the dry run,
 * throttling, interruption and resume. */
static void summary_extras(ddb_buf *b, const ddb_run_report *rr, const ddb_summary *s,
                           const run_args *a, ddb_client *client)
{
    read_lines(b, rr, client);
    if (rr->target_table && !rr->dry_run && a->via_import == NULL)
        table_write_lines(b, rr, s, a);
    cli_managed_summary(b, rr, s, a);
    if (client) {
        ddb_client_stats cs;
        ddb_client_stats_get(client, &cs);
        if (cs.decreases > 0)
            ddb_buf_printf(b,
                           "  throttled: requests in flight cut %llu time%s, down to %d (of %llu); "
                           "%llu retries in all\n",
                           (unsigned long long)cs.decreases, cs.decreases == 1 ? "" : "s",
                           cs.min_concurrency,
                           (unsigned long long)(a->aws.concurrency ? a->aws.concurrency : 16),
                           (unsigned long long)cs.retries);
    }
    ending_lines(b, s, a);
}

void cli_start_progress(cli_progress *pr, const run_args *a, ddb_run_plan *plan, ddb_client *client)
{
    int mode = CLI_PROGRESS_AUTO;
    const ddb_reader *scan = ddb_run_plan_scan(plan);
    const ddb_generator *gen = ddb_run_plan_generator(plan);
    cli_progress_parse(a->progress, &mode);
    cli_progress_init(pr, mode, (double)a->progress_interval, a->quiet);
    pr->client = client;
    pr->table_output = ddb_run_plan_table_output(plan);
    pr->scan = scan;
    pr->total_items = scan ? scan->expected_items : gen ? ddb_generator_total(gen) : 0;
    pr->total_bytes = ddb_run_plan_input_bytes(plan);
    if (client) {
        ddb_client_set_idle(client, cli_progress_idle, pr);
        ddb_client_set_stop_flag(client, cli_stop_flag());
    }
}

/* --summary FILE, on disk or in S3. Returns 0 or EXIT_OUTPUT after saying why. */
static int write_summary(ddb_run_plan *plan, const char *path, const ddb_summary *s, int code)
{
    ddb_buf b = DDB_BUF_INIT;
    ddb_error err;
    int rc;
    if (strncmp(path, "s3://", 5) != 0)
        return cli_write_summary_file(path, s, code);
    ddb_summary_json(&b, s, code);
    rc = b.oom ? ddb_error_set(&err, DDB_ENOMEM, "out of memory")
               : ddb_run_plan_write_file(plan, path, b.ptr, b.len, &err);
    ddb_buf_dispose(&b);
    if (rc != 0) {
        cli_error(NULL, "cannot write the summary: %s", err.message);
        return EXIT_OUTPUT;
    }
    return 0;
}

/* The source's connection, and the target's own when a --to-* option gives it one (else
 * to_conn stays without a client and the target is reached through conn). Returns 0 or the
 * exit status after saying why. */
static int connect_sides(cli_conn *conn, cli_conn *to_conn, const run_args *a)
{
    int code;
    /* files into a table: the target's identity is the only one the run needs */
    if (a->table == NULL && cli_has_target_identity(&a->aws))
        return cli_connect_target(conn, &a->aws);
    code = cli_connect(conn, &a->aws);
    if (code == 0 && cli_has_target_identity(&a->aws))
        code = cli_connect_target(to_conn, &a->aws);
    return code;
}

/* Plans, connects, opens and runs; prints the summary. Returns the exit status. */
static int run_planned(const run_spec *spec, const cli_command *cmd, const run_args *a,
                       ddb_run_options *ro)
{
    ddb_run_plan *plan = NULL;
    ddb_run_field field = DDB_RUN_F_NONE;
    ddb_run_report rr;
    uint64_t max_rejects = a->max_rejects == UINT64_MAX ? 0 : a->max_rejects;
    ddb_summary s;
    ddb_error err;
    cli_conn conn, to_conn;
    cli_table_wait waiting;
    cli_progress progress;
    ddb_buf extra = DDB_BUF_INIT, identity = DDB_BUF_INIT;
    char *own_summary = NULL;
    cli_live live;
    int code = EXIT_USAGE, rc;

    memset(&s, 0, sizeof(s));
    memset(&conn, 0, sizeof(conn));
    memset(&to_conn, 0, sizeof(to_conn));
    memset(&live, 0, sizeof(live));
    if ((code = cli_live_check(a)) != 0 ||
        (code = cli_check_target_identity(&a->aws, ro->writes_table)) != 0)
        return code;
    if (cli_has_target_identity(&a->aws)) {
        /* filled in by the connections, before the plan attaches its tables */
        ro->source_side = conn.side;
        ro->target_side = a->table ? to_conn.side : conn.side; /* as connect_sides connects */
    }
    code = EXIT_USAGE;
    if (spec->mode == DDB_MODE_EXPORT && a->dry_run && (a->table == NULL || a->via_export)) {
        cli_error("export --table T --dry-run (a Scan's estimate, nothing read)",
                  "export --dry-run estimates the Scan of a table: give --table, without "
                  "--via-export");
        return EXIT_USAGE;
    }
    cli_catch_broken_pipe(a->out != NULL && strcmp(a->out, "-") == 0);
    cli_run_hooks(ro, a, &waiting, &progress);
    cli_identity_text(&identity, &a->aws);
    ro->identity = identity.len > 0 && !identity.oom ? identity.ptr : NULL;
    if (identity.oom) {
        cli_error(NULL, "out of memory");
        code = EXIT_OUTPUT;
        goto done;
    }
    if ((rc = ddb_run_plan_new(&plan, ro, &field, &err)) != 0) {
        cli_run_problem(field, spec, cmd, a, err.message);
        code = rc == DDB_ENOMEM ? EXIT_OUTPUT : EXIT_USAGE;
        goto done;
    }
    if (ddb_run_plan_done(plan) && a->live) {
        /* the copy is done: the stream goes on from its saved position */
        if (!a->quiet)
            fprintf(stderr, "ddbpipe: the copy is complete; the stream goes on from %s.live\n",
                    a->state);
        cli_catch_stop_signals();
        if ((code = connect_sides(&conn, &to_conn, a)) == 0 &&
            (code = cli_live_prepare(&live, a, &conn, &to_conn)) == 0)
            code = cli_live_run(&live, a);
        goto done;
    }
    if (ddb_run_plan_done(plan)) {
        code = EXIT_OK;
        goto done;
    }
    if (ddb_run_plan_generator(plan) && !a->quiet)
        cli_describe_generator(ddb_run_plan_generator(plan), a->seed);
    if (ddb_run_plan_needs_client(plan) && (code = connect_sides(&conn, &to_conn, a)) != 0)
        goto done;
    ddb_run_plan_set_target_client(plan, to_conn.client);
    if (conn.config &&
        ddb_run_plan_set_s3(plan, conn.config->s3_endpoint_url, conn.config->region) != 0) {
        code = EXIT_OUTPUT;
        goto done;
    }
    /* A signal while waiting for a table, or later, stops the run cleanly. */
    cli_catch_stop_signals();
    /* the stream's position is taken before the copy (or creating the target) starts */
    if (a->live && (code = cli_live_prepare(&live, a, &conn, &to_conn)) != 0)
        goto done;
    if (a->live && !a->quiet)
        fprintf(stderr, "ddbpipe: copy: %s as it is now; then its changes since\n", a->table);
    if (conn.client && (rc = ddb_run_plan_attach(plan, conn.client, &field, &err)) != 0) {
        cli_run_problem(field, spec, cmd, a, err.message);
        code = cli_attach_exit(rc, field);
        if (rc == DDB_EINTR) {
            ddb_run_plan_report(plan, &rr);
            cli_managed_interrupted(&rr, a);
        }
        goto done;
    }
    if (spec->mode == DDB_MODE_EXPORT && a->dry_run) { /* the estimate, nothing read */
        code = cli_cost_export_estimate(ddb_run_plan_scanned_table(plan), a,
                                        conn.config ? conn.config->region : NULL);
        goto done;
    }
    if ((rc = ddb_run_plan_open(plan, &field, &err)) != 0) {
        cli_open_problem(field, spec, cmd, a, err.message);
        code = rc == DDB_EUSAGE ? EXIT_USAGE : EXIT_OUTPUT;
        goto done;
    }
    cli_start_progress(&progress, a, plan, conn.client);
    rc = ddb_run_plan_execute(plan, &s, &err);
    cli_progress_end(&progress);
    if (rc != 0 && rc != DDB_EINTR)
        cli_error(NULL, "%s", err.message);
    ddb_run_plan_report(plan, &rr);
    summary_extras(&extra, &rr, &s, a, conn.client);
    code = cli_exit_code(&s, max_rejects, rc, rr.table_io);
    if (rr.target_table && rr.dry_run && rc == 0) {
        int pc = cli_cost_estimate(&extra, &s.extra_json, &rr, &s, a,
                                   conn.config ? conn.config->region : NULL);
        code = code == EXIT_OK ? pc : code;
    } else if (rr.table_io && !rr.dry_run && a->via_import == NULL) {
        s.extra_json = cli_cost_consumed_json(&rr);
    }
    cli_print_summary(spec->name, &s, code, a->max_rejects, extra.ptr, a->quiet);
    if (a->summary && write_summary(plan, a->summary, &s, code) != 0 && code == EXIT_OK)
        code = EXIT_OUTPUT;
    if ((own_summary = ddb_run_plan_summary_path(plan)) != NULL &&
        write_summary(plan, own_summary, &s, code) != 0 && code == EXIT_OK)
        code = EXIT_OUTPUT;
    if (a->live && code == EXIT_OK)
        code = cli_live_run(&live, a);
done:
    cli_live_dispose(&live);
    ddb_buf_dispose(&extra);
    ro->identity = NULL; /* its text is gone with this call */
    ddb_buf_dispose(&identity);
    free(own_summary);
    ddb_summary_dispose(&s);
    ddb_run_plan_free(plan);
    cli_disconnect(&to_conn);
    cli_disconnect(&conn);
    return code;
}

static int run_command(const run_spec *spec, int argc, char **argv)
{
    const cli_command *cmd = cli_find_command(spec->name);
    run_args a;
    ddb_run_options ro;
    const char **inputs = NULL;
    char *columns_text = NULL;
    const char **columns = NULL;
    size_t n_inputs = 0;
    ddb_gen_count *counts = NULL;
    char *count_names = NULL;
    int help = 0, code;

    if ((code = cli_run_parse(cmd, spec->groups, argc, argv, &a, &inputs, &n_inputs, &help)) != 0 ||
        help)
        goto done;
    if ((code = cli_fill_run_options(&ro, spec, &a, inputs, n_inputs)) != 0)
        goto done;
    if (ro.generate && a.count &&
        (code = cli_parse_counts(a.count, &counts, &ro.n_gen_counts, &count_names)) != 0)
        goto done;
    ro.gen_counts = counts;
    if (a.columns != NULL) {
        /* "id:N,name,tags:SS" -> the reader's column list */
        size_t n = 1;
        for (const char *c = a.columns; *c; c++)
            n += *c == ',';
        columns_text = strdup(a.columns);
        columns = calloc(n, sizeof(*columns));
        if (columns_text == NULL || columns == NULL) {
            cli_error(NULL, "out of memory");
            code = EXIT_OUTPUT;
            goto done;
        }
        n = 0;
        for (char *c = columns_text;; c++) {
            columns[n++] = c;
            if ((c = strchr(c, ',')) == NULL)
                break;
            *c = '\0';
        }
        ro.reader.columns = columns;
        ro.reader.n_columns = n;
    }
    code = run_planned(spec, cmd, &a, &ro);
done:
    free(counts);
    free(count_names);
    free(inputs);
    free(columns);
    free(columns_text);
    return code;
}

static const run_spec specs[] = {
    {"export", DDB_MODE_EXPORT,
     G_OUT | G_RECORDS | G_MAP | G_IN | G_SCAN | G_AWS | G_COMMON | G_SIDE | G_STATE | G_VIAEXP |
         G_SELECT | G_DRY},
    {"convert", DDB_MODE_CONVERT,
     G_OUT | G_ITEMS | G_MAP | G_TOMAP | G_IN | G_COMMON | G_SIDE | G_STATE | G_SELECT},
    {"encode", DDB_MODE_ENCODE,
     G_OUT | G_ITEMS | G_MAP | G_ENTITY | G_IN | G_COMMON | G_SIDE | G_STATE},
    {"validate", DDB_MODE_VALIDATE, G_MAP | G_ENTITY | G_IN | G_SCAN | G_AWS | G_COMMON | G_SIDE},
    {"import", DDB_MODE_IMPORT,
     G_MAP | G_ENTITY | G_IN | G_IMPORT | G_AWS | G_DRY | G_COMMON | G_SIDE | G_STATE | G_VIAIMP},
    {"migrate", DDB_MODE_CONVERT,
     G_MAP | G_TOMAP | G_IN | G_SCAN | G_MIGRATE | G_AWS | G_DRY | G_COMMON | G_SIDE | G_STATE |
         G_SELECT},
    /* export's way for records, convert's for items (cli_fill_run_options) */
    {"generate", DDB_MODE_EXPORT, G_GEN | G_MAP | G_AWS | G_DRY | G_COMMON | G_SIDE | G_STATE},
};

static int run_named(const char *name, int argc, char **argv)
{
    for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++)
        if (strcmp(specs[i].name, name) == 0)
            return run_command(&specs[i], argc, argv);
    return EXIT_USAGE;
}

int cmd_export(int argc, char **argv)
{
    return run_named("export", argc, argv);
}

int cmd_convert(int argc, char **argv)
{
    return run_named("convert", argc, argv);
}

int cmd_encode(int argc, char **argv)
{
    return run_named("encode", argc, argv);
}

int cmd_validate(int argc, char **argv)
{
    return run_named("validate", argc, argv);
}

int cmd_import(int argc, char **argv)
{
    return run_named("import", argc, argv);
}

int cmd_migrate(int argc, char **argv)
{
    return run_named("migrate", argc, argv);
}

int cmd_generate(int argc, char **argv)
{
    return run_named("generate", argc, argv);
}
