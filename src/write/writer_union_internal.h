/*
 * writer_union_internal.h (private header of write/) — what the two halves
 * of the CSV writer without a mapping share: writer_union.c spools each
 * record as its row (its cells and their columns) and learns the columns;
 * union_layout.c lays rows out under the header, at the end from the spill
 * or as they come.
 */
#ifndef DDBPIPE_WRITE_WRITER_UNION_INTERNAL_H
#define DDBPIPE_WRITE_WRITER_UNION_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "ddbpipe/buf.h"
#include "ddbpipe/sink.h"
#include "ddbpipe/writer.h"
#include "core/name_set.h"
#include "write/spill_codec.h"

#define NO_CELL UINT32_MAX /* in a record's cells: a NULL, which has none */
#define NO_COLUMN SIZE_MAX
#define REPLAY_CHUNK (1u << 18)
/* Rows written as they come (direct_put): the header guessed again at most
 * this many times, and only while the spill to lay out again is this small. */
#define DIRECT_GUESSES 16
#define DIRECT_RELAY_MAX (16u << 20)

typedef struct column {
    ddb_type type; /* the first non-NULL value's; NONE while only NULLs */
    uint64_t seen; /* the last record (u->stamp) that had the column */
} column;

/* Rows laid out under a header (write_header): at the end from the spill,
 * or as they come (union_writer.direct). */
typedef struct layout {
    size_t *pos;             /* per column its place in the header, or NO_COLUMN */
    size_t n_cols;           /* the columns pos knows: those there were at the header */
    size_t n;                /* columns in the header */
    size_t n_lead;           /* the first columns, each in the header at its own place */
    ddb_buf out;             /* rows not yet sent */
    ddb_sink_behind *behind; /* writes the sink on a thread of its own, or NULL */
} layout;

typedef struct union_writer {
    ddb_writer base; /* base.sink: the CSV file */
    ddb_writer_opts opts;
    char delim;
    ddb_sink *spill;
    char *spill_path;
    int keep_spill;
    int replayed; /* the header and the rows are in the sink, prepared */
    /* Rows written into the CSV as they come, under the header of the
     * columns the first record gave, for as long as no column gets its
     * type later (which would change the header): then the CSV is emptied
     * (ddb_sink_rewind) and laid out from the spill at the end as before. */
    layout *direct;    /* NULL: not (or no longer) written as they come */
    uint64_t typed;    /* columns given a type so far */
    uint64_t typed_at; /* ... when the header was written */
    unsigned guesses;  /* headers given up */
    ddb_name_set cols; /* the attribute names seen, in order: the columns */
    column *col;
    size_t col_cap;
    size_t extra_col; /* the column named like _extra (never a column), or NO_COLUMN */
    uint64_t stamp;
    uint64_t frame_no; /* of the spill being read, for messages */
    /* per record */
    ddb_spill_cell *cells;
    size_t cells_cap;
    ddb_buf made;  /* its cells, when no thread made them */
    ddb_buf frame; /* its frames */
    ddb_buf extra; /* its _extra cell */
    ddb_format_scratch s;
} union_writer;

/* Tests clear this to make every CSV from the spill at the end. */
extern int ddb_csv_union_direct;

/* A damaged spill: what is wrong, and where. Returns DDB_EIO. */
int union_damaged(const union_writer *u, ddb_error *err, const char *why);
/* Calls fn for every frame in the spill file. */
int union_replay(union_writer *u,
                 int (*fn)(union_writer *u, void *ctx, const ddb_spill_frame *f, ddb_error *err),
                 void *ctx, ddb_error *err);

/* The record just spooled (its n cells in u->cells, _extra in u->extra) as a
 * row of the CSV too, while the header stays what it was (union_layout.c). */
int union_direct_put(union_writer *u, size_t n, ddb_error *err);
/* The header and every row into the CSV sink, then ddb_sink_prepare. */
int union_lay_out_all(union_writer *u, ddb_error *err);
/* Frees a layout and what it holds. Accepts NULL. */
void union_layout_free(layout *l);

#endif
