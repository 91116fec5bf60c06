/*
 * pipeline.h — readers -> transformer -> output, with the accounting that
 * makes every record read show up as written, rejected, unmatched or not
 * done.
 *
 * The stages and what connects them (one thread):
 *
 *   ddb_pipeline_run
 *     for each input: ddb_reader_open (reader.h: a bidder picks the reader)
 *       ddb_reader_next ............ one ddb_record
 *       ddb_tracker_begin .......... the record gets its place in read order (checkpoint.h)
 *       ddb_transform_decode/encode  item <-> record (transform.h, under mapping.h)
 *       output->vt->put ............ files (output_file.h), a table (output_table.h),
 *                                    a dry run (output_null.h)
 *     output->vt->finish
 *
 *   What became of each record comes back from the output through two
 *   callbacks, ack and reject (output.h). A file output calls them inside put;
 *   the table writer calls them when DynamoDB answers, inside ddb_client_run,
 *   which runs from the writer's put and finish and also from a table scan's
 *   next (the scan and the writer share one client loop). So the callbacks
 *   only queue the completion; the pipeline drains the queue between records,
 *   counting each and settling it with the tracker, which commits records in
 *   read order and hands the rejects lines of committed records to the
 *   rejects file (rejects.h). Checkpoints (the committed prefix, the outputs'
 *   lengths, the reader's position) are saved between records too, at unit
 *   boundaries. Nothing reaches the rejects file, the counts or the report
 *   callback from inside a reader or an output.
 */
#ifndef DDBPIPE_PIPELINE_H
#define DDBPIPE_PIPELINE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "ddbpipe/error.h"

#include "ddbpipe/mapping.h"
#include "ddbpipe/output.h"
#include "ddbpipe/rejects.h"
#include "ddbpipe/reader.h"
#include "ddbpipe/summary.h"

typedef enum ddb_mode {
    DDB_MODE_EXPORT = 0, /* items -> per-entity records (decode) or items (no mapping) */
    DDB_MODE_CONVERT,    /* items -> decode with mapping -> encode with to_mapping -> items */
    DDB_MODE_ENCODE,     /* per-entity records -> items */
    DDB_MODE_VALIDATE,   /* everything but the writes; every problem reported */
    DDB_MODE_IMPORT      /* record files (with an entity) are encoded, items pass as they are */
} ddb_mode;

/* Severity of a reported problem. */
enum { DDB_REPORT_INFO = 0, DDB_REPORT_WARNING, DDB_REPORT_ERROR };
typedef void (*ddb_report_fn)(void *ctx, int severity, const char *msg);

typedef struct ddb_type_hint {
    const char *name;
    ddb_type type;
} ddb_type_hint;

typedef struct ddb_pipeline_opts {
    ddb_mode mode;
    const char *command; /* for the summary ("export", ...) */
    const char *const *inputs;
    size_t n_inputs;
    ddb_reader *const *readers; /* already open (e.g. a table scan), read after inputs;
                                   still owned by the caller */
    size_t n_readers;
    ddb_reader_opts reader;
    const ddb_mapping *mapping;    /* decode (export/convert/validate) or encode (encode) */
    const ddb_mapping *to_mapping; /* convert: encode with this one */
    const struct ddb_select *select; /* only these records (select.h); NULL: all */
    const ddb_type_hint *types;    /* --types for untyped inputs */
    size_t n_types;
    ddb_output *output;      /* NULL in validate mode */
    ddb_rejects *rejects;    /* NULL: rejects are only reported */
    ddb_rejects *unmatched;  /* items no entity matches ({"Item":..} lines, like the
                                rejects file); NULL: only counted */
    int delete_all;          /* --delete: every record is a deletion of its key */
    /* --skip-expired: items whose attribute ttl_attribute says they expired
     * before ttl_now (ddb_item_expired) are left out and counted
     * (summary.expired), not read; NULL: none is. */
    const char *ttl_attribute;
    uint64_t ttl_now;
    uint64_t report_limit;   /* problems passed to report (0 = all) */
    int allow_extra_columns; /* a CSV column no field of the entity has is stored as an
                                undeclared attribute, not an error */
    int limit_rejects;       /* stop reading once more than max_rejects records are rejected
                                (DDB_ELIMIT; the outputs are not committed) */
    uint64_t max_rejects;
    ddb_report_fn report;
    void *report_ctx;
    /* Checkpoints: with state_path, the committed position, counts and
     * outputs are saved every checkpoint_seconds and when the run ends, so
     * that resume (a state loaded from it) can continue where it stopped. */
    const char *state_path;
    const char *fingerprint;        /* JSON object describing the run (see checkpoint.h) */
    const struct ddb_state *resume; /* continue from this state; NULL: from the start */
    const char *managed;            /* kept in every checkpoint (ddb_state.managed) */
    double checkpoint_seconds;      /* default 10 */
    int threads;                 /* 1: everything on the calling thread; otherwise N threads
                                    (the calling one and N - 1 more) parse, decode and format
                                    items ahead (exports, conversions; same output) */
    volatile sig_atomic_t *stop; /* set by a signal handler: stop reading, checkpoint, end */
    /* The run's requests (may be NULL): while an input that is a pipe waits
     * for data, they are driven, so uploads and writes in flight go on. */
    struct ddb_client *client;
    /* Called about ten times a second with the live counts (and from the
     * table writer's waits, through the client's idle hook). */
    void (*progress)(void *ctx, const ddb_summary *live, const ddb_reader *reading);
    void *progress_ctx;
} ddb_pipeline_opts;

/*
 * Runs the pipeline over every input. A bad record is rejected (rejects file
 * + report) and the run goes on; an input that cannot be read or fails
 * verification is reported, counted in input_errors, and the run goes on with
 * the next input. The output is committed only when every input was read
 * completely and verified; the rejects file is committed in any case.
 * Returns 0 when the run completed (check the summary for rejects and input
 * errors), or a negative code for a failure that stopped it (out of memory,
 * an output that cannot be written: summary->output_failed). The summary is
 * filled in every case; release it with ddb_summary_dispose().
 */
DDB_MUST_USE int ddb_pipeline_run(ddb_summary *summary, const ddb_pipeline_opts *opts,
                                  ddb_error *err);

/*
 * The summary of a run whose records were all settled by an earlier process:
 * the counts of opts->resume (a complete state), per entity of opts->mapping,
 * with nothing read now. For a resumed run that has only its AWS import left
 * to follow. Returns 0, DDB_EUSAGE (the state counts other entities),
 * DDB_ENOMEM; release the summary with ddb_summary_dispose().
 */
DDB_MUST_USE int ddb_pipeline_summary_resumed(ddb_summary *summary, const ddb_pipeline_opts *opts,
                                              ddb_error *err);

#endif
