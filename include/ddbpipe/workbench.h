/*
 * workbench.h — a mapping drafted from a NoSQL Workbench data model, the
 * shortest way from a single-table design to a mapping ddbpipe can use.
 *
 * A model (the JSON file Workbench exports: "DataModel": [{"TableName",
 * "KeyAttributes", "NonKeyAttributes", "GlobalSecondaryIndexes",
 * "TableFacets", "TableData"}]) names the table's keys and indexes, and each
 * facet (an access pattern, usually one entity) its key aliases and
 * attributes, with sample items. The draft takes the table from the model;
 * one entity per facet; key templates from the facet's key aliases when they
 * are templates ("USER#<id>", "USER#{id}"), else from the facet's sample
 * items (literal segments that every item shares, fields for the parts that
 * vary, reusing a field or a stored attribute whose values a part repeats);
 * fields from the facet's attributes; and an entity-type attribute when one
 * names each facet's items. It is a starting point: the notes say what was
 * guessed, and the draft is checked against the model's own items.
 */
#ifndef DDBPIPE_WORKBENCH_H
#define DDBPIPE_WORKBENCH_H

#include "ddbpipe/buf.h"
#include "ddbpipe/error.h"

/*
 * Drafts a mapping for table (NULL: the model's only table) of the model at
 * model_path. The mapping (JSON text, loadable as it is) is appended to
 * mapping; notes gets one line per thing worth a look (what was guessed, and
 * how many of the model's sample items decode and encode back exactly).
 * Returns 0; DDB_ENOTFOUND/DDB_EIO for the file; DDB_EUSAGE when it is not a
 * model, names no such table, or holds several and none was chosen;
 * DDB_ENOMEM.
 */
DDB_MUST_USE int ddb_workbench_draft_mapping(ddb_buf *mapping, ddb_buf *notes,
                                             const char *model_path, const char *table,
                                             ddb_error *err);

#endif
