/*
 * pipeline_settle.c — the pipeline's accounting: what became of each record
 * (written, existing, rejected, unmatched), the queue the outputs tell it
 * through, and the final numbers (pipeline.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/array.h"
#include "ddbpipe/json.h"
#include "run/pipeline_internal.h"

ddb_entity_stats *pl_row(run *r, int entity_index)
{
    if (entity_index < 0 || (size_t)entity_index >= r->s->n_entities - 1)
        return &r->s->entities[r->s->n_entities - 1];
    return &r->s->entities[entity_index];
}

/* The row index the tracker keeps (the last row is "(none)"). */
int pl_row_index(run *r, int entity_index)
{
    return (int)(pl_row(r, entity_index) - r->s->entities);
}

void pl_settle(run *r, uint64_t seq, int entity_index, ddb_outcome outcome, const char *line,
               size_t len)
{
    if (ddb_tracker_settle(r->tracker, seq, pl_row_index(r, entity_index), outcome, line, len) != 0)
        r->write_failed = 1;
}

/* A record the output holds for good: counted and settled now (the pipeline's
 * own calls) or from the queue (drain). */
void pl_acknowledge(run *r, int entity_index, ddb_record_kind kind, uint64_t seq)
{
    ddb_entity_stats *st = pl_row(r, entity_index);
    st->written++;
    r->s->total.written++;
    if (kind == DDB_REC_DELETE) {
        st->deleted++;
        r->s->total.deleted++;
    }
    pl_settle(r, seq, entity_index,
              kind == DDB_REC_DELETE ? DDB_OUTCOME_DELETED : DDB_OUTCOME_WRITTEN, NULL, 0);
}

/* The tracker commits rejects and unmatched lines with their records, so
 * neither file ever runs ahead of a checkpoint. */
void pl_on_commit(void *ctx, ddb_outcome kind, const char *lines, size_t len, uint64_t count)
{
    run *r = ctx;
    ddb_rejects *file = kind == DDB_OUTCOME_UNMATCHED ? r->o->unmatched : r->o->rejects;
    ddb_error err;
    if (file == NULL)
        return;
    if (ddb_rejects_append(file, lines, len, count, &err) != 0 && !r->write_failed) {
        r->write_failed = 1;
        if (r->o->report)
            r->o->report(r->o->report_ctx, DDB_REPORT_ERROR, err.message);
    }
}

void pl_report(run *r, int severity, const char *fmt, ...)
{
    char text[2048];
    va_list ap;
    if (r->o->report == NULL)
        return;
    if (severity == DDB_REPORT_ERROR && r->o->report_limit && r->reported++ >= r->o->report_limit) {
        if (r->reported == r->o->report_limit + 1)
            r->o->report(r->o->report_ctx, DDB_REPORT_INFO,
                         "(more problems are not shown; every one is in the rejects file)");
        return;
    }
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    r->o->report(r->o->report_ctx, severity, text);
}

/* Counts a rejection and reports it as "file:line: Entity: reason" (or
 * "file@offset" without a line); returns the entity name for the rejects file. */
const char *pl_count_reject(run *r, int entity_index, const char *source, uint64_t line,
                            uint64_t offset, const char *reason)
{
    ddb_entity_stats *st = pl_row(r, entity_index);
    const char *ename = entity_index >= 0 && r->o->mapping ? st->name : NULL;
    st->rejected++;
    r->s->total.rejected++;
    pl_report(r, DDB_REPORT_ERROR, "%s%c%llu: %s%s%s", source, line ? ':' : '@',
              (unsigned long long)(line ? line : offset), ename ? ename : "", ename ? ": " : "",
              reason);
    return ename;
}

/* Rejects a record: counted, reported, and kept for the rejects file. */
int pl_reject(run *r, const ddb_record *rec, int entity_index, const char *reason, ddb_error *err)
{
    const char *ename =
        pl_count_reject(r, entity_index, rec->source, rec->line, rec->offset, reason);
    ddb_buf_clear(&r->msg);
    if (r->o->rejects != NULL)
        ddb_rejects_format(&r->msg, rec, ename, reason);
    if (r->msg.oom)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    pl_settle(r, rec->seq, entity_index, DDB_OUTCOME_REJECTED, r->msg.ptr, r->msg.len);
    return 0;
}

/* A record not asked for: counted as left out, settled at once. */
void pl_filtered(run *r, int entity_index, uint64_t seq)
{
    pl_row(r, entity_index)->filtered++;
    r->s->total.filtered++;
    pl_settle(r, seq, entity_index, DDB_OUTCOME_FILTERED, NULL, 0);
}

void pl_count_read(run *r, int entity_index)
{
    pl_row(r, entity_index)->read++;
    r->s->total.read++;
}

/* An item no entity matches: counted, and kept verbatim in the unmatched
 * file (DynamoDB JSON, ready to import again) whatever the destination. */
int pl_unmatched(run *r, const ddb_record *rec, const char *why, ddb_error *err)
{
    ddb_entity_stats *st = pl_row(r, -1);
    st->unmatched++;
    r->s->total.unmatched++;
    if (r->o->mode == DDB_MODE_VALIDATE)
        pl_report(r, DDB_REPORT_WARNING, "%s%c%llu: unmatched: %s", rec->source,
                  rec->line ? ':' : '@', (unsigned long long)(rec->line ? rec->line : rec->offset),
                  why);
    ddb_buf_clear(&r->msg);
    if (r->o->unmatched != NULL) {
        ddb_buf_puts(&r->msg, rec->kind == DDB_REC_DELETE ? "{\"Keys\":" : "{\"Item\":");
        ddb_json_put_typed_map(&r->msg, &rec->item);
        ddb_buf_puts(&r->msg, "}\n");
    }
    if (r->msg.oom)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    pl_settle(r, rec->seq, -1, DDB_OUTCOME_UNMATCHED, r->msg.ptr, r->msg.len);
    return 0;
}

static completion *pl_queue_completion(run *r, uint64_t seq, int entity_index, ddb_outcome outcome)
{
    completion *c = ddb_array_reserve(r->done, r->n_done, &r->cap_done, sizeof(*c), 64);
    if (c == NULL) {
        r->write_failed = 1; /* the accounting cannot be kept: the run fails */
        return NULL;
    }
    r->done = c;
    c = &r->done[r->n_done++];
    memset(c, 0, sizeof(*c));
    c->seq = seq;
    c->entity_index = entity_index;
    c->outcome = outcome;
    return c;
}

/* Output callback: a record to write only if absent was there already. */
void pl_on_exists(void *ctx, int entity_index, ddb_record_kind kind, uint64_t seq)
{
    (void)kind;
    pl_queue_completion(ctx, seq, entity_index, DDB_OUTCOME_EXISTING);
}

/* Output callback: a record was written (queued; see run.done). */
void pl_on_ack(void *ctx, int entity_index, ddb_record_kind kind, uint64_t seq)
{
    pl_queue_completion(ctx, seq, entity_index,
                        kind == DDB_REC_DELETE ? DDB_OUTCOME_DELETED : DDB_OUTCOME_WRITTEN);
}

/* Output callback: a record the output had queued was refused. What info
 * points at lives only during the call, so the rejects line and the message
 * are formatted now and kept with the completion. */
void pl_on_late_reject(void *ctx, int entity_index, const ddb_reject_info *info)
{
    run *r = ctx;
    const char *ename = entity_index >= 0 && r->o->mapping ? pl_row(r, entity_index)->name : NULL;
    completion *c = pl_queue_completion(r, info->seq, entity_index, DDB_OUTCOME_REJECTED);
    ddb_buf *t = &r->done_text;
    if (c == NULL)
        return;
    c->line_off = t->len;
    if (r->o->rejects != NULL)
        ddb_rejects_format_info(t, info, ename);
    c->line_len = t->len - c->line_off;
    c->msg_off = t->len;
    ddb_buf_printf(t, "%s%c%llu: %s%s%s", info->source, info->line ? ':' : '@',
                   (unsigned long long)(info->line ? info->line : info->offset), ename ? ename : "",
                   ename ? ": " : "", info->reason);
    c->msg_len = t->len - c->msg_off;
    if (t->oom)
        r->write_failed = 1;
}

/* Settles the queued completions, in the order the outputs told them. */
void pl_drain(run *r)
{
    for (size_t i = 0; i < r->n_done; i++) {
        const completion *c = &r->done[i];
        ddb_entity_stats *st;
        if (c->outcome == DDB_OUTCOME_EXISTING) {
            pl_row(r, c->entity_index)->existing++;
            r->s->total.existing++;
            pl_settle(r, c->seq, c->entity_index, DDB_OUTCOME_EXISTING, NULL, 0);
            continue;
        }
        if (c->outcome != DDB_OUTCOME_REJECTED) {
            pl_acknowledge(r, c->entity_index,
                           c->outcome == DDB_OUTCOME_DELETED ? DDB_REC_DELETE : DDB_REC_PUT,
                           c->seq);
            continue;
        }
        st = pl_row(r, c->entity_index);
        st->rejected++;
        r->s->total.rejected++;
        pl_report(r, DDB_REPORT_ERROR, "%.*s", (int)c->msg_len, r->done_text.ptr + c->msg_off);
        pl_settle(r, c->seq, c->entity_index, DDB_OUTCOME_REJECTED,
                  c->line_len ? r->done_text.ptr + c->line_off : NULL, c->line_len);
    }
    r->n_done = 0;
    ddb_buf_clear(&r->done_text);
}

/*
 * The numbers a run reports once it is over, so that every record read is in
 * exactly one column: read is what was read; written is what the output holds
 * for good (for a table, what DynamoDB confirmed, even beyond the committed
 * prefix; for files, what the kept files hold, none when they were discarded);
 * rejected and unmatched are what their files hold (the committed ones); the
 * rest is not done.
 */
static void pl_final_row(ddb_entity_stats *out, const ddb_entity_stats *live,
                         const ddb_entity_stats *committed, int confirmed_live, int discarded,
                         int unmatched_file)
{
    ddb_entity_stats f = *committed;
    uint64_t settled;
    f.name = live->name;
    f.read = live->read;
    if (confirmed_live) {
        f.written = live->written;
        f.deleted = live->deleted;
        f.existing = live->existing;
    }
    f.filtered = live->filtered; /* left out as read: nothing to confirm */
    /* discarded outputs hold nothing; an unmatched file, kept beside them as
     * the rejects file is, holds what it holds */
    if (discarded) {
        f.written = f.deleted = 0;
        if (!unmatched_file)
            f.unmatched = 0;
    }
    settled = f.written + f.existing + f.rejected + f.unmatched + f.filtered;
    f.not_done = f.read > settled ? f.read - settled : 0;
    *out = f;
}

void pl_final_counts(run *r)
{
    const ddb_pipeline_opts *o = r->o;
    ddb_summary *s = r->s;
    /* Under --state, files not yet committed (and the rejects) hold for
     * good what the saved checkpoint counts: a resume cuts them back to it.
     * Committed outputs hold every committed record, saved or not: a final
     * save that fails after the commit takes nothing back. */
    const ddb_checkpoint *c =
        r->saved.rows != NULL && !s->committed ? &r->saved : ddb_tracker_committed(r->tracker);
    int table = o->output != NULL && !o->output->writes_at_once;
    int discarded =
        o->output != NULL && o->output->writes_at_once && !s->committed && o->state_path == NULL;
    int kept = o->unmatched != NULL;
    for (size_t i = 0; i < s->n_entities && i < c->n_rows; i++)
        pl_final_row(&s->entities[i], &s->entities[i], &c->rows[i], table, discarded, kept);
    pl_final_row(&s->total, &s->total, &c->total, table, discarded, kept);
    s->total.name = "total";
}

/* Commits the rejects or unmatched file; *path names it when it holds lines. */
void pl_finish_side_file(run *r, ddb_rejects *file, char **path)
{
    ddb_error err;
    if (file == NULL)
        return;
    if (ddb_rejects_finish(file, &err) != 0) {
        pl_report(r, DDB_REPORT_ERROR, "%s", err.message);
        r->s->output_failed = 1;
    } else if (ddb_rejects_count(file) > 0 && (*path = strdup(ddb_rejects_path(file))) == NULL) {
        r->s->output_failed = 1; /* the summary could not say where they are */
    }
}

/* The summary a resumed run starts from: the committed counts. */
void pl_restore_counts(ddb_summary *s, const ddb_checkpoint *c)
{
    for (size_t i = 0; i < s->n_entities && i < c->n_rows; i++) {
        const char *name = s->entities[i].name;
        s->entities[i] = c->rows[i];
        s->entities[i].name = name;
    }
    s->total = c->total;
    s->total.name = "total";
    memcpy(s->changes, c->changes, sizeof(s->changes));
    s->expired = c->expired;
    s->ttl_removed = c->removed_by_ttl;
}
