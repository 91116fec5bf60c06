/*
 * fs.h — paths, folders and small whole files on the local disk.
 */
#ifndef DDBPIPE_FS_H
#define DDBPIPE_FS_H

#include <stddef.h>

#include "ddbpipe/error.h"

/* The last component of a path ("a/b/c.json" -> "c.json"), pointing into path. */
const char *ddb_path_base(const char *path);

/* Reads a whole regular file of at most max bytes into *out (malloc'd, with a
 * '\0' after its *len bytes). Returns 0, DDB_ENOTFOUND, DDB_ETOOBIG, DDB_EIO,
 * DDB_ENOMEM. */
DDB_MUST_USE int ddb_file_read_small(char **out, size_t *len, const char *path, size_t max,
                                     ddb_error *err);

/* dir/name (name alone for dir "."), malloc'd; NULL when out of memory. */
char *ddb_path_join(const char *dir, const char *name);

/* mkdir -p: creates dir and the folders above it that are missing. Returns 0,
 * DDB_EIO naming the folder that cannot be made, or DDB_ENOMEM. */
int ddb_make_dirs(const char *dir, ddb_error *err);

/* Removes a folder of files (not of folders) ddbpipe made, with its files;
 * one that does not exist is fine. */
void ddb_remove_dir(const char *dir);

/* Writes path (created or truncated) with data, without syncing it: for a
 * folder of new files that ddb_dir_sync() makes durable together. Returns 0,
 * DDB_EIO or DDB_ENOMEM. */
DDB_MUST_USE int ddb_file_write(const char *path, const void *data, size_t len, ddb_error *err);

/* Makes every file in dir, and dir itself, durable (fsync), starting all their
 * writeback first so that one journal commit serves them all. Returns 0 or
 * DDB_EIO naming the file. */
DDB_MUST_USE int ddb_dir_sync(const char *dir, ddb_error *err);

/* Writes len bytes to path atomically (a temporary file, fsync, rename): the
 * file is the old one or the new one, never half of one. Returns 0, DDB_EIO,
 * DDB_ENOMEM. */
DDB_MUST_USE int ddb_file_write_atomic(const char *path, const void *data, size_t len,
                                       ddb_error *err);

/* Is something other than a regular file at path (a device such as
 * /dev/null, a FIFO, a folder)? A file ddbpipe writes whole there is written
 * into, never renamed over or removed: run as root, a rename puts a regular
 * file in /dev/null's place. 0 when nothing is there. */
int ddb_path_is_special(const char *path);

/* Whether ddb_make_dirs(dir) and files in it could be made: the nearest part
 * of dir that exists must be a folder this process may write. Returns 0, or
 * DDB_EIO naming the part at fault. */
int ddb_check_dir_writable(const char *dir, ddb_error *err);

#endif
