/*
 * A dynamodump backup of one table: DIR/schema.json (the DescribeTable answer
 * of the table when it was dumped) and DIR/data/0001.json, 0002.json, ...,
 * one Scan page each ({"Items": [...], "Count": .., "ScannedCount": ..},
 * pretty-printed). The pages are read in name order, each by the JSON
 * document reader; every item must carry the table's key attributes with
 * their declared types (the schema says which), and every record names the
 * table.
 */
#include <dirent.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/item.h"
#include "ddbpipe/reader.h"
#include "ddbpipe/table.h"
#include "reader_internal.h"

/* A record's position: the page's index, then the byte offset in it. */
#define DUMP_POS_SHIFT 40
#define DUMP_POS(file, off) (((uint64_t)(file) << DUMP_POS_SHIFT) | (off))

typedef struct dump_reader {
    ddb_reader base;
    ddb_reader_opts opts;
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

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The pages, data/NNNN.json, sorted (dynamodump numbers its pages 0001, 0002, ...). */
static int list_pages(dump_reader *dr, const char *dir, ddb_error *err)
{
    char path[4096];
    DIR *d;
    struct dirent *de;
    size_t cap = 0;
    int rc = 0;
    snprintf(path, sizeof(path), "%s/data", dir);
    if ((d = opendir(path)) == NULL)
        return ddb_error_set(err, DDB_EIO, "%s: cannot list the pages", path);
    while ((de = readdir(d)) != NULL) {
        size_t n = strlen(de->d_name);
        char *p;
        if (de->d_name[0] == '.' || n < 6 || strcmp(de->d_name + n - 5, ".json") != 0)
            continue;
        if (dr->n_pages == cap) {
            char **np = realloc(dr->pages, (cap = cap ? cap * 2 : 16) * sizeof(*np));
            if (np == NULL) {
                rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
                break;
            }
            dr->pages = np;
        }
        if ((p = malloc(strlen(path) + n + 2)) == NULL) {
            rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
            break;
        }
        sprintf(p, "%s/%s", path, de->d_name);
        dr->pages[dr->n_pages++] = p;
    }
    closedir(d);
    if (rc == 0 && dr->n_pages > 1)
        qsort(dr->pages, dr->n_pages, sizeof(char *), by_name);
    return rc;
}

static int load_schema(dump_reader *dr, const char *dir, ddb_error *err)
{
    char path[4096];
    FILE *f;
    char *text = NULL;
    long size;
    int rc;
    snprintf(path, sizeof(path), "%s/schema.json", dir);
    if ((f = fopen(path, "rb")) == NULL)
        return ddb_error_set(err, DDB_ENOTFOUND, "%s: cannot open", path);
    if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0 ||
        size > 16 * 1024 * 1024 || (text = malloc((size_t)size + 1)) == NULL ||
        fread(text, 1, (size_t)size, f) != (size_t)size) {
        fclose(f);
        free(text);
        return ddb_error_set(err, DDB_EIO, "%s: cannot read", path);
    }
    fclose(f);
    text[size] = '\0';
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
    int rc = ddb_source_open_auto(&src, dr->pages[dr->idx], NULL, err);
    if (rc != 0)
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

static const ddb_reader_vtable dump_vtable = {"dynamodump backup",
                                              dump_next,
                                              dump_free,
                                              dump_raw_bytes,
                                              dump_decoded_bytes,
                                              dump_skip_to,
                                              NULL,
                                              NULL,
                                              NULL};

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
    if ((rc = load_schema(dr, dir, err)) != 0 || (rc = list_pages(dr, dir, err)) != 0)
        goto fail;
    for (size_t i = 0; i < dr->n_pages; i++) {
        struct stat st;
        if (stat(dr->pages[i], &st) == 0)
            dr->base.total_bytes += (uint64_t)st.st_size;
    }
    *out = &dr->base;
    return 0;
fail:
    dump_free(&dr->base);
    free(dr->base.name);
    free(dr->base.entity_hint);
    free(dr);
    return rc;
}
