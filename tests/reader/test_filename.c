/*
 * test_filename.c — ddb_entity_from_filename: the entity a record file's name
 * suggests, and whether it holds deletions.
 */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "ddbpipe/reader.h"

static void expect_entity(const char *path, const char *want, int want_delete)
{
    int is_delete = -1;
    char *e = ddb_entity_from_filename(path, &is_delete);
    if (want == NULL) {
        cr_assert_null(e, "%s gave \"%s\"", path, e ? e : "");
    } else {
        cr_assert_not_null(e, "%s gave NULL", path);
        cr_assert_str_eq(e, want, "%s", path);
    }
    cr_assert_eq(is_delete, want_delete, "%s: is_delete %d", path, is_delete);
    free(e);
}

Test(filename, plain_extensions)
{
    expect_entity("Tag.csv", "Tag", 0);
    expect_entity("Tag.tsv", "Tag", 0);
    expect_entity("Tag.ndjson", "Tag", 0);
    expect_entity("Tag.jsonl", "Tag", 0);
    expect_entity("Tag.json", "Tag", 0);
}

Test(filename, gzip_and_folders)
{
    expect_entity("Tag.csv.gz", "Tag", 0);
    expect_entity("out/dir/FavoriteData.ndjson.gz", "FavoriteData", 0);
    expect_entity("/abs/path/CastMember.json", "CastMember", 0);
    expect_entity("Tag.gz", "Tag", 0);
}

Test(filename, deletes)
{
    expect_entity("Tag.deletes.csv", "Tag", 1);
    expect_entity("dir/Tag.deletes.ndjson.gz", "Tag", 1);
    expect_entity("Tag.deletes", "Tag", 1);
    /* "deletes" alone is a name, not a marker */
    expect_entity("deletes.csv", "deletes", 0);
}

Test(filename, no_entity)
{
    expect_entity("-", NULL, 0);
    expect_entity("_unmatched.ndjson", NULL, 0);
    expect_entity("_rejects.ndjson", NULL, 0);
    expect_entity(".hidden.csv", NULL, 0);
    expect_entity("dir/", NULL, 0);
    expect_entity(".csv", NULL, 0);
    expect_entity(".deletes.csv", NULL, 0);
}

Test(filename, only_one_extension_stripped)
{
    /* the data extension is stripped once; dots inside the name stay */
    expect_entity("my.table.csv", "my.table", 0);
    expect_entity("Tag.csv.csv", "Tag.csv", 0);
    expect_entity("Tag", "Tag", 0);
}

Test(filename, is_delete_may_be_null)
{
    char *e = ddb_entity_from_filename("Tag.deletes.csv", NULL);
    cr_assert_not_null(e);
    cr_assert_str_eq(e, "Tag");
    free(e);
}
