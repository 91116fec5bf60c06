/*
 * parquet_thrift.h (private header of write/) — the Thrift compact protocol,
 * write side only, as much of it as a Parquet footer and page header need:
 * structs, lists, i32/i64, binary and bool fields.
 */
#ifndef DDBPIPE_WRITE_PARQUET_THRIFT_H
#define DDBPIPE_WRITE_PARQUET_THRIFT_H

#include <stddef.h>
#include <stdint.h>

#include "ddbpipe/buf.h"

/* Compact protocol type codes (thrift-compact-protocol.md). */
enum {
    PQ_T_TRUE = 1,
    PQ_T_FALSE = 2,
    PQ_T_I32 = 5,
    PQ_T_I64 = 6,
    PQ_T_BINARY = 8,
    PQ_T_LIST = 9,
    PQ_T_STRUCT = 12
};

/* Nesting deeper than a Parquet footer needs (FileMetaData > RowGroup >
 * ColumnChunk > ColumnMetaData > Statistics is 5) is a programming error. */
#define PQ_THRIFT_DEPTH 8

/* An encoder appending to b: field ids are written as deltas from the
 * previous field of the same struct, so each open struct keeps its last id. */
typedef struct pq_thrift {
    ddb_buf *b;
    int16_t last[PQ_THRIFT_DEPTH];
    int depth;
} pq_thrift;

/* Starts encoding the outermost struct into b (its fields follow, then
 * pq_thrift_end). */
void pq_thrift_init(pq_thrift *t, ddb_buf *b);

/* Unsigned LEB128 varint (also the RLE run headers of Parquet levels). */
void pq_put_uvarint(ddb_buf *b, uint64_t v);

void pq_thrift_i32(pq_thrift *t, int16_t id, int32_t v);
void pq_thrift_i64(pq_thrift *t, int16_t id, int64_t v);
void pq_thrift_binary(pq_thrift *t, int16_t id, const void *p, size_t n);
void pq_thrift_string(pq_thrift *t, int16_t id, const char *s);
void pq_thrift_bool(pq_thrift *t, int16_t id, int v);
/* A struct field: its fields follow, then pq_thrift_end. */
void pq_thrift_struct(pq_thrift *t, int16_t id);
/* Ends the innermost open struct (a stop byte). */
void pq_thrift_end(pq_thrift *t);
/* A list field of n elements of type elem; elements follow, each written by
 * pq_thrift_elem_* (or pq_thrift_elem_struct ... pq_thrift_end). */
void pq_thrift_list(pq_thrift *t, int16_t id, int elem, size_t n);
void pq_thrift_elem_i32(pq_thrift *t, int32_t v);
void pq_thrift_elem_binary(pq_thrift *t, const void *p, size_t n);
void pq_thrift_elem_struct(pq_thrift *t);

#endif
