/*
 * fixture.h — the awsconfig tests' fake environment (fixture.c): a getenv of
 * its own whose HOME is a fresh mkdtemp() directory (never the real ~/.aws),
 * instance metadata disabled, and helpers to write files there.
 */
#ifndef DDBPIPE_TEST_AWSCONFIG_FIXTURE_H
#define DDBPIPE_TEST_AWSCONFIG_FIXTURE_H

#include "ddbpipe/awsconfig.h"

typedef struct fx_env fx_env;

fx_env *fx_new(void);
const char *fx_dir(const fx_env *fx);
/* Sets (value) or unsets (NULL) a variable of the fake environment. */
void fx_set(fx_env *fx, const char *name, const char *value);
/* Writes HOME-relative file rel; returns its full path (owned by the caller). */
char *fx_write(fx_env *fx, const char *rel, const char *content, int executable);
/* Options reading the fake environment, naming origins as the command line does. */
ddb_aws_options fx_options(fx_env *fx);
void fx_free(fx_env *fx);

#endif
