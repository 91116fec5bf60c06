/*
 * cli.h (private header of cli/) — the command-line tool: option parsing, printing, exit codes. The
 * engine (the modules in src/) knows nothing of argv; everything user-facing is here.
 */
#ifndef DDBPIPE_CLI_H
#define DDBPIPE_CLI_H

#include <stddef.h>
#include <stdint.h>

#include "ddbpipe/awsconfig.h"
#include "ddbpipe/buf.h"
#include "ddbpipe/client.h"
#include "ddbpipe/error.h"
#include "ddbpipe/pipeline.h"
#include "ddbpipe/table.h"

/* Exit codes (documented in README.md). */
enum {
    EXIT_OK = 0,
    EXIT_REJECTS = 1,   /* records were rejected (more than --max-rejects) */
    EXIT_USAGE = 2,     /* bad command line or mapping */
    EXIT_INPUT = 3,     /* an input could not be read or failed verification */
    EXIT_OUTPUT = 4,    /* an output could not be written */
    EXIT_SERVICE = 5,   /* DynamoDB or the network failed */
    EXIT_UNMATCHED = 6, /* not one record matched an entity of the mapping */
    EXIT_UNPROVEN = 7,  /* diff: no difference found, but a side rejected records */
    EXIT_INTERRUPTED = 130,
    EXIT_BROKEN_PIPE = 141 /* an output pipe closed early (| head): stopped and cleaned up */
};

typedef enum cli_opt_kind { OPT_FLAG, OPT_STRING, OPT_UINT, OPT_CHAR } cli_opt_kind;

typedef struct cli_opt {
    const char *name; /* without the leading "--" */
    cli_opt_kind kind;
    void *target;        /* int*, const char**, uint64_t*, char* */
    const char *metavar; /* NULL for flags */
    const char *help;
} cli_opt;

typedef struct cli_command {
    const char *name;
    const char *usage;       /* "export INPUT... --out DIR [options]" */
    const char *summary;     /* one line */
    const char *description; /* paragraphs for --help */
    int (*run)(int argc, char **argv);
} cli_command;

/* Parses argv[1..] (argv[0] is the command name) against opts; positional
 * arguments go to *pos (malloc'd array, caller frees). "--help" sets *help.
 * Returns 0 or EXIT_USAGE after printing the problem and a hint. */
int cli_parse(int argc, char **argv, const cli_command *cmd, const cli_opt *opts, const char ***pos,
              size_t *npos, int *help);

/* The command of that name in cli_commands, or NULL. */
const cli_command *cli_find_command(const char *name);

/* Prints "ddbpipe: error: <msg>" and, when hint is not NULL, "hint: <hint>". */
void cli_error(const char *hint, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints the help of a command: usage, description, options; as text (--help), or in the form
 * cli_help_as asks for while the manual page or the shell completions are made
 * (cli/manual.c), so that all three come from the same text. */
void cli_print_help(const cli_command *cmd, const cli_opt *opts);

typedef enum cli_help_form {
    CLI_HELP_TEXT = 0, /* --help: plain text on stdout */
    CLI_HELP_MAN,      /* the command's section of ddbpipe(1), in roff, on stdout */
    CLI_HELP_OPTIONS   /* the command's options into cli_help_options (completions) */
} cli_help_form;

/* How cli_print_help prints (CLI_HELP_TEXT unless the manual or completions are being made). */
extern cli_help_form cli_help_as;
/* CLI_HELP_OPTIONS collects here: "--name" or "--name=METAVAR", one a line. */
extern ddb_buf cli_help_options;

/* The exit codes and the environment variables ddbpipe reads, as --help and the manual page
 * list them: {what, meaning} pairs, ending with {NULL, NULL}. */
extern const char *const cli_exit_codes[][2];
extern const char *const cli_environment[][2];

/* Prints --version: ddbpipe's version, then the libraries it runs with (what a bug report
 * needs). */
void cli_print_version(void);

/* The section of one command in the manual page (cli_print_help under CLI_HELP_MAN). */
void cli_manual_command(const cli_command *cmd, const cli_opt *opts);

/* Prints the manual page ddbpipe(1), in roff, made from the commands' own --help. */
void cli_print_manual(void);

/* Prints the completion script of shell ("bash" or "zsh"), made from the commands' own
 * options. Returns EXIT_OK, or EXIT_USAGE for another shell. */
int cli_print_completion(const char *shell);

/* Where the shipped mappings are: "<prefix>/share/ddbpipe/formats" beside the running
 * binary's "<prefix>/bin", else the folder it was built to be installed in. */
const char *cli_formats_dir(void);

/* A --mapping or --to-mapping value: a path as given when something is there, else a shipped
 * mapping of that name ("favorites" or "favorites.json" in cli_formats_dir()), else v as given
 * (its load then says it is not there). The result lives as long as the process. */
const char *cli_mapping_path(const char *v);

/* Problem reporter for the pipeline: prints to stderr. */
void cli_report(void *ctx, int severity, const char *msg);

/* A --delimiter value: "," "tab" "\t" ";" "|". Returns 0 or EXIT_USAGE. */
int cli_parse_delimiter(const char *s, char *out);

/* Options every command that talks to DynamoDB accepts. */
typedef struct cli_aws_args {
    const char *endpoint_url;
    const char *region;
    const char *profile;
    uint64_t concurrency;
    uint64_t max_attempts;
    uint64_t request_timeout_ms;
    int verbose;
    /* The target's own identity (migrate, sync, diff): --to-profile, --to-region,
     * --to-endpoint-url, --to-role-arn, --to-external-id. Each one not given is the
     * source's (--profile, --region, --endpoint-url); none given: one identity for both. */
    const char *to_profile, *to_region, *to_endpoint_url, *to_role_arn, *to_external_id;
} cli_aws_args;

#define CLI_TO_OPTS(a)                                                                             \
    {"to-profile", OPT_STRING, &(a).to_profile, "NAME",                                            \
     "the target's profile (another account): its own credentials, refreshed on their own "        \
     "(default: --profile's)"},                                                                    \
        {"to-region", OPT_STRING, &(a).to_region, "REGION",                                        \
         "the target's region (default: --region, else the target profile's)"},                    \
        {"to-endpoint-url", OPT_STRING, &(a).to_endpoint_url, "URL",                               \
         "the target's DynamoDB endpoint (default: --endpoint-url, else the target profile's)"},   \
        {"to-role-arn", OPT_STRING, &(a).to_role_arn, "ARN",                                       \
         "reach the target as this IAM role (STS AssumeRole with the target's credentials, "       \
         "assumed again before they expire)"},                                                     \
    {                                                                                              \
        "to-external-id", OPT_STRING, &(a).to_external_id, "ID",                                   \
            "--to-role-arn: the external ID the role's trust policy asks for"                      \
    }

#define CLI_AWS_OPTS(a)                                                                            \
    {"endpoint-url", OPT_STRING, &(a).endpoint_url, "URL",                                         \
     "DynamoDB endpoint (default: AWS_ENDPOINT_URL_DYNAMODB, AWS_ENDPOINT_URL, the region's)"},    \
        {"region", OPT_STRING, &(a).region, "REGION",                                              \
         "AWS region (default: AWS_REGION, profile)"},                                             \
        {"profile", OPT_STRING, &(a).profile, "NAME", "profile in ~/.aws/config and credentials"}, \
        {"concurrency", OPT_UINT, &(a).concurrency, "N", "requests in flight (default 16)"},       \
        {"max-attempts", OPT_UINT, &(a).max_attempts, "N",                                         \
         "attempts per request before giving up (default 10)"},                                    \
        {"request-timeout", OPT_UINT, &(a).request_timeout_ms, "MS",                               \
         "give up on one HTTP attempt after MS milliseconds and retry (default 60000)"},           \
    {                                                                                              \
        "verbose", OPT_FLAG, &(a).verbose, NULL, "log each request (never credentials)"            \
    }

typedef struct cli_conn {
    ddb_aws_config *config;
    ddb_client *client;
    /* With two identities, which side this is and how it is reached, e.g. "target (profile
     * b, region us-west-2)", for every message about it; "" with one identity. */
    char side[400];
    int verbose; /* --verbose: the refresher's successes are said too */
} cli_conn;

/* Resolves credentials, region and endpoint and creates the client. Prints
 * the problem and returns an exit code on failure. */
int cli_connect(cli_conn *conn, const cli_aws_args *a);

/* Was any --to-* identity option given (so the target has an identity of its own)? */
int cli_has_target_identity(const cli_aws_args *a);
/* The identities a run with a target identity reaches its tables with, as the options give
 * them ("profile=a to-profile=b to-region=us-west-2 ..."), for a resumed run to check that it
 * writes where the interrupted one did (never a secret: the external ID is left out). Appends
 * nothing without a --to-* option. */
void cli_identity_text(ddb_buf *b, const cli_aws_args *a);

/* The --to-* identity options against each other and the command: they need a table to
 * reach (target_table), and --to-external-id a --to-role-arn. Returns 0 or EXIT_USAGE after
 * saying why. */
int cli_check_target_identity(const cli_aws_args *a, int target_table);

/* cli_connect for the target, with the --to-* options over the source's: its own
 * credential chain (and role), region, endpoint and client; its messages say "target" (and
 * cli_connect's, when a --to-* option is given, "source"). */
int cli_connect_target(cli_conn *conn, const cli_aws_args *a);

/* Progress while a table is being created or updated (ddb_table_wait_fn):
 * one line at once, then every 10 s. ctx is a cli_table_wait. */
typedef struct cli_table_wait {
    int quiet;
    int limit_s;
    double last_said; /* seconds waited when we last said something; < 0 = never */
} cli_table_wait;
void cli_table_waiting(void *ctx, const ddb_table_info *t, double waited_s);

/* Table name made through to like table source read through from (the same connection, or
 * the target's own), its keys and indexes m's when not NULL (cmd_table.c), with autoscaling its
 * Application Auto Scaling too (a table that existed is left as it is); what was not copied
 * is printed. An existing table is an error unless exists_ok. Returns the exit status after
 * saying any problem. */
int cli_create_like(cli_conn *from, cli_conn *to, const char *source, const char *name,
                    const ddb_mapping *m, int exists_ok, int autoscaling, cli_table_wait *waiting);
void cli_disconnect(cli_conn *conn);

int cmd_create_table(int argc, char **argv);
int cmd_describe(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_encode(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_migrate(int argc, char **argv);
int cmd_generate(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_sync(int argc, char **argv);
int cmd_mapping_from_workbench(int argc, char **argv);

extern const cli_command cli_commands[];
extern const size_t cli_n_commands;

#endif
