/*
 * The refreshing provider, with a credential_process that gives credentials
 * living a few seconds (each run a new key): the background refresh and its
 * generations, old credentials kept alive while held, the verdicts on
 * refused requests (newer credentials, a forced refresh, not a credential
 * problem), refresh failures reported and survived, long-term keys left
 * alone.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ddbpipe/awsconfig.h"
#include "ddbpipe/credprov.h"

#include "fixture.h"

static fx_env *fx;

/* Logs gathered from the refresher's thread. */
static char logs[8192];
static int warnings, infos;

static void on_log(void *ctx, ddb_log_level level, const char *msg)
{
    (void)ctx;
    if (level == DDB_LOG_WARNING)
        warnings++;
    else
        infos++;
    strncat(logs, msg, sizeof(logs) - strlen(logs) - 2);
    strcat(logs, "\n");
}

static void setup(void)
{
    fx = fx_new();
    logs[0] = '\0';
    warnings = infos = 0;
}

static void teardown(void)
{
    fx_free(fx);
}

TestSuite(provider, .init = setup, .fini = teardown);

/* A profile whose credential_process prints a new key each run, valid for
 * `life` seconds, and fails (exit 7) once the file ~/fail exists. */
static ddb_aws_config *resolve_process(int life)
{
    char script[1024], config[512], *path;
    ddb_aws_options o = fx_options(fx);
    ddb_aws_config *cfg = NULL;
    ddb_error err = {0};

    snprintf(script, sizeof(script),
             "#!/bin/sh\ncd \"%s\"\n[ -e fail ] && { echo 'the broker is down' >&2; exit 7; }\n"
             "n=$(cat count 2>/dev/null || echo 0); n=$((n+1)); echo $n > count\n"
             "printf '{\"Version\":1,\"AccessKeyId\":\"ASIAPROCESS%%09d\",\"SecretAccessKey\":"
             "\"processSecretKey0000000000000000000000%%02d\",\"SessionToken\":\"tok%%d\","
             "\"Expiration\":\"%%s\"}' $n $n $n \"$(date -u -d '+%d seconds' "
             "+%%Y-%%m-%%dT%%H:%%M:%%SZ)\"\n",
             fx_dir(fx), life);
    path = fx_write(fx, "creds.sh", script, 1);
    snprintf(config, sizeof(config), "[default]\nregion = us-east-1\ncredential_process = %s\n",
             path);
    free(path);
    free(fx_write(fx, ".aws/config", config, 0));
    cr_assert_eq(ddb_aws_config_resolve(&cfg, &o, &err), 0, "%s", err.message);
    return cfg;
}

static uint64_t generation(ddb_credprov *p)
{
    ddb_credprov_stats st;
    ddb_credprov_stats_get(p, &st);
    return st.generation;
}

static int wait_generation(ddb_credprov *p, uint64_t at_least, int max_ms)
{
    for (int waited = 0; waited < max_ms; waited += 20) {
        if (generation(p) >= at_least)
            return 1;
        usleep(20000);
    }
    return generation(p) >= at_least;
}

Test(provider, refreshes_in_the_background_and_keeps_held_credentials_alive)
{
    ddb_aws_config *cfg = resolve_process(3);
    ddb_credprov *p = cfg->provider;
    ddb_error err = {0};
    uint64_t g1, g2;
    const ddb_aws_credentials *held, *now;
    ddb_buf b = DDB_BUF_INIT;

    cr_assert(ddb_credprov_expiring(p));
    held = ddb_credprov_acquire(p, &g1);
    cr_expect_eq(g1, 1);
    cr_expect_str_eq(held->access_key_id, "ASIAPROCESS000000001");
    cr_expect_str_eq(cfg->credentials->access_key_id, "ASIAPROCESS000000001");
    cr_assert_eq(ddb_credprov_describe(&b, p), 0);
    cr_expect(strstr(b.ptr, "from credential_process of profile 'default'") != NULL, "%s", b.ptr);
    cr_expect(strstr(b.ptr, "; refreshed in the background from ") != NULL, "%s", b.ptr);
    cr_expect(strstr(b.ptr, "processSecretKey") == NULL && strstr(b.ptr, "tok1") == NULL);
    ddb_buf_dispose(&b);

    cr_assert_eq(ddb_credprov_start(p, on_log, NULL, &err), 0, "%s", err.message);
    /* 3 s credentials: refreshed at half their life, well before they expire. */
    cr_assert(wait_generation(p, 2, 4000), "no refresh within 4 s");
    now = ddb_credprov_acquire(p, &g2);
    cr_expect_geq(g2, 2);
    cr_expect_str_neq(now->access_key_id, "ASIAPROCESS000000001");
    cr_expect_gt(now->expiration, time(NULL));
    /* The old set is still intact for the request that holds it. */
    cr_expect_str_eq(held->access_key_id, "ASIAPROCESS000000001");
    cr_expect_str_eq(held->session_token, "tok1");
    ddb_credprov_release(p, held);
    ddb_credprov_release(p, now);
    cr_expect_geq(infos, 1);
    cr_expect(strstr(logs, "credentials refreshed (generation 2): access key ASIA****0002") != NULL,
              "%s", logs);
    cr_expect(strstr(logs, "processSecretKey") == NULL, "%s", logs);
    ddb_aws_config_free(cfg);
}

Test(provider, verdicts_on_refused_requests)
{
    ddb_aws_config *cfg = resolve_process(3600);
    ddb_credprov *p = cfg->provider;
    ddb_error err = {0};
    ddb_credprov_stats st;
    uint64_t g;

    /* Not started: nothing newer can come, every refusal is the request's. */
    cr_expect_eq(ddb_credprov_rejected(p, 1, "ExpiredTokenException"), DDB_CRED_NOT_MINE);
    cr_assert_eq(ddb_credprov_start(p, on_log, NULL, &err), 0);
    cr_expect_eq(ddb_credprov_rejected(p, 1, "ValidationException"), DDB_CRED_NOT_MINE);
    cr_expect_eq(ddb_credprov_rejected(p, 1, "ProvisionedThroughputExceededException"),
                 DDB_CRED_NOT_MINE);
    /* A wrong signature with the current credentials is not cured by a refresh. */
    cr_expect_eq(ddb_credprov_rejected(p, 1, "InvalidSignatureException"), DDB_CRED_NOT_MINE);
    /* Expired before their time: a refresh is forced; the request waits for it. */
    cr_expect_eq(ddb_credprov_rejected(p, 1, "ExpiredTokenException"), DDB_CRED_WAIT);
    cr_assert(wait_generation(p, 2, 3000), "the forced refresh did not happen");
    cr_expect(strstr(logs, "credentials refreshed after a request was refused (generation 2)") !=
                  NULL,
              "%s", logs);
    /* Requests signed with generation 1 now go again with generation 2, at once. */
    cr_expect_eq(ddb_credprov_rejected(p, 1, "UnrecognizedClientException"), DDB_CRED_RETRY);
    cr_expect_eq(ddb_credprov_rejected(p, 1, "InvalidSignatureException"), DDB_CRED_RETRY);
    ddb_credprov_release(p, ddb_credprov_acquire(p, &g));
    cr_expect_eq(g, 2);
    ddb_credprov_stats_get(p, &st);
    cr_expect_eq(st.forced, 1);
    cr_expect_eq(st.refreshes, 1);
    cr_expect_eq(st.rejected, 4); /* the credential errors, while running */
    ddb_aws_config_free(cfg);
}

Test(provider, a_failing_refresh_is_reported_and_the_current_credentials_stay)
{
    ddb_aws_config *cfg = resolve_process(2);
    ddb_credprov *p = cfg->provider;
    ddb_error err = {0};
    ddb_credprov_stats st;
    const ddb_aws_credentials *c;

    free(fx_write(fx, "fail", "", 0));
    cr_assert_eq(ddb_credprov_start(p, on_log, NULL, &err), 0);
    for (int i = 0; i < 150 && warnings == 0; i++)
        usleep(20000);
    cr_expect_geq(warnings, 1);
    cr_expect(strstr(logs, "refreshing credentials failed (attempt 1; the current ones expire ") !=
                  NULL,
              "%s", logs);
    cr_expect(strstr(logs, "exited with status 7: the broker is down") != NULL, "%s", logs);
    c = ddb_credprov_acquire(p, NULL);
    cr_expect_str_eq(c->access_key_id, "ASIAPROCESS000000001");
    ddb_credprov_release(p, c);
    /* The broker is back: the next try succeeds. */
    unlink(strcat(strcpy((char[256]){0}, fx_dir(fx)), "/fail"));
    cr_expect(wait_generation(p, 2, 4000), "no recovery after the failure");
    ddb_credprov_stats_get(p, &st);
    cr_expect_geq(st.failures, 1);
    ddb_aws_config_free(cfg);
}

Test(provider, long_term_keys_are_left_alone)
{
    ddb_aws_options o = fx_options(fx);
    ddb_aws_config *cfg = NULL;
    ddb_error err = {0};
    ddb_buf b = DDB_BUF_INIT;

    fx_set(fx, "AWS_ACCESS_KEY_ID", "AKIAENVIRONMENT00001");
    fx_set(fx, "AWS_SECRET_ACCESS_KEY", "e");
    fx_set(fx, "AWS_REGION", "eu-west-1");
    cr_assert_eq(ddb_aws_config_resolve(&cfg, &o, &err), 0, "%s", err.message);
    cr_expect_not(ddb_credprov_expiring(cfg->provider));
    cr_assert_eq(ddb_credprov_start(cfg->provider, on_log, NULL, &err), 0);
    cr_expect_eq(ddb_credprov_rejected(cfg->provider, 1, "ExpiredTokenException"),
                 DDB_CRED_NOT_MINE);
    cr_assert_eq(ddb_credprov_describe(&b, cfg->provider), 0);
    cr_expect(strstr(b.ptr, "expires never, from environment variables") != NULL, "%s", b.ptr);
    cr_expect(strstr(b.ptr, "refreshed") == NULL, "%s", b.ptr);
    /* A synchronous refresh gives the same keys again, as a new generation. */
    cr_assert_eq(ddb_credprov_refresh(cfg->provider, &err), 0);
    cr_expect_eq(generation(cfg->provider), 2);
    ddb_buf_dispose(&b);
    ddb_aws_config_free(cfg);
}
