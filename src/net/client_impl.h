/*
 * client_impl.h (private header of net/) — the client's state, shared by the loop and its
 * retries (client.c) and what goes on the wire for each attempt
 * (client_request.c: DynamoDB's JSON calls and generic requests such as S3's).
 */
#ifndef DDBPIPE_CLIENT_IMPL_H
#define DDBPIPE_CLIENT_IMPL_H

#include <curl/curl.h>
#include <signal.h>
#include <stdint.h>

#include "ddbpipe/buf.h"
#include "ddbpipe/client.h"
#include "ddbpipe/sigv4.h"

/* How an attempt failed before a whole answer came (libcurl's result, in
 * the terms the retry rules and the unreachable notice need). */
typedef enum ddb_transfer_result {
    DDB_TRANSFER_OK = 0,  /* a whole response (any status) */
    DDB_TRANSFER_RESOLVE, /* the host name did not resolve */
    DDB_TRANSFER_CONNECT, /* no address accepted a connection */
    DDB_TRANSFER_TIMEOUT, /* connect or request time ran out */
    DDB_TRANSFER_FAILED,  /* dropped, reset, TLS or protocol failure */
} ddb_transfer_result;

/* A generic request's own parts (see ddb_http_call), owned by the call. */
typedef struct http_part {
    char method[8];
    char *url;
    char *host; /* host[:port] for the Host header */
    char *path; /* raw path as on the wire */
    char *query;
    char service[32];
    char *region;
    ddb_sigv4_header *headers; /* name and value strings owned */
    size_t n_headers;
    unsigned sign_flags;
    int ranged;
    uint64_t range_start, range_end;
    uint64_t kept; /* bytes of the range already received by earlier attempts */
    size_t max_body;
} http_part;

/* Which limit of what an answer may bring (client.h) it passed. */
enum { OVER_NONE, OVER_HEADERS, OVER_BODY };

/* An easy handle kept for reuse. One set up for DynamoDB's calls (ready)
 * keeps its options (the URL, callbacks, TLS, timeouts, the header list)
 * from one attempt to the next, which sets only its body and rewrites its
 * header lines in place: lines holds them, node[] points into it and is the
 * handle's CURLOPT_HTTPHEADER. lines holds the session token: wiped before
 * it is freed or replaced. Any other request resets the handle first. */
#define DDB_EASY_LINES (4 + DDB_SIGV4_MAX_ADDED)
typedef struct easy_slot {
    CURL *easy;
    int ready; /* set up for DynamoDB's calls */
    struct curl_slist node[DDB_EASY_LINES];
    char *lines;
    size_t cap;
} easy_slot;

typedef struct call {
    struct call *next;
    char op[64]; /* DynamoDB operation, or "S3 GET" style label for logs */
    char *body;
    size_t len;
    http_part *http; /* NULL: a DynamoDB call */
    ddb_call_done_fn done;
    void *ctx;
    int attempts;
    uint64_t throttles;
    uint64_t wake_ms;
    uint64_t cred_gen;     /* generation of the credentials the attempt was signed with */
    int cred_retries;      /* sent again because of its credentials */
    uint64_t cred_hold_ms; /* waiting for a refresh since (0: not waiting) */
    /* per attempt */
    easy_slot *slot;
    struct curl_slist *headers; /* a generic request's (DynamoDB's are the slot's) */
    ddb_buf resp_body;
    ddb_buf resp_headers; /* the latest response's header lines */
    long status_seen;     /* status line of the response being received */
    char crc[16];
    char encoding[32];   /* the answer's Content-Encoding ("" when none) */
    size_t wire_len;     /* its body's bytes as they came, before any decoding */
    size_t header_bytes; /* the attempt's header lines, 1xx answers' included */
    int over;            /* the answer passed a limit: OVER_HEADERS, OVER_BODY */
    char errtype[128];
    char curl_err[CURL_ERROR_SIZE];
    ddb_response resp;
} call;

struct ddb_client {
    CURLM *multi;
    int epfd;              /* the sockets curl watches (client_loop.c) */
    uint64_t timer_at_ms;  /* when curl wants its timeouts run; UINT64_MAX: never */
    char *url;
    char *host; /* host[:port] as sent in Host */
    char *region;
    char *user_agent;
    char *ca_bundle; /* NULL: the system's CAs */
    const ddb_aws_credentials *creds;
    struct ddb_credprov *prov;
    int concurrency;     /* current limit of requests in flight (adaptive) */
    int max_concurrency; /* what the user asked for */
    int adaptive;
    int successes; /* since the last change */
    uint64_t last_decrease_ms;
    int max_attempts;
    uint32_t base_ms, cap_ms;
    long connect_timeout_ms, request_timeout_ms;
    int verbose; /* and log != NULL: every attempt's outcome is logged */
    ddb_log_fn log;
    void *log_ctx;
    int ask_gzip;             /* DynamoDB's calls ask for gzip answers */
    ddb_sigv4_signer *signer; /* signs the requests of the simple shape (DynamoDB's) */
    void (*notice)(void *ctx, const char *msg);
    void *notice_ctx;
    int told_unreachable; /* the notice was given */
    int settling;         /* ddb_client_settle: answers only, no new attempts */
    uint64_t rng;
    call *ready_head, *ready_tail;
    call *delayed; /* sorted by wake_ms */
    call *flying;  /* in flight (linked through next) */
    int in_flight;
    int queued;
    easy_slot **idle_ready; /* kept for reuse, set up for DynamoDB's calls */
    easy_slot **idle_other; /* kept for reuse, reset before their next use */
    int n_ready, n_other, cap_idle;
    int no_proxy; /* no proxy in the environment: libcurl need not look each time */
    volatile sig_atomic_t *stop;
    void (*on_idle)(void *ctx);
    void *idle_ctx;
    uint64_t last_idle_ms;
    ddb_client_stats stats;
    ddb_buf spare_body[DDB_CLIENT_SPARE_BODIES]; /* ddb_client_reuse_body */
    int n_spare_body;
};

/* A spare body (ddb_client_reuse_body) for a DynamoDB answer, emptied, or an
 * empty ddb_buf when there is none. */
ddb_buf ddb_client_take_spare_body(ddb_client *c);

/* The event loop under the multi handle (client_loop.c). init: 0 or -1 (no
 * epoll set). run: hands curl the ready sockets and due timeouts, without
 * waiting; 0 or -1 when curl fails. wait: sleeps until a socket is ready, curl's
 * timer is due or timeout_ms passed. timeout: ms until curl's timer (-1: none). */
int ddb_client_loop_init(ddb_client *c);
void ddb_client_loop_dispose(ddb_client *c);
int ddb_client_loop_run(ddb_client *c);
void ddb_client_loop_wait(ddb_client *c, int timeout_ms);
long ddb_client_loop_timeout(const ddb_client *c);
/* Hands every attempt curl has finished to ddb_client_completed. */
void ddb_client_loop_drain(ddb_client *c);

/* Signs and starts one attempt of cl (client_request.c). */
void ddb_client_start_attempt(ddb_client *c, call *cl);

/* The loop's pieces the attempt builder uses (client.c). */
/* Kept easy handles (client_easy.c). get: a handle for one attempt: for a
 * DynamoDB call (dynamodb) one set up for it when there is one, else one
 * reset (ready 0, for the caller to set up); NULL when out of memory. put: back for
 * reuse (out of the multi handle). free: NULL-safe, its lines wiped. */
easy_slot *ddb_client_get_slot(ddb_client *c, int dynamodb);
void ddb_client_put_slot(ddb_client *c, easy_slot *s);
void ddb_client_slot_free(easy_slot *s);
/* Writes n header lines ("name: value", names[i] and values[i]; a NULL
 * value gives "name:", which keeps libcurl from sending its own) into s's
 * kept lines, its list ending after them. Returns 0 or -1 (out of memory). */
int ddb_client_slot_lines(easy_slot *s, const char *const *names, const char *const *values,
                          size_t n);
void ddb_client_attempt_failed(ddb_client *c, call *cl, int retryable);
int ddb_client_hold_for_credentials(ddb_client *c, call *cl);
void ddb_client_enqueue_ready(ddb_client *c, call *cl);

/* What became of a finished attempt: a response with status, or a failure
 * (how, and message) before one came: the call answered, retried or failed
 * (client.c, for the loop's turns in client_loop.c). */
void ddb_client_completed(ddb_client *c, call *cl, long status, ddb_transfer_result failure,
                          const char *message);

/* A DynamoDB answer's body checked before it is read (client_body.c): its
 * x-amz-crc32 (of a 200's), and, with Content-Encoding gzip, decoded in its
 * place (cl->wire_len is what came; stats count it). Returns 0 when the body
 * can be read: a 200's, or an error answer's (whose body, when it could not
 * be decoded, is emptied, and why is in undecoded, cap bytes); -1 when a 200
 * must be sent for again (cl->resp.error_type and message say why), or,
 * when it decodes past the limit (cl->over), fails. */
int ddb_client_body_ready(ddb_client *c, call *cl, long status, char *undecoded, size_t cap);

/* A DynamoDB answer sent with Content-Encoding (cl->encoding): its body,
 * gzip as it came (and as x-amz-crc32 covers it), replaced by what it
 * decodes to (client_body.c), into a spare body of c's when there is one;
 * the gzip bytes' memory becomes one. Returns 0, or -1 with the reason in
 * cl->resp.message: an encoding other than gzip, gzip cut short or corrupt
 * (its own CRC), or more than DDB_CLIENT_MAX_BODY bytes (cl->over set). */
int ddb_client_decode_body(ddb_client *c, call *cl);

/* The most body bytes cl's answer may bring (see DDB_CLIENT_MAX_BODY). */
size_t ddb_client_max_body(const call *cl);

/* The message of an answer that passed a limit (cl->over), into cl->resp. */
void ddb_client_over_limit(call *cl);

/* Frees a call's own memory (not its easy handle). */
void ddb_client_call_free(call *cl);

#endif
