/*
 * test_union.c — CSV of items without a mapping: the header is the typed union
 * of every record's attributes, records wait in a spill file, a value of
 * another type than its column's goes to _extra, the spill is removed (or
 * kept for a resumed run, which learns its columns again); typed cell text.
 */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "ddbpipe/writer.h"
#include "ddbpipe/sink.h"
#include "write/csv_cell.h"
#include "support/files.h"
#include "support/outputs.h"
#include "support/testutil.h"

static ddb_arena *a;
static char tdir[64];

static void setup(void)
{
    cr_assert_eq(ddb_arena_new(&a, 0), 0);
    tu_mkdtemp(tdir, sizeof(tdir), "/tmp/ddb-union-XXXXXX");
}

static void teardown(void)
{
    ddb_arena_free(a);
    tu_rmtree(tdir);
}

TestSuite(union_csv, .init = setup, .fini = teardown);

static ddb_writer *union_writer(const char *spill, int resume, uint64_t keep, int keep_spill)
{
    ddb_sink *sink = NULL;
    ddb_writer *w = NULL;
    ddb_error err;
    cr_assert_eq(ddb_sink_new_memory(&sink, &err), 0);
    cr_assert_eq(ddb_writer_new_csv_union(&w, sink, spill, resume, keep, keep_spill, NULL, &err), 0,
                 "%s", err.message);
    return w;
}

static void put(ddb_writer *w, const char *typed)
{
    ddb_map rec = tu_item(a, typed);
    ddb_error err;
    cr_assert_eq(ddb_writer_write(w, &rec, 0, &err), 0, "%s", err.message);
}

/* The spill made durable: the bytes a resumed run keeps. */
static uint64_t checkpoint(ddb_writer *w)
{
    ddb_error err;
    cr_assert_eq(ddb_sink_checkpoint(ddb_writer_spill(w, NULL), &err), 0, "%s", err.message);
    return ddb_sink_file_length(ddb_writer_spill(w, NULL));
}

static void expect_output(ddb_writer *w, const char *want)
{
    tu_expect_writer_output(w, want);
}

Test(union_csv, header_is_the_typed_union_of_all_records)
{
    const char *spill = tu_path(tdir, ".items.csv.spill");
    ddb_writer *w = union_writer(spill, 0, 0, 0);
    put(w, "{\"pk\":{\"S\":\"a\"},\"n\":{\"N\":\"1.50\"},\"gone\":{\"NULL\":true}}");
    put(w, "{\"pk\":{\"S\":\"b\"},\"tags\":{\"SS\":[\"x\",\"y\"]},\"n\":{\"S\":\"not a number\"}}");
    put(w, "{\"pk\":{\"S\":\"c\"},\"m\":{\"M\":{\"k\":{\"B\":\"AQ==\"}}},\"ok\":{\"BOOL\":false},"
           "\"b\":{\"B\":\"AAE=\"},\"e\":{\"S\":\"\"}}");
    cr_assert(tu_exists(spill));
    cr_assert_eq(w->records, 3);
    expect_output(w, "pk,n:N,tags:SS,m:M,ok:BOOL,b:B,e,_extra\n"
                     "a,1.50,,,,,,\"{\"\"gone\"\":{\"\"NULL\"\":true}}\"\n"
                     "b,,\"[\"\"x\"\",\"\"y\"\"]\",,,,,\"{\"\"n\"\":{\"\"S\"\":\"\"not a "
                     "number\"\"}}\"\n"
                     "c,,,\"{\"\"k\"\":{\"\"B\"\":\"\"AQ==\"\"}}\",false,AAE=,\"\",\n");
    cr_assert(!tu_exists(spill), "the spill is removed once the file is written");
    ddb_writer_free(w);
}

/* Records wider than the row array's first size (16 attributes), and one
 * more than twice as wide as the one before: every attribute a column. */
Test(union_csv, wide_records)
{
    static const size_t widths[] = {17, 40, 3, 100};
    ddb_writer *w = union_writer(tu_path(tdir, ".items.csv.spill"), 0, 0, 0);
    ddb_buf item = DDB_BUF_INIT, want = DDB_BUF_INIT;
    for (size_t k = 0; k < 100; k++)
        ddb_buf_printf(&want, "%sa%03zu", k ? "," : "", k);
    ddb_buf_puts(&want, ",_extra\n");
    for (size_t r = 0; r < sizeof(widths) / sizeof(widths[0]); r++) {
        ddb_buf_clear(&item);
        ddb_buf_putc(&item, '{');
        for (size_t k = 0; k < widths[r]; k++)
            ddb_buf_printf(&item, "%s\"a%03zu\":{\"S\":\"v%zu\"}", k ? "," : "", k, r);
        ddb_buf_putc(&item, '}');
        put(w, item.ptr);
        for (size_t k = 0; k < 100; k++)
            ddb_buf_printf(&want, "%s%s%s", k ? "," : "", k < widths[r] ? "v" : "",
                           k < widths[r] ? (const char[]){(char)('0' + r), 0} : "");
        ddb_buf_puts(&want, ",\n");
    }
    expect_output(w, want.ptr);
    ddb_buf_dispose(&item);
    ddb_buf_dispose(&want);
    ddb_writer_free(w);
}

Test(union_csv, no_records_no_columns)
{
    ddb_writer *w = union_writer(tu_path(tdir, "s"), 0, 0, 0);
    expect_output(w, "_extra\n");
    ddb_writer_free(w);
}

Test(union_csv, unfinished_writer_removes_or_keeps_its_spill)
{
    const char *spill = tu_path(tdir, "s1");
    ddb_writer *w = union_writer(spill, 0, 0, 0);
    put(w, "{\"pk\":{\"S\":\"a\"}}");
    ddb_writer_free(w);
    cr_assert(!tu_exists(spill));
    w = union_writer(spill, 0, 0, 1);
    put(w, "{\"pk\":{\"S\":\"a\"}}");
    ddb_writer_free(w);
    cr_assert(tu_exists(spill), "a resumable run keeps it");
}

/* A resumed run cuts the spill to the checkpoint and learns its columns again. */
Test(union_csv, resume_relearns_the_columns)
{
    const char *spill = tu_path(tdir, "s2");
    ddb_writer *w = union_writer(spill, 0, 0, 1);
    uint64_t keep;
    put(w, "{\"pk\":{\"S\":\"a\"},\"n\":{\"N\":\"1\"}}");
    keep = checkpoint(w);
    put(w, "{\"pk\":{\"S\":\"lost\"},\"x\":{\"S\":\"after the checkpoint\"}}");
    ddb_writer_free(w);
    w = union_writer(spill, 1, keep, 1);
    cr_assert_eq(w->records, 1);
    put(w, "{\"pk\":{\"S\":\"b\"},\"y\":{\"BOOL\":true}}");
    expect_output(w, "pk,n:N,y:BOOL,_extra\na,1,,\nb,,true,\n");
    ddb_writer_free(w);
}

/* A spill of JSON lines, as ddbpipe spooled before its spills were binary:
 * resuming over it is refused with what to do, and the spill is left alone. */
Test(union_csv, resume_over_an_older_spill_is_refused)
{
    const char *old = "{\"pk\":{\"S\":\"a\"}}\n";
    const char *spill = tu_put_file(tdir, "old.spill", old);
    ddb_sink *sink = NULL;
    ddb_writer *w = NULL;
    ddb_error err;
    cr_assert_eq(ddb_sink_new_memory(&sink, &err), 0);
    cr_assert_eq(ddb_writer_new_csv_union(&w, sink, spill, 1, strlen(old), 1, NULL, &err), DDB_EIO);
    cr_assert_null(w);
    cr_assert(strstr(err.message, "not a spill file of this ddbpipe") != NULL, "%s", err.message);
    cr_assert(strstr(err.message, "start it again without --resume") != NULL, "%s", err.message);
    cr_assert(tu_exists(spill), "kept for the user to look at");
}

/* A column of only NULLs before the checkpoint that gets its type after it:
 * the resumed run learns it, in its place, from the spill. */
Test(union_csv, resume_relearns_a_column_typed_late)
{
    const char *spill = tu_path(tdir, "s3");
    ddb_writer *w = union_writer(spill, 0, 0, 1);
    uint64_t keep;
    put(w, "{\"late\":{\"NULL\":true},\"pk\":{\"S\":\"a\"}}");
    put(w, "{\"pk\":{\"S\":\"b\"},\"late\":{\"N\":\"7\"}}");
    put(w, "{\"late\":{\"N\":\"8\"},\"pk\":{\"S\":\"c\"}}");
    keep = checkpoint(w);
    ddb_writer_free(w);
    w = union_writer(spill, 1, keep, 1);
    cr_assert_eq(w->records, 3);
    put(w, "{\"late\":{\"S\":\"x\"},\"pk\":{\"S\":\"d\"}}");
    expect_output(w, "late:N,pk,_extra\n"
                     ",a,\"{\"\"late\"\":{\"\"NULL\"\":true}}\"\n"
                     "7,b,\n8,c,\n"
                     ",d,\"{\"\"late\"\":{\"\"S\"\":\"\"x\"\"}}\"\n");
    ddb_writer_free(w);
}

/* Cells made apart (as worker threads make them) write the same file as
 * records given whole, for every kind of value and placement. */
Test(union_csv, cells_made_apart_write_the_same_file)
{
    static const char *recs[] = {
        "{\"pk\":{\"S\":\"a,1\"},\"n\":{\"N\":\"1.50\"},\"z\":{\"NULL\":true}}",
        "{\"n\":{\"S\":\"\\\"q\\\"\"},\"pk\":{\"S\":\"\"},\"_extra\":{\"N\":\"2\"}}",
        "{\"b\":{\"B\":\"\"},\"l\":{\"L\":[{\"S\":\"x\"},{\"NULL\":true}]},\"pk\":{\"S\":\"c\"}}",
        "{\"z\":{\"BOOL\":true},\"l\":{\"L\":[]},\"m\":{\"M\":{}}}", "{}"};
    ddb_writer_opts o = {.delimiter = ';'};
    ddb_writer *w[2];
    ddb_format_scratch s = {0};
    ddb_buf cells = DDB_BUF_INIT;
    ddb_error err;
    const char *data[2];
    size_t len[2];

    for (int k = 0; k < 2; k++) {
        ddb_sink *sink = NULL;
        cr_assert_eq(ddb_sink_new_memory(&sink, &err), 0);
        cr_assert_eq(ddb_writer_new_csv_union(&w[k], sink, tu_path(tdir, k ? "c1" : "c0"), 0, 0, 0,
                                              &o, &err),
                     0, "%s", err.message);
    }
    for (size_t i = 0; i < sizeof(recs) / sizeof(*recs); i++) {
        ddb_map rec = tu_item(a, recs[i]);
        cr_assert_eq(ddb_writer_write(w[0], &rec, 0, &err), 0, "%s", err.message);
        ddb_buf_clear(&cells);
        cr_assert_eq(ddb_csv_union_cells(&cells, &s, &rec, ';'), 0);
        cr_assert_eq(ddb_writer_write_cells(w[1], &rec, cells.ptr, &err), 0, "%s", err.message);
    }
    for (int k = 0; k < 2; k++) {
        cr_assert_eq(ddb_writer_finish(w[k], &err), 0, "%s", err.message);
        data[k] = ddb_sink_memory_data(w[k]->sink, &len[k]);
    }
    cr_assert_eq(len[0], len[1]);
    cr_assert_eq(memcmp(data[0], data[1], len[0]), 0, "%.*s", (int)len[1], data[1]);
    cr_assert(strncmp(data[0], "pk;n:N;z:BOOL;b:B;l:L;m:M;_extra\n", 33) == 0, "%.*s", (int)len[0],
              data[0]);
    ddb_writer_free(w[0]);
    ddb_writer_free(w[1]);
    ddb_buf_dispose(&cells);
    ddb_format_scratch_dispose(&s);
}

/* A spill whose row has a cell in a column that never got a type (damaged,
 * or written by hand) fails the finish rather than shifting cells. */
Test(union_csv, a_row_in_a_column_without_values_is_refused)
{
    static const char spill_bytes[] = "ddbpipe-spill 3\n"
                                      "\x03\x00\x00\x00"
                                      "C\x01"
                                      "a"
                                      "\x07\x00\x00\x00"
                                      "S\x01\x00\x02xy\x00";
    const char *spill = tu_put_bytes(tdir, "hand.spill", spill_bytes, sizeof(spill_bytes) - 1);
    ddb_writer *w = union_writer(spill, 1, sizeof(spill_bytes) - 1, 1);
    ddb_error err;
    cr_assert_eq(w->records, 1);
    cr_assert_eq(ddb_writer_finish(w, &err), DDB_EIO);
    cr_assert(strstr(err.message, "frame 2 of the spooled records is damaged") != NULL, "%s",
              err.message);
    ddb_writer_free(w);
}

Test(union_csv, typed_cell_text)
{
    const char *texts[][2] = {
        {"{\"v\":{\"S\":\"a,b\"}}", "a,b"},
        {"{\"v\":{\"N\":\"-0.5E3\"}}", "-0.5E3"},
        {"{\"v\":{\"NS\":[\"1\",\"2.0\"]}}", "[\"1\",\"2.0\"]"},
        {"{\"v\":{\"BS\":[\"AQ==\"]}}", "[\"AQ==\"]"},
        {"{\"v\":{\"L\":[{\"S\":\"x\"},{\"NULL\":true}]}}", "[{\"S\":\"x\"},{\"NULL\":true}]"},
        {"{\"v\":{\"M\":{}}}", "{}"},
    };
    for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
        ddb_map m = tu_item(a, texts[i][0]);
        ddb_buf b = DDB_BUF_INIT;
        cr_assert_eq(ddb_csv_typed_cell_text(&b, &m.attrs[0].value), 0);
        cr_assert_eq(b.len, strlen(texts[i][1]), "%.*s", (int)b.len, b.ptr);
        cr_assert_eq(memcmp(b.ptr, texts[i][1], b.len), 0, "%.*s", (int)b.len, b.ptr);
        ddb_buf_dispose(&b);
    }
}

/* Names that would read back otherwise: an attribute named like a typed
 * column keeps its string type in the header, one named _extra goes there. */
Test(union_csv, names_that_look_like_types_or_extra)
{
    ddb_writer *w = union_writer(tu_path(tdir, "s3"), 0, 0, 0);
    put(w, "{\"ratio:N\":{\"S\":\"x\"},\"n:S\":{\"N\":\"1\"},\"_extra\":{\"S\":\"e\"},"
           "\"plain:word\":{\"S\":\"y\"}}");
    expect_output(w, "ratio:N:S,n:S:N,plain:word,_extra\n"
                     "x,1,y,\"{\"\"_extra\"\":{\"\"S\"\":\"\"e\"\"}}\"\n");
    ddb_writer_free(w);
}

extern int ddb_csv_union_direct;

/* The CSV a union writer over a memory sink makes of recs, rows written as
 * they come (direct) or all from the spill at the end; *early: how many
 * bytes the sink held before finish. */
static char *union_csv(const char *const *recs, size_t n, int direct, size_t *early)
{
    const char *spill = tu_path(tdir, direct ? ".d.csv.spill" : ".s.csv.spill");
    ddb_writer *w;
    ddb_error err;
    const char *data;
    size_t len;
    char *out;

    ddb_csv_union_direct = direct;
    w = union_writer(spill, 0, 0, 0);
    for (size_t i = 0; i < n; i++)
        put(w, recs[i]);
    ddb_sink_memory_data(w->sink, early);
    cr_assert_eq(ddb_writer_finish(w, &err), 0, "%s", err.message);
    data = ddb_sink_memory_data(w->sink, &len);
    cr_assert_not_null(out = malloc(len + 1));
    memcpy(out, data, len);
    out[len] = '\0';
    ddb_writer_free(w);
    ddb_csv_union_direct = 1;
    cr_assert(!tu_exists(spill), "the spill was left behind");
    return out;
}

/* Rows written as they come make the file the spill makes at the end: when
 * the columns never change, when they do (the file started again under the
 * new header), and when they change too often (left to the end). */
Test(union_csv, rows_written_as_they_come_make_the_same_file)
{
    static const char *same[] = {
        "{\"pk\":{\"S\":\"a\"},\"n\":{\"N\":\"1\"},\"l\":{\"L\":[{\"S\":\"x\\\"y\"}]}}",
        "{\"pk\":{\"S\":\"b\"},\"n\":{\"N\":\"2\"},\"l\":{\"L\":[]}}",
        /* a value of another type and a NULL: to _extra, the header unchanged */
        "{\"pk\":{\"S\":\"c\"},\"n\":{\"S\":\"two\"},\"z\":{\"NULL\":true}}",
        /* a new attribute that is only ever NULL: no column */
        "{\"z2\":{\"NULL\":true},\"pk\":{\"S\":\"d\"}}",
    };
    static const char *changes[] = {
        "{\"pk\":{\"S\":\"a\"},\"z\":{\"NULL\":true}}",
        "{\"pk\":{\"S\":\"b\"},\"n\":{\"N\":\"2\"}}",   /* a new column */
        "{\"pk\":{\"S\":\"c\"},\"z\":{\"BOOL\":true}}", /* NULL until now: typed */
        "{\"pk\":{\"S\":\"d\"},\"_extra\":{\"S\":\"named like it\"}}",
        "{\"pk\":{\"S\":\"e\"},\"n\":{\"N\":\"5\"},\"z\":{\"BOOL\":false}}",
    };
    const char *many[40];
    char bufs[40][64];
    struct {
        const char *const *recs;
        size_t n;
        int direct_at_end; /* the header was in the sink before finish (given up: emptied) */
    } cases[] = {{same, 4, 1}, {changes, 5, 1}, {many, 40, 0}};

    /* a new column at every record: the header guessed again and again */
    for (size_t i = 0; i < 40; i++) {
        snprintf(bufs[i], sizeof(bufs[i]), "{\"pk\":{\"S\":\"r%zu\"},\"c%zu\":{\"N\":\"%zu\"}}", i,
                 i, i);
        many[i] = bufs[i];
    }
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        size_t early_d, early_s;
        char *d = union_csv(cases[k].recs, cases[k].n, 1, &early_d);
        char *sp = union_csv(cases[k].recs, cases[k].n, 0, &early_s);
        cr_assert_str_eq(d, sp, "case %zu", k);
        cr_assert_eq(early_s, 0, "case %zu: the spill's way wrote before finish", k);
        cr_assert_eq(early_d > 0, cases[k].direct_at_end,
                     "case %zu: %zu bytes in the sink before finish", k, early_d);
        free(d);
        free(sp);
    }
}

/* A resumable run's CSV is made at the end from the spill it keeps. */
Test(union_csv, a_resumable_run_writes_at_the_end)
{
    const char *spill = tu_path(tdir, ".r.csv.spill");
    ddb_writer *w = union_writer(spill, 0, 0, 1);
    size_t early;
    put(w, "{\"pk\":{\"S\":\"a\"}}");
    ddb_sink_memory_data(w->sink, &early);
    cr_assert_eq(early, 0);
    expect_output(w, "pk,_extra\na,\n");
    ddb_writer_free(w);
}

/* The same over an atomic file, where emptying drops buffered bytes and bytes
 * already in the file: records past the 256 KiB layout chunk and the file
 * sink's buffer, a new column once the spill is past 16 MiB (given up: made
 * at the end), with another delimiter and plain _extra. */
static char *file_csv(int direct, size_t n_big, ddb_writer_opts *o)
{
    const char *spill = tu_path(tdir, ".f.csv.spill"), *path = tu_path(tdir, "f.csv");
    char *big = malloc(300001), *rec = malloc(300100), *out;
    ddb_sink *sink;
    ddb_writer *w;
    ddb_error err;
    size_t len;

    cr_assert(big != NULL && rec != NULL);
    memset(big, 'x', 300000);
    big[300000] = '\0';
    ddb_csv_union_direct = direct;
    cr_assert_eq(ddb_sink_open_file(&sink, path, 1, &err), 0, "%s", err.message);
    cr_assert_eq(ddb_writer_new_csv_union(&w, sink, spill, 0, 0, 0, o, &err), 0, "%s", err.message);
    for (size_t i = 0; i < n_big + 3; i++) {
        if (i < n_big)
            snprintf(rec, 300100, "{\"pk\":{\"S\":\"r%zu\"},\"v\":{\"S\":\"%s\"}}", i, big);
        else if (i == n_big)
            snprintf(rec, 300100,
                     "{\"pk\":{\"S\":\"late\"},\"n\":{\"N\":\"1\"},\"z\":{\"NULL\":true}}");
        else
            snprintf(rec, 300100,
                     "{\"pk\":{\"S\":\"e%zu\"},\"v\":{\"N\":\"2\"},\"m\":{\"M\":{\"k\":{\"S\":\"a;"
                     "b\\\"\"}}}}",
                     i);
        put(w, rec);
    }
    cr_assert_eq(ddb_writer_finish(w, &err), 0, "%s", err.message);
    ddb_writer_free(w);
    ddb_csv_union_direct = 1;
    out = tu_slurp(path, &len);
    cr_assert_not_null(out);
    free(big);
    free(rec);
    return out;
}

Test(union_csv, rows_as_they_come_into_a_file, .timeout = 60)
{
    ddb_writer_opts o = {0};
    size_t cases[] = {3, 60}; /* a restart; past 16 MiB of spill: given up */
    o.delimiter = ';';
    o.extra_plain = 1;
    for (size_t k = 0; k < 2; k++) {
        char *d = file_csv(1, cases[k], &o), *sp = file_csv(0, cases[k], &o);
        cr_assert(strcmp(d, sp) == 0, "%zu big records: the files differ", cases[k]);
        free(d);
        free(sp);
    }
}

/* A spill resumed by a writer that does not keep it (the API allows it):
 * the rows spooled before are in the file, so none is written as it comes. */
Test(union_csv, a_resumed_spill_is_laid_out_at_the_end)
{
    const char *spill = tu_path(tdir, ".rs.csv.spill");
    ddb_writer *w = union_writer(spill, 0, 0, 1);
    uint64_t keep;
    put(w, "{\"a\":{\"S\":\"one\"}}");
    put(w, "{\"a\":{\"S\":\"two\"}}");
    keep = checkpoint(w);
    ddb_writer_free(w);
    w = union_writer(spill, 1, keep, 0);
    put(w, "{\"a\":{\"S\":\"three\"}}");
    expect_output(w, "a,_extra\none,\ntwo,\nthree,\n");
    ddb_writer_free(w);
}
