/*
 * awsconfig.h — AWS credentials, region and DynamoDB endpoint, resolved the
 * way the AWS CLI (botocore) resolves them, so `ddbpipe` works wherever
 * `aws dynamodb ...` works.
 *
 * Profile: --profile (opts.profile), else AWS_PROFILE, else "default". A
 * profile that was named (--profile or AWS_PROFILE) must exist in one of the
 * two files, else the call fails with DDB_EUSAGE, as in the CLI.
 *
 * Files: the config file is AWS_CONFIG_FILE or ~/.aws/config, with sections
 * [default] and [profile NAME] ([services NAME] for service endpoints); the
 * credentials file is AWS_SHARED_CREDENTIALS_FILE or ~/.aws/credentials, with
 * sections [NAME]. A missing file counts as empty. For settings (region,
 * credential_process, endpoint_url...) a key in the credentials file wins
 * over the same key in the config file's section of the same profile.
 *
 * Credentials, first match wins (botocore's chain):
 *  1. AWS_ACCESS_KEY_ID + AWS_SECRET_ACCESS_KEY (+ AWS_SECURITY_TOKEN or
 *     AWS_SESSION_TOKEN), unless --profile was given: like the CLI, an
 *     explicit --profile ignores these variables (AWS_PROFILE does not).
 *  2. Assume-role, web identity and SSO profiles (role_arn,
 *     web_identity_token_file, sso_session, sso_start_url; or AWS_ROLE_ARN +
 *     AWS_WEB_IDENTITY_TOKEN_FILE) are outside ddbpipe: they fail with a hint
 *     to use `aws configure export-credentials` through credential_process.
 *  3. aws_access_key_id / aws_secret_access_key (/ aws_session_token) in the
 *     profile's section of the credentials file.
 *  4. credential_process of the profile: run with /bin/sh -c (the CLI splits
 *     it shell-like and runs it without a shell), stdin from /dev/null,
 *     stdout read as {"Version":1,"AccessKeyId","SecretAccessKey",
 *     "SessionToken"?,"Expiration"?}. A non-zero exit, bad JSON, a missing
 *     field or already expired credentials fail; the message quotes the
 *     process's stderr (first line) but never its stdout.
 *  5. The same keys in the profile's section of the config file.
 * Container and EC2 instance-metadata credentials are not supported.
 *
 * Region: opts.region (--region), AWS_REGION, AWS_DEFAULT_REGION, the
 * profile's `region`. Required.
 * Endpoint: opts.endpoint_url (--endpoint-url), AWS_ENDPOINT_URL_DYNAMODB,
 * `dynamodb = / endpoint_url = ...` in the [services NAME] section the
 * profile's `services` names, AWS_ENDPOINT_URL, the profile's `endpoint_url`,
 * else https://dynamodb.<region>.amazonaws.com (".com.cn" for cn- regions).
 * AWS_IGNORE_CONFIGURED_ENDPOINT_URLS=true (or the profile's
 * ignore_configured_endpoint_urls = true) skips all but --endpoint-url.
 *
 * INI syntax (Python configparser, as botocore uses it): full-line comments
 * starting with # or ; (no inline comments: "a = b # c" has the value
 * "b # c"); "key = value" or "key: value"; keys are case-insensitive (the
 * CLI lower-cases them), values are trimmed and kept exactly; an indented
 * line continues the previous key: under a key with an empty value it is a
 * sub-key ("s3 =" then "  addressing_style = path"), otherwise it is
 * appended to the value after a space. A duplicate section or key, a key
 * outside any section or a line that is none of these is an error naming the
 * file and line.
 *
 * Secrets: credential structs are cleansed when freed, file buffers and
 * process output are cleansed after parsing, and no error message or
 * description contains a secret key or session token.
 */
#ifndef DDBPIPE_AWSCONFIG_H
#define DDBPIPE_AWSCONFIG_H

#include <stddef.h>
#include <time.h>

#include "ddbpipe/buf.h"
#include "ddbpipe/error.h"

/* Returns the value of an environment variable, or NULL. */
typedef const char *(*ddb_aws_getenv_fn)(void *ctx, const char *name);

typedef struct ddb_aws_options {
    const char *profile;      /* --profile, or NULL */
    const char *region;       /* --region, or NULL */
    const char *endpoint_url; /* --endpoint-url, or NULL */
    /* Environment lookup; NULL means the process environment. Tests pass
     * their own, which also keeps them away from the real ~/.aws: HOME is
     * read through it, and only the process-environment mode falls back to
     * the password database when HOME is unset. */
    ddb_aws_getenv_fn getenv;
    void *getenv_ctx;
} ddb_aws_options;

typedef struct ddb_aws_credentials {
    char *access_key_id;
    char *secret_access_key;
    char *session_token; /* NULL for long-term keys */
    time_t expiration;   /* 0 when they do not expire */
    char *source;        /* for logs, e.g. "credentials file /h/.aws/credentials [default]" */
} ddb_aws_credentials;

typedef struct ddb_aws_config {
    char *profile;     /* the profile consulted */
    char *config_file; /* paths consulted; NULL when HOME is unknown */
    char *credentials_file;
    ddb_aws_credentials *credentials;
    char *region;
    char *region_source; /* "--region", "AWS_REGION", "profile 'x' in /path"... */
    char *endpoint_url;
    char *endpoint_source; /* likewise, or "default for the region" */
} ddb_aws_config;

/* Resolves credentials, region and endpoint. *out is owned by the caller
 * (ddb_aws_config_free). opts may be NULL (process environment, defaults).
 * Returns 0; DDB_ENOTFOUND when no credentials or no region were found (the
 * message lists every place tried: variables, file paths, profile);
 * DDB_EUSAGE for a named profile that does not exist or an unsupported
 * credential kind; DDB_EINVAL for a malformed file (path:line), partial keys,
 * a bad region or endpoint URL; DDB_EIO when a file cannot be read; DDB_ERROR
 * when credential_process fails; DDB_ENOMEM. On failure *out is NULL. */
DDB_MUST_USE int ddb_aws_config_resolve(ddb_aws_config **out, const ddb_aws_options *opts,
                                        ddb_error *err);

/* Resolves credentials only, e.g. to refresh them when
 * (*out)->expiration is near. Same ownership and errors as above. */
int ddb_aws_credentials_resolve(ddb_aws_credentials **out, const ddb_aws_options *opts,
                                ddb_error *err);

/* Cleanses and frees. Accept NULL. */
void ddb_aws_credentials_free(ddb_aws_credentials *creds);
void ddb_aws_config_free(ddb_aws_config *cfg);

/* Writes a loggable form of an identifier into out (always NUL-terminated):
 * "AKIA****MPLE" (first and last 4) when it has 12 or more characters,
 * "****" when shorter, "(not set)" for NULL or "". */
void ddb_aws_mask(char *out, size_t outlen, const char *value);

/* Appends a one-line description safe for logs: the masked access key id,
 * "(set)" for the secret and token, the expiration and the source.
 * Returns 0 or DDB_ENOMEM. */
int ddb_aws_credentials_describe(ddb_buf *out, const ddb_aws_credentials *creds);

#endif
