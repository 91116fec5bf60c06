/*
 * A run, planned: the policy that turns a command's options into a pipeline
 * (see run.h). The command line parses and prints; this decides.
 */
#include "ddbpipe/run.h"
#include "run/run_internal.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "ddbpipe/checkpoint.h"
#include "ddbpipe/json.h"
#include "ddbpipe/output_file.h"
#include "ddbpipe/output_stream.h"
#include "ddbpipe/rejects.h"
#include "run/run_s3.h"

int ddb_run_fail(ddb_run_field *field, ddb_run_field which, ddb_error *err, const char *fmt, ...)
{
    va_list ap;
    *field = which;
    va_start(ap, fmt);
    ddb_error_vset(err, DDB_EUSAGE, fmt, ap);
    va_end(ap);
    return DDB_EUSAGE;
}

void ddb_run_note(const ddb_run_plan *p, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    if (p->o.note == NULL)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    p->o.note(p->o.note_ctx, msg);
}

/* ------------------------------------------------------------ checking */

/* Options that cannot go together, or a command without what it needs. */
static int check_shape(const ddb_run_plan *p, ddb_run_field *field, ddb_error *err)
{
    const ddb_run_options *o = &p->o;
    int scanning = o->scan_allowed && o->scan_table != NULL;

    if (o->ttl_attribute != NULL && !o->skip_expired)
        return ddb_run_fail(
            field, DDB_RUN_F_INPUTS, err,
            "--ttl-attribute names the attribute --skip-expired goes by: give both");
    if (o->skip_expired && o->ttl_attribute == NULL && !scanning)
        return ddb_run_fail(field, DDB_RUN_F_INPUTS, err,
                            "--skip-expired on files needs --ttl-attribute NAME (a table's own "
                            "comes from DescribeTimeToLive)");
    if (o->generate && o->n_inputs > 0)
        return ddb_run_fail(field, DDB_RUN_F_INPUTS, err,
                            "%s reads no input: it makes records up from the mapping", o->command);
    if (o->generate && o->mapping_path == NULL)
        return ddb_run_fail(field, DDB_RUN_F_MAPPING, err,
                            "%s needs the mapping of the records to make up", o->command);
    if (o->generate && o->n_gen_counts == 0)
        return ddb_run_fail(field, DDB_RUN_F_GENERATE, err,
                            "%s needs the number of records to make of each entity", o->command);
    if (o->writes_table && o->out_dir != NULL)
        return ddb_run_fail(field, DDB_RUN_F_OUT, err,
                            "give either an output folder or a table to write, not both");
    if (o->n_inputs == 0 && !scanning && !o->generate)
        return ddb_run_fail(field, DDB_RUN_F_INPUTS, err,
                            "no input given (files, an export folder, - for "
                            "standard input%s)",
                            o->scan_allowed ? ", or a table to read" : "");
    if (o->n_inputs > 0 && scanning)
        return ddb_run_fail(field, DDB_RUN_F_INPUTS, err,
                            "give either input files or a table to read, "
                            "not both");
    if (p->writes_files && o->out_dir == NULL)
        return ddb_run_fail(field, DDB_RUN_F_OUT, err, "%s writes files: it needs an output folder",
                            o->command);
    if (p->streams &&
        (o->state_path != NULL || o->gzip || (o->format_set && o->format != DDB_OUT_DDBJSON)))
        return ddb_run_fail(
            field, DDB_RUN_F_OUT, err,
            "standard output takes the items as DynamoDB JSON lines: no other format, "
            "no gzip, and no state file (a stream cannot be resumed)");
    if (p->writes_files && !p->streams && strcmp(o->out_dir, "-") == 0)
        return ddb_run_fail(field, DDB_RUN_F_OUT, err,
                            "%s writes a folder of files (one per entity, with the rejects), which "
                            "standard output cannot hold: give a folder",
                            o->command);
    if (o->writes_table && o->target_table == NULL &&
        (o->mode == DDB_MODE_CONVERT ? o->to_mapping_path : o->mapping_path) == NULL)
        return ddb_run_fail(field, DDB_RUN_F_TARGET_TABLE, err,
                            "no table to write to given (nor a mapping naming one)");
    if ((o->mode == DDB_MODE_CONVERT || o->mode == DDB_MODE_ENCODE) && o->mapping_path == NULL)
        return ddb_run_fail(field, DDB_RUN_F_MAPPING, err, "%s needs the table's mapping",
                            o->command);
    if (o->mode == DDB_MODE_CONVERT && o->to_mapping_path == NULL)
        return ddb_run_fail(field, DDB_RUN_F_TO_MAPPING, err, "%s needs the mapping to re-key into",
                            o->command);
    if (o->create_table && o->mode == DDB_MODE_IMPORT && o->mapping_path == NULL &&
        !(o->scan_allowed && o->scan_table != NULL))
        return ddb_run_fail(
            field, DDB_RUN_F_CREATE_TABLE, err,
            "creating the table needs a mapping: it describes the keys and indexes");
    if (o->has_range && o->segments == 0)
        return ddb_run_fail(field, DDB_RUN_F_SEGMENTS, err,
                            "a range of segments needs the number of segments it is a range of");
    if (o->write_mode != DDB_WRITE_BATCH && (o->mode != DDB_MODE_IMPORT || o->delete_all))
        return ddb_run_fail(field, DDB_RUN_F_TARGET_TABLE, err,
                            "writing only absent items or updating attributes is for an import "
                            "of items, not for deletes");
    if (o->resume && o->state_path == NULL)
        return ddb_run_fail(field, DDB_RUN_F_RESUME, err,
                            "resuming needs the state file of the run");
    for (size_t i = 0; o->state_path && i < o->n_inputs; i++)
        if (strcmp(o->inputs[i], "-") == 0)
            return ddb_run_fail(
                field, DDB_RUN_F_NONE, err, /* the --state hint (--resume) is not for this */
                "a run reading standard input cannot be resumed: save the input to a "
                "file first, or leave --state out");
    if (o->shards > 0 && (o->shard < 1 || o->shard > o->shards))
        return ddb_run_fail(field, DDB_RUN_F_SHARD, err, "share %u of %u does not exist (1 to %u)",
                            o->shard, o->shards, o->shards);
    return ddb_run_managed_check(p, field, err);
}

/* The output format: the command's own unless one is asked for. */
static int pick_format(ddb_run_plan *p, ddb_run_field *field, ddb_error *err)
{
    const ddb_run_options *o = &p->o;
    p->format = o->mode == DDB_MODE_EXPORT ? DDB_OUT_NDJSON : DDB_OUT_DDBJSON;
    if (o->format_set)
        p->format = o->format;
    /* items are DynamoDB JSON (the Import from S3 form), or Parquet's item
     * column beside their key columns (writer.h) */
    if (o->mode != DDB_MODE_EXPORT && p->format != DDB_OUT_DDBJSON && p->format != DDB_OUT_PARQUET)
        return ddb_run_fail(
            field, DDB_RUN_F_FORMAT, err,
            "%s writes items, and items are written as DynamoDB JSON (the Import from "
            "S3 form) or Parquet (--format parquet), not %s",
            o->command, ddb_out_format_name(p->format));
    if (p->format == DDB_OUT_PARQUET && o->gzip)
        return ddb_run_fail(field, DDB_RUN_F_FORMAT, err,
                            "a Parquet file compresses its pages itself: --compression "
                            "zstd|gzip|none, not --gzip");
    if (p->format == DDB_OUT_PARQUET && o->state_path != NULL)
        return ddb_run_fail(field, DDB_RUN_F_FORMAT, err,
                            "a Parquet file cannot be resumed (its footer describes every row "
                            "group): leave --state out");
    if (o->parquet_codec_set && p->format != DDB_OUT_PARQUET)
        return ddb_run_fail(field, DDB_RUN_F_FORMAT, err,
                            "--compression is for --format parquet; other files take --gzip");
    if (o->parquet_group_rows > 0 && p->format != DDB_OUT_PARQUET)
        return ddb_run_fail(field, DDB_RUN_F_FORMAT, err, "--row-group-rows is for --format parquet");
    if (o->max_file_bytes > 0 && p->format != DDB_OUT_PARQUET)
        return ddb_run_fail(field, DDB_RUN_F_FORMAT, err,
                            "--max-file-size is for --format parquet (an NDJSON or CSV entity "
                            "is one file)");
    if (o->key_attrs != NULL &&
        (p->format != DDB_OUT_PARQUET || (o->mode == DDB_MODE_EXPORT && o->mapping_path)))
        return ddb_run_fail(field, DDB_RUN_F_NONE, err,
                            "--key gives Parquet items (no mapping) their key columns: it is for "
                            "--format parquet without --mapping");
    if (o->partition_by != NULL && o->state_path != NULL)
        return ddb_run_fail(field, DDB_RUN_F_NONE, err,
                            "--partition-by finishes a folder's file when too many are open: "
                            "such a run cannot be resumed; leave --state out");
    return 0;
}

static int load_mappings(ddb_run_plan *p, ddb_run_field *field, ddb_error *err)
{
    const ddb_run_options *o = &p->o;
    if (o->mapping_path && ddb_mapping_load(&p->mapping, o->mapping_path, err) != 0) {
        *field = DDB_RUN_F_MAPPING;
        return err->code;
    }
    if (o->to_mapping_path && ddb_mapping_load(&p->to_mapping, o->to_mapping_path, err) != 0) {
        *field = DDB_RUN_F_TO_MAPPING;
        return err->code;
    }
    if (o->reader.entity && p->mapping && ddb_mapping_entity(p->mapping, o->reader.entity) == NULL)
        return ddb_run_fail(field, DDB_RUN_F_ENTITY, err, "entity \"%s\" is not in %s",
                            o->reader.entity, o->mapping_path);
    return 0;
}

/* "age=N,tags=SS": types for the attributes of untyped inputs. */
static int parse_types(ddb_run_plan *p, ddb_run_field *field, ddb_error *err)
{
    const char *spec = p->o.types;
    char *copy, *save = NULL, *tok;
    size_t cap = 1;
    int rc = 0;

    if (spec == NULL)
        return 0;
    for (const char *c = spec; *c; c++)
        cap += *c == ',';
    copy = strdup(spec);
    p->types = calloc(cap, sizeof(*p->types));
    if (copy == NULL || p->types == NULL) {
        free(copy);
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    }
    for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        ddb_type_hint *h = &p->types[p->n_types];
        if (eq == NULL || eq == tok || ddb_type_parse(&h->type, eq + 1, strlen(eq + 1)) != 0) {
            rc = ddb_run_fail(
                field, DDB_RUN_F_TYPES, err,
                "bad type entry \"%s\": write name=TYPE (S N B BOOL NULL M L SS NS BS)", tok);
            break;
        }
        *eq = '\0';
        if ((h->name = strdup(tok)) == NULL) {
            rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
            break;
        }
        p->n_types++;
    }
    free(copy);
    return rc;
}

/* Records made up from the mapping take the place of inputs. */
static int make_generator(ddb_run_plan *p, ddb_run_field *field, ddb_error *err)
{
    const ddb_mapping *m = p->mapping;
    uint64_t *counts = calloc(m->n_entities + 1, sizeof(uint64_t));
    int rc;

    *field = DDB_RUN_F_GENERATE;
    if (counts == NULL)
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
    else if ((rc = ddb_generator_counts(counts, m, p->o.gen_counts, p->o.n_gen_counts, err)) == 0 &&
             (rc = ddb_generator_new(&p->gen, m, counts, p->o.gen_seed, err)) == 0 &&
             (rc = ddb_reader_new_generator(&p->gen_reader, p->gen, err)) == 0)
        *field = DDB_RUN_F_NONE;
    free(counts);
    return rc;
}

/* The inputs as read: a folder of files (one that ddbpipe wrote, say) becomes
 * its files, so what convert or export wrote can be imported as it is. */
static int expand_inputs(ddb_run_plan *p, ddb_error *err)
{
    const ddb_run_options *o = &p->o;
    size_t cap = o->n_inputs ? o->n_inputs : 1;
    int rc = 0;

    if ((p->inputs = calloc(cap, sizeof(char *))) == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    for (size_t i = 0; i < o->n_inputs && rc == 0; i++) {
        char **files = NULL;
        size_t n = 0;
        if ((rc = ddb_reader_list_folder(&files, &n, o->inputs[i], o->folder_unmatched, err)) != 0)
            break;
        if (n == 0) {
            files = malloc(sizeof(char *));
            if (files == NULL || (files[0] = strdup(o->inputs[i])) == NULL) {
                free(files);
                rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
                break;
            }
            n = 1;
        }
        if (p->n_inputs + n > cap) {
            char **nl = realloc(p->inputs, (cap = p->n_inputs + n + cap) * sizeof(char *));
            if (nl == NULL) {
                for (size_t k = 0; k < n; k++)
                    free(files[k]);
                free(files);
                rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
                break;
            }
            p->inputs = nl;
        }
        memcpy(p->inputs + p->n_inputs, files, n * sizeof(char *));
        p->n_inputs += n;
        free(files);
    }
    return rc;
}

int ddb_run_plan_new(ddb_run_plan **out, const ddb_run_options *o, ddb_run_field *field,
                     ddb_error *err)
{
    ddb_run_plan *p = calloc(1, sizeof(*p));
    int rc;

    *out = NULL;
    *field = DDB_RUN_F_NONE;
    if (p == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    p->o = *o;
    p->writes_files = !o->writes_table && !o->own_output && o->mode != DDB_MODE_VALIDATE;
    p->streams = p->writes_files && o->out_stream && o->out_dir && strcmp(o->out_dir, "-") == 0;
    if ((rc = check_shape(p, field, err)) != 0 || (rc = pick_format(p, field, err)) != 0 ||
        (rc = load_mappings(p, field, err)) != 0 || (rc = parse_types(p, field, err)) != 0 ||
        (rc = ddb_run_select_new(p, field, err)) != 0)
        goto done;
    if (o->generate && (rc = make_generator(p, field, err)) != 0)
        goto done;
    if ((rc = expand_inputs(p, err)) != 0) {
        *field = DDB_RUN_F_INPUTS;
        goto done;
    }
    /* Without a table named, the mapping that encodes for it names it. */
    if (o->writes_table && o->target_table == NULL)
        p->o.target_table = (o->mode == DDB_MODE_CONVERT ? p->to_mapping : p->mapping)->table.name;
    if ((rc = ddb_run_check_own_files(p, field, err)) != 0 ||
        (rc = ddb_run_load_state(p, field, err)) != 0 ||
        (rc = ddb_run_managed_start(p, err)) != 0 || (rc = ddb_run_check_out(p, field, err)) != 0)
        goto done;
    for (size_t i = 0; i < p->n_inputs; i++) {
        struct stat st;
        if (strcmp(p->inputs[i], "-") != 0 && stat(p->inputs[i], &st) == 0 && S_ISREG(st.st_mode))
            p->input_bytes += (uint64_t)st.st_size;
    }
    *out = p;
    p = NULL;
done:
    ddb_run_plan_free(p);
    return rc;
}

int ddb_run_plan_needs_client(const ddb_run_plan *p)
{
    return (p->o.scan_allowed && p->o.scan_table != NULL) || p->o.target_table != NULL ||
           ddb_run_plan_needs_s3(p);
}

void ddb_run_plan_set_target_client(ddb_run_plan *p, ddb_client *c)
{
    assert(p != NULL);
    p->target_client = c;
}

int ddb_run_plan_needs_s3(const ddb_run_plan *p)
{
    return ddb_run_s3_needed(&p->o);
}

int ddb_run_plan_set_s3(ddb_run_plan *p, const char *endpoint, const char *region)
{
    free(p->s3.endpoint);
    free(p->s3.region);
    p->s3.endpoint = endpoint ? strdup(endpoint) : NULL;
    p->s3.region = region ? strdup(region) : NULL;
    return (endpoint && !p->s3.endpoint) || (region && !p->s3.region) ? DDB_ENOMEM : 0;
}

int ddb_run_plan_write_file(ddb_run_plan *p, const char *path, const char *data, size_t len,
                            ddb_error *err)
{
    return ddb_run_s3_write_file(&p->s3, path, data, len, err);
}

int ddb_run_plan_done(const ddb_run_plan *p)
{
    return p->done;
}

/* ------------------------------------------------------------- running */

/* The pipeline's options for the plan: its inputs or reader, mappings,
 * output and side files, limits, checkpoints and hooks. */
static void pipeline_options(const ddb_run_plan *p, ddb_pipeline_opts *po)
{
    const ddb_run_options *o = &p->o;
    memset(po, 0, sizeof(*po));
    po->mode = o->mode;
    po->command = o->command;
    po->inputs = (const char *const *)p->inputs;
    po->n_inputs = p->n_inputs;
    po->readers = p->scan ? &p->scan : p->gen_reader ? &p->gen_reader : NULL;
    po->n_readers = po->readers ? 1 : 0;
    po->reader = o->reader;
    po->reader.remote = p->s3.store;
    po->reader.shard = o->shard;
    po->reader.shards = o->shards;
    po->mapping = p->mapping;
    po->to_mapping = p->to_mapping;
    po->select = p->select;
    po->types = p->types;
    po->n_types = p->n_types;
    po->output = p->output;
    po->rejects = p->rejects;
    po->unmatched = p->unmatched;
    po->delete_all = o->delete_all;
    if (o->skip_expired) {
        po->ttl_attribute = o->ttl_attribute ? o->ttl_attribute : p->ttl_attribute;
        po->ttl_now = (uint64_t)time(NULL); /* one instant for the whole run */
    }
    po->report_limit = o->report_limit;
    po->allow_extra_columns = o->allow_extra_columns;
    po->limit_rejects = o->limit_rejects && o->mode != DDB_MODE_VALIDATE;
    po->max_rejects = o->max_rejects;
    po->report = o->report;
    po->report_ctx = o->report_ctx;
    po->state_path = o->state_path;
    po->fingerprint = p->fingerprint.ptr;
    po->resume = p->state;
    po->checkpoint_seconds = o->checkpoint_seconds;
    po->threads = o->threads;
    po->stop = o->stop;
    po->client = p->client;
    po->progress = o->progress;
    po->progress_ctx = o->progress_ctx;
    po->managed = ddb_run_managed_state(p);
}

/* A run that committed its files: their paths into the summary, and the
 * folder's previous files replaced; when the list cannot be made, none is
 * removed (which are this run's is not known). */
static void list_outputs(ddb_run_plan *p, ddb_summary *s)
{
    const char *const *paths;
    size_t n = ddb_file_output_paths(p->output, &paths);
    if ((s->outputs = calloc(n ? n : 1, sizeof(char *))) != NULL)
        for (size_t i = 0; i < n; i++)
            if ((s->outputs[s->n_outputs] = strdup(paths[i])) != NULL)
                s->n_outputs++;
    if (s->n_outputs == n)
        ddb_run_commit_out(p, s);
    else
        s->output_failed = 1;
}

int ddb_run_plan_execute(ddb_run_plan *p, ddb_summary *s, ddb_error *err)
{
    ddb_pipeline_opts po;
    int rc;

    assert(p != NULL && s != NULL);
    pipeline_options(p, &po);
    if (p->managed.uploaded_before) { /* only the import is left to follow */
        if ((rc = ddb_pipeline_summary_resumed(s, &po, err)) == 0)
            s->committed = 1;
        return ddb_run_managed_import(p, s, rc, err);
    }
    rc = ddb_pipeline_run(s, &po, err);
    s->dry_run = p->o.dry_run;
    ddb_run_select_summary(p, s);
    if (p->output != NULL && s->committed && p->writes_files && !p->streams)
        list_outputs(p, s);
    return ddb_run_managed_import(p, s, rc, err);
}

void ddb_run_plan_report(const ddb_run_plan *p, ddb_run_report *out)
{
    memset(out, 0, sizeof(*out));
    out->resumed_from_state = p->state != NULL;
    out->source = p->source;
    out->target = p->target ? p->target : p->planned;
    out->target_planned = p->target == NULL && p->planned != NULL;
    out->consistent_read = p->o.consistent_read;
    ddb_run_managed_report(p, out);
    if (p->o.via_import != NULL) { /* the table is DynamoDB's import's to write */
        out->table_io = 1;
        out->target_table = p->o.target_table;
        return;
    }
    if (p->scan != NULL) {
        out->table_io = 2;
        out->scan_table = p->o.scan_table;
        out->queried = p->select_req.query;
        ddb_table_reader_stats(p->scan, &out->scan);
    }
    if (p->o.target_table != NULL && p->output != NULL) {
        if (out->table_io == 0)
            out->table_io = 1;
        out->target_table = p->o.target_table;
        out->dry_run = p->o.dry_run;
        out->target_indexes = out->target ? out->target->n_indexes : 0;
        if (p->o.dry_run)
            ddb_null_output_stats(p->output, &out->dry);
        else
            ddb_table_output_stats(p->output, &out->writes);
    } else if (p->o.target_table != NULL && out->table_io == 0) {
        out->table_io = 1;
    }
}

const ddb_output *ddb_run_plan_table_output(const ddb_run_plan *p)
{
    return p->o.target_table != NULL && !p->o.dry_run && p->o.via_import == NULL ? p->output : NULL;
}

const ddb_reader *ddb_run_plan_scan(const ddb_run_plan *p)
{
    return p->scan;
}

uint64_t ddb_run_plan_input_bytes(const ddb_run_plan *p)
{
    return p->input_bytes;
}

const ddb_mapping *ddb_run_plan_mapping(const ddb_run_plan *p)
{
    return p->mapping;
}

const ddb_table_info *ddb_run_plan_scanned_table(const ddb_run_plan *p)
{
    return p->source;
}

const ddb_generator *ddb_run_plan_generator(const ddb_run_plan *p)
{
    return p->gen;
}

void ddb_run_plan_set_output(ddb_run_plan *p, ddb_output *o)
{
    assert(p->o.own_output && p->rejects == NULL); /* a plan for it, not opened yet */
    if (!p->output_borrowed)
        ddb_output_free(p->output);
    p->output = o;
    p->output_borrowed = 1;
}

void ddb_run_plan_free(ddb_run_plan *p)
{
    if (p == NULL)
        return;
    if (!p->output_borrowed)
        ddb_output_free(p->output);
    ddb_reader_free(p->scan);
    ddb_reader_free(p->gen_reader);
    ddb_generator_free(p->gen);
    ddb_rejects_free(p->rejects);
    ddb_rejects_free(p->unmatched);
    ddb_run_s3_dispose(&p->s3);
    ddb_run_managed_dispose(&p->managed);
    ddb_table_info_free(p->target);
    ddb_table_info_free(p->planned);
    ddb_table_info_free(p->source);
    ddb_mapping_free(p->mapping);
    ddb_mapping_free(p->to_mapping);
    ddb_state_free(p->state);
    free(p->ttl_attribute);
    for (size_t i = 0; i < p->n_types; i++)
        free((char *)p->types[i].name);
    free(p->types);
    free(p->rejects_path);
    free(p->unmatched_path);
    free(p->run_dir);
    free(p->schema_dir);
    free(p->item_key_text);
    ddb_outdir_free(p->outdir);
    ddb_store_names_free(p->inputs, p->n_inputs);
    ddb_buf_dispose(&p->fingerprint);
    ddb_run_select_dispose(p);
    free(p);
}
