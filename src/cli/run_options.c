/*
 * The command line of the pipeline commands (cmd_run.c, and diff, which runs
 * the same plans): one option table serves them all, each command taking the
 * option groups it has a use for; argv is parsed into a run_args, and that
 * into the ddb_run_options the engine plans from (run.h), refusing what does
 * not parse with the flag at fault.
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include <assert.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "ddbpipe/run.h"
#include "progress.h"
#include "run_support.h"

/* --threads' default is the cores the process may use, at most this many:
 * the one thread that reads and writes every line in read order sets the pace
 * past about six computing threads (bench/README.md, "All cores"), so more
 * would only cost their batches' memory (about 2 MB a thread). */
#define CLI_DEFAULT_THREADS_MAX 8
/* What --threads N may ask for (each thread costs about 2 MB). */
#define CLI_MAX_THREADS 64
#define CLI_STR_(x) #x
#define CLI_STR(x) CLI_STR_(x)

size_t cli_pick_options(cli_opt *out, const grouped_opt *all, size_t n, unsigned groups)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (all[i].groups & groups)
            out[k++] = all[i].opt;
    return k;
}

/* Where and what is written, and the mappings (and entity) the records follow. */
static size_t output_options(cli_opt *out, run_args *ap, unsigned groups)
{
    const grouped_opt all[] = {
        {G_OUT,
         {"out", OPT_STRING, &ap->out, "DIR",
          "folder for the output files, one per entity (created if missing; ddbpipe's own "
          "files go to DIR/_ddbpipe/: rejects, unmatched items, summary.json, manifest.json)"}},
        {G_OUT | G_GEN,
         {"overwrite", OPT_FLAG, &ap->overwrite, NULL,
          "write into a folder holding files ddbpipe did not write (a previous run's files "
          "are replaced without it; the others are left as they are)"}},
        {G_GEN,
         {"out", OPT_STRING, &ap->out, "DIR",
          "folder for the output files (created if missing); - writes the items to standard "
          "output as DynamoDB JSON lines"}},
        {G_DIFF,
         {"out", OPT_STRING, &ap->out, "DIR",
          "where differences.ndjson and each side's rejects go (default: .)"}},
        {G_MAP,
         {"mapping", OPT_STRING, &ap->mapping, "FILE", "the table's mapping (formats/*.json)"}},
        {G_TOMAP,
         {"to-mapping", OPT_STRING, &ap->to_mapping, "FILE", "the mapping to re-key into"}},
        {G_DIFF,
         {"to-mapping", OPT_STRING, &ap->to_mapping, "FILE",
          "side B's mapping, when it differs from --mapping (e.g. after a re-keying)"}},
        {G_RECORDS | G_GEN,
         {"format", OPT_STRING, &ap->format, "FMT",
          "output format: ndjson, csv, ddb-json, parquet"}},
        {G_RECORDS | G_GEN,
         {"compression", OPT_STRING, &ap->compression, "zstd|snappy|gzip|none",
          "Parquet: how its pages are compressed (default zstd)"}},
        {G_RECORDS | G_GEN,
         {"row-group-rows", OPT_UINT, &ap->row_group_rows, "N",
          "Parquet: rows per row group (default 131072; a group also ends at 32 MiB)"}},
        {G_RECORDS | G_GEN,
         {"max-file-size", OPT_STRING, &ap->max_file_size, "SIZE",
          "Parquet: an entity's files as parts of at most about SIZE bytes (64M, 1G: powers of "
          "1024), OUT/<Entity>/part-NNNNN.parquet"}},
        {G_RECORDS | G_GEN,
         {"partition-by", OPT_STRING, &ap->partition_by, "FIELD",
          "each entity declaring FIELD in Hive folders, OUT/<Entity>/FIELD=value/part-N.<ext> "
          "(Athena, Glue, DuckDB hive_partitioning)"}},
        {G_RECORDS | G_ITEMS,
         {"key", OPT_STRING, &ap->key, "NAME[,NAME]",
          "Parquet without a mapping: the key attributes, a column each beside the item "
          "(default: the key schema of the table read)"}},
        {G_ITEMS,
         {"format", OPT_STRING, &ap->format, "FMT",
          "ddb-json, the only form items are written in (the Import from S3 form)"}},
        {G_OUT | G_GEN, {"gzip", OPT_FLAG, &ap->gzip, NULL, "gzip the output files"}},
        {G_RECORDS | G_GEN,
         {"out-delimiter", OPT_CHAR, &ap->out_delimiter, "C", "CSV output delimiter (default ,)"}},
        {G_RECORDS,
         {"max-columns", OPT_UINT, &ap->max_columns, "N",
          "CSV without a mapping: a column per attribute name; more than N (default 1000) "
          "stops the run (items whose names vary belong in NDJSON)"}},
        {G_RECORDS,
         {"typed", OPT_FLAG, &ap->typed, NULL,
          "without a mapping, write NDJSON values as DynamoDB JSON ({\"price\":{\"N\":\"9.5\"}}) "
          "so binary and sets read back as such (plain NDJSON reads them back as base64 "
          "strings and lists)"}},
        {G_RECORDS,
         {"extra", OPT_STRING, &ap->extra, "typed|plain",
          "records: undeclared attributes under _extra as DynamoDB JSON (typed, the default, "
          "reads back exactly) or as plain JSON values (for analytics tools)"}},
        {G_ENTITY,
         {"entity", OPT_STRING, &ap->entity, "NAME",
          "the entity of the input records (default: from the file name)"}},
    };
    return cli_pick_options(out, all, sizeof(all) / sizeof(all[0]), groups);
}

/* The tables read and written: which, how they are created and waited for, how hard
 * they are pressed. */
static size_t table_options(cli_opt *out, run_args *ap, unsigned groups)
{
    const grouped_opt all[] = {
        {G_SCAN, {"table", OPT_STRING, &ap->table, "NAME", "read this table (parallel Scan)"}},
        {G_IMPORT,
         {"table", OPT_STRING, &ap->table, "NAME",
          "the table to write (default: the one --mapping names)"}},
        {G_MIGRATE,
         {"to-table", OPT_STRING, &ap->to_table, "NAME",
          "the table to write (default: the one --to-mapping names)"}},
        {G_GEN,
         {"count", OPT_STRING, &ap->count, "ENTITY=N,...",
          "records to make per entity (k, M, G allowed); a bare N: for every entity not named"}},
        {G_GEN,
         {"seed", OPT_UINT, &ap->seed, "N",
          "seed of the made-up values (default 0): the same seed, mapping and counts give "
          "the same bytes"}},
        {G_GEN,
         {"table", OPT_STRING, &ap->table, "NAME", "write the items into this table, not files"}},
        {G_DIFF, {"table", OPT_STRING, &ap->table, "NAME", "side A is this table (parallel Scan)"}},
        {G_DIFF,
         {"to-table", OPT_STRING, &ap->to_table, "NAME", "side B is this table (parallel Scan)"}},
        {G_DIFF,
         {"key", OPT_STRING, &ap->key, "NAME[,NAME]",
          "without a mapping: the key attributes (default: the table's key schema)"}},
        {G_SAMPLE,
         {"sample", OPT_STRING, &ap->sample, "P",
          "compare only a share of the keys, the same on both sides: 10% or 0.1"}},
        {G_SELECT,
         {"entities", OPT_STRING, &ap->entities, "A,B",
          "read and write only the records of these entities of --mapping"}},
        {G_SELECT,
         {"where", OPT_STRING, &ap->where, "F=V,...",
          "only records whose fields match: F=V, F^=PREFIX (begins with), F>=A, F>A, F<=B, "
          "F<B, all of them (numbers compare as numbers, text byte by byte; \\, is a comma in "
          "V). Reading a table, fields that fix an entity's partition key (on the table or "
          "an index) make it one Query, else a Scan with a FilterExpression; records filtered "
          "out are counted"}},
        {G_RECORDS,
         {"project", OPT_STRING, &ap->project, "F1,F2",
          "write only these fields of the records (the others are left out, and so is "
          "_extra); reading a table, a ProjectionExpression of their attributes and of what "
          "tells each item's entity (its keys, required fields, the fields --where reads)"}},
        {G_SELECT,
         {"sample", OPT_STRING, &ap->sample, "N",
          "keep the first N records asked for (in the order they are read), then stop reading"}},
        {G_DIFF,
         {"max-memory", OPT_UINT, &ap->max_memory, "MB",
          "memory for comparing one pair of buckets (default 256); larger ones are split"}},
        {G_MIGRATE,
         {"live", OPT_FLAG, &ap->live, NULL,
          "the source is in use: take its stream's position, copy, then replay every change "
          "since through the mappings and follow new ones (needs the table's stream)"}},
        {G_MIGRATE,
         {"stop-when-idle", OPT_UINT, &ap->stop_when_idle, "SECONDS",
          "--live: stop (exit 0) once caught up and no change came for SECONDS "
          "(default: follow until interrupted)"}},
        {G_IMPORT | G_GEN,
         {"create-table", OPT_FLAG, &ap->create_table, NULL,
          "create the target table with all its indexes from the mapping "
          "if it does not exist"}},
        {G_MIGRATE | G_SYNC,
         {"create-table", OPT_FLAG, &ap->create_table, NULL,
          "create the target table if it does not exist: like the source table (its billing, "
          "throughput, Streams, encryption, class, deletion protection, tags, TTL, "
          "point-in-time recovery and policy; keys and indexes from --to-mapping when given), "
          "or from the mapping when the source is files"}},
        {G_IMPORT,
         {"delete", OPT_FLAG, &ap->delete_all, NULL,
          "delete the items whose keys the input holds, instead of writing them"}},
        {G_IMPORT,
         {"update", OPT_FLAG, &ap->update, NULL,
          "change only the attributes the input gives (UpdateItem, one request per item): "
          "the others an item has in the table stay; a missing item is created"}},
        {G_IMPORT,
         {"if-not-exists", OPT_FLAG, &ap->if_not_exists, NULL,
          "write an item only where its key is not in the table yet (a conditional PutItem, "
          "one request per item); items already there are left as they are and counted as "
          "existing"}},
        {G_SCAN | G_IMPORT | G_MIGRATE | G_GEN | G_DIFF,
         {"wait-active", OPT_UINT, &ap->wait_active, "SECONDS",
          "wait up to SECONDS for a table that is still being created or updated to become "
          "ACTIVE (default 600; 0: do not wait)"}},
        {G_SCAN | G_IMPORT | G_MIGRATE | G_GEN | G_DIFF,
         {"ignore-schema-mismatch", OPT_FLAG, &ap->ignore_schema_mismatch, NULL,
          "go on when the table's keys and indexes are not what the mapping describes (a "
          "warning instead of an error)"}},
        {G_SCAN | G_DIFF,
         {"segments", OPT_UINT, &ap->segments, "N", "parallel Scan segments (default 4)"}},
        {G_SCAN | G_DIFF,
         {"segment-range", OPT_STRING, &ap->segment_range, "A-B",
          "scan only segments A..B of --segments (to share a table across hosts)"}},
        {G_SCAN | G_DIFF,
         {"consistent-read", OPT_FLAG, &ap->consistent_read, NULL, "strongly consistent Scan"}},
        {G_SCAN | G_DIFF,
         {"page-size", OPT_UINT, &ap->page_size, "N",
          "items per Scan request (default: 1 MB pages)"}},
        {G_SCAN | G_DIFF,
         {"max-rcu", OPT_UINT, &ap->max_rcu, "N",
          "read at most N capacity units per second (as DynamoDB reports them)"}},
        {G_SYNC,
         {"no-delete", OPT_FLAG, &ap->no_delete, NULL,
          "keep the target's items the source lacks (counted as kept) instead of deleting "
          "them"}},
        {G_IMPORT | G_MIGRATE | G_GEN | G_SYNC,
         {"max-wcu", OPT_UINT, &ap->max_wcu, "N",
          "write at most N capacity units per second (as DynamoDB reports "
          "them; also sizes the --dry-run estimate)"}},
        {G_IMPORT | G_MIGRATE | G_GEN | G_SYNC,
         {"no-shuffle", OPT_FLAG, &ap->no_shuffle, NULL,
          "write items to the table in input order (default: shuffled within a window, so a "
          "sorted input spreads over the table's partitions)"}},
        {G_IMPORT | G_MIGRATE | G_GEN | G_SYNC,
         {"shuffle-window", OPT_UINT, &ap->shuffle_window, "N",
          "items (at most 16 MB of them) held to shuffle the writes (default 4096)"}},
        {G_DRY,
         {"dry-run", OPT_FLAG, &ap->dry_run, NULL,
          "do everything but the writes; report what would be written, the read and write "
          "units by DynamoDB's rules, the time and the on-demand price"}},
        {G_DRY,
         {"prices", OPT_STRING, &ap->prices, "FILE",
          "the dry run's price table (default: the built-in formats/prices/on-demand.json)"}},
    };
    return cli_pick_options(out, all, sizeof(all) / sizeof(all[0]), groups);
}

/* How the inputs are read (and the S3 objects written encrypted). */
static size_t input_options(cli_opt *out, run_args *ap, unsigned groups)
{
    const grouped_opt all[] = {
        {G_IN,
         {"input-format", OPT_STRING, &ap->input_format, "FMT",
          "force the input format: ddb-json, ndjson, csv, json (documents: arrays, "
          "pretty-printed items, scan output, BatchWriteItem requests, Workbench models, "
          "DynamoDB Streams records), "
          "scan, export, dynamodump, datapipeline (AWS Data Pipeline / EMR exports), parquet "
          "(default: by content; what is neither JSON nor clearly CSV is refused)"}},
        {G_IN,
         {"columns", OPT_STRING, &ap->columns, "A,B:N,...",
          "the columns of a CSV without a header row (its first row is data); NAME:TYPE "
          "gives a column's DynamoDB type"}},
        {G_IN,
         {"allow-short-rows", OPT_FLAG, &ap->allow_short_rows, NULL,
          "accept CSV rows with fewer cells than columns (the missing ones are absent)"}},
        {G_IN,
         {"allow-long-rows", OPT_FLAG, &ap->allow_long_rows, NULL,
          "accept CSV rows with more cells than columns: the extra cells are kept as "
          "attributes _col<N> (N the column number), in _extra of records"}},
        {G_IN,
         {"input-table", OPT_STRING, &ap->input_table, "NAME",
          "inputs that name several tables (BatchWriteItem request files, Workbench models): "
          "read this table's records, pass over the others' (default: read the first table "
          "each names, reject the others' records)"}},
        {G_IN,
         {"skip-expired", OPT_FLAG, &ap->skip_expired, NULL,
          "leave out items Time to Live has expired but not deleted yet (its attribute a "
          "Number of epoch seconds before the run's start, and not over five years before; "
          "counted in the summary)"}},
        {G_IN,
         {"ttl-attribute", OPT_STRING, &ap->ttl_attribute, "NAME",
          "the TTL attribute --skip-expired goes by (default: the table's, from "
          "DescribeTimeToLive; needed for files)"}},
        {G_IN,
         {"delimiter", OPT_CHAR, &ap->delimiter, "C",
          "CSV input delimiter: , tab ; | (default ,)"}},
        {G_IN,
         {"types", OPT_STRING, &ap->types, "NAME=T,...",
          "types of CSV/NDJSON attributes without a mapping, e.g. age=N,tags=SS"}},
        {G_IN,
         {"types-file", OPT_STRING, &ap->types_file, "FILE",
          "type CSV columns by a dynamodb-csv spec file ([CSV_SPEC] "
          "column=S|I|D|B|J|SL|SS|DL|DS)"}},
        {G_ENTITY | G_IMPORT | G_DIFF,
         {"allow-extra-columns", OPT_FLAG, &ap->allow_extra_columns, NULL,
          "record files: keep CSV columns that are no field of the entity, as undeclared "
          "attributes (by default such a file is an error)"}},
        {G_IN,
         {"no-verify", OPT_FLAG, &ap->no_verify, NULL,
          "do not check export checksums and item counts"}},
        {G_IN,
         {"shard", OPT_STRING, &ap->shard, "I/N",
          "read only share I of N of an export's data files (or of an s3:// prefix's "
          "objects), so N hosts split one export"}},
        {G_OUT,
         {"sse", OPT_STRING, &ap->sse, "AES256|aws:kms",
          "S3 outputs and --via-export's objects: server-side encryption to ask for"}},
        {G_OUT,
         {"sse-kms-key-id", OPT_STRING, &ap->sse_kms_key_id, "KEY",
          "S3 outputs and --via-export's objects: the KMS key of --sse aws:kms"}},
        {G_IN,
         {"max-line", OPT_UINT, &ap->max_line, "BYTES", "longest accepted line or row (64 MiB)"}},
    };
    return cli_pick_options(out, all, sizeof(all) / sizeof(all[0]), groups);
}

/* Where the records not written go, and how the run reports and resumes. */
static size_t run_control_options(cli_opt *out, run_args *ap, unsigned groups)
{
    const grouped_opt all[] = {
        {G_SIDE,
         {"rejects", OPT_STRING, &ap->rejects, "FILE",
          "where rejected records go (default OUT/_ddbpipe/rejects.ndjson; for a table "
          "STATE.rejects.ndjson beside --state, else ddbpipe-runs/<table>-<time>/rejects.ndjson);"
          " made only when something is rejected"}},
        {G_SIDE,
         {"unmatched", OPT_STRING, &ap->unmatched, "FILE",
          "where items no entity matches go, as DynamoDB JSON lines (default "
          "OUT/_ddbpipe/unmatched.ndjson, or beside the rejects as for --rejects)"}},
        {G_COMMON,
         {"max-rejects", OPT_UINT, &ap->max_rejects, "N",
          "allow at most N rejected records: past N the run stops at once, its files are not "
          "written, and it exits 1 (default: read everything, exit 1 if any was rejected)"}},
        {G_COMMON,
         {"summary", OPT_STRING, &ap->summary, "FILE", "also write the summary as JSON to FILE"}},
        {G_COMMON, {"quiet", OPT_FLAG, &ap->quiet, NULL, "print only errors and the summary"}},
        {G_COMMON,
         {"threads", OPT_UINT, &ap->threads, "N",
          "the threads an export or a conversion computes on: each parses, decodes and formats "
          "batches of records, which are written in read order, so the output is the same for "
          "any N (default: the cores the process may use, at most "
          CLI_STR(CLI_DEFAULT_THREADS_MAX) "; 1: everything on one thread; at most "
          CLI_STR(CLI_MAX_THREADS) ")"}},
        {G_COMMON,
         {"progress", OPT_STRING, &ap->progress, "MODE",
          "auto (a live line on a terminal, log lines otherwise), bar, log, json, off"}},
        {G_COMMON,
         {"progress-interval", OPT_UINT, &ap->progress_interval, "SECONDS",
          "seconds between progress lines when not on a terminal (default 10)"}},
        {G_STATE,
         {"state", OPT_STRING, &ap->state, "FILE",
          "record progress in FILE (atomically, at intervals and at exit) so the run "
          "can be resumed"}},
        {G_STATE,
         {"resume", OPT_FLAG, &ap->resume, NULL,
          "continue the run recorded in --state FILE (same inputs, mapping, options)"}},
        {G_STATE,
         {"checkpoint-interval", OPT_UINT, &ap->checkpoint_interval, "SECONDS",
          "seconds between checkpoints (default 10; 0: several a second)"}},
    };
    return cli_pick_options(out, all, sizeof(all) / sizeof(all[0]), groups);
}

/* The option table is cut into themes only to keep each part short; the
 * order of the parts is the order --help lists the options in. */
void cli_run_declare_options(cli_opt *out, run_args *ap, unsigned groups)
{
    const cli_opt aws_opts[] = {CLI_AWS_OPTS(ap->aws)};
    const cli_opt to_opts[] = {CLI_TO_OPTS(ap->aws)}; /* the target's own identity */
    size_t k = output_options(out, ap, groups);
    k += table_options(&out[k], ap, groups);
    k += input_options(&out[k], ap, groups);
    k += run_control_options(&out[k], ap, groups);
    k += cli_managed_options(&out[k], ap, groups);
    for (size_t i = 0; (groups & G_AWS) && i < sizeof(aws_opts) / sizeof(aws_opts[0]); i++)
        out[k++] = aws_opts[i];
    for (size_t i = 0; (groups & (G_MIGRATE | G_DIFF)) && i < sizeof(to_opts) / sizeof(to_opts[0]);
         i++)
        out[k++] = to_opts[i];
    memset(&out[k], 0, sizeof(out[k]));
}

int cli_run_parse(const cli_command *cmd, unsigned groups, int argc, char **argv, run_args *a,
                  const char ***inputs, size_t *n_inputs, int *help)
{
    cli_opt opts[128];
    int code, mode;

    memset(a, 0, sizeof(*a));
    a->checkpoint_interval = UINT64_MAX; /* not given: 10 s */
    a->wait_active = 600;
    a->max_rejects = UINT64_MAX; /* not given: 0, and the run reads everything */
    cli_run_declare_options(opts, a, groups);
    if ((code = cli_parse(argc, argv, cmd, opts, inputs, n_inputs, help)) != 0)
        return code;
    if (*help) {
        cli_print_help(cmd, opts);
        return EXIT_OK;
    }
    if (a->progress && cli_progress_parse(a->progress, &mode) != 0) {
        cli_error("use auto, bar, log, json or off", "unknown --progress \"%s\"", a->progress);
        return EXIT_USAGE;
    }
    /* The state and the spool of S3 uploads beside it stay on the local disk;
     * diff writes its own files locally. */
    if (cli_refuse_url("out", a->out, !(groups & G_DIFF)) ||
        cli_refuse_url("rejects", a->rejects, !(groups & G_DIFF)) ||
        cli_refuse_url("unmatched", a->unmatched, !(groups & G_DIFF)) ||
        cli_refuse_url("summary", a->summary, !(groups & G_DIFF)) ||
        cli_refuse_url("state", a->state, 0))
        return EXIT_USAGE;
    return EXIT_OK;
}

/* Beyond this many shares a share is a handful of files at most: a larger N is a typo. */
#define SHARD_MAX 100000u

/* One number of --shard: digits only (no sign, no space, which sscanf's %u let through, -1
 * becoming 4294967295), at most SHARD_MAX, so that no value wraps. Returns the end or NULL. */
static const char *parse_shard_number(const char *s, unsigned *out)
{
    unsigned v = 0;
    const char *p = s;
    for (; *p >= '0' && *p <= '9'; p++) {
        v = v * 10 + (unsigned)(*p - '0');
        if (v > SHARD_MAX)
            return NULL;
    }
    *out = v;
    return p == s ? NULL : p;
}

/* --shard K/N, strictly: 1 <= K <= N <= SHARD_MAX. */
static int parse_shard(const char *s, unsigned *k, unsigned *n)
{
    const char *p = parse_shard_number(s, k);
    if (p == NULL || *p != '/' || (p = parse_shard_number(p + 1, n)) == NULL || *p != '\0')
        return -1;
    return *k >= 1 && *k <= *n ? 0 : -1;
}

/* What is read and how: the mappings, the reader's options, --types, a
 * shard of the inputs, S3 and the managed paths. Returns 0 or EXIT_USAGE
 * after saying what is wrong. */
static int fill_input(ddb_run_options *o, const run_args *a)
{
    o->mapping_path = a->mapping;
    o->to_mapping_path = a->to_mapping;
    o->reader.delimiter = a->delimiter;
    o->reader.max_line = a->max_line;
    o->reader.no_verify = a->no_verify;
    o->reader.entity = a->entity;
    o->reader.table = a->input_table;
    o->reader.allow_short_rows = a->allow_short_rows;
    o->reader.allow_long_rows = a->allow_long_rows;
    o->reader.types_file = a->types_file;
    if (a->input_format && ddb_input_format_parse(&o->reader.format, a->input_format) != 0) {
        cli_error("use ddb-json, ndjson, csv, json, scan, export, dynamodump, datapipeline or parquet",
                  "unknown --input-format \"%s\"", a->input_format);
        return EXIT_USAGE;
    }
    o->types = a->types;
    o->skip_expired = a->skip_expired;
    o->ttl_attribute = a->ttl_attribute;
    if (a->shard && parse_shard(a->shard, &o->shard, &o->shards) != 0) {
        cli_error("write it I/N with 1 <= I <= N <= 100000, e.g. 2/3", "bad --shard \"%s\"",
                  a->shard);
        return EXIT_USAGE;
    }
    o->sse = a->sse;
    o->sse_kms_key_id = a->sse_kms_key_id;
    return cli_fill_managed_options(o, a) != 0 ? EXIT_USAGE : 0;
}

/* The table read (export, validate, migrate): its segments and pace. Returns
 * 0 or EXIT_USAGE after saying what is wrong. */
static int fill_scan(ddb_run_options *o, const run_spec *spec, const run_args *a)
{
    o->scan_table = (spec->groups & G_SCAN) ? a->table : NULL;
    o->segments = (int)a->segments;
    if (a->segment_range) {
        o->has_range = 1;
        if (cli_parse_range(a->segment_range, &o->segment_first, &o->segment_last) != 0) {
            cli_error("write it A-B, e.g. 0-3", "bad --segment-range \"%s\"", a->segment_range);
            return EXIT_USAGE;
        }
    }
    o->consistent_read = a->consistent_read;
    o->page_size = a->page_size;
    o->max_rcu = (double)a->max_rcu;
    return 0;
}

/* "67108864", "64M", "64MiB", "1G": bytes, K/M/G powers of 1024. Returns 0
 * or -1 (not a size, 0, or past 2^63). */
static int parse_size(const char *s, uint64_t *out)
{
    static const char units[] = "KMGT";
    char *end;
    unsigned long long v;
    uint64_t mul = 1;
    const char *u;
    if (*s < '0' || *s > '9')
        return -1;
    v = strtoull(s, &end, 10);
    if (*end != '\0' && (u = strchr(units, *end & ~0x20)) != NULL) {
        mul = (uint64_t)1 << (10 * (u - units + 1));
        end++;
        if (strcmp(end, "iB") == 0 || strcmp(end, "B") == 0)
            end += strlen(end);
    } else if (strcmp(end, "B") == 0) {
        end++;
    }
    if (*end != '\0' || v == 0 || v > (UINT64_MAX >> 1) / mul)
        return -1;
    *out = (uint64_t)v * mul;
    return 0;
}

/* The files written: folder, format, compression, undeclared attributes.
 * Returns 0 or EXIT_USAGE after saying what is wrong. */
static int fill_files(ddb_run_options *o, const run_args *a)
{
    o->out_dir = a->out;
    if (a->format) {
        o->format_set = 1;
        if (ddb_out_format_parse(&o->format, a->format) != 0) {
            cli_error("use ndjson, csv, ddb-json or parquet", "unknown --format \"%s\"",
                      a->format);
            return EXIT_USAGE;
        }
    }
    if (a->compression) {
        ddb_error cerr;
        if (ddb_parquet_codec_parse(&o->parquet_codec, a->compression, &cerr) != 0) {
            cli_error("use zstd, snappy, gzip or none", "--compression: %s", cerr.message);
            return EXIT_USAGE;
        }
        o->parquet_codec_set = 1;
    }
    o->parquet_group_rows = a->row_group_rows;
    if (a->max_file_size != NULL && parse_size(a->max_file_size, &o->max_file_bytes) != 0) {
        cli_error("give bytes, or a number with K, M or G (64M, 1G)",
                  "--max-file-size: \"%s\" is not a size", a->max_file_size);
        return EXIT_USAGE;
    }
    o->partition_by = a->partition_by;
    o->gzip = a->gzip;
    o->out_delimiter = a->out_delimiter;
    o->max_columns = a->max_columns;
    o->typed_values = a->typed;
    if (a->extra != NULL && strcmp(a->extra, "typed") != 0) {
        if (strcmp(a->extra, "plain") != 0) {
            cli_error("use typed or plain", "unknown --extra \"%s\"", a->extra);
            return EXIT_USAGE;
        }
        o->extra_plain = 1;
    }
    return 0;
}

/* The table written (import, migrate, generate): how, and how hard it is
 * pressed. Returns 0 or EXIT_USAGE after saying what is wrong. */
static int fill_target(ddb_run_options *o, const run_spec *spec, const run_args *a)
{
    o->target_table = (spec->groups & (G_IMPORT | G_GEN)) ? a->table
                      : (spec->groups & G_MIGRATE)        ? a->to_table
                                                          : NULL;
    o->create_table = a->create_table;
    o->delete_all = a->delete_all;
    if (a->update && a->if_not_exists) {
        cli_error("--update changes items that exist; --if-not-exists leaves them alone: pick one",
                  "--update and --if-not-exists cannot go together");
        return EXIT_USAGE;
    }
    o->write_mode = a->update          ? DDB_WRITE_UPDATE
                    : a->if_not_exists ? DDB_WRITE_IF_ABSENT
                                       : DDB_WRITE_BATCH;
    o->dry_run = a->dry_run;
    o->max_wcu = (double)a->max_wcu;
    o->shuffle_window = cli_shuffle_window(a);
    o->max_attempts = (int)a->aws.max_attempts;
    o->wait_active_s = (int)a->wait_active;
    return 0;
}

size_t cli_shuffle_window(const run_args *a)
{
    if (a->no_shuffle)
        return 0;
    return a->shuffle_window ? (size_t)a->shuffle_window : DDB_SHUFFLE_WINDOW;
}

/* The cores this process may run on (its affinity mask: a container's or a
 * taskset's share, not the machine's), at most CLI_DEFAULT_THREADS_MAX. */
static int default_threads(void)
{
    cpu_set_t set;
    int n = 0;
    if (sched_getaffinity(0, sizeof(set), &set) == 0)
        n = CPU_COUNT(&set);
    if (n <= 0) {
        long online = sysconf(_SC_NPROCESSORS_ONLN);
        n = online > 0 ? (int)online : 1;
    }
    return n < CLI_DEFAULT_THREADS_MAX ? n : CLI_DEFAULT_THREADS_MAX;
}

/* Where the records not written go, the limits, the checkpoints, the threads
 * and the reporting. */
static void fill_control(ddb_run_options *o, const run_spec *spec, const run_args *a)
{
    o->rejects_path = a->rejects;
    o->unmatched_path = a->unmatched;
    o->overwrite = a->overwrite;
    o->summary_path = a->summary;
    o->report_limit = spec->mode == DDB_MODE_VALIDATE ? 0 : (a->quiet ? 5 : 20);
    o->allow_extra_columns = a->allow_extra_columns;
    o->limit_rejects = a->max_rejects != UINT64_MAX;
    o->max_rejects = o->limit_rejects ? a->max_rejects : 0;
    o->state_path = a->state;
    o->resume = a->resume;
    o->threads = a->threads == 0                ? default_threads()
                 : a->threads > CLI_MAX_THREADS ? CLI_MAX_THREADS
                                                : (int)a->threads;
    o->checkpoint_seconds = a->checkpoint_interval == UINT64_MAX ? 10.0
                            : a->checkpoint_interval == 0        ? 0.2 /* as often as worth it */
                                                                 : (double)a->checkpoint_interval;
    o->report = cli_report;
    o->stop = cli_stop_flag();
}

/* generate: records are written as they are made (export's way); items, for
 * a table, DynamoDB JSON files or a pipe, are encoded with the mapping again
 * (convert's way), so every entity is counted by name. */
static void fill_generate(ddb_run_options *o, const run_args *a)
{
    o->generate = 1;
    o->gen_seed = a->seed;
    o->out_stream = 1;
    if (a->table || (a->out && strcmp(a->out, "-") == 0) ||
        (o->format_set && o->format == DDB_OUT_DDBJSON)) {
        o->mode = DDB_MODE_CONVERT;
        o->to_mapping_path = a->mapping;
    }
}

/* --entities, --where, --sample N. Returns 0 or EXIT_USAGE after saying what is wrong. */
static int fill_select(ddb_run_options *o, const run_args *a)
{
    o->select_entities = a->entities;
    o->select_where = a->where;
    o->select_project = a->project;
    if (a->sample != NULL) {
        char *end;
        unsigned long long n = strtoull(a->sample, &end, 10);
        if (end == a->sample || *end != '\0' || n == 0 || a->sample[0] == '-') {
            cli_error("--sample N: how many records, e.g. --sample 1000", "bad --sample \"%s\"",
                      a->sample);
            return EXIT_USAGE;
        }
        o->select_sample = n;
    }
    return 0;
}

int cli_fill_run_options(ddb_run_options *o, const run_spec *spec, const run_args *a,
                         const char **inputs, size_t n_inputs)
{
    int code;
    assert(o != NULL && spec != NULL && a != NULL);
    memset(o, 0, sizeof(*o));
    o->command = spec->name;
    o->mode = spec->mode;
    o->inputs = inputs;
    o->n_inputs = n_inputs;
    o->scan_allowed = (spec->groups & G_SCAN) != 0;
    o->writes_table =
        (spec->groups & (G_IMPORT | G_MIGRATE)) != 0 || ((spec->groups & G_GEN) && a->table);
    o->ignore_schema_mismatch = a->ignore_schema_mismatch;
    if ((code = fill_input(o, a)) != 0 || (code = fill_scan(o, spec, a)) != 0 ||
        (code = fill_files(o, a)) != 0 || (code = fill_target(o, spec, a)) != 0)
        return code;
    fill_control(o, spec, a);
    /* migrate without mappings copies the items as they are: import's way, from a table */
    if ((spec->groups & G_MIGRATE) && a->mapping == NULL && a->to_mapping == NULL)
        o->mode = DDB_MODE_IMPORT;
    /* diff's --key names the sides' keys (diff.h), not columns */
    if (spec->groups & (G_RECORDS | G_ITEMS))
        o->key_attrs = a->key;
    if ((spec->groups & G_SELECT) && (code = fill_select(o, a)) != 0)
        return code;
    if (spec->groups & G_GEN)
        fill_generate(o, a);
    return 0;
}
