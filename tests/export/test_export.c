/*
 * test_export.c — the real AWS exports in ../shared/testdata/aws-export: a
 * FULL export (133199 items, 4 files) and an INCREMENTAL one (15 changes).
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>

#include "ddbpipe/manifest.h"
#include "ddbpipe/reader.h"
#include "export/export_test_util.h"

#define AWS DDB_SHARED_DIR "/aws-export"
#define FULL AWS "/01716790307109-5f9d6aaa"
#define INCR AWS "/01716791487000-6ddcf8cf"

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

static void check_full(const xu_run *run)
{
    static const char *const names[] = {"bddxj42rqu5ydkvytmo3fljtbu", "3ol56grj3u2pxfcyepktpypzju",
                                        "64n7lcefom4dth37rfhihvfj54", "6w7gruvaie6wbf3wtvh4vdniiy"};
    static const uint64_t counts[] = {33300, 33070, 33449, 33380};

    cr_assert_eq(run->fatal, 0, "%s", run->fatal_msg);
    cr_assert_eq(run->nverify, 0, "%s", run->verify[0]);
    cr_assert_eq(run->records, 133199);
    cr_assert_eq(run->put, 133199);
    cr_assert_eq(run->bad, 0);
    cr_assert_eq(run->del, 0);
    cr_assert_eq(run->with_time, 0);
    cr_assert_eq(run->nsources, 4);
    for (int i = 0; i < 4; i++) {
        char want[128];
        snprintf(want, sizeof(want), "/data/%s.json.gz", names[i]);
        cr_assert(ends_with(run->sources[i], want), "%s", run->sources[i]);
        cr_assert_eq(run->per_source[i], counts[i], "%s: %llu", names[i],
                     (unsigned long long)run->per_source[i]);
    }
}

Test(export_shared, full_export)
{
    xu_warnings w = {0};
    ddb_reader_opts opts = {.warn = xu_warn, .warn_ctx = &w};
    ddb_reader *r = NULL;
    ddb_error err;
    xu_run run;

    cr_assert_eq(ddb_reader_new_export(&r, FULL, &opts, &err), 0, "%s", err.message);
    cr_assert_eq(r->expected_items, 133199);
    cr_assert_eq(r->total_bytes, 1090358u + 1101132u + 1102881u + 1102745u);
    cr_assert_eq(ddb_reader_raw_bytes(r), 0);
    cr_assert_str_eq(r->name, FULL);
    xu_read_all(r, &run);
    check_full(&run);
    cr_assert_eq(ddb_reader_raw_bytes(r), r->total_bytes);
    cr_assert_str_eq(run.hint, "(null)");
    ddb_reader_free(r);

    /* The re-indented summary is a warning naming both digests, not an error;
     * manifest-files.json matched its .md5, so nothing else is reported. */
    cr_assert_eq(w.n, 1, "%s", w.msg[0]);
    cr_assert_eq(xu_warned(&w, "manifest-summary.json"), 1);
    cr_assert_eq(xu_warned(&w, "FuIxQWN66RwGDOK/q62eMA=="), 1, "%s", w.msg[0]);
    cr_assert_eq(xu_warned(&w, "V2ek9hytM5xqxL9jIsq3Lw=="), 1, "%s", w.msg[0]);
}

Test(export_shared, full_export_through_summary_path)
{
    xu_warnings w = {0};
    ddb_reader_opts opts = {.warn = xu_warn, .warn_ctx = &w};
    ddb_reader *r = NULL;
    ddb_error err;
    xu_run run;

    cr_assert_eq(ddb_reader_open(&r, FULL "/manifest-summary.json", &opts, &err), 0, "%s",
                 err.message);
    cr_assert_eq(r->format, DDB_IN_EXPORT);
    cr_assert_eq(r->expected_items, 133199);
    xu_read_all(r, &run);
    check_full(&run);
    ddb_reader_free(r);
    cr_assert_eq(w.n, 1);
}

Test(export_shared, folder_through_reader_open)
{
    ddb_reader *r = NULL;
    ddb_record *rec;
    ddb_error err;

    /* Without a warn callback the summary warning is dropped silently. */
    cr_assert_eq(ddb_reader_open(&r, FULL "/", NULL, &err), 0, "%s", err.message);
    cr_assert_eq(r->format, DDB_IN_EXPORT);
    cr_assert_eq(ddb_reader_next(r, &rec, &err), 0, "%s", err.message);
    cr_assert_eq(rec->kind, DDB_REC_PUT);
    cr_assert_eq(rec->change, DDB_CHANGE_NONE);
    cr_assert_eq(rec->line, 1);
    cr_assert(ends_with(rec->source, "/data/bddxj42rqu5ydkvytmo3fljtbu.json.gz"), "%s",
              rec->source);
    cr_assert_not_null(ddb_map_getz(&rec->item, "name"));
    cr_assert_gt(ddb_reader_raw_bytes(r), 0);
    ddb_reader_free(r);
}

Test(export_shared, incremental_export)
{
    /* Changes in manifest order: files flhtr.. (1), dkan.. (7), xtbi.. (2), dwue.. (5);
     * Insert (no OldImage), Modify, Remove (no NewImage). */
    static const char changes[] = "MMMRRRRMMMRMRIM";
    xu_warnings w = {0};
    ddb_reader_opts opts = {.warn = xu_warn, .warn_ctx = &w};
    ddb_reader *r = NULL;
    ddb_record *rec;
    ddb_error err;
    int i = 0, rc;

    cr_assert_eq(ddb_reader_new_export(&r, INCR, &opts, &err), 0, "%s", err.message);
    cr_assert_eq(r->expected_items, 15);
    cr_assert_eq(r->total_bytes, 1009u + 437u + 285u + 343u);
    while ((rc = ddb_reader_next(r, &rec, &err)) == 0) {
        const ddb_value *name = ddb_map_getz(&rec->item, "name");
        cr_assert_lt(i, 15);
        cr_assert_eq(rec->kind, changes[i] == 'R' ? DDB_REC_DELETE : DDB_REC_PUT, "record %d", i);
        cr_assert_eq(rec->change,
                     changes[i] == 'I'   ? DDB_CHANGE_INSERT
                     : changes[i] == 'M' ? DDB_CHANGE_MODIFY
                                         : DDB_CHANGE_REMOVE,
                     "record %d", i);
        cr_assert_eq(rec->write_time.len, 16, "record %d", i);
        cr_assert_not_null(name);
        cr_assert_eq(name->type, DDB_TYPE_S);
        /* A delete carries the key only; a put the whole new image. */
        if (rec->kind == DDB_REC_DELETE)
            cr_assert_eq(rec->item.count, 1);
        else
            cr_assert_not_null(ddb_map_getz(&rec->item, "activities"));
        cr_assert(strstr(rec->source, "/aws-export/data/") != NULL, "%s", rec->source);
        if (i == 0) {
            cr_assert_eq(memcmp(rec->write_time.ptr, "1716791170728172", 16), 0);
            cr_assert_eq(memcmp(name->u.s.ptr, "Majesty5441", 11), 0);
        }
        if (i == 13) { /* the one insert: no OldImage, NewImage only */
            cr_assert_eq(memcmp(name->u.s.ptr, "Olwen4734", 9), 0);
            cr_assert_eq(memcmp(rec->write_time.ptr, "1716790390720026", 16), 0);
        }
        i++;
    }
    cr_assert_eq(rc, DDB_ITEROVER, "%s", err.message);
    cr_assert_eq(i, 15);
    cr_assert_eq(ddb_reader_raw_bytes(r), r->total_bytes);
    ddb_reader_free(r);

    cr_assert_eq(w.n, 1, "%s", w.msg[1]);
    cr_assert_eq(xu_warned(&w, "manifest-summary.json"), 1);
    cr_assert_eq(xu_warned(&w, "wKwxYUaRR+S3zve0SEVgAQ=="), 1, "%s", w.msg[0]);
}

Test(export_shared, incremental_counts)
{
    xu_run run;
    ddb_error err;
    cr_assert_eq(xu_read_export(INCR "/manifest-summary.json", NULL, &run, &err), 0, "%s",
                 err.message);
    cr_assert_eq(run.nverify, 0, "%s", run.verify[0]);
    cr_assert_eq(run.fatal, 0);
    cr_assert_eq(run.records, 15);
    cr_assert_eq(run.put, 9);
    cr_assert_eq(run.del, 6);
    cr_assert_eq(run.bad, 0);
    cr_assert_eq(run.with_time, 15);
    cr_assert_eq(run.nsources, 4);
    cr_assert_eq(run.per_source[0], 1);
    cr_assert_eq(run.per_source[1], 7);
    cr_assert_eq(run.per_source[2], 2);
    cr_assert_eq(run.per_source[3], 5);
}

Test(export_shared, manifest_summary_only)
{
    ddb_manifest *m = NULL;
    ddb_error err;

    cr_assert_eq(ddb_manifest_load(&m, FULL, DDB_MANIFEST_SUMMARY_ONLY, NULL, NULL, &err), 0, "%s",
                 err.message);
    cr_assert_eq(m->item_count, 133199);
    cr_assert_eq(m->type, DDB_EXPORT_FULL);
    cr_assert_str_eq(m->version, "2020-06-30");
    cr_assert_str_eq(m->files_key, "AWSDynamoDB/01716790307109-5f9d6aaa/manifest-files.json");
    cr_assert_null(m->s3_prefix);
    cr_assert_null(m->output_view);
    cr_assert_eq(m->nfiles, 0);
    cr_assert_null(m->files_path);
    ddb_manifest_free(m);

    cr_assert_eq(ddb_manifest_load(&m, INCR "/manifest-summary.json", DDB_MANIFEST_SUMMARY_ONLY,
                                   NULL, NULL, &err),
                 0, "%s", err.message);
    cr_assert_eq(m->item_count, 15);
    cr_assert_eq(m->type, DDB_EXPORT_INCREMENTAL);
    cr_assert_str_eq(m->output_view, "NEW_AND_OLD_IMAGES");
    cr_assert_str_eq(m->version, "2023-08-01");
    ddb_manifest_free(m);
}

Test(export_shared, manifest_full_load)
{
    ddb_manifest *m = NULL;
    ddb_error err;

    cr_assert_eq(ddb_manifest_load(&m, INCR, 0, NULL, NULL, &err), 0, "%s", err.message);
    cr_assert_eq(m->nfiles, 4);
    cr_assert_str_eq(m->files[1].key, "AWSDynamoDB/data/dkanuako6yzejhpq4cc634xsum.json.gz");
    cr_assert_str_eq(m->files[1].md5, "QOcRq6wqsxyJyDmwTQoPZA==");
    cr_assert_str_eq(m->files[1].etag, "55dcc1c8d791c9d4fb1f4cf547eeb6ba-1");
    cr_assert_eq(m->files[1].item_count, 7);
    cr_assert_eq(m->files[1].line, 2);
    cr_assert_eq(m->files[1].size, 1009);
    /* The key's part after AWSDynamoDB/ resolves beside the export folder. */
    cr_assert_str_eq(m->files[1].path, AWS "/data/dkanuako6yzejhpq4cc634xsum.json.gz");
    cr_assert_eq(m->total_bytes, 1009u + 437u + 285u + 343u);
    ddb_manifest_free(m);
}
