/*
 * transform_memo.h (private header of transform/) — shapes known to round-trip (transform_memo.c), for the
 * round-trip check in transform.c.
 */
#ifndef DDBPIPE_TRANSFORM_MEMO_H
#define DDBPIPE_TRANSFORM_MEMO_H

#include "ddbpipe/transform.h"

/* Does item (of shape sh), decoded as d, have names and types that
 * round-tripped before, with values re-encoding takes unchanged? 0 when sh
 * is NULL. */
int ddb_roundtrip_memo_known(const ddb_shape *sh, const ddb_decoded *d, const ddb_item *item);

/* Remembers with sh the types of item, which (decoded as d) just
 * round-tripped, when its verdict cannot depend on values; otherwise does
 * nothing. */
void ddb_roundtrip_memo_learn(ddb_shape *sh, const ddb_decoded *d, const ddb_item *item);

#endif
