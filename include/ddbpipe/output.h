/*
 * output.h — where the pipeline's results go. An output is a small struct
 * with a const vtable, so files (output_file.h), a live table
 * (output_table.h) and a dry run (output_null.h) plug into the same pipeline.
 */
#ifndef DDBPIPE_OUTPUT_H
#define DDBPIPE_OUTPUT_H

#include <stddef.h>
#include <stdint.h>

#include "ddbpipe/buf.h"
#include "ddbpipe/item.h"
#include "ddbpipe/reader.h"

typedef struct ddb_output ddb_output;

/* Told when records are durably accepted, so "written" counts only what the
 * destination took (a table writer confirms asynchronously). */
typedef void (*ddb_output_ack_fn)(void *ctx, int entity_index, ddb_record_kind kind, uint64_t seq);

/* A record the destination refused after put() accepted it into its queue
 * (e.g. DynamoDB kept returning it as unprocessed): where it came from, why,
 * and the item as DynamoDB JSON. */
typedef struct ddb_reject_info {
    uint64_t seq; /* the record's sequence number (ddb_record.seq) */
    const char *source;
    uint64_t line;
    uint64_t offset;
    const char *reason;
    const char *item_json; /* {"attr":{"S":..},...} */
    size_t item_len;
    int is_delete;
} ddb_reject_info;

typedef void (*ddb_output_reject_fn)(void *ctx, int entity_index, const ddb_reject_info *info);

struct ddb_format_scratch;

/* Appends to line the bytes put(entity_index, kind, rec, n_declared) would
 * write, reading nothing put changes: worker threads call it while the
 * pipeline's thread puts, and put then writes origin->formatted. Returns 0,
 * 1 (only put can format this record: a Parquet column, a CSV whose columns
 * come from the records), or DDB_ENOMEM. */
typedef int (*ddb_output_format_fn)(const ddb_output *o, int entity_index, ddb_record_kind kind,
                                    const ddb_map *rec, size_t n_declared, ddb_buf *line,
                                    struct ddb_format_scratch *s);

/* Appends to note what put(entity_index, kind, rec, n_declared) may read
 * instead of rec for its own bookkeeping (the column statistics), made where
 * rec is in cache: worker threads call it after format, and put then reads
 * origin->note. Reads nothing put changes. Returns 0, 1 (no note: put reads
 * rec) or DDB_ENOMEM. */
typedef int (*ddb_output_note_fn)(const ddb_output *o, int entity_index, ddb_record_kind kind,
                                  const ddb_map *rec, size_t n_declared, ddb_buf *note);

typedef struct ddb_output_vtable {
    /* A record (or item) of entity_index (-1 = none) to store. rec->attrs
     * [0..n_declared) are declared fields when the output writes records. */
    int (*put)(ddb_output *o, int entity_index, ddb_record_kind kind, const ddb_map *rec,
               size_t n_declared, const ddb_record *origin, ddb_error *err);
    /* Commits everything; after success all acks have been delivered. */
    int (*finish)(ddb_output *o, ddb_error *err);
    /* Frees; uncommitted files are removed (kept in resumable mode). */
    void (*free)(ddb_output *o);
    /* Makes everything accepted so far durable and appends, as a JSON array,
     * what a resumed run needs to continue the outputs ([{"path":..,"bytes":..}]
     * for files; [] when acks already mean durable, as for a table). */
    int (*checkpoint)(ddb_output *o, ddb_buf *state, ddb_error *err);
    /* The run was interrupted: send nothing more, and wait for the answers
     * to what is already sent so acks match what the destination holds (may
     * be NULL: nothing is ever in flight). What was never sent is not done. */
    int (*stop)(ddb_output *o, ddb_error *err);
    /* The state the last checkpoint appended is saved (may be NULL): what it
     * named is what a resumed run continues; until then it names nothing. */
    void (*saved)(ddb_output *o);
    /* The input pauses (a pipe whose writer has nothing for now): send what
     * waits to be sent, a partial batch too, and retries that are due, so a
     * producer that pauses sees what it wrote stored (may be NULL: nothing
     * ever waits). Returns 0 or the error that ends the run. */
    int (*idle)(ddb_output *o, ddb_error *err);
} ddb_output_vtable;

struct ddb_output {
    const ddb_output_vtable *vt;
    int writes_at_once; /* put() writes before it returns (files): a checkpoint must fall
                           where the committed prefix ends, not in the middle of a unit */
    ddb_output_ack_fn ack;
    ddb_output_ack_fn exists; /* written only if absent, and it was there (kind is PUT) */
    ddb_output_reject_fn reject;
    void *ack_ctx; /* for ack and reject */
    ddb_output_format_fn format; /* NULL: put formats every record */
    ddb_output_note_fn note;     /* NULL: put reads every record it writes */
    uint64_t bytes_out;
};

void ddb_output_free(ddb_output *o);

/* For outputs: refuses a record given to put() — the item written as
 * DynamoDB JSON into scratch, its origin (NULL: unknown) and reason handed
 * to o->reject, when set. */
void ddb_output_refuse(ddb_output *o, int entity, ddb_record_kind kind, const ddb_map *item,
                       const ddb_record *origin, const char *reason, ddb_buf *scratch);

#endif
