/*
 * diff, second half: bucket pairs compared in memory (sorted by key, then
 * merged), a pair too large for memory partitioned again first, and the
 * report of every difference.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ddbpipe/array.h"
#include "ddbpipe/canon.h"
#include "ddbpipe/json.h"
#include "ddbpipe/sink.h"
#include "run/diff_internal.h"

/* Deeper than this a bucket is compared whatever its size: its keys hash
 * alike at every level, i.e. it is one key many times over. */
#define MAX_LEVEL 6

typedef diff_entry entry;

typedef struct loaded {
    char *data;
    entry *e;
    size_t n;
} loaded;

typedef struct cmp {
    ddb_diff *d;
    ddb_sink *out;
    ddb_buf line;
    ddb_json_parser *parser;
    ddb_arena *arena;
    ddb_error *err;
} cmp;

static uint32_t get_u32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

static int entry_cmp(const void *x, const void *y)
{
    const entry *a = x, *b = y;
    size_t n = a->klen < b->klen ? a->klen : b->klen;
    int c;
    if (a->row != b->row)
        return a->row < b->row ? -1 : 1;
    if ((c = memcmp(a->key, b->key, n)) != 0)
        return c;
    if (a->klen != b->klen)
        return a->klen < b->klen ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Reads a whole bucket file (missing: empty) and indexes its entries. */
static int load(loaded *l, const char *path, ddb_error *err)
{
    FILE *f;
    size_t size = (size_t)file_size(path), at = 0, cap = 0;
    memset(l, 0, sizeof(*l));
    if (size == 0)
        return 0;
    if ((f = fopen(path, "rb")) == NULL)
        return ddb_error_set(err, DDB_EIO, "cannot open %s", path);
    l->data = malloc(size);
    if (l->data == NULL || fread(l->data, 1, size, f) != size) {
        fclose(f);
        return ddb_error_set(err, l->data ? DDB_EIO : DDB_ENOMEM, "cannot read %s", path);
    }
    fclose(f);
    while (at < size) {
        const unsigned char *h = (const unsigned char *)l->data + at;
        entry *e;
        if (size - at < DIFF_ENTRY_HEADER ||
            size - at - DIFF_ENTRY_HEADER <
                (uint64_t)get_u32(h + 4) + get_u32(h + 8) + get_u32(h + 12))
            return ddb_error_set(err, DDB_EIO, "%s is cut short at byte %zu", path, at);
        if ((e = ddb_array_reserve(l->e, l->n, &cap, sizeof(entry), 1024)) == NULL)
            return ddb_error_set(err, DDB_ENOMEM, "out of memory");
        l->e = e;
        e = &l->e[l->n];
        e->row = get_u32(h);
        e->klen = get_u32(h + 4);
        e->vlen = get_u32(h + 8);
        e->xlen = get_u32(h + 12);
        e->key = l->data + at + DIFF_ENTRY_HEADER;
        e->val = e->key + e->klen;
        e->x = e->val + e->vlen;
        e->seq = l->n++;
        at += DIFF_ENTRY_HEADER + (size_t)e->klen + e->vlen + e->xlen;
    }
    qsort(l->e, l->n, sizeof(entry), entry_cmp);
    return 0;
}

static void unload(loaded *l)
{
    free(l->data);
    free(l->e);
}

static int same_key(const entry *a, const entry *b)
{
    return a->row == b->row && a->klen == b->klen && memcmp(a->key, b->key, a->klen) == 0;
}

/* ----------------------------------------------------------------- report */

static void line_start(cmp *c, const entry *e, const char *what)
{
    const char *name = c->d->rows[e->row].name;
    ddb_buf_clear(&c->line);
    ddb_buf_puts(&c->line, "{\"entity\":");
    ddb_json_put_string(&c->line, name, strlen(name));
    ddb_buf_puts(&c->line, ",\"key\":");
    ddb_buf_append(&c->line, e->key, e->klen);
    ddb_buf_printf(&c->line, ",\"diff\":\"%s\"", what);
}

static int line_end(cmp *c)
{
    ddb_buf_puts(&c->line, "}\n");
    if (c->line.oom)
        return ddb_error_set(c->err, DDB_ENOMEM, "out of memory");
    return ddb_sink_write(c->out, c->line.ptr, c->line.len, c->err);
}

static int report_only(cmp *c, const entry *e, int side)
{
    line_start(c, e, side ? "only_in_b" : "only_in_a");
    ddb_buf_puts(&c->line, side ? ",\"b\":" : ",\"a\":");
    ddb_buf_append(&c->line, e->val, e->vlen);
    return line_end(c);
}

static void put_side(ddb_buf *b, const char *name, const ddb_value *v)
{
    ddb_buf_printf(b, "\"%s\":", name);
    if (v == NULL)
        ddb_buf_puts(b, "null");
    else
        ddb_canon_value(b, v);
}

/* The attributes that differ: both canonical maps parsed, each attribute's
 * canonical value compared (their order is sorted already: a merge). */
static int report_different(cmp *c, const entry *a, const entry *b)
{
    ddb_map ma, mb;
    ddb_buf x = DDB_BUF_INIT, y = DDB_BUF_INIT;
    size_t i = 0, j = 0, shown = 0;
    int rc;

    ddb_arena_reset(c->arena);
    if ((rc = ddb_json_parse_typed_map(c->parser, &ma, a->val, a->vlen, c->arena, c->err)) != 0 ||
        (rc = ddb_json_parse_typed_map(c->parser, &mb, b->val, b->vlen, c->arena, c->err)) != 0)
        return rc;
    line_start(c, a, "different");
    ddb_buf_puts(&c->line, ",\"attributes\":{");
    while (i < ma.count || j < mb.count) {
        const ddb_attr *pa = i < ma.count ? &ma.attrs[i] : NULL;
        const ddb_attr *pb = j < mb.count ? &mb.attrs[j] : NULL;
        int order;
        if (pa && pb) {
            size_t n = pa->name.len < pb->name.len ? pa->name.len : pb->name.len;
            order = memcmp(pa->name.ptr, pb->name.ptr, n);
            if (order == 0)
                order = (pa->name.len > pb->name.len) - (pa->name.len < pb->name.len);
        } else {
            order = pa ? -1 : 1;
        }
        if (order < 0)
            pb = NULL, i++;
        else if (order > 0)
            pa = NULL, j++;
        else
            i++, j++;
        if (pa && pb) {
            ddb_buf_clear(&x);
            ddb_buf_clear(&y);
            ddb_canon_value(&x, &pa->value);
            ddb_canon_value(&y, &pb->value);
            if (x.len == y.len && memcmp(x.ptr, y.ptr, x.len) == 0)
                continue;
        }
        if (shown++)
            ddb_buf_putc(&c->line, ',');
        {
            const ddb_str *nm = pa ? &pa->name : &pb->name;
            ddb_json_put_string(&c->line, nm->ptr, nm->len);
        }
        ddb_buf_putc(&c->line, ':');
        ddb_buf_putc(&c->line, '{');
        put_side(&c->line, "a", pa ? &pa->value : NULL);
        ddb_buf_putc(&c->line, ',');
        put_side(&c->line, "b", pb ? &pb->value : NULL);
        ddb_buf_putc(&c->line, '}');
    }
    ddb_buf_dispose(&x);
    ddb_buf_dispose(&y);
    ddb_buf_putc(&c->line, '}');
    return line_end(c);
}

/* ---------------------------------------------------------------- compare */

/* Skips to the last of a run of equal keys; counts the others. */
static size_t last_of_run(const loaded *l, size_t i, uint64_t *dups)
{
    while (i + 1 < l->n && same_key(&l->e[i], &l->e[i + 1])) {
        i++;
        (*dups)++;
    }
    return i;
}

enum { C_EQUAL, C_DIFFERENT, C_ONLY_A, C_ONLY_B };

static uint64_t *counter(ddb_diff_counts *c, int what)
{
    return what == C_EQUAL       ? &c->equal
           : what == C_DIFFERENT ? &c->different
           : what == C_ONLY_A    ? &c->only_a
                                 : &c->only_b;
}

static void count(ddb_diff *d, uint32_t row, int what)
{
    (*counter(&d->rows[row].c, what))++;
    (*counter(&d->st.total, what))++;
}

/* Hands a difference to the caller's verdict function (sync acts on it). */
static int tell(cmp *c, ddb_diff_kind kind, const entry *a, const entry *b)
{
    ddb_diff *d = c->d;
    const entry *any = a ? a : b;
    ddb_diff_verdict v;
    if (d->o.verdict == NULL)
        return 0;
    memset(&v, 0, sizeof(v));
    v.kind = kind;
    v.entity = d->rows[any->row].name;
    v.is_item = (int)any->row == d->unmatched_row || (int)any->row == d->items_row;
    if (a != NULL)
        v.a = a->val, v.a_len = a->vlen;
    if (b != NULL) {
        v.b = b->val, v.b_len = b->vlen;
        if (b->xlen > 0)
            v.b_key = b->x, v.b_key_len = b->xlen;
    }
    return d->o.verdict(d->o.verdict_ctx, &v, c->err);
}

static int compare_loaded(cmp *c, const loaded *A, const loaded *B)
{
    size_t i = 0, j = 0;
    int rc = 0;
    while (rc == 0 && (i < A->n || j < B->n)) {
        int order;
        uint64_t dups = 0;
        if (i < A->n)
            i = last_of_run(A, i, &dups);
        if (dups)
            c->d->rows[A->e[i].row].c.dup_a += dups, c->d->st.total.dup_a += dups;
        dups = 0;
        if (j < B->n) {
            size_t first = j;
            j = last_of_run(B, j, &dups);
            while (rc == 0 && first < j)
                rc = tell(c, DDB_DIFF_REPEATED_B, NULL, &B->e[first++]);
        }
        if (dups)
            c->d->rows[B->e[j].row].c.dup_b += dups, c->d->st.total.dup_b += dups;
        if (rc != 0)
            break;
        order = i >= A->n ? 1 : j >= B->n ? -1 : entry_cmp(&A->e[i], &B->e[j]);
        if (i < A->n && j < B->n && same_key(&A->e[i], &B->e[j]))
            order = 0;
        if (order < 0) {
            count(c->d, A->e[i].row, C_ONLY_A);
            if ((rc = report_only(c, &A->e[i], 0)) == 0)
                rc = tell(c, DDB_DIFF_ONLY_A, &A->e[i], NULL);
            i++;
        } else if (order > 0) {
            count(c->d, B->e[j].row, C_ONLY_B);
            if ((rc = report_only(c, &B->e[j], 1)) == 0)
                rc = tell(c, DDB_DIFF_ONLY_B, NULL, &B->e[j]);
            j++;
        } else if (A->e[i].vlen == B->e[j].vlen &&
                   memcmp(A->e[i].val, B->e[j].val, A->e[i].vlen) == 0) {
            count(c->d, A->e[i].row, C_EQUAL);
            i++, j++;
        } else {
            count(c->d, A->e[i].row, C_DIFFERENT);
            if ((rc = report_different(c, &A->e[i], &B->e[j])) == 0)
                rc = tell(c, DDB_DIFF_DIFFERENT, &A->e[i], &B->e[j]);
            i++, j++;
        }
    }
    return rc;
}

static int compare_bucket(cmp *c, const char *prefix, unsigned level, unsigned b);

/* Reads the next entry of a bucket file into *buf (key then value). Returns
 * 1 with *e set, 0 at the end, or a negative code. */
static int next_entry(FILE *f, const char *path, ddb_buf *buf, entry *e, ddb_error *err)
{
    unsigned char h[DIFF_ENTRY_HEADER];
    size_t got = fread(h, 1, sizeof(h), f), n;
    if (got == 0 && feof(f))
        return 0;
    if (got != sizeof(h))
        return ddb_error_set(err, DDB_EIO, "%s is cut short", path);
    e->row = get_u32(h);
    e->klen = get_u32(h + 4);
    e->vlen = get_u32(h + 8);
    e->xlen = get_u32(h + 12);
    n = (size_t)e->klen + e->vlen + e->xlen;
    ddb_buf_clear(buf);
    if (ddb_buf_reserve(buf, n) != 0)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    if (fread(buf->ptr, 1, n, f) != n)
        return ddb_error_set(err, DDB_EIO, "%s is cut short", path);
    e->key = buf->ptr;
    e->val = buf->ptr + e->klen;
    e->x = e->val + e->vlen;
    return 1;
}

/* Partitions bucket b of both sides again with the next level's hash,
 * streaming: one entry in memory at a time, however large the bucket. */
static int split(cmp *c, const char *prefix, unsigned level, unsigned b)
{
    ddb_diff *d = c->d;
    diff_buckets sub[2];
    ddb_buf buf = DDB_BUF_INIT;
    int rc = 0;
    memset(sub, 0, sizeof(sub));
    for (int s = 0; s < 2 && rc == 0; s++) {
        char *path = diff_bucket_path(prefix, b, s);
        FILE *f = NULL;
        entry e;
        memset(&e, 0, sizeof(e));
        sub[s].level = level + 1;
        sub[s].prefix = malloc(strlen(prefix) + 24);
        if (path == NULL || sub[s].prefix == NULL) {
            free(path);
            rc = ddb_error_set(c->err, DDB_ENOMEM, "out of memory");
            break;
        }
        sprintf(sub[s].prefix, "%s%u-", prefix, b); /* names stay unique: the path */
        if (file_size(path) > 0 && (f = fopen(path, "rb")) == NULL)
            rc = ddb_error_set(c->err, DDB_EIO, "cannot open %s", path);
        while (rc == 0 && f != NULL && (rc = next_entry(f, path, &buf, &e, c->err)) == 1)
            rc = diff_bucket_put(d, &sub[s], s, diff_bucket_of(d, level + 1, e.row, e.key, e.klen),
                                 &e, c->err);
        if (rc == 0)
            rc = diff_buckets_finish(d, &sub[s], c->err);
        if (f != NULL)
            fclose(f);
        unlink(path);
        free(path);
    }
    ddb_buf_dispose(&buf);
    if (level + 2 > d->st.levels)
        d->st.levels = level + 2;
    for (unsigned k = 0; rc == 0 && k < d->o.fanout; k++)
        rc = compare_bucket(c, sub[0].prefix, level + 1, k);
    diff_buckets_dispose(d, &sub[0]);
    diff_buckets_dispose(d, &sub[1]);
    return rc;
}

static int compare_bucket(cmp *c, const char *prefix, unsigned level, unsigned b)
{
    char *pa = diff_bucket_path(prefix, b, 0), *pb = diff_bucket_path(prefix, b, 1);
    loaded A, B;
    uint64_t bytes;
    int rc;

    memset(&A, 0, sizeof(A));
    memset(&B, 0, sizeof(B));
    if (pa == NULL || pb == NULL) {
        rc = ddb_error_set(c->err, DDB_ENOMEM, "out of memory");
        goto done;
    }
    bytes = file_size(pa) + file_size(pb);
    /* Entries take about as much again as their bytes once indexed. */
    if (bytes * 2 > c->d->o.max_memory && level + 1 < MAX_LEVEL) {
        rc = split(c, prefix, level, b);
        goto done;
    }
    if ((rc = load(&A, pa, c->err)) == 0 && (rc = load(&B, pb, c->err)) == 0)
        rc = compare_loaded(c, &A, &B);
    unlink(pa);
    unlink(pb);
done:
    unload(&A);
    unload(&B);
    free(pa);
    free(pb);
    return rc;
}

int ddb_diff_compare(ddb_diff *d, ddb_sink *out, ddb_error *err)
{
    cmp c;
    int rc = 0;
    memset(&c, 0, sizeof(c));
    c.d = d;
    c.out = out;
    c.err = err;
    if (ddb_json_parser_new(&c.parser) != 0 || ddb_arena_new(&c.arena, 0) != 0) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto done;
    }
    d->st.levels = 1;
    for (unsigned b = 0; rc == 0 && b < d->o.fanout; b++)
        rc = compare_bucket(&c, d->buckets[0].prefix, 0, b);
done:
    ddb_json_parser_free(c.parser);
    ddb_arena_free(c.arena);
    ddb_buf_dispose(&c.line);
    return rc;
}

/* ------------------------------------------------------------- summaries */

static void counts_json(ddb_buf *out, const ddb_diff_counts *c)
{
    ddb_buf_printf(out,
                   "\"equal\":%llu,\"different\":%llu,\"only_in_a\":%llu,\"only_in_b\":%llu,"
                   "\"duplicates_in_a\":%llu,\"duplicates_in_b\":%llu",
                   (unsigned long long)c->equal, (unsigned long long)c->different,
                   (unsigned long long)c->only_a, (unsigned long long)c->only_b,
                   (unsigned long long)c->dup_a, (unsigned long long)c->dup_b);
}

static int row_used(const ddb_diff_row *r)
{
    const ddb_diff_counts *c = &r->c;
    return c->equal + c->different + c->only_a + c->only_b + c->dup_a + c->dup_b > 0;
}

void ddb_diff_stats_json(ddb_buf *out, const ddb_diff *d)
{
    const ddb_diff_stats *s = &d->st;
    int first = 1;
    counts_json(out, &s->total);
    ddb_buf_printf(out,
                   ",\"sample\":%.6g,\"compared_in_a\":%llu,\"compared_in_b\":%llu,"
                   "\"left_out_a\":%llu,\"left_out_b\":%llu,\"entities\":{",
                   d->sampling ? d->o.sample : 1.0, (unsigned long long)s->kept[0],
                   (unsigned long long)s->kept[1], (unsigned long long)s->skipped[0],
                   (unsigned long long)s->skipped[1]);
    for (size_t i = 0; i < d->n_rows; i++) {
        const ddb_diff_row *r = &d->rows[i];
        /* Every entity of the mappings is listed; the item rows when used. */
        if (((int)i == d->unmatched_row || (int)i == d->items_row) && !row_used(r))
            continue;
        if (!first)
            ddb_buf_putc(out, ',');
        first = 0;
        ddb_json_put_string(out, r->name, strlen(r->name));
        ddb_buf_puts(out, ":{");
        counts_json(out, &r->c);
        ddb_buf_putc(out, '}');
    }
    ddb_buf_putc(out, '}');
}

static void row_line(ddb_buf *out, const char *name, const ddb_diff_counts *c)
{
    ddb_buf_printf(out, "  %-24s %12llu %12llu %12llu %12llu", name, (unsigned long long)c->equal,
                   (unsigned long long)c->different, (unsigned long long)c->only_a,
                   (unsigned long long)c->only_b);
    if (c->dup_a || c->dup_b)
        ddb_buf_printf(out, "  (keys repeated: %llu in A, %llu in B)", (unsigned long long)c->dup_a,
                       (unsigned long long)c->dup_b);
    ddb_buf_putc(out, '\n');
}

void ddb_diff_stats_format(ddb_buf *out, const ddb_diff *d)
{
    size_t shown = 0;
    ddb_buf_printf(out, "  %-24s %12s %12s %12s %12s\n", "entity", "equal", "different",
                   "only in A", "only in B");
    for (size_t i = 0; i < d->n_rows; i++) {
        const ddb_diff_row *r = &d->rows[i];
        if (((int)i == d->unmatched_row || (int)i == d->items_row) && !row_used(r))
            continue;
        row_line(out, r->name, &r->c);
        shown++;
    }
    if (shown > 1)
        row_line(out, "total", &d->st.total);
}
