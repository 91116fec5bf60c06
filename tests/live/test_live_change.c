/*
 * One stream record as writes to the re-keyed target (run/live_change.c),
 * against a recording output, with the mapping pair of tests/integration/live/:
 * a tag's name is in the target's sort key and a favorite's type in its
 * partition key, so renaming one or retyping the other moves the item.
 * Also: which stream views are refused for which pairs, and where the
 * Streams endpoint is for an AWS DynamoDB endpoint.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "ddbpipe/streams.h"
#include "run/live_internal.h"
#include "support/testutil.h"

/* What the output was asked to do, one line a write: "put {...}" / "delete {...}". */
typedef struct recorder {
    ddb_output base;
    char log[8192];
} recorder;

static int rec_put(ddb_output *o, int entity, ddb_record_kind kind, const ddb_map *item,
                   size_t n_declared, const ddb_record *origin, ddb_error *err)
{
    recorder *r = (recorder *)o;
    size_t n = strlen(r->log);
    (void)entity, (void)n_declared, (void)origin, (void)err;
    snprintf(r->log + n, sizeof(r->log) - n, "%s %s\n", kind == DDB_REC_DELETE ? "delete" : "put",
             tu_typed(item));
    return 0;
}

static const ddb_output_vtable rec_vt = {rec_put, NULL, NULL, NULL, NULL, NULL, NULL};

static live l;
static recorder out;

static void setup(void)
{
    memset(&l, 0, sizeof(l));
    memset(&out, 0, sizeof(out));
    out.base.vt = &rec_vt;
    l.o.mapping = tu_load_mapping_in("tests/integration/live", "source.json");
    l.o.to_mapping = tu_load_mapping_in("tests/integration/live", "target.json");
    l.o.source_table = "LiveSource";
    l.out = &out.base;
    cr_assert_eq(ddb_arena_new(&l.arena, 0), 0);
}

static void teardown(void)
{
    ddb_mapping_free((ddb_mapping *)l.o.mapping);
    ddb_mapping_free((ddb_mapping *)l.o.to_mapping);
    ddb_arena_free(l.arena);
    ddb_buf_dispose(&l.scratch);
}

TestSuite(live_change, .init = setup, .fini = teardown);

#define TAG_KEY "{\"pk\":{\"S\":\"USER#u1\"},\"sk\":{\"S\":\"TAG#t1\"}}"
#define TAG(name)                                                                                  \
    "{\"pk\":{\"S\":\"USER#u1\"},\"sk\":{\"S\":\"TAG#t1\"},\"tagName\":{\"S\":\"" name             \
    "\"},\"uses\":{\"N\":\"3\"}}"

static ddb_stream_record change(ddb_stream_event ev, const char *old_image, const char *new_image)
{
    ddb_stream_record r;
    memset(&r, 0, sizeof(r));
    r.event = ev;
    r.seq = "000000000000000000001";
    r.keys = tu_item(l.arena, TAG_KEY);
    if (old_image) {
        r.old_image = tu_item(l.arena, old_image);
        r.has_old = 1;
    }
    if (new_image) {
        r.new_image = tu_item(l.arena, new_image);
        r.has_new = 1;
    }
    return r;
}

static void apply(const ddb_stream_record *r, const char *want)
{
    ddb_error err;
    cr_assert_eq(live_apply_change(&l, r, &err), 0, "%s", err.message);
    cr_assert_str_eq(out.log, want);
}

Test(live_change, insert_is_a_put_of_the_new_image_rekeyed)
{
    ddb_stream_record r = change(DDB_STREAM_INSERT, NULL, TAG("red"));
    apply(&r,
          "put {\"PK\":{\"S\":\"U#u1\"},\"SK\":{\"S\":\"TAGNAME#red#t1\"},\"_et\":{\"S\":\"TAG\"},"
          ""
          "\"uses\":{\"N\":\"3\"}}\n");
    cr_assert_eq(l.stats.changes, 1);
    cr_assert_eq(l.stats.moved, 0);
}

Test(live_change, a_rename_deletes_the_old_target_item_first)
{
    ddb_stream_record r = change(DDB_STREAM_MODIFY, TAG("red"), TAG("blue"));
    apply(&r, "delete {\"PK\":{\"S\":\"U#u1\"},\"SK\":{\"S\":\"TAGNAME#red#t1\"},"
              "\"_et\":{\"S\":\"TAG\"},\"uses\":{\"N\":\"3\"}}\n"
              "put {\"PK\":{\"S\":\"U#u1\"},\"SK\":{\"S\":\"TAGNAME#blue#t1\"},"
              "\"_et\":{\"S\":\"TAG\"},\"uses\":{\"N\":\"3\"}}\n");
    cr_assert_eq(l.stats.moved, 1);
    cr_assert_eq(l.stats.deletes, 1);
    cr_assert_eq(l.stats.puts, 1);
}

Test(live_change, a_change_that_keeps_the_target_key_is_one_put)
{
    ddb_stream_record r =
        change(DDB_STREAM_MODIFY, TAG("red"),
               "{\"pk\":{\"S\":\"USER#u1\"},\"sk\":{\"S\":\"TAG#t1\"},\"tagName\":{\"S\":\"red\"},"
               "\"uses\":{\"N\":\"4\"}}");
    ddb_error err;
    cr_assert_eq(live_apply_change(&l, &r, &err), 0, "%s", err.message);
    cr_assert_eq(strncmp(out.log, "put ", 4), 0, "%s", out.log);
    cr_assert_null(strstr(out.log, "delete"), "%s", out.log);
    cr_assert_eq(l.stats.moved, 0);
}

Test(live_change, remove_deletes_the_old_images_target_key)
{
    ddb_stream_record r = change(DDB_STREAM_REMOVE, TAG("red"), NULL);
    ddb_error err;
    cr_assert_eq(live_apply_change(&l, &r, &err), 0, "%s", err.message);
    cr_assert_eq(strncmp(out.log, "delete ", 7), 0, "%s", out.log);
    cr_assert_not_null(strstr(out.log, "TAGNAME#red#t1"), "%s", out.log);
    cr_assert_eq(l.stats.deletes, 1);
}

Test(live_change, an_item_of_no_entity_is_set_aside_not_written)
{
    ddb_stream_record r =
        change(DDB_STREAM_INSERT, NULL, "{\"pk\":{\"S\":\"OTHER#1\"},\"sk\":{\"S\":\"x\"}}");
    apply(&r, "");
    cr_assert_eq(l.stats.unmatched, 1);
    cr_assert_eq(l.stats.changes, 1);
}

Test(live_change, leaving_every_entity_still_deletes_the_old_target_item)
{
    ddb_stream_record r = change(DDB_STREAM_MODIFY, TAG("red"),
                                 "{\"pk\":{\"S\":\"USER#u1\"},\"sk\":{\"S\":\"TAG#t1\"}}");
    ddb_error err;
    cr_assert_eq(live_apply_change(&l, &r, &err), 0, "%s", err.message);
    cr_assert_eq(strncmp(out.log, "delete ", 7), 0, "%s", out.log);
    cr_assert_null(strstr(out.log, "put "), "%s", out.log);
    cr_assert_eq(l.stats.rejected, 1, "the new image breaks its entity (no tagName)");
}

Test(live_change, views_without_old_images_are_refused_where_items_can_move)
{
    ddb_buf why = DDB_BUF_INIT;
    cr_assert_eq(live_check_view(&l, "NEW_AND_OLD_IMAGES", &why), 0);
    cr_assert_eq(live_check_view(&l, "OLD_IMAGE", &why), 0);
    cr_assert_eq(live_check_view(&l, "NEW_IMAGE", &why), 2, "%s", why.ptr);
    cr_assert_not_null(strstr(why.ptr, "Tag.tagName feeds the target key SK"), "%s", why.ptr);
    cr_assert_not_null(strstr(why.ptr, "Favorite.dataType feeds the target key PK"), "%s", why.ptr);
    ddb_buf_dispose(&why);
    ddb_mapping_free((ddb_mapping *)l.o.to_mapping);
    l.o.to_mapping = tu_load_mapping_in("tests/integration/live", "target-fixed.json");
    cr_assert_eq(live_check_view(&l, "KEYS_ONLY", &why), 0, "%s", why.ptr ? why.ptr : "");
    ddb_buf_dispose(&why);
}

Test(live_change, the_streams_endpoint_beside_dynamodbs)
{
    char url[256];
    ddb_streams_endpoint(url, sizeof(url), "https://dynamodb.eu-west-1.amazonaws.com");
    cr_assert_str_eq(url, "https://streams.dynamodb.eu-west-1.amazonaws.com");
    ddb_streams_endpoint(url, sizeof(url), "https://dynamodb.cn-north-1.amazonaws.com.cn");
    cr_assert_str_eq(url, "https://streams.dynamodb.cn-north-1.amazonaws.com.cn");
    ddb_streams_endpoint(url, sizeof(url), "http://127.0.0.1:8000");
    cr_assert_str_eq(url, "http://127.0.0.1:8000");
}
