/*
 * run_select.c — a plan's selection (--entities, --where, --sample; select.h):
 * checked against the mapping when the plan is made, turned into a Query or a
 * filtered Scan when the table is attached, and named in the summary.
 */
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/select.h"
#include "run/run_internal.h"

int ddb_run_select_new(ddb_run_plan *p, ddb_run_field *field, ddb_error *err)
{
    const ddb_run_options *o = &p->o;
    int rc;
    if ((rc = ddb_select_parse(&p->select, o->select_entities, o->select_where,
                               o->select_project, o->select_sample, err)) != 0) {
        *field = DDB_RUN_F_SELECT;
        return rc;
    }
    if (p->select == NULL)
        return 0;
    if (p->mapping == NULL || (o->mode != DDB_MODE_EXPORT && o->mode != DDB_MODE_CONVERT))
        return ddb_run_fail(field, DDB_RUN_F_SELECT, err,
                            "--entities, --where and --sample choose records of a mapping's "
                            "entities: they need --mapping, with export, convert or migrate");
    if (p->select->n_project && o->mode != DDB_MODE_EXPORT)
        return ddb_run_fail(field, DDB_RUN_F_SELECT, err,
                            "--project writes records with only some fields: it is for export "
                            "(items re-keyed with fields missing would be other items)");
    if (o->select_sample && o->state_path != NULL)
        return ddb_run_fail(field, DDB_RUN_F_SELECT, err,
                            "--sample takes the first records asked for in one go: it cannot "
                            "be resumed (leave --state out)");
    if ((rc = ddb_select_check(p->select, p->mapping, err)) != 0) {
        *field = DDB_RUN_F_SELECT;
        return rc;
    }
    /* files and exports are read whole, and filtered as they are read */
    p->select_how = strdup("a filter as records are read");
    return p->select_how ? 0 : ddb_error_set(err, DDB_ENOMEM, "out of memory");
}

int ddb_run_select_table(ddb_run_plan *p, ddb_table_reader_opts *to, ddb_error *err)
{
    int rc;
    if (p->select == NULL)
        return 0;
    if ((rc = ddb_select_plan(&p->select_req, p->select, p->mapping, err)) != 0)
        return rc;
    to->query = p->select_req.query;
    to->members = p->select_req.members;
    free(p->select_how);
    if ((p->select_how = strdup(p->select_req.how)) == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    ddb_run_note(p, "selection: %s%s", p->select_how,
                 p->select_req.query ? "" : " (no key is fixed by --where for one entity)");
    return 0;
}

void ddb_run_select_summary(const ddb_run_plan *p, ddb_summary *s)
{
    if (p->select_how != NULL && s->selection == NULL)
        s->selection = strdup(p->select_how); /* NULL on failure: the summary says less */
}

void ddb_run_select_dispose(ddb_run_plan *p)
{
    ddb_select_free(p->select);
    ddb_select_request_dispose(&p->select_req);
    free(p->select_how);
    p->select = NULL;
    p->select_how = NULL;
}
