/*
 * diff: two sides (a table, files, an export folder), each read by the
 * pipeline in import mode into the diff's bucket output, then compared. The
 * engine (diff.h) does the work; here are the sides, progress, the report
 * and the exit status: 0 only when the sides hold the same records.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "ddbpipe/diff.h"
#include "ddbpipe/json.h"
#include "ddbpipe/output.h"
#include "ddbpipe/pipeline.h"
#include "ddbpipe/reader_table.h"
#include "ddbpipe/table.h"
#include "progress.h"
#include "run_support.h"

typedef struct side {
    const char *table; /* or NULL: files */
    char **inputs;     /* owned strings */
    size_t n_inputs;
    const ddb_mapping *m;
    ddb_reader *scan;
    ddb_table_info *info;
    ddb_summary s;
    int rc;
    char label[300];
} side;

static int add_input(side *sd, const char *path)
{
    char **n = realloc(sd->inputs, (sd->n_inputs + 1) * sizeof(char *));
    if (n == NULL)
        return -1;
    sd->inputs = n;
    return (sd->inputs[sd->n_inputs++] = strdup(path)) ? 0 : -1;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A folder that is not an Export to S3 stands for its files (the output of
 * an export: OUT/<Entity>.csv, OUT/_unmatched.ndjson), hidden files and
 * rejects left out. */
static int add_path(side *sd, const char *path)
{
    struct stat st;
    char probe[4096];
    DIR *dir;
    struct dirent *de;
    size_t first = sd->n_inputs;
    snprintf(probe, sizeof(probe), "%s/manifest-summary.json", path);
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode) || stat(probe, &st) == 0)
        return add_input(sd, path);
    if ((dir = opendir(path)) == NULL)
        return add_input(sd, path); /* the reader says why it cannot be read */
    while ((de = readdir(dir)) != NULL) {
        char full[4096];
        if (de->d_name[0] == '.' || strncmp(de->d_name, "_rejects", 8) == 0)
            continue;
        snprintf(full, sizeof(full), "%s/%s", path, de->d_name);
        if (stat(full, &st) == 0 && S_ISREG(st.st_mode) && add_input(sd, full) != 0) {
            closedir(dir);
            return -1;
        }
    }
    closedir(dir);
    if (sd->n_inputs > first)
        qsort(sd->inputs + first, sd->n_inputs - first, sizeof(char *), cmp_names);
    return 0;
}

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
 * key schema of a side that is a table. */
static int key_attrs(const run_args *a, side *sides, char **names, size_t *n)
{
    *n = 0;
    if (a->key != NULL) {
        char *copy = strdup(a->key), *save = NULL, *tok;
        for (tok = strtok_r(copy, ",", &save); tok && *n < 2; tok = strtok_r(NULL, ",", &save))
            names[(*n)++] = strdup(tok);
        free(copy);
        return *n > 0 ? 0 : -1;
    }
    for (int s = 0; s < 2 && *n == 0; s++) {
        const ddb_table_info *t = sides[s].info;
        if (t == NULL)
            continue;
        names[(*n)++] = strdup(t->pk.name);
        if (t->sk.name)
            names[(*n)++] = strdup(t->sk.name);
    }
    return *n > 0 ? 0 : -1;
}

static int run_side(side *sd, int index, ddb_diff *d, const run_args *a, ddb_client *client,
                    ddb_type_hint *types, size_t n_types)
{
    ddb_pipeline_opts po;
    ddb_rejects *rejects = NULL;
    ddb_output *out = NULL;
    cli_progress progress;
    ddb_error err;
    char path[4096];
    int mode = CLI_PROGRESS_AUTO;

    memset(&po, 0, sizeof(po));
    snprintf(path, sizeof(path), "%s/_rejects_%c.ndjson", a->out ? a->out : ".", index ? 'b' : 'a');
    if (ddb_diff_side(d, index, &out, &err) != 0 || ddb_rejects_new(&rejects, path, &err) != 0) {
        cli_error(NULL, "%s", err.message);
        return EXIT_OUTPUT;
    }
    /* Import mode: record files named after an entity are encoded, items
     * pass as they are; the diff output decodes every item itself. */
    po.mode = DDB_MODE_IMPORT;
    po.command = "diff";
    po.inputs = (const char *const *)sd->inputs;
    po.n_inputs = sd->n_inputs;
    po.readers = sd->scan ? &sd->scan : NULL;
    po.n_readers = sd->scan ? 1 : 0;
    po.mapping = sd->m;
    po.types = types;
    po.n_types = n_types;
    po.reader.delimiter = a->delimiter;
    po.reader.max_line = a->max_line;
    po.reader.no_verify = a->no_verify;
    if (a->input_format)
        ddb_input_format_parse(&po.reader.format, a->input_format);
    po.output = out;
    po.rejects = rejects;
    po.report = cli_report;
    po.report_limit = a->quiet ? 5 : 20;
    po.stop = cli_stop_flag();
    cli_progress_parse(a->progress, &mode);
    cli_progress_init(&progress, mode, (double)a->progress_interval, a->quiet);
    progress.client = client;
    progress.scan = sd->scan;
    if (sd->scan)
        progress.total_items = sd->scan->expected_items;
    for (size_t i = 0; i < sd->n_inputs; i++) {
        struct stat st;
        if (strcmp(sd->inputs[i], "-") != 0 && stat(sd->inputs[i], &st) == 0 && S_ISREG(st.st_mode))
            progress.total_bytes += (uint64_t)st.st_size;
    }
    po.progress = cli_progress_update;
    po.progress_ctx = &progress;
    if (client)
        ddb_client_set_idle(client, cli_progress_idle, &progress);
    sd->rc = ddb_pipeline_run(&sd->s, &po, &err);
    cli_progress_end(&progress);
    if (client)
        ddb_client_set_idle(client, NULL, NULL);
    if (sd->rc != 0 && sd->rc != DDB_EINTR)
        cli_error(NULL, "%s", err.message);
    ddb_rejects_free(rejects);
    return cli_exit_code(&sd->s, a->max_rejects, sd->rc, sd->table ? 2 : 0);
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
        if (sides[s].table) {
            snprintf(sides[s].label, sizeof(sides[s].label), "table %s", sides[s].table);
            continue;
        }
        snprintf(sides[s].label, sizeof(sides[s].label), "%s", pos[k]);
        for (size_t n = (!a->table && !a->to_table) ? 1 : npos; n > 0 && k < npos; n--)
            if (add_path(&sides[s], pos[k++]) != 0)
                return EXIT_USAGE;
        if (k - 1 > 0 && npos > 2)
            snprintf(sides[s].label + strlen(sides[s].label),
                     sizeof(sides[s].label) - strlen(sides[s].label), " (and %zu more)", npos - 1);
        if (sides[s].n_inputs == 0) {
            cli_error(hint, "side %c: the folder %s holds no files to compare", s ? 'B' : 'A',
                      sides[s].label);
            return EXIT_USAGE;
        }
    }
    return 0;
}

int cmd_diff(int argc, char **argv)
{
    const cli_command *cmd = NULL;
    run_args a;
    cli_opt opts[64];
    const char **pos = NULL;
    size_t npos = 0, n_keys = 0, n_types = 0;
    int help = 0, code = EXIT_USAGE;
    side sides[2];
    ddb_mapping *ma = NULL, *mb = NULL;
    ddb_diff *d = NULL;
    ddb_diff_opts dopts;
    ddb_type_hint *types = NULL;
    cli_conn conn;
    ddb_sink *out = NULL;
    ddb_error err;
    char *keys[2] = {NULL, NULL}, differences[4096];

    memset(&a, 0, sizeof(a));
    memset(sides, 0, sizeof(sides));
    memset(&conn, 0, sizeof(conn));
    memset(&dopts, 0, sizeof(dopts));
    for (size_t i = 0; i < cli_n_commands; i++)
        if (strcmp(cli_commands[i].name, "diff") == 0)
            cmd = &cli_commands[i];
    cli_run_options(opts, &a, G_MAP | G_IN | G_DIFF | G_AWS | G_COMMON);
    for (size_t i = 0, k = 0;; i++) {
        /* each side has its own rejects file: OUT/_rejects_a.ndjson, _b */
        if (opts[i].name == NULL || strcmp(opts[i].name, "rejects") != 0)
            opts[k++] = opts[i];
        if (opts[i].name == NULL)
            break;
    }
    if ((code = cli_parse(argc, argv, cmd, opts, &pos, &npos, &help)) != 0)
        goto done;
    if (help) {
        cli_print_help(cmd, opts);
        goto done;
    }
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
    if (cli_check_run_args(&a) != 0)
        goto done;
    if ((code = assign_sides(sides, &a, pos, npos)) != 0)
        goto done;
    code = EXIT_USAGE;
    if (a.mapping && cli_load_mapping(a.mapping, "mapping", &ma) != 0)
        goto done;
    if (a.to_mapping && cli_load_mapping(a.to_mapping, "to-mapping", &mb) != 0)
        goto done;
    sides[0].m = ma;
    sides[1].m = mb ? mb : ma;
    if (a.types && cli_parse_types(a.types, &types, &n_types) != 0)
        goto done;
    if (a.table || a.to_table) {
        if ((code = cli_connect(&conn, &a.aws)) != 0)
            goto done;
        for (int s = 0; s < 2; s++)
            if (sides[s].table && (code = cli_open_scan(&sides[s].scan, &sides[s].info, conn.client,
                                                        sides[s].table, &a)) != 0)
                goto done;
        ddb_client_set_stop_flag(conn.client, cli_stop_flag());
    }
    code = EXIT_USAGE;
    if (ma == NULL && key_attrs(&a, sides, keys, &n_keys) != 0) {
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
    if (ddb_diff_new(&d, sides[0].m, sides[1].m, &dopts, &err) != 0) {
        cli_error(NULL, "%s", err.message);
        code = err.code == DDB_EUSAGE ? EXIT_USAGE : EXIT_OUTPUT;
        goto done;
    }
    cli_catch_stop_signals();
    for (int s = 0; s < 2; s++)
        if ((code = run_side(&sides[s], s, d, &a, conn.client, types, n_types)) != EXIT_OK &&
            code != EXIT_REJECTS)
            goto done;
    snprintf(differences, sizeof(differences), "%s/differences.ndjson", a.out);
    if (ddb_sink_open_file(&out, differences, 1, &err) != 0 ||
        ddb_diff_compare(d, out, &err) != 0 || ddb_sink_finish(out, &err) != 0) {
        cli_error(NULL, "%s", err.message);
        code = err.code == DDB_ENOMEM ? EXIT_OUTPUT : cli_exit_for(err.code);
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
    ddb_diff_free(d);
    for (int s = 0; s < 2; s++) {
        for (size_t i = 0; i < sides[s].n_inputs; i++)
            free(sides[s].inputs[i]);
        free(sides[s].inputs);
        ddb_reader_free(sides[s].scan);
        ddb_table_info_free(sides[s].info);
        ddb_summary_dispose(&sides[s].s);
    }
    cli_disconnect(&conn);
    ddb_mapping_free(ma);
    ddb_mapping_free(mb);
    for (size_t i = 0; i < n_types; i++)
        free((char *)types[i].name);
    free(types);
    free(keys[0]);
    free(keys[1]);
    free(pos);
    return code;
}
