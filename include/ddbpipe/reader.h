/*
 * reader.h — record readers: every input format yields the same ddb_record,
 * one at a time, with its origin (file, line, byte offset, original text) so a
 * bad record can be rejected precisely and the run can go on.
 *
 * A reader is a small struct with a const vtable; the format is picked from
 * the content (magic bytes, first line), with the file extension and
 * --input-format only as hints and overrides.
 */
#ifndef DDBPIPE_READER_H
#define DDBPIPE_READER_H

#include <stddef.h>
#include <stdint.h>

#include "ddbpipe/arena.h"
#include "ddbpipe/buf.h"
#include "ddbpipe/error.h"
#include "ddbpipe/source.h"
#include "ddbpipe/value.h"

typedef struct ddb_json_parser ddb_json_parser; /* json.h */

typedef enum ddb_record_kind {
    DDB_REC_PUT = 0, /* an item to write, or a per-entity record */
    DDB_REC_DELETE,  /* a deletion: item holds the key attributes only */
    DDB_REC_BAD      /* unreadable input: reason says why, raw holds the text */
} ddb_record_kind;

/* For incremental export records, what happened to the item (the DynamoDB
 * Streams event names): an insert has no OldImage, a remove no NewImage. */
typedef enum ddb_change_kind {
    DDB_CHANGE_NONE = 0, /* not a change record */
    DDB_CHANGE_INSERT,
    DDB_CHANGE_MODIFY,
    DDB_CHANGE_REMOVE
} ddb_change_kind;

typedef struct ddb_record {
    ddb_record_kind kind;
    ddb_change_kind change; /* incremental exports and stream records only */
    int by_ttl;             /* a stream record's REMOVE made by Time to Live (its userIdentity
                               the DynamoDB service) */
    ddb_map item;           /* the attributes (valid until the next call to next) */
    int typed;              /* 1: DynamoDB-typed values; 0: CSV/plain JSON (types to infer) */
    const char *source;     /* input file, as the user named it (or "stdin") */
    uint64_t line;          /* 1-based line of the record start; 0 when unknown */
    uint64_t offset;        /* byte offset of the record in the decoded input */
    const char *raw;        /* original text of the record (may be NULL) */
    size_t raw_len;
    const char *reason;  /* DDB_REC_BAD: why (includes the position) */
    ddb_str write_time;  /* incremental exports: Metadata.WriteTimestampMicros */
    uint64_t pos;        /* grows with every record of the input: resuming at pos reads
                            this record again and skips everything before it */
    uint64_t seq;        /* set by the pipeline: the record's number in the run */
    const char *table;   /* the table its input names for it (BatchWriteItem requests, a
                            NoSQL Workbench model, a dynamodump backup), or NULL */
    ddb_str item_text;   /* the item exactly as typed DynamoDB JSON in the input, when the
                            reader has it verbatim ({NULL, 0} otherwise): an importer
                            that changes nothing may send it as it is */
    int unparsed;        /* from next_unparsed: only raw, line, offset, pos, source and
                            typed are set; ddb_record_parse fills in the rest */
    int parse_as;        /* unparsed: how raw is to be parsed (the reader's business) */
    int utf8_checked;    /* the parser checked the item's names and strings as UTF-8 */
    uint64_t names_id;   /* 0, or an id only items with the same names carry
                            (ddb_json_parser_names_id) */
    size_t checked_size; /* set by the pipeline for the length of one put: the item as read
                            passed every check but the table's keys, and is this many bytes
                            (0: not known to have passed; an output checks it whole) */
    const char *formatted; /* set by the pipeline for the length of one put: the bytes the
                              output's format() made for it, which put writes (NULL: none) */
    size_t formatted_len;
    const char *note; /* likewise, the output's note for it (NULL: none) */
    size_t note_len;
} ddb_record;

typedef enum ddb_input_format {
    DDB_IN_AUTO = 0,
    DDB_IN_DDBJSON,     /* DynamoDB JSON lines: {"Item":..}, bare items, incremental changes */
    DDB_IN_SCAN,        /* AWS CLI scan output: {"Items":[...], "Count":...} */
    DDB_IN_NDJSON,      /* plain JSON objects, one per line */
    DDB_IN_CSV,         /* RFC 4180 with a header row */
    DDB_IN_EXPORT,      /* an Export to S3 folder (manifest-summary.json) */
    DDB_IN_JSON,        /* JSON documents: arrays of items, pretty-printed items, scan and
                           get-item output, BatchWriteItem requests, NoSQL Workbench models */
    DDB_IN_DYNAMODUMP,  /* a dynamodump backup of a table: schema.json + data/NNNN.json */
    DDB_IN_DATAPIPELINE, /* AWS Data Pipeline / EMR exports: {"a":{"s":"x"}} lines, or the older
                           name<0x03>value<0x02>... lines */
    DDB_IN_PARQUET       /* a local Parquet file, as export --format parquet writes it */
} ddb_input_format;

struct ddb_store;

typedef struct ddb_reader_opts {
    ddb_input_format format; /* DDB_IN_AUTO: by content */
    char delimiter;          /* CSV delimiter; 0 = ',' (or '\t' for .tsv) */
    size_t max_line;         /* bytes per line/row; 0 = 64 MiB */
    int no_verify;           /* exports: skip MD5 and item-count checks */
    int one_thread;          /* gzip files are inflated on the reading thread, not ahead on
                                one of their own (--threads 1: one core) */
    const char *entity;      /* --entity: overrides the file-name hint */
    const char *table;       /* inputs that name several tables (BatchWriteItem requests,
                                Workbench models): the one whose records are read; NULL:
                                the first named. Records of the others are rejected. */
    /* CSV */
    const char *const *columns; /* the columns of a CSV without a header row (its first
                                   row is data); names may carry a type: price:N */
    size_t n_columns;
    int allow_short_rows; /* a row with fewer cells than columns: the rest are absent */
    int allow_long_rows;  /* a row with more cells: the extra ones are kept as attributes
                             _col<N> (N = 1-based column), so they land in _extra */
    const char *types_file; /* a dynamodb-csv spec file ([CSV_SPEC] column=TYPE lines) typing
                               the columns; NULL: none */
    /* Where s3:// inputs are read from (store.h); NULL: they cannot be. */
    struct ddb_store *remote;
    /* Shard I of N (1 <= shard <= shards): an export reads only its data files
     * i with i % N == I - 1, so N processes split one export. 0: all. */
    unsigned shard, shards;
    /* Non-fatal findings (e.g. an export manifest whose checksum no longer
     * matches), one message naming the file per call; NULL drops them. May be
     * called from ddb_reader_open and from next. */
    void (*warn)(void *ctx, const char *msg);
    void *warn_ctx;
} ddb_reader_opts;

typedef struct ddb_reader ddb_reader;

/*
 * One const vtable per kind of reader (lines, scan output, CSV, export
 * folder, table scan...). next and free are required; the others may be NULL
 * when the kind has no use for them.
 */
typedef struct ddb_reader_vtable {
    const char *kind; /* "ddb-json lines", "csv", "table scan"... for messages */
    /* Next record. Returns 0 with *out set (valid until the next call); a
     * DDB_REC_BAD record is a normal return, the reader goes on after it.
     * DDB_ITEROVER at the end. DDB_EVERIFY when a checksum or count does not
     * match (err names the file; calling next again continues with the rest
     * of the input). Any other negative code is fatal for this input. */
    int (*next)(ddb_reader *r, ddb_record **out, ddb_error *err);
    /* Frees the kind's own state (not the struct, name or entity hint). */
    void (*free)(ddb_reader *r);
    /* Raw bytes consumed so far, for progress and checkpoints. */
    uint64_t (*raw_bytes)(const ddb_reader *r);
    /* Decoded (decompressed) bytes parsed so far, for throughput; NULL: the
     * same as raw_bytes. */
    uint64_t (*decoded_bytes)(const ddb_reader *r);
    /* Makes the following next() calls start at the record with position pos,
     * skipping what comes before it as cheaply as the format allows (lines are
     * not parsed, whole export data files are not opened). NULL: the caller
     * reads and drops records below pos. Returns 0 or an error. */
    int (*skip_to)(ddb_reader *r, uint64_t pos, ddb_error *err);
    /* Readers whose position is more than pos (a table scan: per-segment keys)
     * take part in checkpoints through these three; NULL otherwise.
     * settled: the record at pos is written or rejected, told in the order the
     * records were read; returns 1 when everything read up to it is settled
     * as a resumable unit (a Scan page), else 0. */
    int (*settled)(ddb_reader *r, uint64_t pos);
    /* The state to resume from, as of the last settled unit (JSON, appended). */
    int (*save_state)(const ddb_reader *r, ddb_buf *out);
    /* Restores a saved state before the first next(). DDB_EUSAGE if it does
     * not fit this reader (e.g. another number of segments). */
    int (*load_state)(ddb_reader *r, const char *json, size_t len, ddb_error *err);
    /* As next, but the record may come unparsed (rec->unparsed): its text
     * split off, its parse left to ddb_record_parse on any thread, so one
     * thread splits while others parse. NULL: the kind cannot. */
    int (*next_unparsed)(ddb_reader *r, ddb_record **out, ddb_error *err);
} ddb_reader_vtable;

struct ddb_reader {
    const ddb_reader_vtable *vt;
    char *name;                 /* the input as named by the user */
    ddb_input_format format;    /* the format that was detected or forced */
    uint64_t total_bytes;       /* input size when known (for progress), else 0 */
    uint64_t expected_items;    /* from a manifest, else 0 */
    char *entity_hint;          /* the entity its records are (--entity, else the file name:
                                   Tag.csv), or NULL; the pipeline encodes records with it */
    int deletes;                /* the file name says it holds deletions (Tag.deletes.csv) */
    const char *const *columns; /* the names a header row gave (CSV), in order; NULL for
                                   formats without one */
    size_t n_columns;
};

/*
 * Opens an input: a file, "-" for stdin, or an Export to S3 folder. The
 * format comes from the content (gzip by magic bytes, then the first bytes or
 * line), unless opts->format forces one. Records live in the reader's own
 * arena, recycled on every call to next. *out is owned by the caller
 * (ddb_reader_free). Errors: DDB_ENOTFOUND, DDB_EIO, DDB_EUSAGE (cannot tell
 * the format / bad header), DDB_EVERIFY (manifest checksum).
 */
DDB_MUST_USE int ddb_reader_open(ddb_reader **out, const char *path, const ddb_reader_opts *opts,
                                 ddb_error *err);

/*
 * Parses a record next_unparsed left unparsed (rec->raw must stay valid
 * while the record is used): fills in item, kind, change and write_time
 * exactly as next would have, or makes it DDB_REC_BAD with the reason. The
 * values point into rec->raw and arena a; p is the calling thread's own
 * parser. Does not touch the reader, which may have moved on or be gone.
 * Returns 0, or DDB_ENOMEM when not even the reason could be kept.
 */
DDB_MUST_USE int ddb_record_parse(ddb_record *rec, ddb_json_parser *p, ddb_arena *a);

static inline int ddb_reader_next(ddb_reader *r, ddb_record **out, ddb_error *err)
{
    return r->vt->next(r, out, err);
}

/* Raw bytes consumed so far (0 when the kind cannot tell). */
static inline uint64_t ddb_reader_raw_bytes(const ddb_reader *r)
{
    return r->vt->raw_bytes ? r->vt->raw_bytes(r) : 0;
}

/* Decoded bytes parsed so far (the raw bytes when nothing is decompressed). */
static inline uint64_t ddb_reader_decoded_bytes(const ddb_reader *r)
{
    return r->vt->decoded_bytes ? r->vt->decoded_bytes(r) : ddb_reader_raw_bytes(r);
}

void ddb_reader_free(ddb_reader *r);

/*
 * The files to read in a folder that is not an Export to S3 folder, such as
 * one a run of ddbpipe wrote (one file per entity): its regular files, sorted
 * bytewise, without those whose names start with '_' (the run's rejects,
 * unmatched items and own records; with unmatched, its _unmatched files are
 * listed too) or '.'. *out (paths, malloc'd) and *n are 0 when path is not
 * such a folder (a file, an export, stdin). Returns 0, DDB_EUSAGE (a folder
 * with no file to read), DDB_EIO, DDB_ENOMEM.
 */
DDB_MUST_USE int ddb_reader_list_folder(char ***out, size_t *n, const char *path, int unmatched,
                                        ddb_error *err);

/* Whether reading a folder (or an S3 prefix) leaves out a file or folder of
 * this name: it starts with '_' (a run's own files) or '.'. */
int ddb_reader_skips_name(const char *name);

/* "ddb-json", "scan", "ndjson", "csv", "export", "json", "dynamodump", "datapipeline",
 * "parquet". */
const char *ddb_input_format_name(ddb_input_format f);

/* Parses an --input-format value. Returns 0 or DDB_EUSAGE. */
int ddb_input_format_parse(ddb_input_format *out, const char *s);

/* The entity a file name suggests: "Tag.csv.gz" -> "Tag", "Tag.deletes.csv" ->
 * "Tag" with *is_delete = 1. Returns a malloc'd string or NULL. */
char *ddb_entity_from_filename(const char *path, int *is_delete);

/* ---- constructors used by ddb_reader_open (and by tests) ---- */

/* DynamoDB JSON lines or plain NDJSON over src (owned from now on). kind is
 * DDB_IN_DDBJSON or DDB_IN_NDJSON; for DDBJSON the line shape is sniffed from
 * the first non-empty line. */
DDB_MUST_USE int ddb_reader_new_lines(ddb_reader **out, ddb_source *src, ddb_input_format kind,
                                      const char *name, const ddb_reader_opts *opts,
                                      ddb_error *err);

/* JSON documents over src (owned): arrays of items, pretty-printed items,
 * AWS CLI scan/query/get-item/batch-get-item output, BatchWriteItem request
 * items, NoSQL Workbench models; several may follow one another. */
DDB_MUST_USE int ddb_reader_new_json(ddb_reader **out, ddb_source *src, const char *name,
                                     const ddb_reader_opts *opts, ddb_error *err);

/* The same reader, for AWS CLI scan output named as such (format "scan"). */
DDB_MUST_USE int ddb_reader_new_scan(ddb_reader **out, ddb_source *src, const char *name,
                                     const ddb_reader_opts *opts, ddb_error *err);

/* CSV over src (owned): a header row names the columns (or opts->columns do).
 * A column named name:TYPE holds values of that DynamoDB type; a column
 * named _extra holds other attributes as DynamoDB JSON, merged back into the
 * record. */
DDB_MUST_USE int ddb_reader_new_csv(ddb_reader **out, ddb_source *src, const char *name,
                                    const ddb_reader_opts *opts, ddb_error *err);

/* AWS Data Pipeline / EMR export lines over src (owned): items typed with the Java SDK's
 * keys ({"a":{"s":"x"},"b":{"nS":["1"]}}, any case), or the older Hive text form
 * (name<0x03>value, attributes separated by 0x02). */
DDB_MUST_USE int ddb_reader_new_datapipeline(ddb_reader **out, ddb_source *src, const char *name,
                                             const ddb_reader_opts *opts, ddb_error *err);

/* An Export to S3 folder (the one holding manifest-summary.json). */
DDB_MUST_USE int ddb_reader_new_export(ddb_reader **out, const char *dir,
                                       const ddb_reader_opts *opts, ddb_error *err);

/* A dynamodump backup of one table: dir holds schema.json and data/. */
DDB_MUST_USE int ddb_reader_new_dynamodump(ddb_reader **out, const char *dir,
                                           const ddb_reader_opts *opts, ddb_error *err);

#endif
