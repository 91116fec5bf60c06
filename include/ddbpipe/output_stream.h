/*
 * output_stream.h — every item as one DynamoDB JSON line ({"Item":{...}}) on
 * a single sink, standard output for instance, so one command's items can
 * feed another: `ddbpipe generate ... --out - | ddbpipe import - --table T`.
 */
#ifndef DDBPIPE_OUTPUT_STREAM_H
#define DDBPIPE_OUTPUT_STREAM_H

#include "ddbpipe/sink.h"
#include "ddbpipe/output.h"

/*
 * An output writing the items it is given to sink, which it owns from now on, even on failure.
 * finish() finishes the sink. Checkpoints are refused: a stream cannot be cut back and resumed.
 * Returns 0 or DDB_ENOMEM.
 */
int ddb_stream_output_new(ddb_output **out, ddb_sink *sink, ddb_error *err);

#endif
