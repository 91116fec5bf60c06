/*
 * credential_process: success, its place in the chain, and every way it can
 * fail (exit status, signal, bad JSON, bad fields, expired) without the
 * process's stdout ever reaching the message.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "ddbpipe/awsconfig.h"

#include "fixture.h"

#define PROC_SECRET "processSecret0000000000000000000000000000"

static fx_env *fx;

static void setup(void)
{
    fx = fx_new();
}

static void teardown(void)
{
    fx_free(fx);
}

TestSuite(awsconfig_process, .init = setup, .fini = teardown);

/* Writes script body as ~/creds.sh and a config whose [profile proc] runs it. */
static void use_script(const char *body)
{
    char script[4096], config[512];
    char *path;
    snprintf(script, sizeof(script), "#!/bin/sh\n%s\n", body);
    path = fx_write(fx, "creds.sh", script, 1);
    snprintf(config, sizeof(config), "[profile proc]\ncredential_process = %s --flag\n", path);
    free(path);
    free(fx_write(fx, ".aws/config", config, 0));
}

static void expect_failure(const char *needle)
{
    ddb_aws_options o = fx_options(fx);
    ddb_aws_credentials *c = NULL;
    ddb_error err = {0};
    o.profile = "proc";
    cr_assert_eq(ddb_aws_credentials_resolve(&c, &o, &err), DDB_ERROR, "got: %s", err.message);
    cr_assert_null(c);
    cr_expect(strstr(err.message, "credential_process of profile 'proc' (") == err.message, "%s",
              err.message);
    cr_expect(strstr(err.message, needle) != NULL, "'%s' not in: %s", needle, err.message);
    cr_expect(strstr(err.message, PROC_SECRET) == NULL, "secret leaked: %s", err.message);
}

Test(awsconfig_process, success)
{
    ddb_aws_options o = fx_options(fx);
    ddb_aws_credentials *c = NULL;
    ddb_error err = {0};
    struct tm tm = {.tm_year = 199, .tm_mon = 0, .tm_mday = 1};

    /* Reads stdin (which must be /dev/null, not ours) and checks its argument. */
    use_script("cat >/dev/null\n[ \"$1\" = --flag ] || exit 9\n"
               "printf '%s' '{\"Version\": 1, \"AccessKeyId\": \"AKIAPROCESS000000009\", "
               "\"SecretAccessKey\": \"" PROC_SECRET "\", \"SessionToken\": \"procToken\", "
               "\"Expiration\": \"2099-01-01T02:00:00.000+02:00\"}'");
    o.profile = "proc";
    cr_assert_eq(ddb_aws_credentials_resolve(&c, &o, &err), 0, "%s", err.message);
    cr_expect_str_eq(c->access_key_id, "AKIAPROCESS000000009");
    cr_expect_str_eq(c->secret_access_key, PROC_SECRET);
    cr_expect_str_eq(c->session_token, "procToken");
    cr_expect_eq(c->expiration, timegm(&tm));
    cr_expect(strstr(c->source, "credential_process of profile 'proc'") == c->source, "%s",
              c->source);
    ddb_aws_credentials_free(c);
}

/* The process inherits nothing of ours but its three streams: a socket this
 * process holds without close-on-exec (as libcurl's own socket pairs are) is
 * not open in it. */
Test(awsconfig_process, inherits_no_descriptor)
{
    ddb_aws_options o = fx_options(fx);
    ddb_aws_credentials *c = NULL;
    ddb_error err = {0};
    char body[1024];
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    cr_assert(fd > 2);
    snprintf(body, sizeof(body),
             "if [ -e /proc/$$/fd/%d ]; then echo 'descriptor %d inherited' >&2; exit 7; fi\n"
             "printf '%%s' '{\"Version\": 1, \"AccessKeyId\": \"AKIAPROCESS000000009\", "
             "\"SecretAccessKey\": \"" PROC_SECRET "\"}'",
             fd, fd);
    use_script(body);
    o.profile = "proc";
    cr_assert_eq(ddb_aws_credentials_resolve(&c, &o, &err), 0, "%s", err.message);
    ddb_aws_credentials_free(c);
    close(fd);
}

Test(awsconfig_process, place_in_the_chain)
{
    ddb_aws_options o = fx_options(fx);
    ddb_aws_credentials *c = NULL;
    ddb_error err = {0};
    char config[512];
    char *path =
        fx_write(fx, "p.sh",
                 "#!/bin/sh\necho '{\"Version\":1,\"AccessKeyId\":\"AKIAFROMPROCESS00010\","
                 "\"SecretAccessKey\":\"s\"}'\n",
                 1);

    /* Like botocore: credentials-file keys, then the process, then config keys. */
    snprintf(config, sizeof(config),
             "[default]\ncredential_process = %s\naws_access_key_id = AKIACONFIG0000000011\n"
             "aws_secret_access_key = c\n",
             path);
    free(fx_write(fx, ".aws/config", config, 0));
    cr_assert_eq(ddb_aws_credentials_resolve(&c, &o, &err), 0, "%s", err.message);
    cr_expect_str_eq(c->access_key_id, "AKIAFROMPROCESS00010");
    cr_expect_null(c->session_token);
    cr_expect_eq(c->expiration, 0);
    ddb_aws_credentials_free(c);

    free(fx_write(
        fx, ".aws/credentials",
        "[default]\naws_access_key_id = AKIACREDFILE00000012\naws_secret_access_key = k\n", 0));
    cr_assert_eq(ddb_aws_credentials_resolve(&c, &o, &err), 0, "%s", err.message);
    cr_expect_str_eq(c->access_key_id, "AKIACREDFILE00000012");
    ddb_aws_credentials_free(c);

    /* A credential_process in the credentials file overrides the config's. */
    free(fx_write(fx, ".aws/credentials", "[default]\ncredential_process = exit 4\n", 0));
    cr_expect_eq(ddb_aws_credentials_resolve(&c, &o, &err), DDB_ERROR);
    cr_expect(strstr(err.message, "exited with status 4") != NULL, "%s", err.message);
    cr_expect(strstr(err.message, "/.aws/credentials") != NULL, "%s", err.message);
    free(path);
}

Test(awsconfig_process, non_zero_exit)
{
    use_script("echo '{\"Version\":1,\"AccessKeyId\":\"A\",\"SecretAccessKey\":\"" PROC_SECRET
               "\"}'\necho 'sso: token expired; run aws sso login' >&2\necho second line >&2\n"
               "exit 3");
    expect_failure("exited with status 3: sso: token expired; run aws sso login");
}

Test(awsconfig_process, killed_by_signal)
{
    /* The shell itself dies (a killed child would show as status 137). */
    free(fx_write(fx, ".aws/config", "[profile proc]\ncredential_process = kill -KILL $$\n", 0));
    expect_failure("was killed by signal 9 (no message on stderr)");
}

Test(awsconfig_process, bad_output)
{
    use_script("echo 'AccessKeyId=A SecretAccessKey=" PROC_SECRET "'");
    expect_failure("output is not a JSON object");
    use_script("echo '[\"" PROC_SECRET "\"]'");
    expect_failure("output is not a JSON object (another JSON value)");
    use_script("true");
    expect_failure("output is empty");
    use_script("echo '{\"Version\":2,\"AccessKeyId\":\"A\",\"SecretAccessKey\":\"" PROC_SECRET
               "\"}'");
    expect_failure("\"Version\" must be the number 1");
    use_script("echo '{\"Version\":1,\"AccessKeyId\":\"A\"}'");
    expect_failure("\"SecretAccessKey\" is missing");
    use_script("echo '{\"Version\":1,\"AccessKeyId\":\"A\",\"SecretAccessKey\":\"" PROC_SECRET
               "\",\"SessionToken\":7}'");
    expect_failure("\"SessionToken\" is not a non-empty string");
    use_script("echo '{\"Version\":1,\"AccessKeyId\":\"A\",\"SecretAccessKey\":\"" PROC_SECRET
               "\",\"Expiration\":\"tomorrow\"}'");
    expect_failure("\"Expiration\" 'tomorrow' is not an ISO 8601 time");
    use_script("echo '{\"Version\":1,\"AccessKeyId\":\"A\",\"SecretAccessKey\":\"" PROC_SECRET
               "\",\"Expiration\":\"2001-01-01T00:00:00Z\"}'");
    expect_failure("returned credentials that expired at 2001-01-01T00:00:00Z");
}
