/*
 * run_files.c — the files of a run besides its outputs: where the rejects
 * and unmatched items go, and the output folder as one unit (outdir.h).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "ddbpipe/fs.h"
#include "ddbpipe/sink.h"
#include "ddbpipe/output_file.h"
#include "ddbpipe/output_stream.h"
#include "ddbpipe/s3.h"
#include "run/run_internal.h"

static int open_side_file(ddb_run_plan *p, ddb_rejects **out, const char *path, uint64_t keep,
                          uint64_t lines, ddb_error *err)
{
    return ddb_rejects_open(out, path, p->s3.s3, p->o.state_path != NULL, p->state != NULL, keep,
                            lines, err);
}

char *ddb_run_folder_name(const char *table)
{
    const char *t = strstr(table, ":table/"); /* a table ARN names the table after it */
    char name[300], path[400];
    struct tm tm;
    time_t now = time(NULL);
    size_t n = 0;
    struct stat st;

    for (t = t ? t + 7 : table; *t && n < 255; t++)
        name[n++] = (char)((*t >= 'a' && *t <= 'z') || (*t >= 'A' && *t <= 'Z') ||
                                   (*t >= '0' && *t <= '9') || *t == '-' || *t == '_' || *t == '.'
                               ? *t
                               : '_');
    name[n] = '\0';
    gmtime_r(&now, &tm);
    n = (size_t)snprintf(path, sizeof(path), "ddbpipe-runs/%s-", name);
    strftime(path + n, sizeof(path) - n, "%Y%m%dT%H%M%SZ", &tm);
    n = strlen(path);
    for (int i = 2; stat(path, &st) == 0 && i < 1000; i++)
        snprintf(path + n, sizeof(path) - n, "-%d", i);
    return strdup(path);
}

/*
 * Where a side file goes unless told: OUT/_ddbpipe/<name> beside file
 * outputs; for a table, beside the state file (STATE.<name>), else in the
 * run's own folder under ./ddbpipe-runs/. NULL in *out when the run has no
 * such file (validate). Returns 0 or DDB_ENOMEM.
 */
static int side_default(ddb_run_plan *p, char **out, const char *name, ddb_error *err)
{
    const ddb_run_options *o = &p->o;
    *out = NULL;
    if (p->streams) {
        return 0; /* items on standard output: problems are only reported */
    } else if (p->outdir != NULL) {
        *out = ddb_outdir_side_path(p->outdir, name);
    } else if (p->writes_files) { /* an s3:// folder: objects below OUT/_ddbpipe/ */
        char side[300];
        snprintf(side, sizeof(side), DDB_OUTDIR_SIDE "/%s", name);
        *out = ddb_path_join(o->out_dir, side);
    } else if (o->target_table == NULL) {
        return 0;
    } else if (o->state_path != NULL) {
        size_t n = strlen(o->state_path) + strlen(name) + 2;
        if ((*out = malloc(n)) != NULL)
            snprintf(*out, n, "%s.%s", o->state_path, name);
    } else {
        if (p->run_dir == NULL && (p->run_dir = ddb_run_folder_name(o->target_table)) == NULL)
            return ddb_error_set(err, DDB_ENOMEM, "out of memory");
        *out = ddb_path_join(p->run_dir, name);
    }
    return *out == NULL ? ddb_error_set(err, DDB_ENOMEM, "out of memory") : 0;
}

/* A character device (/dev/null for files not wanted): any number of a run's
 * files may go there. */
static int is_device(const char *path)
{
    struct stat st;
    return path != NULL && stat(path, &st) == 0 && S_ISCHR(st.st_mode);
}

/* The rejects and unmatched files: asked for, or where side_default says. */
static int open_side_files(ddb_run_plan *p, ddb_run_field *field, ddb_error *err)
{
    const ddb_run_options *o = &p->o;
    const ddb_checkpoint *ck = p->state ? &p->state->ck : NULL;
    char name[64];
    int rc;

    snprintf(name, sizeof(name), "unmatched.ndjson%s", o->gzip && p->outdir ? ".gz" : "");
    if ((o->rejects_path == NULL &&
         (rc = side_default(p, &p->rejects_path, "rejects.ndjson", err)) != 0) ||
        (o->unmatched_path == NULL && (rc = side_default(p, &p->unmatched_path, name, err)) != 0))
        return rc;
    if ((o->rejects_path && (p->rejects_path = strdup(o->rejects_path)) == NULL) ||
        (o->unmatched_path && (p->unmatched_path = strdup(o->unmatched_path)) == NULL))
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    /* one file for both, but a device (/dev/null) that takes anything */
    if (p->rejects_path && p->unmatched_path && strcmp(p->rejects_path, p->unmatched_path) == 0 &&
        !is_device(p->rejects_path))
        return ddb_run_fail(field, DDB_RUN_F_UNMATCHED, err,
                            "the rejects and the unmatched items would go to the same file %s",
                            p->rejects_path);
    if (p->rejects_path != NULL && (rc = open_side_file(p, &p->rejects, p->rejects_path,
                                                        p->state ? p->state->rejects_bytes : 0,
                                                        ck ? ck->rejects : 0, err)) != 0) {
        *field = DDB_RUN_F_REJECTS;
        return rc;
    }
    if (p->unmatched_path != NULL && (rc = open_side_file(p, &p->unmatched, p->unmatched_path,
                                                          p->state ? p->state->unmatched_bytes : 0,
                                                          ck ? ck->total.unmatched : 0, err)) != 0)
        *field = DDB_RUN_F_UNMATCHED;
    return rc;
}

/* A local file (not standard input or output, not S3) that exists: its
 * device and inode in *st. */
static int local_file(const char *path, struct stat *st)
{
    return path != NULL && strcmp(path, "-") != 0 && !ddb_s3_is_url(path) && stat(path, st) == 0 &&
           S_ISREG(st->st_mode);
}

static int same_file(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* The input folder (one of o->inputs) that path would be written inside, or
 * NULL: a file written there is read as input by the next run of the same
 * command, and in an Export folder it can replace a manifest. */
static const char *input_folder_holding(const ddb_run_options *o, const char *path)
{
    char parent[PATH_MAX], real_parent[PATH_MAX], real_in[PATH_MAX];
    const char *slash;
    struct stat st;
    if (path == NULL || strcmp(path, "-") == 0 || ddb_s3_is_url(path))
        return NULL;
    slash = strrchr(path, '/');
    if (slash == NULL)
        snprintf(parent, sizeof(parent), ".");
    else
        snprintf(parent, sizeof(parent), "%.*s", slash == path ? 1 : (int)(slash - path), path);
    if (realpath(parent, real_parent) == NULL)
        return NULL;
    for (size_t j = 0; j < o->n_inputs; j++) {
        size_t n;
        if (strcmp(o->inputs[j], "-") == 0 || ddb_s3_is_url(o->inputs[j]) ||
            stat(o->inputs[j], &st) != 0 || !S_ISDIR(st.st_mode) ||
            realpath(o->inputs[j], real_in) == NULL)
            continue;
        n = strlen(real_in);
        if (strncmp(real_parent, real_in, n) == 0 &&
            (real_parent[n] == '\0' || real_parent[n] == '/' || n == 1))
            return o->inputs[j];
    }
    return NULL;
}

int ddb_run_check_own_files(ddb_run_plan *p, ddb_run_field *field, ddb_error *err)
{
    const ddb_run_options *o = &p->o;
    const struct {
        const char *path, *flag;
    } own[] = {{o->state_path, "--state"},
               {o->rejects_path, "--rejects"},
               {o->unmatched_path, "--unmatched"},
               {o->summary_path, "--summary"}};
    const char *const mappings[] = {o->mapping_path, o->to_mapping_path};
    enum { N_OWN = sizeof(own) / sizeof(own[0]) };
    struct stat ws[N_OWN], rs;
    int there[N_OWN];

    /* the state is saved by renaming a new copy over it: never over a device */
    if (o->state_path != NULL && ddb_path_is_special(o->state_path))
        return ddb_run_fail(field, DDB_RUN_F_OWN_FILES, err,
                            "--state %s is not a regular file: the state is saved as a file "
                            "of its own",
                            o->state_path);
    for (size_t i = 0; i < N_OWN; i++) {
        const char *folder = input_folder_holding(o, own[i].path);
        if (folder != NULL)
            return ddb_run_fail(field, DDB_RUN_F_OWN_FILES, err,
                                "%s %s is inside the input folder %s: the next run would read it, "
                                "or it would replace a file of it",
                                own[i].flag, own[i].path, folder);
        /* one not there yet is not anything the run reads */
        there[i] = local_file(own[i].path, &ws[i]);
    }
    /* each input looked at once, however many files an input folder holds */
    for (size_t j = 0; j < p->n_inputs + o->n_inputs; j++) {
        const char *in = j < p->n_inputs ? p->inputs[j] : o->inputs[j - p->n_inputs];
        if (!local_file(in, &rs))
            continue;
        for (size_t i = 0; i < N_OWN; i++)
            if (there[i] && same_file(&ws[i], &rs))
                return ddb_run_fail(field, DDB_RUN_F_OWN_FILES, err,
                                    "%s %s is the input %s: the run would overwrite what it reads",
                                    own[i].flag, own[i].path, in);
    }
    for (size_t m = 0; m < 2; m++) {
        if (!local_file(mappings[m], &rs))
            continue;
        for (size_t i = 0; i < N_OWN; i++)
            if (there[i] && same_file(&ws[i], &rs))
                return ddb_run_fail(field, DDB_RUN_F_OWN_FILES, err,
                                    "%s %s is the mapping %s: the run would overwrite it",
                                    own[i].flag, own[i].path, mappings[m]);
    }
    for (size_t i = 0; i < N_OWN; i++)
        for (size_t j = i + 1; j < N_OWN; j++) {
            if (own[i].path == NULL || own[j].path == NULL || strcmp(own[i].path, "-") == 0 ||
                is_device(own[i].path))
                continue;
            if (strcmp(own[i].path, own[j].path) == 0 ||
                (there[i] && there[j] && same_file(&ws[i], &ws[j])))
                return ddb_run_fail(field, DDB_RUN_F_OWN_FILES, err,
                                    "%s and %s name the same file %s: each needs its own",
                                    own[i].flag, own[j].flag, own[j].path);
        }
    return 0;
}

/* The output folder, looked at before anything is written there. */
static int open_outdir(ddb_run_plan *p, ddb_store *store, ddb_run_field *field, ddb_error *err)
{
    const char *const *foreign;
    size_t n;
    int rc;
    if ((rc = ddb_outdir_open(&p->outdir, store, p->o.out_dir, p->o.overwrite, p->state != NULL,
                              err)) != 0) {
        *field = rc == DDB_EUSAGE ? DDB_RUN_F_OVERWRITE : DDB_RUN_F_OUT;
        return rc;
    }
    if (p->state == NULL && (n = ddb_outdir_foreign(p->outdir, &foreign)) > 0)
        ddb_run_note(p,
                     "writing into %s beside %zu file%s ddbpipe did not write, as asked (%s%s); "
                     "files of the same names as this run's are replaced",
                     p->o.out_dir, n, n == 1 ? "" : "s", foreign[0], n > 1 ? ", ..." : "");
    return 0;
}

int ddb_run_check_out(ddb_run_plan *p, ddb_run_field *field, ddb_error *err)
{
    /* A bucket's prefix is looked at once S3 is reachable (ddb_run_check_out_s3). */
    if (!p->writes_files || p->streams || ddb_s3_is_url(p->o.out_dir))
        return 0;
    return open_outdir(p, NULL, field, err);
}

int ddb_run_check_out_s3(ddb_run_plan *p, ddb_run_field *field, ddb_error *err)
{
    if (!p->writes_files || p->streams || !ddb_s3_is_url(p->o.out_dir) || p->outdir != NULL)
        return 0;
    p->outdir_store = p->s3.store;
    return open_outdir(p, p->s3.store, field, err);
}

/* The rejects and unmatched files of an earlier run in a bucket's prefix,
 * when this run has none: a local run's are removed as it ends (rejects.h),
 * a bucket's only once the run has committed. */
static void remove_stale_sides_s3(ddb_run_plan *p, ddb_summary *s)
{
    const char *mine[2] = {p->o.rejects_path ? NULL : p->rejects_path,
                           p->o.unmatched_path ? NULL : p->unmatched_path};
    const char *kept[2] = {s->rejects_path, s->unmatched_path};
    for (int i = 0; i < 2; i++) {
        ddb_error err;
        int rc;
        if (mine[i] == NULL || kept[i] != NULL)
            continue;
        rc = p->outdir_store->vt->remove(p->outdir_store, mine[i], &err);
        if (rc != 0 && rc != DDB_ENOTFOUND) {
            ddb_error_prefix(&err, "cannot remove %s, left by an earlier run: ", mine[i]);
            if (p->o.report)
                p->o.report(p->o.report_ctx, DDB_REPORT_ERROR, err.message);
            s->output_failed = 1;
        }
    }
}

void ddb_run_commit_out(ddb_run_plan *p, ddb_summary *s)
{
    ddb_error err;
    size_t removed = 0;
    char *names = NULL;
    if (p->outdir == NULL || !s->committed)
        return;
    /* the outputs are committed: so is the folder, whole, interrupted or not */
    if (p->outdir_store != NULL)
        ddb_s3_hold_stop(p->s3.s3);
    if (ddb_outdir_commit(p->outdir, (const char *const *)s->outputs, s->n_outputs, &removed,
                          &names, &err) != 0) {
        if (p->o.report)
            p->o.report(p->o.report_ctx, DDB_REPORT_ERROR, err.message);
        s->output_failed = 1;
    } else {
        p->out_committed = 1;
        if (p->outdir_store != NULL)
            remove_stale_sides_s3(p, s);
        /* column types of an earlier run would describe files no longer there */
        if (p->schema_dir == NULL &&
            ddb_outdir_remove_side_folder(p->outdir, "schema", &err) != 0) {
            if (p->o.report)
                p->o.report(p->o.report_ctx, DDB_REPORT_ERROR, err.message);
            s->output_failed = 1;
        }
    }
    if (p->outdir_store != NULL)
        ddb_s3_release_stop(p->s3.s3);
    if (removed > 0) {
        ddb_run_note(p,
                     "removed %zu file%s of the previous run in %s that this run did not write: %s",
                     removed, removed == 1 ? "" : "s", p->o.out_dir, names ? names : "");
    }
    free(names);
}

char *ddb_run_plan_summary_path(const ddb_run_plan *p)
{
    return p->out_committed ? ddb_outdir_side_path(p->outdir, "summary.json") : NULL;
}

/* --partition-by names a field of type S, N or BOOL (a folder's one value)
 * that some entity of the mapping declares. */
static int check_partition_by(const ddb_file_output_opts *fo, ddb_error *err)
{
    int found = 0;
    if (fo->partition_by == NULL)
        return 0;
    if (fo->format != DDB_OUT_PARQUET)
        return ddb_error_set(err, DDB_EUSAGE, "--partition-by is for --format parquet");
    for (size_t i = 0; fo->records && fo->mapping && i < fo->mapping->n_entities; i++) {
        const ddb_entity *e = &fo->mapping->entities[i];
        for (size_t j = 0; j < e->n_fields; j++) {
            ddb_type t = e->fields[j].type;
            if (strcmp(e->fields[j].name, fo->partition_by) != 0)
                continue;
            if (t != DDB_TYPE_S && t != DDB_TYPE_N && t != DDB_TYPE_BOOL)
                return ddb_error_set(err, DDB_EUSAGE,
                                     "--partition-by %s: a folder holds one value of type S, N "
                                     "or BOOL, and %s.%s is %s",
                                     fo->partition_by, e->name, fo->partition_by,
                                     ddb_type_name(t));
            found = 1;
        }
    }
    return found ? 0
                 : ddb_error_set(err, DDB_EUSAGE,
                                 "--partition-by %s: no entity of the mapping declares that "
                                 "field (records are partitioned by a field their entity "
                                 "declares)",
                                 fo->partition_by);
}

/* Parquet items (no mapping): the key attributes that get a column each,
 * from --key (typed by the table's key schema when it names them, else by
 * the first item), the table read, or the table of the mapping the items
 * are encoded with (convert, encode); none is said, not guessed. */
static int item_keys(ddb_run_plan *p, ddb_error *err)
{
    const ddb_table_info *t = p->source;
    const ddb_mapping *m = p->to_mapping ? p->to_mapping : p->mapping;
    char *save = NULL;
    if (p->format != DDB_OUT_PARQUET || (p->o.mode == DDB_MODE_EXPORT && p->mapping != NULL))
        return 0; /* entity files have a column per field */
    if (p->o.key_attrs == NULL && (t != NULL || m != NULL)) {
        p->item_keys[p->n_item_keys++] = t ? t->pk : m->table.pk;
        if ((t ? t->sk.name : m->table.sk.name) != NULL)
            p->item_keys[p->n_item_keys++] = t ? t->sk : m->table.sk;
        return 0;
    }
    if (p->o.key_attrs == NULL) {
        ddb_run_note(p, "no key attributes are known (no table read, no --key): items.parquet "
                        "has the item column only");
        return 0;
    }
    if ((p->item_key_text = strdup(p->o.key_attrs)) == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    for (char *name = strtok_r(p->item_key_text, ",", &save); name != NULL;
         name = strtok_r(NULL, ",", &save)) {
        ddb_key_attr *k = &p->item_keys[p->n_item_keys];
        if (p->n_item_keys == 2)
            return ddb_error_set(err, DDB_EUSAGE, "--key names at most two attributes (the "
                                                  "partition key and the sort key)");
        k->name = name;
        k->type = t && t->pk.name && strcmp(t->pk.name, name) == 0   ? t->pk.type
                  : t && t->sk.name && strcmp(t->sk.name, name) == 0 ? t->sk.type
                                                                     : DDB_TYPE_NONE;
        p->n_item_keys++;
    }
    return 0;
}

int ddb_run_plan_open(ddb_run_plan *p, ddb_run_field *field, ddb_error *err)
{
    const ddb_run_options *o = &p->o;
    int rc;

    *field = DDB_RUN_F_NONE;
    if (p->managed.uploaded_before)
        return 0; /* the records were settled by the run resumed; only its import is left */
    if (o->own_output && p->output == NULL)
        return ddb_error_set(err, DDB_EUSAGE, "the run was planned without its output");
    if (p->streams) {
        ddb_sink *sink = NULL;
        if ((rc = ddb_sink_open_file(&sink, "-", 0, err)) != 0 ||
            (rc = ddb_stream_output_new(&p->output, sink, err)) != 0) {
            *field = DDB_RUN_F_OUT;
            return rc;
        }
    } else if (p->writes_files) {
        ddb_file_output_opts fo;
        memset(&fo, 0, sizeof(fo));
        fo.dir = o->out_dir;
        fo.gzip = o->gzip;
        fo.delimiter = o->out_delimiter;
        fo.max_columns = o->max_columns;
        fo.extra_plain = o->extra_plain;
        fo.typed_values = o->typed_values;
        fo.mapping = p->mapping;
        fo.records = o->mode == DDB_MODE_EXPORT;
        fo.select = p->select;
        fo.single_name = "items";
        fo.resumable = o->state_path != NULL;
        fo.resume_state = p->state ? p->state->outputs : NULL;
        fo.format = p->format;
        fo.parquet_codec = o->parquet_codec;
        fo.parquet_group_rows = o->parquet_group_rows;
        /* --max-file-size parts encode their own (each measures those written) */
        fo.encode_ahead = o->threads != 1 && o->max_file_bytes == 0;
        fo.write_behind = o->threads != 1;
        fo.max_file_bytes = o->max_file_bytes;
        fo.partition_by = o->partition_by;
        if ((rc = item_keys(p, err)) != 0) {
            *field = DDB_RUN_F_OUT;
            return rc;
        }
        fo.keys = p->item_keys;
        fo.n_keys = p->n_item_keys;
        fo.s3 = p->s3.s3;
        fo.store = p->s3.store;
        if (p->format != DDB_OUT_DDBJSON && p->mapping != NULL &&
            fo.records && p->outdir &&
            (p->schema_dir = ddb_outdir_side_path(p->outdir, "schema")) == NULL)
            return ddb_error_set(err, DDB_ENOMEM, "out of memory");
        fo.schema_dir = p->schema_dir;
        if ((rc = check_partition_by(&fo, err)) != 0)
            return rc;
        if ((rc = ddb_file_output_new(&p->output, &fo, err)) != 0) {
            *field = DDB_RUN_F_OUT;
            return rc;
        }
    }
    return open_side_files(p, field, err);
}
