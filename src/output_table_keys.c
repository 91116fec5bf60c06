/*
 * Matching the BatchWriteItem writer's entries by key: the canonical key
 * signature every entry carries, and the reading of a response's
 * UnprocessedItems back to the entries of its batch.
 */
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/json.h"
#include "ddbpipe/number.h"
#include "output_table_internal.h"

/* Canonical key signature: key attributes in schema order, numbers in
 * canonical form, so an echo of the key in UnprocessedItems matches even if
 * the service rewrote the number's text. */
int ddb_table_output_key_signature(ddb_buf *out, const ddb_key_schema *ks, const ddb_map *item)
{
    const ddb_key_attr *k[2] = {&ks->partition, &ks->sort};
    ddb_buf_clear(out);
    for (int i = 0; i < 2; i++) {
        const ddb_value *v;
        if (k[i]->name == NULL)
            continue;
        v = ddb_map_getz(item, k[i]->name);
        if (v == NULL)
            return DDB_EINVAL;
        ddb_buf_putc(out, i ? '|' : '{');
        if (v->type == DDB_TYPE_N) {
            ddb_number n;
            if (ddb_number_parse(&n, v->u.s.ptr, v->u.s.len, NULL) != 0)
                return DDB_EINVAL;
            ddb_buf_puts(out, "N:");
            ddb_number_format(out, &n);
        } else if (v->type == DDB_TYPE_S || v->type == DDB_TYPE_B) {
            /* the bytes as they are, after their length: nothing to escape or
             * encode (this was a JSON rendering, a tenth of an import's work
             * outside SHA-256 and inflate) */
            ddb_buf_putc(out, v->type == DDB_TYPE_S ? 'S' : 'B');
            ddb_buf_put_u64(out, v->u.s.len);
            ddb_buf_putc(out, ':');
            ddb_buf_append(out, v->u.s.ptr, v->u.s.len);
        } else {
            ddb_json_put_typed_value(out, v);
        }
    }
    return out->oom ? DDB_ENOMEM : 0;
}

/* Parses the UnprocessedItems of a response and returns which entries they
 * are (flags[i] = 1). Returns 0, or -1 when the answer cannot be matched to
 * the batch (then everything is sent again: puts are idempotent). */
int ddb_table_output_find_unprocessed(table_output *to, batch *b, const ddb_response *resp,
                                      char *flags, double *capacity)
{
    ddb_json_parser *p = NULL;
    ddb_arena *a = NULL;
    ddb_value root, conv;
    const ddb_value *un, *list, *cc;
    ddb_buf sig = DDB_BUF_INIT;
    int rc = 0;

    if (ddb_json_parser_new(&p) != 0 || ddb_arena_new(&a, 0) != 0 ||
        ddb_json_parse_plain(p, &root, resp->body, resp->body_len, a, NULL) != 0 ||
        root.type != DDB_TYPE_M) {
        rc = -1;
        goto done;
    }
    if ((cc = ddb_map_getz(&root.u.m, "ConsumedCapacity")) != NULL && cc->type == DDB_TYPE_L) {
        for (size_t i = 0; i < cc->u.l.count; i++) {
            const ddb_value *cu;
            if (cc->u.l.items[i].type == DDB_TYPE_M &&
                (cu = ddb_map_getz(&cc->u.l.items[i].u.m, "CapacityUnits")) != NULL &&
                cu->type == DDB_TYPE_N)
                *capacity += strtod(cu->u.s.ptr, NULL); /* a gauge, not data: double is fine */
        }
    }
    un = ddb_map_getz(&root.u.m, "UnprocessedItems");
    if (un == NULL || un->type != DDB_TYPE_M || un->u.m.count == 0)
        goto done;
    list = ddb_map_getz(&un->u.m, to->table);
    if (list == NULL || list->type != DDB_TYPE_L || un->u.m.count != 1) {
        rc = -1;
        goto done;
    }
    for (size_t i = 0; i < list->u.l.count; i++) {
        const ddb_value *req = &list->u.l.items[i], *inner, *item;
        int is_del;
        size_t j;
        if (req->type != DDB_TYPE_M || req->u.m.count != 1) {
            rc = -1;
            goto done;
        }
        is_del = req->u.m.attrs[0].name.len == 13 &&
                 memcmp(req->u.m.attrs[0].name.ptr, "DeleteRequest", 13) == 0;
        inner = &req->u.m.attrs[0].value;
        item =
            inner->type == DDB_TYPE_M ? ddb_map_getz(&inner->u.m, is_del ? "Key" : "Item") : NULL;
        if (item == NULL) {
            rc = -1;
            goto done;
        }
        /* {"attr":{"S":..}} parsed as plain JSON: read it as the typed map it spells */
        {
            ddb_value wrapped;
            ddb_attr wa;
            wa.name.ptr = "M";
            wa.name.len = 1;
            wa.value = *item;
            wrapped.type = DDB_TYPE_M;
            wrapped.u.m.attrs = &wa;
            wrapped.u.m.count = 1;
            if (ddb_value_from_typed_json(&conv, &wrapped, a, NULL) != 0 ||
                ddb_table_output_key_signature(&sig, &to->info->schema, &conv.u.m) != 0) {
                rc = -1;
                goto done;
            }
        }
        for (j = 0; j < b->n; j++) {
            if (!flags[j] && b->entries[j]->key_len == sig.len &&
                memcmp(b->entries[j]->key, sig.ptr, sig.len) == 0) {
                flags[j] = 1;
                break;
            }
        }
        if (j == b->n) {
            rc = -1;
            goto done;
        }
    }
done:
    ddb_buf_dispose(&sig);
    ddb_arena_free(a);
    ddb_json_parser_free(p);
    return rc;
}
