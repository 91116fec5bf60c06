/* mapping-from-workbench: a mapping drafted from a NoSQL Workbench model. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ddbpipe/sink.h"
#include "ddbpipe/workbench.h"

int cmd_mapping_from_workbench(int argc, char **argv)
{
    const cli_command *cmd = cli_find_command("mapping-from-workbench");
    const char *table = NULL, *out = NULL, **pos = NULL;
    size_t npos = 0;
    int help = 0, code;
    ddb_buf mapping = DDB_BUF_INIT, notes = DDB_BUF_INIT;
    ddb_sink *sink = NULL;
    ddb_error err;
    cli_opt opts[] = {
        {"table", OPT_STRING, &table, "NAME", "the model's table to draft (default: its only one)"},
        {"out", OPT_STRING, &out, "FILE", "write the mapping to FILE (default: standard output)"},
        {NULL, OPT_FLAG, NULL, NULL, NULL},
    };
    if ((code = cli_parse(argc, argv, cmd, opts, &pos, &npos, &help)) != 0)
        goto done;
    if (help) {
        cli_print_help(cmd, opts);
        goto done;
    }
    code = EXIT_USAGE;
    if (npos != 1) {
        cli_error("ddbpipe mapping-from-workbench MODEL.json [--table NAME] [--out FILE]",
                  npos ? "one model at a time" : "no model given");
        goto done;
    }
    if (strstr(pos[0], "://") != NULL) {
        /* The draft reads the model whole from the local disk; a run reads its items anywhere. */
        cli_error("copy it to a local file first (aws s3 cp), then give that file",
                  "%s: the model must be a local file", pos[0]);
        goto done;
    }
    if (ddb_workbench_draft_mapping(&mapping, &notes, pos[0], table, &err) != 0) {
        code = err.code == DDB_ENOTFOUND || err.code == DDB_EIO ? EXIT_INPUT : EXIT_USAGE;
        cli_error(err.code == DDB_EUSAGE && strstr(err.message, "tables") ? "add --table NAME"
                                                                          : NULL,
                  "%s", err.message);
        goto done;
    }
    if (ddb_sink_open_file(&sink, out ? out : "-", out != NULL, &err) != 0 ||
        ddb_sink_write(sink, mapping.ptr, mapping.len, &err) != 0 ||
        ddb_sink_finish(sink, &err) != 0) {
        cli_error(NULL, "%s", err.message);
        code = EXIT_OUTPUT;
        goto done;
    }
    /* What was guessed, for the designer to look at. */
    for (char *line = notes.ptr, *nl; line && *line; line = nl + 1) {
        if ((nl = strchr(line, '\n')) == NULL)
            break;
        fprintf(stderr, "ddbpipe: note: %.*s\n", (int)(nl - line), line);
    }
    if (out != NULL)
        fprintf(stderr, "ddbpipe: wrote %s\n", out);
    code = EXIT_OK;
done:
    ddb_sink_free(sink);
    ddb_buf_dispose(&mapping);
    ddb_buf_dispose(&notes);
    free(pos);
    return code;
}
