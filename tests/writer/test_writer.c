/*
 * test_writer.c — the record writers (NDJSON, CSV, DynamoDB JSON) over a
 * memory sink: declared fields, "_extra", field order, quoting, cell text.
 */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "ddbpipe/csv.h"
#include "ddbpipe/json.h"
#include "ddbpipe/writer.h"
#include "write/csv_cell.h"
#include "support/outputs.h"
#include "support/testutil.h"

static ddb_mapping *fav, *mov;
static ddb_arena *a;

static void setup(void)
{
    fav = tu_load_fixture("favorites-padded.json");
    mov = tu_load_fixture("movies-gsi3.json");
    cr_assert_eq(ddb_arena_new(&a, 0), 0);
}

static void teardown(void)
{
    ddb_mapping_free(fav);
    ddb_mapping_free(mov);
    ddb_arena_free(a);
}

TestSuite(writer, .init = setup, .fini = teardown);

static const ddb_entity *entity(const ddb_mapping *m, const char *name)
{
    const ddb_entity *e = ddb_mapping_entity(m, name);
    cr_assert_not_null(e, "no entity %s", name);
    return e;
}

static void put(ddb_writer *w, const char *typed, size_t n_declared)
{
    ddb_map rec = tu_item(a, typed);
    ddb_error err;
    cr_assert_eq(ddb_writer_write(w, &rec, n_declared, &err), 0, "%s", err.message);
}

/* Everything the writer produced so far (after finishing it). */
static void expect_output(ddb_writer *w, const char *want)
{
    tu_expect_writer_output(w, want);
}

/* ---------------------------------------------------------------- NDJSON */

Test(writer, ndjson_entity_declared_plain_undeclared_typed)
{
    ddb_writer *w = tu_memory_writer(DDB_OUT_NDJSON, entity(fav, "Tag"), NULL);
    put(w,
        "{\"userId\":{\"S\":\"u1\"},\"tagId\":{\"S\":\"t1\"},\"createTime\":{\"N\":"
        "\"1600000000000\"},"
        "\"legacy\":{\"NS\":[\"1\",\"2\"]},\"note\":{\"NULL\":true}}",
        3);
    put(w, "{\"userId\":{\"S\":\"u2\"},\"tagId\":{\"S\":\"t2\"}}", 2);
    expect_output(w, "{\"userId\":\"u1\",\"tagId\":\"t1\",\"createTime\":1600000000000,"
                     "\"_extra\":{\"legacy\":{\"NS\":[\"1\",\"2\"]},\"note\":{\"NULL\":true}}}\n"
                     "{\"userId\":\"u2\",\"tagId\":\"t2\"}\n");
    cr_assert_eq(w->records, 2);
    ddb_writer_free(w);
}

Test(writer, extra_plain_writes_undeclared_attributes_as_plain_json)
{
    ddb_writer_opts o = {.extra_plain = 1};
    ddb_writer *w = tu_memory_writer(DDB_OUT_NDJSON, entity(fav, "Tag"), &o);
    const char *rec = "{\"userId\":{\"S\":\"u1\"},\"tagId\":{\"S\":\"t1\"},"
                      "\"big\":{\"N\":\"12345678901234567890123456789012345678\"},"
                      "\"legacy\":{\"NS\":[\"1\",\"2\"]},\"note\":{\"NULL\":true}}";
    put(w, rec, 2);
    expect_output(w, "{\"userId\":\"u1\",\"tagId\":\"t1\",\"_extra\":{"
                     "\"big\":12345678901234567890123456789012345678,\"legacy\":[1,2],"
                     "\"note\":null}}\n");
    ddb_writer_free(w);
    w = tu_memory_writer(DDB_OUT_CSV, entity(fav, "Tag"), &o);
    put(w, rec, 2);
    expect_output(w, "userId,tagId,tagName,createTime,lastAccessTime,_extra\n"
                     "u1,t1,,,,\"{\"\"big\"\":12345678901234567890123456789012345678,"
                     "\"\"legacy\"\":[1,2],\"\"note\"\":null}\"\n");
    ddb_writer_free(w);
}

/* A decoded record names its fields with the mapping's own strings: those
 * names are written as kept, once escaped; a name that is not the mapping's
 * string (a copy) is escaped as it comes, and both read the same. */
Test(writer, ndjson_entity_names_as_kept_and_as_copies)
{
    const ddb_entity *e = entity(fav, "Tag");
    ddb_writer *w = tu_memory_writer(DDB_OUT_NDJSON, e, NULL);
    char copy[64];
    ddb_attr attrs[3];
    ddb_map rec = {attrs, 3};
    ddb_error err;
    snprintf(copy, sizeof(copy), "%s", e->fields[2].name);
    /* fields 0, 2 (as a copy) and 4 of the five */
    attrs[0].name = (ddb_str){e->fields[0].name, e->fields[0].name_len};
    attrs[0].value = ddb_value_str(DDB_TYPE_S, "u1", 2);
    attrs[1].name = (ddb_str){copy, strlen(copy)};
    attrs[1].value = ddb_value_str(DDB_TYPE_S, "n", 1);
    attrs[2].name = (ddb_str){e->fields[4].name, e->fields[4].name_len};
    attrs[2].value = ddb_value_str(DDB_TYPE_N, "7", 1);
    cr_assert_eq(ddb_writer_write(w, &rec, 3, &err), 0, "%s", err.message);
    /* and all five as kept */
    {
        ddb_attr all[5];
        ddb_map full = {all, 5};
        for (size_t i = 0; i < 5; i++) {
            all[i].name = (ddb_str){e->fields[i].name, e->fields[i].name_len};
            all[i].value = ddb_value_str(DDB_TYPE_S, "v", 1);
        }
        all[3].value = ddb_value_str(DDB_TYPE_N, "1", 1);
        all[4].value = ddb_value_str(DDB_TYPE_N, "2", 1);
        cr_assert_eq(ddb_writer_write(w, &full, 5, &err), 0, "%s", err.message);
    }
    expect_output(w, "{\"userId\":\"u1\",\"tagName\":\"n\",\"lastAccessTime\":7}\n"
                     "{\"userId\":\"v\",\"tagId\":\"v\",\"tagName\":\"v\",\"createTime\":1,"
                     "\"lastAccessTime\":2}\n");
    ddb_writer_free(w);
}

Test(writer, ndjson_entity_declared_types_as_plain_json)
{
    ddb_writer *w = tu_memory_writer(DDB_OUT_NDJSON, entity(mov, "Movie"), NULL);
    put(w,
        "{\"movieId\":{\"S\":\"m1\"},\"budget\":{\"N\":\"12345678901234567890123456789012345678\"},"
        "\"genres\":{\"SS\":[\"a\",\"b\"]},\"ratings\":{\"M\":{\"imdb\":{\"N\":\"8.1\"}}},"
        "\"poster\":{\"B\":\"AAH/\"},\"released\":{\"NULL\":true}}",
        6);
    expect_output(w, "{\"movieId\":\"m1\",\"budget\":12345678901234567890123456789012345678,"
                     "\"genres\":[\"a\",\"b\"],\"ratings\":{\"imdb\":8.1},\"poster\":\"AAH/\","
                     "\"released\":null}\n");
    ddb_writer_free(w);
}

Test(writer, ndjson_only_undeclared)
{
    ddb_writer *w = tu_memory_writer(DDB_OUT_NDJSON, entity(fav, "Tag"), NULL);
    put(w, "{\"x\":{\"S\":\"1\"}}", 0);
    expect_output(w, "{\"_extra\":{\"x\":{\"S\":\"1\"}}}\n");
    ddb_writer_free(w);
}

Test(writer, ndjson_without_entity_is_plain)
{
    ddb_writer *w = tu_memory_writer(DDB_OUT_NDJSON, NULL, NULL);
    put(w,
        "{\"a\":{\"S\":\"x\"},\"n\":{\"N\":\"1.0\"},\"m\":{\"M\":{\"l\":{\"L\":[{\"BOOL\":true},"
        "{\"NULL\":true}]}}},\"b\":{\"B\":\"AAH/\"},\"ss\":{\"SS\":[\"q\"]}}",
        0);
    expect_output(w, "{\"a\":\"x\",\"n\":1.0,\"m\":{\"l\":[true,null]},\"b\":\"AAH/\","
                     "\"ss\":[\"q\"]}\n");
    ddb_writer_free(w);
}

/* ------------------------------------------------------------------- CSV */

#define TAG_HEADER "userId,tagId,tagName,createTime,lastAccessTime,_extra\n"

Test(writer, csv_entity_header_without_records)
{
    ddb_writer *w = tu_memory_writer(DDB_OUT_CSV, entity(fav, "Tag"), NULL);
    expect_output(w, TAG_HEADER);
    cr_assert_eq(w->records, 0, "the header is not a record");
    ddb_writer_free(w);
}

Test(writer, csv_entity_sparse_record_follows_field_order)
{
    ddb_writer *w = tu_memory_writer(DDB_OUT_CSV, entity(fav, "Tag"), NULL);
    put(w, "{\"userId\":{\"S\":\"u1\"},\"createTime\":{\"N\":\"5\"}}", 2);
    put(w, "{\"tagId\":{\"S\":\"t2\"},\"lastAccessTime\":{\"N\":\"7\"},\"zz\":{\"S\":\"q\"}}", 2);
    put(w,
        "{\"userId\":{\"S\":\"u3\"},\"tagId\":{\"S\":\"t3\"},\"tagName\":{\"S\":\"n\"},"
        "\"createTime\":{\"N\":\"1\"},\"lastAccessTime\":{\"N\":\"2\"}}",
        5);
    expect_output(w, TAG_HEADER "u1,,,5,,\n"
                                ",t2,,,7,\"{\"\"zz\"\":{\"\"S\"\":\"\"q\"\"}}\"\n"
                                "u3,t3,n,1,2,\n");
    cr_assert_eq(w->records, 3);
    ddb_writer_free(w);
}

Test(writer, csv_entity_null_goes_to_extra)
{
    ddb_writer *w = tu_memory_writer(DDB_OUT_CSV, entity(fav, "Tag"), NULL);
    put(w, "{\"userId\":{\"S\":\"u1\"},\"tagName\":{\"NULL\":true}}", 2);
    expect_output(w, TAG_HEADER "u1,,,,,\"{\"\"tagName\"\":{\"\"NULL\"\":true}}\"\n");
    ddb_writer_free(w);
}

Test(writer, csv_entity_empty_string_is_quoted)
{
    ddb_writer *w = tu_memory_writer(DDB_OUT_CSV, entity(fav, "Tag"), NULL);
    put(w, "{\"userId\":{\"S\":\"u1\"},\"tagName\":{\"S\":\"\"}}", 2);
    expect_output(w, TAG_HEADER "u1,,\"\",,,\n");
    ddb_writer_free(w);
}

Test(writer, csv_entity_quoting)
{
    ddb_writer *w = tu_memory_writer(DDB_OUT_CSV, entity(fav, "Tag"), NULL);
    put(w,
        "{\"userId\":{\"S\":\"u,1\"},\"tagId\":{\"S\":\"say \\\"hi\\\"\"},"
        "\"tagName\":{\"S\":\"two\\nlines\"}}",
        3);
    expect_output(w, TAG_HEADER "\"u,1\",\"say \"\"hi\"\"\",\"two\nlines\",,,\n");
    ddb_writer_free(w);
}

Test(writer, csv_entity_collections_as_json_and_binary_as_base64)
{
    ddb_writer *w = tu_memory_writer(DDB_OUT_CSV, entity(mov, "Movie"), NULL);
    put(w,
        "{\"movieId\":{\"S\":\"m1\"},\"title\":{\"S\":\"T\"},"
        "\"budget\":{\"N\":\"12345678901234567890123456789012345678\"},"
        "\"genres\":{\"SS\":[\"a\",\"b\"]},\"ratings\":{\"M\":{\"imdb\":{\"N\":\"8.1\"}}},"
        "\"poster\":{\"B\":\"AAH/\"},\"released\":{\"BOOL\":false}}",
        7);
    expect_output(w, "movieId,title,releaseYear,runtimeMinutes,budget,genres,ratings,poster,"
                     "released,_extra\n"
                     "m1,T,,,12345678901234567890123456789012345678,\"[\"\"a\"\",\"\"b\"\"]\","
                     "\"{\"\"imdb\"\":8.1}\",AAH/,false,\n");
    ddb_writer_free(w);
}

Test(writer, csv_entity_number_and_binary_sets)
{
    ddb_writer *w = tu_memory_writer(DDB_OUT_CSV, entity(mov, "Actor"), NULL);
    put(w,
        "{\"actorId\":{\"S\":\"a1\"},\"name\":{\"S\":\"N\"},"
        "\"awardYears\":{\"NS\":[\"1999\",\"2004\"]},"
        "\"aliases\":{\"L\":[{\"S\":\"x\"},{\"N\":\"2\"},{\"M\":{}}]},"
        "\"signature\":{\"BS\":[\"AAH/\",\"AQ==\"]}}",
        5);
    expect_output(
        w, "actorId,name,birthDate,birthCountry,birthRegion,birthCity,awardYears,"
           "aliases,signature,_extra\n"
           "a1,N,,,,,\"[1999,2004]\",\"[\"\"x\"\",2,{}]\",\"[\"\"AAH/\"\",\"\"AQ==\"\"]\",\n");
    ddb_writer_free(w);
}

Test(writer, csv_entity_custom_delimiter)
{
    ddb_writer_opts o = {.delimiter = ';'};
    ddb_writer *w = tu_memory_writer(DDB_OUT_CSV, entity(fav, "Tag"), &o);
    put(w, "{\"userId\":{\"S\":\"a,b\"},\"tagId\":{\"S\":\"c;d\"}}", 2);
    expect_output(w, "userId;tagId;tagName;createTime;lastAccessTime;_extra\n"
                     "a,b;\"c;d\";;;;\n");
    ddb_writer_free(w);
}

Test(writer, csv_without_entity_columns_from_first_record)
{
    ddb_writer *w = tu_memory_writer(DDB_OUT_CSV, NULL, NULL);
    put(w, "{\"a\":{\"S\":\"1\"},\"b\":{\"S\":\"x\"}}", 0);
    put(w, "{\"b\":{\"S\":\"y\"},\"c\":{\"N\":\"3\"},\"a\":{\"S\":\"2\"}}", 0);
    put(w, "{\"a\":{\"NULL\":true},\"b\":{\"S\":\"\"}}", 0);
    put(w, "{\"d\":{\"BOOL\":true}}", 0);
    expect_output(w, "a,b,_extra\n"
                     "1,x,\n"
                     "2,y,\"{\"\"c\"\":{\"\"N\"\":\"\"3\"\"}}\"\n"
                     ",\"\",\"{\"\"a\"\":{\"\"NULL\"\":true}}\"\n"
                     ",,\"{\"\"d\"\":{\"\"BOOL\"\":true}}\"\n");
    cr_assert_eq(w->records, 4);
    ddb_writer_free(w);
}

Test(writer, csv_without_entity_given_columns)
{
    const char *cols[] = {"x", "y"};
    ddb_writer_opts o = {.columns = cols, .n_columns = 2};
    ddb_writer *w = tu_memory_writer(DDB_OUT_CSV, NULL, &o);
    put(w, "{\"y\":{\"S\":\"2\"},\"z\":{\"S\":\"3\"}}", 0);
    expect_output(w, "x,y,_extra\n"
                     ",2,\"{\"\"z\"\":{\"\"S\"\":\"\"3\"\"}}\"\n");
    ddb_writer_free(w);
}

/* Columns are found by name through a table: names that share its hash
 * (same length, first and last byte), attributes in any order, a name given
 * twice (both columns hold it) and many columns, each cell where a search
 * would put it. */
Test(writer, csv_without_entity_columns_found_by_name)
{
    const char *cols[] = {"ab_c", "axxc", "a", "ayyc", "a", "zz"};
    ddb_writer_opts o = {.columns = cols, .n_columns = 6};
    ddb_writer *w = tu_memory_writer(DDB_OUT_CSV, NULL, &o);
    put(w,
        "{\"ayyc\":{\"S\":\"3\"},\"a\":{\"S\":\"1\"},\"ab_c\":{\"S\":\"0\"},"
        "\"axxd\":{\"S\":\"9\"}}",
        0);
    put(w, "{\"zz\":{\"S\":\"z\"},\"axxc\":{\"S\":\"x\"}}", 0);
    expect_output(w, "ab_c,axxc,a,ayyc,a,zz,_extra\n"
                     "0,,1,3,1,,\"{\"\"axxd\"\":{\"\"S\"\":\"\"9\"\"}}\"\n"
                     ",x,,,,z,\n");
    ddb_writer_free(w);
}

/* Appending to a file whose header was not given: no columns, so every
 * attribute goes to _extra (the column table is never made). */
Test(writer, csv_without_entity_appending_without_columns)
{
    ddb_writer_opts o = {.appending = 1};
    ddb_writer *w = tu_memory_writer(DDB_OUT_CSV, NULL, &o);
    put(w, "{\"a\":{\"S\":\"x\"}}", 0);
    expect_output(w, "\"{\"\"a\"\":{\"\"S\"\":\"\"x\"\"}}\"\n");
    ddb_writer_free(w);
}

Test(writer, csv_without_entity_many_columns)
{
    char names[300][8], json[300 * 24 + 2];
    const char *cols[300];
    ddb_writer_opts o = {.columns = cols, .n_columns = 300};
    ddb_writer *w;
    ddb_buf want = DDB_BUF_INIT;
    size_t n = 0;
    for (int i = 0; i < 300; i++) {
        snprintf(names[i], sizeof(names[i]), "c%d", i);
        cols[i] = names[i];
    }
    w = tu_memory_writer(DDB_OUT_CSV, NULL, &o);
    /* every third column, backwards */
    json[n++] = '{';
    for (int i = 299; i >= 0; i -= 3)
        n += (size_t)snprintf(json + n, sizeof(json) - n, "%s\"c%d\":{\"N\":\"%d\"}",
                              n > 1 ? "," : "", i, i);
    snprintf(json + n, sizeof(json) - n, "}");
    put(w, json, 0);
    for (int i = 0; i < 300; i++)
        ddb_buf_printf(&want, "c%d,", i);
    ddb_buf_puts(&want, "_extra\n");
    for (int i = 0; i < 300; i++) {
        if ((299 - i) % 3 == 0)
            ddb_buf_printf(&want, "%d", i);
        ddb_buf_putc(&want, ',');
    }
    ddb_buf_putc(&want, '\n');
    expect_output(w, want.ptr);
    ddb_buf_dispose(&want);
    ddb_writer_free(w);
}

Test(writer, csv_without_entity_no_records_no_header)
{
    /* the columns come from the first record: nothing to write without one */
    ddb_writer *w = tu_memory_writer(DDB_OUT_CSV, NULL, NULL);
    expect_output(w, "");
    ddb_writer_free(w);
}

/* --------------------------------------------------------- DynamoDB JSON */

Test(writer, ddbjson_is_item_envelope)
{
    ddb_writer *w = tu_memory_writer(DDB_OUT_DDBJSON, NULL, NULL);
    put(w, "{\"a\":{\"S\":\"x\"},\"n\":{\"N\":\"1\"},\"b\":{\"B\":\"AQ==\"}}", 0);
    put(w, "{\"l\":{\"L\":[{\"NULL\":true},{\"SS\":[\"p\"]}]}}", 0);
    expect_output(w, "{\"Item\":{\"a\":{\"S\":\"x\"},\"n\":{\"N\":\"1\"},\"b\":{\"B\":\"AQ==\"}}}\n"
                     "{\"Item\":{\"l\":{\"L\":[{\"NULL\":true},{\"SS\":[\"p\"]}]}}}\n");
    cr_assert_eq(w->records, 2);
    ddb_writer_free(w);
}

Test(writer, ddbjson_with_entity_still_writes_the_item)
{
    ddb_writer *w = tu_memory_writer(DDB_OUT_DDBJSON, entity(fav, "Tag"), NULL);
    put(w, "{\"pk\":{\"S\":\"Tag#u1\"},\"sk\":{\"S\":\"t1\"}}", 0);
    expect_output(w, "{\"Item\":{\"pk\":{\"S\":\"Tag#u1\"},\"sk\":{\"S\":\"t1\"}}}\n");
    ddb_writer_free(w);
}

/* ---------------------------------------------------------------- helpers */

Test(writer, csv_cell_text)
{
    ddb_buf b = DDB_BUF_INIT;
    ddb_map m =
        tu_item(a, "{\"s\":{\"S\":\"a,\\\"b\"},\"n\":{\"N\":\"-1.50\"},\"b\":{\"B\":\"AAH/\"},"
                   "\"t\":{\"BOOL\":true},\"ns\":{\"NS\":[\"1\",\"2.5\"]},"
                   "\"m\":{\"M\":{\"k\":{\"L\":[{\"S\":\"v\"}]}}}}");
    const char *want[] = {"a,\"b", "-1.50", "AAH/", "true", "[1,2.5]", "{\"k\":[\"v\"]}"};
    for (size_t i = 0; i < m.count; i++) {
        ddb_buf_clear(&b);
        cr_assert_eq(ddb_csv_cell_text(&b, &m.attrs[i].value), 0);
        cr_assert_eq(b.len, strlen(want[i]), "%zu: %s", i, b.ptr ? b.ptr : "");
        cr_assert_eq(memcmp(b.ptr, want[i], b.len), 0, "%zu: %s", i, b.ptr);
    }
    ddb_buf_dispose(&b);
}

Test(writer, out_format_names)
{
    ddb_out_format f;
    cr_assert_str_eq(ddb_out_format_name(DDB_OUT_CSV), "csv");
    cr_assert_str_eq(ddb_out_format_ext(DDB_OUT_DDBJSON), "json");
    cr_assert_str_eq(ddb_out_format_ext(DDB_OUT_NDJSON), "ndjson");
    cr_assert_eq(ddb_out_format_parse(&f, "ddb-json"), 0);
    cr_assert_eq(f, DDB_OUT_DDBJSON);
    cr_assert_eq(ddb_out_format_parse(&f, "dynamodb-json"), 0);
    cr_assert_eq(f, DDB_OUT_DDBJSON);
    cr_assert_eq(ddb_out_format_parse(&f, "ndjson"), 0);
    cr_assert_eq(f, DDB_OUT_NDJSON);
    cr_assert_eq(ddb_out_format_parse(&f, "parquet"), 0);
    cr_assert_eq(f, DDB_OUT_PARQUET);
    cr_assert_str_eq(ddb_out_format_ext(DDB_OUT_PARQUET), "parquet");
    cr_assert_eq(ddb_out_format_parse(&f, "orc"), DDB_EUSAGE);
}

/* s with every '"' doubled, appended to b. */
static void doubled(ddb_buf *b, const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        ddb_buf_putc(b, s[i]);
        if (s[i] == '"')
            ddb_buf_putc(b, '"');
    }
}

/* Values whose JSON has quotes everywhere: escaped quotes and backslashes,
 * control bytes, UTF-8, numbers JSON does not allow, every type, nesting,
 * empty containers, a string past the writer's 4 KiB chunk. */
static ddb_map cell_values(ddb_buf *big)
{
    ddb_buf t = DDB_BUF_INIT;
    ddb_buf_clear(big);
    for (int i = 0; i < 700; i++)
        ddb_buf_puts(big, "ab\\\"c\\\\\\u0001");
    ddb_buf_printf(&t,
                   "{\"s\":{\"S\":\"a,\\\"b\\\"\"},\"q\":{\"S\":\"\\\"\"},\"n\":{\"N\":\"+5\"},"
                   "\"b\":{\"B\":\"AAH/\"},\"t\":{\"BOOL\":false},\"z\":{\"NULL\":true},"
                   "\"ss\":{\"SS\":[\"x\\\"y\",\"\\\\\",\"\\u0007\",\"caf\\u00e9 \\u6771\"]},"
                   "\"ns\":{\"NS\":[\"1\",\"2.5\",\"-0.5E3\"]},\"bs\":{\"BS\":[\"AA==\",\"/w==\"]},"
                   "\"l\":{\"L\":[{\"N\":\"1\"},{\"BOOL\":true},{\"NULL\":true}]},"
                   "\"m\":{\"M\":{\"k\\\"1\":{\"L\":[{\"S\":\"v\"},{\"M\":{}}]},"
                   "\"long\":{\"S\":\"%s\"},\"n\":{\"N\":\".5\"}}},"
                   "\"em\":{\"M\":{}},\"el\":{\"L\":[]},\"e\":{\"S\":\"\"},"
                   "\"mx\":{\"M\":{\"a\":{\"NS\":[\"3\"]}}}}",
                   big->ptr);
    ddb_map m = tu_item(a, t.ptr);
    ddb_buf_dispose(&t);
    return m;
}

/* The writers with their quotes doubled give the plain writers' text,
 * doubled, byte for byte. */
Test(writer, json_writers_with_doubled_quotes)
{
    ddb_buf big = DDB_BUF_INIT, x = DDB_BUF_INIT, want = DDB_BUF_INIT, got = DDB_BUF_INIT;
    ddb_map m = cell_values(&big);
    for (size_t i = 0; i < m.count; i++) {
        const ddb_value *v = &m.attrs[i].value;
        for (int kind = 0; kind < 3; kind++) {
            ddb_buf_clear(&x);
            ddb_buf_clear(&want);
            ddb_buf_clear(&got);
            if (kind == 0) {
                cr_assert_eq(ddb_json_put_typed_value(&x, v), 0);
                cr_assert_eq(ddb_json_put_typed_value_dq(&got, v), 0);
            } else if (kind == 1) {
                cr_assert_eq(ddb_json_put_plain_value(&x, v), 0);
                cr_assert_eq(ddb_json_put_plain_value_dq(&got, v), 0);
            } else {
                if (v->type != DDB_TYPE_M && v->type != DDB_TYPE_L && v->type != DDB_TYPE_SS &&
                    v->type != DDB_TYPE_NS && v->type != DDB_TYPE_BS)
                    continue;
                cr_assert_eq(ddb_json_put_typed_body(&x, v), 0);
                cr_assert_eq(ddb_json_put_typed_body_dq(&got, v), 0);
            }
            doubled(&want, x.ptr, x.len);
            cr_assert_eq(got.len, want.len, "%s (%d): %s", m.attrs[i].name.ptr, kind, got.ptr);
            cr_assert_eq(memcmp(got.ptr, want.ptr, want.len), 0, "%s (%d): %s", m.attrs[i].name.ptr,
                         kind, got.ptr);
        }
    }
    ddb_buf_clear(&x);
    ddb_buf_clear(&got);
    ddb_buf_clear(&want);
    cr_assert_eq(ddb_json_put_typed_map(&x, &m), 0);
    cr_assert_eq(ddb_json_put_typed_map_dq(&got, &m), 0);
    doubled(&want, x.ptr, x.len);
    cr_assert(got.len == want.len && memcmp(got.ptr, want.ptr, got.len) == 0);
    ddb_buf_clear(&x);
    ddb_buf_clear(&got);
    ddb_buf_clear(&want);
    cr_assert_eq(ddb_json_put_plain_map(&x, &m), 0);
    cr_assert_eq(ddb_json_put_plain_map_dq(&got, &m), 0);
    doubled(&want, x.ptr, x.len);
    cr_assert(got.len == want.len && memcmp(got.ptr, want.ptr, got.len) == 0);
    ddb_buf_dispose(&big);
    ddb_buf_dispose(&x);
    ddb_buf_dispose(&want);
    ddb_buf_dispose(&got);
}

/* A cell written in one pass (a container's JSON, the _extra object) is
 * the field ddb_csv_put_field makes of the cell's text, with any delimiter. */
Test(writer, csv_fields_in_one_pass)
{
    static const char delims[] = {',', ';', '\t', '"', '['};
    ddb_buf big = DDB_BUF_INIT, cell = DDB_BUF_INIT, text = DDB_BUF_INIT;
    ddb_buf want = DDB_BUF_INIT, got = DDB_BUF_INIT;
    ddb_map m = cell_values(&big);
    unsigned char used[32];
    cr_assert(m.count <= sizeof(used));
    for (size_t d = 0; d < sizeof(delims); d++) {
        for (int typed = 0; typed < 2; typed++) {
            for (size_t i = 0; i < m.count; i++) {
                const ddb_value *v = &m.attrs[i].value;
                ddb_buf_clear(&text);
                ddb_buf_clear(&want);
                ddb_buf_clear(&got);
                cr_assert_eq(
                    typed ? ddb_csv_typed_cell_text(&text, v) : ddb_csv_cell_text(&text, v), 0);
                ddb_csv_put_field(&want, text.ptr ? text.ptr : "", text.len, delims[d],
                                  text.len == 0);
                ddb_csv_put_cell(&got, &cell, v, delims[d], typed);
                cr_assert(!got.oom);
                cr_assert(got.len == want.len && memcmp(got.ptr, want.ptr, got.len) == 0,
                          "%s (typed %d, delimiter %c): %s, not %s", m.attrs[i].name.ptr, typed,
                          delims[d], got.ptr, want.ptr);
            }
            /* _extra: every other attribute, then none */
            for (int none = 0; none < 2; none++) {
                for (size_t i = 0; i < m.count; i++)
                    used[i] = none || i % 2;
                ddb_buf_clear(&text);
                ddb_buf_clear(&want);
                ddb_buf_clear(&got);
                if (ddb_csv_extra_text(&text, &m, used, !typed))
                    ddb_csv_put_field(&want, text.ptr, text.len, delims[d], 0);
                cr_assert_eq(ddb_csv_put_extra(&got, &m, used, !typed),
                             none ? 0 : (m.count + 1) / 2);
                cr_assert(got.len == want.len &&
                              (got.len == 0 || memcmp(got.ptr, want.ptr, got.len) == 0),
                          "_extra (typed %d, delimiter %c): %s", typed, delims[d], got.ptr);
            }
        }
    }
    ddb_buf_dispose(&big);
    ddb_buf_dispose(&cell);
    ddb_buf_dispose(&text);
    ddb_buf_dispose(&want);
    ddb_buf_dispose(&got);
}
