/*
 * test_source.c — file, memory, gzip, MD5 and sniff sources.
 */
#include <criterion/criterion.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "ddbpipe/codec.h"
#include "ddbpipe/lines.h"
#include "ddbpipe/sink.h"
#include "io/io_internal.h"

static char tmpdir[64];

static void setup(void)
{
    strcpy(tmpdir, "/tmp/ddb-io-src-XXXXXX");
    cr_assert_not_null(mkdtemp(tmpdir));
}

static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
    cr_assert_eq(system(cmd), 0);
}

TestSuite(source, .init = setup, .fini = teardown);

/* Path inside the test directory; rotates buffers so a call can use several. */
static char *tpath(const char *name)
{
    static char p[4][256];
    static int i;
    i = (i + 1) % 4;
    snprintf(p[i], sizeof(p[i]), "%s/%s", tmpdir, name);
    return p[i];
}

static void write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "fopen %s", path);
    cr_assert_eq(fwrite(data, 1, len, f), len);
    cr_assert_eq(fclose(f), 0);
}

static unsigned char *read_whole(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    unsigned char *p;
    long n;
    cr_assert_not_null(f);
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    p = malloc((size_t)n + 1);
    cr_assert_eq(fread(p, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return p;
}

/* Deterministic mix of incompressible bytes and repetitive text. */
static unsigned char *make_data(size_t len, uint32_t seed)
{
    unsigned char *p = malloc(len);
    uint32_t x = seed;
    size_t i = 0;
    cr_assert_not_null(p);
    while (i < len) {
        size_t run = 1000 + (x % 50000), j;
        int text = (x >> 8) & 1;
        for (j = 0; j < run && i < len; j++, i++) {
            x = x * 1664525u + 1013904223u;
            p[i] = text ? (unsigned char)("{\"pk\":\"user#42\",\"n\":\"3.14\"}\n"[j % 29])
                        : (unsigned char)(x >> 24);
        }
        x = x * 1664525u + 1013904223u;
    }
    return p;
}

/* Reads everything with a rotating set of odd chunk sizes; returns code or length. */
static ssize_t drain(ddb_source *s, unsigned char *out, size_t cap, ddb_error *err)
{
    static const size_t chunks[] = {1, 7, 4093, 65537, 3, 300000, 13};
    size_t got = 0, k = 0;
    for (;;) {
        size_t want = chunks[k++ % 7];
        ssize_t n;

        if (want > cap - got)
            want = cap - got;
        if (want == 0) {
            /* Full: the stream must end (or fail) here. */
            unsigned char extra;
            n = ddb_source_read(s, &extra, 1, err);
            return n < 0 ? n : (ssize_t)got + n;
        }
        n = ddb_source_read(s, out + got, want, err);
        if (n < 0)
            return n;
        if (n == 0)
            return (ssize_t)got;
        cr_assert_leq((size_t)n, want);
        got += (size_t)n;
    }
}

Test(source, memory_odd_chunks)
{
    const char *text = "hello, world";
    unsigned char out[64];
    ddb_source *s;
    ddb_error err;

    cr_assert_eq(ddb_source_new_memory(&s, text, strlen(text), NULL, &err), 0);
    cr_assert_str_eq(s->name, "memory");
    cr_assert_eq(drain(s, out, sizeof(out), &err), (ssize_t)strlen(text));
    cr_assert_eq(memcmp(out, text, strlen(text)), 0);
    cr_assert_eq(ddb_source_read(s, out, sizeof(out), &err), 0);
    cr_assert_eq(s->bytes_in, strlen(text));
    cr_assert_eq(ddb_source_raw_bytes(s), strlen(text));
    ddb_source_free(s);
    ddb_source_free(NULL);
}

Test(source, file_odd_chunks)
{
    size_t len = 3 * 1024 * 1024 + 17;
    unsigned char *data = make_data(len, 1), *out = malloc(len + 10);
    ddb_source *s;
    ddb_error err;

    write_file(tpath("plain.bin"), data, len);
    cr_assert_eq(ddb_source_open_file(&s, tpath("plain.bin"), &err), 0, "%s", err.message);
    cr_assert_str_eq(s->name, tpath("plain.bin"));
    cr_assert_eq(drain(s, out, len + 10, &err), (ssize_t)len);
    cr_assert_eq(memcmp(out, data, len), 0);
    cr_assert_eq(ddb_source_raw_bytes(s), len);
    ddb_source_free(s);
    free(data);
    free(out);
}

Test(source, file_errors_name_the_path)
{
    ddb_source *s = (ddb_source *)1;
    ddb_error err;

    cr_assert_eq(ddb_source_open_file(&s, tpath("missing.json"), &err), DDB_ENOTFOUND);
    cr_assert_null(s);
    cr_assert(strstr(err.message, tpath("missing.json")) != NULL, "%s", err.message);
    cr_assert(strstr(err.message, "No such file") != NULL, "%s", err.message);
    cr_assert_eq(ddb_source_open_file(&s, tmpdir, &err), DDB_EIO);
    cr_assert(strstr(err.message, tmpdir) != NULL, "%s", err.message);
}

Test(source, stdin_is_named)
{
    ddb_source *s;
    ddb_error err;

    cr_assert_eq(ddb_source_open_file(&s, "-", &err), 0);
    cr_assert_str_eq(s->name, "stdin");
    ddb_source_free(s); /* must not close fd 0 */
    cr_assert_neq(fcntl(0, F_GETFD), -1);
}

/* Compresses data into path with our sink: one member through a file sink,
 * or `parts` members each built in a memory sink and concatenated. */
static void gzip_to_file(const char *path, const unsigned char *data, size_t len, int parts)
{
    ddb_sink *f, *z;
    ddb_error err;
    size_t per = len / (size_t)parts, off = 0;
    FILE *out;
    int i;

    if (parts == 1) {
        cr_assert_eq(ddb_sink_open_file(&f, path, 0, &err), 0, "%s", err.message);
        cr_assert_eq(ddb_sink_new_gzip(&z, f, 6, &err), 0);
        cr_assert_eq(ddb_sink_write(z, data, len, &err), 0, "%s", err.message);
        cr_assert_eq(ddb_sink_finish(z, &err), 0, "%s", err.message);
        ddb_sink_free(z);
        return;
    }
    out = fopen(path, "wb");
    cr_assert_not_null(out);
    for (i = 0; i < parts; i++) {
        size_t n = i == parts - 1 ? len - off : per, glen;
        const char *g;
        cr_assert_eq(ddb_sink_new_memory(&f, &err), 0);
        cr_assert_eq(ddb_sink_new_gzip(&z, f, 1 + i % 9, &err), 0);
        cr_assert_eq(ddb_sink_write(z, data + off, n, &err), 0, "%s", err.message);
        cr_assert_eq(ddb_sink_finish(z, &err), 0, "%s", err.message);
        g = ddb_sink_memory_data(f, &glen);
        cr_assert_eq(fwrite(g, 1, glen, out), glen);
        ddb_sink_free(z);
        off += n;
    }
    cr_assert_eq(fclose(out), 0);
}

Test(source, gzip_round_trip_several_mb)
{
    size_t len = 6 * 1024 * 1024 + 5;
    unsigned char *data = make_data(len, 7), *out = malloc(len + 1), *gz;
    size_t gzlen;
    ddb_source *s;
    ddb_error err;
    char cmd[512];

    gzip_to_file(tpath("rt.gz"), data, len, 1);
    /* The system gzip agrees with our encoder. */
    snprintf(cmd, sizeof(cmd), "gzip -t '%s'", tpath("rt.gz"));
    cr_assert_eq(system(cmd), 0);

    cr_assert_eq(ddb_source_open_auto(&s, tpath("rt.gz"), 0, NULL, &err), 0, "%s", err.message);
    cr_assert_eq(drain(s, out, len + 1, &err), (ssize_t)len, "%s", err.message);
    cr_assert_eq(memcmp(out, data, len), 0);
    cr_assert_eq(s->bytes_in, len);
    gz = read_whole(tpath("rt.gz"), &gzlen);
    cr_assert_eq(ddb_source_raw_bytes(s), gzlen);
    cr_assert(ddb_source_is_readahead(s), "a gzip file is inflated ahead on a thread");
    ddb_source_free(s);

    /* --threads 1: the same bytes, inflated on the caller's thread */
    cr_assert_eq(ddb_source_open_auto(&s, tpath("rt.gz"), DDB_SOURCE_ONE_THREAD, NULL, &err), 0,
                 "%s", err.message);
    cr_assert_not(ddb_source_is_readahead(s));
    memset(out, 0, len + 1);
    cr_assert_eq(drain(s, out, len + 1, &err), (ssize_t)len, "%s", err.message);
    cr_assert_eq(memcmp(out, data, len), 0);
    cr_assert_eq(ddb_source_raw_bytes(s), gzlen);
    ddb_source_free(s);
    free(gz);
    free(data);
    free(out);
}

Test(source, gzip_members_from_system_gzip)
{
    const char *a = "first member\nline two\n", *b = "second member\n";
    char cmd[1024], got[128];
    ddb_source *s;
    ddb_error err;
    ssize_t n;

    write_file(tpath("a"), a, strlen(a));
    write_file(tpath("b"), b, strlen(b));
    snprintf(cmd, sizeof(cmd), "gzip -c '%s' > '%s' && gzip -c '%s' >> '%s'", tpath("a"),
             tpath("x.bin"), tpath("b"), tpath("x.bin"));
    cr_assert_eq(system(cmd), 0);
    cr_assert_eq(ddb_source_open_auto(&s, tpath("x.bin"), 0, NULL, &err), 0, "%s", err.message);
    n = drain(s, (unsigned char *)got, sizeof(got), &err);
    cr_assert_eq(n, (ssize_t)(strlen(a) + strlen(b)), "%zd %s", n, err.message);
    cr_assert_eq(memcmp(got, a, strlen(a)), 0);
    cr_assert_eq(memcmp(got + strlen(a), b, strlen(b)), 0);
    ddb_source_free(s);
}

Test(source, gzip_many_members_from_sink)
{
    size_t len = 2 * 1024 * 1024;
    unsigned char *data = make_data(len, 3), *out = malloc(len);
    ddb_source *s;
    ddb_error err;

    gzip_to_file(tpath("m.gz"), data, len, 5);
    cr_assert_eq(ddb_source_open_auto(&s, tpath("m.gz"), 0, NULL, &err), 0);
    cr_assert_eq(drain(s, out, len, &err), (ssize_t)len, "%s", err.message);
    cr_assert_eq(memcmp(out, data, len), 0);
    cr_assert_eq(ddb_source_read(s, out, len, &err), 0);
    ddb_source_free(s);
    free(data);
    free(out);
}

/* A gzip member of text with the header fields asked for, built by hand (Python's gzip module
 * sets no FEXTRA, FCOMMENT or FHCRC). bad_hcrc spoils the header CRC. */
static unsigned char *gzip_member(unsigned flags, size_t name_len, int bad_hcrc, const char *text,
                                  size_t *len)
{
    size_t cap = 64 + name_len + 2 * strlen(text) + 64, n = 0;
    unsigned char *m = malloc(cap);
    z_stream zs = {0};
    uLong crc;
    cr_assert_not_null(m);
    memcpy(m, "\x1f\x8b\x08", 3);
    m[3] = (unsigned char)flags;
    memset(m + 4, 0, 6);
    n = 10;
    if (flags & 0x04) { /* FEXTRA: one subfield "AP" of 3 bytes */
        memcpy(m + n,
               "\x07\x00"
               "AP\x03\x00xyz",
               9);
        n += 9;
    }
    if (flags & 0x08) {
        memset(m + n, 'n', name_len);
        n += name_len;
        m[n++] = 0;
    }
    if (flags & 0x10) {
        memcpy(m + n, "a comment", 10);
        n += 10;
    }
    if (flags & 0x02) {
        crc = crc32(0, m, (uInt)n) ^ (uLong)(bad_hcrc != 0);
        m[n++] = (unsigned char)(crc & 0xff);
        m[n++] = (unsigned char)(crc >> 8 & 0xff);
    }
    cr_assert_eq(deflateInit2(&zs, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY), Z_OK);
    zs.next_in = (Bytef *)text;
    zs.avail_in = (uInt)strlen(text);
    zs.next_out = m + n;
    zs.avail_out = (uInt)(cap - n - 8);
    cr_assert_eq(deflate(&zs, Z_FINISH), Z_STREAM_END);
    n += zs.total_out;
    deflateEnd(&zs);
    crc = crc32(0, (const Bytef *)text, (uInt)strlen(text));
    for (int i = 0; i < 4; i++)
        m[n++] = (unsigned char)(crc >> (8 * i) & 0xff);
    for (int i = 0; i < 4; i++)
        m[n++] = (unsigned char)(strlen(text) >> (8 * i) & 0xff);
    *len = n;
    return m;
}

/* 0 and the text read back, or the error code */
static int read_gz_file(const char *path, const char *text)
{
    char got[256];
    ddb_source *s;
    ddb_error err;
    ssize_t n;
    cr_assert_eq(ddb_source_open_auto(&s, path, 0, NULL, &err), 0, "%s", err.message);
    n = drain(s, (unsigned char *)got, sizeof(got), &err);
    ddb_source_free(s);
    if (n < 0)
        return (int)n;
    cr_assert_eq((size_t)n, strlen(text), "%s: %zd", path, n);
    cr_assert_eq(memcmp(got, text, (size_t)n), 0);
    return 0;
}

/*
 * The gzip reader takes what gzip(1) takes and refuses what it refuses: a
 * header CRC (FHCRC) had been refused ("CRC-32 or length does not match"), a
 * file name over ~256 KB gave "invalid deflate data", and the reserved flag
 * bits were accepted. Each header also goes twice into one file (two members).
 */
Test(source, gzip_headers_as_gzip_reads_them)
{
    const char *text = "one line\ntwo lines\n";
    const struct {
        unsigned flags;
        size_t name_len;
        int bad_hcrc;
    } cases[] = {
        {0x02, 0, 0},          {0x02 | 0x08 | 0x10 | 0x04, 5, 0},
        {0x08, 300 * 1024, 0}, {0x08 | 0x02, 300 * 1024, 0},
        {0x10, 0, 0},          {0x04, 0, 0},
        {0x20, 0, 0},          {0x80, 0, 0},
        {0x02, 0, 1},          {0x01, 0, 0}, /* FTEXT: a hint only */
    };
    char cmd[600];
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        size_t len;
        unsigned char *m =
            gzip_member(cases[i].flags, cases[i].name_len, cases[i].bad_hcrc, text, &len);
        int gzip_ok, ours;
        FILE *f = fopen(tpath("h.gz"), "wb");
        cr_assert_not_null(f);
        cr_assert_eq(fwrite(m, 1, len, f), len);
        cr_assert_eq(fwrite(m, 1, len, f), len);
        cr_assert_eq(fclose(f), 0);
        snprintf(cmd, sizeof(cmd), "gzip -t '%s' 2>/dev/null", tpath("h.gz"));
        gzip_ok = system(cmd) == 0;
        {
            char twice[64];
            snprintf(twice, sizeof(twice), "%s%s", text, text);
            ours = read_gz_file(tpath("h.gz"), twice);
        }
        cr_assert_eq(ours == 0, gzip_ok, "flags 0x%02x name %zu bad CRC %d: gzip(1) %s, ours %d",
                     cases[i].flags, cases[i].name_len, cases[i].bad_hcrc,
                     gzip_ok ? "reads it" : "refuses it", ours);
        cr_assert_eq(gzip_ok, !(cases[i].flags & 0xe0) && !cases[i].bad_hcrc, "flags 0x%02x",
                     cases[i].flags);
        free(m);
    }
}

/* Files written by gzip(1) and by Python's gzip module (a file name, a time). */
Test(source, gzip_files_from_gzip_and_python)
{
    const char *text = "a\nbb\nccc\n";
    char cmd[1024];
    write_file(tpath("plain"), text, strlen(text));
    snprintf(
        cmd, sizeof(cmd),
        "cd '%s' && gzip -c plain > g1.gz && gzip -n -9 -c plain > g2.gz && python3 -c 'import "
        "gzip, sys; f = gzip.GzipFile(sys.argv[1], \"wb\", mtime=1700000000); "
        "f.write(open(sys.argv[2], \"rb\").read()); f.close()' py.gz plain",
        tmpdir);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    cr_assert_eq(read_gz_file(tpath("g1.gz"), text), 0);
    cr_assert_eq(read_gz_file(tpath("g2.gz"), text), 0);
    cr_assert_eq(read_gz_file(tpath("py.gz"), text), 0);
}

/* Decompresses a gzip image in memory; returns the code/length and leaves the message. */
static ssize_t gunzip_mem(const unsigned char *gz, size_t gzlen, unsigned char *out, size_t cap,
                          ddb_error *err)
{
    ddb_source *m, *z;
    ssize_t n;
    cr_assert_eq(ddb_source_new_memory(&m, gz, gzlen, "img.gz", err), 0);
    cr_assert_eq(ddb_source_new_gzip(&z, m, err), 0);
    n = drain(z, out, cap, err);
    ddb_source_free(z);
    return n;
}

Test(source, gzip_padding_and_garbage)
{
    const char *text = "padded\n";
    unsigned char *gz, img[4096], out[64];
    size_t gzlen;
    ddb_error err;

    gzip_to_file(tpath("p.gz"), (const unsigned char *)text, strlen(text), 1);
    gz = read_whole(tpath("p.gz"), &gzlen);
    memcpy(img, gz, gzlen);
    memset(img + gzlen, 0, 512);
    cr_assert_eq(gunzip_mem(img, gzlen + 512, out, sizeof(out), &err), (ssize_t)strlen(text), "%s",
                 err.message);
    cr_assert_eq(memcmp(out, text, strlen(text)), 0);

    img[gzlen + 100] = 'x'; /* garbage after zero padding */
    cr_assert_eq(gunzip_mem(img, gzlen + 512, out, sizeof(out), &err), DDB_EIO);
    memcpy(img + gzlen, "junk", 4);
    cr_assert_eq(gunzip_mem(img, gzlen + 4, out, sizeof(out), &err), DDB_EIO);
    {
        char want[128];
        snprintf(want, sizeof(want), "trailing garbage after gzip member in img.gz at byte %zu",
                 gzlen);
        cr_assert_str_eq(err.message, want);
    }
    free(gz);
}

Test(source, gzip_truncated)
{
    size_t len = 1024 * 1024;
    unsigned char *data = make_data(len, 11), *out = malloc(len), *gz;
    size_t gzlen, cut;
    ddb_source *s;
    ddb_error err;
    ssize_t n;
    char want[512];

    gzip_to_file(tpath("t.gz"), data, len, 1);
    gz = read_whole(tpath("t.gz"), &gzlen);
    /* Cut inside the trailer, then in the middle of the deflate data. */
    for (cut = 3; cut <= gzlen / 2; cut = gzlen / 2) {
        write_file(tpath("cut.gz"), gz, gzlen - cut);
        cr_assert_eq(ddb_source_open_auto(&s, tpath("cut.gz"), 0, NULL, &err), 0);
        n = drain(s, out, len, &err);
        cr_assert_eq(n, DDB_EIO, "cut %zu: got %zd", cut, n);
        snprintf(want, sizeof(want), "unexpected end of gzip data in %s at compressed byte %zu",
                 tpath("cut.gz"), gzlen - cut);
        cr_assert_str_eq(err.message, want);
        /* The failure sticks. */
        cr_assert_eq(ddb_source_read(s, out, 10, &err), DDB_EIO);
        ddb_source_free(s);
        if (cut == gzlen / 2)
            break;
    }
    free(gz);
    free(data);
    free(out);
}

Test(source, gzip_corrupt_byte)
{
    size_t len = 1024 * 1024;
    unsigned char *data = make_data(len, 5), *out = malloc(len), *gz;
    size_t gzlen;
    ddb_error err;
    ssize_t n;

    gzip_to_file(tpath("c.gz"), data, len, 1);
    gz = read_whole(tpath("c.gz"), &gzlen);
    gz[gzlen / 2] ^= 0x55;
    n = gunzip_mem(gz, gzlen, out, len, &err);
    cr_assert_eq(n, DDB_EIO, "got %zd", n);
    cr_assert(strstr(err.message, "corrupt gzip data in img.gz at compressed byte ") != NULL, "%s",
              err.message);
    /* An empty or non-gzip stream given to the filter is an error too. */
    cr_assert_eq(gunzip_mem((const unsigned char *)"", 0, out, len, &err), DDB_EIO);
    cr_assert_eq(gunzip_mem((const unsigned char *)"plain text", 10, out, len, &err), DDB_EIO);
    free(gz);
    free(data);
    free(out);
}

static void md5_of(const char *text, char hex[33])
{
    ddb_source *m, *s;
    unsigned char d[16], buf[3];
    ddb_error err;

    cr_assert_eq(ddb_source_new_memory(&m, text, strlen(text), NULL, &err), 0);
    cr_assert_eq(ddb_source_new_md5(&s, m, &err), 0);
    while (ddb_source_read(s, buf, sizeof(buf), &err) > 0)
        ;
    cr_assert_eq(ddb_source_md5_digest(s, d), 0);
    ddb_hex_encode(hex, d, 16);
    hex[32] = '\0';
    ddb_source_free(s);
}

Test(source, md5_known_strings)
{
    char hex[33];

    md5_of("", hex);
    cr_assert_str_eq(hex, "d41d8cd98f00b204e9800998ecf8427e");
    md5_of("abc", hex);
    cr_assert_str_eq(hex, "900150983cd24fb0d6963f7d28e17f72");
    md5_of("The quick brown fox jumps over the lazy dog", hex);
    cr_assert_str_eq(hex, "9e107d9d372bb6826bd81d3542a419d6");
}

Test(source, md5_digest_any_time)
{
    ddb_source *m, *s;
    unsigned char d[16], buf[8];
    char hex[33] = {0};
    ddb_error err;

    cr_assert_eq(ddb_source_new_memory(&m, "abcdef", 6, NULL, &err), 0);
    cr_assert_eq(ddb_source_new_md5(&s, m, &err), 0);
    cr_assert_eq(ddb_source_read(s, buf, 3, &err), 3);
    cr_assert_eq(ddb_source_md5_digest(s, d), 0);
    ddb_hex_encode(hex, d, 16);
    cr_assert_str_eq(hex, "900150983cd24fb0d6963f7d28e17f72"); /* "abc" */
    cr_assert_eq(ddb_source_read(s, buf, 8, &err), 3);
    cr_assert_eq(ddb_source_md5_digest(s, d), 0);
    ddb_hex_encode(hex, d, 16);
    cr_assert_str_eq(hex, "e80b5017098950fc58aad83c8c14978e"); /* "abcdef" */
    cr_assert_eq(ddb_source_md5_digest(m, d), DDB_EINVAL);
    ddb_source_free(s);
}

Test(source, real_export_file_md5_and_lines)
{
    const char *path = DDB_SHARED_DIR
        "/aws-export/01716790307109-5f9d6aaa/data/3ol56grj3u2pxfcyepktpypzju.json.gz";
    ddb_source *s, *md5;
    ddb_lines *lr;
    const char *line;
    size_t len;
    unsigned char d[16];
    char b64[25] = {0};
    uint64_t lines = 0;
    ddb_error err;
    int rc;
    struct stat st;

    cr_assert_eq(stat(path, &st), 0);
    cr_assert_eq(ddb_source_open_auto(&s, path, 0, &md5, &err), 0, "%s", err.message);
    cr_assert_not_null(md5);
    cr_assert_eq(ddb_lines_new(&lr, s, 0, &err), 0);
    while ((rc = ddb_lines_next(lr, &line, &len, &err)) == 0) {
        lines++;
        cr_assert(len > 0 && line[0] == '{', "line %llu", (unsigned long long)lines);
    }
    cr_assert_eq(rc, DDB_ITEROVER, "%s", err.message);
    cr_assert_eq(lines, 33070);
    cr_assert_eq(ddb_lines_lineno(lr), 33070);
    cr_assert_eq(ddb_source_raw_bytes(ddb_lines_source(lr)), (uint64_t)st.st_size);
    cr_assert_eq(ddb_source_md5_digest(md5, d), 0);
    cr_assert_eq(ddb_base64_encode(b64, d, 16), 24);
    cr_assert_str_eq(b64, "o57d9gCqwq2Mp7G7ZlsN3A==");
    ddb_lines_free(lr);
}

/* A source that hands out at most one byte per read, like a slow pipe. */
typedef struct trickle {
    ddb_source base;
} trickle;

static ssize_t trickle_read(ddb_source *s, void *buf, size_t len, ddb_error *err)
{
    return ddb_source_read(s->upstream, buf, len < 1 ? len : 1, err);
}

static void trickle_free(ddb_source *s)
{
    (void)s;
}

static const ddb_source_vtable trickle_vt = {trickle_read, trickle_free, NULL};

static ddb_source *trickle_over(const char *text)
{
    trickle *t = calloc(1, sizeof(*t));
    ddb_error err;
    t->base.vt = &trickle_vt;
    t->base.name = strdup("trickle");
    cr_assert_eq(ddb_source_new_memory(&t->base.upstream, text, strlen(text), NULL, &err), 0);
    return &t->base;
}

Test(source, sniff_replays_exactly)
{
    const char *text = "hello world, sniffed";
    const unsigned char *peek;
    size_t peek_len;
    unsigned char out[64];
    ddb_source *s;
    ddb_error err;

    /* Short reads underneath: sniff must loop until it has want bytes. */
    cr_assert_eq(ddb_source_sniff(&s, trickle_over(text), 5, &peek, &peek_len, &err), 0);
    cr_assert_eq(peek_len, 5);
    cr_assert_eq(memcmp(peek, "hello", 5), 0);
    cr_assert_eq(drain(s, out, sizeof(out), &err), (ssize_t)strlen(text));
    cr_assert_eq(memcmp(out, text, strlen(text)), 0);
    cr_assert_eq(memcmp(peek, "hello", 5), 0); /* still valid */
    cr_assert_eq(ddb_source_raw_bytes(s), strlen(text));
    ddb_source_free(s);

    /* want beyond the end. */
    cr_assert_eq(ddb_source_new_memory(&s, "ab", 2, NULL, &err), 0);
    cr_assert_eq(ddb_source_sniff(&s, s, 16, &peek, &peek_len, &err), 0);
    cr_assert_eq(peek_len, 2);
    cr_assert_eq(ddb_source_read(s, out, 1, &err), 1);
    cr_assert_eq(ddb_source_read(s, out + 1, 10, &err), 1);
    cr_assert_eq(ddb_source_read(s, out, 10, &err), 0);
    cr_assert_eq(memcmp(out, "ab", 2), 0);
    ddb_source_free(s);
}

Test(source, open_auto_uses_content_not_extension)
{
    const char *text = "{\"a\":1}\n";
    unsigned char out[64];
    ddb_source *s, *md5;
    ddb_error err;

    write_file(tpath("plain.gz"), text, strlen(text));
    gzip_to_file(tpath("packed.json"), (const unsigned char *)text, strlen(text), 1);
    cr_assert_eq(ddb_source_open_auto(&s, tpath("plain.gz"), 0, NULL, &err), 0);
    cr_assert_eq(drain(s, out, sizeof(out), &err), (ssize_t)strlen(text));
    cr_assert_eq(memcmp(out, text, strlen(text)), 0);
    ddb_source_free(s);
    cr_assert_eq(ddb_source_open_auto(&s, tpath("packed.json"), 0, &md5, &err), 0);
    cr_assert_eq(drain(s, out, sizeof(out), &err), (ssize_t)strlen(text));
    cr_assert_eq(memcmp(out, text, strlen(text)), 0);
    ddb_source_free(s);

    /* One byte and empty files are plain. */
    write_file(tpath("one"), "\x1f", 1);
    cr_assert_eq(ddb_source_open_auto(&s, tpath("one"), 0, NULL, &err), 0);
    cr_assert_eq(drain(s, out, sizeof(out), &err), 1);
    ddb_source_free(s);
    write_file(tpath("empty"), "", 0);
    cr_assert_eq(ddb_source_open_auto(&s, tpath("empty"), 0, &md5, &err), 0);
    cr_assert_eq(ddb_source_read(s, out, sizeof(out), &err), 0);
    ddb_source_free(s);
    md5 = (ddb_source *)1;
    cr_assert_eq(ddb_source_open_auto(&s, tpath("nope"), 0, &md5, &err), DDB_ENOTFOUND);
    cr_assert_null(md5);
}

/* A source that hands out its bytes, then fails: the error must come after
 * every byte read before it, through the reading thread too. */
typedef struct failing_after {
    ddb_source base;
} failing_after;

static ssize_t failing_after_read(ddb_source *s, void *buf, size_t len, ddb_error *err)
{
    ssize_t n = ddb_source_read(s->upstream, buf, len, err);
    if (n == 0)
        return ddb_error_set(err, DDB_EIO, "disk on fire after byte %llu",
                             (unsigned long long)s->bytes_in);
    return n;
}

static void failing_after_free(ddb_source *s)
{
    (void)s;
}

static const ddb_source_vtable failing_after_vt = {failing_after_read, failing_after_free, NULL};

Test(source, readahead_gives_every_byte_in_order_then_the_error)
{
    size_t n = 5 * 1024 * 1024 + 12345, got = 0;
    unsigned char *data = malloc(n), *back = malloc(n + 1);
    failing_after *f = calloc(1, sizeof(*f));
    ddb_source *ra = NULL;
    ddb_error err;
    ssize_t r;
    uint64_t x = 88172645463325252ull;

    cr_assert(data && back && f);
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        data[i] = (unsigned char)x;
    }
    f->base.vt = &failing_after_vt;
    f->base.name = strdup("failing");
    cr_assert_eq(ddb_source_new_memory(&f->base.upstream, data, n, NULL, &err), 0);
    cr_assert_eq(ddb_source_new_readahead(&ra, &f->base, &err), 0, "%s", err.message);
    /* odd read sizes across the 1 MiB buffers */
    for (size_t step = 1; (r = ddb_source_read(ra, back + got, step, &err)) > 0;
         step = step * 7 % 65521 + 1)
        got += (size_t)r;
    cr_assert_eq(got, n);
    cr_assert(memcmp(back, data, n) == 0, "bytes differ or are out of order");
    cr_assert_eq(r, DDB_EIO);
    cr_assert(strstr(err.message, "disk on fire after byte"), "%s", err.message);
    cr_assert_eq(ddb_source_read(ra, back, 10, &err), DDB_EIO); /* and again */
    ddb_source_free(ra);
    free(data);
    free(back);
}

/* Freed before the end: the thread stops without reading the rest. */
Test(source, readahead_freed_early)
{
    static char big[3 << 20];
    ddb_source *mem = NULL, *ra = NULL;
    ddb_error err;
    char buf[100];
    memset(big, 'z', sizeof(big));
    cr_assert_eq(ddb_source_new_memory(&mem, big, sizeof(big), NULL, &err), 0);
    cr_assert_eq(ddb_source_new_readahead(&ra, mem, &err), 0);
    cr_assert_eq(ddb_source_read(ra, buf, sizeof(buf), &err), (ssize_t)sizeof(buf));
    ddb_source_free(ra);
}

/* ------------------------------------------------------------ io waiter */

typedef struct waits {
    int calls, fd, fail, feed; /* feed: a pipe's write end to fill when called */
} waits;

static int record_wait(void *ctx, int fd, ddb_error *err)
{
    waits *w = ctx;
    w->calls++;
    w->fd = fd;
    if (w->fail)
        return ddb_error_set(err, DDB_EINTR, "interrupted");
    if (w->feed >= 0)
        cr_assert_eq(write(w->feed, "later", 5), 5);
    return 0;
}

/* A pipe that has no data yet: the thread's waiter is asked before the read
 * blocks; one with data, or a regular file, never asks it. */
Test(source, a_pipe_without_data_asks_the_waiter, .init = setup, .fini = teardown)
{
    int fds[2];
    char path[128], buf[16];
    ddb_source *src = NULL;
    ddb_error err;
    waits w = {.feed = -1};
    ddb_io_waiter outer = ddb_io_set_waiter((ddb_io_waiter){record_wait, &w});

    cr_assert_eq(pipe(fds), 0);
    snprintf(path, sizeof(path), "/dev/fd/%d", fds[0]);
    cr_assert_eq(ddb_source_open_file(&src, path, &err), 0, "%s", err.message);
    cr_assert_eq(write(fds[1], "now", 3), 3);
    cr_assert_eq(ddb_source_read(src, buf, sizeof(buf), &err), 3);
    cr_assert_eq(w.calls, 0, "data was there: no wait");

    w.feed = fds[1];
    cr_assert_eq(ddb_source_read(src, buf, sizeof(buf), &err), 5);
    cr_assert_eq(memcmp(buf, "later", 5), 0);
    cr_assert_eq(w.calls, 1);

    w.fail = 1;
    cr_assert_eq(ddb_source_read(src, buf, sizeof(buf), &err), DDB_EINTR);
    cr_assert_eq(w.calls, 2);
    cr_assert_str_eq(err.message, "interrupted");
    ddb_source_free(src);

    snprintf(path, sizeof(path), "%s/f", tmpdir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fclose(f); /* empty: a read is at the end at once */
    cr_assert_eq(ddb_source_open_file(&src, path, &err), 0, "%s", err.message);
    cr_assert_eq(ddb_source_read(src, buf, sizeof(buf), &err), 0);
    cr_assert_eq(w.calls, 2, "a regular file never waits");
    ddb_source_free(src);

    ddb_io_set_waiter(outer);
    close(fds[0]);
    close(fds[1]);
}

static int has_lf(void *ctx, const unsigned char *p, size_t n)
{
    (void)ctx;
    return memchr(p, '\n', n) != NULL;
}

/* A pipe whose writer pauses: the sniff stops at the pause once the bytes
 * are enough, not at want; the bytes are read again, then the rest. */
Test(source, sniff_stops_at_a_pause_when_the_bytes_are_enough)
{
    int fds[2];
    char path[32], all[16] = "";
    ddb_source *s;
    const unsigned char *peek;
    size_t peek_len, got = 0;
    ddb_error err;
    ssize_t n;

    cr_assert_eq(pipe(fds), 0);
    cr_assert_eq(write(fds[1], "ab\ncd", 5), 5);
    snprintf(path, sizeof(path), "/dev/fd/%d", fds[0]);
    cr_assert_eq(ddb_source_open_file(&s, path, &err), 0, "%s", err.message);
    cr_assert_eq(ddb_source_sniff_until(&s, s, 1 << 20, has_lf, NULL, &peek, &peek_len, &err), 0);
    cr_assert_eq(peek_len, 5);
    cr_assert_eq(write(fds[1], "ef", 2), 2);
    close(fds[1]);
    while ((n = ddb_source_read(s, all + got, sizeof(all) - 1 - got, &err)) > 0)
        got += (size_t)n;
    cr_assert_eq(n, 0);
    cr_assert_str_eq(all, "ab\ncdef");
    ddb_source_free(s);
    close(fds[0]);
}

/* The sniff's replay, partly read, then lent: the rest of the head first,
 * then the readahead's chunks, every byte once; a gzip cut short lends all
 * it inflated, then says so. */
Test(source, a_replay_partly_read_then_lent)
{
    char path[] = "/tmp/ddb-lend-XXXXXX";
    int fd = mkstemp(path);
    size_t n = 3 * 1024 * 1024, got = 0;
    unsigned char *text = malloc(n), *back = malloc(n);
    gzFile gz = gzdopen(dup(fd), "wb1");
    const unsigned char *peek;
    size_t peek_len;
    ddb_source *file, *s;
    ddb_error err;
    ssize_t k;

    for (size_t i = 0; i < n; i++)
        text[i] = (unsigned char)('a' + (i * 7 + i / 1000) % 26);
    cr_assert_eq(gzwrite(gz, text, (unsigned)n), (int)n);
    cr_assert_eq(gzclose(gz), Z_OK);
    cr_assert_eq(ddb_source_open_file(&file, path, &err), 0);
    cr_assert_eq(ddb_source_auto(&s, file, 0, NULL, &err), 0);
    cr_assert_eq(ddb_source_sniff(&s, s, 1000, &peek, &peek_len, &err), 0);
    cr_assert(ddb_source_can_borrow(s));
    cr_assert_eq(ddb_source_read(s, back, 300, &err), 300);
    got = 300;
    for (;;) {
        const char *p;
        if ((k = ddb_source_borrow(s, &p, &err)) <= 0)
            break;
        cr_assert_leq(got + (size_t)k, n);
        memcpy(back + got, p, (size_t)k);
        got += (size_t)k;
    }
    cr_assert_eq(k, 0);
    cr_assert_eq(got, n);
    cr_assert_eq(memcmp(back, text, n), 0);
    ddb_source_free(s);

    /* the same file cut in the middle of its deflate stream */
    {
        struct stat st;
        cr_assert_eq(fstat(fd, &st), 0);
        cr_assert_eq(ftruncate(fd, st.st_size / 2), 0);
    }
    cr_assert_eq(ddb_source_open_file(&file, path, &err), 0);
    cr_assert_eq(ddb_source_auto(&s, file, 0, NULL, &err), 0);
    got = 0;
    for (;;) {
        const char *p;
        if ((k = ddb_source_borrow(s, &p, &err)) <= 0)
            break;
        memcpy(back + got, p, (size_t)k);
        got += (size_t)k;
    }
    cr_assert_eq(k, DDB_EIO, "a cut gzip ends in an error, not an end: %zd", k);
    cr_assert_gt(got, 0);
    cr_assert_eq(memcmp(back, text, got), 0, "what came before the error is the data");
    ddb_source_free(s);
    close(fd);
    unlink(path);
    free(text);
    free(back);
}
