#include <criterion/criterion.h>
#include <string.h>

#include "ddbpipe/mapping.h"
#include "ddbpipe/transform.h"
#include "support/testutil.h"

static ddb_mapping *fav, *fav2, *fac, *mov;
static ddb_arena *a;
static ddb_error err;

static void setup(void)
{
    fav = tu_load_fixture("favorites-padded.json");
    fav2 = tu_load_format("favorites-v2.json");
    fac = tu_load_fixture("facility-profile.json");
    mov = tu_load_fixture("movies-gsi3.json");
    cr_assert_eq(ddb_arena_new(&a, 0), 0);
    ddb_error_clear(&err);
}

static void teardown(void)
{
    ddb_mapping_free(fav);
    ddb_mapping_free(fav2);
    ddb_mapping_free(fac);
    ddb_mapping_free(mov);
    ddb_arena_free(a);
}

TestSuite(transform, .init = setup, .fini = teardown);

#define TAG_ITEM                                                                                   \
    "{\"pk\":{\"S\":\"Tag#u1\"},\"sk\":{\"S\":\"t9\"},\"lsiOneSk\":{\"S\":\"travel\"},"            \
    "\"lsiTwoSk\":{\"S\":\"00000001600000000000\"},\"lsiThreeSk\":{\"S\":"                         \
    "\"00000001600000500000\"},"                                                                   \
    "\"tagName\":{\"S\":\"travel\"},\"crateTime\":{\"N\":\"1600000000000\"},"                      \
    "\"lastAccessTime\":{\"N\":\"1600000500000\"}}"

static ddb_decoded decode_ok(ddb_mapping *m, const char *item_text)
{
    ddb_map item = tu_item(a, item_text);
    ddb_decoded d;
    int rc = ddb_transform_decode(&d, m, &item, a, &err);
    cr_assert_eq(rc, 0, "decode failed (%d): %s", rc, err.message);
    return d;
}

static int decode_rc(ddb_mapping *m, const char *item_text, ddb_decoded *d)
{
    ddb_map item = tu_item(a, item_text);
    ddb_error_clear(&err);
    return ddb_transform_decode(d, m, &item, a, &err);
}

Test(transform, decodes_tag_with_rename_and_padding_undone)
{
    ddb_decoded d = decode_ok(fav, TAG_ITEM);
    cr_assert_str_eq(d.entity->name, "Tag");
    cr_assert_eq(d.n_declared, 5);
    cr_assert_str_eq(tu_plain_text(&d.record),
                     "{\"userId\":\"u1\",\"tagId\":\"t9\",\"tagName\":\"travel\","
                     "\"createTime\":1600000000000,\"lastAccessTime\":1600000500000}");
}

Test(transform, encode_after_decode_gives_the_item_back)
{
    const char *texts[] = {
        TAG_ITEM,
        "{\"pk\":{\"S\":\"FavoriteData#u1\"},\"sk\":{\"S\":\"d7\"},"
        "\"gsiOnePk\":{\"S\":\"FavoriteData#u1#image\"},\"gsiOneSk\":{\"S\":\"00000001600000000001#"
        "d7\"},"
        "\"creatorId\":{\"S\":\"u2\"},\"title\":{\"S\":\"日落 – "
        "sunset\"},\"dataType\":{\"S\":\"image\"},"
        "\"clipTime\":{\"N\":\"1600000000001\"},\"note\":{\"M\":{\"x\":{\"BS\":[\"AQ==\"]}}}}",
        "{\"pk\":{\"S\":\"FavoriteDataTag#u1#d7\"},\"sk\":{\"S\":\"t9\"},"
        "\"gsiOnePk\":{\"S\":\"u1#t9\"},\"gsiOneSk\":{\"S\":\"00000001600000000001#d7\"},"
        "\"gsiTwoPk\":{\"S\":\"u1#t9#image\"},\"gsiTwoSk\":{\"S\":\"00000001600000000001#d7\"},"
        "\"dataType\":{\"S\":\"image\"},\"clipTime\":{\"N\":\"1600000000001\"}}",
    };
    for (size_t i = 0; i < 3; i++) {
        ddb_map item = tu_item(a, texts[i]);
        ddb_decoded d;
        ddb_item back;
        cr_assert_eq(ddb_transform_decode(&d, fav, &item, a, &err), 0, "%s", err.message);
        cr_assert_eq(ddb_transform_encode(&back, fav, d.entity, &d.record, 1, a, &err), 0, "%s",
                     err.message);
        cr_assert(ddb_map_equal(&item, &back), "item %zu:\n%s\n", i, tu_typed(&back));
    }
}

/* A map whose members the mapping declares (a Parquet STRUCT) is still the
 * map in records and items: whatever its members, decoded and encoded, the
 * item comes back byte for byte. */
Test(transform, declared_map_round_trips_whatever_its_members)
{
    ddb_mapping *m = tu_load_mapping_in("tests/scripts/parquet", "movies-struct.json");
    const char *ratings[] = {
        "{\"imdb\":{\"N\":\"7.5\"},\"votes\":{\"N\":\"48517\"},\"mpaa\":{\"S\":\"G\"}}",
        "{}",
        "{\"imdb\":{\"N\":\"7.25\"}}",
        "{\"imdb\":{\"S\":\"high\"},\"festival\":{\"BOOL\":true},\"x\":{\"NS\":[\"1\"]}}",
    };
    cr_assert_eq(m->entities[0].fields[6].n_members, 3);
    for (size_t i = 0; i < sizeof(ratings) / sizeof(ratings[0]); i++) {
        char text[512];
        ddb_map item;
        ddb_decoded d;
        ddb_item back;
        snprintf(text, sizeof(text),
                 "{\"pk\":{\"S\":\"mov#m1\"},\"sk\":{\"S\":\"mov#m1\"},\"title\":{\"S\":"
                 "\"T\"},\"ratings\":{\"M\":%s}}",
                 ratings[i]);
        item = tu_item(a, text);
        cr_assert_eq(ddb_transform_decode(&d, m, &item, a, &err), 0, "%s", err.message);
        cr_assert_eq(ddb_transform_encode(&back, m, d.entity, &d.record, 1, a, &err), 0, "%s",
                     err.message);
        cr_assert(ddb_map_equal(&item, &back), "%s:\n%s\n", ratings[i], tu_typed(&back));
    }
    ddb_mapping_free(m);
}

Test(transform, alias_is_accepted_on_decode)
{
    ddb_decoded d = decode_ok(fav, "{\"pk\":{\"S\":\"Tag#u1\"},\"sk\":{\"S\":\"t1\"},"
                                   "\"ct\":{\"N\":\"42\"}}");
    cr_assert_str_eq(tu_plain_text(&d.record),
                     "{\"userId\":\"u1\",\"tagId\":\"t1\",\"createTime\":42}");
}

Test(transform, field_captured_twice_must_agree)
{
    ddb_decoded d;
    int rc = decode_rc(fav,
                       "{\"pk\":{\"S\":\"FavoriteDataTag#u1#d7\"},\"sk\":{\"S\":\"t9\"},"
                       "\"gsiOnePk\":{\"S\":\"u2#t9\"}}",
                       &d);
    cr_assert_eq(rc, DDB_EINVAL);
    cr_assert_str_eq(d.entity->name, "FavoriteDataTag");
    cr_assert(strstr(err.message, "field userId") != NULL, "%s", err.message);
    cr_assert(strstr(err.message, "'u1'") && strstr(err.message, "'u2'"), "%s", err.message);
}

Test(transform, stored_attribute_must_agree_with_index_key)
{
    ddb_decoded d;
    int rc = decode_rc(fav,
                       "{\"pk\":{\"S\":\"Tag#u1\"},\"sk\":{\"S\":\"t9\"},"
                       "\"lsiTwoSk\":{\"S\":\"00000001600000000000\"},\"crateTime\":{\"N\":\"5\"}}",
                       &d);
    cr_assert_eq(rc, DDB_EINVAL, "%s", err.message);
    cr_assert(strstr(err.message, "crateTime gives '5' but lsiTwoSk gives '1600000000000'"), "%s",
              err.message);
}

Test(transform, index_key_that_would_not_round_trip_is_rejected)
{
    ddb_decoded d;
    /* padded to 19 digits instead of 20: decoding works but re-encoding differs */
    int rc = decode_rc(fav,
                       "{\"pk\":{\"S\":\"Tag#u1\"},\"sk\":{\"S\":\"t9\"},"
                       "\"lsiTwoSk\":{\"S\":\"0000001600000000000\"}}",
                       &d);
    cr_assert_eq(rc, DDB_EINVAL);
    cr_assert(strstr(err.message, "encoding would change it"), "%s", err.message);
}

Test(transform, unmatched_item_says_why)
{
    ddb_decoded d;
    int rc = decode_rc(fav, "{\"pk\":{\"S\":\"Session#u1\"},\"sk\":{\"S\":\"s1\"}}", &d);
    cr_assert_eq(rc, DDB_ENOMATCH);
    cr_assert_null(d.entity);
    cr_assert(strstr(err.message, "pk 'Session#u1'"), "%s", err.message);
}

Test(transform, key_not_fitting_its_template_is_rejected)
{
    ddb_decoded d;
    int rc = decode_rc(fav,
                       "{\"pk\":{\"S\":\"FavoriteData#u1\"},\"sk\":{\"S\":\"d1\"},"
                       "\"gsiOneSk\":{\"S\":\"notanumber#d1\"}}",
                       &d);
    cr_assert_eq(rc, DDB_EINVAL);
    cr_assert(strstr(err.message, "gsiOneSk 'notanumber#d1' does not fit template"), "%s",
              err.message);
}

Test(transform, enum_constraint_rejects_on_decode_and_encode)
{
    ddb_decoded d;
    ddb_item item;
    ddb_map rec;
    int rc = decode_rc(fav,
                       "{\"pk\":{\"S\":\"FavoriteData#u1\"},\"sk\":{\"S\":\"d1\"},"
                       "\"dataType\":{\"S\":\"hologram\"}}",
                       &d);
    cr_assert_eq(rc, DDB_EINVAL);
    cr_assert(strstr(err.message, "not one of image, link"), "%s", err.message);
    rec = tu_plain(a, "{\"userId\":\"u1\",\"dataId\":\"d1\",\"dataType\":\"hologram\"}");
    rc =
        ddb_transform_encode(&item, fav, ddb_mapping_entity(fav, "FavoriteData"), &rec, 0, a, &err);
    cr_assert_eq(rc, DDB_EINVAL);
}

Test(transform, mixed_type_sort_key_decodes_into_two_record_kinds)
{
    ddb_decoded d1 = decode_ok(fac, "{\"pk\":{\"S\":\"FACILITY#f1\"},\"sk\":{\"S\":\"Monday\"},"
                                    "\"capacity\":{\"N\":\"120\"}}");
    ddb_decoded d2 =
        decode_ok(fac, "{\"pk\":{\"S\":\"FACILITY#f1\"},\"sk\":{\"S\":\"2024-12-25\"},"
                       "\"capacity\":{\"N\":\"0\"},\"description\":{\"S\":\"Christmas\"}}");
    ddb_decoded d3;
    cr_assert_str_eq(d1.entity->name, "WeekdayCapacity");
    cr_assert_str_eq(d2.entity->name, "DateCapacity");
    cr_assert_str_eq(tu_plain_text(&d2.record),
                     "{\"facilityId\":\"f1\",\"date\":\"2024-12-25\",\"capacity\":0,"
                     "\"description\":\"Christmas\"}");
    /* Feb 30 is neither a weekday nor a date: unmatched. */
    cr_assert_eq(
        decode_rc(fac, "{\"pk\":{\"S\":\"FACILITY#f1\"},\"sk\":{\"S\":\"2024-02-30\"}}", &d3),
        DDB_ENOMATCH);
}

/* One day, one key: a weekday in any spelling is written the mapping's way
 * ("Monday" unless its "spelling" says otherwise). */
Test(transform, weekday_is_written_in_the_mappings_spelling)
{
    static const char *const days[] = {"Sat", "SATURDAY", "saturday", "sAt"};
    for (size_t i = 0; i < 4; i++) {
        char text[200];
        ddb_map rec;
        ddb_item item;
        snprintf(text, sizeof(text),
                 "{\"facilityId\":\"f1\",\"weekday\":\"%s\",\"capacity\":\"80\"}", days[i]);
        rec = tu_plain(a, text);
        cr_assert_eq(ddb_transform_encode(&item, fac, ddb_mapping_entity(fac, "WeekdayCapacity"),
                                          &rec, 0, a, &err),
                     0, "%s", err.message);
        cr_assert_str_eq(tu_typed(&item),
                         "{\"pk\":{\"S\":\"FACILITY#f1\"},\"sk\":{\"S\":\"Saturday\"},"
                         "\"capacity\":{\"N\":\"80\"}}");
    }
}

Test(transform, weekday_spelling_is_the_mappings_choice)
{
    ddb_mapping *m = NULL;
    const char *text = "{\"table\":{\"name\":\"T\",\"partitionKey\":{\"name\":\"pk\"},\"sortKey\":{"
                       "\"name\":\"sk\"}},"
                       "\"entities\":[{\"name\":\"W\",\"keys\":{\"pk\":\"F#{f}\",\"sk\":\"{d}\"},"
                       "\"fields\":[{\"name\":\"f\"},{\"name\":\"d\",\"format\":\"weekday\","
                       "\"spelling\":\"MON\"}]}]}";
    ddb_map rec;
    ddb_item item;
    ddb_decoded d;
    cr_assert_eq(ddb_mapping_parse(&m, text, strlen(text), "t.json", &err), 0, "%s", err.message);
    rec = tu_plain(a, "{\"f\":\"1\",\"d\":\"wednesday\"}");
    cr_assert_eq(ddb_transform_encode(&item, m, &m->entities[0], &rec, 0, a, &err), 0, "%s",
                 err.message);
    cr_assert_str_eq(tu_typed(&item), "{\"pk\":{\"S\":\"F#1\"},\"sk\":{\"S\":\"WED\"}}");
    /* a stored key in another spelling decodes, but would not come back: rejected, saying so */
    item = tu_item(a, "{\"pk\":{\"S\":\"F#1\"},\"sk\":{\"S\":\"Wednesday\"}}");
    cr_assert_eq(ddb_transform_decode(&d, m, &item, a, &err), DDB_EINVAL);
    cr_assert(strstr(err.message, "encoding would change it"), "%s", err.message);
    ddb_mapping_free(m);
}

Test(transform, hierarchical_sort_key_round_trips)
{
    const char *text = "{\"pk\":{\"S\":\"FACILITY#f9\"},\"sk\":{\"S\":\"PROFILE\"},"
                       "\"gsi1pk\":{\"S\":\"COUNTRY#DE\"},\"gsi1sk\":{\"S\":\"Bavaria#Munich#f9\"},"
                       "\"name\":{\"S\":\"Olympiahalle\"},\"country\":{\"S\":\"DE\"},"
                       "\"region\":{\"S\":\"Bavaria\"},\"city\":{\"S\":\"Munich\"}}";
    ddb_map item = tu_item(a, text);
    ddb_decoded d = decode_ok(fac, text);
    ddb_item back;
    cr_assert_str_eq(d.entity->name, "Facility");
    cr_assert_eq(ddb_transform_encode(&back, fac, d.entity, &d.record, 1, a, &err), 0, "%s",
                 err.message);
    cr_assert(ddb_map_equal(&item, &back), "%s", tu_typed(&back));
}

Test(transform, encode_leaves_sparse_index_out_and_needs_table_key_fields)
{
    const ddb_entity *fd = ddb_mapping_entity(fav, "FavoriteData");
    ddb_map rec = tu_plain(a, "{\"userId\":\"u1\",\"dataId\":\"d1\",\"title\":\"x\"}");
    ddb_item item;
    cr_assert_eq(ddb_transform_encode(&item, fav, fd, &rec, 0, a, &err), 0, "%s", err.message);
    cr_assert_str_eq(tu_typed(&item), "{\"pk\":{\"S\":\"FavoriteData#u1\"},\"sk\":{\"S\":\"d1\"},"
                                      "\"title\":{\"S\":\"x\"}}");
    rec = tu_plain(a, "{\"dataId\":\"d1\"}");
    cr_assert_eq(ddb_transform_encode(&item, fav, fd, &rec, 0, a, &err), DDB_EINVAL);
    cr_assert(
        strstr(err.message, "cannot compute pk \"FavoriteData#{userId}\": field userId is missing"),
        "%s", err.message);
}

Test(transform, encode_rejects_values_holding_the_separator)
{
    const ddb_entity *fdt = ddb_mapping_entity(fav, "FavoriteDataTag");
    ddb_map rec = tu_plain(a, "{\"userId\":\"u#1\",\"dataId\":\"d1\",\"tagId\":\"t\"}");
    ddb_item item;
    cr_assert_eq(ddb_transform_encode(&item, fav, fdt, &rec, 0, a, &err), DDB_EINVAL);
    cr_assert(strstr(err.message, "contains '#'"), "%s", err.message);
}

Test(transform, encode_pads_and_rejects_unpaddable_numbers)
{
    const ddb_entity *tag = ddb_mapping_entity(fav, "Tag");
    ddb_map rec = tu_plain(a, "{\"userId\":\"u\",\"tagId\":\"t\",\"createTime\":\"7\"}");
    ddb_item item;
    cr_assert_eq(ddb_transform_encode(&item, fav, tag, &rec, 0, a, &err), 0, "%s", err.message);
    cr_assert_str_eq(tu_typed(&item), "{\"pk\":{\"S\":\"Tag#u\"},\"sk\":{\"S\":\"t\"},"
                                      "\"lsiTwoSk\":{\"S\":\"00000000000000000007\"},"
                                      "\"crateTime\":{\"N\":\"7\"}}");
    rec = tu_plain(a, "{\"userId\":\"u\",\"tagId\":\"t\",\"createTime\":-7}");
    cr_assert_eq(ddb_transform_encode(&item, fav, tag, &rec, 0, a, &err), DDB_EINVAL);
    cr_assert(strstr(err.message, "negative"), "%s", err.message);
    rec = tu_plain(a, "{\"userId\":\"u\",\"tagId\":\"t\",\"createTime\":123456789012345678901}");
    cr_assert_eq(ddb_transform_encode(&item, fav, tag, &rec, 0, a, &err), DDB_EINVAL);
    rec = tu_plain(a, "{\"userId\":\"u\",\"tagId\":\"t\",\"createTime\":\"soon\"}");
    cr_assert_eq(ddb_transform_encode(&item, fav, tag, &rec, 0, a, &err), DDB_EINVAL);
    cr_assert(strstr(err.message, "field createTime"), "%s", err.message);
}

Test(transform, rekeying_decodes_with_one_mapping_and_encodes_with_another)
{
    ddb_decoded d = decode_ok(fav, TAG_ITEM);
    const ddb_entity *e2 = ddb_mapping_entity(fav2, d.entity->name);
    ddb_item item2;
    ddb_decoded back;
    cr_assert_not_null(e2);
    cr_assert_eq(ddb_transform_encode(&item2, fav2, e2, &d.record, 1, a, &err), 0, "%s",
                 err.message);
    cr_assert_str_eq(tu_typed(&item2),
                     "{\"PK\":{\"S\":\"USER#u1\"},\"SK\":{\"S\":\"TAG#t9\"},"
                     "\"LSI1SK\":{\"S\":\"TAGNAME#travel\"},"
                     "\"LSI2SK\":{\"S\":\"CREATED#00000001600000000000\"},\"_et\":{\"S\":\"TAG\"},"
                     "\"tn\":{\"S\":\"travel\"},\"ct\":{\"N\":\"1600000000000\"},"
                     "\"la\":{\"N\":\"1600000500000\"}}");
    /* and back: v2 decode, v1 encode gives the original item */
    cr_assert_eq(ddb_transform_decode(&back, fav2, &item2, a, &err), 0, "%s", err.message);
    {
        ddb_item orig = tu_item(a, TAG_ITEM), again;
        cr_assert_eq(ddb_transform_encode(&again, fav, ddb_mapping_entity(fav, "Tag"), &back.record,
                                          1, a, &err),
                     0, "%s", err.message);
        cr_assert(ddb_map_equal(&orig, &again), "%s", tu_typed(&again));
    }
}

Test(transform, entity_type_attribute_selects_the_entity)
{
    ddb_decoded d;
    cr_assert_eq(decode_rc(fav2,
                           "{\"PK\":{\"S\":\"USER#u1\"},\"SK\":{\"S\":\"DATA#d1\"},"
                           "\"_et\":{\"S\":\"DATA\"}}",
                           &d),
                 0, "%s", err.message);
    cr_assert_str_eq(d.entity->name, "FavoriteData");
    cr_assert_eq(decode_rc(fav2,
                           "{\"PK\":{\"S\":\"USER#u1\"},\"SK\":{\"S\":\"X\"},"
                           "\"_et\":{\"S\":\"SESSION\"}}",
                           &d),
                 DDB_ENOMATCH);
    cr_assert(strstr(err.message, "_et 'SESSION'"), "%s", err.message);
    /* declared type but key does not fit: rejected, not unmatched */
    cr_assert_eq(decode_rc(fav2,
                           "{\"PK\":{\"S\":\"USER#u1\"},\"SK\":{\"S\":\"TAG#t1\"},"
                           "\"_et\":{\"S\":\"DATA\"}}",
                           &d),
                 DDB_EINVAL);
}

Test(transform, inverted_index_and_sparse_gsi_in_movies)
{
    const char *cast = "{\"pk\":{\"S\":\"mov#m1\"},\"sk\":{\"S\":\"act#a1\"},"
                       "\"gsi1pk\":{\"S\":\"act#a1\"},\"gsi1sk\":{\"S\":\"mov#m1\"},"
                       "\"character\":{\"S\":\"Rick\"}}";
    const char *streams =
        "{\"pk\":{\"S\":\"mov#m1\"},\"sk\":{\"S\":\"streams#2024-05\"},"
        "\"gsi2pk\":{\"S\":\"streams#2024-05\"},"
        "\"gsi2sk\":{\"S\":\"000000001234567#m1\"},\"streams\":{\"N\":\"1234567\"}}";
    const char *movie =
        "{\"pk\":{\"S\":\"mov#m1\"},\"sk\":{\"S\":\"mov#m1\"},"
        "\"gsi1pk\":{\"S\":\"mov#m1\"},\"gsi1sk\":{\"S\":\"mov#m1\"},"
        "\"title\":{\"S\":\"Casablanca\"},"
        "\"budget\":{\"N\":\"12345678901234567890123456789012345678\"},"
        "\"genres\":{\"SS\":[\"drama\",\"romance\"]},\"poster\":{\"B\":\"iVBORw0K\"}}";
    const char *all[] = {cast, streams, movie};
    const char *names[] = {"CastMember", "MonthlyStreams", "Movie"};
    for (int i = 0; i < 3; i++) {
        ddb_map item = tu_item(a, all[i]);
        ddb_decoded d;
        ddb_item back;
        cr_assert_eq(ddb_transform_decode(&d, mov, &item, a, &err), 0, "%s", err.message);
        cr_assert_str_eq(d.entity->name, names[i]);
        cr_assert_eq(ddb_transform_encode(&back, mov, d.entity, &d.record, 1, a, &err), 0, "%s",
                     err.message);
        cr_assert(ddb_map_equal(&item, &back), "%s", tu_typed(&back));
    }
}

Test(transform, undeclared_attributes_keep_drop_reject)
{
    const char *text =
        "{\"pk\":{\"S\":\"mov#m1\"},\"sk\":{\"S\":\"act#a1\"},\"extra\":{\"N\":\"1\"}}";
    ddb_decoded d = decode_ok(mov, text);
    cr_assert_eq(d.n_declared, 2);
    cr_assert_eq(d.record.count, 3);
    cr_assert_str_eq(
        tu_typed(&d.record),
        "{\"movieId\":{\"S\":\"m1\"},\"actorId\":{\"S\":\"a1\"},\"extra\":{\"N\":\"1\"}}");
    ((ddb_entity *)d.entity)->undeclared = DDB_UNDECLARED_DROP;
    d = decode_ok(mov, text);
    cr_assert_eq(d.record.count, 2);
    ((ddb_entity *)d.entity)->undeclared = DDB_UNDECLARED_REJECT;
    cr_assert_eq(decode_rc(mov, text, &d), DDB_EINVAL);
    cr_assert(strstr(err.message, "undeclared attribute 'extra'"), "%s", err.message);
}

Test(transform, csv_cells_convert_to_declared_types)
{
    const ddb_entity *movie = ddb_mapping_entity(mov, "Movie");
    ddb_map rec =
        tu_plain(a, "{\"movieId\":\"m1\",\"title\":\"T\",\"releaseYear\":\"1942\",\"genres\":\"["
                    "\\\"a\\\",\\\"b\\\"]\","
                    "\"ratings\":\"{\\\"imdb\\\":8.5}\",\"poster\":\"AAEC\",\"released\":\"TRUE\","
                    "\"_extra\":\"{\\\"legacy\\\":{\\\"NS\\\":[\\\"1\\\",\\\"2\\\"]}}\"}");
    ddb_item item;
    cr_assert_eq(ddb_transform_encode(&item, mov, movie, &rec, 0, a, &err), 0, "%s", err.message);
    cr_assert_str_eq(
        tu_typed(&item),
        "{\"pk\":{\"S\":\"mov#m1\"},\"sk\":{\"S\":\"mov#m1\"},\"gsi1pk\":{\"S\":\"mov#m1\"},"
        "\"gsi1sk\":{\"S\":\"mov#m1\"},\"title\":{\"S\":\"T\"},"
        "\"releaseYear\":{\"N\":\"1942\"},\"genres\":{\"SS\":[\"a\",\"b\"]},"
        "\"ratings\":{\"M\":{\"imdb\":{\"N\":\"8.5\"}}},\"poster\":{\"B\":\"AAEC\"},"
        "\"released\":{\"BOOL\":true},\"legacy\":{\"NS\":[\"1\",\"2\"]}}");
}

Test(transform, ndjson_extra_in_typed_shape_is_understood)
{
    const ddb_entity *cm = ddb_mapping_entity(mov, "CastMember");
    ddb_map rec = tu_plain(a, "{\"movieId\":\"m1\",\"actorId\":\"a1\","
                              "\"_extra\":{\"blob\":{\"B\":\"AQ==\"},\"n\":{\"NULL\":true}}}");
    ddb_item item;
    cr_assert_eq(ddb_transform_encode(&item, mov, cm, &rec, 0, a, &err), 0, "%s", err.message);
    cr_assert(strstr(tu_typed(&item), "\"blob\":{\"B\":\"AQ==\"},\"n\":{\"NULL\":true}"), "%s",
              tu_typed(&item));
}

Test(transform, extra_cannot_overwrite_computed_keys)
{
    const ddb_entity *cm = ddb_mapping_entity(mov, "CastMember");
    ddb_map rec =
        tu_plain(a, "{\"movieId\":\"m1\",\"actorId\":\"a1\",\"_extra\":{\"pk\":{\"S\":\"x\"}}}");
    ddb_item item;
    cr_assert_eq(ddb_transform_encode(&item, mov, cm, &rec, 0, a, &err), DDB_EINVAL);
    cr_assert(strstr(err.message, "'pk' would overwrite"), "%s", err.message);
}

Test(transform, required_field_missing_is_rejected)
{
    ddb_map rec = tu_plain(a, "{\"facilityId\":\"f\",\"weekday\":\"Mon\"}");
    ddb_item item;
    cr_assert_eq(ddb_transform_encode(&item, fac, ddb_mapping_entity(fac, "WeekdayCapacity"), &rec,
                                      0, a, &err),
                 DDB_EINVAL);
    cr_assert(strstr(err.message, "required field capacity"), "%s", err.message);
}

Test(transform, null_values_survive_both_ways)
{
    const char *text =
        "{\"pk\":{\"S\":\"mov#m1\"},\"sk\":{\"S\":\"act#a1\"},\"gsi1pk\":{\"S\":\"act#a1\"},"
        "\"gsi1sk\":{\"S\":\"mov#m1\"},\"character\":{\"NULL\":true}}";
    ddb_map item = tu_item(a, text);
    ddb_decoded d = decode_ok(mov, text);
    ddb_item back;
    cr_assert_eq(ddb_transform_encode(&back, mov, d.entity, &d.record, 1, a, &err), 0, "%s",
                 err.message);
    cr_assert(ddb_map_equal(&item, &back), "%s", tu_typed(&back));
}

Test(transform, delete_keys_decode_and_encode)
{
    ddb_map key = tu_item(a, "{\"pk\":{\"S\":\"Tag#u1\"},\"sk\":{\"S\":\"t9\"}}");
    ddb_decoded d;
    ddb_item k2;
    cr_assert_eq(ddb_transform_decode_key(&d, fav, &key, a, &err), 0, "%s", err.message);
    cr_assert_eq(
        ddb_transform_encode_key(&k2, fav2, ddb_mapping_entity(fav2, "Tag"), &d.record, 1, a, &err),
        0, "%s", err.message);
    cr_assert_str_eq(tu_typed(&k2), "{\"PK\":{\"S\":\"USER#u1\"},\"SK\":{\"S\":\"TAG#t9\"}}");
}

/* A constant index key ("GSI_2_SK": "root") is written only with the index's
 * other key: a node without a parent is in no GSI_2, not half in it. The
 * LSI's constant is always written (its partition key is the table's). */
Test(transform, constant_index_key_only_with_its_partner)
{
    ddb_mapping *m = tu_load_fixture("sparse-constant.json");
    const ddb_entity *e = ddb_mapping_entity(m, "Node");
    ddb_item item;
    ddb_map with = tu_item(a, "{\"id\":{\"S\":\"n1\"},\"parent\":{\"S\":\"n0\"}}");
    ddb_map without = tu_item(a, "{\"id\":{\"S\":\"n0\"},\"label\":{\"S\":\"top\"}}");
    ddb_decoded d;

    cr_assert_eq(ddb_transform_encode(&item, m, e, &with, 1, a, &err), 0, "%s", err.message);
    cr_assert_str_eq(tu_typed(&item),
                     "{\"PK\":{\"S\":\"NODE#n1\"},\"SK\":{\"S\":\"NODE\"},\"GSI_2_PK\":{\"S\":"
                     "\"PARENT#n0\"},\"GSI_2_SK\":{\"S\":\"root\"},\"LSI_1_SK\":{\"S\":\"node\"},"
                     "\"parent\":{\"S\":\"n0\"}}");
    cr_assert_eq(ddb_transform_encode(&item, m, e, &without, 1, a, &err), 0, "%s", err.message);
    cr_assert_str_eq(tu_typed(&item), "{\"PK\":{\"S\":\"NODE#n0\"},\"SK\":{\"S\":\"NODE\"},"
                                      "\"LSI_1_SK\":{\"S\":\"node\"},\"label\":{\"S\":\"top\"}}");
    /* Such an item decodes and encodes back as it is. */
    cr_assert_eq(ddb_transform_decode(&d, m, &item, a, &err), 0, "%s", err.message);
    cr_assert_eq(ddb_transform_encode(&item, m, e, &d.record, 1, a, &err), 0, "%s", err.message);
    cr_assert_str_eq(tu_typed(&item), "{\"PK\":{\"S\":\"NODE#n0\"},\"SK\":{\"S\":\"NODE\"},"
                                      "\"LSI_1_SK\":{\"S\":\"node\"},\"label\":{\"S\":\"top\"}}");
    ddb_mapping_free(m);
}
