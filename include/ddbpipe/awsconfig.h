/*
 * awsconfig.h — AWS credentials, region and DynamoDB endpoint, resolved the
 * way the AWS CLI (botocore) resolves them, so `ddbpipe` works wherever
 * `aws dynamodb ...` works.
 *
 * Profile: opts.profile, else AWS_PROFILE, else "default". A profile that
 * was named must exist in one of the two files, else the call fails with
 * DDB_EUSAGE, as in the CLI.
 *
 * Files: the config file is AWS_CONFIG_FILE or ~/.aws/config, with sections
 * [default] and [profile NAME] ([services NAME] for service endpoints); the
 * credentials file is AWS_SHARED_CREDENTIALS_FILE or ~/.aws/credentials, with
 * sections [NAME]. A missing file counts as empty. For settings (region,
 * credential_process, endpoint_url...) a key in the credentials file wins
 * over the same key in the config file's section of the same profile.
 *
 * Credentials, first match wins — botocore's chain, which the AWS CLI
 * documents (https://docs.aws.amazon.com/cli/latest/userguide/
 * cli-chap-authentication.html#cli-chap-authentication-precedence):
 *  1. Environment: AWS_ACCESS_KEY_ID + AWS_SECRET_ACCESS_KEY (+
 *     AWS_SESSION_TOKEN or AWS_SECURITY_TOKEN), unless a profile was given in
 *     the options: like the CLI, an explicit profile ignores these variables
 *     (AWS_PROFILE does not).
 *  2. Assume role: the profile's role_arn (without web_identity_token_file)
 *     with source_profile (whose own credentials come from steps 3-7, or from
 *     its own role_arn: chains of roles, loops refused) or credential_source
 *     (Environment, Ec2InstanceMetadata, EcsContainer) -> STS AssumeRole,
 *     signed, with external_id, role_session_name, duration_seconds.
 *     mfa_serial is refused (nobody can type a code into a nightly job).
 *  3. Web identity: AWS_WEB_IDENTITY_TOKEN_FILE + AWS_ROLE_ARN
 *     (+ AWS_ROLE_SESSION_NAME), each variable else the profile's
 *     web_identity_token_file / role_arn / role_session_name -> STS
 *     AssumeRoleWithWebIdentity, unsigned; the file is read at every refresh.
 *  4. IAM Identity Center: the profile's sso_account_id + sso_role_name with
 *     sso_session ([sso-session NAME]: sso_start_url, sso_region) or the
 *     legacy sso_start_url + sso_region; the token `aws sso login` cached in
 *     ~/.aws/sso/cache/<sha1 of the session name or start URL>.json; the
 *     portal's GetRoleCredentials. An expired login is an error that says to
 *     run `aws sso login`.
 *  5. aws_access_key_id / aws_secret_access_key (/ aws_session_token) in the
 *     profile's section of the credentials file.
 *  6. credential_process of the profile: run with /bin/sh -c, stdin from
 *     /dev/null, stdout read as {"Version":1,"AccessKeyId","SecretAccessKey",
 *     "SessionToken"?,"Expiration"?}; run again to refresh when it gives an
 *     Expiration. A failure quotes its stderr's first line, never its stdout.
 *  7. The same keys in the profile's section of the config file.
 *  8. Container: AWS_CONTAINER_CREDENTIALS_RELATIVE_URI (from
 *     http://169.254.170.2) or AWS_CONTAINER_CREDENTIALS_FULL_URI (https, or
 *     http to a loopback address, 169.254.170.2, 169.254.170.23 or
 *     [fd00:ec2::23]), with AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE (read at
 *     every refresh) or AWS_CONTAINER_AUTHORIZATION_TOKEN.
 *  9. EC2 instance metadata, IMDSv2 only: AWS_EC2_METADATA_SERVICE_ENDPOINT
 *     (or the profile's ec2_metadata_service_endpoint; _ENDPOINT_MODE=IPv6),
 *     AWS_EC2_METADATA_DISABLED=true skips it; 1 s timeout and 1 attempt
 *     (AWS_METADATA_SERVICE_TIMEOUT, AWS_METADATA_SERVICE_NUM_ATTEMPTS) so a
 *     laptop does not wait.
 * STS: AWS_ENDPOINT_URL_STS, [services] sts.endpoint_url, AWS_ENDPOINT_URL,
 * the profile's endpoint_url, else the regional https://sts.<region>.
 * amazonaws.com (the global sts.amazonaws.com, signed for us-east-1, when no
 * region is known). The SSO portal likewise with AWS_ENDPOINT_URL_SSO, else
 * https://portal.sso.<sso_region>.amazonaws.com. Both are retried as
 * DynamoDB calls are (opts.max_attempts).
 *
 * Region: opts.region, AWS_REGION, AWS_DEFAULT_REGION, the profile's
 * `region`, else the instance's region from EC2 instance metadata (unless
 * disabled). Required.
 * Endpoint: opts.endpoint_url, AWS_ENDPOINT_URL_DYNAMODB,
 * `dynamodb = / endpoint_url = ...` in the [services NAME] section the
 * profile's `services` names, AWS_ENDPOINT_URL, the profile's `endpoint_url`,
 * else https://dynamodb.<region>.amazonaws.com (".com.cn" for cn- regions).
 * AWS_IGNORE_CONFIGURED_ENDPOINT_URLS=true (or the profile's
 * ignore_configured_endpoint_urls = true) skips all but opts.endpoint_url.
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
 * Secrets: credential structs are cleansed when freed, file buffers,
 * process output, tokens and service answers are cleansed after parsing, and
 * no error message or description contains a secret key, session token,
 * web identity token, SSO token or container authorization token.
 */
#ifndef DDBPIPE_AWSCONFIG_H
#define DDBPIPE_AWSCONFIG_H

#include <stddef.h>
#include <time.h>

#include "ddbpipe/buf.h"
#include "ddbpipe/error.h"

struct ddb_credprov;

/* Returns the value of an environment variable, or NULL. */
typedef const char *(*ddb_aws_getenv_fn)(void *ctx, const char *name);

typedef struct ddb_aws_options {
    const char *profile;      /* or NULL */
    const char *region;       /* or NULL */
    const char *endpoint_url; /* DynamoDB's, or NULL */
    /* How messages name where the three above came from (the command line
     * passes its option names); NULL: "the profile given", "the region
     * given", "the endpoint given". */
    const char *profile_origin, *region_origin, *endpoint_origin;
    int max_attempts;        /* STS and SSO calls, as DynamoDB's (0: 10) */
    long request_timeout_ms; /* one STS or SSO exchange (0: 30000) */
    /* Environment lookup; NULL means the process environment. Tests pass
     * their own, which also keeps them away from the real ~/.aws: HOME is
     * read through it, and only the process-environment mode falls back to
     * the password database when HOME is unset. */
    ddb_aws_getenv_fn getenv;
    void *getenv_ctx;
    /* A role to assume on top of whatever the chain above gives (the command
     * line's --to-role-arn): STS AssumeRole with those credentials, refreshed
     * like a profile's role_arn. NULL: none. external_id may be NULL. */
    const char *role_arn, *external_id;
    const char *role_origin; /* how messages name it, e.g. "--to-role-arn" */
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
    ddb_aws_credentials *credentials; /* as first resolved (the provider's generation 1) */
    struct ddb_credprov *provider;    /* keeps them fresh (credprov.h); owned */
    char *region;
    char *region_source; /* "AWS_REGION", "'region' in profile 'x' of /path"... */
    char *endpoint_url;
    char *endpoint_source; /* likewise, or "default for the region" */
    /* S3's configured endpoint (AWS_ENDPOINT_URL_S3, [services] s3 =
     * endpoint_url, AWS_ENDPOINT_URL, the profile's endpoint_url), never
     * DynamoDB's endpoint option; NULL: AWS itself. */
    char *s3_endpoint_url;
    char *s3_endpoint_source;
    /* Application Auto Scaling's endpoint (AWS_ENDPOINT_URL_APPLICATION_AUTO_SCALING,
     * [services] application_auto_scaling, AWS_ENDPOINT_URL, the profile's endpoint_url), else
     * https://application-autoscaling.<region>.amazonaws.com; never NULL. */
    char *autoscaling_endpoint_url;
    char *autoscaling_endpoint_source;
    /* The CAs to trust for https instead of the system's: AWS_CA_BUNDLE, else
     * the profile's ca_bundle (the AWS CLI's settings); NULL when neither. The
     * credential providers' own requests (STS, SSO) use it too. */
    char *ca_bundle;
    char *ca_bundle_source;
} ddb_aws_config;

/* Resolves region, credentials (fetching them once, so a broken setup fails
 * at start-up) and endpoint. *out is owned by the caller
 * (ddb_aws_config_free); its provider is not started (ddb_credprov_start).
 * opts may be NULL (process environment, defaults).
 * Returns 0; DDB_ENOTFOUND when no credentials or no region were found (the
 * message lists every place tried: variables, file paths, profile,
 * metadata); DDB_EUSAGE for a named profile that does not exist, a profile
 * that cannot work unattended (mfa_serial), an expired SSO login; DDB_EINVAL
 * for a malformed file (path:line), partial keys, a source_profile loop, a
 * bad region or endpoint URL; DDB_EIO when a file cannot be read; DDB_ERROR
 * when credential_process, STS or another source refuses; DDB_ENET when a
 * service cannot be reached; DDB_ENOMEM. On failure *out is NULL. */
DDB_MUST_USE int ddb_aws_config_resolve(ddb_aws_config **out, const ddb_aws_options *opts,
                                        ddb_error *err);

/* Resolves and fetches credentials only (no provider, no refresh). Same
 * ownership and errors as above. */
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
