/*
 * rejects.h — the rejects file: one JSON line per rejected input with its
 * source, line, byte offset, entity, reason and original text, written
 * atomically (or resumably under a state file).
 */
#ifndef DDBPIPE_REJECTS_H
#define DDBPIPE_REJECTS_H

#include <stddef.h>
#include <stdint.h>

#include "ddbpipe/buf.h"
#include "ddbpipe/error.h"
#include "ddbpipe/output.h"
#include "ddbpipe/reader.h"

typedef struct ddb_rejects ddb_rejects;

/* A JSON-lines file with one line per rejected input: source, line, offset,
 * entity, reason and the original text (or base64 of it when it is not
 * UTF-8, or the item in DynamoDB JSON when there is no text). Written
 * atomically like the outputs; nothing is created when nothing is rejected
 * (and finish removes a file an earlier run left at the path). The unmatched
 * file ({"Item":..} lines) is the same kind of file. A path ending in .gz is
 * gzip-compressed. Its folder is made with the first line; DDB_EIO at once
 * when it could not be. */
DDB_MUST_USE int ddb_rejects_new(ddb_rejects **out, const char *path, ddb_error *err);

/* A resumable rejects file (PATH.partial until finished). With resume, the
 * partial file is cut to keep_len bytes holding count lines and continued. */
DDB_MUST_USE int ddb_rejects_new_resumable(ddb_rejects **out, const char *path, int resume,
                                           uint64_t keep_len, uint64_t count, ddb_error *err);

struct ddb_s3;

/* Either of the above (resumable or not) for a path that may also be
 * s3://bucket/key, written through s3 (borrowed; must outlive the file; NULL
 * refuses such a path at the first line). Resumable on S3, the file is kept
 * in s3's spool folder and uploaded whole by finish. */
DDB_MUST_USE int ddb_rejects_open(ddb_rejects **out, const char *path, struct ddb_s3 *s3,
                                  int resumable, int resume, uint64_t keep_len, uint64_t count,
                                  ddb_error *err);

/* Makes the rejects durable; *len receives the file's length. */
DDB_MUST_USE int ddb_rejects_checkpoint(ddb_rejects *r, uint64_t *len, ddb_error *err);

DDB_MUST_USE int ddb_rejects_write(ddb_rejects *r, const ddb_record *rec, const char *entity,
                                   const char *reason, ddb_error *err);

/* The line ddb_rejects_write would write, appended to out (for writing later). */
void ddb_rejects_format(ddb_buf *out, const ddb_record *rec, const char *entity,
                        const char *reason);
void ddb_rejects_format_info(ddb_buf *out, const ddb_reject_info *info, const char *entity);

/* Appends preformatted lines (count of them) to the file. */
DDB_MUST_USE int ddb_rejects_append(ddb_rejects *r, const char *lines, size_t len, uint64_t count,
                                    ddb_error *err);

/* The same for a record refused by an output after the fact (no original
 * text any more: the item is written as "item"/"keys" in DynamoDB JSON). */
int ddb_rejects_write_info(ddb_rejects *r, const ddb_reject_info *info, const char *entity,
                           ddb_error *err);

/* Number of lines written so far. */
uint64_t ddb_rejects_count(const ddb_rejects *r);
const char *ddb_rejects_path(const ddb_rejects *r);

/* Commits the file, or removes one left at its path when nothing was written. */
DDB_MUST_USE int ddb_rejects_finish(ddb_rejects *r, ddb_error *err);
void ddb_rejects_free(ddb_rejects *r);

#endif
