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
 * --verbose, failures always (one fprintf, so lines do not interleave); ctx is the
 * connection, whose side they name. */
static void log_refresh(void *ctx, ddb_log_level level, const char *msg)
{
    const cli_conn *conn = ctx;
    const char *sep = conn->side[0] ? ": " : "";
    if (level == DDB_LOG_WARNING)
        fprintf(stderr, "ddbpipe: warning: %s%s%s\n", conn->side, sep, msg);
    else if (conn->verbose)
        fprintf(stderr, "ddbpipe: %s%s%s\n", conn->side, sep, msg);
}

/* The client's log (its attempts, with --verbose), as the tool prints it; ctx is the side's
 * name ("" with one identity). */
static void print_client_log(void *ctx, ddb_log_level level, const char *msg)
{
    const char *side = ctx;
    (void)level;
    fprintf(stderr, "ddbpipe: %s%s%s\n", side, *side ? ": " : "", msg);
}

static void print_notice(void *ctx, const char *msg)
{
    const char *side = ctx;
    fprintf(stderr, "ddbpipe: %s%s%s\n", side, *side ? ": " : "", msg);
}

int cli_has_target_identity(const cli_aws_args *a)
{
    return a->to_profile || a->to_region || a->to_endpoint_url || a->to_role_arn ||
           a->to_external_id;
}

void cli_identity_text(ddb_buf *b, const cli_aws_args *a)
{
    const char *const names[] = {"profile",    "region",        "endpoint-url",
                                 "to-profile", "to-region",     "to-endpoint-url",
                                 "to-role-arn"};
    const char *const values[] = {a->profile,    a->region,    a->endpoint_url,  a->to_profile,
                                  a->to_region,  a->to_endpoint_url, a->to_role_arn};
    if (!cli_has_target_identity(a))
        return;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (values[i] != NULL)
            ddb_buf_printf(b, "%s%s=%s", b->len ? " " : "", names[i], values[i]);
}

int cli_check_target_identity(const cli_aws_args *a, int target_table)
{
    if (a->to_external_id && !a->to_role_arn) {
        cli_error("--to-role-arn ARN --to-external-id ID",
                  "--to-external-id is the role's: it needs --to-role-arn");
        return EXIT_USAGE;
    }
    if (cli_has_target_identity(a) && !target_table) {
        cli_error("--to-table NAME, reached with the --to-* options",
                  "--to-profile, --to-region, --to-endpoint-url and --to-role-arn are the "
                  "identity of the target table, and there is none");
        return EXIT_USAGE;
    }
    return 0;
}

/* Says the problem of a failed resolution, with the hint that fits; returns the exit code. */
static int resolve_failed(const ddb_error *err, int target)
{
    /* Only a missing credential or region needs a hint of its own; the
     * other messages say what to fix (run aws sso login, a profile...). */
    int no_region = strncmp(err->message, "no AWS region", 13) == 0;
    cli_error(err->code == DDB_ENOTFOUND && no_region
                  ? (target ? "--to-region us-west-2, or region = us-west-2 in the target "
                              "profile's section of ~/.aws/config"
                            : "--region us-east-1, or AWS_REGION=us-east-1, or region = us-east-1 "
                              "in the profile's section of ~/.aws/config (any region for a local "
                              "server)")
              : err->code == DDB_ENOTFOUND
                  ? (target ? "--to-profile NAME: a profile with the target account's credentials"
                            : "set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or --profile (for "
                              "a local server: --endpoint-url http://127.0.0.1:PORT)")
              : strstr(err->message, "endpoint URL") != NULL
                  ? (target ? "e.g. --to-endpoint-url http://127.0.0.1:8000"
                            : "e.g. --endpoint-url http://127.0.0.1:8000")
                  : NULL,
              "%s", err->message);
    return err->code == DDB_ENOTFOUND || err->code == DDB_EUSAGE || err->code == DDB_EINVAL
               ? EXIT_USAGE
               : EXIT_SERVICE;
}

/* With --verbose: where the credentials, region and endpoint came from (never a secret). */
static void say_resolved(const cli_conn *conn)
{
    const char *sd = conn->side[0] ? conn->side : "", *sep = conn->side[0] ? ": " : "";
    ddb_buf line = DDB_BUF_INIT;
    ddb_credprov_describe(&line, conn->config->provider);
    fprintf(stderr, "ddbpipe: %s%scredentials: %s\n", sd, sep, line.ptr ? line.ptr : "?");
    fprintf(stderr, "ddbpipe: %s%sregion %s (from %s), endpoint %s (from %s)\n", sd, sep,
            conn->config->region, conn->config->region_source, conn->config->endpoint_url,
            conn->config->endpoint_source);
    if (conn->config->ca_bundle)
        fprintf(stderr, "ddbpipe: %s%sCAs trusted for https: %s (from %s)\n", sd, sep,
                conn->config->ca_bundle, conn->config->ca_bundle_source);
    ddb_buf_dispose(&line);
}

/* The client over a resolved config, with the command line's settings. Returns 0 or an
 * exit code after saying why. */
static int new_client(cli_conn *conn, const cli_aws_args *a)
{
    ddb_client_opts co;
    ddb_error err;
    const char *nogz = getenv("DDBPIPE_NO_GZIP");
    memset(&co, 0, sizeof(co));
    co.endpoint = conn->config->endpoint_url;
    co.region = conn->config->region;
    co.credentials = conn->config->credentials;
    co.provider = conn->config->provider;
    co.concurrency = (int)(a->concurrency ? a->concurrency : 16);
    co.max_attempts = (int)a->max_attempts;
    co.verbose = a->verbose;
    co.log = print_client_log;
    co.log_ctx = conn->side;
    co.notice = print_notice;
    co.notice_ctx = conn->side;
    co.request_timeout_ms = (long)a->request_timeout_ms;
    co.ca_bundle = conn->config->ca_bundle;
    /* DDBPIPE_NO_GZIP: answers as they are (for a proxy that decodes them) */
    co.no_gzip = nogz != NULL && nogz[0] != '\0' && strcmp(nogz, "0") != 0;
    if (ddb_client_new(&conn->client, &co, &err) != 0) {
        cli_error(conn->side[0] ? "check --to-endpoint-url" : "check --endpoint-url", "%s%s%s",
                  conn->side, conn->side[0] ? ": " : "", err.message);
        return EXIT_USAGE;
    }
    return 0;
}

/* Resolves one identity (o), starts its refresher and makes its client. side: "source",
 * "target" or NULL (one identity: messages as ever). */
static int connect_as(cli_conn *conn, const cli_aws_args *a, ddb_aws_options *o,
                      const char *side)
{
    ddb_error err;
    int code;

    memset(conn, 0, sizeof(*conn));
    o->max_attempts = (int)a->max_attempts;
    o->request_timeout_ms = (long)a->request_timeout_ms;
    o->getenv = real_getenv;
    if (ddb_aws_config_resolve(&conn->config, o, &err) != 0) {
        if (side)
            ddb_error_prefix(&err, "%s: ", side);
        return resolve_failed(&err, side && strcmp(side, "target") == 0);
    }
    if (side)
        snprintf(conn->side, sizeof(conn->side), "%s (%s%s%sprofile %s, region %s)", side,
                 o->role_arn ? "role " : "", o->role_arn ? o->role_arn : "",
                 o->role_arn ? ", " : "", conn->config->profile, conn->config->region);
    if (a->verbose)
        say_resolved(conn);
    conn->verbose = a->verbose;
    if (ddb_credprov_start(conn->config->provider, log_refresh, conn, &err) != 0) {
        cli_error(NULL, "%s%s%s", conn->side, conn->side[0] ? ": " : "", err.message);
        code = EXIT_SERVICE;
    } else {
        code = new_client(conn, a);
    }
    if (code != 0) {
        ddb_aws_config_free(conn->config);
        conn->config = NULL;
    }
    return code;
}

int cli_connect(cli_conn *conn, const cli_aws_args *a)
{
    ddb_aws_options o;
    memset(&o, 0, sizeof(o));
    o.profile = a->profile;
    o.region = a->region;
    o.endpoint_url = a->endpoint_url;
    o.profile_origin = "--profile";
    o.region_origin = "--region";
    o.endpoint_origin = "--endpoint-url";
    return connect_as(conn, a, &o, cli_has_target_identity(a) ? "source" : NULL);
}

int cli_connect_target(cli_conn *conn, const cli_aws_args *a)
{
    ddb_aws_options o;
    memset(&o, 0, sizeof(o));
    o.profile = a->to_profile ? a->to_profile : a->profile;
    o.region = a->to_region ? a->to_region : a->region;
    o.endpoint_url = a->to_endpoint_url ? a->to_endpoint_url : a->endpoint_url;
    o.profile_origin = a->to_profile ? "--to-profile" : "--profile";
    o.region_origin = a->to_region ? "--to-region" : "--region";
    o.endpoint_origin = a->to_endpoint_url ? "--to-endpoint-url" : "--endpoint-url";
    o.role_arn = a->to_role_arn;
    o.external_id = a->to_external_id;
    o.role_origin = "--to-role-arn";
    return connect_as(conn, a, &o, "target");
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
