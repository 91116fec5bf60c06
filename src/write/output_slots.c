/*
 * output_slots.c — where the file output's records go (for output_file.c): per entity and
 * kind, one slot, whose writer is opened on a file of its own, on a CSV whose header waits
 * in a spill until its columns are known, or with --partition-by and --max-file-size on the
 * entity's folder, whose Hive partitions and parts the partitioned writer opens and rolls
 * through part_open and part_done.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ddbpipe/fs.h"
#include "ddbpipe/s3.h"
#include "ddbpipe/sink.h"
#include "ddbpipe/store.h"
#include "write/output_file_internal.h"
#include "write/output_partition.h"

/* Opens path for a writer: an atomic temporary file, or in resumable mode the
 * deterministic DIR/.<name>.partial, continued when the state names it. */
static int open_file_sink(ddb_sink **out, const file_output *fo, const char *path, int *appending,
                          ddb_error *err)
{
    const char *slash = strrchr(path, '/');
    size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
    char *partial;
    uint64_t keep = 0;
    int resume = 0, rc;

    const char *s3_state = NULL;

    *appending = 0;
    for (size_t i = 0; fo->opts.resumable && i < fo->n_resume; i++) {
        if (strcmp(fo->resume_paths[i], path) == 0) {
            resume = 1;
            keep = fo->resume_bytes[i];
            s3_state = fo->resume_s3[i];
        }
    }
    if (ddb_s3_is_url(path)) {
        char *bucket = NULL, *key = NULL;
        if (fo->opts.s3 == NULL)
            return ddb_error_set(err, DDB_EUSAGE, "%s: writing to S3 needs AWS access", path);
        if ((rc = ddb_s3_parse_url(&bucket, &key, path, err)) == 0)
            rc = ddb_s3_sink_open(out, fo->opts.s3, bucket, key, path, fo->opts.resumable,
                                  resume ? s3_state : NULL, keep, err);
        free(bucket);
        free(key);
        *appending = rc == 0 && resume && keep > 0;
        return rc;
    }
    if (!fo->opts.resumable)
        return ddb_sink_open_file(out, path, 1, err);
    if ((partial = malloc(strlen(path) + 16)) == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    sprintf(partial, "%.*s.%s.partial", (int)dirlen, path, path + dirlen);
    rc = ddb_sink_open_partial(out, path, partial, resume, keep, err);
    free(partial);
    *appending = resume && keep > 0;
    return rc;
}

static char *make_path(const file_output *fo, const char *base, const char *mid, const char *ext)
{
    size_t n = strlen(fo->dir) + strlen(base) + strlen(mid) + strlen(ext) + 8;
    char *path = malloc(n);
    if (path != NULL)
        snprintf(path, n, "%s/%s%s.%s%s", fo->dir, base, mid, ext, fo->opts.gzip ? ".gz" : "");
    return path;
}

static int open_sink(ddb_sink **out, const file_output *fo, const char *path, int *appending,
                     ddb_error *err)
{
    int rc = open_file_sink(out, fo, path, appending, err);
    if (rc == 0 && fo->opts.gzip)
        rc = ddb_sink_new_gzip(out, *out, 0, err);
    return rc;
}

/*
 * Where the records of a CSV without an entity wait until its header is
 * known: DIR/.<name>.spill, a dot-file the folder's check passes over (a
 * resumable run's is named for the state, and continued). An s3:// file's
 * waits on the local disk: beside the state when resumable, else in TMPDIR.
 * *out malloc'd. Returns 0, DDB_EUSAGE (resumable on S3 without a spool
 * folder), DDB_EIO, DDB_ENOMEM.
 */
static int spill_path(char **out, const file_output *fo, const char *path, ddb_error *err)
{
    const char *slash = strrchr(path, '/'), *dir = getenv("TMPDIR");
    size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
    char suffix[48];
    int rc;
    if (fo->opts.resumable)
        snprintf(suffix, sizeof(suffix), ".spill");
    else
        snprintf(suffix, sizeof(suffix), ".spill-%ld", (long)getpid());
    *out = NULL;
    if (!ddb_s3_is_url(path)) {
        if ((*out = malloc(strlen(path) + strlen(suffix) + 2)) != NULL)
            sprintf(*out, "%.*s.%s%s", (int)dirlen, path, path + dirlen, suffix);
    } else if (fo->opts.resumable) {
        if (fo->opts.s3 == NULL || (dir = ddb_s3_spool_dir(fo->opts.s3)) == NULL)
            return ddb_error_set(err, DDB_EUSAGE, "%s: no local folder to spool its rows in", path);
        if ((rc = ddb_make_dirs(dir, err)) != 0)
            return rc;
        *out = ddb_s3_local_name(dir, path, suffix);
    } else {
        *out = ddb_s3_local_name(dir != NULL && *dir ? dir : "/tmp", path, suffix);
    }
    return *out == NULL ? ddb_error_set(err, DDB_ENOMEM, "out of memory") : 0;
}

/* CSV without an entity: every attribute gets a column, so the records wait
 * in a spill file (spill_path) until the header is known. */
static int open_union_writer(file_output *fo, file_slot *slot, ddb_sink *sink,
                             const ddb_writer_opts *wo, ddb_error *err)
{
    ddb_writer_opts w = *wo;
    char *spill = NULL;
    uint64_t keep = 0;
    int resume = 0, rc;
    if ((rc = spill_path(&spill, fo, slot->path, err)) != 0) {
        ddb_sink_free(sink);
        return rc;
    }
    for (size_t i = 0; fo->opts.resumable && i < fo->n_resume; i++) {
        if (strcmp(fo->resume_paths[i], spill) == 0) {
            resume = 1;
            keep = fo->resume_bytes[i];
        }
    }
    /* An S3 object's sink drives the run's network client, whose callbacks
     * (the progress line) belong on the run's own thread: not written behind. */
    w.write_behind = wo->write_behind && !ddb_s3_is_url(slot->path);
    rc = ddb_writer_new_csv_union(&slot->w, sink, spill, resume, keep, fo->opts.resumable, &w, err);
    free(spill);
    return rc;
}

char *ddb_file_slot_path(const file_output *fo, int index, int deletes)
{
    const char *base = fo->opts.single_name ? fo->opts.single_name : "items";
    int entity = fo->opts.mapping != NULL && index >= 0;
    if (entity)
        base = fo->opts.mapping->entities[index].name;
    else if (deletes)
        base = "deletes";
    return make_path(fo, base, deletes && entity ? ".deletes" : "",
                     ddb_out_format_ext(fo->opts.format));
}

static int part_open(void *ctx, const char *path, ddb_sink **out, ddb_error *err)
{
    const file_output *fo = ctx;
    const char *slash = strrchr(path, '/');
    char *dir;
    int appending, rc = 0;
    if (!ddb_s3_is_url(path)) {
        if ((dir = strndup(path, (size_t)(slash - path))) == NULL)
            return ddb_error_set(err, DDB_ENOMEM, "out of memory");
        rc = ddb_make_dirs(dir, err);
        free(dir);
    }
    return rc != 0 ? rc : open_sink(out, fo, path, &appending, err);
}
/* A part is not listed among the files written: the folder's manifest holds
 * plain names, and a summary of one line per part would run to thousands. */
static int part_done(void *ctx, const char *path, const ddb_sink *sink, ddb_error *err)
{
    file_output *fo = ctx;
    (void)path;
    (void)err;
    fo->base.bytes_out += ddb_file_slot_sink_bytes(sink);
    return 0;
}

/* An entity's partition folder must be new: parts of an earlier run (other
 * values, other part numbers) would stay beside this run's and be read with
 * them. */
static int partition_folder_new(const file_output *fo, const char *dir, ddb_error *err)
{
    ddb_store *st = ddb_s3_is_url(dir) ? fo->opts.store : ddb_store_local();
    char **names = NULL;
    size_t n = 0;
    int rc;
    if (st == NULL)
        return 0; /* no bucket access: opening a part says so */
    rc = st->vt->list(st, dir, &names, &n, err);
    ddb_store_names_free(names, n);
    if (rc == DDB_ENOTFOUND || (rc == 0 && n == 0))
        return 0;
    if (rc != 0)
        return rc;
    return ddb_error_set(err, DDB_EUSAGE,
                         "%s holds files of an earlier run: --partition-by and --max-file-size "
                         "write a new folder (old parts would be read with the new ones); remove "
                         "it or give another --out",
                         dir);
}

/* The field of e that --partition-by names, or -1. */
static ptrdiff_t partition_field(const file_output *fo, const ddb_entity *e)
{
    for (size_t i = 0; e != NULL && fo->opts.partition_by != NULL && i < e->n_fields; i++)
        if (strcmp(e->fields[i].name, fo->opts.partition_by) == 0)
            return (ptrdiff_t)i;
    return -1;
}

int ddb_file_slot_partitioned(const file_output *fo, const ddb_entity *e)
{
    return fo->opts.records && (partition_field(fo, e) >= 0 || fo->opts.max_file_bytes > 0);
}

int ddb_file_slot_union_csv(const file_output *fo, const ddb_entity *e)
{
    if (ddb_file_slot_partitioned(fo, e))
        return 0;
    return fo->opts.format == DDB_OUT_CSV && (e == NULL || !fo->opts.records);
}

/* An entity's records in Hive folders under DIR/<Entity>[.deletes] (field
 * >= 0), or in parts of --max-file-size there (field -1; e NULL: items). */
static int open_partitioned(file_output *fo, file_slot *slot, const ddb_entity *e, ptrdiff_t field,
                            int deletes, const ddb_writer_opts *wo, ddb_error *err)
{
    ddb_partition_io io = {part_open, part_done, fo};
    const char *ext = ddb_out_format_ext(fo->opts.format);
    const char *name = e ? e->name : fo->opts.single_name ? fo->opts.single_name : "items";
    size_t n = strlen(fo->dir) + strlen(name) + strlen(ext) + 16;
    char ext_gz[32];
    int rc;
    if ((slot->path = malloc(n)) == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    snprintf(slot->path, n, "%s/%s%s", fo->dir, name, deletes ? ".deletes" : "");
    snprintf(ext_gz, sizeof(ext_gz), "%s%s", ext, fo->opts.gzip ? ".gz" : "");
    slot->partitioned = 1;
    slot->parts = fo->opts.max_file_bytes > 0;
    if ((rc = partition_folder_new(fo, slot->path, err)) != 0)
        return rc;
    if (field < 0)
        return ddb_writer_new_parts(&slot->w, slot->path, ext_gz, e, wo, &io, err);
    return ddb_writer_new_partitioned(&slot->w, slot->path, fo->opts.format, ext_gz, e,
                                      (size_t)field, wo, &io, 0, err);
}

ddb_writer_opts ddb_file_slot_writer_opts(const file_output *fo)
{
    ddb_writer_opts wo = {.delimiter = fo->opts.delimiter,
                          .extra_plain = fo->opts.extra_plain,
                          .max_columns = fo->opts.max_columns,
                          .parquet_codec = fo->opts.parquet_codec,
                          .parquet_group_rows = fo->opts.parquet_group_rows,
                          .parquet_max_file_bytes = fo->opts.max_file_bytes,
                          .parquet_budget = fo->pq_budget,
                          .typed_values = fo->opts.typed_values,
                          .keys = fo->opts.keys,
                          .n_keys = fo->opts.n_keys,
                          .write_behind = fo->opts.write_behind};
    return wo;
}

const ddb_entity *ddb_file_slot_entity(const file_output *fo, int index)
{
    return fo->opts.mapping != NULL && index >= 0 ? &fo->opts.mapping->entities[index] : NULL;
}

int ddb_file_slot_open(file_slot *slot, file_output *fo, int index, int deletes, ddb_error *err)
{
    const ddb_entity *e = ddb_file_slot_entity(fo, index);
    ddb_writer_opts wo = ddb_file_slot_writer_opts(fo);
    ddb_sink *sink = NULL;
    int rc;

    if (ddb_file_slot_partitioned(fo, e))
        return open_partitioned(fo, slot, e, partition_field(fo, e), deletes, &wo, err);
    if ((slot->path = ddb_file_slot_path(fo, index, deletes)) == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    if ((rc = open_sink(&sink, fo, slot->path, &wo.appending, err)) != 0)
        return rc;
    if (ddb_file_slot_union_csv(fo, e))
        return open_union_writer(fo, slot, sink, &wo, err);
    /* Items (convert, encode) are written whole; records follow their entity. */
    return ddb_writer_new(&slot->w, fo->opts.format, sink, fo->opts.records ? e : NULL, &wo, err);
}

uint64_t ddb_file_slot_sink_bytes(const ddb_sink *s)
{
    while (s->upstream != NULL)
        s = s->upstream;
    return s->bytes_out;
}
