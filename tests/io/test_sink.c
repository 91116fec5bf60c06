/*
 * test_sink.c — file (plain, atomic, stdout), memory and gzip sinks.
 */
#include <criterion/criterion.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ddbpipe/fs.h"
#include "ddbpipe/sink.h"
#include "ddbpipe/source.h"

static char sdir[64];

static void setup(void)
{
    strcpy(sdir, "/tmp/ddb-io-sink-XXXXXX");
    cr_assert_not_null(mkdtemp(sdir));
}

static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", sdir);
    cr_assert_eq(system(cmd), 0);
}

TestSuite(sink, .init = setup, .fini = teardown);

static char *spath(const char *name)
{
    static char p[4][256];
    static int i;
    i = (i + 1) % 4;
    snprintf(p[i], sizeof(p[i]), "%s/%s", sdir, name);
    return p[i];
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* Number of entries in the test directory (without . and ..). */
static int dir_entries(void)
{
    DIR *d = opendir(sdir);
    struct dirent *e;
    int n = 0;
    cr_assert_not_null(d);
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    closedir(d);
    return n;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *p;
    long n;
    cr_assert_not_null(f, "fopen %s", path);
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    p = malloc((size_t)n + 1);
    cr_assert_eq(fread(p, 1, (size_t)n, f), (size_t)n);
    p[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return p;
}

static unsigned char *pattern(size_t len)
{
    unsigned char *p = malloc(len);
    uint32_t x = 12345;
    size_t i;
    for (i = 0; i < len; i++) {
        x = x * 1103515245u + 12345u;
        p[i] = (i / 4096) % 2 ? (unsigned char)('a' + i % 26) : (unsigned char)(x >> 16);
    }
    return p;
}

/* Writes data in uneven pieces, some smaller and some larger than 256 KiB. */
static void write_pieces(ddb_sink *s, const unsigned char *data, size_t len)
{
    static const size_t sizes[] = {1, 100, 300000, 7, 262144, 262143, 1000000, 5};
    size_t off = 0, k = 0;
    ddb_error err;
    while (off < len) {
        size_t n = sizes[k++ % 8];
        if (n > len - off)
            n = len - off;
        cr_assert_eq(ddb_sink_write(s, data + off, n, &err), 0, "%s", err.message);
        off += n;
    }
}

Test(sink, memory)
{
    ddb_sink *s;
    ddb_error err;
    size_t len;

    cr_assert_eq(ddb_sink_new_memory(&s, &err), 0);
    cr_assert_str_eq(ddb_sink_memory_data(s, &len), "");
    cr_assert_eq(len, 0);
    cr_assert_eq(ddb_sink_write(s, "abc", 3, &err), 0);
    cr_assert_eq(ddb_sink_write(s, "", 0, &err), 0);
    cr_assert_eq(ddb_sink_write(s, "de", 2, &err), 0);
    cr_assert_eq(ddb_sink_finish(s, &err), 0);
    cr_assert_eq(memcmp(ddb_sink_memory_data(s, &len), "abcde", 5), 0);
    cr_assert_eq(len, 5);
    cr_assert_eq(s->bytes_out, 5);
    ddb_sink_free(s);
    ddb_sink_free(NULL);
}

Test(sink, plain_file_content)
{
    size_t len = 5 * 1024 * 1024 + 3, got;
    unsigned char *data = pattern(len);
    ddb_sink *s;
    ddb_error err;
    char *back;

    cr_assert_eq(ddb_sink_open_file(&s, spath("out.bin"), 0, &err), 0, "%s", err.message);
    write_pieces(s, data, len);
    cr_assert_eq(s->bytes_out, len);
    cr_assert_eq(ddb_sink_flush(s, &err), 0);
    cr_assert_eq(ddb_sink_finish(s, &err), 0, "%s", err.message);
    cr_assert_eq(ddb_sink_write(s, "x", 1, &err), DDB_EINVAL);
    ddb_sink_free(s);
    back = slurp(spath("out.bin"), &got);
    cr_assert_eq(got, len);
    cr_assert_eq(memcmp(back, data, len), 0);
    free(back);
    free(data);
}

Test(sink, atomic_appears_only_on_finish)
{
    size_t len = 1024 * 1024 + 11, got;
    unsigned char *data = pattern(len);
    const char *final = spath("export.json");
    ddb_sink *s;
    ddb_error err;
    char *back;

    cr_assert_eq(ddb_sink_open_file(&s, final, 1, &err), 0, "%s", err.message);
    cr_assert_str_eq(s->name, final);
    write_pieces(s, data, len);
    cr_assert_eq(ddb_sink_flush(s, &err), 0);
    cr_assert_not(exists(final));
    cr_assert_eq(dir_entries(), 1); /* only the temporary file */
    cr_assert_eq(ddb_sink_finish(s, &err), 0, "%s", err.message);
    cr_assert(exists(final));
    cr_assert_eq(dir_entries(), 1); /* the temporary file became the final one */
    back = slurp(final, &got);
    cr_assert_eq(got, len);
    cr_assert_eq(memcmp(back, data, len), 0);
    ddb_sink_free(s);
    cr_assert(exists(final));
    free(back);
    free(data);
}

Test(sink, atomic_replaces_existing_file_only_on_finish)
{
    const char *final = spath("keep.txt");
    FILE *f = fopen(final, "w");
    ddb_sink *s;
    ddb_error err;
    size_t got;
    char *back;
    struct stat st;

    fputs("old content\n", f);
    fclose(f);
    cr_assert_eq(ddb_sink_open_file(&s, final, 1, &err), 0);
    cr_assert_eq(ddb_sink_write(s, "new\n", 4, &err), 0);
    back = slurp(final, &got);
    cr_assert_str_eq(back, "old content\n");
    free(back);
    cr_assert_eq(ddb_sink_finish(s, &err), 0);
    ddb_sink_free(s);
    back = slurp(final, &got);
    cr_assert_str_eq(back, "new\n");
    free(back);
    cr_assert_eq(stat(final, &st), 0);
    {
        mode_t um = umask(0);
        umask(um);
        cr_assert_eq(st.st_mode & 0777, 0644 & ~um, "mode %o", st.st_mode & 0777);
    }
    cr_assert_eq(dir_entries(), 1);
}

Test(sink, atomic_free_without_finish_leaves_nothing)
{
    size_t len = 600 * 1024;
    unsigned char *data = pattern(len);
    ddb_sink *s, *z;
    ddb_error err;

    cr_assert_eq(ddb_sink_open_file(&s, spath("never.json"), 1, &err), 0);
    write_pieces(s, data, len);
    cr_assert_eq(dir_entries(), 1);
    ddb_sink_free(s);
    cr_assert_eq(dir_entries(), 0);

    /* The same through a gzip filter: freeing the chain removes the temporary. */
    cr_assert_eq(ddb_sink_open_file(&s, spath("never.json.gz"), 1, &err), 0);
    cr_assert_eq(ddb_sink_new_gzip(&z, s, 1, &err), 0);
    write_pieces(z, data, len);
    cr_assert_eq(ddb_sink_flush(z, &err), 0);
    cr_assert_eq(dir_entries(), 1);
    ddb_sink_free(z);
    cr_assert_eq(dir_entries(), 0);
    free(data);
}

Test(sink, two_atomic_sinks_on_one_path)
{
    const char *final = spath("same.txt");
    ddb_sink *a, *b;
    ddb_error err;
    size_t got;
    char *back;

    cr_assert_eq(ddb_sink_open_file(&a, final, 1, &err), 0);
    cr_assert_eq(ddb_sink_open_file(&b, final, 1, &err), 0, "%s", err.message);
    cr_assert_eq(dir_entries(), 2);
    cr_assert_eq(ddb_sink_write(a, "A", 1, &err), 0);
    cr_assert_eq(ddb_sink_write(b, "B", 1, &err), 0);
    cr_assert_eq(ddb_sink_finish(b, &err), 0);
    ddb_sink_free(a);
    ddb_sink_free(b);
    back = slurp(final, &got);
    cr_assert_str_eq(back, "B");
    free(back);
    cr_assert_eq(dir_entries(), 1);
}

Test(sink, missing_directory_names_the_path)
{
    ddb_sink *s = (ddb_sink *)1;
    ddb_error err;
    const char *path = spath("no/such/dir/out.json");

    cr_assert_eq(ddb_sink_open_file(&s, path, 1, &err), DDB_EIO);
    cr_assert_null(s);
    cr_assert(strstr(err.message, path) != NULL, "%s", err.message);
    cr_assert(strstr(err.message, "No such file or directory") != NULL, "%s", err.message);
    cr_assert_eq(ddb_sink_open_file(&s, path, 0, &err), DDB_EIO);
    cr_assert(strstr(err.message, path) != NULL, "%s", err.message);
    cr_assert_eq(dir_entries(), 0);
}

Test(sink, full_disk_is_an_error)
{
    ddb_sink *s;
    ddb_error err;
    int rc;

    if (access("/dev/full", W_OK) != 0)
        cr_skip_test("no /dev/full");
    cr_assert_eq(ddb_sink_open_file(&s, "/dev/full", 0, &err), 0, "%s", err.message);
    /* Small writes are buffered; the failure must surface at finish at the latest. */
    cr_assert_eq(ddb_sink_write(s, "data\n", 5, &err), 0);
    rc = ddb_sink_finish(s, &err);
    cr_assert_eq(rc, DDB_EIO);
    cr_assert(strstr(err.message, "/dev/full") != NULL, "%s", err.message);
    cr_assert(strstr(err.message, "No space left on device") != NULL, "%s", err.message);
    /* A failed sink stays failed. */
    cr_assert_eq(ddb_sink_write(s, "x", 1, &err), DDB_EIO);
    cr_assert_eq(ddb_sink_finish(s, &err), DDB_EIO);
    ddb_sink_free(s);

    cr_assert_eq(ddb_sink_open_file(&s, "/dev/full", 0, &err), 0);
    {
        size_t len = 300 * 1024;
        char *big = calloc(1, len);
        cr_assert_eq(ddb_sink_write(s, big, len, &err), DDB_EIO);
        free(big);
    }
    ddb_sink_free(s);
}

Test(sink, stdout_is_named)
{
    ddb_sink *s;
    ddb_error err;

    cr_assert_eq(ddb_sink_open_file(&s, "-", 0, &err), 0);
    cr_assert_str_eq(s->name, "stdout");
    cr_assert_eq(ddb_sink_finish(s, &err), 0);
    ddb_sink_free(s); /* must not close fd 1 */
    cr_assert_eq(write(1, "", 0), 0);
}

/* Decompresses gz with our source; returns the length or the error code. */
static ssize_t gunzip(const char *gz, size_t gzlen, unsigned char *out, size_t cap, ddb_error *err)
{
    ddb_source *m, *z;
    size_t got = 0;
    ssize_t n = 0;
    cr_assert_eq(ddb_source_new_memory(&m, gz, gzlen, NULL, err), 0);
    cr_assert_eq(ddb_source_new_gzip(&z, m, err), 0);
    while (got < cap && (n = ddb_source_read(z, out + got, cap - got, err)) > 0)
        got += (size_t)n;
    ddb_source_free(z);
    return n < 0 ? n : (ssize_t)got;
}

Test(sink, gzip_flush_makes_data_readable)
{
    ddb_sink *m, *z;
    ddb_error err;
    const char *gz;
    size_t gzlen;
    unsigned char out[64];

    cr_assert_eq(ddb_sink_new_memory(&m, &err), 0);
    cr_assert_eq(ddb_sink_new_gzip(&z, m, 0, &err), 0);
    cr_assert_str_eq(z->name, "memory");
    cr_assert_eq(ddb_sink_write(z, "line one\n", 9, &err), 0);
    cr_assert_eq(ddb_sink_flush(z, &err), 0);
    cr_assert_eq(ddb_sink_flush(z, &err), 0); /* nothing new: still fine */
    gz = ddb_sink_memory_data(m, &gzlen);
    cr_assert_gt(gzlen, 10);
    /* No trailer yet: the bytes come out, then the stream is reported cut. */
    {
        ddb_source *src, *gsrc;
        cr_assert_eq(ddb_source_new_memory(&src, gz, gzlen, NULL, &err), 0);
        cr_assert_eq(ddb_source_new_gzip(&gsrc, src, &err), 0);
        cr_assert_eq(ddb_source_read(gsrc, out, sizeof(out), &err), 9);
        cr_assert_eq(memcmp(out, "line one\n", 9), 0);
        cr_assert_eq(ddb_source_read(gsrc, out, sizeof(out), &err), DDB_EIO);
        cr_assert(strstr(err.message, "unexpected end of gzip data") != NULL, "%s", err.message);
        ddb_source_free(gsrc);
    }
    cr_assert_eq(ddb_sink_write(z, "line two\n", 9, &err), 0);
    cr_assert_eq(ddb_sink_finish(z, &err), 0);
    cr_assert_eq(ddb_sink_finish(z, &err), 0); /* idempotent */
    cr_assert_eq(ddb_sink_write(z, "late", 4, &err), DDB_EINVAL);
    gz = ddb_sink_memory_data(m, &gzlen);
    cr_assert_eq(gunzip(gz, gzlen, out, sizeof(out), &err), 18, "%s", err.message);
    cr_assert_eq(memcmp(out, "line one\nline two\n", 18), 0);
    cr_assert_eq(z->bytes_out, 18);
    cr_assert_eq(m->bytes_out, gzlen);
    ddb_sink_free(z);
}

Test(sink, gzip_atomic_file_matches_system_zcat)
{
    size_t len = 4 * 1024 * 1024 + 1, got;
    unsigned char *data = pattern(len);
    const char *final = spath("out.json.gz");
    ddb_sink *f, *z;
    ddb_error err;
    char cmd[512], *back;

    cr_assert_eq(ddb_sink_open_file(&f, final, 1, &err), 0);
    cr_assert_eq(ddb_sink_new_gzip(&z, f, 9, &err), 0);
    write_pieces(z, data, len);
    cr_assert_not(exists(final));
    cr_assert_eq(ddb_sink_finish(z, &err), 0, "%s", err.message);
    cr_assert(exists(final));
    ddb_sink_free(z);
    snprintf(cmd, sizeof(cmd), "zcat '%s' > '%s'", final, spath("plain"));
    cr_assert_eq(system(cmd), 0);
    back = slurp(spath("plain"), &got);
    cr_assert_eq(got, len);
    cr_assert_eq(memcmp(back, data, len), 0);
    free(back);
    free(data);
}

Test(sink, gzip_bad_level_frees_upstream)
{
    ddb_sink *m, *z = (ddb_sink *)1;
    ddb_error err;

    cr_assert_eq(ddb_sink_new_memory(&m, &err), 0);
    cr_assert_eq(ddb_sink_new_gzip(&z, m, 10, &err), DDB_EINVAL);
    cr_assert_null(z);
    cr_assert_null(ddb_sink_memory_data(NULL, NULL));
}

/* A folder of new files written plainly, then made durable together. */
Test(sink, dir_sync_syncs_a_folder_of_new_files)
{
    char dir[] = "/tmp/ddb-dirsync-XXXXXX";
    char path[64], got[16] = "";
    ddb_error err;
    FILE *f;
    cr_assert_not_null(mkdtemp(dir));
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof(path), "%s/f%d.txt", dir, i);
        cr_assert_eq(ddb_file_write(path, "hello", 5, &err), 0, "%s", err.message);
    }
    cr_assert_eq(ddb_dir_sync(dir, &err), 0, "%s", err.message);
    snprintf(path, sizeof(path), "%s/f2.txt", dir);
    cr_assert_not_null(f = fopen(path, "r"));
    cr_assert_eq(fread(got, 1, sizeof(got) - 1, f), 5);
    fclose(f);
    cr_assert_str_eq(got, "hello");
    ddb_remove_dir(dir);
    cr_assert_eq(ddb_dir_sync(dir, &err), DDB_EIO, "a folder that is gone");
    cr_assert(strstr(err.message, dir) != NULL, "%s", err.message);
}

/* Writing behind: pieces of uneven sizes, each buffer handed over whole,
 * arrive in order; what comes back to the caller is empty. */
Test(sink, behind_keeps_order)
{
    size_t len = 5u << 20, off = 0, k = 0, got;
    unsigned char *data = pattern(len);
    ddb_sink *s;
    ddb_sink_behind *b;
    ddb_buf buf = {0};
    ddb_error err;

    cr_assert_eq(ddb_sink_new_memory(&s, &err), 0);
    cr_assert_eq(ddb_sink_behind_start(&b, s, &err), 0, "%s", err.message);
    while (off < len) {
        size_t n = (k++ * 7919) % 300000 + 1;
        if (n > len - off)
            n = len - off;
        cr_assert_eq(ddb_buf_append(&buf, data + off, n), 0);
        off += n;
        cr_assert_eq(ddb_sink_behind_swap(b, &buf, &err), 0, "%s", err.message);
        cr_assert_eq(buf.len, 0, "a buffer came back holding bytes");
    }
    cr_assert_eq(ddb_sink_behind_swap(b, &buf, &err), 0); /* nothing: nothing queued */
    cr_assert_eq(ddb_sink_behind_end(b, &err), 0, "%s", err.message);
    cr_assert_eq(ddb_sink_behind_end(NULL, &err), 0);
    cr_assert_eq(memcmp(ddb_sink_memory_data(s, &got), data, len), 0, "bytes out of order");
    cr_assert_eq(got, len);
    ddb_buf_dispose(&buf);
    ddb_sink_free(s);
    free(data);
}

/* A sink that takes `left` writes, then fails. */
typedef struct failing_sink {
    ddb_sink base;
    int left;
    size_t bytes;
} failing_sink;

static int failing_write(ddb_sink *s, const void *buf, size_t len, ddb_error *err)
{
    failing_sink *f = (failing_sink *)s;
    (void)buf;
    if (f->left-- <= 0)
        return ddb_error_set(err, DDB_EIO, "%s: the disk is full", s->name);
    f->bytes += len;
    return 0;
}

static void failing_free(ddb_sink *s)
{
    (void)s;
}

static const ddb_sink_vtable failing_vt = {.write = failing_write, .free = failing_free};

/* A write that fails behind: a later swap, or the end, says so with the
 * sink's message, and nothing after it is written. */
Test(sink, behind_failure_is_sticky)
{
    failing_sink f = {{&failing_vt, NULL, (char *)"out.csv", 0}, 3, 0};
    ddb_sink_behind *b;
    ddb_buf buf = {0};
    ddb_error err;
    int rc = 0, swaps = 0;

    cr_assert_eq(ddb_sink_behind_start(&b, &f.base, &err), 0);
    while (rc == 0 && swaps < 1000) {
        cr_assert_eq(ddb_buf_append(&buf, "0123456789", 10), 0);
        rc = ddb_sink_behind_swap(b, &buf, &err);
        swaps++;
    }
    cr_assert_eq(rc, DDB_EIO, "no swap reported the failed write");
    cr_assert(strstr(err.message, "out.csv: the disk is full") != NULL, "%s", err.message);
    cr_assert_eq(buf.len, 0);
    cr_assert_eq(ddb_buf_append(&buf, "x", 1), 0);
    cr_assert_eq(ddb_sink_behind_swap(b, &buf, &err), DDB_EIO);
    memset(&err, 0, sizeof(err));
    cr_assert_eq(ddb_sink_behind_end(b, &err), DDB_EIO);
    cr_assert(strstr(err.message, "the disk is full") != NULL, "%s", err.message);
    cr_assert_eq(f.bytes, 30, "%zu bytes written, not the three writes before the failure",
                 f.bytes);
    ddb_buf_dispose(&buf);
}

/* An atomic file not yet finished can be emptied and written again: what
 * appears is only what came after. Partial files, gzip, standard output
 * cannot, and are left as they were. */
Test(sink, rewind_an_atomic_file)
{
    char *path = spath("rewound.csv"), *part = spath("part.csv"), *ppart = spath(".part.csv.p");
    ddb_sink *s, *p, *gz, *out, *mem;
    ddb_error err;
    size_t len;
    char *got;
    unsigned char *big = pattern(600000);

    cr_assert_eq(ddb_sink_open_file(&s, path, 1, &err), 0, "%s", err.message);
    cr_assert(ddb_sink_can_rewind(s));
    write_pieces(s, big, 600000); /* past the buffer: some of it in the file */
    cr_assert_eq(ddb_sink_rewind(s, &err), 0, "%s", err.message);
    cr_assert_eq(s->bytes_out, 0);
    cr_assert_eq(ddb_sink_write(s, "second\n", 7, &err), 0);
    cr_assert_eq(ddb_sink_finish(s, &err), 0, "%s", err.message);
    cr_assert(!ddb_sink_can_rewind(s), "a finished file");
    ddb_sink_free(s);
    got = slurp(path, &len);
    cr_assert(len == 7 && memcmp(got, "second\n", 7) == 0, "%zu bytes", len);
    free(got);

    cr_assert_eq(ddb_sink_open_partial(&p, part, ppart, 0, 0, &err), 0, "%s", err.message);
    cr_assert_eq(ddb_sink_write(p, "kept", 4, &err), 0);
    cr_assert(!ddb_sink_can_rewind(p));
    cr_assert_eq(ddb_sink_rewind(p, &err), DDB_EUSAGE);
    cr_assert_eq(p->bytes_out, 4);
    cr_assert_eq(ddb_sink_open_file(&out, "-", 0, &err), 0);
    cr_assert(!ddb_sink_can_rewind(out));
    cr_assert_eq(ddb_sink_new_memory(&mem, &err), 0);
    cr_assert_eq(ddb_sink_new_gzip(&gz, mem, 1, &err), 0);
    cr_assert(!ddb_sink_can_rewind(gz));
    cr_assert_eq(ddb_sink_new_memory(&mem, &err), 0);
    cr_assert_eq(ddb_sink_write(mem, "abc", 3, &err), 0);
    cr_assert_eq(ddb_sink_rewind(mem, &err), 0);
    cr_assert_eq(ddb_sink_write(mem, "d", 1, &err), 0);
    cr_assert_str_eq(ddb_sink_memory_data(mem, &len), "d");
    ddb_sink_free(mem);
    ddb_sink_free(gz);
    ddb_sink_free(out);
    ddb_sink_free(p);
    free(big);
}
