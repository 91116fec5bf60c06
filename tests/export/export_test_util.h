/* Helpers for the Export to S3 tests: running a reader to the end, and
 * building small synthetic export folders with correct manifests. */
#ifndef DDB_EXPORT_TEST_UTIL_H
#define DDB_EXPORT_TEST_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "ddbpipe/error.h"
#include "ddbpipe/reader.h"

#define XU_MAX 16

typedef struct xu_warnings {
    int n;
    char msg[XU_MAX][DDB_ERROR_MAX];
} xu_warnings;

/* A ddb_reader_opts.warn callback collecting into an xu_warnings. */
void xu_warn(void *ctx, const char *msg);

/* Number of warnings containing needle. */
int xu_warned(const xu_warnings *w, const char *needle);

typedef struct xu_run {
    uint64_t put, del, bad, with_time, records;
    int nverify;
    char verify[XU_MAX][DDB_ERROR_MAX];
    int fatal; /* the fatal code that stopped the run, else 0 */
    char fatal_msg[DDB_ERROR_MAX];
    int nsources; /* records per source, in order of appearance */
    char sources[XU_MAX][512];
    uint64_t per_source[XU_MAX];
    char hint[64]; /* entity_hint of the last record; "(null)" when NULL */
} xu_run;

/* Reads r to its end (DDB_EVERIFY noted and skipped; any other error stops). */
void xu_read_all(ddb_reader *r, xu_run *run);

/* Opens path with ddb_reader_new_export and reads it all; returns the open code. */
int xu_read_export(const char *path, const ddb_reader_opts *opts, xu_run *run, ddb_error *err);

/* A fresh directory under /tmp (static buffer); xu_rmrf removes it. */
const char *xu_tmpdir(void);
void xu_rmrf(const char *dir);

/* dir + "/" + name, in one of several rotating static buffers. */
const char *xu_path(const char *dir, const char *name);

void xu_write_text(const char *path, const char *text);
char *xu_read_text(const char *path, size_t *len); /* malloc'd */
void xu_write_gz(const char *path, const char *text);
void xu_md5_b64(const char *path, char out[25]);
void xu_flip_byte(const char *path, long offset);

/* Rewrites <stem>.md5 beside a manifest so it matches again. */
void xu_fix_md5(const char *json_path);

/* Replaces the first `from` by `to` in a text file; fails the test if absent. */
void xu_replace(const char *path, const char *from, const char *to);

typedef struct xu_file {
    const char *name; /* written to <export>/data/<name> */
    const char *text; /* DynamoDB JSON lines; NULL: a 0-byte file */
} xu_file;

/* Builds root/AWSDynamoDB/<id>/ with gzip data files and correct manifests
 * (AWS layout: keys AWSDynamoDB/<id>/data/<name>). Returns the export folder
 * (static buffer). */
const char *xu_build(const char *root, const char *id, const xu_file *files, size_t n);

#endif
