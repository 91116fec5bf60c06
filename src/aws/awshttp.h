/*
 * awshttp.h (private header of aws/) — one HTTP exchange at a time, synchronously, for the
 * credential providers (STS, the SSO portal, the container endpoint, EC2
 * instance metadata). They run at start-up and in the credential refresher's
 * thread, away from the DynamoDB client's event loop, so they cannot share
 * its curl multi handle; they share its retry policy instead: the same
 * full-jitter backoff (ddb_backoff_ms) and the same reading of which answers
 * are worth another attempt (throttling, the service's own failures, HTTP
 * 5xx, connection errors and timeouts).
 *
 * Bodies and header values may hold secrets (a session token, a bearer
 * token, credentials in a response): every buffer is wiped before it is
 * freed, and no response body is ever copied into an error message.
 */
#ifndef DDBPIPE_AWSHTTP_H
#define DDBPIPE_AWSHTTP_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "aws/cred_source.h"
#include "aws/curl_socket.h"
#include "ddbpipe/buf.h"
#include "ddbpipe/error.h"

/* Upper bound of a response body: credential answers are a few KB. */
#define DDB_HTTP_MAX_BODY (256u << 10)

typedef struct ddb_http_req {
    const char *method; /* "GET", "PUT", "POST" */
    const char *url;
    const char *const *headers; /* "Name: value" lines; NULL-terminated; may be NULL */
    const char *body;           /* may be NULL */
    size_t body_len;
    long connect_timeout_ms; /* 0: 5000 */
    long timeout_ms;         /* whole exchange; 0: 30000 */
    const char *user_agent;  /* NULL: "ddbpipe/<version>" */
    atomic_int *abort;       /* non-zero aborts the exchange and the backoff sleeps; set from
                                another thread (the provider's free), hence atomic */
    const char *ca_file;     /* a PEM file of the CAs to trust alone; NULL: the system's */
} ddb_http_req;

typedef struct ddb_http_resp {
    long status;          /* 0 when no response arrived */
    ddb_buf body;         /* NUL-terminated; wiped by ddb_http_resp_dispose */
    char error_type[128]; /* X-Amzn-ErrorType (up to its ':'), or what the caller parsed */
    char transport[256];  /* the transport error when status is 0 */
} ddb_http_resp;

/* The retry policy of ddb_http_send: attempts and backoff as the DynamoDB
 * client's; classify (optional) reads a service error code out of a non-2xx
 * body into resp->error_type before the retry decision. */
typedef struct ddb_http_policy {
    int max_attempts; /* incl. the first; 0: 10 as the client */
    uint32_t base_ms; /* 0: 50 */
    uint32_t cap_ms;  /* 0: 20000 */
    uint64_t *rng;    /* backoff jitter state; NULL: one from the clock */
    void (*classify)(ddb_http_resp *resp);
    /* Extra error codes worth a retry for this service (e.g. STS's
     * IDPCommunicationError), NULL-terminated; may be NULL. */
    const char *const *retry_codes;
} ddb_http_policy;

/* Header lines a request may carry, the NULL ending them included. */
#define DDB_HTTP_MAX_LINES 8

/* A credential server's request as ddb_http_send takes it (req, policy),
 * with the header lines it owns. */
typedef struct ddb_http_call {
    ddb_http_req req;
    ddb_http_policy policy;
    char *lines[DDB_HTTP_MAX_LINES]; /* req.headers, NULL-terminated; may hold secrets */
    int n_lines;
} ddb_http_call;

/* Sets c up for method to url (borrowed: it must outlive c) with net's
 * timeouts, CA file and attempts (a 0 leaves ddb_http_perform's and
 * ddb_http_send's defaults) and call's abort flag and backoff jitter (call
 * may be NULL), and no header lines yet. The caller sets what else its
 * service needs (a body, a classifier, other defaults) and disposes of c with
 * ddb_http_call_dispose. */
void ddb_http_call_init(ddb_http_call *c, const char *method, const char *url,
                        const ddb_cred_net *net, const ddb_cred_call *call);

/* Appends the header line "name: value". Returns 0, DDB_ENOMEM, or
 * DDB_ETOOBIG when DDB_HTTP_MAX_LINES - 1 are there already. */
int ddb_http_call_header(ddb_http_call *c, const char *name, const char *value, ddb_error *err);

/* Wipes and frees the header lines and zeroes c. Accepts one zeroed or
 * disposed of already. */
void ddb_http_call_dispose(ddb_http_call *c);

/*
 * One attempt. Returns 0 when a response arrived, whatever its status;
 * DDB_ENET when none did (resp->transport says why: refused, timed out...);
 * DDB_EINTR when aborted; DDB_ETOOBIG for a body over DDB_HTTP_MAX_BODY;
 * DDB_ENOMEM. resp is reset first; dispose it in every case.
 */
int ddb_http_perform(ddb_http_resp *resp, const ddb_http_req *req, ddb_error *err);

/*
 * Attempts until a 2xx, an answer not worth retrying, or the attempts run
 * out, sleeping the client's backoff between them. Returns 0 when the last
 * attempt got a response (check resp->status), or the last attempt's error.
 * *attempts (may be NULL) receives how many were made.
 */
int ddb_http_send(ddb_http_resp *resp, const ddb_http_req *req, const ddb_http_policy *policy,
                  int *attempts, ddb_error *err);

/* Is this response (or its absence) worth another attempt under policy? */
int ddb_http_retryable(const ddb_http_resp *resp, int rc, const ddb_http_policy *policy);

/* Wipes and frees the body. */
void ddb_http_resp_dispose(ddb_http_resp *resp);

/* Sleeps ms milliseconds, waking early when *abort becomes non-zero.
 * Returns DDB_EINTR when aborted, else 0. */
int ddb_http_sleep(uint32_t ms, atomic_int *abort);

#endif
