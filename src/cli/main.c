/* ddbpipe: command dispatch, --help, --version, the manual page and completions. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

const cli_command cli_commands[] = {
    {"export",
     "export (INPUT... | --table NAME) --out DIR [--mapping FILE] [--format ndjson|csv|ddb-json|parquet]",
     "DynamoDB items -> per-entity record files",
     "Reads DynamoDB items (an Export to S3 folder, DynamoDB JSON lines, AWS CLI scan,\n"
     "query, get and transact-get output, JSON arrays and documents, BatchWriteItem and\n"
     "TransactWriteItems request files, NoSQL Workbench models, dynamodump backups,\n"
     "NDJSON or CSV; gzip or not; - for stdin) and writes them out. With a mapping, each\n"
     "item is decoded into a record of its entity with readable field names and types,\n"
     "one file per entity: OUT/<Entity>.<ext>. Items no entity matches go to\n"
     "OUT/_ddbpipe/unmatched.ndjson (or --unmatched FILE). Without a mapping, all items\n"
     "go to one file OUT/items.<ext>. Incremental exports' deletes go to\n"
     "OUT/<Entity>.deletes.<ext>.\n"
     "With --table, the live table is read with a parallel Scan (--segments N); without a\n"
     "mapping that gives DynamoDB JSON lines in the Import from S3 form with --format\n"
     "ddb-json: a full backup you can import again.\n"
     "Without a mapping, NDJSON is plain JSON: read again, binary values come back as\n"
     "base64 strings and sets as lists (--typed writes DynamoDB JSON values, which keep\n"
     "them); CSV gives every attribute a column headed with its type (price:N, tags:SS;\n"
     "strings just name) and reads back to the same items.\n"
     "With --table and --via-export s3://bucket/prefix/, DynamoDB exports the table there\n"
     "itself (ExportTableToPointInTime: no read capacity used, billed per GB; the table\n"
     "needs point-in-time recovery), full or incremental (--since); ddbpipe waits for it\n"
     "and reads the export into the same files. Under --state a resumed run follows the\n"
     "same export, never a second one.",
     cmd_export},
    {"convert", "convert INPUT... --out DIR --mapping A --to-mapping B",
     "re-key items from one design into another",
     "Decodes each item with mapping A and encodes the record with mapping B (same\n"
     "entity names), writing DynamoDB JSON items ready for Import from S3:\n"
     "OUT/<Entity>.json, one per entity.",
     cmd_convert},
    {"encode", "encode INPUT... --mapping FILE --out DIR [--entity NAME]",
     "per-entity records -> DynamoDB items",
     "Reads per-entity record files (CSV, NDJSON or DynamoDB JSON) and encodes each\n"
     "record into an item with every key and index attribute computed, written as\n"
     "DynamoDB JSON (OUT/<Entity>.json). The entity comes from --entity or the file\n"
     "name: Tag.csv holds Tag records, Tag.deletes.csv holds Tag keys to delete.",
     cmd_encode},
    {"validate", "validate INPUT... [--mapping FILE]", "check inputs without writing anything",
     "Reads everything, writes nothing, and reports every problem: unreadable records,\n"
     "item rule violations, items that do not fit their entity, and items that would\n"
     "change if encoded again. Record files named after an entity are checked by\n"
     "encoding them. Exit status as for the other commands.",
     cmd_validate},
    {"import", "import INPUT... --table NAME [--mapping FILE] [--create-table] [--dry-run]",
     "write files into a table (BatchWriteItem)",
     "Writes items into a table with BatchWriteItem: DynamoDB JSON, an Export to S3\n"
     "folder (its deletes become DeleteRequests), scan output, NDJSON or CSV items; or,\n"
     "with a mapping, per-entity record files (Tag.csv, ...) encoded into items first.\n"
     "Each item is checked against the table's real key schema (DescribeTable) before it\n"
     "is sent; it counts as written only once DynamoDB has accepted it. UnprocessedItems\n"
     "are retried with backoff; items that exhaust their attempts go to the rejects file.\n"
     "--create-table creates the table and all its indexes from the mapping first.\n"
     "--delete deletes the items whose keys the input holds.\n"
     "With --via-import s3://bucket/prefix/ --create-table, the items are checked and\n"
     "uploaded there (gzip DynamoDB JSON) and DynamoDB creates and loads the new table\n"
     "itself (ImportTable: no write capacity used, billed per GB; global secondary\n"
     "indexes only, it cannot create local ones); ddbpipe waits for it and reports what\n"
     "it imported.",
     cmd_import},
    {"migrate",
     "migrate (--table SRC [--live] | INPUT...) --mapping A --to-table DST --to-mapping B "
     "[--dry-run]",
     "re-key a table (or files) into another table",
     "Scans SRC (or reads files), decodes each item with mapping A, encodes the record\n"
     "with mapping B and writes it to DST. Items no entity of A matches are kept in\n"
     "ddbpipe-runs/<DST>-<time>/unmatched.ndjson, or STATE.unmatched.ndjson beside\n"
     "--state STATE (or --unmatched FILE), with the rejects. --dry-run\n"
     "does everything but the writes and reports what would be written and the write\n"
     "capacity it would take.\n"
     "\n"
     "--live migrates a table in use: the position of its DynamoDB Stream is taken before\n"
     "the copy, then every change since is re-keyed and applied in order per key (an item\n"
     "whose target key changed is deleted at its old key), and new changes are followed\n"
     "until SIGINT/SIGTERM (position saved, exit 130) or --stop-when-idle. The stream must\n"
     "be enabled (NEW_AND_OLD_IMAGES where changes can move items in the target). With\n"
     "--state STATE the position is kept in STATE.live: --resume goes on exactly.",
     cmd_migrate},
    {"generate",
     "generate --mapping FILE --count ENTITY=N,... (--out DIR [--format ndjson|csv|ddb-json|parquet] | "
     "--table NAME) [--seed N]",
     "make up realistic records for every entity of a mapping",
     "Makes records for the entities of a mapping from nothing: each field's type, enum,\n"
     "format, pattern and pad are honoured, and a field's \"generate\" property in the\n"
     "mapping can ask for a range, a list of values with weights, a distribution, a\n"
     "number of distinct values or a share of absent ones (formats/README.md).\n"
     "Records are consistent across entities: an entity whose fields hold every key\n"
     "field of another (FavoriteDataTag: userId, dataId, tagId) refers to existing records\n"
     "of it, of the same user. Every record is encoded and decoded back before it is\n"
     "written. The same --seed, mapping and counts give the same bytes.\n"
     "--format ndjson, csv or parquet writes records (OUT/<Entity>.<ext>); ddb-json writes items\n"
     "(OUT/<Entity>.json) that export --mapping decodes with no reject; --table writes\n"
     "the items into a table with BatchWriteItem (--create-table creates it first).",
     cmd_generate},
    {"diff",
     "diff (A | --table T) (B | --to-table T2) [--mapping FILE [--to-mapping FILE]] [--out DIR] "
     "[--sample P]",
     "compare two tables, exports or files record by record",
     "Reads side A and side B (each a table, an Export to S3 folder, files, or a folder of\n"
     "files such as an export's output) and compares them record by record. With a mapping\n"
     "items are decoded first and records of the same entity are matched by their key\n"
     "fields, so --mapping v1.json --to-mapping v2.json checks a re-keying migration.\n"
     "Numbers are compared by value (1.0 equals 1), sets as sets, binary as bytes.\n"
     "Without a mapping items are matched by their key attributes (--key, or the table's).\n"
     "Prints the counts per entity (equal, different, only in A, only in B) and writes\n"
     "each difference, by key with the attributes that differ, to OUT/differences.ndjson.\n"
     "Memory stays bounded: records are hash-partitioned into bucket files under OUT and\n"
     "compared a bucket at a time. --sample compares a share of the keys (the same keys\n"
     "on both sides). Without --out, the files go to a folder of the run's own,\n"
     "ddbpipe-runs/diff-<UTC time>/, and the report names them. Exit status 0 only when\n"
     "the sides are the same; 1 when they differ (or a side stopped past --max-rejects);\n"
     "7 when no difference was found but a side rejected records\n"
     "(_rejects_a.ndjson, _rejects_b.ndjson): what was not compared may differ.",
     cmd_diff},
    {"sync",
     "sync (SOURCE | --table T) --to-table TARGET [--mapping FILE [--to-mapping FILE]] "
     "[--no-delete] [--dry-run] [--out DIR]",
     "make a table hold the source's records, writing only the differences",
     "Compares as diff does (the source as side A: a table, an Export to S3 folder or\n"
     "files; the target table as side B; records matched by entity and key through the\n"
     "mappings) and writes only the differences, with BatchWriteItem: an item the source\n"
     "lacks is deleted (--no-delete keeps it); then a record the target lacks or holds\n"
     "different is encoded with the target's mapping (--to-mapping, else --mapping) and\n"
     "put whole. Items no entity matches are put as they are only when both\n"
     "sides use the same mapping. --dry-run compares and counts, and writes nothing.\n"
     "Prints how many records were equal, put and deleted; OUT/differences.ndjson lists\n"
     "what was found, OUT/_rejects_sync.ndjson what could not be written and why. Exit\n"
     "status 0 once the target holds the source's records (extras kept by --no-delete\n"
     "aside); 1 when a difference could not be written (with --dry-run: when there are\n"
     "differences); 7 when all was written but a side rejected records, which were not\n"
     "compared: not proven equal.",
     cmd_sync},
    {"create-table",
     "create-table (--mapping FILE | --like SOURCE [--to-mapping FILE]) [--table NAME] "
     "[--if-not-exists]",
     "create a table from a mapping, or like another table",
     "Creates the mapping's table (or --table NAME) with its key schema and every GSI and\n"
     "LSI, on-demand billing, and waits until it and its indexes are ACTIVE.\n\n"
     "With --like SOURCE, the new table (--table NAME, default SOURCE's name) is made like\n"
     "SOURCE, read with --profile, --region and --endpoint-url: keys and indexes (or\n"
     "--to-mapping's), billing mode and throughput, Streams, encryption and its KMS key,\n"
     "table class, deletion protection, tags, Time to Live, point-in-time recovery and the\n"
     "resource policy. The new table is made with the --to-* options (another account or\n"
     "region), each one not given being the source's. What cannot be copied is named.",
     cmd_create_table},
    {"describe", "describe --table NAME", "show a table's keys, indexes and size",
     "Prints the table's status, billing mode, approximate item count and size, its key\n"
     "schema and each index's keys, as DescribeTable reports them.",
     cmd_describe},
    {"mapping-from-workbench", "mapping-from-workbench MODEL [--table NAME] [--out FILE]",
     "draft a mapping from a NoSQL Workbench data model",
     "Reads a NoSQL Workbench model (the JSON file Workbench exports) and drafts a\n"
     "mapping for one of its tables: the table's keys and indexes, one entity per\n"
     "facet, key templates from the facet's key aliases when they are templates\n"
     "(USER#<id>) or else from its sample items (the parts every sample shares are\n"
     "literal, the parts that vary are fields), and the facet's attributes as fields.\n"
     "Notes on stderr say what was guessed and how many of the model's sample items\n"
     "decode and encode back exactly with the draft. The model's items themselves are\n"
     "an input like any other: ddbpipe import MODEL --table T writes them.",
     cmd_mapping_from_workbench},
};
const size_t cli_n_commands = sizeof(cli_commands) / sizeof(cli_commands[0]);

const char *const cli_exit_codes[][2] = {
    {"0", "ok"},
    {"1", "records were rejected (diff: the sides differ; sync: a difference not written)"},
    {"2", "usage: a bad command line or mapping"},
    {"3", "input error"},
    {"4", "output error"},
    {"5", "DynamoDB or network error"},
    {"6", "no record matched the mapping"},
    {"7", "diff: no difference found, but records were rejected: not proven equal (sync too)"},
    {"130", "interrupted"},
    {"141", "the output pipe was closed (--out -: standard output carrying data)"},
    {NULL, NULL},
};

const char *const cli_environment[][2] = {
    {"AWS_PROFILE, AWS_REGION, AWS_ACCESS_KEY_ID...",
     "the AWS CLI's variables, with ~/.aws/config and ~/.aws/credentials"},
    {"AWS_ENDPOINT_URL[_DYNAMODB|_S3]", "the endpoints, as the AWS CLI reads them"},
    {"AWS_CA_BUNDLE", "the certificates TLS trusts"},
    {"https_proxy, http_proxy, all_proxy, no_proxy", "proxies, as libcurl reads them"},
    {"DDBPIPE_NO_GZIP=1",
     "stops asking DynamoDB for gzip answers (for a proxy that decodes them)"},
    {NULL, NULL},
};

static void usage(FILE *f)
{
    fprintf(f,
            "ddbpipe %s — move data in and out of DynamoDB single-table designs, exactly.\n\n"
            "Usage: ddbpipe COMMAND [options]\n\nCommands:\n",
            DDB_VERSION);
    for (size_t i = 0; i < cli_n_commands; i++)
        fprintf(f, "  %-10s %s\n", cli_commands[i].name, cli_commands[i].summary);
    fprintf(f, "\nRun 'ddbpipe COMMAND --help' for a command's options; 'man ddbpipe' for all.\n"
               "'ddbpipe --version' names the libraries it runs with; 'ddbpipe --completion\n"
               "bash|zsh' prints a shell completion script, 'ddbpipe --manual' the manual page.\n"
               "\nExit status:\n");
    for (size_t i = 0; cli_exit_codes[i][0] != NULL; i++)
        fprintf(f, "  %-4s %s\n", cli_exit_codes[i][0], cli_exit_codes[i][1]);
    fprintf(f, "\nEnvironment:\n");
    for (size_t i = 0; cli_environment[i][0] != NULL; i++)
        fprintf(f, "  %s: %s\n", cli_environment[i][0], cli_environment[i][1]);
}

int main(int argc, char **argv)
{
    const cli_command *cmd;
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
        cli_print_version();
        return EXIT_OK;
    }
    if (strcmp(argv[1], "--manual") == 0) {
        cli_print_manual();
        return EXIT_OK;
    }
    if (strcmp(argv[1], "--completion") == 0) {
        if (argc != 3) {
            cli_error("ddbpipe --completion bash (or zsh)", "--completion needs a shell");
            return EXIT_USAGE;
        }
        return cli_print_completion(argv[2]);
    }
    if ((cmd = cli_find_command(argv[1])) != NULL)
        return cmd->run(argc - 1, argv + 1);
    cli_error("run 'ddbpipe --help' for the list of commands", "unknown command \"%s\"", argv[1]);
    return EXIT_USAGE;
}
