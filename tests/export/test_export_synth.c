/*
 * test_export_synth.c — small export folders built in /tmp with correct
 * manifests, then damaged one way at a time.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ddbpipe/codec.h"
#include "ddbpipe/checksum.h"
#include "ddbpipe/manifest.h"
#include "ddbpipe/reader.h"
#include "export/export_test_util.h"

#define ID "01700000000000-abcdef12"

static char root[64];
static const char *xdir; /* root/AWSDynamoDB/ID */

static const xu_file three_files[] = {
    {"a.json.gz", "{\"Item\":{\"pk\":{\"S\":\"a1\"},\"n\":{\"N\":\"1\"}}}\n"
                  "{\"Item\":{\"pk\":{\"S\":\"a2\"},\"n\":{\"N\":\"2\"}}}\n"
                  "{\"Item\":{\"pk\":{\"S\":\"a3\"},\"n\":{\"N\":\"3\"}}}\n"},
    {"b.json.gz", "{\"Item\":{\"pk\":{\"S\":\"b1\"},\"s\":{\"SS\":[\"x\",\"y\"]}}}\n"
                  "{\"Item\":{\"pk\":{\"S\":\"b2\"},\"bin\":{\"B\":\"AAEC\"}}}\n"
                  "{\"Item\":{\"pk\":{\"S\":\"b3\"},\"m\":{\"M\":{\"k\":{\"BOOL\":true}}}}}\n"
                  "{\"Item\":{\"pk\":{\"S\":\"b4\"},\"z\":{\"NULL\":true}}}\n"},
    {"c.json.gz", "{\"Item\":{\"pk\":{\"S\":\"c1\"}}}\n"
                  "{\"Item\":{\"pk\":{\"S\":\"c2\"}}}\n"},
};

static void setup(void)
{
    snprintf(root, sizeof(root), "%s", xu_tmpdir());
    xdir = xu_build(root, ID, three_files, 3);
}

static void teardown(void)
{
    xu_rmrf(root);
}

TestSuite(export_synth, .init = setup, .fini = teardown);

static const char *data_path(const char *name)
{
    static char p[1024];
    snprintf(p, sizeof(p), "%s/data/%s", xdir, name);
    return p;
}

static const char *files_json(void)
{
    return xu_path(xdir, "manifest-files.json");
}

static const char *summary_json(void)
{
    return xu_path(xdir, "manifest-summary.json");
}

static void expect_clean(const xu_run *run, uint64_t records)
{
    cr_assert_eq(run->fatal, 0, "%s", run->fatal_msg);
    cr_assert_eq(run->nverify, 0, "%s", run->verify[0]);
    cr_assert_eq(run->records, records);
}

Test(export_synth, intact)
{
    xu_warnings w = {0};
    ddb_reader_opts opts = {.warn = xu_warn, .warn_ctx = &w};
    ddb_reader *r = NULL;
    ddb_error err;
    xu_run run;
    struct stat a, b, c;

    cr_assert_eq(ddb_reader_new_export(&r, xdir, &opts, &err), 0, "%s", err.message);
    cr_assert_eq(r->expected_items, 9);
    cr_assert_eq(stat(data_path("a.json.gz"), &a), 0);
    cr_assert_eq(stat(data_path("b.json.gz"), &b), 0);
    cr_assert_eq(stat(data_path("c.json.gz"), &c), 0);
    cr_assert_eq(r->total_bytes, (uint64_t)(a.st_size + b.st_size + c.st_size));
    xu_read_all(r, &run);
    expect_clean(&run, 9);
    cr_assert_eq(run.put, 9);
    cr_assert_eq(run.nsources, 3);
    cr_assert_str_eq(run.sources[0], data_path("a.json.gz"));
    cr_assert_str_eq(run.sources[2], data_path("c.json.gz"));
    cr_assert_eq(run.per_source[0], 3);
    cr_assert_eq(run.per_source[1], 4);
    cr_assert_eq(run.per_source[2], 2);
    cr_assert_eq(ddb_reader_raw_bytes(r), r->total_bytes);
    ddb_reader_free(r);
    cr_assert_eq(w.n, 0, "%s", w.msg[0]);
}

Test(export_synth, flipped_header_byte_is_everify_then_goes_on)
{
    char want[25];
    xu_run run;
    ddb_error err;

    xu_md5_b64(data_path("b.json.gz"), want);
    /* Byte 4 is the gzip MTIME: the data still decompresses, only the MD5 tells. */
    xu_flip_byte(data_path("b.json.gz"), 4);
    cr_assert_eq(xu_read_export(xdir, NULL, &run, &err), 0, "%s", err.message);
    cr_assert_eq(run.fatal, 0, "%s", run.fatal_msg);
    cr_assert_eq(run.records, 9);
    cr_assert_eq(run.nverify, 1);
    cr_assert(strstr(run.verify[0], data_path("b.json.gz")) != NULL, "%s", run.verify[0]);
    cr_assert(strstr(run.verify[0], want) != NULL, "%s", run.verify[0]);
    cr_assert(strstr(run.verify[0], "MD5 is ") != NULL, "%s", run.verify[0]);
    cr_assert_null(strstr(run.verify[0], "records"), "%s", run.verify[0]);
    cr_assert_eq(run.per_source[2], 2); /* c was read after the error */
}

Test(export_synth, flipped_body_byte_is_everify_then_goes_on)
{
    xu_run run;
    ddb_error err;

    xu_flip_byte(data_path("b.json.gz"), 20);
    cr_assert_eq(xu_read_export(xdir, NULL, &run, &err), 0, "%s", err.message);
    cr_assert_eq(run.fatal, 0, "%s", run.fatal_msg);
    cr_assert_geq(run.nverify, 1);
    cr_assert(strstr(run.verify[0], data_path("b.json.gz")) != NULL, "%s", run.verify[0]);
    cr_assert(strstr(run.verify[0], "MD5 is ") != NULL, "%s", run.verify[0]);
    cr_assert_str_eq(run.sources[run.nsources - 1], data_path("c.json.gz"));
    cr_assert_eq(run.per_source[run.nsources - 1], 2);
    /* Whatever b lost also shows in the final total check. */
    if (run.records != 9) {
        cr_assert_eq(run.nverify, 2);
        cr_assert(strstr(run.verify[1], "manifest-summary.json") != NULL, "%s", run.verify[1]);
    }
}

Test(export_synth, no_verify_skips_checks)
{
    xu_warnings w = {0};
    ddb_reader_opts opts = {.no_verify = 1, .warn = xu_warn, .warn_ctx = &w};
    xu_run run;
    ddb_error err;

    xu_flip_byte(data_path("b.json.gz"), 4);
    xu_replace(files_json(), "\"itemCount\":2", "\"itemCount\":5");
    xu_replace(summary_json(), "\"itemCount\":9", "\"itemCount\":90");
    cr_assert_eq(xu_read_export(xdir, &opts, &run, &err), 0, "%s", err.message);
    expect_clean(&run, 9);
    cr_assert_eq(w.n, 0, "%s", w.msg[0]);
}

Test(export_synth, wrong_file_item_count)
{
    xu_warnings w = {0};
    ddb_reader_opts opts = {.warn = xu_warn, .warn_ctx = &w};
    xu_run run;
    ddb_error err;

    xu_replace(files_json(), "\"itemCount\":4", "\"itemCount\":5");
    xu_fix_md5(files_json());
    cr_assert_eq(xu_read_export(xdir, &opts, &run, &err), 0, "%s", err.message);
    cr_assert_eq(run.records, 9);
    cr_assert_eq(run.nverify, 1);
    cr_assert(strstr(run.verify[0], data_path("b.json.gz")) != NULL, "%s", run.verify[0]);
    cr_assert(strstr(run.verify[0], "holds 4 records, manifest itemCount says 5") != NULL, "%s",
              run.verify[0]);
    cr_assert_null(strstr(run.verify[0], "MD5"), "%s", run.verify[0]);
    /* The manifests disagree with each other: a warning at open. */
    cr_assert_eq(w.n, 1);
    cr_assert(strstr(w.msg[0], "add up to 10") != NULL, "%s", w.msg[0]);
}

Test(export_synth, wrong_summary_item_count)
{
    xu_run run;
    ddb_error err;

    xu_replace(summary_json(), "\"itemCount\":9", "\"itemCount\":10");
    xu_fix_md5(summary_json());
    cr_assert_eq(xu_read_export(xdir, NULL, &run, &err), 0, "%s", err.message);
    cr_assert_eq(run.records, 9);
    cr_assert_eq(run.nverify, 1);
    cr_assert(strstr(run.verify[0], "manifest-summary.json") != NULL, "%s", run.verify[0]);
    cr_assert(strstr(run.verify[0], "hold 9 records in all, its itemCount says 10") != NULL, "%s",
              run.verify[0]);
}

Test(export_synth, missing_data_file)
{
    ddb_reader *r = NULL;
    ddb_error err;

    cr_assert_eq(unlink(data_path("b.json.gz")), 0);
    cr_assert_eq(ddb_reader_new_export(&r, xdir, NULL, &err), DDB_ENOTFOUND);
    cr_assert_null(r);
    cr_assert(strstr(err.message, "AWSDynamoDB/" ID "/data/b.json.gz") != NULL, "%s", err.message);
    cr_assert(strstr(err.message, "tried") != NULL, "%s", err.message);
    cr_assert(strstr(err.message, xu_path(root, "AWSDynamoDB/data/b.json.gz")) != NULL, "%s",
              err.message);
}

Test(export_synth, tampered_files_manifest)
{
    ddb_reader_opts opts = {.no_verify = 1};
    ddb_reader *r = NULL;
    ddb_error err;
    xu_run run;

    xu_replace(files_json(), "0123456789abcdef-1", "0123456789abcdef-2");
    cr_assert_eq(ddb_reader_new_export(&r, xdir, NULL, &err), DDB_EVERIFY);
    cr_assert_null(r);
    cr_assert(strstr(err.message, files_json()) != NULL, "%s", err.message);
    cr_assert(strstr(err.message, "manifest-files.md5") != NULL, "%s", err.message);
    /* Also through ddb_reader_open, as the command line calls it. */
    cr_assert_eq(ddb_reader_open(&r, xdir, NULL, &err), DDB_EVERIFY);

    cr_assert_eq(xu_read_export(xdir, &opts, &run, &err), 0, "%s", err.message);
    expect_clean(&run, 9);
}

/* Replaces manifest-files.md5 by a .checksum holding the given digest text. */
static void use_checksum_file(const char *text)
{
    cr_assert_eq(unlink(xu_path(xdir, "manifest-files.md5")), 0);
    xu_write_text(xu_path(xdir, "manifest-files.checksum"), text);
}

static void digest_text(char *out, ddb_digest_algo algo, int hex)
{
    size_t len;
    char *data = xu_read_text(files_json(), &len);
    unsigned char d[32];
    size_t n = algo == DDB_DIGEST_MD5 ? 16 : 32;
    cr_assert_eq(ddb_checksum_compute(d, algo, data, len), 0);
    if (hex) {
        ddb_hex_encode(out, d, n);
        out[2 * n] = '\0';
    } else {
        out[ddb_base64_encode(out, d, n)] = '\0';
    }
    free(data);
}

static void expect_checksum_accepted(ddb_digest_algo algo, int hex)
{
    xu_warnings w = {0};
    ddb_reader_opts opts = {.warn = xu_warn, .warn_ctx = &w};
    char text[80];
    xu_run run;
    ddb_error err;

    digest_text(text, algo, hex);
    strcat(text, "\n");
    use_checksum_file(text);
    cr_assert_eq(xu_read_export(xdir, &opts, &run, &err), 0, "%s", err.message);
    expect_clean(&run, 9);
    cr_assert_eq(w.n, 0, "%s", w.msg[0]);

    /* The same check must catch a change. */
    xu_replace(files_json(), "0123456789abcdef-1", "0123456789abcdef-2");
    cr_assert_eq(xu_read_export(xdir, NULL, &run, &err), DDB_EVERIFY);
    cr_assert(strstr(err.message, "manifest-files.checksum") != NULL, "%s", err.message);
    cr_assert(strstr(err.message, ddb_digest_algo_name(algo)) != NULL, "%s", err.message);
}

Test(export_synth, checksum_file_base64_md5)
{
    expect_checksum_accepted(DDB_DIGEST_MD5, 0);
}

Test(export_synth, checksum_file_hex_md5)
{
    expect_checksum_accepted(DDB_DIGEST_MD5, 1);
}

Test(export_synth, checksum_file_hex_sha256)
{
    expect_checksum_accepted(DDB_DIGEST_SHA256, 1);
}

Test(export_synth, checksum_file_base64_sha256)
{
    expect_checksum_accepted(DDB_DIGEST_SHA256, 0);
}

Test(export_synth, checksum_file_unknown_is_a_warning)
{
    xu_warnings w = {0};
    ddb_reader_opts opts = {.warn = xu_warn, .warn_ctx = &w};
    xu_run run;
    ddb_error err;

    use_checksum_file("crc32c:12345678\n");
    cr_assert_eq(xu_read_export(xdir, &opts, &run, &err), 0, "%s", err.message);
    expect_clean(&run, 9);
    cr_assert_eq(w.n, 2);
    cr_assert(strstr(w.msg[0], "manifest-files.checksum: could not check") != NULL, "%s", w.msg[0]);
    cr_assert(strstr(w.msg[1], "not verified") != NULL, "%s", w.msg[1]);
}

Test(export_synth, missing_checksum_file_is_a_warning)
{
    xu_warnings w = {0};
    ddb_reader_opts opts = {.warn = xu_warn, .warn_ctx = &w};
    xu_run run;
    ddb_error err;

    cr_assert_eq(unlink(xu_path(xdir, "manifest-files.md5")), 0);
    cr_assert_eq(xu_read_export(xdir, &opts, &run, &err), 0, "%s", err.message);
    expect_clean(&run, 9);
    cr_assert_eq(w.n, 1);
    cr_assert(strstr(w.msg[0], "no usable manifest-files.md5 or .checksum") != NULL, "%s",
              w.msg[0]);
}

Test(export_synth, data_file_found_by_basename)
{
    char renamed[1024], moved[1024];
    xu_warnings w = {0};
    ddb_reader_opts opts = {.warn = xu_warn, .warn_ctx = &w};
    xu_run run;
    ddb_error err;

    /* The user renamed the export folder: keys no longer match the layout,
     * so b comes from <export>/data/ and c from <parent>/data/. */
    snprintf(renamed, sizeof(renamed), "%s/AWSDynamoDB/my-export", root);
    cr_assert_eq(rename(xdir, renamed), 0);
    snprintf(moved, sizeof(moved), "%s/AWSDynamoDB/data", root);
    cr_assert_eq(mkdir(moved, 0755), 0);
    cr_assert_eq(rename(xu_path(renamed, "data/c.json.gz"), xu_path(moved, "c.json.gz")), 0);
    cr_assert_eq(xu_read_export(renamed, &opts, &run, &err), 0, "%s", err.message);
    expect_clean(&run, 9);
    cr_assert_eq(w.n, 0, "%s", w.msg[0]);
    cr_assert_str_eq(run.sources[1], xu_path(renamed, "data/b.json.gz"));
    cr_assert_str_eq(run.sources[2], xu_path(moved, "c.json.gz"));
}

Test(export_synth, relative_and_dot_paths)
{
    xu_run run;
    ddb_error err;

    cr_assert_eq(chdir(root), 0);
    cr_assert_eq(xu_read_export("AWSDynamoDB/" ID "/", NULL, &run, &err), 0, "%s", err.message);
    expect_clean(&run, 9);
    cr_assert_str_eq(run.sources[0], "AWSDynamoDB/" ID "/data/a.json.gz");
    cr_assert_eq(chdir(xdir), 0);
    cr_assert_eq(xu_read_export(".", NULL, &run, &err), 0, "%s", err.message);
    expect_clean(&run, 9);
    cr_assert_eq(xu_read_export("manifest-summary.json", NULL, &run, &err), 0, "%s", err.message);
    expect_clean(&run, 9);
}

Test(export_synth, entity_hint_only_from_option)
{
    ddb_reader_opts opts = {.entity = "Order"};
    xu_run run;
    ddb_error err;

    cr_assert_eq(xu_read_export(xdir, &opts, &run, &err), 0, "%s", err.message);
    cr_assert_str_eq(run.hint, "Order");
}

Test(export_synth, not_an_export_folder)
{
    ddb_reader *r = NULL;
    ddb_error err;
    cr_assert_eq(ddb_reader_new_export(&r, root, NULL, &err), DDB_ENOTFOUND);
    cr_assert(strstr(err.message, "no manifest-summary.json") != NULL, "%s", err.message);
    cr_assert_eq(ddb_reader_new_export(&r, xu_path(root, "nope"), NULL, &err), DDB_ENOTFOUND);
}
