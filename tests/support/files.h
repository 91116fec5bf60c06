/* Temporary folders and files for the Criterion suites (header-only, test
 * code only). A suite makes its folder in .init with tu_mkdtemp() and removes
 * it in .fini with tu_rmtree(). */
#ifndef DDB_TU_FILES_H
#define DDB_TU_FILES_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "ddbpipe/arena.h"

/* Makes a fresh folder from tmpl ("/tmp/ddb-NAME-XXXXXX") into dir. */
static inline void tu_mkdtemp(char *dir, size_t cap, const char *tmpl)
{
    cr_assert_lt(strlen(tmpl), cap);
    strcpy(dir, tmpl);
    cr_assert_not_null(mkdtemp(dir), "%s", tmpl);
}

static inline void tu_rmtree(const char *dir)
{
    char cmd[512];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
}

/* dir/name in one of 16 rotating buffers (so several can be used together). */
static inline const char *tu_path(const char *dir, const char *name)
{
    static char p[16][256];
    static int i;
    i = (i + 1) % 16;
    snprintf(p[i], sizeof(p[i]), "%s/%s", dir, name);
    return p[i];
}

/* Writes text to dir/name; returns the path (a tu_path buffer). */
static inline const char *tu_put_file(const char *dir, const char *name, const char *text)
{
    const char *path = tu_path(dir, name);
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "%s", path);
    cr_assert_eq(fwrite(text, 1, strlen(text), f), strlen(text));
    cr_assert_eq(fclose(f), 0);
    return path;
}

/* Writes n bytes to dir/name; returns the path (a tu_path buffer). */
static inline const char *tu_put_bytes(const char *dir, const char *name, const void *bytes,
                                       size_t n)
{
    const char *path = tu_path(dir, name);
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "%s", path);
    cr_assert_eq(fwrite(bytes, 1, n, f), n);
    cr_assert_eq(fclose(f), 0);
    return path;
}

/* Writes text gzip-compressed to dir/name; returns the path. */
static inline const char *tu_put_gzip(const char *dir, const char *name, const char *text)
{
    const char *path = tu_path(dir, name);
    gzFile g = gzopen(path, "wb");
    cr_assert_not_null(g, "%s", path);
    cr_assert_eq(gzwrite(g, text, (unsigned)strlen(text)), (int)strlen(text));
    cr_assert_eq(gzclose(g), Z_OK);
    return path;
}

static inline int tu_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* The whole file, NUL-terminated, malloc'd (free it); *len = its size. */
static inline char *tu_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;
    cr_assert_not_null(f, "%s", path);
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc((size_t)n + 1);
    cr_assert_not_null(buf);
    cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return buf;
}

/* The same, as a NUL-terminated copy in arena a. */
static inline char *tu_slurp_in(ddb_arena *a, const char *path)
{
    size_t len;
    char *text = tu_slurp(path, &len);
    char *copy = ddb_arena_alloc(a, len + 1);
    cr_assert_not_null(copy);
    memcpy(copy, text, len + 1);
    free(text);
    return copy;
}

#endif
