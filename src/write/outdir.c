/*
 * outdir.c — the output folder as one unit: what a previous run left there,
 * what else is there, and the manifest that tells them apart (outdir.h).
 */
#include "ddbpipe/outdir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/array.h"
#include "ddbpipe/arena.h"
#include "ddbpipe/buf.h"
#include "ddbpipe/fs.h"
#include "ddbpipe/json.h"
#include "ddbpipe/value.h"

#define MANIFEST "manifest.json"
#define MANIFEST_MAX (16u << 20)

/* Side files of versions before _ddbpipe/: recognisably ddbpipe's, so a new
 * run removes them instead of leaving them beside its own. */
static const char *const legacy[] = {"_rejects.ndjson", "_rejects.ndjson.gz", "_unmatched.ndjson",
                                     "_unmatched.ndjson.gz"};

typedef struct names {
    char **v;
    size_t n, cap;
} names;

struct ddb_outdir {
    ddb_store *store;
    char *dir;
    names previous; /* the files the manifest lists (and legacy side files present) */
    names foreign;  /* everything else found, sorted */
};

static int names_add(names *ns, const char *s, size_t len)
{
    char **v = ddb_array_reserve(ns->v, ns->n, &ns->cap, sizeof(*v), 16);
    if (v == NULL)
        return -1;
    ns->v = v;
    if ((ns->v[ns->n] = strndup(s, len)) == NULL)
        return -1;
    ns->n++;
    return 0;
}

static int names_has(const names *ns, const char *s)
{
    for (size_t i = 0; i < ns->n; i++)
        if (strcmp(ns->v[i], s) == 0)
            return 1;
    return 0;
}

static void names_dispose(names *ns)
{
    for (size_t i = 0; i < ns->n; i++)
        free(ns->v[i]);
    free(ns->v);
    memset(ns, 0, sizeof(*ns));
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* {"files": ["Tag.csv", ...]} written by commit. */
static int read_manifest(ddb_outdir *od, ddb_error *err)
{
    char *path = ddb_outdir_side_path(od, MANIFEST), *text = NULL;
    ddb_json_parser *p = NULL;
    ddb_arena *a = NULL;
    const ddb_value *files;
    ddb_value root;
    size_t len = 0;
    int rc;

    if (path == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    if ((rc = od->store->vt->read_all(od->store, path, MANIFEST_MAX, &text, &len, err)) != 0) {
        if (rc == DDB_ENOTFOUND)
            rc = 0; /* no previous run wrote here */
        else if (rc == DDB_ETOOBIG)
            rc = ddb_error_set(err, DDB_EUSAGE,
                               "%s is damaged (larger than %u bytes); remove the folder's files "
                               "by hand",
                               path, MANIFEST_MAX);
        goto done;
    }
    if (ddb_json_parser_new(&p) != 0 || ddb_arena_new(&a, 0) != 0) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto done;
    }
    if (ddb_json_parse_plain(p, &root, text, len, a, err) != 0 || root.type != DDB_TYPE_M ||
        (files = ddb_map_getz(&root.u.m, "files")) == NULL || files->type != DDB_TYPE_L) {
        rc = ddb_error_set(err, DDB_EUSAGE,
                           "%s is damaged (it must be {\"files\": [names]}); remove the "
                           "folder's files by hand",
                           path);
        goto done;
    }
    for (size_t i = 0; i < files->u.l.count; i++) {
        const ddb_value *f = &files->u.l.items[i];
        /* Only plain names: a manifest must not make ddbpipe remove anything
         * outside the folder. */
        if (f->type != DDB_TYPE_S || f->u.s.len == 0 || memchr(f->u.s.ptr, '/', f->u.s.len) ||
            (f->u.s.len <= 2 && f->u.s.ptr[0] == '.')) {
            rc = ddb_error_set(err, DDB_EUSAGE, "%s is damaged (files[%zu] is not a file name)",
                               path, i);
            goto done;
        }
        if (names_add(&od->previous, f->u.s.ptr, f->u.s.len) != 0) {
            rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
            goto done;
        }
    }
done:
    ddb_arena_free(a);
    ddb_json_parser_free(p);
    free(text);
    free(path);
    return rc;
}

static int is_legacy(const char *name)
{
    for (size_t i = 0; i < sizeof(legacy) / sizeof(legacy[0]); i++)
        if (strcmp(name, legacy[i]) == 0)
            return 1;
    return 0;
}

/* Sorts the folder's entries into the previous run's and the others
 * (folders in it are named with a trailing '/'). */
static int survey(ddb_outdir *od, ddb_error *err)
{
    char **v = NULL;
    size_t n = 0;
    int rc = od->store->vt->list(od->store, od->dir, &v, &n, err);
    /* A folder not made yet is made by the run; a bucket's prefix is never
     * "not found", its bucket is (and nothing could be written there). */
    if (rc == DDB_ENOTFOUND && od->store == ddb_store_local())
        return 0;
    if (rc != 0) {
        ddb_error_prefix(err, "cannot read the output folder: ");
        return rc;
    }
    for (size_t i = 0; i < n; i++) {
        const char *name = v[i];
        if (name[0] == '.' || strcmp(name, DDB_OUTDIR_SIDE "/") == 0 ||
            names_has(&od->previous, name))
            continue;
        if (names_add(is_legacy(name) ? &od->previous : &od->foreign, name, strlen(name)) != 0) {
            rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
            break;
        }
    }
    ddb_store_names_free(v, n);
    if (od->foreign.n > 1)
        qsort(od->foreign.v, od->foreign.n, sizeof(char *), cmp_str);
    return rc;
}

/* "a, b, c and 4 more" */
static void list_names(ddb_buf *b, char *const *v, size_t n, size_t show)
{
    for (size_t i = 0; i < n && i < show; i++)
        ddb_buf_printf(b, "%s%s", i ? ", " : "", v[i]);
    if (n > show)
        ddb_buf_printf(b, " and %zu more", n - show);
}

int ddb_outdir_open(ddb_outdir **out, ddb_store *store, const char *dir, int foreign_ok,
                    int resuming, ddb_error *err)
{
    ddb_outdir *od = calloc(1, sizeof(*od));
    ddb_buf list = DDB_BUF_INIT;
    int rc = 0;

    *out = NULL;
    if (od == NULL || (od->dir = strdup(dir)) == NULL) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto done;
    }
    od->store = store ? store : ddb_store_local();
    if ((rc = read_manifest(od, err)) != 0 || (rc = survey(od, err)) != 0)
        goto done;
    if (od->foreign.n > 0 && !foreign_ok && !resuming) {
        list_names(&list, od->foreign.v, od->foreign.n, 5);
        rc = ddb_error_set(err, DDB_EUSAGE,
                           "the output folder %s holds %zu file%s ddbpipe did not write (%s); "
                           "they would sit beside this run's files and be read with them",
                           dir, od->foreign.n, od->foreign.n == 1 ? "" : "s",
                           list.oom ? "?" : list.ptr);
        goto done;
    }
    *out = od;
    od = NULL;
done:
    ddb_buf_dispose(&list);
    ddb_outdir_free(od);
    return rc;
}

char *ddb_outdir_side_path(const ddb_outdir *od, const char *name)
{
    char *side = ddb_path_join(od->dir, DDB_OUTDIR_SIDE), *p;
    if (side == NULL)
        return NULL;
    p = ddb_path_join(side, name);
    free(side);
    return p;
}

size_t ddb_outdir_foreign(const ddb_outdir *od, const char *const **v)
{
    *v = (const char *const *)od->foreign.v;
    return od->foreign.n;
}

static int write_manifest(const ddb_outdir *od, const names *now, ddb_error *err)
{
    char *path = ddb_outdir_side_path(od, MANIFEST);
    ddb_buf b = DDB_BUF_INIT;
    int rc;

    if (path == NULL) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto done;
    }
    ddb_buf_puts(&b, "{\"written_by\":\"ddbpipe\",\"files\":[");
    for (size_t i = 0; i < now->n; i++) {
        ddb_buf_puts(&b, i ? ",\n  " : "\n  ");
        ddb_json_put_string(&b, now->v[i], strlen(now->v[i]));
    }
    ddb_buf_puts(&b, "]}\n");
    if (b.oom) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto done;
    }
    rc = od->store->vt->write_all(od->store, path, b.ptr, b.len, err);
done:
    ddb_buf_dispose(&b);
    free(path);
    return rc;
}

int ddb_outdir_commit(ddb_outdir *od, const char *const *written, size_t n, size_t *removed,
                      char **removed_names, ddb_error *err)
{
    names now = {0}, both = {0};
    ddb_buf gone = DDB_BUF_INIT;
    size_t count = 0;
    int rc = 0;

    if (removed)
        *removed = 0;
    if (removed_names)
        *removed_names = NULL;
    for (size_t i = 0; i < n; i++) {
        const char *base = ddb_path_base(written[i]);
        if (!names_has(&now, base) && names_add(&now, base, strlen(base)) != 0) {
            rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
            goto done;
        }
    }
    /* Crash-safe in three steps: a manifest naming the old files and the new,
     * the removals, then one naming the new only. A run killed in between
     * leaves a folder whose every file the manifest still names. */
    for (size_t i = 0; i < od->previous.n; i++)
        if (!names_has(&now, od->previous.v[i]) &&
            names_add(&both, od->previous.v[i], strlen(od->previous.v[i])) != 0) {
            rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
            goto done;
        }
    for (size_t i = 0; i < now.n; i++)
        if (names_add(&both, now.v[i], strlen(now.v[i])) != 0) {
            rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
            goto done;
        }
    if (both.n > now.n && (rc = write_manifest(od, &both, err)) != 0)
        goto done;
    for (size_t i = 0; i < od->previous.n; i++) {
        char *path;
        if (names_has(&now, od->previous.v[i]))
            continue;
        if ((path = ddb_path_join(od->dir, od->previous.v[i])) == NULL) {
            rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
            goto done;
        }
        rc = od->store->vt->remove(od->store, path, err);
        free(path);
        if (rc == DDB_ENOTFOUND) {
            rc = 0; /* removed by hand */
            continue;
        }
        if (rc != 0) {
            ddb_error_prefix(err, "cannot remove a file of the previous run: ");
            goto done;
        }
        ddb_buf_printf(&gone, "%s%s", count ? ", " : "", od->previous.v[i]);
        count++;
    }
    if ((rc = write_manifest(od, &now, err)) != 0)
        goto done;
    if (removed)
        *removed = count;
    if (removed_names && count > 0 && !gone.oom)
        *removed_names = strdup(gone.ptr);
done:
    names_dispose(&now);
    names_dispose(&both);
    ddb_buf_dispose(&gone);
    return rc;
}

int ddb_outdir_remove_side_folder(ddb_outdir *od, const char *name, ddb_error *err)
{
    char *dir = ddb_outdir_side_path(od, name);
    int rc = 0;

    if (dir == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    if (od->store == ddb_store_local())
        ddb_remove_dir(dir); /* the folder too */
    else
        rc = ddb_store_remove_files(od->store, dir, NULL, NULL, err);
    free(dir);
    return rc;
}

void ddb_outdir_free(ddb_outdir *od)
{
    if (od == NULL)
        return;
    names_dispose(&od->previous);
    names_dispose(&od->foreign);
    free(od->dir);
    free(od);
}
