/*
 * test_outdir.c — the output folder as one unit: a previous run's files are
 * replaced and the ones not written again removed; files ddbpipe did not
 * write are refused unless allowed, and then left alone; the manifest cannot
 * name anything outside the folder.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ddbpipe/outdir.h"
#include "support/files.h"

static char tdir[64];

static void setup(void)
{
    tu_mkdtemp(tdir, sizeof(tdir), "/tmp/ddb-outdir-XXXXXX");
}

static void teardown(void)
{
    tu_rmtree(tdir);
}

TestSuite(outdir, .init = setup, .fini = teardown);

static void commit(ddb_outdir *od, const char *const *written, size_t n, size_t want_removed)
{
    ddb_error err;
    size_t removed = 99;
    char *names = NULL;
    cr_assert_eq(ddb_outdir_commit(od, written, n, &removed, &names, &err), 0, "%s", err.message);
    cr_assert_eq(removed, want_removed);
    cr_assert_eq(names == NULL, want_removed == 0);
    free(names);
}

Test(outdir, new_and_empty_folders_are_fine)
{
    ddb_outdir *od = NULL;
    ddb_error err;
    cr_assert_eq(ddb_outdir_open(&od, NULL, tu_path(tdir, "not-yet"), 0, 0, &err), 0, "%s",
                 err.message);
    ddb_outdir_free(od);
    cr_assert_eq(ddb_outdir_open(&od, NULL, tdir, 0, 0, &err), 0, "%s", err.message);
    ddb_outdir_free(od);
    ddb_outdir_free(NULL);
}

Test(outdir, refuses_files_it_did_not_write)
{
    ddb_outdir *od = NULL;
    ddb_error err;
    tu_put_file(tdir, "notes.txt", "mine\n");
    tu_put_file(tdir, ".hidden", "ignored\n");
    cr_assert_eq(ddb_outdir_open(&od, NULL, tdir, 0, 0, &err), DDB_EUSAGE);
    cr_assert_null(od);
    cr_assert(strstr(err.message, "1 file ddbpipe did not write (notes.txt)"), "%s", err.message);
    /* a resumed run's folder holds its own partial files: not checked */
    cr_assert_eq(ddb_outdir_open(&od, NULL, tdir, 0, 1, &err), 0, "%s", err.message);
    ddb_outdir_free(od);
}

Test(outdir, allowed_foreign_files_are_left_alone)
{
    ddb_outdir *od = NULL;
    const char *const *names;
    const char *written[] = {tu_path(tdir, "Tag.csv")};
    ddb_error err;
    tu_put_file(tdir, "b.txt", "b\n");
    tu_put_file(tdir, "a.txt", "a\n");
    cr_assert_eq(ddb_outdir_open(&od, NULL, tdir, 1, 0, &err), 0, "%s", err.message);
    cr_assert_eq(ddb_outdir_foreign(od, &names), 2);
    cr_assert_str_eq(names[0], "a.txt");
    cr_assert_str_eq(names[1], "b.txt");
    tu_put_file(tdir, "Tag.csv", "pk\n");
    commit(od, written, 1, 0);
    ddb_outdir_free(od);
    cr_assert(tu_exists(tu_path(tdir, "a.txt")) && tu_exists(tu_path(tdir, "b.txt")));
}

/* The nightly export into the same folder: last night's files are replaced,
 * an entity no longer written is removed, and nobody needs to say --overwrite. */
Test(outdir, a_previous_runs_files_are_replaced_and_stale_ones_removed)
{
    ddb_outdir *od = NULL;
    const char *first[] = {tu_path(tdir, "Tag.csv"), tu_path(tdir, "Old.csv")};
    const char *second[] = {tu_path(tdir, "Tag.csv"), tu_path(tdir, "New.csv")};
    ddb_error err;
    size_t len;
    char *text;

    cr_assert_eq(ddb_outdir_open(&od, NULL, tdir, 0, 0, &err), 0, "%s", err.message);
    tu_put_file(tdir, "Tag.csv", "1\n");
    tu_put_file(tdir, "Old.csv", "1\n");
    commit(od, first, 2, 0);
    ddb_outdir_free(od);
    text = tu_slurp(tu_path(tdir, "_ddbpipe/manifest.json"), &len);
    cr_assert(strstr(text, "\"Tag.csv\"") && strstr(text, "\"Old.csv\""), "%s", text);
    free(text);

    cr_assert_eq(ddb_outdir_open(&od, NULL, tdir, 0, 0, &err), 0, "%s", err.message);
    tu_put_file(tdir, "Tag.csv", "2\n");
    tu_put_file(tdir, "New.csv", "2\n");
    commit(od, second, 2, 1);
    ddb_outdir_free(od);
    cr_assert_not(tu_exists(tu_path(tdir, "Old.csv")));
    cr_assert(tu_exists(tu_path(tdir, "Tag.csv")) && tu_exists(tu_path(tdir, "New.csv")));
    text = tu_slurp(tu_path(tdir, "_ddbpipe/manifest.json"), &len);
    cr_assert_null(strstr(text, "Old.csv"), "%s", text);
    free(text);
}

/* Side files of versions before _ddbpipe/ are recognisably ddbpipe's. */
Test(outdir, legacy_side_files_are_removed)
{
    ddb_outdir *od = NULL;
    const char *written[] = {tu_path(tdir, "items.ndjson")};
    ddb_error err;
    tu_put_file(tdir, "_rejects.ndjson", "{}\n");
    tu_put_file(tdir, "_unmatched.ndjson.gz", "x");
    cr_assert_eq(ddb_outdir_open(&od, NULL, tdir, 0, 0, &err), 0, "%s", err.message);
    commit(od, written, 1, 2);
    ddb_outdir_free(od);
    cr_assert_not(tu_exists(tu_path(tdir, "_rejects.ndjson")));
    cr_assert_not(tu_exists(tu_path(tdir, "_unmatched.ndjson.gz")));
}

/* A manifest may only name files in the folder: never ../x or a/b. */
Test(outdir, a_manifest_naming_paths_is_refused)
{
    static const char *const bad[] = {"{\"files\":[\"../escape\"]}",
                                      "{\"files\":[\"a/b\"]}",
                                      "{\"files\":[\"..\"]}",
                                      "{\"files\":\"x\"}",
                                      "[1]",
                                      "{"};
    ddb_outdir *od = NULL;
    ddb_error err;
    mkdir(tu_path(tdir, "_ddbpipe"), 0777);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        tu_put_file(tdir, "_ddbpipe/manifest.json", bad[i]);
        cr_assert_eq(ddb_outdir_open(&od, NULL, tdir, 1, 0, &err), DDB_EUSAGE, "%s", bad[i]);
        cr_assert(strstr(err.message, "manifest.json is damaged"), "%s", err.message);
    }
}

Test(outdir, side_paths_are_inside_the_side_folder)
{
    ddb_outdir *od = NULL;
    ddb_error err;
    char *p;
    cr_assert_eq(ddb_outdir_open(&od, NULL, tdir, 0, 0, &err), 0, "%s", err.message);
    p = ddb_outdir_side_path(od, "rejects.ndjson");
    cr_assert_str_eq(p, tu_path(tdir, "_ddbpipe/rejects.ndjson"));
    free(p);
    ddb_outdir_free(od);
}
