/*
 * output.h — where the pipeline's results go. An output is a small struct
 * with a const vtable, so files (this module) and a live table (the table
 * writer) plug into the same pipeline.
 *
 * Files: DIR/<Entity>.<ext>[.gz] per entity (deletes in
 * DIR/<Entity>.deletes.<ext>), DIR/_unmatched.ndjson for items no entity
 * matches (DynamoDB JSON, re-importable), or one DIR/items.<ext> without a
 * mapping. Every file is written under a temporary name and renamed into
 * place by finish(), so files appear complete or not at all.
 */
#ifndef DDBPIPE_OUTPUT_H
#define DDBPIPE_OUTPUT_H

#include <stddef.h>
#include <stdint.h>

#include "ddbpipe/mapping.h"
#include "ddbpipe/reader.h"
#include "ddbpipe/writer.h"

typedef struct ddb_output ddb_output;

/* Told when records are durably accepted, so "written" counts only what the
 * destination took (a table writer confirms asynchronously). */
typedef void (*ddb_output_ack_fn)(void *ctx, int entity_index, ddb_record_kind kind, uint64_t seq);

/* A record the destination refused after put() accepted it into its queue
 * (e.g. DynamoDB kept returning it as unprocessed): where it came from, why,
 * and the item as DynamoDB JSON. */
typedef struct ddb_reject_info {
    uint64_t seq;        /* the record's sequence number (ddb_record.seq) */
    const char *source;
    uint64_t line;
    uint64_t offset;
    const char *reason;
    const char *item_json; /* {"attr":{"S":..},...} */
    size_t item_len;
    int is_delete;
} ddb_reject_info;

typedef void (*ddb_output_reject_fn)(void *ctx, int entity_index, const ddb_reject_info *info);

typedef struct ddb_output_vtable {
    /* A record (or item) of entity_index (-1 = none) to store. rec->attrs
     * [0..n_declared) are declared fields when the output writes records. */
    int (*put)(ddb_output *o, int entity_index, ddb_record_kind kind, const ddb_map *rec,
               size_t n_declared, const ddb_record *origin, ddb_error *err);
    /* An item no entity matched (kept verbatim). */
    int (*unmatched)(ddb_output *o, ddb_record_kind kind, const ddb_map *item, ddb_error *err);
    /* Commits everything; after success all acks have been delivered. */
    int (*finish)(ddb_output *o, ddb_error *err);
    /* Frees; uncommitted files are removed (kept in resumable mode). */
    void (*free)(ddb_output *o);
    /* Makes everything accepted so far durable and appends, as a JSON array,
     * what a resumed run needs to continue the outputs ([{"path":..,"bytes":..}]
     * for files; [] when acks already mean durable, as for a table). */
    int (*checkpoint)(ddb_output *o, ddb_buf *state, ddb_error *err);
} ddb_output_vtable;

struct ddb_output {
    const ddb_output_vtable *vt;
    int writes_at_once; /* put() writes before it returns (files): a checkpoint must fall
                           where the committed prefix ends, not in the middle of a unit */
    ddb_output_ack_fn ack;
    ddb_output_reject_fn reject;
    void *ack_ctx; /* for ack and reject */
    uint64_t bytes_out;
};

typedef struct ddb_file_output_opts {
    const char *dir;             /* created if missing */
    ddb_out_format format;
    int gzip;
    char delimiter;              /* CSV */
    const ddb_mapping *mapping;  /* entity layout; NULL = one file */
    int records;                 /* 1: entity records (export); 0: items (convert/encode) */
    const char *single_name;     /* file base name without a mapping ("items") */
    int resumable;               /* write DIR/.<name>.partial, kept when the run stops early */
    const char *resume_state;    /* JSON array saved by checkpoint(): continue those files */
} ddb_file_output_opts;

/*
 * Per-entity files under opts->dir. With a mapping and records=1, one file
 * per entity is created up front (so an entity without records still gets a
 * file with its CSV header). Returns 0, DDB_EIO (directory cannot be made),
 * DDB_ENOMEM.
 */
int ddb_file_output_new(ddb_output **out, const ddb_file_output_opts *opts, ddb_error *err);

/* Paths of the files committed by finish (valid until free), for the summary. */
size_t ddb_file_output_paths(const ddb_output *o, const char *const **paths);

void ddb_output_free(ddb_output *o);

/* For outputs: refuses a record given to put() — the item written as
 * DynamoDB JSON into scratch, its origin (NULL: unknown) and reason handed
 * to o->reject, when set. */
void ddb_output_refuse(ddb_output *o, int entity, ddb_record_kind kind, const ddb_map *item,
                       const ddb_record *origin, const char *reason, ddb_buf *scratch);

/* ---------------------------------------------------------------- rejects */

typedef struct ddb_rejects ddb_rejects;

/* A JSON-lines file with one line per rejected input: source, line, offset,
 * entity, reason and the original text (or base64 of it when it is not
 * UTF-8, or the item in DynamoDB JSON when there is no text). Written
 * atomically like the outputs; nothing is created when nothing is rejected. */
int ddb_rejects_new(ddb_rejects **out, const char *path, ddb_error *err);

/* A resumable rejects file (PATH.partial until finished). With resume, the
 * partial file is cut to keep_len bytes holding count lines and continued. */
int ddb_rejects_new_resumable(ddb_rejects **out, const char *path, int resume, uint64_t keep_len,
                              uint64_t count, ddb_error *err);

/* Makes the rejects durable; *len receives the file's length. */
int ddb_rejects_checkpoint(ddb_rejects *r, uint64_t *len, ddb_error *err);

int ddb_rejects_write(ddb_rejects *r, const ddb_record *rec, const char *entity,
                      const char *reason, ddb_error *err);

/* The line ddb_rejects_write would write, appended to out (for writing later). */
void ddb_rejects_format(ddb_buf *out, const ddb_record *rec, const char *entity, const char *reason);
void ddb_rejects_format_info(ddb_buf *out, const ddb_reject_info *info, const char *entity);

/* Appends preformatted lines (count of them) to the file. */
int ddb_rejects_append(ddb_rejects *r, const char *lines, size_t len, uint64_t count,
                       ddb_error *err);

/* The same for a record refused by an output after the fact (no original
 * text any more: the item is written as "item"/"keys" in DynamoDB JSON). */
int ddb_rejects_write_info(ddb_rejects *r, const ddb_reject_info *info, const char *entity,
                           ddb_error *err);

/* Number of lines written so far. */
uint64_t ddb_rejects_count(const ddb_rejects *r);
const char *ddb_rejects_path(const ddb_rejects *r);

/* Commits the file (if anything was written). */
int ddb_rejects_finish(ddb_rejects *r, ddb_error *err);
void ddb_rejects_free(ddb_rejects *r);

#endif
