/* Dry runs: validate, count and estimate; write nothing. */
#include "ddbpipe/output_null.h"

#include <stdlib.h>
#include <string.h>

#include "ddbpipe/cost.h"
#include "ddbpipe/json.h"

typedef struct null_output {
    ddb_output base;
    const ddb_key_schema *ks;
    const ddb_table_info *info;
    ddb_dry_run_stats stats;
    ddb_buf scratch;
} null_output;

static int no_put(ddb_output *o, int entity, ddb_record_kind kind, const ddb_map *rec,
                  size_t n_declared, const ddb_record *origin, ddb_error *err)
{
    null_output *no = (null_output *)o;
    ddb_error verr;
    size_t size = 0;
    int rc;
    (void)n_declared;
    (void)err;
    rc = kind == DDB_REC_DELETE ? ddb_item_validate_key(rec, no->ks, &verr)
                                : ddb_item_validate(rec, no->ks, &size, &verr);
    if (rc != 0) {
        ddb_output_refuse(o, entity, kind, rec, origin, verr.message, &no->scratch);
        return 0;
    }
    if (kind == DDB_REC_DELETE) {
        no->stats.deletes++;
        no->stats.wcu += 1;
    } else {
        uint64_t index_wcu;
        no->stats.puts++;
        no->stats.bytes += size;
        no->stats.wcu += ddb_cost_put_units(rec, size, no->info, &index_wcu);
        no->stats.index_wcu += index_wcu;
    }
    if (o->ack)
        o->ack(o->ack_ctx, entity, kind, origin ? origin->seq : 0);
    return 0;
}

static int no_finish(ddb_output *o, ddb_error *err)
{
    (void)o;
    (void)err;
    return 0;
}

static void no_free(ddb_output *o)
{
    ddb_buf_dispose(&((null_output *)o)->scratch);
}

static int no_checkpoint(ddb_output *o, ddb_buf *state, ddb_error *err)
{
    (void)o;
    (void)err;
    /* Acks already mean written: nothing more to make durable. */
    return ddb_buf_puts(state, "[]");
}

static const ddb_output_vtable null_vt = {no_put, no_finish, no_free, no_checkpoint,
                                          NULL,   NULL,      NULL};

int ddb_null_output_new(ddb_output **out, const ddb_key_schema *ks, const ddb_table_info *info,
                        ddb_error *err)
{
    null_output *no = calloc(1, sizeof(*no));
    *out = NULL;
    if (no == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    no->base.vt = &null_vt;
    no->ks = ks;
    no->info = info;
    *out = &no->base;
    return 0;
}

void ddb_null_output_stats(const ddb_output *o, ddb_dry_run_stats *out)
{
    *out = ((const null_output *)o)->stats;
}
