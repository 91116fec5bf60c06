/*
 * test_spill.c — the frames of a spill file: columns, types and rows (cells
 * already CSV) read back as written, frames are read back across buffer
 * refills and beyond the reader's first buffer, and damaged or foreign
 * spills are refused with a reason instead of being misread.
 */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "ddbpipe/source.h"
#include "write/spill_codec.h"
#include "support/testutil.h"

static ddb_spill_frame f;

static void teardown(void)
{
    ddb_spill_frame_dispose(&f);
}

TestSuite(spill, .fini = teardown);

static size_t frame_len(const ddb_buf *b, size_t at)
{
    const unsigned char *h = (const unsigned char *)b->ptr + at;
    return (size_t)h[0] | (size_t)h[1] << 8 | (size_t)h[2] << 16 | (size_t)h[3] << 24;
}

/* The frame at b->ptr[*at], read into f; *at moves past it. */
static void read_at(const ddb_buf *b, size_t *at)
{
    ddb_error err;
    size_t n = frame_len(b, *at);
    cr_assert_eq(ddb_spill_frame_read(&f, b->ptr + *at + 4, n, &err), 0, "%s", err.message);
    *at += 4 + n;
}

static int str_is(ddb_str s, const char *want)
{
    return s.len == strlen(want) && memcmp(s.ptr, want, s.len) == 0;
}

/* Cells 0..2 in order; cells 1 and 300 (a two-byte column); a NUL in a cell. */
static const ddb_spill_cell dense[] = {{0, "a", 1}, {1, "\"x,y\"", 5}, {2, "", 0}};
static const ddb_spill_cell sparse[] = {{1, "b\0c", 3}, {300, "[\"1\"]", 5}};

static ddb_buf every_frame(void)
{
    ddb_buf b = DDB_BUF_INIT;
    cr_assert_eq(ddb_spill_put_column(&b, "price:N", 7), 0);
    cr_assert_eq(ddb_spill_put_type(&b, 300, DDB_TYPE_NS), 0);
    cr_assert_eq(ddb_spill_put_row(&b, dense, 3, NULL, 0, ','), 0);
    cr_assert_eq(ddb_spill_put_row(&b, sparse, 2, "{\"z\":{\"NULL\":true}}", 19, ','), 0);
    cr_assert_eq(ddb_spill_put_row(&b, NULL, 0, "e", 1, ';'), 0);
    return b;
}

Test(spill, every_frame_reads_back_as_written)
{
    ddb_buf b = every_frame();
    size_t at = 0;

    cr_assert_eq(frame_len(&b, 0), 9, "the head holds the body's length");
    read_at(&b, &at);
    cr_assert(f.kind == 'C' && str_is(f.name, "price:N"));
    read_at(&b, &at);
    cr_assert(f.kind == 'T' && f.col == 300 && f.type == DDB_TYPE_NS);
    read_at(&b, &at);
    cr_assert_eq(f.kind, 'D', "columns 0..k-1: one line");
    cr_assert_eq(f.k, 3);
    cr_assert(str_is(f.line, "a,\"x,y\",,"), "each cell followed by the delimiter");
    cr_assert_eq(f.extra.len, 0);
    read_at(&b, &at);
    cr_assert_eq(f.kind, 'S');
    cr_assert_eq(f.n_cells, 2);
    cr_assert(f.cells[0].col == 1 && f.cells[0].len == 3 && memcmp(f.cells[0].ptr, "b\0c", 3) == 0);
    cr_assert(f.cells[1].col == 300 && f.cells[1].len == 5);
    cr_assert(str_is(f.extra, "{\"z\":{\"NULL\":true}}"));
    read_at(&b, &at);
    cr_assert(f.kind == 'D' && f.k == 0 && f.line.len == 0 && str_is(f.extra, "e"),
              "a row of no cells");
    cr_assert_eq(at, b.len);
    ddb_buf_dispose(&b);
}

/* Every proper prefix of every body is refused (a spill cut by a crash or a full disk). */
Test(spill, every_cut_body_is_refused)
{
    ddb_buf b = every_frame();
    ddb_error err;
    for (size_t at = 0; at < b.len;) {
        size_t n = frame_len(&b, at);
        for (size_t cut = 0; cut < n; cut++) {
            char *copy = malloc(cut ? cut : 1); /* ASan sees any read past the cut */
            memcpy(copy, b.ptr + at + 4, cut);
            cr_assert_eq(ddb_spill_frame_read(&f, copy, cut, &err), DDB_EIO,
                         "a body at %zu cut at %zu of %zu", at, cut, n);
            free(copy);
        }
        at += 4 + n;
    }
    ddb_buf_dispose(&b);
}

static void expect_refused(const char *body, size_t len, const char *why)
{
    ddb_error err;
    cr_assert_eq(ddb_spill_frame_read(&f, body, len, &err), DDB_EIO, "accepted: %s", why);
    cr_assert(strstr(err.message, why) != NULL, "'%s' does not say '%s'", err.message, why);
}

Test(spill, damaged_bodies_are_refused_with_a_reason)
{
    expect_refused("X", 1, "unknown kind");
    expect_refused("T\x01\x63", 3, "unknown type");
    expect_refused("T\x01\x05", 3, "unknown type"); /* NULL has no column */
    /* columns 2, then 1 */
    expect_refused("S\x02\x02\x01"
                   "a\x01\x01"
                   "b\x00",
                   9, "do not ascend");
    /* nine cells announced in four bytes */
    expect_refused("S\x09\x01\x00\x00", 5, "larger than the frame");
    /* three cells in a line of two bytes */
    expect_refused("D\x03\x02,,\x00", 6, "larger than the frame");
    /* a cell longer than the body */
    expect_refused("S\x01\x00\x09xy\x00", 7, "past the end");
    /* a byte left over */
    expect_refused("C\x01"
                   "ab",
                   4, "follow the frame");
    /* a length that never ends */
    expect_refused("C\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 12, "64 bits");
}

/* Frames written one after another, some larger than the reader's buffer. */
Test(spill, reader_gives_every_frame_back)
{
    ddb_buf file = DDB_BUF_INIT;
    ddb_source *src;
    ddb_spill_reader *r;
    ddb_error err;
    const char *body;
    size_t len, big = 3u << 20;
    char *huge = malloc(big);
    int rc;

    memset(huge, 'q', big);
    ddb_buf_append(&file, DDB_SPILL_MAGIC, DDB_SPILL_MAGIC_LEN);
    for (int i = 0; i < 5000; i++) {
        char text[32];
        ddb_spill_cell c = {(size_t)i % 7, text, 0};
        c.len = (size_t)snprintf(text, sizeof(text), "k%d", i);
        cr_assert_eq(ddb_spill_put_row(&file, &c, 1, NULL, 0, ','), 0);
        if (i == 2500) {
            ddb_spill_cell h = {0, huge, big};
            cr_assert_eq(ddb_spill_put_row(&file, &h, 1, NULL, 0, ','), 0);
        }
    }
    cr_assert_eq(ddb_source_new_memory(&src, file.ptr, file.len, "mem.spill", &err), 0);
    cr_assert_eq(ddb_spill_reader_new(&r, src, &err), 0);
    for (int i = 0; i < 5000; i++) {
        char want[32];
        size_t n = (size_t)snprintf(want, sizeof(want), "k%d", i);
        const char *cell;
        cr_assert_eq(ddb_spill_reader_next(r, &body, &len, &err), 0, "%d: %s", i, err.message);
        cr_assert_eq(ddb_spill_frame_read(&f, body, len, &err), 0, "%s", err.message);
        cell = f.kind == 'D' ? f.line.ptr : f.cells[0].ptr;
        cr_assert_eq(f.kind, i % 7 ? 'S' : 'D');
        cr_assert_eq(memcmp(cell, want, n), 0, "row %d", i);
        if (i == 2500) {
            cr_assert_eq(ddb_spill_reader_next(r, &body, &len, &err), 0, "%s", err.message);
            cr_assert_eq(ddb_spill_frame_read(&f, body, len, &err), 0, "%s", err.message);
            cr_assert_eq(f.line.len, big + 1);
            cr_assert_eq(memcmp(f.line.ptr, huge, big), 0);
        }
    }
    rc = ddb_spill_reader_next(r, &body, &len, &err);
    cr_assert_eq(rc, DDB_ITEROVER);
    cr_assert_eq(ddb_spill_reader_count(r), 5001);
    ddb_spill_reader_free(r);
    ddb_buf_dispose(&file);
    free(huge);
}

static int read_all(const char *data, size_t len, ddb_error *err)
{
    ddb_source *src;
    ddb_spill_reader *r;
    const char *body;
    size_t blen;
    int rc;
    cr_assert_eq(ddb_source_new_memory(&src, data, len, "x.spill", err), 0);
    cr_assert_eq(ddb_spill_reader_new(&r, src, err), 0);
    while ((rc = ddb_spill_reader_next(r, &body, &blen, err)) == 0)
        ;
    ddb_spill_reader_free(r);
    return rc;
}

Test(spill, reader_refuses_a_cut_frame_and_a_foreign_file)
{
    ddb_buf file = DDB_BUF_INIT;
    ddb_spill_cell c = {0, "a", 1};
    ddb_error err;
    size_t whole;

    ddb_buf_append(&file, DDB_SPILL_MAGIC, DDB_SPILL_MAGIC_LEN);
    cr_assert_eq(ddb_spill_put_row(&file, &c, 1, NULL, 0, ','), 0);
    whole = file.len;
    cr_assert_eq(ddb_spill_put_row(&file, &c, 1, NULL, 0, ','), 0);
    for (size_t cut = whole + 1; cut < file.len; cut++) {
        cr_assert_eq(read_all(file.ptr, cut, &err), DDB_EIO, "cut at %zu", cut);
        cr_assert(strstr(err.message, "record 2 (byte ") != NULL, "%s", err.message);
        cr_assert(strstr(err.message, "cut short") != NULL, "%s", err.message);
    }
    cr_assert_eq(read_all(file.ptr, whole, &err), DDB_ITEROVER);
    cr_assert_eq(read_all(file.ptr, DDB_SPILL_MAGIC_LEN, &err), DDB_ITEROVER, "no records");

    /* a damaged head claiming nearly 4 GiB: cut short, not a 4 GiB buffer */
    {
        char bad[DDB_SPILL_MAGIC_LEN + 8];
        memcpy(bad, DDB_SPILL_MAGIC, DDB_SPILL_MAGIC_LEN);
        memcpy(bad + DDB_SPILL_MAGIC_LEN,
               "\xf0\xff\xff\xff"
               "abcd",
               8);
        cr_assert_eq(read_all(bad, sizeof(bad), &err), DDB_EIO, "%s", err.message);
        cr_assert(strstr(err.message, "record 1 (byte 16) is cut short") != NULL, "%s",
                  err.message);
    }
    /* the JSON lines an older ddbpipe spooled, and an empty file */
    {
        const char *old = "{\"pk\":{\"S\":\"a\"}}\n{\"pk\":{\"S\":\"b\"}}\n";
        cr_assert_eq(read_all(old, strlen(old), &err), DDB_EIO);
        cr_assert(strstr(err.message, "x.spill is not a spill file of this ddbpipe") != NULL, "%s",
                  err.message);
        cr_assert(strstr(err.message, "without --resume") != NULL, "%s", err.message);
        cr_assert_eq(read_all("", 0, &err), DDB_EIO);
    }
    ddb_buf_dispose(&file);
}
