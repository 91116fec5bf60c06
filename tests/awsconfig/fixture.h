/*
 * fixture.h — the awsconfig tests' fake environment (fixture.c): never the
 * process's, with HOME a fresh mkdtemp() directory so no test can see the
 * real ~/.aws, and helpers to write files there.
 */
#ifndef DDBPIPE_TEST_AWSCONFIG_FIXTURE_H
#define DDBPIPE_TEST_AWSCONFIG_FIXTURE_H

#include "ddbpipe/awsconfig.h"

typedef struct fx_env fx_env;
fx_env *fx_new(void);
const char *fx_dir(const fx_env *fx);
void fx_set(fx_env *fx, const char *name, const char *value);
char *fx_write(fx_env *fx, const char *rel, const char *content, int executable);
ddb_aws_options fx_options(fx_env *fx);
void fx_free(fx_env *fx);

#endif
