/* Streaming: rows across refills, tiny reads, files, and writer round trips. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "csv_test_util.h"
#include "ddbpipe/source.h"

#define S(lit) lit, sizeof(lit) - 1

/* Every rule at once, including malformed rows and a BOM. */
static const char corpus[] = "\xEF\xBB\xBFid,name,note\r\n"
                             "1,plain,\"with, comma\"\r\n"
                             "\n"
                             "2,\"multi\r\nline\nvalue\",\"\"\"quoted\"\"\"\n"
                             "3,,\"\"\n"
                             "4,bad\"quote,x\n"
                             "5,\"after\"close,y\r\n"
                             "\r\n"
                             "6,\xC3\xA9t\xC3\xA9,\xEF\xBB\xBF\n"
                             "7,bare\rcr,\"cr\r\"\n"
                             "8,\"\",last\n"
                             "9,\"unterminated\nto the end,z\n";

Test(csv, tiny_reads_parse_like_one_block)
{
    ddb_buf whole = DDB_BUF_INIT, piece = DDB_BUF_INIT;
    ddb_csv *p = csv_over(corpus, sizeof(corpus) - 1, 0, ',', 0);

    csv_dump(&whole, p);
    ddb_csv_free(p);
    /* the dump itself is what we expect: 11 calls, 3 of them errors */
    cr_assert(strstr(whole.ptr, "rc=0 line=1 off=3 raw=<id,name,note> u<id> u<name> u<note>\n") ==
                  whole.ptr,
              "%s", whole.ptr);
    cr_assert(strstr(whole.ptr, "rc=0 line=4 off=41 raw=<2,\"multi\\x0d\\x0aline\\x0avalue\","
                                "\"\"\"quoted\"\"\"> u<2> q<multi\\x0d\\x0aline\\x0avalue> "
                                "q<\"quoted\">\n") != NULL,
              "%s", whole.ptr);
    cr_assert(strstr(whole.ptr, "rc=-3 line=8 off=") != NULL, "%s", whole.ptr);
    cr_assert(strstr(whole.ptr, "rc=-3 line=9 off=") != NULL, "%s", whole.ptr);
    cr_assert(strstr(whole.ptr, "rc=0 line=11 off=") != NULL, "%s", whole.ptr);
    cr_assert(strstr(whole.ptr, "u<7> u<bare\\x0dcr> q<cr\\x0d>\n") != NULL, "%s", whole.ptr);
    cr_assert(strstr(whole.ptr, "rc=-3 line=14 off=") != NULL, "%s", whole.ptr);
    cr_assert(strstr(whole.ptr, "unterminated quoted field") != NULL, "%s", whole.ptr);
    {
        size_t lines = 0;
        for (const char *c = whole.ptr; *c; c++)
            lines += *c == '\n';
        cr_assert_eq(lines, 10, "%s", whole.ptr);
    }
    for (size_t chunk = 1; chunk <= 5; chunk++) {
        p = csv_over(corpus, sizeof(corpus) - 1, chunk, ',', 0);
        csv_dump(&piece, p);
        ddb_csv_free(p);
        cr_assert_str_eq(piece.ptr, whole.ptr, "chunk %zu differs", chunk);
    }
    ddb_buf_dispose(&whole);
    ddb_buf_dispose(&piece);
}

/* Random bytes from a CSV-hostile alphabet, parsed whole and in small reads,
 * with limits small enough to hit the over-long paths. */
Test(csv, random_inputs_independent_of_read_size)
{
    static const char alphabet[] = "ab,,;\"\"\"\r\n\n ";
    ddb_buf whole = DDB_BUF_INIT, piece = DDB_BUF_INIT;
    unsigned seed = 12345;
    char in[400];

    for (int iter = 0; iter < 300; iter++) {
        size_t n = (size_t)(iter % 37) * 10 + 3;
        size_t max_row = iter % 3 == 0 ? 0 : (size_t)(4 + iter % 11);

        for (size_t k = 0; k < n; k++) {
            seed = seed * 1103515245u + 12345u;
            in[k] = alphabet[(seed >> 16) % (sizeof(alphabet) - 1)];
        }
        ddb_csv *p = csv_over(in, n, 0, ',', max_row);
        csv_dump(&whole, p);
        ddb_csv_free(p);
        for (size_t chunk = 1; chunk <= 4; chunk += 3) {
            p = csv_over(in, n, chunk, ',', max_row);
            csv_dump(&piece, p);
            ddb_csv_free(p);
            cr_assert_str_eq(piece.ptr, whole.ptr, "iter %d chunk %zu max_row %zu", iter, chunk,
                             max_row);
        }
    }
    ddb_buf_dispose(&whole);
    ddb_buf_dispose(&piece);
}

Test(csv, row_spanning_many_refills)
{
    /* A 6 MB quoted field with "" escapes and newlines, then a 3 MB unquoted
     * one: several times the 1 MiB block. */
    size_t qlen = 6u * 1024u * 1024u, ulen = 3u * 1024u * 1024u, n = 0, lines = 0;
    char *in = malloc(2 * qlen + ulen + 64);
    char *want = malloc(qlen);
    ddb_error err = {0};

    for (size_t k = 0; k < qlen; k++) {
        char c = "abc\"de,f\n"[k % 9 == 0 ? (k / 9) % 9 : k % 9];
        want[k] = c;
    }
    n += (size_t)sprintf(in, "head\n\"");
    for (size_t k = 0; k < qlen; k++) {
        in[n++] = want[k];
        if (want[k] == '"')
            in[n++] = '"';
        lines += want[k] == '\n';
    }
    in[n++] = '"';
    in[n++] = ',';
    for (size_t k = 0; k < ulen; k++)
        in[n++] = (char)('A' + k % 26);
    n += (size_t)sprintf(in + n, "\r\nnext\n");

    for (size_t chunk = 0; chunk <= 4093; chunk += 4093) {
        ddb_csv *p = csv_over(in, n, chunk, ',', 0);
        ddb_csv_row r;
        int rc;

        cr_assert_eq(ddb_csv_next(p, &r, &err), 0);
        rc = ddb_csv_next(p, &r, &err);
        cr_assert_eq(rc, 0, "%s", err.message);
        cr_assert_eq(r.line, 2);
        cr_assert_eq(r.offset, 5);
        cr_assert_eq(r.count, 2);
        cr_assert_eq(r.fields[0].len, qlen);
        cr_assert(memcmp(r.fields[0].ptr, want, qlen) == 0);
        cr_assert_eq(r.fields[1].len, ulen);
        cr_assert_eq(r.fields[1].ptr[0], 'A');
        cr_assert_eq(r.fields[1].ptr[ulen - 1], (char)('A' + (ulen - 1) % 26));
        cr_assert_eq(r.raw_len, n - 5 - 2 - 5);
        cr_assert(memcmp(r.raw, in + 5, r.raw_len) == 0);
        rc = ddb_csv_next(p, &r, &err);
        cr_assert_eq(rc, 0, "%s", err.message);
        cr_assert_eq(r.line, 2 + lines + 1, "line %llu", (unsigned long long)r.line);
        cr_assert_eq(r.count, 1);
        cr_assert_eq(r.fields[0].len, 4);
        cr_assert_eq(ddb_csv_next(p, &r, &err), DDB_ITEROVER);
        ddb_csv_free(p);
    }
    free(in);
    free(want);
}

Test(csv, put_field_quoting)
{
    static const struct {
        const char *in;
        int force;
        const char *out;
    } cases[] = {
        {"plain", 0, "plain"},
        {"", 0, ""},
        {"", 1, "\"\""},
        {"a\"b", 0, "\"a\"\"b\""},
        {"a,b", 0, "\"a,b\""},
        {"a;b", 0, "a;b"},
        {" lead", 0, "\" lead\""},
        {"trail\t", 0, "\"trail\t\""},
        {"in side", 0, "in side"},
        {"cr\r", 0, "\"cr\r\""},
        {"lf\n", 0, "\"lf\n\""},
        {"x", 1, "\"x\""},
        {"\"\"", 0, "\"\"\"\"\"\""},
    };
    ddb_buf b = DDB_BUF_INIT;

    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        ddb_buf_clear(&b);
        cr_assert_eq(ddb_csv_put_field(&b, cases[k].in, strlen(cases[k].in), ',', cases[k].force),
                     0);
        cr_assert_eq(b.len, strlen(cases[k].out), "case %zu: '%s'", k, b.ptr);
        cr_assert(memcmp(b.ptr, cases[k].out, b.len) == 0, "case %zu: '%s'", k, b.ptr);
    }
    ddb_buf_clear(&b);
    ddb_csv_put_field(&b, S("a|b"), '|', 0);
    cr_assert_str_eq(b.ptr, "\"a|b\"");
    ddb_buf_dispose(&b);
}

Test(csv, put_field_round_trip)
{
    static const char *const values[] = {
        "plain",
        "",
        "\"",
        "\"\"",
        "say \"hi\"",
        "a,b",
        "a\tb",
        "a;b",
        "a|b",
        " lead",
        "trail ",
        "\ttab",
        "line\nbreak",
        "crlf\r\nbreak",
        "bare\rcr",
        "\xC3\xA9t\xC3\xA9 \xE2\x82\xAC",
        "\xF0\x9F\x98\x80,\"x\"",
        "end\"",
    };
    const size_t nv = sizeof(values) / sizeof(values[0]);
    const char delims[] = {',', '\t', ';', '|'};
    ddb_buf b = DDB_BUF_INIT;
    ddb_error err = {0};

    for (size_t d = 0; d < sizeof(delims); d++) {
        ddb_buf_clear(&b);
        /* two rows: all values, then all values forced into quotes */
        for (int force = 0; force <= 1; force++) {
            for (size_t k = 0; k < nv; k++) {
                if (k > 0)
                    ddb_buf_putc(&b, delims[d]);
                cr_assert_eq(ddb_csv_put_field(&b, values[k], strlen(values[k]), delims[d], force),
                             0);
            }
            ddb_buf_puts(&b, force ? "\n" : "\r\n");
        }
        ddb_csv *p = csv_over(b.ptr, b.len, 0, delims[d], 0);
        for (int force = 0; force <= 1; force++) {
            ddb_csv_row r;
            int rc = ddb_csv_next(p, &r, &err);

            cr_assert_eq(rc, 0, "delim %c: %s", delims[d], err.message);
            cr_assert_eq(r.count, nv, "delim 0x%02x: %zu fields", delims[d], r.count);
            for (size_t k = 0; k < nv; k++) {
                cr_assert_eq(r.fields[k].len, strlen(values[k]), "value %zu", k);
                cr_assert(memcmp(r.fields[k].ptr, values[k], r.fields[k].len) == 0, "value %zu", k);
                if (force)
                    cr_assert_eq(r.fields[k].quoted, 1);
            }
            cr_assert_eq(r.fields[1].quoted, force, "empty string quoted only when forced");
        }
        {
            ddb_csv_row end;
            cr_assert_eq(ddb_csv_next(p, &end, &err), DDB_ITEROVER);
        }
        ddb_csv_free(p);
    }
    ddb_buf_dispose(&b);
}

Test(csv, reads_a_file)
{
    char dir[] = "/tmp/ddbcsvXXXXXX";
    char path[64];
    FILE *f;
    ddb_source *src = NULL;
    ddb_csv *p = NULL;
    ddb_csv_row r;
    ddb_error err = {0};

    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/in.csv", dir);
    f = fopen(path, "wb");
    cr_assert_not_null(f);
    fputs("pk;sk\n\"USER#1\";\"a;b\"\nUSER#2;x", f);
    fclose(f);
    cr_assert_eq(ddb_source_open_file(&src, path, &err), 0, "%s", err.message);
    cr_assert_eq(ddb_csv_new(&p, src, ';', 0, &err), 0);
    cr_assert_eq(ddb_csv_next(p, &r, &err), 0);
    cr_assert_eq(ddb_csv_next(p, &r, &err), 0);
    cr_assert_eq(r.count, 2);
    cr_assert_eq(r.fields[1].len, 3);
    cr_assert(memcmp(r.fields[1].ptr, "a;b", 3) == 0);
    cr_assert_eq(ddb_csv_next(p, &r, &err), 0);
    cr_assert_eq(r.line, 3);
    cr_assert_eq(r.fields[1].len, 1);
    cr_assert_eq(ddb_csv_next(p, &r, &err), DDB_ITEROVER);
    ddb_csv_free(p);
    unlink(path);
    rmdir(dir);
}

/* The cell as it must be written: quoted (quotes doubled) or as it is. */
static void expected_cell(ddb_buf *out, const char *cell, size_t len, int quoted)
{
    ddb_buf_clear(out);
    if (!quoted) {
        ddb_buf_append(out, cell, len);
        return;
    }
    ddb_buf_putc(out, '"');
    for (size_t i = 0; i < len; i++) {
        if (cell[i] == '"')
            ddb_buf_putc(out, '"');
        ddb_buf_putc(out, cell[i]);
    }
    ddb_buf_putc(out, '"');
}

/* Whether a cell is quoted, and the bytes written, do not depend on where
 * its special byte falls in the writer's steps (sixteen, the overlapping
 * last sixteen, eight and eight, four and four, one): every special at every
 * offset of cells of every length up to 40, alone or with a high byte beside
 * it, each cell in a block of exactly its size (ASan sees a read past it),
 * written after text already in the buffer. */
Test(csv, put_field_quotes_a_special_byte_anywhere)
{
    static const char specials[] = {',', ';', '\t', '|', '"', '\r', '\n', ' '};
    static const char delims[] = {',', '\t', ';', '|'};
    ddb_buf b = DDB_BUF_INIT, want_text = DDB_BUF_INIT;
    for (size_t d = 0; d < sizeof(delims); d++) {
        for (size_t len = 1; len <= 40; len++) {
            char *cell = malloc(len);
            cr_assert_not_null(cell);
            for (size_t at = 0; at < len; at++) {
                for (size_t k = 0; k < 2 * sizeof(specials); k++) {
                    int want;
                    for (size_t i = 0; i < len; i++)
                        cell[i] = (char)('a' + i % 26);
                    if (k >= sizeof(specials) && at > 0)
                        cell[at - 1] = (char)0xC3; /* and with a high byte beside it */
                    cell[at] = specials[k % sizeof(specials)];
                    want = cell[at] == delims[d] || cell[at] == '"' || cell[at] == '\r' ||
                           cell[at] == '\n' ||
                           ((cell[at] == '\t' || cell[at] == ' ') && (at == 0 || at == len - 1));
                    ddb_buf_clear(&b);
                    ddb_buf_puts(&b, "pre,");
                    cr_assert_eq(ddb_csv_put_field(&b, cell, len, delims[d], 0), 0);
                    expected_cell(&want_text, cell, len, want);
                    cr_assert(b.len == 4 + want_text.len &&
                                  memcmp(b.ptr + 4, want_text.ptr, want_text.len) == 0,
                              "delim 0x%02x, 0x%02x at %zu of %zu: %s", delims[d], cell[at], at,
                              len, b.ptr);
                }
                /* and a plain cell of this length is written as it is */
                for (size_t i = 0; i < len; i++)
                    cell[i] = (char)('A' + i % 26);
                ddb_buf_clear(&b);
                cr_assert_eq(ddb_csv_put_field(&b, cell, len, delims[d], 0), 0);
                cr_assert(b.len == len && memcmp(b.ptr, cell, len) == 0 && b.ptr[len] == '\0');
            }
            free(cell);
        }
    }
    ddb_buf_dispose(&b);
    ddb_buf_dispose(&want_text);
}

/* Cells with many quotes (JSON in a cell: a map, _extra), every pattern of
 * quotes over the writer's sixteen-byte steps: each pattern of 0 to 70 bytes
 * from a small generator, quotes doubled exactly, nothing written past the
 * cell's bytes (each cell in a block of its size, the buffer starting small),
 * and the buffer's text NUL-terminated. */
Test(csv, put_field_doubles_many_quotes)
{
    ddb_buf want_text = DDB_BUF_INIT;
    uint32_t x = 12345;
    for (size_t len = 0; len <= 70; len++) {
        for (int round = 0; round < 44; round++) {
            ddb_buf b = DDB_BUF_INIT;
            char *cell = malloc(len ? len : 1);
            cr_assert_not_null(cell);
            for (size_t i = 0; i < len; i++) {
                x = x * 1103515245u + 12345u;
                /* a quote one time in four (one in two in odd rounds), else JSON-ish text;
                 * the last rounds: every byte a quote, a quote at each step's last byte, at
                 * its first, at both */
                if (round == 40)
                    cell[i] = '"';
                else if (round > 40)
                    cell[i] = ((round & 1) && i % 16 == 15) || (round >= 42 && i % 16 == 0)
                                  ? '"'
                                  : 'a';
                else
                    cell[i] =
                        (x >> 16) % (round % 2 ? 2 : 4) == 0 ? '"' : "{}:,SN a"[(x >> 8) % 8];
            }
            ddb_buf_puts(&b, "p");
            cr_assert_eq(ddb_csv_put_field(&b, cell, len, ',', 1), 0);
            expected_cell(&want_text, cell, len, 1);
            cr_assert(b.len == 1 + want_text.len &&
                          memcmp(b.ptr + 1, want_text.ptr, want_text.len) == 0 &&
                          b.ptr[b.len] == '\0',
                      "len %zu round %d: %s", len, round, b.ptr);
            free(cell);
            ddb_buf_dispose(&b);
        }
    }
    ddb_buf_dispose(&want_text);
}
