/*
 * Opening inputs: picks the reader by content. gzip is recognised by its
 * magic bytes (ddb_source_open_auto), then each reader's bidder looks at the
 * first bytes and the highest bid wins: a JSON document (an array of items,
 * scan output, a request file, a Workbench model, anything pretty-printed),
 * DynamoDB JSON lines, plain NDJSON, CSV. Nothing is guessed: an input no
 * bidder recognises is an error. A folder is an Export to S3 folder, a
 * dynamodump backup, or else a folder of files read one after another.
 */
#include "ddbpipe/reader.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/stat.h>

#include "ddbpipe/array.h"
#include "ddbpipe/json.h"
#include "ddbpipe/s3.h"
#include "ddbpipe/store.h"
#include "ddbpipe/fs.h"
#include "ddbpipe/source.h"
#include "read/reader_internal.h"
#include "read/reader_json_shape.h"


static const char *const format_names[] = {"auto",       "ddb-json",     "scan",   "ndjson",
                                           "csv",        "export",       "json",   "dynamodump",
                                           "datapipeline", "parquet"};

const char *ddb_input_format_name(ddb_input_format f)
{
    if ((unsigned)f >= sizeof(format_names) / sizeof(format_names[0]))
        return "?";
    return format_names[f];
}

int ddb_input_format_parse(ddb_input_format *out, const char *s)
{
    for (size_t i = 0; i < sizeof(format_names) / sizeof(format_names[0]); i++) {
        if (strcmp(s, format_names[i]) == 0) {
            *out = (ddb_input_format)i;
            return 0;
        }
    }
    if (strcmp(s, "dynamodb-json") == 0) {
        *out = DDB_IN_DDBJSON;
        return 0;
    }
    return DDB_EUSAGE;
}

static int strip_suffix(char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    if (n > k && strcmp(s + n - k, suffix) == 0) {
        s[n - k] = '\0';
        return 1;
    }
    return 0;
}

/* A part of export --max-file-size, <Entity>/part-NNNNN.parquet, is named by
 * its folder: that folder's name, malloc'd; NULL for another file (or no
 * memory: the file's own name is tried then, and fails the same way). */
static char *part_entity(const char *path)
{
    const char *base = ddb_path_base(path), *p = base + 5;
    size_t folder_len;
    if (base == path || strncmp(base, "part-", 5) != 0 || *p < '0' || *p > '9')
        return NULL;
    while (*p >= '0' && *p <= '9')
        p++;
    if (strcmp(p, ".parquet") != 0)
        return NULL;
    folder_len = (size_t)(base - 1 - path);
    while (folder_len > 0 && path[folder_len - 1] != '/')
        folder_len--;
    /* (a Hive folder, FIELD=value, holds records without the field: not read as the entity) */
    if (memchr(path + folder_len, '=', (size_t)(base - 1 - path) - folder_len) != NULL)
        return NULL;
    return strndup(path + folder_len, (size_t)(base - 1 - path) - folder_len);
}

char *ddb_entity_from_filename(const char *path, int *is_delete)
{
    static const char *const exts[] = {".csv", ".tsv", ".ndjson", ".jsonl", ".json", ".parquet", NULL};
    char *name;

    if (is_delete)
        *is_delete = 0;
    if (strcmp(path, "-") == 0)
        return NULL;
    name = part_entity(path);
    if (name == NULL && (name = strdup(ddb_path_base(path))) == NULL)
        return NULL;
    strip_suffix(name, ".gz");
    for (const char *const *e = exts; *e; e++)
        if (strip_suffix(name, *e))
            break;
    if (strip_suffix(name, ".deletes") && is_delete)
        *is_delete = 1;
    if (name[0] == '\0' || name[0] == '_' || name[0] == '.') {
        free(name);
        return NULL;
    }
    return name;
}

int ddb_reader_base_init(ddb_reader *r, const ddb_reader_vtable *vt, const char *name,
                         ddb_input_format format, const ddb_reader_opts *opts)
{
    r->vt = vt;
    r->format = format;
    r->name = strdup(name ? name : "-");
    if (r->name == NULL)
        return DDB_ENOMEM;
    if (name != NULL) {
        r->entity_hint = ddb_entity_from_filename(name, &r->deletes);
        if (opts != NULL && opts->entity != NULL) {
            free(r->entity_hint);
            r->entity_hint = NULL;
        }
    }
    if (opts != NULL && opts->entity != NULL && (r->entity_hint = strdup(opts->entity)) == NULL)
        return DDB_ENOMEM;
    return 0;
}

void ddb_record_set_bad(ddb_record *rec, char *buf, size_t cap, const char *reason)
{
    snprintf(buf, cap, "%s", reason);
    rec->kind = DDB_REC_BAD;
    rec->reason = buf;
    rec->item.attrs = NULL;
    rec->item.count = 0;
}

/* A folder holding manifest-summary.json: an Export to S3 folder. */
static int is_export_folder(ddb_store *st, const char *dir)
{
    char probe[4096];
    int is_dir = 0;
    uint64_t size;
    snprintf(probe, sizeof(probe), "%s/manifest-summary.json", dir);
    return st->vt->stat(st, probe, &is_dir, &size, NULL) == 0 && !is_dir;
}

/* A folder holding schema.json and data/: a dynamodump backup of one table. */
static int is_dump_table(ddb_store *st, const char *dir)
{
    char probe[4096];
    int is_dir = 0;
    uint64_t size;
    snprintf(probe, sizeof(probe), "%s/schema.json", dir);
    if (st->vt->stat(st, probe, &is_dir, &size, NULL) != 0 || is_dir)
        return 0;
    snprintf(probe, sizeof(probe), "%s/data", dir);
    return st->vt->stat(st, probe, &is_dir, &size, NULL) == 0 && is_dir;
}

/* The folders directly below dir that is_it accepts: *count of them, and a
 * malloc'd path to the last (NULL when none, or out of memory: *count 0). */
static char *find_below(ddb_store *st, const char *dir, int (*is_it)(ddb_store *, const char *),
                        int *count)
{
    char **names = NULL, *found = NULL;
    size_t n = 0;
    *count = 0;
    if (st->vt->list(st, dir, &names, &n, NULL) != 0)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        char sub[4096 + 300];
        size_t len = strlen(names[i]);
        if (names[i][0] == '.' || len < 2 || names[i][len - 1] != '/')
            continue;
        snprintf(sub, sizeof(sub), "%s/%.*s", dir, (int)(len - 1), names[i]);
        if (is_it(st, sub)) {
            (*count)++;
            free(found);
            if ((found = strdup(sub)) == NULL) {
                *count = 0;
                break;
            }
        }
    }
    ddb_store_names_free(names, n);
    return found;
}

/*
 * A folder that holds exactly one export somewhere below it in the layout AWS
 * writes (<prefix>/AWSDynamoDB/<exportId>/manifest-summary.json), given as the
 * prefix or as the AWSDynamoDB folder. Returns a malloc'd path to that export
 * folder, or NULL (with *count = how many were found).
 */
static char *find_single_export(ddb_store *st, const char *dir, int *count)
{
    const char *subs[2] = {"/AWSDynamoDB", ""};
    char *found = NULL;
    *count = 0;
    for (int s = 0; s < 2 && *count == 0; s++) {
        char base[4096];
        snprintf(base, sizeof(base), "%s%s", dir, subs[s]);
        found = find_below(st, base, is_export_folder, count);
    }
    if (*count != 1) {
        free(found);
        return NULL;
    }
    return found;
}

/*
 * The dynamodump table a folder is: itself, or the single table folder
 * directly below it (a dump of several tables holds one per table). Returns a
 * malloc'd path, or NULL (with *count = how many were found).
 */
static char *find_dump_table(ddb_store *st, const char *dir, int *count)
{
    char *found;
    if (is_dump_table(st, dir)) {
        *count = 1;
        return strdup(dir);
    }
    found = find_below(st, dir, is_dump_table, count);
    if (*count != 1) {
        free(found);
        return NULL;
    }
    return found;
}

/* The manifest-summary.json of an export names the export (folders are
 * handled before this is asked). */
static int is_export_path(const char *path)
{
    return strcmp(ddb_path_base(path), "manifest-summary.json") == 0;
}

/* A folder given as an input: the export in it (or the single one below it),
 * else the dynamodump backup it is (or the single table below it). */
static int open_folder(ddb_reader **out, ddb_store *st, const char *path,
                       const ddb_reader_opts *opts, ddb_error *err)
{
    int count, rc;
    char *inner;
    if (is_export_folder(st, path))
        return ddb_reader_new_export(out, path, opts, err);
    if ((inner = find_single_export(st, path, &count)) != NULL) {
        rc = ddb_reader_new_export(out, inner, opts, err);
        free(inner);
        return rc;
    }
    if (count > 1)
        return ddb_error_set(err, DDB_EUSAGE,
                             "%s holds %d exports; give the folder of the one to read (the "
                             "one with manifest-summary.json)",
                             path, count);
    if ((inner = find_dump_table(st, path, &count)) != NULL) {
        rc = ddb_reader_new_dynamodump(out, inner, opts, err);
        free(inner);
        return rc;
    }
    if (count > 1)
        return ddb_error_set(err, DDB_EUSAGE,
                             "%s holds %d dynamodump tables; give the folder of the one to read "
                             "(the one with schema.json)",
                             path, count);
    return ddb_error_set(err, DDB_EUSAGE,
                         "%s is a folder holding neither an Export to S3 "
                         "(manifest-summary.json), nor a dynamodump backup (schema.json and "
                         "data/), nor files to read",
                         path);
}

/* A folder read as one input, not as its files: an export (manifest-summary.json
 * in it, or exports below it) or a dynamodump backup (a table's folder, or
 * table folders below it). */
static int is_reader_dir(ddb_store *st, const char *path)
{
    int count;
    char *inner;
    if (is_export_folder(st, path))
        return 1;
    inner = find_single_export(st, path, &count);
    free(inner);
    if (count > 0)
        return 1;
    inner = find_dump_table(st, path, &count);
    free(inner);
    return count > 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int ddb_reader_skips_name(const char *name)
{
    /* _rejects, _unmatched, _ddbpipe/...: what a run says about itself */
    return name[0] == '.' || name[0] == '_';
}

/* Appends full (owned from now on) to the list. Returns 0 or -1. */
static int push_name(char ***list, size_t *cnt, size_t *cap, char *full)
{
    char **nl = ddb_array_reserve(*list, *cnt, cap, sizeof(char *), 16);
    if (nl == NULL) {
        free(full);
        return -1;
    }
    *list = nl;
    (*list)[(*cnt)++] = full;
    return 0;
}

/* A run's unmatched items from versions before _ddbpipe/, when asked for. */
static int wanted_side_file(const char *name, int unmatched)
{
    return unmatched && strncmp(name, "_unmatched.ndjson", 17) == 0;
}

int ddb_reader_list_folder(char ***out, size_t *n, const char *path, int unmatched, ddb_error *err)
{
    struct stat st;
    DIR *d;
    struct dirent *de;
    char **list = NULL;
    size_t cnt = 0, cap = 0;
    int rc = 0;

    *out = NULL;
    *n = 0;
    if (strcmp(path, "-") == 0 || stat(path, &st) != 0 || !S_ISDIR(st.st_mode) ||
        is_reader_dir(ddb_store_local(), path))
        return 0;
    if ((d = opendir(path)) == NULL)
        return ddb_error_set(err, DDB_EIO, "cannot read folder %s: %s", path, strerror(errno));
    while ((de = readdir(d)) != NULL) {
        char *full;
        if (unmatched && strcmp(de->d_name, "_ddbpipe") == 0) {
            static const char *const side[] = {"_ddbpipe/unmatched.ndjson",
                                               "_ddbpipe/unmatched.ndjson.gz"};
            for (size_t k = 0; k < 2 && rc == 0; k++) {
                if ((full = ddb_path_join(path, side[k])) == NULL)
                    rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
                else if (stat(full, &st) != 0 || !S_ISREG(st.st_mode))
                    free(full);
                else if (push_name(&list, &cnt, &cap, full) != 0)
                    rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
            }
            continue;
        }
        if (ddb_reader_skips_name(de->d_name) && !wanted_side_file(de->d_name, unmatched))
            continue;
        if ((full = ddb_path_join(path, de->d_name)) == NULL) {
            rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
            break;
        }
        if (stat(full, &st) != 0 || !S_ISREG(st.st_mode)) {
            free(full);
            continue;
        }
        if (push_name(&list, &cnt, &cap, full) != 0) {
            rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
            break;
        }
    }
    closedir(d);
    if (rc != 0) {
        for (size_t i = 0; i < cnt; i++)
            free(list[i]);
        free(list);
        return rc;
    }
    if (cnt == 0)
        return ddb_error_set(err, DDB_EUSAGE, "the folder %s holds no files to read", path);
    if (cnt > 1)
        qsort(list, cnt, sizeof(char *), cmp_str);
    *out = list;
    *n = cnt;
    return 0;
}

int ddb_reader_open(ddb_reader **out, const char *path, const ddb_reader_opts *opts, ddb_error *err)
{
    ddb_reader_opts defaults;
    ddb_source *src = NULL;
    const unsigned char *peek;
    size_t peek_len;
    const ddb_reader_bidder *bidder;
    ddb_store *st;
    char *trimmed = NULL;
    int is_dir = 0, rc;
    uint64_t size = 0;
    ddb_sniff_ctx sc;

    *out = NULL;
    if (opts == NULL) {
        memset(&defaults, 0, sizeof(defaults));
        opts = &defaults;
    }
    if ((st = ddb_store_for(opts->remote, path)) == NULL)
        return ddb_error_set(err, DDB_EUSAGE, "%s: reading from S3 needs AWS access", path);
    if (ddb_s3_is_url(path) && strlen(path) > 5 && path[strlen(path) - 1] == '/') {
        /* s3://b/prefix/ is the folder s3://b/prefix */
        if ((trimmed = strdup(path)) == NULL)
            return ddb_error_set(err, DDB_ENOMEM, "out of memory");
        while (strlen(trimmed) > 5 && trimmed[strlen(trimmed) - 1] == '/')
            trimmed[strlen(trimmed) - 1] = '\0';
        path = trimmed;
    }
    if (opts->format == DDB_IN_AUTO && opts->columns != NULL) {
        /* Columns are only ever given for CSV without a header row. */
        defaults = *opts;
        defaults.format = DDB_IN_CSV;
        opts = &defaults;
    }
    rc = strcmp(path, "-") != 0 ? st->vt->stat(st, path, &is_dir, &size, err) : 0;
    if (rc == 0 && is_dir) {
        rc = open_folder(out, st, path, opts, err);
        goto done;
    }
    if (rc != 0 && st != ddb_store_local())
        goto done; /* a local path that cannot be stat'ed says why when opened */
    if (opts->format == DDB_IN_EXPORT || (opts->format == DDB_IN_AUTO && is_export_path(path))) {
        rc = ddb_reader_new_export(out, path, opts, err);
        goto done;
    }
    if (st == ddb_store_local())
        rc = ddb_source_open_auto(&src, path, ddb_reader_source_flags(opts), NULL, err);
    else if ((rc = st->vt->open(st, path, &src, err)) == 0)
        rc = ddb_source_auto(&src, src, ddb_reader_source_flags(opts), NULL, err);
    sc.format = opts->format;
    sc.path = path;
    sc.decided = 0;
    if (rc != 0 || (rc = ddb_source_sniff_until(&src, src, SNIFF_BYTES, ddb_reader_sniffed_enough,
                                                &sc, &peek, &peek_len, err)) != 0)
        goto done;
    if (opts->format == DDB_IN_AUTO && ddb_reader_looks_like_ion(peek, peek_len)) {
        ddb_source_free(src);
        rc = ddb_error_set(err, DDB_EUSAGE,
                           "%s: this is Amazon Ion (a DynamoDB export in the ION format), which "
                           "ddbpipe does not read; export the table as DYNAMODB_JSON instead",
                           path);
        goto done;
    }
    /* a Data Pipeline export's manifest beside its data files, even when
     * they are read as --input-format datapipeline: no items, and said */
    if ((bidder = ddb_reader_pick_bidder(
             opts->format == DDB_IN_DATAPIPELINE && ddb_jdoc_is_datapipeline_manifest(peek, peek_len)
                 ? DDB_IN_JSON
                 : opts->format,
             peek, sc.decided ? sc.decided : peek_len, path)) == NULL) {
        ddb_source_free(src);
        rc = ddb_error_set(err, DDB_EUSAGE,
                           "%s: cannot tell the format of its content: it is neither JSON "
                           "(items, documents, lines) nor clearly CSV (a .csv name, or a header "
                           "row of several columns that the next row matches)",
                           path);
        goto done;
    }
    rc = bidder->open(out, src, path, opts, err);
    if (rc == 0 && strcmp(path, "-") != 0)
        (*out)->total_bytes = size;
done:
    free(trimmed);
    return rc;
}

void ddb_reader_free(ddb_reader *r)
{
    if (r == NULL)
        return;
    r->vt->free(r);
    free(r->name);
    free(r->entity_hint);
    free(r);
}
