/*
 * The manual page and the shell completions, made from the commands' own --help (each command
 * is asked for its help in another form, cli_help_as), so that neither can drift from what the
 * tool accepts; and the shipped mappings an installed ddbpipe finds by name.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "ddbpipe/writer.h"

#ifndef DDB_DATADIR
#define DDB_DATADIR "/usr/local/share/ddbpipe"
#endif

/* ------------------------------------------------------------ the mappings */

const char *cli_formats_dir(void)
{
    static char dir[PATH_MAX];
    char exe[PATH_MAX], probe[PATH_MAX + 64];
    ssize_t n;

    if (dir[0] != '\0')
        return dir;
    snprintf(dir, sizeof(dir), "%s/formats", DDB_DATADIR);
    /* beside the binary first: a package unpacked anywhere (dpkg -x), or a prefix moved */
    n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n > 0) {
        char *slash;
        exe[n] = '\0';
        if ((slash = strrchr(exe, '/')) != NULL) {
            *slash = '\0';
            snprintf(probe, sizeof(probe), "%s/../share/ddbpipe/formats", exe);
            if (access(probe, R_OK | X_OK) == 0 && realpath(probe, exe) != NULL)
                snprintf(dir, sizeof(dir), "%s", exe);
        }
    }
    return dir;
}

const char *cli_mapping_path(const char *v)
{
    /* kept for the process's life; reachable, so leak checkers stay quiet */
    static char *found[8];
    static size_t n_found;
    size_t len = strlen(v);
    char *p;

    if (access(v, F_OK) == 0 || strchr(v, '/') != NULL || len == 0 || n_found == 8)
        return v;
    p = malloc(strlen(cli_formats_dir()) + len + 8);
    if (p == NULL)
        return v;
    sprintf(p, "%s/%s%s", cli_formats_dir(), v,
            len > 5 && strcmp(v + len - 5, ".json") == 0 ? "" : ".json");
    if (access(p, R_OK) != 0) {
        free(p);
        return v;
    }
    return found[n_found++] = p;
}

/* ----------------------------------------------------------- manual page */

/* Text into roff: backslashes and hyphens as roff spells them, no line taken for a request. */
static void roff(const char *s)
{
    int line_start = 1;
    for (; *s; s++) {
        if (line_start && (*s == '.' || *s == '\''))
            fputs("\\&", stdout);
        if (*s == '\\')
            fputs("\\e", stdout);
        else if (*s == '-')
            fputs("\\-", stdout);
        else
            putchar(*s);
        line_start = *s == '\n';
    }
}

void cli_manual_command(const cli_command *cmd, const cli_opt *opts)
{
    printf(".SS \"%s\"\n.B ddbpipe\n", cmd->name);
    roff(cmd->usage);
    printf("\n.PP\n");
    roff(cmd->description);
    printf("\n");
    for (const cli_opt *o = opts; o->name != NULL; o++) {
        printf(".TP\n.B \\-\\-");
        roff(o->name);
        if (o->metavar != NULL) {
            printf(" \\fI");
            roff(o->metavar);
            printf("\\fR");
        }
        printf("\n");
        roff(o->help);
        printf("\n");
    }
}

/* Asks the command for its help in the form set by cli_help_as. */
static void ask_help(const cli_command *cmd)
{
    char *argv[] = {(char *)cmd->name, "--help", NULL};
    fflush(stdout);
    cmd->run(2, argv);
}

void cli_print_manual(void)
{
    printf(".TH DDBPIPE 1 \"\" \"ddbpipe %s\" \"User Commands\"\n", DDB_VERSION);
    printf(".SH NAME\nddbpipe \\- move data in and out of DynamoDB single\\-table designs, "
           "exactly\n.SH SYNOPSIS\n");
    for (size_t i = 0; i < cli_n_commands; i++) {
        printf(".B ddbpipe\n");
        roff(cli_commands[i].usage);
        printf("\n.br\n");
    }
    printf(".B ddbpipe\n\\-\\-help | \\-\\-version | \\-\\-completion bash|zsh | \\-\\-manual\n");
    printf(".SH DESCRIPTION\nddbpipe reads DynamoDB items in every form they take (Export to S3 "
           "folders, DynamoDB JSON, AWS CLI output, CSV, NDJSON, a live table), decodes them "
           "into per\\-entity records with a mapping of the table's single\\-table design, "
           "encodes records back into items, and writes files or tables. Numbers keep all 38 "
           "digits, binary stays bytes, and every record read is accounted for as written, "
           "rejected or unmatched.\n.PP\nThe commands:\n");
    for (size_t i = 0; i < cli_n_commands; i++) {
        printf(".TP\n.B %s\n", cli_commands[i].name);
        roff(cli_commands[i].summary);
        printf("\n");
    }
    printf(".SH COMMANDS\n");
    cli_help_as = CLI_HELP_MAN;
    for (size_t i = 0; i < cli_n_commands; i++)
        ask_help(&cli_commands[i]);
    cli_help_as = CLI_HELP_TEXT;
    printf(".SH EXIT STATUS\n");
    for (size_t i = 0; cli_exit_codes[i][0] != NULL; i++) {
        printf(".TP\n.B %s\n", cli_exit_codes[i][0]);
        roff(cli_exit_codes[i][1]);
        printf("\n");
    }
    printf(".SH ENVIRONMENT\n");
    for (size_t i = 0; cli_environment[i][0] != NULL; i++) {
        printf(".TP\n.B ");
        roff(cli_environment[i][0]);
        printf("\n");
        roff(cli_environment[i][1]);
        printf("\n");
    }
    printf(".SH FILES\n.TP\n.I %s/*.json\n", DDB_DATADIR "/formats");
    printf("The shipped mappings (the seed designs and their re\\-keyed layouts): "
           "\\-\\-mapping NAME finds NAME.json there when no file NAME is in the current "
           "folder. The language is described in README.md beside them.\n");
    printf(".SH SEE ALSO\n.BR aws (1)\n");
}

/* ----------------------------------------------------------- completions */

/* The values an option takes, where they are a closed list. */
static const char *option_values(const char *name)
{
    static char formats[64];
    if (strcmp(name, "format") == 0) {
        snprintf(formats, sizeof(formats), "%s %s %s %s", ddb_out_format_name(DDB_OUT_NDJSON),
                 ddb_out_format_name(DDB_OUT_CSV), ddb_out_format_name(DDB_OUT_DDBJSON),
                 ddb_out_format_name(DDB_OUT_PARQUET));
        return formats;
    }
    if (strcmp(name, "input-format") == 0)
        return "ddb-json ndjson csv json scan export dynamodump datapipeline parquet";
    if (strcmp(name, "compression") == 0)
        return "zstd snappy gzip none";
    if (strcmp(name, "progress") == 0)
        return "auto bar log json off";
    if (strcmp(name, "export-view") == 0)
        return "NEW_AND_OLD_IMAGES NEW_IMAGE";
    if (strcmp(name, "export-format") == 0)
        return "DYNAMODB_JSON";
    return NULL;
}

/* What completes the value of one option: 'm' shipped mappings and files, 'v' the values
 * above, 'd' folders, 'f' files, 0 nothing (a name, a number, a URL). */
static char value_kind(const char *name, const char *metavar)
{
    if (strcmp(name, "mapping") == 0 || strcmp(name, "to-mapping") == 0)
        return 'm';
    if (option_values(name) != NULL)
        return 'v';
    if (strcmp(metavar, "DIR") == 0)
        return 'd';
    if (strcmp(metavar, "FILE") == 0 || strcmp(metavar, "MODEL") == 0)
        return 'f';
    return 0;
}

/* The options of cmd, "--name" or "--name=METAVAR" a line, in cli_help_options. */
static const char *options_of(const cli_command *cmd)
{
    ddb_buf_clear(&cli_help_options);
    cli_help_as = CLI_HELP_OPTIONS;
    ask_help(cmd);
    cli_help_as = CLI_HELP_TEXT;
    ddb_buf_putc(&cli_help_options, '\0');
    return cli_help_options.oom ? "" : cli_help_options.ptr;
}

/* Calls each(ctx, name, metavar) for each option of cmd (metavar NULL for flags). */
static void each_option(const cli_command *cmd, void (*each)(void *, const char *, const char *),
                        void *ctx)
{
    char *copy = strdup(options_of(cmd)), *save = NULL;
    for (char *line = copy ? strtok_r(copy, "\n", &save) : NULL; line != NULL;
         line = strtok_r(NULL, "\n", &save)) {
        char *eq = strchr(line, '=');
        if (eq != NULL)
            *eq = '\0';
        each(ctx, line + 2, eq ? eq + 1 : NULL);
    }
    free(copy);
}

static void bash_name(void *ctx, const char *name, const char *metavar)
{
    (void)ctx;
    (void)metavar;
    printf(" --%s", name);
}

static void bash_value(void *ctx, const char *name, const char *metavar)
{
    const char *cmd = ctx;
    char kind = metavar ? value_kind(name, metavar) : 1;
    if (kind == 1)
        return;
    printf("    '%s --%s') ", cmd, name);
    switch (kind) {
    case 'm':
        printf("COMPREPLY=($(compgen -W \"$(_ddbpipe_mappings)\" -- \"$cur\") "
               "$(compgen -f -- \"$cur\"));");
        break;
    case 'v':
        printf("COMPREPLY=($(compgen -W '%s' -- \"$cur\"));", option_values(name));
        break;
    case 'd':
        printf("COMPREPLY=($(compgen -d -- \"$cur\"));");
        break;
    case 'f':
        printf("COMPREPLY=($(compgen -f -- \"$cur\"));");
        break;
    default:
        break;
    }
    printf(" return ;;\n");
}

static void print_bash(void)
{
    printf("# bash completion for ddbpipe %s -*- shell-script -*-\n"
           "# Made by 'ddbpipe --completion bash' from the commands' own options.\n\n",
           DDB_VERSION);
    printf("_ddbpipe_mappings()\n{\n    local d f\n"
           "    for d in \"$(dirname \"$(command -v ddbpipe 2>/dev/null || echo .)\")/../share/"
           "ddbpipe/formats\" '%s/formats'; do\n"
           "        for f in \"$d\"/*.json; do\n"
           "            [ -e \"$f\" ] || continue\n"
           "            f=${f##*/}\n            printf '%%s\\n' \"${f%%.json}\"\n"
           "        done\n    done\n}\n\n",
           DDB_DATADIR);
    printf("_ddbpipe()\n{\n    local cur=${COMP_WORDS[COMP_CWORD]} "
           "prev=${COMP_WORDS[COMP_CWORD-1]} cmd=${COMP_WORDS[1]} opts\n"
           "    COMPREPLY=()\n    if [ \"$COMP_CWORD\" -eq 1 ]; then\n"
           "        COMPREPLY=($(compgen -W '");
    for (size_t i = 0; i < cli_n_commands; i++)
        printf("%s ", cli_commands[i].name);
    printf("--help --version --completion --manual' -- \"$cur\"))\n        return\n    fi\n");
    printf("    case \"$cmd $prev\" in\n    '--completion --completion') "
           "COMPREPLY=($(compgen -W 'bash zsh' -- \"$cur\")); return ;;\n");
    for (size_t i = 0; i < cli_n_commands; i++)
        each_option(&cli_commands[i], bash_value, (void *)cli_commands[i].name);
    printf("    esac\n    case $cmd in\n");
    for (size_t i = 0; i < cli_n_commands; i++) {
        printf("    %s) opts='", cli_commands[i].name);
        each_option(&cli_commands[i], bash_name, NULL);
        printf(" --help' ;;\n");
    }
    printf("    *) return ;;\n    esac\n"
           "    if [[ $cur == -* ]]; then\n"
           "        COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n    else\n"
           "        COMPREPLY=($(compgen -f -- \"$cur\"))\n    fi\n}\n"
           "complete -o filenames -o bashdefault -F _ddbpipe ddbpipe\n");
}

/* zsh: text inside '...' of an _arguments spec: no quote, bracket or colon unescaped. */
static void zsh_text(const char *s, size_t max)
{
    for (size_t i = 0; s[i] && i < max; i++) {
        if (s[i] == '\'')
            fputs("'\\''", stdout);
        else if (s[i] == ':' || s[i] == '[' || s[i] == ']')
            printf("\\%c", s[i]);
        else
            putchar(s[i] == '\n' ? ' ' : s[i]);
    }
}

static void zsh_option(void *ctx, const char *name, const char *metavar)
{
    (void)ctx;
    printf(" \\\n        '--%s", name);
    if (metavar == NULL) {
        printf("'");
        return;
    }
    printf(":");
    zsh_text(metavar, 40);
    switch (value_kind(name, metavar)) {
    case 'm':
        printf(":_ddbpipe_mappings'");
        break;
    case 'v':
        printf(":(%s)'", option_values(name));
        break;
    case 'd':
        printf(":_files -/'");
        break;
    case 'f':
        printf(":_files'");
        break;
    default:
        printf(": '");
        break;
    }
}

static void print_zsh(void)
{
    printf("#compdef ddbpipe\n# zsh completion for ddbpipe %s\n"
           "# Made by 'ddbpipe --completion zsh' from the commands' own options.\n\n",
           DDB_VERSION);
    printf("_ddbpipe_mappings() {\n  local -a names\n"
           "  names=( ${${commands[ddbpipe]:-.}:h}/../share/ddbpipe/formats/*.json(N:t:r) "
           "'%s'/formats/*.json(N:t:r) )\n"
           "  _describe 'shipped mapping' names\n  _files -g '*.json'\n}\n\n",
           DDB_DATADIR);
    printf("_ddbpipe() {\n  local -a cmds\n  cmds=(\n");
    for (size_t i = 0; i < cli_n_commands; i++) {
        printf("    '%s:", cli_commands[i].name);
        zsh_text(cli_commands[i].summary, 200);
        printf("'\n");
    }
    printf("  )\n  if (( CURRENT == 2 )); then\n    _describe 'command' cmds\n"
           "    compadd -- --help --version --completion --manual\n    return\n  fi\n"
           "  case ${words[2]} in\n    --completion) compadd bash zsh ;;\n");
    for (size_t i = 0; i < cli_n_commands; i++) {
        printf("    %s)\n      _arguments -S", cli_commands[i].name);
        each_option(&cli_commands[i], zsh_option, NULL);
        printf(" \\\n        '--help' '*:input:_files' ;;\n");
    }
    printf("  esac\n}\n\n_ddbpipe \"$@\"\n");
}

int cli_print_completion(const char *shell)
{
    if (strcmp(shell, "bash") == 0)
        print_bash();
    else if (strcmp(shell, "zsh") == 0)
        print_zsh();
    else {
        cli_error("ddbpipe --completion bash (or zsh)", "no completion for the shell \"%s\"",
                  shell);
        return EXIT_USAGE;
    }
    ddb_buf_dispose(&cli_help_options);
    return EXIT_OK;
}
