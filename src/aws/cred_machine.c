/*
 * The chain's providers for the machine a job runs on (steps 8 and 9, and the
 * EcsContainer / Ec2InstanceMetadata credential sources): which endpoint,
 * token and timeouts, from the environment and the profile. Fetching is
 * cred_metadata.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aws/awsconfig_internal.h"
#include "aws/cred_metadata.h"

int ddb_cred_container_source(ddb_cred_source **out, const ddb_aws_resolver *r, ddb_error *err)
{
    const char *rel = ddb_aws_env(r, "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI");
    const char *full = ddb_aws_env(r, "AWS_CONTAINER_CREDENTIALS_FULL_URI");
    const char *tok = ddb_aws_env(r, "AWS_CONTAINER_AUTHORIZATION_TOKEN");
    const char *tok_file = ddb_aws_env(r, "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE");
    ddb_cred_source *s = NULL;
    char *url;

    *out = NULL;
    if (rel == NULL && full == NULL)
        return 0;
    url = rel ? ddb_aws_xprintf("http://169.254.170.2%s%s", rel[0] == '/' ? "" : "/", rel)
              : strdup(full);
    if (url && !rel && !ddb_container_url_allowed(url)) {
        int rc = ddb_error_set(err, DDB_EUSAGE,
                               "AWS_CONTAINER_CREDENTIALS_FULL_URI '%.200s' is refused: it must "
                               "be https, or http to a loopback address, 169.254.170.2, "
                               "169.254.170.23 or [fd00:ec2::23]",
                               url);
        free(url);
        return rc;
    }
    if (url == NULL || (s = ddb_cred_source_new(DDB_CRED_CONTAINER, "")) == NULL) {
        free(url);
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    }
    free(s->label);
    s->label = ddb_aws_xprintf("container credentials endpoint %s", url);
    s->url = url;
    /* botocore's container fetcher: 3 attempts of 2 s. */
    s->net.max_attempts = 3;
    s->net.connect_timeout_ms = s->net.timeout_ms = 2000;
    if (tok_file)
        s->auth_token_file = strdup(tok_file);
    else if (tok)
        s->auth_token = strdup(tok);
    if (!s->label || (tok_file && !s->auth_token_file) || (!tok_file && tok && !s->auth_token)) {
        ddb_cred_source_free(s);
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    }
    *out = s;
    return 0;
}

int ddb_cred_imds_source(ddb_cred_source **out, const ddb_aws_resolver *r, ddb_error *err)
{
    char *url = NULL;
    ddb_cred_source *s = NULL;

    *out = NULL;
    if (ddb_aws_imds_endpoint(&url, r) != 0)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    if (url == NULL)
        return 0;
    if ((s = ddb_cred_source_new(DDB_CRED_IMDS, "")) == NULL) {
        free(url);
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    }
    free(s->label);
    s->label = ddb_aws_xprintf("EC2 instance metadata %s", url);
    s->url = url;
    s->net = ddb_aws_imds_net(r);
    if (s->label == NULL) {
        ddb_cred_source_free(s);
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    }
    *out = s;
    return 0;
}
