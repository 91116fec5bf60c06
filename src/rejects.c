/*
 * The rejects file: one JSON line per rejected input with enough to find and
 * fix it (source, line, byte offset, entity, reason) and the record itself.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/codec.h"
#include "ddbpipe/json.h"
#include "ddbpipe/rejects.h"

struct ddb_rejects {
    char *path;
    ddb_sink *sink; /* opened on the first reject */
    ddb_buf line;
    uint64_t count;
    int resumable;
    int resume;
    uint64_t keep_len;
};

/* Opens the file on the first reject (or at once when resuming one). */
static int open_sink(ddb_rejects *r, ddb_error *err)
{
    char *partial;
    int rc;
    if (!r->resumable)
        return ddb_sink_open_file(&r->sink, r->path, 1, err);
    if ((partial = malloc(strlen(r->path) + 16)) == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    sprintf(partial, "%s.partial", r->path);
    rc = ddb_sink_open_partial(&r->sink, r->path, partial, r->resume, r->keep_len, err);
    free(partial);
    return rc;
}

int ddb_rejects_new_resumable(ddb_rejects **out, const char *path, int resume, uint64_t keep_len,
                              uint64_t count, ddb_error *err)
{
    int rc = ddb_rejects_new(out, path, err);
    if (rc != 0)
        return rc;
    (*out)->resumable = 1;
    (*out)->resume = resume && keep_len > 0;
    (*out)->keep_len = keep_len;
    (*out)->count = count;
    if ((*out)->resume && (rc = open_sink(*out, err)) != 0) {
        ddb_rejects_free(*out);
        *out = NULL;
    }
    return rc;
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
    if (r == NULL || (r->path = strdup(path)) == NULL) {
        free(r);
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    }
    *out = r;
    return 0;
}

void ddb_rejects_format(ddb_buf *b, const ddb_record *rec, const char *entity, const char *reason)
{
    const char *src = rec->source ? rec->source : "-";
    ddb_buf_puts(b, "{\"source\":");
    ddb_json_put_string(b, src, strlen(src));
    if (rec->line) {
        ddb_buf_puts(b, ",\"line\":");
        ddb_buf_put_u64(b, rec->line);
    }
    ddb_buf_puts(b, ",\"offset\":");
    ddb_buf_put_u64(b, rec->offset);
    if (entity != NULL) {
        ddb_buf_puts(b, ",\"entity\":");
        ddb_json_put_string(b, entity, strlen(entity));
    }
    ddb_buf_puts(b, ",\"reason\":");
    ddb_json_put_string(b, reason, strlen(reason));
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
    const char *src = info->source ? info->source : "-";
    ddb_buf_puts(b, "{\"source\":");
    ddb_json_put_string(b, src, strlen(src));
    if (info->line) {
        ddb_buf_puts(b, ",\"line\":");
        ddb_buf_put_u64(b, info->line);
    }
    ddb_buf_puts(b, ",\"offset\":");
    ddb_buf_put_u64(b, info->offset);
    if (entity != NULL) {
        ddb_buf_puts(b, ",\"entity\":");
        ddb_json_put_string(b, entity, strlen(entity));
    }
    ddb_buf_puts(b, ",\"reason\":");
    ddb_json_put_string(b, info->reason, strlen(info->reason));
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

int ddb_rejects_write(ddb_rejects *r, const ddb_record *rec, const char *entity,
                      const char *reason, ddb_error *err)
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
    if (r->sink == NULL)
        return 0;
    return ddb_sink_finish(r->sink, err);
}

void ddb_rejects_free(ddb_rejects *r)
{
    if (r == NULL)
        return;
    ddb_sink_free(r->sink);
    ddb_buf_dispose(&r->line);
    free(r->path);
    free(r);
}
