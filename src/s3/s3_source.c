/*
 * Reading S3 objects: ranged GETs of chunk_size bytes, fetched ahead in the
 * order of the read plan (ddb_s3_plan_reads), at most `window` chunks in
 * flight or waiting to be read. A source hands out its object's chunks in
 * order; the loop is driven only while the next chunk has not arrived.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "s3/s3_internal.h"
#include "ddbpipe/source.h"

enum { CHUNK_FLYING = 0, CHUNK_DONE, CHUNK_FAILED };

typedef struct chunk {
    struct chunk *next;
    ddb_s3 *s3;
    size_t obj; /* index in the plan */
    uint64_t off, len;
    int state;
    int orphan; /* nobody will read it: freed when its request ends */
    char *data;
    int code;
    char msg[DDB_ERROR_MAX];
} chunk;

struct s3_fetch {
    char *bucket;
    ddb_s3_object *objs; /* the plan */
    size_t n;
    size_t next_obj; /* where the next chunk to request starts */
    uint64_t next_off;
    chunk *head, *tail; /* requested, not yet read, in plan order */
    int count;
};

typedef struct s3_source {
    ddb_source base;
    ddb_s3 *s3;
    size_t obj;
    uint64_t size;
    uint64_t pos;     /* bytes handed out */
    uint64_t in_head; /* of them, from the head chunk */
} s3_source;

static void chunk_done(void *ctx, ddb_response *resp)
{
    chunk *ch = ctx;
    ch->s3->pending--;
    if (ch->orphan) {
        free(ch);
        return;
    }
    if (resp->ok) {
        ch->data = resp->body;
        resp->body = NULL;
        ch->state = CHUNK_DONE;
        return;
    }
    ch->state = CHUNK_FAILED;
    if (resp->http_status == 412) {
        ch->code = DDB_EIO;
        snprintf(ch->msg, sizeof(ch->msg),
                 "changed while it was being read (bytes %llu-%llu no longer match ETag %s): "
                 "read it again once it is complete",
                 (unsigned long long)ch->off, (unsigned long long)(ch->off + ch->len - 1),
                 ch->s3->fetch->objs[ch->obj].etag);
        return;
    }
    ch->code = resp->http_status == 404 ? DDB_ENOTFOUND : DDB_EIO;
    snprintf(ch->msg, sizeof(ch->msg), "bytes %llu-%llu: %s%s%s (HTTP %ld, %d attempts)",
             (unsigned long long)ch->off, (unsigned long long)(ch->off + ch->len - 1),
             resp->error_type, resp->error_type[0] ? ": " : "", resp->message, resp->http_status,
             resp->attempts);
}

/* Requests the next chunk of the plan. Returns 0, 1 when the plan is
 * exhausted, or DDB_ENOMEM. */
static int request_next(ddb_s3 *s3)
{
    s3_fetch *f = s3->fetch;
    const ddb_s3_object *o;
    ddb_sigv4_header h[1];
    ddb_http_call hc;
    ddb_buf url = DDB_BUF_INIT;
    ddb_error err;
    chunk *ch;
    int rc;

    while (f->next_obj < f->n && f->next_off >= f->objs[f->next_obj].size) {
        f->next_obj++;
        f->next_off = 0;
    }
    if (f->next_obj >= f->n)
        return 1;
    o = &f->objs[f->next_obj];
    if ((ch = calloc(1, sizeof(*ch))) == NULL)
        return DDB_ENOMEM;
    ch->s3 = s3;
    ch->obj = f->next_obj;
    ch->off = f->next_off;
    ch->len = o->size - ch->off < s3->chunk_size ? o->size - ch->off : s3->chunk_size;
    memset(&hc, 0, sizeof(hc));
    if (ddb_s3_url(s3, &url, &hc.region, f->bucket, o->key, NULL) != 0) {
        free(ch);
        ddb_buf_dispose(&url);
        return DDB_ENOMEM;
    }
    hc.method = "GET";
    hc.url = url.ptr;
    hc.service = "s3";
    hc.sign_flags = DDB_SIGV4_SIGN_BODY | DDB_SIGV4_PATH_ENCODED;
    hc.ranged = 1;
    hc.range_start = ch->off;
    hc.range_end = ch->off + ch->len - 1;
    if (o->etag && o->etag[0]) {
        h[0].name = "If-Match";
        h[0].value = o->etag;
        hc.headers = h;
        hc.n_headers = 1;
    }
    rc = ddb_client_submit_http(s3->client, &hc, chunk_done, ch, &err);
    ddb_buf_dispose(&url);
    if (rc != 0) {
        free(ch);
        return rc;
    }
    s3->pending++;
    f->next_off += ch->len;
    if (f->tail)
        f->tail->next = ch;
    else
        f->head = ch;
    f->tail = ch;
    f->count++;
    return 0;
}

static int top_up(ddb_s3 *s3)
{
    while (s3->fetch->count < s3->window) {
        int rc = request_next(s3);
        if (rc == 1)
            return 0;
        if (rc != 0)
            return rc;
    }
    return 0;
}

static void drop_head(s3_fetch *f)
{
    chunk *ch = f->head;
    f->head = ch->next;
    if (f->head == NULL)
        f->tail = NULL;
    f->count--;
    if (ch->state == CHUNK_FLYING) {
        ch->orphan = 1; /* freed by its callback */
        return;
    }
    free(ch->data);
    free(ch);
}

static void drop_all(s3_fetch *f)
{
    while (f->head)
        drop_head(f);
}

static void plan_free(s3_fetch *f)
{
    drop_all(f);
    ddb_s3_objects_free(f->objs, f->n);
    free(f->bucket);
    f->objs = NULL;
    f->bucket = NULL;
    f->n = f->next_obj = 0;
    f->next_off = 0;
}

int ddb_s3_plan_reads(ddb_s3 *s3, const char *bucket, const ddb_s3_object *objs, size_t n,
                      ddb_error *err)
{
    s3_fetch *f = s3->fetch;
    if (f == NULL && (f = s3->fetch = calloc(1, sizeof(*f))) == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    plan_free(f);
    f->bucket = strdup(bucket);
    f->objs = calloc(n ? n : 1, sizeof(*f->objs));
    if (f->bucket == NULL || f->objs == NULL)
        goto oom;
    for (size_t i = 0; i < n; i++) {
        f->objs[i].size = objs[i].size;
        f->objs[i].key = strdup(objs[i].key);
        f->objs[i].etag = strdup(objs[i].etag ? objs[i].etag : "");
        f->n++;
        if (f->objs[i].key == NULL || f->objs[i].etag == NULL)
            goto oom;
    }
    return 0;
oom:
    plan_free(f);
    return ddb_error_set(err, DDB_ENOMEM, "out of memory");
}

static int none_pending(void *ctx)
{
    return ((ddb_s3 *)ctx)->pending == 0;
}

void ddb_s3_fetch_free(ddb_s3 *s3)
{
    ddb_error err;
    if (s3->fetch == NULL)
        return;
    plan_free(s3->fetch);
    /* Orphaned chunks still in flight point at s3: let them end first. A loop
     * that cannot run any more (interrupted) leaves them to the client's end. */
    if (s3->pending > 0)
        (void)ddb_client_run(s3->client, none_pending, s3, &err);
    free(s3->fetch);
    s3->fetch = NULL;
}

/* The plan index of bucket/key, or (size_t)-1. */
static size_t plan_find(const s3_fetch *f, const char *bucket, const char *key)
{
    if (f->bucket == NULL || strcmp(f->bucket, bucket) != 0)
        return (size_t)-1;
    for (size_t i = 0; i < f->n; i++)
        if (strcmp(f->objs[i].key, key) == 0)
            return i;
    return (size_t)-1;
}

static int head_ready(void *ctx)
{
    s3_source *s = ctx;
    return s->s3->fetch->head == NULL || s->s3->fetch->head->state != CHUNK_FLYING;
}

static ssize_t s3_read(ddb_source *src, void *buf, size_t len, ddb_error *err)
{
    s3_source *s = (s3_source *)src;
    s3_fetch *f = s->s3->fetch;
    chunk *ch;
    size_t n;
    int rc;

    if (s->pos >= s->size)
        return 0;
    if ((rc = top_up(s->s3)) != 0)
        return ddb_error_set(err, rc, "out of memory reading %s", src->name);
    ch = f->head;
    if (ch == NULL || ch->obj != s->obj || ch->off + s->in_head != s->pos)
        return ddb_error_set(err, DDB_EIO, "%s: read out of order at byte %llu", src->name,
                             (unsigned long long)s->pos);
    if (ch->state == CHUNK_FLYING && (rc = ddb_client_run(s->s3->client, head_ready, s, err)) != 0)
        return ddb_error_prefix(err, "%s: ", src->name);
    if (ch->state == CHUNK_FLYING)
        return ddb_error_set(err, DDB_ENET, "%s: the request loop ended early", src->name);
    if (ch->state == CHUNK_FAILED)
        return ddb_error_set(err, ch->code, "%s: %s", src->name, ch->msg);
    n = (size_t)(ch->len - s->in_head) < len ? (size_t)(ch->len - s->in_head) : len;
    memcpy(buf, ch->data + s->in_head, n);
    s->in_head += n;
    s->pos += n;
    if (s->in_head == ch->len) {
        drop_head(f);
        s->in_head = 0;
        if ((rc = top_up(s->s3)) != 0)
            return ddb_error_set(err, rc, "out of memory reading %s", src->name);
    }
    return (ssize_t)n;
}

static void s3_source_free(ddb_source *src)
{
    (void)src; /* its chunks belong to the read-ahead; the next open settles them */
}

static const ddb_source_vtable s3_source_vt = {s3_read, s3_source_free, NULL};

int ddb_s3_source_open(ddb_source **out, ddb_s3 *s3, const char *bucket, const ddb_s3_object *obj,
                       const char *name, ddb_error *err)
{
    s3_source *s;
    s3_fetch *f;
    size_t i;
    int rc;

    *out = NULL;
    if (s3->fetch == NULL || (i = plan_find(s3->fetch, bucket, obj->key)) == (size_t)-1) {
        if ((rc = ddb_s3_plan_reads(s3, bucket, obj, 1, err)) != 0)
            return rc;
        i = 0;
    }
    f = s3->fetch;
    /* Continue the read-ahead when it is at this object's first byte, else
     * start over from it. */
    if (!(f->head != NULL && f->head->obj == i && f->head->off == 0) &&
        !(f->head == NULL && f->next_obj == i && f->next_off == 0)) {
        while (f->head != NULL && f->head->obj < i)
            drop_head(f);
        if (!(f->head != NULL && f->head->obj == i && f->head->off == 0)) {
            drop_all(f);
            f->next_obj = i;
            f->next_off = 0;
        }
    }
    if ((s = calloc(1, sizeof(*s))) == NULL || (s->base.name = strdup(name)) == NULL) {
        free(s);
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    }
    s->base.vt = &s3_source_vt;
    s->s3 = s3;
    s->obj = i;
    s->size = f->objs[i].size;
    if ((rc = top_up(s3)) != 0) {
        ddb_source_free(&s->base);
        return ddb_error_set(err, rc, "out of memory");
    }
    *out = &s->base;
    return 0;
}
