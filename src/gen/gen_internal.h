/*
 * gen_internal.h (private header of gen/) — the parts of the generator: strings from a
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

/* ---------------------------------------------------- text (gen_text.c) */

/* What a field's name says its text is. */
enum {
    GEN_T_ID,
    GEN_T_EMAIL,
    GEN_T_URL,
    GEN_T_PHONE,
    GEN_T_PERSON,
    GEN_T_LABEL,
    GEN_T_TITLE,
    GEN_T_SENTENCE,
    GEN_T_COUNTRY,
    GEN_T_REGION,
    GEN_T_CITY,
    GEN_T_TZ,
    GEN_T_WORD,
    GEN_T_GENERIC
};

#define GEN_ID_LEN 10
#define GEN_ID_SPACE 3656158440062976ull /* 36^10: identifiers of 10 base-36 digits */

int gen_text_kind(const char *name);

/* Does the name hold the (lower-case) word, in any letter case? */
int gen_name_has(const char *name, const char *word);

/* The name is a point in time's (createTime, updatedAt, ts...). */
int gen_name_is_time(const char *name);

/* The range (lo..hi in units of 10^-scale) a number field's name suggests. */
void gen_number_range(const char *name, int64_t *lo, int64_t *hi, int *scale);

int64_t gen_pow10(int n);

/* Text forms: v / 10^scale without trailing zeros; "YYYY-MM-DDTHH:MM:SSZ"
 * (out >= 24); "YYYY-MM" of months since year 0 (out >= 8); 10 base-36
 * digits (out >= 11); a UUID (out >= 37) in which distinct x stay distinct
 * (fill gives the other bits). */
void gen_number_text(char *out, size_t cap, int64_t v, int scale);
void gen_datetime_text(char *out, int64_t secs);
void gen_month_text(char *out, int64_t months);
void gen_id_text(char *out, uint64_t v);
void gen_uuid_text(char *out, uint64_t x, uint64_t fill);

/* Random text of a kind (GEN_T_*); place picks the place for GEN_T_COUNTRY,
 * REGION, CITY and TZ, so one record's are consistent. Appended to b. */
void gen_random_text(ddb_buf *b, int kind, ddb_rng *r, uint64_t place);

#endif
