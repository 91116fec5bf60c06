/*
 * --create-table when the source is a table: the target is made like it (table_like.h), with
 * the keys and indexes of the mapping it is written with when the design changes, so a copy
 * keeps the source's billing, Streams, encryption, TTL, recovery, tags and policy.
 */
#include "ddbpipe/table_like.h"
#include "run/run_internal.h"

#include <assert.h>
#include <string.h>

/* Each line of notes as a note of the run, about the target. */
static void say_notes(const ddb_run_plan *p, const ddb_buf *notes)
{
    const char *s = notes->ptr ? notes->ptr : "";
    const char *side = p->o.target_side && *p->o.target_side ? p->o.target_side : NULL;
    while (*s) {
        const char *nl = strchr(s, '\n');
        size_t n = nl ? (size_t)(nl - s) : strlen(s);
        ddb_run_note(p, "%s%stable %s: %.*s", side ? side : "", side ? ": " : "", p->o.target_table,
                     (int)n, s);
        s += n + (nl != NULL);
    }
}

int ddb_run_create_like(ddb_run_plan *p, ddb_client *target, const ddb_mapping *tm, ddb_error *err)
{
    const ddb_run_options *o = &p->o;
    ddb_table_like *like = NULL;
    ddb_table_like_wait w;
    ddb_buf notes = DDB_BUF_INIT;
    int created = 0, rc;

    assert(p->client != NULL && o->scan_table != NULL && o->target_table != NULL);
    if ((rc = ddb_table_like_read(&like, p->client, o->scan_table, err)) != 0) {
        if (o->source_side && *o->source_side)
            ddb_error_prefix(err, "%s: ", o->source_side);
        goto done;
    }
    memset(&w, 0, sizeof(w));
    w.timeout_s = o->wait_active_s;
    w.stop = o->stop;
    w.on_wait = o->on_wait;
    w.ctx = o->wait_ctx;
    rc = ddb_table_like_create(target, like, o->target_table, tm, 1, &w, &created, &notes, err);
    if (created)
        say_notes(p, &notes);
    if (rc == 0)
        ddb_run_note(p, created ? "table %s made like %s" : "table %s exists: left as it is",
                     o->target_table, o->scan_table);
done:
    ddb_buf_dispose(&notes);
    ddb_table_like_free(like);
    return rc;
}
