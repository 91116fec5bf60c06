/*
 * Support for the pipeline commands: the fingerprint a resumed run is checked
 * against, exit status, summaries, --segment-range, and the stop signals.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <signal.h>
#include <sys/stat.h>

#include <openssl/evp.h>

#include "cli.h"
#include "ddbpipe/io.h"
#include "ddbpipe/json.h"
#include "ddbpipe/pipeline.h"
#include "progress.h"
#include "run_support.h"

/* Set by SIGINT/SIGTERM; the engine polls it through the pipeline and the
 * client. The only mutable global: a signal handler can reach nothing else. */
static volatile sig_atomic_t stop_requested;

static void on_stop_signal(int sig)
{
    stop_requested = 1;
    /* A second signal ends the process at once, the default way. */
    signal(sig, SIG_DFL);
}

void cli_catch_stop_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

volatile sig_atomic_t *cli_stop_flag(void)
{
    return &stop_requested;
}

int cli_write_file(const char *path, const char *text, size_t len, const char *what)
{
    ddb_sink *sink = NULL;
    ddb_error err;
    int rc = ddb_sink_open_file(&sink, path, 1, &err);
    if (rc == 0)
        rc = ddb_sink_write(sink, text, len, &err);
    if (rc == 0)
        rc = ddb_sink_finish(sink, &err);
    ddb_sink_free(sink);
    if (rc != 0) {
        cli_error(NULL, "cannot write the %s: %s", what, err.message);
        return EXIT_OUTPUT;
    }
    return 0;
}

int cli_write_summary_file(const char *path, const ddb_summary *s, int code)
{
    ddb_buf b = DDB_BUF_INIT;
    int rc;
    ddb_summary_json(&b, s, code);
    rc = b.oom ? (cli_error(NULL, "out of memory"), EXIT_OUTPUT)
               : cli_write_file(path, b.ptr, b.len, "summary");
    ddb_buf_dispose(&b);
    return rc;
}

int cli_check_run_args(const run_args *a)
{
    int mode;
    ddb_input_format f;
    if (a->progress && cli_progress_parse(a->progress, &mode) != 0) {
        cli_error("use auto, bar, log, json or off", "unknown --progress \"%s\"", a->progress);
        return EXIT_USAGE;
    }
    if (a->input_format && ddb_input_format_parse(&f, a->input_format) != 0) {
        cli_error("use ddb-json, scan, ndjson, csv or export", "unknown --input-format \"%s\"",
                  a->input_format);
        return EXIT_USAGE;
    }
    return 0;
}

/* Exit status from what happened, in order of severity. */
int cli_exit_code(const ddb_summary *s, uint64_t max_rejects, int rc, int table_io)
{
    if (rc == DDB_EINTR)
        return EXIT_INTERRUPTED;
    if (rc == DDB_ENET)
        return EXIT_SERVICE;
    if (s->output_failed || rc != 0)
        return table_io && rc != DDB_ENOMEM && rc != DDB_EIO ? EXIT_SERVICE : EXIT_OUTPUT;
    if (s->input_errors > 0)
        return table_io == 2 ? EXIT_SERVICE : EXIT_INPUT;
    if (s->total.rejected > max_rejects)
        return EXIT_REJECTS;
    return EXIT_OK;
}

void cli_print_summary(const char *cmd, const ddb_summary *s, int code, uint64_t max_rejects,
                       const char *extra)
{
    ddb_buf b = DDB_BUF_INIT;
    int validating = strcmp(cmd, "validate") == 0;
    ddb_buf_printf(&b, "ddbpipe %s: %llu read, %llu %s, %llu rejected, %llu unmatched\n", cmd,
                   (unsigned long long)s->total.read, (unsigned long long)s->total.written,
                   validating ? "valid" : "written", (unsigned long long)s->total.rejected,
                   (unsigned long long)s->total.unmatched);
    ddb_summary_format(&b, s);
    if (extra && *extra)
        ddb_buf_puts(&b, extra);
    for (size_t i = 0; i < s->n_outputs; i++)
        ddb_buf_printf(&b, "  wrote %s\n", s->outputs[i]);
    if (s->rejects_path)
        ddb_buf_printf(&b, "  rejects: %s\n", s->rejects_path);
    if (s->input_errors)
        ddb_buf_printf(&b, "  %llu input error%s: file outputs were NOT written\n",
                       (unsigned long long)s->input_errors, s->input_errors == 1 ? "" : "s");
    if (code == EXIT_REJECTS)
        ddb_buf_printf(&b, "  exit %d: %llu rejected, more than --max-rejects %llu\n", code,
                       (unsigned long long)s->total.rejected, (unsigned long long)max_rejects);
    fputs(b.ptr, stderr);
    ddb_buf_dispose(&b);
}

int cli_parse_range(const char *s, int *first, int *last)
{
    char *end;
    long a = strtol(s, &end, 10), b;
    if (end == s || *end != '-' || a < 0)
        return -1;
    b = strtol(end + 1, &end, 10);
    if (*end != '\0' || b < a)
        return -1;
    *first = (int)a;
    *last = (int)b;
    return 0;
}

/* SHA-256 (hex) of a file's bytes, so a resumed run can tell its mapping changed. */
static int file_sha256(const char *path, char out[65])
{
    FILE *f = fopen(path, "rb");
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    unsigned char buf[65536], md[32];
    unsigned int mdlen = 0;
    size_t n;
    int rc = -1;
    if (f == NULL || ctx == NULL || EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1)
        goto done;
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
        EVP_DigestUpdate(ctx, buf, n);
    if (!ferror(f) && EVP_DigestFinal_ex(ctx, md, &mdlen) == 1) {
        for (unsigned int i = 0; i < mdlen; i++)
            sprintf(out + 2 * i, "%02x", md[i]);
        rc = 0;
    }
done:
    if (f)
        fclose(f);
    EVP_MD_CTX_free(ctx);
    return rc;
}

static void fp_field(ddb_buf *b, const char *key, const char *value)
{
    ddb_buf_puts(b, b->len > 1 ? ",\"" : "\"");
    ddb_buf_puts(b, key);
    ddb_buf_puts(b, "\":");
    ddb_json_put_string(b, value ? value : "", strlen(value ? value : ""));
}

/* What a run is, for --resume to check: the inputs (with sizes and times),
 * the mappings' contents and every option that changes what is written. */
int cli_build_fingerprint(ddb_buf *b, const run_spec *spec, const run_args *a,
                          const char *const *inputs, size_t n_inputs)
{
    ddb_buf in = DDB_BUF_INIT, opts = DDB_BUF_INIT;
    char sha[65];
    ddb_buf_putc(b, '{');
    fp_field(b, "command", spec->name);
    for (size_t i = 0; i < n_inputs; i++) {
        struct stat st;
        memset(&st, 0, sizeof(st));
        stat(inputs[i], &st);
        ddb_buf_printf(&in, "%s%s (%lld bytes, modified %lld)", i ? "; " : "", inputs[i],
                       (long long)st.st_size, (long long)st.st_mtime);
    }
    fp_field(b, "inputs", in.ptr);
    if (a->mapping && file_sha256(a->mapping, sha) == 0)
        fp_field(b, "mapping", sha);
    if (a->to_mapping && file_sha256(a->to_mapping, sha) == 0)
        fp_field(b, "to-mapping", sha);
    fp_field(b, "table", a->table);
    fp_field(b, "to-table", a->to_table);
    fp_field(b, "out", a->out);
    ddb_buf_printf(&opts,
                   "format=%s gzip=%d out-delimiter=%d input-format=%s delimiter=%d "
                   "types=%s entity=%s delete=%d no-verify=%d max-line=%llu segments=%llu "
                   "segment-range=%s consistent-read=%d page-size=%llu dry-run=%d rejects=%s "
                   "count=%s seed=%llu",
                   a->format ? a->format : "", a->gzip, a->out_delimiter,
                   a->input_format ? a->input_format : "", a->delimiter, a->types ? a->types : "",
                   a->entity ? a->entity : "", a->delete_all, a->no_verify,
                   (unsigned long long)a->max_line, (unsigned long long)a->segments,
                   a->segment_range ? a->segment_range : "", a->consistent_read,
                   (unsigned long long)a->page_size, a->dry_run, a->rejects ? a->rejects : "",
                   a->count ? a->count : "", (unsigned long long)a->seed);
    fp_field(b, "options", opts.ptr);
    ddb_buf_putc(b, '}');
    ddb_buf_dispose(&in);
    ddb_buf_dispose(&opts);
    return b->oom ? -1 : 0;
}
