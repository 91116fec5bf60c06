/*
 * Matching the BatchWriteItem writer's entries by key: the canonical key
 * signature every entry carries, and the reading of a response's
 * UnprocessedItems back to the entries of its batch.
 */
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/json.h"
#include "ddbpipe/number.h"
#include "write/output_table_internal.h"

/* The attribute named name (len bytes) in item; it is most often where
 * guess says (keys come first in most items), so that one is looked at
 * before a search. */
static const ddb_value *key_value(const ddb_map *item, const char *name, size_t len, size_t guess)
{
    if (guess < item->count && item->attrs[guess].name.len == len &&
        memcmp(item->attrs[guess].name.ptr, name, len) == 0)
        return &item->attrs[guess].value;
    return ddb_map_get(item, name, len);
}

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
        v = key_value(item, k[i]->name, strlen(k[i]->name), (size_t)i);
        if (v == NULL)
            return DDB_EINVAL;
        if (v->type == DDB_TYPE_S || v->type == DDB_TYPE_B) {
            /* the bytes as they are, after their length: nothing to escape or
             * encode (a JSON rendering was a tenth of an import's work outside
             * SHA-256 and inflate); written in place, room made once */
            char digits[24], *w;
            size_t nd = 0, len = v->u.s.len;
            do
                digits[sizeof(digits) - ++nd] = (char)('0' + len % 10);
            while ((len /= 10) != 0);
            if (ddb_buf_reserve(out, 3 + nd + v->u.s.len) != 0)
                return DDB_ENOMEM;
            w = out->ptr + out->len;
            *w++ = i ? '|' : '{';
            *w++ = v->type == DDB_TYPE_S ? 'S' : 'B';
            memcpy(w, digits + sizeof(digits) - nd, nd);
            w += nd;
            *w++ = ':';
            if (v->u.s.len)
                memcpy(w, v->u.s.ptr, v->u.s.len);
            w += v->u.s.len;
            *w = '\0';
            out->len = (size_t)(w - out->ptr);
            continue;
        }
        ddb_buf_putc(out, i ? '|' : '{');
        if (v->type == DDB_TYPE_N) {
            ddb_number n;
            if (ddb_number_parse(&n, v->u.s.ptr, v->u.s.len, NULL) != 0)
                return DDB_EINVAL;
            ddb_buf_puts(out, "N:");
            ddb_number_format(out, &n);
        } else {
            ddb_json_put_typed_value(out, v);
        }
    }
    return out->oom ? DDB_ENOMEM : 0;
}

/* The capacity units an answer's ConsumedCapacity adds up to, added to *capacity. */
static void add_consumed(const ddb_map *root, double *capacity)
{
    const ddb_value *cc = ddb_map_getz(root, "ConsumedCapacity");
    if (cc == NULL || cc->type != DDB_TYPE_L)
        return;
    for (size_t i = 0; i < cc->u.l.count; i++) {
        const ddb_value *cu;
        if (cc->u.l.items[i].type == DDB_TYPE_M &&
            (cu = ddb_map_getz(&cc->u.l.items[i].u.m, "CapacityUnits")) != NULL &&
            cu->type == DDB_TYPE_N)
            *capacity += strtod(cu->u.s.ptr, NULL); /* a gauge, not data: double is fine */
    }
}

/* Flags the entry of b that one request of UnprocessedItems ({"PutRequest":
 * {"Item": ..}} or {"DeleteRequest": {"Key": ..}}) is, by its key signature
 * (built in sig). Returns 0, or -1 when it is no entry of the batch that is
 * not flagged yet. */
static int flag_unprocessed(table_output *to, const batch *b, const ddb_value *req, char *flags,
                            ddb_buf *sig, ddb_arena *a)
{
    const ddb_value *inner, *item;
    ddb_value wrapped, conv;
    ddb_attr wa;
    int is_del;
    if (req->type != DDB_TYPE_M || req->u.m.count != 1)
        return -1;
    is_del = req->u.m.attrs[0].name.len == 13 &&
             memcmp(req->u.m.attrs[0].name.ptr, "DeleteRequest", 13) == 0;
    inner = &req->u.m.attrs[0].value;
    item = inner->type == DDB_TYPE_M ? ddb_map_getz(&inner->u.m, is_del ? "Key" : "Item") : NULL;
    if (item == NULL)
        return -1;
    /* {"attr":{"S":..}} parsed as plain JSON: read it as the typed map it spells */
    wa.name.ptr = "M";
    wa.name.len = 1;
    wa.value = *item;
    wrapped.type = DDB_TYPE_M;
    wrapped.u.m.attrs = &wa;
    wrapped.u.m.count = 1;
    if (ddb_value_from_typed_json(&conv, &wrapped, a, NULL) != 0 ||
        ddb_table_output_key_signature(sig, &to->info->schema, &conv.u.m) != 0)
        return -1;
    for (size_t j = 0; j < b->n; j++) {
        if (!flags[j] && b->entries[j]->key_len == sig->len &&
            memcmp(b->entries[j]->key, sig->ptr, sig->len) == 0) {
            flags[j] = 1;
            return 0;
        }
    }
    return -1;
}

/* Parses the UnprocessedItems of a response and returns which entries they
 * are (flags[i] = 1). Returns 0, or -1 when the answer cannot be matched to
 * the batch (then everything is sent again: puts are idempotent). */
int ddb_table_output_find_unprocessed(table_output *to, batch *b, const ddb_response *resp,
                                      char *flags, double *capacity)
{
    ddb_value root;
    const ddb_value *un, *list;
    ddb_buf sig = DDB_BUF_INIT;
    int rc = 0;

    /* the writer's own parser and arena, made once: one answer a batch */
    if ((to->resp_parser == NULL && ddb_json_parser_new(&to->resp_parser) != 0) ||
        (to->resp_arena == NULL && ddb_arena_new(&to->resp_arena, 0) != 0))
        return -1;
    ddb_arena_reset(to->resp_arena);
    if (ddb_json_parse_plain(to->resp_parser, &root, resp->body, resp->body_len, to->resp_arena,
                             NULL) != 0 ||
        root.type != DDB_TYPE_M)
        return -1;
    add_consumed(&root.u.m, capacity);
    un = ddb_map_getz(&root.u.m, "UnprocessedItems");
    if (un == NULL || un->type != DDB_TYPE_M || un->u.m.count == 0)
        return 0;
    list = ddb_map_getz(&un->u.m, to->table);
    if (list == NULL || list->type != DDB_TYPE_L || un->u.m.count != 1)
        return -1;
    for (size_t i = 0; i < list->u.l.count && rc == 0; i++)
        rc = flag_unprocessed(to, b, &list->u.l.items[i], flags, &sig, to->resp_arena);
    ddb_buf_dispose(&sig);
    return rc;
}
