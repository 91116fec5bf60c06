/*
 * live_internal.h (private header of run/) — the live migration's state,
 * shared by live.c (the stream: positions, rounds), live_state.c (the shards
 * known and the state file) and live_change.c (one record as writes to the
 * target).
 */
#ifndef DDBPIPE_RUN_LIVE_INTERNAL_H
#define DDBPIPE_RUN_LIVE_INTERNAL_H

#include <stdio.h>

#include "ddbpipe/buf.h"
#include "ddbpipe/live.h"
#include "ddbpipe/output.h"
#include "ddbpipe/streams.h"
#include "ddbpipe/table.h"

typedef struct live_shard {
    char *id;
    char *parent;  /* ParentShardId, or NULL */
    char *seq;     /* applied up to and including this record; NULL: from the shard's start */
    char *pending; /* the last record submitted this round, settled at the round's end */
    char *iter;    /* where the next GetRecords reads, or NULL: get one from seq */
    int done;      /* closed and applied to its end (or closed before the position) */
    int closing;   /* the last page had no next iterator: done once the round settles */
    int quiet;     /* the last page was empty: the shard is read up to now */
} live_shard;

typedef struct live {
    ddb_live_opts o;
    ddb_streams *streams;
    char *arn;
    char view[24];
    char *state_file;                    /* STATE.live, or NULL */
    char *unmatched_path, *rejects_path; /* where changes set aside go */
    live_shard *shards;
    size_t n_shards, cap_shards;
    ddb_table_info *target_info;
    ddb_output *out;
    ddb_arena *arena; /* the round's records, images and encoded items */
    ddb_buf scratch;
    ddb_buf reject_line; /* the writer's refusals, written from its callback */
    int reject_io;       /* one could not be written */
    FILE *unmatched, *rejects;
    ddb_live_stats stats;
    double started, last_describe, last_change_at, last_report;
    uint64_t changes_at_report;
    double created_last; /* ApproximateCreationDateTime of the last applied record */
    int caught_up;       /* the last round found every shard read up to now */
    int write_failed;    /* the writer refused an item: counted through its callback */
} live;

/* Applies one record to the target (live_change.c). Unmatched and refused
 * changes are set aside and counted; returns 0 or the error that ends the
 * run (DDB_ENET, DDB_EIO, DDB_ENOMEM). */
int live_apply_change(live *l, const ddb_stream_record *r, ddb_error *err);

/* For a stream view without old images: appends to why each target key
 * that depends on a field the source key does not hold, and returns how
 * many (0: a change can never move an item in the target). */
int live_check_view(const live *l, const char *view, ddb_buf *why);

/* Opens a side file for appending at its first line, making its folder.
 * Returns the file or NULL (errno says why). */
FILE *live_open_side(const char *path);

/* The shards (live_state.c). live_find_shard: the shard of that id (NULL:
 * none, or id NULL). live_add_shard: a shard the position does not know yet,
 * appended (NULL: out of memory). live_readable: may it be read (not done,
 * and its parent, when known, done). live_set_str: *dst replaced by a copy
 * of src (NULL too); 0 or DDB_ENOMEM, *dst unchanged then. */
live_shard *live_find_shard(live *l, const char *id);
live_shard *live_add_shard(live *l, const char *id, const char *parent);
int live_readable(live *l, const live_shard *s);
int live_set_str(char **dst, const char *src);

/* The position in l->state_file (live_state.c; none: nothing to do), written
 * whole or not at all. Returns 0, DDB_EIO or DDB_ENOMEM. */
int live_save_state(live *l, ddb_error *err);

/* Loads STATE.live, checked to be this migration's (its tables): the stream
 * ARN and the shards. Returns 0, DDB_ENOTFOUND (none), DDB_EUSAGE, DDB_ENOMEM. */
int live_load_state(live *l, ddb_error *err);

#endif
