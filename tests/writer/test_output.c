/*
 * test_output.c — the per-entity file output: files created up front, atomic
 * commit by finish, nothing left behind without it, gzip,
 * deletes, the committed paths and acknowledgements.
 */
#include <criterion/criterion.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "ddbpipe/output.h"
#include "ddbpipe/output_file.h"
#include "support/files.h"
#include "support/outputs.h"
#include "support/testutil.h"

static char tdir[64];
static char odir[128];
static ddb_mapping *fav;
static ddb_arena *a;

static void setup(void)
{
    tu_mkdtemp(tdir, sizeof(tdir), "/tmp/ddb-output-XXXXXX");
    snprintf(odir, sizeof(odir), "%s/out/sub", tdir); /* created by the output */
    fav = tu_load_fixture("favorites-padded.json");
    cr_assert_eq(ddb_arena_new(&a, 0), 0);
}

static void teardown(void)
{
    ddb_mapping_free(fav);
    ddb_arena_free(a);
    tu_rmtree(tdir);
}

TestSuite(output, .init = setup, .fini = teardown);

/* Entries of the output folder; counts temporary files separately. */
static int list_dir(int *n_tmp, char names[][128], int max)
{
    DIR *d = opendir(odir);
    struct dirent *e;
    int n = 0;
    cr_assert_not_null(d, "%s", odir);
    *n_tmp = 0;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (e->d_name[0] == '.' && strstr(e->d_name, ".tmp-") != NULL)
            (*n_tmp)++;
        if (n < max)
            snprintf(names[n], 128, "%.120s", e->d_name);
        n++;
    }
    closedir(d);
    return n;
}

static void expect_file(const char *path, const char *want)
{
    size_t len;
    char *got = tu_slurp(path, &len);
    cr_assert_eq(len, strlen(want), "%s:\n%s\nwant:\n%s", path, got, want);
    cr_assert_str_eq(got, want, "%s", path);
    free(got);
}

static void put(ddb_output *o, int idx, ddb_record_kind kind, const char *typed, size_t n_decl)
{
    ddb_map rec = tu_item(a, typed);
    ddb_error err;
    cr_assert_eq(o->vt->put(o, idx, kind, &rec, n_decl, NULL, &err), 0, "%s", err.message);
}

static void finish(ddb_output *o)
{
    ddb_error err;
    cr_assert_eq(o->vt->finish(o, &err), 0, "%s", err.message);
}

#define TAG_HEADER "userId,tagId,tagName,createTime,lastAccessTime,_extra\n"
#define FD_HEADER "userId,dataId,creatorId,title,thumbnailUrl,contentUrl,dataType,clipTime,_extra\n"
#define FDT_HEADER "userId,dataId,tagId,dataType,clipTime,_extra\n"

Test(output, entity_files_exist_after_finish_without_records)
{
    ddb_output *o = tu_file_output(odir, DDB_OUT_CSV, fav, 1, 0);
    const char *const *paths;
    size_t n;
    finish(o);
    expect_file(tu_path(odir, "Tag.csv"), TAG_HEADER);
    expect_file(tu_path(odir, "FavoriteData.csv"), FD_HEADER);
    expect_file(tu_path(odir, "FavoriteDataTag.csv"), FDT_HEADER);
    n = ddb_file_output_paths(o, &paths);
    cr_assert_eq(n, 3);
    cr_assert_str_eq(paths[0], tu_path(odir, "Tag.csv"));
    cr_assert_str_eq(paths[1], tu_path(odir, "FavoriteData.csv"));
    cr_assert_str_eq(paths[2], tu_path(odir, "FavoriteDataTag.csv"));
    {
        int n_tmp;
        char names[8][128];
        cr_assert_eq(list_dir(&n_tmp, names, 8), 3);
        cr_assert_eq(n_tmp, 0);
    }
    ddb_output_free(o);
    /* committed files stay */
    cr_assert(tu_exists(tu_path(odir, "Tag.csv")));
}

Test(output, nothing_under_final_names_before_finish)
{
    ddb_output *o = tu_file_output(odir, DDB_OUT_CSV, fav, 1, 0);
    int n_tmp, n;
    char names[8][128];
    put(o, 0, DDB_REC_PUT, "{\"userId\":{\"S\":\"u1\"},\"tagId\":{\"S\":\"t1\"}}", 2);
    put(o, 0, DDB_REC_DELETE, "{\"userId\":{\"S\":\"u1\"},\"tagId\":{\"S\":\"t2\"}}", 2);
    n = list_dir(&n_tmp, names, 8);
    cr_assert_eq(n, 4, "3 entity files, deletes");
    cr_assert_eq(n_tmp, 4, "only temporary files before finish");
    cr_assert(!tu_exists(tu_path(odir, "Tag.csv")));
    cr_assert(!tu_exists(tu_path(odir, "Tag.deletes.csv")));
    finish(o);
    n = list_dir(&n_tmp, names, 8);
    cr_assert_eq(n, 4);
    cr_assert_eq(n_tmp, 0);
    expect_file(tu_path(odir, "Tag.csv"), TAG_HEADER "u1,t1,,,,\n");
    expect_file(tu_path(odir, "Tag.deletes.csv"), TAG_HEADER "u1,t2,,,,\n");
    ddb_output_free(o);
}

Test(output, free_without_finish_leaves_nothing)
{
    ddb_output *o = tu_file_output(odir, DDB_OUT_NDJSON, fav, 1, 1);
    int n_tmp;
    char names[8][128];
    put(o, 1, DDB_REC_PUT, "{\"userId\":{\"S\":\"u1\"}}", 1);
    put(o, 1, DDB_REC_DELETE, "{\"userId\":{\"S\":\"u1\"}}", 1);
    cr_assert_gt(list_dir(&n_tmp, names, 8), 0);
    ddb_output_free(o);
    cr_assert_eq(list_dir(&n_tmp, names, 8), 0, "left: %s", names[0]);
}

Test(output, gzip_output_is_valid_gzip)
{
    ddb_output *o = tu_file_output(odir, DDB_OUT_NDJSON, fav, 1, 1);
    char buf[4096];
    size_t len;
    char *raw;
    gzFile g;
    int n;
    put(o, 0, DDB_REC_PUT,
        "{\"userId\":{\"S\":\"u1\"},\"tagId\":{\"S\":\"t1\"},\"createTime\":{\"N\":\"5\"},"
        "\"odd\":{\"BOOL\":true}}",
        3);
    finish(o);
    cr_assert(!tu_exists(tu_path(odir, "Tag.ndjson")));
    raw = tu_slurp(tu_path(odir, "Tag.ndjson.gz"), &len);
    cr_assert_geq(len, 18);
    cr_assert_eq((unsigned char)raw[0], 0x1f);
    cr_assert_eq((unsigned char)raw[1], 0x8b);
    free(raw);
    g = gzopen(tu_path(odir, "Tag.ndjson.gz"), "rb");
    cr_assert_not_null(g);
    n = gzread(g, buf, sizeof(buf) - 1);
    cr_assert_geq(n, 0);
    buf[n] = '\0';
    cr_assert_eq(gzclose(g), Z_OK, "the gzip stream must be complete (trailer)");
    cr_assert_str_eq(buf, "{\"userId\":\"u1\",\"tagId\":\"t1\",\"createTime\":5,"
                          "\"_extra\":{\"odd\":{\"BOOL\":true}}}\n");
    /* an entity without records: a valid, empty gzip file */
    g = gzopen(tu_path(odir, "FavoriteData.ndjson.gz"), "rb");
    cr_assert_not_null(g);
    cr_assert_eq(gzread(g, buf, sizeof(buf)), 0);
    cr_assert_eq(gzclose(g), Z_OK);
    ddb_output_free(o);
}

Test(output, items_per_entity_without_up_front_files)
{
    /* records = 0 (convert/encode): files appear only for entities with items */
    ddb_output *o = tu_file_output(odir, DDB_OUT_DDBJSON, fav, 0, 0);
    const char *const *paths;
    put(o, 2, DDB_REC_PUT, "{\"pk\":{\"S\":\"FavoriteDataTag#u1#d1\"},\"sk\":{\"S\":\"t1\"}}", 0);
    put(o, 2, DDB_REC_DELETE, "{\"pk\":{\"S\":\"FavoriteDataTag#u1#d1\"},\"sk\":{\"S\":\"t2\"}}",
        0);
    finish(o);
    cr_assert_eq(ddb_file_output_paths(o, &paths), 2);
    expect_file(tu_path(odir, "FavoriteDataTag.json"),
                "{\"Item\":{\"pk\":{\"S\":\"FavoriteDataTag#u1#d1\"},\"sk\":{\"S\":\"t1\"}}}\n");
    expect_file(tu_path(odir, "FavoriteDataTag.deletes.json"),
                "{\"Item\":{\"pk\":{\"S\":\"FavoriteDataTag#u1#d1\"},\"sk\":{\"S\":\"t2\"}}}\n");
    cr_assert(!tu_exists(tu_path(odir, "Tag.json")));
    ddb_output_free(o);
}

Test(output, single_file_without_mapping)
{
    ddb_output *o = tu_file_output(odir, DDB_OUT_DDBJSON, NULL, 0, 0);
    const char *const *paths;
    put(o, -1, DDB_REC_PUT, "{\"a\":{\"S\":\"1\"}}", 0);
    put(o, -1, DDB_REC_PUT, "{\"a\":{\"S\":\"2\"}}", 0);
    finish(o);
    cr_assert_eq(ddb_file_output_paths(o, &paths), 1);
    cr_assert_str_eq(paths[0], tu_path(odir, "items.json"));
    expect_file(tu_path(odir, "items.json"), "{\"Item\":{\"a\":{\"S\":\"1\"}}}\n"
                                             "{\"Item\":{\"a\":{\"S\":\"2\"}}}\n");
    ddb_output_free(o);
}

/* Nothing read, and yet the same file as with records, empty: as with a
 * mapping, whose entity files exist from the start. */
Test(output, no_mapping_nothing_written_empty_file)
{
    ddb_output *o = tu_file_output(odir, DDB_OUT_NDJSON, NULL, 1, 0);
    const char *const *paths;
    int n_tmp;
    char names[4][128];
    finish(o);
    cr_assert_eq(ddb_file_output_paths(o, &paths), 1);
    cr_assert_str_eq(paths[0], tu_path(odir, "items.ndjson"));
    cr_assert_eq(list_dir(&n_tmp, names, 4), 1);
    cr_assert_eq(n_tmp, 0);
    expect_file(tu_path(odir, "items.ndjson"), "");
    ddb_output_free(o);
}

typedef struct acks {
    int calls;
    int last_index;
    ddb_record_kind last_kind;
    uint64_t total;
} acks;

/* An ack names the record it confirms by its sequence number. */
static void on_ack(void *ctx, int idx, ddb_record_kind kind, uint64_t seq)
{
    acks *k = ctx;
    k->calls++;
    k->last_index = idx;
    k->last_kind = kind;
    k->total += seq;
}

static void put_seq(ddb_output *o, int idx, ddb_record_kind kind, const char *typed, uint64_t seq)
{
    ddb_map rec = tu_item(a, typed);
    ddb_record origin;
    ddb_error err;
    memset(&origin, 0, sizeof(origin));
    origin.seq = seq;
    cr_assert_eq(o->vt->put(o, idx, kind, &rec, 1, &origin, &err), 0, "%s", err.message);
}

Test(output, acks_and_bytes_out)
{
    ddb_output *o = tu_file_output(odir, DDB_OUT_CSV, fav, 1, 0);
    acks k = {0, -5, DDB_REC_BAD, 0};
    struct stat st;
    uint64_t sum = 0;
    const char *names[] = {"Tag.csv", "FavoriteData.csv", "FavoriteDataTag.csv", "Tag.deletes.csv"};
    o->ack = on_ack;
    o->ack_ctx = &k;
    put_seq(o, 0, DDB_REC_PUT, "{\"userId\":{\"S\":\"u1\"}}", 7);
    cr_assert_eq(k.calls, 1);
    cr_assert_eq(k.last_index, 0);
    cr_assert_eq(k.last_kind, DDB_REC_PUT);
    cr_assert_eq(k.total, 7);
    put_seq(o, 0, DDB_REC_DELETE, "{\"userId\":{\"S\":\"u1\"}}", 8);
    cr_assert_eq(k.calls, 2);
    cr_assert_eq(k.last_kind, DDB_REC_DELETE);
    cr_assert_eq(k.total, 15);
    finish(o);
    for (size_t i = 0; i < 4; i++) {
        cr_assert_eq(stat(tu_path(odir, names[i]), &st), 0, "%s", names[i]);
        sum += (uint64_t)st.st_size;
    }
    cr_assert_eq(o->bytes_out, sum);
    ddb_output_free(o);
}

Test(output, folder_that_cannot_be_made)
{
    char file[256], bad[300];
    ddb_file_output_opts fo;
    ddb_output *o = (ddb_output *)1;
    ddb_error err;
    FILE *f;
    snprintf(file, sizeof(file), "%s/plainfile", tdir);
    f = fopen(file, "w");
    cr_assert_not_null(f);
    fclose(f);
    snprintf(bad, sizeof(bad), "%s/sub", file);
    memset(&fo, 0, sizeof(fo));
    fo.dir = bad;
    fo.mapping = fav;
    fo.records = 1;
    cr_assert_eq(ddb_file_output_new(&o, &fo, &err), DDB_EIO);
    cr_assert_null(o);
    cr_assert_not_null(strstr(err.message, "plainfile"), "%s", err.message);
}
