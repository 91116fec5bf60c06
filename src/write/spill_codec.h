/*
 * spill_codec.h (private header of write/) — records in a spill file, as length-prefixed
 * binary frames instead of DynamoDB JSON text.
 *
 * A spill is written and read back by the same run (or its --resume), so its
 * form only has to be exact and cheap: names, strings and numbers are their
 * own bytes behind a length, with no escaping on the way out and no lexing on
 * the way back, and a read-back record points into the frame it came from.
 *
 * The file starts with DDB_SPILL_MAGIC; then frames: a 4-byte little-endian
 * body length and the body, a map:
 *   map   = count name*            (count: LEB128)
 *   name  = len bytes value
 *   value = type-byte payload      (the ddb_type number)
 *     S, N, B: len bytes     BOOL: one byte 0/1     NULL: nothing
 *     L, SS, NS, BS: count value*     M: map
 */
#ifndef DDBPIPE_SPILL_CODEC_H
#define DDBPIPE_SPILL_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "ddbpipe/arena.h"
#include "ddbpipe/buf.h"
#include "ddbpipe/error.h"
#include "ddbpipe/source.h"
#include "ddbpipe/value.h"

#define DDB_SPILL_MAGIC "ddbpipe-spill 2\n"
#define DDB_SPILL_MAGIC_LEN 16
#define DDB_SPILL_FRAME_HEAD 4

/* Appends rec's frame (head and body) to b. Returns 0 or DDB_ENOMEM (b->oom). */
int ddb_spill_pack(ddb_buf *b, const ddb_map *rec);

/*
 * Reads the body of one frame (without its head) into *out: strings point
 * into body, which must outlive *out; arrays come from a. A body that does not
 * decode to exactly one map, or nests deeper than DynamoDB allows twice over,
 * fails with DDB_EIO and the reason in err. DDB_ENOMEM when a is exhausted.
 */
int ddb_spill_unpack(ddb_map *out, const char *body, size_t len, ddb_arena *a, ddb_error *err);

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
