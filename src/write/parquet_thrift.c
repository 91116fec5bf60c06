/*
 * The Thrift compact protocol's encoder for the Parquet writer. Errors are
 * the buffer's: an allocation that fails sets b->oom, checked once by the
 * caller when the whole struct is written.
 */
#include "write/parquet_thrift.h"

#include <assert.h>
#include <string.h>

void pq_put_uvarint(ddb_buf *b, uint64_t v)
{
    unsigned char tmp[10];
    size_t n = 0;
    while (v >= 0x80) {
        tmp[n++] = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    tmp[n++] = (unsigned char)v;
    ddb_buf_append(b, tmp, n);
}

/* Zigzag maps small negative numbers to small unsigned ones (-1 -> 1). */
static void put_svarint(ddb_buf *b, int64_t v)
{
    pq_put_uvarint(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

void pq_thrift_init(pq_thrift *t, ddb_buf *b)
{
    t->b = b;
    t->depth = 0;
    t->last[0] = 0;
}

static void field_header(pq_thrift *t, int16_t id, int type)
{
    int delta = id - t->last[t->depth];
    assert(id > 0);
    if (delta > 0 && delta <= 15) {
        ddb_buf_putc(t->b, (char)(delta << 4 | type));
    } else {
        ddb_buf_putc(t->b, (char)type);
        put_svarint(t->b, id);
    }
    t->last[t->depth] = id;
}

void pq_thrift_i32(pq_thrift *t, int16_t id, int32_t v)
{
    field_header(t, id, PQ_T_I32);
    put_svarint(t->b, v);
}

void pq_thrift_i64(pq_thrift *t, int16_t id, int64_t v)
{
    field_header(t, id, PQ_T_I64);
    put_svarint(t->b, v);
}

void pq_thrift_binary(pq_thrift *t, int16_t id, const void *p, size_t n)
{
    field_header(t, id, PQ_T_BINARY);
    pq_thrift_elem_binary(t, p, n);
}

void pq_thrift_string(pq_thrift *t, int16_t id, const char *s)
{
    pq_thrift_binary(t, id, s, strlen(s));
}

void pq_thrift_bool(pq_thrift *t, int16_t id, int v)
{
    /* a bool field's value is its type code */
    field_header(t, id, v ? PQ_T_TRUE : PQ_T_FALSE);
}

static void push(pq_thrift *t)
{
    assert(t->depth + 1 < PQ_THRIFT_DEPTH);
    t->last[++t->depth] = 0;
}

void pq_thrift_struct(pq_thrift *t, int16_t id)
{
    field_header(t, id, PQ_T_STRUCT);
    push(t);
}

void pq_thrift_end(pq_thrift *t)
{
    ddb_buf_putc(t->b, 0);
    if (t->depth > 0)
        t->depth--;
}

void pq_thrift_list(pq_thrift *t, int16_t id, int elem, size_t n)
{
    field_header(t, id, PQ_T_LIST);
    if (n < 15) {
        ddb_buf_putc(t->b, (char)(n << 4 | (size_t)elem));
    } else {
        ddb_buf_putc(t->b, (char)(0xf0 | elem));
        pq_put_uvarint(t->b, n);
    }
}

void pq_thrift_elem_i32(pq_thrift *t, int32_t v)
{
    put_svarint(t->b, v);
}

void pq_thrift_elem_binary(pq_thrift *t, const void *p, size_t n)
{
    pq_put_uvarint(t->b, n);
    ddb_buf_append(t->b, p, n);
}

void pq_thrift_elem_struct(pq_thrift *t)
{
    push(t);
}
