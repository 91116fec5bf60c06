/*
 * The credential chain's decisions, without fetching anything: which
 * provider wins in which situation (botocore's order), role chains and their
 * loops, credential_source, web identity and SSO settings, container URLs,
 * and the STS, SSO and instance metadata endpoints.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aws/awsconfig_internal.h"
#include "aws/cred_metadata.h"
#include "aws/cred_sso.h"

#include "fixture.h"

static fx_env *fx;
static ddb_aws_options opts;

static void setup(void)
{
    fx = fx_new();
    opts = fx_options(fx);
}

static void teardown(void)
{
    fx_free(fx);
}

TestSuite(chain, .init = setup, .fini = teardown);

/* Builds the chain for profile (NULL: AWS_PROFILE / default) in region. */
static int build(ddb_cred_source **out, const char *profile, const char *region, ddb_error *err)
{
    ddb_aws_resolver r;
    int rc;
    opts.profile = profile;
    rc = ddb_aws_resolver_init(&r, &opts, err);
    r.region = region;
    if (rc == 0)
        rc = ddb_cred_chain_build(out, &r, err);
    ddb_aws_resolver_dispose(&r);
    return rc;
}

static ddb_cred_source *built(const char *profile, const char *region)
{
    ddb_cred_source *s = NULL;
    ddb_error err = {0};
    cr_assert_eq(build(&s, profile, region, &err), 0, "%s", err.message);
    cr_assert_not_null(s);
    return s;
}

static void fails(const char *profile, int code, const char *needle)
{
    ddb_cred_source *s = NULL;
    ddb_error err = {0};
    cr_expect_eq(build(&s, profile, "us-east-1", &err), code, "code %d: %s", err.code, err.message);
    cr_expect_null(s);
    cr_expect(strstr(err.message, needle) != NULL, "'%s' not in: %s", needle, err.message);
    ddb_cred_source_free(s);
}

static void expect_kind(const char *profile, ddb_cred_kind kind, const char *label_part)
{
    ddb_cred_source *s = built(profile, "us-east-1");
    cr_expect_eq(s->kind, kind, "kind %d, label %s", s->kind, s->label);
    cr_expect(strstr(s->label, label_part) != NULL, "'%s' not in: %s", label_part, s->label);
    ddb_cred_source_free(s);
}

/* Every provider set up at once, then removed one by one from the top: each
 * step shows the next one in botocore's order. */
Test(chain, precedence_order)
{
    char cfg[2048];
    char *tok = fx_write(fx, "web-token", "header.payload.signature\n", 0);
    snprintf(cfg, sizeof(cfg),
             "[default]\n"
             "role_arn = arn:aws:iam::111111111111:role/assumed\n"
             "source_profile = base\n"
             "[profile base]\n"
             "aws_access_key_id = AKIABASE000000000001\naws_secret_access_key = b\n"
             "[profile web]\n"
             "web_identity_token_file = %s\nrole_arn = arn:aws:iam::111111111111:role/web\n"
             "sso_account_id = 222222222222\nsso_role_name = R\n"
             "sso_start_url = https://x.awsapps.com/start\nsso_region = eu-west-1\n"
             "credential_process = echo never\n"
             "aws_access_key_id = AKIACONFIGWEB0000001\naws_secret_access_key = c\n",
             tok);
    free(fx_write(fx, ".aws/config", cfg, 0));
    free(fx_write(fx, ".aws/credentials",
                  "[web]\naws_access_key_id = AKIACREDSWEB00000001\naws_secret_access_key = k\n",
                  0));
    fx_set(fx, "AWS_ACCESS_KEY_ID", "AKIAENVIRONMENT00001");
    fx_set(fx, "AWS_SECRET_ACCESS_KEY", "e");
    fx_set(fx, "AWS_CONTAINER_CREDENTIALS_FULL_URI", "http://127.0.0.1:9/creds");
    fx_set(fx, "AWS_EC2_METADATA_DISABLED", NULL);
    fx_set(fx, "AWS_EC2_METADATA_SERVICE_ENDPOINT", "http://127.0.0.1:9");

    expect_kind(NULL, DDB_CRED_STATIC, "environment variables"); /* 1 */
    fx_set(fx, "AWS_ACCESS_KEY_ID", NULL);
    expect_kind(NULL, DDB_CRED_ASSUME_ROLE, "role arn:aws:iam::111111111111:role/assumed"); /* 2 */
    fx_set(fx, "AWS_PROFILE", "web");
    expect_kind(NULL, DDB_CRED_WEB_IDENTITY,
                "web identity role arn:aws:iam::111111111111:role/web");
    free(fx_write(fx, ".aws/config", strstr(cfg, "[profile web]"), 0));
    free(fx_write(fx, ".aws/config",
                  "[profile web]\nsso_account_id = 222222222222\nsso_role_name = R\n"
                  "sso_start_url = https://x.awsapps.com/start\nsso_region = eu-west-1\n"
                  "credential_process = echo never\n"
                  "aws_access_key_id = AKIACONFIGWEB0000001\naws_secret_access_key = c\n",
                  0));
    expect_kind(NULL, DDB_CRED_SSO, "SSO role R in account 222222222222"); /* 4 */
    free(fx_write(fx, ".aws/config",
                  "[profile web]\ncredential_process = echo never\n"
                  "aws_access_key_id = AKIACONFIGWEB0000001\naws_secret_access_key = c\n",
                  0));
    expect_kind(NULL, DDB_CRED_STATIC, "credentials file "); /* 5 */
    free(fx_write(fx, ".aws/credentials", "[web]\n", 0));
    expect_kind(NULL, DDB_CRED_PROCESS, "credential_process of profile 'web'"); /* 6 */
    free(fx_write(fx, ".aws/config",
                  "[profile web]\n"
                  "aws_access_key_id = AKIACONFIGWEB0000001\naws_secret_access_key = c\n",
                  0));
    expect_kind(NULL, DDB_CRED_STATIC, "config file "); /* 7 */
    free(fx_write(fx, ".aws/config", "[profile web]\n", 0));
    expect_kind(NULL, DDB_CRED_CONTAINER, "http://127.0.0.1:9/creds"); /* 8 */
    fx_set(fx, "AWS_CONTAINER_CREDENTIALS_FULL_URI", NULL);
    expect_kind(NULL, DDB_CRED_IMDS, "EC2 instance metadata http://127.0.0.1:9"); /* 9 */
    free(tok);
}

Test(chain, explicit_profile_skips_environment_variables)
{
    char *tok = fx_write(fx, "t", "jwt", 0);
    free(fx_write(fx, ".aws/config",
                  "[profile p]\naws_access_key_id = AKIAPROFILE000000001\naws_secret_access_key = "
                  "s\n",
                  0));
    fx_set(fx, "AWS_ACCESS_KEY_ID", "AKIAENVIRONMENT00001");
    fx_set(fx, "AWS_SECRET_ACCESS_KEY", "e");
    fx_set(fx, "AWS_WEB_IDENTITY_TOKEN_FILE", tok);
    fx_set(fx, "AWS_ROLE_ARN", "arn:aws:iam::111111111111:role/web");
    expect_kind(NULL, DDB_CRED_STATIC, "environment variables");
    fx_set(fx, "AWS_ACCESS_KEY_ID", NULL);
    expect_kind(NULL, DDB_CRED_WEB_IDENTITY, "from AWS_WEB_IDENTITY_TOKEN_FILE");
    /* A profile given explicitly ignores both the keys and the web identity variables. */
    fx_set(fx, "AWS_ACCESS_KEY_ID", "AKIAENVIRONMENT00001");
    expect_kind("p", DDB_CRED_STATIC, "config file ");
    free(tok);
}

Test(chain, web_identity_settings)
{
    ddb_cred_source *s;
    char *tok = fx_write(fx, "t", "jwt", 0), cfg[512];
    snprintf(cfg, sizeof(cfg),
             "[default]\nweb_identity_token_file = %s\nrole_session_name = from-profile\n"
             "role_arn = arn:aws:iam::111111111111:role/profile-role\n",
             tok);
    free(fx_write(fx, ".aws/config", cfg, 0));
    /* Key by key: the variable wins, the profile fills the rest. */
    fx_set(fx, "AWS_ROLE_ARN", "arn:aws:iam::111111111111:role/env-role");
    s = built(NULL, "eu-west-1");
    cr_expect_eq(s->kind, DDB_CRED_WEB_IDENTITY);
    cr_expect_str_eq(s->role_arn, "arn:aws:iam::111111111111:role/env-role");
    cr_expect_str_eq(s->session_name, "from-profile");
    cr_expect_str_eq(s->token_file, tok);
    cr_expect_str_eq(s->sts_url, "https://sts.eu-west-1.amazonaws.com");
    cr_expect_str_eq(s->sts_region, "eu-west-1");
    ddb_cred_source_free(s);

    fx_set(fx, "AWS_ROLE_ARN", NULL);
    free(fx_write(fx, ".aws/config", "[default]\nweb_identity_token_file = /x\n", 0));
    fails(NULL, DDB_EINVAL, "web identity: a token file is set (profile) but no role");
    free(tok);
}

Test(chain, role_chains_and_loops)
{
    ddb_cred_source *s;
    free(fx_write(fx, ".aws/config",
                  "[profile c]\nrole_arn = arn:aws:iam::3:role/c\nsource_profile = b\n"
                  "external_id = ext-c\nduration_seconds = 1800\nrole_session_name = sess-c\n"
                  "[profile b]\nrole_arn = arn:aws:iam::2:role/b\nsource_profile = a\n"
                  "[profile a]\naws_access_key_id = AKIAPROFILEA00000001\n"
                  "aws_secret_access_key = s\n"
                  "[profile loop1]\nrole_arn = arn:aws:iam::1:role/l1\nsource_profile = loop2\n"
                  "[profile loop2]\nrole_arn = arn:aws:iam::1:role/l2\nsource_profile = loop1\n"
                  "[profile self]\nrole_arn = arn:aws:iam::1:role/self\nsource_profile = self\n"
                  "aws_access_key_id = AKIASELF000000000001\naws_secret_access_key = s\n"
                  "[profile selfnokeys]\nrole_arn = arn:aws:iam::1:role/s\n"
                  "source_profile = selfnokeys\n"
                  "[profile both]\nrole_arn = arn:aws:iam::1:role/x\nsource_profile = a\n"
                  "credential_source = Environment\n"
                  "[profile neither]\nrole_arn = arn:aws:iam::1:role/x\n"
                  "[profile ghost]\nrole_arn = arn:aws:iam::1:role/x\nsource_profile = nobody\n"
                  "[profile empty-source]\nrole_arn = arn:aws:iam::1:role/x\nsource_profile = e\n"
                  "[profile e]\nregion = eu-west-1\n"
                  "[profile badduration]\nrole_arn = arn:aws:iam::1:role/x\nsource_profile = a\n"
                  "duration_seconds = an hour\n",
                  0));
    s = built("c", "us-west-2");
    cr_assert_eq(s->kind, DDB_CRED_ASSUME_ROLE);
    cr_expect_str_eq(s->role_arn, "arn:aws:iam::3:role/c");
    cr_expect_str_eq(s->external_id, "ext-c");
    cr_expect_str_eq(s->session_name, "sess-c");
    cr_expect_eq(s->duration_seconds, 1800);
    cr_expect_str_eq(s->sts_url, "https://sts.us-west-2.amazonaws.com");
    cr_assert_not_null(s->source);
    cr_expect_eq(s->source->kind, DDB_CRED_ASSUME_ROLE);
    cr_expect_str_eq(s->source->role_arn, "arn:aws:iam::2:role/b");
    cr_expect(strncmp(s->source->session_name, "ddbpipe-", 8) == 0, "%s", s->source->session_name);
    cr_assert_not_null(s->source->source);
    cr_expect_eq(s->source->source->kind, DDB_CRED_STATIC);
    cr_expect_str_eq(s->source->source->keys->access_key_id, "AKIAPROFILEA00000001");
    cr_expect_null(s->source->source->source);
    ddb_cred_source_free(s);

    /* A profile may take its own static keys as its source. */
    s = built("self", "us-east-1");
    cr_expect_eq(s->kind, DDB_CRED_ASSUME_ROLE);
    cr_expect_str_eq(s->source->keys->access_key_id, "AKIASELF000000000001");
    ddb_cred_source_free(s);

    fails("loop1", DDB_EINVAL, "source_profile loop: loop1 -> loop2 -> loop1");
    fails("selfnokeys", DDB_EINVAL, "source_profile loop: selfnokeys -> selfnokeys");
    fails("both", DDB_EINVAL, "profile 'both' has both source_profile and credential_source");
    fails("neither", DDB_EINVAL, "has role_arn but neither source_profile nor credential_source");
    fails("ghost", DDB_EINVAL, "its source_profile 'nobody' does not exist");
    fails("empty-source", DDB_EINVAL, "its source_profile 'e' has no credentials");
    fails("badduration", DDB_EINVAL, "duration_seconds 'an hour' is not a number of seconds");
}

Test(chain, credential_source)
{
    ddb_cred_source *s;
    free(fx_write(
        fx, ".aws/config",
        "[profile env]\nrole_arn = arn:aws:iam::1:role/e\ncredential_source = Environment\n"
        "[profile ecs]\nrole_arn = arn:aws:iam::1:role/c\ncredential_source = EcsContainer\n"
        "[profile ec2]\nrole_arn = arn:aws:iam::1:role/i\n"
        "credential_source = Ec2InstanceMetadata\n"
        "[profile bad]\nrole_arn = arn:aws:iam::1:role/b\ncredential_source = Laptop\n",
        0));
    fails("env", DDB_ENOTFOUND, "credential_source Environment gives no credentials");
    fx_set(fx, "AWS_ACCESS_KEY_ID", "AKIAENVIRONMENT00001");
    fx_set(fx, "AWS_SECRET_ACCESS_KEY", "e");
    /* An explicit profile skips the environment step, not its credential_source. */
    s = built("env", "us-east-1");
    cr_expect_eq(s->kind, DDB_CRED_ASSUME_ROLE);
    cr_expect_eq(s->source->kind, DDB_CRED_STATIC);
    cr_expect_str_eq(s->source->label, "environment variables");
    ddb_cred_source_free(s);

    fails("ecs", DDB_ENOTFOUND, "credential_source EcsContainer gives no credentials");
    fx_set(fx, "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "/v2/credentials/abc");
    s = built("ecs", "us-east-1");
    cr_expect_eq(s->source->kind, DDB_CRED_CONTAINER);
    cr_expect_str_eq(s->source->url, "http://169.254.170.2/v2/credentials/abc");
    ddb_cred_source_free(s);

    fails("ec2", DDB_ENOTFOUND, "disabled by AWS_EC2_METADATA_DISABLED");
    fx_set(fx, "AWS_EC2_METADATA_DISABLED", "false");
    s = built("ec2", "us-east-1");
    cr_expect_eq(s->source->kind, DDB_CRED_IMDS);
    cr_expect_str_eq(s->source->url, "http://169.254.169.254");
    cr_expect_eq(s->source->net.timeout_ms, 1000);
    cr_expect_eq(s->source->net.max_attempts, 1);
    ddb_cred_source_free(s);

    fails("bad", DDB_EINVAL,
          "credential_source 'Laptop' is not one of Environment, Ec2InstanceMetadata, "
          "EcsContainer");
}

Test(chain, sso_sessions_and_legacy_profiles)
{
    ddb_cred_source *s;
    char want[512];
    free(fx_write(fx, ".aws/config",
                  "[profile dev]\nsso_session = my-sso\nsso_account_id = 123456789012\n"
                  "sso_role_name = ReadOnly\n"
                  "[sso-session my-sso]\nsso_start_url = https://my-sso-portal.awsapps.com/start\n"
                  "sso_region = eu-central-1\nsso_registration_scopes = sso:account:access\n"
                  "[profile legacy]\nsso_start_url = https://my-sso-portal.awsapps.com/start\n"
                  "sso_region = us-west-2\nsso_account_id = 123456789012\nsso_role_name = Admin\n"
                  "[profile partial]\nsso_account_id = 123456789012\n"
                  "[profile nosession]\nsso_session = gone\nsso_account_id = 1\nsso_role_name = R\n"
                  "[profile clash]\nsso_session = my-sso\nsso_account_id = 1\nsso_role_name = R\n"
                  "sso_region = us-east-1\n",
                  0));
    s = built("dev", "us-east-1");
    cr_assert_eq(s->kind, DDB_CRED_SSO);
    cr_expect_str_eq(s->sso_account, "123456789012");
    cr_expect_str_eq(s->sso_role, "ReadOnly");
    cr_expect_str_eq(s->sso_url, "https://portal.sso.eu-central-1.amazonaws.com");
    snprintf(want, sizeof(want), "%s/.aws/sso/cache/0ad374308c5a4e22f723adf10145eafad7c4031c.json",
             fx_dir(fx));
    cr_expect_str_eq(s->sso_cache_file, want);
    cr_expect_str_eq(s->sso_login_hint, "aws sso login --sso-session my-sso");
    ddb_cred_source_free(s);

    fx_set(fx, "AWS_ENDPOINT_URL_SSO", "http://127.0.0.1:4000");
    s = built("legacy", "us-east-1");
    cr_expect_str_eq(s->sso_url, "http://127.0.0.1:4000");
    snprintf(want, sizeof(want), "%s/.aws/sso/cache/c7aaaf71fcc8777ae2475525ed049d39fe16c484.json",
             fx_dir(fx));
    cr_expect_str_eq(s->sso_cache_file, want);
    cr_expect_str_eq(s->sso_login_hint, "aws sso login --profile legacy");
    ddb_cred_source_free(s);

    fails("partial", DDB_EINVAL,
          "profile 'partial' is set up for SSO but lacks: sso_role_name sso_start_url sso_region");
    fails("nosession", DDB_EINVAL, "sso_session 'gone' has no [sso-session gone] section");
    fails("clash", DDB_EINVAL,
          "sso_region 'us-east-1' differs from the one of sso-session 'my-sso'");
}

Test(chain, sts_endpoints)
{
    ddb_cred_source *s;
    free(fx_write(fx, ".aws/config",
                  "[default]\nrole_arn = arn:aws:iam::1:role/r\ncredential_source = Environment\n"
                  "[profile svc]\nrole_arn = arn:aws:iam::1:role/r\ncredential_source = "
                  "Environment\nservices = local\n"
                  "[services local]\nsts =\n  endpoint_url = http://127.0.0.1:7000\n",
                  0));
    fx_set(fx, "AWS_ACCESS_KEY_ID", "AKIAENVIRONMENT00001");
    fx_set(fx, "AWS_SECRET_ACCESS_KEY", "e");
    /* The variables come first in the chain: keep them from winning outright. */
    opts.profile = NULL;
    fx_set(fx, "AWS_PROFILE", NULL);
    {
        /* AWS_PROFILE does not skip the environment: use the explicit profile. */
        s = built("default", NULL);
        cr_expect_str_eq(s->sts_url, "https://sts.amazonaws.com");
        cr_expect_str_eq(s->sts_region, "us-east-1");
        ddb_cred_source_free(s);
        s = built("default", "cn-north-1");
        cr_expect_str_eq(s->sts_url, "https://sts.cn-north-1.amazonaws.com.cn");
        ddb_cred_source_free(s);
        s = built("svc", "eu-west-1");
        cr_expect_str_eq(s->sts_url, "http://127.0.0.1:7000");
        cr_expect_str_eq(s->sts_region, "eu-west-1");
        ddb_cred_source_free(s);
        fx_set(fx, "AWS_ENDPOINT_URL", "http://127.0.0.1:7001");
        s = built("default", "eu-west-1");
        cr_expect_str_eq(s->sts_url, "http://127.0.0.1:7001");
        ddb_cred_source_free(s);
        fx_set(fx, "AWS_ENDPOINT_URL_STS", "http://127.0.0.1:7002");
        s = built("svc", "eu-west-1");
        cr_expect_str_eq(s->sts_url, "http://127.0.0.1:7002");
        ddb_cred_source_free(s);
        fx_set(fx, "AWS_ENDPOINT_URL_STS", "127.0.0.1:7002");
        fails("default", DDB_EINVAL,
              "STS endpoint URL '127.0.0.1:7002' (from AWS_ENDPOINT_URL_STS)");
    }
}

Test(chain, container_urls)
{
    static const char *const allowed[] = {
        "http://127.0.0.1:8080/creds", "http://127.1.2.3/x",         "http://[::1]:99/c",
        "http://localhost/c",          "http://169.254.170.2/v2",    "http://169.254.170.23/v1/c",
        "http://[fd00:ec2::23]/v1",    "https://creds.example.com/c"};
    static const char *const refused[] = {"http://10.0.0.1/creds",      "http://169.254.169.254/x",
                                          "http://127.0.0.1.evil.com/", "http://example.com/c",
                                          "ftp://127.0.0.1/c",          "http://user@example.com/",
                                          "http://[fd00:ec2::24]/v1",   "http://1270.0.0.1/"};
    for (size_t i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++)
        cr_expect(ddb_container_url_allowed(allowed[i]), "%s refused", allowed[i]);
    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
        cr_expect(!ddb_container_url_allowed(refused[i]), "%s allowed", refused[i]);

    fx_set(fx, "AWS_CONTAINER_CREDENTIALS_FULL_URI", "http://192.168.1.5/creds");
    fails(NULL, DDB_EUSAGE,
          "AWS_CONTAINER_CREDENTIALS_FULL_URI 'http://192.168.1.5/creds' is "
          "refused");
    /* The relative URI wins over the full one, like botocore. */
    fx_set(fx, "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "/v2/credentials/id");
    fx_set(fx, "AWS_CONTAINER_AUTHORIZATION_TOKEN", "tok");
    {
        ddb_cred_source *s = built(NULL, "us-east-1");
        cr_expect_eq(s->kind, DDB_CRED_CONTAINER);
        cr_expect_str_eq(s->url, "http://169.254.170.2/v2/credentials/id");
        cr_expect_str_eq(s->auth_token, "tok");
        cr_expect_null(s->auth_token_file);
        cr_expect_eq(s->net.max_attempts, 3);
        ddb_cred_source_free(s);
    }
    fx_set(fx, "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE", "/var/run/token");
    {
        ddb_cred_source *s = built(NULL, "us-east-1");
        cr_expect_null(s->auth_token); /* the file wins */
        cr_expect_str_eq(s->auth_token_file, "/var/run/token");
        ddb_cred_source_free(s);
    }
}

Test(chain, imds_endpoint_and_settings)
{
    ddb_aws_resolver r;
    ddb_error err = {0};
    char *url = NULL;

    cr_assert_eq(ddb_aws_resolver_init(&r, &opts, &err), 0, "%s", err.message);
    cr_expect_eq(ddb_aws_imds_endpoint(&url, &r), 0);
    cr_expect_null(url); /* the fixture disables it */
    fx_set(fx, "AWS_EC2_METADATA_DISABLED", "FALSE");
    cr_expect_eq(ddb_aws_imds_endpoint(&url, &r), 0);
    cr_expect_str_eq(url, "http://169.254.169.254");
    free(url);
    fx_set(fx, "AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE", "IPv6");
    ddb_aws_imds_endpoint(&url, &r);
    cr_expect_str_eq(url, "http://[fd00:ec2::254]");
    free(url);
    fx_set(fx, "AWS_EC2_METADATA_SERVICE_ENDPOINT", "http://127.0.0.1:1338/");
    ddb_aws_imds_endpoint(&url, &r);
    cr_expect_str_eq(url, "http://127.0.0.1:1338/");
    free(url);
    ddb_aws_resolver_dispose(&r);

    fx_set(fx, "AWS_METADATA_SERVICE_TIMEOUT", "2.5");
    fx_set(fx, "AWS_METADATA_SERVICE_NUM_ATTEMPTS", "3");
    {
        ddb_cred_source *s = built(NULL, "us-east-1");
        cr_expect_eq(s->kind, DDB_CRED_IMDS);
        cr_expect_eq(s->net.timeout_ms, 2500);
        cr_expect_eq(s->net.max_attempts, 3);
        cr_expect_str_eq(s->url, "http://127.0.0.1:1338/");
        ddb_cred_source_free(s);
    }
}

Test(chain, sso_cache_file_name)
{
    char *p = NULL;
    cr_assert_eq(ddb_sso_cache_path(&p, "/home/u", "my-sso"), 0);
    cr_expect_str_eq(p, "/home/u/.aws/sso/cache/0ad374308c5a4e22f723adf10145eafad7c4031c.json");
    free(p);
}
