/*
 * store.h — where files live: the local disk, or an S3 bucket (paths
 * s3://bucket/key), behind one small vtable, so opening inputs, reading an
 * export's manifests, finding its data files and keeping an output folder's
 * own small files (its manifest, column types) work the same on both.
 *
 * Folders of a bucket are key prefixes: s3://b/p is a folder when keys start
 * with "p/". Paths are joined with '/' in both.
 */
#ifndef DDBPIPE_STORE_H
#define DDBPIPE_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "ddbpipe/error.h"
#include "ddbpipe/source.h"

typedef struct ddb_store ddb_store;
struct ddb_s3;
struct ddb_s3_object;

typedef struct ddb_store_vtable {
    /* A file (*is_dir 0, its *size) or a folder (*is_dir 1). Returns 0,
     * DDB_ENOTFOUND, or another error. */
    int (*stat)(ddb_store *st, const char *path, int *is_dir, uint64_t *size, ddb_error *err);
    /* A whole small file, NUL-terminated (DDB_ETOOBIG past max). */
    int (*read_all)(ddb_store *st, const char *path, size_t max, char **out, size_t *len,
                    ddb_error *err);
    /* The raw bytes of a file. */
    int (*open)(ddb_store *st, const char *path, ddb_source **out, ddb_error *err);
    /* The direct children of a folder, as names (folders end with '/'),
     * malloc'd, in byte order. */
    int (*list)(ddb_store *st, const char *dir, char ***names, size_t *n, ddb_error *err);
    /* The files about to be read, in order, so a remote store fetches ahead.
     * May be NULL. */
    int (*plan)(ddb_store *st, const char *const *paths, size_t n, ddb_error *err);
    /* Replaces a small file as a whole: readers see the old bytes or the new,
     * never a mix (a renamed temporary file; one PutObject). The local store
     * makes the folders above it. */
    int (*write_all)(ddb_store *st, const char *path, const void *data, size_t len, ddb_error *err);
    /* Removes a file: 0, or DDB_ENOTFOUND when it was not there (S3 cannot
     * tell: 0), or another error. */
    int (*remove)(ddb_store *st, const char *path, ddb_error *err);
    void (*free)(ddb_store *st);
} ddb_store_vtable;

struct ddb_store {
    const ddb_store_vtable *vt;
};

/* The local disk (a static store; ddb_store_free ignores it). */
ddb_store *ddb_store_local(void);

/* An S3 store over s3 (borrowed). Sizes and ETags of listed objects are
 * remembered, so a folder listed once needs no HEAD per file. */
DDB_MUST_USE int ddb_store_new_s3(ddb_store **out, struct ddb_s3 *s3, ddb_error *err);

/* Tells an S3 store about objects a listing found (their size and ETag).
 * Returns 0 or DDB_ENOMEM; a no-op for the local store. */
int ddb_store_remember(ddb_store *st, const char *bucket, const struct ddb_s3_object *objs,
                       size_t n);

/* The store a path lives in: remote for s3:// paths (NULL when none was
 * given), the local disk otherwise. */
ddb_store *ddb_store_for(ddb_store *remote, const char *path);

/*
 * Removes the files directly in dir (never its folders) except those keep
 * (may be NULL) says to keep. A folder that is not there holds nothing to
 * remove. Returns 0, DDB_ENOMEM or the store's error.
 */
DDB_MUST_USE int ddb_store_remove_files(ddb_store *st, const char *dir,
                                        int (*keep)(const char *name, void *ctx), void *ctx,
                                        ddb_error *err);

/* Frees an S3 store. Accepts NULL and the local store. */
void ddb_store_free(ddb_store *st);

void ddb_store_names_free(char **names, size_t n);

#endif
