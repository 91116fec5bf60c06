/*
 * gen_words.h (private header of gen/) — the word lists realistic text is made from: names,
 * words (several scripts, so exports are tested with UTF-8), places whose
 * country, region, city and time zone agree, and domains.
 */
#ifndef DDBPIPE_GEN_WORDS_H
#define DDBPIPE_GEN_WORDS_H

#include <stddef.h>

/* One entry of a list, uniformly. */
#define PICK(r, list, n) ((list)[ddb_rng_below((r), (n))])

typedef struct gen_place {
    const char *country, *region, *city, *timezone;
} gen_place;

extern const char *const gen_first_names[];
extern const size_t gen_n_first_names;
extern const char *const gen_last_names[];
extern const size_t gen_n_last_names;
extern const char *const gen_words[];
extern const size_t gen_n_words;
extern const gen_place gen_places[];
extern const size_t gen_n_places;
extern const char *const gen_domains[];
extern const size_t gen_n_domains;
extern const char *const gen_weekdays[7];
extern const char *const gen_map_keys[];
extern const size_t gen_n_map_keys;

#endif
