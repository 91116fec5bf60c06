/*
 * File output: one writer per entity (and per entity's deletes), opened on
 * first use except for the entities' main files, which exist from the start
 * (each a slot: output_slots.c opens them).
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/array.h"
#include "ddbpipe/json.h"
#include "ddbpipe/output.h"
#include "ddbpipe/output_file.h"
#include "ddbpipe/s3.h"
#include "ddbpipe/schema.h"
#include "ddbpipe/select.h"
#include "ddbpipe/store.h"
#include "ddbpipe/fs.h"
#include "ddbpipe/sink.h"
#include "write/output_file_internal.h"
#include "write/output_partition.h"
#include "write/parquet.h"

static int fo_put(ddb_output *o, int index, ddb_record_kind kind, const ddb_map *rec,
                  size_t n_declared, const ddb_record *origin, ddb_error *err)
{
    file_output *fo = (file_output *)o;
    size_t i = index < 0 || fo->opts.mapping == NULL ? 0 : (size_t)index;
    file_slot *slot = kind == DDB_REC_DELETE ? &fo->dels[i] : &fo->puts[i];
    ddb_error werr; /* not zeroed whole: a kilobyte per record */
    int rc;

    ddb_error_clear(&werr);
    if (slot->w == NULL && (rc = ddb_file_slot_open(slot, fo, fo->opts.mapping ? (int)i : -1,
                                                    kind == DDB_REC_DELETE, err)) != 0)
        return rc;
    if (origin != NULL && origin->formatted != NULL && ddb_writer_spill(slot->w, NULL) != NULL)
        rc = ddb_writer_write_cells(slot->w, rec, origin->formatted, &werr); /* fo_format's */
    else if (origin != NULL && origin->formatted != NULL) /* fo_format made it */
        rc = ddb_writer_write_line(slot->w, origin->formatted, origin->formatted_len, rec,
                                   fo->opts.records ? n_declared : 0, &werr);
    else
        rc = ddb_writer_write(slot->w, rec, fo->opts.records ? n_declared : 0, &werr);
    if (rc == DDB_WRITER_REFUSED) { /* not exactly writable there: a reject, not a failure */
        ddb_output_refuse(o, index, kind, rec, origin, werr.message, &fo->scratch);
        return 0;
    }
    if (rc != 0)
        return ddb_error_set(err, rc, "%s", werr.message);
    if (fo->schema != NULL && kind != DDB_REC_DELETE && index >= 0) {
        if (origin != NULL && origin->note != NULL) /* fo_note's */
            ddb_schema_observe_note(fo->schema, (size_t)index, origin->note, origin->note_len);
        else
            ddb_schema_observe(fo->schema, (size_t)index, rec, n_declared);
    }
    if (o->ack)
        o->ack(o->ack_ctx, index, kind, origin ? origin->seq : 0);
    return 0;
}

/* The line the writer of entity index would write for rec, from the format
 * made with the writers' own options before any thread ran. */
static int fo_format(const ddb_output *o, int index, ddb_record_kind kind, const ddb_map *rec,
                     size_t n_declared, ddb_buf *line, struct ddb_format_scratch *s)
{
    const file_output *fo = (const file_output *)o;
    size_t i = index < 0 || fo->opts.mapping == NULL ? 0 : (size_t)index;
    (void)kind; /* an entity's deletes file is written as its main one */
    if (fo->cells[i])
        return ddb_csv_union_cells(line, s, rec, fo->opts.delimiter);
    if (fo->formats[i] == NULL)
        return 1;
    return ddb_line_format_put(fo->formats[i], line, s, rec, fo->opts.records ? n_declared : 0);
}

/* What fo_put observes of rec for the column statistics, as a note
 * (ddb_schema_note), made on the thread that made rec. */
static int fo_note(const ddb_output *o, int index, ddb_record_kind kind, const ddb_map *rec,
                   size_t n_declared, ddb_buf *note)
{
    const file_output *fo = (const file_output *)o;
    assert(fo->schema != NULL && fo->opts.mapping != NULL); /* set only with statistics */
    if (kind == DDB_REC_DELETE || index < 0)
        return 1;
    return ddb_schema_note(fo->opts.mapping, (size_t)index, rec, n_declared, note);
}

/* fo->formats: an entity's files have lines of their own unless a CSV's
 * columns come from its records, or its records go to the partition their
 * value names or to files of parts. */
static int make_formats(file_output *fo)
{
    ddb_writer_opts wo = ddb_file_slot_writer_opts(fo);
    if ((fo->formats = calloc(fo->n, sizeof(*fo->formats))) == NULL ||
        (fo->cells = calloc(fo->n, 1)) == NULL)
        return DDB_ENOMEM;
    for (size_t i = 0; i < fo->n; i++) {
        const ddb_entity *e = ddb_file_slot_entity(fo, fo->opts.mapping ? (int)i : -1);
        /* decided once, not per record */
        fo->cells[i] = (unsigned char)ddb_file_slot_union_csv(fo, e);
        if (ddb_file_slot_partitioned(fo, e))
            continue; /* as ddb_file_slot_open: a writer of its own, of records, not lines */
        if (ddb_line_format_new(&fo->formats[i], fo->opts.format, fo->opts.records ? e : NULL,
                                &wo) != 0)
            return DDB_ENOMEM;
    }
    return 0;
}

/* A file finished (rc 0) is listed among those written. */
static int commit(file_output *fo, int rc, const char *path, ddb_error *err)
{
    char **nc;
    if (rc != 0)
        return rc;
    nc = ddb_array_reserve(fo->committed, fo->n_committed, &fo->cap_committed, sizeof(*nc), 16);
    if (nc == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    fo->committed = nc;
    if ((fo->committed[fo->n_committed] = strdup(path)) == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    fo->n_committed++;
    return 0;
}

typedef struct schema_files {
    const ddb_schema *schema;
    const ddb_schema_file *files;
    size_t n;
} schema_files;

static int written_now(const char *name, void *ctx)
{
    const schema_files *sf = ctx;
    return ddb_schema_writes(sf->schema, sf->files, sf->n, name);
}

/* In a bucket, where nothing can be swapped in as a whole: each object is
 * replaced, then those of entities this run did not write are removed. */
static int write_schema_s3(file_output *fo, const ddb_schema_file *files, size_t n, ddb_error *err)
{
    schema_files sf = {fo->schema, files, n};
    int rc = ddb_schema_write(fo->schema, fo->opts.store, fo->opts.schema_dir, fo->opts.format,
                              fo->opts.delimiter, files, n, err);
    return rc != 0
               ? rc
               : ddb_store_remove_files(fo->opts.store, fo->opts.schema_dir, written_now, &sf, err);
}

/* Parquet: the number types entity i's files hold (decided as they were
 * written, told to the schema now they are finished). */
static void stored_types(file_output *fo, size_t i)
{
    const ddb_entity *e = &fo->opts.mapping->entities[i];
    size_t col = 0; /* the files' column: the partition field has none */
    for (size_t f = 0; f < e->n_fields; f++) {
        const ddb_field *fd = &e->fields[f];
        if (fo->puts[i].partitioned && fo->opts.partition_by != NULL &&
            strcmp(fd->name, fo->opts.partition_by) == 0)
            continue;
        /* a STRUCT's members (m >= 0) each have a column */
        for (int m = fd->n_members ? 0 : -1; m < (int)fd->n_members; m++) {
            const ddb_writer *w = fo->puts[i].w;
            int as_text = 0, scale = 0, rc;
            ddb_type t = m < 0 ? fd->type : fd->members[m].type;
            if (t == DDB_TYPE_N || t == DDB_TYPE_NS) {
                rc = fo->puts[i].partitioned ? ddb_partitioned_number_type(w, col, &as_text, &scale)
                                             : pq_writer_number_type(w, col, &as_text, &scale);
                if (rc == 0)
                    ddb_schema_set_stored(fo->schema, i, f, m, as_text, scale);
            }
            col++;
        }
    }
}

/* The entity files' types, replacing the previous run's as a whole: written
 * beside, then swapped in, so no entity of an earlier run lingers there. */
static int write_schema(file_output *fo, ddb_error *err)
{
    const char *dir = fo->opts.schema_dir;
    char *fresh = malloc(strlen(dir) + 16), *old = malloc(strlen(dir) + 16);
    ddb_schema_file *files = calloc(fo->n ? fo->n : 1, sizeof(*files));
    size_t n = 0;
    int rc = 0;

    if (fresh == NULL || old == NULL || files == NULL) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto done;
    }
    sprintf(fresh, "%s.new", dir);
    sprintf(old, "%s.old", dir);
    for (size_t i = 0; i < fo->n; i++) {
        if (fo->puts[i].w == NULL)
            continue;
        files[n].entity = i;
        files[n].partition = fo->puts[i].partitioned ? fo->opts.partition_by : NULL;
        files[n].parts = fo->puts[i].parts;
        files[n++].name = ddb_path_base(fo->puts[i].path);
        if (fo->opts.format == DDB_OUT_PARQUET)
            stored_types(fo, i);
    }
    if (ddb_s3_is_url(dir)) {
        rc = fo->opts.store != NULL
                 ? write_schema_s3(fo, files, n, err)
                 : ddb_error_set(err, DDB_EUSAGE, "%s: writing to S3 needs AWS access", dir);
        goto done;
    }
    ddb_remove_dir(fresh);
    ddb_remove_dir(old);
    if ((rc = ddb_schema_write(fo->schema, NULL, fresh, fo->opts.format, fo->opts.delimiter, files,
                               n, err)) != 0)
        goto done;
    if ((rename(dir, old) != 0 && errno != ENOENT) || rename(fresh, dir) != 0) {
        rc = ddb_error_set(err, DDB_EIO, "cannot put the column types in place at %s: %s", dir,
                           strerror(errno));
        goto done;
    }
    ddb_remove_dir(old);
done:
    free(files);
    free(fresh);
    free(old);
    return rc;
}

static int fo_finish(ddb_output *o, ddb_error *err)
{
    file_output *fo = (file_output *)o;
    int rc = 0;
    fo->finishing = 1;
    /* Two phases, so the files appear all or none: every file's data is sent
     * first (an interrupt or a failure here leaves nothing visible), then
     * each is committed (an S3 upload completed, a file renamed), which an
     * interrupt does not cut. */
    for (size_t k = 0; k < 2; k++) {
        file_slot *slots = k == 0 ? fo->puts : fo->dels;
        for (size_t i = 0; i < fo->n; i++)
            if (slots[i].w != NULL && (rc = ddb_writer_prepare(slots[i].w, err)) != 0)
                return rc;
    }
    /* Once one file is committed, all are, and the column types with them:
     * nothing here is cut by the stop flag (a second signal still ends the
     * process). */
    if (fo->opts.s3 != NULL)
        ddb_s3_hold_stop(fo->opts.s3);
    for (size_t k = 0; k < 2 && rc == 0; k++) {
        file_slot *slots = k == 0 ? fo->puts : fo->dels;
        for (size_t i = 0; i < fo->n && rc == 0; i++) {
            if (slots[i].w == NULL)
                continue;
            if (slots[i].partitioned) { /* each of its files is committed as it ends */
                rc = ddb_writer_finish(slots[i].w, err);
                continue;
            }
            if ((rc = commit(fo, ddb_writer_finish(slots[i].w, err), slots[i].path, err)) == 0)
                o->bytes_out += ddb_file_slot_sink_bytes(slots[i].w->sink);
        }
    }
    if (rc == 0 && fo->schema != NULL)
        rc = write_schema(fo, err);
    if (fo->opts.s3 != NULL)
        ddb_s3_release_stop(fo->opts.s3);
    if (rc == 0)
        fo->finishing = 0; /* all committed: a checkpoint says so */
    return rc;
}

/* {"path":..,"bytes":..} and, for an entity file, its column types so far. */
static void put_state(ddb_buf *b, int *first, ddb_sink *sink, const char *path,
                      const file_output *fo, int entity)
{
    ddb_buf_puts(b, *first ? "{\"path\":" : ",{\"path\":");
    *first = 0;
    ddb_json_put_string(b, path, strlen(path));
    ddb_buf_printf(b, ",\"bytes\":%llu", (unsigned long long)ddb_sink_file_length(sink));
    ddb_buf_puts(b, ",\"s3\":");
    if (!ddb_s3_sink_state(sink, b))
        b->len -= 6; /* not an S3 object */
    if (fo->schema != NULL && entity >= 0) {
        const char *name = fo->opts.mapping->entities[entity].name;
        ddb_buf_puts(b, ",\"entity\":");
        ddb_json_put_string(b, name, strlen(name));
        ddb_buf_puts(b, ",\"schema\":");
        ddb_schema_save(fo->schema, (size_t)entity, b);
    }
    ddb_buf_putc(b, '}');
}

static int fo_checkpoint(ddb_output *o, ddb_buf *state, ddb_error *err)
{
    file_output *fo = (file_output *)o;
    int first = 1, rc;
    /* Parts sent by the prepare half (a short last part, a gzip trailer, a
     * union CSV's rows) must not be taken for a prefix to continue: the
     * previous checkpoint stands. */
    if (fo->finishing)
        return ddb_error_set(err, DDB_EINTR, "the outputs were being finished");
    ddb_buf_putc(state, '[');
    for (size_t k = 0; k < 2; k++) {
        file_slot *slots = k == 0 ? fo->puts : fo->dels;
        for (size_t i = 0; i < fo->n; i++) {
            if (slots[i].w == NULL)
                continue;
            const char *spill_path;
            ddb_sink *spill = ddb_writer_spill(slots[i].w, &spill_path);
            if ((rc = ddb_sink_checkpoint(slots[i].w->sink, err)) != 0)
                return rc;
            put_state(state, &first, slots[i].w->sink, slots[i].path, fo,
                      k == 0 && fo->opts.mapping ? (int)i : -1);
            if (spill != NULL) {
                if ((rc = ddb_sink_checkpoint(spill, err)) != 0)
                    return rc;
                put_state(state, &first, spill, spill_path, fo, -1);
            }
        }
    }
    ddb_buf_putc(state, ']');
    return state->oom ? ddb_error_set(err, DDB_ENOMEM, "out of memory") : 0;
}

static void fo_saved(ddb_output *o)
{
    file_output *fo = (file_output *)o;
    for (size_t k = 0; k < 2; k++) {
        file_slot *slots = k == 0 ? fo->puts : fo->dels;
        for (size_t i = 0; i < fo->n; i++) {
            const char *spill_path;
            ddb_sink *spill;
            if (slots[i].w == NULL)
                continue;
            ddb_sink_saved(slots[i].w->sink);
            if ((spill = ddb_writer_spill(slots[i].w, &spill_path)) != NULL)
                ddb_sink_saved(spill);
        }
    }
}

/* The column types an entity file's checkpoint carries (none: none kept). */
static int restore_schema(file_output *fo, const ddb_value *saved, ddb_error *err)
{
    const ddb_value *ev = ddb_map_getz(&saved->u.m, "entity");
    const ddb_value *sv = ddb_map_getz(&saved->u.m, "schema");
    int e;
    if (ev == NULL && sv == NULL)
        return 0;
    if (ev == NULL || ev->type != DDB_TYPE_S || sv == NULL ||
        (e = ddb_schema_entity(fo->schema, ev->u.s.ptr, ev->u.s.len)) < 0)
        return ddb_error_set(err, DDB_EUSAGE,
                             "the saved output state is unreadable (an entity file's "
                             "\"entity\" and \"schema\")");
    return ddb_schema_restore(fo->schema, (size_t)e, sv, err);
}

/* Reads the [{"path":..,"bytes":..}] a checkpoint saved. */
static int load_resume(file_output *fo, const char *json, ddb_error *err)
{
    ddb_json_parser *p = NULL;
    ddb_arena *a = NULL;
    ddb_value root;
    int rc = 0;
    if (ddb_json_parser_new(&p) != 0 || ddb_arena_new(&a, 0) != 0) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto done;
    }
    if (ddb_json_parse_plain(p, &root, json, strlen(json), a, err) != 0 ||
        root.type != DDB_TYPE_L) {
        rc = ddb_error_set(err, DDB_EUSAGE, "the saved output state is unreadable");
        goto done;
    }
    fo->resume_paths = calloc(root.u.l.count + 1, sizeof(char *));
    fo->resume_bytes = calloc(root.u.l.count + 1, sizeof(uint64_t));
    fo->resume_s3 = calloc(root.u.l.count + 1, sizeof(char *));
    if (fo->resume_paths == NULL || fo->resume_bytes == NULL || fo->resume_s3 == NULL) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < root.u.l.count; i++) {
        const ddb_value *e = &root.u.l.items[i], *pv, *sv;
        if (e->type != DDB_TYPE_M || (pv = ddb_map_getz(&e->u.m, "path")) == NULL ||
            pv->type != DDB_TYPE_S ||
            ddb_value_u64(ddb_map_getz(&e->u.m, "bytes"), &fo->resume_bytes[fo->n_resume]) != 0) {
            rc = ddb_error_set(err, DDB_EUSAGE,
                               "the saved output state is unreadable (\"outputs\"[%zu] must be "
                               "{\"path\": text, \"bytes\": count})",
                               i);
            goto done;
        }
        if ((fo->resume_paths[fo->n_resume] = strndup(pv->u.s.ptr, pv->u.s.len)) == NULL) {
            rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
            goto done;
        }
        if ((sv = ddb_map_getz(&e->u.m, "s3")) != NULL && sv->type == DDB_TYPE_S &&
            (fo->resume_s3[fo->n_resume] = strndup(sv->u.s.ptr, sv->u.s.len)) == NULL) {
            free(fo->resume_paths[fo->n_resume]);
            rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
            goto done;
        }
        fo->n_resume++;
        if (fo->schema != NULL && (rc = restore_schema(fo, e, err)) != 0)
            goto done;
    }
done:
    ddb_arena_free(a);
    ddb_json_parser_free(p);
    return rc;
}

static void fo_free(ddb_output *o)
{
    file_output *fo = (file_output *)o;
    for (size_t i = 0; i < fo->n_resume; i++) {
        free(fo->resume_paths[i]);
        free(fo->resume_s3[i]);
    }
    free(fo->resume_paths);
    free(fo->resume_s3);
    free(fo->resume_bytes);
    for (size_t k = 0; k < 2; k++) {
        file_slot *slots = k == 0 ? fo->puts : fo->dels;
        for (size_t i = 0; slots && i < fo->n; i++) {
            ddb_writer_free(slots[i].w);
            free(slots[i].path);
        }
    }
    free(fo->puts);
    free(fo->dels);
    pq_budget_free(fo->pq_budget); /* after its files */
    for (size_t i = 0; i < fo->n_committed; i++)
        free(fo->committed[i]);
    free(fo->committed);
    for (size_t i = 0; fo->formats && i < fo->n; i++)
        ddb_line_format_free(fo->formats[i]);
    free(fo->formats);
    free(fo->cells);
    free(fo->dir);
    ddb_schema_free(fo->schema);
    ddb_buf_dispose(&fo->scratch);
}

/* no idle: a file's records are written as they come; an upload's parts in
 * flight move on in the client's loop while the input waits */
static const ddb_output_vtable file_vt = {fo_put, fo_finish, fo_free, fo_checkpoint,
                                          NULL,   fo_saved,  NULL};

int ddb_file_output_new(ddb_output **out, const ddb_file_output_opts *opts, ddb_error *err)
{
    file_output *fo = calloc(1, sizeof(*fo));
    int rc = 0;

    *out = NULL;
    if (fo == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    if (opts->format == DDB_OUT_PARQUET && (opts->resumable || opts->gzip)) {
        /* its footer describes every row group: no prefix of it can be continued */
        free(fo);
        return ddb_error_set(err, DDB_EUSAGE, "a Parquet file can be neither resumed nor gzipped");
    }
    fo->base.vt = &file_vt;
    fo->base.writes_at_once = 1;
    fo->base.format = fo_format;
    fo->opts = *opts;
    fo->dir = strdup(opts->dir);
    fo->n = opts->mapping ? opts->mapping->n_entities : 1;
    fo->puts = calloc(fo->n, sizeof(file_slot));
    fo->dels = calloc(fo->n, sizeof(file_slot));
    if (fo->dir == NULL || fo->puts == NULL || fo->dels == NULL || make_formats(fo) != 0) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto done;
    }
    if (opts->format == DDB_OUT_PARQUET && (rc = pq_budget_new(&fo->pq_budget, 0, err)) != 0)
        goto done;
    if (fo->pq_budget != NULL && opts->encode_ahead &&
        (rc = pq_budget_encode_ahead(fo->pq_budget, err)) != 0)
        goto done;
    /* A bucket's "folders" are key prefixes: nothing to make. */
    while (ddb_s3_is_url(fo->dir) && strlen(fo->dir) > 5 && fo->dir[strlen(fo->dir) - 1] == '/')
        fo->dir[strlen(fo->dir) - 1] = '\0';
    if (!ddb_s3_is_url(fo->dir) && (rc = ddb_make_dirs(fo->dir, err)) != 0)
        goto done;
    if (opts->schema_dir != NULL && opts->mapping != NULL && opts->records &&
        (rc = ddb_schema_new(&fo->schema, opts->mapping, err)) != 0)
        goto done;
    if (fo->schema != NULL) /* notes are for the column statistics */
        fo->base.note = fo_note;
    if (opts->resume_state != NULL && (rc = load_resume(fo, opts->resume_state, err)) != 0)
        goto done;
    /* The main files exist from the start, so a run that reads nothing still
     * leaves them (empty, or a CSV header), with a mapping or without. */
    if (opts->mapping != NULL && opts->records) {
        for (size_t i = 0; i < fo->n; i++)
            if ((opts->select == NULL ||
                 ddb_select_entity(opts->select, &opts->mapping->entities[i])) &&
                (rc = ddb_file_slot_open(&fo->puts[i], fo, (int)i, 0, err)) != 0)
                goto done;
    } else if (opts->mapping == NULL &&
               (rc = ddb_file_slot_open(&fo->puts[0], fo, -1, 0, err)) != 0) {
        goto done;
    }
    /* The other files the interrupted run had begun (deletes, items) go on
     * too, though this run may add nothing to them. */
    for (size_t k = 0; k < 2 && fo->n_resume > 0; k++) {
        file_slot *slots = k == 0 ? fo->puts : fo->dels;
        for (size_t i = 0; i < fo->n; i++) {
            int index = opts->mapping ? (int)i : -1;
            char *path;
            if (slots[i].w != NULL)
                continue;
            if ((path = ddb_file_slot_path(fo, index, (int)k)) == NULL) {
                rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
                goto done;
            }
            for (size_t j = 0; j < fo->n_resume && slots[i].w == NULL && rc == 0; j++)
                if (strcmp(fo->resume_paths[j], path) == 0)
                    rc = ddb_file_slot_open(&slots[i], fo, index, (int)k, err);
            free(path);
            if (rc != 0)
                goto done;
        }
    }
done:
    if (rc != 0) {
        ddb_output_free(&fo->base);
        return rc;
    }
    *out = &fo->base;
    return 0;
}

size_t ddb_file_output_paths(const ddb_output *o, const char *const **paths)
{
    const file_output *fo = (const file_output *)o;
    *paths = (const char *const *)fo->committed;
    return fo->n_committed;
}

void ddb_output_refuse(ddb_output *o, int entity, ddb_record_kind kind, const ddb_map *item,
                       const ddb_record *origin, const char *reason, ddb_buf *scratch)
{
    ddb_reject_info info;
    ddb_buf_clear(scratch);
    ddb_json_put_typed_map(scratch, item);
    info.seq = origin ? origin->seq : 0;
    info.source = origin ? origin->source : "-";
    info.line = origin ? origin->line : 0;
    info.offset = origin ? origin->offset : 0;
    info.reason = reason;
    info.item_json = scratch->ptr;
    info.item_len = scratch->len;
    info.is_delete = kind == DDB_REC_DELETE;
    if (o->reject)
        o->reject(o->ack_ctx, entity, &info);
}

void ddb_output_free(ddb_output *o)
{
    if (o == NULL)
        return;
    o->vt->free(o);
    free(o);
}
