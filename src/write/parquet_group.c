/*
 * The Parquet writer's row groups (parquet.h): when one ends, taking it out
 * of its file into a job (numbers decided, the budget released), encoding
 * it here or handing it to the budget's encoding thread (parquet_ahead.c),
 * and writing its pages onto the file in order. Encoding a job's pages is
 * parquet_page.c.
 */
#include "write/parquet_internal.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* Room in f for the description of one more row group. */
static int reserve_group(pq_file *f, ddb_error *err)
{
    size_t cap;
    if (f->n_reserved < f->cap_groups)
        return 0;
    cap = f->cap_groups ? f->cap_groups * 2 : 4;
    pq_group *ng = realloc(f->groups, cap * sizeof(*ng));
    if (ng == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    f->groups = ng;
    for (size_t i = 0; i < f->n_cols; i++) {
        pq_chunk *nc = realloc(f->cols[i].chunks, cap * sizeof(*nc));
        if (nc == NULL)
            return ddb_error_set(err, DDB_ENOMEM, "out of memory");
        f->cols[i].chunks = nc;
    }
    f->cap_groups = cap;
    return 0;
}

/* f gathers nothing now: its bytes out of the budget. */
static void gathered_none(pq_file *f)
{
    if (f->budget != NULL)
        f->budget->used -= f->gathered;
    f->gathered = 0;
}

/* The row group f gathered, taken into a job: its number columns decided
 * (the first row group with values decides), its buffers moved, and f
 * ready for the next row group, out of its budget. */
static int take_group(pq_job **out, pq_file *f, ddb_error *err)
{
    pq_job *j = calloc(1, sizeof(*j));
    *out = NULL;
    if (j == NULL || (j->cols = calloc(f->n_cols, sizeof(*j->cols))) == NULL ||
        (j->chunks = calloc(f->n_cols, sizeof(*j->chunks))) == NULL) {
        pq_job_free(j);
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    }
    j->f = f;
    j->codec = f->opts.codec;
    j->group = f->n_reserved++;
    j->rows = (int64_t)f->group_rows;
    j->gathered = f->gathered;
    j->n_cols = f->n_cols;
    for (size_t i = 0; i < f->n_cols; i++) {
        pq_col *c = &f->cols[i];
        if (c->kind == PQ_NUMBER && !c->decided && c->n_present > 0)
            pq_decide_number(c);
        j->cols[i] = *c;
        j->cols[i].chunks = NULL; /* the file's, which the job never touches */
        j->cols[i].plan = NULL;
        c->defs = c->reps = c->values = (ddb_buf)DDB_BUF_INIT;
        c->n_present = 0;
    }
    f->rows += f->group_rows;
    f->group_rows = 0;
    gathered_none(f);
    *out = j;
    return 0;
}

int pq_job_commit(pq_job *j, ddb_error *err)
{
    pq_file *f = j->f;
    int64_t base = f->offset;
    pq_group *g;
    int rc = j->rc;
    if (rc == 0) {
        assert(j->group == f->n_groups);
        rc = pq_write(f, j->out.ptr, j->out.len, &j->err);
    }
    if (rc != 0) {
        f->failed = rc;
        f->failure = j->err;
        if (err != NULL)
            *err = j->err;
        goto done;
    }
    g = &f->groups[f->n_groups];
    *g = (pq_group){.rows = j->rows, .offset = base};
    for (size_t i = 0; i < f->n_cols; i++) {
        pq_chunk *ch = &f->cols[i].chunks[f->n_groups];
        *ch = j->chunks[i];
        ch->offset += base;
        ch->dict_offset = ch->has_dict ? ch->dict_offset + base : 0;
        g->compressed += ch->compressed;
        g->uncompressed += ch->uncompressed;
    }
    f->n_groups++;
    f->raw_bytes += (int64_t)j->gathered;
    f->packed_bytes += g->compressed;
done:
    pq_job_free(j);
    return rc;
}

/* A file whose row group failed goes no further: its footer would
 * describe row groups it does not hold. What it gathers since is dropped,
 * out of the budget, so the other files go on within it. */
static int failed(pq_file *f, ddb_error *err)
{
    for (size_t i = 0; i < f->n_cols; i++) {
        pq_col_dispose_group(&f->cols[i]);
        f->cols[i].n_present = 0;
    }
    gathered_none(f);
    f->group_rows = 0;
    if (err != NULL)
        *err = f->failure;
    return f->failed;
}

static int commit_held(pq_file *f, ddb_error *err)
{
    pq_job *j = f->held;
    f->held = NULL;
    return pq_job_commit(j, err);
}

int pq_write_group(pq_file *f, ddb_error *err)
{
    pq_job *j;
    pq_coder *k = f->budget != NULL ? &f->budget->coder : &f->coder;
    int rc;
    if (f->failed)
        return failed(f, err);
    if (f->held != NULL && (rc = commit_held(f, err)) != 0)
        return rc;
    if ((rc = reserve_group(f, err)) != 0 || (rc = take_group(&j, f, err)) != 0)
        return rc;
    /* a file with a size bound measures its row groups as they are written */
    if (f->budget != NULL && f->budget->ahead != NULL && f->opts.max_file_bytes == 0)
        return pq_ahead_hand_over(f->budget, j, err);
    pq_job_encode(j, k);
    /* a file's own coder is given back: a file keeps nothing at its
     * high-water mark while others gather (each file's buffers made rich's
     * export hold 221 MB); a budget's serves all its files */
    if (f->budget == NULL)
        pq_coder_dispose(&f->coder);
    return pq_job_commit(j, err);
}

/* Would the row group gathered (bytes of values and levels) take the file
 * past opts.max_file_bytes? Its size is guessed at the ratio of the file's
 * row groups so far (1 before the first), 15% more to spare, and the footer
 * at most a few hundred bytes per column chunk. */
static int past_size(const pq_file *f, size_t bytes)
{
    double ratio = f->raw_bytes > 0 ? (double)f->packed_bytes / (double)f->raw_bytes : 1.0;
    double footer = 1024.0 + (double)(f->n_groups + 1) * (double)f->n_cols * (2 * PQ_STATS_MAX + 96);
    return (double)f->offset + 1.15 * ratio * (double)bytes + footer >= (double)f->opts.max_file_bytes;
}

int pq_full(const pq_file *f)
{
    return f->full;
}

int pq_end_row(pq_file *f, ddb_error *err)
{
    size_t bytes = 0;
    f->group_rows++;
    for (size_t i = 0; i < f->n_cols; i++) {
        const pq_col *c = &f->cols[i];
        if (c->defs.oom || c->reps.oom || c->values.oom)
            return ddb_error_set(err, DDB_ENOMEM, "out of memory (a Parquet row group)");
        bytes += c->values.len + c->defs.len + c->reps.len;
    }
    if (f->budget != NULL)
        f->budget->used += bytes - f->gathered;
    f->gathered = bytes;
    if (f->opts.max_file_bytes > 0 && past_size(f, bytes)) {
        /* the first row group only measures the ratio (a guess of 1 would end a
         * file of text at a fifth of its size); from the second, the file ends */
        f->full = f->raw_bytes > 0;
        return pq_write_group(f, err);
    }
    if (f->group_rows >= f->opts.group_rows || bytes >= f->opts.group_bytes)
        return pq_write_group(f, err);
    /* past the output's budget, the file gathering the most writes its row
     * group: the largest groups the budget allows, and no file's starved */
    if (f->budget != NULL && f->budget->used > f->budget->limit)
        return pq_write_group(pq_budget_largest(f->budget), err);
    return 0;
}

int pq_finish(pq_file *f, ddb_error *err)
{
    int rc;
    if (f->group_rows > 0 && (rc = pq_write_group(f, err)) != 0)
        return rc;
    if (f->budget != NULL && (rc = pq_ahead_settle(f->budget, f, err)) != 0)
        return rc;
    if (f->held != NULL && (rc = commit_held(f, err)) != 0)
        return rc;
    if (f->failed) /* its row group held by another file's hand-over */
        return failed(f, err);
    /* a file without a value of a shared column says the table's type too */
    for (size_t i = 0; i < f->n_cols; i++)
        if (f->cols[i].plan != NULL && !f->cols[i].decided)
            pq_decide_number(&f->cols[i]);
    return pq_write_footer(f, err);
}
