/*
 * generate: the part that is not a pipeline command like the others — the
 * --count list and the generator reader that takes the place of inputs. The
 * rest (files or a table, progress, summary, --state) is run_command's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ddbpipe/generate.h"
#include "run_support.h"

/* "1000", "10k", "2M": decimal multiples. Returns 0 or -1. */
static int parse_count(const char *s, uint64_t *out)
{
    char *end;
    unsigned long long v;
    uint64_t mul = 1;
    if (*s < '0' || *s > '9')
        return -1;
    v = strtoull(s, &end, 10);
    if (*end == 'k' || *end == 'K')
        mul = 1000;
    else if (*end == 'm' || *end == 'M')
        mul = 1000000;
    else if (*end == 'g' || *end == 'G')
        mul = 1000000000;
    if (mul != 1)
        end++;
    if (*end != '\0' || v > UINT64_MAX / mul)
        return -1;
    *out = (uint64_t)v * mul;
    return 0;
}

/* --count Tag=100,FavoriteData=1k or a bare number for every entity not named. */
static int parse_counts(const char *spec, const ddb_mapping *m, uint64_t *counts)
{
    char *copy = strdup(spec), *save = NULL, *tok;
    uint64_t all = 0;
    int have_all = 0, code = EXIT_USAGE;
    unsigned char *named = calloc(m->n_entities + 1, 1);

    if (copy == NULL || named == NULL)
        goto done;
    for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        const ddb_entity *e;
        uint64_t n;
        if (eq == NULL) {
            if (parse_count(tok, &all) != 0) {
                cli_error("write --count Tag=100,FavoriteData=1k (or a number for every entity)",
                          "bad --count entry \"%s\"", tok);
                goto done;
            }
            have_all = 1;
            continue;
        }
        *eq = '\0';
        if ((e = ddb_mapping_entity(m, tok)) == NULL) {
            cli_error("the entity names are the \"name\" of each entity in the mapping",
                      "--count names \"%s\", which is not an entity of %s", tok, m->path);
            goto done;
        }
        if (parse_count(eq + 1, &n) != 0) {
            cli_error("counts are whole numbers, optionally with k, M or G",
                      "bad --count for %s: \"%s\"", tok, eq + 1);
            goto done;
        }
        counts[e - m->entities] = n;
        named[e - m->entities] = 1;
    }
    for (size_t i = 0; i < m->n_entities; i++)
        if (!named[i])
            counts[i] = have_all ? all : 0;
    code = 0;
done:
    free(copy);
    free(named);
    return code;
}

int cli_generator_open(ddb_generator **gen, ddb_reader **reader, const ddb_mapping *m,
                       const run_args *a)
{
    uint64_t *counts = calloc(m->n_entities + 1, sizeof(uint64_t));
    ddb_error err;
    int code = EXIT_USAGE;

    *gen = NULL;
    *reader = NULL;
    if (counts == NULL || parse_counts(a->count, m, counts) != 0)
        goto done;
    if (ddb_generator_new(gen, m, counts, a->seed, &err) != 0) {
        cli_error("see formats/README.md for \"generate\", and ddbpipe generate --help", "%s",
                  err.message);
        code = err.code == DDB_ENOMEM ? EXIT_OUTPUT : EXIT_USAGE;
        goto done;
    }
    if (ddb_reader_new_generator(reader, *gen, &err) != 0) {
        cli_error(NULL, "%s", err.message);
        code = EXIT_OUTPUT;
        goto done;
    }
    if (!a->quiet) {
        ddb_buf plan = DDB_BUF_INIT;
        ddb_generator_describe(*gen, &plan);
        fprintf(stderr, "ddbpipe generate: %llu records, seed %llu\n%s",
                (unsigned long long)ddb_generator_total(*gen), (unsigned long long)a->seed,
                plan.ptr ? plan.ptr : "");
        ddb_buf_dispose(&plan);
    }
    code = 0;
done:
    free(counts);
    return code;
}
