/* Items as DynamoDB JSON lines on one stream (see output_stream.h). */
#include "ddbpipe/output_stream.h"

#include <stdlib.h>
#include <string.h>

#include "ddbpipe/writer.h"
#include "ddbpipe/sink.h"

typedef struct stream_output {
    ddb_output base;
    ddb_writer *w; /* DynamoDB JSON without an entity: the item itself */
} stream_output;

static int so_put(ddb_output *o, int entity, ddb_record_kind kind, const ddb_map *item,
                  size_t n_declared, const ddb_record *origin, ddb_error *err)
{
    stream_output *so = (stream_output *)o;
    int rc;
    (void)n_declared;
    if ((rc = ddb_writer_write(so->w, item, 0, err)) != 0)
        return rc;
    o->bytes_out = so->w->sink->bytes_out;
    if (o->ack)
        o->ack(o->ack_ctx, entity, kind, origin ? origin->seq : 0);
    return 0;
}

static int so_finish(ddb_output *o, ddb_error *err)
{
    return ddb_writer_finish(((stream_output *)o)->w, err);
}

static void so_free(ddb_output *o)
{
    ddb_writer_free(((stream_output *)o)->w);
}

static int so_checkpoint(ddb_output *o, ddb_buf *state, ddb_error *err)
{
    (void)o;
    (void)state;
    return ddb_error_set(err, DDB_EUSAGE, "a stream of items cannot be checkpointed");
}

static const ddb_output_vtable stream_vt = {so_put, so_finish, so_free, so_checkpoint,
                                            NULL,   NULL,      NULL};

int ddb_stream_output_new(ddb_output **out, ddb_sink *sink, ddb_error *err)
{
    stream_output *so = calloc(1, sizeof(*so));
    ddb_writer_opts wo;
    int rc;
    *out = NULL;
    memset(&wo, 0, sizeof(wo));
    if (so == NULL) {
        ddb_sink_free(sink);
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    }
    if ((rc = ddb_writer_new(&so->w, DDB_OUT_DDBJSON, sink, NULL, &wo, err)) != 0) {
        free(so);
        return rc;
    }
    so->base.vt = &stream_vt;
    so->base.writes_at_once = 1;
    *out = &so->base;
    return 0;
}
