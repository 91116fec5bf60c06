/*
 * gen_spec.h (private header of transform/) — the "generate" property of a mapping field: parsed
 * and checked when the mapping is loaded, so a mistake is reported with the
 * mapping's file and JSON path like every other mapping error.
 */
#ifndef DDBPIPE_GEN_SPEC_H
#define DDBPIPE_GEN_SPEC_H

#include <json-c/json.h>

#include "ddbpipe/mapping.h"

/*
 * Parses obj (the value of "generate") for field f, whose type, enum, format
 * and pattern are already loaded. Errors are DDB_EUSAGE with "mapping NAME:
 * PATH.generate: reason". *out owned by the caller (ddb_gen_spec_free).
 */
int ddb_gen_spec_parse(ddb_gen_spec **out, json_object *obj, const ddb_field *f,
                       const char *mapping_name, const char *path, ddb_error *err);

/* Days since 1970-01-01 of "YYYY-MM-DD", or seconds since the epoch (UTC)
 * of "YYYY-MM-DDTHH:MM[:SS][Z]"; 0 when the text is neither. */
int ddb_gen_parse_date(const char *s, int64_t *days);
int ddb_gen_parse_datetime(const char *s, int64_t *seconds);

#endif
