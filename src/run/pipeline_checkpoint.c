/*
 * pipeline_checkpoint.c — the run's checkpoints and progress (pipeline_internal.h): when one is
 * due, where one may be taken, and what it saves, outputs first.
 */
#include <string.h>

#include "ddbpipe/checkpoint.h"
#include "ddbpipe/clock.h"
#include "run/pipeline_internal.h"

/* A checkpoint also comes after this much committed work (but at most once a
 * second), so a fast run killed between timed checkpoints redoes little. */
#define CHECKPOINT_RECORDS 1000

/* Keeps the counts of checkpoint c, just saved or resumed from (r->saved has
 * room for its rows, allocated with the run). */
void pl_keep_saved(run *r, const ddb_checkpoint *c)
{
    ddb_entity_stats *rows = r->saved.rows;
    size_t n = c->n_rows < r->saved.n_rows ? c->n_rows : r->saved.n_rows;
    if (rows == NULL)
        return;
    memcpy(rows, c->rows, n * sizeof(*rows));
    r->saved = *c;
    r->saved.rows = rows;
    r->saved.n_rows = n;
}

/* Saves the committed prefix (see checkpoint.h); complete at the very end. */
int pl_save_checkpoint(run *r, int complete, ddb_error *err)
{
    const ddb_pipeline_opts *o = r->o;
    const ddb_checkpoint *c = ddb_tracker_committed(r->tracker);
    ddb_state st;
    ddb_buf outputs = DDB_BUF_INIT, reader = DDB_BUF_INIT;
    int rc = 0;

    memset(&st, 0, sizeof(st));
    if (o->state_path == NULL)
        return 0;
    /* Outputs first: their durable length must cover every committed record. */
    if (o->output != NULL && (rc = o->output->vt->checkpoint(o->output, &outputs, err)) != 0)
        goto done;
    if (o->rejects != NULL &&
        (rc = ddb_rejects_checkpoint(o->rejects, &st.rejects_bytes, err)) != 0)
        goto done;
    if (o->unmatched != NULL &&
        (rc = ddb_rejects_checkpoint(o->unmatched, &st.unmatched_bytes, err)) != 0)
        goto done;
    if (r->reading != NULL && c->input == r->input && r->reading->vt->save_state != NULL &&
        (rc = r->reading->vt->save_state(r->reading, &reader)) != 0) {
        rc = ddb_error_set(err, rc, "cannot save the reader's position");
        goto done;
    }
    r->ck_records = c->total.read;
    st.fingerprint = (char *)o->fingerprint;
    st.managed = (char *)o->managed;
    st.ck = *c;
    st.reader_state = reader.ptr;
    st.outputs = outputs.ptr ? outputs.ptr : "[]";
    st.complete = complete;
    if ((rc = ddb_state_save(o->state_path, &st, err)) != 0)
        goto done;
    if (o->output != NULL && o->output->vt->saved != NULL)
        o->output->vt->saved(o->output);
    pl_keep_saved(r, c);
    r->s->checkpoints++;
    r->last_checkpoint = ddb_clock_seconds();
done:
    ddb_buf_dispose(&outputs);
    ddb_buf_dispose(&reader);
    return rc;
}

/* A checkpoint (or a stop) only where every record read is taken (none
 * decoded ahead), and, for outputs that write as they go, where the committed
 * prefix ends: not in the middle of a Scan page. */
int pl_at_boundary(const run *r)
{
    return r->ahead == 0 && (r->o->output == NULL || !r->o->output->writes_at_once ||
                             !ddb_tracker_mid_unit(r->tracker));
}

/* The live counts, at most ten times a second. */
void pl_report_progress(run *r, double now)
{
    if (r->o->progress != NULL && now - r->last_progress >= 0.1) {
        r->last_progress = now;
        r->o->progress(r->o->progress_ctx, r->s, r->reading);
    }
}

/* Every few hundred records: progress and, when due, a checkpoint. */
int pl_tick(run *r, ddb_error *err)
{
    double now = ddb_clock_seconds();
    pl_report_progress(r, now);
    if (r->o->state_path != NULL) {
        double since = now - r->last_checkpoint;
        uint64_t done = ddb_tracker_committed(r->tracker)->total.read - r->ck_records;
        if (since >= (r->o->checkpoint_seconds > 0 ? r->o->checkpoint_seconds : 10) ||
            (since >= 1.0 && done >= CHECKPOINT_RECORDS))
            r->checkpoint_due = 1;
    }
    if (r->checkpoint_due && pl_at_boundary(r)) {
        r->checkpoint_due = 0;
        return pl_save_checkpoint(r, 0, err);
    }
    return 0;
}
