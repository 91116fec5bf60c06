/*
 * cred_source.h (private header of aws/) — one credential provider of the chain, resolved:
 * everything it needs to fetch credentials again later is copied into it at
 * start-up (file paths, URLs, role parameters), so a refresh hours later
 * neither re-reads the AWS config files nor consults the environment. Only
 * what must be read afresh is: the web identity token file, the container
 * authorization token file, the SSO token cache and credential_process.
 *
 * An assume-role source points at the source that gives it the keys to call
 * STS with, which may itself be an assume-role source (a chain of roles).
 * Sources are not thread-safe: one thread at a time fetches from a tree
 * (the caller at start-up, then the refresher's thread).
 */
#ifndef DDBPIPE_CRED_SOURCE_H
#define DDBPIPE_CRED_SOURCE_H

#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "ddbpipe/awsconfig.h"
#include "ddbpipe/buf.h"
#include "ddbpipe/error.h"

typedef enum ddb_cred_kind {
    DDB_CRED_STATIC,       /* keys from the environment or a file: never refreshed */
    DDB_CRED_PROCESS,      /* credential_process */
    DDB_CRED_WEB_IDENTITY, /* STS AssumeRoleWithWebIdentity */
    DDB_CRED_ASSUME_ROLE,  /* STS AssumeRole with another source's keys */
    DDB_CRED_SSO,          /* IAM Identity Center portal GetRoleCredentials */
    DDB_CRED_CONTAINER,    /* ECS / EKS Pod Identity endpoint */
    DDB_CRED_IMDS          /* EC2 instance metadata, IMDSv2 */
} ddb_cred_kind;

/* How to reach a service (STS, the SSO portal, a metadata endpoint). */
typedef struct ddb_cred_net {
    int max_attempts;        /* as the DynamoDB client's */
    long connect_timeout_ms; /* 0: the default of the provider */
    long timeout_ms;
    char ca_file[4096]; /* AWS_CA_BUNDLE or the profile's ca_bundle; "": the system's CAs
                           (a longer path cannot be opened: refused before any request) */
} ddb_cred_net;

typedef struct ddb_cred_source {
    ddb_cred_kind kind;
    char *label; /* "assume role arn:... (profile 'x' of /h/.aws/config)"; never a secret */
    ddb_cred_net net;
    ddb_aws_credentials *keys; /* STATIC */
    char *command;             /* PROCESS */
    /* STS (WEB_IDENTITY, ASSUME_ROLE) */
    char *sts_url, *sts_region;
    char *role_arn, *session_name, *external_id;
    int duration_seconds; /* 0: STS's default */
    char *token_file;     /* WEB_IDENTITY: re-read at every fetch */
    /* SSO */
    char *sso_url, *sso_cache_file, *sso_account, *sso_role, *sso_login_hint;
    /* CONTAINER and IMDS */
    char *url;                      /* full credentials URL, or the IMDS base URL */
    char *auth_token;               /* CONTAINER: AWS_CONTAINER_AUTHORIZATION_TOKEN (a secret) */
    char *auth_token_file;          /* CONTAINER: re-read at every fetch */
    struct ddb_cred_source *source; /* ASSUME_ROLE */
    /* The last credentials fetched, so a chain reuses its sources' keys until
     * they near their expiry. */
    ddb_aws_credentials *cached;
    int64_t cached_at_ms; /* wall clock, when they were fetched */
} ddb_cred_source;

/* What a fetch may be interrupted by, and the jitter state for backoff. */
typedef struct ddb_cred_call {
    atomic_int *abort; /* set from another thread: the provider's free */
    uint64_t *rng;
} ddb_cred_call;

/* A zeroed source of that kind with a copy of label. NULL on OOM. */
ddb_cred_source *ddb_cred_source_new(ddb_cred_kind kind, const char *label);

/* Frees a tree, wiping secrets. Accepts NULL. */
void ddb_cred_source_free(ddb_cred_source *s);

/*
 * Fetches fresh credentials from s (for an assume-role source: with its
 * source's current keys, fetching those first when they near their expiry).
 * *out owned by the caller; its `source` field names s (s->label). Returns 0;
 * DDB_ENET (the service could not be reached or kept failing after the
 * retries), DDB_ERROR (it refused: the message quotes its error, never a
 * secret), DDB_EUSAGE (something the user must fix, e.g. an expired SSO
 * login), DDB_EIO (a token file cannot be read), DDB_EINTR, DDB_ENOMEM.
 */
int ddb_cred_fetch(ddb_aws_credentials **out, ddb_cred_source *s, const ddb_cred_call *call,
                   ddb_error *err);

/* The milliseconds of wall-clock time at which credentials obtained at
 * obtained_ms that expire at expiration (seconds; 0 = never) should be
 * replaced: 5 minutes before they expire, or half their lifetime before if
 * that is shorter. INT64_MAX for credentials that do not expire. */
int64_t ddb_cred_refresh_at_ms(time_t expiration, int64_t obtained_ms);

/* Wall clock in milliseconds. */
int64_t ddb_cred_now_ms(void);

/* New credentials (copies), source taken over (freed on failure). token may
 * be NULL or "". Returns 0 or DDB_ENOMEM. */
int ddb_cred_make(ddb_aws_credentials **out, const char *id, const char *secret, const char *token,
                  time_t expiration, char *source, ddb_error *err);

/* Appends value percent-encoded but for A-Z a-z 0-9 - _ . ~ (a form field or
 * a query value, as AWS signs them). Returns 0 or DDB_ENOMEM. */
int ddb_cred_percent_encode(ddb_buf *b, const char *value);

/* "2024-05-27T10:00:00Z", with optional fraction, "+hh:mm"/"-hh:mm" offset
 * or "UTC" suffix. Returns 0 or -1. */
int ddb_cred_parse_time(time_t *out, const char *s);

/* Formats t as "2024-05-27T10:00:00Z" (at least 21 bytes). */
void ddb_cred_format_time(char *out, size_t cap, time_t t);

/* Replaces every occurrence in buf (NUL-terminated) of each of the count
 * secrets (NULL and short entries ignored) with "****", so a service's error
 * message can be quoted even if it echoes what was sent. */
void ddb_cred_redact(char *buf, const char *const *secrets, size_t count);

/* Reads a small text file (a token) into a malloc'd string with trailing
 * whitespace removed. Returns 0, DDB_EIO (message names the path and the
 * reason, never the content), DDB_ETOOBIG (over 64 KB) or DDB_ENOMEM.
 * Wipe the result with ddb_aws_free_secret. */
int ddb_cred_read_token_file(char **out, const char *path, const char *what, ddb_error *err);

/* Per-kind fetchers (cred_sts.c, cred_sso.c, cred_metadata.c, cred_process.c). */
int ddb_sts_assume_role(ddb_aws_credentials **out, const ddb_cred_source *s,
                        const ddb_aws_credentials *with, const ddb_cred_call *call, ddb_error *err);
int ddb_sts_assume_role_with_web_identity(ddb_aws_credentials **out, const ddb_cred_source *s,
                                          const ddb_cred_call *call, ddb_error *err);
int ddb_sso_fetch(ddb_aws_credentials **out, const ddb_cred_source *s, const ddb_cred_call *call,
                  ddb_error *err);
int ddb_container_fetch(ddb_aws_credentials **out, const ddb_cred_source *s,
                        const ddb_cred_call *call, ddb_error *err);
/* IMDS: DDB_ENOTFOUND when no instance metadata service answered, or it has
 * no role attached (the chain then goes on). */
int ddb_imds_fetch(ddb_aws_credentials **out, const ddb_cred_source *s, const ddb_cred_call *call,
                   ddb_error *err);
int ddb_process_fetch(ddb_aws_credentials **out, const ddb_cred_source *s, ddb_error *err);

#endif
