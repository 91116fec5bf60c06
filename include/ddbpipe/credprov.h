/*
 * credprov.h — the credentials a run signs with, kept fresh for runs of
 * hours.
 *
 * A provider holds the credentials the chain resolved at start-up
 * (awsconfig.h) and where they came from. Credentials that expire (assumed
 * roles, web identity, SSO, container, instance metadata, a credential_process
 * that gives an Expiration) are fetched again from the same source by a
 * background thread, well before they expire: 5 minutes before, or half their
 * lifetime before when that is shorter. Requests in flight never wait for it:
 * each request is signed with the credentials current when it starts, and a
 * refresh only swaps what the next requests get.
 *
 * Each set of credentials has a generation number. When DynamoDB refuses a
 * request because of its credentials (ExpiredTokenException,
 * UnrecognizedClientException; InvalidSignatureException when newer
 * credentials exist), the client reports the generation it signed with and
 * sends the request again with newer credentials, forcing a refresh first if
 * none are newer (ddb_credprov_rejected).
 *
 * Thread safety: every function may be called from any thread; the client
 * calls acquire/release/rejected from its loop while the refresher runs.
 * Secrets never reach the log callback or an error message.
 */
#ifndef DDBPIPE_CREDPROV_H
#define DDBPIPE_CREDPROV_H

#include <stdint.h>

#include "ddbpipe/awsconfig.h"
#include "ddbpipe/buf.h"
#include "ddbpipe/error.h"

typedef struct ddb_credprov ddb_credprov;


typedef enum ddb_cred_verdict {
    DDB_CRED_NOT_MINE = 0, /* not a credential problem, or nothing newer to try: fail as usual */
    DDB_CRED_RETRY,        /* newer credentials exist: send again now */
    DDB_CRED_WAIT          /* a refresh is under way: send again once it is done */
} ddb_cred_verdict;

typedef struct ddb_credprov_stats {
    uint64_t refreshes; /* successful fetches after the first */
    uint64_t failures;  /* failed refresh attempts */
    uint64_t forced;    /* refreshes forced by a refused request */
    uint64_t rejected;  /* requests reported refused for their credentials */
    uint64_t generation;
} ddb_credprov_stats;

/* Starts the refresher thread when the credentials expire (a no-op for
 * long-term keys). log may be NULL. Returns 0 or DDB_ERROR (thread creation
 * failed). */
int ddb_credprov_start(ddb_credprov *p, ddb_log_fn log, void *ctx, ddb_error *err);

/* The current credentials, held until ddb_credprov_release; *generation (may
 * be NULL) receives their generation. Never NULL. */
const ddb_aws_credentials *ddb_credprov_acquire(ddb_credprov *p, uint64_t *generation);
void ddb_credprov_release(ddb_credprov *p, const ddb_aws_credentials *c);

/* Do the credentials expire (and so get refreshed)? */
int ddb_credprov_expiring(ddb_credprov *p);

/* Is a refresh running or due at once (forced)? A request waiting for newer
 * credentials holds off while this is true. */
int ddb_credprov_refreshing(ddb_credprov *p);

/* A request signed with generation was refused with error_type. Decides
 * whether to send it again (see ddb_cred_verdict); may force a refresh. */
ddb_cred_verdict ddb_credprov_rejected(ddb_credprov *p, uint64_t generation,
                                       const char *error_type);

/* Fetches from the source now, in the calling thread (tests; the refresher
 * does this on its own). Returns 0 or the source's error. */
int ddb_credprov_refresh(ddb_credprov *p, ddb_error *err);

void ddb_credprov_stats_get(ddb_credprov *p, ddb_credprov_stats *out);

/* Appends a line safe for logs: ddb_aws_credentials_describe of the current
 * credentials, and when they expire, when the next refresh is due. Returns 0
 * or DDB_ENOMEM. */
int ddb_credprov_describe(ddb_buf *out, ddb_credprov *p);

/* Stops the refresher (an exchange in progress is abandoned) and frees
 * everything, wiping secrets. Credentials still acquired must have been
 * released. Accepts NULL. */
void ddb_credprov_free(ddb_credprov *p);

#endif
