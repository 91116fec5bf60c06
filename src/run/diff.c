/*
 * diff, first half: the rows (entities) compared, the outputs the two sides
 * are read into, and the bucket files records are partitioned into. See
 * diff.h for why records are hash-partitioned rather than sorted.
 */
#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ddbpipe/array.h"
#include "ddbpipe/canon.h"
#include "ddbpipe/json.h"
#include "ddbpipe/rng.h"
#include "ddbpipe/transform.h"
#include "ddbpipe/sink.h"
#include "run/diff_internal.h"

typedef struct side_out {
    ddb_output base;
    ddb_diff *d;
    int side;
    size_t n_entities; /* of the side's mapping */
    int *row_of;       /* entity index of the side's mapping -> row */
    ddb_type **retype; /* side B, per entity: the type side A declares for each field
                          where it differs (DDB_TYPE_NONE: the same); NULL: none differs */
    ddb_arena *arena;
    ddb_buf key, val, json;
    ddb_buf item_key; /* side B's, for the verdicts (keep_b_keys) */
} side_out;

/* ------------------------------------------------------------------ rows */

/* rows and defs grow together: defs[i] is how rows[i] is keyed. */
static int add_row(ddb_diff *d, const char *name, const ddb_entity *e, ddb_error *err)
{
    ddb_diff_row *r = ddb_array_reserve(d->rows, d->n_rows, &d->rows_cap, sizeof(*r), 8);
    diff_rowdef *def;
    if (r == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    d->rows = r;
    if ((def = ddb_array_reserve(d->defs, d->n_rows, &d->defs_cap, sizeof(*def), 8)) == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    d->defs = def;
    memset(&r[d->n_rows], 0, sizeof(*r));
    memset(&def[d->n_rows], 0, sizeof(*def));
    if ((r[d->n_rows].name = strdup(name)) == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    def = &def[d->n_rows++];
    for (size_t f = 0; e && f < e->n_fields; f++) {
        if (!e->fields[f].in_table_key)
            continue;
        if (def->key_fields == NULL &&
            (def->key_fields = calloc(e->n_fields, sizeof(char *))) == NULL)
            return ddb_error_set(err, DDB_ENOMEM, "out of memory");
        def->key_fields[def->n_key++] = e->fields[f].name;
    }
    return 0;
}

static int find_row(const ddb_diff *d, const char *name)
{
    for (size_t i = 0; i < d->n_rows; i++)
        if (strcmp(d->rows[i].name, name) == 0)
            return (int)i;
    return -1;
}

/* Entities of A, then those only B has; then the rows for items. */
static int make_rows(ddb_diff *d, ddb_error *err)
{
    int rc;
    for (int s = 0; s < 2; s++)
        for (size_t i = 0; d->map[s] && i < d->map[s]->n_entities; i++) {
            const ddb_entity *e = &d->map[s]->entities[i];
            if (find_row(d, e->name) < 0 && (rc = add_row(d, e->name, e, err)) != 0)
                return rc;
        }
    d->unmatched_row = (int)d->n_rows;
    if ((rc = add_row(d, "(unmatched)", NULL, err)) != 0)
        return rc;
    d->items_row = (int)d->n_rows;
    return add_row(d, "(items)", NULL, err);
}

/* ---------------------------------------------------------------- buckets */

unsigned diff_bucket_of(const ddb_diff *d, unsigned level, uint32_t row, const char *key,
                        size_t klen)
{
    uint64_t h = ddb_hash64(key, klen, ddb_hash_combine(0xb0c4e7ull + level, row));
    return (unsigned)(((h >> 32) * (uint64_t)d->o.fanout) >> 32);
}

char *diff_bucket_path(const char *prefix, unsigned b, int side)
{
    size_t n = strlen(prefix) + 16;
    char *p = malloc(n);
    if (p != NULL)
        snprintf(p, n, "%s%u%c", prefix, b, side ? 'b' : 'a');
    return p;
}

static void put_u32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

int diff_bucket_put(const ddb_diff *d, diff_buckets *bk, int side, unsigned b, const diff_entry *e,
                    ddb_error *err)
{
    unsigned char head[DIFF_ENTRY_HEADER];
    int rc;
    assert(b < d->o.fanout);
    if (bk->files == NULL && (bk->files = calloc(d->o.fanout, sizeof(ddb_sink *))) == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    if (bk->files[b] == NULL) {
        char *path = diff_bucket_path(bk->prefix, b, side);
        if (path == NULL)
            return ddb_error_set(err, DDB_ENOMEM, "out of memory");
        rc = ddb_sink_open_file(&bk->files[b], path, 0, err);
        free(path);
        if (rc != 0)
            return rc;
    }
    put_u32(head, e->row);
    put_u32(head + 4, e->klen);
    put_u32(head + 8, e->vlen);
    put_u32(head + 12, e->xlen);
    if ((rc = ddb_sink_write(bk->files[b], head, sizeof(head), err)) != 0 ||
        (rc = ddb_sink_write(bk->files[b], e->key, e->klen, err)) != 0 ||
        (rc = ddb_sink_write(bk->files[b], e->val, e->vlen, err)) != 0 ||
        (e->xlen > 0 && (rc = ddb_sink_write(bk->files[b], e->x, e->xlen, err)) != 0))
        return rc;
    bk->bytes += sizeof(head) + (uint64_t)e->klen + e->vlen + e->xlen;
    return 0;
}

int diff_buckets_finish(const ddb_diff *d, diff_buckets *bk, ddb_error *err)
{
    int rc = 0;
    for (unsigned b = 0; bk->files && b < d->o.fanout; b++) {
        if (bk->files[b] == NULL)
            continue;
        if (rc == 0)
            rc = ddb_sink_finish(bk->files[b], err);
        ddb_sink_free(bk->files[b]);
        bk->files[b] = NULL;
    }
    return rc;
}

void diff_buckets_dispose(const ddb_diff *d, diff_buckets *bk)
{
    for (unsigned b = 0; bk->files && b < d->o.fanout; b++)
        ddb_sink_free(bk->files[b]);
    free(bk->files);
    free(bk->prefix);
    memset(bk, 0, sizeof(*bk));
}

/* ------------------------------------------------------------ side output */

/* The canonical key of a record: its row's key fields (a map). */
static int record_key(ddb_buf *out, const diff_rowdef *def, const ddb_map *rec, ddb_arena *a)
{
    ddb_map k;
    k.attrs = ddb_arena_alloc(a, (def->n_key + 1) * sizeof(ddb_attr));
    k.count = 0;
    if (k.attrs == NULL)
        return DDB_ENOMEM;
    for (size_t i = 0; i < def->n_key; i++) {
        ptrdiff_t at = ddb_map_find(rec, def->key_fields[i], strlen(def->key_fields[i]));
        if (at >= 0)
            k.attrs[k.count++] = rec->attrs[at];
    }
    return ddb_canon_map(out, &k);
}

/* The canonical key of an item: the named key attributes. Returns 1 when
 * one is missing. */
static int item_key(ddb_buf *out, const char *const *names, size_t n, const ddb_map *item,
                    ddb_arena *a)
{
    ddb_map k;
    k.attrs = ddb_arena_alloc(a, (n + 1) * sizeof(ddb_attr));
    k.count = 0;
    if (k.attrs == NULL)
        return DDB_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        ptrdiff_t at = ddb_map_find(item, names[i], strlen(names[i]));
        if (at < 0)
            return 1;
        k.attrs[k.count++] = item->attrs[at];
    }
    return ddb_canon_map(out, &k);
}

/* Fields side B's mapping declares with another type than side A's (a
 * layout that re-types clipTime from S to N) are compared as A's type, the
 * conversion convert makes; a value that does not convert stays as it is,
 * and differs. */
static void as_side_a(const ddb_type *retype, ddb_decoded *dec, ddb_arena *a)
{
    for (size_t j = 0; j < dec->n_declared; j++) {
        ddb_attr *at = &dec->record.attrs[j];
        int fi = ddb_entity_field_index(dec->entity, at->name.ptr, at->name.len);
        ddb_value v;
        if (fi >= 0 && retype[fi] != DDB_TYPE_NONE &&
            ddb_value_convert(&v, &at->value, retype[fi], a, NULL) == 0)
            at->value = v;
    }
}

/* Key and value of an item under the side's mapping; *row set. Returns 0, 1
 * (refused: why says why), or a negative code. */
static int key_value(side_out *so, const ddb_map *item, int *row, char *why, size_t cap)
{
    ddb_diff *d = so->d;
    const ddb_mapping *m = d->map[so->side];
    ddb_decoded dec;
    ddb_error derr;
    int rc;

    if (m == NULL) {
        *row = d->items_row;
        rc = item_key(&so->key, (const char *const *)d->key_attrs, d->n_key_attrs, item, so->arena);
        if (rc == 1)
            snprintf(why, cap, "the item has no key attribute %s",
                     d->n_key_attrs > 1 && ddb_map_getz(item, d->key_attrs[0]) ? d->key_attrs[1]
                                                                               : d->key_attrs[0]);
        return rc != 0 ? rc : ddb_canon_map(&so->val, item);
    }
    rc = ddb_transform_decode(&dec, m, item, so->arena, &derr);
    if (rc == DDB_ENOMATCH) {
        const char *names[2] = {m->table.pk.name, m->table.sk.name};
        *row = d->unmatched_row;
        if ((rc = item_key(&so->key, names, names[1] ? 2 : 1, item, so->arena)) != 0)
            return rc == 1 ? (snprintf(why, cap, "the item lacks the table's key"), 1) : rc;
        return ddb_canon_map(&so->val, item);
    }
    if (rc != 0) {
        snprintf(why, cap, "%s", derr.message);
        return rc == DDB_ENOMEM ? rc : 1;
    }
    *row = so->row_of[dec.entity - m->entities];
    if (so->retype && so->retype[dec.entity - m->entities])
        as_side_a(so->retype[dec.entity - m->entities], &dec, so->arena);
    if ((rc = record_key(&so->key, &d->defs[*row], &dec.record, so->arena)) != 0)
        return rc;
    return ddb_canon_map(&so->val, &dec.record);
}

/* The item key of a side B item: its table's key attributes (the items'
 * key without a mapping). Returns 0 or DDB_ENOMEM; an item without them
 * (compared without a mapping, refused before) leaves the key empty. */
static int b_item_key(side_out *so, const ddb_map *item)
{
    const ddb_diff *d = so->d;
    const ddb_mapping *m = d->map[1];
    const char *names[2] = {m ? m->table.pk.name : NULL, m ? m->table.sk.name : NULL};
    const char *const *keys = m ? names : (const char *const *)d->key_attrs;
    size_t n = m ? (names[1] ? 2 : 1) : d->n_key_attrs;
    int rc;
    ddb_buf_clear(&so->item_key);
    rc = item_key(&so->item_key, keys, n, item, so->arena);
    if (rc == 1)
        ddb_buf_clear(&so->item_key);
    return rc == DDB_ENOMEM || so->item_key.oom ? DDB_ENOMEM : 0;
}

/* Into the side's bucket: the key and value made, and side B's item key
 * when the verdicts need it. */
static int so_keep(side_out *so, const ddb_map *item, uint32_t row, ddb_error *err)
{
    ddb_diff *d = so->d;
    diff_entry e;
    int rc;
    memset(&e, 0, sizeof(e));
    if (so->side == 1 && d->o.keep_b_keys && b_item_key(so, item) != 0)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    if (so->key.len > UINT32_MAX || so->val.len > UINT32_MAX || so->item_key.len > UINT32_MAX)
        return ddb_error_set(err, DDB_ETOOBIG, "a record too large to compare");
    e.row = row;
    e.key = so->key.ptr;
    e.klen = (uint32_t)so->key.len;
    e.val = so->val.ptr;
    e.vlen = (uint32_t)so->val.len;
    e.x = so->item_key.ptr;
    e.xlen = (uint32_t)so->item_key.len;
    rc = diff_bucket_put(d, &d->buckets[so->side], so->side,
                         diff_bucket_of(d, 0, row, e.key, e.klen), &e, err);
    if (rc == 0)
        d->st.kept[so->side]++;
    return rc;
}

static int so_put(ddb_output *o, int entity_index, ddb_record_kind kind, const ddb_map *item,
                  size_t n_declared, const ddb_record *origin, ddb_error *err)
{
    side_out *so = (side_out *)o;
    ddb_diff *d = so->d;
    char why[DDB_ERROR_MAX];
    int row = 0, rc;

    (void)n_declared;
    ddb_arena_reset(so->arena);
    ddb_buf_clear(&so->key);
    ddb_buf_clear(&so->val);
    if (kind == DDB_REC_DELETE) {
        ddb_output_refuse(o, entity_index, kind, item, origin,
                          "a deletion (incremental export) cannot be compared: compare full "
                          "exports or tables",
                          &so->json);
        return 0;
    }
    rc = key_value(so, item, &row, why, sizeof(why));
    if (rc == 1) {
        ddb_output_refuse(o, entity_index, kind, item, origin, why, &so->json);
        return 0;
    }
    if (rc != 0 || so->key.oom || so->val.oom)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    if (d->sampling &&
        ddb_hash64(so->key.ptr, so->key.len, ddb_hash_combine(d->o.sample_seed, (uint64_t)row)) >=
            d->sample_limit) {
        d->st.skipped[so->side]++;
    } else if ((rc = so_keep(so, item, (uint32_t)row, err)) != 0) {
        return rc;
    }
    if (o->ack)
        o->ack(o->ack_ctx, entity_index, kind, origin ? origin->seq : 0);
    return 0;
}

static int so_finish(ddb_output *o, ddb_error *err)
{
    side_out *so = (side_out *)o;
    int rc = diff_buckets_finish(so->d, &so->d->buckets[so->side], err);
    so->d->st.bucket_bytes[so->side] = so->d->buckets[so->side].bytes;
    o->bytes_out = so->d->buckets[so->side].bytes;
    return rc;
}

static int so_checkpoint(ddb_output *o, ddb_buf *state, ddb_error *err)
{
    (void)o;
    (void)state;
    return ddb_error_set(err, DDB_EUSAGE, "a comparison cannot be checkpointed");
}

/* Never called: side outputs belong to the diff (ddb_diff_free), and are
 * not passed to ddb_output_free. */
static void so_free(ddb_output *o)
{
    (void)o;
}

static const ddb_output_vtable side_vt = {so_put, so_finish, so_free, so_checkpoint,
                                          NULL,   NULL,      NULL};

static void side_free(side_out *so)
{
    if (so == NULL)
        return;
    ddb_arena_free(so->arena);
    ddb_buf_dispose(&so->key);
    ddb_buf_dispose(&so->val);
    ddb_buf_dispose(&so->json);
    ddb_buf_dispose(&so->item_key);
    for (size_t i = 0; so->retype && i < so->n_entities; i++)
        free(so->retype[i]);
    free(so->retype);
    free(so->row_of);
    free(so);
}

/* Where side B's mapping b declares a field with another type than a. */
static int retypes(side_out *so, const ddb_mapping *b, const ddb_mapping *a)
{
    for (size_t i = 0; a && b && a != b && i < b->n_entities; i++) {
        const ddb_entity *eb = &b->entities[i], *ea = ddb_mapping_entity(a, eb->name);
        for (size_t f = 0; ea && f < eb->n_fields; f++) {
            const ddb_field *fb = &eb->fields[f];
            int fa = ddb_entity_field_index(ea, fb->name, fb->name_len);
            if (fa < 0 || ea->fields[fa].type == fb->type)
                continue;
            if (so->retype == NULL &&
                (so->retype = calloc(b->n_entities, sizeof(ddb_type *))) == NULL)
                return DDB_ENOMEM;
            if (so->retype[i] == NULL) {
                if ((so->retype[i] = malloc(eb->n_fields * sizeof(ddb_type))) == NULL)
                    return DDB_ENOMEM;
                for (size_t k = 0; k < eb->n_fields; k++)
                    so->retype[i][k] = DDB_TYPE_NONE;
            }
            so->retype[i][f] = ea->fields[fa].type;
        }
    }
    return 0;
}

int ddb_diff_side(ddb_diff *d, int side, ddb_output **out, ddb_error *err)
{
    side_out *so;
    const ddb_mapping *m;
    assert(side == 0 || side == 1);
    so = d->sides[side];
    m = d->map[side];
    *out = NULL;
    if (so == NULL) {
        if ((so = calloc(1, sizeof(*so))) == NULL || ddb_arena_new(&so->arena, 0) != 0 ||
            (so->row_of = calloc(m ? m->n_entities + 1 : 1, sizeof(int))) == NULL) {
            side_free(so);
            return ddb_error_set(err, DDB_ENOMEM, "out of memory");
        }
        so->base.vt = &side_vt;
        so->base.writes_at_once = 1;
        so->d = d;
        so->side = side;
        for (size_t i = 0; m && i < m->n_entities; i++)
            so->row_of[i] = find_row(d, m->entities[i].name);
        so->n_entities = m ? m->n_entities : 0;
        d->sides[side] = so;
        if (side == 1 && retypes(so, m, d->map[0]) != 0)
            return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    }
    *out = &so->base;
    return 0;
}

/* ------------------------------------------------------------ lifecycle */

/* The key attributes named in o, copied: a copy that fails is an error, as
 * an item keyed by fewer names (or by none, every item under one empty key)
 * would be compared with the wrong records. */
static int copy_key_attrs(ddb_diff *d, const ddb_diff_opts *o, ddb_error *err)
{
    if (o->n_key_attrs == 0)
        return 0;
    if ((d->key_attrs = calloc(o->n_key_attrs, sizeof(char *))) == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    for (size_t i = 0; i < o->n_key_attrs; i++) {
        assert(o->key_attrs[i] != NULL);
        if ((d->key_attrs[i] = strdup(o->key_attrs[i])) == NULL)
            return ddb_error_set(err, DDB_ENOMEM, "out of memory");
        d->n_key_attrs++;
    }
    return 0;
}

int ddb_diff_new(ddb_diff **out, const ddb_mapping *a, const ddb_mapping *b, const ddb_diff_opts *o,
                 ddb_error *err)
{
    ddb_diff *d = calloc(1, sizeof(*d));
    const char *dir = o->work_dir && *o->work_dir ? o->work_dir : ".";
    int rc = 0;

    *out = NULL;
    if (d == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    d->o = *o;
    d->o.fanout = o->fanout ? o->fanout : 64;
    d->o.max_memory = o->max_memory ? o->max_memory : (size_t)256 << 20;
    d->map[0] = a;
    d->map[1] = b;
    if (a == NULL && b == NULL && o->n_key_attrs == 0) {
        rc = ddb_error_set(err, DDB_EUSAGE,
                           "items compared without a mapping need the names "
                           "of their key attributes");
        goto done;
    }
    if ((rc = make_rows(d, err)) != 0)
        goto done;
    if ((rc = copy_key_attrs(d, o, err)) != 0)
        goto done;
    d->sampling = o->sample > 0 && o->sample < 1;
    d->sample_limit = d->sampling ? (uint64_t)(o->sample * 18446744073709551616.0) : UINT64_MAX;
    if ((d->work = malloc(strlen(dir) + 32)) == NULL) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto done;
    }
    sprintf(d->work, "%s/.ddbpipe-diff-XXXXXX", dir);
    if (mkdtemp(d->work) == NULL) {
        rc = ddb_error_set(err, DDB_EIO, "cannot create a work folder in %s: %s", dir,
                           strerror(errno));
        free(d->work);
        d->work = NULL;
        goto done;
    }
    for (int s = 0; s < 2; s++) {
        d->buckets[s].prefix = malloc(strlen(d->work) + 8);
        if (d->buckets[s].prefix == NULL) {
            rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
            goto done;
        }
        sprintf(d->buckets[s].prefix, "%s/L0-", d->work);
    }
    d->st.rows = d->rows;
    d->st.n_rows = d->n_rows;
    *out = d;
    d = NULL;
done:
    ddb_diff_free(d);
    return rc;
}

/* Removes the work folder and what is left in it. */
static void remove_work(const char *work)
{
    DIR *dir = opendir(work);
    struct dirent *de;
    if (dir != NULL) {
        while ((de = readdir(dir)) != NULL) {
            char path[4096];
            if (de->d_name[0] == '.')
                continue;
            snprintf(path, sizeof(path), "%s/%s", work, de->d_name);
            unlink(path);
        }
        closedir(dir);
    }
    rmdir(work);
}

void ddb_diff_free(ddb_diff *d)
{
    if (d == NULL)
        return;
    for (int s = 0; s < 2; s++) {
        diff_buckets_dispose(d, &d->buckets[s]);
        side_free(d->sides[s]);
    }
    if (d->work != NULL)
        remove_work(d->work);
    free(d->work);
    for (size_t i = 0; i < d->n_rows; i++) {
        free((char *)d->rows[i].name);
        free(d->defs[i].key_fields);
    }
    free(d->rows);
    free(d->defs);
    for (size_t i = 0; i < d->n_key_attrs; i++)
        free(d->key_attrs[i]);
    free(d->key_attrs);
    free(d);
}

const ddb_diff_stats *ddb_diff_get_stats(const ddb_diff *d)
{
    return &d->st;
}
