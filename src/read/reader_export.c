/*
 * The Export to S3 reader: the manifests (manifest.c) list the gzip data
 * files; each is read by a DynamoDB JSON lines reader over a source with an
 * MD5 tap on the raw bytes, and checked against its manifest entry when it
 * ends. A mismatch is reported once as DDB_EVERIFY and reading goes on with
 * the next file, so one bad partition does not hide the others.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/checksum.h"
#include "ddbpipe/manifest.h"
#include "ddbpipe/reader.h"
#include "ddbpipe/store.h"
#include "ddbpipe/source.h"
#include "read/reader_internal.h"

/* A record's position: the data file's index in the manifest, then the
 * byte offset of its line in that file (files are far below 2^40 bytes). */
#define DDB_EXPORT_POS_SHIFT 40
#define DDB_EXPORT_POS(file, off) (((uint64_t)(file) << DDB_EXPORT_POS_SHIFT) | (off))

typedef struct export_reader {
    ddb_reader base;
    ddb_manifest *m;
    ddb_store *store;
    ddb_reader_opts opts; /* for the inner readers; entity points at base.entity_hint */
    int verify;
    size_t idx;        /* the file being read, or the next one */
    ddb_reader *inner; /* NULL between files */
    ddb_source *md5;   /* MD5 tap inside inner's chain (verify only) */
    uint64_t file_records;
    uint64_t total_records;
    uint64_t done_bytes;   /* raw bytes of the files already closed */
    uint64_t done_decoded; /* decoded bytes of the finished files */
    int ended;             /* the final count check is done */
    size_t resume_file;    /* skip_to: files before this one are not read again */
    uint64_t resume_off;   /* ... and this one starts at this offset */
    int resuming;
    int partial; /* the current file was entered mid-way: its count cannot be checked */
    int fatal;   /* sticky code after a fatal error */
    ddb_record rec;
} export_reader;

static int open_data_file(export_reader *er, ddb_error *err)
{
    const ddb_manifest_file *f = &er->m->files[er->idx];
    ddb_source *src = NULL;
    int rc;

    er->md5 = NULL;
    er->file_records = 0;
    if ((rc = er->store->vt->open(er->store, f->path, &src, err)) != 0 ||
        (rc = ddb_source_auto(&src, src, ddb_reader_source_flags(&er->opts),
                             er->verify ? &er->md5 : NULL, err)) != 0)
        return rc;
    return ddb_reader_new_lines(&er->inner, src, DDB_IN_DDBJSON, f->path, &er->opts, err);
}

/* Checks a data file once read: md5 of its raw bytes, records the lines it
 * held. Returns 0, or DDB_EVERIFY naming the file, expected and actual values. */
static int check_data_file(const ddb_manifest_file *f, const unsigned char md5[16],
                           uint64_t records, ddb_error *err)
{
    char md5_msg[400] = "", count_msg[200] = "";
    ddb_checksum want;
    ddb_error perr;

    if (f->md5 != NULL) {
        char want_s[DDB_CHECKSUM_TEXT_MAX], got_s[DDB_CHECKSUM_TEXT_MAX];
        if (ddb_checksum_parse(&want, f->md5, strlen(f->md5), &perr) != 0 ||
            want.algo != DDB_DIGEST_MD5) {
            snprintf(md5_msg, sizeof(md5_msg), "md5Checksum \"%.64s\" is not an MD5", f->md5);
        } else if (memcmp(want.bytes, md5, 16) != 0) {
            ddb_checksum_format(want_s, &want, want.bytes);
            ddb_checksum_format(got_s, &want, md5);
            snprintf(md5_msg, sizeof(md5_msg), "MD5 is %s, manifest md5Checksum says %s", got_s,
                     want_s);
        }
    }
    if (records != f->item_count)
        snprintf(count_msg, sizeof(count_msg), "holds %llu records, manifest itemCount says %llu",
                 (unsigned long long)records, (unsigned long long)f->item_count);
    if (md5_msg[0] == '\0' && count_msg[0] == '\0')
        return 0;
    return ddb_error_set(err, DDB_EVERIFY, "%s (dataFileS3Key %s): %s%s%s", f->path, f->key,
                         md5_msg, md5_msg[0] && count_msg[0] ? "; " : "", count_msg);
}

/*
 * Ends the current file. read_rc is 0 when the inner reader reached its end,
 * else the error it returned (err holds its message). Returns 0, DDB_EVERIFY
 * (go on with the next file) or a fatal code.
 */
static int close_data_file(export_reader *er, int read_rc, ddb_error *err)
{
    const ddb_manifest_file *f = &er->m->files[er->idx];
    unsigned char digest[16];
    char cause[DDB_ERROR_MAX] = "";
    int have_digest = 0, rc = 0;

    if (read_rc != 0)
        snprintf(cause, sizeof(cause), "%s", err ? err->message : ddb_error_code_name(read_rc));
    if (er->verify) {
        /* The decoder may stop short of the end (a gzip error, trailing
         * bytes): hash what is left so the digest covers the whole file. */
        char buf[65536];
        ssize_t n;
        ddb_error derr;
        while ((n = ddb_source_read(er->md5, buf, sizeof(buf), &derr)) > 0)
            ;
        if (n < 0 && read_rc == 0) {
            read_rc = (int)n;
            snprintf(cause, sizeof(cause), "%s", derr.message);
        }
        if (n == 0)
            have_digest = ddb_source_md5_digest(er->md5, digest) == 0;
    }
    er->done_bytes += ddb_reader_raw_bytes(er->inner);
    er->done_decoded += ddb_reader_decoded_bytes(er->inner);
    ddb_reader_free(er->inner);
    er->inner = NULL;
    er->md5 = NULL;
    er->idx++;

    if (read_rc != 0) {
        /* Unreadable data whose bytes differ from what AWS wrote is a failed
         * verification of that file; the other files can still be read. */
        ddb_error verr;
        if (have_digest && f->md5 != NULL && check_data_file(f, digest, f->item_count, &verr) != 0)
            return ddb_error_set(err, DDB_EVERIFY, "%s; reading it failed after %llu records: %s",
                                 verr.message, (unsigned long long)er->file_records, cause);
        er->fatal = read_rc;
        return ddb_error_set(err, read_rc, "%s", cause);
    }
    if (have_digest)
        rc = check_data_file(f, digest, er->partial ? f->item_count : er->file_records, err);
    if (er->partial) {
        er->total_records += f->item_count - er->file_records;
        er->partial = 0;
    }
    return rc;
}

/* unparsed: the data files' lines may come unparsed (next_unparsed) */
static int export_step(ddb_reader *r, ddb_record **out, ddb_error *err, int unparsed)
{
    export_reader *er = (export_reader *)r;
    ddb_record *rec;
    int rc;

    if (er->fatal)
        return ddb_error_set(err, er->fatal, "%s: reading stopped after an earlier error", r->name);
    for (;;) {
        if (er->inner == NULL) {
            if (er->idx == er->m->nfiles) {
                if (er->ended || !er->verify || er->total_records == er->m->item_count) {
                    er->ended = 1;
                    return DDB_ITEROVER;
                }
                er->ended = 1;
                return ddb_error_set(err, DDB_EVERIFY,
                                     "%s: the data files hold %llu records in all, its itemCount "
                                     "says %llu",
                                     er->m->summary_path, (unsigned long long)er->total_records,
                                     (unsigned long long)er->m->item_count);
            }
            if (er->resuming && er->idx < er->resume_file) {
                /* Accounted for by the run being resumed: not read again. */
                er->total_records += er->m->files[er->idx].item_count;
                er->done_bytes += er->m->files[er->idx].size;
                er->idx++;
                continue;
            }
            if ((rc = open_data_file(er, err)) != 0) {
                er->fatal = rc;
                return rc;
            }
            if (er->resuming && er->idx == er->resume_file) {
                er->resuming = 0;
                er->partial = er->resume_off > 0;
                if ((rc = er->inner->vt->skip_to(er->inner, er->resume_off, err)) != 0)
                    return rc;
            }
        }
        rc = unparsed ? er->inner->vt->next_unparsed(er->inner, &rec, err)
                      : ddb_reader_next(er->inner, &rec, err);
        if (rc == 0) {
            er->file_records++;
            er->total_records++;
            er->rec = *rec;
            er->rec.source = er->m->files[er->idx].path;
            er->rec.pos = DDB_EXPORT_POS(er->idx, rec->pos);
            *out = &er->rec;
            return 0;
        }
        if ((rc = close_data_file(er, rc == DDB_ITEROVER ? 0 : rc, err)) != 0)
            return rc;
    }
}

static int export_next(ddb_reader *r, ddb_record **out, ddb_error *err)
{
    return export_step(r, out, err, 0);
}

static int export_next_unparsed(ddb_reader *r, ddb_record **out, ddb_error *err)
{
    return export_step(r, out, err, 1);
}

static void export_free(ddb_reader *r)
{
    export_reader *er = (export_reader *)r;
    ddb_reader_free(er->inner);
    ddb_manifest_free(er->m);
}

static uint64_t export_decoded_bytes(const ddb_reader *r)
{
    const export_reader *er = (const export_reader *)r;
    return er->done_decoded + (er->inner ? ddb_reader_decoded_bytes(er->inner) : 0);
}

static uint64_t export_raw_bytes(const ddb_reader *r)
{
    const export_reader *er = (const export_reader *)r;
    return er->done_bytes + (er->inner ? ddb_reader_raw_bytes(er->inner) : 0);
}

static int export_skip_to(ddb_reader *r, uint64_t pos, ddb_error *err)
{
    export_reader *er = (export_reader *)r;
    (void)err;
    er->resuming = 1;
    er->resume_file = (size_t)(pos >> DDB_EXPORT_POS_SHIFT);
    er->resume_off = pos & ((1ull << DDB_EXPORT_POS_SHIFT) - 1);
    return 0;
}

/* Keeps shard I of N of the data files (i % N == I - 1) and has the store
 * fetch them ahead in order. The counts to verify become the shard's. */
static int take_shard(export_reader *er, ddb_error *err)
{
    ddb_manifest *m = er->m;
    const char **paths;
    unsigned n = er->opts.shards, i1 = er->opts.shard;
    size_t k = 0;
    int rc = 0;

    if (n > 1) {
        uint64_t items = 0, bytes = 0;
        for (size_t i = 0; i < m->nfiles; i++) {
            if (i % n == i1 - 1) {
                items += m->files[i].item_count;
                bytes += m->files[i].size;
                m->files[k++] = m->files[i];
            } else {
                free(m->files[i].key);
                free(m->files[i].md5);
                free(m->files[i].etag);
                free(m->files[i].path);
            }
        }
        m->nfiles = k;
        m->item_count = items;
        m->total_bytes = bytes;
    }
    if (er->store->vt->plan == NULL || m->nfiles == 0)
        return 0;
    if ((paths = calloc(m->nfiles, sizeof(*paths))) == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    for (size_t i = 0; i < m->nfiles; i++)
        paths[i] = m->files[i].path;
    rc = er->store->vt->plan(er->store, paths, m->nfiles, err);
    free(paths);
    return rc;
}

static const ddb_reader_vtable export_vtable = {"Export to S3 folder",
                                                export_next,
                                                export_free,
                                                export_raw_bytes,
                                                export_decoded_bytes,
                                                export_skip_to,
                                                NULL,
                                                NULL,
                                                NULL,
                                                export_next_unparsed};

int ddb_reader_new_export(ddb_reader **out, const char *dir, const ddb_reader_opts *opts,
                          ddb_error *err)
{
    export_reader *er = calloc(1, sizeof(*er));
    unsigned flags = 0;
    int rc;

    *out = NULL;
    if (er == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    if (opts != NULL)
        er->opts = *opts;
    er->verify = !er->opts.no_verify;
    if (ddb_reader_base_init(&er->base, &export_vtable, dir, DDB_IN_EXPORT, opts) != 0)
        goto oom;
    /* The folder name is an export id, not an entity: only --entity names one. */
    if (er->opts.entity == NULL) {
        free(er->base.entity_hint);
        er->base.entity_hint = NULL;
        er->base.deletes = 0;
    }
    er->opts.entity = er->base.entity_hint;
    er->opts.format = DDB_IN_DDBJSON;
    if (!er->verify)
        flags |= DDB_MANIFEST_NO_VERIFY;
    if ((er->store = ddb_store_for(er->opts.remote, dir)) == NULL) {
        rc = ddb_error_set(err, DDB_EUSAGE, "%s: reading from S3 needs AWS access", dir);
        goto fail;
    }
    if ((rc = ddb_manifest_load_from(&er->m, er->store, dir, flags, er->opts.warn,
                                     er->opts.warn_ctx, err)) != 0 ||
        (rc = take_shard(er, err)) != 0)
        goto fail;
    er->base.expected_items = er->m->item_count;
    er->base.total_bytes = er->m->total_bytes;
    *out = &er->base;
    return 0;
oom:
    rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
fail:
    ddb_reader_free(&er->base);
    return rc;
}
