/*
 * Fixture for the awsconfig tests: a fake environment (never the process's)
 * whose HOME is a fresh mkdtemp() directory, so no test can see the real
 * ~/.aws, plus helpers to write files there (fixture.h).
 */
#include <criterion/criterion.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ddbpipe/awsconfig.h"
#include "fixture.h"

#define FX_MAX_VARS 32

struct fx_env {
    char dir[64];
    char *names[FX_MAX_VARS];
    char *values[FX_MAX_VARS];
    size_t n;
};

fx_env *fx_new(void)
{
    char aws[128];
    fx_env *fx = calloc(1, sizeof(*fx));
    cr_assert_not_null(fx);
    snprintf(fx->dir, sizeof(fx->dir), "/tmp/ddbpipe-awsconfig-XXXXXX");
    cr_assert_not_null(mkdtemp(fx->dir));
    snprintf(aws, sizeof(aws), "%s/.aws", fx->dir);
    cr_assert_eq(mkdir(aws, 0700), 0);
    fx_set(fx, "HOME", fx->dir);
    /* Never probe 169.254.169.254: tests only touch 127.0.0.1. */
    fx_set(fx, "AWS_EC2_METADATA_DISABLED", "true");
    return fx;
}

const char *fx_dir(const fx_env *fx)
{
    return fx->dir;
}

void fx_set(fx_env *fx, const char *name, const char *value)
{
    for (size_t i = 0; i < fx->n; i++)
        if (strcmp(fx->names[i], name) == 0) {
            free(fx->values[i]);
            fx->values[i] = value ? strdup(value) : NULL;
            return;
        }
    cr_assert_lt(fx->n, FX_MAX_VARS);
    fx->names[fx->n] = strdup(name);
    fx->values[fx->n] = value ? strdup(value) : NULL;
    fx->n++;
}

char *fx_write(fx_env *fx, const char *rel, const char *content, int executable)
{
    char *path = malloc(strlen(fx->dir) + strlen(rel) + 2);
    FILE *f;
    sprintf(path, "%s/%s", fx->dir, rel);
    f = fopen(path, "wb");
    cr_assert_not_null(f, "cannot write %s", path);
    fputs(content, f);
    fclose(f);
    if (executable)
        chmod(path, 0700);
    return path;
}

static const char *fx_getenv(void *ctx, const char *name)
{
    fx_env *fx = ctx;
    for (size_t i = 0; i < fx->n; i++)
        if (strcmp(fx->names[i], name) == 0)
            return fx->values[i];
    return NULL;
}

ddb_aws_options fx_options(fx_env *fx)
{
    ddb_aws_options o;
    memset(&o, 0, sizeof(o));
    o.getenv = fx_getenv;
    o.getenv_ctx = fx;
    /* As the command line names them. */
    o.profile_origin = "--profile";
    o.region_origin = "--region";
    o.endpoint_origin = "--endpoint-url";
    return o;
}

static void remove_tree(const char *path)
{
    DIR *d = opendir(path);
    struct dirent *e;
    if (d == NULL) {
        unlink(path);
        return;
    }
    while ((e = readdir(d)) != NULL) {
        char sub[1024];
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
        remove_tree(sub);
    }
    closedir(d);
    rmdir(path);
}

void fx_free(fx_env *fx)
{
    if (fx == NULL)
        return;
    remove_tree(fx->dir);
    for (size_t i = 0; i < fx->n; i++) {
        free(fx->names[i]);
        free(fx->values[i]);
    }
    free(fx);
}
