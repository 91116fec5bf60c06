/*
 * client.h — DynamoDB over HTTP: the JSON 1.0 protocol, SigV4, many requests
 * in flight on reused keep-alive connections from one thread (libcurl multi),
 * and retries with exponential backoff and full jitter.
 *
 * The client is an event loop the caller drives: submit calls, then run the
 * loop until a condition holds. A Scan reader and a BatchWriteItem writer can
 * share one client, so a table-to-table migration interleaves both on the same
 * connections without threads.
 */
#ifndef DDBPIPE_CLIENT_H
#define DDBPIPE_CLIENT_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "ddbpipe/awsconfig.h"
#include "ddbpipe/buf.h"
#include "ddbpipe/error.h"
#include "ddbpipe/sigv4.h"

typedef struct ddb_client ddb_client;

typedef struct ddb_client_opts {
    const char *endpoint; /* https://dynamodb.<region>.amazonaws.com or a local URL */
    const char *region;
    const ddb_aws_credentials *credentials; /* borrowed; must outlive the client */
    struct ddb_credprov *provider;          /* borrowed; when set, requests are signed with its
                                               current credentials instead, and a request refused
                                               for its credentials goes again with newer ones */
    int concurrency;                        /* requests in flight (default 16) */
    int max_attempts;                       /* per request, incl. the first (default 10) */
    uint32_t backoff_base_ms;               /* default 50 */
    uint32_t backoff_cap_ms;                /* default 20000 */
    long connect_timeout_ms;                /* default 5000 */
    long request_timeout_ms;                /* whole request, default 60000 */
    const char *user_agent;                 /* default "ddbpipe/<version>" */
    uint64_t random_seed;                   /* 0 = from the clock; fixed in tests */
    int verbose;                            /* log every attempt's outcome (never credentials) */
    /* Where the log goes: one line of text a message, no newline, never a
     * credential. May be NULL: the client writes nothing anywhere. */
    ddb_log_fn log;
    void *log_ctx;
    /* Told once, at the first request that cannot reach the endpoint (refused,
     * no such host, no answer in time): a wrong endpoint otherwise retries
     * silently for half a minute. May be NULL. */
    void (*notice)(void *ctx, const char *msg);
    void *notice_ctx;
    int fixed_concurrency; /* do not adapt: by default throttling halves the
                              requests in flight (at most once a second) and
                              they grow back by one per window of successes */
    const char *ca_bundle; /* PEM file of the CAs to trust for https (AWS_CA_BUNDLE);
                              NULL: the system's */
    int no_gzip;           /* do not ask DynamoDB for gzip answers (by default
                              Accept-Encoding: gzip: a Scan page comes in about
                              a sixth of its bytes; the CRC is of those bytes) */
} ddb_client_opts;

/* What one answer may bring. A server that sends more (endless header lines,
 * an endless body) fails the call: error_type "ResponseTooLarge", a message
 * naming the limit, not retried (a server or proxy that sent that once will
 * again, and every try costs the limit in memory and time). Headers:
 * DynamoDB's are under 1 KiB, S3's under 8 KiB with user metadata (2 KiB at
 * most): 64 KiB in all, 1xx answers included. Bodies: the largest a
 * DynamoDB call of ours answers is a BatchWriteItem's UnprocessedItems (at
 * most its request: 16 MB) or a Scan page (1 MB of items, about 6 MB of
 * JSON at worst: one-byte names and numbers, escaped control characters);
 * an S3 listing page is 1000 keys of at most 1 KiB (6 KiB XML-escaped):
 * 32 MiB leaves twice the largest, as it comes and decoded from gzip. */
#define DDB_CLIENT_MAX_HEADERS (64u << 10)
#define DDB_CLIENT_MAX_BODY (32u << 20)

/* The outcome of one call, after any retries. */
typedef struct ddb_response {
    int ok;           /* HTTP 200 with a verified body */
    long http_status; /* 0 when no response arrived */
    char *body;       /* response body (NUL-terminated), owned by the client until the
                         callback returns; ddb_client_call hands it to the caller */
    size_t body_len;
    size_t body_cap; /* bytes malloc'd at body (for ddb_client_reuse_body) */
    char *headers; /* the final attempt's response header lines ("Name: value\r\n"...),
                      NUL-terminated; owned like body (ddb_response_header reads them) */
    size_t headers_len;
    char error_type[128]; /* "ProvisionedThroughputExceededException", "ValidationException" */
    char message[512];    /* the service's message, or the transport error */
    int attempts;         /* how many times it was sent */
    int retryable;        /* the last failure was retryable (so attempts ran out) */
    uint64_t throttles;   /* throttling answers seen across the attempts */
} ddb_response;

typedef void (*ddb_call_done_fn)(void *ctx, ddb_response *resp);

/* Statistics for progress and summaries. */
typedef struct ddb_client_stats {
    uint64_t requests; /* HTTP requests sent, retries included */
    uint64_t retries;
    uint64_t throttles;
    uint64_t errors; /* calls that failed for good */
    uint64_t bytes_sent;
    uint64_t bytes_received;
    int in_flight;
    int queued;
    int min_concurrency; /* the lowest in-flight limit throttling brought it to */
    uint64_t decreases;  /* times throttling halved the limit */
    uint64_t gzip_sent;  /* bytes of the answers that came gzipped, as they came */
    uint64_t gzip_json;  /* what those answers decoded to */
} ddb_client_stats;

/*
 * Creates a client. The endpoint must be http:// or https://; TLS peers are
 * always verified. *out owned by the caller (ddb_client_free). Returns 0,
 * DDB_EUSAGE (bad endpoint), DDB_ENOMEM, DDB_ENET (libcurl init).
 */
DDB_MUST_USE int ddb_client_new(ddb_client **out, const ddb_client_opts *opts, ddb_error *err);

/*
 * Queues a call of operation ("Scan", "BatchWriteItem", ...) with the JSON
 * body (copied). Throttling errors, HTTP 5xx, connection failures, timeouts
 * and CRC mismatches are retried with full-jitter backoff up to max_attempts;
 * other errors (e.g. ValidationException) are not. done is called exactly
 * once, from inside ddb_client_run, with the final response. Returns 0 or
 * DDB_ENOMEM.
 */
DDB_MUST_USE int ddb_client_submit(ddb_client *c, const char *operation, const char *body,
                                   size_t len, ddb_call_done_fn done, void *ctx, ddb_error *err);
/*
 * Gives back a body a callback took (resp->body, resp->body_cap) for a later
 * DynamoDB answer to be received into, rather than into memory the kernel
 * must fault in page by page (a Scan page is a megabyte). The client keeps
 * DDB_CLIENT_SPARE_BODIES of them, none over DDB_CLIENT_SPARE_BODY_MAX
 * bytes, and frees the rest. Accepts NULL.
 */
#define DDB_CLIENT_SPARE_BODIES 4
#define DDB_CLIENT_SPARE_BODY_MAX (4u << 20)
void ddb_client_reuse_body(ddb_client *c, char *body, size_t cap);

/* The same with a body of malloc's that the client takes, not copies: it is
 * the client's from the call on, and freed by it even when the call fails. */
DDB_MUST_USE int ddb_client_submit_owned(ddb_client *c, const char *operation, char *body,
                                         size_t len, ddb_call_done_fn done, void *ctx,
                                         ddb_error *err);

/*
 * Drives the loop until until(ctx) returns non-zero (checked after every
 * event), or until no call is queued or in flight when until is NULL.
 * Returns 0, or DDB_ENET for a libcurl failure of the loop itself, or
 * DDB_EINTR when ddb_client_interrupt was called.
 */
int ddb_client_run(ddb_client *c, int (*until)(void *ctx), void *ctx, ddb_error *err);

/* One turn of the loop without waiting: starts what may start, moves data,
 * completes what is done (callbacks run). Lets a producer overlap its own
 * work with the requests in flight. Returns 0 or DDB_ENET. */
int ddb_client_step(ddb_client *c, ddb_error *err);

/* Drives the loop, as ddb_client_run does (the idle hook included), until
 * fd is readable or at its end, or timeout_ms have passed (< 0: no limit):
 * what is in flight moves on while the caller waits for its input. Returns
 * 0 (readable), 1 (the time is up), DDB_EINTR (the stop flag is set) or
 * DDB_ENET. */
int ddb_client_wait_fd(ddb_client *c, int fd, int timeout_ms, ddb_error *err);

/* Calls queued, waiting out a backoff, or in flight. */
int ddb_client_pending(const ddb_client *c);

/*
 * An interrupted run: the requests already on the wire get their answers
 * (DynamoDB may have applied them; only the answer tells), their callbacks
 * run, and nothing new starts: calls waiting to start or to retry, and any
 * a callback submits, finish at once as not sent (error_type "Cancelled",
 * not retryable). Ignores the stop flag; a second signal is the caller's way
 * out. Returns 0 or DDB_ENET.
 */
int ddb_client_settle(ddb_client *c, ddb_error *err);

/* One call, synchronously: submit + run until done. On return *resp owns its
 * body (free with ddb_response_dispose). Returns 0 when a response was
 * obtained (check resp->ok), else a loop error. */
DDB_MUST_USE int ddb_client_call(ddb_client *c, const char *operation, const char *body, size_t len,
                                 ddb_response *resp, ddb_error *err);

void ddb_response_dispose(ddb_response *resp);

/*
 * A request of another AWS service (S3) through the same loop: the same
 * connections, credentials (refreshed and retried as for DynamoDB) and retry
 * rules (throttling such as SlowDown, HTTP 5xx, connection errors, timeouts,
 * with full-jitter backoff). S3 shares DynamoDB's loop rather than a second
 * HTTP stack so that reading objects and writing a table interleave on one
 * thread: whoever drives the loop moves both.
 */
typedef struct ddb_http_call {
    const char *method;  /* "GET", "HEAD", "PUT", "POST", "DELETE" */
    const char *url;     /* scheme://host[:port]/path[?query], path and query as on the wire */
    const char *service; /* signing name ("s3") */
    const char *region;  /* signing region; NULL: the client's */
    const ddb_sigv4_header *headers; /* more headers to send and sign (copied) */
    size_t n_headers;
    const void *body; /* copied; may be NULL */
    size_t body_len;
    unsigned sign_flags; /* DDB_SIGV4_*; S3: DDB_SIGV4_SIGN_BODY | DDB_SIGV4_PATH_ENCODED */
    /* Ranged GET of bytes [range_start, range_end]: when a connection drops
     * after part of the body arrived, the next attempt asks only for the rest
     * (Range: bytes=<next>-<end>) and keeps what arrived: nothing is read
     * twice or skipped. A response that is not 206 with exactly that
     * Content-Range fails the call. Pair it with If-Match (in headers) so a
     * changed object fails (412) instead of mixing two versions. */
    int ranged;
    uint64_t range_start, range_end;
    /* The most body bytes an answer may bring (0: a ranged GET's range, else
     * DDB_CLIENT_MAX_BODY); past it the call fails, not retried, with
     * error_type "ResponseTooLarge". */
    size_t max_body;
} ddb_http_call;

/* Queues a generic request (see ddb_http_call). done is called once from
 * ddb_client_run; resp->ok for any 2xx. A non-2xx answer's XML or JSON error
 * is parsed into error_type and message. Returns 0 or DDB_ENOMEM. */
DDB_MUST_USE int ddb_client_submit_http(ddb_client *c, const ddb_http_call *hc,
                                        ddb_call_done_fn done, void *ctx, ddb_error *err);

/* One generic request, synchronously (the response owns body and headers:
 * ddb_response_dispose). Returns 0 when a response was obtained. */
DDB_MUST_USE int ddb_client_call_http(ddb_client *c, const ddb_http_call *hc, ddb_response *resp,
                                      ddb_error *err);

/* Copies the value of response header name (case-insensitive, first
 * occurrence, trimmed) into out. Returns 1 when present, else 0 (out = ""). */
int ddb_response_header(const ddb_response *resp, const char *name, char *out, size_t cap);

int ddb_client_concurrency(const ddb_client *c);

/* "region R, endpoint URL" for messages about a table that cannot be found
 * or reached: the two things a user gets wrong at 3 a.m. Appended to out. */
void ddb_client_describe_target(const ddb_client *c, char *out, size_t cap);

/* ddb_client_run also returns DDB_EINTR once *flag is non-zero (a flag a
 * signal handler sets). */
void ddb_client_set_stop_flag(ddb_client *c, volatile sig_atomic_t *flag);

/* The calls still queued or in flight with this ctx finish without calling
 * back: their caller gave up waiting (a blocking call interrupted) and ctx
 * is about to go. */
void ddb_client_forget(ddb_client *c, void *ctx);

/* Called from inside ddb_client_run about ten times a second (progress
 * reports while a writer waits). */
void ddb_client_set_idle(ddb_client *c, void (*idle)(void *ctx), void *ctx);

void ddb_client_stats_get(const ddb_client *c, ddb_client_stats *out);

void ddb_client_free(ddb_client *c);

#endif
