/*
 * Region and endpoint precedence through ddb_aws_config_resolve(), and the
 * errors for a missing or malformed region or endpoint.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/awsconfig.h"

#include "fixture.h"

static fx_env *fx;

/* Profiles are chosen with AWS_PROFILE here: --profile would also skip the
 * environment's keys, which these tests rely on. */
static void setup(void)
{
    fx = fx_new();
    fx_set(fx, "AWS_ACCESS_KEY_ID", "AKIAENVIRONMENT00000");
    fx_set(fx, "AWS_SECRET_ACCESS_KEY", "secret");
    free(fx_write(fx, ".aws/config",
                  "[default]\nregion = eu-west-1\nendpoint_url = http://profile:8000\n"
                  "services = local\n"
                  "[profile plain]\nregion = ap-south-1\n"
                  "[profile corp]\nregion = eu-west-1\nca_bundle = /etc/corp/ca.pem\n"
                  "[profile creds-region]\nregion = us-east-2\n"
                  "[profile china]\nregion = cn-north-1\n"
                  "[profile ignoring]\nregion = eu-west-1\nendpoint_url = http://x:1\n"
                  "ignore_configured_endpoint_urls = true\n"
                  "[services local]\n"
                  "dynamodb =\n  endpoint_url = http://services:8000\n"
                  "s3 =\n  endpoint_url = http://wrong:1\n",
                  0));
    free(fx_write(fx, ".aws/credentials", "[creds-region]\nregion = sa-east-1\n", 0));
}

static void teardown(void)
{
    fx_free(fx);
}

TestSuite(awsconfig_region, .init = setup, .fini = teardown);

static ddb_aws_config *resolve(ddb_aws_options *o)
{
    ddb_aws_config *cfg = NULL;
    ddb_error err = {0};
    cr_assert_eq(ddb_aws_config_resolve(&cfg, o, &err), 0, "%s", err.message);
    return cfg;
}

static void expect_region(ddb_aws_options *o, const char *region, const char *source)
{
    ddb_aws_config *cfg = resolve(o);
    cr_expect_str_eq(cfg->region, region);
    cr_expect(strstr(cfg->region_source, source) != NULL, "%s", cfg->region_source);
    ddb_aws_config_free(cfg);
}

static void expect_endpoint(ddb_aws_options *o, const char *url, const char *source)
{
    ddb_aws_config *cfg = resolve(o);
    cr_expect_str_eq(cfg->endpoint_url, url);
    cr_expect(strstr(cfg->endpoint_source, source) != NULL, "%s", cfg->endpoint_source);
    ddb_aws_config_free(cfg);
}

Test(awsconfig_region, region_precedence)
{
    ddb_aws_options o = fx_options(fx);
    expect_region(&o, "eu-west-1", "'region' in profile 'default' of ");
    fx_set(fx, "AWS_PROFILE", "creds-region"); /* the credentials file's region wins */
    expect_region(&o, "sa-east-1", "/.aws/credentials");
    fx_set(fx, "AWS_PROFILE", NULL);
    fx_set(fx, "AWS_DEFAULT_REGION", "us-west-1");
    expect_region(&o, "us-west-1", "AWS_DEFAULT_REGION");
    fx_set(fx, "AWS_REGION", "ca-central-1");
    expect_region(&o, "ca-central-1", "AWS_REGION");
    o.region = "ap-northeast-1";
    expect_region(&o, "ap-northeast-1", "--region");
}

Test(awsconfig_region, missing_and_invalid_region)
{
    ddb_aws_options o = fx_options(fx);
    ddb_aws_config *cfg = (ddb_aws_config *)1;
    ddb_error err = {0};
    char want[512];

    free(fx_write(fx, ".aws/config", "[default]\n", 0));
    cr_assert_eq(ddb_aws_config_resolve(&cfg, &o, &err), DDB_ENOTFOUND, "%s", err.message);
    cr_expect_null(cfg);
    snprintf(want, sizeof(want),
             "no AWS region: tried --region, AWS_REGION, AWS_DEFAULT_REGION, 'region' in "
             "profile 'default' (config file %s/.aws/config, credentials file "
             "%s/.aws/credentials) and EC2 instance metadata (disabled by "
             "AWS_EC2_METADATA_DISABLED); give a region or set AWS_REGION",
             fx_dir(fx), fx_dir(fx));
    cr_expect_str_eq(err.message, want);

    fx_set(fx, "AWS_REGION", "us-east-1; rm -rf /");
    cr_expect_eq(ddb_aws_config_resolve(&cfg, &o, &err), DDB_EINVAL);
    cr_expect_str_eq(err.message, "invalid AWS region 'us-east-1; rm -rf /' (from AWS_REGION)");
}

Test(awsconfig_region, endpoint_precedence)
{
    ddb_aws_options o = fx_options(fx);

    fx_set(fx, "AWS_PROFILE", "plain");
    expect_endpoint(&o, "https://dynamodb.ap-south-1.amazonaws.com", "default for the region");
    fx_set(fx, "AWS_PROFILE", "china");
    expect_endpoint(&o, "https://dynamodb.cn-north-1.amazonaws.com.cn", "default");
    fx_set(fx, "AWS_PROFILE", NULL);
    expect_endpoint(&o, "http://services:8000", "[services] section of ");
    fx_set(fx, "AWS_ENDPOINT_URL", "http://generic:8000");
    expect_endpoint(&o, "http://services:8000", "[services]");
    fx_set(fx, "AWS_PROFILE", "plain");
    expect_endpoint(&o, "http://generic:8000", "AWS_ENDPOINT_URL");
    fx_set(fx, "AWS_PROFILE", NULL);
    fx_set(fx, "AWS_ENDPOINT_URL_DYNAMODB", "http://dynamodb-only:8000");
    expect_endpoint(&o, "http://dynamodb-only:8000", "AWS_ENDPOINT_URL_DYNAMODB");
    o.endpoint_url = "https://explicit.example";
    expect_endpoint(&o, "https://explicit.example", "--endpoint-url");

    /* The profile's own endpoint_url, below AWS_ENDPOINT_URL. */
    fx_set(fx, "AWS_ENDPOINT_URL_DYNAMODB", NULL);
    fx_set(fx, "AWS_ENDPOINT_URL", NULL);
    o.endpoint_url = NULL;
    free(fx_write(fx, ".aws/config", "[default]\nregion = eu-west-1\nendpoint_url = http://p:1\n",
                  0));
    expect_endpoint(&o, "http://p:1", "'endpoint_url' in profile 'default'");
}

Test(awsconfig_region, ignore_configured_endpoints)
{
    ddb_aws_options o = fx_options(fx);
    fx_set(fx, "AWS_ENDPOINT_URL", "http://generic:8000");
    fx_set(fx, "AWS_PROFILE", "ignoring");
    expect_endpoint(&o, "https://dynamodb.eu-west-1.amazonaws.com", "default");
    o.endpoint_url = "http://explicit:1"; /* --endpoint-url still counts */
    expect_endpoint(&o, "http://explicit:1", "--endpoint-url");
    o.endpoint_url = NULL;
    fx_set(fx, "AWS_PROFILE", NULL);
    fx_set(fx, "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS", "TRUE");
    expect_endpoint(&o, "https://dynamodb.eu-west-1.amazonaws.com", "default");
}

Test(awsconfig_region, invalid_endpoint)
{
    ddb_aws_options o = fx_options(fx);
    ddb_aws_config *cfg = NULL;
    ddb_error err = {0};
    o.endpoint_url = "localhost:8000";
    cr_expect_eq(ddb_aws_config_resolve(&cfg, &o, &err), DDB_EINVAL);
    cr_expect_str_eq(err.message, "endpoint URL 'localhost:8000' (from --endpoint-url) must start "
                                  "with http:// or https://");
    cr_expect_null(cfg);
}

Test(awsconfig_region, full_resolution)
{
    ddb_aws_options o = fx_options(fx);
    ddb_aws_config *cfg = NULL;
    ddb_error err = {0};
    char path[256];

    /* --profile: the environment's keys are skipped, and [plain] has none. */
    o.profile = "plain";
    cr_expect_eq(ddb_aws_config_resolve(&cfg, &o, &err), DDB_ENOTFOUND, "%s", err.message);
    cr_expect_null(cfg);
    /* AWS_PROFILE: the environment's keys still win; the region is the profile's. */
    o.profile = NULL;
    fx_set(fx, "AWS_PROFILE", "plain");
    cfg = resolve(&o);
    cr_expect_str_eq(cfg->profile, "plain");
    cr_expect_str_eq(cfg->credentials->access_key_id, "AKIAENVIRONMENT00000");
    cr_expect_str_eq(cfg->region, "ap-south-1");
    snprintf(path, sizeof(path), "%s/.aws/config", fx_dir(fx));
    cr_expect_str_eq(cfg->config_file, path);
    snprintf(path, sizeof(path), "%s/.aws/credentials", fx_dir(fx));
    cr_expect_str_eq(cfg->credentials_file, path);
    ddb_aws_config_free(cfg);
}

/* The CAs to trust for https: AWS_CA_BUNDLE, else the profile's ca_bundle,
 * else none (the system's); the credential providers get it too. */
Test(awsconfig_region, ca_bundle_precedence)
{
    ddb_aws_options o = fx_options(fx);
    ddb_aws_config *cfg = resolve(&o);
    cr_expect_null(cfg->ca_bundle);
    cr_expect_null(cfg->ca_bundle_source);
    ddb_aws_config_free(cfg);
    fx_set(fx, "AWS_PROFILE", "corp");
    cfg = resolve(&o);
    cr_expect_str_eq(cfg->ca_bundle, "/etc/corp/ca.pem");
    cr_expect(strstr(cfg->ca_bundle_source, "'ca_bundle' in profile 'corp' of ") != NULL, "%s",
              cfg->ca_bundle_source);
    ddb_aws_config_free(cfg);
    fx_set(fx, "AWS_CA_BUNDLE", "/tmp/mine.pem");
    cfg = resolve(&o);
    cr_expect_str_eq(cfg->ca_bundle, "/tmp/mine.pem");
    cr_expect_str_eq(cfg->ca_bundle_source, "AWS_CA_BUNDLE");
    ddb_aws_config_free(cfg);
    fx_set(fx, "AWS_CA_BUNDLE", ""); /* empty: not set */
    cfg = resolve(&o);
    cr_expect_str_eq(cfg->ca_bundle, "/etc/corp/ca.pem");
    ddb_aws_config_free(cfg);
}

/* A CA bundle path longer than any path can be is refused before anything
 * is fetched with it; a long one that is possible is kept whole. */
Test(awsconfig_region, ca_bundle_path_too_long)
{
    static char path[5000];
    ddb_aws_options o = fx_options(fx);
    ddb_aws_config *cfg = NULL;
    ddb_error err = {0};
    memset(path, 'd', sizeof(path) - 1);
    path[0] = '/';
    fx_set(fx, "AWS_CA_BUNDLE", path);
    cr_assert_eq(ddb_aws_config_resolve(&cfg, &o, &err), DDB_EINVAL);
    cr_assert(strstr(err.message, "CA bundle's path (AWS_CA_BUNDLE) is too long") != NULL, "%s",
              err.message);
    cr_assert_null(cfg);
    path[600] = '\0';
    fx_set(fx, "AWS_CA_BUNDLE", path);
    cfg = resolve(&o);
    cr_assert_eq(strlen(cfg->ca_bundle), 600);
    ddb_aws_config_free(cfg);
}
