/* reader_internal.h (private header of read/) — shared plumbing for the record readers. */
#ifndef DDBPIPE_READER_INTERNAL_H
#define DDBPIPE_READER_INTERNAL_H

#include "ddbpipe/source.h"
#include "ddbpipe/reader.h"

/* Fills the common part of a reader: vtable, a copy of name, the format, and
 * the entity hint (opts->entity, else from the file name) with the deletes
 * flag. Returns 0 or DDB_ENOMEM. */
int ddb_reader_base_init(ddb_reader *r, const ddb_reader_vtable *vt, const char *name,
                         ddb_input_format format, const ddb_reader_opts *opts);

/*
 * A bidder looks at the first bytes of an input (decompressed, up to 1 MiB;
 * fewer at the end of a short input) and says how sure it is that its reader
 * reads them: 0 not at all, 100 certain. The highest bid opens the input; a
 * forced --input-format picks the bidder of that format. A new reader plugs
 * in with a bidder in reader_sniff.c's table, without touching detection.
 */
typedef struct ddb_reader_bidder {
    ddb_input_format format;
    int (*bid)(const unsigned char *p, size_t n, const char *path);
    /* Opens the reader over src (owned from now on, even on failure). */
    int (*open)(ddb_reader **out, ddb_source *src, const char *name, const ddb_reader_opts *opts,
                ddb_error *err);
} ddb_reader_bidder;

extern const ddb_reader_bidder ddb_json_bidder;
extern const ddb_reader_bidder ddb_scan_bidder;
extern const ddb_reader_bidder ddb_ddbjson_bidder;
extern const ddb_reader_bidder ddb_ndjson_bidder;
extern const ddb_reader_bidder ddb_csv_bidder;
extern const ddb_reader_bidder ddb_datapipeline_bidder;
extern const ddb_reader_bidder ddb_parquet_bidder; /* reader_parquet.c */

/* Makes rec a bad record saying reason (copied into buf, cap bytes): no
 * attributes, the reader goes on after it. */
void ddb_record_set_bad(ddb_record *rec, char *buf, size_t cap, const char *reason);

/* Does the plain JSON item hold DynamoDB JSON: a value (an attribute's, or
 * one nested in it) that is an object with exactly one key, a DynamoDB type
 * name, whose value is of that type's JSON kind ({"S": "x"}, {"M": {..}})?
 * Such an item is a document ddbpipe does not know (a stream record, a
 * request of an API it does not read), never to be read as plain items
 * (unless the format was given). "_extra" is passed over: ddbpipe's own
 * records keep the attributes no field holds there, as DynamoDB JSON. On
 * 1, why (cap bytes) says so, naming the item's keys and the shapes
 * ddbpipe reads; 0 when it holds none (reader_json_shape.c). */
int ddb_plain_holds_typed(const ddb_map *item, char *why, size_t cap);

/* Is the object at p[i] ('{'), as far as p[0, n) shows it (a sniff may cut it
 * off), a DynamoDB Streams record: an "eventName" string and a "dynamodb"
 * object among its top-level keys? Owns nothing (reader_stream.c). */
int ddb_stream_record_sniff(const unsigned char *p, size_t i, size_t n);

/* Reads the stream record text[0, len) into rec: INSERT and MODIFY a
 * DDB_REC_PUT of NewImage, REMOVE a DDB_REC_DELETE of Keys (a removal by
 * Time to Live too: userIdentity only says who removed it), rec->change set
 * accordingly, values in arena. What cannot be applied (no NewImage under
 * a KEYS_ONLY or OLD_IMAGE view, another eventSource, an unknown key) makes
 * rec DDB_REC_BAD with the reason copied into reason (cap bytes). */
void ddb_stream_record_parse(ddb_record *rec, char *reason, size_t cap, ddb_json_parser *parser,
                             ddb_arena *arena, const char *text, size_t len);

/* The tableName of the stream record text[0, len) (Kinesis Data Streams
 * records name it), into *table (bytes in arena); table->ptr NULL when it
 * names none. Owns nothing; cannot fail. */
void ddb_stream_record_table(ddb_str *table, ddb_json_parser *parser, ddb_arena *arena,
                             const char *text, size_t len);

/* The bytes an input's format is told from (less when a pausing pipe has
 * shown enough: ddb_reader_sniffed_enough). */
#define SNIFF_BYTES (1024u * 1024u)

/* Detection helpers the bidders share. */
size_t ddb_sniff_skip_ws(const unsigned char *p, size_t i, size_t n);
/* Index of the first byte after a UTF-8 byte-order mark and whitespace. */
size_t ddb_sniff_start(const unsigned char *p, size_t n);
/* The first key of the JSON object at p[i] ('{'), or NULL when it cannot be read. */
const unsigned char *ddb_sniff_first_key(const unsigned char *p, size_t i, size_t n, size_t *len);
int ddb_sniff_key_in(const unsigned char *k, size_t len, const char *const *names);

/* The bidder of a forced format, or the highest bid on p[0, n) (the first on
 * a tie); NULL when none bids (reader_sniff.c). */
const ddb_reader_bidder *ddb_reader_pick_bidder(ddb_input_format forced, const unsigned char *p,
                                                size_t n, const char *path);
/* Amazon Ion, binary or text as DynamoDB's ION exports write it: refused by
 * name rather than misread. */
int ddb_reader_looks_like_ion(const unsigned char *p, size_t n);

/* What a sniff of a pausing pipe may stop early for (ddb_source_sniff_until's
 * enough, ctx a ddb_sniff_ctx): format and path are the caller's; decided is
 * set to the bytes the format was told from when it returns 1, and the pick
 * is then made on those bytes, not on a row cut by the pause. */
typedef struct ddb_sniff_ctx {
    ddb_input_format format;
    const char *path;
    size_t decided;
} ddb_sniff_ctx;
int ddb_reader_sniffed_enough(void *ctx, const unsigned char *p, size_t n);

/* The ddb_source_auto flags that opts asks for. */
static inline unsigned ddb_reader_source_flags(const ddb_reader_opts *opts)
{
    return opts->one_thread ? DDB_SOURCE_ONE_THREAD : 0u;
}

/* A dynamodb-csv spec file (reader_csv_spec.c): its [CSV_SPEC] column=TYPE lines, the
 * [IMPORT_OPTION] lists of columns whose blank cells are NULL or absent, and the
 * [DELIMITER_OPTION] that splits list and set cells (default one space). */
typedef enum ddb_csv_spec_type {
    DDB_SPEC_NONE = 0,
    DDB_SPEC_S,  /* string */
    DDB_SPEC_I,  /* integer: an N of digits */
    DDB_SPEC_D,  /* decimal: an N */
    DDB_SPEC_B,  /* boolean: blank is false, True/true/TRUE true */
    DDB_SPEC_J,  /* JSON: plain JSON, numbers as their text */
    DDB_SPEC_SL, /* a list of strings, split by the delimiter */
    DDB_SPEC_SS, /* a string set, split so */
    DDB_SPEC_DL, /* a list of numbers, split so */
    DDB_SPEC_DS  /* a number set, split so */
} ddb_csv_spec_type;

typedef enum ddb_csv_spec_blank {
    DDB_SPEC_BLANK_DEFAULT = 0,
    DDB_SPEC_BLANK_NULL, /* ConvertBlankToNullAttrs */
    DDB_SPEC_BLANK_DROP  /* ConvertBlankToDropAttrs */
} ddb_csv_spec_blank;

/* One line of the file that names a column: a type, or a blank rule. */
typedef struct ddb_csv_spec_entry {
    char *column;
    ddb_csv_spec_type type; /* DDB_SPEC_NONE for a blank rule */
    ddb_csv_spec_blank blank;
    unsigned line;
} ddb_csv_spec_entry;

typedef struct ddb_csv_spec {
    ddb_csv_spec_entry *entries;
    size_t n, cap;
    char *delimiter; /* NULL: one space */
} ddb_csv_spec;

/* Reads the spec file at path into *out (zeroed first; ddb_csv_spec_dispose frees it, also
 * after a failure). Refuses, naming path and line, what it cannot read exactly: an unknown
 * section, key or type, a line that is no key=value, a column named twice. Returns 0,
 * DDB_EUSAGE, or the codes of ddb_file_read_small. */
DDB_MUST_USE int ddb_csv_spec_load(ddb_csv_spec *out, const char *path, ddb_error *err);
void ddb_csv_spec_dispose(ddb_csv_spec *s);
/* "S", "I", ... as the file spells it. */
const char *ddb_csv_spec_type_name(ddb_csv_spec_type t);

#endif
