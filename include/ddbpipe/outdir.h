/*
 * outdir.h — the output folder of a run that writes files, as one unit.
 *
 * A run's per-entity files sit at the top of the folder, where a glob of its
 * .csv or .ndjson files finds them; everything else ddbpipe writes (rejects,
 * unmatched items, the summary, the list of files) goes to OUT/_ddbpipe/,
 * which tools reading the folder skip (_ and . names are hidden to Athena,
 * Spark and ddbpipe's own folder reader).
 *
 * OUT/_ddbpipe/manifest.json lists the files the last run wrote. A new run may
 * write into a folder holding only those: when it commits, they are replaced,
 * and the ones it did not write again are removed, so no stale entity file is
 * left for a glob to pick up. A folder holding anything else (files ddbpipe
 * did not write, or a folder from before the manifest) is refused unless the
 * caller allows it; then those files are left as they are.
 *
 * The folder may be on the local disk or a prefix of an S3 bucket
 * (s3://bucket/prefix/, through a store): the same files, checks and
 * manifest, with objects for files and PutObject for an atomic write.
 */
#ifndef DDBPIPE_OUTDIR_H
#define DDBPIPE_OUTDIR_H

#include <stddef.h>

#include "ddbpipe/error.h"
#include "ddbpipe/store.h"

#define DDB_OUTDIR_SIDE "_ddbpipe" /* the folder of ddbpipe's own files inside OUT */

typedef struct ddb_outdir ddb_outdir;

/*
 * Looks at dir, in store (borrowed, outliving *out; NULL for the local disk),
 * before anything is written (it need not exist). Names
 * starting with "." are ignored (temporary and partial files live there).
 * Unless foreign_ok, a folder holding files the manifest does not list fails
 * with DDB_EUSAGE naming them. resuming skips the check: the folder holds the
 * interrupted run's files. Reading a damaged manifest fails with DDB_EUSAGE.
 * *out is owned by the caller (ddb_outdir_free). Returns 0, DDB_EUSAGE,
 * DDB_EIO (the folder cannot be read), DDB_ENOMEM.
 */
DDB_MUST_USE int ddb_outdir_open(ddb_outdir **out, ddb_store *store, const char *dir,
                                 int foreign_ok, int resuming, ddb_error *err);

/* dir/_ddbpipe/name, malloc'd (NULL when out of memory). */
char *ddb_outdir_side_path(const ddb_outdir *od, const char *name);

/* Files in the folder that ddbpipe did not write (with foreign_ok), sorted;
 * valid until free. */
size_t ddb_outdir_foreign(const ddb_outdir *od, const char *const **names);

/*
 * After the run's files are in place: writes the manifest listing them
 * (paths inside dir, or their base names), then removes the files of the
 * previous run this one did not write again. *removed (may be NULL) receives
 * how many were removed and *removed_names (may be NULL) a malloc'd
 * ", "-separated list of them (NULL when none). Returns 0, DDB_EIO, DDB_ENOMEM,
 * or the store's error (S3: DDB_ENET and others).
 */
DDB_MUST_USE int ddb_outdir_commit(ddb_outdir *od, const char *const *written, size_t n,
                                   size_t *removed, char **removed_names, ddb_error *err);

/*
 * Removes dir/_ddbpipe/name/ and the files in it (a previous run's column
 * types, when this run writes none: they would describe files no longer
 * there). Not there is no error. Returns 0, DDB_ENOMEM or the store's error.
 */
DDB_MUST_USE int ddb_outdir_remove_side_folder(ddb_outdir *od, const char *name, ddb_error *err);

/* Accepts NULL. */
void ddb_outdir_free(ddb_outdir *od);

#endif
