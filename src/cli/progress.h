/* progress.h (private header of cli/) — live progress on stderr. */
#ifndef DDBPIPE_CLI_PROGRESS_H
#define DDBPIPE_CLI_PROGRESS_H

#include <stdint.h>

#include "ddbpipe/client.h"
#include "ddbpipe/output.h"
#include "ddbpipe/pipeline.h"
#include "ddbpipe/reader.h"

enum {
    CLI_PROGRESS_AUTO = 0,
    CLI_PROGRESS_OFF,
    CLI_PROGRESS_TTY,
    CLI_PROGRESS_LOG,
    CLI_PROGRESS_JSON
};

typedef struct cli_progress {
    int mode;
    double interval;
    double start, last_print;
    int drawn;
    const ddb_summary *live;
    const ddb_reader *reading;
    /* optional sources of capacity, retries and throttles */
    ddb_client *client;
    const ddb_output *table_output;
    const ddb_reader *scan;
    /* known totals, for percent and ETA */
    uint64_t total_bytes;
    uint64_t total_items;
    /* per-second rates */
    double prev_t, prev_cu;
    uint64_t prev_read, prev_written, prev_bytes;
    double read_rate, write_rate, byte_rate, cu_rate;
} cli_progress;

/* "auto", "off", "bar", "log", "json" -> mode. Returns 0 or -1. */
int cli_progress_parse(const char *s, int *mode);

/* auto: a redrawn line on a terminal, a log line every interval seconds otherwise. */
void cli_progress_init(cli_progress *p, int mode, double interval, int quiet);

/* Hooks for the pipeline (ddb_pipeline_opts.progress) and the client's idle callback. */
void cli_progress_update(void *ctx, const ddb_summary *live, const ddb_reader *reading);
void cli_progress_idle(void *ctx);

/* Clears the status line before the summary is printed. */
void cli_progress_end(cli_progress *p);

#endif
