/*
 * The shipped seed mappings read items exactly as the seeds' own code writes
 * them (tests/seeds/seed-writers.js writes whole tables of them; these are
 * single items spelt out by hand from the seeds' Java and Kotlin code).
 */
#include <criterion/criterion.h>
#include <string.h>

#include "ddbpipe/mapping.h"
#include "ddbpipe/transform.h"
#include "support/testutil.h"

static ddb_mapping *fav, *fac, *mov;
static ddb_arena *a;
static ddb_error err;

static void setup(void)
{
    fav = tu_load_format("favorites.json");
    fac = tu_load_format("facility-capacity.json");
    mov = tu_load_format("movies.json");
    cr_assert_eq(ddb_arena_new(&a, 0), 0);
    ddb_error_clear(&err);
}

static void teardown(void)
{
    ddb_mapping_free(fav);
    ddb_mapping_free(fac);
    ddb_mapping_free(mov);
    ddb_arena_free(a);
}

TestSuite(seeds, .init = setup, .fini = teardown);

/* decode, check the record, encode, and insist on the same item */
static void round_trip(ddb_mapping *m, const char *item_text, const char *entity,
                       const char *record)
{
    ddb_map item = tu_item(a, item_text);
    ddb_decoded d;
    ddb_item back;
    cr_assert_eq(ddb_transform_decode(&d, m, &item, a, &err), 0, "%s", err.message);
    cr_assert_str_eq(d.entity->name, entity);
    cr_assert_str_eq(tu_plain_text(&d.record), record);
    cr_assert_eq(ddb_transform_encode(&back, m, d.entity, &d.record, 1, a, &err), 0, "%s",
                 err.message);
    cr_assert(ddb_map_equal(&item, &back), "encoded differently:\n%s", tu_typed(&back));
}

static int decode_rc(ddb_mapping *m, const char *item_text, ddb_decoded *d)
{
    ddb_map item = tu_item(a, item_text);
    ddb_error_clear(&err);
    return ddb_transform_decode(d, m, &item, a, &err);
}

/* TagDto: createTime/lastAccessTime are longs (N), the LSI keys String.valueOf them */
Test(seeds, favorites_tag_as_tagdto_writes_it)
{
    round_trip(fav,
               "{\"pk\":{\"S\":\"Tag#u1\"},\"sk\":{\"S\":\"t9\"},\"tagName\":{\"S\":\"travel\"},"
               "\"createTime\":{\"N\":\"1600000000000\"},\"lastAccessTime\":{\"N\":\"0\"},"
               "\"lsiOneSk\":{\"S\":\"travel\"},\"lsiTwoSk\":{\"S\":\"1600000000000\"},"
               "\"lsiThreeSk\":{\"S\":\"0\"}}",
               "Tag",
               "{\"userId\":\"u1\",\"tagId\":\"t9\",\"tagName\":\"travel\","
               "\"createTime\":1600000000000,\"lastAccessTime\":0}");
}

/* FavoriteDataDto: dataType stored as name(), keyed by getValue(); clipTime a String */
Test(seeds, favorites_data_keeps_enum_name_and_keys_by_value)
{
    round_trip(
        fav,
        "{\"pk\":{\"S\":\"FavoriteData#u1\"},\"sk\":{\"S\":\"0042\"},"
        "\"title\":{\"S\":\"日落\"},\"dataType\":{\"S\":\"POSITION\"},"
        "\"clipTime\":{\"S\":\"1600000000003\"},"
        "\"gsiOnePk\":{\"S\":\"FavoriteData#u1#position\"},"
        "\"gsiOneSk\":{\"S\":\"1600000000003#0042\"}}",
        "FavoriteData",
        "{\"userId\":\"u1\",\"dataId\":\"0042\",\"title\":\"日落\",\"dataType\":\"POSITION\","
        "\"clipTime\":\"1600000000003\"}");
}

Test(seeds, favorites_datatag_with_both_gsis)
{
    round_trip(fav,
               "{\"pk\":{\"S\":\"FavoriteDataTag#u1#d3\"},\"sk\":{\"S\":\"t9\"},"
               "\"clipTime\":{\"S\":\"1600000000003\"},\"dataType\":{\"S\":\"LINK\"},"
               "\"gsiOnePk\":{\"S\":\"FavoriteDataTag#u1#t9\"},"
               "\"gsiOneSk\":{\"S\":\"1600000000003#d3\"},"
               "\"gsiTwoPk\":{\"S\":\"FavoriteDataTag#u1#t9#link\"},"
               "\"gsiTwoSk\":{\"S\":\"1600000000003#d3\"}}",
               "FavoriteDataTag",
               "{\"userId\":\"u1\",\"dataId\":\"d3\",\"tagId\":\"t9\","
               "\"clipTime\":\"1600000000003\",\"dataType\":\"LINK\"}");
}

Test(seeds, favorites_enum_spelling_mismatches_are_rejected_with_the_reason)
{
    ddb_decoded d;
    /* the stored attribute holds the value, not the key spelling */
    int rc = decode_rc(fav,
                       "{\"pk\":{\"S\":\"FavoriteData#u1\"},\"sk\":{\"S\":\"d1\"},"
                       "\"dataType\":{\"S\":\"image\"},\"clipTime\":{\"S\":\"1\"},"
                       "\"gsiOnePk\":{\"S\":\"FavoriteData#u1#image\"},"
                       "\"gsiOneSk\":{\"S\":\"1#d1\"}}",
                       &d);
    cr_assert_eq(rc, DDB_EINVAL);
    cr_assert(strstr(err.message, "'image' is not one of IMAGE, LINK, FILE, POSITION"), "%s",
              err.message);
    /* the key holds the name instead of the value */
    rc = decode_rc(fav,
                   "{\"pk\":{\"S\":\"FavoriteData#u1\"},\"sk\":{\"S\":\"d1\"},"
                   "\"dataType\":{\"S\":\"IMAGE\"},\"clipTime\":{\"S\":\"1\"},"
                   "\"gsiOnePk\":{\"S\":\"FavoriteData#u1#IMAGE\"},\"gsiOneSk\":{\"S\":\"1#d1\"}}",
                   &d);
    cr_assert_eq(rc, DDB_EINVAL);
    cr_assert(strstr(err.message, "gsiOnePk"), "%s", err.message);
    /* the key and the attribute disagree */
    rc = decode_rc(fav,
                   "{\"pk\":{\"S\":\"FavoriteData#u1\"},\"sk\":{\"S\":\"d1\"},"
                   "\"dataType\":{\"S\":\"FILE\"},\"clipTime\":{\"S\":\"1\"},"
                   "\"gsiOnePk\":{\"S\":\"FavoriteData#u1#image\"},\"gsiOneSk\":{\"S\":\"1#d1\"}}",
                   &d);
    cr_assert_eq(rc, DDB_EINVAL);
    cr_assert(strstr(err.message, "field dataType"), "%s", err.message);
}

Test(seeds, favorites_encode_writes_the_key_spelling)
{
    ddb_map rec = tu_plain(a, "{\"userId\":\"u1\",\"dataId\":\"d1\",\"dataType\":\"FILE\","
                              "\"clipTime\":\"17\"}");
    ddb_item item;
    const ddb_value *v;
    cr_assert_eq(
        ddb_transform_encode(&item, fav, ddb_mapping_entity(fav, "FavoriteData"), &rec, 0, a, &err),
        0, "%s", err.message);
    v = ddb_map_getz(&item, "gsiOnePk");
    cr_assert_not_null(v);
    cr_assert_eq(v->u.s.len, strlen("FavoriteData#u1#file"));
    cr_assert_eq(memcmp(v->u.s.ptr, "FavoriteData#u1#file", v->u.s.len), 0);
    v = ddb_map_getz(&item, "dataType");
    cr_assert_eq(v->u.s.len, 4);
    cr_assert_eq(memcmp(v->u.s.ptr, "FILE", 4), 0);
    /* a value outside the enum is refused, whatever its spelling */
    rec = tu_plain(a, "{\"userId\":\"u1\",\"dataId\":\"d1\",\"dataType\":\"file\"}");
    cr_assert_eq(
        ddb_transform_encode(&item, fav, ddb_mapping_entity(fav, "FavoriteData"), &rec, 0, a, &err),
        DDB_EINVAL);
}

/* Kotlin FacilityCapacity + MomentConverter: DayOfWeek.toString(), LocalDate.toString() */
Test(seeds, facility_moment_is_a_weekday_or_a_date)
{
    ddb_decoded d;
    round_trip(fac,
               "{\"facilityId\":{\"S\":\"F1\"},\"moment\":{\"S\":\"MONDAY\"},"
               "\"capacity\":{\"N\":\"1200\"}}",
               "WeekdayCapacity",
               "{\"facilityId\":\"F1\",\"weekday\":\"MONDAY\",\"capacity\":1200}");
    round_trip(fac,
               "{\"facilityId\":{\"S\":\"F1\"},\"moment\":{\"S\":\"2024-02-29\"},"
               "\"capacity\":{\"N\":\"0\"},\"description\":{\"S\":\"Leap day\"}}",
               "DateCapacity",
               "{\"facilityId\":\"F1\",\"date\":\"2024-02-29\",\"capacity\":0,"
               "\"description\":\"Leap day\"}");
    /* what DayOfWeek.valueOf and LocalDate.parse refuse, no entity takes */
    cr_assert_eq(
        decode_rc(fac, "{\"facilityId\":{\"S\":\"F1\"},\"moment\":{\"S\":\"Monday\"}}", &d),
        DDB_ENOMATCH);
    cr_assert_eq(
        decode_rc(fac, "{\"facilityId\":{\"S\":\"F1\"},\"moment\":{\"S\":\"2023-02-29\"}}", &d),
        DDB_ENOMATCH);
}

/* seed 002: GSI-1 is the inverted index over the table's own keys */
Test(seeds, movies_inverted_index_uses_the_table_keys)
{
    const ddb_index_def *g1 = &mov->table.indexes[0];
    cr_assert_str_eq(g1->pk.name, "sk");
    cr_assert_str_eq(g1->sk.name, "pk");
    round_trip(mov,
               "{\"pk\":{\"S\":\"mov#tt1\"},\"sk\":{\"S\":\"act#nm2\"},"
               "\"character\":{\"S\":\"Chuck\"},\"billing\":{\"N\":\"1\"}}",
               "CastMember",
               "{\"movieId\":\"tt1\",\"actorId\":\"nm2\",\"character\":\"Chuck\",\"billing\":1}");
    round_trip(mov,
               "{\"pk\":{\"S\":\"mov#tt1\"},\"sk\":{\"S\":\"streams#2024-01\"},"
               "\"streams\":{\"N\":\"42\"},\"gsi2pk\":{\"S\":\"streams#2024-01\"},"
               "\"gsi2sk\":{\"S\":\"000000000000042#tt1\"}}",
               "MonthlyStreams", "{\"movieId\":\"tt1\",\"month\":\"2024-01\",\"streams\":42}");
}
