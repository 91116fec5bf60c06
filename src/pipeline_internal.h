/*
 * pipeline_internal.h — the state of one pipeline run, shared by pipeline.c
 * (reading and transforming) and pipeline_settle.c (the accounting).
 */
#ifndef DDBPIPE_PIPELINE_INTERNAL_H
#define DDBPIPE_PIPELINE_INTERNAL_H

#include "ddbpipe/checkpoint.h"
#include "ddbpipe/pipeline.h"
#include "ddbpipe/rejects.h"

typedef struct run {
    const ddb_pipeline_opts *o;
    ddb_summary *s;
    ddb_arena *arena; /* per-record scratch for decode/encode */
    uint64_t reported;
    ddb_buf msg;
    ddb_tracker *tracker; /* settles records in read order: exact checkpoints */
    ddb_reader *reading;  /* the input being read */
    int input;            /* its index: inputs first, then open readers */
    double last_checkpoint;
    double last_progress;
    int write_failed;    /* the rejects file could not be written */
    uint64_t skip_below; /* resuming: records of the current input below this are committed */
    int checkpoint_due;  /* waiting for a unit boundary to save it */
    uint64_t ck_records; /* records committed at the last checkpoint */
    /* Outputs tell what became of records (acks, late rejects) from wherever
     * they are: a table writer from inside the client's loop, which may run in
     * a scan reader's next(). They only queue it here; drain() settles the
     * queue in the pipeline's own loop, between records. */
    struct completion *done;
    size_t n_done, cap_done;
    ddb_buf done_text; /* rejects lines and report messages of queued late rejects */
} run;

typedef struct completion {
    uint64_t seq;
    int entity_index;
    ddb_outcome outcome;
    size_t line_off, line_len; /* rejects line in done_text (late rejects) */
    size_t msg_off, msg_len;   /* its report message */
} completion;

/* The stats row of an entity (the "(none)" row for -1 or unknown). */
ddb_entity_stats *pl_row(run *r, int entity_index);
int pl_row_index(run *r, int entity_index);
/* Hands a record's outcome to the tracker (and its rejects/unmatched line). */
void pl_settle(run *r, uint64_t seq, int entity_index, ddb_outcome outcome, const char *line,
               size_t len);
void pl_acknowledge(run *r, int entity_index, ddb_record_kind kind, uint64_t seq);
void pl_on_commit(void *ctx, ddb_outcome kind, const char *lines, size_t len, uint64_t count);
void pl_report(run *r, int severity, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
const char *pl_count_reject(run *r, int entity_index, const char *source, uint64_t line,
                            uint64_t offset, const char *reason);
int pl_reject(run *r, const ddb_record *rec, int entity_index, const char *reason, ddb_error *err);
void pl_count_read(run *r, int entity_index);
int pl_unmatched(run *r, const ddb_record *rec, const char *why, ddb_error *err);
/* Output callbacks: they only queue what happened (see run.done). */
void pl_on_exists(void *ctx, int entity_index, ddb_record_kind kind, uint64_t seq);
void pl_on_ack(void *ctx, int entity_index, ddb_record_kind kind, uint64_t seq);
void pl_on_late_reject(void *ctx, int entity_index, const ddb_reject_info *info);
/* Settles the queued completions, in the order the outputs told them. */
void pl_drain(run *r);
/* The numbers a run reports once it is over: every record read in one column. */
void pl_final_counts(run *r);
void pl_finish_side_file(run *r, ddb_rejects *file, char **path);
void pl_restore_counts(ddb_summary *s, const ddb_checkpoint *c);

#endif
