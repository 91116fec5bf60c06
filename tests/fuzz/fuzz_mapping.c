/*
 * The mapping loader. A mapping that loads must be usable: its CreateTable
 * request builds, and every entity decodes and encodes a few items and
 * records (any outcome but a crash or a leak).
 */
#include "ddbpipe/json.h"
#include "ddbpipe/mapping.h"
#include "ddbpipe/transform.h"
#include "ddbpipe/table.h"
#include "fuzz.h"

static void exercise(const ddb_mapping *m, ddb_arena *a, ddb_json_parser *p)
{
    static const char *const items[] = {
        "{\"pk\":{\"S\":\"a#1\"},\"sk\":{\"S\":\"b#2\"},\"x\":{\"N\":\"1\"}}",
        "{\"PK\":{\"S\":\"A#1#2\"},\"SK\":{\"S\":\"2024-02-29\"},\"_et\":{\"S\":\"A\"}}",
        "{\"id\":{\"N\":\"7\"},\"n\":{\"N\":\"00012\"},\"s\":{\"SS\":[\"x\"]}}",
    };
    ddb_buf b = DDB_BUF_INIT;
    ddb_error err;
    ddb_table_create_request(&b, m, NULL, &err);
    for (size_t i = 0; i < sizeof(items) / sizeof(items[0]); i++) {
        ddb_map item;
        ddb_decoded d;
        ddb_item out;
        if (ddb_json_parse_typed_map(p, &item, items[i], strlen(items[i]), a, &err) != 0)
            abort();
        if (ddb_transform_decode(&d, m, &item, a, &err) == 0)
            fuzz_either(ddb_transform_encode(&out, m, d.entity, &d.record, 1, a, &err));
        fuzz_either(ddb_transform_decode_key(&d, m, &item, a, &err));
    }
    for (size_t e = 0; e < m->n_entities; e++) {
        const ddb_entity *en = &m->entities[e];
        ddb_attr *attrs = ddb_arena_alloc(a, (en->n_fields + 1) * sizeof(*attrs));
        ddb_map rec = {attrs, 0};
        ddb_item out;
        for (size_t f = 0; f < en->n_fields; f++) {
            attrs[rec.count].name.ptr = en->fields[f].name;
            attrs[rec.count].name.len = strlen(en->fields[f].name);
            attrs[rec.count++].value = ddb_value_str(DDB_TYPE_S, "1", 1);
        }
        fuzz_either(ddb_transform_encode(&out, m, en, &rec, 0, a, &err));
        fuzz_either(ddb_transform_encode_key(&out, m, en, &rec, 0, a, &err));
    }
    ddb_buf_dispose(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ddb_mapping *m = NULL;
    ddb_arena *a = NULL;
    ddb_json_parser *p = NULL;
    ddb_error err;
    if (ddb_mapping_parse(&m, (const char *)data, size, "fuzz.json", &err) != 0) {
        FUZZ_CHECK(m == NULL && err.message[0] != '\0', "a failure without a message");
        return 0;
    }
    if (ddb_arena_new(&a, 0) != 0 || ddb_json_parser_new(&p) != 0)
        abort();
    exercise(m, a, p);
    ddb_json_parser_free(p);
    ddb_arena_free(a);
    ddb_mapping_free(m);
    return 0;
}
