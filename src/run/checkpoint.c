/*
 * The tracker (records settled in read order) and the state file.
 */
#include "ddbpipe/checkpoint.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/fs.h"
#include "ddbpipe/source.h"
#include "ddbpipe/json.h"

typedef struct slot {
    uint64_t pos;
    ddb_reader *rd;
    char *line; /* rejects- or unmatched-file line of the record */
    size_t line_len;
    int input;
    int row;
    unsigned char outcome;
    unsigned char change;
    unsigned char borrowed; /* line is the caller's (settled at the head): not freed */
} slot;

struct ddb_tracker {
    slot *ring;
    size_t cap, head, count;
    uint64_t head_seq; /* sequence number of ring[head] */
    uint64_t next_seq;
    ddb_checkpoint committed;
    /* the unit being committed (a Scan page): counts and lines wait for its end */
    ddb_entity_stats *acc;
    size_t *touched; /* the rows of acc counted into since the last fold, n_touched of them */
    size_t n_touched;
    unsigned char *is_touched;
    ddb_entity_stats acc_total;
    uint64_t acc_changes[4];
    uint64_t acc_rejects;
    uint64_t acc_expired, acc_by_ttl;
    ddb_buf acc_lines[2]; /* rejects-file lines, unmatched-file lines */
    uint64_t acc_counts[2];
    ddb_commit_fn on_commit;
    void *ctx;
};

int ddb_tracker_new(ddb_tracker **out, size_t rows, ddb_commit_fn on_commit, void *ctx)
{
    ddb_tracker *t = calloc(1, sizeof(*t));
    if (t == NULL)
        return DDB_ENOMEM;
    t->cap = 1024; /* a power of two, doubled: ring positions are masked, not divided */
    t->ring = calloc(t->cap, sizeof(slot));
    t->committed.rows = calloc(rows ? rows : 1, sizeof(ddb_entity_stats));
    t->acc = calloc(rows ? rows : 1, sizeof(ddb_entity_stats));
    t->touched = calloc(rows ? rows : 1, sizeof(*t->touched));
    t->is_touched = calloc(rows ? rows : 1, 1);
    if (t->ring == NULL || t->committed.rows == NULL || t->acc == NULL || t->touched == NULL ||
        t->is_touched == NULL) {
        ddb_tracker_free(t);
        return DDB_ENOMEM;
    }
    t->committed.n_rows = rows;
    t->head_seq = t->next_seq = 1;
    t->on_commit = on_commit;
    t->ctx = ctx;
    *out = t;
    return 0;
}

void ddb_tracker_free(ddb_tracker *t)
{
    if (t == NULL)
        return;
    for (size_t i = 0; i < t->count; i++)
        if (!t->ring[(t->head + i) % t->cap].borrowed)
            free(t->ring[(t->head + i) % t->cap].line);
    free(t->ring);
    free(t->committed.rows);
    free(t->acc);
    free(t->touched);
    free(t->is_touched);
    ddb_buf_dispose(&t->acc_lines[0]);
    ddb_buf_dispose(&t->acc_lines[1]);
    free(t);
}

static int grow(ddb_tracker *t)
{
    size_t ncap = t->cap * 2;
    slot *n = malloc(ncap * sizeof(slot));
    if (n == NULL)
        return DDB_ENOMEM;
    for (size_t i = 0; i < t->count; i++)
        n[i] = t->ring[(t->head + i) % t->cap];
    free(t->ring);
    t->ring = n;
    t->cap = ncap;
    t->head = 0;
    return 0;
}

static slot *push(ddb_tracker *t)
{
    slot *s;
    if (t->count == t->cap && grow(t) != 0)
        return NULL;
    s = &t->ring[(t->head + t->count) & (t->cap - 1)];
    memset(s, 0, sizeof(*s));
    t->count++;
    t->next_seq++;
    return s;
}

static void count_into(ddb_entity_stats *st, ddb_outcome o)
{
    if (o == DDB_OUTCOME_SKIPPED)
        return;
    st->read++;
    if (o == DDB_OUTCOME_WRITTEN || o == DDB_OUTCOME_DELETED)
        st->written++;
    if (o == DDB_OUTCOME_DELETED)
        st->deleted++;
    if (o == DDB_OUTCOME_REJECTED)
        st->rejected++;
    if (o == DDB_OUTCOME_UNMATCHED)
        st->unmatched++;
    if (o == DDB_OUTCOME_EXISTING)
        st->existing++;
    if (o == DDB_OUTCOME_FILTERED)
        st->filtered++;
}

static void add_stats(ddb_entity_stats *dst, const ddb_entity_stats *src)
{
    dst->read += src->read;
    dst->written += src->written;
    dst->deleted += src->deleted;
    dst->rejected += src->rejected;
    dst->unmatched += src->unmatched;
    dst->existing += src->existing;
    dst->filtered += src->filtered;
}

static void fold(ddb_tracker *t)
{
    ddb_checkpoint *c = &t->committed;
    if (t->n_touched == 0)
        return; /* every count touches a row: nothing is accumulated */
    /* only the rows counted into: a fold follows most records, and a mapping
     * can have many entities */
    for (size_t k = 0; k < t->n_touched; k++) {
        size_t i = t->touched[k];
        add_stats(&c->rows[i], &t->acc[i]);
        memset(&t->acc[i], 0, sizeof(t->acc[i]));
        t->is_touched[i] = 0;
    }
    t->n_touched = 0;
    add_stats(&c->total, &t->acc_total);
    memset(&t->acc_total, 0, sizeof(t->acc_total));
    for (int i = 0; i < 4; i++) {
        c->changes[i] += t->acc_changes[i];
        t->acc_changes[i] = 0;
    }
    c->rejects += t->acc_rejects;
    t->acc_rejects = 0;
    c->expired += t->acc_expired;
    c->removed_by_ttl += t->acc_by_ttl;
    t->acc_expired = t->acc_by_ttl = 0;
    for (int k = 0; k < 2; k++) {
        if (t->acc_lines[k].len > 0 && t->on_commit)
            t->on_commit(t->ctx, k ? DDB_OUTCOME_UNMATCHED : DDB_OUTCOME_REJECTED,
                         t->acc_lines[k].ptr, t->acc_lines[k].len, t->acc_counts[k]);
        ddb_buf_clear(&t->acc_lines[k]);
        t->acc_counts[k] = 0;
    }
}

/* A settled record's line: straight to on_commit when it commits on its own
 * (the common case: a file reader's record that nothing before it waits
 * for), else kept with its unit until the unit commits. */
static void take_line(ddb_tracker *t, const slot *s, int unit_done)
{
    int k = s->outcome == DDB_OUTCOME_UNMATCHED;
    if (unit_done && t->acc_lines[0].len == 0 && t->acc_lines[1].len == 0) {
        if (t->on_commit)
            t->on_commit(t->ctx, (ddb_outcome)s->outcome, s->line, s->line_len, 1);
        return;
    }
    ddb_buf_append(&t->acc_lines[k], s->line, s->line_len);
    t->acc_counts[k]++;
}

/* Commits settled records at the head, in read order. */
static void advance(ddb_tracker *t)
{
    while (t->count > 0 && t->ring[t->head].outcome != DDB_OUTCOME_PENDING) {
        slot *s = &t->ring[t->head];
        int unit_done, input;
        uint64_t pos;
        if (s->outcome == DDB_OUTCOME_MARK) {
            unit_done = 1;
            input = s->input + 1;
            pos = 0;
        } else {
            size_t row = s->row < 0 || (size_t)s->row >= t->committed.n_rows
                             ? t->committed.n_rows - 1
                             : (size_t)s->row;
            if (t->n_touched == 0 && s->line == NULL && (s->rd == NULL || !s->rd->vt->settled)) {
                /* The common case, a record that commits on its own with
                 * nothing accumulated before it: counted straight into the
                 * checkpoint, as fold would (and fold has nothing to do). */
                ddb_checkpoint *c = &t->committed;
                count_into(&c->rows[row], (ddb_outcome)s->outcome);
                count_into(&c->total, (ddb_outcome)s->outcome);
                c->changes[s->change & 3]++;
                c->rejects += s->outcome == DDB_OUTCOME_REJECTED;
                c->expired += s->outcome == DDB_OUTCOME_SKIPPED;
                c->removed_by_ttl += (s->change & DDB_TRACK_BY_TTL) != 0;
                unit_done = 1;
            } else {
                count_into(&t->acc[row], (ddb_outcome)s->outcome);
                if (!t->is_touched[row]) {
                    t->is_touched[row] = 1;
                    t->touched[t->n_touched++] = row;
                }
                count_into(&t->acc_total, (ddb_outcome)s->outcome);
                t->acc_changes[s->change & 3]++;
                if (s->outcome == DDB_OUTCOME_REJECTED)
                    t->acc_rejects++;
                t->acc_expired += s->outcome == DDB_OUTCOME_SKIPPED;
                t->acc_by_ttl += (s->change & DDB_TRACK_BY_TTL) != 0;
                unit_done = s->rd && s->rd->vt->settled ? s->rd->vt->settled(s->rd, s->pos) : 1;
                if (s->line)
                    take_line(t, s, unit_done);
            }
            input = s->input;
            pos = s->pos + 1;
        }
        if (s->line != NULL && !s->borrowed)
            free(s->line);
        s->line = NULL;
        s->borrowed = 0;
        t->head = (t->head + 1) & (t->cap - 1);
        t->count--;
        t->head_seq++;
        if (unit_done) {
            fold(t);
            t->committed.input = input;
            t->committed.pos = pos;
        }
    }
}

uint64_t ddb_tracker_begin(ddb_tracker *t, int input, uint64_t pos, int change, ddb_reader *rd)
{
    uint64_t seq = t->next_seq;
    slot *s = push(t);
    if (s == NULL)
        return 0;
    s->pos = pos;
    s->rd = rd;
    s->input = input;
    s->change = (unsigned char)change;
    s->outcome = DDB_OUTCOME_PENDING;
    return seq;
}

int ddb_tracker_settle(ddb_tracker *t, uint64_t seq, int row, ddb_outcome outcome, const char *line,
                       size_t len)
{
    slot *s;
    if (seq < t->head_seq || seq >= t->head_seq + t->count)
        return 0; /* not tracked (already committed): nothing to do */
    s = &t->ring[(t->head + (seq - t->head_seq)) & (t->cap - 1)];
    s->row = row;
    if (line != NULL && len > 0) {
        /* At the head, advance() below takes the line before this returns. */
        if (seq == t->head_seq) {
            s->line = (char *)line;
            s->borrowed = 1;
        } else if ((s->line = malloc(len)) != NULL) {
            memcpy(s->line, line, len);
        } else {
            return DDB_ENOMEM;
        }
        s->line_len = len;
    }
    s->outcome = (unsigned char)outcome;
    advance(t);
    return 0;
}

int ddb_tracker_end_input(ddb_tracker *t, int input)
{
    slot *s = push(t);
    if (s == NULL)
        return DDB_ENOMEM;
    s->input = input;
    s->outcome = DDB_OUTCOME_MARK;
    advance(t);
    return 0;
}

uint64_t ddb_tracker_pending(const ddb_tracker *t)
{
    return t->count;
}

int ddb_tracker_mid_unit(const ddb_tracker *t)
{
    return t->acc_total.read > 0;
}

const ddb_checkpoint *ddb_tracker_committed(const ddb_tracker *t)
{
    return &t->committed;
}

int ddb_tracker_restore(ddb_tracker *t, const ddb_checkpoint *c)
{
    size_t n = c->n_rows < t->committed.n_rows ? c->n_rows : t->committed.n_rows;
    memcpy(t->committed.rows, c->rows, n * sizeof(ddb_entity_stats));
    t->committed.total = c->total;
    memcpy(t->committed.changes, c->changes, sizeof(c->changes));
    t->committed.rejects = c->rejects;
    t->committed.expired = c->expired;
    t->committed.removed_by_ttl = c->removed_by_ttl;
    t->committed.input = c->input;
    t->committed.pos = c->pos;
    return 0;
}

/* ------------------------------------------------------------- state file */

static void put_stats(ddb_buf *b, const ddb_entity_stats *e)
{
    ddb_buf_printf(b, "[%llu,%llu,%llu,%llu,%llu,%llu]", (unsigned long long)e->read,
                   (unsigned long long)e->written, (unsigned long long)e->deleted,
                   (unsigned long long)e->rejected, (unsigned long long)e->unmatched,
                   (unsigned long long)e->existing);
    /* a 7th count only when there is one: states without a selection stay as they were */
    if (e->filtered > 0) {
        b->len--;
        ddb_buf_printf(b, ",%llu]", (unsigned long long)e->filtered);
    }
}

int ddb_state_save(const char *path, const ddb_state *s, ddb_error *err)
{
    ddb_buf b = DDB_BUF_INIT;
    const ddb_checkpoint *c = &s->ck;
    int rc;

    ddb_buf_printf(&b, "{\"ddbpipe_state\":1,\"complete\":%s,\"fingerprint\":",
                   s->complete ? "true" : "false");
    ddb_buf_puts(&b, s->fingerprint ? s->fingerprint : "{}");
    ddb_buf_printf(&b, ",\"input\":%d,\"pos\":%llu,\"counts\":{\"rows\":[", c->input,
                   (unsigned long long)c->pos);
    for (size_t i = 0; i < c->n_rows; i++) {
        if (i)
            ddb_buf_putc(&b, ',');
        put_stats(&b, &c->rows[i]);
    }
    ddb_buf_puts(&b, "],\"total\":");
    put_stats(&b, &c->total);
    ddb_buf_printf(&b, ",\"changes\":[%llu,%llu,%llu,%llu],\"rejects\":%llu",
                   (unsigned long long)c->changes[0], (unsigned long long)c->changes[1],
                   (unsigned long long)c->changes[2], (unsigned long long)c->changes[3],
                   (unsigned long long)c->rejects);
    /* only when there are some: the states of other runs are as they were */
    if (c->expired > 0)
        ddb_buf_printf(&b, ",\"expired\":%llu", (unsigned long long)c->expired);
    if (c->removed_by_ttl > 0)
        ddb_buf_printf(&b, ",\"removed_by_ttl\":%llu", (unsigned long long)c->removed_by_ttl);
    ddb_buf_puts(&b, "},\"reader\":");
    ddb_buf_puts(&b, s->reader_state ? s->reader_state : "null");
    ddb_buf_puts(&b, ",\"outputs\":");
    ddb_buf_puts(&b, s->outputs ? s->outputs : "[]");
    ddb_buf_printf(&b, ",\"rejects_bytes\":%llu,\"unmatched_bytes\":%llu",
                   (unsigned long long)s->rejects_bytes, (unsigned long long)s->unmatched_bytes);
    if (s->managed != NULL) {
        ddb_buf_puts(&b, ",\"managed\":");
        ddb_buf_puts(&b, s->managed);
    }
    ddb_buf_puts(&b, "}\n");
    if (b.oom) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto done;
    }
    rc = ddb_file_write_atomic(path, b.ptr, b.len, err);
done:
    ddb_buf_dispose(&b);
    return rc;
}

/* A damaged state names the member ("counts.rows[2][1]") and what it must be. */
static int damaged(ddb_error *err, const char *path, const char *member, const char *want)
{
    return ddb_error_set(err, DDB_EUSAGE,
                         "%s: damaged state file: \"%s\" must be %s (remove the file to start "
                         "over)",
                         path, member, want);
}

static int get_u64(const ddb_map *m, const char *key, const char *path, const char *member,
                   uint64_t *out, ddb_error *err)
{
    if (ddb_value_u64(ddb_map_getz(m, key), out) != 0)
        return damaged(err, path, member, "a non-negative integer");
    return 0;
}

/* [read, written, deleted, rejected, unmatched, existing[, filtered]] (states
 * of earlier versions lack existing; filtered is there when not 0) */
static int get_stats(const ddb_value *v, ddb_entity_stats *e, const char *path, const char *member,
                     ddb_error *err)
{
    uint64_t f[7] = {0};
    char sub[96];
    if (v == NULL || v->type != DDB_TYPE_L || v->u.l.count < 5 || v->u.l.count > 7)
        return damaged(err, path, member, "an array of 6 counts");
    for (size_t i = 0; i < v->u.l.count; i++) {
        if (ddb_value_u64(&v->u.l.items[i], &f[i]) != 0) {
            snprintf(sub, sizeof(sub), "%s[%zu]", member, i);
            return damaged(err, path, sub, "a non-negative integer");
        }
    }
    e->read = f[0];
    e->written = f[1];
    e->deleted = f[2];
    e->rejected = f[3];
    e->unmatched = f[4];
    e->existing = f[5];
    e->filtered = f[6];
    return 0;
}

static char *to_text(const ddb_value *v)
{
    ddb_buf b = DDB_BUF_INIT;
    if (v == NULL || v->type == DDB_TYPE_NULL)
        return NULL;
    ddb_json_put_plain_value(&b, v);
    return ddb_buf_detach(&b, NULL);
}

/* The optional JSON members kept as text: present with the wrong type is
 * damage. */
static int get_text(const ddb_map *m, const char *key, ddb_type want, const char *path, char **out,
                    ddb_error *err)
{
    const ddb_value *v = ddb_map_getz(m, key);
    if (v != NULL && v->type != DDB_TYPE_NULL && v->type != want)
        return damaged(err, path, key, want == DDB_TYPE_M ? "an object" : "an array");
    if (v != NULL && v->type != DDB_TYPE_NULL && (*out = to_text(v)) == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    return 0;
}

/* Fills s from the parsed state document, checking the type of every member. */
static int state_from_json(ddb_state *s, const ddb_map *root, const char *path, ddb_error *err)
{
    const ddb_value *counts, *rows, *v;
    const ddb_map *cm;
    uint64_t input;
    int rc;

    if ((counts = ddb_map_getz(root, "counts")) == NULL || counts->type != DDB_TYPE_M)
        return damaged(err, path, "counts", "an object");
    cm = &counts->u.m;
    if ((rc = get_u64(root, "input", path, "input", &input, err)) != 0)
        return rc;
    if (input > INT_MAX)
        return damaged(err, path, "input", "an input number");
    s->ck.input = (int)input;
    if ((rc = get_u64(root, "pos", path, "pos", &s->ck.pos, err)) != 0)
        return rc;
    if ((rows = ddb_map_getz(cm, "rows")) == NULL || rows->type != DDB_TYPE_L)
        return damaged(err, path, "counts.rows", "an array");
    s->ck.n_rows = rows->u.l.count;
    if ((s->ck.rows = calloc(s->ck.n_rows ? s->ck.n_rows : 1, sizeof(ddb_entity_stats))) == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    for (size_t i = 0; i < s->ck.n_rows; i++) {
        char member[48];
        snprintf(member, sizeof(member), "counts.rows[%zu]", i);
        if ((rc = get_stats(&rows->u.l.items[i], &s->ck.rows[i], path, member, err)) != 0)
            return rc;
    }
    if ((rc = get_stats(ddb_map_getz(cm, "total"), &s->ck.total, path, "counts.total", err)) != 0 ||
        (rc = get_u64(cm, "rejects", path, "counts.rejects", &s->ck.rejects, err)) != 0)
        return rc;
    if ((ddb_map_getz(cm, "expired") != NULL &&
         (rc = get_u64(cm, "expired", path, "counts.expired", &s->ck.expired, err)) != 0) ||
        (ddb_map_getz(cm, "removed_by_ttl") != NULL &&
         (rc = get_u64(cm, "removed_by_ttl", path, "counts.removed_by_ttl", &s->ck.removed_by_ttl,
                       err)) != 0))
        return rc;
    if ((v = ddb_map_getz(cm, "changes")) == NULL || v->type != DDB_TYPE_L || v->u.l.count != 4)
        return damaged(err, path, "counts.changes", "an array of 4 counts");
    for (size_t i = 0; i < 4; i++) {
        if (ddb_value_u64(&v->u.l.items[i], &s->ck.changes[i]) != 0) {
            char member[48];
            snprintf(member, sizeof(member), "counts.changes[%zu]", i);
            return damaged(err, path, member, "a non-negative integer");
        }
    }
    if (ddb_map_getz(root, "rejects_bytes") != NULL &&
        (rc = get_u64(root, "rejects_bytes", path, "rejects_bytes", &s->rejects_bytes, err)) != 0)
        return rc;
    if (ddb_map_getz(root, "unmatched_bytes") != NULL &&
        (rc = get_u64(root, "unmatched_bytes", path, "unmatched_bytes", &s->unmatched_bytes,
                      err)) != 0)
        return rc;
    if ((v = ddb_map_getz(root, "complete")) != NULL && v->type != DDB_TYPE_BOOL)
        return damaged(err, path, "complete", "true or false");
    s->complete = v && v->u.boolean;
    if ((rc = get_text(root, "fingerprint", DDB_TYPE_M, path, &s->fingerprint, err)) != 0 ||
        (rc = get_text(root, "reader", DDB_TYPE_M, path, &s->reader_state, err)) != 0 ||
        (rc = get_text(root, "outputs", DDB_TYPE_L, path, &s->outputs, err)) != 0 ||
        (rc = get_text(root, "managed", DDB_TYPE_M, path, &s->managed, err)) != 0)
        return rc;
    return 0;
}

int ddb_state_load(ddb_state **out, const char *path, ddb_error *err)
{
    ddb_source *src = NULL;
    ddb_buf text = DDB_BUF_INIT;
    ddb_json_parser *p = NULL;
    ddb_arena *a = NULL;
    ddb_value root;
    ddb_state *s = NULL;
    char chunk[65536];
    ssize_t n;
    int rc = 0;

    *out = NULL;
    if ((rc = ddb_source_open_file(&src, path, err)) != 0)
        goto done;
    while ((n = ddb_source_read(src, chunk, sizeof(chunk), err)) > 0)
        ddb_buf_append(&text, chunk, (size_t)n);
    if (n < 0) {
        rc = (int)n;
        goto done;
    }
    if ((s = calloc(1, sizeof(*s))) == NULL || ddb_json_parser_new(&p) != 0 ||
        ddb_arena_new(&a, 0) != 0 || text.oom) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto done;
    }
    if (ddb_json_parse_plain(p, &root, text.ptr ? text.ptr : "", text.len, a, err) != 0 ||
        root.type != DDB_TYPE_M || ddb_map_getz(&root.u.m, "ddbpipe_state") == NULL) {
        rc = ddb_error_set(err, DDB_EUSAGE, "%s is not a ddbpipe state file (or it is damaged)",
                           path);
        goto done;
    }
    if ((rc = state_from_json(s, &root.u.m, path, err)) != 0)
        goto done;
    *out = s;
    s = NULL;
done:
    ddb_state_free(s);
    ddb_arena_free(a);
    ddb_json_parser_free(p);
    ddb_buf_dispose(&text);
    ddb_source_free(src);
    return rc;
}

void ddb_state_free(ddb_state *s)
{
    if (s == NULL)
        return;
    free(s->fingerprint);
    free(s->reader_state);
    free(s->outputs);
    free(s->managed);
    free(s->ck.rows);
    free(s);
}

int ddb_state_check_fingerprint(const char *saved, const char *now, ddb_error *err)
{
    ddb_json_parser *p = NULL;
    ddb_arena *a = NULL;
    ddb_value vs, vn;
    int rc = 0;

    if (ddb_json_parser_new(&p) != 0 || ddb_arena_new(&a, 0) != 0) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto done;
    }
    if (saved == NULL || ddb_json_parse_plain(p, &vs, saved, strlen(saved), a, NULL) != 0 ||
        ddb_json_parse_plain(p, &vn, now, strlen(now), a, NULL) != 0 || vs.type != DDB_TYPE_M ||
        vn.type != DDB_TYPE_M) {
        rc = ddb_error_set(err, DDB_EUSAGE, "the state file does not describe a comparable run");
        goto done;
    }
    for (size_t i = 0; i < vn.u.m.count; i++) {
        const ddb_attr *at = &vn.u.m.attrs[i];
        const ddb_value *old = ddb_map_get(&vs.u.m, at->name.ptr, at->name.len);
        if (old == NULL || !ddb_value_equal(old, &at->value)) {
            const ddb_str *was = old && old->type == DDB_TYPE_S ? &old->u.s : NULL;
            const ddb_str *is = at->value.type == DDB_TYPE_S ? &at->value.u.s : NULL;
            rc =
                ddb_error_set(err, DDB_EUSAGE,
                              "cannot resume: %.*s differ%s from the checkpointed run "
                              "(was \"%.*s\", now \"%.*s\")",
                              (int)at->name.len, at->name.ptr,
                              at->name.len && at->name.ptr[at->name.len - 1] == 's' ? "" : "s",
                              was ? (int)(was->len > 200 ? 200 : was->len) : 0, was ? was->ptr : "",
                              is ? (int)(is->len > 200 ? 200 : is->len) : 0, is ? is->ptr : "");
            goto done;
        }
    }
    /* what the checkpointed run had and this one has not (its target's identity) */
    for (size_t i = 0; i < vs.u.m.count; i++) {
        const ddb_attr *at = &vs.u.m.attrs[i];
        if (ddb_map_get(&vn.u.m, at->name.ptr, at->name.len) == NULL) {
            const ddb_str *was = at->value.type == DDB_TYPE_S ? &at->value.u.s : NULL;
            rc = ddb_error_set(err, DDB_EUSAGE,
                               "cannot resume: the checkpointed run had %.*s \"%.*s\"; this one "
                               "has none",
                               (int)at->name.len, at->name.ptr,
                               was ? (int)(was->len > 200 ? 200 : was->len) : 0,
                               was ? was->ptr : "");
            goto done;
        }
    }
done:
    ddb_arena_free(a);
    ddb_json_parser_free(p);
    return rc;
}
