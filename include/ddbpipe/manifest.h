/*
 * manifest.h — the manifests of a DynamoDB "Export to S3" folder.
 *
 * An export folder <prefix>/AWSDynamoDB/<exportId>/ holds manifest-summary.json
 * (one JSON object: itemCount, outputFormat, exportType, ...), manifest-files.json
 * (JSON Lines, one object per gzip data file: itemCount, md5Checksum,
 * dataFileS3Key) and a checksum file beside each (.md5, or .checksum in newer
 * exports). This module reads and checks them and finds each data file on
 * disk; it never opens the data, so progress reporting can learn itemCount
 * cheaply. Reading the data is reader_export.c's job.
 */
#ifndef DDBPIPE_MANIFEST_H
#define DDBPIPE_MANIFEST_H

#include <stddef.h>
#include <stdint.h>

#include "ddbpipe/error.h"

/* Receives a non-fatal finding (message names the file). */
typedef void (*ddb_warn_fn)(void *ctx, const char *msg);

typedef enum ddb_export_type {
    DDB_EXPORT_FULL = 0,   /* FULL_EXPORT (also when exportType is absent) */
    DDB_EXPORT_INCREMENTAL /* INCREMENTAL_EXPORT: change records */
} ddb_export_type;

typedef struct ddb_manifest_file {
    char *key;           /* dataFileS3Key, relative to the bucket root */
    char *md5;           /* md5Checksum: base64 MD5 of the .gz as stored; NULL if absent */
    char *etag;          /* NULL if absent */
    uint64_t item_count; /* lines (records) in the file */
    uint64_t line;       /* its line in manifest-files.json */
    char *path;          /* the local file it resolved to */
    uint64_t size;       /* bytes on disk */
} ddb_manifest_file;

typedef struct ddb_manifest {
    char *dir;          /* the export folder */
    char *summary_path; /* <dir>/manifest-summary.json (or the file as named) */
    char *files_path;   /* manifest-files.json as found; NULL with SUMMARY_ONLY */
    char *version;      /* NULL when absent; likewise the strings below */
    char *export_arn;
    char *output_view; /* incremental: NEW_AND_OLD_IMAGES or NEW_IMAGE */
    char *files_key;   /* manifestFilesS3Key */
    char *s3_prefix;
    ddb_export_type type;
    uint64_t item_count; /* summary itemCount */
    ddb_manifest_file *files;
    size_t nfiles;
    uint64_t total_bytes; /* sum of the data file sizes */
} ddb_manifest;

/* Flags for ddb_manifest_load. */
#define DDB_MANIFEST_SUMMARY_ONLY 1u /* read manifest-summary.json only */
#define DDB_MANIFEST_NO_VERIFY 2u    /* do not check the manifests' checksum files */

/*
 * Loads the manifests of the export at path: the export folder or its
 * manifest-summary.json. Checks manifest-files.json against its checksum file
 * (a mismatch is DDB_EVERIFY unless DDB_MANIFEST_NO_VERIFY) and
 * manifest-summary.json against its own (a mismatch is only a warning: copies
 * are often re-indented). Finds every data file: the part of dataFileS3Key
 * after "AWSDynamoDB/" below the export folder's parent, else
 * <dir>/data/<basename>, else <parent>/data/<basename>. warn (may be NULL)
 * receives the warnings. *out is owned by the caller (ddb_manifest_free).
 * Errors: DDB_ENOTFOUND (no manifest, a data file missing: names the key and
 * the paths tried), DDB_EIO, DDB_EINVAL (malformed manifest: file, line and
 * field), DDB_EUSAGE (outputFormat ION or anything but DYNAMODB_JSON),
 * DDB_EVERIFY, DDB_ENOMEM.
 */
DDB_MUST_USE int ddb_manifest_load(ddb_manifest **out, const char *path, unsigned flags,
                                   ddb_warn_fn warn, void *warn_ctx, ddb_error *err);

struct ddb_store;

/* The same, with the files in store (store.h): an export in an S3 bucket. */
DDB_MUST_USE int ddb_manifest_load_from(ddb_manifest **out, struct ddb_store *store,
                                        const char *path, unsigned flags, ddb_warn_fn warn,
                                        void *warn_ctx, ddb_error *err);

/* Frees m and everything it holds. Accepts NULL. */
void ddb_manifest_free(ddb_manifest *m);

#endif
