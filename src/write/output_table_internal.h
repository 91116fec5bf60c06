/*
 * output_table_internal.h (private header of write/) — the BatchWriteItem writer's state, shared by
 * output_table.c (batching, retries, the output) and output_table_keys.c
 * (key signatures, UnprocessedItems).
 */
#ifndef DDBPIPE_OUTPUT_TABLE_INTERNAL_H
#define DDBPIPE_OUTPUT_TABLE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "ddbpipe/buf.h"
#include "ddbpipe/client.h"
#include "ddbpipe/output_table.h"
#include "ddbpipe/rate.h"
#include "ddbpipe/rng.h"
#include "ddbpipe/shape.h"
#include "core/keyset.h"

typedef struct entry {
    struct entry *next;
    char *req; /* {"PutRequest":{"Item":..}} or {"DeleteRequest":{"Key":..}}; one item
                  a request: the PutItem/UpdateItem/DeleteItem body */
    size_t req_len;
    size_t item_off, item_len; /* the item/key JSON in req (after the body), for rejects */
    char *key;                 /* canonical key signature */
    size_t key_len;
    uint64_t key_hash; /* ddb_keyset_hash of it */
    int entity;
    int is_delete;
    int attempts;
    uint64_t wake_ms;
    const char *source; /* interned */
    uint64_t line, offset;
    uint64_t seq;         /* the record's number, for acks */
    double wcu;           /* estimated write units: 1 per started KB (1 for a delete) */
    unsigned block_class; /* its block's size in ENTRY_GRAIN steps, 0: not kept for reuse */
} entry;

/* Entry blocks are kept for reuse by size, in steps of ENTRY_GRAIN bytes up
 * to ENTRY_CLASSES steps: the same few sizes come and go by the thousand (a
 * batch's 25 at once), which glibc's per-size caches of seven do not hold. */
#define ENTRY_GRAIN 64
#define ENTRY_CLASSES 64

typedef struct entry_list {
    entry *head, *tail;
    size_t n;
} entry_list;

typedef struct batch {
    struct batch *prev, *next; /* the writer's list of batches in flight */
    struct table_output *to;
    entry **entries;
    size_t n;
    double taken; /* capacity units taken from the rate limiter */
} batch;

/* Writes held back to leave in a random order (output_table_shuffle.c). */
typedef struct tw_shuffle {
    entry **slots;
    size_t n, cap; /* cap 0: no shuffle, writes keep their order */
    size_t bytes;  /* of the requests held */
    ddb_rng rng;
} tw_shuffle;

typedef struct table_output {
    ddb_output base;
    ddb_write_mode mode;
    size_t batch_items; /* 25, or 1 for the single-item modes */
    ddb_client *client;
    char *table;
    const ddb_table_info *info;
    int max_attempts;
    uint32_t base_ms, cap_ms;
    uint64_t rng;
    ddb_buf scratch;
    ddb_shape_cache *shapes; /* of the items put: their names are checked once a shape */
    struct ddb_json_parser *resp_parser; /* the answers' (UnprocessedItems), made once */
    ddb_arena *resp_arena;
    ddb_buf keybuf;     /* the key signature of the item being put */
    tw_shuffle shuffle; /* ready, held back to be sent out of order */
    entry_list pending; /* ready to send */
    entry_list retry;   /* waiting out a backoff (sorted by wake_ms) */
    entry_list blocked; /* their key is busy */
    ddb_keyset busy;
    size_t queued; /* entries not yet accepted or refused */
    size_t max_queued;
    int batches_in_flight;
    batch *flying; /* freed here if the run stops with batches in flight */
    int force;     /* send partial batches: the producer waits, or the input ended */
    int fatal;     /* a non-retryable error of the table itself */
    int stopping;  /* interrupted: answers are taken, nothing more is sent */
    size_t items_in_flight;
    size_t since_step; /* puts since the client loop last ran */
    char fatal_msg[512];
    entry *spare[ENTRY_CLASSES + 1]; /* blocks kept for reuse, by block_class */
    size_t n_spare;                  /* at most max_queued */
    char **sources;                  /* interned source names */
    size_t n_sources, cap_sources;
    ddb_rate rate;         /* --max-wcu, adaptive */
    uint32_t rate_wait_ms; /* set when the limiter held a batch back */
    ddb_table_write_stats stats;
} table_output;

/* ---- entries (output_table_entry.c): the lists they wait in, and what
 * becomes of each; the key set keeps a key busy until its entry is done. */

void tw_list_push(entry_list *l, entry *e);
/* The first entry of l, taken off it, or NULL. */
entry *tw_list_pop(entry_list *l);
/* An entry holding copies of the key signature kb and the request rb, in one
 * block, a kept one when to has one of its size (given back with
 * tw_entry_free). NULL on OOM. */
entry *tw_entry_new(table_output *to, const ddb_buf *kb, uint64_t key_hash, const ddb_buf *rb);
/* The same, the request given as n pieces put together. */
entry *tw_entry_new_parts(table_output *to, const ddb_buf *kb, uint64_t key_hash,
                          const char *const *parts, const size_t *lens, int n);
/* Gives e's block back: kept for reuse (up to max_queued), or freed. Accepts NULL. */
void tw_entry_free(table_output *to, entry *e);
/* Frees the blocks kept for reuse. */
void tw_entry_spares_free(table_output *to);
/* A source name kept once for all entries ("-" for NULL or on OOM). */
const char *tw_intern(table_output *to, const char *s);
/* e is done (accepted, refused or abandoned): its key is no longer busy and a
 * blocked write of that key goes to pending; e is freed. */
void tw_entry_done(table_output *to, entry *e);
/* DynamoDB accepted e: counted written, acknowledged, done. */
void tw_acked(table_output *to, entry *e);
/* e is finally refused for reason: a late reject, done. */
void tw_refused(table_output *to, entry *e, const char *reason);
/* Out of memory where e cannot wait: refused, and the writer fails (what). */
void tw_refused_fatal(table_output *to, entry *e, const char *what);
/* The run stops: e is neither written nor refused (not done). */
void tw_abandoned(table_output *to, entry *e);
/* e goes back for another attempt after a backoff, or is refused once it
 * has had its attempts (why says what went wrong last). */
void tw_requeue(table_output *to, entry *e, const char *why);

/* ---- the shuffle window (output_table_shuffle.c) */

/* A window of window entries (0: none), its order drawn from seed. Returns 0
 * or DDB_ENOMEM. */
int tw_shuffle_init(table_output *to, size_t window, uint64_t seed);
/* e (its key not busy before) joins the window; when the window is full, a
 * random entry of it goes to the pending list. Without a window e goes
 * there at once. */
void tw_shuffle_add(table_output *to, entry *e);
/* Everything in the window goes to the pending list, in a random order. */
void tw_shuffle_drain(table_output *to);
/* Frees the window and the entries still in it (never acknowledged). */
void tw_shuffle_free(table_output *to);

/* Writes to out (cleared first) the canonical signature of item's key under
 * ks. Returns 0, DDB_EINVAL when a key attribute is missing or a number key
 * does not parse, or DDB_ENOMEM. */
int ddb_table_output_key_signature(ddb_buf *out, const ddb_key_schema *ks, const ddb_map *item);

/* Reads a successful BatchWriteItem response of batch b: adds its consumed
 * capacity to *capacity and sets flags[i] = 1 for each entry of b that came
 * back in UnprocessedItems (flags has b->n zeroed bytes). Returns 0, or -1
 * when the answer cannot be matched to the batch (then everything is sent
 * again: puts are idempotent). */
int ddb_table_output_find_unprocessed(table_output *to, batch *b, const ddb_response *resp,
                                      char *flags, double *capacity);

/* The body of the single-item request for rec (DDB_WRITE_IF_ABSENT and
 * DDB_WRITE_UPDATE: PutItem, UpdateItem; DeleteItem for a delete) into b,
 * followed by a '\0' and the item (or key) JSON at *item_off for rejects;
 * *body_len is the body's length. Returns 0, DDB_EINVAL (the item cannot be
 * written this way; err says why), DDB_ENOMEM. */
int ddb_table_output_single_request(ddb_buf *b, const table_output *to, const ddb_map *rec,
                                    int is_delete, size_t *body_len, size_t *item_off,
                                    size_t *item_len, ddb_error *err);

/* The operation a single-item entry is sent with. */
const char *ddb_table_output_single_op(const table_output *to, const entry *e);

/* CapacityUnits of a single-item response (0 when it does not say). */
double ddb_table_output_single_cu(const ddb_response *resp);

#endif
