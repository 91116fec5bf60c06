/*
 * The template matcher, through decode: the input gives the table key values
 * (pk, then sk after the first newline) and the seed designs in formats/
 * decode them. The transformer's promise is checked: an item decodes only if
 * encoding its record gives its keys back byte for byte.
 */
#include "ddbpipe/mapping.h"
#include "ddbpipe/transform.h"
#include "fuzz.h"

static ddb_mapping *designs[4];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    static const char *const names[4] = {"favorites.json", "favorites-v2.json", "movies.json",
                                         "facility-capacity.json"};
    (void)argc;
    (void)argv;
    for (int i = 0; i < 4; i++) {
        char path[1024];
        ddb_error err;
        snprintf(path, sizeof(path), "%s/formats/%s", DDB_SOURCE_DIR, names[i]);
        if (ddb_mapping_load(&designs[i], path, &err) != 0) {
            fprintf(stderr, "%s\n", err.message);
            abort();
        }
    }
    return 0;
}

static ddb_value key_value(const ddb_key_attr *k, const char *text, size_t len)
{
    return ddb_value_str(k->type == DDB_TYPE_N ? DDB_TYPE_N : DDB_TYPE_S, text, len);
}

static void check_keys(const ddb_mapping *m, const ddb_item *item, const ddb_item *again)
{
    for (size_t i = 0; i < item->count; i++) {
        const ddb_value *v = ddb_map_get(again, item->attrs[i].name.ptr, item->attrs[i].name.len);
        FUZZ_CHECK(v != NULL && ddb_value_equal(v, &item->attrs[i].value),
                   "%s: key %.*s does not come back", m->path, (int)item->attrs[i].name.len,
                   item->attrs[i].name.ptr);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    const char *nl = memchr(text, '\n', size);
    size_t pk_len = nl ? (size_t)(nl - text) : size;
    ddb_arena *a = NULL;
    if (ddb_arena_new(&a, 0) != 0)
        abort();
    for (int i = 0; i < 4; i++) {
        const ddb_mapping *m = designs[i];
        ddb_attr attrs[2];
        ddb_item item = {attrs, 1}, again;
        ddb_decoded d;
        ddb_error err;
        attrs[0].name.ptr = m->table.pk.name;
        attrs[0].name.len = strlen(m->table.pk.name);
        attrs[0].value = key_value(&m->table.pk, text, pk_len);
        if (m->table.sk.name && nl) {
            attrs[1].name.ptr = m->table.sk.name;
            attrs[1].name.len = strlen(m->table.sk.name);
            attrs[1].value = key_value(&m->table.sk, nl + 1, size - pk_len - 1);
            item.count = 2;
        }
        ddb_arena_reset(a);
        if (ddb_transform_decode_key(&d, m, &item, a, &err) == 0 &&
            ddb_transform_encode_key(&again, m, d.entity, &d.record, 1, a, &err) == 0)
            check_keys(m, &item, &again);
        if (ddb_transform_decode(&d, m, &item, a, &err) == 0) {
            FUZZ_CHECK(d.entity != NULL, "decoded without an entity");
            if (ddb_transform_encode(&again, m, d.entity, &d.record, 1, a, &err) == 0)
                check_keys(m, &item, &again);
        }
    }
    ddb_arena_free(a);
    return 0;
}
