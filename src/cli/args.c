/* Option parsing shared by all commands: --name value, --name=value, flags. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ddbpipe/text.h"

void cli_error(const char *hint, const char *fmt, ...)
{
    va_list ap;
    fputs("ddbpipe: error: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    if (hint != NULL)
        fprintf(stderr, "hint: %s\n", hint);
}

/* The AWS CLI's spellings of our options, for "did you mean". */
static const char *aws_cli_spelling(const char *a, size_t n)
{
    static const char *const pairs[][2] = {{"table-name", "table"},
                                           {"endpoint", "endpoint-url"},
                                           {"output", "format"},
                                           {"max-items", "page-size"},
                                           {"total-segments", "segments"},
                                           {"segment", "segment-range"},
                                           {"consistent", "consistent-read"},
                                           {"cli-read-timeout", "request-timeout"}};
    for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++)
        if (strlen(pairs[i][0]) == n && strncmp(pairs[i][0], a, n) == 0)
            return pairs[i][1];
    return NULL;
}

static int set_value(const cli_command *cmd, const cli_opt *o, const char *v)
{
    char *end;
    switch (o->kind) {
    case OPT_STRING:
        /* a mapping may be named by a shipped one's name: --mapping favorites */
        if (strcmp(o->name, "mapping") == 0 || strcmp(o->name, "to-mapping") == 0)
            v = cli_mapping_path(v);
        *(const char **)o->target = v;
        return 0;
    case OPT_UINT: {
        unsigned long long n;
        if (v[0] == '-' || v[0] == '\0')
            goto bad;
        n = strtoull(v, &end, 10);
        if (*end != '\0')
            goto bad;
        *(uint64_t *)o->target = n;
        return 0;
    }
    case OPT_CHAR:
        return cli_parse_delimiter(v, (char *)o->target);
    default:
        return 0;
    }
bad : {
    char hint[128];
    snprintf(hint, sizeof(hint), "see ddbpipe %s --help", cmd->name);
    cli_error(hint, "--%s needs a non-negative whole number, not \"%s\"", o->name, v);
}
    return EXIT_USAGE;
}

int cli_parse(int argc, char **argv, const cli_command *cmd, const cli_opt *opts, const char ***pos,
              size_t *npos, int *help)
{
    const char **p = calloc((size_t)argc + 1, sizeof(char *));
    size_t n = 0;
    int only_pos = 0;
    char hint[160];

    *help = 0;
    if (p == NULL)
        return EXIT_USAGE;
    snprintf(hint, sizeof(hint), "see ddbpipe %s --help", cmd->name);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const cli_opt *o;
        const char *eq, *value = NULL;
        size_t nlen;

        if (only_pos || a[0] != '-' || strcmp(a, "-") == 0) {
            p[n++] = a;
            continue;
        }
        if (strcmp(a, "--") == 0) {
            only_pos = 1;
            continue;
        }
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            *help = 1;
            continue;
        }
        if (a[1] != '-') {
            cli_error(hint, "unknown option %s (options are written --name)", a);
            goto fail;
        }
        a += 2;
        eq = strchr(a, '=');
        nlen = eq ? (size_t)(eq - a) : strlen(a);
        for (o = opts; o->name != NULL; o++)
            if (strlen(o->name) == nlen && strncmp(o->name, a, nlen) == 0)
                break;
        if (o->name == NULL) {
            const cli_opt *best = NULL;
            size_t bd = 99;
            char name[64];
            const char *aws = aws_cli_spelling(a, nlen);
            snprintf(name, sizeof(name), "%.*s", (int)(nlen < 63 ? nlen : 63), a);
            for (const cli_opt *c = opts; c->name != NULL; c++) {
                size_t d = aws && strcmp(aws, c->name) == 0 ? 0 : ddb_text_distance(name, c->name);
                if (d < bd) {
                    bd = d;
                    best = c;
                }
            }
            if (best != NULL && bd <= 2) {
                char sug[160];
                snprintf(sug, sizeof(sug), "did you mean --%s?", best->name);
                cli_error(sug, "unknown option --%s for %s", name, cmd->name);
            } else {
                cli_error(hint, "unknown option --%s for %s", name, cmd->name);
            }
            goto fail;
        }
        if (o->kind == OPT_FLAG) {
            if (eq != NULL) {
                cli_error(hint, "--%s takes no value", o->name);
                goto fail;
            }
            *(int *)o->target = 1;
            continue;
        }
        if (eq != NULL) {
            value = eq + 1;
        } else if (i + 1 < argc) {
            value = argv[++i];
        } else {
            cli_error(hint, "--%s needs a value (%s)", o->name, o->metavar ? o->metavar : "VALUE");
            goto fail;
        }
        if (set_value(cmd, o, value) != 0)
            goto fail;
    }
    *pos = p;
    *npos = n;
    return 0;
fail:
    free(p);
    return EXIT_USAGE;
}

cli_help_form cli_help_as = CLI_HELP_TEXT;
ddb_buf cli_help_options = DDB_BUF_INIT;

void cli_print_help(const cli_command *cmd, const cli_opt *opts)
{
    if (cli_help_as == CLI_HELP_MAN) {
        cli_manual_command(cmd, opts);
        return;
    }
    if (cli_help_as == CLI_HELP_OPTIONS) {
        for (const cli_opt *o = opts; o->name != NULL; o++) {
            ddb_buf_puts(&cli_help_options, "--");
            ddb_buf_puts(&cli_help_options, o->name);
            if (o->metavar != NULL) {
                ddb_buf_putc(&cli_help_options, '=');
                ddb_buf_puts(&cli_help_options, o->metavar);
            }
            ddb_buf_putc(&cli_help_options, '\n');
        }
        return;
    }
    printf("Usage: ddbpipe %s\n\n%s\n", cmd->usage, cmd->description);
    printf("\nOptions:\n");
    for (const cli_opt *o = opts; o->name != NULL; o++) {
        char left[64];
        snprintf(left, sizeof(left), "--%s%s%s", o->name, o->metavar ? " " : "",
                 o->metavar ? o->metavar : "");
        printf("  %-26s %s\n", left, o->help);
    }
    printf("  %-26s %s\n", "--help", "show this help");
}

int cli_parse_delimiter(const char *s, char *out)
{
    if (strcmp(s, ",") == 0 || strcmp(s, "comma") == 0)
        *out = ',';
    else if (strcmp(s, "\t") == 0 || strcmp(s, "tab") == 0 || strcmp(s, "\\t") == 0)
        *out = '\t';
    else if (strcmp(s, ";") == 0 || strcmp(s, "semicolon") == 0)
        *out = ';';
    else if (strcmp(s, "|") == 0 || strcmp(s, "pipe") == 0)
        *out = '|';
    else {
        cli_error("use one of: , tab ; |", "unsupported delimiter \"%s\"", s);
        return EXIT_USAGE;
    }
    return 0;
}

void cli_report(void *ctx, int severity, const char *msg)
{
    (void)ctx;
    fprintf(stderr, "%s%s\n",
            severity == DDB_REPORT_ERROR     ? "ddbpipe: "
            : severity == DDB_REPORT_WARNING ? "ddbpipe: warning: "
                                             : "ddbpipe: ",
            msg);
}

const cli_command *cli_find_command(const char *name)
{
    for (size_t i = 0; i < cli_n_commands; i++)
        if (strcmp(cli_commands[i].name, name) == 0)
            return &cli_commands[i];
    return NULL;
}
