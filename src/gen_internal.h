/*
 * gen_internal.h (internal) — the parts of the generator: strings from a
 * regular expression (gen_pattern.c) and the value makers of single fields
 * (gen_value.c), used by the planner (generate.c).
 */
#ifndef DDBPIPE_GEN_INTERNAL_H
#define DDBPIPE_GEN_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "ddbpipe/arena.h"
#include "ddbpipe/buf.h"
#include "ddbpipe/generate.h"
#include "ddbpipe/mapping.h"
#include "ddbpipe/rng.h"

/* Counts at or above this are "as many as needed": they stand for domains
 * too large to count exactly. */
#define GEN_UNBOUNDED UINT64_MAX

/* ------------------------------------------------------------- patterns */

typedef struct gen_pattern gen_pattern;

/*
 * Compiles the subset of POSIX extended regular expressions that values can
 * be made from: literals, ".", bracket expressions with ranges and
 * [:classes:], groups, "|", and the quantifiers ? * + {n} {n,} {n,m}
 * (unbounded ones stop 8 past their minimum); ^ and $ at the ends. Anything
 * else (back-references, \b, collating elements, a multi-byte character in
 * brackets) fails with the reason in why. Returns 0, DDB_EUSAGE, DDB_ENOMEM.
 */
int gen_pattern_compile(gen_pattern **out, const char *re, char *why, size_t why_cap);
void gen_pattern_free(gen_pattern *p);

/* How many distinct strings the pattern spells (GEN_UNBOUNDED when more
 * than fit in 64 bits). */
uint64_t gen_pattern_size(const gen_pattern *p);

/* The k-th string (k < size): distinct k give distinct strings unless the
 * expression itself is ambiguous ("a|a"). Appended to out. */
int gen_pattern_nth(const gen_pattern *p, uint64_t k, ddb_buf *out);

/* A random string: branches weighted by their size, repetition counts
 * uniform. Appended to out. */
int gen_pattern_random(const gen_pattern *p, ddb_rng *r, ddb_buf *out);

/* --------------------------------------------------------- field values */

typedef struct gen_field gen_field;

/*
 * How one field's values are made, chosen from (in this order) its
 * "generate" property, enum, format, pattern, and else its type and name
 * (an epoch time for createTime, a URL for contentUrl, a city for city...).
 * Fails with DDB_EUSAGE naming the entity and field when no value can be
 * made (a pattern outside the supported subset, with no "generate").
 */
int gen_field_new(gen_field **out, const ddb_entity *e, size_t field, ddb_error *err);
void gen_field_free(gen_field *g);

/* Distinct values it can make (GEN_UNBOUNDED: as many as wanted). */
uint64_t gen_field_size(const gen_field *g);

/* Share of records that leave the field out ("absent"). */
double gen_field_absent(const gen_field *g);

/* The "distinct" of the field's "generate", or 0. */
uint64_t gen_field_distinct(const gen_field *g);

/*
 * The k-th distinct value (k < size), in an order chosen by key: distinct k
 * give distinct values for the same key. For key fields that must not
 * repeat. Memory from a.
 */
int gen_field_nth(const gen_field *g, uint64_t k, uint64_t key, ddb_value *out, ddb_arena *a);

/*
 * A random value. place (the same for every field of one record) keeps
 * related fields such as country, region, city and timezone consistent.
 */
int gen_field_random(const gen_field *g, ddb_rng *r, uint64_t place, ddb_value *out, ddb_arena *a);

#endif
