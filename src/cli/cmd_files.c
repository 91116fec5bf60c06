/*
 * The file commands: export, convert, encode, validate. They share one set of
 * options and one runner; what differs is the pipeline mode, which mappings
 * are required and what the output holds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "ddbpipe/mapping.h"
#include "ddbpipe/output.h"
#include "ddbpipe/pipeline.h"

typedef struct file_args {
    const char *out;
    const char *mapping;
    const char *to_mapping;
    const char *format;
    const char *input_format;
    const char *entity;
    const char *rejects;
    const char *summary;
    const char *types;
    char delimiter;
    char out_delimiter;
    uint64_t max_rejects;
    uint64_t max_line;
    int gzip;
    int no_verify;
    int quiet;
} file_args;

#define COMMON_INPUT_OPTS(a)                                                                       \
    {"input-format", OPT_STRING, &(a).input_format, "FMT",                                         \
     "force the input format: ddb-json, scan, ndjson, csv, export (default: by content)"},        \
        {"delimiter", OPT_CHAR, &(a).delimiter, "C", "CSV input delimiter: , tab ; | (default ,)"}, \
        {"types", OPT_STRING, &(a).types, "NAME=T,...",                                            \
         "types of CSV/NDJSON attributes without a mapping, e.g. age=N,tags=SS"},                 \
        {"no-verify", OPT_FLAG, &(a).no_verify, NULL,                                              \
         "do not check export checksums and item counts"},                                         \
        {"max-line", OPT_UINT, &(a).max_line, "BYTES", "longest accepted line or row (64 MiB)"},   \
        {"rejects", OPT_STRING, &(a).rejects, "FILE",                                              \
         "where rejected records go (default OUT/_rejects.ndjson)"},                              \
        {"max-rejects", OPT_UINT, &(a).max_rejects, "N",                                           \
         "exit 0 when at most N records were rejected (default 0)"},                               \
        {"summary", OPT_STRING, &(a).summary, "FILE", "also write the summary as JSON to FILE"},   \
        {"quiet", OPT_FLAG, &(a).quiet, NULL, "print only errors and the summary"}

static int load_mapping(const char *path, const char *opt, ddb_mapping **out)
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

static int write_summary_file(const char *path, const ddb_summary *s, int code)
{
    ddb_buf b = DDB_BUF_INIT;
    ddb_sink *sink = NULL;
    ddb_error err;
    int rc;
    ddb_summary_json(&b, s, code);
    rc = ddb_sink_open_file(&sink, path, 1, &err);
    if (rc == 0)
        rc = ddb_sink_write(sink, b.ptr, b.len, &err);
    if (rc == 0)
        rc = ddb_sink_finish(sink, &err);
    ddb_sink_free(sink);
    ddb_buf_dispose(&b);
    if (rc != 0) {
        cli_error(NULL, "cannot write the summary: %s", err.message);
        return EXIT_OUTPUT;
    }
    return 0;
}

/* Exit status from what happened, in order of severity. */
static int exit_code(const ddb_summary *s, uint64_t max_rejects, int rc)
{
    if (rc == DDB_EINTR)
        return EXIT_INTERRUPTED;
    if (s->output_failed || (rc != 0 && rc != DDB_ENOMEM))
        return EXIT_OUTPUT;
    if (rc != 0)
        return EXIT_INPUT;
    if (s->input_errors > 0)
        return EXIT_INPUT;
    if (s->total.rejected > max_rejects)
        return EXIT_REJECTS;
    return EXIT_OK;
}

static void print_summary(const char *cmd, const ddb_summary *s, int code, uint64_t max_rejects)
{
    ddb_buf b = DDB_BUF_INIT;
    ddb_buf_printf(&b, "ddbpipe %s: %llu read, %llu %s, %llu rejected, %llu unmatched\n", cmd,
                   (unsigned long long)s->total.read, (unsigned long long)s->total.written,
                   strcmp(cmd, "validate") == 0 ? "valid" : "written",
                   (unsigned long long)s->total.rejected, (unsigned long long)s->total.unmatched);
    ddb_summary_format(&b, s);
    for (size_t i = 0; i < s->n_outputs; i++)
        ddb_buf_printf(&b, "  wrote %s\n", s->outputs[i]);
    if (s->rejects_path)
        ddb_buf_printf(&b, "  rejects: %s\n", s->rejects_path);
    if (s->input_errors)
        ddb_buf_printf(&b, "  %llu input error%s: outputs were NOT written (fix the input, or use "
                           "--no-verify for checksum problems)\n",
                       (unsigned long long)s->input_errors, s->input_errors == 1 ? "" : "s");
    if (code == EXIT_REJECTS)
        ddb_buf_printf(&b, "  exit %d: %llu rejected, more than --max-rejects %llu\n", code,
                       (unsigned long long)s->total.rejected, (unsigned long long)max_rejects);
    fputs(b.ptr, stderr);
    ddb_buf_dispose(&b);
}

static int run_files(ddb_mode mode, const char *cmd_name, int argc, char **argv)
{
    const cli_command *cmd = NULL;
    file_args a;
    const char **inputs = NULL;
    size_t n_inputs = 0;
    int help = 0, code = EXIT_OK, rc;
    ddb_mapping *mapping = NULL, *to_mapping = NULL;
    ddb_output *output = NULL;
    ddb_rejects *rejects = NULL;
    ddb_type_hint *types = NULL;
    size_t n_types = 0;
    ddb_pipeline_opts po;
    ddb_summary s;
    ddb_error err;
    char *rejects_default = NULL;
    memset(&a, 0, sizeof(a));
    memset(&s, 0, sizeof(s));
    cli_opt opts[] = {
        {"out", OPT_STRING, &a.out, "DIR", "folder for the output files (created if missing)"},
        {"mapping", OPT_STRING, &a.mapping, "FILE", "the table's mapping (formats/*.json)"},
        {"to-mapping", OPT_STRING, &a.to_mapping, "FILE", "convert: the mapping to re-key into"},
        {"format", OPT_STRING, &a.format, "FMT",
         "output format: ndjson, csv, ddb-json (export default ndjson)"},
        {"gzip", OPT_FLAG, &a.gzip, NULL, "gzip the output files"},
        {"entity", OPT_STRING, &a.entity, "NAME",
         "encode/validate: the entity of the input records (default: from the file name)"},
        {"out-delimiter", OPT_CHAR, &a.out_delimiter, "C", "CSV output delimiter (default ,)"},
        COMMON_INPUT_OPTS(a),
        {NULL, OPT_FLAG, NULL, NULL, NULL},
    };

    for (size_t i = 0; i < cli_n_commands; i++)
        if (strcmp(cli_commands[i].name, cmd_name) == 0)
            cmd = &cli_commands[i];
    if ((code = cli_parse(argc, argv, cmd, opts, &inputs, &n_inputs, &help)) != 0)
        goto done;
    if (help) {
        cli_print_help(cmd, opts);
        goto done;
    }
    code = EXIT_USAGE;
    if (n_inputs == 0) {
        char hint[200];
        snprintf(hint, sizeof(hint), "ddbpipe %s", cmd->usage);
        cli_error(hint, "no input given (a file, an export folder, or - for stdin)");
        goto done;
    }
    if (mode != DDB_MODE_VALIDATE && a.out == NULL) {
        char hint[200];
        snprintf(hint, sizeof(hint), "ddbpipe %s", cmd->usage);
        cli_error(hint, "--out DIR is required");
        goto done;
    }
    if ((mode == DDB_MODE_CONVERT || mode == DDB_MODE_ENCODE) && a.mapping == NULL) {
        cli_error("pass the table's mapping, e.g. --mapping formats/favorites.json",
                  "%s needs --mapping", cmd_name);
        goto done;
    }
    if (mode == DDB_MODE_CONVERT && a.to_mapping == NULL) {
        cli_error("e.g. --to-mapping formats/favorites-v2.json", "convert needs --to-mapping");
        goto done;
    }
    if (a.mapping && load_mapping(a.mapping, "mapping", &mapping) != 0)
        goto done;
    if (a.to_mapping && load_mapping(a.to_mapping, "to-mapping", &to_mapping) != 0)
        goto done;
    if (a.entity && mapping && ddb_mapping_entity(mapping, a.entity) == NULL) {
        cli_error("the entity names are the \"name\" of each entity in the mapping",
                  "entity \"%s\" is not in %s", a.entity, a.mapping);
        goto done;
    }
    if (a.types && cli_parse_types(a.types, &types, &n_types) != 0)
        goto done;

    memset(&po, 0, sizeof(po));
    po.mode = mode;
    po.command = cmd_name;
    po.inputs = inputs;
    po.n_inputs = n_inputs;
    po.mapping = mapping;
    po.to_mapping = to_mapping;
    po.types = types;
    po.n_types = n_types;
    po.reader.delimiter = a.delimiter;
    po.reader.max_line = a.max_line;
    po.reader.no_verify = a.no_verify;
    po.reader.entity = a.entity;
    if (a.input_format && ddb_input_format_parse(&po.reader.format, a.input_format) != 0) {
        cli_error("use ddb-json, scan, ndjson, csv or export", "unknown --input-format \"%s\"",
                  a.input_format);
        goto done;
    }
    if (mode != DDB_MODE_VALIDATE) {
        ddb_file_output_opts fo;
        memset(&fo, 0, sizeof(fo));
        fo.dir = a.out;
        fo.gzip = a.gzip;
        fo.delimiter = a.out_delimiter;
        fo.mapping = mode == DDB_MODE_CONVERT ? mapping : mapping;
        fo.records = mode == DDB_MODE_EXPORT;
        fo.single_name = "items";
        fo.format = mode == DDB_MODE_EXPORT ? DDB_OUT_NDJSON : DDB_OUT_DDBJSON;
        if (a.format && ddb_out_format_parse(&fo.format, a.format) != 0) {
            cli_error("use ndjson, csv or ddb-json", "unknown --format \"%s\"", a.format);
            goto done;
        }
        if (mode != DDB_MODE_EXPORT && fo.format != DDB_OUT_DDBJSON) {
            cli_error("items are written as DynamoDB JSON (the Import from S3 form)",
                      "--format %s is not available for %s", a.format, cmd_name);
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
    if ((a.rejects || rejects_default) &&
        ddb_rejects_new(&rejects, a.rejects ? a.rejects : rejects_default, &err) != 0) {
        cli_error(NULL, "%s", err.message);
        goto done;
    }
    po.output = output;
    po.rejects = rejects;
    po.report = cli_report;
    po.report_limit = mode == DDB_MODE_VALIDATE ? 0 : (a.quiet ? 5 : 20);

    rc = ddb_pipeline_run(&s, &po, &err);
    if (rc != 0)
        cli_error(NULL, "%s", err.message);
    if (output != NULL && s.committed) {
        const char *const *paths;
        size_t n = ddb_file_output_paths(output, &paths);
        s.outputs = calloc(n ? n : 1, sizeof(char *));
        for (size_t i = 0; s.outputs && i < n; i++)
            s.outputs[s.n_outputs++] = strdup(paths[i]);
    }
    code = exit_code(&s, a.max_rejects, rc);
    print_summary(cmd_name, &s, code, a.max_rejects);
    if (a.summary && write_summary_file(a.summary, &s, code) != 0 && code == EXIT_OK)
        code = EXIT_OUTPUT;
done:
    ddb_summary_dispose(&s);
    ddb_output_free(output);
    ddb_rejects_free(rejects);
    ddb_mapping_free(mapping);
    ddb_mapping_free(to_mapping);
    for (size_t i = 0; i < n_types; i++)
        free((char *)types[i].name);
    free(types);
    free(rejects_default);
    free(inputs);
    return code;
}

int cmd_export(int argc, char **argv)
{
    return run_files(DDB_MODE_EXPORT, "export", argc, argv);
}

int cmd_convert(int argc, char **argv)
{
    return run_files(DDB_MODE_CONVERT, "convert", argc, argv);
}

int cmd_encode(int argc, char **argv)
{
    return run_files(DDB_MODE_ENCODE, "encode", argc, argv);
}

int cmd_validate(int argc, char **argv)
{
    return run_files(DDB_MODE_VALIDATE, "validate", argc, argv);
}
