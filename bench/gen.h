/*
 * gen.h — ddbpipe-gen: deterministic test data for the single-table designs
 * in formats/ (favorites, movies, facility-capacity).
 *
 * Everything is derived from one seed through a private PRNG: no clock, no
 * rand(), no environment, so a seed always gives the same bytes. Records are
 * built from the design's field names and turned into items by
 * ddb_transform_encode(), so generated items are exactly what the mapping
 * describes.
 */
#ifndef DDBPIPE_GEN_H
#define DDBPIPE_GEN_H

#include <stddef.h>
#include <stdint.h>

#include "ddbpipe/arena.h"
#include "ddbpipe/buf.h"
#include "ddbpipe/error.h"
#include "ddbpipe/mapping.h"
#include "ddbpipe/generate.h"
#include "ddbpipe/rng.h"
#include "ddbpipe/transform.h"
#include "ddbpipe/value.h"

/* ------------------------------------------------------------------ PRNG */

/* The engine's xoshiro256** (rng.h): the same sequence for the same seed. */
typedef ddb_rng gen_rng;

#define gen_rng_seed ddb_rng_seed
#define gen_rng_next ddb_rng_next
#define gen_rng_below ddb_rng_below
/* Uniform in [lo, hi]. */
int64_t gen_rng_range(gen_rng *r, int64_t lo, int64_t hi);
/* 1 with probability percent/100. */
int gen_rng_chance(gen_rng *r, unsigned percent);
/* One element of a string pool. */
#define GEN_PICK(r, pool) ((pool)[gen_rng_below((r), sizeof(pool) / sizeof((pool)[0]))])
#define GEN_COUNT(pool) (sizeof(pool) / sizeof((pool)[0]))

/* --------------------------------------------------------- record builder */

#define GEN_MAX_ATTRS 24

/* A record under construction: attribute names are static strings, values
 * point at static pools or at the arena. */
typedef struct gen_rec {
    ddb_arena *a;
    ddb_attr attrs[GEN_MAX_ATTRS];
    size_t count;
} gen_rec;

void gen_rec_init(gen_rec *r, ddb_arena *a);
void gen_rec_put(gen_rec *r, const char *name, ddb_value v);
/* S from a NUL-terminated static string (not copied). */
void gen_rec_s(gen_rec *r, const char *name, const char *s);
/* N from an unsigned integer (text in the arena). */
void gen_rec_n(gen_rec *r, const char *name, uint64_t v);
/* The record as a map pointing at the builder (valid while both are). */
ddb_map gen_rec_map(const gen_rec *r);
/* The record as a map whose attribute array is copied into the arena, so it
 * outlives the builder. Returns 0 or DDB_ENOMEM. */
int gen_rec_detach(ddb_map *out, const gen_rec *r, ddb_error *err);

/* Formats into the arena and returns a value of type t (S or N). Returns a
 * NULL-typed value (type DDB_TYPE_NONE) when the arena is out of memory. */
ddb_value gen_fmt(ddb_arena *a, ddb_type t, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Random bytes as a B value; the first magic_len bytes are magic. */
ddb_value gen_bytes(ddb_arena *a, gen_rng *r, size_t len, const char *magic, size_t magic_len);
/* A set (SS, NS, BS) or L from n values copied into the arena. */
ddb_value gen_list(ddb_arena *a, ddb_type t, const ddb_value *items, size_t n);
/* An M from n attributes copied into the arena. */
ddb_value gen_map(ddb_arena *a, const ddb_attr *attrs, size_t n);

/* Text helpers writing into a caller buffer (NUL-terminated). */
void gen_id_chars(char *out, size_t n, gen_rng *r, const char *alphabet);
void gen_uuid(char out[37], gen_rng *r);
/* Days since 1970-01-01 -> "YYYY-MM-DD" (out >= 11 bytes): generate.h's. */
#define gen_date_from_days ddb_gen_date
/* Epoch milliseconds -> "YYYY-MM-DDTHH:MM:SS.mmmZ" (out >= 25 bytes). */
void gen_iso_ms(char *out, int64_t ms);
/* An N of exactly `digits` significant digits, none of them a trailing zero
 * (the value as DynamoDB would return it). point: digits before the decimal
 * point, or 0 for an integer. */
ddb_value gen_long_number(ddb_arena *a, gen_rng *r, int digits, int point);

/* ------------------------------------------------------------- designs */

/* Called for every record a design produces. Returns 0 to go on, 1 to stop,
 * or a negative ddb_error_code to abort. The record is only valid during the
 * call. After each complete collection (a user, a movie with its cast, a
 * facility) it is called once with e and rec NULL, so a caller can stop at a
 * collection boundary. */
typedef int (*gen_emit_fn)(void *ctx, const ddb_entity *e, const ddb_map *rec, ddb_error *err);

typedef struct gen_design gen_design;

typedef struct gen_design_vtable {
    const char *name;
    /* Produces record collections (a user, a movie, a facility...) until
     * emit asks to stop. Returns 0 when stopped, or a negative code. */
    int (*run)(gen_design *d, gen_emit_fn emit, void *ctx, ddb_error *err);
    /* An item that is valid DynamoDB but matches none of the entities. */
    int (*unmatched)(gen_design *d, ddb_item *out, ddb_arena *a, ddb_error *err);
    void (*free)(gen_design *d);
} gen_design_vtable;

struct gen_design {
    const gen_design_vtable *vt;
    const ddb_mapping *m;
    gen_rng rng;
    int extras;           /* add a few undeclared attributes (not in seed CSVs) */
    int rich;             /* every item carries undeclared nested attributes, sets, binary
                           * and 38-digit numbers, as real tables do (favorites only) */
    uint64_t serial_base; /* first serial for counter-based ids (movies, facilities), so
                           * two designs over one mapping do not repeat keys */
    ddb_arena *scratch;   /* records are built here; reset before each record */
};

/* "favorites", "movies", "facility-capacity". */
int gen_design_new(gen_design **out, const char *name, const ddb_mapping *m, uint64_t seed,
                   int extras, ddb_error *err);
void gen_design_free(gen_design *d);
const char *gen_design_names(void);

/* Design constructors (gen_favorites.c, gen_movies.c, gen_facility.c). */
int gen_favorites_new(gen_design **out, const ddb_mapping *m, ddb_error *err);
int gen_movies_new(gen_design **out, const ddb_mapping *m, ddb_error *err);
int gen_facility_new(gen_design **out, const ddb_mapping *m, ddb_error *err);

/* Looks up an entity the design needs; DDB_EUSAGE naming it when absent. */
int gen_entity(const ddb_entity **out, const ddb_mapping *m, const char *name, ddb_error *err);

/* Encodes a record into an item (typed values) with the reason on failure. */
int gen_encode(ddb_item *out, const ddb_mapping *m, const ddb_entity *e, const ddb_map *rec,
               ddb_arena *a, ddb_error *err);

/* ------------------------------------------------------------ commands */

int gen_cmd_export(int argc, char **argv);
int gen_cmd_seed_csv(int argc, char **argv);
int gen_cmd_bench(int argc, char **argv);
int gen_cmd_repeat_export(int argc, char **argv);

/* Shared option helpers (gen.c). */
typedef struct gen_opt {
    const char *name;   /* "--items" */
    const char **value; /* receives the argument ("1" for a flag) */
    int flag;           /* takes no argument */
} gen_opt;

/* Parses "--name value" / "--name=value" pairs. Returns 0, 1 when --help
 * was asked (usage printed to stdout), or 2 after printing a usage error. */
int gen_parse_opts(int argc, char **argv, const gen_opt *opts, size_t n, const char *usage);
/* Decimal digits, with K/M/G/T (powers of 1024) when allow_suffix. 0 or -1. */
int gen_parse_u64(uint64_t *out, const char *s, int allow_suffix);
/* The design to use: --design, else the mapping file's base name. */
const char *gen_pick_design(const char *design, const char *mapping_path);
/* Prints "ddbpipe-gen: <message>" to stderr. */
void gen_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Creates a directory and its parents (mkdir -p). Returns 0 or DDB_EIO. */
int gen_mkdirs(const char *path, ddb_error *err);
/* An export's folder OUT/AWSDynamoDB/ID into dir (the caller's, empty);
 * DDB_EUSAGE when it exists already (gen_export.c). */
int gen_export_dir(ddb_buf *dir, const char *out, const char *id, ddb_error *err);
/* Makes dir/data/ and the empty dir/_started, as AWS starts an export. */
int gen_export_dir_make(const char *dir, ddb_error *err);
/* The MD5 of a whole file (gen_export.c). Returns 0 or a read error. */
int gen_md5_file(unsigned char digest[16], const char *path, ddb_error *err);
/* Writes DIR/NAME.json and its DIR/NAME.md5 sibling (the base64 MD5, no
 * newline), as an export's manifests are stored (gen_export.c). */
int gen_write_with_md5(const char *dir, const char *name, const ddb_buf *content, ddb_error *err);
/* Writes len bytes to path (whole file, not atomic). */
int gen_write_file(const char *path, const void *data, size_t len, ddb_error *err);

#endif
