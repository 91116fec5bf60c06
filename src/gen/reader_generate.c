/*
 * The generator as a reader: the pipeline reads generated items like any
 * input, so decoding, writing files or a table, progress, rejects and
 * checkpoints all come from the same code as for exports and imports.
 */
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/generate.h"

typedef struct gen_reader {
    ddb_reader base;
    const ddb_generator *g;
    const ddb_mapping *m;
    size_t entity; /* cursor: entity and index within it */
    uint64_t index;
    uint64_t pos; /* records handed out so far (or skipped to) */
    ddb_arena *arena;
    ddb_record rec;
    ddb_error err;
    char reason[DDB_ERROR_MAX];
} gen_reader;

static void place(gen_reader *r, uint64_t pos)
{
    r->entity = 0;
    r->index = pos;
    r->pos = pos;
    while (r->entity < r->m->n_entities && r->index >= ddb_generator_count(r->g, r->entity)) {
        r->index -= ddb_generator_count(r->g, r->entity);
        r->entity++;
    }
}

static int gen_next(ddb_reader *base, ddb_record **out, ddb_error *err)
{
    gen_reader *r = (gen_reader *)base;
    int rc;
    place(r, r->pos);
    if (r->entity >= r->m->n_entities)
        return DDB_ITEROVER;
    ddb_arena_reset(r->arena);
    memset(&r->rec, 0, sizeof(r->rec));
    r->rec.typed = 1;
    r->rec.source = "generate";
    r->rec.offset = r->pos;
    r->rec.pos = r->pos;
    ddb_error_clear(&r->err);
    rc = ddb_generator_record(r->g, r->entity, r->index, NULL, &r->rec.item, r->arena, &r->err);
    if (rc == DDB_ENOMEM)
        return ddb_error_set(err, rc, "out of memory");
    if (rc != 0) {
        /* Counted and kept as a rejected record; the run goes on. */
        memcpy(r->reason, r->err.message, sizeof(r->reason));
        r->rec.kind = DDB_REC_BAD;
        r->rec.reason = r->reason;
        memset(&r->rec.item, 0, sizeof(r->rec.item));
    }
    r->pos++;
    *out = &r->rec;
    return 0;
}

static int gen_skip_to(ddb_reader *base, uint64_t pos, ddb_error *err)
{
    (void)err;
    ((gen_reader *)base)->pos = pos;
    return 0;
}

/* Frees what is the generator reader's own; ddb_reader_free frees the name
 * and the struct. */
static void gen_free(ddb_reader *base)
{
    ddb_arena_free(((gen_reader *)base)->arena);
}

static const ddb_reader_vtable gen_vt = {
    .kind = "generator", .next = gen_next, .free = gen_free, .skip_to = gen_skip_to};

int ddb_reader_new_generator(ddb_reader **out, const ddb_generator *g, ddb_error *err)
{
    gen_reader *r = calloc(1, sizeof(*r));
    *out = NULL;
    if (r == NULL || ddb_arena_new(&r->arena, 0) != 0 ||
        (r->base.name = strdup("generate")) == NULL) {
        if (r)
            ddb_arena_free(r->arena);
        free(r);
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    }
    r->base.vt = &gen_vt;
    r->base.format = DDB_IN_DDBJSON;
    r->base.expected_items = ddb_generator_total(g);
    r->g = g;
    r->m = ddb_generator_mapping(g);
    *out = &r->base;
    return 0;
}
