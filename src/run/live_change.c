/*
 * live_change.c — one DynamoDB Streams record as writes to the target
 * through the mappings: what a change means for the re-keyed table.
 *
 *   INSERT/MODIFY  a put of the new image, re-keyed; when the old image
 *                  re-keys to another target key (an attribute that feeds a
 *                  target key changed), a delete of that key first
 *   REMOVE         a delete of the old image's target key (or, without an
 *                  old image, of the Keys' target key)
 *
 * Streams without a new image (KEYS_ONLY, OLD_IMAGE) have the item read
 * back with a consistent GetItem: the item as it is now, which the records
 * still to come lead to anyway.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/json.h"
#include "ddbpipe/transform.h"
#include "run/live_internal.h"

/* The value of attribute name in item, or NULL. */
static const ddb_value *attr_of(const ddb_item *item, const char *name)
{
    return name ? ddb_map_getz(item, name) : NULL;
}

static int same_value(const ddb_value *a, const ddb_value *b)
{
    if (a == NULL || b == NULL)
        return a == b;
    return a->type == b->type && a->u.s.len == b->u.s.len &&
           ddb_mem_eq(a->u.s.ptr, b->u.s.ptr, a->u.s.len);
}

/* Do two target items (or keys) have the same table key? Key values are S,
 * N or B: their bytes say it (N as DynamoDB normalised it in both images). */
static int same_key(const ddb_mapping *to, const ddb_item *a, const ddb_item *b)
{
    return same_value(attr_of(a, to->table.pk.name), attr_of(b, to->table.pk.name)) &&
           same_value(attr_of(a, to->table.sk.name), attr_of(b, to->table.sk.name));
}

/* An image decoded with the source mapping, encoded for the target: the
 * whole item (keys_only 0) or only its key (1). Returns 0, DDB_ENOMATCH
 * (of no entity), DDB_EINVAL (why in err), DDB_ENOMEM. */
static int rekey(ddb_item *out, const ddb_entity **ent, live *l, const ddb_item *image,
                 int keys_only, ddb_error *err)
{
    ddb_decoded d;
    const ddb_entity *te;
    int rc = keys_only ? ddb_transform_decode_key(&d, l->o.mapping, image, l->arena, err)
                       : ddb_transform_decode(&d, l->o.mapping, image, l->arena, err);
    if (rc != 0)
        return rc;
    *ent = d.entity;
    if ((te = ddb_mapping_entity(l->o.to_mapping, d.entity->name)) == NULL)
        return ddb_error_set(err, DDB_EINVAL, "entity %s is not in the target mapping",
                             d.entity->name);
    return keys_only
               ? ddb_transform_encode_key(out, l->o.to_mapping, te, &d.record, 1, l->arena, err)
               : ddb_transform_encode(out, l->o.to_mapping, te, &d.record, 1, l->arena, err);
}

/* The target key the item had before the change: from the old image (any
 * attribute may feed the target key), else from the Keys (the start made
 * sure the target key then follows from the source key alone). */
static int old_target(ddb_item *out, live *l, const ddb_stream_record *r, ddb_error *err)
{
    const ddb_entity *e;
    ddb_item full;
    int rc;
    if (!r->has_old)
        return rekey(out, &e, l, &r->keys, 1, err);
    /* the whole old image decodes (its non-key attributes may be in the key) */
    if ((rc = rekey(&full, &e, l, &r->old_image, 0, err)) != 0)
        return rc;
    *out = full;
    return 0;
}

/* GetItem of the record's key, consistent: *found 0 when the item is gone. */
static int fetch_current(ddb_item *out, int *found, live *l, const ddb_stream_record *r,
                         ddb_error *err)
{
    ddb_buf b = DDB_BUF_INIT;
    ddb_response resp;
    ddb_json_parser *jp = NULL;
    ddb_value root;
    const ddb_value *it;
    char *body;
    int rc;

    *found = 0;
    memset(&resp, 0, sizeof(resp));
    ddb_buf_puts(&b, "{\"TableName\":");
    ddb_json_put_string(&b, l->o.source_table, strlen(l->o.source_table));
    ddb_buf_puts(&b, ",\"ConsistentRead\":true,\"Key\":");
    ddb_json_put_typed_map(&b, &r->keys);
    ddb_buf_puts(&b, "}");
    if (b.oom || ddb_json_parser_new(&jp) != 0) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto done;
    }
    if ((rc = ddb_client_call(l->o.client, "GetItem", b.ptr, b.len, &resp, err)) != 0)
        goto done;
    if (!resp.ok) {
        rc = ddb_error_set(err, DDB_ENET, "GetItem of %s failed: %s: %s", l->o.source_table,
                           resp.error_type, resp.message);
        goto done;
    }
    /* the item's values point into the text: it lives in the page's arena */
    if ((body = ddb_arena_memdup(l->arena, resp.body, resp.body_len + 1)) == NULL) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto done;
    }
    if ((rc = ddb_json_parse_plain(jp, &root, body, resp.body_len, l->arena, err)) != 0 ||
        root.type != DDB_TYPE_M)
        goto done;
    l->stats.fetched++;
    if ((it = ddb_map_getz(&root.u.m, "Item")) != NULL &&
        (rc = ddb_stream_typed_item(out, it, l->arena, err)) == 0)
        *found = 1;
done:
    ddb_json_parser_free(jp);
    ddb_response_dispose(&resp);
    ddb_buf_dispose(&b);
    return rc;
}

/* A change's item of no entity, or one refused: one line in its file. */
static int set_aside(live *l, FILE **f, const char *path, uint64_t *count,
                     const ddb_stream_record *r, const char *why, ddb_error *err)
{
    ddb_buf *b = &l->scratch;
    (*count)++;
    if (path == NULL)
        return 0;
    if (*f == NULL && (*f = live_open_side(path)) == NULL)
        return ddb_error_set(err, DDB_EIO, "cannot open %s: %s", path, strerror(errno));
    b->len = 0;
    ddb_buf_printf(b, "{\"sequenceNumber\":\"%s\",\"eventName\":\"%s\",\"reason\":", r->seq,
                   r->event == DDB_STREAM_INSERT   ? "INSERT"
                   : r->event == DDB_STREAM_MODIFY ? "MODIFY"
                                                   : "REMOVE");
    ddb_json_put_text(b, why, strlen(why));
    ddb_buf_puts(b, ",\"Keys\":");
    ddb_json_put_typed_map(b, &r->keys);
    if (r->has_new) {
        ddb_buf_puts(b, ",\"NewImage\":");
        ddb_json_put_typed_map(b, &r->new_image);
    }
    ddb_buf_puts(b, "}\n");
    if (b->oom)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    if (fwrite(b->ptr, 1, b->len, *f) != b->len || fflush(*f) != 0)
        return ddb_error_set(err, DDB_EIO, "cannot write %s", path);
    return 0;
}

static int put_target(live *l, ddb_record_kind kind, const ddb_item *item, ddb_error *err)
{
    int rc = l->out->vt->put(l->out, -1, kind, item, 0, NULL, err);
    if (rc == 0)
        (*(kind == DDB_REC_DELETE ? &l->stats.deletes : &l->stats.puts))++;
    return rc;
}

/* A failure of one change: set aside (unmatched, refused) or the run's end. */
static int settle_failure(live *l, const ddb_stream_record *r, int rc, const ddb_error *why,
                          ddb_error *err)
{
    if (rc == DDB_ENOMATCH)
        return set_aside(l, &l->unmatched, l->unmatched_path, &l->stats.unmatched, r, why->message,
                         err);
    if (rc == DDB_EINVAL)
        return set_aside(l, &l->rejects, l->rejects_path, &l->stats.rejected, r, why->message, err);
    return ddb_error_set(err, rc, "%s", why->message);
}

/* REMOVE: the target item the source item was goes. */
static int apply_remove(live *l, const ddb_stream_record *r, ddb_error *err)
{
    ddb_item old;
    ddb_error why;
    int rc = old_target(&old, l, r, &why);
    if (rc != 0)
        return settle_failure(l, r, rc, &why, err);
    return put_target(l, DDB_REC_DELETE, &old, err);
}

/* INSERT/MODIFY: the new item, after the old target item when it moved. */
static int apply_put(live *l, const ddb_stream_record *r, ddb_error *err)
{
    ddb_item now, target, old;
    const ddb_entity *e;
    ddb_error why;
    int found = 1, rc, has_old_target = 0;

    if (r->has_new)
        now = r->new_image;
    else if ((rc = fetch_current(&now, &found, l, r, err)) != 0)
        return rc;
    if (r->event == DDB_STREAM_MODIFY && r->has_old) {
        rc = old_target(&old, l, r, &why);
        if (rc == DDB_ENOMEM)
            return ddb_error_set(err, rc, "%s", why.message);
        has_old_target = rc == 0; /* an old image of no entity had no target item */
    }
    rc = found ? rekey(&target, &e, l, &now, 0, &why) : DDB_ENOTFOUND;
    if (has_old_target && (rc != 0 || !same_key(l->o.to_mapping, &old, &target))) {
        int drc = put_target(l, DDB_REC_DELETE, &old, err);
        if (drc != 0)
            return drc;
        l->stats.moved += rc == 0;
    }
    if (rc == DDB_ENOTFOUND)
        return 0; /* gone since: its REMOVE is still to come */
    if (rc != 0)
        return settle_failure(l, r, rc, &why, err);
    return put_target(l, DDB_REC_PUT, &target, err);
}

int live_apply_change(live *l, const ddb_stream_record *r, ddb_error *err)
{
    int rc = r->event == DDB_STREAM_REMOVE ? apply_remove(l, r, err) : apply_put(l, r, err);
    if (rc == 0)
        l->stats.changes++;
    return rc;
}

int live_check_view(const live *l, const char *view, ddb_buf *why)
{
    const ddb_mapping *m = l->o.mapping, *to = l->o.to_mapping;
    int problems = 0;
    if (strcmp(view, "NEW_AND_OLD_IMAGES") == 0 || strcmp(view, "OLD_IMAGE") == 0)
        return 0;
    for (size_t i = 0; i < m->n_entities; i++) {
        const ddb_entity *e = &m->entities[i];
        const ddb_entity *te = ddb_mapping_entity(to, e->name);
        for (size_t k = 0; te != NULL && k < te->n_keys; k++) {
            const ddb_template *t = &te->keys[k];
            if (t->role != DDB_ROLE_PK && t->role != DDB_ROLE_SK)
                continue;
            for (size_t s = 0; s < t->n_segs; s++) {
                const char *f;
                int idx;
                if (t->segs[s].field < 0)
                    continue;
                f = te->fields[t->segs[s].field].name;
                idx = ddb_entity_field_index(e, f, strlen(f));
                if (idx >= 0 && e->fields[idx].in_table_key)
                    continue;
                ddb_buf_printf(why, "%s%s.%s feeds the target key %s but is not in the source key",
                               problems++ ? "; " : "", e->name, f, t->attr);
            }
        }
    }
    return problems;
}
