/*
 * generate: what is not like the other pipeline commands — the --count list
 * and the plan printed before the run. The rest (the generator taking the
 * place of inputs, files, a pipe or a table, progress, summary, --state) is
 * the run plan's (run.h) and cmd_run.c's.
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

int cli_parse_counts(const char *spec, ddb_gen_count **list, size_t *n, char **names)
{
    char *save = NULL, *tok;
    size_t cap = 1;
    int code = EXIT_USAGE;

    *list = NULL;
    *n = 0;
    for (const char *c = spec; *c; c++)
        cap += *c == ',';
    if ((*names = strdup(spec)) == NULL || (*list = calloc(cap, sizeof(**list))) == NULL) {
        cli_error(NULL, "out of memory");
        return EXIT_OUTPUT;
    }
    for (tok = strtok_r(*names, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        ddb_gen_count *c = &(*list)[(*n)++];
        if (eq == NULL) {
            if (parse_count(tok, &c->n) != 0) {
                cli_error("write --count Tag=100,FavoriteData=1k (or a number for every entity)",
                          "bad --count entry \"%s\"", tok);
                goto done;
            }
            continue;
        }
        *eq = '\0';
        c->entity = tok;
        if (parse_count(eq + 1, &c->n) != 0) {
            cli_error("counts are whole numbers, optionally with k, M or G",
                      "bad --count for %s: \"%s\"", tok, eq + 1);
            goto done;
        }
    }
    code = 0;
done:
    return code;
}

void cli_describe_generator(const ddb_generator *g, uint64_t seed)
{
    ddb_buf plan = DDB_BUF_INIT;
    ddb_generator_describe(g, &plan);
    fprintf(stderr, "ddbpipe generate: %llu records, seed %llu\n%s",
            (unsigned long long)ddb_generator_total(g), (unsigned long long)seed,
            plan.ptr ? plan.ptr : "");
    ddb_buf_dispose(&plan);
}
