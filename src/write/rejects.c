/*
 * The rejects file: one JSON line per rejected input with enough to find and
 * fix it (source, line, byte offset, entity, reason) and the record itself.
 * The pipeline keeps unmatched items in a file of the same kind.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ddbpipe/codec.h"
#include "ddbpipe/fs.h"
#include "ddbpipe/sink.h"
#include "ddbpipe/json.h"
#include "ddbpipe/rejects.h"
#include "ddbpipe/s3.h"

struct ddb_rejects {
    char *path;
    ddb_sink *sink; /* opened on the first reject */
    ddb_buf line;
    uint64_t count;
    int resumable;
    int resume;
    uint64_t keep_len;
    ddb_s3 *s3;        /* for a path s3://bucket/key */
    char *spool_final; /* resumable on S3: the local copy uploaded at the end */
};

/* An s3://bucket/key file: uploaded as it is written, or, resumable, kept
 * locally beside the state and uploaded whole at the end (rejects and
 * unmatched files are small, and resume like local ones). */
static int open_s3_sink(ddb_rejects *r, ddb_error *err)
{
    char *bucket = NULL, *key = NULL, *partial;
    const char *dir;
    int rc;
    if (r->s3 == NULL)
        return ddb_error_set(err, DDB_EUSAGE, "%s: writing to S3 needs AWS access", r->path);
    if (!r->resumable) {
        if ((rc = ddb_s3_parse_url(&bucket, &key, r->path, err)) == 0)
            rc = ddb_s3_sink_open(&r->sink, r->s3, bucket, key, r->path, 0, NULL, 0, err);
        free(bucket);
        free(key);
        return rc;
    }
    if ((dir = ddb_s3_spool_dir(r->s3)) == NULL)
        return ddb_error_set(err, DDB_EUSAGE, "%s: no spool folder", r->path);
    if ((rc = ddb_make_dirs(dir, err)) != 0)
        return rc;
    if ((r->spool_final = ddb_s3_local_name(dir, r->path, "")) == NULL ||
        (partial = malloc(strlen(r->spool_final) + 16)) == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    sprintf(partial, "%s.partial", r->spool_final);
    rc = ddb_sink_open_partial(&r->sink, r->spool_final, partial, r->resume, r->keep_len, err);
    free(partial);
    return rc;
}

/* Opens the file on the first line (or at once when resuming one); a .gz
 * path is compressed (a resumed one gets a new gzip member). */
/* The local file's folder, made with the first line. */
static int make_parent(ddb_rejects *r, ddb_error *err)
{
    char *slash = strrchr(r->path, '/');
    int rc = 0;
    if (slash != NULL && slash != r->path) {
        *slash = '\0';
        rc = ddb_make_dirs(r->path, err);
        *slash = '/';
    }
    return rc;
}

static int open_sink(ddb_rejects *r, ddb_error *err)
{
    size_t n = strlen(r->path);
    char *partial;
    int rc = 0;
    if (ddb_s3_is_url(r->path)) {
        rc = open_s3_sink(r, err);
    } else if ((rc = make_parent(r, err)) != 0) {
        return rc;
    } else if (!r->resumable || ddb_path_is_special(r->path)) {
        /* a device or FIFO is written into, never renamed over */
        rc = ddb_sink_open_file(&r->sink, r->path, 1, err);
    } else if ((partial = malloc(n + 16)) == NULL) {
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    } else {
        sprintf(partial, "%s.partial", r->path);
        rc = ddb_sink_open_partial(&r->sink, r->path, partial, r->resume, r->keep_len, err);
        free(partial);
    }
    if (rc == 0 && n > 3 && strcmp(r->path + n - 3, ".gz") == 0)
        rc = ddb_sink_new_gzip(&r->sink, r->sink, 0, err);
    return rc;
}

int ddb_rejects_open(ddb_rejects **out, const char *path, struct ddb_s3 *s3, int resumable,
                     int resume, uint64_t keep_len, uint64_t count, ddb_error *err)
{
    int rc = ddb_rejects_new(out, path, err);
    if (rc != 0)
        return rc;
    (*out)->s3 = s3;
    (*out)->resumable = resumable;
    (*out)->resume = resumable && resume && keep_len > 0;
    (*out)->keep_len = keep_len;
    (*out)->count = count;
    if ((*out)->resume && (rc = open_sink(*out, err)) != 0) {
        ddb_rejects_free(*out);
        *out = NULL;
    }
    return rc;
}

int ddb_rejects_new_resumable(ddb_rejects **out, const char *path, int resume, uint64_t keep_len,
                              uint64_t count, ddb_error *err)
{
    return ddb_rejects_open(out, path, NULL, 1, resume, keep_len, count, err);
}

int ddb_rejects_checkpoint(ddb_rejects *r, uint64_t *len, ddb_error *err)
{
    int rc;
    *len = 0;
    if (r->sink == NULL)
        return 0;
    if ((rc = ddb_sink_checkpoint(r->sink, err)) != 0)
        return rc;
    *len = ddb_sink_file_length(r->sink);
    return 0;
}

int ddb_rejects_new(ddb_rejects **out, const char *path, ddb_error *err)
{
    ddb_rejects *r = calloc(1, sizeof(*r));
    char *slash;
    int rc = 0;
    *out = NULL;
    if (r == NULL || (r->path = strdup(path)) == NULL) {
        free(r);
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    }
    /* A path that cannot be written fails before the run, not at the first
     * line hours into it; its folder is made with that line, so a clean run
     * leaves none behind. */
    if (!ddb_s3_is_url(r->path) && (slash = strrchr(r->path, '/')) != NULL && slash != r->path) {
        *slash = '\0';
        rc = ddb_check_dir_writable(r->path, err);
        *slash = '/';
    }
    if (rc != 0) {
        ddb_rejects_free(r);
        return rc;
    }
    *out = r;
    return 0;
}

/* {"source":..,"line":..,"offset":..,"entity":..,"reason":.. — names and
 * messages may hold any bytes, and the line must stay JSON. */
static void put_head(ddb_buf *b, const char *source, uint64_t line, uint64_t offset,
                     const char *entity, const char *reason)
{
    const char *src = source ? source : "-";
    ddb_buf_puts(b, "{\"source\":");
    ddb_json_put_text(b, src, strlen(src));
    if (line) {
        ddb_buf_puts(b, ",\"line\":");
        ddb_buf_put_u64(b, line);
    }
    ddb_buf_puts(b, ",\"offset\":");
    ddb_buf_put_u64(b, offset);
    if (entity != NULL) {
        ddb_buf_puts(b, ",\"entity\":");
        ddb_json_put_text(b, entity, strlen(entity));
    }
    ddb_buf_puts(b, ",\"reason\":");
    ddb_json_put_text(b, reason, strlen(reason));
}

void ddb_rejects_format(ddb_buf *b, const ddb_record *rec, const char *entity, const char *reason)
{
    put_head(b, rec->source, rec->line, rec->offset, entity, reason);
    if (rec->raw != NULL) {
        /* The text may be why it was rejected: keep it exact, as base64 when
         * it is not valid UTF-8 and so cannot be a JSON string. */
        if (ddb_utf8_valid(rec->raw, rec->raw_len, NULL)) {
            ddb_buf_puts(b, ",\"text\":");
            ddb_json_put_string(b, rec->raw, rec->raw_len);
        } else {
            ddb_buf_puts(b, ",\"text_base64\":\"");
            ddb_buf_put_base64(b, (const unsigned char *)rec->raw, rec->raw_len);
            ddb_buf_putc(b, '"');
        }
    } else if (rec->kind != DDB_REC_BAD) {
        ddb_buf_puts(b, rec->kind == DDB_REC_DELETE ? ",\"keys\":" : ",\"item\":");
        ddb_json_put_typed_map(b, &rec->item);
    }
    ddb_buf_puts(b, "}\n");
}

void ddb_rejects_format_info(ddb_buf *b, const ddb_reject_info *info, const char *entity)
{
    put_head(b, info->source, info->line, info->offset, entity, info->reason);
    if (info->item_json != NULL) {
        ddb_buf_puts(b, info->is_delete ? ",\"keys\":" : ",\"item\":");
        ddb_buf_append(b, info->item_json, info->item_len);
    }
    ddb_buf_puts(b, "}\n");
}

int ddb_rejects_append(ddb_rejects *r, const char *lines, size_t len, uint64_t count,
                       ddb_error *err)
{
    int rc;
    if (r->sink == NULL && (rc = open_sink(r, err)) != 0)
        return rc;
    if ((rc = ddb_sink_write(r->sink, lines, len, err)) != 0)
        return rc;
    r->count += count;
    return 0;
}

int ddb_rejects_write(ddb_rejects *r, const ddb_record *rec, const char *entity, const char *reason,
                      ddb_error *err)
{
    ddb_buf_clear(&r->line);
    ddb_rejects_format(&r->line, rec, entity, reason);
    if (r->line.oom)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    return ddb_rejects_append(r, r->line.ptr, r->line.len, 1, err);
}

int ddb_rejects_write_info(ddb_rejects *r, const ddb_reject_info *info, const char *entity,
                           ddb_error *err)
{
    ddb_buf_clear(&r->line);
    ddb_rejects_format_info(&r->line, info, entity);
    if (r->line.oom)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    return ddb_rejects_append(r, r->line.ptr, r->line.len, 1, err);
}

uint64_t ddb_rejects_count(const ddb_rejects *r)
{
    return r->count;
}

const char *ddb_rejects_path(const ddb_rejects *r)
{
    return r->path;
}

int ddb_rejects_finish(ddb_rejects *r, ddb_error *err)
{
    int rc;
    /* Nothing rejected: no file, and none left from an earlier run to be
     * taken for this one's. */
    if (r->sink == NULL && r->count == 0 && !ddb_s3_is_url(r->path)) {
        struct stat st;
        /* only a file: /dev/null, a FIFO, stays what it is */
        if (lstat(r->path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
            return 0;
        if (unlink(r->path) != 0 && errno != ENOENT && errno != ENOTDIR)
            return ddb_error_set(err, DDB_EIO, "cannot remove %s, left by an earlier run: %s",
                                 r->path, strerror(errno));
        return 0;
    }
    if (r->sink == NULL)
        return 0;
    /* The rejects are kept also after an interrupt (the outputs may have been
     * committed): the upload runs to its answer; a second signal still ends
     * the process. */
    if (r->s3 != NULL)
        ddb_s3_hold_stop(r->s3);
    if ((rc = ddb_sink_finish(r->sink, err)) == 0 && r->spool_final != NULL &&
        (rc = ddb_s3_upload_file(r->s3, r->path, r->spool_final, err)) == 0)
        unlink(r->spool_final);
    if (r->s3 != NULL)
        ddb_s3_release_stop(r->s3);
    return rc;
}

void ddb_rejects_free(ddb_rejects *r)
{
    if (r == NULL)
        return;
    ddb_sink_free(r->sink);
    free(r->spool_final);
    ddb_buf_dispose(&r->line);
    free(r->path);
    free(r);
}
