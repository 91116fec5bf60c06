/*
 * The credential chain: which provider gives the credentials, decided in
 * botocore's order (create_credential_resolver): environment, assume role,
 * web identity, SSO, credentials file, credential_process, config file,
 * container, instance metadata. Only the decision and the settings are made
 * here; fetching is the sources' (cred_source.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "aws/awsconfig_internal.h"
#include "aws/cred_sso.h"

#define MAX_CHAIN 16

typedef struct chain {
    ddb_aws_resolver *r;
    const char *visited[MAX_CHAIN]; /* profiles of a role chain, for loop detection */
    size_t nvisited;
    char session_name[64];
    ddb_buf tried; /* for the "no credentials" message */
} chain;

static int oom(ddb_error *err)
{
    return ddb_error_set(err, DDB_ENOMEM, "out of memory");
}

static const char *get(const chain *c, const char *profile, const char *key)
{
    const char *v = ddb_aws_profile_get(c->r, profile, key, NULL);
    return v && *v ? v : NULL;
}

static const char *profile_file(const chain *c, const char *profile, const char *key)
{
    const ddb_ini_file *from = NULL;
    ddb_aws_profile_get(c->r, profile, key, &from);
    return from && from->path ? from->path : "(no file)";
}

static int has_static(const chain *c, const char *profile)
{
    return get(c, profile, "aws_access_key_id") || get(c, profile, "aws_secret_access_key");
}

static int has_assume_role(const chain *c, const char *profile)
{
    return get(c, profile, "role_arn") && !get(c, profile, "web_identity_token_file");
}

/* ---- static keys --------------------------------------------------------- */

static int static_source(ddb_cred_source **out, const char *id, const char *secret,
                         const char *token, char *label, ddb_error *err)
{
    ddb_cred_source *s = label ? ddb_cred_source_new(DDB_CRED_STATIC, label) : NULL;
    int rc;
    free(label);
    if (s == NULL)
        return oom(err);
    if ((rc = ddb_cred_make(&s->keys, id, secret, token, 0, strdup(s->label), err)) != 0) {
        ddb_cred_source_free(s);
        return rc;
    }
    *out = s;
    return 0;
}

static int from_environment(ddb_cred_source **out, const chain *c, ddb_error *err)
{
    const char *id = ddb_aws_env(c->r, "AWS_ACCESS_KEY_ID");
    const char *secret = ddb_aws_env(c->r, "AWS_SECRET_ACCESS_KEY");
    const char *token = ddb_aws_env(c->r, "AWS_SECURITY_TOKEN");
    *out = NULL;
    if (id == NULL)
        return 0;
    if (secret == NULL)
        return ddb_error_set(err, DDB_EINVAL,
                             "AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not");
    return static_source(out, id, secret, token ? token : ddb_aws_env(c->r, "AWS_SESSION_TOKEN"),
                         strdup("environment variables"), err);
}

static int from_file(ddb_cred_source **out, const chain *c, const char *profile,
                     const ddb_ini_file *f, int config, ddb_error *err)
{
    unsigned line = 0;
    const char *id = ddb_ini_get_at(f, config, "profile", profile, "aws_access_key_id", &line);
    const char *secret = ddb_ini_get(f, config, "profile", profile, "aws_secret_access_key");
    const char *token = ddb_ini_get(f, config, "profile", profile, "aws_security_token");

    *out = NULL;
    if (id == NULL)
        return 0;
    if (*id == '\0' || secret == NULL || *secret == '\0')
        return ddb_error_set(err, DDB_EINVAL, "%s:%u: profile '%s' has %s", f->path, line, profile,
                             *id == '\0' ? "an empty aws_access_key_id"
                                         : "aws_access_key_id but no aws_secret_access_key");
    if (token == NULL)
        token = ddb_ini_get(f, config, "profile", profile, "aws_session_token");
    return static_source(
        out, id, secret, token,
        ddb_aws_xprintf("%s file %s [%s%s]", config ? "config" : "credentials", f->path,
                        config && strcmp(profile, "default") ? "profile " : "", profile),
        err);
}

/* ---- STS-backed sources -------------------------------------------------- */

/* A service's configured endpoint, else dflt (taken over). *out malloc'd. */
static int service_url(char **out, const chain *c, const char *env_id, const char *service,
                       const char *what, char *dflt, ddb_error *err)
{
    char *url = NULL, *src = NULL;
    int rc = ddb_aws_service_endpoint(&url, &src, c->r, env_id, service);
    *out = NULL;
    if (rc == DDB_EINVAL)
        rc = ddb_error_set(err, rc,
                           "%s endpoint URL '%.200s' (from %s) must start with http:// or "
                           "https://",
                           what, url, src);
    else if (rc != 0 || (url == NULL && dflt == NULL))
        rc = oom(err);
    free(src);
    if (rc != 0 || url) {
        free(dflt);
        if (rc == 0)
            *out = url;
        else
            free(url);
        return rc;
    }
    *out = dflt;
    return 0;
}

/* A source that calls STS, with the endpoint and network settings. */
static int sts_source(ddb_cred_source **out, const chain *c, ddb_cred_kind kind, char *label,
                      const char *role_arn, const char *session_name, ddb_error *err)
{
    const char *region = c->r->region;
    ddb_cred_source *s = label ? ddb_cred_source_new(kind, label) : NULL;
    int rc;

    free(label);
    *out = NULL;
    if (s == NULL)
        return oom(err);
    rc = service_url(&s->sts_url, c, "STS", "sts", "STS",
                     region ? ddb_aws_xprintf("https://sts.%s.amazonaws.com%s", region,
                                              strncmp(region, "cn-", 3) == 0 ? ".cn" : "")
                            : strdup("https://sts.amazonaws.com"),
                     err);
    if (rc == 0) {
        s->sts_region = strdup(region ? region : "us-east-1");
        s->role_arn = strdup(role_arn);
        s->session_name = strdup(session_name ? session_name : c->session_name);
        s->net = ddb_aws_net(c->r);
        if (!s->sts_region || !s->role_arn || !s->session_name)
            rc = oom(err);
    }
    if (rc != 0) {
        ddb_cred_source_free(s);
        return rc;
    }
    *out = s;
    return 0;
}

/* Step 3: web identity, from the environment (unless disabled) key by key,
 * else the profile. */
static int from_web_identity(ddb_cred_source **out, chain *c, const char *profile, int disable_env,
                             ddb_error *err)
{
    static const char *const keys[3][2] = {
        {"web_identity_token_file", "AWS_WEB_IDENTITY_TOKEN_FILE"},
        {"role_arn", "AWS_ROLE_ARN"},
        {"role_session_name", "AWS_ROLE_SESSION_NAME"}};
    const char *v[3], *where[3];
    int rc;

    *out = NULL;
    for (int i = 0; i < 3; i++) {
        v[i] = disable_env ? NULL : ddb_aws_env(c->r, keys[i][1]);
        where[i] = keys[i][1];
        if (v[i] == NULL) {
            v[i] = get(c, profile, keys[i][0]);
            where[i] = "profile";
        }
    }
    if (v[0] == NULL)
        return 0;
    if (v[1] == NULL)
        return ddb_error_set(err, DDB_EINVAL,
                             "web identity: a token file is set (%s) but no role: set AWS_ROLE_ARN "
                             "or role_arn in profile '%s'",
                             where[0], profile);
    if ((rc = sts_source(out, c, DDB_CRED_WEB_IDENTITY,
                         ddb_aws_xprintf("web identity role %s (token file %s, from %s%s%s)", v[1],
                                         v[0], strcmp(where[0], "profile") ? where[0] : "profile '",
                                         strcmp(where[0], "profile") ? "" : profile,
                                         strcmp(where[0], "profile") ? "" : "'"),
                         v[1], v[2], err)) != 0)
        return rc;
    if (((*out)->token_file = strdup(v[0])) == NULL) {
        ddb_cred_source_free(*out);
        *out = NULL;
        return oom(err);
    }
    return 0;
}

/* ---- SSO ----------------------------------------------------------------- */

static int from_sso(ddb_cred_source **out, chain *c, const char *profile, ddb_error *err)
{
    const char *role = get(c, profile, "sso_role_name"),
               *account = get(c, profile, "sso_account_id");
    const char *session = get(c, profile, "sso_session");
    const char *start = get(c, profile, "sso_start_url"), *region = get(c, profile, "sso_region");
    ddb_buf missing = DDB_BUF_INIT;
    ddb_cred_source *s;
    int rc = 0;

    *out = NULL;
    if (role == NULL && account == NULL)
        return 0;
    if (session) {
        static const char *const keys[2] = {"sso_start_url", "sso_region"};
        const char **mine[2] = {&start, &region};
        if (!ddb_ini_has(&c->r->config, 1, "sso-session", session))
            return ddb_error_set(err, DDB_EINVAL,
                                 "profile '%s': sso_session '%s' has no [sso-session %s] section "
                                 "in %s",
                                 profile, session, session, c->r->config.path);
        for (int i = 0; i < 2; i++) {
            const char *sv = ddb_ini_get(&c->r->config, 1, "sso-session", session, keys[i]);
            if (sv && *mine[i] && strcmp(sv, *mine[i]) != 0)
                return ddb_error_set(err, DDB_EINVAL,
                                     "profile '%s': %s '%s' differs from the one of sso-session "
                                     "'%s' ('%s')",
                                     profile, keys[i], *mine[i], session, sv);
            if (sv)
                *mine[i] = sv;
        }
    }
    if (!role)
        ddb_buf_puts(&missing, " sso_role_name");
    if (!account)
        ddb_buf_puts(&missing, " sso_account_id");
    if (!start)
        ddb_buf_puts(&missing, " sso_start_url");
    if (!region)
        ddb_buf_puts(&missing, " sso_region");
    if (missing.len) {
        rc =
            ddb_error_set(err, DDB_EINVAL, "profile '%s' is set up for SSO but lacks:%s%s", profile,
                          missing.ptr, session ? " (in the profile or its sso-session)" : "");
        ddb_buf_dispose(&missing);
        return rc;
    }
    if (c->r->home == NULL)
        return ddb_error_set(err, DDB_EUSAGE,
                             "profile '%s': the SSO token cache is in ~/.aws/sso/cache, and HOME "
                             "is not set",
                             profile);
    s = ddb_cred_source_new(DDB_CRED_SSO, "");
    if (s == NULL)
        return oom(err);
    free(s->label);
    s->label = session ? ddb_aws_xprintf("SSO role %s in account %s (profile '%s', sso-session "
                                         "'%s')",
                                         role, account, profile, session)
                       : ddb_aws_xprintf("SSO role %s in account %s (profile '%s', %s)", role,
                                         account, profile, start);
    s->sso_login_hint = session ? ddb_aws_xprintf("aws sso login --sso-session %s", session)
                                : ddb_aws_xprintf("aws sso login --profile %s", profile);
    s->sso_account = strdup(account);
    s->sso_role = strdup(role);
    s->net = ddb_aws_net(c->r);
    rc = service_url(&s->sso_url, c, "SSO", "sso", "SSO",
                     ddb_aws_xprintf("https://portal.sso.%s.amazonaws.com%s", region,
                                     strncmp(region, "cn-", 3) == 0 ? ".cn" : ""),
                     err);
    if (rc == 0 && ddb_sso_cache_path(&s->sso_cache_file, c->r->home, session ? session : start))
        rc = oom(err);
    if (rc == 0 &&
        (!s->label || !s->sso_login_hint || !s->sso_account || !s->sso_role || !s->sso_url))
        rc = oom(err);
    if (rc != 0) {
        ddb_cred_source_free(s);
        return rc;
    }
    *out = s;
    return 0;
}

/* ---- the profile's own providers (steps 3-7) ------------------------------ */

static int profile_providers(ddb_cred_source **out, chain *c, const char *profile, int disable_env,
                             ddb_error *err)
{
    const ddb_ini_file *from;
    const char *v;
    int rc;

    if ((rc = from_web_identity(out, c, profile, disable_env, err)) != 0 || *out)
        return rc;
    if ((rc = from_sso(out, c, profile, err)) != 0 || *out)
        return rc;
    if ((rc = from_file(out, c, profile, &c->r->creds, 0, err)) != 0 || *out)
        return rc;
    if ((v = ddb_aws_profile_get(c->r, profile, "credential_process", &from)) != NULL && *v) {
        ddb_cred_source *s = ddb_cred_source_new(DDB_CRED_PROCESS, "");
        if (s == NULL)
            return oom(err);
        free(s->label);
        s->label = ddb_aws_xprintf("credential_process of profile '%s' (%s)", profile, from->path);
        s->command = strdup(v);
        if (!s->label || !s->command) {
            ddb_cred_source_free(s);
            return oom(err);
        }
        *out = s;
        return 0;
    }
    return from_file(out, c, profile, &c->r->config, 1, err);
}

/* ---- assume role (step 2) ------------------------------------------------- */

static int assume_role(ddb_cred_source **out, chain *c, const char *profile, ddb_error *err);

static int role_source_profile(ddb_cred_source **src, chain *c, const char *profile,
                               const char *source_profile, ddb_error *err)
{
    int seen = 0, rc;
    if (!ddb_aws_profile_exists(c->r, source_profile))
        return ddb_error_set(err, DDB_EINVAL,
                             "profile '%s': its source_profile '%s' does not exist", profile,
                             source_profile);
    for (size_t i = 0; i < c->nvisited; i++)
        seen |= strcmp(c->visited[i], source_profile) == 0;
    /* A profile may name itself to take its own static keys; any other
     * repeat is a loop. */
    if (seen && (strcmp(source_profile, profile) != 0 || !has_static(c, source_profile))) {
        ddb_buf b = DDB_BUF_INIT;
        for (size_t i = 0; i < c->nvisited; i++)
            ddb_buf_printf(&b, "%s -> ", c->visited[i]);
        ddb_buf_puts(&b, source_profile);
        rc = ddb_error_set(err, DDB_EINVAL, "source_profile loop: %s", b.ptr ? b.ptr : "");
        ddb_buf_dispose(&b);
        return rc;
    }
    if (c->nvisited >= MAX_CHAIN)
        return ddb_error_set(err, DDB_EINVAL, "profile '%s': role chain longer than %d profiles",
                             profile, MAX_CHAIN);
    c->visited[c->nvisited++] = source_profile;
    if (has_static(c, source_profile) || !has_assume_role(c, source_profile)) {
        if ((rc = profile_providers(src, c, source_profile, 1, err)) != 0)
            return rc;
        if (*src == NULL)
            return ddb_error_set(err, DDB_EINVAL,
                                 "profile '%s': its source_profile '%s' has no credentials",
                                 profile, source_profile);
        return 0;
    }
    return assume_role(src, c, source_profile, err);
}

static int role_credential_source(ddb_cred_source **src, chain *c, const char *profile,
                                  const char *name, ddb_error *err)
{
    int rc = 0;
    *src = NULL;
    if (strcasecmp(name, "Environment") == 0)
        rc = from_environment(src, c, err);
    else if (strcasecmp(name, "EcsContainer") == 0)
        rc = ddb_cred_container_source(src, c->r, err);
    else if (strcasecmp(name, "Ec2InstanceMetadata") == 0)
        rc = ddb_cred_imds_source(src, c->r, err);
    else
        return ddb_error_set(err, DDB_EINVAL,
                             "profile '%s': credential_source '%s' is not one of Environment, "
                             "Ec2InstanceMetadata, EcsContainer",
                             profile, name);
    if (rc == 0 && *src == NULL)
        rc = ddb_error_set(err, DDB_ENOTFOUND,
                           "profile '%s': credential_source %s gives no credentials (%s)", profile,
                           name,
                           strcasecmp(name, "Environment") == 0 ? "AWS_ACCESS_KEY_ID is not set"
                           : strcasecmp(name, "EcsContainer") == 0
                               ? "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI and _FULL_URI are not set"
                               : "disabled by AWS_EC2_METADATA_DISABLED");
    return rc;
}

/* A role source s, made with rc, over src, the source of its keys: its external ID (may be NULL)
 * set and src attached, or on any failure both freed. */
static int attach_role(ddb_cred_source **out, ddb_cred_source *s, ddb_cred_source *src,
                       const char *external_id, int rc, ddb_error *err)
{
    if (rc == 0 && external_id && (s->external_id = strdup(external_id)) == NULL)
        rc = oom(err);
    if (rc != 0) {
        ddb_cred_source_free(s);
        ddb_cred_source_free(src);
        return rc;
    }
    s->source = src;
    *out = s;
    return 0;
}

static int assume_role(ddb_cred_source **out, chain *c, const char *profile, ddb_error *err)
{
    const char *arn = get(c, profile, "role_arn"), *sp = get(c, profile, "source_profile");
    const char *cs = get(c, profile, "credential_source"),
               *ds = get(c, profile, "duration_seconds");
    const char *mfa = get(c, profile, "mfa_serial");
    ddb_cred_source *src = NULL, *s = NULL;
    long duration = 0;
    char *end = NULL;
    int rc;

    *out = NULL;
    if (sp && cs)
        return ddb_error_set(err, DDB_EINVAL,
                             "profile '%s' has both source_profile and credential_source", profile);
    if (!sp && !cs)
        return ddb_error_set(err, DDB_EINVAL,
                             "profile '%s' has role_arn but neither source_profile nor "
                             "credential_source",
                             profile);
    if (mfa)
        return ddb_error_set(err, DDB_EUSAGE,
                             "profile '%s' sets mfa_serial: assuming its role needs an MFA code "
                             "typed in, which an unattended run cannot do; use a profile without "
                             "mfa_serial, or credentials obtained beforehand",
                             profile);
    if (ds && ((duration = strtol(ds, &end, 10)) <= 0 || *end != '\0' || duration > 43200))
        return ddb_error_set(err, DDB_EINVAL,
                             "profile '%s': duration_seconds '%.40s' is not a number of seconds "
                             "(900 to 43200)",
                             profile, ds);
    rc = sp ? role_source_profile(&src, c, profile, sp, err)
            : role_credential_source(&src, c, profile, cs, err);
    if (rc != 0)
        return rc;
    rc = sts_source(&s, c, DDB_CRED_ASSUME_ROLE,
                    ddb_aws_xprintf("role %s (profile '%s' of %s) with credentials from %s", arn,
                                    profile, profile_file(c, profile, "role_arn"), src->label),
                    arn, get(c, profile, "role_session_name"), err);
    if (rc == 0)
        s->duration_seconds = (int)duration;
    return attach_role(out, s, src, get(c, profile, "external_id"), rc, err);
}

/* ---- the chain ------------------------------------------------------------ */

static void tried_file(chain *c, const ddb_ini_file *f, int config)
{
    const char *p = c->r->profile, *pfx = config && strcmp(p, "default") ? "profile " : "";
    ddb_buf_printf(&c->tried, "%s file %s ", config ? "config" : "credentials",
                   f->path ? f->path : "(not located: HOME is not set)");
    if (!f->path)
        return;
    if (!f->present)
        ddb_buf_puts(&c->tried, "(not found)");
    else if (!ddb_ini_has(f, config, "profile", p))
        ddb_buf_printf(&c->tried, "(no [%s%s] section)", pfx, p);
    else
        ddb_buf_printf(&c->tried, "([%s%s] has no aws_access_key_id)", pfx, p);
}

static void not_found(chain *c)
{
    ddb_buf *b = &c->tried;
    const char *o = c->r->opts->profile_origin;
    if (c->r->explicit_profile)
        ddb_buf_printf(b,
                       "no AWS credentials for profile '%s'; tried: environment (skipped: the "
                       "profile came from %s); ",
                       c->r->profile, o && *o ? o : "the caller");
    else
        ddb_buf_printf(b,
                       "no AWS credentials for profile '%s'; tried: environment "
                       "(AWS_ACCESS_KEY_ID not set); ",
                       c->r->profile);
    ddb_buf_puts(b, "assume role (no role_arn in the profile); web identity (");
    ddb_buf_puts(b, c->r->explicit_profile ? "" : "AWS_WEB_IDENTITY_TOKEN_FILE not set, ");
    ddb_buf_puts(b, "no web_identity_token_file in the profile); SSO (no sso_account_id or "
                    "sso_role_name in the profile); ");
    tried_file(c, &c->r->creds, 0);
    ddb_buf_puts(b, "; credential_process (not set in the profile); ");
    tried_file(c, &c->r->config, 1);
    ddb_buf_puts(b, "; container (AWS_CONTAINER_CREDENTIALS_RELATIVE_URI and _FULL_URI not set)");
}

/* The role the options name (opts.role_arn) over src, the chain's own
 * source, which it takes over (freed on failure): each refresh of the role
 * fetches src's keys again when they near their expiry, as for a profile's
 * role_arn with source_profile. */
static int option_role(ddb_cred_source **out, chain *c, ddb_cred_source *src, ddb_error *err)
{
    const ddb_aws_options *o = c->r->opts;
    ddb_cred_source *s = NULL;
    int rc = sts_source(&s, c, DDB_CRED_ASSUME_ROLE,
                        ddb_aws_xprintf("role %s (%s) with credentials from %s", o->role_arn,
                                        o->role_origin ? o->role_origin : "the role given",
                                        src->label),
                        o->role_arn, NULL, err);
    return attach_role(out, s, src, o->external_id, rc, err);
}

/* botocore's chain, first match wins (awsconfig.h). */
static int chain_build(ddb_cred_source **out, chain *c, ddb_aws_resolver *r, ddb_error *err)
{
    int rc;

    if (!r->explicit_profile && ((rc = from_environment(out, c, err)) != 0 || *out))
        return rc;
    if (has_assume_role(c, r->profile))
        return assume_role(out, c, r->profile, err);
    if ((rc = profile_providers(out, c, r->profile, r->explicit_profile, err)) != 0 || *out)
        return rc;
    if ((rc = ddb_cred_container_source(out, r, err)) != 0 || *out)
        return rc;
    if ((rc = ddb_cred_imds_source(out, r, err)) != 0 || *out)
        return rc;
    return ddb_cred_chain_not_found(r, "disabled by AWS_EC2_METADATA_DISABLED", err);
}

int ddb_cred_chain_build(ddb_cred_source **out, ddb_aws_resolver *r, ddb_error *err)
{
    chain c;
    ddb_cred_source *src = NULL;
    int rc;

    *out = NULL;
    memset(&c, 0, sizeof(c));
    c.r = r;
    c.visited[c.nvisited++] = r->profile;
    snprintf(c.session_name, sizeof(c.session_name), "ddbpipe-%lld", (long long)time(NULL));
    if ((rc = chain_build(&src, &c, r, err)) != 0 || src == NULL || r->opts == NULL ||
        r->opts->role_arn == NULL || r->opts->role_arn[0] == '\0') {
        *out = src;
        return rc;
    }
    return option_role(out, &c, src, err);
}

int ddb_cred_chain_not_found(ddb_aws_resolver *r, const char *imds_why, ddb_error *err)
{
    chain c;
    int rc;
    memset(&c, 0, sizeof(c));
    c.r = r;
    not_found(&c);
    rc = ddb_error_set(err, c.tried.oom ? DDB_ENOMEM : DDB_ENOTFOUND,
                       "%s; EC2 instance metadata (%s). Set AWS_ACCESS_KEY_ID and "
                       "AWS_SECRET_ACCESS_KEY, run 'aws configure', or choose another profile",
                       c.tried.ptr && !c.tried.oom ? c.tried.ptr : "no AWS credentials", imds_why);
    ddb_buf_dispose(&c.tried);
    return rc;
}
