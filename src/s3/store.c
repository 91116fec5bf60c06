/*
 * Stores: the local disk and an S3 bucket behind store.h's vtable.
 */
#include "ddbpipe/store.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ddbpipe/array.h"
#include "ddbpipe/s3.h"
#include "ddbpipe/fs.h"
#include "ddbpipe/source.h"

/* ------------------------------------------------------------- local */

static int local_stat(ddb_store *st, const char *path, int *is_dir, uint64_t *size, ddb_error *err)
{
    struct stat sb;
    (void)st;
    if (stat(path, &sb) != 0)
        return ddb_error_set(err, errno == ENOENT ? DDB_ENOTFOUND : DDB_EIO, "%s: %s", path,
                             strerror(errno));
    *is_dir = S_ISDIR(sb.st_mode);
    *size = (uint64_t)sb.st_size;
    return 0;
}

static int local_read_all(ddb_store *st, const char *path, size_t max, char **out, size_t *len,
                          ddb_error *err)
{
    (void)st;
    return ddb_file_read_small(out, len, path, max, err);
}

static int local_open(ddb_store *st, const char *path, ddb_source **out, ddb_error *err)
{
    (void)st;
    return ddb_source_open_file(out, path, err);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int add_name(char ***names, size_t *n, size_t *cap, const char *name, int dir)
{
    char **nn = ddb_array_reserve(*names, *n, cap, sizeof(char *), 16);
    if (nn == NULL)
        return DDB_ENOMEM;
    *names = nn;
    if (((*names)[*n] = malloc(strlen(name) + 2)) == NULL)
        return DDB_ENOMEM;
    sprintf((*names)[*n], "%s%s", name, dir ? "/" : "");
    (*n)++;
    return 0;
}

static int local_list(ddb_store *st, const char *dir, char ***names, size_t *n, ddb_error *err)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    size_t cap = 0;
    (void)st;
    *names = NULL;
    *n = 0;
    if (d == NULL)
        return ddb_error_set(err, errno == ENOENT ? DDB_ENOTFOUND : DDB_EIO, "%s: %s", dir,
                             strerror(errno));
    while ((de = readdir(d)) != NULL) {
        char path[4096 + 300];
        struct stat sb;
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
        if (add_name(names, n, &cap, de->d_name, stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) !=
            0) {
            closedir(d);
            ddb_store_names_free(*names, *n);
            *names = NULL;
            *n = 0;
            return ddb_error_set(err, DDB_ENOMEM, "out of memory");
        }
    }
    closedir(d);
    if (*n > 1)
        qsort(*names, *n, sizeof(char *), by_name);
    return 0;
}

static int local_write_all(ddb_store *st, const char *path, const void *data, size_t len,
                           ddb_error *err)
{
    const char *slash = strrchr(path, '/');
    int rc = 0;
    (void)st;
    if (slash != NULL && slash != path) {
        char *dir = strndup(path, (size_t)(slash - path));
        rc = dir ? ddb_make_dirs(dir, err) : ddb_error_set(err, DDB_ENOMEM, "out of memory");
        free(dir);
    }
    return rc != 0 ? rc : ddb_file_write_atomic(path, data, len, err);
}

static int local_remove(ddb_store *st, const char *path, ddb_error *err)
{
    (void)st;
    if (unlink(path) != 0)
        return ddb_error_set(err, errno == ENOENT ? DDB_ENOTFOUND : DDB_EIO, "cannot remove %s: %s",
                             path, strerror(errno));
    return 0;
}

static void local_free(ddb_store *st)
{
    (void)st;
}

static const ddb_store_vtable local_vt = {local_stat, local_read_all,  local_open,   local_list,
                                          NULL,       local_write_all, local_remove, local_free};
static ddb_store local_store = {&local_vt};

ddb_store *ddb_store_local(void)
{
    return &local_store;
}

/* ---------------------------------------------------------------- S3 */

typedef struct s3_store {
    ddb_store base;
    ddb_s3 *s3;
    ddb_s3_object *known; /* objects seen, with their bucket in bucket[] */
    char **bucket;
    size_t n, cap;
} s3_store;

static int remember(s3_store *s, const char *bucket, const ddb_s3_object *o)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->known[i].key, o->key) == 0 && strcmp(s->bucket[i], bucket) == 0)
            return 0;
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 64;
        ddb_s3_object *nk = realloc(s->known, cap * sizeof(*nk));
        char **nb;
        if (nk == NULL)
            return DDB_ENOMEM;
        s->known = nk;
        if ((nb = realloc(s->bucket, cap * sizeof(*nb))) == NULL)
            return DDB_ENOMEM;
        s->bucket = nb;
        s->cap = cap;
    }
    s->known[s->n].key = strdup(o->key);
    s->known[s->n].etag = strdup(o->etag ? o->etag : "");
    s->known[s->n].size = o->size;
    s->bucket[s->n] = strdup(bucket);
    if (!s->known[s->n].key || !s->known[s->n].etag || !s->bucket[s->n]) {
        free(s->known[s->n].key);
        free(s->known[s->n].etag);
        free(s->bucket[s->n]);
        return DDB_ENOMEM;
    }
    s->n++;
    return 0;
}

static const ddb_s3_object *known(const s3_store *s, const char *bucket, const char *key)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->known[i].key, key) == 0 && strcmp(s->bucket[i], bucket) == 0)
            return &s->known[i];
    return NULL;
}

/* Lists prefix (recursively, or one level with delimiter), remembering the
 * objects. */
static int list_prefix(s3_store *s, const char *bucket, const char *prefix, const char *delimiter,
                       ddb_s3_object **objs, size_t *n, char ***dirs, size_t *n_dirs,
                       ddb_error *err)
{
    int rc = ddb_s3_list(s->s3, objs, n, dirs, n_dirs, bucket, prefix, delimiter, err);
    for (size_t i = 0; rc == 0 && i < *n; i++)
        if (remember(s, bucket, &(*objs)[i]) != 0)
            rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
    return rc;
}

static int s3_stat(ddb_store *st, const char *path, int *is_dir, uint64_t *size, ddb_error *err)
{
    s3_store *s = (s3_store *)st;
    char *bucket = NULL, *key = NULL, *prefix = NULL;
    ddb_s3_object *objs = NULL, head;
    size_t n = 0, klen;
    const ddb_s3_object *o;
    int rc;

    *is_dir = 0;
    *size = 0;
    if ((rc = ddb_s3_parse_url(&bucket, &key, path, err)) != 0)
        return rc;
    klen = strlen(key);
    if (klen > 0 && key[klen - 1] != '/') {
        if ((o = known(s, bucket, key)) != NULL) {
            *size = o->size;
            goto done;
        }
        rc = ddb_s3_head(s->s3, &head, bucket, key, err);
        if (rc == 0) {
            *size = head.size;
            rc = remember(s, bucket, &head) != 0 ? ddb_error_set(err, DDB_ENOMEM, "out of memory")
                                                 : 0;
            free(head.key);
            free(head.etag);
            goto done;
        }
        if (rc != DDB_ENOTFOUND)
            goto done;
    }
    /* A folder: keys below it (the listing is remembered for the files). */
    if ((prefix = malloc(klen + 2)) == NULL) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto done;
    }
    sprintf(prefix, "%s%s", key, klen == 0 || key[klen - 1] == '/' ? "" : "/");
    if ((rc = list_prefix(s, bucket, prefix, NULL, &objs, &n, NULL, NULL, err)) != 0)
        goto done;
    if (n == 0 && klen > 0)
        rc = ddb_error_set(err, DDB_ENOTFOUND, "%s: no such object, and no object below it", path);
    *is_dir = 1;
done:
    ddb_s3_objects_free(objs, n);
    free(prefix);
    free(bucket);
    free(key);
    return rc;
}

static int s3_read_all(ddb_store *st, const char *path, size_t max, char **out, size_t *len,
                       ddb_error *err)
{
    s3_store *s = (s3_store *)st;
    char *bucket = NULL, *key = NULL;
    int rc = ddb_s3_parse_url(&bucket, &key, path, err);
    *out = NULL;
    if (rc == 0)
        rc = ddb_s3_get(s->s3, out, len, bucket, key, max, err);
    free(bucket);
    free(key);
    return rc;
}

static int s3_open(ddb_store *st, const char *path, ddb_source **out, ddb_error *err)
{
    s3_store *s = (s3_store *)st;
    char *bucket = NULL, *key = NULL;
    const ddb_s3_object *o;
    int is_dir, rc;
    uint64_t size;

    *out = NULL;
    if ((rc = s3_stat(st, path, &is_dir, &size, err)) != 0)
        return rc;
    if (is_dir)
        return ddb_error_set(err, DDB_EIO, "cannot read %s: it is a folder (a key prefix)", path);
    if ((rc = ddb_s3_parse_url(&bucket, &key, path, err)) == 0) {
        if ((o = known(s, bucket, key)) == NULL)
            rc = ddb_error_set(err, DDB_ENOTFOUND, "%s: not found", path);
        else
            rc = ddb_s3_source_open(out, s->s3, bucket, o, path, err);
    }
    free(bucket);
    free(key);
    return rc;
}

static int s3_list(ddb_store *st, const char *dir, char ***names, size_t *n, ddb_error *err)
{
    s3_store *s = (s3_store *)st;
    char *bucket = NULL, *key = NULL, *prefix = NULL, **dirs = NULL;
    ddb_s3_object *objs = NULL;
    size_t no = 0, nd = 0, cap = 0, klen;
    int rc;

    *names = NULL;
    *n = 0;
    if ((rc = ddb_s3_parse_url(&bucket, &key, dir, err)) != 0)
        return rc;
    klen = strlen(key);
    if ((prefix = malloc(klen + 2)) == NULL) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto done;
    }
    sprintf(prefix, "%s%s", key, klen == 0 || key[klen - 1] == '/' ? "" : "/");
    if ((rc = list_prefix(s, bucket, prefix, "/", &objs, &no, &dirs, &nd, err)) != 0)
        goto done;
    for (size_t i = 0; rc == 0 && i < no + nd; i++) {
        const char *full = i < no ? objs[i].key : dirs[i - no];
        size_t fl = strlen(full + strlen(prefix));
        char name[1024];
        snprintf(name, sizeof(name), "%.*s", (int)(i < no ? fl : fl - 1), full + strlen(prefix));
        if (name[0] != '\0' && add_name(names, n, &cap, name, i >= no) != 0)
            rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
    }
    if (rc == 0 && *n > 1)
        qsort(*names, *n, sizeof(char *), by_name);
done:
    ddb_s3_objects_free(objs, no);
    ddb_store_names_free(dirs, nd);
    free(prefix);
    free(bucket);
    free(key);
    return rc;
}

static int s3_plan(ddb_store *st, const char *const *paths, size_t n, ddb_error *err)
{
    s3_store *s = (s3_store *)st;
    ddb_s3_object *objs = calloc(n ? n : 1, sizeof(*objs));
    char *bucket = NULL, *key = NULL, *first = NULL;
    size_t k = 0;
    int rc = objs ? 0 : ddb_error_set(err, DDB_ENOMEM, "out of memory");

    for (size_t i = 0; rc == 0 && i < n; i++) {
        const ddb_s3_object *o;
        if ((rc = ddb_s3_parse_url(&bucket, &key, paths[i], err)) != 0)
            break;
        if (first == NULL)
            first = strdup(bucket);
        /* One bucket per plan: the rest are read without read-ahead. */
        if (first != NULL && strcmp(first, bucket) == 0 && (o = known(s, bucket, key)) != NULL)
            objs[k++] = *o;
        free(bucket);
        free(key);
    }
    if (rc == 0 && k > 0)
        rc = ddb_s3_plan_reads(s->s3, first, objs, k, err);
    free(objs); /* the entries were borrowed from the store */
    free(first);
    return rc;
}

static void s3_store_free(ddb_store *st)
{
    s3_store *s = (s3_store *)st;
    ddb_s3_objects_free(s->known, s->n);
    ddb_store_names_free(s->bucket, s->n);
}

static int s3_write_all(ddb_store *st, const char *path, const void *data, size_t len,
                        ddb_error *err)
{
    s3_store *s = (s3_store *)st;
    char *bucket = NULL, *key = NULL;
    int rc = ddb_s3_parse_url(&bucket, &key, path, err);
    if (rc == 0)
        rc = ddb_s3_put(s->s3, bucket, key, data, len, err);
    free(bucket);
    free(key);
    return rc;
}

static int s3_remove(ddb_store *st, const char *path, ddb_error *err)
{
    s3_store *s = (s3_store *)st;
    char *bucket = NULL, *key = NULL;
    int rc = ddb_s3_parse_url(&bucket, &key, path, err);
    if (rc == 0)
        rc = ddb_s3_delete(s->s3, bucket, key, err);
    free(bucket);
    free(key);
    return rc;
}

static const ddb_store_vtable s3_vt = {s3_stat, s3_read_all,  s3_open,   s3_list,
                                       s3_plan, s3_write_all, s3_remove, s3_store_free};

int ddb_store_new_s3(ddb_store **out, ddb_s3 *s3, ddb_error *err)
{
    s3_store *s = calloc(1, sizeof(*s));
    *out = NULL;
    if (s == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    s->base.vt = &s3_vt;
    s->s3 = s3;
    *out = &s->base;
    return 0;
}

int ddb_store_remember(ddb_store *st, const char *bucket, const ddb_s3_object *objs, size_t n)
{
    if (st == NULL || st->vt != &s3_vt)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (remember((s3_store *)st, bucket, &objs[i]) != 0)
            return DDB_ENOMEM;
    return 0;
}

int ddb_store_remove_files(ddb_store *st, const char *dir, int (*keep)(const char *name, void *ctx),
                           void *ctx, ddb_error *err)
{
    char **names = NULL;
    size_t n = 0;
    int rc = st->vt->list(st, dir, &names, &n, err);

    if (rc == DDB_ENOTFOUND)
        rc = 0;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        char *path;
        if (names[i][strlen(names[i]) - 1] == '/' || (keep != NULL && keep(names[i], ctx)))
            continue;
        if ((path = ddb_path_join(dir, names[i])) == NULL) {
            rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
            break;
        }
        if ((rc = st->vt->remove(st, path, err)) == DDB_ENOTFOUND)
            rc = 0;
        free(path);
    }
    ddb_store_names_free(names, n);
    return rc;
}

ddb_store *ddb_store_for(ddb_store *remote, const char *path)
{
    if (ddb_s3_is_url(path))
        return remote;
    return &local_store;
}

void ddb_store_free(ddb_store *st)
{
    if (st == NULL || st == &local_store)
        return;
    st->vt->free(st);
    free(st);
}

void ddb_store_names_free(char **names, size_t n)
{
    for (size_t i = 0; names && i < n; i++)
        free(names[i]);
    free(names);
}
