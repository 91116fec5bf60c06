/*
 * live.h — the live part of `migrate --live`: the source table's DynamoDB
 * Stream replayed into the target through the mappings, then followed.
 *
 *   ddb_live_prepare   before the snapshot: the stream must be on and carry
 *                      what the mappings need; the position of every open
 *                      shard is taken (or loaded from the state file)
 *   (the snapshot: the ordinary migrate, a parallel Scan)
 *   ddb_live_run       every change since the position, re-keyed and
 *                      applied in order per key; then followed until told
 *                      to stop or idle
 *
 * Why the position is safe: it is taken before the snapshot starts, so
 * every change the snapshot may have missed comes after it. Changes the
 * snapshot already holds are applied again, which is harmless: each change
 * writes the whole item as the stream shows it (or deletes it), a key's
 * changes are applied in the stream's order (a shard's records in sequence,
 * a parent shard before its children), so the last write of a key is its
 * latest state.
 */
#ifndef DDBPIPE_LIVE_H
#define DDBPIPE_LIVE_H

#include <signal.h>
#include <stdint.h>

#include "ddbpipe/error.h"

#include "ddbpipe/client.h"
#include "ddbpipe/mapping.h"

typedef enum ddb_live_phase {
    DDB_LIVE_COPY = 0, /* the snapshot runs; the stream waits */
    DDB_LIVE_CATCH_UP, /* replaying what was written since the position */
    DDB_LIVE_FOLLOW    /* caught up: following new changes as they come */
} ddb_live_phase;

typedef struct ddb_live_stats {
    ddb_live_phase phase;
    uint64_t changes;   /* stream records applied (each settled: written, unmatched or refused) */
    uint64_t puts;      /* items written into the target */
    uint64_t deletes;   /* target items deleted (REMOVEs, and old keys of moved items) */
    uint64_t moved;     /* changes that moved an item to another key of the target */
    uint64_t fetched;   /* items read back with GetItem (streams without a new image) */
    uint64_t unmatched; /* changes whose item is of no entity (to the unmatched file) */
    uint64_t rejected;  /* changes that could not be written (to the rejects file) */
    double lag_s;       /* now minus the last applied record's ApproximateCreationDateTime
                           (-1: none applied yet) */
    double rate;        /* changes per second over the last report */
    double seconds;     /* since ddb_live_run started */
    /* where the changes set aside went (NDJSON lines, made at the first one): beside the
     * state file (STATE.live.unmatched.ndjson, STATE.live.rejects.ndjson), else in
     * ./ddbpipe-runs/<target>-<time>-live/; owned by the run; NULL: none went */
    const char *unmatched_file, *rejects_file;
    unsigned shards_open, shards_done;
} ddb_live_stats;

typedef struct ddb_live_opts {
    ddb_client *client;           /* borrowed; drives DynamoDB and Streams calls */
    ddb_client *target_client;    /* borrowed: the target's own identity; NULL: client */
    const char *streams_endpoint; /* ddb_streams_endpoint of the DynamoDB endpoint */
    const char *source_table;
    const char *target_table;
    const ddb_mapping *mapping;    /* borrowed: decodes the source's items */
    const ddb_mapping *to_mapping; /* borrowed: encodes the target's */
    const char *state_path;        /* the run's state file, or NULL; the stream position is kept in
                                      STATE.live beside it */
    int resume;                    /* go on from STATE.live */
    double stop_when_idle;         /* > 0: return once caught up and nothing came for this long */
    double max_wcu;                /* write capacity units per second at most (0: no limit) */
    double poll_s;                 /* the wait between polls of a quiet stream (0: 0.25) */
    volatile sig_atomic_t *stop;   /* set by a signal: save and return DDB_EINTR */
    /* Told about every round (about once a second at most): may be NULL. */
    void (*progress)(void *ctx, const ddb_live_stats *s);
    void *progress_ctx;
    void (*note)(void *ctx, const char *msg); /* things worth saying; may be NULL */
    void *note_ctx;
} ddb_live_opts;

typedef struct ddb_live ddb_live;

/*
 * Checks the source's stream and takes (or, with resume, loads) the
 * position the replay starts from, saving it under a state file before the
 * snapshot begins. *out owned by the caller (ddb_live_free). Returns 0;
 * DDB_EUSAGE when the stream is off (the message gives the update-table
 * command to turn it on), or when its view has no old image and the target
 * keys depend on attributes that are not the source's key (a move could not
 * delete the old target item); DDB_ENOTFOUND (no such table, or a saved
 * position the stream no longer holds); DDB_ENET; DDB_EINTR; DDB_ENOMEM.
 */
DDB_MUST_USE int ddb_live_prepare(ddb_live **out, const ddb_live_opts *o, ddb_error *err);

/*
 * Replays and follows the stream from the prepared position into the target
 * until *stop is set (returns DDB_EINTR, the position saved), the idle time
 * passes (0), or an error: DDB_ENOTFOUND when the stream lost the position
 * (trimmed, expired: the message says to start over), DDB_ENET, DDB_EIO (the
 * state, unmatched or rejects file), DDB_ENOMEM. *s gets the counts.
 */
DDB_MUST_USE int ddb_live_run(ddb_live *l, ddb_live_stats *s, ddb_error *err);

void ddb_live_free(ddb_live *l);

#endif
