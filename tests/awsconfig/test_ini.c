/*
 * The INI dialect of the AWS files (Python configparser as botocore uses it):
 * comments, spacing, key case, ':' delimiters, CRLF, continuation lines,
 * nested sub-sections, quoted profile names, and errors naming file:line.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/awsconfig.h"

#include "fixture.h"

static fx_env *fx;

static void setup(void)
{
    fx = fx_new();
}

static void teardown(void)
{
    fx_free(fx);
}

TestSuite(awsconfig_ini, .init = setup, .fini = teardown);

static ddb_aws_config *resolve_profile(const char *profile)
{
    ddb_aws_options o = fx_options(fx);
    ddb_aws_config *cfg = NULL;
    ddb_error err = {0};
    o.profile = profile;
    cr_assert_eq(ddb_aws_config_resolve(&cfg, &o, &err), 0, "%s", err.message);
    return cfg;
}

static void expect_config_error(const char *config, int code, const char *suffix)
{
    ddb_aws_options o = fx_options(fx);
    ddb_aws_config *cfg = NULL;
    ddb_error err = {0};
    char want[512];
    free(fx_write(fx, ".aws/config", config, 0));
    cr_expect_eq(ddb_aws_config_resolve(&cfg, &o, &err), code, "%s", err.message);
    cr_expect_null(cfg);
    snprintf(want, sizeof(want), "%s/.aws/config:%s", fx_dir(fx), suffix);
    cr_expect_str_eq(err.message, want);
}

Test(awsconfig_ini, syntax_accepted)
{
    ddb_aws_config *cfg;
    free(fx_write(fx, ".aws/config",
                  "\xEF\xBB\xBF# leading comment\r\n"
                  "; another\r\n"
                  "\r\n"
                  "  [default]  \r\n"
                  "AWS_Access_Key_ID   =   AKIAUPPERCASEKEY0013   \r\n"
                  "aws_secret_access_key: k:with=delims\r\n"
                  "s3 =\r\n"
                  "    max_concurrent_requests = 20\r\n"
                  "    region = nested-must-not-win\r\n"
                  "    # a comment inside the block\r\n"
                  "region=us-east-1\r\n"
                  "[profile \"with space\"]\n"
                  "region = eu-central-1\n"
                  "credential_process = /bin/echo\n"
                  "    --continued\n"
                  "[profile   spaced]\n"
                  "region = eu-north-1\n"
                  "[not-a-profile]\n"
                  "region = nope\n",
                  0));
    cfg = resolve_profile(NULL);
    cr_expect_str_eq(cfg->credentials->access_key_id, "AKIAUPPERCASEKEY0013");
    cr_expect_str_eq(cfg->credentials->secret_access_key, "k:with=delims");
    cr_expect_str_eq(cfg->region, "us-east-1");
    ddb_aws_config_free(cfg);

    fx_set(fx, "AWS_ACCESS_KEY_ID", "AKIAENVIRONMENT00000");
    fx_set(fx, "AWS_SECRET_ACCESS_KEY", "s");
    fx_set(fx, "AWS_PROFILE", "with space");
    cfg = resolve_profile(NULL);
    cr_expect_str_eq(cfg->region, "eu-central-1");
    ddb_aws_config_free(cfg);
    fx_set(fx, "AWS_PROFILE", "spaced");
    cfg = resolve_profile(NULL);
    cr_expect_str_eq(cfg->region, "eu-north-1");
    ddb_aws_config_free(cfg);
}

Test(awsconfig_ini, continuation_joins_the_value)
{
    ddb_aws_options o = fx_options(fx);
    ddb_aws_credentials *c = NULL;
    ddb_error err = {0};
    /* The CLI splits a continued credential_process into more arguments. */
    free(fx_write(fx, ".aws/config",
                  "[default]\ncredential_process = printf\n"
                  "  '{\"Version\":1,\"AccessKeyId\":\"%s\",\"SecretAccessKey\":\"x\"}'\n"
                  "  AKIACONTINUED0000014\n",
                  0));
    cr_assert_eq(ddb_aws_credentials_resolve(&c, &o, &err), 0, "%s", err.message);
    cr_expect_str_eq(c->access_key_id, "AKIACONTINUED0000014");
    ddb_aws_credentials_free(c);
}

Test(awsconfig_ini, no_inline_comments)
{
    /* As in the CLI, "# comment" after a value is part of the value. */
    ddb_aws_options o = fx_options(fx);
    ddb_aws_config *cfg = NULL;
    ddb_error err = {0};
    fx_set(fx, "AWS_ACCESS_KEY_ID", "AKIAENVIRONMENT00000");
    fx_set(fx, "AWS_SECRET_ACCESS_KEY", "s");
    free(fx_write(fx, ".aws/config", "[default]\nregion = us-west-2 # oregon\n", 0));
    cr_expect_eq(ddb_aws_config_resolve(&cfg, &o, &err), DDB_EINVAL, "%s", err.message);
    cr_expect(strstr(err.message, "invalid AWS region 'us-west-2 # oregon' (from 'region' in "
                                  "profile 'default' of ") == err.message,
              "%s", err.message);
}

Test(awsconfig_ini, errors_name_file_and_line)
{
    /* expect_config_error compares "<path>:<suffix>" exactly. */
    expect_config_error("region = x\n", DDB_EINVAL, "1: 'region = x' is outside any [section]");
    expect_config_error("[default]\nregion\n", DDB_EINVAL,
                        "2: expected 'key = value' or '[section]'");
    expect_config_error("[default]\n= value\n", DDB_EINVAL,
                        "2: expected 'key = value' or '[section]'");
    expect_config_error("[default]\n\n[default\n", DDB_EINVAL, "3: '[' without a closing ']'");
    expect_config_error("[ ]\n", DDB_EINVAL, "1: empty section name");
    expect_config_error("[default]\nregion = a\n# c\nRegion = b\n", DDB_EINVAL,
                        "4: duplicate key 'Region' in [default] (first at line 2)");
    expect_config_error("[default]\n[profile x]\n[default]\n", DDB_EINVAL,
                        "3: duplicate section [default] (first at line 1)");
    expect_config_error("[default]\ns3 =\n  no delimiter here\n", DDB_EINVAL,
                        "3: expected 'key = value' or '[section]'");
}
