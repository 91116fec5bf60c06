/* cred_sso.h (private header of aws/) — IAM Identity Center (cred_sso.c). */
#ifndef DDBPIPE_CRED_SSO_H
#define DDBPIPE_CRED_SSO_H

/* The token cache file the AWS CLI writes for key (the sso-session name, or
 * the start URL of a legacy profile): <home>/.aws/sso/cache/<lower-case hex
 * SHA-1 of key>.json. *out malloc'd. Returns 0 or DDB_ENOMEM. */
int ddb_sso_cache_path(char **out, const char *home, const char *key);

#endif
