/*
 * migrate --live, the command line's side: its options checked, the
 * engine's live migration (live.h) set up before the copy and run after it,
 * its progress and summary printed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ddbpipe/live.h"
#include "ddbpipe/streams.h"
#include "run_support.h"

static const char *const PHASES[] = {"copy", "catch-up", "live"};

static void live_progress(void *ctx, const ddb_live_stats *s)
{
    const run_args *a = ctx;
    char lag[32] = "-";
    if (a->quiet)
        return;
    if (s->lag_s >= 0)
        snprintf(lag, sizeof(lag), "%.1f s", s->lag_s);
    fprintf(stderr,
            "ddbpipe: %s: %llu changes (%.0f/s), lag %s, %llu put, %llu deleted, %llu moved, "
            "%u shard%s open\n",
            PHASES[s->phase], (unsigned long long)s->changes, s->rate, lag,
            (unsigned long long)s->puts, (unsigned long long)s->deletes,
            (unsigned long long)s->moved, s->shards_open, s->shards_open == 1 ? "" : "s");
}

static void live_note(void *ctx, const char *msg)
{
    const run_args *a = ctx;
    if (!a->quiet)
        fprintf(stderr, "ddbpipe: %s\n", msg);
}

int cli_live_check(const run_args *a)
{
    if (!a->live) {
        if (a->stop_when_idle > 0) {
            cli_error("add --live", "--stop-when-idle is for a live migration");
            return EXIT_USAGE;
        }
        return 0;
    }
    if (a->table == NULL) {
        cli_error("migrate --live --table SRC --mapping A --to-table DST --to-mapping B",
                  "--live replays a table's stream: it needs --table, not input files");
        return EXIT_USAGE;
    }
    if (a->dry_run) {
        cli_error("leave out --dry-run, or --live", "--live cannot be a dry run: it follows "
                                                    "the stream by writing");
        return EXIT_USAGE;
    }
    return 0;
}

int cli_live_prepare(cli_live *lv, const run_args *a, cli_conn *conn, cli_conn *to_conn)
{
    ddb_live_opts o;
    ddb_error err;
    int rc;

    memset(lv, 0, sizeof(*lv));
    if (ddb_mapping_load(&lv->mapping, a->mapping, &err) != 0 ||
        ddb_mapping_load(&lv->to_mapping, a->to_mapping, &err) != 0) {
        cli_error(NULL, "%s", err.message);
        return EXIT_USAGE;
    }
    ddb_streams_endpoint(lv->endpoint, sizeof(lv->endpoint), conn->config->endpoint_url);
    memset(&o, 0, sizeof(o));
    o.client = conn->client;
    o.target_client = to_conn->client;
    o.streams_endpoint = lv->endpoint;
    o.source_table = a->table;
    o.target_table = a->to_table ? a->to_table : lv->to_mapping->table.name;
    o.mapping = lv->mapping;
    o.to_mapping = lv->to_mapping;
    o.state_path = a->state;
    o.resume = a->resume;
    o.stop_when_idle = (double)a->stop_when_idle;
    o.max_wcu = (double)a->max_wcu;
    o.stop = cli_stop_flag();
    o.progress = live_progress;
    o.progress_ctx = (void *)a;
    o.note = live_note;
    o.note_ctx = (void *)a;
    ddb_client_set_stop_flag(conn->client, cli_stop_flag());
    if (to_conn->client)
        ddb_client_set_stop_flag(to_conn->client, cli_stop_flag());
    if ((rc = ddb_live_prepare(&lv->live, &o, &err)) == 0)
        return 0;
    cli_error(rc == DDB_EUSAGE && strstr(err.message, "no stream") == NULL && a->resume
                  ? "--resume needs the same --state as the interrupted run"
                  : NULL,
              "%s", err.message);
    return rc == DDB_EINTR                           ? EXIT_INTERRUPTED
           : rc == DDB_EUSAGE || rc == DDB_ENOTFOUND ? EXIT_USAGE
                                                     : EXIT_SERVICE;
}

int cli_live_run(cli_live *lv, const run_args *a)
{
    ddb_live_stats s;
    ddb_error err;
    int rc = ddb_live_run(lv->live, &s, &err);
    if (rc != 0 && rc != DDB_EINTR)
        cli_error(rc == DDB_ENOTFOUND ? "run the migration again from the start, without --resume"
                                      : NULL,
                  "%s", err.message);
    if (!a->quiet || rc != 0)
        fprintf(stderr,
                "ddbpipe: live: %llu changes applied in %.1f s: %llu put, %llu deleted, %llu "
                "moved to another key, %llu read back, %llu unmatched, %llu refused%s\n",
                (unsigned long long)s.changes, s.seconds, (unsigned long long)s.puts,
                (unsigned long long)s.deletes, (unsigned long long)s.moved,
                (unsigned long long)s.fetched, (unsigned long long)s.unmatched,
                (unsigned long long)s.rejected,
                rc == DDB_EINTR ? (a->state ? "; interrupted: position saved, continue with the "
                                              "same command and --resume"
                                            : "; interrupted (run with --state FILE to resume)")
                                : "");
    if (s.unmatched_file)
        fprintf(stderr, "ddbpipe: live: changes of no entity: %s\n", s.unmatched_file);
    if (s.rejects_file)
        fprintf(stderr, "ddbpipe: live: changes refused: %s\n", s.rejects_file);
    if (rc == DDB_EINTR)
        return EXIT_INTERRUPTED;
    if (rc == DDB_ENOTFOUND)
        return EXIT_USAGE;
    if (rc != 0)
        return rc == DDB_EIO ? EXIT_OUTPUT : EXIT_SERVICE;
    return s.rejected > 0 ? EXIT_REJECTS : EXIT_OK;
}

void cli_live_dispose(cli_live *lv)
{
    ddb_live_free(lv->live);
    ddb_mapping_free(lv->mapping);
    ddb_mapping_free(lv->to_mapping);
    memset(lv, 0, sizeof(*lv));
}
