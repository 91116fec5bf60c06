/* reader_internal.h — shared plumbing for the record readers. */
#ifndef DDBPIPE_READER_INTERNAL_H
#define DDBPIPE_READER_INTERNAL_H

#include "ddbpipe/reader.h"

/* Fills the common part of a reader: vtable, a copy of name, the format, and
 * the entity hint (opts->entity, else from the file name) stored in *hint_out
 * (malloc'd, may be NULL). Returns 0 or DDB_ENOMEM. */
int ddb_reader_base_init(ddb_reader *r, const ddb_reader_vtable *vt, const char *name,
                         ddb_input_format format, char **hint_out, const ddb_reader_opts *opts);

#endif
