/* An output that checks before it passes on (output_check.h). */
#include "ddbpipe/output_check.h"

#include <stdlib.h>
#include <string.h>

typedef struct check_output {
    ddb_output base;
    ddb_output *up;
    ddb_check_output_opts opts;
    ddb_buf scratch;
} check_output;

/* The pipeline's hooks are set on this output: the one behind reports
 * through them too. */
static ddb_output *upstream(check_output *co)
{
    co->up->ack = co->base.ack;
    co->up->exists = co->base.exists;
    co->up->reject = co->base.reject;
    co->up->ack_ctx = co->base.ack_ctx;
    return co->up;
}

static int co_put(ddb_output *o, int entity, ddb_record_kind kind, const ddb_map *rec,
                  size_t n_declared, const ddb_record *origin, ddb_error *err)
{
    check_output *co = (check_output *)o;
    ddb_error verr;
    ddb_output *up;
    int rc;

    if (kind == DDB_REC_DELETE && co->opts.no_deletes != NULL) {
        ddb_output_refuse(o, entity, kind, rec, origin, co->opts.no_deletes, &co->scratch);
        return 0;
    }
    rc = kind == DDB_REC_DELETE ? ddb_item_validate_key(rec, co->opts.schema, &verr)
                                : ddb_item_validate(rec, co->opts.schema, NULL, &verr);
    if (rc == DDB_ENOMEM)
        return ddb_error_set(err, rc, "%s", verr.message);
    if (rc != 0) {
        ddb_output_refuse(o, entity, kind, rec, origin, verr.message, &co->scratch);
        return 0;
    }
    up = upstream(co);
    return up->vt->put(up, entity, kind, rec, n_declared, origin, err);
}

static int co_finish(ddb_output *o, ddb_error *err)
{
    check_output *co = (check_output *)o;
    ddb_output *up = upstream(co);
    int rc = up->vt->finish(up, err);
    o->bytes_out = up->bytes_out;
    return rc;
}

static void co_free(ddb_output *o)
{
    check_output *co = (check_output *)o;
    ddb_output_free(co->up);
    ddb_buf_dispose(&co->scratch);
}

static int co_checkpoint(ddb_output *o, ddb_buf *state, ddb_error *err)
{
    ddb_output *up = upstream((check_output *)o);
    return up->vt->checkpoint(up, state, err);
}

static int co_stop(ddb_output *o, ddb_error *err)
{
    ddb_output *up = upstream((check_output *)o);
    return up->vt->stop != NULL ? up->vt->stop(up, err) : 0;
}

/* The state is saved: the files behind (S3 uploads a resume goes on with,
 * their parts' spool copies) must hear it, or none is ever named. */
static void co_saved(ddb_output *o)
{
    ddb_output *up = ((check_output *)o)->up;
    if (up->vt->saved != NULL)
        up->vt->saved(up);
}

static int co_idle(ddb_output *o, ddb_error *err)
{
    ddb_output *up = ((check_output *)o)->up;
    return up->vt->idle != NULL ? up->vt->idle(up, err) : 0;
}

static const ddb_output_vtable check_vt = {co_put,  co_finish, co_free, co_checkpoint,
                                           co_stop, co_saved,  co_idle};

int ddb_check_output_new(ddb_output **out, ddb_output *up, const ddb_check_output_opts *opts,
                         ddb_error *err)
{
    check_output *co = calloc(1, sizeof(*co));
    *out = NULL;
    if (co == NULL) {
        ddb_output_free(up);
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    }
    co->base.vt = &check_vt;
    co->base.writes_at_once = up->writes_at_once;
    co->up = up;
    co->opts = *opts;
    *out = &co->base;
    return 0;
}
