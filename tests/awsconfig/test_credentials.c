/*
 * Credential precedence (environment, --profile, AWS_PROFILE, credentials
 * file, config file), partial and missing credentials, and log masking.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/awsconfig.h"

#include "fixture.h"

#define ENV_SECRET "envSecretKey0000000000000000000000000000"
#define CRED_SECRET "credFileSecret000000000000000000000000000"
#define CONF_SECRET "configFileSecret0000000000000000000000000"

static const char credentials[] = "[default]\n"
                                  "aws_access_key_id = AKIACREDDEFAULT00001\n"
                                  "aws_secret_access_key = " CRED_SECRET "\n"
                                  "\n"
                                  "[prod]\n"
                                  "aws_access_key_id=AKIACREDPROD00000002\n"
                                  "aws_secret_access_key=" CRED_SECRET "\n"
                                  "aws_session_token=prodToken\n"
                                  "[b]\n"
                                  "aws_access_key_id = AKIACREDB00000000003\n"
                                  "aws_secret_access_key = " CRED_SECRET "\n";

static const char config[] = "[default]\n"
                             "aws_access_key_id = AKIACONFDEFAULT00004\n"
                             "aws_secret_access_key = " CONF_SECRET "\n"
                             "region = us-west-2\n"
                             "[profile cfgonly]\n"
                             "aws_access_key_id = AKIACONFONLY00000005\n"
                             "aws_secret_access_key = " CONF_SECRET "\n"
                             "[profile a]\n"
                             "aws_access_key_id = AKIACONFA00000000006\n"
                             "aws_secret_access_key = " CONF_SECRET "\n"
                             "[profile assumer]\n"
                             "role_arn = arn:aws:iam::123456789012:role/x\n"
                             "source_profile = default\n"
                             "[profile empty]\n"
                             "region = eu-west-1\n";

static fx_env *fx;

static void setup(void)
{
    fx = fx_new();
    free(fx_write(fx, ".aws/credentials", credentials, 0));
    free(fx_write(fx, ".aws/config", config, 0));
}

static void teardown(void)
{
    fx_free(fx);
}

static ddb_aws_credentials *resolve_ok(ddb_aws_options *o)
{
    ddb_aws_credentials *c = NULL;
    ddb_error err = {0};
    cr_assert_eq(ddb_aws_credentials_resolve(&c, o, &err), 0, "%s", err.message);
    cr_assert_not_null(c);
    return c;
}

static void resolve_fails(ddb_aws_options *o, int code, ddb_error *err)
{
    ddb_aws_credentials *c = (ddb_aws_credentials *)1;
    cr_assert_eq(ddb_aws_credentials_resolve(&c, o, err), code, "got: %s", err->message);
    cr_assert_null(c);
    cr_expect(strstr(err->message, ENV_SECRET) == NULL, "leak: %s", err->message);
    cr_expect(strstr(err->message, CRED_SECRET) == NULL, "leak: %s", err->message);
    cr_expect(strstr(err->message, CONF_SECRET) == NULL, "leak: %s", err->message);
}

TestSuite(awsconfig_credentials, .init = setup, .fini = teardown);

Test(awsconfig_credentials, environment_beats_profile)
{
    ddb_aws_options o = fx_options(fx);
    ddb_aws_credentials *c;
    fx_set(fx, "AWS_ACCESS_KEY_ID", "AKIAENVIRONMENT00000");
    fx_set(fx, "AWS_SECRET_ACCESS_KEY", ENV_SECRET);
    fx_set(fx, "AWS_SESSION_TOKEN", "envToken");
    fx_set(fx, "AWS_PROFILE", "prod"); /* AWS_PROFILE does not disable the variables */
    c = resolve_ok(&o);
    cr_expect_str_eq(c->access_key_id, "AKIAENVIRONMENT00000");
    cr_expect_str_eq(c->secret_access_key, ENV_SECRET);
    cr_expect_str_eq(c->session_token, "envToken");
    cr_expect_str_eq(c->source, "environment variables");
    ddb_aws_credentials_free(c);
}

Test(awsconfig_credentials, explicit_profile_skips_environment)
{
    ddb_aws_options o = fx_options(fx);
    ddb_aws_credentials *c;
    fx_set(fx, "AWS_ACCESS_KEY_ID", "AKIAENVIRONMENT00000");
    fx_set(fx, "AWS_SECRET_ACCESS_KEY", ENV_SECRET);
    o.profile = "prod";
    c = resolve_ok(&o);
    cr_expect_str_eq(c->access_key_id, "AKIACREDPROD00000002");
    cr_expect_str_eq(c->session_token, "prodToken");
    cr_expect(strstr(c->source, "/.aws/credentials [prod]") != NULL, "%s", c->source);
    ddb_aws_credentials_free(c);
}

Test(awsconfig_credentials, explicit_profile_beats_aws_profile)
{
    ddb_aws_options o = fx_options(fx);
    ddb_aws_credentials *c;
    fx_set(fx, "AWS_PROFILE", "b");
    c = resolve_ok(&o);
    cr_expect_str_eq(c->access_key_id, "AKIACREDB00000000003");
    ddb_aws_credentials_free(c);
    o.profile = "prod";
    c = resolve_ok(&o);
    cr_expect_str_eq(c->access_key_id, "AKIACREDPROD00000002");
    ddb_aws_credentials_free(c);
}

Test(awsconfig_credentials, credentials_file_beats_config_file)
{
    ddb_aws_options o = fx_options(fx);
    ddb_aws_credentials *c = resolve_ok(&o);
    cr_expect_str_eq(c->access_key_id, "AKIACREDDEFAULT00001");
    cr_expect_str_eq(c->secret_access_key, CRED_SECRET);
    cr_expect_null(c->session_token);
    ddb_aws_credentials_free(c);

    /* [profile a] exists only in the config file; [a] is not in credentials. */
    o.profile = "a";
    c = resolve_ok(&o);
    cr_expect_str_eq(c->access_key_id, "AKIACONFA00000000006");
    cr_expect(strstr(c->source, "config file ") == c->source, "%s", c->source);
    cr_expect(strstr(c->source, "[profile a]") != NULL, "%s", c->source);
    ddb_aws_credentials_free(c);
}

Test(awsconfig_credentials, file_locations_from_environment)
{
    ddb_aws_options o = fx_options(fx);
    ddb_aws_credentials *c;
    free(fx_write(fx, "elsewhere-creds",
                  "[default]\naws_access_key_id = AKIAELSEWHERE0000007\n"
                  "aws_secret_access_key = x\n",
                  0));
    fx_set(fx, "AWS_SHARED_CREDENTIALS_FILE", "~/elsewhere-creds");
    c = resolve_ok(&o);
    cr_expect_str_eq(c->access_key_id, "AKIAELSEWHERE0000007");
    ddb_aws_credentials_free(c);

    /* A config file moved away: profile cfgonly no longer exists. */
    fx_set(fx, "AWS_CONFIG_FILE", "/nonexistent/ddbpipe/config");
    o.profile = "cfgonly";
    ddb_error err = {0};
    resolve_fails(&o, DDB_EUSAGE, &err);
    cr_expect(strstr(err.message, "'cfgonly' (from --profile) not found") != NULL, "%s",
              err.message);
    cr_expect(strstr(err.message, "/nonexistent/ddbpipe/config") != NULL, "%s", err.message);
}

Test(awsconfig_credentials, partial_credentials_are_errors)
{
    ddb_aws_options o = fx_options(fx);
    ddb_error err = {0};

    fx_set(fx, "AWS_ACCESS_KEY_ID", "AKIAENVIRONMENT00000");
    resolve_fails(&o, DDB_EINVAL, &err);
    cr_expect(strstr(err.message, "AWS_SECRET_ACCESS_KEY is not") != NULL, "%s", err.message);

    fx_set(fx, "AWS_ACCESS_KEY_ID", NULL);
    free(fx_write(fx, ".aws/credentials",
                  "# keys\n[default]\n\naws_access_key_id = AKIAHALF000000000008\n", 0));
    resolve_fails(&o, DDB_EINVAL, &err);
    cr_expect(strstr(err.message, "/.aws/credentials:4: profile 'default' has aws_access_key_id "
                                  "but no aws_secret_access_key") != NULL,
              "%s", err.message);
}

Test(awsconfig_credentials, missing_credentials_list_what_was_tried)
{
    ddb_aws_options o = fx_options(fx);
    ddb_error err = {0};
    char want[512];

    o.profile = "empty"; /* exists (config, region only), has no keys */
    fx_set(fx, "AWS_SECRET_ACCESS_KEY", ENV_SECRET);
    resolve_fails(&o, DDB_ENOTFOUND, &err);
    snprintf(want, sizeof(want),
             "no AWS credentials for profile 'empty'; tried: environment (skipped: the profile "
             "came from --profile); assume role (no role_arn in the profile); web identity (no "
             "web_identity_token_file in the profile); SSO (no sso_account_id or sso_role_name "
             "in the profile); credentials file %s/.aws/credentials (no [empty] section); "
             "credential_process (not set in the profile); config file %s/.aws/config ([profile "
             "empty] has no aws_access_key_id); container (AWS_CONTAINER_CREDENTIALS_RELATIVE_URI "
             "and _FULL_URI not set); EC2 instance metadata (disabled by "
             "AWS_EC2_METADATA_DISABLED).",
             fx_dir(fx), fx_dir(fx));
    cr_expect(strncmp(err.message, want, strlen(want)) == 0, "got:  %s\nwant: %s", err.message,
              want);

    /* No files at all, default profile. */
    fx_free(fx);
    fx = fx_new();
    o = fx_options(fx);
    resolve_fails(&o, DDB_ENOTFOUND, &err);
    snprintf(want, sizeof(want),
             "no AWS credentials for profile 'default'; tried: environment (AWS_ACCESS_KEY_ID not "
             "set); assume role (no role_arn in the profile); web identity "
             "(AWS_WEB_IDENTITY_TOKEN_FILE not set, no web_identity_token_file in the profile); "
             "SSO (no sso_account_id or sso_role_name in the profile); credentials file "
             "%s/.aws/credentials (not found); credential_process (not set in the profile); "
             "config file %s/.aws/config (not found); container "
             "(AWS_CONTAINER_CREDENTIALS_RELATIVE_URI and _FULL_URI not set); EC2 instance "
             "metadata (disabled by AWS_EC2_METADATA_DISABLED).",
             fx_dir(fx), fx_dir(fx));
    cr_expect(strncmp(err.message, want, strlen(want)) == 0, "got:  %s\nwant: %s", err.message,
              want);
    cr_expect(strstr(err.message, "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY") != NULL);
}

Test(awsconfig_credentials, mfa_serial_is_refused)
{
    ddb_aws_options o = fx_options(fx);
    ddb_error err = {0};
    free(fx_write(fx, ".aws/config",
                  "[profile assumer]\nrole_arn = arn:aws:iam::123456789012:role/x\n"
                  "source_profile = default\nmfa_serial = arn:aws:iam::123456789012:mfa/me\n",
                  0));
    o.profile = "assumer";
    resolve_fails(&o, DDB_EUSAGE, &err);
    cr_expect(strstr(err.message, "profile 'assumer' sets mfa_serial: assuming its role needs an "
                                  "MFA code typed in") == err.message,
              "%s", err.message);
}

Test(awsconfig_credentials, masking_and_description)
{
    char m[32];
    ddb_buf b = DDB_BUF_INIT;
    ddb_aws_options o = fx_options(fx);
    ddb_aws_credentials *c;

    ddb_aws_mask(m, sizeof(m), "AKIAIOSFODNN7EXAMPLE");
    cr_expect_str_eq(m, "AKIA****MPLE");
    ddb_aws_mask(m, sizeof(m), "short");
    cr_expect_str_eq(m, "****");
    ddb_aws_mask(m, sizeof(m), NULL);
    cr_expect_str_eq(m, "(not set)");
    ddb_aws_mask(m, 5, "AKIAIOSFODNN7EXAMPLE");
    cr_expect_str_eq(m, "AKIA");

    o.profile = "prod";
    c = resolve_ok(&o);
    cr_assert_eq(ddb_aws_credentials_describe(&b, c), 0);
    cr_expect(strstr(b.ptr, "access key AKIA****0002, secret key (set), session token (set), "
                            "expires never, from credentials file ") == b.ptr,
              "%s", b.ptr);
    cr_expect(strstr(b.ptr, CRED_SECRET) == NULL && strstr(b.ptr, "prodToken") == NULL);
    ddb_buf_dispose(&b);
    ddb_aws_credentials_free(c);
    ddb_aws_credentials_free(NULL);
    ddb_aws_config_free(NULL);
}
