/*
 * pipeline.h — readers -> transformer -> output, with the accounting that
 * makes every record read show up as written, rejected or unmatched.
 */
#ifndef DDBPIPE_PIPELINE_H
#define DDBPIPE_PIPELINE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "ddbpipe/buf.h"
#include "ddbpipe/mapping.h"
#include "ddbpipe/output.h"
#include "ddbpipe/reader.h"

typedef enum ddb_mode {
    DDB_MODE_EXPORT = 0, /* items -> per-entity records (decode) or items (no mapping) */
    DDB_MODE_CONVERT,    /* items -> decode with mapping -> encode with to_mapping -> items */
    DDB_MODE_ENCODE,     /* per-entity records -> items */
    DDB_MODE_VALIDATE,   /* everything but the writes; every problem reported */
    DDB_MODE_IMPORT      /* record files (with an entity) are encoded, items pass as they are */
} ddb_mode;

typedef struct ddb_entity_stats {
    const char *name;   /* entity name; "(none)" for records no entity was known for */
    uint64_t read;
    uint64_t written;   /* accepted by the output (deletes included) */
    uint64_t deleted;   /* of written: deletions */
    uint64_t rejected;
    uint64_t unmatched;
} ddb_entity_stats;

typedef struct ddb_summary {
    const char *command;
    ddb_entity_stats *entities; /* one per entity of the mapping, then "(none)" */
    size_t n_entities;
    ddb_entity_stats total;
    uint64_t changes[4];       /* incremental records by ddb_change_kind (inserts, modifies, removes) */
    uint64_t bytes_in;         /* raw bytes read from the inputs */
    uint64_t bytes_decoded;    /* the same after decompression: what was parsed */
    uint64_t bytes_out;        /* bytes written to the outputs */
    double seconds;
    uint64_t input_errors;     /* inputs that failed (unreadable, corrupt, checksum) */
    uint64_t warnings;
    int output_failed;         /* the output could not be written or committed */
    int interrupted;           /* stopped by a signal; a checkpoint was written if asked */
    int resumed;               /* continued from a checkpoint */
    uint64_t checkpoints;      /* state files written */
    int committed;             /* the outputs were committed */
    char **outputs;            /* committed files */
    size_t n_outputs;
    char *rejects_path;        /* NULL when nothing was rejected */
    char *unmatched_path;      /* NULL when no item was kept as unmatched */
} ddb_summary;

/* Severity of a reported problem. */
enum { DDB_REPORT_INFO = 0, DDB_REPORT_WARNING, DDB_REPORT_ERROR };
typedef void (*ddb_report_fn)(void *ctx, int severity, const char *msg);

typedef struct ddb_type_hint {
    const char *name;
    ddb_type type;
} ddb_type_hint;

typedef struct ddb_pipeline_opts {
    ddb_mode mode;
    const char *command;              /* for the summary ("export", ...) */
    const char *const *inputs;
    size_t n_inputs;
    ddb_reader *const *readers;       /* already open (e.g. a table scan), read after inputs;
                                         still owned by the caller */
    size_t n_readers;
    ddb_reader_opts reader;
    const ddb_mapping *mapping;       /* decode (export/convert/validate) or encode (encode) */
    const ddb_mapping *to_mapping;    /* convert: encode with this one */
    const ddb_type_hint *types;       /* --types for untyped inputs */
    size_t n_types;
    ddb_output *output;               /* NULL in validate mode */
    ddb_rejects *rejects;             /* NULL: rejects are only reported */
    ddb_rejects *unmatched;           /* items no entity matches ({"Item":..} lines, like
                                         the rejects file); NULL: only counted */
    int delete_all;                   /* --delete: every record is a deletion of its key */
    uint64_t report_limit;            /* problems passed to report (0 = all) */
    ddb_report_fn report;
    void *report_ctx;
    /* Checkpoints: with state_path, the committed position, counts and
     * outputs are saved every checkpoint_seconds and when the run ends, so
     * that resume (a state loaded from it) can continue where it stopped. */
    const char *state_path;
    const char *fingerprint;          /* JSON object describing the run (see checkpoint.h) */
    const struct ddb_state *resume;   /* continue from this state; NULL: from the start */
    double checkpoint_seconds;        /* default 10 */
    volatile sig_atomic_t *stop;      /* set by a signal handler: stop reading, checkpoint, end */
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
int ddb_pipeline_run(ddb_summary *summary, const ddb_pipeline_opts *opts, ddb_error *err);

void ddb_summary_dispose(ddb_summary *s);

/* The table people read at the end of a run (appended to out). */
void ddb_summary_format(ddb_buf *out, const ddb_summary *s);

/* The same as a JSON document (appended to out). */
void ddb_summary_json(ddb_buf *out, const ddb_summary *s, int exit_code);

#endif
