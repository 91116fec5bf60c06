/*
 * A run plan's tables (see run.h): the table it scans and the one it writes, each waited for
 * and checked against its mapping, the target made first under --create-table (or, in a dry
 * run, planned as it would be made), with the S3 inputs and the TTL attribute looked up first.
 */
#include "ddbpipe/run.h"
#include "run/run_internal.h"

#include <string.h>

/* A mapping that does not describe its table reads nothing or writes junk:
 * stop before the first request, unless told to go on. */
int ddb_run_check_schema(ddb_run_plan *p, const ddb_table_info *t, const ddb_mapping *m,
                         const char *path, ddb_run_field *field, ddb_error *err)
{
    ddb_buf why = DDB_BUF_INIT;
    int rc = 0;
    if (m == NULL || ddb_table_check_mapping(t, m, &why) == 0)
        goto done;
    if (why.oom) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
    } else if (p->o.ignore_schema_mismatch) {
        const char *side = t == p->target ? p->o.target_side : p->o.source_side;
        int named = side != NULL && *side != '\0';
        ddb_run_note(p, "warning: %s%stable %s does not match %s, going on as asked: %s",
                     named ? side : "", named ? ": " : "", t->name, path, why.ptr);
    } else {
        *field = DDB_RUN_F_TABLE_SCHEMA;
        rc = ddb_error_set(err, DDB_EUSAGE, "table %s does not match %s: %s", t->name, path,
                           why.ptr);
    }
done:
    ddb_buf_dispose(&why);
    return rc;
}

static int attach_scan_table(ddb_run_plan *p, ddb_run_field *field, ddb_error *err)
{
    const ddb_run_options *o = &p->o;
    ddb_table_reader_opts to;
    int rc;

    *field = DDB_RUN_F_SCAN_TABLE;
    if ((rc = ddb_table_wait_ready(&p->source, p->client, o->scan_table, 0, o->wait_active_s,
                                   o->stop, o->on_wait, o->wait_ctx, err)) != 0)
        return rc;
    memset(&to, 0, sizeof(to));
    to.client = p->client;
    to.table = o->scan_table;
    to.total_segments = o->segments > 0 ? o->segments : 4;
    to.has_range = o->has_range;
    to.segment_first = o->segment_first;
    to.segment_last = o->segment_last;
    to.consistent_read = o->consistent_read;
    to.page_size = o->page_size;
    to.max_rcu = o->max_rcu;
    if ((rc = ddb_run_check_schema(p, p->source, p->mapping, o->mapping_path, field, err)) != 0)
        return rc;
    to.item_count = p->source->item_count;
    if ((rc = ddb_run_select_table(p, &to, err)) != 0)
        return rc;
    if ((rc = ddb_reader_new_table(&p->scan, &to, err)) != 0) {
        *field = DDB_RUN_F_SEGMENTS;
        return rc;
    }
    *field = DDB_RUN_F_NONE;
    return 0;
}

/* The table --create-table would make from mapping m, described as
 * DescribeTable would (a CreateTable request has the same members), for a
 * dry run's estimate of its indexes' writes. */
static int plan_target(ddb_table_info **out, const ddb_mapping *m, const char *table,
                       ddb_error *err)
{
    ddb_buf b = DDB_BUF_INIT;
    int rc;
    ddb_buf_puts(&b, "{\"Table\":");
    if ((rc = ddb_table_create_request(&b, m, table, err)) == 0) {
        ddb_buf_putc(&b, '}');
        rc = b.oom ? ddb_error_set(err, DDB_ENOMEM, "out of memory")
                   : ddb_table_info_parse(out, b.ptr, table, err);
    }
    ddb_buf_dispose(&b);
    return rc;
}

/* With two identities, a message about a table says which side it is on, and so which
 * credentials, region and endpoint it was reached with. Returns rc. */
static int name_side(int rc, const char *side, ddb_error *err)
{
    if (rc != 0 && rc != DDB_EINTR && side != NULL && *side != '\0' && err != NULL)
        ddb_error_prefix(err, "%s: ", side);
    return rc;
}

static int attach_scan(ddb_run_plan *p, ddb_run_field *field, ddb_error *err)
{
    return name_side(attach_scan_table(p, field, err), p->o.source_side, err);
}

static int attach_target_table(ddb_run_plan *p, ddb_client *client, ddb_run_field *field,
                               ddb_error *err)
{
    const ddb_run_options *o = &p->o;
    /* migrate encodes for the target with the mapping it re-keys into */
    const ddb_mapping *tm = o->mode == DDB_MODE_CONVERT ? p->to_mapping : p->mapping;
    int rc;

    if (o->create_table && !o->dry_run) {
        *field = DDB_RUN_F_CREATE_TABLE;
        /* a table read is the model: the whole of its definition, not only the keys */
        if (o->scan_allowed && o->scan_table != NULL)
            rc = ddb_run_create_like(p, client, tm, err);
        else
            rc = ddb_table_create(client, tm, o->target_table, 1,
                                  o->wait_active_s > 0 ? o->wait_active_s : 600, o->stop,
                                  o->on_wait, o->wait_ctx, err);
        if (rc != 0)
            return rc;
    }
    *field = DDB_RUN_F_TARGET_TABLE;
    rc = ddb_table_wait_ready(&p->target, client, o->target_table, 1, o->wait_active_s, o->stop,
                              o->on_wait, o->wait_ctx, err);
    if (rc == DDB_EUSAGE)
        *field = DDB_RUN_F_WAIT;
    /* A dry run fails as the real run would, but for a table it would create. */
    if (rc == DDB_ENOTFOUND && o->dry_run && o->create_table) {
        ddb_run_note(p, "dry run: %s%stable %s does not exist yet; the run would create it from %s",
                     o->target_side ? o->target_side : "",
                     o->target_side && *o->target_side ? ": " : "", o->target_table,
                     o->scan_allowed && o->scan_table ? "the table it copies"
                     : o->mode == DDB_MODE_CONVERT    ? o->to_mapping_path
                                                      : o->mapping_path);
        rc = tm != NULL ? plan_target(&p->planned, tm, o->target_table, err) : 0;
    }
    if (rc != 0)
        return rc;
    if (tm != NULL && p->target != NULL &&
        (rc = ddb_run_check_schema(
             p, p->target, tm, o->mode == DDB_MODE_CONVERT ? o->to_mapping_path : o->mapping_path,
             field, err)) != 0)
        return rc;
    if (o->dry_run) {
        rc = ddb_null_output_new(&p->output,
                                 p->target ? &p->target->schema
                                 : tm      ? &tm->table.schema
                                           : NULL,
                                 p->target ? p->target : p->planned, err);
    } else {
        ddb_table_output_opts tw;
        memset(&tw, 0, sizeof(tw));
        tw.client = client;
        tw.table = o->target_table;
        tw.info = p->target;
        tw.max_attempts = o->max_attempts;
        tw.max_wcu = o->max_wcu;
        tw.shuffle_window = o->shuffle_window;
        tw.mode = o->write_mode;
        rc = ddb_table_output_new(&p->output, &tw, err);
    }
    if (rc == 0)
        *field = DDB_RUN_F_NONE;
    return rc;
}

static int attach_target(ddb_run_plan *p, ddb_run_field *field, ddb_error *err)
{
    ddb_client *c = p->target_client ? p->target_client : p->client;
    return name_side(attach_target_table(p, c, field, err), p->o.target_side, err);
}

int ddb_run_plan_attach(ddb_run_plan *p, ddb_client *c, ddb_run_field *field, ddb_error *err)
{
    int rc = 0;
    *field = DDB_RUN_F_NONE;
    p->client = c;
    if (ddb_run_plan_needs_s3(p)) {
        /* The inputs with s3:// prefixes (folders) expanded into their objects. */
        char **inputs = NULL;
        size_t n = 0;
        if ((rc = ddb_run_s3_connect(&p->s3, &p->o, (const char *const *)p->inputs, p->n_inputs,
                                     &inputs, &n, c, err)) != 0) {
            *field = DDB_RUN_F_S3;
            return rc;
        }
        ddb_store_names_free(p->inputs, p->n_inputs);
        p->inputs = inputs;
        p->n_inputs = n;
        p->input_bytes += p->s3.input_bytes;
        if ((rc = ddb_run_check_out_s3(p, field, err)) != 0)
            return rc;
    }
    /* the table's TTL attribute, however it is read (Scan or its export) */
    if (p->o.skip_expired && p->o.ttl_attribute == NULL && p->o.scan_allowed &&
        p->o.scan_table != NULL &&
        (rc = ddb_table_ttl_attribute(&p->ttl_attribute, c, p->o.scan_table, err)) != 0) {
        *field = DDB_RUN_F_SCAN_TABLE;
        return rc;
    }
    if (p->o.via_export != NULL || p->o.via_import != NULL)
        return ddb_run_managed_attach(p, field, err);
    if (p->o.scan_allowed && p->o.scan_table != NULL && (rc = attach_scan(p, field, err)) != 0)
        return rc;
    if (p->o.target_table != NULL)
        rc = attach_target(p, field, err);
    return rc;
}
