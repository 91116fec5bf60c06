/*
 * spill_codec.h (private header of write/) — the spill file of a CSV without a
 * mapping (writer_union.c): its rows already as CSV, waiting for the header.
 *
 * A spill is written and read back by the same run (or its --resume), so its
 * form only has to be exact and cheap to replay: every cell is stored as the
 * bytes it will have in the CSV (escaped, quoted), tagged with its column, so
 * the replay lays cells out and copies them, and formats nothing.
 *
 * The file starts with DDB_SPILL_MAGIC; then frames: a 4-byte little-endian
 * body length and the body, a kind byte and its fields (n: LEB128):
 *   'C' name-len name              a new column (the next index)
 *   'T' col type-byte              column col's type (its first non-NULL value's)
 *   'D' k line-len line extra      a row whose cells are columns 0..k-1, each
 *                                  followed by the delimiter
 *   'S' n (col len cell)* extra    any other row: n cells, columns ascending
 *   extra = len bytes              the _extra cell, empty when none
 * A resumed run learns the columns again from the 'C' and 'T' frames.
 */
#ifndef DDBPIPE_SPILL_CODEC_H
#define DDBPIPE_SPILL_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "ddbpipe/buf.h"
#include "ddbpipe/error.h"
#include "ddbpipe/source.h"
#include "ddbpipe/value.h"

#define DDB_SPILL_MAGIC "ddbpipe-spill 3\n"
#define DDB_SPILL_MAGIC_LEN 16
#define DDB_SPILL_FRAME_HEAD 4

/* One cell of a row: its column and its CSV bytes. */
typedef struct ddb_spill_cell {
    size_t col;
    const char *ptr;
    size_t len;
} ddb_spill_cell;

/* Append a frame (head and body) to b. Return 0 or DDB_ENOMEM (b->oom). */
int ddb_spill_put_column(ddb_buf *b, const char *name, size_t len);
int ddb_spill_put_type(ddb_buf *b, size_t col, ddb_type t);
/* A row of n cells, columns ascending, and its _extra cell (elen 0: none):
 * a 'D' frame when the columns are 0..n-1, else 'S'. */
int ddb_spill_put_row(ddb_buf *b, const ddb_spill_cell *cells, size_t n, const char *extra,
                      size_t elen, char delim);

/* A frame read back: what its kind has; strings point into the body. */
typedef struct ddb_spill_frame {
    char kind;              /* 'C', 'T', 'D', 'S' */
    ddb_str name;           /* C */
    size_t col;             /* T */
    ddb_type type;          /* T */
    size_t k;               /* D: the columns 0..k-1 ... */
    ddb_str line;           /* ... as CSV, each cell followed by the delimiter */
    ddb_spill_cell *cells;  /* S, owned by the frame (reused by the next read) */
    size_t n_cells, cap;
    ddb_str extra;          /* D, S */
} ddb_spill_frame;

/*
 * Reads the body of one frame (without its head) into f. A body that does not
 * decode exactly (an unknown kind, a length past its end, bytes left over, an
 * S row whose columns do not ascend) fails with DDB_EIO and the reason in
 * err; DDB_ENOMEM when f->cells cannot grow.
 */
int ddb_spill_frame_read(ddb_spill_frame *f, const char *body, size_t len, ddb_error *err);
/* Frees f->cells. */
void ddb_spill_frame_dispose(ddb_spill_frame *f);

/*
 * Frames read back from a spill source in order. ddb_spill_reader_next gives
 * the next frame's body (valid until the next call): 0, DDB_ITEROVER at the
 * clean end, DDB_EIO (a missing or foreign magic, a cut frame) naming what
 * and where, or DDB_ENOMEM. The reader owns src and frees it.
 */
typedef struct ddb_spill_reader ddb_spill_reader;
DDB_MUST_USE int ddb_spill_reader_new(ddb_spill_reader **out, ddb_source *src, ddb_error *err);
int ddb_spill_reader_next(ddb_spill_reader *r, const char **body, size_t *len, ddb_error *err);
/* Frames returned so far (for messages). */
uint64_t ddb_spill_reader_count(const ddb_spill_reader *r);
/* Accepts NULL. */
void ddb_spill_reader_free(ddb_spill_reader *r);

#endif
