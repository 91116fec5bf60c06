/*
 * The pipeline commands: export, convert, encode, validate, import, migrate.
 * One option table serves them all; each command accepts the option groups it
 * has a use for. What differs is the pipeline mode, where records come from
 * (files or a table scan) and where they go (files, a table, or nowhere in a
 * dry run).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "ddbpipe/checkpoint.h"
#include "ddbpipe/generate.h"
#include "ddbpipe/mapping.h"
#include "ddbpipe/output.h"
#include "ddbpipe/output_null.h"
#include "ddbpipe/output_stream.h"
#include "ddbpipe/output_table.h"
#include "ddbpipe/pipeline.h"
#include "ddbpipe/reader_table.h"
#include "ddbpipe/table.h"
#include "progress.h"
#include "run_support.h"

typedef struct grouped_opt {
    unsigned groups;
    cli_opt opt;
} grouped_opt;

static size_t build_opts(cli_opt *out, const grouped_opt *all, size_t n, unsigned groups)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (all[i].groups & groups)
            out[k++] = all[i].opt;
    memset(&out[k], 0, sizeof(out[k]));
    return k;
}

int cli_open_scan(ddb_reader **scan, ddb_table_info **info, ddb_client *client, const char *table,
                  const run_args *a)
{
    ddb_table_reader_opts to;
    ddb_error err;
    memset(&to, 0, sizeof(to));
    if (ddb_table_describe(info, client, table, &err) != 0) {
        cli_error(NULL, "%s", err.message);
        return err.code == DDB_ENOTFOUND ? EXIT_INPUT : EXIT_SERVICE;
    }
    to.client = client;
    to.table = table;
    to.total_segments = (int)(a->segments ? a->segments : 4);
    to.consistent_read = a->consistent_read;
    to.page_size = a->page_size;
    to.max_rcu = (double)a->max_rcu;
    if (a->segment_range) {
        to.has_range = 1;
        if (cli_parse_range(a->segment_range, &to.segment_first, &to.segment_last) != 0) {
            cli_error("write it A-B, e.g. 0-3", "bad --segment-range \"%s\"", a->segment_range);
            return EXIT_USAGE;
        }
    }
    if (ddb_reader_new_table(scan, &to, &err) != 0) {
        cli_error("see --help for --segments and --segment-range", "%s", err.message);
        return EXIT_USAGE;
    }
    (*scan)->expected_items = (*info)->item_count;
    return 0;
}

int cli_load_mapping(const char *path, const char *opt, ddb_mapping **out)
{
    ddb_error err;
    if (ddb_mapping_load(out, path, &err) != 0) {
        char hint[128];
        snprintf(hint, sizeof(hint), "check the file given to --%s (see formats/README.md)", opt);
        cli_error(hint, "%s", err.message);
        return EXIT_USAGE;
    }
    return 0;
}

/* The options of the pipeline commands, by group; out needs room for 64. */
size_t cli_run_options(cli_opt *out, run_args *a, unsigned groups)
{
    const grouped_opt all[] = {
        {G_OUT,
         {"out", OPT_STRING, &a->out, "DIR", "folder for the output files (created if missing)"}},
        {G_DIFF,
         {"out", OPT_STRING, &a->out, "DIR",
          "where differences.ndjson and each side's rejects go (default: .)"}},
        {G_MAP,
         {"mapping", OPT_STRING, &a->mapping, "FILE", "the table's mapping (formats/*.json)"}},
        {G_TOMAP, {"to-mapping", OPT_STRING, &a->to_mapping, "FILE", "the mapping to re-key into"}},
        {G_OUT, {"format", OPT_STRING, &a->format, "FMT", "output format: ndjson, csv, ddb-json"}},
        {G_OUT, {"gzip", OPT_FLAG, &a->gzip, NULL, "gzip the output files"}},
        {G_OUT,
         {"out-delimiter", OPT_CHAR, &a->out_delimiter, "C", "CSV output delimiter (default ,)"}},
        {G_ENTITY,
         {"entity", OPT_STRING, &a->entity, "NAME",
          "the entity of the input records (default: from the file name)"}},
        {G_SCAN, {"table", OPT_STRING, &a->table, "NAME", "read this table (parallel Scan)"}},
        {G_IMPORT, {"table", OPT_STRING, &a->table, "NAME", "the table to write"}},
        {G_GEN,
         {"count", OPT_STRING, &a->count, "ENTITY=N,...",
          "records to make per entity (k, M, G allowed); a bare N: for every entity not named"}},
        {G_GEN,
         {"seed", OPT_UINT, &a->seed, "N",
          "seed of the made-up values (default 0): the same "
          "seed, mapping and counts give the same bytes"}},
        {G_GEN,
         {"table", OPT_STRING, &a->table, "NAME", "write the items into this table, not files"}},
        {G_MIGRATE, {"to-table", OPT_STRING, &a->to_table, "NAME", "the table to write"}},
        {G_DIFF, {"table", OPT_STRING, &a->table, "NAME", "side A is this table (parallel Scan)"}},
        {G_DIFF,
         {"to-table", OPT_STRING, &a->to_table, "NAME", "side B is this table (parallel Scan)"}},
        {G_DIFF,
         {"to-mapping", OPT_STRING, &a->to_mapping, "FILE",
          "side B's mapping, when it differs from --mapping (e.g. after a re-keying)"}},
        {G_DIFF,
         {"key", OPT_STRING, &a->key, "NAME[,NAME]",
          "without a mapping: the key attributes (default: the table's key schema)"}},
        {G_DIFF,
         {"sample", OPT_STRING, &a->sample, "P",
          "compare only a share of the keys, the same on both sides: 10% or 0.1"}},
        {G_DIFF,
         {"max-memory", OPT_UINT, &a->max_memory, "MB",
          "memory for comparing one pair of buckets (default 256); larger ones are split"}},
        {G_IMPORT | G_MIGRATE | G_GEN,
         {"create-table", OPT_FLAG, &a->create_table, NULL,
          "create the target table with all its indexes from the mapping "
          "if it does not exist"}},
        {G_IMPORT,
         {"delete", OPT_FLAG, &a->delete_all, NULL,
          "delete the items whose keys the input holds, instead of writing them"}},
        {G_SCAN | G_DIFF,
         {"segments", OPT_UINT, &a->segments, "N", "parallel Scan segments (default 4)"}},
        {G_SCAN | G_DIFF,
         {"segment-range", OPT_STRING, &a->segment_range, "A-B",
          "scan only segments A..B of --segments (to share a table across hosts)"}},
        {G_SCAN | G_DIFF,
         {"consistent-read", OPT_FLAG, &a->consistent_read, NULL, "strongly consistent Scan"}},
        {G_SCAN | G_DIFF,
         {"page-size", OPT_UINT, &a->page_size, "N",
          "items per Scan request (default: 1 MB pages)"}},
        {G_SCAN | G_DIFF,
         {"max-rcu", OPT_UINT, &a->max_rcu, "N",
          "read at most N capacity units per second (as DynamoDB reports them)"}},
        {G_IMPORT | G_MIGRATE | G_GEN,
         {"max-wcu", OPT_UINT, &a->max_wcu, "N",
          "write at most N capacity units per second (as DynamoDB reports "
          "them; also sizes the --dry-run estimate)"}},
        {G_DRY,
         {"dry-run", OPT_FLAG, &a->dry_run, NULL,
          "do everything but the writes; report what would be written"}},
        {G_IN,
         {"input-format", OPT_STRING, &a->input_format, "FMT",
          "force the input format: ddb-json, scan, ndjson, csv, export (default: by content)"}},
        {G_IN,
         {"delimiter", OPT_CHAR, &a->delimiter, "C", "CSV input delimiter: , tab ; | (default ,)"}},
        {G_IN,
         {"types", OPT_STRING, &a->types, "NAME=T,...",
          "types of CSV/NDJSON attributes without a mapping, e.g. age=N,tags=SS"}},
        {G_IN,
         {"no-verify", OPT_FLAG, &a->no_verify, NULL,
          "do not check export checksums and item counts"}},
        {G_IN,
         {"max-line", OPT_UINT, &a->max_line, "BYTES", "longest accepted line or row (64 MiB)"}},
        {G_COMMON,
         {"rejects", OPT_STRING, &a->rejects, "FILE",
          "where rejected records go (default OUT/_rejects.ndjson, or ./ddbpipe-rejects.ndjson)"}},
        {G_COMMON,
         {"max-rejects", OPT_UINT, &a->max_rejects, "N",
          "exit 0 when at most N records were rejected (default 0)"}},
        {G_COMMON,
         {"summary", OPT_STRING, &a->summary, "FILE", "also write the summary as JSON to FILE"}},
        {G_COMMON, {"quiet", OPT_FLAG, &a->quiet, NULL, "print only errors and the summary"}},
        {G_COMMON,
         {"progress", OPT_STRING, &a->progress, "MODE",
          "auto (a live line on a terminal, log lines otherwise), bar, log, json, off"}},
        {G_COMMON,
         {"progress-interval", OPT_UINT, &a->progress_interval, "SECONDS",
          "seconds between progress lines when not on a terminal (default 10)"}},
        {G_STATE,
         {"state", OPT_STRING, &a->state, "FILE",
          "record progress in FILE (atomically, at intervals and at exit) so the run "
          "can be resumed"}},
        {G_STATE,
         {"resume", OPT_FLAG, &a->resume, NULL,
          "continue the run recorded in --state FILE (same inputs, mapping, options)"}},
        {G_STATE,
         {"checkpoint-interval", OPT_UINT, &a->checkpoint_interval, "SECONDS",
          "seconds between checkpoints (default 10; 0: several a second)"}},
    };
    const cli_opt aws_opts[] = {CLI_AWS_OPTS(a->aws)};
    size_t n = build_opts(out, all, sizeof(all) / sizeof(all[0]), groups);
    if (groups & G_AWS) {
        for (size_t i = 0; i < sizeof(aws_opts) / sizeof(aws_opts[0]); i++)
            out[n++] = aws_opts[i];
        memset(&out[n], 0, sizeof(out[n]));
    }
    return n;
}

static int run_command(const run_spec *spec, int argc, char **argv)
{
    const cli_command *cmd = NULL;
    run_args a;
    const char **inputs = NULL;
    size_t n_inputs = 0;
    int help = 0, code = EXIT_OK, rc, table_io = 0;
    ddb_mapping *mapping = NULL, *to_mapping = NULL;
    ddb_output *output = NULL;
    ddb_rejects *rejects = NULL;
    ddb_reader *scan = NULL, *gen_reader = NULL;
    ddb_generator *gen = NULL;
    ddb_type_hint *types = NULL;
    size_t n_types = 0;
    ddb_pipeline_opts po;
    ddb_summary s;
    ddb_error err;
    cli_conn conn;
    ddb_table_info *target = NULL, *source_info = NULL;
    char *rejects_default = NULL;
    const char *target_table = NULL;
    ddb_buf extra = DDB_BUF_INIT, fingerprint = DDB_BUF_INIT;
    ddb_state *state = NULL;
    cli_progress progress;
    cli_opt opts[64];

    memset(&a, 0, sizeof(a));
    memset(&s, 0, sizeof(s));
    memset(&conn, 0, sizeof(conn));
    a.checkpoint_interval = UINT64_MAX; /* not given: 10 s */

    for (size_t i = 0; i < cli_n_commands; i++)
        if (strcmp(cli_commands[i].name, spec->name) == 0)
            cmd = &cli_commands[i];
    cli_run_options(opts, &a, spec->groups);
    if ((code = cli_parse(argc, argv, cmd, opts, &inputs, &n_inputs, &help)) != 0)
        goto done;
    if (help) {
        cli_print_help(cmd, opts);
        goto done;
    }
    code = EXIT_USAGE;
    {
        int scanning = (spec->groups & G_SCAN) && a.table != NULL;
        char hint[256];
        snprintf(hint, sizeof(hint), "ddbpipe %s", cmd->usage);
        if ((spec->groups & G_GEN) && n_inputs > 0) {
            cli_error(hint, "generate reads no input; it makes records from the mapping");
            goto done;
        }
        if ((spec->groups & G_GEN) && (a.mapping == NULL || a.count == NULL)) {
            cli_error("e.g. --mapping formats/favorites.json --count Tag=100,FavoriteData=1k",
                      "generate needs --mapping and --count");
            goto done;
        }
        if ((spec->groups & G_GEN) && a.table && a.out) {
            cli_error(hint, "give either --out DIR or --table, not both");
            goto done;
        }
        if ((spec->groups & G_GEN) && a.out && strcmp(a.out, "-") == 0 &&
            (a.state || a.gzip || (a.format && strcmp(a.format, "ddb-json") != 0))) {
            cli_error("e.g. ddbpipe generate ... --out - | ddbpipe import - --table T",
                      "--out - writes items as DynamoDB JSON lines (no --format, --gzip or "
                      "--state)");
            goto done;
        }
        if (n_inputs == 0 && !scanning && !(spec->groups & G_GEN)) {
            cli_error(hint,
                      (spec->groups & G_SCAN)
                          ? "no input given (files, an export folder, - for stdin, or --table)"
                          : "no input given (a file, an export folder, or - for stdin)");
            goto done;
        }
        if (n_inputs > 0 && scanning) {
            cli_error(hint, "give either input files or --table, not both");
            goto done;
        }
        if ((spec->groups & G_OUT) && a.out == NULL && !((spec->groups & G_GEN) && a.table)) {
            cli_error(hint, "--out DIR is required");
            goto done;
        }
        if ((spec->groups & G_IMPORT) && a.table == NULL) {
            cli_error(hint, "--table is required");
            goto done;
        }
        if ((spec->groups & G_MIGRATE) && a.to_table == NULL) {
            cli_error(hint, "--to-table is required");
            goto done;
        }
        if ((spec->mode == DDB_MODE_CONVERT || spec->mode == DDB_MODE_ENCODE) &&
            a.mapping == NULL) {
            cli_error("pass the table's mapping, e.g. --mapping formats/favorites.json",
                      "%s needs --mapping", spec->name);
            goto done;
        }
        if (spec->mode == DDB_MODE_CONVERT && a.to_mapping == NULL) {
            cli_error("e.g. --to-mapping formats/favorites-v2.json", "%s needs --to-mapping",
                      spec->name);
            goto done;
        }
        if (a.create_table && (spec->groups & G_IMPORT) && a.mapping == NULL) {
            cli_error("the mapping describes the table's keys and indexes",
                      "--create-table needs --mapping");
            goto done;
        }
        if (a.segment_range && a.segments == 0) {
            cli_error("e.g. --segments 8 --segment-range 0-3", "--segment-range needs --segments");
            goto done;
        }
        if (a.resume && a.state == NULL) {
            cli_error("e.g. --state run.state --resume", "--resume needs --state FILE");
            goto done;
        }
        for (size_t i = 0; a.state && i < n_inputs; i++) {
            if (strcmp(inputs[i], "-") == 0) {
                cli_error("save standard input to a file first", "--state cannot resume a run "
                                                                 "reading standard input");
                goto done;
            }
        }
    }
    if (cli_check_run_args(&a) != 0)
        goto done;
    if (a.state) {
        ddb_error serr;
        if (cli_build_fingerprint(&fingerprint, spec, &a, inputs, n_inputs) != 0)
            goto done;
        rc = ddb_state_load(&state, a.state, &serr);
        if (a.resume) {
            if (rc != 0) {
                cli_error("run without --resume to start", "%s", serr.message);
                goto done;
            }
            if (state->complete) {
                fprintf(stderr, "ddbpipe: the run recorded in %s is complete; nothing to resume\n",
                        a.state);
                code = EXIT_OK;
                goto done;
            }
            if (ddb_state_check_fingerprint(state->fingerprint, fingerprint.ptr, &serr) != 0) {
                cli_error("resume with exactly the command that was interrupted, or remove the "
                          "state file to start over",
                          "%s", serr.message);
                goto done;
            }
        } else {
            if (rc == 0 && !state->complete) {
                cli_error("add --resume to continue it, or remove the file to start over",
                          "%s records an unfinished run", a.state);
                goto done;
            }
            ddb_state_free(state);
            state = NULL;
        }
    }
    if (a.mapping && cli_load_mapping(a.mapping, "mapping", &mapping) != 0)
        goto done;
    if (a.to_mapping && cli_load_mapping(a.to_mapping, "to-mapping", &to_mapping) != 0)
        goto done;
    if (a.entity && mapping && ddb_mapping_entity(mapping, a.entity) == NULL) {
        cli_error("the entity names are the \"name\" of each entity in the mapping",
                  "entity \"%s\" is not in %s", a.entity, a.mapping);
        goto done;
    }
    if (a.types && cli_parse_types(a.types, &types, &n_types) != 0)
        goto done;

    memset(&po, 0, sizeof(po));
    po.mode = spec->mode;
    po.command = spec->name;
    po.inputs = inputs;
    po.n_inputs = n_inputs;
    po.mapping = mapping;
    po.to_mapping = to_mapping;
    po.types = types;
    po.n_types = n_types;
    po.delete_all = a.delete_all;
    po.reader.delimiter = a.delimiter;
    po.reader.max_line = a.max_line;
    po.reader.no_verify = a.no_verify;
    po.reader.entity = a.entity;
    if (spec->groups & G_GEN) {
        /* Records come from the generator; items for a table or ddb-json files
         * are decoded and encoded again, so every entity is counted by name. */
        if ((code = cli_generator_open(&gen, &gen_reader, mapping, &a)) != 0)
            goto done;
        code = EXIT_USAGE;
        po.readers = &gen_reader;
        po.n_readers = 1;
        if (a.table || (a.format && strcmp(a.format, "ddb-json") == 0) || strcmp(a.out, "-") == 0) {
            po.mode = DDB_MODE_CONVERT;
            po.to_mapping = mapping;
        }
    }
    if (a.input_format)
        ddb_input_format_parse(&po.reader.format, a.input_format); /* checked above */

    /* DynamoDB: a table to scan and/or a table to write. */
    target_table = (spec->groups & (G_IMPORT | G_GEN)) ? a.table : a.to_table;
    if (((spec->groups & G_SCAN) && a.table) || target_table) {
        if ((code = cli_connect(&conn, &a.aws)) != 0)
            goto done;
        code = EXIT_USAGE;
        table_io = 1;
    }
    if ((spec->groups & G_SCAN) && a.table) {
        table_io = 2;
        if ((code = cli_open_scan(&scan, &source_info, conn.client, a.table, &a)) != 0)
            goto done;
        code = EXIT_USAGE;
        po.readers = &scan;
        po.n_readers = 1;
    }
    if (target_table) {
        const ddb_mapping *tm = spec->mode == DDB_MODE_CONVERT ? to_mapping : mapping;
        if (a.create_table && !a.dry_run &&
            ddb_table_create(conn.client, tm, target_table, 1, 600, &err) != 0) {
            cli_error(NULL, "%s", err.message);
            code = EXIT_SERVICE;
            goto done;
        }
        rc = ddb_table_describe(&target, conn.client, target_table, &err);
        if (rc != 0 && !(a.dry_run && rc == DDB_ENOTFOUND)) {
            cli_error(rc == DDB_ENOTFOUND ? "create it first, or add --create-table" : NULL, "%s",
                      err.message);
            code = rc == DDB_ENOTFOUND ? EXIT_USAGE : EXIT_SERVICE;
            goto done;
        }
        if (a.dry_run) {
            rc = ddb_null_output_new(&output,
                                     target ? &target->schema
                                     : tm   ? &tm->table.schema
                                            : NULL,
                                     &err);
        } else {
            ddb_table_output_opts tw;
            memset(&tw, 0, sizeof(tw));
            tw.client = conn.client;
            tw.table = target_table;
            tw.info = target;
            tw.max_attempts = (int)a.aws.max_attempts;
            tw.max_wcu = (double)a.max_wcu;
            rc = ddb_table_output_new(&output, &tw, &err);
        }
        if (rc != 0) {
            cli_error(NULL, "%s", err.message);
            goto done;
        }
    } else if ((spec->groups & G_GEN) && strcmp(a.out, "-") == 0) {
        ddb_sink *sink = NULL;
        if ((rc = ddb_sink_open_file(&sink, "-", 0, &err)) != 0 ||
            (rc = ddb_stream_output_new(&output, sink, &err)) != 0) {
            cli_error(NULL, "%s", err.message);
            code = EXIT_OUTPUT;
            goto done;
        }
    } else if (spec->groups & G_OUT) {
        ddb_file_output_opts fo;
        memset(&fo, 0, sizeof(fo));
        fo.dir = a.out;
        fo.gzip = a.gzip;
        fo.delimiter = a.out_delimiter;
        fo.mapping = mapping;
        fo.records = po.mode == DDB_MODE_EXPORT;
        fo.single_name = "items";
        fo.resumable = a.state != NULL;
        fo.resume_state = state ? state->outputs : NULL;
        fo.format = po.mode == DDB_MODE_EXPORT ? DDB_OUT_NDJSON : DDB_OUT_DDBJSON;
        if (a.format && ddb_out_format_parse(&fo.format, a.format) != 0) {
            cli_error("use ndjson, csv or ddb-json", "unknown --format \"%s\"", a.format);
            goto done;
        }
        if (po.mode != DDB_MODE_EXPORT && fo.format != DDB_OUT_DDBJSON) {
            cli_error("items are written as DynamoDB JSON (the Import from S3 form)",
                      "--format %s is not available for %s", a.format, spec->name);
            goto done;
        }
        if ((rc = ddb_file_output_new(&output, &fo, &err)) != 0) {
            cli_error("check that the folder is writable", "%s", err.message);
            code = EXIT_OUTPUT;
            goto done;
        }
        if (a.rejects == NULL) {
            size_t n = strlen(a.out) + 32;
            rejects_default = malloc(n);
            snprintf(rejects_default, n, "%s/_rejects.ndjson", a.out);
        }
    }
    if (a.rejects == NULL && rejects_default == NULL && target_table)
        rejects_default = strdup("ddbpipe-rejects.ndjson");
    if (a.rejects || rejects_default) {
        const char *rp = a.rejects ? a.rejects : rejects_default;
        rc = a.state ? ddb_rejects_new_resumable(&rejects, rp, state != NULL,
                                                 state ? state->rejects_bytes : 0,
                                                 state ? state->ck.rejects : 0, &err)
                     : ddb_rejects_new(&rejects, rp, &err);
        if (rc != 0) {
            cli_error(NULL, "%s", err.message);
            code = EXIT_OUTPUT;
            goto done;
        }
    }
    po.output = output;
    po.rejects = rejects;
    po.report = cli_report;
    po.report_limit = spec->mode == DDB_MODE_VALIDATE ? 0 : (a.quiet ? 5 : 20);
    po.state_path = a.state;
    po.fingerprint = fingerprint.ptr;
    po.resume = state;
    po.checkpoint_seconds = a.checkpoint_interval == UINT64_MAX ? 10.0
                            : a.checkpoint_interval == 0        ? 0.2 /* as often as it is worth */
                                                                : (double)a.checkpoint_interval;
    po.stop = cli_stop_flag();

    {
        int mode = CLI_PROGRESS_AUTO;
        cli_progress_parse(a.progress, &mode);
        cli_progress_init(&progress, mode, (double)a.progress_interval, a.quiet);
        progress.client = conn.client;
        progress.table_output = target_table && !a.dry_run ? output : NULL;
        progress.scan = scan;
        if (scan)
            progress.total_items = scan->expected_items;
        if (gen)
            progress.total_items = ddb_generator_total(gen);
        for (size_t i = 0; i < n_inputs; i++) {
            struct stat st;
            if (strcmp(inputs[i], "-") != 0 && stat(inputs[i], &st) == 0 && S_ISREG(st.st_mode))
                progress.total_bytes += (uint64_t)st.st_size;
        }
        po.progress = cli_progress_update;
        po.progress_ctx = &progress;
        if (conn.client) {
            ddb_client_set_idle(conn.client, cli_progress_idle, &progress);
            ddb_client_set_stop_flag(conn.client, cli_stop_flag());
        }
    }
    cli_catch_stop_signals();
    rc = ddb_pipeline_run(&s, &po, &err);
    cli_progress_end(&progress);
    if (rc != 0 && rc != DDB_EINTR)
        cli_error(NULL, "%s", err.message);
    if (output != NULL && s.committed && !target_table && !(a.out && strcmp(a.out, "-") == 0)) {
        const char *const *paths;
        size_t n = ddb_file_output_paths(output, &paths);
        s.outputs = calloc(n ? n : 1, sizeof(char *));
        for (size_t i = 0; s.outputs && i < n; i++)
            s.outputs[s.n_outputs++] = strdup(paths[i]);
    }
    if (scan) {
        ddb_scan_stats ss;
        ddb_table_reader_stats(scan, &ss);
        ddb_buf_printf(&extra,
                       "  scan of %s: %llu pages, %llu items scanned, %.1f RCU, %llu throttled\n",
                       a.table, (unsigned long long)ss.requests, (unsigned long long)ss.scanned,
                       ss.capacity_units, (unsigned long long)ss.throttles);
    }
    if (output && target_table && a.dry_run) {
        ddb_dry_run_stats ds;
        ddb_null_output_stats(output, &ds);
        ddb_buf_printf(&extra,
                       "  dry run: nothing written to %s; would put %llu items (%llu bytes) and "
                       "delete %llu, about %llu WCU\n",
                       target_table, (unsigned long long)ds.puts, (unsigned long long)ds.bytes,
                       (unsigned long long)ds.deletes, (unsigned long long)ds.wcu);
        if (target && target->n_indexes > 0)
            ddb_buf_printf(&extra,
                           "  (each index an item is written to costs as much again: %zu "
                           "indexes on %s)\n",
                           target->n_indexes, target_table);
        if (a.max_wcu > 0) {
            double secs = (double)ds.wcu / (double)a.max_wcu;
            ddb_buf_printf(&extra,
                           "  at --max-wcu %llu that takes about %.0f s (%.1f min) of "
                           "writing\n",
                           (unsigned long long)a.max_wcu, secs, secs / 60.0);
        }
    } else if (output && target_table) {
        ddb_table_write_stats ws;
        ddb_table_output_stats(output, &ws);
        ddb_buf_printf(&extra,
                       "  %s: %llu batches, %llu items retried as unprocessed, %llu throttled, "
                       "%llu batches split, %llu waited for an earlier write of their key, "
                       "%.1f WCU (%.1f WCU/s)\n",
                       target_table, (unsigned long long)ws.batches,
                       (unsigned long long)ws.unprocessed, (unsigned long long)ws.throttles,
                       (unsigned long long)ws.splits, (unsigned long long)ws.blocked,
                       ws.capacity_units, s.seconds > 0 ? ws.capacity_units / s.seconds : 0);
    }
    if (conn.client) {
        ddb_client_stats cs;
        ddb_client_stats_get(conn.client, &cs);
        if (cs.decreases > 0)
            ddb_buf_printf(&extra,
                           "  throttled: requests in flight cut %llu time%s, down to %d (of %llu); "
                           "%llu retries in all\n",
                           (unsigned long long)cs.decreases, cs.decreases == 1 ? "" : "s",
                           cs.min_concurrency,
                           (unsigned long long)(a.aws.concurrency ? a.aws.concurrency : 16),
                           (unsigned long long)cs.retries);
    }
    code = cli_exit_code(&s, a.max_rejects, rc, table_io);
    if (s.interrupted && a.state)
        ddb_buf_printf(&extra,
                       "  interrupted: checkpoint saved in %s; continue with the same "
                       "command and --resume\n",
                       a.state);
    else if (s.interrupted)
        ddb_buf_puts(&extra, "  interrupted (run with --state FILE to be able to resume)\n");
    else if (s.resumed)
        ddb_buf_printf(&extra, "  resumed from %s\n", a.state);
    cli_print_summary(spec->name, &s, code, a.max_rejects, extra.ptr);
    if (a.summary && cli_write_summary_file(a.summary, &s, code) != 0 && code == EXIT_OK)
        code = EXIT_OUTPUT;
done:
    ddb_buf_dispose(&extra);
    ddb_buf_dispose(&fingerprint);
    ddb_state_free(state);
    ddb_summary_dispose(&s);
    ddb_output_free(output);
    ddb_reader_free(scan);
    ddb_reader_free(gen_reader);
    ddb_generator_free(gen);
    ddb_rejects_free(rejects);
    ddb_table_info_free(target);
    ddb_table_info_free(source_info);
    cli_disconnect(&conn);
    ddb_mapping_free(mapping);
    ddb_mapping_free(to_mapping);
    for (size_t i = 0; i < n_types; i++)
        free((char *)types[i].name);
    free(types);
    free(rejects_default);
    free(inputs);
    return code;
}

static const run_spec specs[] = {
    {"export", DDB_MODE_EXPORT, G_OUT | G_MAP | G_IN | G_SCAN | G_AWS | G_COMMON | G_STATE},
    {"convert", DDB_MODE_CONVERT, G_OUT | G_MAP | G_TOMAP | G_IN | G_COMMON | G_STATE},
    {"encode", DDB_MODE_ENCODE, G_OUT | G_MAP | G_ENTITY | G_IN | G_COMMON | G_STATE},
    {"validate", DDB_MODE_VALIDATE, G_MAP | G_ENTITY | G_IN | G_SCAN | G_AWS | G_COMMON},
    {"import", DDB_MODE_IMPORT,
     G_MAP | G_ENTITY | G_IN | G_IMPORT | G_AWS | G_DRY | G_COMMON | G_STATE},
    {"migrate", DDB_MODE_CONVERT,
     G_MAP | G_TOMAP | G_IN | G_SCAN | G_MIGRATE | G_AWS | G_DRY | G_COMMON | G_STATE},
    {"generate", DDB_MODE_EXPORT, G_OUT | G_MAP | G_GEN | G_AWS | G_DRY | G_COMMON | G_STATE},
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
