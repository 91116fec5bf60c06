/*
 * parquet_row.h (private header of write/) — a record's Parquet row made
 * apart from its file: what each column of its entity's file gets, in
 * column order, so worker threads make rows (the JSON of maps, lists and
 * _extra, the STRUCTs' members, the placing) while the writer's thread only
 * copies them into its columns.
 */
#ifndef DDBPIPE_WRITE_PARQUET_ROW_H
#define DDBPIPE_WRITE_PARQUET_ROW_H

#include "ddbpipe/writer.h"
#include "write/parquet.h"

/*
 * Appends to row what the Parquet file of entity e writes for rec
 * (rec->attrs[0..n_declared) its declared fields in field order), using
 * s->used. With f, the file's number columns decide as its writer does: a
 * number a top-level column cannot hold refuses the record
 * (DDB_WRITER_REFUSED, err says why; row then holds part of it), a STRUCT
 * with one goes whole to _extra. Without f (another thread than the
 * writer's) every number is taken to fit: pq_row_write checks them. Returns
 * 0, DDB_WRITER_REFUSED or DDB_ENOMEM.
 */
int pq_row_put(ddb_buf *row, ddb_format_scratch *s, const ddb_entity *e, int extra_plain,
               const ddb_map *rec, size_t n_declared, const pq_file *f, ddb_error *err);

/*
 * Puts the row made by pq_row_put (len bytes at row) into f's current row;
 * check: first see that f's number columns hold its numbers. Returns 0, or
 * 1 (check, a number no longer fits: nothing is put, and the caller writes
 * the record itself, which places or refuses it as the file now decides).
 */
int pq_row_write(pq_file *f, const char *row, size_t len, int check);

/* Appends to row what a Parquet file of items (no entity) with key columns
 * keys[0..n_keys) writes for item: each key attribute's type and bytes, and
 * the item's DynamoDB JSON; the file decides what its key columns hold.
 * Returns 0 or DDB_ENOMEM. */
int pq_item_row_put(ddb_buf *row, const ddb_key_attr *keys, size_t n_keys, const ddb_map *item);

/* Puts the row made by pq_item_row_put into f's current row: a key in its
 * column when its type is the column's (keys[k].type, as the writer settled
 * them), else null. Returns 0, or 1 (a key's number its DECIMAL column
 * cannot hold: nothing is put; the caller writes the item itself). */
int pq_item_row_write(pq_file *f, const ddb_key_attr *keys, size_t n_keys, const char *row,
                      size_t len);

/*
 * ddb_writer_write_line of a Parquet writer (ddb_writer_new_parquet): the
 * row made by ddb_line_format_put into its file, or rec written
 * (ddb_writer_write) when a number column decided since holds a number of
 * it no more as the row put it, or (items) before the first item opened the
 * file. Returns 0,
 * DDB_WRITER_REFUSED, DDB_ENOMEM or the sink's error.
 */
int pq_writer_write_row(ddb_writer *w, const char *row, size_t len, const ddb_map *rec,
                        size_t n_declared, ddb_error *err);

#endif
