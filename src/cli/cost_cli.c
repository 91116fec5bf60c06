/*
 * cost_cli.c — what a table run costs, in the summary: a dry run's estimate
 * (items, bytes, read and write units by DynamoDB's rules, the time at the
 * capacity the run may use, the on-demand price) and a real run's consumed
 * capacity, both also as members of the --summary JSON.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "ddbpipe/cost.h"
#include "ddbpipe/summary.h"
#include "run_support.h"

/* t's provisioned write (or read) capacity; 0 for an on-demand table or none. */
static uint64_t provisioned(const ddb_table_info *t, int writes)
{
    if (t == NULL || t->billing_mode == NULL || strcmp(t->billing_mode, "PROVISIONED") != 0)
        return 0;
    return writes ? t->write_capacity : t->read_capacity;
}

/* The units a run may use a second, and what says so: the --max option,
 * else the table's provisioned capacity (prov); 0 for an on-demand table. */
static double rate_of(uint64_t max, uint64_t prov, int writes, const char **why)
{
    if (max > 0) {
        *why = writes ? "--max-wcu" : "--max-rcu";
        return (double)max;
    }
    *why = prov > 0 ? "provisioned" : "on-demand";
    return (double)prov;
}

/* "~12.0 s at --max-wcu 50/s" (with minutes or hours when longer), or why no
 * time can be given. */
static void time_at(char *out, size_t cap, uint64_t units, double rate, const char *why)
{
    if (rate <= 0)
        snprintf(out, cap, "on-demand: as fast as the table scales");
    else if ((double)units / rate < 60)
        snprintf(out, cap, "~%.1f s at %s %.0f/s", (double)units / rate, why, rate);
    else if ((double)units / rate < 3600)
        snprintf(out, cap, "~%.0f s (%.1f min) at %s %.0f/s", (double)units / rate,
                 (double)units / rate / 60.0, why, rate);
    else
        snprintf(out, cap, "~%.0f s (%.1f h) at %s %.0f/s", (double)units / rate,
                 (double)units / rate / 3600.0, why, rate);
}

/* The read side: a Scan's units from what it read (the dry run's own Scan
 * consumed them already), and DescribeTable's estimate. */
static uint64_t read_lines(ddb_buf *b, const ddb_run_report *rr, const ddb_summary *s,
                           const run_args *a, uint64_t *est_bytes)
{
    const ddb_table_info *src = rr->source;
    uint64_t rcu = (uint64_t)(rr->scan.capacity_units + 0.999);
    double rate;
    const char *why;
    char t[96], bytes[32];
    *est_bytes = src ? src->size_bytes : 0;
    rate = rate_of(a->max_rcu, provisioned(src, 0), 0, &why);
    time_at(t, sizeof(t), rcu, rate, why);
    ddb_summary_bytes(bytes, sizeof(bytes), *est_bytes);
    ddb_buf_printf(b, "    read   Scan of %-20.20s %10llu %10s %10llu RCU   %s\n", rr->scan_table,
                   (unsigned long long)s->total.read, bytes, (unsigned long long)rcu, t);
    if (src != NULL)
        ddb_buf_printf(
            b,
            "           (items counted by this dry run's own Scan, which consumed "
            "%.1f RCU; DescribeTable's ItemCount %llu and TableSizeBytes %llu, "
            "updated about every 6 hours, give %llu RCU)\n",
            rr->scan.capacity_units, (unsigned long long)src->item_count,
            (unsigned long long)src->size_bytes,
            (unsigned long long)ddb_cost_scan_units(src->size_bytes, rr->consistent_read));
    return rcu;
}

/* The write side (d) into table: its units and its indexes' (n_indexes of
 * them, -1: unknown; planned: of a table still to be made), and their time
 * at --max-wcu or the table's provisioned prov WCU. */
static uint64_t write_lines(ddb_buf *b, const ddb_dry_run_stats *d, const char *table,
                            long n_indexes, int planned, uint64_t prov, const run_args *a)
{
    uint64_t wcu = d->wcu + d->index_wcu;
    double rate;
    const char *why;
    char t[96], bytes[32];
    rate = rate_of(a->max_wcu, prov, 1, &why);
    time_at(t, sizeof(t), wcu, rate, why);
    ddb_summary_bytes(bytes, sizeof(bytes), d->bytes);
    ddb_buf_printf(b, "    write  %-28.28s %10llu %10s %10llu WCU\n", table,
                   (unsigned long long)(d->puts + d->deletes), bytes, (unsigned long long)d->wcu);
    if (n_indexes >= 0) {
        char what[40];
        snprintf(what, sizeof(what), "%s %ld indexes", planned ? "its planned" : "its", n_indexes);
        ddb_buf_printf(b,
                       "           %-28s %10s %10s %10llu WCU   (items with an index's keys, "
                       "by the size of its projection)\n",
                       what, "", "", (unsigned long long)d->index_wcu);
    } else {
        ddb_buf_puts(b, "           (the table does not exist yet: its indexes' writes are not "
                        "counted)\n");
    }
    ddb_buf_printf(b, "           %-28s %10s %10s %10llu WCU   %s\n", "all writes", "", "",
                   (unsigned long long)wcu, t);
    return wcu;
}

/* The on-demand price of the units, and of DynamoDB's own export and import. */
static int price_lines(ddb_buf *b, ddb_buf *json, uint64_t rcu, uint64_t wcu, uint64_t table_bytes,
                       uint64_t source_bytes, const run_args *a, const char *region)
{
    ddb_prices *prices = NULL;
    const ddb_region_prices *rp;
    ddb_error err;
    double reads, writes;
    if (ddb_prices_load(&prices, a->prices, &err) != 0) {
        cli_error("--prices FILE: a table like formats/prices/on-demand.json", "%s", err.message);
        return EXIT_USAGE;
    }
    if ((rp = ddb_prices_region(prices, region)) == NULL) {
        ddb_buf_printf(b,
                       "    no prices for region %s in %s (prices of %s): give them with "
                       "--prices FILE\n",
                       region ? region : "(none)", a->prices ? a->prices : "the built-in table",
                       ddb_prices_as_of(prices));
        ddb_prices_free(prices);
        return 0;
    }
    reads = (double)rcu * rp->read_per_million / 1e6;
    writes = (double)wcu * rp->write_per_million / 1e6;
    ddb_buf_printf(b,
                   "    on-demand in %s: reads $%.4f + writes $%.4f = $%.4f (prices of %s, %s)\n",
                   region, reads, writes, reads + writes, ddb_prices_as_of(prices),
                   a->prices ? a->prices : "built in");
    /* what DynamoDB's own export and import would cost instead, where they could */
    if (table_bytes > 0)
        ddb_buf_printf(b, "    instead: --via-export $%.4f (per GB of the table)\n",
                       (double)table_bytes / 1e9 * rp->export_per_gb);
    if (source_bytes > 0)
        ddb_buf_printf(b, "    instead: --via-import $%.4f (per GB of uncompressed source data)\n",
                       (double)source_bytes / 1e9 * rp->import_per_gb);
    ddb_buf_printf(json,
                   ",\"price\":{\"region\":\"%s\",\"as_of\":\"%s\",\"reads_usd\":%.6f,"
                   "\"writes_usd\":%.6f,\"total_usd\":%.6f,\"via_export_usd\":%.6f,"
                   "\"via_import_usd\":%.6f}",
                   region, ddb_prices_as_of(prices), reads, writes, reads + writes,
                   (double)table_bytes / 1e9 * rp->export_per_gb,
                   (double)source_bytes / 1e9 * rp->import_per_gb);
    ddb_prices_free(prices);
    return 0;
}

int cli_cost_estimate(ddb_buf *b, char **json_out, const ddb_run_report *rr, const ddb_summary *s,
                      const run_args *a, const char *region)
{
    ddb_buf json = DDB_BUF_INIT;
    uint64_t rcu = 0, wcu, table_bytes = 0;
    uint64_t source_bytes = s->bytes_decoded ? s->bytes_decoded : s->bytes_in;
    int rc;
    ddb_buf_printf(b,
                   "  dry run: nothing written to %s. What the run would take, by DynamoDB's "
                   "rules:\n",
                   rr->target_table);
    ddb_buf_printf(b, "    %-35s %10s %10s %10s\n", "", "items", "bytes", "units");
    if (rr->scan_table != NULL)
        rcu = read_lines(b, rr, s, a, &table_bytes);
    wcu = write_lines(b, &rr->dry, rr->target_table, rr->target ? (long)rr->target_indexes : -1,
                      rr->target_planned, rr->target_planned ? 0 : provisioned(rr->target, 1), a);
    ddb_buf_printf(&json,
                   ",\"estimate\":{\"read_items\":%llu,\"rcu\":%llu,\"write_items\":%llu,"
                   "\"write_bytes\":%llu,\"table_wcu\":%llu,\"index_wcu\":%llu,\"wcu\":%llu,"
                   "\"sizes_from\":\"%s\"",
                   (unsigned long long)(rr->scan_table ? s->total.read : 0),
                   (unsigned long long)rcu, (unsigned long long)(rr->dry.puts + rr->dry.deletes),
                   (unsigned long long)rr->dry.bytes, (unsigned long long)rr->dry.wcu,
                   (unsigned long long)rr->dry.index_wcu, (unsigned long long)wcu,
                   rr->scan_table ? "scan" : "input");
    if (!rr->scan_table)
        table_bytes = rr->dry.bytes;
    rc = price_lines(b, &json, rcu, wcu, table_bytes, source_bytes, a, region);
    ddb_buf_putc(&json, '}');
    if (rc == 0 && !json.oom)
        *json_out = ddb_buf_detach(&json, NULL);
    ddb_buf_dispose(&json);
    return rc;
}

int cli_cost_sync_estimate(ddb_buf *b, char **json_out, const ddb_dry_run_stats *d,
                           const char *table, long n_indexes, uint64_t prov_wcu, const run_args *a,
                           const char *region)
{
    ddb_buf json = DDB_BUF_INIT;
    uint64_t wcu;
    int rc;
    ddb_buf_puts(b, "  the writes, by DynamoDB's rules (the reads are the Scans above):\n");
    ddb_buf_printf(b, "    %-35s %10s %10s %10s\n", "", "items", "bytes", "units");
    wcu = write_lines(b, d, table, n_indexes, 0, prov_wcu, a);
    ddb_buf_printf(&json,
                   ",\"estimate\":{\"write_items\":%llu,\"write_bytes\":%llu,\"table_wcu\":%llu,"
                   "\"index_wcu\":%llu,\"wcu\":%llu",
                   (unsigned long long)(d->puts + d->deletes), (unsigned long long)d->bytes,
                   (unsigned long long)d->wcu, (unsigned long long)d->index_wcu,
                   (unsigned long long)wcu);
    rc = price_lines(b, &json, 0, wcu, 0, 0, a, region);
    ddb_buf_putc(&json, '}');
    if (rc == 0 && !json.oom)
        *json_out = ddb_buf_detach(&json, NULL);
    ddb_buf_dispose(&json);
    return rc;
}

int cli_cost_export_estimate(const ddb_table_info *t, const run_args *a, const char *region)
{
    ddb_buf b = DDB_BUF_INIT, json = DDB_BUF_INIT;
    uint64_t rcu = ddb_cost_scan_units(t->size_bytes, a->consistent_read);
    double rate;
    const char *why;
    char tm[96], bytes[32];
    int code;
    rate = rate_of(a->max_rcu, provisioned(t, 0), 0, &why);
    time_at(tm, sizeof(tm), rcu, rate, why);
    ddb_summary_bytes(bytes, sizeof(bytes), t->size_bytes);
    ddb_buf_printf(&b,
                   "ddbpipe export (dry run, nothing read): a Scan of %s would read, by "
                   "DynamoDB's rules:\n"
                   "    %-35s %10s %10s %10s\n"
                   "    read   Scan of %-20.20s %10llu %10s %10llu RCU   %s\n"
                   "           (DescribeTable's ItemCount and TableSizeBytes, which DynamoDB "
                   "updates about every 6 hours; %s read)\n",
                   t->name, "", "items", "bytes", "units", t->name,
                   (unsigned long long)t->item_count, bytes, (unsigned long long)rcu, tm,
                   a->consistent_read ? "strongly consistent" : "eventually consistent");
    ddb_buf_printf(&json,
                   "{\"command\":\"export\",\"dry_run\":true,\"estimate\":{\"read_items\":%llu,"
                   "\"read_bytes\":%llu,\"rcu\":%llu,\"sizes_from\":\"describe_table\"",
                   (unsigned long long)t->item_count, (unsigned long long)t->size_bytes,
                   (unsigned long long)rcu);
    code = price_lines(&b, &json, rcu, 0, t->size_bytes, 0, a, region);
    ddb_buf_puts(&json, "}}\n");
    if (code == 0 && !a->quiet)
        fputs(b.ptr, stderr);
    if (code == 0 && a->summary != NULL)
        code = json.oom ? (cli_error(NULL, "out of memory"), EXIT_OUTPUT)
                        : cli_write_file(a->summary, json.ptr, json.len, "summary");
    ddb_buf_dispose(&b);
    ddb_buf_dispose(&json);
    return code;
}

char *cli_cost_consumed_json(const ddb_run_report *rr)
{
    ddb_buf json = DDB_BUF_INIT;
    ddb_buf_printf(&json, ",\"consumed\":{\"wcu\":%.1f,\"rcu\":%.1f}",
                   rr->target_table ? rr->writes.capacity_units : 0,
                   rr->scan_table ? rr->scan.capacity_units : 0);
    if (json.oom) {
        ddb_buf_dispose(&json);
        return NULL;
    }
    return ddb_buf_detach(&json, NULL);
}
