/*
 * fuzz.h — shared by the fuzz harnesses (tests/fuzz/fuzz_*.c). Each harness
 * defines LLVMFuzzerTestOneInput; it is linked either with libFuzzer
 * (scripts/fuzz.sh, clang) or with driver.c, which runs a corpus once (the
 * regression test in the suite). A harness must never leak or keep state
 * between inputs, and checks its own invariants with FUZZ_CHECK (abort).
 */
#ifndef DDB_FUZZ_H
#define DDB_FUZZ_H

#include <dirent.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* An invariant of the code under test: a violation is a finding. */
#define FUZZ_CHECK(cond, ...)                                                                      \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "fuzz check failed at %s:%d: %s: ", __FILE__, __LINE__, #cond);       \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

static char fuzz_dir[256];

/* Removes path and, for a folder, what is in it (one level of subfolders is
 * all the harnesses make). */
/* A call whose failure is as good an outcome as its success here: only
 * crashes and sanitizer findings count. */
static inline void fuzz_either(int rc)
{
    (void)rc;
}

static inline void fuzz_remove(const char *path, int depth)
{
    DIR *d = depth < 3 ? opendir(path) : NULL;
    struct dirent *e;
    while (d != NULL && (e = readdir(d)) != NULL) {
        char sub[1024];
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
        fuzz_remove(sub, depth + 1);
    }
    if (d != NULL) {
        closedir(d);
        rmdir(path);
    } else {
        unlink(path);
    }
}

static inline void fuzz_remove_scratch(void)
{
    if (fuzz_dir[0] != '\0')
        fuzz_remove(fuzz_dir, 0);
}

/* A private scratch folder for harnesses whose code under test reads files:
 * made once per process, removed at exit. Returns its path. */
static inline const char *fuzz_scratch_dir(void)
{
    if (fuzz_dir[0] == '\0') {
        const char *t = getenv("TMPDIR");
        snprintf(fuzz_dir, sizeof(fuzz_dir), "%s/ddbpipe-fuzz.XXXXXX", t && *t ? t : "/tmp");
        if (mkdtemp(fuzz_dir) == NULL) {
            perror("mkdtemp");
            abort();
        }
        atexit(fuzz_remove_scratch);
    }
    return fuzz_dir;
}

/* Writes data to DIR/name (replacing it); returns the path (static buffer per
 * name slot 0..3). */
static inline const char *fuzz_write_file(int slot, const char *name, const void *data,
                                          size_t size)
{
    static char paths[4][512];
    FILE *f;
    snprintf(paths[slot], sizeof(paths[slot]), "%s/%s", fuzz_scratch_dir(), name);
    if ((f = fopen(paths[slot], "wb")) == NULL || (size && fwrite(data, 1, size, f) != size) ||
        fclose(f) != 0) {
        perror(paths[slot]);
        abort();
    }
    return paths[slot];
}

#endif
