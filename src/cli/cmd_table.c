/* create-table and describe: the table itself. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "run_support.h"
#include "ddbpipe/mapping.h"
#include "ddbpipe/table.h"

int cmd_create_table(int argc, char **argv)
{
    const cli_command *cmd = cli_find_command("create-table");
    cli_aws_args aws;
    cli_table_wait waiting;
    const char *mapping_path = NULL, *table = NULL, **pos = NULL;
    size_t npos = 0;
    int help = 0, exists_ok = 0, code;
    uint64_t timeout = 600;
    ddb_mapping *m = NULL;
    cli_conn conn;
    ddb_error err;
    memset(&aws, 0, sizeof(aws));
    memset(&conn, 0, sizeof(conn));
    cli_opt opts[] = {
        {"mapping", OPT_STRING, &mapping_path, "FILE",
         "the mapping whose table and indexes to create"},
        {"table", OPT_STRING, &table, "NAME", "table name (default: the mapping's)"},
        {"if-not-exists", OPT_FLAG, &exists_ok, NULL, "an existing table is not an error"},
        {"wait", OPT_UINT, &timeout, "SECONDS", "how long to wait for ACTIVE (default 600)"},
        {"wait-active", OPT_UINT, &timeout, "SECONDS", "the same as --wait"},
        CLI_AWS_OPTS(aws),
        {NULL, OPT_FLAG, NULL, NULL, NULL},
    };
    if ((code = cli_parse(argc, argv, cmd, opts, &pos, &npos, &help)) != 0)
        goto done;
    if (help) {
        cli_print_help(cmd, opts);
        goto done;
    }
    code = EXIT_USAGE;
    if (mapping_path == NULL) {
        cli_error("ddbpipe create-table --mapping formats/favorites.json [--table NAME]",
                  "--mapping is required");
        goto done;
    }
    if (npos > 0) {
        cli_error("see ddbpipe create-table --help", "unexpected argument \"%s\"", pos[0]);
        goto done;
    }
    if (ddb_mapping_load(&m, mapping_path, &err) != 0) {
        cli_error("check the file given to --mapping", "%s", err.message);
        goto done;
    }
    if ((code = cli_connect(&conn, &aws)) != 0)
        goto done;
    waiting.quiet = 0;
    waiting.limit_s = (int)(timeout ? timeout : 600);
    waiting.last_said = -1;
    cli_catch_broken_pipe(0); /* its messages are no data: a closed pipe stops nothing */
    cli_catch_stop_signals();
    if (ddb_table_create(conn.client, m, table, exists_ok, (int)timeout, cli_stop_flag(),
                         cli_table_waiting, &waiting, &err) != 0) {
        cli_error(err.code == DDB_EUSAGE ? "add --if-not-exists to accept an existing table" : NULL,
                  "%s", err.message);
        code = err.code == DDB_EUSAGE  ? EXIT_USAGE
               : err.code == DDB_EINTR ? EXIT_INTERRUPTED
                                       : EXIT_SERVICE;
        goto done;
    }
    fprintf(stderr, "ddbpipe: table %s is ACTIVE with %zu index%s\n", table ? table : m->table.name,
            m->table.n_indexes, m->table.n_indexes == 1 ? "" : "es");
    code = EXIT_OK;
done:
    cli_disconnect(&conn);
    ddb_mapping_free(m);
    free(pos);
    return code;
}

int cmd_describe(int argc, char **argv)
{
    const cli_command *cmd = cli_find_command("describe");
    cli_aws_args aws;
    const char *table = NULL, **pos = NULL;
    size_t npos = 0;
    int help = 0, code;
    ddb_table_info *ti = NULL;
    cli_conn conn;
    ddb_error err;
    ddb_buf out = DDB_BUF_INIT;
    memset(&aws, 0, sizeof(aws));
    memset(&conn, 0, sizeof(conn));
    cli_opt opts[] = {
        {"table", OPT_STRING, &table, "NAME", "the table"},
        CLI_AWS_OPTS(aws),
        {NULL, OPT_FLAG, NULL, NULL, NULL},
    };
    if ((code = cli_parse(argc, argv, cmd, opts, &pos, &npos, &help)) != 0)
        goto done;
    if (help) {
        cli_print_help(cmd, opts);
        goto done;
    }
    code = EXIT_USAGE;
    if (table == NULL) {
        cli_error("ddbpipe describe --table NAME", "--table is required");
        goto done;
    }
    if ((code = cli_connect(&conn, &aws)) != 0)
        goto done;
    if (ddb_table_describe(&ti, conn.client, table, &err) != 0) {
        cli_error(NULL, "%s", err.message);
        code = err.code == DDB_ENOTFOUND ? EXIT_USAGE : EXIT_SERVICE;
        goto done;
    }
    ddb_table_info_format(&out, ti);
    fputs(out.ptr, stdout);
    code = EXIT_OK;
done:
    ddb_buf_dispose(&out);
    ddb_table_info_free(ti);
    cli_disconnect(&conn);
    free(pos);
    return code;
}
