/*
 * transform_memo.h — shapes known to round-trip (transform_memo.c), for the
 * round-trip check in transform.c.
 */
#ifndef DDBPIPE_TRANSFORM_MEMO_H
#define DDBPIPE_TRANSFORM_MEMO_H

#include "ddbpipe/transform.h"

/* Does item, decoded as d, have a shape that round-tripped before, with
 * values re-encoding takes unchanged? 0 when memo is NULL. */
int ddb_roundtrip_memo_known(ddb_roundtrip_memo *memo, const ddb_decoded *d, const ddb_item *item);

/* Remembers the shape of item, which (decoded as d) just round-tripped, when
 * its verdict cannot depend on values; otherwise does nothing. */
void ddb_roundtrip_memo_learn(ddb_roundtrip_memo *memo, const ddb_decoded *d, const ddb_item *item);

#endif
