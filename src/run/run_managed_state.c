/*
 * The managed paths' options and their record in the state file (see
 * run_managed.h): which options go with an export or import through S3, the
 * fingerprint they add, and the job's ClientToken and ARN saved and resumed.
 */
#include "run/run_managed.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ddbpipe/json.h"
#include "ddbpipe/s3.h"
#include "run/run_internal.h"

/* DynamoDB's bounds of an incremental export's window. */
#define MIN_WINDOW_S (15 * 60)
#define MAX_WINDOW_S (24 * 60 * 60)

/* ------------------------------------------------------------- options */

static int check_export_times(const ddb_run_options *o, ddb_run_field *field, ddb_error *err)
{
    double now = (double)time(NULL), end = o->has_until ? o->until : now;
    if ((o->has_since && o->since > now) || (o->has_until && o->until > now))
        return ddb_run_fail(field, DDB_RUN_F_EXPORT_TIME, err,
                            "an export reads the table as it was: its times must be in the past");
    if (!o->has_since)
        return 0;
    if (end <= o->since)
        return ddb_run_fail(field, DDB_RUN_F_EXPORT_TIME, err,
                            "an incremental export's window must end after it starts");
    if (end - o->since < MIN_WINDOW_S || end - o->since > MAX_WINDOW_S)
        return ddb_run_fail(field, DDB_RUN_F_EXPORT_TIME, err,
                            "an incremental export covers at least 15 minutes and at most 24 "
                            "hours (DynamoDB's limits); this window is %.0f minutes",
                            (end - o->since) / 60.0);
    if (o->export_view && strcmp(o->export_view, "NEW_AND_OLD_IMAGES") != 0 &&
        strcmp(o->export_view, "NEW_IMAGE") != 0)
        return ddb_run_fail(field, DDB_RUN_F_EXPORT_TIME, err,
                            "an incremental export's view is NEW_AND_OLD_IMAGES or NEW_IMAGE, "
                            "not %s",
                            o->export_view);
    return 0;
}

static int check_export(const ddb_run_plan *p, ddb_run_field *field, ddb_error *err)
{
    const ddb_run_options *o = &p->o;
    if (o->via_export == NULL) {
        if (o->has_since || o->has_until || o->export_view)
            return ddb_run_fail(field, DDB_RUN_F_EXPORT_TIME, err,
                                "a point in time or an incremental window is for an export "
                                "through S3 (DynamoDB's ExportTableToPointInTime)");
        return 0;
    }
    if (o->mode != DDB_MODE_EXPORT || !o->scan_allowed || o->scan_table == NULL)
        return ddb_run_fail(field, DDB_RUN_F_VIA_EXPORT, err,
                            "an export through S3 reads a table: name the table to export");
    if (!ddb_s3_is_url(o->via_export))
        return ddb_run_fail(field, DDB_RUN_F_VIA_EXPORT, err,
                            "DynamoDB exports to S3: give s3://bucket/prefix/, not %s",
                            o->via_export);
    if (o->segments > 0 || o->has_range || o->consistent_read || o->page_size > 0 || o->max_rcu > 0)
        return ddb_run_fail(field, DDB_RUN_F_VIA_EXPORT, err,
                            "an export through S3 does not scan the table: a Scan's segments, "
                            "consistency, page size and read capacity do not apply");
    if (o->export_view && !o->has_since)
        return ddb_run_fail(field, DDB_RUN_F_EXPORT_TIME, err,
                            "a view of old and new images is for an incremental export");
    return check_export_times(o, field, err);
}

static int check_import(const ddb_run_plan *p, ddb_run_field *field, ddb_error *err)
{
    const ddb_run_options *o = &p->o;
    if (o->via_import == NULL)
        return 0;
    if (o->mode != DDB_MODE_IMPORT || !o->writes_table)
        return ddb_run_fail(field, DDB_RUN_F_VIA_IMPORT, err,
                            "an import through S3 writes a table: it is for import");
    if (!ddb_s3_is_url(o->via_import))
        return ddb_run_fail(field, DDB_RUN_F_VIA_IMPORT, err,
                            "DynamoDB imports from S3: give s3://bucket/prefix/, not %s",
                            o->via_import);
    if (!o->create_table)
        return ddb_run_fail(field, DDB_RUN_F_CREATE_TABLE, err,
                            "DynamoDB's import from S3 creates the table it loads (it cannot "
                            "load an existing one): ask for the table to be created");
    if (o->delete_all || o->write_mode != DDB_WRITE_BATCH)
        return ddb_run_fail(field, DDB_RUN_F_VIA_IMPORT, err,
                            "DynamoDB's import from S3 only puts whole items into a new table: "
                            "no deletes, updates or conditional writes");
    if (o->dry_run)
        return ddb_run_fail(field, DDB_RUN_F_VIA_IMPORT, err,
                            "an import through S3 has no dry run: the items are checked as they "
                            "are uploaded, before ImportTable is asked for");
    return 0;
}

int ddb_run_managed_check(const ddb_run_plan *p, ddb_run_field *field, ddb_error *err)
{
    int rc = check_export(p, field, err);
    return rc != 0 ? rc : check_import(p, field, err);
}

void ddb_run_managed_fingerprint(const ddb_run_options *o, ddb_buf *b)
{
    if (o->via_export != NULL)
        ddb_buf_printf(b, " via-export=%s since=%.3f until=%.3f view=%s", o->via_export,
                       o->has_since ? o->since : 0.0, o->has_until ? o->until : 0.0,
                       o->export_view ? o->export_view : "");
    if (o->via_import != NULL)
        ddb_buf_printf(b, " via-import=%s", o->via_import);
}

/* --------------------------------------------------------------- state */

static const char *kind_of(const ddb_run_options *o)
{
    return o->via_export ? "export" : "import";
}

int ddb_run_managed_record(ddb_run_plan *p)
{
    ddb_run_managed *m = &p->managed;
    ddb_buf b = DDB_BUF_INIT;
    ddb_buf_printf(&b, "{\"kind\":\"%s\",\"client_token\":\"%s\"", kind_of(&p->o), m->token);
    if (m->arn) {
        ddb_buf_puts(&b, ",\"arn\":");
        ddb_json_put_string(&b, m->arn, strlen(m->arn));
    }
    if (m->folder) {
        ddb_buf_puts(&b, ",\"folder\":");
        ddb_json_put_string(&b, m->folder, strlen(m->folder));
    }
    ddb_buf_puts(&b, m->done ? ",\"done\":true}" : "}");
    free(m->json);
    m->json = ddb_buf_detach(&b, NULL);
    return m->json == NULL ? DDB_ENOMEM : 0;
}

int ddb_run_managed_save(ddb_run_plan *p, ddb_error *err)
{
    ddb_state *st = NULL, fresh;
    char *keep;
    int rc;

    if (p->o.state_path == NULL)
        return 0;
    if (ddb_run_managed_record(p) != 0)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    /* An export is asked for before any record is read: whatever the file
     * holds (a finished run's state, say) is not this run's progress. An
     * import's job follows the records, whose state this run has saved. */
    rc = p->o.via_export ? DDB_ENOTFOUND : ddb_state_load(&st, p->o.state_path, err);
    if (rc == DDB_ENOTFOUND) {
        memset(&fresh, 0, sizeof(fresh));
        fresh.fingerprint = p->fingerprint.ptr;
        fresh.managed = p->managed.json;
        return ddb_state_save(p->o.state_path, &fresh, err);
    }
    if (rc != 0)
        return rc;
    keep = st->managed;
    st->managed = p->managed.json;
    rc = ddb_state_save(p->o.state_path, st, err);
    st->managed = keep;
    ddb_state_free(st);
    return rc;
}

static char *jstr_dup(json_object *o, const char *key)
{
    json_object *v;
    if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
        return NULL;
    return strdup(json_object_get_string(v));
}

int ddb_run_managed_pending(const ddb_state *st)
{
    json_object *root = st->managed ? json_tokener_parse(st->managed) : NULL, *v;
    int pending = 0;
    if (root != NULL) {
        char *kind = jstr_dup(root, "kind");
        pending = kind != NULL && strcmp(kind, "import") == 0 &&
                  !(json_object_object_get_ex(root, "done", &v) && json_object_get_boolean(v));
        free(kind);
        json_object_put(root);
    }
    return pending;
}

int ddb_run_managed_resume(ddb_run_plan *p, ddb_run_field *field, ddb_error *err)
{
    ddb_run_managed *m = &p->managed;
    json_object *root, *v;
    char *kind = NULL, *token = NULL;
    int rc = 0;

    if (p->o.via_export == NULL && p->o.via_import == NULL)
        return 0;
    if (p->state->managed == NULL || (root = json_tokener_parse(p->state->managed)) == NULL)
        return ddb_run_fail(field, DDB_RUN_F_STATE, err,
                            "%s records no %s through S3 to follow (remove the file to start "
                            "over)",
                            p->o.state_path, kind_of(&p->o));
    kind = jstr_dup(root, "kind");
    token = jstr_dup(root, "client_token");
    m->arn = jstr_dup(root, "arn");
    m->folder = jstr_dup(root, "folder");
    m->done = json_object_object_get_ex(root, "done", &v) && json_object_get_boolean(v);
    if (kind == NULL || strcmp(kind, kind_of(&p->o)) != 0 || token == NULL || strlen(token) > 32)
        rc = ddb_run_fail(field, DDB_RUN_F_STATE, err, "%s records another kind of run",
                          p->o.state_path);
    else
        snprintf(m->token, sizeof(m->token), "%s", token);
    json_object_put(root);
    free(kind);
    free(token);
    if (rc == 0 && p->state->ck.n_rows == 0) {
        /* Saved while waiting for the export: no record was read yet. */
        ddb_state_free(p->state);
        p->state = NULL;
    } else if (rc == 0 && p->state->complete) {
        m->uploaded_before = 1; /* an import: only ImportTable is left */
    }
    return rc == 0 ? ddb_run_managed_record(p) : rc;
}

int ddb_run_managed_start(ddb_run_plan *p, ddb_error *err)
{
    if ((p->o.via_export == NULL && p->o.via_import == NULL) || p->managed.token[0] != '\0')
        return 0;
    if (ddb_managed_client_token(p->managed.token) != 0)
        return ddb_error_set(err, DDB_ERROR, "cannot make a ClientToken: no random bytes");
    return ddb_run_managed_record(p) != 0 ? ddb_error_set(err, DDB_ENOMEM, "out of memory") : 0;
}

const char *ddb_run_managed_state(const ddb_run_plan *p)
{
    return p->managed.json;
}
