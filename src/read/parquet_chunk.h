/*
 * parquet_chunk.h (private header of read/) — the Parquet reader's state, shared by
 * reader_parquet.c (the footer and the records) and parquet_chunk.c (a row group's column
 * chunks decoded into levels and values).
 */
#ifndef DDBPIPE_READ_PARQUET_CHUNK_H
#define DDBPIPE_READ_PARQUET_CHUNK_H

#include <stdint.h>
#include <stdio.h>

#include "ddbpipe/json.h"
#include "read/parquet_read.h"
#include "read/reader_internal.h"

enum { PT_BOOLEAN = 0, PT_INT32, PT_INT64, PT_INT96, PT_FLOAT, PT_DOUBLE, PT_BYTES, PT_FLBA };
enum { PQR_NUMBER = 1, PQR_STRING, PQR_BYTES, PQR_BOOL, PQR_JSON };

typedef struct pqr_val {
    const unsigned char *p;
    size_t n;
} pqr_val;

typedef struct pqr_col {
    char *name;
    char *group; /* the STRUCT it is a member of, or NULL */
    int phys, type_length, scale, kind, list;
    int max_def, max_rep, def_list; /* def_list: the level from which a list is there */
    int def_group, in_group;        /* the level from which its group is there; and in this row */
    /* the row group read: its levels and present values, and the cursors */
    uint8_t *defs, *reps;
    pqr_val *vals;
    size_t n_levels, cap_levels, cap_reps, n_vals, cap_vals, lv, vi;
    /* the chunk's dictionary (its values), and a data page's indices into it */
    pqr_val *dict;
    size_t n_dict, cap_dict;
    uint32_t *idx;
    size_t cap_idx;
} pqr_col;

typedef struct pq_reader {
    ddb_reader base;
    FILE *f;
    uint64_t size, consumed;
    ddb_arena *meta; /* the footer's tree */
    pqr_node root;
    const pqr_node *groups;
    size_t group; /* the next row group to read */
    uint64_t group_rows, rows_left, row;
    pqr_col *cols;
    size_t n_cols;
    int whole_items;  /* one JSON column "item" */
    ddb_arena *pages; /* the row group's bytes, reset per group */
    ddb_arena *arena; /* the record's values, reset per record */
    ddb_json_parser *parser;
    ddb_buf scratch;
    ddb_record rec;
    char reason[DDB_ERROR_MAX];
} pq_reader;

/* Reads n bytes at off of the file into buf. Returns 0, or DDB_EIO (past its end, or unreadable)
 * naming the file. */
int pqr_read_at(pq_reader *r, void *buf, uint64_t off, size_t n, ddb_error *err);

/* Refuses what the reader does not read: DDB_EUSAGE saying what, and which column (col NULL:
 * the file). Returns DDB_EUSAGE. */
int pqr_refuse(pq_reader *r, ddb_error *err, const char *what, const char *col);

/* Column c of the row group's chunk cc: every page of it read, decompressed and decoded into
 * c's levels and values (the bytes in r->pages, reset by the caller per row group). Returns 0,
 * DDB_EIO, DDB_EINVAL (damaged), DDB_EUSAGE (refused) or DDB_ENOMEM. */
int pqr_read_chunk(pq_reader *r, pqr_col *c, const pqr_node *cc, ddb_error *err);

#endif
