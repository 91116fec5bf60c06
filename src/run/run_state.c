/*
 * run_state.c — a run's identity and its state file: the fingerprint a
 * resumed run must match (the inputs, the mappings' contents, the options
 * that change what is written), and loading the state to resume from.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <openssl/evp.h>

#include "ddbpipe/checkpoint.h"
#include "ddbpipe/json.h"
#include "run/run_internal.h"

/* ----------------------------------------------------------- fingerprint */

/* SHA-256 (hex) of a file's bytes, so a resumed run can tell its mapping changed. */
static int file_sha256(const char *path, char out[65])
{
    FILE *f = fopen(path, "rb");
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    unsigned char buf[65536], md[32];
    unsigned int mdlen = 0;
    size_t n;
    int rc = -1;
    if (f == NULL || ctx == NULL || EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1)
        goto done;
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
        EVP_DigestUpdate(ctx, buf, n);
    if (!ferror(f) && EVP_DigestFinal_ex(ctx, md, &mdlen) == 1) {
        for (unsigned int i = 0; i < mdlen; i++)
            sprintf(out + 2 * i, "%02x", md[i]);
        rc = 0;
    }
done:
    if (f)
        fclose(f);
    EVP_MD_CTX_free(ctx);
    return rc;
}

static void fp_field(ddb_buf *b, const char *key, const char *value)
{
    ddb_buf_puts(b, b->len > 1 ? ",\"" : "\"");
    ddb_buf_puts(b, key);
    ddb_buf_puts(b, "\":");
    ddb_json_put_text(b, value ? value : "", strlen(value ? value : ""));
}

/* What the run is, for a resume to check: the inputs (with sizes and times),
 * the mappings' contents and every option that changes what is written. */
static int build_fingerprint(ddb_run_plan *p)
{
    const ddb_run_options *o = &p->o;
    ddb_buf *b = &p->fingerprint, in = DDB_BUF_INIT, opts = DDB_BUF_INIT;
    char sha[65], range[64] = "";
    int oom;

    ddb_buf_putc(b, '{');
    fp_field(b, "command", o->command);
    for (size_t i = 0; i < p->n_inputs; i++) {
        struct stat st;
        memset(&st, 0, sizeof(st));
        if (stat(p->inputs[i], &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
            /* a FIFO or a device: its times change with every write, and
             * what comes through it can only be taken on trust */
            ddb_buf_printf(&in, "%s%s (%s)", i ? "; " : "", p->inputs[i],
                           S_ISFIFO(st.st_mode) ? "a FIFO" : "not a regular file");
        else
            ddb_buf_printf(&in, "%s%s (%lld bytes, modified %lld)", i ? "; " : "", p->inputs[i],
                           (long long)st.st_size, (long long)st.st_mtime);
    }
    fp_field(b, "inputs", in.ptr);
    if (o->mapping_path && file_sha256(o->mapping_path, sha) == 0)
        fp_field(b, "mapping", sha);
    if (o->to_mapping_path && file_sha256(o->to_mapping_path, sha) == 0)
        fp_field(b, "to-mapping", sha);
    fp_field(b, "table",
             o->scan_table ? o->scan_table : (o->mode == DDB_MODE_IMPORT ? o->target_table : NULL));
    fp_field(b, "to-table", o->mode == DDB_MODE_IMPORT ? NULL : o->target_table);
    fp_field(b, "out", o->out_dir);
    if (o->identity != NULL) /* only then: the states of runs with one identity stay as they were */
        fp_field(b, "identity", o->identity);
    if (o->has_range)
        snprintf(range, sizeof(range), "%d-%d", o->segment_first, o->segment_last);
    ddb_buf_printf(
        &opts,
        "format=%s gzip=%d out-delimiter=%d input-format=%s delimiter=%d "
        "types=%s entity=%s delete=%d no-verify=%d max-line=%llu segments=%d "
        "segment-range=%s consistent-read=%d page-size=%llu dry-run=%d rejects=%s "
        "extra=%s unmatched=%s shard=%u/%u sse=%s write-mode=%d typed=%d "
        "input-table=%s short-rows=%d long-rows=%d columns=",
        o->format_set ? ddb_out_format_name(o->format) : "", o->gzip, o->out_delimiter,
        o->reader.format ? ddb_input_format_name(o->reader.format) : "", o->reader.delimiter,
        o->types ? o->types : "", o->reader.entity ? o->reader.entity : "", o->delete_all,
        o->reader.no_verify, (unsigned long long)o->reader.max_line, o->segments, range,
        o->consistent_read, (unsigned long long)o->page_size, o->dry_run,
        o->rejects_path ? o->rejects_path : "", o->extra_plain ? "plain" : "",
        o->unmatched_path ? o->unmatched_path : "", o->shard, o->shards, o->sse ? o->sse : "",
        (int)o->write_mode, o->typed_values, o->reader.table ? o->reader.table : "",
        o->reader.allow_short_rows, o->reader.allow_long_rows);
    for (size_t i = 0; i < o->reader.n_columns; i++)
        ddb_buf_printf(&opts, "%s%s", i ? "," : "", o->reader.columns[i]);
    ddb_run_managed_fingerprint(o, &opts);
    if (o->select_entities || o->select_where || o->select_project || o->select_sample)
        /* only then: the states of runs without them stay as they were */
        ddb_buf_printf(&opts, " entities=%s where=%s project=%s sample=%llu",
                       o->select_entities ? o->select_entities : "",
                       o->select_where ? o->select_where : "",
                       o->select_project ? o->select_project : "",
                       (unsigned long long)o->select_sample);
    fp_field(b, "options", opts.ptr);
    if (p->gen != NULL) {
        const ddb_mapping *m = p->mapping;
        ddb_buf_clear(&opts);
        ddb_buf_printf(&opts, "seed=%llu", (unsigned long long)o->gen_seed);
        for (size_t i = 0; i < m->n_entities; i++)
            ddb_buf_printf(&opts, " %s=%llu", m->entities[i].name,
                           (unsigned long long)ddb_generator_count(p->gen, i));
        fp_field(b, "generate", opts.ptr);
    }
    ddb_buf_putc(b, '}');
    oom = b->oom || in.oom || opts.oom;
    ddb_buf_dispose(&in);
    ddb_buf_dispose(&opts);
    return oom ? DDB_ENOMEM : 0;
}

/* Under a state file: resume the run it records, or start one. */
int ddb_run_load_state(ddb_run_plan *p, ddb_run_field *field, ddb_error *err)
{
    const ddb_run_options *o = &p->o;
    ddb_error serr;
    int rc;

    if (o->state_path == NULL)
        return 0;
    if (build_fingerprint(p) != 0)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    rc = ddb_state_load(&p->state, o->state_path, &serr);
    if (o->resume && rc == DDB_ENOTFOUND) {
        /* Killed before it could write anything: there is nothing to skip. */
        ddb_run_note(p,
                     "note: %s does not exist yet (the run stopped before its first checkpoint): "
                     "starting from the beginning",
                     o->state_path);
        return 0;
    }
    if (o->resume) {
        if (rc != 0)
            return ddb_run_fail(field, DDB_RUN_F_STATE, err, "%s", serr.message);
        /* a finished run is this one only if its command was: another
         * input, output or mapping under an old state file is not "done" */
        if (ddb_state_check_fingerprint(p->state->fingerprint, p->fingerprint.ptr, &serr) != 0)
            return ddb_run_fail(field, DDB_RUN_F_RESUME, err, "%s", serr.message);
        if (p->state->complete && !ddb_run_managed_pending(p->state)) {
            ddb_run_note(p, "the run recorded in %s is complete; nothing to resume", o->state_path);
            p->done = 1;
            return 0;
        }
        return ddb_run_managed_resume(p, field, err);
    }
    if (rc == 0 && (!p->state->complete || ddb_run_managed_pending(p->state)))
        return ddb_run_fail(field, DDB_RUN_F_STATE, err, "%s records an unfinished run",
                            o->state_path);
    ddb_state_free(p->state);
    p->state = NULL;
    return 0;
}
