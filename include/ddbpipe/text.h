/*
 * text.h — small text helpers for messages that help: the edit distance
 * behind "did you mean ...?".
 */
#ifndef DDBPIPE_TEXT_H
#define DDBPIPE_TEXT_H

#include <stddef.h>

/* Levenshtein distance of two NUL-terminated strings, bytewise; names of 63
 * bytes or more count as far from everything (99). */
size_t ddb_text_distance(const char *a, const char *b);

/* Of the n candidates, the one nearest to word within max_distance edits, or
 * NULL. Ties go to the first. */
const char *ddb_text_nearest(const char *word, const char *const *candidates, size_t n,
                             size_t max_distance);

#endif
