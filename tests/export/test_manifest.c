/*
 * test_manifest.c — manifest parsing rules, checksum texts, and unusual but
 * legal data files (empty partitions, bad lines).
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>

#include "ddbpipe/checksum.h"
#include "ddbpipe/manifest.h"
#include "ddbpipe/reader.h"
#include "export/export_test_util.h"

#define ID "01700000000001-00000001"

static char root[64];

static void setup(void)
{
    snprintf(root, sizeof(root), "%s", xu_tmpdir());
}

static void teardown(void)
{
    xu_rmrf(root);
}

TestSuite(manifest, .init = setup, .fini = teardown);

static const xu_file one_file[] = {
    {"a.json.gz", "{\"Item\":{\"pk\":{\"S\":\"a1\"}}}\n{\"Item\":{\"pk\":{\"S\":\"a2\"}}}\n"},
};

Test(manifest, empty_data_files_are_legal)
{
    static const xu_file files[] = {
        {"empty.json.gz", ""},  /* a gzip stream with no content */
        {"zero.json.gz", NULL}, /* a 0-byte file */
        {"a.json.gz", "{\"Item\":{\"pk\":{\"S\":\"x\"}}}\n"},
        {"last.json.gz", ""},
    };
    xu_warnings w = {0};
    ddb_reader_opts opts = {.warn = xu_warn, .warn_ctx = &w};
    const char *dir = xu_build(root, ID, files, 4);
    xu_run run;
    ddb_error err;

    cr_assert_eq(xu_read_export(dir, &opts, &run, &err), 0, "%s", err.message);
    cr_assert_eq(run.fatal, 0, "%s", run.fatal_msg);
    cr_assert_eq(run.nverify, 0, "%s", run.verify[0]);
    cr_assert_eq(run.records, 1);
    cr_assert_eq(w.n, 0, "%s", w.msg[0]);
}

Test(manifest, empty_export)
{
    const char *dir = xu_build(root, ID, NULL, 0);
    xu_run run;
    ddb_error err;
    cr_assert_eq(xu_read_export(dir, NULL, &run, &err), 0, "%s", err.message);
    cr_assert_eq(run.records, 0);
    cr_assert_eq(run.nverify, 0, "%s", run.verify[0]);
}

Test(manifest, bad_lines_are_counted_and_located)
{
    static const xu_file files[] = {
        {"a.json.gz", "{\"Item\":{\"pk\":{\"S\":\"a1\"}}}\n"
                      "{\"Item\":{\"pk\":{\"S\":\"a2\"}\n"
                      "{\"Item\":{\"pk\":{\"S\":\"a3\"}}}\n"},
    };
    const char *dir = xu_build(root, ID, files, 1);
    ddb_reader *r = NULL;
    ddb_record *rec;
    ddb_error err;
    int kinds[3], n = 0, rc;

    cr_assert_eq(ddb_reader_new_export(&r, dir, NULL, &err), 0, "%s", err.message);
    while ((rc = ddb_reader_next(r, &rec, &err)) == 0) {
        cr_assert_lt(n, 3);
        kinds[n++] = rec->kind;
        if (rec->kind == DDB_REC_BAD) {
            cr_assert_eq(rec->line, 2);
            cr_assert_str_eq(rec->source, xu_path(dir, "data/a.json.gz"));
            cr_assert_not_null(rec->reason);
        }
    }
    /* The manifest counted the bad line too, so nothing fails verification. */
    cr_assert_eq(rc, DDB_ITEROVER, "%s", err.message);
    cr_assert_eq(n, 3);
    cr_assert_eq(kinds[0], DDB_REC_PUT);
    cr_assert_eq(kinds[1], DDB_REC_BAD);
    cr_assert_eq(kinds[2], DDB_REC_PUT);
    ddb_reader_free(r);
}

static int open_code(const char *dir, ddb_error *err)
{
    ddb_reader *r = NULL;
    int rc = ddb_reader_new_export(&r, dir, NULL, err);
    ddb_reader_free(r);
    return rc;
}

Test(manifest, ion_is_not_supported)
{
    const char *dir = xu_build(root, ID, one_file, 1);
    ddb_error err;
    xu_replace(xu_path(dir, "manifest-summary.json"), "DYNAMODB_JSON", "ION");
    cr_assert_eq(open_code(dir, &err), DDB_EUSAGE);
    cr_assert(strstr(err.message, "outputFormat ION is not supported") != NULL, "%s", err.message);
    cr_assert(strstr(err.message, "manifest-summary.json") != NULL, "%s", err.message);
}

Test(manifest, item_count_must_be_a_non_negative_integer)
{
    static const char *const bad[] = {"-1", "\"2\"", "2.5", "1e30", "null", "99999999999999999999"};
    const char *dir = xu_build(root, ID, one_file, 1);
    const char *summary = xu_path(dir, "manifest-summary.json");
    char now[64];
    ddb_error err;

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        snprintf(now, sizeof(now), "\"itemCount\":%s", bad[i]);
        xu_replace(summary, "\"itemCount\":2", now);
        cr_assert_eq(open_code(dir, &err), DDB_EINVAL, "%s", bad[i]);
        cr_assert(strstr(err.message, "\"itemCount\" must be a non-negative integer") != NULL,
                  "%s: %s", bad[i], err.message);
        xu_replace(summary, now, "\"itemCount\":2");
    }
    /* Absent is an error too. */
    xu_replace(summary, "\"itemCount\":2,", "");
    cr_assert_eq(open_code(dir, &err), DDB_EINVAL);
    cr_assert(strstr(err.message, "\"itemCount\" is missing") != NULL, "%s", err.message);
}

Test(manifest, export_type)
{
    const char *dir = xu_build(root, ID, one_file, 1);
    const char *summary = xu_path(dir, "manifest-summary.json");
    ddb_manifest *m = NULL;
    ddb_error err;

    xu_replace(summary, "\"outputFormat\"",
               "\"exportType\":\"INCREMENTAL_EXPORT\",\"outputFormat\"");
    cr_assert_eq(ddb_manifest_load(&m, dir, 0, NULL, NULL, &err), 0, "%s", err.message);
    cr_assert_eq(m->type, DDB_EXPORT_INCREMENTAL);
    ddb_manifest_free(m);
    xu_replace(summary, "INCREMENTAL_EXPORT", "PARTIAL_EXPORT");
    cr_assert_eq(open_code(dir, &err), DDB_EINVAL);
    cr_assert(strstr(err.message, "unknown exportType \"PARTIAL_EXPORT\"") != NULL, "%s",
              err.message);
}

Test(manifest, malformed_files_manifest_names_the_line)
{
    const char *dir = xu_build(root, ID, one_file, 1);
    const char *files = xu_path(dir, "manifest-files.json");
    char want[600];
    ddb_error err;

    xu_replace(files, "\n", "\n{\"itemCount\":1,\"dataFileS3Key\":\n");
    xu_fix_md5(files);
    cr_assert_eq(open_code(dir, &err), DDB_EINVAL);
    snprintf(want, sizeof(want), "%s:2: ", files);
    cr_assert(strstr(err.message, want) != NULL, "%s", err.message);
}

Test(manifest, files_entry_without_key)
{
    const char *dir = xu_build(root, ID, one_file, 1);
    const char *files = xu_path(dir, "manifest-files.json");
    ddb_error err;

    xu_replace(files, "\"dataFileS3Key\"", "\"dataFileKey\"");
    xu_fix_md5(files);
    cr_assert_eq(open_code(dir, &err), DDB_EINVAL);
    cr_assert(strstr(err.message, ":1: \"dataFileS3Key\" is missing") != NULL, "%s", err.message);
}

Test(manifest, summary_not_json)
{
    const char *dir = xu_build(root, ID, one_file, 1);
    ddb_error err;
    xu_write_text(xu_path(dir, "manifest-summary.json"), "{\"itemCount\": 2,}");
    cr_assert_eq(open_code(dir, &err), DDB_EINVAL);
    cr_assert(strstr(err.message, "manifest-summary.json: byte ") != NULL, "%s", err.message);
}

Test(manifest, data_key_with_dotdot_is_not_followed)
{
    const char *dir = xu_build(root, ID, one_file, 1);
    const char *files = xu_path(dir, "manifest-files.json");
    ddb_manifest *m = NULL;
    ddb_error err;

    /* "../" could leave the folder: only the basename fallbacks are tried. */
    xu_replace(files, "AWSDynamoDB/" ID "/data/a.json.gz", "AWSDynamoDB/../../etc/a.json.gz");
    xu_fix_md5(files);
    cr_assert_eq(ddb_manifest_load(&m, dir, 0, NULL, NULL, &err), 0, "%s", err.message);
    cr_assert_str_eq(m->files[0].path, xu_path(dir, "data/a.json.gz"));
    ddb_manifest_free(m);
}

/* ------------------------------------------------------------ checksums */

Test(checksum, parse_forms)
{
    ddb_checksum c;
    ddb_error err;
    char out[DDB_CHECKSUM_TEXT_MAX];

    cr_assert_eq(ddb_checksum_parse(&c, " IHgikHL6e+t+ev0s+XJ8MQ==\n", 26, &err), 0, "%s",
                 err.message);
    cr_assert_eq(c.algo, DDB_DIGEST_MD5);
    cr_assert_eq(c.hex, 0);
    cr_assert_eq(c.len, 16);
    cr_assert_eq(c.bytes[0], 0x20);
    ddb_checksum_format(out, &c, c.bytes);
    cr_assert_str_eq(out, "IHgikHL6e+t+ev0s+XJ8MQ==");

    {
        const char *t = "d41d8cd98f00b204e9800998ecf8427e  manifest-files.json\n";
        cr_assert_eq(ddb_checksum_parse(&c, t, strlen(t), &err), 0, "%s", err.message);
        cr_assert_eq(c.algo, DDB_DIGEST_MD5);
        cr_assert_eq(c.hex, 1);
        ddb_checksum_format(out, &c, c.bytes);
        cr_assert_str_eq(out, "d41d8cd98f00b204e9800998ecf8427e");
    }
    {
        const char *t = "E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855";
        unsigned char d[32];
        cr_assert_eq(ddb_checksum_parse(&c, t, strlen(t), &err), 0, "%s", err.message);
        cr_assert_eq(c.algo, DDB_DIGEST_SHA256);
        cr_assert_eq(ddb_checksum_compute(d, DDB_DIGEST_SHA256, "", 0), 0);
        cr_assert_eq(memcmp(d, c.bytes, 32), 0);
    }
    {
        const char *t = "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=";
        cr_assert_eq(ddb_checksum_parse(&c, t, strlen(t), &err), 0, "%s", err.message);
        cr_assert_eq(c.algo, DDB_DIGEST_SHA256);
        cr_assert_eq(c.bytes[31], 0x55);
    }
}

Test(checksum, rejects_other_texts)
{
    static const char *const bad[] = {"",
                                      "   \n",
                                      "abc",
                                      "d41d8cd98f00b204e9800998ecf8427", /* 31 hex digits */
                                      "IHgikHL6e+t+ev0s+XJ8MQ",          /* no padding */
                                      "AAAA",                            /* 3 bytes */
                                      "da39a3ee5e6b4b0d3255bfef95601890afd80709", /* SHA-1 */
                                      "z41d8cd98f00b204e9800998ecf8427e"};
    ddb_checksum c;
    ddb_error err;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        cr_assert_eq(ddb_checksum_parse(&c, bad[i], strlen(bad[i]), &err), DDB_EINVAL, "%s",
                     bad[i]);
}
