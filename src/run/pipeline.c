/*
 * The pipeline: one record at a time from each reader, through decode and/or
 * encode, to the output. Nothing is dropped silently: every record ends up
 * counted as written, rejected or unmatched under some entity row.
 */
#include "ddbpipe/pipeline.h"
#include "ddbpipe/transform.h"

#include <assert.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ddbpipe/checkpoint.h"
#include "ddbpipe/client.h"
#include "ddbpipe/source.h"
#include "ddbpipe/item.h"
#include "ddbpipe/json.h"
#include "ddbpipe/text.h"
#include "ddbpipe/clock.h"
#include "ddbpipe/select.h"
#include "run/pipeline_internal.h"

/* --types for untyped inputs: converts the named attributes in place. */
static int apply_types(run *r, ddb_map *item, ddb_error *err)
{
    for (size_t t = 0; t < r->o->n_types; t++) {
        const ddb_type_hint *h = &r->o->types[t];
        ptrdiff_t i = ddb_map_find(item, h->name, strlen(h->name));
        ddb_value v;
        if (i < 0)
            continue;
        if (ddb_value_convert(&v, &item->attrs[i].value, h->type, r->arena, err) != 0)
            return ddb_error_prefix(err, "attribute %s: ", h->name);
        item->attrs[i].value = v;
    }
    return 0;
}

/* A per-entity record (encode, validate of record files). */
static int process_record(run *r, ddb_record *rec, const ddb_entity *e, int is_delete,
                          ddb_error *err)
{
    const ddb_pipeline_opts *o = r->o;
    int idx = pl_entity_index(o->mapping, e), rc;
    ddb_record_kind kind = is_delete ? DDB_REC_DELETE : rec->kind;
    ddb_error perr;
    ddb_item item;

    pl_count_read(r, idx);
    ddb_error_clear(&perr);
    rc = kind == DDB_REC_DELETE
             ? ddb_transform_encode_key(&item, o->mapping, e, &rec->item, rec->typed, r->arena,
                                        &perr)
             : ddb_transform_encode(&item, o->mapping, e, &rec->item, rec->typed, r->arena, &perr);
    if (rc == DDB_ENOMEM)
        return ddb_error_set(err, rc, "%s", perr.message);
    if (rc != 0)
        return pl_reject(r, rec, idx, perr.message, err);
    if (o->output == NULL) {
        pl_acknowledge(r, idx, kind, rec->seq);
        return 0;
    }
    return o->output->vt->put(o->output, idx, kind, &item, 0, rec, err);
}

/* A record file's header against its entity's fields, once per input, so a
 * misspelt column is one clear error rather than a silent new attribute (or
 * an error per row). Returns 0 when the input can be read, 1 when it must not
 * be (reported and counted), or DDB_ENOMEM (err): an input that could not be
 * checked fails the run rather than be skipped or read unchecked. */
static int check_columns(run *r, const ddb_reader *rd, const ddb_entity *e, int deletes,
                         ddb_error *err)
{
    const char **names = calloc(e->n_fields ? e->n_fields : 1, sizeof(char *));
    ddb_buf unknown = DDB_BUF_INIT, missing = DDB_BUF_INIT, absent = DDB_BUF_INIT;
    int rc = 0;

    if (names == NULL)
        goto done;
    for (size_t i = 0; i < e->n_fields; i++)
        names[i] = e->fields[i].name;
    for (size_t c = 0; c < rd->n_columns; c++) {
        const char *col = rd->columns[c], *near;
        if (strcmp(col, DDB_EXTRA_FIELD) == 0 || ddb_entity_field_index(e, col, strlen(col)) >= 0)
            continue;
        ddb_buf_printf(&unknown, "%s'%s'", unknown.len ? ", " : "", col);
        if ((near = ddb_text_nearest(col, names, e->n_fields, 2)) != NULL)
            ddb_buf_printf(&unknown, " (did you mean '%s'?)", near);
    }
    for (size_t i = 0; i < e->n_fields; i++) {
        const ddb_field *f = &e->fields[i];
        size_t c;
        for (c = 0; c < rd->n_columns && strcmp(rd->columns[c], f->name) != 0; c++)
            ;
        if (c < rd->n_columns)
            continue;
        if (f->in_table_key || (f->required && !deletes))
            ddb_buf_printf(&missing, "%s%s", missing.len ? ", " : "", f->name);
        else if (!deletes)
            ddb_buf_printf(&absent, "%s%s", absent.len ? ", " : "", f->name);
    }
    /* a list cut short would misreport the header: nothing is said but this */
    if (unknown.oom || missing.oom || absent.oom)
        goto done;
    if (unknown.len && !r->o->allow_extra_columns) {
        pl_report(r, DDB_REPORT_ERROR,
                  "%s: column%s %s %s not a field of %s; not read (extra columns can be allowed, "
                  "then they are stored as undeclared attributes)",
                  rd->name, strchr(unknown.ptr, ',') ? "s" : "", unknown.ptr,
                  strchr(unknown.ptr, ',') ? "are" : "is", e->name);
        rc = 1;
    } else if (unknown.len) {
        pl_report(r, DDB_REPORT_WARNING, "%s: column%s %s stored as undeclared attribute%s of %s",
                  rd->name, strchr(unknown.ptr, ',') ? "s" : "", unknown.ptr,
                  strchr(unknown.ptr, ',') ? "s" : "", e->name);
    }
    if (missing.len) {
        pl_report(r, DDB_REPORT_ERROR, "%s: no column for %s, which %s needs; not read", rd->name,
                  missing.ptr, e->name);
        rc = 1;
    }
    if (absent.len && rc == 0)
        pl_report(r, DDB_REPORT_WARNING, "%s: no column for %s (its records will not have %s)",
                  rd->name, absent.ptr, strchr(absent.ptr, ',') ? "them" : "it");
    if (rc == 1)
        r->s->input_errors++;
done:
    if (names == NULL || unknown.oom || missing.oom || absent.oom)
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory checking the columns of %s", rd->name);
    ddb_buf_dispose(&unknown);
    ddb_buf_dispose(&missing);
    ddb_buf_dispose(&absent);
    free(names);
    return rc;
}

/* Which entity a reader's records are (encode; validate and import of record
 * files): the reader's hint, from --entity or its file name. */
static const ddb_entity *reader_entity(const ddb_pipeline_opts *o, const ddb_reader *rd)
{
    if (o->mapping == NULL || rd->entity_hint == NULL)
        return NULL;
    return ddb_mapping_entity(o->mapping, rd->entity_hint);
}

/*
 * <Entity>.json may hold records (export --format ddb-json) or items (encode,
 * convert): an item carries the table's partition key attribute, which a
 * record does not (unless a field has that very name, when both read alike).
 */
static int looks_like_item(const ddb_mapping *m, const ddb_entity *e, const ddb_map *item)
{
    const char *pk = m->table.pk.name;
    return ddb_entity_field_index(e, pk, strlen(pk)) < 0 && ddb_map_getz(item, pk) != NULL;
}

int pl_before_record(run *r, uint64_t n, ddb_error *err)
{
    const ddb_pipeline_opts *o = r->o;
    pl_drain(r);
    if (o->limit_rejects && r->s->total.rejected > o->max_rejects)
        return ddb_error_set(err, DDB_ELIMIT,
                             "stopped: %llu records were rejected, more than the %llu "
                             "allowed",
                             (unsigned long long)r->s->total.rejected,
                             (unsigned long long)o->max_rejects);
    if ((n & 255) == 0 || r->checkpoint_due)
        return pl_tick(r, err);
    return 0;
}

/* Is rec an item --skip-expired leaves out? Only puts: a delete of an
 * expired item is applied like any other. */
static int expired(const run *r, const pl_read_ctx *c, const ddb_record *rec)
{
    const ddb_pipeline_opts *o = r->o;
    return o->ttl_attribute != NULL && rec->kind == DDB_REC_PUT && !o->delete_all &&
           !c->item_deletes && ddb_item_expired(&rec->item, o->ttl_attribute, o->ttl_now);
}

int pl_take_record(run *r, ddb_reader *rd, const pl_read_ctx *c, ddb_record *rec,
                   const pl_verdict *v, ddb_error *err)
{
    const ddb_pipeline_opts *o = r->o;
    int rc, skip, fi = c->records_mode ? pl_entity_index(o->mapping, c->fe) : -1;
    ddb_error rerr;

    ddb_arena_reset(r->arena);
    skip = expired(r, c, rec);
    /* a record left out is tracked all the same: a reader that resumes by
     * units (a table's Scan pages) counts every record of a unit settled */
    if ((rec->seq = ddb_tracker_begin(
             r->tracker, r->input, rec->pos,
             skip ? DDB_CHANGE_NONE : (int)rec->change | (rec->by_ttl ? DDB_TRACK_BY_TTL : 0),
             rd->vt->settled ? rd : NULL)) == 0)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    if (skip) {
        r->s->expired++;
        pl_settle(r, rec->seq, -1, DDB_OUTCOME_SKIPPED, NULL, 0);
        return 0;
    }
    r->s->changes[rec->change & 3]++;
    r->s->ttl_removed += rec->by_ttl != 0;
    if ((o->delete_all || c->item_deletes) && rec->kind == DDB_REC_PUT)
        rec->kind = DDB_REC_DELETE;
    ddb_error_clear(&rerr);
    if (rec->kind == DDB_REC_BAD) {
        pl_count_read(r, fi);
        rc = pl_reject(r, rec, fi, rec->reason, err);
    } else if (v == NULL && !rec->typed && o->n_types && apply_types(r, &rec->item, &rerr) != 0) {
        pl_count_read(r, fi);
        rc = pl_reject(r, rec, fi, rerr.message, err);
    } else if (c->records_mode && !(rec->typed && o->mode != DDB_MODE_ENCODE &&
                                    looks_like_item(o->mapping, c->fe, &rec->item))) {
        rc = process_record(r, rec, c->fe, c->is_delete || o->delete_all, err);
    } else {
        rc = pl_process_item(r, rec, v, err);
    }
    if (rc != 0 && rc != DDB_EINTR)
        r->s->output_failed = 1;
    return rc;
}

int pl_reader_failed(run *r, int rc, const ddb_error *rerr, ddb_error *err)
{
    if (rc == DDB_EINTR) /* stopped while it waited for data: not the input's fault */
        return ddb_error_set(err, rc, "%s", rerr->message);
    r->s->input_errors++;
    pl_report(r, DDB_REPORT_ERROR, "%s", rerr->message);
    if (rc == DDB_EVERIFY)
        return 1; /* a file failed its checksum: the next one of this input can be read */
    if (rc == DDB_ENOMEM)
        return ddb_error_set(err, rc, "%s", rerr->message);
    return 0;
}

/* A CSV read as items (its file name is no entity of the mapping) without
 * the table's partition key among its columns is records of an entity the
 * run cannot tell: said once, with the entities, instead of "missing
 * partition key" on every row. Returns 1 (the input is not read) or 0. */
static int unknown_entity_file(run *r, const ddb_reader *rd)
{
    const ddb_mapping *m = r->o->mapping;
    ddb_buf names = DDB_BUF_INIT;
    /* no name at all (nor memory to keep one) is not a wrong name */
    if (m == NULL || rd->columns == NULL || rd->entity_hint == NULL || m->table.pk.name == NULL)
        return 0;
    for (size_t c = 0; c < rd->n_columns; c++)
        if (strcmp(rd->columns[c], m->table.pk.name) == 0)
            return 0;
    for (size_t i = 0; i < m->n_entities; i++)
        ddb_buf_printf(&names, "%s%s", i ? ", " : "", m->entities[i].name);
    r->s->input_errors++;
    pl_report(r, DDB_REPORT_ERROR,
              "%s: the file name picks the entity of a CSV's records, and \"%s\" is no entity "
              "of %s (%s); rename the file <Entity>.csv or give --entity NAME (a CSV of items "
              "would have the key column '%s')",
              rd->name, rd->entity_hint, m->path,
              names.oom || names.ptr == NULL ? "?" : names.ptr, m->table.pk.name);
    ddb_buf_dispose(&names);
    return 1;
}

/* Reads every record of rd through the transformer into the output. */
static int run_reader(run *r, ddb_reader *rd, ddb_error *err)
{
    const ddb_pipeline_opts *o = r->o;
    pl_read_ctx c;
    int rc;
    ddb_error rerr;

    c.fe = reader_entity(o, rd);
    c.is_delete = c.fe != NULL && rd->deletes;
    c.records_mode = o->mode == DDB_MODE_ENCODE ||
                     ((o->mode == DDB_MODE_VALIDATE || o->mode == DDB_MODE_IMPORT) && c.fe != NULL);
    /* What a deletes file holds, items or records, is keys to delete:
     * Tag.deletes.json, or deletes.json, where an export without a mapping
     * writes them (unless the mapping has an entity of that name). */
    c.item_deletes = rd->deletes || (c.fe == NULL && rd->entity_hint != NULL &&
                                     strcmp(rd->entity_hint, "deletes") == 0);
    if (c.records_mode && c.fe != NULL && rd->columns != NULL &&
        (rc = check_columns(r, rd, c.fe, c.is_delete || o->delete_all, err)) != 0)
        return rc == 1 ? 0 : rc; /* 1: not read, the other inputs are */
    if (o->mode == DDB_MODE_ENCODE && c.fe == NULL) {
        r->s->input_errors++;
        pl_report(r, DDB_REPORT_ERROR,
                  "%s: cannot tell which entity its records are: name the file <Entity>.csv (or "
                  ".ndjson, .json) after an entity of %s, or name its entity for the run",
                  rd->name, o->mapping->path);
        return 0;
    }
    if (c.fe == NULL && (o->mode == DDB_MODE_VALIDATE || o->mode == DDB_MODE_IMPORT) &&
        unknown_entity_file(r, rd))
        return 0;
    /* Parsing, validating and decoding are most of the work of an export or
     * a conversion (without a mapping, of all but the writing), and pure:
     * they can run ahead on a second thread. Not for readers that keep a
     * position of their own (a scan's pages): that state must be saved where
     * the committed records end, not where reading got to. */
    if (!c.records_mode && o->mode != DDB_MODE_IMPORT && o->threads != 1 &&
        rd->vt->settled == NULL && rd->vt->save_state == NULL &&
        (o->select == NULL || o->select->sample == 0)) {
        /* (not for --sample: reading ahead would read, and count, records
         * past the N-th that one thread never reads) */
        rc = pl_run_reader_ahead(r, rd, &c, err);
        if (rc != 1)
            return rc;
    }
    for (uint64_t n = 0;; n++) {
        ddb_record *rec;
        if ((rc = pl_before_record(r, n, err)) != 0)
            return rc;
        /* A stop waits for the end of the unit being read (a Scan page already
         * in memory) so the outputs end where the checkpoint does. */
        if (o->stop && *o->stop && pl_at_boundary(r))
            return ddb_error_set(err, DDB_EINTR, "interrupted");
        ddb_error_clear(&rerr);
        rc = ddb_reader_next(rd, &rec, &rerr);
        if (rc == DDB_ITEROVER)
            break;
        if (rc != 0) {
            if ((rc = pl_reader_failed(r, rc, &rerr, err)) == 1)
                continue;
            return rc; /* 0: this input cannot go on, the others can */
        }
        if (rec->pos < r->skip_below)
            continue; /* resuming: committed by the interrupted run */
        if ((rc = pl_take_record(r, rd, &c, rec, NULL, err)) != 0)
            return rc;
        if (r->sample_full)
            break; /* --sample: the rest is not read */
    }
    return 0;
}

static void count_bytes(run *r, const ddb_reader *rd)
{
    r->s->bytes_in += ddb_reader_raw_bytes(rd);
    r->s->bytes_decoded += ddb_reader_decoded_bytes(rd);
}

/* Reader warnings (e.g. a manifest checksum that no longer matches) are
 * reported and counted, never fatal. */
static void on_reader_warning(void *ctx, const char *msg)
{
    run *r = ctx;
    r->s->warnings++;
    pl_report(r, DDB_REPORT_WARNING, "%s", msg);
}

/* Positions rd where a resumed run continues, when it is the input the
 * checkpoint stopped in. */
static int resume_position(run *r, ddb_reader *rd, ddb_error *err)
{
    const ddb_state *st = r->o->resume;
    r->skip_below = 0;
    if (st == NULL || st->ck.input != r->input)
        return 0;
    if (rd->vt->load_state != NULL && st->reader_state != NULL)
        return rd->vt->load_state(rd, st->reader_state, strlen(st->reader_state), err);
    if (st->ck.pos == 0)
        return 0;
    if (rd->vt->skip_to != NULL)
        return rd->vt->skip_to(rd, st->ck.pos, err);
    r->skip_below = st->ck.pos;
    return 0;
}

/* Reads one input to its end and marks the end for the tracker. */
static int read_input(run *r, ddb_reader *rd, const char *path, ddb_error *err)
{
    int rc;
    r->reading = rd;
    if ((rc = resume_position(r, rd, err)) != 0)
        return rc;
    rc = run_reader(r, rd, err);
    pl_drain(r);
    count_bytes(r, rd);
    if (rc == 0 && ddb_tracker_end_input(r->tracker, r->input) != 0)
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
    return rc;
}

static int run_input(run *r, const char *path, ddb_error *err)
{
    ddb_reader_opts ropts = r->o->reader;
    ddb_reader *rd = NULL;
    ddb_error rerr;
    int rc;

    ddb_error_clear(&rerr);
    ropts.warn = on_reader_warning;
    ropts.warn_ctx = r;
    ropts.one_thread = r->o->threads == 1;
    if ((rc = ddb_reader_open(&rd, path, &ropts, &rerr)) != 0) {
        if (rc == DDB_EINTR) /* stopped while it waited for the input's first bytes */
            return ddb_error_set(err, rc, "%s", rerr.message);
        r->s->input_errors++;
        pl_report(r, DDB_REPORT_ERROR, "%s", rerr.message);
        return rc == DDB_ENOMEM ? ddb_error_set(err, rc, "%s", rerr.message) : 0;
    }
    rc = read_input(r, rd, path, err);
    r->reading = NULL;
    /* Progress hooks (also called from the client's idle callback) must not
     * keep a reader that is about to be freed. */
    if (r->o->progress != NULL)
        r->o->progress(r->o->progress_ctx, r->s, NULL);
    ddb_reader_free(rd);
    return rc;
}

/* The summary's rows, one per entity and "(none)"; a resumed run's counts. */
static int summary_rows(ddb_summary *s, const ddb_pipeline_opts *o, ddb_error *err)
{
    const ddb_mapping *m = o->mapping;
    s->command = o->command;
    s->ttl_attribute = o->ttl_attribute;
    s->n_entities = (m ? m->n_entities : 0) + 1;
    s->entities = calloc(s->n_entities, sizeof(*s->entities));
    if (s->entities == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    for (size_t i = 0; m && i < m->n_entities; i++)
        s->entities[i].name = m->entities[i].name;
    s->entities[s->n_entities - 1].name = "(none)";
    s->total.name = "total";
    if (o->resume == NULL)
        return 0;
    if (o->resume->ck.n_rows != s->n_entities)
        return ddb_error_set(err, DDB_EUSAGE,
                             "cannot resume: the checkpoint counts %zu entity rows, this run %zu",
                             o->resume->ck.n_rows, s->n_entities);
    pl_restore_counts(s, &o->resume->ck);
    s->resumed = 1;
    return 0;
}

int ddb_pipeline_summary_resumed(ddb_summary *s, const ddb_pipeline_opts *o, ddb_error *err)
{
    memset(s, 0, sizeof(*s));
    if (o->resume == NULL)
        return ddb_error_set(err, DDB_EUSAGE, "no state to take the counts from");
    return summary_rows(s, o, err);
}

/* An input with no data yet (a pipe whose writer pauses): the requests in
 * flight go on meanwhile (an S3 part half sent would time out), progress is
 * reported, and an interrupt is seen, not left blocked in read(). */
/* A wait for input this long is the producer's pause, not a gap in a burst:
 * the output then sends what it holds back (tw_idle). */
#define IDLE_MS 100

static int wait_input(void *ctx, int fd, ddb_error *err)
{
    run *r = ctx;
    ddb_output *out = r->o->output;
    if (r->o->client != NULL) {
        int rc;
        while ((rc = ddb_client_wait_fd(r->o->client, fd, IDLE_MS, err)) == 1) {
            /* the client sees its own stop flag; a caller may have given the
             * run another one */
            if (r->o->stop && *r->o->stop)
                return ddb_error_set(err, DDB_EINTR, "interrupted");
            pl_report_progress(r, ddb_clock_seconds());
            if (out != NULL && out->vt->idle != NULL && (rc = out->vt->idle(out, err)) != 0)
                return rc;
        }
        return rc;
    }
    for (;;) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (r->o->stop && *r->o->stop)
            return ddb_error_set(err, DDB_EINTR, "interrupted");
        if (poll(&p, 1, 100) > 0)
            return 0;
        pl_report_progress(r, ddb_clock_seconds());
    }
}

/* What the run needs before its first record: the summary's rows, the
 * tracker (restored when resuming), the output's callbacks, and under a
 * state file a first checkpoint. */
static int start_run(run *r, ddb_error *err)
{
    const ddb_pipeline_opts *o = r->o;
    ddb_summary *s = r->s;
    int rc;
    if ((rc = summary_rows(s, o, err)) != 0)
        return rc;
    r->saved.n_rows = s->n_entities;
    if (ddb_arena_new(&r->arena, 0) != 0 || ddb_shape_cache_new(&r->shapes) != 0 ||
        ddb_tracker_new(&r->tracker, s->n_entities, pl_on_commit, r) != 0 ||
        (o->state_path != NULL &&
         (r->saved.rows = calloc(s->n_entities, sizeof(*r->saved.rows))) == NULL))
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    if (o->resume != NULL) {
        ddb_tracker_restore(r->tracker, &o->resume->ck);
        pl_keep_saved(r, ddb_tracker_committed(r->tracker));
    }
    if (o->output != NULL) {
        o->output->ack = pl_on_ack;
        o->output->exists = pl_on_exists;
        o->output->reject = pl_on_late_reject;
        o->output->ack_ctx = r;
    }
    /* The state exists before the first write, so a run killed in its first
     * second can be resumed too (from the beginning). */
    if (o->state_path != NULL && o->resume == NULL && (rc = pl_save_checkpoint(r, 0, err)) != 0) {
        s->output_failed = 1;
        return rc;
    }
    return 0;
}

/* The inputs (paths), then the readers given open, each to its end. */
static int read_all_inputs(run *r, ddb_error *err)
{
    const ddb_pipeline_opts *o = r->o;
    int rc;
    for (size_t i = 0; i < o->n_inputs + o->n_readers && !r->sample_full; i++) {
        r->input = (int)i;
        if (o->resume != NULL && (int)i < o->resume->ck.input)
            continue; /* committed by the interrupted run */
        if (i < o->n_inputs)
            rc = run_input(r, o->inputs[i], err);
        else
            rc = read_input(r, o->readers[i - o->n_inputs], NULL, err);
        r->reading = i < o->n_inputs ? NULL : r->reading;
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* Every input read whole: the output finishes and commits its files. */
static int commit_output(run *r, ddb_error *err)
{
    const ddb_pipeline_opts *o = r->o;
    ddb_summary *s = r->s;
    int rc = o->output->vt->finish(o->output, err);
    pl_drain(r);
    if (rc != 0) {
        if (rc != DDB_EINTR)
            s->output_failed = 1;
        return rc;
    }
    s->committed = 1;
    s->bytes_out = o->output->bytes_out;
    if (o->stop && *o->stop)
        pl_report(r, DDB_REPORT_INFO,
                  "interrupted while the outputs were being committed: they were "
                  "committed whole (a commit is not cut; interrupt again to quit at once)");
    return 0;
}

/* A run stopped (rc: DDB_EINTR, DDB_ELIMIT) with writes sent: they may be
 * written already, so their answers are waited for and "written" is what
 * the destination holds, not a guess. */
static void await_sent_writes(run *r, int rc)
{
    ddb_output *out = r->o->output;
    ddb_error serr;
    assert(rc == DDB_EINTR || rc == DDB_ELIMIT);
    if (out == NULL || out->vt->stop == NULL)
        return;
    pl_report(r, DDB_REPORT_INFO,
              "%s: waiting for the answers to the writes already sent (interrupt "
              "again to quit at once)",
              rc == DDB_EINTR ? "interrupted" : "stopped");
    if (out->vt->stop(out, &serr) != 0) {
        pl_report(r, DDB_REPORT_ERROR, "%s", serr.message);
        r->s->output_failed = 1;
    }
}

/* Under a state file, the checkpoint of a run that finished (rc 0) or
 * stopped between two records; complete when nothing is left to read. */
static void save_last_checkpoint(run *r, int rc)
{
    ddb_summary *s = r->s;
    ddb_error cerr;
    int crc;
    if (r->o->state_path == NULL || s->output_failed)
        return;
    crc = pl_save_checkpoint(r, rc == 0 && s->input_errors == 0, &cerr);
    if (crc == DDB_EINTR && rc == DDB_EINTR) {
        /* the outputs could not say where they stand (being finished, or
         * cut while confirming): the state file keeps the checkpoint
         * before, which --resume continues from */
        pl_report(r, DDB_REPORT_INFO,
                  "interrupted before the outputs could say where they stand (%s): the "
                  "checkpoint saved before stands (--resume goes on from it)",
                  cerr.message);
    } else if (crc != 0) {
        pl_report(r, DDB_REPORT_ERROR, "cannot save the checkpoint: %s", cerr.message);
        s->output_failed = 1;
    }
}

/* After the run, however it ended (rc): what was taken is settled and
 * counted, the side files closed, and the output let go of. */
static void end_run(run *r, int rc)
{
    const ddb_pipeline_opts *o = r->o;
    ddb_summary *s = r->s;
    /* A signal or the rejects limit stops the run between two records: what
     * was taken is settled and checkpointed like a finished run's part. */
    int stopped = rc == DDB_EINTR || rc == DDB_ELIMIT;
    int counted = r->tracker != NULL && s->entities != NULL;
    if (rc == DDB_EINTR)
        s->interrupted = 1;
    if (stopped)
        await_sent_writes(r, rc);
    if (counted)
        pl_drain(r);
    if (counted && (rc == 0 || stopped))
        save_last_checkpoint(r, rc);
    /* Every record read lands in one column, also when the run stopped
     * early; under --state, as the checkpoint that stands counts it. */
    if (counted)
        pl_final_counts(r);
    if (rc == 0 || o->state_path == NULL) {
        pl_finish_side_file(r, o->rejects, &s->rejects_path);
        pl_finish_side_file(r, o->unmatched, &s->unmatched_path);
    }
    if (r->write_failed)
        s->output_failed = 1;
    if (o->output != NULL) {
        o->output->ack = NULL;
        o->output->exists = NULL;
        o->output->reject = NULL;
        o->output->ack_ctx = NULL;
    }
}

int ddb_pipeline_run(ddb_summary *s, const ddb_pipeline_opts *o, ddb_error *err)
{
    run r;
    double t0 = ddb_clock_seconds();
    int rc;
    ddb_io_waiter outer;

    assert(s != NULL && o != NULL);
    memset(s, 0, sizeof(*s));
    memset(&r, 0, sizeof(r));
    r.o = o;
    r.s = s;
    outer = ddb_io_set_waiter((ddb_io_waiter){wait_input, &r});
    r.last_checkpoint = t0;
    if ((rc = start_run(&r, err)) == 0 && (rc = read_all_inputs(&r, err)) == 0 &&
        o->output != NULL && s->input_errors == 0)
        rc = commit_output(&r, err);
    end_run(&r, rc);
    s->seconds = ddb_clock_seconds() - t0;
    ddb_io_set_waiter(outer);
    ddb_tracker_free(r.tracker);
    free(r.saved.rows);
    ddb_arena_free(r.arena);
    ddb_shape_cache_free(r.shapes);
    ddb_buf_dispose(&r.msg);
    free(r.done);
    ddb_buf_dispose(&r.done_text);
    return rc;
}
