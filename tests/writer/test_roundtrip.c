/*
 * test_roundtrip.c — items decoded into records, written as CSV / NDJSON,
 * read back with the CSV / NDJSON readers and encoded again give the same
 * items as encoding the original records directly (and as the originals).
 */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "ddbpipe/reader.h"
#include "ddbpipe/transform.h"
#include "ddbpipe/writer.h"
#include "ddbpipe/sink.h"
#include "support/outputs.h"
#include "support/readers.h"
#include "support/testutil.h"

static ddb_mapping *mov, *fav2;
static ddb_arena *a;

static void setup(void)
{
    mov = tu_load_fixture("movies-gsi3.json");
    fav2 = tu_load_format("favorites-v2.json");
    cr_assert_eq(ddb_arena_new(&a, 0), 0);
}

static void teardown(void)
{
    ddb_mapping_free(mov);
    ddb_mapping_free(fav2);
    ddb_arena_free(a);
}

TestSuite(roundtrip, .init = setup, .fini = teardown);

#define MOVIE_FULL                                                                                 \
    "{\"pk\":{\"S\":\"mov#m1\"},\"sk\":{\"S\":\"mov#m1\"},\"gsi1pk\":{\"S\":\"mov#m1\"},"          \
    "\"gsi1sk\":{\"S\":\"mov#m1\"},\"title\":{\"S\":\"Heat, \\\"the\\\"\\nfilm\"},"                \
    "\"releaseYear\":{\"N\":\"1995\"},\"runtimeMinutes\":{\"N\":\"170.50\"},"                      \
    "\"budget\":{\"N\":\"12345678901234567890123456789012345678\"},"                               \
    "\"genres\":{\"SS\":[\"crime\",\"drama\"]},"                                                   \
    "\"ratings\":{\"M\":{\"imdb\":{\"N\":\"8.3\"},\"src\":{\"S\":\"x,y\"},\"ok\":{\"BOOL\":true}," \
    "\"none\":{\"NULL\":true},\"list\":{\"L\":[{\"N\":\"1\"},{\"S\":\"a\"}]}}},"                   \
    "\"poster\":{\"B\":\"AAH/iVBO\"},\"released\":{\"BOOL\":true},"                                \
    "\"legacy\":{\"NS\":[\"1\",\"2\"]},\"blob\":{\"B\":\"AQID\"},\"emptyish\":{\"S\":\"\"},"       \
    "\"nul\":{\"NULL\":true},\"we\\\"ird,name\":{\"SS\":[\"p\",\"q\"]}}"

#define MOVIE_SPARSE                                                                               \
    "{\"pk\":{\"S\":\"mov#m2\"},\"sk\":{\"S\":\"mov#m2\"},\"gsi1pk\":{\"S\":\"mov#m2\"},"          \
    "\"gsi1sk\":{\"S\":\"mov#m2\"},\"title\":{\"S\":\" padded \"},\"released\":{\"NULL\":true},"   \
    "\"ratings\":{\"M\":{}},\"genres\":{\"SS\":[\"\"]}}"

#define MOVIE_EMPTY_TITLE                                                                          \
    "{\"pk\":{\"S\":\"mov#m3\"},\"sk\":{\"S\":\"mov#m3\"},\"gsi1pk\":{\"S\":\"mov#m3\"},"          \
    "\"gsi1sk\":{\"S\":\"mov#m3\"},\"title\":{\"S\":\"\"}}"

#define ACTOR_FULL                                                                                 \
    "{\"pk\":{\"S\":\"act#a1\"},\"sk\":{\"S\":\"act#a1\"},\"gsi1pk\":{\"S\":\"act#a1\"},"          \
    "\"gsi1sk\":{\"S\":\"act#a1\"},\"gsi3pk\":{\"S\":\"born#US\"},"                                \
    "\"gsi3sk\":{\"S\":\"CA#Los Angeles#a1\"},\"name\":{\"S\":\"Ann\"},"                           \
    "\"birthDate\":{\"S\":\"1970-01-02\"},\"birthCountry\":{\"S\":\"US\"},"                        \
    "\"birthRegion\":{\"S\":\"CA\"},\"birthCity\":{\"S\":\"Los Angeles\"},"                        \
    "\"awardYears\":{\"NS\":[\"1999\",\"2004\"]},"                                                 \
    "\"aliases\":{\"L\":[{\"S\":\"x\"},{\"N\":\"2\"},{\"BOOL\":false},{\"NULL\":true},"            \
    "{\"M\":{\"k\":{\"S\":\"v\"}}},{\"L\":[]}]},"                                                  \
    "\"signature\":{\"BS\":[\"AAH/\",\"AQ==\"]}}"

#define ACTOR_SPARSE                                                                               \
    "{\"pk\":{\"S\":\"act#a2\"},\"sk\":{\"S\":\"act#a2\"},\"gsi1pk\":{\"S\":\"act#a2\"},"          \
    "\"gsi1sk\":{\"S\":\"act#a2\"},\"name\":{\"S\":\"Bob\"}}"

#define CAST                                                                                       \
    "{\"pk\":{\"S\":\"mov#m1\"},\"sk\":{\"S\":\"act#a1\"},\"gsi1pk\":{\"S\":\"act#a1\"},"          \
    "\"gsi1sk\":{\"S\":\"mov#m1\"},\"character\":{\"S\":\"\"},\"billing\":{\"N\":\"1\"}}"

#define STREAMS                                                                                    \
    "{\"pk\":{\"S\":\"mov#m1\"},\"sk\":{\"S\":\"streams#2024-01\"},"                               \
    "\"gsi2pk\":{\"S\":\"streams#2024-01\"},\"gsi2sk\":{\"S\":\"000000000123456#m1\"},"            \
    "\"streams\":{\"N\":\"123456\"}}"

/* favorites-v2: renamed fields (title is stored as "ti"), a NULL among them */
#define V2_DATA                                                                                    \
    "{\"PK\":{\"S\":\"USER#u1\"},\"SK\":{\"S\":\"DATA#d1\"},"                                      \
    "\"GSI1PK\":{\"S\":\"USER#u1#TYPE#image\"},"                                                   \
    "\"GSI1SK\":{\"S\":\"CLIP#00000001600000000000#DATA#d1\"},\"_et\":{\"S\":\"DATA\"},"           \
    "\"cr\":{\"S\":\"c1\"},\"ti\":{\"NULL\":true},\"dt\":{\"S\":\"IMAGE\"},"                       \
    "\"cl\":{\"N\":\"1600000000000\"},\"x\":{\"S\":\"extra\"}}"

static ddb_reader *reader_over(ddb_out_format fmt, const char *data, size_t len, const char *name)
{
    ddb_source *src = tu_memory_source(data, len, name);
    ddb_reader *r = NULL;
    ddb_error err;
    if (fmt == DDB_OUT_CSV)
        cr_assert_eq(ddb_reader_new_csv(&r, src, name, NULL, &err), 0, "%s\n%.*s", err.message,
                     (int)len, data);
    else
        cr_assert_eq(ddb_reader_new_lines(&r, src, DDB_IN_NDJSON, name, NULL, &err), 0, "%s",
                     err.message);
    return r;
}

static void roundtrip(const ddb_mapping *m, const char *ename, const char *const *items, size_t n,
                      ddb_out_format fmt)
{
    const ddb_entity *e = ddb_mapping_entity(m, ename);
    ddb_item *direct = calloc(n, sizeof(*direct));
    ddb_writer *w;
    ddb_reader *r;
    ddb_error err;
    const char *data;
    size_t len = 0;

    cr_assert_not_null(e);
    cr_assert_not_null(direct);
    w = tu_memory_writer(fmt, e, NULL);
    for (size_t i = 0; i < n; i++) {
        ddb_item orig = tu_item(a, items[i]);
        ddb_decoded d;
        cr_assert_eq(ddb_transform_decode(&d, m, &orig, a, &err), 0, "%s: %s", items[i], err.message);
        cr_assert_eq(d.entity, e, "%s decoded as %s", items[i], d.entity->name);
        cr_assert_eq(ddb_transform_encode(&direct[i], m, e, &d.record, 1, a, &err), 0, "%s",
                     err.message);
        cr_assert(ddb_map_equal(&direct[i], &orig), "direct encode differs: %s",
                  tu_typed(&direct[i]));
        cr_assert_eq(ddb_writer_write(w, &d.record, d.n_declared, &err), 0, "%s", err.message);
    }
    cr_assert_eq(ddb_writer_finish(w, &err), 0);
    data = ddb_sink_memory_data(w->sink, &len);

    r = reader_over(fmt, data, len, fmt == DDB_OUT_CSV ? "rt.csv" : "rt.ndjson");
    for (size_t i = 0; i < n; i++) {
        ddb_record *rec = NULL;
        ddb_item back;
        cr_assert_eq(ddb_reader_next(r, &rec, &err), 0, "%s", err.message);
        cr_assert_eq(rec->kind, DDB_REC_PUT, "record %zu: %s\n%.*s", i,
                     rec->reason ? rec->reason : "", (int)len, data);
        cr_assert_eq(rec->typed, 0);
        cr_assert_eq(ddb_transform_encode(&back, m, e, &rec->item, rec->typed, a, &err), 0,
                     "record %zu: %s\n%.*s", i, err.message, (int)len, data);
        cr_assert(ddb_map_equal(&back, &direct[i]), "record %zu (%s) gives\n%s\nfile:\n%.*s", i,
                  ddb_out_format_name(fmt), tu_typed(&back), (int)len, data);
    }
    {
        ddb_record *rec = NULL;
        cr_assert_eq(ddb_reader_next(r, &rec, &err), DDB_ITEROVER);
    }
    ddb_reader_free(r);
    ddb_writer_free(w);
    free(direct);
}

static const char *const movies[] = {MOVIE_FULL, MOVIE_SPARSE, MOVIE_EMPTY_TITLE};
static const char *const actors[] = {ACTOR_FULL, ACTOR_SPARSE};
static const char *const casts[] = {CAST};
static const char *const streams[] = {STREAMS};
static const char *const v2data[] = {V2_DATA};

Test(roundtrip, csv_movie)
{
    roundtrip(mov, "Movie", movies, 3, DDB_OUT_CSV);
}

Test(roundtrip, ndjson_movie)
{
    roundtrip(mov, "Movie", movies, 3, DDB_OUT_NDJSON);
}

Test(roundtrip, csv_actor)
{
    roundtrip(mov, "Actor", actors, 2, DDB_OUT_CSV);
}

Test(roundtrip, ndjson_actor)
{
    roundtrip(mov, "Actor", actors, 2, DDB_OUT_NDJSON);
}

Test(roundtrip, csv_and_ndjson_cast_and_streams)
{
    roundtrip(mov, "CastMember", casts, 1, DDB_OUT_CSV);
    roundtrip(mov, "CastMember", casts, 1, DDB_OUT_NDJSON);
    roundtrip(mov, "MonthlyStreams", streams, 1, DDB_OUT_CSV);
    roundtrip(mov, "MonthlyStreams", streams, 1, DDB_OUT_NDJSON);
}

Test(roundtrip, renamed_null_field_through_extra)
{
    roundtrip(fav2, "FavoriteData", v2data, 1, DDB_OUT_CSV);
    roundtrip(fav2, "FavoriteData", v2data, 1, DDB_OUT_NDJSON);
}

#define MOVIE_EMPTY_POSTER                                                                         \
    "{\"pk\":{\"S\":\"mov#m4\"},\"sk\":{\"S\":\"mov#m4\"},\"gsi1pk\":{\"S\":\"mov#m4\"},"          \
    "\"gsi1sk\":{\"S\":\"mov#m4\"},\"title\":{\"S\":\"t\"},\"poster\":{\"B\":\"\"}}"

static const char *const empty_poster[] = {MOVIE_EMPTY_POSTER};

Test(roundtrip, ndjson_empty_binary)
{
    roundtrip(mov, "Movie", empty_poster, 1, DDB_OUT_NDJSON);
}

/* An empty B is written as the cell `""` (as an empty string is), not as an
 * empty cell, which reads back as "attribute absent". */
Test(roundtrip, csv_empty_binary)
{
    roundtrip(mov, "Movie", empty_poster, 1, DDB_OUT_CSV);
}
