/*
 * ddbpipe-gen: deterministic sample data for ddbpipe's designs.
 *
 *   ddbpipe-gen export   --mapping M --design D --items N --out DIR [...]
 *   ddbpipe-gen seed-csv --mapping M --design D --records N --out DIR
 *   ddbpipe-gen bench    --mapping M --bytes 1G --out FILE.json.gz
 *   ddbpipe-gen repeat-export --from EXPORT_DIR --key NAME --bytes 400M --out DIR
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

static void usage(FILE *f)
{
    fprintf(f,
            "ddbpipe-gen — deterministic test data for ddbpipe's single-table designs.\n\n"
            "Usage:\n"
            "  ddbpipe-gen export   --mapping M [--design D] --items N --out DIR [--files K]\n"
            "                       [--seed S] [--unmatched U] [--invalid V] [--export-id ID]\n"
            "                       [--whole-collections]\n"
            "      An Export to S3 folder DIR/AWSDynamoDB/<exportId>/ (manifests, MD5s,\n"
            "      gzip data files) with N entity items, U items no entity matches and V\n"
            "      invalid lines.\n"
            "  ddbpipe-gen seed-csv --mapping M [--design D] --records N --out DIR [--seed S]\n"
            "                       [--whole-collections]\n"
            "      Per-entity CSV files DIR/<Entity>.csv with N records in all (declared\n"
            "      fields only), ready for `ddbpipe encode`.\n"
            "  ddbpipe-gen bench    --mapping M [--design D] (--bytes SIZE | --items N)\n"
            "                       --out FILE.json.gz [--seed S] [--level L] [--rich]\n"
            "      One large gzip file of {\"Item\":...} lines (SIZE uncompressed: 512M, 1G).\n"
            "      --rich (favorites): every item also carries undeclared attributes (a nested\n"
            "      map with a 30-digit number and a list of BOOL/NULL/B, a string set,\n"
            "      binary, 38-digit numbers), as real tables do.\n"
            "  ddbpipe-gen repeat-export --from EXPORT_DIR --key NAME (--bytes SIZE | --copies K)\n"
            "                       --out DIR\n"
            "      A real Export to S3 folder (EXPORT_DIR holds its manifest-files.json and\n"
            "      data/) copied K times over into the same layout, DIR/AWSDynamoDB/<id>/:\n"
            "      copy k > 0 of an item has \"k~\" before its partition key NAME (a string,\n"
            "      the line's first attribute), so every item is distinct.\n\n"
            "--whole-collections: after N items/records, finish the collection in progress\n"
            "(a user's tags and favorites, a movie with its cast, a facility's 7 weekdays)\n"
            "so the count may end a little above N.\n\n"
            "Designs: %s (default: the mapping file's name).\n"
            "The same arguments always give the same bytes.\n",
            gen_design_names());
}

void gen_fail(const char *fmt, ...)
{
    va_list ap;
    fputs("ddbpipe-gen: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

int gen_parse_u64(uint64_t *out, const char *s, int allow_suffix)
{
    uint64_t v = 0, mul = 1;
    const char *p = s;

    if (s == NULL || *s < '0' || *s > '9')
        return -1;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (v > (UINT64_MAX - 9) / 10)
            return -1;
        v = v * 10 + (uint64_t)(*p - '0');
    }
    if (*p != '\0') {
        if (!allow_suffix || p[1] != '\0')
            return -1;
        switch (*p) {
        case 'K':
        case 'k':
            mul = 1ull << 10;
            break;
        case 'M':
        case 'm':
            mul = 1ull << 20;
            break;
        case 'G':
        case 'g':
            mul = 1ull << 30;
            break;
        case 'T':
        case 't':
            mul = 1ull << 40;
            break;
        default:
            return -1;
        }
    }
    if (v > UINT64_MAX / mul)
        return -1;
    *out = v * mul;
    return 0;
}

int gen_parse_opts(int argc, char **argv, const gen_opt *opts, size_t n, const char *use)
{
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i], *eq, *val;
        size_t name_len, k;

        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            printf("Usage: %s\n", use);
            return 1;
        }
        eq = strchr(arg, '=');
        name_len = eq ? (size_t)(eq - arg) : strlen(arg);
        for (k = 0; k < n; k++)
            if (strlen(opts[k].name) == name_len && strncmp(opts[k].name, arg, name_len) == 0)
                break;
        if (k == n) {
            gen_fail("unknown option \"%s\"\nUsage: %s", arg, use);
            return 2;
        }
        if (opts[k].flag) {
            if (eq) {
                gen_fail("%s takes no value\nUsage: %s", opts[k].name, use);
                return 2;
            }
            val = "1";
        } else if (eq) {
            val = eq + 1;
        } else if (i + 1 < argc) {
            val = argv[++i];
        } else {
            gen_fail("%s needs a value\nUsage: %s", opts[k].name, use);
            return 2;
        }
        *opts[k].value = val;
    }
    return 0;
}

const char *gen_pick_design(const char *design, const char *mapping_path)
{
    static const char *const known[] = {"favorites", "movies", "facility-capacity"};
    const char *base;
    size_t len;

    if (design != NULL)
        return design;
    base = strrchr(mapping_path, '/');
    base = base ? base + 1 : mapping_path;
    len = strlen(base);
    if (len > 5 && strcmp(base + len - 5, ".json") == 0)
        len -= 5;
    /* "favorites.json", and variants of a design such as "favorites-v2.json" */
    for (size_t i = 0; i < GEN_COUNT(known); i++) {
        size_t k = strlen(known[i]);
        if (k <= len && strncmp(known[i], base, k) == 0 && (k == len || base[k] == '-'))
            return known[i];
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "export") == 0)
        return gen_cmd_export(argc - 2, argv + 2);
    if (strcmp(argv[1], "seed-csv") == 0)
        return gen_cmd_seed_csv(argc - 2, argv + 2);
    if (strcmp(argv[1], "bench") == 0)
        return gen_cmd_bench(argc - 2, argv + 2);
    if (strcmp(argv[1], "repeat-export") == 0)
        return gen_cmd_repeat_export(argc - 2, argv + 2);
    gen_fail("unknown command \"%s\" (export, seed-csv, bench, repeat-export)", argv[1]);
    return 2;
}
