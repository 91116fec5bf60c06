/*
 * pipeline_internal.h (private header of run/) — the state of one pipeline run, shared by pipeline.c
 * (reading and transforming) and pipeline_settle.c (the accounting).
 */
#ifndef DDBPIPE_PIPELINE_INTERNAL_H
#define DDBPIPE_PIPELINE_INTERNAL_H

#include "ddbpipe/checkpoint.h"
#include "ddbpipe/pipeline.h"
#include "ddbpipe/rejects.h"
#include "ddbpipe/transform.h"

typedef struct run {
    const ddb_pipeline_opts *o;
    ddb_summary *s;
    ddb_arena *arena;        /* per-record scratch for decode/encode */
    ddb_shape_cache *shapes; /* this thread's item shapes, with what is known of them */
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
    uint64_t ahead;      /* records read and decoded ahead, not yet taken (pipeline_ahead.c) */
    uint64_t ck_records; /* records committed at the last checkpoint */
    /* The counts of the last checkpoint saved (rows owned; NULL without
     * --state, where a checkpoint is saved or resumed from before anything
     * is read): what a resumed run keeps, so what the summary reports when a
     * later checkpoint cannot be saved. */
    ddb_checkpoint saved;
    /* Outputs tell what became of records (acks, late rejects) from wherever
     * they are: a table writer from inside the client's loop, which may run in
     * a scan reader's next(). They only queue it here; drain() settles the
     * queue in the pipeline's own loop, between records. */
    struct completion *done;
    size_t n_done, cap_done;
    ddb_buf done_text; /* rejects lines and report messages of queued late rejects */
    uint64_t sampled;  /* records asked for and taken (--sample) */
    int sample_full;   /* --sample N taken: nothing more is read */
} run;

typedef struct completion {
    uint64_t seq;
    int entity_index;
    ddb_outcome outcome;
    size_t line_off, line_len; /* rejects line in done_text (late rejects) */
    size_t msg_off, msg_len;   /* its report message */
} completion;

/* What the pure part of taking an item found: validation, decode, the
 * round-trip check (export, validate) or the re-encoding (convert). Computed
 * on any thread; its memory (msg, d, item) lives in the arena it was
 * computed with. */
typedef struct pl_verdict {
    int computed;
    int invalid; /* the item breaks DynamoDB's rules or the key schema: msg */
    int oom;     /* the message could not be kept */
    int rc;      /* decode: 0, DDB_ENOMATCH, DDB_EINVAL, DDB_ENOMEM (msg) */
    int rc2;     /* round trip or re-encoding (msg) */
    ddb_decoded d;
    ddb_item item; /* convert: the re-keyed item */
    size_t size;   /* the item's size, once it passed */
    const char *msg;
    /* what is put, when it is: the record (export, projected) or item */
    int projected;
    ddb_map out;
    size_t declared;
    /* its bytes in the output, made ahead (pl_item_format): text_len bytes
     * at text_off of the batch's text, at text once that stopped growing */
    int formatted;
    size_t text_off, text_len;
    const char *text;
    size_t note_len; /* the output's note, right after the line (0: none) */
} pl_verdict;

/* How one reader's records are taken. */
typedef struct pl_read_ctx {
    const ddb_entity *fe; /* the entity its records are (record files), or NULL */
    int is_delete;
    int records_mode; /* per-entity records (encode; validate/import of record files) */
    int item_deletes; /* what a deletes file holds (Tag.deletes.json, or the deletes.json an
                         export writes without a mapping): keys to delete */
} pl_read_ctx;

/* The index of entity e in mapping m, -1 for none. */
static inline int pl_entity_index(const ddb_mapping *m, const ddb_entity *e)
{
    return e == NULL ? -1 : (int)(e - m->entities);
}

/* An item (export, convert, validate of items): its verdict computed ahead
 * (pre) or now, applied to the counts and the output. 0 or an error that
 * ends the run. */
int pl_process_item(run *r, ddb_record *rec, const pl_verdict *pre, ddb_error *err);
/* Fills v for rec with opts o, allocating in a. Touches nothing else, so any
 * thread may call it for records of its own. Returns 0 (failures are in v). */
int pl_item_compute(pl_verdict *v, const ddb_pipeline_opts *o, const ddb_record *rec,
                    ddb_shape_cache *shapes, ddb_arena *a);
/* Appends to text the bytes the output will write for rec, whose verdict v
 * is computed, when it is put and the output lets any thread format it
 * (ddb_output.format), using s and a. Touches nothing else. Returns 0 (when
 * nothing was made, the output formats it when it is put). */
int pl_item_format(pl_verdict *v, const ddb_pipeline_opts *o, const ddb_record *rec,
                   ddb_buf *text, struct ddb_format_scratch *s, ddb_arena *a);
/* What comes before each record is taken: completions drained, the rejects
 * limit, progress and due checkpoints (n counts the records). 0 or an error
 * that ends the input's reading. */
int pl_before_record(run *r, uint64_t n, ddb_error *err);
/* Takes one record read from rd (its verdict v computed ahead, or NULL):
 * numbered, counted, and written, rejected or kept as unmatched. 0 or an
 * error that ends the run. */
int pl_take_record(run *r, ddb_reader *rd, const pl_read_ctx *c, ddb_record *rec,
                   const pl_verdict *v, ddb_error *err);
/* A reader's error rc: reported and counted. Returns 1 when this input can go
 * on (DDB_EVERIFY), 0 when only the other inputs can, else the error. */
int pl_reader_failed(run *r, int rc, const ddb_error *rerr, ddb_error *err);
/* Progress and, when due and possible, a checkpoint. */
int pl_tick(run *r, ddb_error *err);

/* pipeline_checkpoint.c: keeps the counts of checkpoint c, just saved or resumed from. */
void pl_keep_saved(run *r, const ddb_checkpoint *c);
/* Saves the committed prefix (checkpoint.h), outputs first; complete at the very end. A no-op
 * without --state. Returns 0 or the failing step's code, err set. */
int pl_save_checkpoint(run *r, int complete, ddb_error *err);
/* Whether a checkpoint or a stop may come now: every record read taken, and not in the middle
 * of an output's unit (a Scan page). */
int pl_at_boundary(const run *r);
/* Calls the progress callback, at most ten times a second. */
void pl_report_progress(run *r, double now);
/* Reads rd with decoding on a second thread, taking records in read order
 * (pipeline_ahead.c). Returns as run_reader does, or 1 when no thread could
 * be started (nothing was read: read it on this thread). */
int pl_run_reader_ahead(run *r, ddb_reader *rd, const pl_read_ctx *c, ddb_error *err);

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
void pl_filtered(run *r, int entity_index, uint64_t seq);
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
