/*
 * test_spill.c — the binary frames of a spill file: every type packs and
 * unpacks to the same record, frames are read back across buffer refills and
 * beyond the reader's first buffer, and damaged or foreign spills are refused
 * with a reason instead of being misread.
 */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "ddbpipe/source.h"
#include "write/spill_codec.h"
#include "support/testutil.h"

static ddb_arena *a;

static void setup(void)
{
    cr_assert_eq(ddb_arena_new(&a, 0), 0);
}

static void teardown(void)
{
    ddb_arena_free(a);
}

TestSuite(spill, .init = setup, .fini = teardown);

/* Every type, empty and nested containers, a 38-digit number, bytes with NUL,
 * a string with NUL and multi-byte UTF-8. */
static const char *every_type =
    "{\"pk\":{\"S\":\"Tag#u1\"},\"empty\":{\"S\":\"\"},\"nul\":{\"S\":\"a\\u0000b "
    "\\u00e9\\u6f22\"},"
    "\"n\":{\"N\":\"-1.2345678901234567890123456789012345678E-130\"},"
    "\"big\":{\"N\":\"99999999999999999999999999999999999999\"},"
    "\"b\":{\"B\":\"AAEC/w==\"},\"t\":{\"BOOL\":true},\"f\":{\"BOOL\":false},\"z\":{\"NULL\":true},"
    "\"m\":{\"M\":{\"inner\":{\"L\":[{\"N\":\"1\"},{\"M\":{}},{\"L\":[]},{\"NULL\":true}]}}},"
    "\"em\":{\"M\":{}},\"ss\":{\"SS\":[\"x\",\"y\"]},\"ns\":{\"NS\":[\"1\",\"2.5\"]},"
    "\"bs\":{\"BS\":[\"AA==\",\"/w==\"]}}";

static ddb_buf pack(const ddb_map *m)
{
    ddb_buf b = DDB_BUF_INIT;
    cr_assert_eq(ddb_spill_pack(&b, m), 0);
    return b;
}

static size_t frame_len(const ddb_buf *b)
{
    const unsigned char *h = (const unsigned char *)b->ptr;
    return (size_t)h[0] | (size_t)h[1] << 8 | (size_t)h[2] << 16 | (size_t)h[3] << 24;
}

Test(spill, every_type_round_trips)
{
    ddb_map in = tu_item(a, every_type), out;
    ddb_buf b = pack(&in);
    ddb_error err;
    char want[8192];

    cr_assert_eq(frame_len(&b), b.len - DDB_SPILL_FRAME_HEAD, "the head holds the body's length");
    cr_assert_eq(ddb_spill_unpack(&out, b.ptr + 4, b.len - 4, a, &err), 0, "%s", err.message);
    snprintf(want, sizeof(want), "%s", tu_typed(&in));
    cr_assert_str_eq(tu_typed(&out), want);
    {
        ddb_value vi = {.type = DDB_TYPE_M, .u.m = in}, vo = {.type = DDB_TYPE_M, .u.m = out};
        cr_assert(ddb_value_equal(&vi, &vo));
    }
    /* the bytes are the record's own: a NUL inside S and B survives */
    {
        const ddb_value *nul = ddb_map_getz(&out, "nul"), *bin = ddb_map_getz(&out, "b");
        cr_assert(nul != NULL && bin != NULL);
        cr_assert_eq(nul->u.s.len, 9);
        cr_assert_eq(memcmp(nul->u.s.ptr, "a\0b \xc3\xa9\xe6\xbc\xa2", 9), 0);
        cr_assert_eq(bin->u.s.len, 4);
        cr_assert_eq(memcmp(bin->u.s.ptr, "\x00\x01\x02\xff", 4), 0);
    }
    ddb_buf_dispose(&b);
}

Test(spill, empty_record_round_trips)
{
    ddb_map in = {NULL, 0}, out;
    ddb_buf b = pack(&in);
    ddb_error err;
    cr_assert_eq(b.len, 5);
    cr_assert_eq(ddb_spill_unpack(&out, b.ptr + 4, 1, a, &err), 0);
    cr_assert_eq(out.count, 0);
    ddb_buf_dispose(&b);
}

/* Every proper prefix of a body is refused (a spill cut by a crash or a full disk). */
Test(spill, every_cut_body_is_refused)
{
    ddb_map in = tu_item(a, every_type), out;
    ddb_buf b = pack(&in);
    const char *body = b.ptr + 4;
    size_t n = b.len - 4;
    ddb_error err;
    for (size_t cut = 0; cut < n; cut++) {
        char *copy = malloc(cut ? cut : 1); /* ASan sees any read past the cut */
        memcpy(copy, body, cut);
        cr_assert_eq(ddb_spill_unpack(&out, copy, cut, a, &err), DDB_EIO,
                     "a body cut at %zu of %zu", cut, n);
        free(copy);
    }
    ddb_buf_dispose(&b);
}

static void expect_refused(const char *body, size_t len, const char *why)
{
    ddb_map out;
    ddb_error err;
    cr_assert_eq(ddb_spill_unpack(&out, body, len, a, &err), DDB_EIO, "accepted: %s", why);
    cr_assert(strstr(err.message, why) != NULL, "'%s' does not say '%s'", err.message, why);
}

Test(spill, damaged_bodies_are_refused_with_a_reason)
{
    /* one attribute "a" of type ... */
    expect_refused("\x01\x01"
                   "a\x63",
                   4, "unknown type");
    expect_refused("\x01\x01"
                   "a\x04\x02",
                   5, "neither 0 nor 1");
    /* an SS holding an N */
    expect_refused("\x01\x01"
                   "a\x08\x01\x02\x01"
                   "1",
                   8, "another type");
    /* nine attributes announced in four bytes */
    expect_refused("\x09\x01"
                   "a\x05",
                   4, "larger than the record");
    /* a string longer than the body */
    expect_refused("\x01\x01"
                   "a\x01\x09"
                   "xy",
                   7, "past the end");
    /* a byte left over */
    expect_refused("\x01\x01"
                   "a\x05\x00",
                   5, "follow the record");
    /* a length that never ends */
    expect_refused("\x01\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 12, "64 bits");
}

Test(spill, nesting_is_bounded)
{
    /* "a": L [ L [ L [ ... ] ] ], 100 deep: refused, not a stack overflow */
    char body[512];
    size_t n = 0;
    body[n++] = 1;
    body[n++] = 1;
    body[n++] = 'a';
    for (int i = 0; i < 100; i++) {
        body[n++] = DDB_TYPE_L;
        body[n++] = 1;
    }
    body[n++] = DDB_TYPE_NULL;
    expect_refused(body, n, "nest too deep");
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
        char text[128];
        ddb_map m;
        snprintf(text, sizeof(text), "{\"pk\":{\"S\":\"k%d\"},\"n\":{\"N\":\"%d\"}}", i, i);
        m = tu_item(a, text);
        cr_assert_eq(ddb_spill_pack(&file, &m), 0);
        if (i == 2500) {
            ddb_attr at = {{"h", 1}, ddb_value_str(DDB_TYPE_S, huge, big)};
            ddb_map hm = {&at, 1};
            cr_assert_eq(ddb_spill_pack(&file, &hm), 0);
        }
    }
    cr_assert_eq(ddb_source_new_memory(&src, file.ptr, file.len, "mem.spill", &err), 0);
    cr_assert_eq(ddb_spill_reader_new(&r, src, &err), 0);
    for (int i = 0; i < 5000; i++) {
        ddb_map m;
        char want[128];
        cr_assert_eq(ddb_spill_reader_next(r, &body, &len, &err), 0, "%d: %s", i, err.message);
        ddb_arena_reset(a);
        cr_assert_eq(ddb_spill_unpack(&m, body, len, a, &err), 0, "%s", err.message);
        snprintf(want, sizeof(want), "{\"pk\":{\"S\":\"k%d\"},\"n\":{\"N\":\"%d\"}}", i, i);
        cr_assert_str_eq(tu_typed(&m), want);
        if (i == 2500) {
            cr_assert_eq(ddb_spill_reader_next(r, &body, &len, &err), 0, "%s", err.message);
            cr_assert_eq(ddb_spill_unpack(&m, body, len, a, &err), 0, "%s", err.message);
            cr_assert_eq(m.attrs[0].value.u.s.len, big);
            cr_assert_eq(memcmp(m.attrs[0].value.u.s.ptr, huge, big), 0);
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
    ddb_map m = tu_item(a, "{\"pk\":{\"S\":\"a\"}}");
    ddb_error err;
    size_t whole;

    ddb_buf_append(&file, DDB_SPILL_MAGIC, DDB_SPILL_MAGIC_LEN);
    cr_assert_eq(ddb_spill_pack(&file, &m), 0);
    whole = file.len;
    cr_assert_eq(ddb_spill_pack(&file, &m), 0);
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
