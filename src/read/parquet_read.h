/*
 * parquet_read.h (private header of read/) — what the Parquet reader
 * (reader_parquet.c) needs of the format: the Thrift compact protocol read
 * into a small tree, and the RLE/bit-packed hybrid levels.
 */
#ifndef DDBPIPE_READ_PARQUET_READ_H
#define DDBPIPE_READ_PARQUET_READ_H

#include <stddef.h>
#include <stdint.h>

#include "ddbpipe/arena.h"
#include "ddbpipe/error.h"

/* A Thrift value: a struct's fields or a list's elements are its kids (a
 * field's id in its own node), numbers in i, binaries in p/len. Only a struct
 * or a list has kids (n of them): a damaged file whose field has another type
 * than expected reads as an empty struct or list, never as kids that are not. */
typedef struct pqr_node {
    int type; /* the compact protocol's type code; a bool field's is 1 (true) or 2 */
    int16_t id;
    int64_t i;
    const unsigned char *p;
    size_t len; /* binary */
    size_t n;   /* struct, list: the number of kids */
    struct pqr_node *kids;
} pqr_node;

/* Reads one struct from p[0, n) into *out (nodes in arena a; binaries point
 * into p). *used is the bytes it took. Returns 0 or DDB_EINVAL (cut short,
 * too deep, unknown type) with the reason. */
int pqr_thrift_struct(pqr_node *out, const unsigned char *p, size_t n, size_t *used, ddb_arena *a,
                      ddb_error *err);

/* The field id of a struct node, or NULL. */
const pqr_node *pqr_field(const pqr_node *s, int16_t id);
/* Its integer (a bool field: 1 or 0), or def when it is absent. */
int64_t pqr_int(const pqr_node *s, int16_t id, int64_t def);

/* Decodes count levels of bit width (0..8) from the RLE/bit-packed hybrid
 * in p[0, n) into out. Returns 0 or DDB_EINVAL when the runs end early. */
int pqr_rle_decode(uint8_t *out, size_t count, const unsigned char *p, size_t n, int width);

/* The same for count dictionary indices of bit width 0..32. */
int pqr_rle_decode_indices(uint32_t *out, size_t count, const unsigned char *p, size_t n,
                           int width);

#endif
