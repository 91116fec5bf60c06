/*
 * checkpoint.h — exact progress for resumable runs.
 *
 * The tracker follows every record from the moment it is read until it is
 * settled (written, deleted, rejected or unmatched). Outputs may settle
 * records out of order (a table writer's batches complete in any order), but
 * the tracker commits them strictly in the order they were read: the
 * committed position and the committed counts always describe one prefix of
 * the input, so a resumed run reads exactly what was not committed and its
 * final summary equals that of an uninterrupted run.
 *
 * The state file holds that prefix: which input and position to resume at,
 * the counts so far, the outputs' lengths, and a fingerprint of the run
 * (inputs, mappings, options) that a resume must match.
 */
#ifndef DDBPIPE_CHECKPOINT_H
#define DDBPIPE_CHECKPOINT_H

#include <stddef.h>
#include <stdint.h>

#include "ddbpipe/buf.h"
#include "ddbpipe/error.h"
#include "ddbpipe/summary.h"
#include "ddbpipe/reader.h"

typedef enum ddb_outcome {
    DDB_OUTCOME_PENDING = 0,
    DDB_OUTCOME_WRITTEN,
    DDB_OUTCOME_DELETED,
    DDB_OUTCOME_REJECTED,
    DDB_OUTCOME_UNMATCHED,
    DDB_OUTCOME_EXISTING, /* written only if absent, and it was there: left as it was */
    DDB_OUTCOME_FILTERED, /* not asked for (--entities, --where, --sample): left out */
    DDB_OUTCOME_MARK,     /* the end of an input, not a record */
    DDB_OUTCOME_SKIPPED   /* left out before it was read (--skip-expired): counted nowhere,
                             settled so that what was read around it can commit */
} ddb_outcome;

/* The committed prefix: where to resume and what it counted. */
typedef struct ddb_checkpoint {
    int input;              /* resume with this input (inputs, then open readers) */
    uint64_t pos;           /* ... at this position (ddb_reader skip_to) */
    ddb_entity_stats *rows; /* per entity row, as in the summary */
    size_t n_rows;
    ddb_entity_stats total;
    uint64_t changes[4];
    uint64_t rejects; /* lines in the rejects file */
    uint64_t expired; /* items --skip-expired left out (DDB_OUTCOME_SKIPPED) */
    uint64_t removed_by_ttl; /* of changes[DDB_CHANGE_REMOVE]: by Time to Live */
} ddb_checkpoint;

typedef struct ddb_tracker ddb_tracker;

/* Called when a resumable unit commits, once per kind of line its records
 * carried: the rejects-file lines of its rejected records (kind
 * DDB_OUTCOME_REJECTED) and the unmatched-file lines of its unmatched items
 * (DDB_OUTCOME_UNMATCHED); count lines of len bytes. So neither file ever runs
 * ahead of the checkpoint. */
typedef void (*ddb_commit_fn)(void *ctx, ddb_outcome kind, const char *lines, size_t len,
                              uint64_t count);

/* rows: entity rows (entities + 1). Returns 0 or DDB_ENOMEM. */
DDB_MUST_USE int ddb_tracker_new(ddb_tracker **out, size_t rows, ddb_commit_fn on_commit,
                                 void *ctx);
void ddb_tracker_free(ddb_tracker *t);

/* Added to a tracked record's change kind: a removal by Time to Live. */
#define DDB_TRACK_BY_TTL 4

/* Starts a record read from input at pos, a change of kind change (its
 * ddb_change_kind, with DDB_TRACK_BY_TTL for a removal by Time to Live); a
 * reader with settled() (a scan) is told about each commit. Returns the
 * record's sequence number, or 0 when out of memory (sequence numbers start
 * at 1). */
uint64_t ddb_tracker_begin(ddb_tracker *t, int input, uint64_t pos, int change, ddb_reader *rd);

/* The record's outcome; row is its entity row. A rejected or unmatched
 * record may carry its line for the rejects or unmatched file, handed to
 * on_commit when the record commits: at once, without a copy, when nothing
 * read before it is pending; otherwise copied. Returns 0 or DDB_ENOMEM. */
int ddb_tracker_settle(ddb_tracker *t, uint64_t seq, int row, ddb_outcome outcome, const char *line,
                       size_t len);

/* The input has been read to its end. Returns 0 or DDB_ENOMEM. */
int ddb_tracker_end_input(ddb_tracker *t, int input);

/* Records read and not yet settled. */
uint64_t ddb_tracker_pending(const ddb_tracker *t);

/* Part of a unit (a Scan page) is settled but not the whole of it: outputs
 * that write as they go hold records the committed prefix does not. */
int ddb_tracker_mid_unit(const ddb_tracker *t);

/* The committed prefix (valid until the next call on t). */
const ddb_checkpoint *ddb_tracker_committed(const ddb_tracker *t);

/* Starts the tracker from a saved prefix (a resumed run). */
int ddb_tracker_restore(ddb_tracker *t, const ddb_checkpoint *c);

/* ------------------------------------------------------------- state file */

typedef struct ddb_state {
    char *fingerprint; /* JSON object */
    ddb_checkpoint ck;
    char *reader_state; /* JSON from the resumed input's reader, or NULL */
    char *outputs;      /* JSON array from the output's checkpoint */
    uint64_t rejects_bytes;
    uint64_t unmatched_bytes; /* the unmatched file's committed length */
    int complete;             /* the run's records are all settled (a run through an AWS
                                 import may still have its import to follow: managed) */
    char *managed;            /* JSON object: the AWS export or import the run started (its
                                 ClientToken and ARN), so a resumed run never starts a second one;
                                 NULL when none. A state saved with no counts rows (n_rows 0) was
                                 saved before the records were read: it records only that. */
} ddb_state;

/* Writes the state atomically: a temporary file, fsync, rename, fsync of
 * the folder; a crash at any moment leaves the previous state or this one. */
DDB_MUST_USE int ddb_state_save(const char *path, const ddb_state *s, ddb_error *err);

/* Reads a state file. DDB_ENOTFOUND when it does not exist, DDB_EUSAGE when
 * it is not a ddbpipe state. *out owned by the caller (ddb_state_free). */
DDB_MUST_USE int ddb_state_load(ddb_state **out, const char *path, ddb_error *err);
void ddb_state_free(ddb_state *s);

/* Compares a saved fingerprint with this run's: 0 when they match, else
 * DDB_EUSAGE with a message naming what differs ("the inputs", "--format"...). */
int ddb_state_check_fingerprint(const char *saved, const char *now, ddb_error *err);

#endif
