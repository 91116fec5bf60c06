/*
 * `ddbpipe-gen seed-csv`: per-entity CSV files DIR/<Entity>.csv whose header
 * is the entity's declared fields in declared order, ready for
 * `ddbpipe encode DIR/<Entity>.csv... --mapping M`. Cells follow ddbpipe's CSV
 * conventions: S raw, N digits, B base64, BOOL true/false, M/L/sets as plain
 * JSON; an absent field is an empty cell and an empty string is "".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/csv.h"
#include "ddbpipe/sink.h"
#include "ddbpipe/writer.h"
#include "write/csv_cell.h"
#include "gen.h"

typedef struct seeder {
    const ddb_mapping *m;
    ddb_sink **sinks; /* one per entity of the mapping */
    uint64_t *rows;
    uint64_t left;
    int whole; /* go on to the end of the collection in progress */
    ddb_arena *arena;
    ddb_buf line, cell;
} seeder;

static int on_record(void *ctx, const ddb_entity *e, const ddb_map *rec, ddb_error *err)
{
    seeder *s = ctx;
    size_t ei = (size_t)(e - s->m->entities);
    ddb_item item;
    int rc;

    if (e == NULL)
        return s->whole && s->left == 0 ? 1 : 0;
    /* Only records the mapping accepts go into a seed file. */
    ddb_arena_reset(s->arena);
    if ((rc = gen_encode(&item, s->m, e, rec, s->arena, err)) != 0)
        return rc;
    ddb_buf_clear(&s->line);
    for (size_t i = 0; i < e->n_fields; i++) {
        const ddb_value *v = ddb_map_getz(rec, e->fields[i].name);
        if (i)
            ddb_buf_putc(&s->line, ',');
        if (v == NULL)
            continue;
        ddb_buf_clear(&s->cell);
        ddb_csv_cell_text(&s->cell, v);
        ddb_csv_put_field(&s->line, s->cell.ptr ? s->cell.ptr : "", s->cell.len, ',',
                          v->type == DDB_TYPE_S && v->u.s.len == 0);
    }
    ddb_buf_putc(&s->line, '\n');
    if (s->line.oom || s->cell.oom)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    if ((rc = ddb_sink_write(s->sinks[ei], s->line.ptr, s->line.len, err)) != 0)
        return rc;
    s->rows[ei]++;
    if (s->left > 0)
        s->left--;
    return s->left == 0 && !s->whole ? 1 : 0;
}

static const char *const seed_usage =
    "ddbpipe-gen seed-csv --mapping M [--design D] --records N --out DIR [--seed S]\n"
    "       [--whole-collections]";

int gen_cmd_seed_csv(int argc, char **argv)
{
    const char *mapping = NULL, *design = NULL, *records = NULL, *out = NULL, *seed = "1",
               *whole = NULL;
    const gen_opt opts[] = {{"--mapping", &mapping, 0}, {"--design", &design, 0},
                            {"--records", &records, 0}, {"--out", &out, 0},
                            {"--seed", &seed, 0},       {"--whole-collections", &whole, 1}};
    seeder s;
    ddb_mapping *m = NULL;
    gen_design *d = NULL;
    ddb_error err;
    uint64_t n, sd;
    int rc;

    memset(&s, 0, sizeof(s));
    ddb_error_clear(&err);
    if ((rc = gen_parse_opts(argc, argv, opts, GEN_COUNT(opts), seed_usage)) != 0)
        return rc == 1 ? 0 : 2;
    if (mapping == NULL || records == NULL || out == NULL) {
        gen_fail("--mapping, --records and --out are required\nUsage: %s", seed_usage);
        return 2;
    }
    if (gen_parse_u64(&n, records, 1) || gen_parse_u64(&sd, seed, 0)) {
        gen_fail("--records takes a count and --seed an unsigned integer");
        return 2;
    }
    if ((design = gen_pick_design(design, mapping)) == NULL) {
        gen_fail("cannot tell the design from \"%s\": pass --design (%s)", mapping,
                 gen_design_names());
        return 2;
    }
    if ((rc = ddb_mapping_load(&m, mapping, &err)) != 0 ||
        (rc = gen_design_new(&d, design, m, sd, 0, &err)) != 0 || (rc = gen_mkdirs(out, &err)) != 0)
        goto done;
    s.m = m;
    s.left = n;
    s.whole = whole != NULL;
    s.sinks = calloc(m->n_entities, sizeof(*s.sinks));
    s.rows = calloc(m->n_entities, sizeof(*s.rows));
    if (s.sinks == NULL || s.rows == NULL || ddb_arena_new(&s.arena, 0) != 0) {
        rc = ddb_error_set(&err, DDB_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < m->n_entities; i++) {
        const ddb_entity *e = &m->entities[i];
        ddb_buf path = DDB_BUF_INIT;
        ddb_buf_printf(&path, "%s/%s.csv", out, e->name);
        rc = ddb_sink_open_file(&s.sinks[i], path.ptr, 1, &err);
        ddb_buf_dispose(&path);
        if (rc != 0)
            goto done;
        ddb_buf_clear(&s.line);
        for (size_t f = 0; f < e->n_fields; f++) {
            if (f)
                ddb_buf_putc(&s.line, ',');
            ddb_csv_put_field(&s.line, e->fields[f].name, strlen(e->fields[f].name), ',', 0);
        }
        ddb_buf_putc(&s.line, '\n');
        if ((rc = ddb_sink_write(s.sinks[i], s.line.ptr, s.line.len, &err)) != 0)
            goto done;
    }
    if (n > 0 && (rc = d->vt->run(d, on_record, &s, &err)) != 0)
        goto done;
    for (size_t i = 0; i < m->n_entities; i++) {
        if ((rc = ddb_sink_finish(s.sinks[i], &err)) != 0)
            goto done;
        printf("%s/%s.csv: %llu rows\n", out, m->entities[i].name, (unsigned long long)s.rows[i]);
    }
done:
    if (rc != 0)
        gen_fail("%s", err.message);
    for (size_t i = 0; s.sinks && i < m->n_entities; i++)
        ddb_sink_free(s.sinks[i]);
    free(s.sinks);
    free(s.rows);
    ddb_buf_dispose(&s.line);
    ddb_buf_dispose(&s.cell);
    ddb_arena_free(s.arena);
    gen_design_free(d);
    ddb_mapping_free(m);
    return rc == 0 ? 0 : rc == DDB_EUSAGE ? 2 : 1;
}
