/*
 * test_lines.c — the line splitter: terminators, numbering, offsets, refills
 * and over-long lines, over a source it reads from and over one that lends
 * its chunks (the readahead's way); each test runs both where it can.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>
#include <zlib.h>

#include "ddbpipe/buf.h"
#include "ddbpipe/lines.h"

/* A source returning at most `chunk` bytes per read, to force refills at
 * awkward places. */
typedef struct chunky {
    ddb_source base;
    size_t chunk;
} chunky;

static ssize_t chunky_read(ddb_source *s, void *buf, size_t len, ddb_error *err)
{
    size_t c = ((chunky *)s)->chunk;
    return ddb_source_read(s->upstream, buf, len < c ? len : c, err);
}

static void chunky_free(ddb_source *s)
{
    (void)s;
}

static const ddb_source_vtable chunky_vt = {chunky_read, chunky_free, NULL};

/* A source that lends its data in chunks of 1 to `chunk` bytes (pseudo-random
 * sizes; 0: all at once), each in a block of its own freed at the next call:
 * under ASan, a line used past its time is a use after free. */
typedef struct lender {
    ddb_source base;
    const char *data;
    size_t len, pos, chunk;
    uint32_t x;
    char *block;
} lender;

static ssize_t lender_borrow(ddb_source *s, const char **out, ddb_error *err)
{
    lender *l = (lender *)s;
    size_t n = l->len - l->pos;
    (void)err;
    free(l->block);
    l->block = NULL;
    if (n == 0)
        return 0;
    l->x = l->x * 1664525u + 1013904223u;
    if (l->chunk && n > 1 + (l->x >> 8) % l->chunk)
        n = 1 + (l->x >> 8) % l->chunk;
    l->block = malloc(n);
    memcpy(l->block, l->data + l->pos, n);
    l->pos += n;
    *out = l->block;
    return (ssize_t)n;
}

static ssize_t lender_read(ddb_source *s, void *buf, size_t len, ddb_error *err)
{
    (void)s, (void)buf, (void)len;
    return ddb_error_set(err, DDB_ERROR, "a lender is only borrowed from");
}

static void lender_free(ddb_source *s)
{
    free(((lender *)s)->block);
}

static const ddb_source_vtable lender_vt = {lender_read, lender_free, lender_borrow};

/* Set by a test: lines_over lends the data in chunks instead of reading it. */
static int lend;

static ddb_lines *lines_over(const void *data, size_t len, size_t chunk, size_t max_line)
{
    ddb_source *m;
    ddb_lines *lr;
    ddb_error err;

    if (lend) {
        lender *l = calloc(1, sizeof(*l));
        l->base.vt = &lender_vt;
        l->base.name = strdup("mem.jsonl");
        l->data = data;
        l->len = len;
        l->chunk = chunk;
        l->x = (uint32_t)(len * 31 + chunk);
        cr_assert(ddb_source_can_borrow(&l->base));
        cr_assert_eq(ddb_lines_new(&lr, &l->base, max_line, &err), 0);
        return lr;
    }
    cr_assert_eq(ddb_source_new_memory(&m, data, len, "mem.jsonl", &err), 0);
    if (chunk) {
        chunky *c = calloc(1, sizeof(*c));
        c->base.vt = &chunky_vt;
        c->base.name = strdup("mem.jsonl");
        c->base.upstream = m;
        c->chunk = chunk;
        m = &c->base;
    }
    cr_assert_eq(ddb_lines_new(&lr, m, max_line, &err), 0);
    return lr;
}

static void expect_line(ddb_lines *lr, const char *want, uint64_t lineno, uint64_t offset)
{
    const char *line;
    size_t len;
    ddb_error err = {0};
    int rc = ddb_lines_next(lr, &line, &len, &err);

    cr_assert_eq(rc, 0, "line %llu: rc %d %s", (unsigned long long)lineno, rc, err.message);
    cr_assert_eq(len, strlen(want), "line %llu: len %zu", (unsigned long long)lineno, len);
    cr_assert_eq(memcmp(line, want, len), 0, "line %llu: '%.*s'", (unsigned long long)lineno,
                 (int)len, line);
    cr_assert_eq(ddb_lines_lineno(lr), lineno);
    cr_assert_eq(ddb_lines_offset(lr), offset, "line %llu: offset %llu", (unsigned long long)lineno,
                 (unsigned long long)ddb_lines_offset(lr));
}

static void expect_end(ddb_lines *lr)
{
    const char *line;
    size_t len;
    ddb_error err;

    cr_assert_eq(ddb_lines_next(lr, &line, &len, &err), DDB_ITEROVER);
    cr_assert_eq(ddb_lines_next(lr, &line, &len, &err), DDB_ITEROVER);
}

Test(lines, terminators_and_empty_lines)
{
    static const char text[] = "a\r\nbb\n\n\r\nc\rd\nlast";
    size_t chunk;

    /* Whole, then one byte at a time (CR and LF in different reads). */
    for (lend = 0, chunk = 0; lend <= 1; chunk = chunk ? 0 : 1, lend += !chunk) {
        ddb_lines *lr = lines_over(text, strlen(text), chunk, 0);
        expect_line(lr, "a", 1, 0);
        expect_line(lr, "bb", 2, 3);
        expect_line(lr, "", 3, 6);
        expect_line(lr, "", 4, 7);
        expect_line(lr, "c\rd", 5, 9); /* a CR not before LF is data */
        expect_line(lr, "last", 6, 13);
        expect_end(lr);
        ddb_lines_free(lr);
    }
}

static void tiny_inputs(void)
{
    ddb_lines *lr = lines_over("", 0, 0, 0);
    expect_end(lr);
    cr_assert_eq(ddb_lines_lineno(lr), 0);
    ddb_lines_free(lr);

    lr = lines_over("\n", 1, 0, 0);
    expect_line(lr, "", 1, 0);
    expect_end(lr);
    ddb_lines_free(lr);

    lr = lines_over("x\r", 2, 0, 0); /* final CR without LF stays */
    expect_line(lr, "x\r", 1, 0);
    expect_end(lr);
    ddb_lines_free(lr);

    lr = lines_over("\r\n\r\n", 4, 1, 0);
    expect_line(lr, "", 1, 0);
    expect_line(lr, "", 2, 2);
    expect_end(lr);
    ddb_lines_free(lr);
}

Test(lines, empty_and_tiny_inputs)
{
    for (lend = 0; lend <= 1; lend++)
        tiny_inputs();
}

/* Builds many lines of varied length, some longer than the 1 MiB buffer. */
static char *make_lines(size_t nlines, size_t **lens, size_t *total)
{
    size_t cap = 0, i, off = 0;
    uint32_t x = 99;
    char *p;

    *lens = malloc(nlines * sizeof(**lens));
    for (i = 0; i < nlines; i++) {
        x = x * 1664525u + 1013904223u;
        (*lens)[i] = i == 5 ? 3 * 1024 * 1024 + 7 : i == 40 ? 1024 * 1024 : (x >> 8) % 70000;
        cap += (*lens)[i] + 2;
    }
    p = malloc(cap);
    for (i = 0; i < nlines; i++) {
        size_t j;
        for (j = 0; j < (*lens)[i]; j++)
            p[off + j] = (char)('A' + (i + j) % 26);
        off += (*lens)[i];
        if (i % 3 == 0)
            p[off++] = '\r';
        p[off++] = '\n';
    }
    *total = off;
    return p;
}

Test(lines, lines_across_refills)
{
    size_t n = 200, total, *lens, chunk;
    char *text = make_lines(n, &lens, &total);

    cr_assert_gt(total, 8 * 1024 * 1024);
    for (lend = 0; lend <= 1; lend++)
        for (chunk = 0; chunk <= 65521; chunk += 65521) {
            ddb_lines *lr = lines_over(text, total, chunk, 0);
            uint64_t off = 0;
            size_t i;
            for (i = 0; i < n; i++) {
                const char *line;
                size_t len;
                ddb_error err;
                int rc = ddb_lines_next(lr, &line, &len, &err);
                cr_assert_eq(rc, 0, "line %zu: %s", i + 1, err.message);
                cr_assert_eq(len, lens[i], "line %zu", i + 1);
                cr_assert_eq(memcmp(line, text + off, len), 0, "line %zu", i + 1);
                cr_assert_eq(ddb_lines_lineno(lr), i + 1);
                cr_assert_eq(ddb_lines_offset(lr), off);
                off += lens[i] + (i % 3 == 0 ? 2 : 1);
            }
            expect_end(lr);
            cr_assert_eq(ddb_source_raw_bytes(ddb_lines_source(lr)), total);
            ddb_lines_free(lr);
        }
    free(lens);
    free(text);
}

static void expect_too_big(ddb_lines *lr, uint64_t lineno, uint64_t offset, const char *msg)
{
    const char *line;
    size_t len;
    ddb_error err;

    cr_assert_eq(ddb_lines_next(lr, &line, &len, &err), DDB_ETOOBIG);
    cr_assert_eq(ddb_lines_lineno(lr), lineno);
    cr_assert_eq(ddb_lines_offset(lr), offset);
    cr_assert_str_eq(err.message, msg);
}

Test(lines, over_long_line_reported_once)
{
    static const char text[] = "short\n"
                               "xxxxxxxxxxxxxxxxxxxxxxxxx\n"
                               "0123456789\r\n"
                               "01234567890\r\n"
                               "next\n"
                               "yyyyyyyyyyyy";
    size_t chunk;

    for (lend = 0; lend <= 1; lend++)
        for (chunk = 0; chunk <= 3; chunk += 3) {
            ddb_lines *lr = lines_over(text, strlen(text), chunk, 10);
            expect_line(lr, "short", 1, 0);
            expect_too_big(lr, 2, 6, "mem.jsonl:2: line longer than the limit of 10 bytes");
            expect_line(lr, "0123456789", 3, 32); /* exactly the limit, CRLF */
            expect_too_big(lr, 4, 44, "mem.jsonl:4: line longer than the limit of 10 bytes");
            expect_line(lr, "next", 5, 57);
            expect_too_big(lr, 6, 62, "mem.jsonl:6: line longer than the limit of 10 bytes");
            expect_end(lr);
            ddb_lines_free(lr);
        }
}

Test(lines, huge_line_is_skipped_while_streaming)
{
    /* 20 MiB line with a 2 MiB limit, read in 1 MiB pieces: the reader must
     * discard it as it streams and pick up the next line at the right place. */
    size_t big = 20 * 1024 * 1024, total = 3 + big + 7;
    char *text = malloc(total);
    ddb_lines *lr;

    memcpy(text, "ok\n", 3);
    memset(text + 3, 'z', big);
    memcpy(text + 3 + big, "\nafter\n", 7);
    for (lend = 0; lend <= 1; lend++) {
        lr = lines_over(text, total, 1024 * 1024, 2 * 1024 * 1024);
        expect_line(lr, "ok", 1, 0);
        expect_too_big(lr, 2, 3, "mem.jsonl:2: line longer than the limit of 2097152 bytes");
        expect_line(lr, "after", 3, 3 + (uint64_t)big + 1);
        expect_end(lr);
        ddb_lines_free(lr);
    }
    free(text);
}

Test(lines, line_at_the_default_buffer_size_grows)
{
    /* A line just over the initial 1 MiB buffer with a limit above it. */
    size_t n = 1024 * 1024 + 100, total = n + 2 + 2;
    char *text = malloc(total), *want = malloc(n + 1);
    ddb_lines *lr;

    memset(text, 'q', n);
    memcpy(text + n, "\r\nz\n", 4);
    memset(want, 'q', n);
    want[n] = '\0';
    for (lend = 0; lend <= 1; lend++) {
        lr = lines_over(text, total, lend ? 4096 : 0, n); /* lent: cut in many chunks */
        expect_line(lr, want, 1, 0);
        expect_line(lr, "z", 2, (uint64_t)n + 2);
        expect_end(lr);
        ddb_lines_free(lr);
    }
    free(text);
    free(want);
}

/* A source that fails after its first read. */
static ssize_t failing_read(ddb_source *s, void *buf, size_t len, ddb_error *err)
{
    if (s->bytes_in > 0)
        return ddb_error_set(err, DDB_EIO, "read failed");
    memcpy(buf, "one\ntw", len < 6 ? len : 6);
    return len < 6 ? (ssize_t)len : 6;
}

static const ddb_source_vtable failing_vt = {failing_read, chunky_free, NULL};

Test(lines, read_error_is_returned)
{
    ddb_source *s = calloc(1, sizeof(*s));
    ddb_lines *lr;
    const char *line;
    size_t len;
    ddb_error err;

    s->vt = &failing_vt;
    s->name = strdup("failing");
    cr_assert_eq(ddb_lines_new(&lr, s, 0, &err), 0);
    expect_line(lr, "one", 1, 0);
    cr_assert_eq(ddb_lines_next(lr, &line, &len, &err), DDB_EIO);
    cr_assert_str_eq(err.message, "read failed");
    ddb_lines_free(lr);
}

/* Everything ddb_lines_next says, line by line: result, number, offset, text. */
static char *transcript(ddb_lines *lr)
{
    ddb_buf b = DDB_BUF_INIT;
    for (int guard = 0; guard < 100000; guard++) {
        const char *line;
        size_t len;
        ddb_error err = {0};
        int rc = ddb_lines_next(lr, &line, &len, &err);
        ddb_buf_printf(&b, "%d %llu %llu [%.*s] %s\n", rc, (unsigned long long)ddb_lines_lineno(lr),
                       (unsigned long long)ddb_lines_offset(lr), rc == 0 ? (int)len : 0,
                       rc == 0 ? line : "", rc == 0 ? "" : err.message);
        if (rc == DDB_ITEROVER)
            break;
    }
    ddb_buf_putc(&b, '\0');
    return b.ptr;
}

Test(lines, lending_says_what_reading_says)
{
    /* Random texts of short lines, CRs and LFs, cut at random places, with
     * limits that make some lines too long: the lent path must say exactly
     * what the copying path says, error for error. */
    static const char alphabet[] = "ab\r\n\n";
    uint32_t x = 7;
    for (int round = 0; round < 400; round++) {
        size_t len = (size_t)(round % 97) * 3, max_line = (size_t)(round % 5) * 3 + 2;
        char *text = malloc(len + 1);
        for (size_t i = 0; i < len; i++) {
            x = x * 1664525u + 1013904223u;
            text[i] = alphabet[(x >> 8) % 5];
        }
        for (size_t chunk = 0; chunk <= 9; chunk += 3) {
            ddb_lines *lr;
            char *want, *got;
            lend = 0;
            lr = lines_over(text, len, chunk, round % 7 == 0 ? 0 : max_line);
            want = transcript(lr);
            ddb_lines_free(lr);
            lend = 1;
            lr = lines_over(text, len, chunk, round % 7 == 0 ? 0 : max_line);
            got = transcript(lr);
            ddb_lines_free(lr);
            cr_assert_str_eq(got, want, "round %d, chunk %zu, text '%.*s'", round, chunk, (int)len,
                             text);
            free(want);
            free(got);
        }
        free(text);
    }
}

Test(lines, a_gzip_file_is_lent_by_its_readahead)
{
    /* What the readers open: file, gzip, readahead, then the sniff's replay.
     * Lines come lent across the replayed head and the 1 MiB chunks. */
    size_t n = 120, total, *lens;
    char *text = make_lines(n, &lens, &total);
    char path[] = "/tmp/ddb-lines-XXXXXX";
    int fd = mkstemp(path);
    gzFile gz = gzdopen(fd, "wb1");
    ddb_source *file, *src;
    const unsigned char *peek;
    size_t peek_len;
    ddb_lines *lr;
    ddb_error err;
    uint64_t off = 0;

    cr_assert(gz != NULL);
    cr_assert_eq(gzwrite(gz, text, (unsigned)total), (int)total);
    cr_assert_eq(gzclose(gz), Z_OK);
    cr_assert_eq(ddb_source_open_file(&file, path, &err), 0, "%s", err.message);
    cr_assert_eq(ddb_source_auto(&src, file, 0, NULL, &err), 0, "%s", err.message);
    cr_assert_eq(ddb_source_sniff(&src, src, 3000, &peek, &peek_len, &err), 0);
    cr_assert(ddb_source_can_borrow(src));
    cr_assert_eq(ddb_lines_new(&lr, src, 0, &err), 0);
    for (size_t i = 0; i < n; i++) {
        const char *line;
        size_t len;
        cr_assert_eq(ddb_lines_next(lr, &line, &len, &err), 0, "line %zu: %s", i + 1, err.message);
        cr_assert_eq(len, lens[i], "line %zu", i + 1);
        cr_assert_eq(memcmp(line, text + off, len), 0, "line %zu", i + 1);
        cr_assert_eq(ddb_lines_offset(lr), off);
        off += lens[i] + (i % 3 == 0 ? 2 : 1);
    }
    expect_end(lr);
    cr_assert_eq(ddb_lines_source(lr)->bytes_in, total);
    ddb_lines_free(lr);
    unlink(path);
    free(lens);
    free(text);
}
