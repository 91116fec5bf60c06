/*
 * csv_cell.h (private header of write/) — a value as the text of one CSV cell, for
 * the CSV writers (writer.c, writer_union.c) and the generators of bench/.
 */
#ifndef DDBPIPE_WRITE_CSV_CELL_H
#define DDBPIPE_WRITE_CSV_CELL_H

#include "ddbpipe/buf.h"
#include "ddbpipe/value.h"

/* Appends the CSV text of one cell (S raw, N text, B base64, BOOL
 * true/false, M/L/sets as plain JSON) without quoting. */
int ddb_csv_cell_text(ddb_buf *b, const ddb_value *v);

/* The cell text of a typed column (name:TYPE): S, N, B, BOOL as above, M/L/sets
 * as the DynamoDB JSON inside their type ({"a":{"S":"x"}}, ["1","2"]), which
 * the CSV reader reads back exactly. */
int ddb_csv_typed_cell_text(ddb_buf *b, const ddb_value *v);

/* Appends v's cell (typed: ddb_csv_typed_cell_text) to line as a CSV field,
 * quoted when it must be, using cell for its text. */
void ddb_csv_put_cell(ddb_buf *line, ddb_buf *cell, const ddb_value *v, char delim, int typed);

/* Appends the "_extra" cell's text, of CSV and of Parquet's _extra column: a
 * JSON object of every attribute of rec not placed in a column (used[i] 0),
 * its values DynamoDB JSON, or plain JSON when plain. Returns the number of
 * attributes in it (0: nothing was appended). */
size_t ddb_csv_extra_text(ddb_buf *b, const ddb_map *rec, const unsigned char *used, int plain);
/* The same as a CSV field appended to line (quoted, its quotes doubled: what
 * ddb_csv_put_field makes of that text), in one pass; nothing when it would
 * be empty. Returns the number of attributes in it. */
size_t ddb_csv_put_extra(ddb_buf *line, const ddb_map *rec, const unsigned char *used, int plain);

#endif
