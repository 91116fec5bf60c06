/* create-table and describe: the table itself. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "run_support.h"
#include "ddbpipe/mapping.h"
#include "ddbpipe/table.h"
#include "ddbpipe/autoscaling.h"
#include "ddbpipe/table_like.h"

/* Prints what a table made like another left out or should be known about, one line each. */
static void print_notes(const ddb_buf *notes)
{
    const char *p = notes->ptr ? notes->ptr : "";
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        fprintf(stderr, "ddbpipe: %.*s\n", (int)n, p);
        p += n + (nl != NULL);
    }
}

/* --copy-autoscaling: the source's Application Auto Scaling given to the new table. Returns
 * the exit status after saying any problem. */
static int copy_autoscaling(cli_conn *from, cli_conn *to, const char *source, const char *name)
{
    ddb_autoscaling_side f = {from->client, from->config->autoscaling_endpoint_url, source};
    ddb_autoscaling_side t = {to->client, to->config->autoscaling_endpoint_url, name};
    ddb_buf notes = DDB_BUF_INIT;
    ddb_error err;
    int rc = ddb_autoscaling_copy(&f, &t, &notes, &err);
    print_notes(&notes);
    ddb_buf_dispose(&notes);
    if (rc == 0)
        return EXIT_OK;
    cli_error("the table is made; its autoscaling is not (or only in part): see the message",
              "%s", err.message);
    return EXIT_SERVICE;
}

int cli_create_like(cli_conn *from, cli_conn *to, const char *source, const char *name,
                    const ddb_mapping *m, int exists_ok, int autoscaling, cli_table_wait *waiting)
{
    ddb_table_like *like = NULL;
    ddb_table_like_wait w;
    ddb_buf notes = DDB_BUF_INIT;
    ddb_error err;
    int code, created = 0;

    if (ddb_table_like_read(&like, from->client, source, &err) != 0) {
        cli_error(NULL, "%s%s%s", from->side, from->side[0] ? ": " : "", err.message);
        code = err.code == DDB_ENOTFOUND ? EXIT_USAGE : EXIT_SERVICE;
        goto done;
    }
    memset(&w, 0, sizeof(w));
    w.timeout_s = waiting->limit_s;
    w.stop = cli_stop_flag();
    w.on_wait = cli_table_waiting;
    w.ctx = waiting;
    if (ddb_table_like_create(to->client, like, name, m, exists_ok, &w, &created, &notes,
                              &err) != 0) {
        print_notes(&notes);
        cli_error(err.code == DDB_EUSAGE ? "add --if-not-exists to accept an existing table" : NULL,
                  "%s%s%s", to->side, to->side[0] ? ": " : "", err.message);
        code = err.code == DDB_EUSAGE  ? EXIT_USAGE
               : err.code == DDB_EINTR ? EXIT_INTERRUPTED
                                       : EXIT_SERVICE;
        goto done;
    }
    if (created)
        print_notes(&notes);
    if (!waiting->quiet || !created)
        fprintf(stderr, "ddbpipe: table %s %s like %s\n", name,
                created ? "is ACTIVE, made" : "exists already; left as it is, not made", source);
    code = created && autoscaling ? copy_autoscaling(from, to, source, name) : EXIT_OK;
done:
    ddb_buf_dispose(&notes);
    ddb_table_like_free(like);
    return code;
}

/* create-table --like SOURCE: read through the source's identity, made through the target's
 * (the --to-* options; without them the same one). Returns the exit status. */
static int create_like(const cli_aws_args *aws, const char *source, const char *table,
                       const ddb_mapping *m, int exists_ok, int autoscaling,
                       cli_table_wait *waiting)
{
    cli_conn from, to;
    int code, two = cli_has_target_identity(aws);

    memset(&from, 0, sizeof(from));
    memset(&to, 0, sizeof(to));
    if ((code = cli_connect(&from, aws)) == 0 &&
        (!two || (code = cli_connect_target(&to, aws)) == 0)) {
        cli_catch_broken_pipe(0);
        cli_catch_stop_signals();
        code = cli_create_like(&from, two ? &to : &from, source, table ? table : source, m,
                               exists_ok, autoscaling, waiting);
    }
    cli_disconnect(&to);
    cli_disconnect(&from);
    return code;
}

int cmd_create_table(int argc, char **argv)
{
    const cli_command *cmd = cli_find_command("create-table");
    cli_aws_args aws;
    cli_table_wait waiting;
    const char *mapping_path = NULL, *table = NULL, *like = NULL, *to_mapping = NULL, **pos = NULL;
    size_t npos = 0;
    int help = 0, exists_ok = 0, autoscaling = 0, code;
    uint64_t timeout = 600;
    ddb_mapping *m = NULL;
    cli_conn conn;
    ddb_error err;
    memset(&aws, 0, sizeof(aws));
    memset(&conn, 0, sizeof(conn));
    cli_opt opts[] = {
        {"mapping", OPT_STRING, &mapping_path, "FILE",
         "the mapping whose table and indexes to create"},
        {"like", OPT_STRING, &like, "SOURCE",
         "make it like table SOURCE (read with --profile, --region, --endpoint-url)"},
        {"to-mapping", OPT_STRING, &to_mapping, "FILE",
         "--like: the keys and indexes of this mapping instead of the source's"},
        {"table", OPT_STRING, &table, "NAME",
         "table name (default: the mapping's, or --like's)"},
        {"copy-autoscaling", OPT_FLAG, &autoscaling, NULL,
         "--like: also copy the source's Application Auto Scaling targets and target tracking "
         "policies (AWS_ENDPOINT_URL_APPLICATION_AUTO_SCALING moves its endpoint)"},
        {"if-not-exists", OPT_FLAG, &exists_ok, NULL, "an existing table is not an error"},
        {"wait", OPT_UINT, &timeout, "SECONDS", "how long to wait for ACTIVE (default 600)"},
        {"wait-active", OPT_UINT, &timeout, "SECONDS", "the same as --wait"},
        CLI_AWS_OPTS(aws),
        CLI_TO_OPTS(aws),
        {NULL, OPT_FLAG, NULL, NULL, NULL},
    };
    if ((code = cli_parse(argc, argv, cmd, opts, &pos, &npos, &help)) != 0)
        goto done;
    if (help) {
        cli_print_help(cmd, opts);
        goto done;
    }
    code = EXIT_USAGE;
    if ((mapping_path == NULL) == (like == NULL) || ((to_mapping || autoscaling) && !like)) {
        cli_error("ddbpipe create-table --mapping formats/favorites.json [--table NAME], or "
                  "--like SOURCE [--to-mapping FILE] [--table NAME]",
                  mapping_path && like ? "--mapping and --like cannot go together"
                  : mapping_path       ? "--to-mapping and --copy-autoscaling are for --like"
                                       : "--mapping or --like is required");
        goto done;
    }
    if (npos > 0) {
        cli_error("see ddbpipe create-table --help", "unexpected argument \"%s\"", pos[0]);
        goto done;
    }
    if (cli_check_target_identity(&aws, like != NULL) != 0)
        goto done;
    if ((mapping_path || to_mapping) &&
        ddb_mapping_load(&m, mapping_path ? mapping_path : cli_mapping_path(to_mapping), &err) != 0) {
        cli_error(mapping_path ? "check the file given to --mapping"
                               : "check the file given to --to-mapping",
                  "%s", err.message);
        goto done;
    }
    waiting.quiet = 0;
    waiting.limit_s = (int)(timeout ? timeout : 600);
    waiting.last_said = -1;
    if (like != NULL) {
        code = create_like(&aws, like, table, m, exists_ok, autoscaling, &waiting);
        goto done;
    }
    if ((code = cli_connect(&conn, &aws)) != 0)
        goto done;
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
