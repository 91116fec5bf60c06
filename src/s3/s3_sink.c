/*
 * Writing S3 objects: a multipart upload streamed as the data comes (a few
 * parts in flight), completed only by finish. An output smaller than one part
 * is one PutObject at finish. Nothing becomes visible before finish: a sink
 * freed unfinished aborts its upload, or, when resumable, leaves it open with
 * its parts recorded (ddb_s3_sink_state) and the part being filled kept in a
 * spool file, so a resumed run continues it byte for byte.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "ddbpipe/array.h"
#include "ddbpipe/fs.h"
#include "ddbpipe/json.h"
#include "s3/s3_internal.h"

enum { PART_FLYING = 0, PART_DONE, PART_FAILED };

typedef struct part {
    int num;
    int state;
    int recorded; /* 1: named by the checkpoint taken last; 2: by a saved one, spool gone */
    uint64_t size;
    char etag[128];
} part;

typedef struct s3_sink {
    ddb_sink base;
    ddb_s3 *s3;
    char *bucket, *key;
    char *upload_id; /* NULL until the first part is sent */
    ddb_buf buf;     /* the part being filled */
    part *parts;
    size_t n_parts, cap_parts;
    int flying;
    int finished;
    int failed;
    ddb_error failure;
    int resumable;
    int upload_named; /* upload_id is in a saved checkpoint: a resume may go on with it */
    int upload_taken; /* upload_id is in the checkpoint taken last, maybe never saved */
    char *spool;      /* spool file stem: <spool_dir>/<sha256 of the URL> */
    int spool_fd;
} s3_sink;

typedef struct part_req {
    s3_sink *s;
    size_t idx;
} part_req;

static int sink_fail(s3_sink *s, ddb_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int sink_fail(s3_sink *s, ddb_error *err, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ddb_error_vset(&s->failure, code, fmt, ap);
    va_end(ap);
    s->failed = 1;
    return ddb_error_set(err, code, "%s", s->failure.message);
}

/* The size of part num: parts grow every 1000 so 10,000 of them hold
 * ~55 times the base size (440 GiB at 8 MiB). */
static size_t part_size(const s3_sink *s, size_t num)
{
    return s->s3->part_size * (1 + (num - 1) / 1000);
}

static void spool_path(const s3_sink *s, int num, char *out, size_t cap)
{
    snprintf(out, cap, "%s.part%d", s->spool, num);
}

/* A new spool file for part num (resumable sinks only). */
static int spool_open(s3_sink *s, int num, int keep, ddb_error *err)
{
    char path[4096];
    if (!s->resumable)
        return 0;
    if (s->spool_fd >= 0)
        close(s->spool_fd);
    spool_path(s, num, path, sizeof(path));
    s->spool_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | (keep ? 0 : O_TRUNC), 0600);
    if (s->spool_fd < 0)
        return sink_fail(s, err, DDB_EIO, "cannot create %s (the part being written of %s): %s",
                         path, s->base.name, strerror(errno));
    return 0;
}

static int none_flying(void *ctx)
{
    return ((s3_sink *)ctx)->flying == 0;
}

static int few_flying(void *ctx)
{
    s3_sink *s = ctx;
    return s->flying < s->s3->parts_in_flight;
}

/* Runs the loop until cond holds; with cleanup, also after the run's stop
 * signal (an upload must still be aborted). */
static int wait_for(s3_sink *s, int (*cond)(void *), int cleanup, ddb_error *err)
{
    int rc;
    if (cleanup)
        ddb_s3_hold_stop(s->s3);
    rc = ddb_client_run(s->s3->client, cond, s, err);
    if (cleanup)
        ddb_s3_release_stop(s->s3);
    if (rc == 0 && !cond(s))
        rc = ddb_error_set(err, DDB_ENET, "%s: the request loop ended early", s->base.name);
    return rc;
}

static int create_upload(s3_sink *s, ddb_error *err)
{
    ddb_sigv4_header h[2];
    ddb_response resp;
    ddb_buf id = DDB_BUF_INIT;
    size_t n = 0;
    const char *p;
    int rc;

    if (s->s3->sse) {
        h[n].name = "x-amz-server-side-encryption";
        h[n++].value = s->s3->sse;
    }
    if (s->s3->sse_kms_key_id) {
        h[n].name = "x-amz-server-side-encryption-aws-kms-key-id";
        h[n++].value = s->s3->sse_kms_key_id;
    }
    rc = ddb_s3_call(s->s3, &resp, "POST", s->bucket, s->key, "uploads", h, n, NULL, 0, err);
    if (rc == 0 && !resp.ok)
        rc = ddb_s3_fail(&resp, "CreateMultipartUpload", s->bucket, s->key, err);
    p = resp.body;
    if (rc == 0 && (p == NULL || !ddb_s3_xml_take(&p, p + resp.body_len, "UploadId", &id) ||
                    id.ptr == NULL || (s->upload_id = strdup(id.ptr)) == NULL))
        rc =
            ddb_error_set(err, DDB_ENET, "s3://%s/%s: CreateMultipartUpload: no UploadId in %.200s",
                          s->bucket, s->key, resp.body ? resp.body : "the answer");
    ddb_buf_dispose(&id);
    ddb_response_dispose(&resp);
    if (rc != 0)
        s->failed = 1, s->failure = *err;
    return rc;
}

static void part_done(void *ctx, ddb_response *resp)
{
    part_req *pr = ctx;
    s3_sink *s = pr->s;
    part *p = &s->parts[pr->idx];
    s->flying--;
    if (resp->ok && ddb_response_header(resp, "etag", p->etag, sizeof(p->etag)) && p->etag[0]) {
        p->state = PART_DONE;
    } else {
        p->state = PART_FAILED;
        if (!s->failed) {
            s->failed = 1;
            ddb_error_set(&s->failure, DDB_ENET, "s3://%s/%s: UploadPart %d: %s%s%s (HTTP %ld)",
                          s->bucket, s->key, p->num, resp->error_type,
                          resp->error_type[0] ? ": " : "",
                          resp->ok ? "no ETag in the answer" : resp->message, resp->http_status);
        }
    }
    free(pr);
}

/* Sends the buffered bytes as the next part. */
static int send_part(s3_sink *s, ddb_error *err)
{
    char query[1024], md5[25];
    ddb_sigv4_header h[1];
    ddb_http_call hc;
    ddb_buf url = DDB_BUF_INIT, q = DDB_BUF_INIT;
    part_req *pr;
    part *p;
    int rc;

    if (s->upload_id == NULL && (rc = create_upload(s, err)) != 0)
        return rc;
    if (s->n_parts >= DDB_S3_MAX_PARTS)
        return sink_fail(s, err, DDB_EIO, "%s: more than %u parts", s->base.name, DDB_S3_MAX_PARTS);
    if (s->flying >= s->s3->parts_in_flight && (rc = wait_for(s, few_flying, 0, err)) != 0)
        return rc;
    if (s->failed)
        return ddb_error_set(err, s->failure.code, "%s", s->failure.message);
    if ((p = ddb_array_reserve(s->parts, s->n_parts, &s->cap_parts, sizeof(*p), 16)) == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    s->parts = p;
    if ((pr = calloc(1, sizeof(*pr))) == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    p = &s->parts[s->n_parts];
    memset(p, 0, sizeof(*p));
    p->num = (int)s->n_parts + 1;
    p->size = s->buf.len;
    pr->s = s;
    pr->idx = s->n_parts;
    ddb_buf_printf(&q, "partNumber=%d&uploadId=", p->num);
    ddb_s3_encode(&q, s->upload_id, strlen(s->upload_id), 0);
    snprintf(query, sizeof(query), "%s", q.ptr ? q.ptr : "");
    ddb_s3_content_md5(md5, s->buf.ptr ? s->buf.ptr : "", s->buf.len);
    h[0].name = "Content-MD5";
    h[0].value = md5;
    memset(&hc, 0, sizeof(hc));
    rc = ddb_s3_url(s->s3, &url, &hc.region, s->bucket, s->key, query);
    hc.method = "PUT";
    hc.url = url.ptr;
    hc.service = "s3";
    hc.headers = h;
    hc.n_headers = 1;
    hc.body = s->buf.ptr;
    hc.body_len = s->buf.len;
    hc.sign_flags = DDB_SIGV4_SIGN_BODY | DDB_SIGV4_PATH_ENCODED;
    if (rc == 0 && !q.oom)
        rc = ddb_client_submit_http(s->s3->client, &hc, part_done, pr, err);
    else
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
    ddb_buf_dispose(&url);
    ddb_buf_dispose(&q);
    if (rc != 0) {
        free(pr);
        return rc;
    }
    s->n_parts++;
    s->flying++;
    ddb_buf_clear(&s->buf);
    return spool_open(s, (int)s->n_parts + 1, 0, err);
}

static int s3_write(ddb_sink *sink, const void *data, size_t len, ddb_error *err)
{
    s3_sink *s = (s3_sink *)sink;
    const char *p = data;
    int rc;
    if (s->failed)
        return ddb_error_set(err, s->failure.code, "%s", s->failure.message);
    if (s->finished)
        return ddb_error_set(err, DDB_EINVAL, "%s: write after finish", sink->name);
    while (len > 0) {
        size_t room = part_size(s, s->n_parts + 1) - s->buf.len, take = len < room ? len : room;
        if (ddb_buf_append(&s->buf, p, take) != 0)
            return ddb_error_set(err, DDB_ENOMEM, "out of memory writing %s", sink->name);
        if (s->resumable && write(s->spool_fd, p, take) != (ssize_t)take)
            return sink_fail(s, err, DDB_EIO, "cannot write the spool file of %s: %s", sink->name,
                             strerror(errno));
        p += take;
        len -= take;
        if (s->buf.len == part_size(s, s->n_parts + 1) && (rc = send_part(s, err)) != 0)
            return rc;
    }
    return 0;
}

static int s3_flush(ddb_sink *sink, ddb_error *err)
{
    (void)sink;
    (void)err;
    return 0; /* parts go when they are full: S3 has no partial append */
}

static void remove_spool(s3_sink *s, int num)
{
    char path[4096];
    spool_path(s, num, path, sizeof(path));
    unlink(path);
}

static int complete_upload(s3_sink *s, ddb_error *err)
{
    ddb_buf body = DDB_BUF_INIT, q = DDB_BUF_INIT, code = DDB_BUF_INIT;
    ddb_response resp;
    int rc = 0;

    memset(&resp, 0, sizeof(resp));
    ddb_buf_puts(&body, "<CompleteMultipartUpload>");
    for (size_t i = 0; i < s->n_parts; i++) {
        ddb_buf_printf(&body, "<Part><PartNumber>%d</PartNumber><ETag>", s->parts[i].num);
        for (const char *e = s->parts[i].etag; *e; e++)
            ddb_buf_puts(&body, *e == '"' ? "&quot;" : (char[2]){*e, 0});
        ddb_buf_puts(&body, "</ETag></Part>");
    }
    ddb_buf_puts(&body, "</CompleteMultipartUpload>");
    ddb_buf_puts(&q, "uploadId=");
    ddb_s3_encode(&q, s->upload_id, strlen(s->upload_id), 0);
    if (body.oom || q.oom)
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
    /* Cut by an interrupt, its answer would be lost while S3 may have done
     * it: the run would report as not written an object it cannot take
     * back. So it runs to its answer (a second interrupt still ends the
     * process). S3 may answer 200 and still fail: the error is in the body.
     * It is retried like a 500 (completing the same parts again is
     * harmless). */
    ddb_s3_hold_stop(s->s3);
    for (int attempt = 0; rc == 0 && attempt < 5; attempt++) {
        const char *p;
        ddb_response_dispose(&resp);
        if ((rc = ddb_s3_call(s->s3, &resp, "POST", s->bucket, s->key, q.ptr, NULL, 0, body.ptr,
                              body.len, err)) != 0)
            break;
        if (!resp.ok) {
            rc = ddb_s3_fail(&resp, "CompleteMultipartUpload", s->bucket, s->key, err);
            break;
        }
        p = resp.body;
        if (p != NULL &&
            ddb_s3_xml_take(&p, p + resp.body_len, "CompleteMultipartUploadResult", &code))
            break;
        p = resp.body;
        ddb_buf_clear(&code);
        if (p != NULL)
            ddb_s3_xml_take(&p, p + resp.body_len, "Code", &code);
        if (attempt == 4)
            rc = ddb_error_set(err, DDB_ENET,
                               "s3://%s/%s: CompleteMultipartUpload answered 200 with error %s",
                               s->bucket, s->key, code.ptr ? code.ptr : "(none)");
    }
    ddb_s3_release_stop(s->s3);
    ddb_response_dispose(&resp);
    ddb_buf_dispose(&body);
    ddb_buf_dispose(&q);
    ddb_buf_dispose(&code);
    return rc;
}

/* Every part sent and confirmed; the object not yet there. An interrupt
 * here aborts the upload as before: nothing becomes visible. An object
 * smaller than a part has nothing to send before its PutObject. */
static int s3_prepare(ddb_sink *sink, ddb_error *err)
{
    s3_sink *s = (s3_sink *)sink;
    int rc;
    if (s->finished)
        return 0;
    if (s->failed)
        return ddb_error_set(err, s->failure.code, "%s", s->failure.message);
    if (s->upload_id == NULL)
        return 0;
    if (s->buf.len > 0 && (rc = send_part(s, err)) != 0)
        return rc;
    if ((rc = wait_for(s, none_flying, 0, err)) != 0)
        return rc;
    if (s->failed)
        return ddb_error_set(err, s->failure.code, "%s", s->failure.message);
    return 0;
}

static int s3_finish(ddb_sink *sink, ddb_error *err)
{
    s3_sink *s = (s3_sink *)sink;
    int rc;
    if (s->finished)
        return 0;
    if ((rc = s3_prepare(sink, err)) != 0)
        return rc;
    /* The commit is one request that makes the object appear, run to its
     * answer whatever the stop flag says (ddb_s3_put, complete_upload). */
    if (s->upload_id == NULL)
        /* Smaller than a part: one PutObject, atomic as a completed upload. */
        rc = ddb_s3_put(s->s3, s->bucket, s->key, s->buf.ptr ? s->buf.ptr : "", s->buf.len, err);
    else
        rc = complete_upload(s, err);
    if (rc != 0)
        return sink_fail(s, err, rc, "%s", err->message);
    s->finished = 1;
    if (s->resumable) {
        for (size_t i = 0; i <= s->n_parts; i++)
            remove_spool(s, (int)i + 1);
    }
    return 0;
}

static void abort_upload(s3_sink *s)
{
    ddb_buf q = DDB_BUF_INIT;
    ddb_response resp;
    ddb_error err;
    ddb_s3_hold_stop(s->s3);
    ddb_buf_puts(&q, "uploadId=");
    ddb_s3_encode(&q, s->upload_id, strlen(s->upload_id), 0);
    if (!q.oom &&
        ddb_s3_call(s->s3, &resp, "DELETE", s->bucket, s->key, q.ptr, NULL, 0, NULL, 0, &err) == 0)
        ddb_response_dispose(&resp);
    ddb_s3_release_stop(s->s3);
    ddb_buf_dispose(&q);
}

static void s3_sink_free(ddb_sink *sink)
{
    s3_sink *s = (s3_sink *)sink;
    ddb_error err;
    if (s->flying > 0)
        (void)wait_for(s, none_flying, 1, &err);
    /* an upload no checkpoint names cannot be resumed: it would stay open,
     * unseen, and be paid for */
    if (!s->finished && s->upload_id != NULL && (!s->resumable || !s->upload_named))
        abort_upload(s);
    if (s->spool_fd >= 0)
        close(s->spool_fd);
    ddb_buf_dispose(&s->buf);
    free(s->parts);
    free(s->upload_id);
    free(s->bucket);
    free(s->key);
    free(s->spool);
}

/* All parts so far confirmed, the spool synced: everything written is durable. */
static int s3_checkpoint(ddb_sink *sink, ddb_error *err)
{
    s3_sink *s = (s3_sink *)sink;
    int rc;
    if (s->finished || !s->resumable)
        return 0;
    if (s->flying > 0 && (rc = wait_for(s, none_flying, 0, err)) != 0)
        return rc == DDB_EINTR
                   ? ddb_error_set(err, rc, "%s: a part was still being sent", sink->name)
                   : rc;
    if (s->failed)
        return ddb_error_set(err, s->failure.code, "%s", s->failure.message);
    if (fsync(s->spool_fd) != 0)
        return sink_fail(s, err, DDB_EIO, "cannot sync the spool file of %s: %s", sink->name,
                         strerror(errno));
    /* Named by this checkpoint, but relied on only once it is saved
     * (s3_saved): a save that fails or is cut leaves the state before. */
    for (size_t i = 0; i < s->n_parts; i++)
        if (s->parts[i].recorded == 0)
            s->parts[i].recorded = 1;
    s->upload_taken = s->upload_id != NULL;
    return 0;
}

/* The checkpoint is saved: its parts no longer need their spool copies, and
 * its upload is one a resume goes on with, so it is left open. */
static void s3_saved(ddb_sink *sink)
{
    s3_sink *s = (s3_sink *)sink;
    for (size_t i = 0; i < s->n_parts; i++)
        if (s->parts[i].recorded == 1)
            remove_spool(s, s->parts[i].num), s->parts[i].recorded = 2;
    if (s->upload_taken)
        s->upload_named = 1;
}

static const ddb_sink_vtable s3_sink_vt = {s3_write,      s3_flush,   s3_finish, s3_sink_free,
                                           s3_checkpoint, s3_prepare, s3_saved};

int ddb_s3_sink_state(const ddb_sink *sink, ddb_buf *out)
{
    const s3_sink *s;
    ddb_buf st = DDB_BUF_INIT;
    while (sink->upstream != NULL)
        sink = sink->upstream;
    if (sink->vt != &s3_sink_vt)
        return 0;
    s = (const s3_sink *)sink;
    /* "UPLOADID n:etag:size n:etag:size ..." (ETags and ids hold no spaces) */
    ddb_buf_puts(&st, s->upload_id ? s->upload_id : "-");
    for (size_t i = 0; i < s->n_parts; i++)
        ddb_buf_printf(&st, " %d:%s:%llu", s->parts[i].num, s->parts[i].etag,
                       (unsigned long long)s->parts[i].size);
    ddb_json_put_string(out, st.ptr ? st.ptr : "", st.len);
    ddb_buf_dispose(&st);
    return 1;
}

/* Continues an upload from its saved state: the parts, and the part being
 * filled from the spool file, cut to what the checkpoint counted. */
static int resume(s3_sink *s, const char *state, uint64_t keep_len, ddb_error *err)
{
    char *copy = strdup(state), *save = NULL, *tok;
    uint64_t in_parts = 0, tail;
    struct stat st;
    int rc = 0;

    if (copy == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    tok = strtok_r(copy, " ", &save);
    if (tok && strcmp(tok, "-") != 0 && (s->upload_id = strdup(tok)) == NULL)
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
    s->upload_named = s->upload_id != NULL; /* the checkpoint it comes from names it */
    while (rc == 0 && (tok = strtok_r(NULL, " ", &save)) != NULL) {
        part *p;
        char *c1 = strchr(tok, ':'), *c2 = c1 ? strrchr(c1 + 1, ':') : NULL;
        if (c1 == NULL || c2 == NULL || c2 == c1) {
            rc = ddb_error_set(err, DDB_EUSAGE, "%s: the saved upload state is unreadable",
                               s->base.name);
            break;
        }
        if ((p = ddb_array_reserve(s->parts, s->n_parts, &s->cap_parts, sizeof(*p), 16)) == NULL) {
            rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
            break;
        }
        s->parts = p;
        p = &s->parts[s->n_parts++];
        memset(p, 0, sizeof(*p));
        p->num = atoi(tok);
        p->state = PART_DONE;
        p->recorded = 1;
        snprintf(p->etag, sizeof(p->etag), "%.*s", (int)(c2 - c1 - 1), c1 + 1);
        p->size = strtoull(c2 + 1, NULL, 10);
        in_parts += p->size;
    }
    free(copy);
    if (rc != 0)
        return rc;
    if ((rc = spool_open(s, (int)s->n_parts + 1, 1, err)) != 0)
        return rc;
    tail = keep_len - in_parts;
    if (keep_len < in_parts || fstat(s->spool_fd, &st) != 0 || (uint64_t)st.st_size < tail)
        return ddb_error_set(err, DDB_EIO,
                             "cannot resume %s: its uploaded parts and spool file hold fewer "
                             "bytes than the checkpoint's %llu",
                             s->base.name, (unsigned long long)keep_len);
    if (ftruncate(s->spool_fd, (off_t)tail) != 0 || ddb_buf_reserve(&s->buf, (size_t)tail + 1) != 0)
        return ddb_error_set(err, DDB_EIO, "cannot resume %s: %s", s->base.name, strerror(errno));
    if (pread(s->spool_fd, s->buf.ptr, (size_t)tail, 0) != (ssize_t)tail ||
        lseek(s->spool_fd, 0, SEEK_END) < 0)
        return ddb_error_set(err, DDB_EIO, "cannot read back the spool file of %s", s->base.name);
    s->buf.len = (size_t)tail;
    s->base.bytes_out = keep_len;
    return 0;
}

int ddb_s3_sink_open(ddb_sink **out, ddb_s3 *s3, const char *bucket, const char *key,
                     const char *name, int resumable, const char *resume_state, uint64_t keep_len,
                     ddb_error *err)
{
    s3_sink *s = calloc(1, sizeof(*s));
    int rc = 0;

    *out = NULL;
    if (s == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    s->base.vt = &s3_sink_vt;
    s->s3 = s3;
    s->spool_fd = -1;
    if ((s->base.name = strdup(name)) == NULL || (s->bucket = strdup(bucket)) == NULL ||
        (s->key = strdup(key)) == NULL) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto done;
    }
    s->resumable = resumable;
    if (resumable) {
        unsigned char md[32];
        unsigned int mdlen = 0;
        char hex[17];
        if (s3->spool_dir == NULL) {
            rc =
                ddb_error_set(err, DDB_EUSAGE, "%s: a resumable upload needs a spool folder", name);
            goto done;
        }
        mkdir(s3->spool_dir, 0700);
        EVP_Digest(name, strlen(name), md, &mdlen, EVP_sha256(), NULL);
        for (int i = 0; i < 8; i++)
            sprintf(hex + 2 * i, "%02x", md[i]);
        if ((s->spool = malloc(strlen(s3->spool_dir) + 32)) == NULL) {
            rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
            goto done;
        }
        sprintf(s->spool, "%s/%s", s3->spool_dir, hex);
        rc = resume_state ? resume(s, resume_state, keep_len, err) : spool_open(s, 1, 0, err);
    }
done:
    if (rc != 0) {
        s->resumable = 1; /* never abort what a resume would need */
        ddb_sink_free(&s->base);
        return rc;
    }
    *out = &s->base;
    return 0;
}

int ddb_s3_upload_file(ddb_s3 *s3, const char *url, const char *local, ddb_error *err)
{
    ddb_source *src = NULL;
    ddb_sink *sink = NULL;
    char *bucket = NULL, *key = NULL, *buf = malloc(1u << 20);
    ssize_t n = 0;
    int rc;

    if (buf == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    if ((rc = ddb_s3_parse_url(&bucket, &key, url, err)) != 0 ||
        (rc = ddb_source_open_file(&src, local, err)) != 0 ||
        (rc = ddb_s3_sink_open(&sink, s3, bucket, key, url, 0, NULL, 0, err)) != 0)
        goto done;
    while ((n = ddb_source_read(src, buf, 1u << 20, err)) > 0)
        if ((rc = ddb_sink_write(sink, buf, (size_t)n, err)) != 0)
            goto done;
    rc = n < 0 ? (int)n : ddb_sink_finish(sink, err);
done:
    ddb_sink_free(sink);
    ddb_source_free(src);
    free(bucket);
    free(key);
    free(buf);
    return rc;
}

const char *ddb_s3_spool_dir(const ddb_s3 *s3)
{
    return s3->spool_dir;
}

char *ddb_s3_local_name(const char *dir, const char *url, const char *suffix)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    const char *base = ddb_path_base(url);
    char *p;
    for (const char *c = url; *c; c++)
        h = (h ^ (unsigned char)*c) * 1099511628211ULL;
    if ((p = malloc(strlen(dir) + strlen(base) + strlen(suffix) + 24)) != NULL)
        sprintf(p, "%s/%016llx-%s%s", dir, (unsigned long long)h, base, suffix);
    return p;
}
