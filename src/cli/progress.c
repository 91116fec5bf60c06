/*
 * Progress: on a terminal one status line on stderr, redrawn at most four
 * times a second; elsewhere (cron, CI, a pipe) a plain line every
 * --progress-interval seconds, or one JSON object per interval for log
 * collectors. Counts come from the pipeline's live summary; capacity, retries
 * and throttles from the DynamoDB side when there is one.
 */
#include "progress.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ddbpipe/output_table.h"
#include "ddbpipe/reader_table.h"
#include "ddbpipe/clock.h"

int cli_progress_parse(const char *s, int *mode)
{
    if (s == NULL || strcmp(s, "auto") == 0)
        *mode = CLI_PROGRESS_AUTO;
    else if (strcmp(s, "off") == 0 || strcmp(s, "none") == 0)
        *mode = CLI_PROGRESS_OFF;
    else if (strcmp(s, "json") == 0)
        *mode = CLI_PROGRESS_JSON;
    else if (strcmp(s, "log") == 0 || strcmp(s, "plain") == 0)
        *mode = CLI_PROGRESS_LOG;
    else if (strcmp(s, "bar") == 0 || strcmp(s, "tty") == 0)
        *mode = CLI_PROGRESS_TTY;
    else
        return -1;
    return 0;
}

void cli_progress_init(cli_progress *p, int mode, double interval, int quiet)
{
    memset(p, 0, sizeof(*p));
    if (quiet)
        mode = CLI_PROGRESS_OFF;
    if (mode == CLI_PROGRESS_AUTO)
        mode = isatty(STDERR_FILENO) ? CLI_PROGRESS_TTY : CLI_PROGRESS_LOG;
    p->mode = mode;
    p->interval = interval > 0 ? interval : 10;
    p->start = p->prev_t = ddb_clock_seconds();
}

static void hms(char *out, size_t cap, double s)
{
    long t = s < 0 ? 0 : (long)(s + 0.5);
    snprintf(out, cap, "%02ld:%02ld:%02ld", t / 3600, (t / 60) % 60, t % 60);
}

static void human(char *out, size_t cap, double v, const char *unit)
{
    const char *pre[] = {"", "k", "M", "G", "T"};
    int i = 0;
    while (v >= 1000 && i < 4) {
        v /= 1000;
        i++;
    }
    snprintf(out, cap, i ? "%.1f%s%s" : "%.0f%s%s", v, pre[i], unit);
}

typedef struct snapshot {
    double elapsed, read_rate, write_rate, byte_rate, cu_rate;
    uint64_t read, written, rejected, unmatched, bytes;
    int table; /* written = confirmed by DynamoDB; in_flight = sent, unanswered */
    uint64_t in_flight;
    double capacity;
    uint64_t retries, throttles;
    int concurrency;
    double percent; /* < 0 unknown */
    double eta;     /* < 0 unknown */
} snapshot;

static void take(cli_progress *p, snapshot *s)
{
    const ddb_summary *live = p->live;
    double now = ddb_clock_seconds(), dt;
    uint64_t bytes = live ? live->bytes_in : 0;
    memset(s, 0, sizeof(*s));
    s->percent = s->eta = -1;
    if (p->reading)
        bytes += ddb_reader_raw_bytes(p->reading);
    if (live) {
        s->read = live->total.read;
        s->written = live->total.written;
        s->rejected = live->total.rejected;
        s->unmatched = live->total.unmatched;
    }
    s->bytes = bytes;
    if (p->table_output) {
        ddb_table_write_stats ws;
        ddb_table_output_stats(p->table_output, &ws);
        s->capacity += ws.capacity_units;
        s->table = 1;
        s->in_flight = ws.in_flight;
    }
    if (p->scan) {
        ddb_scan_stats ss;
        ddb_table_reader_stats(p->scan, &ss);
        s->capacity += ss.capacity_units;
    }
    if (p->client) {
        ddb_client_stats cs;
        ddb_client_stats_get(p->client, &cs);
        s->retries = cs.retries;
        s->throttles = cs.throttles;
        s->concurrency = ddb_client_concurrency(p->client);
    }
    s->elapsed = now - p->start;
    dt = now - p->prev_t;
    if (dt >= 0.5) {
        p->read_rate = (double)(s->read - p->prev_read) / dt;
        p->write_rate = (double)(s->written - p->prev_written) / dt;
        p->byte_rate = (double)(bytes - p->prev_bytes) / dt;
        p->cu_rate = (s->capacity - p->prev_cu) / dt;
        p->prev_t = now;
        p->prev_read = s->read;
        p->prev_written = s->written;
        p->prev_bytes = bytes;
        p->prev_cu = s->capacity;
    }
    s->read_rate = p->read_rate;
    s->write_rate = p->write_rate;
    s->byte_rate = p->byte_rate;
    s->cu_rate = p->cu_rate;
    if (p->total_items > 0) {
        s->percent = 100.0 * (double)s->read / (double)p->total_items;
    } else if (p->total_bytes > 0) {
        s->percent = 100.0 * (double)bytes / (double)p->total_bytes;
    } else if (p->reading && p->reading->expected_items > 0) {
        /* an export folder: its manifest's itemCount */
        s->percent = 100.0 * (double)s->read / (double)p->reading->expected_items;
    } else if (p->reading && p->reading->total_bytes > 0) {
        s->percent =
            100.0 * (double)ddb_reader_raw_bytes(p->reading) / (double)p->reading->total_bytes;
    }
    if (s->percent > 100)
        s->percent = 100;
    if (s->percent > 0.5 && s->elapsed > 1)
        s->eta = s->elapsed * (100.0 - s->percent) / s->percent;
}

static void format_line(char *out, size_t cap, const snapshot *s)
{
    char rr[32], wr[32], b[32], br[32], el[16], eta[16];
    size_t n;
    human(rr, sizeof(rr), s->read_rate, "/s");
    human(wr, sizeof(wr), s->write_rate, "/s");
    human(b, sizeof(b), (double)s->bytes, "B");
    human(br, sizeof(br), s->byte_rate, "B/s");
    hms(el, sizeof(el), s->elapsed);
    /* For a table, written is what DynamoDB confirmed, the number the summary
     * gives; what is sent and not yet answered is shown apart. */
    n = (size_t)snprintf(out, cap, "read %llu (%s)  written %llu (%s)", (unsigned long long)s->read,
                         rr, (unsigned long long)s->written, wr);
    if (n < cap && s->table)
        n += (size_t)snprintf(out + n, cap - n, " + %llu sent", (unsigned long long)s->in_flight);
    if (n < cap)
        n += (size_t)snprintf(out + n, cap - n, "  rejected %llu  unmatched %llu  %s (%s)",
                              (unsigned long long)s->rejected, (unsigned long long)s->unmatched, b,
                              br);
    if (n < cap && (s->capacity > 0 || s->retries || s->throttles))
        n += (size_t)snprintf(out + n, cap - n,
                              "  %.0f CU (%.0f/s)  retries %llu  throttles %llu  concurrency %d",
                              s->capacity, s->cu_rate, (unsigned long long)s->retries,
                              (unsigned long long)s->throttles, s->concurrency);
    if (n < cap)
        n += (size_t)snprintf(out + n, cap - n, "  %s", el);
    if (n < cap && s->percent >= 0) {
        hms(eta, sizeof(eta), s->eta);
        n += (size_t)snprintf(out + n, cap - n, "  %.1f%%%s%s", s->percent,
                              s->eta >= 0 ? " ETA " : "", s->eta >= 0 ? eta : "");
    }
}

static void emit(cli_progress *p, int final)
{
    snapshot s;
    char line[600];
    double now = ddb_clock_seconds();

    if (p->mode == CLI_PROGRESS_OFF || p->live == NULL)
        return;
    if (p->mode == CLI_PROGRESS_TTY) {
        if (!final && now - p->last_print < 0.25)
            return;
    } else if (!final && now - p->last_print < p->interval) {
        return;
    } else if (final) {
        return; /* the summary says the rest */
    }
    take(p, &s);
    /* Nothing counted yet (the first bytes are only being sniffed): a line
     * saying "read 0 ... 35%" would mislead. */
    if (s.read == 0 && s.written == 0 && s.capacity == 0)
        return;
    p->last_print = now;
    if (p->mode == CLI_PROGRESS_JSON) {
        fprintf(
            stderr,
            "{\"progress\":{\"elapsed_s\":%.1f,\"read\":%llu,\"written\":%llu,\"rejected\":%llu,"
            "\"unmatched\":%llu,\"bytes\":%llu,\"read_per_s\":%.1f,\"written_per_s\":%.1f,"
            "\"bytes_per_s\":%.0f,\"capacity_units\":%.1f,\"capacity_per_s\":%.1f,"
            "\"retries\":%llu,\"throttles\":%llu,\"concurrency\":%d,\"in_flight\":%llu",
            s.elapsed, (unsigned long long)s.read, (unsigned long long)s.written,
            (unsigned long long)s.rejected, (unsigned long long)s.unmatched,
            (unsigned long long)s.bytes, s.read_rate, s.write_rate, s.byte_rate, s.capacity,
            s.cu_rate, (unsigned long long)s.retries, (unsigned long long)s.throttles,
            s.concurrency, (unsigned long long)s.in_flight);
        if (s.percent >= 0)
            fprintf(stderr, ",\"percent\":%.2f", s.percent);
        if (s.eta >= 0)
            fprintf(stderr, ",\"eta_s\":%.0f", s.eta);
        fputs("}}\n", stderr);
        return;
    }
    format_line(line, sizeof(line), &s);
    if (p->mode == CLI_PROGRESS_TTY) {
        /* \r and erase-to-end-of-line: one line, redrawn in place */
        fprintf(stderr, "\r\033[K%s", line);
        p->drawn = 1;
    } else {
        fprintf(stderr, "ddbpipe: progress: %s\n", line);
    }
    fflush(stderr);
}

void cli_progress_update(void *ctx, const ddb_summary *live, const ddb_reader *reading)
{
    cli_progress *p = ctx;
    p->live = live;
    p->reading = reading;
    emit(p, 0);
}

void cli_progress_idle(void *ctx)
{
    emit((cli_progress *)ctx, 0);
}

void cli_progress_end(cli_progress *p)
{
    if (p->mode == CLI_PROGRESS_TTY && p->drawn) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
    p->drawn = 0;
}
