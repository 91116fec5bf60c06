/*
 * pipeline_item.c — taking one item (export, convert, validate of items): the
 * pure verdict (validation, decode, round-trip check or re-encoding), which
 * any thread may compute, and its application to the counts and the output,
 * on the pipeline's thread.
 */
#include <stdio.h>
#include <string.h>

#include "ddbpipe/item.h"
#include "ddbpipe/select.h"
#include "ddbpipe/transform.h"
#include "run/pipeline_internal.h"

/* Keeps err's message in a (a verdict outlives the error struct). */
static const char *keep_message(pl_verdict *v, const ddb_error *e, ddb_arena *a)
{
    const char *m = ddb_arena_memdup(a, e->message, strlen(e->message));
    if (m == NULL)
        v->oom = 1;
    return m ? m : "out of memory";
}

int pl_item_compute(pl_verdict *v, const ddb_pipeline_opts *o, const ddb_record *rec,
                    ddb_shape_cache *shapes, ddb_arena *a)
{
    ddb_error perr;
    /* facts of the names, kept for the next items with the same names */
    ddb_shape *sh = ddb_shape_cache_find_named(shapes, &rec->item, rec->names_id);
    /* a put read for a run that deletes is a delete: taking it makes it one */
    int is_del = rec->kind == DDB_REC_DELETE || (o->delete_all && rec->kind == DDB_REC_PUT);

    memset(v, 0, sizeof(*v));
    v->computed = 1;
    ddb_error_clear(&perr);
    /* With a mapping, items must also fit the table's key schema (an empty sort
     * key is invalid in DynamoDB, not merely unmatched). */
    if (!is_del &&
        ddb_item_validate_shaped(&rec->item, o->mapping ? &o->mapping->table.schema : NULL, sh,
                                 rec->utf8_checked, &v->size, &perr) != 0) {
        v->invalid = 1;
        v->msg = keep_message(v, &perr, a);
        return 0;
    }
    if (o->mapping == NULL)
        return 0;
    if (o->mode == DDB_MODE_IMPORT) {
        /* items are written as they are; the mapping only says whose they are,
         * for the counts */
        if (ddb_transform_entity_of(&v->d.entity, o->mapping, &rec->item, sh, a) != 0)
            v->oom = 1;
        return 0;
    }
    v->rc = ddb_transform_decode_shaped(&v->d, o->mapping, &rec->item, is_del, sh, a, &perr);
    if (v->rc != 0) {
        v->msg = keep_message(v, &perr, a);
        return 0;
    }
    if ((o->mode == DDB_MODE_EXPORT || o->mode == DDB_MODE_VALIDATE) &&
        o->select != NULL && o->select->n_project > 0) {
        /* --project: the item was read partial (a ProjectionExpression), and
         * only some of its record is written: there is no whole item for
         * the record to encode back to */
    } else if (o->mode == DDB_MODE_EXPORT || o->mode == DDB_MODE_VALIDATE) {
        /* A record is only as good as the item it encodes back to: export
         * checks what validate checks, so the two never disagree. */
        v->rc2 = ddb_transform_round_trip(o->mapping, &v->d, &rec->item, is_del, sh, a, &perr);
    } else {
        /* convert: re-key with the target mapping */
        const ddb_entity *te = ddb_mapping_entity(o->to_mapping, v->d.entity->name);
        if (te == NULL) {
            v->rc2 = ddb_error_set(&perr, DDB_EINVAL, "entity %s is not in the target mapping",
                                   v->d.entity->name);
        } else {
            v->rc2 = is_del ? ddb_transform_encode_key(&v->item, o->to_mapping, te, &v->d.record, 1,
                                                       a, &perr)
                            : ddb_transform_encode(&v->item, o->to_mapping, te, &v->d.record, 1, a,
                                                   &perr);
        }
    }
    if (v->rc2 != 0)
        v->msg = keep_message(v, &perr, a);
    return 0;
}

/* What an export puts for v: the record, as --project makes it (in a). */
static int project(pl_verdict *v, const ddb_pipeline_opts *o, ddb_arena *a)
{
    if (ddb_select_project(o->select, &v->d.record, v->d.n_declared, &v->out, &v->declared, a) !=
        0)
        return DDB_ENOMEM;
    v->projected = 1;
    return 0;
}

int pl_item_format(pl_verdict *v, const ddb_pipeline_opts *o, const ddb_record *rec,
                   ddb_buf *text, struct ddb_format_scratch *s, ddb_arena *a)
{
    const ddb_map *put = &rec->item;
    size_t declared = 0, start = text->len;
    int idx = -1;

    if (o->output == NULL || o->output->format == NULL || !v->computed || v->oom || v->invalid)
        return 0;
    if (o->mapping != NULL) {
        if (o->mode == DDB_MODE_IMPORT || o->mode == DDB_MODE_VALIDATE || v->rc != 0 ||
            v->rc2 != 0)
            return 0; /* not put, or put by an import (a table's business) */
        idx = pl_entity_index(o->mapping, v->d.entity);
        if (o->mode == DDB_MODE_EXPORT) {
            if (project(v, o, a) != 0)
                return 0;
            put = &v->out;
            declared = v->declared;
        } else {
            put = &v->item;
        }
    }
    if (o->output->format(o->output, idx, rec->kind, put, declared, text, s) != 0 || text->oom) {
        text->len = start; /* put formats it */
        text->oom = 0;
        return 0;
    }
    v->formatted = 1;
    v->text_off = start;
    v->text_len = text->len - start;
    /* its note after it, read with the line and so still in cache */
    if (o->output->note != NULL) {
        size_t at = text->len;
        if (o->output->note(o->output, idx, rec->kind, put, declared, text) == 0 && !text->oom) {
            v->note_len = text->len - at;
        } else {
            text->len = at; /* put reads the record */
            text->oom = 0;
        }
    }
    return 0;
}

/* Whether the record is one the selection asks for, and within --sample: an
 * item of no entity is not; a record of a selected entity that failed to
 * decode is (its rejection is news). */
static int asked_for(run *r, const pl_verdict *v)
{
    const ddb_select *s = r->o->select;
    if (v->rc == DDB_ENOMATCH || v->d.entity == NULL || !ddb_select_entity(s, v->d.entity))
        return 0;
    if (v->rc == 0 && !ddb_select_record(s, v->d.entity, &v->d.record))
        return 0;
    if (s->sample == 0)
        return 1;
    if (r->sampled >= s->sample)
        return 0;
    r->sample_full = ++r->sampled == s->sample;
    return 1;
}

static int put_item(run *r, ddb_record *rec, const pl_verdict *v, ddb_error *err);

int pl_process_item(run *r, ddb_record *rec, const pl_verdict *pre, ddb_error *err)
{
    const ddb_pipeline_opts *o = r->o;
    pl_verdict now;
    const pl_verdict *v = pre;
    int rc;

    if (v == NULL) {
        pl_item_compute(&now, o, rec, r->shapes, r->arena);
        v = &now;
    }
    /* the bytes made ahead are put for the length of this call */
    rec->formatted = v->formatted ? v->text : NULL;
    rec->formatted_len = v->formatted ? v->text_len : 0;
    rec->note = v->formatted && v->note_len > 0 ? v->text + v->text_len : NULL;
    rec->note_len = rec->note != NULL ? v->note_len : 0;
    rc = put_item(r, rec, v, err);
    rec->formatted = NULL;
    rec->formatted_len = 0;
    rec->note = NULL;
    rec->note_len = 0;
    return rc;
}

/* pl_process_item's work, with v computed. */
static int put_item(run *r, ddb_record *rec, const pl_verdict *v, ddb_error *err)
{
    const ddb_pipeline_opts *o = r->o;
    int idx;

    if (v->oom)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    if (v->invalid) {
        pl_count_read(r, -1);
        return pl_reject(r, rec, -1, v->msg, err);
    }
    if (o->mapping == NULL || o->mode == DDB_MODE_IMPORT) {
        int rc;
        idx = o->mapping ? pl_entity_index(o->mapping, v->d.entity) : -1;
        pl_count_read(r, idx);
        if (o->output == NULL)
            return pl_acknowledge(r, idx, rec->kind, rec->seq), 0;
        /* checked above: a table writer need only check the table's keys (for
         * this put alone: the record is the reader's, and lives on) */
        rec->checked_size = rec->kind == DDB_REC_PUT && !o->delete_all ? v->size : 0;
        rc = o->output->vt->put(o->output, idx, rec->kind, &rec->item, 0, rec, err);
        rec->checked_size = 0;
        return rc;
    }
    idx = pl_entity_index(o->mapping, v->d.entity);
    pl_count_read(r, idx);
    if (v->rc == DDB_ENOMEM || v->rc2 == DDB_ENOMEM)
        return ddb_error_set(err, DDB_ENOMEM, "%s", v->msg);
    if (o->select != NULL && !asked_for(r, v)) {
        pl_filtered(r, idx, rec->seq);
        return 0;
    }
    if (v->rc == DDB_ENOMATCH)
        return pl_unmatched(r, rec, v->msg, err);
    if (v->rc != 0)
        return pl_reject(r, rec, idx, v->msg, err);
    if (o->mode == DDB_MODE_EXPORT || o->mode == DDB_MODE_VALIDATE) {
        if (v->rc2 == DDB_ENOMEM)
            return ddb_error_set(err, v->rc2, "%s", v->msg);
        if (v->rc2 != 0)
            return pl_reject(r, rec, idx, v->msg, err);
        if (o->mode == DDB_MODE_EXPORT) {
            ddb_map out = v->out;
            size_t declared = v->declared;
            if (!v->projected && ddb_select_project(o->select, &v->d.record, v->d.n_declared,
                                                    &out, &declared, r->arena) != 0)
                return ddb_error_set(err, DDB_ENOMEM, "out of memory");
            return o->output->vt->put(o->output, idx, rec->kind, &out, declared, rec, err);
        }
        pl_acknowledge(r, idx, rec->kind, rec->seq);
        return 0;
    }
    if (v->rc2 != 0)
        return pl_reject(r, rec, idx, v->msg, err);
    /* stats stay in the source mapping's rows: the entity names are the same */
    return o->output->vt->put(o->output, idx, rec->kind, &v->item, 0, rec, err);
}
