#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/mapping.h"
#include "ddbpipe/transform.h"
#include "support/testutil.h"
#include "transform/template.h"

static ddb_error err;

static int load_text(const char *text, ddb_mapping **out)
{
    ddb_error_clear(&err);
    return ddb_mapping_parse(out, text, strlen(text), "t.json", &err);
}

#define TABLE                                                                                      \
    "\"table\":{\"name\":\"T\",\"partitionKey\":{\"name\":\"pk\",\"type\":\"S\"},"                 \
    "\"sortKey\":{\"name\":\"sk\",\"type\":\"S\"}}"

static void expect_error(const char *text, const char *fragment)
{
    ddb_mapping *m = NULL;
    cr_assert_neq(load_text(text, &m), 0, "accepted: %s", text);
    cr_assert_null(m);
    cr_assert(strstr(err.message, fragment) != NULL, "message '%s' lacks '%s'", err.message,
              fragment);
    cr_assert(strstr(err.message, "t.json") != NULL, "%s", err.message);
}

Test(mapping, loads_every_seed_format)
{
    const char *names[] = {"favorites.json", "favorites-v2.json", "movies.json",
                           "facility-capacity.json"};
    for (size_t i = 0; i < 4; i++) {
        ddb_mapping *m = tu_load_format(names[i]);
        cr_assert_gt(m->n_entities, 1);
        ddb_mapping_free(m);
    }
}

Test(mapping, table_keys_come_first_and_fields_know_their_roles)
{
    ddb_mapping *m = tu_load_fixture("favorites-padded.json");
    const ddb_entity *tag = ddb_mapping_entity(m, "Tag");
    cr_assert_not_null(tag);
    cr_assert_str_eq(tag->keys[0].attr, "pk");
    cr_assert_str_eq(tag->keys[1].attr, "sk");
    cr_assert_eq(tag->n_keys, 5);
    cr_assert(tag->fields[0].in_table_key);
    cr_assert_not(tag->fields[0].store, "userId lives in pk, so it is not stored again");
    cr_assert(tag->fields[2].store);
    cr_assert_str_eq(tag->fields[3].attribute, "crateTime");
    cr_assert_eq(tag->fields[3].pad, 20);
    cr_assert_eq(m->table.schema.n_index_pk, 2);
    cr_assert_eq(m->table.schema.n_index_sk, 5);
    ddb_mapping_free(m);
}

Test(mapping, rejects_unknown_properties)
{
    expect_error("{" TABLE
                 ",\"entities\":[{\"name\":\"A\",\"keys\":{\"pk\":\"a#{id}\",\"sk\":\"x\"},"
                 "\"fields\":[{\"name\":\"id\",\"typ\":\"S\"}]}]}",
                 "unknown property \"typ\"");
}

Test(mapping, rejects_templates_naming_undeclared_fields)
{
    expect_error("{" TABLE
                 ",\"entities\":[{\"name\":\"A\",\"keys\":{\"pk\":\"a#{userid}\",\"sk\":\"x\"},"
                 "\"fields\":[{\"name\":\"userId\"}]}]}",
                 "\"userid\", which is not a declared field");
}

Test(mapping, rejects_adjacent_fields_without_separator)
{
    expect_error("{" TABLE
                 ",\"entities\":[{\"name\":\"A\",\"keys\":{\"pk\":\"{a}{b}\",\"sk\":\"x\"},"
                 "\"fields\":[{\"name\":\"a\"},{\"name\":\"b\"}]}]}",
                 "two fields next to each other");
}

Test(mapping, requires_table_key_templates)
{
    expect_error("{" TABLE ",\"entities\":[{\"name\":\"A\",\"keys\":{\"pk\":\"a#{id}\"},"
                 "\"fields\":[{\"name\":\"id\"}]}]}",
                 "template for the sort key \"sk\"");
}

Test(mapping, rejects_bad_types_pad_and_patterns)
{
    expect_error("{" TABLE
                 ",\"entities\":[{\"name\":\"A\",\"keys\":{\"pk\":\"a#{id}\",\"sk\":\"x\"},"
                 "\"fields\":[{\"name\":\"id\",\"type\":\"STRING\"}]}]}",
                 "unknown type \"STRING\"");
    expect_error("{" TABLE
                 ",\"entities\":[{\"name\":\"A\",\"keys\":{\"pk\":\"a#{id}\",\"sk\":\"x\"},"
                 "\"fields\":[{\"name\":\"id\",\"pad\":10}]}]}",
                 "\"pad\" applies to N fields only");
    expect_error("{" TABLE
                 ",\"entities\":[{\"name\":\"A\",\"keys\":{\"pk\":\"a#{id}\",\"sk\":\"x\"},"
                 "\"fields\":[{\"name\":\"id\",\"pattern\":\"([a-z\"}]}]}",
                 "not a valid POSIX");
    expect_error("{" TABLE
                 ",\"entities\":[{\"name\":\"A\",\"keys\":{\"pk\":\"a#{m}\",\"sk\":\"x\"},"
                 "\"fields\":[{\"name\":\"m\",\"type\":\"M\"}]}]}",
                 "only S, N and B fields can be part of a key");
}

/* A mapping whose field "id" has the pattern re (JSON-escaped), in memory of its own. */
static char *with_pattern(const char *re)
{
    const char *head = "{" TABLE ",\"entities\":[{\"name\":\"A\",\"keys\":{\"pk\":\"a#{id}\","
                       "\"sk\":\"x\"},\"fields\":[{\"name\":\"id\",\"pattern\":\"";
    char *text = malloc(strlen(head) + strlen(re) + 8);
    cr_assert_not_null(text);
    sprintf(text, "%s%s\"}]}]}", head, re);
    return text;
}

/* s repeated n times, then tail */
static char *repeated(const char *s, size_t n, const char *tail)
{
    char *out = malloc(strlen(s) * n + strlen(tail) + 1), *p = out;
    cr_assert_not_null(out);
    for (size_t i = 0; i < n; i++, p += strlen(s))
        memcpy(p, s, strlen(s));
    strcpy(p, tail);
    return out;
}

/* a in n nested groups */
static char *nested(size_t n)
{
    char *out = malloc(2 * n + 2);
    cr_assert_not_null(out);
    memset(out, '(', n);
    out[n] = 'a';
    memset(out + n + 1, ')', n);
    out[2 * n + 1] = '\0';
    return out;
}

/*
 * Patterns go to glibc's regcomp, which has no bounds of its own: 30,000
 * nested groups overflowed its stack, ((a{1000}){1000}){1000} took 6 GB and
 * 100,000 alternatives 24 GB. They are measured first, and refused naming
 * the field and the limit.
 */
Test(mapping, patterns_past_the_limits_are_refused_before_compiling)
{
    char *deep = nested(30000), *alts = repeated("a|", 100000, "a"), *wide = nested(33),
         *cases[][2] = {
             {deep, "longer than 4096 bytes"},
             {"((a{1000}){1000}){1000}", "more than 10000 atoms"},
             {"(a{100}){101}", "more than 10000 atoms"},
             {"a{1001}", "a repetition count over 1000"},
             {"a{0,4294967297}", "a repetition count over 1000"},
             {alts, "longer than 4096 bytes"},
             {"", "more than 256 alternatives"},
             {wide, "groups nest deeper than 32"},
         };
    char *alts257 = repeated("a|", 257, "a");
    cases[6][0] = alts257;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *text = with_pattern(cases[i][0]);
        expect_error(text, cases[i][1]);
        cr_assert(strstr(err.message, "\"pattern\" of field \"id\" is too complex") != NULL, "%s",
                  err.message);
        free(text);
    }
    free(deep);
    free(alts);
    free(wide);
    free(alts257);
}

Test(mapping, patterns_within_the_limits_load)
{
    char *deep = nested(32), *alts = repeated("a|", 256, "a");
    const char *res[] = {deep,       alts,      "(a{99}){100}",      "[0-9]{1000}",
                         "a{1000,}", "[]{]{5}", "[[:alpha:]]{1000}", "(x\\\\({3}){1000}"};
    for (size_t i = 0; i < sizeof(res) / sizeof(res[0]); i++) {
        char *text = with_pattern(res[i]);
        ddb_mapping *m = NULL;
        cr_assert_eq(load_text(text, &m), 0, "%s: %s", res[i], err.message);
        ddb_mapping_free(m);
        free(text);
    }
    free(deep);
    free(alts);
}

Test(mapping, number_key_attribute_needs_a_single_number_field)
{
    expect_error("{\"table\":{\"name\":\"T\",\"partitionKey\":{\"name\":\"id\",\"type\":\"N\"}},"
                 "\"entities\":[{\"name\":\"A\",\"keys\":{\"id\":\"x#{n}\"},"
                 "\"fields\":[{\"name\":\"n\",\"type\":\"N\"}]}]}",
                 "must be a single {field} of type N");
}

Test(mapping, rejects_duplicate_entities_and_bad_json)
{
    expect_error(
        "{" TABLE ",\"entities\":[{\"name\":\"A\",\"keys\":{\"pk\":\"a#{id}\",\"sk\":\"x\"},"
        "\"fields\":[{\"name\":\"id\"}]},{\"name\":\"A\",\"keys\":{\"pk\":\"b#{id}\",\"sk\":\"x\"},"
        "\"fields\":[{\"name\":\"id\"}]}]}",
        "declared twice");
    expect_error("{\"table\": ", "not valid JSON");
}

Test(mapping, load_reports_missing_file)
{
    ddb_mapping *m = NULL;
    cr_assert_eq(ddb_mapping_load(&m, "/nonexistent/x.json", &err), DDB_ENOTFOUND);
    cr_assert(strstr(err.message, "/nonexistent/x.json") != NULL);
}

Test(mapping, enum_object_gives_key_spellings)
{
    ddb_mapping *m = tu_load_format("favorites.json");
    const ddb_entity *e = ddb_mapping_entity(m, "FavoriteData");
    const ddb_field *f = &e->fields[ddb_entity_field_index(e, "dataType", 8)];
    cr_assert_eq(f->n_enum, 4);
    cr_assert_str_eq(f->enum_values[0], "IMAGE");
    cr_assert_str_eq(f->enum_keys[0], "image");
    ddb_mapping_free(m);
    expect_error("{" TABLE
                 ",\"entities\":[{\"name\":\"A\",\"keys\":{\"pk\":\"a#{id}\",\"sk\":\"x\"},"
                 "\"fields\":[{\"name\":\"id\",\"enum\":{\"A\":\"a\",\"B\":\"a\"}}]}]}",
                 "same key spelling");
    expect_error("{" TABLE
                 ",\"entities\":[{\"name\":\"A\",\"keys\":{\"pk\":\"a#{id}\",\"sk\":\"x\"},"
                 "\"fields\":[{\"name\":\"id\"},{\"name\":\"n\",\"type\":\"N\","
                 "\"enum\":{\"1\":\"one\"}}]}]}",
                 "S fields only");
    expect_error("{" TABLE
                 ",\"entities\":[{\"name\":\"A\",\"keys\":{\"pk\":\"a#{id}\",\"sk\":\"x\"},"
                 "\"fields\":[{\"name\":\"id\",\"enum\":{\"A\":1}}]}]}",
                 "non-empty string");
}

/* The table's sort key named like its partition key: both key templates would
 * land in one slot (a heap overflow before this was checked). */
Test(mapping, rejects_sort_key_named_like_partition_key)
{
    expect_error("{\"table\":{\"name\":\"T\",\"partitionKey\":{\"name\":\"pk\",\"type\":\"S\"},"
                 "\"sortKey\":{\"name\":\"pk\",\"type\":\"S\"}},"
                 "\"entities\":[{\"name\":\"A\",\"keys\":{\"pk\":\"a#{id}\"},"
                 "\"fields\":[{\"name\":\"id\"}]}]}",
                 "table.sortKey: \"pk\" is already the partition key");
}

Test(mapping, rejects_other_key_name_collisions)
{
    /* an index keyed twice on one attribute */
    expect_error("{\"table\":{\"name\":\"T\",\"partitionKey\":{\"name\":\"pk\",\"type\":\"S\"},"
                 "\"indexes\":[{\"name\":\"g\",\"type\":\"GSI\",\"partitionKey\":{\"name\":\"g1\"},"
                 "\"sortKey\":{\"name\":\"g1\"}}]},"
                 "\"entities\":[{\"name\":\"A\",\"keys\":{\"pk\":\"a#{id}\"},"
                 "\"fields\":[{\"name\":\"id\"}]}]}",
                 "table.indexes[0].sortKey: \"g1\" is already the index's partition key");
    /* an LSI sorted on the partition key */
    expect_error("{"
                 "\"table\":{\"name\":\"T\",\"partitionKey\":{\"name\":\"pk\",\"type\":\"S\"},"
                 "\"sortKey\":{\"name\":\"sk\",\"type\":\"S\"},"
                 "\"indexes\":[{\"name\":\"l\",\"type\":\"LSI\",\"sortKey\":{\"name\":\"pk\"}}]},"
                 "\"entities\":[{\"name\":\"A\",\"keys\":{\"pk\":\"a#{id}\",\"sk\":\"x\"},"
                 "\"fields\":[{\"name\":\"id\"}]}]}",
                 "table.indexes[0].sortKey: \"pk\" is already the index's partition key");
    /* one attribute declared with two types */
    expect_error(
        "{\"table\":{\"name\":\"T\",\"partitionKey\":{\"name\":\"pk\",\"type\":\"S\"},"
        "\"indexes\":[{\"name\":\"g\",\"type\":\"GSI\",\"partitionKey\":{\"name\":\"g1\"}},"
        "{\"name\":\"h\",\"type\":\"GSI\",\"partitionKey\":{\"name\":\"g1\",\"type\":\"N\"}}]},"
        "\"entities\":[{\"name\":\"A\",\"keys\":{\"pk\":\"a#{id}\"},"
        "\"fields\":[{\"name\":\"id\"}]}]}",
        "table.indexes[1].partitionKey: \"g1\" is type N here but S in table.indexes[0]");
    /* the entity-type attribute is a key attribute */
    expect_error("{\"table\":{\"name\":\"T\",\"partitionKey\":{\"name\":\"pk\",\"type\":\"S\"},"
                 "\"sortKey\":{\"name\":\"sk\",\"type\":\"S\"},\"entityTypeAttribute\":\"sk\"},"
                 "\"entities\":[{\"name\":\"A\",\"keys\":{\"pk\":\"a#{id}\",\"sk\":\"x\"},"
                 "\"fields\":[{\"name\":\"id\"}]}]}",
                 "table.entityTypeAttribute: \"sk\" is a key attribute");
    expect_error("{\"table\":{\"name\":\"T\",\"partitionKey\":{\"name\":\"pk\",\"type\":\"S\"},"
                 "\"entityTypeAttribute\":\"g1\",\"indexes\":[{\"name\":\"g\",\"type\":\"GSI\","
                 "\"partitionKey\":{\"name\":\"g1\"}}]},"
                 "\"entities\":[{\"name\":\"A\",\"keys\":{\"pk\":\"a#{id}\"},"
                 "\"fields\":[{\"name\":\"id\"}]}]}",
                 "table.entityTypeAttribute: \"g1\" is a key attribute");
    /* a computed attribute (not a table key) named like the entity-type attribute */
    expect_error("{\"table\":{\"name\":\"T\",\"partitionKey\":{\"name\":\"pk\",\"type\":\"S\"},"
                 "\"entityTypeAttribute\":\"kind\"},"
                 "\"entities\":[{\"name\":\"A\",\"keys\":{\"pk\":\"a#{id}\",\"kind\":\"{id}\"},"
                 "\"fields\":[{\"name\":\"id\"}]}]}",
                 "entities[0].keys.kind: the entity-type attribute cannot be computed");
}

/* What json-c forgives by default is refused: a name given twice (json-c kept
 * the last, so a second "fields" dropped the first's), a trailing comma; and
 * an empty or cut file says so rather than "continue". */
Test(mapping, rejects_repeated_names_trailing_commas_and_cut_files)
{
    expect_error("{" TABLE
                 ",\"entities\":[{\"name\":\"A\",\"keys\":{\"pk\":\"a#{id}\",\"sk\":\"x\"},"
                 "\"fields\":[{\"name\":\"id\"}],\"fields\":[{\"name\":\"other\"}]}]}",
                 "\"fields\" is given twice in one object");
    expect_error("{" TABLE "," TABLE
                 ",\"entities\":[{\"name\":\"A\",\"keys\":{\"pk\":\"a#{id}\",\"sk\":\"x\"},"
                 "\"fields\":[{\"name\":\"id\"}]}]}",
                 "\"table\" is given twice");
    expect_error("{" TABLE
                 ",\"entities\":[{\"name\":\"A\",\"keys\":{\"pk\":\"a#{id}\",\"sk\":\"x\"},"
                 "\"fields\":[{\"name\":\"id\"},]}]}",
                 "not valid JSON");
    expect_error("", "the file ends before the JSON document does (empty");
    expect_error("{" TABLE ",\"entities\":[", "cut short at byte");
}

Test(mapping, rejects_text_after_the_document)
{
    expect_error("{" TABLE
                 ",\"entities\":[{\"name\":\"A\",\"keys\":{\"pk\":\"a#{id}\",\"sk\":\"x\"},"
                 "\"fields\":[{\"name\":\"id\"}]}]} {\"more\":1}",
                 "text after the JSON document (byte");
    expect_error("{" TABLE
                 ",\"entities\":[{\"name\":\"A\",\"keys\":{\"pk\":\"a#{id}\",\"sk\":\"x\"},"
                 "\"fields\":[{\"name\":\"id\"}]}]}x",
                 "text after the JSON document");
    /* whitespace after it is fine */
    {
        ddb_mapping *m = NULL;
        cr_assert_eq(
            load_text("{" TABLE ",\"entities\":[{\"name\":\"A\",\"keys\":{\"pk\":"
                      "\"a#{id}\",\"sk\":\"x\"},\"fields\":[{\"name\":\"id\"}]}]}\n \t\r\n",
                      &m),
            0, "%s", err.message);
        ddb_mapping_free(m);
    }
}

/* A mapping whose entity A has a second field, field then decl (JSON members). */
static char *with_field(const char *field, const char *decl)
{
    const char *head = "{" TABLE ",\"entities\":[{\"name\":\"A\",\"keys\":{\"pk\":\"a#{id}\","
                       "\"sk\":\"x\"},\"fields\":[{\"name\":\"id\"},{";
    char *text = malloc(strlen(head) + strlen(field) + strlen(decl) + 16);
    cr_assert_not_null(text);
    sprintf(text, "%s%s%s}]}]}", head, field, decl);
    return text;
}

/* A mapping whose entity A has the N field "n" declared by decl (JSON members). */
static char *with_decimal(const char *decl)
{
    return with_field("\"name\":\"n\",\"type\":\"N\"", decl);
}

Test(mapping, n_fields_declare_precision_and_scale)
{
    static const struct {
        const char *decl;
        int precision, scale;
    } ok[] = {{"", 0, 0},
              {",\"precision\":5,\"scale\":2", 5, 2},
              {",\"precision\":18", 18, 0},
              {",\"integer\":true", 38, 0},
              {",\"integer\":false", 0, 0},
              {",\"scale\":10", 38, 10},
              {",\"precision\":1,\"scale\":1,\"integer\":false", 1, 1},
              {",\"precision\":38,\"scale\":38", 38, 38}};
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        char *text = with_decimal(ok[i].decl);
        ddb_mapping *m = NULL;
        cr_assert_eq(load_text(text, &m), 0, "%s: %s", ok[i].decl, err.message);
        cr_assert_eq(m->entities[0].fields[1].precision, ok[i].precision, "%s", ok[i].decl);
        cr_assert_eq(m->entities[0].fields[1].scale, ok[i].scale, "%s", ok[i].decl);
        ddb_mapping_free(m);
        free(text);
    }
}

Test(mapping, refuses_bad_decimal_declarations)
{
    static const char *const bad[][2] = {
        {",\"precision\":0", "\"precision\" must be a whole number from 1 to 38"},
        {",\"precision\":39", "\"precision\" must be a whole number from 1 to 38"},
        {",\"precision\":\"5\"", "\"precision\" must be a whole number from 1 to 38"},
        {",\"precision\":5.5", "\"precision\" must be a whole number from 1 to 38"},
        {",\"precision\":5,\"scale\":6", "\"scale\" must be a whole number from 0 to the "
                                         "precision (5)"},
        {",\"scale\":-1", "\"scale\" must be a whole number from 0 to the precision (38)"},
        {",\"integer\":1", "\"integer\" must be true or false"},
        {",\"integer\":true,\"scale\":2", "\"integer\": true means \"scale\": 0, not 2"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char *text = with_decimal(bad[i][0]);
        expect_error(text, bad[i][1]);
        cr_assert(strstr(err.message, "fields[1]") != NULL || strstr(err.message, "\"n\"") ||
                      strstr(err.message, ".n") != NULL,
                  "no field named: %s", err.message);
        free(text);
    }
    expect_error("{" TABLE
                 ",\"entities\":[{\"name\":\"A\",\"keys\":{\"pk\":\"a#{id}\",\"sk\":\"x\"},"
                 "\"fields\":[{\"name\":\"id\",\"precision\":5}]}]}",
                 "apply to N fields only");
}

/* A mapping whose entity A has the field "info" declared by decl. */
static char *with_map(const char *decl)
{
    return with_field("\"name\":\"info\"", decl);
}

Test(mapping, m_fields_declare_their_members)
{
    char *text = with_map(",\"type\":\"M\",\"fields\":[{\"name\":\"rating\",\"type\":\"N\","
                          "\"precision\":3,\"scale\":1},{\"name\":\"genres\",\"type\":\"SS\"},"
                          "{\"name\":\"raw\",\"type\":\"M\",\"description\":\"JSON\"}]");
    ddb_mapping *m = NULL;
    const ddb_field *f;
    cr_assert_eq(load_text(text, &m), 0, "%s", err.message);
    f = &m->entities[0].fields[1];
    cr_assert_eq(f->n_members, 3);
    cr_assert_str_eq(f->members[0].name, "rating");
    cr_assert_eq(f->members[0].name_len, 6);
    cr_assert_eq(f->members[0].type, DDB_TYPE_N);
    cr_assert_eq(f->members[0].precision, 3);
    cr_assert_eq(f->members[0].scale, 1);
    cr_assert_eq(f->members[1].type, DDB_TYPE_SS);
    cr_assert_eq(f->members[2].type, DDB_TYPE_M);
    cr_assert_eq(f->members[2].n_members, 0);
    ddb_mapping_free(m);
    free(text);
}

Test(mapping, refuses_bad_member_declarations)
{
    static const char *const bad[][2] = {
        {",\"type\":\"L\",\"fields\":[{\"name\":\"a\",\"type\":\"S\"}]",
         "\"fields\" declares a map's members: M fields only"},
        {",\"fields\":[{\"name\":\"a\",\"type\":\"S\"}]", "M fields only"},
        {",\"type\":\"M\",\"fields\":[]", "\"fields\" must be a non-empty array"},
        {",\"type\":\"M\",\"fields\":{\"a\":\"S\"}", "\"fields\" must be a non-empty array"},
        {",\"type\":\"M\",\"fields\":[\"a\"]", "fields[1].fields[0]: must be an object"},
        {",\"type\":\"M\",\"fields\":[{\"type\":\"S\"}]", "missing \"name\""},
        {",\"type\":\"M\",\"fields\":[{\"name\":\"\",\"type\":\"S\"}]",
         "\"name\" must not be empty"},
        {",\"type\":\"M\",\"fields\":[{\"name\":\"a\"}]", "missing \"type\""},
        {",\"type\":\"M\",\"fields\":[{\"name\":\"a\",\"type\":\"X\"}]", "unknown type \"X\""},
        {",\"type\":\"M\",\"fields\":[{\"name\":\"a\",\"type\":\"S\"},{\"name\":\"a\","
         "\"type\":\"N\"}]",
         "member \"a\" is declared twice"},
        {",\"type\":\"M\",\"fields\":[{\"name\":\"a\",\"type\":\"S\",\"precision\":3}]",
         "apply to N fields only"},
        {",\"type\":\"M\",\"fields\":[{\"name\":\"a\",\"type\":\"N\",\"precision\":39}]",
         "\"precision\" must be a whole number from 1 to 38"},
        {",\"type\":\"M\",\"fields\":[{\"name\":\"a\",\"type\":\"S\",\"required\":true}]",
         "unknown property \"required\""},
        {",\"type\":\"M\",\"fields\":[{\"name\":\"a\",\"type\":\"M\",\"fields\":[{\"name\":"
         "\"b\",\"type\":\"S\"}]}]",
         "cannot declare \"fields\" of their own"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char *text = with_map(bad[i][0]);
        expect_error(text, bad[i][1]);
        free(text);
    }
}

/* A declared DECIMAL is a constraint: a value it cannot hold as it is is
 * rejected with the reason, on decode and on encode; one it holds passes. */
Test(mapping, declared_decimal_rejects_what_it_cannot_hold)
{
    static const struct {
        const char *n;
        const char *why; /* NULL: fits DECIMAL(5,2) */
    } cases[] = {{"123.45", NULL},
                 {"-999.99", NULL},
                 {"0.5", NULL},
                 {"1.50000", NULL},
                 {"0", NULL},
                 {"-0.00E+9", NULL},
                 {"12E-2", NULL},
                 {"123.456", "has 3 digits after the point, more than its scale 2"},
                 {"1E-3", "has 3 digits after the point, more than its scale 2"},
                 {"1000", "has 4 digits before the point, more than DECIMAL(5,2) holds (3)"},
                 {"1E+3", "has 4 digits before the point, more than DECIMAL(5,2) holds (3)"}};
    char *text = with_decimal(",\"precision\":5,\"scale\":2");
    ddb_mapping *m = NULL;
    ddb_arena *a;
    cr_assert_eq(load_text(text, &m), 0, "%s", err.message);
    cr_assert_eq(ddb_arena_new(&a, 0), 0);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char item_text[200], rec_text[200];
        ddb_map item, rec;
        ddb_decoded d;
        ddb_item out;
        int rc;
        snprintf(item_text, sizeof(item_text),
                 "{\"pk\":{\"S\":\"a#1\"},\"sk\":{\"S\":\"x\"},\"n\":{\"N\":\"%s\"}}", cases[i].n);
        snprintf(rec_text, sizeof(rec_text), "{\"id\":\"1\",\"n\":%s}", cases[i].n);
        item = tu_item(a, item_text);
        ddb_error_clear(&err);
        rc = ddb_transform_decode(&d, m, &item, a, &err);
        rec = tu_plain(a, rec_text);
        if (cases[i].why == NULL) {
            cr_assert_eq(rc, 0, "%s: %s", cases[i].n, err.message);
            rc = ddb_transform_encode(&out, m, &m->entities[0], &rec, 0, a, &err);
            cr_assert_eq(rc, 0, "%s: %s", cases[i].n, err.message);
            continue;
        }
        cr_assert_eq(rc, DDB_EINVAL, "%s decoded", cases[i].n);
        cr_assert(strstr(err.message, "field n: ") && strstr(err.message, cases[i].why), "%s: %s",
                  cases[i].n, err.message);
        ddb_error_clear(&err);
        rc = ddb_transform_encode(&out, m, &m->entities[0], &rec, 0, a, &err);
        cr_assert_eq(rc, DDB_EINVAL, "%s encoded", cases[i].n);
        cr_assert(strstr(err.message, cases[i].why), "%s: %s", cases[i].n, err.message);
    }
    ddb_arena_free(a);
    ddb_mapping_free(m);
    free(text);
}

/* A pattern's matches are remembered per field (regexec is slow): what one
 * field's pattern matched is never taken for another field's, a refused value
 * stays refused however often it comes, and across many values (the memo
 * evicting) every verdict is regexec's own. */
Test(mapping, remembered_pattern_matches_are_exact)
{
    const char *text = "{" TABLE ",\"entities\":[{\"name\":\"A\",\"keys\":{\"pk\":\"a#{id}\","
                       "\"sk\":\"x\"},\"fields\":[{\"name\":\"id\",\"pattern\":\"[0-9]{4}\"},"
                       "{\"name\":\"w\",\"pattern\":\"[a-z0-9]{3}[a-z]\"}]}]}";
    ddb_mapping *m = NULL;
    const ddb_field *digits, *word;
    ddb_error e;

    cr_assert_eq(load_text(text, &m), 0, "%s", err.message);
    digits = &m->entities[0].fields[0];
    word = &m->entities[0].fields[1];
    for (int round = 0; round < 3; round++) {
        cr_assert(ddb_field_accepts_text(digits, "2024", 4, &e));
        cr_assert_not(ddb_field_accepts_text(word, "2024", 4, &e), "round %d", round);
        cr_assert(ddb_field_accepts_text(word, "202a", 4, &e));
        cr_assert_not(ddb_field_accepts_text(digits, "202a", 4, &e), "round %d", round);
        cr_assert_not(ddb_field_accepts_text(digits, "20245", 5, &e));
        cr_assert_not(ddb_field_accepts_text(digits, "2024\0", 5, &e));
    }
    /* 5,000 values, a third refused by each: each verdict as the pattern says */
    for (unsigned i = 0; i < 5000; i++) {
        char v[8];
        int n = snprintf(v, sizeof(v), i % 3 ? "%04u" : "%03ux", i % 10000);
        int want_digits = i % 3 != 0 && n == 4, want_word = n == 4 && i % 3 == 0;
        cr_assert_eq(ddb_field_accepts_text(digits, v, (size_t)n, &e), want_digits, "%s", v);
        cr_assert_eq(ddb_field_accepts_text(word, v, (size_t)n, &e), want_word, "%s", v);
        cr_assert_eq(ddb_field_accepts_text(digits, v, (size_t)n, &e), want_digits, "%s again", v);
    }
    /* the same mapping with other patterns, loaded once the first is freed:
     * nothing remembered holds for it, wherever its fields are (a field's
     * address may be the freed one's; the memo goes by the pattern's id) */
    cr_assert(ddb_field_accepts_text(digits, "2024", 4, &e));
    ddb_mapping_free(m);
    m = NULL;
    {
        char *other = strdup(text), *at;
        cr_assert_not_null(other);
        at = strstr(other, "[0-9]{4}");
        memcpy(at, "[a-z]{4}", 8);
        cr_assert_eq(load_text(other, &m), 0, "%s", err.message);
        free(other);
    }
    cr_assert_not(ddb_field_accepts_text(&m->entities[0].fields[0], "2024", 4, &e));
    cr_assert(ddb_field_accepts_text(&m->entities[0].fields[0], "abcd", 4, &e));
    ddb_mapping_free(m);
}
