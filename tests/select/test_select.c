/*
 * The selection (select.h): what --entities and --where accept and refuse,
 * which records they keep (numbers as numbers, text byte by byte, an absent
 * field holding no condition), and the request chosen for a table: a Query of
 * the key the fixed fields give best, narrowed on the sort key, or a Scan
 * whose filter keeps only what can match.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "ddbpipe/select.h"
#include "support/testutil.h"

static ddb_select *parse_ok(const char *entities, const char *where, uint64_t sample)
{
    ddb_select *s = NULL;
    ddb_error err;
    cr_assert_eq(ddb_select_parse(&s, entities, where, NULL, sample, &err), 0, "%s", err.message);
    return s;
}

Test(select, parses_operators_and_escaped_commas)
{
    ddb_select *s = parse_ok("A,B", "a=1,b^=x\\,y,c>=2,d>3,e<=4,f<5,g=", 0);
    cr_assert_eq(s->n_entities, 2);
    cr_assert_str_eq(s->entities[1], "B");
    cr_assert_eq(s->n_conds, 7);
    cr_assert_eq(s->conds[1].op, DDB_COND_PREFIX);
    cr_assert_str_eq(s->conds[1].value, "x,y");
    cr_assert_eq(s->conds[2].op, DDB_COND_GE);
    cr_assert_eq(s->conds[3].op, DDB_COND_GT);
    cr_assert_eq(s->conds[4].op, DDB_COND_LE);
    cr_assert_eq(s->conds[5].op, DDB_COND_LT);
    cr_assert_str_eq(s->conds[6].value, ""); /* the empty string is a value */
    ddb_select_free(s);
    /* nothing asked for: no selection at all */
    cr_assert_null(parse_ok(NULL, "", 0));
}

Test(select, refuses_what_does_not_parse)
{
    ddb_select *s = NULL;
    ddb_error err;
    cr_assert_eq(ddb_select_parse(&s, NULL, "userId", NULL, 0, &err), DDB_EUSAGE);
    cr_assert_eq(ddb_select_parse(&s, NULL, "=x", NULL, 0, &err), DDB_EUSAGE);
    cr_assert_eq(ddb_select_parse(&s, NULL, "a^x", NULL, 0, &err), DDB_EUSAGE);
    cr_assert_eq(ddb_select_parse(&s, "A,,B", NULL, NULL, 0, &err), DDB_EUSAGE);
    cr_assert_null(s);
}

Test(select, is_checked_against_the_mapping)
{
    ddb_mapping *m = tu_load_format("movies.json");
    ddb_error err;
    struct {
        const char *entities, *where, *says;
    } bad[] = {
        {"Film", NULL, "no entity Film"},
        {"Movie", "name=x", "no selected entity has a field name"},
        {"Movie", "genres=x", "only S and N fields"},
        {"Movie", "releaseYear^=19", "a prefix of a number field"},
        {"Movie", "releaseYear>=soon", "'soon' is not a number"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        ddb_select *s = parse_ok(bad[i].entities, bad[i].where, 0);
        cr_assert_eq(ddb_select_check(s, m, &err), DDB_EUSAGE, "%s", bad[i].says);
        cr_assert(strstr(err.message, bad[i].says), "%s", err.message);
        ddb_select_free(s);
    }
    ddb_mapping_free(m);
}

Test(select, keeps_records_by_value)
{
    ddb_mapping *m = tu_load_format("movies.json");
    const ddb_entity *movie = ddb_mapping_entity(m, "Movie"), *actor = ddb_mapping_entity(m, "Actor");
    ddb_arena *a;
    ddb_select *s = parse_ok("Movie", "releaseYear>=999,releaseYear<2010.5,title^=T", 0);
    ddb_error err;
    cr_assert_eq(ddb_arena_new(&a, 0), 0);
    cr_assert_eq(ddb_select_check(s, m, &err), 0, "%s", err.message);
    /* 1999 >= 999 as numbers (as text it is not) */
    ddb_map rec = tu_item(a, "{\"title\":{\"S\":\"The Matrix\"},\"releaseYear\":{\"N\":\"1999\"}}");
    cr_assert(ddb_select_record(s, movie, &rec));
    rec = tu_item(a, "{\"title\":{\"S\":\"Tenet\"},\"releaseYear\":{\"N\":\"2010.50\"}}");
    cr_assert_not(ddb_select_record(s, movie, &rec)); /* 2010.50 is not < 2010.5 */
    rec = tu_item(a, "{\"title\":{\"S\":\"the Matrix\"},\"releaseYear\":{\"N\":\"1999\"}}");
    cr_assert_not(ddb_select_record(s, movie, &rec)); /* bytes: t is not T */
    rec = tu_item(a, "{\"title\":{\"S\":\"Tenet\"}}");
    cr_assert_not(ddb_select_record(s, movie, &rec)); /* no year: no year >= 999 */
    rec = tu_item(a, "{\"title\":{\"S\":\"Tenet\"},\"releaseYear\":{\"N\":\"2001\"}}");
    cr_assert_not(ddb_select_record(s, actor, &rec)); /* not an entity asked for */
    ddb_select_free(s);
    /* text compares byte by byte, as DynamoDB orders S: "é" (C3 A9) after "z" */
    s = parse_ok(NULL, "title>z", 0);
    rec = tu_item(a, "{\"title\":{\"S\":\"\xc3\xa9t\xc3\xa9\"}}");
    cr_assert(ddb_select_record(s, movie, &rec));
    ddb_select_free(s);
    ddb_arena_free(a);
    ddb_mapping_free(m);
}

/* The request planned for a selection on a shipped mapping. */
static void plan(ddb_select_request *r, const char *format, const char *entities,
                 const char *where)
{
    ddb_mapping *m = tu_load_format(format);
    ddb_select *s = parse_ok(entities, where, 0);
    ddb_error err;
    cr_assert_eq(ddb_select_check(s, m, &err), 0, "%s", err.message);
    cr_assert_eq(ddb_select_plan(r, s, m, &err), 0, "%s", err.message);
    ddb_select_free(s);
    ddb_mapping_free(m);
}

Test(select, queries_the_index_whose_key_it_fixes_best)
{
    ddb_select_request r;
    /* the table's pk (FavoriteData#{userId}) is fixed too, but gsiOne's fixes more */
    plan(&r, "favorites.json", "FavoriteData", "userId=u7,dataType=IMAGE");
    cr_assert(r.query);
    cr_assert_str_eq(r.index, "gsiOne");
    cr_assert_str_eq(r.how, "Query of index gsiOne: gsiOnePk = FavoriteData#u7#image");
    cr_assert(strstr(r.members, "\"KeyConditionExpression\":\"#n0 = :v0\""), "%s", r.members);
    cr_assert(strstr(r.members, "\"#n0\":\"gsiOnePk\""), "%s", r.members);
    cr_assert(strstr(r.members, "\":v0\":{\"S\":\"FavoriteData#u7#image\"}"), "%s", r.members);
    ddb_select_request_dispose(&r);
}

Test(select, narrows_the_sort_key)
{
    ddb_select_request r;
    plan(&r, "favorites.json", "Tag", "userId=u7,tagId^=ta");
    cr_assert(r.query);
    cr_assert_null(r.index);
    cr_assert_str_eq(r.how, "Query of the table: pk = Tag#u7, sk begins_with ta");
    cr_assert(strstr(r.members, "begins_with(#n1, :v1)"), "%s", r.members);
    ddb_select_request_dispose(&r);
    /* a range on the field that ends the key: BETWEEN (the filter drops the ends) */
    plan(&r, "favorites.json", "Tag", "userId=u7,tagId>=b,tagId<d");
    cr_assert_str_eq(r.how, "Query of the table: pk = Tag#u7, sk BETWEEN b AND d");
    ddb_select_request_dispose(&r);
    /* a lower bound on a field followed by more key: the key is >= it all the same */
    plan(&r, "favorites.json", "FavoriteData", "userId=u7,dataType=IMAGE,clipTime>=17");
    cr_assert_str_eq(r.how, "Query of index gsiOne: gsiOnePk = FavoriteData#u7#image, "
                            "gsiOneSk >= 17");
    ddb_select_request_dispose(&r);
    /* an upper bound there cannot be used (17#x > 17) */
    plan(&r, "favorites.json", "FavoriteData", "userId=u7,dataType=IMAGE,clipTime<=17");
    cr_assert_str_eq(r.how, "Query of index gsiOne: gsiOnePk = FavoriteData#u7#image");
    ddb_select_request_dispose(&r);
    /* an empty range is not sent as a BETWEEN DynamoDB would refuse */
    plan(&r, "favorites.json", "Tag", "userId=u7,tagId>=d,tagId<=b");
    cr_assert_str_eq(r.how, "Query of the table: pk = Tag#u7");
    ddb_select_request_dispose(&r);
}

Test(select, scans_with_a_filter_when_no_key_is_fixed)
{
    ddb_select_request r;
    plan(&r, "favorites.json", "FavoriteData", "title^=W");
    cr_assert_not(r.query);
    cr_assert_str_eq(r.how, "Scan with FilterExpression begins_with(title, 'W') AND "
                            "(begins_with(pk, 'FavoriteData#'))");
    ddb_select_request_dispose(&r);
    /* two entities: no single key; a field recoverable from a key is not filtered on */
    plan(&r, "favorites.json", "Tag,FavoriteData", "userId=u7");
    cr_assert_not(r.query);
    cr_assert_str_eq(r.how, "Scan with FilterExpression (begins_with(pk, 'Tag#') OR "
                            "begins_with(pk, 'FavoriteData#'))");
    ddb_select_request_dispose(&r);
}

Test(select, projects_what_tells_the_entity_too)
{
    ddb_select_request r;
    ddb_mapping *m = tu_load_format("favorites.json");
    ddb_select *s = NULL;
    ddb_error err;
    cr_assert_eq(ddb_select_parse(&s, NULL, NULL, "tagName", 0, &err), 0);
    cr_assert_eq(ddb_select_check(s, m, &err), 0, "%s", err.message);
    cr_assert_eq(ddb_select_plan(&r, s, m, &err), 0);
    /* tagName is stored, and lsiOneSk is written from it; no filter: no values */
    cr_assert(strstr(r.how, "ProjectionExpression pk, sk, tagName, lsiOneSk"), "%s", r.how);
    cr_assert(strstr(r.members, "\"ProjectionExpression\":\"#n"), "%s", r.members);
    cr_assert_null(strstr(r.members, "ExpressionAttributeValues"), "%s", r.members);
    ddb_select_request_dispose(&r);
    ddb_select_free(s);
    /* a field no selected entity has */
    cr_assert_eq(ddb_select_parse(&s, "Tag", NULL, "title", 0, &err), 0);
    cr_assert_eq(ddb_select_check(s, m, &err), DDB_EUSAGE);
    ddb_select_free(s);
    ddb_mapping_free(m);
}
