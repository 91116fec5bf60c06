/* Connecting to DynamoDB from command-line options, as the AWS CLI resolves them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ddbpipe/credprov.h"

static const char *real_getenv(void *ctx, const char *name)
{
    (void)ctx;
    return getenv(name);
}

/* Refresh reports from the credential refresher's thread: successes with
 * --verbose, failures always (one fprintf, so lines do not interleave). */
static void log_refresh(void *ctx, ddb_log_level level, const char *msg)
{
    if (level == DDB_LOG_WARNING)
        fprintf(stderr, "ddbpipe: warning: %s\n", msg);
    else if (ctx != NULL) /* --verbose */
        fprintf(stderr, "ddbpipe: %s\n", msg);
}

/* The client's log (its attempts, with --verbose), as the tool prints it. */
static void print_client_log(void *ctx, ddb_log_level level, const char *msg)
{
    (void)ctx;
    (void)level;
    fprintf(stderr, "ddbpipe: %s\n", msg);
}

static void print_notice(void *ctx, const char *msg)
{
    (void)ctx;
    fprintf(stderr, "ddbpipe: %s\n", msg);
}

int cli_connect(cli_conn *conn, const cli_aws_args *a)
{
    ddb_aws_options o;
    ddb_client_opts co;
    ddb_error err;

    memset(conn, 0, sizeof(*conn));
    memset(&o, 0, sizeof(o));
    o.profile = a->profile;
    o.region = a->region;
    o.endpoint_url = a->endpoint_url;
    o.profile_origin = "--profile";
    o.region_origin = "--region";
    o.endpoint_origin = "--endpoint-url";
    o.max_attempts = (int)a->max_attempts;
    o.request_timeout_ms = (long)a->request_timeout_ms;
    o.getenv = real_getenv;
    if (ddb_aws_config_resolve(&conn->config, &o, &err) != 0) {
        /* Only a missing credential or region needs a hint of its own; the
         * other messages say what to fix (run aws sso login, a profile...). */
        int no_region = strncmp(err.message, "no AWS region", 13) == 0;
        cli_error(err.code == DDB_ENOTFOUND && no_region
                      ? "--region us-east-1, or AWS_REGION=us-east-1, or region = us-east-1 in the "
                        "profile's section of ~/.aws/config (any region for a local server)"
                  : err.code == DDB_ENOTFOUND
                      ? "set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or --profile (for a "
                        "local server: --endpoint-url http://127.0.0.1:PORT)"
                  : strstr(err.message, "endpoint URL") != NULL
                      ? "e.g. --endpoint-url http://127.0.0.1:8000"
                      : NULL,
                  "%s", err.message);
        return err.code == DDB_ENOTFOUND || err.code == DDB_EUSAGE || err.code == DDB_EINVAL
                   ? EXIT_USAGE
                   : EXIT_SERVICE;
    }
    if (a->verbose) {
        ddb_buf line = DDB_BUF_INIT;
        ddb_credprov_describe(&line, conn->config->provider);
        fprintf(stderr, "ddbpipe: credentials: %s\n", line.ptr ? line.ptr : "?");
        fprintf(stderr, "ddbpipe: region %s (from %s), endpoint %s (from %s)\n",
                conn->config->region, conn->config->region_source, conn->config->endpoint_url,
                conn->config->endpoint_source);
        if (conn->config->ca_bundle)
            fprintf(stderr, "ddbpipe: CAs trusted for https: %s (from %s)\n",
                    conn->config->ca_bundle, conn->config->ca_bundle_source);
        ddb_buf_dispose(&line);
    }
    if (ddb_credprov_start(conn->config->provider, log_refresh, a->verbose ? (void *)conn : NULL,
                           &err) != 0) {
        cli_error(NULL, "%s", err.message);
        ddb_aws_config_free(conn->config);
        conn->config = NULL;
        return EXIT_SERVICE;
    }
    memset(&co, 0, sizeof(co));
    co.endpoint = conn->config->endpoint_url;
    co.region = conn->config->region;
    co.credentials = conn->config->credentials;
    co.provider = conn->config->provider;
    co.concurrency = (int)(a->concurrency ? a->concurrency : 16);
    co.max_attempts = (int)a->max_attempts;
    co.verbose = a->verbose;
    co.log = print_client_log;
    co.notice = print_notice;
    co.request_timeout_ms = (long)a->request_timeout_ms;
    co.ca_bundle = conn->config->ca_bundle;
    /* DDBPIPE_NO_GZIP: answers as they are (for a proxy that decodes them) */
    co.no_gzip = getenv("DDBPIPE_NO_GZIP") != NULL && getenv("DDBPIPE_NO_GZIP")[0] != '\0' &&
                 strcmp(getenv("DDBPIPE_NO_GZIP"), "0") != 0;
    if (ddb_client_new(&conn->client, &co, &err) != 0) {
        cli_error("check --endpoint-url", "%s", err.message);
        ddb_aws_config_free(conn->config);
        conn->config = NULL;
        return EXIT_USAGE;
    }
    return 0;
}

void cli_disconnect(cli_conn *conn)
{
    ddb_client_free(conn->client);
    ddb_aws_config_free(conn->config);
    memset(conn, 0, sizeof(*conn));
}

void cli_table_waiting(void *ctx, const ddb_table_info *t, double waited_s)
{
    cli_table_wait *w = ctx;
    char idx[300] = "";
    size_t n = 0;
    if (w->quiet || (w->last_said >= 0 && waited_s - w->last_said < 10))
        return;
    w->last_said = waited_s;
    for (size_t i = 0; i < t->n_indexes && n < sizeof(idx); i++)
        if (t->indexes[i].global && t->indexes[i].status &&
            strcmp(t->indexes[i].status, "ACTIVE") != 0)
            n += (size_t)snprintf(idx + n, sizeof(idx) - n, "%s index %s %s", n ? "," : ";",
                                  t->indexes[i].name, t->indexes[i].status);
    fprintf(stderr,
            "ddbpipe: table %s is %s%s; waiting for it to become ACTIVE (%.0f s so far, at most "
            "%d s: --wait-active)\n",
            t->name, t->status ? t->status : "?", idx, waited_s, w->limit_s);
}
