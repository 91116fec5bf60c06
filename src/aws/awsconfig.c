/*
 * The AWS configuration as the CLI resolves it: profile and files, region,
 * endpoints, and the credentials of the chain (cred_chain.c) fetched once
 * and handed to a provider that keeps them fresh (credprov.c).
 */
#include "ddbpipe/awsconfig.h"

#include <curl/curl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "aws/awsconfig_internal.h"
#include "aws/cred_metadata.h"
#include "aws/credprov_internal.h"

static const ddb_aws_options default_options;

const char *ddb_aws_env(const ddb_aws_resolver *r, const char *name)
{
    const char *v = r->opts->getenv ? r->opts->getenv(r->opts->getenv_ctx, name) : getenv(name);
    return v && *v ? v : NULL;
}

const char *ddb_aws_profile_get(const ddb_aws_resolver *r, const char *profile, const char *key,
                                const ddb_ini_file **from)
{
    const char *v = ddb_ini_get(&r->creds, 0, "profile", profile, key);
    const ddb_ini_file *f = &r->creds;
    if (v == NULL) {
        v = ddb_ini_get(&r->config, 1, "profile", profile, key);
        f = &r->config;
    }
    if (from)
        *from = f;
    return v;
}

int ddb_aws_profile_exists(const ddb_aws_resolver *r, const char *profile)
{
    return ddb_ini_has(&r->config, 1, "profile", profile) ||
           ddb_ini_has(&r->creds, 0, "profile", profile);
}

/* The CA bundle to trust for https, as the AWS CLI takes it: AWS_CA_BUNDLE,
 * else the profile's ca_bundle; NULL: the system's. from names the place.
 * An empty AWS_CA_BUNDLE counts as unset: the AWS CLI would take it as no
 * verification at all, which ddbpipe never does. */
static const char *ca_bundle(const ddb_aws_resolver *r, const ddb_ini_file **from)
{
    const char *v = ddb_aws_env(r, "AWS_CA_BUNDLE");
    *from = NULL;
    if (v != NULL && *v)
        return v;
    v = ddb_aws_profile_get(r, r->profile, "ca_bundle", from);
    return v != NULL && *v ? v : NULL;
}

/* A CA bundle path too long for a credential source's copy (longer than a
 * path can be) is refused before any request is made with it. */
static int check_ca_bundle(const ddb_aws_resolver *r, ddb_error *err)
{
    const ddb_ini_file *from;
    const char *ca = ca_bundle(r, &from);
    if (ca != NULL && strlen(ca) >= sizeof(((ddb_cred_net *)NULL)->ca_file))
        return ddb_error_set(err, DDB_EINVAL, "the CA bundle's path (%s) is too long: %.100s...",
                             from ? "ca_bundle" : "AWS_CA_BUNDLE", ca);
    return 0;
}

ddb_cred_net ddb_aws_net(const ddb_aws_resolver *r)
{
    ddb_cred_net n = {0, 0, 0, ""};
    const ddb_ini_file *from;
    const char *ca = ca_bundle(r, &from);
    n.max_attempts = r->opts->max_attempts > 0 ? r->opts->max_attempts : 10;
    n.timeout_ms = r->opts->request_timeout_ms > 0 ? r->opts->request_timeout_ms : 30000;
    if (ca != NULL)
        snprintf(n.ca_file, sizeof(n.ca_file), "%s", ca);
    return n;
}

static const char *origin(const char *label, const char *fallback)
{
    return label && *label ? label : fallback;
}

/* ---- profile, file locations ------------------------------------------ */

static int locate(char **out, const ddb_aws_resolver *r, const char *var, const char *leaf)
{
    const char *v = ddb_aws_env(r, var);
    *out = NULL;
    if (v && !(v[0] == '~' && (v[1] == '/' || v[1] == '\0')))
        *out = strdup(v);
    else if (r->home)
        *out = v ? ddb_aws_xprintf("%s%s", r->home, v + 1)
                 : ddb_aws_xprintf("%s/.aws/%s", r->home, leaf);
    else
        return 0;
    return *out ? 0 : DDB_ENOMEM;
}

int ddb_aws_resolver_init(ddb_aws_resolver *r, const ddb_aws_options *opts, ddb_error *err)
{
    struct passwd pw, *pwp = NULL;
    char pwbuf[4096];
    const char *home;
    int rc;

    memset(r, 0, sizeof(*r));
    r->opts = opts ? opts : &default_options;
    r->explicit_profile = r->opts->profile && *r->opts->profile;
    r->profile = r->explicit_profile ? r->opts->profile : ddb_aws_env(r, "AWS_PROFILE");
    home = ddb_aws_env(r, "HOME");
    if (home == NULL && r->opts->getenv == NULL &&
        getpwuid_r(getuid(), &pw, pwbuf, sizeof(pwbuf), &pwp) == 0 && pwp)
        home = pw.pw_dir;
    if ((home && (r->home = strdup(home)) == NULL) ||
        locate(&r->config.path, r, "AWS_CONFIG_FILE", "config") != 0 ||
        locate(&r->creds.path, r, "AWS_SHARED_CREDENTIALS_FILE", "credentials") != 0)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    if ((rc = ddb_ini_load(&r->config, err)) != 0 || (rc = ddb_ini_load(&r->creds, err)) != 0)
        return rc;
    if (r->profile == NULL)
        r->profile = "default";
    else if (!ddb_aws_profile_exists(r, r->profile))
        return ddb_error_set(err, DDB_EUSAGE,
                             "AWS profile '%s' (from %s) not found: no [%s%s] in config file %s "
                             "and no [%s] in credentials file %s",
                             r->profile,
                             r->explicit_profile
                                 ? origin(r->opts->profile_origin, "the profile given")
                                 : "AWS_PROFILE",
                             strcmp(r->profile, "default") ? "profile " : "", r->profile,
                             r->config.path ? r->config.path : "(HOME not set)", r->profile,
                             r->creds.path ? r->creds.path : "(HOME not set)");
    return 0;
}

void ddb_aws_resolver_dispose(ddb_aws_resolver *r)
{
    ddb_ini_dispose(&r->config);
    ddb_ini_dispose(&r->creds);
    free(r->home);
}

/* ---- region and endpoints ---------------------------------------------- */

static int valid_region(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 63 || s[0] == '-' || s[n - 1] == '-')
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '-'))
            return 0;
    return 1;
}

static int valid_url(const char *v)
{
    return strncasecmp(v, "http://", 7) == 0 || strncasecmp(v, "https://", 8) == 0;
}

static int pick(ddb_aws_config *cfg, int endpoint, const char *value, char *source, ddb_error *err)
{
    char **v = endpoint ? &cfg->endpoint_url : &cfg->region;
    char **s = endpoint ? &cfg->endpoint_source : &cfg->region_source;
    if (source == NULL || (*v = strdup(value)) == NULL)
        return free(source), ddb_error_set(err, DDB_ENOMEM, "out of memory");
    *s = source;
    if (!endpoint && !valid_region(value))
        return ddb_error_set(err, DDB_EINVAL, "invalid AWS region '%.64s' (from %s)", value,
                             source);
    if (endpoint && !valid_url(value))
        return ddb_error_set(err, DDB_EINVAL,
                             "endpoint URL '%.200s' (from %s) must start with http:// or https://",
                             value, source);
    return 0;
}

static char *profile_source(const ddb_aws_resolver *r, const char *key, const ddb_ini_file *from)
{
    return ddb_aws_xprintf("'%s' in profile '%s' of %s", key, r->profile, from->path);
}

int ddb_aws_imds_endpoint(char **out, const ddb_aws_resolver *r)
{
    const char *v = ddb_aws_env(r, "AWS_EC2_METADATA_DISABLED");
    const char *mode = ddb_aws_env(r, "AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE");
    *out = NULL;
    if (v && strcasecmp(v, "true") == 0)
        return 0;
    if ((v = ddb_aws_env(r, "AWS_EC2_METADATA_SERVICE_ENDPOINT")) == NULL)
        v = ddb_aws_profile_get(r, r->profile, "ec2_metadata_service_endpoint", NULL);
    if (mode == NULL)
        mode = ddb_aws_profile_get(r, r->profile, "ec2_metadata_service_endpoint_mode", NULL);
    if (v == NULL || *v == '\0')
        v = mode && strcasecmp(mode, "ipv6") == 0 ? "http://[fd00:ec2::254]"
                                                  : "http://169.254.169.254";
    *out = strdup(v);
    return *out ? 0 : DDB_ENOMEM;
}

ddb_cred_net ddb_aws_imds_net(const ddb_aws_resolver *r)
{
    ddb_cred_net n = {1, 1000, 1000, ""};
    const char *t = ddb_aws_env(r, "AWS_METADATA_SERVICE_TIMEOUT");
    const char *a = ddb_aws_env(r, "AWS_METADATA_SERVICE_NUM_ATTEMPTS");
    if (t == NULL)
        t = ddb_aws_profile_get(r, r->profile, "metadata_service_timeout", NULL);
    if (a == NULL)
        a = ddb_aws_profile_get(r, r->profile, "metadata_service_num_attempts", NULL);
    if (t && atof(t) > 0)
        n.connect_timeout_ms = n.timeout_ms = (long)(atof(t) * 1000);
    if (a && atoi(a) > 0)
        n.max_attempts = atoi(a);
    return n;
}

static int resolve_region(ddb_aws_config *cfg, const ddb_aws_resolver *r, int use_imds,
                          ddb_error *err)
{
    static const char *const vars[] = {"AWS_REGION", "AWS_DEFAULT_REGION"};
    const char *ro = origin(r->opts->region_origin, "the region given");
    const ddb_ini_file *from;
    char *imds_url = NULL, *region = NULL,
         why[DDB_ERROR_MAX] = "disabled by "
                              "AWS_EC2_METADATA_DISABLED";
    ddb_cred_net net;
    const char *v;
    int rc;

    if (r->opts->region && *r->opts->region)
        return pick(cfg, 0, r->opts->region, strdup(ro), err);
    for (int i = 0; i < 2; i++)
        if ((v = ddb_aws_env(r, vars[i])) != NULL)
            return pick(cfg, 0, v, strdup(vars[i]), err);
    if ((v = ddb_aws_profile_get(r, r->profile, "region", &from)) != NULL && *v)
        return pick(cfg, 0, v, profile_source(r, "region", from), err);
    if (!use_imds)
        return 0;
    if (ddb_aws_imds_endpoint(&imds_url, r) != 0)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    if (imds_url) {
        ddb_error ierr = {0};
        net = ddb_aws_imds_net(r);
        rc = ddb_imds_region(&region, imds_url, &net, &ierr);
        if (rc == 0) {
            rc = pick(cfg, 0, region, ddb_aws_xprintf("EC2 instance metadata %s", imds_url), err);
            free(region);
            free(imds_url);
            return rc;
        }
        snprintf(why, sizeof(why), "%s", ierr.message);
        free(imds_url);
    }
    return ddb_error_set(err, DDB_ENOTFOUND,
                         "no AWS region: tried %s, AWS_REGION, AWS_DEFAULT_REGION, 'region' in "
                         "profile '%s' (config file %s, credentials file %s) and EC2 instance "
                         "metadata (%s); give a region or set AWS_REGION",
                         ro, r->profile, r->config.path ? r->config.path : "(HOME not set)",
                         r->creds.path ? r->creds.path : "(HOME not set)", why);
}

int ddb_aws_service_endpoint(char **url, char **source, const ddb_aws_resolver *r,
                             const char *env_id, const char *service)
{
    const ddb_ini_file *from;
    const char *v, *ignore = ddb_aws_env(r, "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS");
    char var[64], key[80];

    *url = *source = NULL;
    if (ignore == NULL)
        ignore = ddb_aws_profile_get(r, r->profile, "ignore_configured_endpoint_urls", &from);
    if (ignore && strcasecmp(ignore, "true") == 0)
        return 0;
    snprintf(var, sizeof(var), "AWS_ENDPOINT_URL_%s", env_id);
    snprintf(key, sizeof(key), "%s.endpoint_url", service);
    if ((v = ddb_aws_env(r, var)) != NULL) {
        *source = strdup(var);
    } else if ((v = ddb_aws_profile_get(r, r->profile, "services", &from)) != NULL &&
               (v = ddb_ini_get(&r->config, 1, "services", v, key)) != NULL) {
        *source = ddb_aws_xprintf("[services] section of %s", r->config.path);
    } else if ((v = ddb_aws_env(r, "AWS_ENDPOINT_URL")) != NULL) {
        *source = strdup("AWS_ENDPOINT_URL");
    } else if ((v = ddb_aws_profile_get(r, r->profile, "endpoint_url", &from)) != NULL && *v) {
        *source = profile_source(r, "endpoint_url", from);
    } else {
        return 0;
    }
    if (*source == NULL || (*url = strdup(v)) == NULL) {
        free(*source);
        *source = NULL;
        return DDB_ENOMEM;
    }
    if (!valid_url(v))
        return DDB_EINVAL;
    return 0;
}

static int resolve_endpoint(ddb_aws_config *cfg, const ddb_aws_resolver *r, ddb_error *err)
{
    char url[128], *v = NULL, *src = NULL;
    int rc;

    if (r->opts->endpoint_url && *r->opts->endpoint_url)
        return pick(cfg, 1, r->opts->endpoint_url,
                    strdup(origin(r->opts->endpoint_origin, "the endpoint given")), err);
    rc = ddb_aws_service_endpoint(&v, &src, r, "DYNAMODB", "dynamodb");
    if (rc == DDB_ENOMEM)
        return ddb_error_set(err, rc, "out of memory");
    if (v) {
        rc = pick(cfg, 1, v, src, err);
        free(v);
        return rc;
    }
    snprintf(url, sizeof(url), "https://dynamodb.%s.amazonaws.com%s", cfg->region,
             strncmp(cfg->region, "cn-", 3) == 0 ? ".cn" : "");
    return pick(cfg, 1, url, strdup("default for the region"), err);
}

/* ---- credentials -------------------------------------------------------- */

/* Builds the chain and fetches once. *source owned by the caller. */
static int resolve_credentials(ddb_aws_credentials **out, ddb_cred_source **source,
                               ddb_aws_resolver *r, ddb_error *err)
{
    ddb_cred_source *root = NULL;
    uint64_t rng = (uint64_t)ddb_cred_now_ms();
    ddb_cred_call call = {NULL, &rng};
    int rc;

    *out = NULL;
    *source = NULL;
    /* libcurl's global state is set up here, in the main thread, before the
     * refresher's thread can use it. */
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
        return ddb_error_set(err, DDB_ENET, "libcurl could not be initialised");
    if ((rc = ddb_cred_chain_build(&root, r, err)) != 0)
        return rc;
    if ((rc = ddb_cred_fetch(out, root, &call, err)) != 0) {
        /* Instance metadata is the chain's last resort: no answer there means
         * no credentials anywhere. */
        if (rc == DDB_ENOTFOUND && root->kind == DDB_CRED_IMDS) {
            char why[DDB_ERROR_MAX];
            snprintf(why, sizeof(why), "%s", err ? err->message : "no answer");
            rc = ddb_cred_chain_not_found(r, why, err);
        }
        ddb_cred_source_free(root);
        return rc;
    }
    *source = root;
    return 0;
}

int ddb_aws_credentials_resolve(ddb_aws_credentials **out, const ddb_aws_options *opts,
                                ddb_error *err)
{
    ddb_aws_resolver r;
    ddb_cred_source *root = NULL;
    ddb_aws_config region = {0};
    int rc = ddb_aws_resolver_init(&r, opts, err);
    *out = NULL;
    /* The region only serves STS here; its absence is not an error. */
    if (rc == 0 && (rc = check_ca_bundle(&r, err)) == 0 &&
        (rc = resolve_region(&region, &r, 0, err)) == 0) {
        r.region = region.region;
        rc = resolve_credentials(out, &root, &r, err);
    }
    ddb_cred_source_free(root);
    free(region.region);
    free(region.region_source);
    ddb_aws_resolver_dispose(&r);
    return rc;
}

/* Application Auto Scaling's endpoint: configured as the SDKs look it up, else the region's. */
static int resolve_autoscaling(ddb_aws_config *cfg, const ddb_aws_resolver *r, ddb_error *err)
{
    int rc = ddb_aws_service_endpoint(&cfg->autoscaling_endpoint_url,
                                      &cfg->autoscaling_endpoint_source, r,
                                      "APPLICATION_AUTO_SCALING", "application_auto_scaling");
    if (rc == DDB_EINVAL)
        return ddb_error_set(err, rc,
                             "Application Auto Scaling endpoint URL '%.200s' (from %s) must "
                             "start with http:// or https://",
                             cfg->autoscaling_endpoint_url, cfg->autoscaling_endpoint_source);
    if (rc == 0 && cfg->autoscaling_endpoint_url == NULL) {
        cfg->autoscaling_endpoint_url =
            ddb_aws_xprintf("https://application-autoscaling.%s.amazonaws.com%s", cfg->region,
                            strncmp(cfg->region, "cn-", 3) == 0 ? ".cn" : "");
        cfg->autoscaling_endpoint_source = strdup("default for the region");
        if (!cfg->autoscaling_endpoint_url || !cfg->autoscaling_endpoint_source)
            rc = DDB_ENOMEM;
    }
    return rc == DDB_ENOMEM ? ddb_error_set(err, rc, "out of memory") : 0;
}

int ddb_aws_config_resolve(ddb_aws_config **out, const ddb_aws_options *opts, ddb_error *err)
{
    ddb_aws_resolver r;
    ddb_aws_config *cfg = calloc(1, sizeof(*cfg));
    ddb_cred_source *root = NULL;
    ddb_aws_credentials *first = NULL;
    int64_t obtained;
    int rc;

    *out = NULL;
    if (cfg == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    if ((rc = ddb_aws_resolver_init(&r, opts, err)) != 0)
        goto done;
    cfg->profile = strdup(r.profile);
    cfg->config_file = r.config.path ? strdup(r.config.path) : NULL;
    cfg->credentials_file = r.creds.path ? strdup(r.creds.path) : NULL;
    if (!cfg->profile || (r.config.path && !cfg->config_file) ||
        (r.creds.path && !cfg->credentials_file)) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto done;
    }
    /* The configured region first: STS calls of the chain use it. */
    if ((rc = check_ca_bundle(&r, err)) != 0 || (rc = resolve_region(cfg, &r, 0, err)) != 0)
        goto done;
    r.region = cfg->region;
    obtained = ddb_cred_now_ms();
    if ((rc = resolve_credentials(&first, &root, &r, err)) != 0)
        goto done;
    if ((rc = ddb_cred_make(&cfg->credentials, first->access_key_id, first->secret_access_key,
                            first->session_token, first->expiration,
                            strdup(first->source ? first->source : ""), err)) != 0)
        goto done;
    rc = ddb_credprov_new(&cfg->provider, root, first, obtained, err);
    root = NULL;
    first = NULL;
    if (rc != 0 || (cfg->region == NULL && (rc = resolve_region(cfg, &r, 1, err)) != 0) ||
        (rc = resolve_endpoint(cfg, &r, err)) != 0)
        goto done;
    {
        const ddb_ini_file *from;
        const char *ca = ca_bundle(&r, &from);
        if (ca != NULL && ((cfg->ca_bundle = strdup(ca)) == NULL ||
                           (cfg->ca_bundle_source = from ? profile_source(&r, "ca_bundle", from)
                                                         : strdup("AWS_CA_BUNDLE")) == NULL)) {
            rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
            goto done;
        }
    }
    rc = ddb_aws_service_endpoint(&cfg->s3_endpoint_url, &cfg->s3_endpoint_source, &r, "S3", "s3");
    if (rc != 0) {
        rc = rc == DDB_ENOMEM ? ddb_error_set(err, rc, "out of memory")
                              : ddb_error_set(err, rc,
                                              "S3 endpoint URL '%.200s' (from %s) must start "
                                              "with http:// or https://",
                                              cfg->s3_endpoint_url, cfg->s3_endpoint_source);
        goto done;
    }
    if ((rc = resolve_autoscaling(cfg, &r, err)) != 0)
        goto done;
    *out = cfg;
    cfg = NULL;
done:
    ddb_cred_source_free(root);
    ddb_aws_credentials_free(first);
    ddb_aws_resolver_dispose(&r);
    ddb_aws_config_free(cfg);
    return rc;
}

void ddb_aws_credentials_free(ddb_aws_credentials *c)
{
    if (c == NULL)
        return;
    ddb_aws_free_secret(c->access_key_id);
    ddb_aws_free_secret(c->secret_access_key);
    ddb_aws_free_secret(c->session_token);
    free(c->source);
    OPENSSL_cleanse(c, sizeof(*c));
    free(c);
}

void ddb_aws_config_free(ddb_aws_config *cfg)
{
    if (cfg == NULL)
        return;
    ddb_credprov_free(cfg->provider);
    ddb_aws_credentials_free(cfg->credentials);
    free(cfg->profile);
    free(cfg->config_file);
    free(cfg->credentials_file);
    free(cfg->region);
    free(cfg->region_source);
    free(cfg->endpoint_url);
    free(cfg->endpoint_source);
    free(cfg->s3_endpoint_url);
    free(cfg->s3_endpoint_source);
    free(cfg->autoscaling_endpoint_url);
    free(cfg->autoscaling_endpoint_source);
    free(cfg->ca_bundle);
    free(cfg->ca_bundle_source);
    free(cfg);
}

void ddb_aws_mask(char *out, size_t outlen, const char *value)
{
    size_t n = value ? strlen(value) : 0;
    if (outlen == 0)
        return;
    if (n == 0)
        snprintf(out, outlen, "(not set)");
    else if (n < 12)
        snprintf(out, outlen, "****");
    else
        snprintf(out, outlen, "%.4s****%s", value, value + n - 4);
}

int ddb_aws_credentials_describe(ddb_buf *out, const ddb_aws_credentials *c)
{
    char id[32], when[32] = "never";
    if (c == NULL)
        return ddb_buf_puts(out, "no credentials");
    ddb_aws_mask(id, sizeof(id), c->access_key_id);
    if (c->expiration)
        ddb_cred_format_time(when, sizeof(when), c->expiration);
    return ddb_buf_printf(
        out, "access key %s, secret key %s, session token %s, expires %s, from %s", id,
        c->secret_access_key ? "(set)" : "(not set)", c->session_token ? "(set)" : "(none)", when,
        c->source ? c->source : "(unknown)");
}
