/*
 * generate.h — realistic records for every entity of a mapping, made from
 * nothing but the mapping, the counts and a seed.
 *
 * Every record is a pure function of (seed, entity, index): nothing is kept
 * in memory between records, any record can be made again on its own, and
 * the same seed gives the same records on every machine. Records are
 * consistent across entities: an entity whose fields include every table-key
 * field of another entity (FavoriteDataTag has userId, dataId and tagId: the
 * keys of FavoriteData and Tag) is a child of it, and each child record takes
 * those fields (and any other field of the same name and type) from existing
 * parent records; parents that share fields (userId) are picked with the same
 * values. Root entities that keep several items per partition draw their
 * partition fields from a shared pool, so Tags and FavoriteData belong to the
 * same users.
 *
 * Values honour each field's type, enum, format, pattern and pad, and an
 * optional "generate" property in the mapping (formats/README.md):
 *   "generate": {"range": [1, 100], "distribution": "normal"}
 *   "generate": {"oneOf": ["a", "b"], "weights": [3, 1]}
 *   "generate": {"pattern": "wxid_[a-z0-9]{14}", "distinct": 1000, "absent": 0.1}
 * Every record is encoded with the mapping and decoded back before it is
 * handed out; a record that would not come back identical is made again from
 * the next random stream, so what comes out always round-trips.
 */
#ifndef DDBPIPE_GENERATE_H
#define DDBPIPE_GENERATE_H

#include <stddef.h>
#include <stdint.h>

#include "ddbpipe/arena.h"
#include "ddbpipe/buf.h"
#include "ddbpipe/error.h"
#include "ddbpipe/mapping.h"
#include "ddbpipe/reader.h"

/* ------------------------------------------------------------- generator */

typedef struct ddb_generator ddb_generator;

/* How many records of an entity to make, by name; entity NULL: of every
 * entity not named otherwise. */
typedef struct ddb_gen_count {
    const char *entity;
    uint64_t n;
} ddb_gen_count;

/*
 * The counts of m's entities (counts[i] for m->entities[i]; m->n_entities of
 * them) from a list by name. Returns 0, or DDB_EUSAGE when a name is not an
 * entity of m.
 */
int ddb_generator_counts(uint64_t *counts, const ddb_mapping *m, const ddb_gen_count *list,
                         size_t n, ddb_error *err);

/*
 * Plans the records: which entities refer to which, the partition pools,
 * and how each field's values are made. counts[i] is the number of records
 * of m->entities[i]. The mapping must outlive the generator. Fails with
 * DDB_EUSAGE and an explanation when the counts cannot be met (a child with
 * more records than distinct combinations of its parents, a weekday key with
 * more than 7 records per partition, a parent without records...) or a
 * field's values cannot be made (a pattern this generator cannot produce).
 * *out owned by the caller (ddb_generator_free).
 */
int ddb_generator_new(ddb_generator **out, const ddb_mapping *m, const uint64_t *counts,
                      uint64_t seed, ddb_error *err);

void ddb_generator_free(ddb_generator *g);

/* Records in all (the sum of the counts). */
uint64_t ddb_generator_total(const ddb_generator *g);

/* Records of one entity (its count). */
uint64_t ddb_generator_count(const ddb_generator *g, size_t entity);

/* The mapping the generator was planned for. */
const ddb_mapping *ddb_generator_mapping(const ddb_generator *g);

/*
 * Record `index` of entity `entity` (both in range): its fields in declared
 * order (absent ones left out) in *record, and the item it encodes to in
 * *item (either may be NULL). Memory comes from a (reset it between records).
 * Returns 0, DDB_EINVAL when no random stream gave a record that round-trips
 * (err says why), DDB_ENOMEM.
 */
int ddb_generator_record(const ddb_generator *g, size_t entity, uint64_t index, ddb_map *record,
                         ddb_item *item, ddb_arena *a, ddb_error *err);

/* The plan in words, one line per entity (parents, pools, counts), appended. */
void ddb_generator_describe(const ddb_generator *g, ddb_buf *out);

/*
 * A reader over the generated items, entity by entity in mapping order: each
 * record typed, source "generate", pos its number in the whole run (skip_to
 * jumps there at no cost, so --resume works). A
 * record that cannot be made is a DDB_REC_BAD record with the reason. g is
 * borrowed and must outlive the reader.
 */
int ddb_reader_new_generator(ddb_reader **out, const ddb_generator *g, ddb_error *err);

/* ---------------------------------------------------------- text helpers */

/* A version-4 UUID text from 128 bits (out >= 37). */
void ddb_gen_uuid(char *out, uint64_t hi, uint64_t lo);

#endif
