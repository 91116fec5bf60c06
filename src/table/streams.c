/*
 * streams.c — the DynamoDB Streams calls (streams.h). The control calls
 * (DescribeTable, DescribeStream, GetShardIterator) carry no item data and
 * are read with json-c; GetRecords carries items and is read with the
 * project's parser, which keeps numbers as their text.
 */
#include "ddbpipe/streams.h"

#include <assert.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/array.h"
#include "ddbpipe/json.h"

struct ddb_streams {
    ddb_client *client;
    char *url; /* endpoint + "/" */
};

/* What a lost position means and what to do: said by every such error. */
static const char START_OVER[] =
    "the stream no longer holds this position (records are kept 24 hours, iterators 15 "
    "minutes): changes may be missing, so start the live migration over (without --resume)";

void ddb_streams_endpoint(char *out, size_t cap, const char *ep)
{
    const char *aws = "https://dynamodb.";
    if (ep != NULL && strncmp(ep, aws, strlen(aws)) == 0 && strstr(ep, ".amazonaws.com") != NULL)
        snprintf(out, cap, "https://streams.%s", ep + strlen("https://"));
    else
        snprintf(out, cap, "%s", ep ? ep : "");
}

int ddb_streams_new(ddb_streams **out, ddb_client *c, const char *endpoint, ddb_error *err)
{
    ddb_streams *s;
    size_t n = strlen(endpoint);
    *out = NULL;
    if ((s = calloc(1, sizeof(*s))) == NULL || (s->url = malloc(n + 2)) == NULL) {
        free(s);
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    }
    memcpy(s->url, endpoint, n + 1);
    if (n == 0 || endpoint[n - 1] != '/')
        strcat(s->url, "/");
    s->client = c;
    *out = s;
    return 0;
}

void ddb_streams_free(ddb_streams *s)
{
    if (s == NULL)
        return;
    free(s->url);
    free(s);
}

static const char *jstr(json_object *o, const char *key)
{
    json_object *v;
    if (o && json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string))
        return json_object_get_string(v);
    return NULL;
}

/* A failed Streams call as an error: a lost position is DDB_ENOTFOUND. */
static int call_error(const ddb_response *r, const char *op, const char *what, ddb_error *err)
{
    if (strcmp(r->error_type, "TrimmedDataAccessException") == 0 ||
        strcmp(r->error_type, "ExpiredIteratorException") == 0)
        return ddb_error_set(err, DDB_ENOTFOUND, "%s of %s: %s: %s; %s", op, what, r->error_type,
                             r->message, START_OVER);
    if (strcmp(r->error_type, "ResourceNotFoundException") == 0)
        return ddb_error_set(err, DDB_ENOTFOUND, "%s of %s: %s: %s", op, what, r->error_type,
                             r->message);
    return ddb_error_set(err, DDB_ENET, "%s of %s failed: %s: %s (HTTP %ld, %d attempts)", op, what,
                         r->error_type[0] ? r->error_type : "error", r->message, r->http_status,
                         r->attempts);
}

/* A Streams call of op with body (both borrowed until submitted), into hc;
 * h and target are its storage. */
static void streams_request(ddb_http_call *hc, ddb_sigv4_header h[2], char *target, size_t cap,
                            ddb_streams *s, const char *op, const char *body)
{
    snprintf(target, cap, "DynamoDBStreams_20120810.%s", op);
    h[0].name = "Content-Type";
    h[0].value = "application/x-amz-json-1.0";
    h[1].name = "X-Amz-Target";
    h[1].value = target;
    memset(hc, 0, sizeof(*hc));
    hc->method = "POST";
    hc->url = s->url;
    hc->service = "dynamodb";
    hc->headers = h;
    hc->n_headers = 2;
    hc->body = body;
    hc->body_len = strlen(body);
    hc->sign_flags = DDB_SIGV4_FLAGS_DYNAMODB;
}

/* One Streams call, synchronously; on success resp owns the body. */
static int streams_call(ddb_streams *s, const char *op, const char *body, ddb_response *resp,
                        ddb_error *err)
{
    char target[64];
    ddb_sigv4_header h[2];
    ddb_http_call hc;
    streams_request(&hc, h, target, sizeof(target), s, op, body);
    return ddb_client_call_http(s->client, &hc, resp, err);
}

int ddb_stream_spec_get(ddb_stream_spec *out, ddb_client *c, const char *table, ddb_error *err)
{
    ddb_buf b = DDB_BUF_INIT;
    ddb_response r;
    json_object *root = NULL, *t, *spec, *v;
    const char *vt, *arn;
    int rc;

    memset(out, 0, sizeof(*out));
    memset(&r, 0, sizeof(r));
    ddb_buf_puts(&b, "{\"TableName\":");
    ddb_json_put_string(&b, table, strlen(table));
    ddb_buf_puts(&b, "}");
    if (b.oom) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto done;
    }
    if ((rc = ddb_client_call(c, "DescribeTable", b.ptr, b.len, &r, err)) != 0)
        goto done;
    if (!r.ok) {
        rc = call_error(&r, "DescribeTable", table, err);
        goto done;
    }
    if ((root = json_tokener_parse(r.body)) == NULL ||
        !json_object_object_get_ex(root, "Table", &t)) {
        rc = ddb_error_set(err, DDB_ENET, "DescribeTable of %s: unreadable answer", table);
        goto done;
    }
    if (json_object_object_get_ex(t, "StreamSpecification", &spec) &&
        json_object_object_get_ex(spec, "StreamEnabled", &v) && json_object_get_boolean(v)) {
        out->enabled = 1;
        if ((vt = jstr(spec, "StreamViewType")) != NULL)
            snprintf(out->view_type, sizeof(out->view_type), "%s", vt);
    }
    if (out->enabled && (arn = jstr(t, "LatestStreamArn")) != NULL &&
        (out->arn = strdup(arn)) == NULL)
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
    if (out->enabled && out->arn == NULL && rc == 0)
        out->enabled = 0; /* enabled without an ARN: not usable yet */
done:
    json_object_put(root);
    ddb_response_dispose(&r);
    ddb_buf_dispose(&b);
    return rc;
}

void ddb_stream_spec_dispose(ddb_stream_spec *s)
{
    if (s == NULL)
        return;
    free(s->arn);
    s->arn = NULL;
}

/* A copy of s (NULL stays NULL); a failed copy sets *oom. */
static char *dup_or_null(const char *s, int *oom)
{
    char *d = s ? strdup(s) : NULL;
    if (s != NULL && d == NULL)
        *oom = 1;
    return d;
}

/* The shards of one DescribeStream page, appended to d. Returns the last
 * evaluated shard id (in root) or NULL at the end. */
static const char *add_shards(ddb_stream_desc *d, json_object *sd, size_t *cap, int *oom)
{
    json_object *shards, *range;
    size_t n;
    if (d->status == NULL)
        d->status = dup_or_null(jstr(sd, "StreamStatus"), oom);
    if (d->view_type == NULL)
        d->view_type = dup_or_null(jstr(sd, "StreamViewType"), oom);
    n = json_object_object_get_ex(sd, "Shards", &shards) ? json_object_array_length(shards) : 0;
    for (size_t i = 0; i < n && !*oom; i++) {
        json_object *sh = json_object_array_get_idx(shards, i);
        ddb_stream_shard *x;
        if (jstr(sh, "ShardId") == NULL)
            continue;
        void *grown = ddb_array_reserve(d->shards, d->n_shards, cap, sizeof(*d->shards), 8);
        if (grown == NULL) {
            *oom = 1;
            break;
        }
        d->shards = grown;
        x = &d->shards[d->n_shards++];
        memset(x, 0, sizeof(*x));
        x->id = dup_or_null(jstr(sh, "ShardId"), oom);
        x->parent = dup_or_null(jstr(sh, "ParentShardId"), oom);
        if (json_object_object_get_ex(sh, "SequenceNumberRange", &range)) {
            x->start_seq = dup_or_null(jstr(range, "StartingSequenceNumber"), oom);
            x->end_seq = dup_or_null(jstr(range, "EndingSequenceNumber"), oom);
        }
    }
    return jstr(sd, "LastEvaluatedShardId");
}

int ddb_stream_describe(ddb_stream_desc **out, ddb_streams *s, const char *arn, ddb_error *err)
{
    ddb_stream_desc *d = calloc(1, sizeof(*d));
    char *start = NULL;
    size_t cap = 0;
    int rc = 0, oom = d == NULL;

    *out = NULL;
    while (!oom && rc == 0) {
        ddb_buf b = DDB_BUF_INIT;
        ddb_response r;
        json_object *root = NULL, *sd;
        const char *last = NULL;
        memset(&r, 0, sizeof(r));
        ddb_buf_puts(&b, "{\"StreamArn\":");
        ddb_json_put_string(&b, arn, strlen(arn));
        if (start != NULL) {
            ddb_buf_puts(&b, ",\"ExclusiveStartShardId\":");
            ddb_json_put_string(&b, start, strlen(start));
        }
        ddb_buf_puts(&b, "}");
        if (b.oom)
            oom = 1;
        else if ((rc = streams_call(s, "DescribeStream", b.ptr, &r, err)) == 0 && !r.ok)
            rc = call_error(&r, "DescribeStream", arn, err);
        else if (rc == 0 && ((root = json_tokener_parse(r.body)) == NULL ||
                             !json_object_object_get_ex(root, "StreamDescription", &sd)))
            rc = ddb_error_set(err, DDB_ENET, "DescribeStream of %s: unreadable answer", arn);
        else if (rc == 0)
            last = add_shards(d, sd, &cap, &oom);
        free(start);
        start = last ? dup_or_null(last, &oom) : NULL;
        json_object_put(root);
        ddb_response_dispose(&r);
        ddb_buf_dispose(&b);
        if (start == NULL)
            break;
    }
    free(start);
    if (oom && rc == 0)
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
    if (rc != 0)
        ddb_stream_desc_free(d);
    else
        *out = d;
    return rc;
}

void ddb_stream_desc_free(ddb_stream_desc *d)
{
    if (d == NULL)
        return;
    for (size_t i = 0; i < d->n_shards; i++) {
        free(d->shards[i].id);
        free(d->shards[i].parent);
        free(d->shards[i].start_seq);
        free(d->shards[i].end_seq);
    }
    free(d->shards);
    free(d->status);
    free(d->view_type);
    free(d);
}

int ddb_stream_iterator(char **out, ddb_streams *s, const char *arn, const char *shard,
                        ddb_stream_iter_type type, const char *seq, ddb_error *err)
{
    static const char *const names[] = {"TRIM_HORIZON", "LATEST", "AT_SEQUENCE_NUMBER",
                                        "AFTER_SEQUENCE_NUMBER"};
    ddb_buf b = DDB_BUF_INIT;
    ddb_response r;
    json_object *root = NULL;
    const char *it;
    int rc;

    assert((type == DDB_ITER_AT_SEQ || type == DDB_ITER_AFTER_SEQ) == (seq != NULL));
    *out = NULL;
    memset(&r, 0, sizeof(r));
    ddb_buf_puts(&b, "{\"StreamArn\":");
    ddb_json_put_string(&b, arn, strlen(arn));
    ddb_buf_puts(&b, ",\"ShardId\":");
    ddb_json_put_string(&b, shard, strlen(shard));
    ddb_buf_printf(&b, ",\"ShardIteratorType\":\"%s\"", names[type]);
    if (seq != NULL) {
        ddb_buf_puts(&b, ",\"SequenceNumber\":");
        ddb_json_put_string(&b, seq, strlen(seq));
    }
    ddb_buf_puts(&b, "}");
    if (b.oom) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto done;
    }
    if ((rc = streams_call(s, "GetShardIterator", b.ptr, &r, err)) != 0)
        goto done;
    if (!r.ok) {
        rc = call_error(&r, "GetShardIterator", shard, err);
        if (rc == DDB_ENOTFOUND && strstr(err ? err->message : "", "start the live") == NULL)
            ddb_error_prefix(err, "%s; ", START_OVER);
        goto done;
    }
    if ((root = json_tokener_parse(r.body)) == NULL || (it = jstr(root, "ShardIterator")) == NULL) {
        rc = ddb_error_set(err, DDB_ENET, "GetShardIterator of %s: no iterator in the answer",
                           shard);
        goto done;
    }
    if ((*out = strdup(it)) == NULL)
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
done:
    json_object_put(root);
    ddb_response_dispose(&r);
    ddb_buf_dispose(&b);
    return rc;
}

int ddb_stream_typed_item(ddb_item *out, const ddb_value *plain, ddb_arena *a, ddb_error *err)
{
    ddb_value wrapped, typed;
    ddb_attr wa = {{"M", 1}, *plain};
    wrapped.type = DDB_TYPE_M;
    wrapped.u.m.attrs = &wa;
    wrapped.u.m.count = 1;
    if (ddb_value_from_typed_json(&typed, &wrapped, a, err) != 0)
        return DDB_EINVAL;
    *out = typed.u.m;
    return 0;
}

int ddb_stream_event_parse(ddb_stream_event *out, const ddb_value *name, ddb_error *err)
{
    static const struct {
        const char *name;
        ddb_stream_event event;
    } events[] = {{"INSERT", DDB_STREAM_INSERT},
                  {"MODIFY", DDB_STREAM_MODIFY},
                  {"REMOVE", DDB_STREAM_REMOVE}};
    char q[DDB_QUOTE_MAX + 4];
    assert(out != NULL);
    if (name == NULL || name->type != DDB_TYPE_S)
        return ddb_error_set(err, DDB_EINVAL, "%s; this one has %s", DDB_STREAM_EVENT_NAMES,
                             name == NULL ? "none" : "one that is not a string");
    for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++)
        if (ddb_cstr_eq(events[i].name, name->u.s.ptr, name->u.s.len)) {
            *out = events[i].event;
            return 0;
        }
    /* another name is another kind of change, which nothing here knows how to apply:
     * refused, never taken for the nearest of the three */
    ddb_error_quote(q, sizeof(q), name->u.s.ptr, name->u.s.len);
    return ddb_error_set(err, DDB_EINVAL, "%s, not \"%s\"", DDB_STREAM_EVENT_NAMES, q);
}

/* One element of Records -> rec. */
static int read_record(ddb_stream_record *rec, const ddb_value *v, ddb_arena *a, ddb_error *err)
{
    const ddb_value *db, *x;
    memset(rec, 0, sizeof(*rec));
    if (v->type != DDB_TYPE_M)
        return ddb_error_set(err, DDB_EINVAL, "malformed stream record: expected an object");
    if (ddb_stream_event_parse(&rec->event, ddb_map_getz(&v->u.m, "eventName"), err) != 0)
        return DDB_EINVAL;
    if ((db = ddb_map_getz(&v->u.m, "dynamodb")) == NULL || db->type != DDB_TYPE_M)
        return ddb_error_set(err, DDB_EINVAL,
                             "malformed stream record: \"dynamodb\" is not an object");
    if ((x = ddb_map_getz(&db->u.m, "SequenceNumber")) == NULL || x->type != DDB_TYPE_S ||
        (rec->seq = ddb_arena_memdup(a, x->u.s.ptr, x->u.s.len + 1)) == NULL)
        return ddb_error_set(err, DDB_EINVAL, "a record without SequenceNumber");
    ((char *)rec->seq)[x->u.s.len] = '\0';
    if ((x = ddb_map_getz(&db->u.m, "ApproximateCreationDateTime")) != NULL &&
        x->type == DDB_TYPE_N)
        rec->created = strtod(x->u.s.ptr, NULL); /* a clock reading for the lag, not data */
    if ((x = ddb_map_getz(&db->u.m, "Keys")) == NULL ||
        ddb_stream_typed_item(&rec->keys, x, a, err) != 0)
        return ddb_error_set(err, DDB_EINVAL, "record %s: no readable Keys", rec->seq);
    if ((x = ddb_map_getz(&db->u.m, "NewImage")) != NULL) {
        if (ddb_stream_typed_item(&rec->new_image, x, a, err) != 0)
            return ddb_error_prefix(err, "record %s: NewImage: ", rec->seq);
        rec->has_new = 1;
    }
    if ((x = ddb_map_getz(&db->u.m, "OldImage")) != NULL) {
        if (ddb_stream_typed_item(&rec->old_image, x, a, err) != 0)
            return ddb_error_prefix(err, "record %s: OldImage: ", rec->seq);
        rec->has_old = 1;
    }
    return 0;
}

/* A GetRecords answer (body kept in p) -> p's records and next iterator. */
static int read_page(ddb_stream_page *p, ddb_error *err)
{
    ddb_json_parser *jp = NULL;
    ddb_value root;
    const ddb_value *recs, *next;
    int rc = 0;

    if (ddb_json_parser_new(&jp) != 0 || ddb_arena_new(&p->arena, 0) != 0) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto done;
    }
    if ((rc = ddb_json_parse_plain(jp, &root, p->body, strlen(p->body), p->arena, err)) != 0 ||
        root.type != DDB_TYPE_M) {
        rc = ddb_error_prefix(err, "GetRecords: unreadable answer: ");
        goto done;
    }
    recs = ddb_map_getz(&root.u.m, "Records");
    if (recs != NULL && recs->type == DDB_TYPE_L && recs->u.l.count > 0) {
        p->records = ddb_arena_calloc(p->arena, recs->u.l.count, sizeof(*p->records));
        if (p->records == NULL) {
            rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
            goto done;
        }
        for (size_t i = 0; i < recs->u.l.count; i++, p->n_records++)
            if ((rc = read_record(&p->records[i], &recs->u.l.items[i], p->arena, err)) != 0) {
                ddb_error_prefix(err, "GetRecords: record %zu: ", i);
                goto done;
            }
    }
    next = ddb_map_getz(&root.u.m, "NextShardIterator");
    if (next != NULL && next->type == DDB_TYPE_S) {
        if ((p->next_iterator = malloc(next->u.s.len + 1)) == NULL) {
            rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
            goto done;
        }
        memcpy(p->next_iterator, next->u.s.ptr, next->u.s.len);
        p->next_iterator[next->u.s.len] = '\0';
    }
done:
    ddb_json_parser_free(jp);
    return rc;
}

/* The GetRecords request for iterator. */
static void records_request(ddb_buf *b, const char *iterator, int limit)
{
    ddb_buf_puts(b, "{\"ShardIterator\":");
    ddb_json_put_string(b, iterator, strlen(iterator));
    ddb_buf_printf(b, ",\"Limit\":%d}", limit > 0 && limit <= 1000 ? limit : 1000);
}

/* A GetRecords answer -> *out (body taken when own_body, else copied). */
static int records_answer(ddb_stream_page **out, ddb_response *r, int own_body, ddb_error *err)
{
    ddb_stream_page *p;
    int rc;
    *out = NULL;
    if (!r->ok) {
        rc = call_error(r, "GetRecords", "a shard", err);
        if (strcmp(r->error_type, "LimitExceededException") == 0)
            return DDB_STREAM_THROTTLED;
        return strcmp(r->error_type, "ExpiredIteratorException") == 0 ? DDB_STREAM_EXPIRED : rc;
    }
    if ((p = calloc(1, sizeof(*p))) == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    if (own_body) {
        p->body = r->body; /* the page's values point into it */
        r->body = NULL;
    } else if ((p->body = malloc(r->body_len + 1)) != NULL) {
        memcpy(p->body, r->body, r->body_len);
        p->body[r->body_len] = '\0';
    }
    rc = p->body == NULL ? ddb_error_set(err, DDB_ENOMEM, "out of memory") : read_page(p, err);
    if (rc != 0)
        ddb_stream_page_free(p);
    else
        *out = p;
    return rc;
}

int ddb_stream_page_parse(ddb_stream_page **out, const char *body, size_t len, ddb_error *err)
{
    ddb_response r;
    assert(out != NULL && body != NULL);
    memset(&r, 0, sizeof(r));
    r.ok = 1;
    r.body = (char *)body; /* copied, not taken (own_body 0) */
    r.body_len = len;
    return records_answer(out, &r, 0, err);
}

int ddb_stream_get_records(ddb_stream_page **out, ddb_streams *s, const char *iterator, int limit,
                           ddb_error *err)
{
    ddb_buf b = DDB_BUF_INIT;
    ddb_response r;
    int rc;

    *out = NULL;
    memset(&r, 0, sizeof(r));
    records_request(&b, iterator, limit);
    if (b.oom)
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
    else if ((rc = streams_call(s, "GetRecords", b.ptr, &r, err)) == 0)
        rc = records_answer(out, &r, 1, err);
    ddb_response_dispose(&r);
    ddb_buf_dispose(&b);
    return rc;
}

static void fetched(void *ctx, ddb_response *r)
{
    ddb_stream_fetch *f = ctx;
    ddb_error_clear(&f->err);
    f->rc = records_answer(&f->page, r, 0, &f->err);
    f->finished = 1;
}

int ddb_stream_fetch_submit(ddb_stream_fetch *f, ddb_streams *s, const char *iterator, int limit,
                            ddb_error *err)
{
    ddb_buf b = DDB_BUF_INIT;
    char target[64];
    ddb_sigv4_header h[2];
    ddb_http_call hc;
    int rc;

    memset(f, 0, sizeof(*f));
    records_request(&b, iterator, limit);
    if (b.oom) {
        ddb_buf_dispose(&b);
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    }
    streams_request(&hc, h, target, sizeof(target), s, "GetRecords", b.ptr);
    rc = ddb_client_submit_http(s->client, &hc, fetched, f, err);
    ddb_buf_dispose(&b);
    return rc;
}

void ddb_stream_page_free(ddb_stream_page *p)
{
    if (p == NULL)
        return;
    ddb_arena_free(p->arena);
    free(p->body);
    free(p->next_iterator);
    free(p);
}
