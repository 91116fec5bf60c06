/*
 * Hive-style partitioned output: DIR/FIELD=value/part-N.<ext>. A bounded
 * set of files is open at once (an LRU), so memory stays flat however many
 * values the field takes; a value whose file was closed gets a new part.
 * A Parquet file that reaches its size (ddb_writer_opts'
 * parquet_max_file_bytes) is closed too, and goes on in a new part. Without
 * a field, the same writer makes an entity's parts by size alone:
 * DIR/part-NNNNN.<ext>.
 */
#include "write/output_partition.h"

#include "write/parquet.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct part_slot {
    char *folder; /* FIELD=value, escaped */
    char *path;
    ddb_writer *w;
    uint64_t last; /* the tick of its last record: the smallest is closed first */
} part_slot;

typedef struct part_writer {
    ddb_writer base;
    char *dir, *ext;
    ddb_out_format fmt;
    ddb_entity ent;      /* the entity without the field: the folder holds it */
    const ddb_entity *e; /* &ent, or NULL: items (no entity) */
    const ddb_field *key; /* the field (the caller's entity's), or NULL: parts by size */
    size_t key_index;
    ddb_writer_opts wo;
    ddb_partition_io io;
    part_slot *slots;
    size_t n_open, max_open;
    uint64_t tick, next_part;
    ddb_buf folder;
    ddb_attr *attrs; /* the record without the field */
    size_t attrs_cap;
} part_writer;

void ddb_hive_escape(ddb_buf *out, const char *value, size_t n)
{
    static const char special[] = "\"#%'*/:=?\\{[]^";
    if (n == 0) {
        ddb_buf_puts(out, DDB_HIVE_DEFAULT_PARTITION);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)value[i];
        /* NUL too: no file name can hold it */
        if (c < 0x20 || c == 0x7f || memchr(special, c, sizeof(special) - 1) != NULL)
            ddb_buf_printf(out, "%%%02X", c);
        else
            ddb_buf_putc(out, (char)c);
    }
}

/* FIELD=value of rec into w->folder; *at the field's attribute, or -1. */
static void folder_of(part_writer *w, const ddb_map *rec, size_t n_declared, ptrdiff_t *at)
{
    const ddb_field *fd = w->key;
    const ddb_value *v = NULL;
    *at = -1;
    for (size_t i = 0; i < n_declared; i++) {
        const ddb_attr *a = &rec->attrs[i];
        if (a->name.ptr == fd->name ||
            (a->name.len == fd->name_len && memcmp(a->name.ptr, fd->name, fd->name_len) == 0)) {
            *at = (ptrdiff_t)i;
            v = &a->value;
            break;
        }
    }
    ddb_buf_clear(&w->folder);
    ddb_hive_escape(&w->folder, fd->name, fd->name_len);
    ddb_buf_putc(&w->folder, '=');
    if (v == NULL || v->type != fd->type)
        ddb_buf_puts(&w->folder, DDB_HIVE_DEFAULT_PARTITION);
    else if (v->type == DDB_TYPE_BOOL)
        ddb_buf_puts(&w->folder, v->u.boolean ? "true" : "false");
    else
        ddb_hive_escape(&w->folder, v->u.s.ptr, v->u.s.len);
    ddb_buf_putc(&w->folder, '\0');
}

/* rec without the field's attribute into w->attrs. A value the folder
 * cannot say (NULL, another type, "" which Hive takes for no value) stays,
 * undeclared, where the writer keeps such values (_extra): nothing is lost. */
static int without_field(part_writer *w, const ddb_map *rec, ptrdiff_t at, ddb_map *out,
                         size_t *n_declared)
{
    size_t n = 0;
    if (rec->count > w->attrs_cap) {
        ddb_attr *a = realloc(w->attrs, rec->count * sizeof(*a));
        if (a == NULL)
            return DDB_ENOMEM;
        w->attrs = a;
        w->attrs_cap = rec->count;
    }
    for (size_t i = 0; i < rec->count; i++)
        if ((ptrdiff_t)i != at)
            w->attrs[n++] = rec->attrs[i];
    if (at >= 0) {
        const ddb_value *v = &rec->attrs[at].value;
        (*n_declared)--;
        if (v->type != w->key->type || (v->type == DDB_TYPE_S && v->u.s.len == 0))
            w->attrs[n++] = rec->attrs[at];
    }
    out->attrs = w->attrs;
    out->count = n;
    return 0;
}

/* Finishes slot i's file and frees the slot (the last one moves there). */
static int close_slot(part_writer *w, size_t i, ddb_error *err)
{
    part_slot *s = &w->slots[i];
    int rc = ddb_writer_finish(s->w, err);
    if (rc == 0)
        rc = w->io.done(w->io.ctx, s->path, s->w->sink, err);
    ddb_writer_free(s->w);
    free(s->folder);
    free(s->path);
    w->slots[i] = w->slots[--w->n_open];
    return rc;
}

static int open_slot(part_writer *w, part_slot **out, ddb_error *err)
{
    part_slot *s;
    ddb_sink *sink = NULL;
    size_t n;
    int rc;
    if (w->n_open == w->max_open) {
        size_t lru = 0;
        for (size_t i = 1; i < w->n_open; i++)
            if (w->slots[i].last < w->slots[lru].last)
                lru = i;
        if ((rc = close_slot(w, lru, err)) != 0)
            return rc;
    }
    s = &w->slots[w->n_open];
    memset(s, 0, sizeof(*s));
    n = strlen(w->dir) + w->folder.len + strlen(w->ext) + 40;
    if ((s->folder = strdup(w->folder.ptr)) == NULL || (s->path = malloc(n)) == NULL) {
        free(s->folder);
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    }
    if (w->key != NULL)
        snprintf(s->path, n, "%s/%s/part-%llu.%s", w->dir, s->folder,
                 (unsigned long long)w->next_part++, w->ext);
    else /* five digits: the parts list in order */
        snprintf(s->path, n, "%s/part-%05llu.%s", w->dir, (unsigned long long)w->next_part++,
                 w->ext);
    w->n_open++;
    if ((rc = w->io.open(w->io.ctx, s->path, &sink, err)) == 0)
        rc = ddb_writer_new(&s->w, w->fmt, sink, w->e, &w->wo, err);
    if (rc != 0) {
        free(s->folder);
        free(s->path);
        w->n_open--;
        return rc;
    }
    *out = s;
    return 0;
}

static int part_write(ddb_writer *base, const ddb_map *rec, size_t n_declared, ddb_error *err)
{
    part_writer *w = (part_writer *)base;
    part_slot *s = NULL;
    ddb_map m;
    ptrdiff_t at = -1;
    int rc;
    m = *rec;
    ddb_buf_clear(&w->folder);
    ddb_buf_putc(&w->folder, '\0');
    if (w->key != NULL)
        folder_of(w, rec, n_declared, &at);
    if (w->folder.oom || (w->key != NULL && without_field(w, rec, at, &m, &n_declared) != 0))
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    for (size_t i = 0; i < w->n_open && s == NULL; i++)
        if (strcmp(w->slots[i].folder, w->folder.ptr) == 0)
            s = &w->slots[i];
    if (s == NULL && (rc = open_slot(w, &s, err)) != 0)
        return rc;
    s->last = ++w->tick;
    if ((rc = ddb_writer_write(s->w, &m, n_declared, err)) != 0)
        return rc;
    base->records++;
    /* at its size: finished now, the next record of its folder in a new part */
    if (pq_writer_full(s->w))
        return close_slot(w, (size_t)(s - w->slots), err);
    return 0;
}

static int part_prepare(ddb_writer *base, ddb_error *err)
{
    part_writer *w = (part_writer *)base;
    part_slot *s;
    int rc;
    /* parts of an entity without records: one part without rows, so its folder reads */
    if (w->key == NULL && w->next_part == 0) {
        ddb_buf_clear(&w->folder);
        ddb_buf_putc(&w->folder, '\0');
        if (w->folder.oom)
            return ddb_error_set(err, DDB_ENOMEM, "out of memory");
        if ((rc = open_slot(w, &s, err)) != 0)
            return rc;
    }
    for (size_t i = 0; i < w->n_open; i++)
        if ((rc = ddb_writer_prepare(w->slots[i].w, err)) != 0)
            return rc;
    return 0;
}

static int part_finish(ddb_writer *base, ddb_error *err)
{
    part_writer *w = (part_writer *)base;
    int rc;
    while (w->n_open > 0)
        if ((rc = close_slot(w, w->n_open - 1, err)) != 0)
            return rc;
    return 0;
}

static void part_free(ddb_writer *base)
{
    part_writer *w = (part_writer *)base;
    for (size_t i = 0; i < w->n_open; i++) {
        ddb_writer_free(w->slots[i].w);
        free(w->slots[i].folder);
        free(w->slots[i].path);
    }
    free(w->slots);
    if (w->key != NULL) /* the entity without the field: its own array */
        free(w->ent.fields);
    free(w->wo.parquet_plans);
    free(w->attrs);
    free(w->dir);
    free(w->ext);
    ddb_buf_dispose(&w->folder);
}

static const ddb_writer_vtable part_vt = {part_write, part_free, part_finish, part_prepare};

int ddb_partitioned_number_type(const ddb_writer *base, size_t col, int *as_text, int *scale)
{
    const part_writer *w = (const part_writer *)base;
    const pq_number_plan *p;
    if (base->vt != &part_vt || w->wo.parquet_plans == NULL)
        return -1;
    p = &w->wo.parquet_plans[col];
    /* undecided (no value in any file): each footer says DECIMAL(38,0) */
    *as_text = p->decided && p->as_text;
    *scale = p->decided ? p->scale : 0;
    return 0;
}

int ddb_writer_new_partitioned(ddb_writer **out, const char *dir, ddb_out_format fmt,
                               const char *ext, const ddb_entity *e, size_t field,
                               const ddb_writer_opts *wo, const ddb_partition_io *io,
                               size_t max_open, ddb_error *err)
{
    part_writer *w;
    ddb_type t;
    assert(field < e->n_fields);
    *out = NULL;
    t = e->fields[field].type;
    if (t != DDB_TYPE_S && t != DDB_TYPE_N && t != DDB_TYPE_BOOL)
        return ddb_error_set(err, DDB_EUSAGE,
                             "--partition-by %s: a folder holds one value of type S, N or BOOL, "
                             "and %s.%s is another type",
                             e->fields[field].name, e->name, e->fields[field].name);
    if ((w = calloc(1, sizeof(*w))) == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    w->base.vt = &part_vt;
    w->fmt = fmt;
    w->wo = *wo;
    w->io = *io;
    w->max_open = max_open ? max_open : DDB_PARTITION_OPEN_MAX;
    w->key = &e->fields[field];
    w->key_index = field;
    w->ent = *e;
    w->ent.n_fields = e->n_fields - 1;
    w->dir = strdup(dir);
    w->ext = strdup(ext);
    w->slots = calloc(w->max_open, sizeof(*w->slots));
    w->ent.fields = malloc((e->n_fields ? e->n_fields : 1) * sizeof(ddb_field));
    /* the files of one folder hold one type per column (a column per field
     * and _extra) */
    if (fmt == DDB_OUT_PARQUET)
        w->wo.parquet_plans = calloc(pq_entity_columns(e), sizeof(*w->wo.parquet_plans));
    if (w->dir == NULL || w->ext == NULL || w->slots == NULL || w->ent.fields == NULL ||
        (fmt == DDB_OUT_PARQUET && w->wo.parquet_plans == NULL)) {
        ddb_writer_free(&w->base);
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    }
    /* shallow copies: the fields stay the caller's entity's */
    memcpy(w->ent.fields, e->fields, field * sizeof(ddb_field));
    memcpy(w->ent.fields + field, e->fields + field + 1, (e->n_fields - field - 1) * sizeof(ddb_field));
    w->e = &w->ent;
    *out = &w->base;
    return 0;
}

int ddb_writer_new_parts(ddb_writer **out, const char *dir, const char *ext, const ddb_entity *e,
                         const ddb_writer_opts *wo, const ddb_partition_io *io, ddb_error *err)
{
    part_writer *w = calloc(1, sizeof(*w));
    *out = NULL;
    if (w == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    w->base.vt = &part_vt;
    w->fmt = DDB_OUT_PARQUET;
    w->wo = *wo;
    w->io = *io;
    w->max_open = 1;
    if (e != NULL) {
        w->ent = *e;
        w->e = &w->ent;
    }
    w->dir = strdup(dir);
    w->ext = strdup(ext);
    w->slots = calloc(1, sizeof(*w->slots));
    /* every part holds one type per number column (a column per field and _extra) */
    w->wo.parquet_plans = calloc(e ? pq_entity_columns(e) : wo->n_keys + 1, sizeof(*w->wo.parquet_plans));
    if (w->dir == NULL || w->ext == NULL || w->slots == NULL || w->wo.parquet_plans == NULL) {
        ddb_writer_free(&w->base);
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    }
    *out = &w->base;
    return 0;
}
