/*
 * A dynamodump backup of one table: DIR/schema.json (the DescribeTable answer
 * of the table when it was dumped) and DIR/data/0001.json, 0002.json, ...,
 * one Scan page each ({"Items": [...], "Count": .., "ScannedCount": ..},
 * pretty-printed). The pages are read in name order, each by the JSON
 * document reader; every item must carry the table's key attributes with
 * their declared types (the schema says which), and every record names the
 * table.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/item.h"
#include "ddbpipe/reader.h"
#include "ddbpipe/store.h"
#include "ddbpipe/table.h"
#include "ddbpipe/source.h"
#include "read/reader_internal.h"

/* A record's position: the page's index, then the byte offset in it. */
#define DUMP_POS_SHIFT 40
#define DUMP_POS(file, off) (((uint64_t)(file) << DUMP_POS_SHIFT) | (off))

typedef struct dump_reader {
    ddb_reader base;
    ddb_reader_opts opts;
    ddb_store *store; /* where dir lives (borrowed) */
    ddb_table_info *schema;
    char **pages;
    size_t n_pages;
    size_t idx;        /* the page being read, or the next one */
    ddb_reader *inner; /* NULL between pages */
    uint64_t done_raw, done_decoded;
    size_t resume_file;
    uint64_t resume_off;
    int resuming;
    char reason[DDB_ERROR_MAX];
} dump_reader;

/* The pages, data/NNNN.json, sorted (dynamodump numbers its pages 0001, 0002,
 * ...; the store lists them in byte order), and their total size. */
static int list_pages(dump_reader *dr, const char *dir, ddb_error *err)
{
    char path[4096], **names = NULL;
    size_t n = 0;
    int rc;
    snprintf(path, sizeof(path), "%s/data", dir);
    if ((rc = dr->store->vt->list(dr->store, path, &names, &n, err)) != 0)
        return rc;
    if ((dr->pages = calloc(n ? n : 1, sizeof(char *))) == NULL) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(names[i]);
        char *p;
        int is_dir = 0;
        uint64_t size = 0;
        if (names[i][0] == '.' || len < 6 || strcmp(names[i] + len - 5, ".json") != 0)
            continue; /* folders end with '/' */
        if ((p = malloc(strlen(path) + len + 2)) == NULL) {
            rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
            goto done;
        }
        sprintf(p, "%s/%s", path, names[i]);
        dr->pages[dr->n_pages++] = p;
        if (dr->store->vt->stat(dr->store, p, &is_dir, &size, NULL) == 0)
            dr->base.total_bytes += size;
    }
    if (dr->store->vt->plan != NULL && dr->n_pages > 0)
        rc = dr->store->vt->plan(dr->store, (const char *const *)dr->pages, dr->n_pages, err);
done:
    ddb_store_names_free(names, n);
    return rc;
}

static int load_schema(dump_reader *dr, const char *dir, ddb_error *err)
{
    char path[4096], *text = NULL;
    size_t len = 0;
    int rc;
    snprintf(path, sizeof(path), "%s/schema.json", dir);
    if ((rc = dr->store->vt->read_all(dr->store, path, 16 * 1024 * 1024, &text, &len, err)) != 0)
        return rc;
    rc = ddb_table_info_parse(&dr->schema, text, NULL, err);
    free(text);
    if (rc == DDB_EINVAL || (rc == 0 && dr->schema->pk.name == NULL)) {
        return ddb_error_set(err, DDB_EUSAGE,
                             "%s: not a dynamodump table schema (the DescribeTable answer with "
                             "the table's KeySchema)",
                             path);
    }
    return rc;
}

static int open_page(dump_reader *dr, ddb_error *err)
{
    ddb_source *src = NULL;
    int rc = dr->store->vt->open(dr->store, dr->pages[dr->idx], &src, err);
    if (rc != 0 ||
        (rc = ddb_source_auto(&src, src, ddb_reader_source_flags(&dr->opts), NULL, err)) != 0)
        return rc;
    return ddb_reader_new_scan(&dr->inner, src, dr->pages[dr->idx], &dr->opts, err);
}

static void close_page(dump_reader *dr)
{
    dr->done_raw += ddb_reader_raw_bytes(dr->inner);
    dr->done_decoded += ddb_reader_decoded_bytes(dr->inner);
    ddb_reader_free(dr->inner);
    dr->inner = NULL;
}

static int dump_next(ddb_reader *r, ddb_record **out, ddb_error *err)
{
    dump_reader *dr = (dump_reader *)r;
    for (;;) {
        ddb_record *rec;
        ddb_error kerr;
        int rc;
        if (dr->inner == NULL) {
            if (dr->resuming && dr->idx < dr->resume_file)
                dr->idx = dr->resume_file;
            if (dr->idx >= dr->n_pages)
                return DDB_ITEROVER;
            if ((rc = open_page(dr, err)) != 0)
                return rc;
            if (dr->resuming && dr->idx == dr->resume_file) {
                dr->resuming = 0;
                if ((rc = dr->inner->vt->skip_to(dr->inner, dr->resume_off, err)) != 0)
                    return rc;
            }
        }
        rc = ddb_reader_next(dr->inner, &rec, err);
        if (rc == DDB_ITEROVER) {
            close_page(dr);
            dr->idx++;
            continue;
        }
        if (rc != 0)
            return rc;
        rec->pos = DUMP_POS(dr->idx, rec->pos);
        rec->table = dr->schema->name;
        if (rec->kind == DDB_REC_PUT &&
            ddb_item_validate_key(&rec->item, &dr->schema->schema, &kerr) != 0) {
            snprintf(dr->reason, sizeof(dr->reason), "%s (the key of table %s)", kerr.message,
                     dr->schema->name);
            rec->kind = DDB_REC_BAD;
            rec->reason = dr->reason;
        }
        *out = rec;
        return 0;
    }
}

static void dump_free(ddb_reader *r)
{
    dump_reader *dr = (dump_reader *)r;
    ddb_reader_free(dr->inner);
    for (size_t i = 0; i < dr->n_pages; i++)
        free(dr->pages[i]);
    free(dr->pages);
    ddb_table_info_free(dr->schema);
}

static uint64_t dump_raw_bytes(const ddb_reader *r)
{
    const dump_reader *dr = (const dump_reader *)r;
    return dr->done_raw + (dr->inner ? ddb_reader_raw_bytes(dr->inner) : 0);
}

static uint64_t dump_decoded_bytes(const ddb_reader *r)
{
    const dump_reader *dr = (const dump_reader *)r;
    return dr->done_decoded + (dr->inner ? ddb_reader_decoded_bytes(dr->inner) : 0);
}

static int dump_skip_to(ddb_reader *r, uint64_t pos, ddb_error *err)
{
    dump_reader *dr = (dump_reader *)r;
    (void)err;
    dr->resume_file = (size_t)(pos >> DUMP_POS_SHIFT);
    dr->resume_off = pos & ((1ull << DUMP_POS_SHIFT) - 1);
    dr->resuming = 1;
    return 0;
}

static const ddb_reader_vtable dump_vtable = {
    "dynamodump backup", dump_next, dump_free, dump_raw_bytes, dump_decoded_bytes,
    dump_skip_to,        NULL,      NULL,      NULL,           NULL};

int ddb_reader_new_dynamodump(ddb_reader **out, const char *dir, const ddb_reader_opts *opts,
                              ddb_error *err)
{
    dump_reader *dr = calloc(1, sizeof(*dr));
    int rc;

    *out = NULL;
    if (dr == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    if (ddb_reader_base_init(&dr->base, &dump_vtable, dir, DDB_IN_DYNAMODUMP, opts) != 0) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto fail;
    }
    /* The folder is named after the table, not an entity: no hint from it. */
    if (opts == NULL || opts->entity == NULL) {
        free(dr->base.entity_hint);
        dr->base.entity_hint = NULL;
        dr->base.deletes = 0;
    }
    if (opts != NULL)
        dr->opts = *opts;
    dr->opts.entity = NULL;
    dr->opts.table = NULL;
    if ((dr->store = ddb_store_for(dr->opts.remote, dir)) == NULL) {
        rc = ddb_error_set(err, DDB_EUSAGE, "%s: reading from S3 needs AWS access", dir);
        goto fail;
    }
    if ((rc = load_schema(dr, dir, err)) != 0 || (rc = list_pages(dr, dir, err)) != 0)
        goto fail;
    *out = &dr->base;
    return 0;
fail:
    dump_free(&dr->base);
    free(dr->base.name);
    free(dr->base.entity_hint);
    free(dr);
    return rc;
}
