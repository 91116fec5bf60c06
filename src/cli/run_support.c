/*
 * Support for the pipeline commands: exit status, summaries, --segment-range,
 * and the stop signals.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include "cli.h"
#include "ddbpipe/fs.h"
#include "ddbpipe/json.h"
#include "ddbpipe/pipeline.h"
#include "run_support.h"

/* Set by SIGINT/SIGTERM; the engine polls it through the pipeline and the
 * client. The only mutable global: a signal handler can reach nothing else. */
static volatile sig_atomic_t stop_requested;
static volatile sig_atomic_t pipe_broken;
/* Standard output carries the run's data (--out -): only its closing cuts
 * the run short. Until a command says otherwise, it does. */
static volatile sig_atomic_t data_on_stdout = 1;

static void on_stop_signal(int sig)
{
    stop_requested = 1;
    /* A second signal ends the process at once, the default way. */
    signal(sig, SIG_DFL);
}

/* A pipe whose reader went away reports POLLERR to its writer (poll is safe
 * in a signal handler; errno is saved, the interrupted code may read it). */
static int stdout_closed(void)
{
    struct pollfd pf;
    int saved = errno, closed;
    pf.fd = STDOUT_FILENO;
    pf.events = POLLOUT;
    pf.revents = 0;
    closed = poll(&pf, 1, 0) == 1 && (pf.revents & (POLLERR | POLLHUP)) != 0;
    errno = saved;
    return closed;
}

/* Whoever read our data went away (--out - | head): stop as for an
 * interrupt, so temporary files are removed (or, under --state, a checkpoint
 * is saved) instead of dying with them left behind. A closed pipe that
 * carries only messages (2>&1 | head) stops nothing: a table write or files
 * written half because nobody reads the progress would lose work; the
 * messages are dropped (their writes fail with EPIPE) and --summary FILE
 * still says how the run went. */
static void on_broken_pipe(int sig)
{
    (void)sig;
    if (!data_on_stdout || !stdout_closed())
        return;
    stop_requested = 1;
    pipe_broken = 1;
}

void cli_catch_broken_pipe(int data_out)
{
    struct sigaction sa;
    data_on_stdout = data_out != 0;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_broken_pipe;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGPIPE, &sa, NULL);
}

void cli_catch_stop_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    cli_catch_broken_pipe(data_on_stdout);
}

int cli_pipe_broken(void)
{
    return pipe_broken != 0;
}

volatile sig_atomic_t *cli_stop_flag(void)
{
    return &stop_requested;
}

int cli_write_file(const char *path, const char *text, size_t len, const char *what)
{
    ddb_error err;
    char *dir = strdup(path), *slash = dir ? strrchr(dir, '/') : NULL;
    int rc = 0;
    if (slash != NULL && slash != dir) {
        *slash = '\0';
        rc = ddb_make_dirs(dir, &err);
    }
    free(dir);
    if (rc == 0)
        rc = ddb_file_write_atomic(path, text, len, &err);
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

/* Exit status from what happened, in order of severity. */
int cli_exit_code(const ddb_summary *s, uint64_t max_rejects, int rc, int table_io)
{
    if (pipe_broken)
        return EXIT_BROKEN_PIPE;
    if (rc == DDB_EINTR)
        return EXIT_INTERRUPTED;
    if (rc == DDB_ELIMIT)
        return EXIT_REJECTS;
    if (rc == DDB_ENET)
        return EXIT_SERVICE;
    if (s->output_failed || rc != 0)
        return table_io && rc != DDB_ENOMEM && rc != DDB_EIO ? EXIT_SERVICE : EXIT_OUTPUT;
    if (s->input_errors > 0)
        return table_io == 2 ? EXIT_SERVICE : EXIT_INPUT;
    /* A record in no column means the run did not finish, whatever else happened. */
    if (s->total.not_done > 0)
        return EXIT_OUTPUT;
    /* Every record unmatched: the mapping is not the table's (or the input is not). */
    if (s->total.read > 0 && s->total.unmatched == s->total.read)
        return EXIT_UNMATCHED;
    if (s->total.rejected > max_rejects)
        return EXIT_REJECTS;
    return EXIT_OK;
}

void cli_print_summary(const char *cmd, const ddb_summary *s, int code, uint64_t max_rejects,
                       const char *extra, int quiet)
{
    ddb_buf b = DDB_BUF_INIT;
    int validating = strcmp(cmd, "validate") == 0;
    ddb_buf_printf(&b, "ddbpipe %s: %llu read, %llu %s, %llu rejected, %llu unmatched", cmd,
                   (unsigned long long)s->total.read, (unsigned long long)s->total.written,
                   validating ? "valid" : "written", (unsigned long long)s->total.rejected,
                   (unsigned long long)s->total.unmatched);
    if (s->total.not_done > 0)
        ddb_buf_printf(&b, ", %llu not done", (unsigned long long)s->total.not_done);
    ddb_buf_putc(&b, '\n');
    if (!quiet) { /* --quiet: the line above, and why the exit status is not 0 */
        ddb_summary_format(&b, s);
        if (extra && *extra)
            ddb_buf_puts(&b, extra);
        for (size_t i = 0; i < s->n_outputs; i++)
            ddb_buf_printf(&b, "  wrote %s\n", s->outputs[i]);
        if (s->n_outputs > 0 && s->total.read == 0)
            ddb_buf_puts(&b, "  the inputs held no records: every file written is empty (CSV "
                             "files hold their header)\n");
    }
    if (s->rejects_path)
        ddb_buf_printf(&b, "  rejects: %s\n", s->rejects_path);
    if (s->unmatched_path)
        ddb_buf_printf(&b, "  unmatched: %s\n", s->unmatched_path);
    if (s->input_errors) /* what stands depends on what the run writes */
        ddb_buf_printf(&b, "  %llu input error%s: %s\n", (unsigned long long)s->input_errors,
                       s->input_errors == 1 ? "" : "s",
                       validating ? "the inputs are not valid"
                       : strcmp(cmd, "import") == 0 || strcmp(cmd, "migrate") == 0
                           ? "the records counted written are in the table; the rest of a "
                             "failed input was not read"
                           : "file outputs were NOT written");
    if (code == EXIT_REJECTS && s->total.not_done > 0)
        ddb_buf_printf(&b,
                       "  exit %d: %llu rejected, more than --max-rejects %llu: the run stopped "
                       "there, %llu record%s not done\n",
                       code, (unsigned long long)s->total.rejected, (unsigned long long)max_rejects,
                       (unsigned long long)s->total.not_done, s->total.not_done == 1 ? "" : "s");
    else if (s->total.not_done > 0)
        ddb_buf_printf(&b, "  exit %d: the run is incomplete: %llu record%s not done\n", code,
                       (unsigned long long)s->total.not_done, s->total.not_done == 1 ? "" : "s");
    else if (code == EXIT_REJECTS && max_rejects == UINT64_MAX)
        ddb_buf_printf(&b,
                       "  exit %d: %llu rejected (without --max-rejects, any reject fails the "
                       "run)\n",
                       code, (unsigned long long)s->total.rejected);
    else if (code == EXIT_REJECTS)
        ddb_buf_printf(&b, "  exit %d: %llu rejected, more than --max-rejects %llu\n", code,
                       (unsigned long long)s->total.rejected, (unsigned long long)max_rejects);
    /* with a mapping (its entities, then "(none)"), nothing written, every
     * record refused or unmatched: the usual cause is the wrong mapping */
    if (code == EXIT_REJECTS && !validating && s->n_entities > 1 && s->total.written == 0 &&
        s->total.rejected + s->total.unmatched == s->total.read)
        ddb_buf_printf(&b,
                       "  not one of the %llu records was written: is it the mapping of this "
                       "table? (the rejects say why each was refused)\n",
                       (unsigned long long)s->total.read);
    if (code == EXIT_UNMATCHED)
        ddb_buf_printf(&b,
                       "  exit %d: not one of the %llu records matched an entity of the mapping: "
                       "is it the mapping of this table?\n",
                       code, (unsigned long long)s->total.read);
    fputs(b.ptr, stderr);
    ddb_buf_dispose(&b);
}

/* "scheme://..." (RFC 3986: a letter, then letters, digits, + - .). */
static int is_url(const char *s)
{
    size_t i = 0;
    if (!((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')))
        return 0;
    while ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
           (s[i] >= '0' && s[i] <= '9') || s[i] == '+' || s[i] == '-' || s[i] == '.')
        i++;
    return strncmp(s + i, "://", 3) == 0;
}

int cli_refuse_url(const char *opt, const char *value, int s3_ok)
{
    if (value == NULL || !is_url(value) || (s3_ok && strncmp(value, "s3://", 5) == 0))
        return 0;
    if (s3_ok)
        cli_error("give a local path or s3://bucket/key (write locally, then copy elsewhere)",
                  "--%s %s: a URL ddbpipe cannot write to; it writes local files and s3:// "
                  "objects",
                  opt, value);
    else
        cli_error("give a local path",
                  "--%s %s: a URL, not a local path; this file must be on the local disk", opt,
                  value);
    return EXIT_USAGE;
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
