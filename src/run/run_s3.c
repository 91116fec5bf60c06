/*
 * The S3 side of a run: one S3 context over the run's client, a store for
 * s3:// inputs, and the prefixes given as inputs listed into their objects
 * (in key order, this process's shard of them), fetched ahead in that order.
 */
#include "run/run_s3.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/array.h"
#include "ddbpipe/reader.h"

static int is_s3(const char *p)
{
    return p != NULL && ddb_s3_is_url(p);
}

int ddb_run_s3_needed(const ddb_run_options *o)
{
    for (size_t i = 0; i < o->n_inputs; i++)
        if (is_s3(o->inputs[i]))
            return 1;
    return is_s3(o->out_dir) || is_s3(o->rejects_path) || is_s3(o->unmatched_path) ||
           is_s3(o->summary_path) || o->via_export != NULL || o->via_import != NULL;
}

typedef struct name_list {
    char **names;
    size_t n, cap;
} name_list;

static int add_input(name_list *l, const char *path)
{
    char **n = ddb_array_reserve(l->names, l->n, &l->cap, sizeof(*n), 16);
    if (n == NULL)
        return DDB_ENOMEM;
    l->names = n;
    if ((l->names[l->n] = strdup(path)) == NULL)
        return DDB_ENOMEM;
    l->n++;
    return 0;
}

static int has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* Left out of a prefix's objects as of a local folder's files: a "folder"
 * made by a console (a key ending in '/'), and a key with a part below the
 * prefix named _... (a run's rejects, unmatched items, own records) or .... */
static int skipped(const char *key, size_t prefix_len)
{
    const char *p = key + prefix_len;
    if (has_suffix(key, "/"))
        return 1;
    while (*p != '\0') {
        if (ddb_reader_skips_name(p))
            return 1;
        if ((p = strchr(p, '/')) == NULL)
            break;
        p++;
    }
    return 0;
}

/* A dynamodump backup below the prefix: some <dir>/schema.json beside
 * <dir>/data/ objects (the listing is in key order, so they follow it). */
static int holds_dump(const ddb_s3_object *objs, size_t n, size_t prefix_len)
{
    for (size_t i = 0; i < n; i++) {
        const char *k = objs[i].key;
        size_t dir;
        if (strlen(k) < prefix_len + 11 ||
            (strcmp(k + prefix_len, "schema.json") != 0 && !has_suffix(k, "/schema.json")))
            continue;
        dir = strlen(k) - 11; /* <dir>/ */
        for (size_t j = 0; j < n; j++)
            if (strncmp(objs[j].key, k, dir) == 0 && strncmp(objs[j].key + dir, "data/", 5) == 0)
                return 1;
    }
    return 0;
}

/*
 * s3://bucket/prefix/ as an input: an export when a manifest-summary.json is
 * below it, a dynamodump backup when a table's schema.json and data/ are (the
 * reader finds either), else every object under it in key order (but those
 * skipped()), this shard's share of them.
 */
static int expand_prefix(ddb_run_s3 *rs, name_list *l, const ddb_run_options *o, const char *url,
                         ddb_error *err)
{
    char *bucket = NULL, *key = NULL;
    ddb_s3_object *objs = NULL;
    size_t n = 0, k = 0, first = l->n;
    int rc, is_export = 0;

    if ((rc = ddb_s3_parse_url(&bucket, &key, url, err)) != 0 ||
        (rc = ddb_s3_list(rs->s3, &objs, &n, NULL, NULL, bucket, key, NULL, err)) != 0)
        goto done;
    for (size_t i = 0; i < n; i++)
        is_export |= has_suffix(objs[i].key, "/manifest-summary.json") ||
                     strcmp(objs[i].key, "manifest-summary.json") == 0;
    if (is_export || n == 0 || holds_dump(objs, n, strlen(key))) {
        /* The reader opens the export or backup (or says what is missing). */
        rc = add_input(l, url) != 0 ? ddb_error_set(err, DDB_ENOMEM, "out of memory") : 0;
        goto done;
    }
    for (size_t i = 0; i < n && rc == 0; i++) {
        ddb_buf path = DDB_BUF_INIT;
        if (skipped(objs[i].key, strlen(key)))
            continue;
        k++; /* objects to read, before this shard takes its share */
        if (o->shards > 1 && (k - 1) % o->shards != o->shard - 1)
            continue;
        ddb_buf_printf(&path, "s3://%s/%s", bucket, objs[i].key);
        rs->input_bytes += objs[i].size;
        if (path.oom || add_input(l, path.ptr) != 0)
            rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        ddb_buf_dispose(&path);
    }
    /* Nothing to read there: the reader says so of the folder. */
    if (rc == 0 && k == 0 && add_input(l, url) != 0)
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
    /* Their listing is the store's: no HEAD per object, and read-ahead across them. */
    if (rc == 0 && (rc = ddb_store_remember(rs->store, bucket, objs, n)) != 0)
        rc = ddb_error_set(err, rc, "out of memory");
    if (rc == 0)
        rc = rs->store->vt->plan(rs->store, (const char *const *)l->names + first, l->n - first,
                                 err);
done:
    ddb_s3_objects_free(objs, n);
    free(bucket);
    free(key);
    return rc;
}

/* One input: an s3:// folder (given with or without its final '/') is
 * expanded; anything else, even an object that cannot be found (the reader
 * says why), is kept as given. */
static int add_one(ddb_run_s3 *rs, name_list *l, const ddb_run_options *o, const char *in,
                   ddb_error *err)
{
    ddb_buf dir = DDB_BUF_INIT;
    int is_dir = 0, rc;
    uint64_t size;
    if (!is_s3(in) || (!has_suffix(in, "/") &&
                       (rs->store->vt->stat(rs->store, in, &is_dir, &size, NULL) != 0 || !is_dir)))
        return add_input(l, in) != 0 ? ddb_error_set(err, DDB_ENOMEM, "out of memory") : 0;
    ddb_buf_printf(&dir, "%s%s", in, has_suffix(in, "/") ? "" : "/");
    rc = dir.oom ? ddb_error_set(err, DDB_ENOMEM, "out of memory")
                 : expand_prefix(rs, l, o, dir.ptr, err);
    ddb_buf_dispose(&dir);
    return rc;
}

int ddb_run_s3_connect(ddb_run_s3 *rs, const ddb_run_options *o, const char *const *inputs,
                       size_t n_inputs, char ***out, size_t *n_out, ddb_client *c, ddb_error *err)
{
    ddb_s3_opts so;
    ddb_buf spool = DDB_BUF_INIT;
    int rc;

    *out = NULL;
    *n_out = 0;
    memset(&so, 0, sizeof(so));
    so.client = c;
    so.endpoint = rs->endpoint;
    so.region = rs->region ? rs->region : "us-east-1";
    so.sse = o->sse;
    so.sse_kms_key_id = o->sse_kms_key_id;
    so.stop = o->stop;
    if (o->state_path) {
        /* The parts being filled of resumable uploads live beside the state. */
        ddb_buf_printf(&spool, "%s.s3", o->state_path);
        so.spool_dir = spool.ptr;
    }
    rc =
        spool.oom ? ddb_error_set(err, DDB_ENOMEM, "out of memory") : ddb_s3_new(&rs->s3, &so, err);
    ddb_buf_dispose(&spool);
    if (rc != 0 || (rc = ddb_store_new_s3(&rs->store, rs->s3, err)) != 0)
        return rc;
    return ddb_run_s3_expand(rs, o, inputs, n_inputs, out, n_out, err);
}

int ddb_run_s3_expand(ddb_run_s3 *rs, const ddb_run_options *o, const char *const *inputs,
                      size_t n_inputs, char ***out, size_t *n_out, ddb_error *err)
{
    name_list l = {NULL, 0, 0};
    int rc = 0;

    *out = NULL;
    *n_out = 0;
    for (size_t i = 0; i < n_inputs && rc == 0; i++)
        rc = add_one(rs, &l, o, inputs[i], err);
    if (rc != 0) {
        ddb_store_names_free(l.names, l.n);
        return rc;
    }
    *out = l.names;
    *n_out = l.n;
    return 0;
}

int ddb_run_s3_write_file(ddb_run_s3 *rs, const char *path, const char *data, size_t len,
                          ddb_error *err)
{
    ddb_sink *sink = NULL;
    int rc;
    if (is_s3(path)) {
        if (rs->store == NULL)
            return ddb_error_set(err, DDB_EUSAGE, "%s: writing to S3 needs AWS access", path);
        return rs->store->vt->write_all(rs->store, path, data, len, err);
    }
    if ((rc = ddb_sink_open_file(&sink, path, 1, err)) == 0 &&
        (rc = ddb_sink_write(sink, data, len, err)) == 0)
        rc = ddb_sink_finish(sink, err);
    ddb_sink_free(sink);
    return rc;
}

void ddb_run_s3_dispose(ddb_run_s3 *rs)
{
    ddb_store_free(rs->store);
    ddb_s3_free(rs->s3);
    free(rs->endpoint);
    free(rs->region);
    memset(rs, 0, sizeof(*rs));
}
