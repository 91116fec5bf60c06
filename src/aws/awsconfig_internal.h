/*
 * awsconfig_internal.h (private header of aws/) — what the credential chain (cred_chain.c) shares with
 * the configuration resolver (awsconfig.c): the loaded files, the profile,
 * the environment, and service endpoints.
 */
#ifndef DDBPIPE_AWSCONFIG_INTERNAL_H
#define DDBPIPE_AWSCONFIG_INTERNAL_H

#include "aws/awsini.h"
#include "aws/cred_source.h"
#include "ddbpipe/awsconfig.h"

typedef struct ddb_aws_resolver {
    const ddb_aws_options *opts;
    const char *profile;  /* the profile consulted ("default" when none was named) */
    int explicit_profile; /* given in the options: the environment's keys are skipped */
    char *home;           /* NULL when unknown */
    ddb_ini_file config, creds;
    const char *region; /* resolved before the credentials (for STS); may be NULL */
} ddb_aws_resolver;

/* Loads the files and picks the profile (the named one must exist). Dispose
 * r in every case. Returns 0, DDB_EUSAGE, DDB_EINVAL, DDB_EIO, DDB_ENOMEM. */
int ddb_aws_resolver_init(ddb_aws_resolver *r, const ddb_aws_options *opts, ddb_error *err);
void ddb_aws_resolver_dispose(ddb_aws_resolver *r);

/* An environment variable, NULL when unset or empty. */
const char *ddb_aws_env(const ddb_aws_resolver *r, const char *name);

/* A setting of profile: the credentials file's [profile] wins over the config
 * file's [profile profile]. *from (may be NULL) receives the file. */
const char *ddb_aws_profile_get(const ddb_aws_resolver *r, const char *profile, const char *key,
                                const ddb_ini_file **from);

/* Does profile exist in either file? */
int ddb_aws_profile_exists(const ddb_aws_resolver *r, const char *profile);

/* Where a service's configured endpoint comes from, as the SDKs resolve it:
 * AWS_ENDPOINT_URL_<ENV_ID>, the profile's [services] section key
 * <service>.endpoint_url, AWS_ENDPOINT_URL, the profile's endpoint_url —
 * unless ignore_configured_endpoint_urls. *url and *source malloc'd, both
 * NULL when nothing is configured (then the caller uses the service's
 * default). Returns 0, DDB_EINVAL (not an http(s) URL) or DDB_ENOMEM. */
int ddb_aws_service_endpoint(char **url, char **source, const ddb_aws_resolver *r,
                             const char *env_id, const char *service);

/* The network settings of the options (attempts, timeouts) for a source. */
ddb_cred_net ddb_aws_net(const ddb_aws_resolver *r);

/*
 * The credential chain (cred_chain.c): decides which provider gives the
 * credentials, in botocore's order, and builds it. *out owned by the caller
 * (ddb_cred_source_free). Returns 0; DDB_ENOTFOUND when no provider applies
 * (the message lists what was tried); DDB_EUSAGE / DDB_EINVAL for a profile
 * that cannot work (a source_profile loop, mfa_serial, a missing setting, a
 * refused container URL...); DDB_ENOMEM. IMDS is the last provider: whether
 * it answers is only known by fetching, so a built IMDS source may still
 * fail with DDB_ENOTFOUND.
 */
int ddb_cred_chain_build(ddb_cred_source **out, ddb_aws_resolver *r, ddb_error *err);

/* The "no AWS credentials" error listing every provider tried; imds_why
 * says what instance metadata answered. Returns DDB_ENOTFOUND. */
int ddb_cred_chain_not_found(ddb_aws_resolver *r, const char *imds_why, ddb_error *err);

/* The instance metadata service's base URL, or NULL when it is disabled
 * (AWS_EC2_METADATA_DISABLED=true). *out malloc'd. Returns 0 or DDB_ENOMEM. */
int ddb_aws_imds_endpoint(char **out, const ddb_aws_resolver *r);

/* How long to wait for instance metadata, and how many tries: 1 s and 1 by
 * default (so a laptop does not wait), AWS_METADATA_SERVICE_TIMEOUT and
 * AWS_METADATA_SERVICE_NUM_ATTEMPTS or the profile's metadata_service_*. */
ddb_cred_net ddb_aws_imds_net(const ddb_aws_resolver *r);

/* The container and instance metadata providers (cred_machine.c): *out NULL
 * (and 0) when their variables are not set / metadata is disabled. A refused
 * AWS_CONTAINER_CREDENTIALS_FULL_URI is DDB_EUSAGE. */
int ddb_cred_container_source(ddb_cred_source **out, const ddb_aws_resolver *r, ddb_error *err);
int ddb_cred_imds_source(ddb_cred_source **out, const ddb_aws_resolver *r, ddb_error *err);

#endif
