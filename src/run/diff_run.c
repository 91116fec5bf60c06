/*
 * diff, as the command runs it: two run plans (run.h) in import mode, each
 * reading its side into the comparison's output (diff.c), then the
 * comparison into OUT/differences.ndjson. The command line fills the sides'
 * options and prints; the order of the steps and what stops them is here.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/diff.h"
#include "ddbpipe/fs.h"
#include "ddbpipe/run.h"
#include "ddbpipe/sink.h"
#include "run/run_internal.h"

/* One ddb_diff_run: what its steps share. */
typedef struct diff_job {
    const ddb_diff_run_options *o;
    ddb_diff_outcome *out;
    ddb_run_options ro[2]; /* the caller's, with the diff's own output and side files */
    ddb_run_plan *plan[2];
    ddb_client *client[2]; /* each side's (hooks.connect), when it needs one */
    const char *dir;    /* o->out_dir, or the run's own folder (out->out_dir) */
    char unmatched[2][4096];
    char *key_text; /* --key, cut into the names keys point to */
    const char *keys[2];
    size_t n_keys;
} diff_job;

/* Records where the run stopped; returns rc. */
static int stop_at(diff_job *j, ddb_diff_step step, int side, int rc)
{
    j->out->step = step;
    j->out->side = side;
    return rc;
}

/* A side's options: the caller's, read into the diff's output, with its own
 * rejects and unmatched files in the output folder (_rejects_a.ndjson...). */
static void side_options(diff_job *j, int s)
{
    ddb_run_options *ro = &j->ro[s];
    *ro = j->o->side[s];
    ro->scan_allowed = 1;
    ro->own_output = 1;
    ro->folder_unmatched = 1; /* an export's unmatched items are compared too */
    ro->to_mapping_path = NULL;
    /* Import mode passes items as they are (the diff output decodes them), so
     * nothing reaches the unmatched file; each side still has its own. */
    snprintf(j->out->rejects[s], sizeof(j->out->rejects[s]), "%s/_rejects_%c.ndjson", j->dir,
             s ? 'b' : 'a');
    snprintf(j->unmatched[s], sizeof(j->unmatched[s]), "%s/_unmatched_%c.ndjson", j->dir,
             s ? 'b' : 'a');
    ro->rejects_path = j->out->rejects[s];
    ro->unmatched_path = j->unmatched[s];
}

/* Plans both sides; then, when one reads a table, connects (hooks.connect)
 * and attaches the tables. */
static int plan_sides(diff_job *j, ddb_error *err)
{
    int rc;
    for (int s = 0; s < 2; s++) {
        side_options(j, s);
        if ((rc = ddb_run_plan_new(&j->plan[s], &j->ro[s], &j->out->field, err)) != 0)
            return stop_at(j, DDB_DIFF_PLAN, s, rc);
    }
    for (int s = 0; s < 2; s++)
        if (ddb_run_plan_needs_client(j->plan[s]) &&
            (rc = j->o->hooks.connect(j->o->hooks.ctx, s, &j->client[s])) != 0)
            return stop_at(j, DDB_DIFF_CONNECT, s, rc);
    for (int s = 0; s < 2; s++)
        if (j->client[s] != NULL &&
            (rc = ddb_run_plan_attach(j->plan[s], j->client[s], &j->out->field, err)) != 0)
            return stop_at(j, DDB_DIFF_ATTACH, s, rc);
    return 0;
}

/* The key attributes of items compared without a mapping: --key (its first
 * two names), else the key schema of a side that is a table. */
static int key_attrs(diff_job *j, ddb_error *err)
{
    if (j->o->key != NULL) {
        char *save = NULL, *tok;
        if ((j->key_text = strdup(j->o->key)) == NULL)
            return ddb_error_set(err, DDB_ENOMEM, "out of memory");
        for (tok = strtok_r(j->key_text, ",", &save); tok && j->n_keys < 2;
             tok = strtok_r(NULL, ",", &save))
            j->keys[j->n_keys++] = tok;
    }
    for (int s = 0; s < 2 && j->o->key == NULL && j->n_keys == 0; s++) {
        const ddb_table_info *t = ddb_run_plan_scanned_table(j->plan[s]);
        if (t == NULL)
            continue;
        j->keys[j->n_keys++] = t->pk.name;
        if (t->sk.name)
            j->keys[j->n_keys++] = t->sk.name;
    }
    if (j->n_keys == 0)
        return ddb_error_set(err, DDB_EUSAGE,
                             "without a mapping or a table, diff needs --key: the key attributes");
    return 0;
}

/* The output folder, the comparison, and the two outputs the plans read into. */
static int make_diff(diff_job *j, ddb_error *err)
{
    ddb_diff_opts dopts = j->o->diff;
    int rc;
    dopts.work_dir = j->dir;
    dopts.key_attrs = j->keys;
    dopts.n_key_attrs = j->n_keys;
    if ((rc = ddb_make_dirs(j->dir, err)) != 0)
        return rc;
    if ((rc = ddb_diff_new(&j->out->diff, ddb_run_plan_mapping(j->plan[0]),
                           ddb_run_plan_mapping(j->plan[1]), &dopts, err)) != 0)
        return rc;
    for (int s = 0; s < 2; s++) {
        ddb_output *side;
        if ((rc = ddb_diff_side(j->out->diff, s, &side, err)) != 0)
            return rc;
        ddb_run_plan_set_output(j->plan[s], side);
    }
    return 0;
}

/* Reads side s into the comparison, between hooks.reading and hooks.read. A
 * side read to its end is compared even with rejects; one that stopped (past
 * its rejects limit, interrupted, failed) would compare half a side. */
static int read_side(diff_job *j, int s, ddb_error *err)
{
    const ddb_diff_hooks *h = &j->o->hooks;
    int rc, stop;
    if ((rc = ddb_run_plan_open(j->plan[s], &j->out->field, err)) != 0)
        return stop_at(j, DDB_DIFF_OPEN, s, rc);
    if (h->reading)
        h->reading(h->ctx, s, j->plan[s], j->client[s]);
    rc = j->out->side_rc[s] = ddb_run_plan_execute(j->plan[s], &j->out->s[s], err);
    stop = h->read ? h->read(h->ctx, s, j->plan[s], rc, &j->out->s[s], err) : 0;
    if (rc != 0 || stop != 0)
        return stop_at(j, DDB_DIFF_READ, s, rc != 0 ? rc : stop);
    return 0;
}

/* The comparison, into OUT/differences.ndjson. */
static int compare(diff_job *j, ddb_error *err)
{
    ddb_sink *sink = NULL;
    int rc;
    snprintf(j->out->differences, sizeof(j->out->differences), "%s/differences.ndjson",
             j->dir);
    if ((rc = ddb_sink_open_file(&sink, j->out->differences, 1, err)) == 0 &&
        (rc = ddb_diff_compare(j->out->diff, sink, err)) == 0)
        rc = ddb_sink_finish(sink, err);
    ddb_sink_free(sink);
    return rc;
}

int ddb_diff_run(ddb_diff_outcome *out, const ddb_diff_run_options *o, ddb_error *err)
{
    diff_job j;
    int rc;

    assert(out != NULL && o != NULL && o->hooks.connect != NULL);
    memset(out, 0, sizeof(*out));
    memset(&j, 0, sizeof(j));
    j.o = o;
    j.out = out;
    if (o->out_dir == NULL) {
        /* where other runs without an output folder keep their files, never
         * the current folder (which held someone's differences.ndjson) */
        char *own = ddb_run_folder_name("diff");
        if (own == NULL) {
            rc = stop_at(&j, DDB_DIFF_SETUP, 0, ddb_error_set(err, DDB_ENOMEM, "out of memory"));
            goto done;
        }
        snprintf(out->out_dir, sizeof(out->out_dir), "%s", own);
        free(own);
    } else {
        snprintf(out->out_dir, sizeof(out->out_dir), "%s", o->out_dir);
    }
    j.dir = out->out_dir;
    if ((rc = plan_sides(&j, err)) != 0)
        goto done;
    if (j.ro[0].mapping_path == NULL && (rc = key_attrs(&j, err)) != 0) {
        stop_at(&j, DDB_DIFF_KEY, 0, rc);
        goto done;
    }
    if ((rc = make_diff(&j, err)) != 0) {
        stop_at(&j, DDB_DIFF_SETUP, 0, rc);
        goto done;
    }
    for (int s = 0; s < 2; s++)
        if ((rc = read_side(&j, s, err)) != 0)
            goto done;
    if ((rc = compare(&j, err)) != 0)
        stop_at(&j, DDB_DIFF_COMPARE, 0, rc);
    else
        out->step = DDB_DIFF_DONE;
done:
    /* The plans only borrow the outputs, which the diff owns (and keeps for its stats). */
    for (int s = 0; s < 2; s++)
        ddb_run_plan_free(j.plan[s]);
    free(j.key_text);
    return rc;
}

void ddb_diff_outcome_dispose(ddb_diff_outcome *out)
{
    if (out == NULL)
        return;
    ddb_diff_free(out->diff);
    for (int s = 0; s < 2; s++)
        ddb_summary_dispose(&out->s[s]);
    memset(out, 0, sizeof(*out));
}
