/*
 * A run through DynamoDB's export to S3 or import from S3 (run_managed.h):
 * asking for the job, waiting for it, the export read and the import's files
 * written, and what the run's summary makes of it. The options and the state
 * file's record of the job are run_managed_state.c's.
 */
#include "run/run_managed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ddbpipe/clock.h"
#include "ddbpipe/json.h"
#include "ddbpipe/output_check.h"
#include "ddbpipe/output_file.h"
#include "ddbpipe/s3.h"
#include "ddbpipe/table.h"
#include "run/run_internal.h"

/* Polls start a second apart and slow down to this: jobs take minutes to
 * hours, and Describe* calls have their own limits. */
#define MAX_POLL_S 20.0

/* --------------------------------------------------------------- waiting */

/* The job's status and progress from its latest description. */
static void job_now(const ddb_run_managed *m, int import, const char **status, uint64_t *items)
{
    *status = import ? m->import_info->status : m->export_info->status;
    *items = import ? m->import_info->processed_items : 0;
}

/* Polls the job (DescribeExport or DescribeImport) until it ends; a signal
 * cuts the wait short (DDB_EINTR), the job goes on. */
static int wait_job(ddb_run_plan *p, int import, ddb_error *err)
{
    ddb_run_managed *m = &p->managed;
    double t0 = ddb_clock_seconds(), pause = 1.0;
    const char *status;
    uint64_t items;
    int rc;

    for (;;) {
        job_now(m, import, &status, &items);
        m->waited = ddb_clock_seconds() - t0;
        if (p->o.on_job != NULL) {
            ddb_job_progress jp = {import, m->arn, status, m->waited, items};
            p->o.on_job(p->o.job_ctx, &jp);
        }
        if (strcmp(status, "IN_PROGRESS") != 0 && strcmp(status, "CANCELLING") != 0)
            return 0;
        ddb_clock_nap(pause, p->o.stop);
        if (p->o.stop && *p->o.stop) {
            m->interrupted = 1;
            return ddb_error_set(err, DDB_EINTR,
                                 "interrupted while waiting for %s %s (%s for %.0f s): it goes on "
                                 "in AWS",
                                 import ? "import" : "export", m->arn, status, m->waited);
        }
        pause = pause * 1.5 > MAX_POLL_S ? MAX_POLL_S : pause * 1.5;
        if (import) {
            ddb_import_info *ii = NULL;
            if ((rc = ddb_managed_import_poll(&ii, p->client, m->arn, err)) != 0)
                return rc;
            ddb_import_info_free(m->import_info);
            m->import_info = ii;
        } else {
            ddb_export_info *ei = NULL;
            if ((rc = ddb_managed_export_poll(&ei, p->client, m->arn, err)) != 0)
                return rc;
            ddb_export_info_free(m->export_info);
            m->export_info = ei;
        }
    }
}

/* The bucket exists; with empty, nothing is under prefix yet. */
static int check_bucket(ddb_run_plan *p, const char *bucket, const char *prefix, int empty,
                        ddb_error *err)
{
    ddb_s3_object *objs = NULL;
    char **dirs = NULL;
    size_t n = 0, nd = 0;
    int rc = ddb_s3_list(p->s3.s3, &objs, &n, &dirs, &nd, bucket, prefix, "/", err);
    if (rc == DDB_ENOTFOUND)
        rc = ddb_error_set(err, DDB_EUSAGE,
                           "bucket %s does not exist (or is not where S3 is looked for): create "
                           "it first, e.g. aws s3 mb s3://%s",
                           bucket, bucket);
    else if (rc == 0 && empty && n + nd > 0)
        rc = ddb_error_set(err, DDB_EUSAGE,
                           "s3://%s/%s already holds %zu object%s (%s%s), and ImportTable loads "
                           "every object under its prefix: give a prefix of its own",
                           bucket, prefix, n + nd, n + nd == 1 ? "" : "s",
                           n ? objs[0].key : dirs[0], n + nd > 1 ? ", ..." : "");
    ddb_s3_objects_free(objs, n);
    ddb_store_names_free(dirs, nd);
    return rc;
}

/* s3://bucket/prefix/ into the bucket and the prefix ending with '/' (or ""). */
static int split_url(const char *url, char **bucket, char **prefix, ddb_error *err)
{
    char *key = NULL;
    size_t n;
    int rc = ddb_s3_parse_url(bucket, &key, url, err);
    if (rc != 0)
        return rc;
    n = strlen(key);
    if (n > 0 && key[n - 1] != '/') {
        char *k = realloc(key, n + 2);
        if (k == NULL) {
            free(key);
            free(*bucket);
            *bucket = NULL;
            return ddb_error_set(err, DDB_ENOMEM, "out of memory");
        }
        key = k;
        strcpy(key + n, "/");
    }
    *prefix = key;
    return 0;
}

/* -------------------------------------------------------------- export */

/* ExportTableToPointInTime, recorded in the state before and after. */
static int start_export(ddb_run_plan *p, const ddb_table_info *t, const char *bucket, char *prefix,
                        ddb_error *err)
{
    const ddb_run_options *o = &p->o;
    ddb_run_managed *m = &p->managed;
    ddb_export_spec es;
    size_t n = strlen(prefix);
    int rc;

    memset(&es, 0, sizeof(es));
    es.table = t->name;
    es.table_arn = t->arn;
    es.bucket = bucket;
    if (n > 0)
        prefix[n - 1] = '\0'; /* S3Prefix names the folder without its '/' */
    es.prefix = prefix;
    es.client_token = m->token;
    es.incremental = o->has_since;
    es.from = o->since;
    es.has_to = o->has_since && o->has_until;
    es.to = o->until;
    es.has_time = !o->has_since && o->has_until;
    es.time = o->until;
    es.view = o->export_view;
    /* The objects' encryption as for S3 outputs; the export API spells aws:kms as KMS. */
    if (o->sse != NULL) {
        if (strcmp(o->sse, "AES256") == 0)
            es.sse = "AES256";
        else if (strcmp(o->sse, "aws:kms") == 0 || strcmp(o->sse, "KMS") == 0)
            es.sse = "KMS";
        else
            return ddb_error_set(err, DDB_EUSAGE,
                                 "server-side encryption %s: DynamoDB's export takes AES256 or "
                                 "aws:kms",
                                 o->sse);
    }
    if (o->sse_kms_key_id != NULL && (es.sse == NULL || strcmp(es.sse, "KMS") != 0))
        return ddb_error_set(err, DDB_EUSAGE,
                             "a KMS key for the export's objects needs server-side encryption "
                             "aws:kms");
    es.sse_kms_key_id = o->sse_kms_key_id;
    /* Saved first: killed while asking, a resumed run asks again with the same
     * token and DynamoDB answers with the same export. */
    if ((rc = ddb_run_managed_save(p, err)) != 0 ||
        (rc = ddb_managed_export_start(&m->export_info, p->client, &es, err)) != 0)
        return rc;
    if ((m->arn = strdup(m->export_info->arn)) == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    ddb_run_note(p, "export %s of table %s to s3://%s/%s started", m->arn, t->name, bucket, prefix);
    return ddb_run_managed_save(p, err);
}

/* The export asked for (or the recorded one), waited for, and its folder
 * made the run's input. */
static int attach_export(ddb_run_plan *p, ddb_run_field *field, ddb_error *err)
{
    const ddb_run_options *o = &p->o;
    ddb_run_managed *m = &p->managed;
    char *bucket = NULL, *prefix = NULL, **inputs = NULL;
    const char *folder[1];
    size_t n = 0;
    int rc;

    *field = DDB_RUN_F_SCAN_TABLE;
    if ((rc = ddb_table_wait_ready(&p->source, p->client, o->scan_table, 0, o->wait_active_s,
                                   o->stop, o->on_wait, o->wait_ctx, err)) != 0 ||
        (rc = ddb_run_check_schema(p, p->source, p->mapping, o->mapping_path, field, err)) != 0)
        goto done;
    *field = DDB_RUN_F_VIA_EXPORT;
    if (p->source->arn == NULL) {
        rc = ddb_error_set(err, DDB_ENET, "DescribeTable %s gave no TableArn", o->scan_table);
        goto done;
    }
    if ((rc = split_url(o->via_export, &bucket, &prefix, err)) != 0)
        goto done;
    if (m->arn == NULL) {
        if ((rc = check_bucket(p, bucket, prefix, 0, err)) != 0 ||
            (rc = start_export(p, p->source, bucket, prefix, err)) != 0)
            goto done;
    } else if ((rc = ddb_managed_export_poll(&m->export_info, p->client, m->arn, err)) != 0) {
        goto done;
    }
    free(m->folder);
    if ((m->folder = ddb_managed_export_folder(m->export_info)) == NULL) {
        rc = ddb_error_set(err, DDB_ENET, "export %s: DescribeExport names no S3 folder", m->arn);
        goto done;
    }
    if ((rc = wait_job(p, 0, err)) != 0)
        goto done;
    if (strcmp(m->export_info->status, "COMPLETED") != 0) {
        rc = ddb_managed_export_failed(m->export_info, o->scan_table, err);
        goto done;
    }
    if (m->export_info->format && strcmp(m->export_info->format, "DYNAMODB_JSON") != 0) {
        rc = ddb_error_set(err, DDB_EUSAGE, "export %s is %s; ddbpipe reads DYNAMODB_JSON exports",
                           m->arn, m->export_info->format);
        goto done;
    }
    folder[0] = m->folder;
    if (ddb_run_managed_record(p) != 0 ||
        (rc = ddb_run_s3_expand(&p->s3, o, folder, 1, &inputs, &n, err)) != 0) {
        rc = rc ? rc : ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto done;
    }
    ddb_store_names_free(p->inputs, p->n_inputs);
    p->inputs = inputs;
    p->n_inputs = n;
    p->input_bytes += p->s3.input_bytes;
    *field = DDB_RUN_F_NONE;
done:
    free(bucket);
    free(prefix);
    return rc;
}

/* -------------------------------------------------------------- import */

/* LSIs: ImportTable cannot create them (its TableCreationParameters has no
 * LocalSecondaryIndexes), and no table gets them later. */
static int check_lsis(ddb_run_plan *p, ddb_run_field *field, ddb_error *err)
{
    const ddb_table_def *t = &p->mapping->table;
    ddb_buf names = DDB_BUF_INIT;
    int rc = 0;
    for (size_t i = 0; i < t->n_indexes; i++)
        if (!t->indexes[i].global)
            ddb_buf_printf(&names, "%s%s", names.len ? ", " : "", t->indexes[i].name);
    if (names.len == 0)
        goto done;
    p->managed.table_flags = DDB_TABLE_NO_LSI;
    if (p->o.ignore_schema_mismatch)
        ddb_run_note(p,
                     "warning: table %s is created without the local secondary indexes %s of %s, "
                     "as asked: ImportTable cannot create them, and they cannot be added later",
                     p->o.target_table, names.ptr, p->o.mapping_path);
    else
        rc = ddb_run_fail(field, DDB_RUN_F_LSI, err,
                          "%s describes local secondary indexes (%s), and ImportTable cannot "
                          "create them (nor can they be added to a table later): only "
                          "CreateTable makes them",
                          p->o.mapping_path, names.ptr);
done:
    ddb_buf_dispose(&names);
    return rc;
}

/* The key schema of the table ImportTable will make: the mapping's, without
 * the LSI sort keys when those are left out. */
static int import_schema(ddb_run_plan *p)
{
    ddb_run_managed *m = &p->managed;
    const ddb_table_def *t = &p->mapping->table;
    size_t n = 0;
    m->schema = t->schema;
    if (!(m->table_flags & DDB_TABLE_NO_LSI))
        return 0;
    if ((m->index_sk = calloc(t->n_indexes + 1, sizeof(ddb_key_attr))) == NULL)
        return DDB_ENOMEM;
    for (size_t i = 0; i < t->n_indexes; i++)
        if (t->indexes[i].global && t->indexes[i].sk.name)
            m->index_sk[n++] = t->indexes[i].sk;
    m->schema.index_sk = m->index_sk;
    m->schema.n_index_sk = n;
    return 0;
}

/* The S3 files ImportTable will read, behind a check of every item. */
static int open_files(ddb_run_plan *p, ddb_error *err)
{
    ddb_file_output_opts fo;
    ddb_check_output_opts co;
    int rc;

    memset(&fo, 0, sizeof(fo));
    fo.dir = p->o.via_import;
    fo.format = DDB_OUT_DDBJSON;
    fo.gzip = 1;
    fo.records = 0;
    fo.single_name = "items";
    fo.resumable = p->o.state_path != NULL;
    fo.resume_state = p->state ? p->state->outputs : NULL;
    fo.s3 = p->s3.s3;
    if (import_schema(p) != 0)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    if ((rc = ddb_file_output_new(&p->managed.files, &fo, err)) != 0)
        return rc;
    memset(&co, 0, sizeof(co));
    co.schema = &p->managed.schema;
    co.no_deletes = "ImportTable only puts items into a new table: a delete cannot go through it";
    rc = ddb_check_output_new(&p->output, p->managed.files, &co, err);
    if (rc != 0)
        p->managed.files = NULL;
    return rc;
}

/* The import's side: the table new, the prefix empty, the output the S3
 * files. */
static int attach_import(ddb_run_plan *p, ddb_run_field *field, ddb_error *err)
{
    const ddb_run_options *o = &p->o;
    ddb_run_managed *m = &p->managed;
    ddb_table_info *t = NULL;
    char *bucket = NULL, *prefix = NULL;
    int rc;

    if ((rc = check_lsis(p, field, err)) != 0)
        return rc;
    *field = DDB_RUN_F_VIA_IMPORT;
    /* Once the items are all uploaded, the table may be the import's own. */
    if (!m->uploaded_before && m->arn == NULL) {
        rc = ddb_table_describe(&t, p->client, o->target_table, err);
        ddb_table_info_free(t);
        if (rc == 0)
            return ddb_error_set(err, DDB_EUSAGE,
                                 "table %s exists, and DynamoDB's import from S3 only creates new "
                                 "tables: nothing was uploaded",
                                 o->target_table);
        if (rc != DDB_ENOTFOUND)
            return rc;
    }
    if ((rc = split_url(o->via_import, &bucket, &prefix, err)) == 0)
        rc = check_bucket(p, bucket, prefix, p->state == NULL, err);
    free(bucket);
    free(prefix);
    if (rc == 0 && !m->uploaded_before)
        rc = open_files(p, err);
    if (rc == 0)
        *field = DDB_RUN_F_NONE;
    return rc;
}

int ddb_run_managed_attach(ddb_run_plan *p, ddb_run_field *field, ddb_error *err)
{
    if (p->o.via_export != NULL)
        return attach_export(p, field, err);
    if (p->o.via_import != NULL)
        return attach_import(p, field, err);
    return 0;
}

/* ImportTable (or the recorded import), waited for. */
static int follow_import(ddb_run_plan *p, ddb_error *err)
{
    ddb_run_managed *m = &p->managed;
    ddb_import_spec is;
    char *bucket = NULL, *prefix = NULL;
    int rc;

    if (m->arn != NULL) {
        if ((rc = ddb_managed_import_poll(&m->import_info, p->client, m->arn, err)) != 0)
            return rc;
        return wait_job(p, 1, err);
    }
    if ((rc = split_url(p->o.via_import, &bucket, &prefix, err)) != 0)
        return rc;
    memset(&is, 0, sizeof(is));
    is.bucket = bucket;
    is.prefix = prefix;
    is.client_token = m->token;
    is.mapping = p->mapping;
    is.table = p->o.target_table;
    is.table_flags = m->table_flags;
    is.gzip = 1;
    if ((rc = ddb_managed_import_start(&m->import_info, p->client, &is, err)) == 0) {
        if ((m->arn = strdup(m->import_info->arn)) == NULL)
            rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        else
            ddb_run_note(p, "import %s of s3://%s/%s into table %s started", m->arn, bucket, prefix,
                         p->o.target_table);
    }
    free(bucket);
    free(prefix);
    if (rc != 0 || (rc = ddb_run_managed_save(p, err)) != 0)
        return rc;
    return wait_job(p, 1, err);
}

/* Nothing uploaded is in the table until the import says so. */
static void none_confirmed(ddb_summary *s)
{
    for (size_t i = 0; i < s->n_entities; i++) {
        s->entities[i].not_done += s->entities[i].written;
        s->entities[i].written = 0;
    }
    s->total.not_done += s->total.written;
    s->total.written = 0;
}

/* The S3 objects the run uploaded, for the summary. */
static void list_uploads(ddb_run_plan *p, ddb_summary *s)
{
    const char *const *paths;
    size_t n = p->managed.files ? ddb_file_output_paths(p->managed.files, &paths) : 0;
    if (n == 0 || (s->outputs = calloc(n, sizeof(char *))) == NULL)
        return;
    for (size_t i = 0; i < n; i++)
        if ((s->outputs[s->n_outputs] = strdup(paths[i])) != NULL)
            s->n_outputs++;
}

int ddb_run_managed_import(ddb_run_plan *p, ddb_summary *s, int rc, ddb_error *err)
{
    ddb_run_managed *m = &p->managed;
    const ddb_import_info *ii;

    if (p->o.via_import == NULL || rc != 0 || !s->committed || s->output_failed)
        return rc;
    list_uploads(p, s);
    m->uploaded = s->total.written;
    if (m->arn == NULL && m->uploaded == 0) {
        ddb_run_note(p, "no item to import: table %s is not created", p->o.target_table);
        m->done = 1;
        return ddb_run_managed_save(p, err);
    }
    if ((rc = follow_import(p, err)) != 0) {
        if (rc == DDB_EINTR)
            s->interrupted = 1;
        none_confirmed(s);
        return rc;
    }
    ii = m->import_info;
    m->done = 1;
    if (strcmp(ii->status, "COMPLETED") != 0) {
        none_confirmed(s);
        rc = ddb_error_set(err, DDB_ENET, "import %s into table %s ended %s: %s: %s", m->arn,
                           p->o.target_table, ii->status,
                           ii->failure_code ? ii->failure_code : "(no FailureCode)",
                           ii->failure_message ? ii->failure_message : "(no FailureMessage)");
        {
            ddb_error serr; /* the import's failure is the message that matters */
            ddb_run_managed_save(p, &serr);
        }
        return rc;
    }
    /* Each item uploaded is written or one of the import's errors (they are in
     * CloudWatch, not in the rejects file). Items sharing a key overwrite one
     * another, as BatchWriteItem's would, and are not errors: ImportedItemCount
     * counts the one left, so written may be more than it. */
    {
        uint64_t errors = ii->errors < s->total.written ? ii->errors : s->total.written;
        s->total.rejected += errors;
        s->total.written -= errors;
    }
    return ddb_run_managed_save(p, err);
}

/* ------------------------------------------------------------- report */

void ddb_run_managed_report(const ddb_run_plan *p, ddb_run_report *out)
{
    const ddb_run_managed *m = &p->managed;
    out->export_job = m->export_info;
    out->export_folder = m->folder;
    out->import_job = m->import_info;
    out->job_seconds = m->waited;
    out->job_interrupted = m->interrupted;
    out->uploaded = m->uploaded;
}

void ddb_run_managed_dispose(ddb_run_managed *m)
{
    free(m->arn);
    free(m->folder);
    free(m->index_sk);
    free(m->json);
    ddb_export_info_free(m->export_info);
    ddb_import_info_free(m->import_info);
    memset(m, 0, sizeof(*m));
}
