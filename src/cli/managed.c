/*
 * The command line of the managed paths: export --via-export (DynamoDB's
 * export to S3) and import --via-import (its import from S3): their options,
 * the lines while the job runs, and what the summary says of it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "ddbpipe/managed.h"
#include "run_support.h"

size_t cli_managed_options(cli_opt *out, run_args *ap, unsigned groups)
{
    const grouped_opt all[] = {
        {G_VIAEXP,
         {"via-export", OPT_STRING, &ap->via_export, "S3URL",
          "with --table: have DynamoDB export the table to s3://bucket/prefix/ "
          "(ExportTableToPointInTime; point-in-time recovery must be on, no read capacity is "
          "used), wait for it, then read the export"}},
        {G_VIAEXP,
         {"since", OPT_STRING, &ap->since, "TIME",
          "--via-export: an incremental export of the changes from TIME (ISO 8601 or epoch "
          "seconds) to --until or the latest; 15 minutes to 24 hours"}},
        {G_VIAEXP,
         {"until", OPT_STRING, &ap->until, "TIME",
          "--via-export: the end of the incremental window; alone, a full export of the table "
          "as it was at TIME"}},
        {G_VIAEXP,
         {"export-view", OPT_STRING, &ap->export_view, "VIEW",
          "--via-export --since: NEW_AND_OLD_IMAGES (default) or NEW_IMAGE"}},
        {G_VIAEXP,
         {"export-format", OPT_STRING, &ap->export_format, "FMT",
          "--via-export: DYNAMODB_JSON, the only format ddbpipe reads"}},
        {G_VIAIMP,
         {"via-import", OPT_STRING, &ap->via_import, "S3URL",
          "with --create-table: upload the items to s3://bucket/prefix/ (an empty prefix; "
          "gzip DynamoDB JSON) and have DynamoDB create and load the table from them "
          "(ImportTable; no write capacity used), waiting for it to finish"}},
    };
    return cli_pick_options(out, all, sizeof(all) / sizeof(all[0]), groups);
}

static int parse_time(const char *opt, const char *text, double *out)
{
    if (ddb_managed_parse_time(out, text) == 0)
        return 0;
    cli_error("a time is ISO 8601 (2024-05-27T06:11:47Z, 2024-05-27T08:11+02:00, 2024-05-27) "
              "or seconds since the epoch; without a zone it is UTC",
              "bad --%s \"%s\"", opt, text);
    return EXIT_USAGE;
}

int cli_fill_managed_options(ddb_run_options *o, const run_args *a)
{
    o->via_export = a->via_export;
    o->via_import = a->via_import;
    o->export_view = a->export_view;
    if (a->since && parse_time("since", a->since, &o->since) != 0)
        return EXIT_USAGE;
    if (a->until && parse_time("until", a->until, &o->until) != 0)
        return EXIT_USAGE;
    o->has_since = a->since != NULL;
    o->has_until = a->until != NULL;
    if (a->export_format && strcmp(a->export_format, "DYNAMODB_JSON") != 0) {
        cli_error("leave --export-format out, or give DYNAMODB_JSON",
                  "--export-format %s: ddbpipe reads exports in DYNAMODB_JSON, not ION",
                  a->export_format);
        return EXIT_USAGE;
    }
    return 0;
}

void cli_job_waiting(void *ctx, const ddb_job_progress *p)
{
    cli_job_wait *w = ctx;
    int changed = strcmp(w->last_status, p->status) != 0;
    if (w->quiet || (!changed && w->last_said >= 0 && p->waited_s - w->last_said < 30))
        return;
    w->last_said = p->waited_s;
    snprintf(w->last_status, sizeof(w->last_status), "%s", p->status);
    if (p->import)
        fprintf(stderr, "ddbpipe: import %s: %s after %.0f s, %llu items processed\n", p->arn,
                p->status, p->waited_s, (unsigned long long)p->items);
    else
        fprintf(stderr, "ddbpipe: export %s: %s after %.0f s%s\n", p->arn, p->status, p->waited_s,
                strcmp(p->status, "IN_PROGRESS") == 0
                    ? " (exports take minutes to hours; an interrupt leaves it running in AWS)"
                    : "");
}

const char *cli_managed_hint(ddb_run_field f, const run_args *a)
{
    switch (f) {
    case DDB_RUN_F_VIA_EXPORT:
        return a->via_export ? NULL
                             : "--via-export s3://bucket/prefix/ goes with --table NAME and --out";
    case DDB_RUN_F_EXPORT_TIME:
        return "--via-export with --since TIME (incremental, to --until TIME or the latest; 15 "
               "minutes to 24 hours) or --until TIME alone (a full export as of then); "
               "--export-view NEW_AND_OLD_IMAGES|NEW_IMAGE";
    case DDB_RUN_F_VIA_IMPORT:
        return "--via-import s3://bucket/prefix/ (a prefix of its own in a bucket that exists) "
               "with --create-table and a --table that does not exist yet; without --via-import, "
               "import writes an existing table with BatchWriteItem";
    case DDB_RUN_F_LSI:
        return "--ignore-schema-mismatch creates the table without them; or leave out "
               "--via-import: import --create-table makes every index and writes with "
               "BatchWriteItem";
    default:
        return NULL;
    }
}

static void export_lines(ddb_buf *b, const ddb_run_report *rr)
{
    const ddb_export_info *e = rr->export_job;
    char when[64] = "";
    if (e->export_time > 0) {
        time_t t = (time_t)e->export_time;
        struct tm tm;
        strftime(when, sizeof(when), " as of %Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
    }
    ddb_buf_printf(b, "  export %s (%s%s): %s after %.0f s", e->arn,
                   e->type ? e->type : "FULL_EXPORT", when, e->status, rr->job_seconds);
    if (strcmp(e->status, "COMPLETED") == 0)
        ddb_buf_printf(b, ", %llu items, %llu bytes billed", (unsigned long long)e->item_count,
                       (unsigned long long)e->billed_bytes);
    ddb_buf_printf(b, "; read from %s (no read capacity used)\n",
                   rr->export_folder ? rr->export_folder : "?");
}

static void import_lines(ddb_buf *b, const ddb_run_report *rr, const ddb_summary *s,
                         const run_args *a)
{
    const ddb_import_info *i = rr->import_job;
    ddb_buf_printf(b,
                   "  import %s into %s: %s after %.0f s: %llu items processed (%llu bytes), %llu "
                   "imported, %llu errors (no write capacity used)\n",
                   i->arn, rr->target_table, i->status, rr->job_seconds,
                   (unsigned long long)i->processed_items, (unsigned long long)i->processed_bytes,
                   (unsigned long long)i->imported_items, (unsigned long long)i->errors);
    if (i->errors > 0)
        ddb_buf_printf(
            b,
            "  ImportTable could not load %llu of the %llu items uploaded: they count as "
            "rejected (the rows above are per entity what was uploaded); why is in "
            "CloudWatch Logs, log group %s\n",
            (unsigned long long)i->errors, (unsigned long long)rr->uploaded,
            i->log_group ? i->log_group : "(none named)");
    if (strcmp(i->status, "COMPLETED") == 0 && i->imported_items + i->errors < rr->uploaded) {
        uint64_t n = rr->uploaded - i->errors - i->imported_items;
        ddb_buf_printf(b,
                       "  %llu item%s uploaded shared %s key with a later one and %s overwritten "
                       "by it, as writes of one key are (DynamoDB counts no error for them)\n",
                       (unsigned long long)n, n == 1 ? "" : "s", n == 1 ? "its" : "their",
                       n == 1 ? "was" : "were");
    }
    if (rr->job_interrupted)
        ddb_buf_printf(
            b, "  the import goes on in AWS: aws dynamodb describe-import --import-arn %s\n",
            i->arn);
    else if (s->total.not_done > 0)
        ddb_buf_printf(b, "  not done: %llu items uploaded that the import did not confirm\n",
                       (unsigned long long)s->total.not_done);
}

void cli_managed_summary(ddb_buf *b, const ddb_run_report *rr, const ddb_summary *s,
                         const run_args *a)
{
    if (rr->export_job)
        export_lines(b, rr);
    if (rr->import_job)
        import_lines(b, rr, s, a);
}

void cli_managed_interrupted(const ddb_run_report *rr, const run_args *a)
{
    if (rr->export_job == NULL || rr->export_folder == NULL)
        return;
    fprintf(stderr,
            "hint: export %s goes on in AWS; once it is COMPLETED, read it with: ddbpipe export "
            "%s --out %s%s%s\n",
            rr->export_job->arn, rr->export_folder, a->out ? a->out : "DIR",
            a->mapping ? " --mapping " : "", a->mapping ? a->mapping : "");
    if (a->state)
        fprintf(stderr, "hint: or run the same command with --resume: it waits for that export, "
                        "never a second one\n");
}
