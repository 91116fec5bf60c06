#include "ddbpipe/awsconfig.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-c/json.h>
#include <openssl/crypto.h>

#include "awsini.h"

extern char **environ;

#define PROCESS_MAX_STDOUT (64u << 10)
#define PROCESS_MAX_STDERR 4096u

typedef struct resolver {
    const ddb_aws_options *opts;
    const char *profile;
    int explicit_profile; /* --profile: skip the environment's keys */
    ddb_ini_file config, creds;
} resolver;

static const ddb_aws_options default_options;

static const char *env(const resolver *r, const char *name)
{
    const char *v = r->opts->getenv ? r->opts->getenv(r->opts->getenv_ctx, name) : getenv(name);
    return v && *v ? v : NULL;
}

/* ---- profile, file locations ------------------------------------------ */

/* A profile setting: the credentials file wins over the config file. */
static const char *profile_get(const resolver *r, const char *key, const ddb_ini_file **from)
{
    const char *v = ddb_ini_get(&r->creds, 0, "profile", r->profile, key);
    *from = &r->creds;
    if (v == NULL) {
        v = ddb_ini_get(&r->config, 1, "profile", r->profile, key);
        *from = &r->config;
    }
    return v;
}

static int locate(char **out, const resolver *r, const char *var, const char *leaf)
{
    const char *v = env(r, var), *home = env(r, "HOME");
    struct passwd pw, *pwp = NULL;
    char pwbuf[4096];

    *out = NULL;
    if (home == NULL && r->opts->getenv == NULL &&
        getpwuid_r(getuid(), &pw, pwbuf, sizeof(pwbuf), &pwp) == 0 && pwp)
        home = pw.pw_dir;
    if (v && !(v[0] == '~' && (v[1] == '/' || v[1] == '\0')))
        *out = strdup(v);
    else if (home)
        *out = v ? ddb_aws_xprintf("%s%s", home, v + 1) : ddb_aws_xprintf("%s/.aws/%s", home, leaf);
    else
        return 0;
    return *out ? 0 : DDB_ENOMEM;
}

static int resolver_init(resolver *r, const ddb_aws_options *opts, ddb_error *err)
{
    int rc;
    memset(r, 0, sizeof(*r));
    r->opts = opts ? opts : &default_options;
    r->explicit_profile = r->opts->profile && *r->opts->profile;
    r->profile = r->explicit_profile ? r->opts->profile : env(r, "AWS_PROFILE");
    if (locate(&r->config.path, r, "AWS_CONFIG_FILE", "config") != 0 ||
        locate(&r->creds.path, r, "AWS_SHARED_CREDENTIALS_FILE", "credentials") != 0)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    if ((rc = ddb_ini_load(&r->config, err)) != 0 || (rc = ddb_ini_load(&r->creds, err)) != 0)
        return rc;
    if (r->profile == NULL)
        r->profile = "default";
    else if (!ddb_ini_has(&r->config, 1, "profile", r->profile) &&
             !ddb_ini_has(&r->creds, 0, "profile", r->profile))
        return ddb_error_set(err, DDB_EUSAGE,
                             "AWS profile '%s' (from %s) not found: no [%s%s] in config file %s "
                             "and no [%s] in credentials file %s",
                             r->profile, r->explicit_profile ? "--profile" : "AWS_PROFILE",
                             strcmp(r->profile, "default") ? "profile " : "", r->profile,
                             r->config.path ? r->config.path : "(HOME not set)", r->profile,
                             r->creds.path ? r->creds.path : "(HOME not set)");
    return 0;
}

static void resolver_dispose(resolver *r)
{
    ddb_ini_dispose(&r->config);
    ddb_ini_dispose(&r->creds);
}

static int make_creds(ddb_aws_credentials **out, const char *id, const char *secret,
                      const char *token, time_t expiration, char *source, ddb_error *err)
{
    ddb_aws_credentials *c = calloc(1, sizeof(*c));
    if (c == NULL || source == NULL || (c->access_key_id = strdup(id)) == NULL ||
        (c->secret_access_key = strdup(secret)) == NULL ||
        (token && *token && (c->session_token = strdup(token)) == NULL)) {
        free(source);
        ddb_aws_credentials_free(c);
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    }
    c->expiration = expiration;
    c->source = source;
    *out = c;
    return 0;
}

static int from_file(ddb_aws_credentials **out, const resolver *r, const ddb_ini_file *f,
                     int config, ddb_error *err)
{
    unsigned line = 0;
    const char *id = ddb_ini_get_at(f, config, "profile", r->profile, "aws_access_key_id", &line);
    const char *secret = ddb_ini_get(f, config, "profile", r->profile, "aws_secret_access_key");
    const char *token = ddb_ini_get(f, config, "profile", r->profile, "aws_security_token");

    if (id == NULL)
        return 0;
    if (*id == '\0' || secret == NULL || *secret == '\0')
        return ddb_error_set(err, DDB_EINVAL, "%s:%u: profile '%s' has %s", f->path, line,
                             r->profile,
                             *id == '\0' ? "an empty aws_access_key_id"
                                         : "aws_access_key_id but no aws_secret_access_key");
    if (token == NULL)
        token = ddb_ini_get(f, config, "profile", r->profile, "aws_session_token");
    return make_creds(
        out, id, secret, token, 0,
        ddb_aws_xprintf("%s file %s [%s%s]", config ? "config" : "credentials", f->path,
                        config && strcmp(r->profile, "default") ? "profile " : "", r->profile),
        err);
}

/* ---- credential_process ------------------------------------------------ */

/* "2024-05-27T10:00:00Z", "...T10:00:00.123+02:00" */
static int parse_iso8601(time_t *out, const char *s)
{
    struct tm tm;
    int n = 0, oh = 0, om = 0;
    memset(&tm, 0, sizeof(tm));
    if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
               &tm.tm_min, &tm.tm_sec, &n) != 6 ||
        n != 19)
        return -1;
    s += n;
    if (*s == '.')
        for (s++; *s >= '0' && *s <= '9'; s++)
            ;
    if ((*s == '+' || *s == '-') && sscanf(s + 1, "%2d:%2d%n", &oh, &om, &n) == 2 && n == 5 &&
        s[6] == '\0')
        om = (*s == '-' ? -1 : 1) * (oh * 60 + om);
    else if (strcmp(s, "Z") != 0 && strcmp(s, "z") != 0)
        return -1;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    *out = timegm(&tm) - (time_t)om * 60;
    return 0;
}

/* Runs cmd with /bin/sh -c, collecting stdout and the start of stderr. */
static int spawn_collect(const char *cmd, ddb_buf *out, ddb_buf *errb, int *status,
                         const char *what, ddb_error *err)
{
    int po[2] = {-1, -1}, pe[2] = {-1, -1}, rc = 0, open_fds = 2;
    char sh[] = "sh", dash_c[] = "-c", *argv[] = {sh, dash_c, (char *)cmd, NULL};
    posix_spawn_file_actions_t fa;
    pid_t pid;

    /* Reserved up front so the credentials are never left behind by a realloc. */
    if (ddb_buf_reserve(out, PROCESS_MAX_STDOUT + 4096) != 0)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    out->ptr[0] = '\0';
    if (pipe(po) != 0 || pipe(pe) != 0) {
        rc = ddb_error_set(err, DDB_ERROR, "%s: pipe: %s", what, strerror(errno));
        goto done;
    }
    fcntl(po[0], F_SETFD, FD_CLOEXEC);
    fcntl(pe[0], F_SETFD, FD_CLOEXEC);
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, po[1], 1);
    posix_spawn_file_actions_adddup2(&fa, pe[1], 2);
    posix_spawn_file_actions_addclose(&fa, po[1]);
    posix_spawn_file_actions_addclose(&fa, pe[1]);
    rc = posix_spawn(&pid, "/bin/sh", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(po[1]);
    close(pe[1]);
    po[1] = pe[1] = -1;
    if (rc != 0) {
        rc = ddb_error_set(err, DDB_ERROR, "%s: cannot run /bin/sh: %s", what, strerror(rc));
        goto done;
    }
    while (open_fds > 0) {
        struct pollfd pfd[2] = {{po[0], POLLIN, 0}, {pe[0], POLLIN, 0}};
        if (poll(pfd, 2, -1) < 0 && errno != EINTR)
            break;
        for (int i = 0; i < 2; i++) {
            char chunk[4096];
            ddb_buf *b = i ? errb : out;
            ssize_t got;
            if (pfd[i].fd < 0 || !(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            got = read(pfd[i].fd, chunk, sizeof(chunk));
            if (got < 0 && errno == EINTR)
                continue;
            if (got <= 0) {
                close(i ? pe[0] : po[0]);
                *(i ? &pe[0] : &po[0]) = -1;
                open_fds--;
            } else if (b->len < (i ? PROCESS_MAX_STDERR : PROCESS_MAX_STDOUT + 1)) {
                ddb_buf_append(b, chunk, (size_t)got);
            }
            OPENSSL_cleanse(chunk, sizeof(chunk));
        }
    }
    /* Close before waiting: a child still writing gets EPIPE, not a hang. */
    for (int i = 0; i < 2; i++) {
        int *fd = i ? &pe[0] : &po[0];
        if (*fd >= 0)
            close(*fd);
        *fd = -1;
    }
    while (waitpid(pid, status, 0) < 0 && errno == EINTR)
        ;
    if (out->oom || errb->oom)
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
done:
    for (int i = 0; i < 2; i++) {
        if (po[i] >= 0)
            close(po[i]);
        if (pe[i] >= 0)
            close(pe[i]);
    }
    return rc;
}

static int from_process(ddb_aws_credentials **out, const resolver *r, const char *cmd,
                        const ddb_ini_file *from, ddb_error *err)
{
    ddb_buf o = DDB_BUF_INIT, e = DDB_BUF_INIT;
    json_object *root = NULL, *v[5] = {NULL};
    static const char *const field[5] = {"Version", "AccessKeyId", "SecretAccessKey",
                                         "SessionToken", "Expiration"};
    enum json_tokener_error jerr = json_tokener_success;
    time_t expiration = 0;
    char what[512];
    int status = 0, rc;

    snprintf(what, sizeof(what), "credential_process of profile '%s' (%s)", r->profile, from->path);
    if ((rc = spawn_collect(cmd, &o, &e, &status, what, err)) != 0)
        goto done;
    rc = DDB_ERROR;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        size_t n = e.ptr ? strcspn(e.ptr, "\r\n") : 0;
        for (size_t i = 0; i < n; i++)
            if ((unsigned char)e.ptr[i] < 0x20)
                e.ptr[i] = ' ';
        ddb_error_set(err, rc, "%s %s %d%s%.*s", what,
                      WIFEXITED(status) ? "exited with status" : "was killed by signal",
                      WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
                      n ? ": " : " (no message on stderr)", (int)(n > 300 ? 300 : n),
                      n ? e.ptr : "");
        goto done;
    }
    if (o.len > PROCESS_MAX_STDOUT || o.len == 0 || memchr(o.ptr, '\0', o.len)) {
        ddb_error_set(err, rc, "%s: output is empty, binary or over %u bytes", what,
                      PROCESS_MAX_STDOUT);
        goto done;
    }
    root = json_tokener_parse_verbose(o.ptr, &jerr);
    if (root == NULL || !json_object_is_type(root, json_type_object)) {
        ddb_error_set(err, rc, "%s: output is not a JSON object (%s)", what,
                      root ? "another JSON value" : json_tokener_error_desc(jerr));
        goto done;
    }
    for (int i = 0; i < 5; i++)
        json_object_object_get_ex(root, field[i], &v[i]);
    if (!json_object_is_type(v[0], json_type_int) || json_object_get_int64(v[0]) != 1) {
        ddb_error_set(err, rc, "%s: \"Version\" must be the number 1", what);
        goto done;
    }
    for (int i = 1; i < 5; i++)
        if (!(v[i] == NULL && i >= 3) && (!json_object_is_type(v[i], json_type_string) ||
                                          json_object_get_string_len(v[i]) == 0)) {
            ddb_error_set(err, rc, "%s: \"%s\" is %s", what, field[i],
                          v[i] ? "not a non-empty string" : "missing");
            goto done;
        }
    if (v[4] && parse_iso8601(&expiration, json_object_get_string(v[4])) != 0) {
        ddb_error_set(err, rc, "%s: \"Expiration\" '%.64s' is not an ISO 8601 time", what,
                      json_object_get_string(v[4]));
        goto done;
    }
    if (v[4] && expiration <= time(NULL)) {
        ddb_error_set(err, rc, "%s: returned credentials that expired at %.64s", what,
                      json_object_get_string(v[4]));
        goto done;
    }
    rc = make_creds(
        out, json_object_get_string(v[1]), json_object_get_string(v[2]),
        v[3] ? json_object_get_string(v[3]) : NULL, expiration,
        ddb_aws_xprintf("credential_process of profile '%s' (%s)", r->profile, from->path), err);
done:
    for (int i = 2; i < 4; i++) /* json-c frees without wiping */
        if (json_object_is_type(v[i], json_type_string))
            OPENSSL_cleanse((char *)json_object_get_string(v[i]), json_object_get_string_len(v[i]));
    json_object_put(root);
    if (o.ptr)
        OPENSSL_cleanse(o.ptr, o.cap);
    ddb_buf_dispose(&o);
    ddb_buf_dispose(&e);
    return rc;
}

/* ---- resolution -------------------------------------------------------- */

static void describe_file(ddb_buf *b, const resolver *r, const ddb_ini_file *f, int config)
{
    const char *pfx = config && strcmp(r->profile, "default") ? "profile " : "";
    ddb_buf_printf(b, "%s file %s ", config ? "config" : "credentials",
                   f->path ? f->path : "(not located: HOME is not set)");
    if (!f->path)
        return;
    if (!f->present)
        ddb_buf_puts(b, "(not found)");
    else if (!ddb_ini_has(f, config, "profile", r->profile))
        ddb_buf_printf(b, "(no [%s%s] section)", pfx, r->profile);
    else
        ddb_buf_printf(b, "([%s%s] has no aws_access_key_id)", pfx, r->profile);
}

static int resolve_credentials(ddb_aws_credentials **out, const resolver *r, ddb_error *err)
{
    static const char *const unsupported[] = {"role_arn", "web_identity_token_file", "sso_session",
                                              "sso_start_url"};
    const char *id = r->explicit_profile ? NULL : env(r, "AWS_ACCESS_KEY_ID"), *v;
    const ddb_ini_file *from;
    ddb_buf msg = DDB_BUF_INIT;
    int rc;

    *out = NULL;
    if (id) {
        const char *secret = env(r, "AWS_SECRET_ACCESS_KEY"), *token = env(r, "AWS_SECURITY_TOKEN");
        if (secret == NULL)
            return ddb_error_set(err, DDB_EINVAL,
                                 "AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not");
        return make_creds(out, id, secret, token ? token : env(r, "AWS_SESSION_TOKEN"), 0,
                          strdup("environment variables"), err);
    }
    for (size_t i = 0; i <= sizeof(unsupported) / sizeof(unsupported[0]); i++) {
        const char *what = i < 4 ? unsupported[i] : "AWS_WEB_IDENTITY_TOKEN_FILE";
        v = i < 4 ? profile_get(r, what, &from)
                  : (r->explicit_profile || !env(r, "AWS_ROLE_ARN") ? NULL : env(r, what));
        if (v)
            return ddb_error_set(err, DDB_EUSAGE,
                                 "profile '%s': %s is set (assume-role, web identity or SSO), "
                                 "which ddbpipe cannot resolve itself; use a profile with "
                                 "'credential_process = aws configure export-credentials "
                                 "--profile %s --format process' instead",
                                 r->profile, what, r->profile);
    }
    if ((rc = from_file(out, r, &r->creds, 0, err)) != 0 || *out)
        return rc;
    if ((v = profile_get(r, "credential_process", &from)) != NULL && *v)
        return from_process(out, r, v, from, err);
    if ((rc = from_file(out, r, &r->config, 1, err)) != 0 || *out)
        return rc;
    ddb_buf_printf(&msg, "no AWS credentials for profile '%s'; tried: environment (%s); ",
                   r->profile,
                   r->explicit_profile ? "skipped: --profile given" : "AWS_ACCESS_KEY_ID not set");
    describe_file(&msg, r, &r->creds, 0);
    ddb_buf_puts(&msg, "; credential_process (not set in the profile); ");
    describe_file(&msg, r, &r->config, 1);
    ddb_buf_puts(&msg, ". Set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, run 'aws configure', "
                       "or pick another profile with --profile or AWS_PROFILE");
    rc = ddb_error_set(err, DDB_ENOTFOUND, "%s", msg.ptr ? msg.ptr : "no AWS credentials");
    ddb_buf_dispose(&msg);
    return rc;
}

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
    if (endpoint && strncasecmp(value, "http://", 7) != 0 && strncasecmp(value, "https://", 8) != 0)
        return ddb_error_set(err, DDB_EINVAL,
                             "endpoint URL '%.200s' (from %s) must start with http:// or https://",
                             value, source);
    return 0;
}

static char *profile_source(const resolver *r, const char *key, const ddb_ini_file *from)
{
    return ddb_aws_xprintf("'%s' in profile '%s' of %s", key, r->profile, from->path);
}

static int resolve_region(ddb_aws_config *cfg, const resolver *r, ddb_error *err)
{
    static const char *const vars[] = {"AWS_REGION", "AWS_DEFAULT_REGION"};
    const ddb_ini_file *from;
    const char *v;

    if (r->opts->region && *r->opts->region)
        return pick(cfg, 0, r->opts->region, strdup("--region"), err);
    for (int i = 0; i < 2; i++)
        if ((v = env(r, vars[i])) != NULL)
            return pick(cfg, 0, v, strdup(vars[i]), err);
    if ((v = profile_get(r, "region", &from)) != NULL && *v)
        return pick(cfg, 0, v, profile_source(r, "region", from), err);
    return ddb_error_set(err, DDB_ENOTFOUND,
                         "no AWS region: tried --region, AWS_REGION, AWS_DEFAULT_REGION and "
                         "'region' in profile '%s' (config file %s, credentials file %s); pass "
                         "--region or set AWS_REGION",
                         r->profile, r->config.path ? r->config.path : "(HOME not set)",
                         r->creds.path ? r->creds.path : "(HOME not set)");
}

static int resolve_endpoint(ddb_aws_config *cfg, const resolver *r, ddb_error *err)
{
    const ddb_ini_file *from;
    const char *v, *ignore = env(r, "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS");
    char url[128];

    if (r->opts->endpoint_url && *r->opts->endpoint_url)
        return pick(cfg, 1, r->opts->endpoint_url, strdup("--endpoint-url"), err);
    if (ignore == NULL)
        ignore = profile_get(r, "ignore_configured_endpoint_urls", &from);
    if (ignore == NULL || strcasecmp(ignore, "true") != 0) {
        if ((v = env(r, "AWS_ENDPOINT_URL_DYNAMODB")) != NULL)
            return pick(cfg, 1, v, strdup("AWS_ENDPOINT_URL_DYNAMODB"), err);
        if ((v = profile_get(r, "services", &from)) != NULL &&
            (v = ddb_ini_get(&r->config, 1, "services", v, "dynamodb.endpoint_url")) != NULL)
            return pick(cfg, 1, v, ddb_aws_xprintf("[services] section of %s", r->config.path),
                        err);
        if ((v = env(r, "AWS_ENDPOINT_URL")) != NULL)
            return pick(cfg, 1, v, strdup("AWS_ENDPOINT_URL"), err);
        if ((v = profile_get(r, "endpoint_url", &from)) != NULL && *v)
            return pick(cfg, 1, v, profile_source(r, "endpoint_url", from), err);
    }
    snprintf(url, sizeof(url), "https://dynamodb.%s.amazonaws.com%s", cfg->region,
             strncmp(cfg->region, "cn-", 3) == 0 ? ".cn" : "");
    return pick(cfg, 1, url, strdup("default for the region"), err);
}

int ddb_aws_credentials_resolve(ddb_aws_credentials **out, const ddb_aws_options *opts,
                                ddb_error *err)
{
    resolver r;
    int rc = resolver_init(&r, opts, err);
    *out = NULL;
    if (rc == 0)
        rc = resolve_credentials(out, &r, err);
    resolver_dispose(&r);
    return rc;
}

int ddb_aws_config_resolve(ddb_aws_config **out, const ddb_aws_options *opts, ddb_error *err)
{
    resolver r;
    ddb_aws_config *cfg = calloc(1, sizeof(*cfg));
    int rc;

    *out = NULL;
    if (cfg == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    if ((rc = resolver_init(&r, opts, err)) != 0)
        goto done;
    cfg->profile = strdup(r.profile);
    cfg->config_file = r.config.path ? strdup(r.config.path) : NULL;
    cfg->credentials_file = r.creds.path ? strdup(r.creds.path) : NULL;
    if (!cfg->profile || (r.config.path && !cfg->config_file) ||
        (r.creds.path && !cfg->credentials_file)) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto done;
    }
    if ((rc = resolve_credentials(&cfg->credentials, &r, err)) != 0 ||
        (rc = resolve_region(cfg, &r, err)) != 0 || (rc = resolve_endpoint(cfg, &r, err)) != 0)
        goto done;
    *out = cfg;
    cfg = NULL;
done:
    resolver_dispose(&r);
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
    ddb_aws_credentials_free(cfg->credentials);
    free(cfg->profile);
    free(cfg->config_file);
    free(cfg->credentials_file);
    free(cfg->region);
    free(cfg->region_source);
    free(cfg->endpoint_url);
    free(cfg->endpoint_source);
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
    struct tm tm;
    if (c == NULL)
        return ddb_buf_puts(out, "no credentials");
    ddb_aws_mask(id, sizeof(id), c->access_key_id);
    if (c->expiration && gmtime_r(&c->expiration, &tm))
        strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
    return ddb_buf_printf(
        out, "access key %s, secret key %s, session token %s, expires %s, from %s", id,
        c->secret_access_key ? "(set)" : "(not set)", c->session_token ? "(set)" : "(none)", when,
        c->source ? c->source : "(unknown)");
}
