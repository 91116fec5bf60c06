/*
 * pattern_limits.h (private header of transform/) — the bounds a mapping's
 * regular expression ("pattern", and "generate": {"pattern"}) must keep
 * before anything compiles it. glibc's regcomp has none: it recurses once per
 * nested group (30,000 '(' overflowed the stack), copies a group once per
 * repetition ((a{1000}){1000} is a million copies: gigabytes), and its memory
 * grows with the square of the alternatives.
 */
#ifndef DDBPIPE_PATTERN_LIMITS_H
#define DDBPIPE_PATTERN_LIMITS_H

#include <stddef.h>

#define DDB_PATTERN_MAX_LEN 4096     /* bytes */
#define DDB_PATTERN_MAX_DEPTH 32     /* groups inside groups */
#define DDB_PATTERN_MAX_REPEAT 1000  /* n and m of {n,m} */
#define DDB_PATTERN_MAX_ALTS 256     /* '|' in the whole expression */
#define DDB_PATTERN_MAX_COPIES 10000 /* atoms once every repetition is written out */

/*
 * Checks the POSIX extended regular expression re against the limits above
 * without compiling it. Returns 0 when it keeps them; otherwise -1 with the
 * limit it passes, as a phrase ("groups nest deeper than 32"), in why.
 * Whether re is a valid expression is left to the compiler.
 */
int ddb_pattern_check(const char *re, char *why, size_t why_cap);

#endif
