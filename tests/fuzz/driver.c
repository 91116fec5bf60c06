/*
 * driver.c — runs a fuzz harness over inputs without libFuzzer: every file
 * named on the command line, and every file in every folder named (sorted,
 * not recursive), once each. Linked with each harness for the suite (label
 * fuzz): the corpora in tests/fuzz/corpus/ are regression tests, run under
 * AddressSanitizer and UndefinedBehaviorSanitizer by scripts/test.sh.
 */
#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>

#include "fuzz.h"

__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    unsigned char *data = NULL;
    size_t len = 0, cap = 0, n;
    if (f == NULL) {
        fprintf(stderr, "driver: cannot open %s: %s\n", path, strerror(errno));
        return -1;
    }
    do {
        if (len == cap) {
            unsigned char *nd = realloc(data, cap = cap ? cap * 2 : 65536);
            if (nd == NULL) {
                fprintf(stderr, "driver: out of memory\n");
                abort();
            }
            data = nd;
        }
        n = fread(data + len, 1, cap - len, f);
        len += n;
    } while (n > 0);
    fclose(f);
    LLVMFuzzerTestOneInput(data, len);
    free(data);
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_dir(const char *dir, size_t *count)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    if (d == NULL) {
        fprintf(stderr, "driver: cannot open %s: %s\n", dir, strerror(errno));
        return -1;
    }
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap && (names = realloc(names, (cap = cap ? cap * 2 : 64) * sizeof(*names))) == NULL)
            abort();
        names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof(*names), by_name);
    for (size_t i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
        if (run_file(path) != 0)
            rc = -1;
        else
            (*count)++;
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    size_t count = 0;
    int rc = 0;
    LLVMFuzzerInitialize(&argc, &argv);
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode))
            rc |= run_dir(argv[i], &count);
        else if (run_file(argv[i]) == 0)
            count++;
        else
            rc = -1;
    }
    if (count == 0) {
        fprintf(stderr, "driver: no inputs\n");
        return 1;
    }
    printf("%s: %zu inputs ran\n", argv[0], count);
    return rc == 0 ? 0 : 1;
}
