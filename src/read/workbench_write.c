/*
 * The drafted mapping as text (the language of formats/README.md), and its
 * check against the model's own sample items: each is read back from the
 * model by the JSON document reader, decoded with the draft and encoded
 * again; the notes say how many come back exactly.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/json.h"
#include "ddbpipe/mapping.h"
#include "ddbpipe/reader.h"
#include "ddbpipe/transform.h"
#include "read/workbench_internal.h"

static void put_str(ddb_buf *b, const char *s)
{
    ddb_json_put_string(b, s, strlen(s));
}

static void put_key(ddb_buf *b, const char *what, const wb_key *k)
{
    ddb_buf_printf(b, "\"%s\": { \"name\": ", what);
    put_str(b, k->name);
    ddb_buf_printf(b, ", \"type\": \"%s\" }", ddb_type_name(k->type));
}

static void put_index(ddb_buf *b, const wb_index *ix)
{
    json_object *proj = NULL, *v, *nk = NULL;
    const char *type = "ALL";
    ddb_buf_puts(b, "      { \"name\": ");
    put_str(b, json_object_get_string(json_object_object_get(ix->def, "IndexName")));
    ddb_buf_printf(b, ", \"type\": \"%s\",\n        ", ix->global ? "GSI" : "LSI");
    if (ix->global) {
        put_key(b, "partitionKey", &ix->pk);
        ddb_buf_puts(b, ix->sk.name ? ",\n        " : "");
    }
    if (ix->sk.name)
        put_key(b, "sortKey", &ix->sk);
    if (json_object_object_get_ex(ix->def, "Projection", &proj) &&
        json_object_object_get_ex(proj, "ProjectionType", &v) &&
        json_object_is_type(v, json_type_string))
        type = json_object_get_string(v);
    ddb_buf_puts(b, ",\n        \"projection\": ");
    put_str(b, type);
    if (strcmp(type, "INCLUDE") == 0 && json_object_object_get_ex(proj, "NonKeyAttributes", &nk) &&
        json_object_is_type(nk, json_type_array)) {
        ddb_buf_puts(b, ", \"nonKeyAttributes\": [");
        for (size_t i = 0; i < json_object_array_length(nk); i++) {
            ddb_buf_puts(b, i ? ", " : "");
            put_str(b, json_object_get_string(json_object_array_get_idx(nk, i)));
        }
        ddb_buf_putc(b, ']');
    }
    ddb_buf_puts(b, " }");
}

static void put_entity(ddb_buf *b, const wb_entity *e)
{
    ddb_buf_puts(b, "    {\n      \"name\": ");
    put_str(b, e->name);
    if (strcmp(e->type_value, e->name) != 0) {
        ddb_buf_puts(b, ", \"typeValue\": ");
        put_str(b, e->type_value);
    }
    ddb_buf_puts(b, ",\n      \"keys\": {");
    for (size_t i = 0; i < e->n_keys; i++) {
        ddb_buf_puts(b, i ? ",\n                " : " ");
        put_str(b, e->key_attr[i]);
        ddb_buf_puts(b, ": ");
        put_str(b, e->key_tpl[i]);
    }
    ddb_buf_puts(b, " },\n      \"fields\": [");
    for (size_t i = 0; i < e->n_fields; i++) {
        const wb_field *f = &e->fields[i];
        ddb_buf_puts(b, i ? ",\n        " : "\n        ");
        ddb_buf_puts(b, "{ \"name\": ");
        put_str(b, f->name);
        if (f->type != DDB_TYPE_S)
            ddb_buf_printf(b, ", \"type\": \"%s\"", ddb_type_name(f->type));
        if (f->stored && strcmp(f->attr, f->name) != 0) {
            ddb_buf_puts(b, ", \"attribute\": ");
            put_str(b, f->attr);
        }
        /* The language stores a field unless it is in the table's key: say so
         * where the items differ from that default. */
        if (f->in_table_key && f->stored)
            ddb_buf_puts(b, ", \"store\": true");
        else if (!f->in_table_key && !f->stored)
            ddb_buf_puts(b, ", \"store\": false");
        ddb_buf_puts(b, " }");
    }
    ddb_buf_puts(b, "\n      ]\n    }");
}

int wb_write_mapping(const wb_draft *d, ddb_buf *b)
{
    ddb_buf_puts(b, "{\n  \"description\": ");
    {
        char desc[600];
        snprintf(desc, sizeof(desc),
                 "Drafted by ddbpipe mapping-from-workbench from the NoSQL Workbench model of "
                 "table %s: one entity per facet. Check the key templates and field types.",
                 d->table_name);
        put_str(b, desc);
    }
    ddb_buf_puts(b, ",\n  \"table\": {\n    \"name\": ");
    put_str(b, d->table_name);
    ddb_buf_puts(b, ",\n    ");
    put_key(b, "partitionKey", &d->pk);
    if (d->sk.name) {
        ddb_buf_puts(b, ",\n    ");
        put_key(b, "sortKey", &d->sk);
    }
    if (d->type_attr) {
        ddb_buf_puts(b, ",\n    \"entityTypeAttribute\": ");
        put_str(b, d->type_attr);
    }
    if (d->n_indexes) {
        ddb_buf_puts(b, ",\n    \"indexes\": [\n");
        for (size_t i = 0; i < d->n_indexes; i++) {
            put_index(b, &d->indexes[i]);
            ddb_buf_puts(b, i + 1 < d->n_indexes ? ",\n" : "\n");
        }
        ddb_buf_puts(b, "    ]");
    }
    ddb_buf_puts(b, "\n  },\n  \"entities\": [\n");
    for (size_t i = 0; i < d->n_entities; i++) {
        put_entity(b, &d->entities[i]);
        ddb_buf_puts(b, i + 1 < d->n_entities ? ",\n" : "\n");
    }
    ddb_buf_puts(b, "  ]\n}\n");
    return b->oom ? DDB_ENOMEM : 0;
}

/* How the draft does on the model's own items. */
void wb_check_draft(wb_draft *d, const ddb_buf *mapping, const char *model_path)
{
    ddb_mapping *m = NULL;
    ddb_reader *r = NULL;
    ddb_reader_opts o;
    ddb_arena *a = NULL;
    ddb_error err;
    ddb_record *rec;
    uint64_t exact = 0, unmatched = 0, refused = 0;
    char first[700] = "";
    int rc;

    if (ddb_mapping_parse(&m, mapping->ptr, mapping->len, "draft", &err) != 0) {
        ddb_buf_printf(d->notes, "the draft does not load (please report it): %s\n", err.message);
        return;
    }
    memset(&o, 0, sizeof(o));
    o.format = DDB_IN_JSON;
    o.table = d->table_name;
    if (ddb_arena_new(&a, 0) != 0 || ddb_reader_open(&r, model_path, &o, &err) != 0)
        goto done;
    while ((rc = ddb_reader_next(r, &rec, &err)) == 0) {
        ddb_decoded dec;
        ddb_arena_reset(a);
        if (rec->kind != DDB_REC_PUT)
            continue; /* another table's items */
        rc = ddb_transform_decode(&dec, m, &rec->item, a, &err);
        if (rc == DDB_ENOMATCH) {
            unmatched++;
        } else if (rc != 0 ||
                   ddb_transform_round_trip(m, &dec, &rec->item, 0, NULL, a, &err) != 0) {
            if (refused++ == 0)
                snprintf(first, sizeof(first), "line %llu: %s", (unsigned long long)rec->line,
                         err.message);
        } else {
            exact++;
        }
    }
    ddb_buf_printf(d->notes,
                   "checked against the model's sample items of %s: %llu decode and encode back "
                   "exactly",
                   d->table_name, (unsigned long long)exact);
    if (unmatched)
        ddb_buf_printf(d->notes, ", %llu match no entity", (unsigned long long)unmatched);
    if (refused)
        ddb_buf_printf(d->notes, ", %llu do not (first, %s)", (unsigned long long)refused, first);
    ddb_buf_putc(d->notes, '\n');
done:
    ddb_reader_free(r);
    ddb_arena_free(a);
    ddb_mapping_free(m);
}
