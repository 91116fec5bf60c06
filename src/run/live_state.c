/*
 * live_state.c — the shards a live migration knows (their order: a child after its parent) and
 * the state file that keeps their positions between runs (STATE.live), for live.c.
 */
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/array.h"
#include "ddbpipe/fs.h"
#include "ddbpipe/json.h"
#include "run/live_internal.h"

/* --------------------------------------------------------------- shards */

live_shard *live_find_shard(live *l, const char *id)
{
    for (size_t i = 0; id != NULL && i < l->n_shards; i++)
        if (strcmp(l->shards[i].id, id) == 0)
            return &l->shards[i];
    return NULL;
}

/* A shard the position does not know yet. Returns it, or NULL on OOM. */
live_shard *live_add_shard(live *l, const char *id, const char *parent)
{
    live_shard *s = ddb_array_reserve(l->shards, l->n_shards, &l->cap_shards, sizeof(*s), 8);
    if (s == NULL)
        return NULL;
    l->shards = s;
    s = &s[l->n_shards];
    memset(s, 0, sizeof(*s));
    if ((s->id = strdup(id)) == NULL || (parent && (s->parent = strdup(parent)) == NULL)) {
        free(s->id);
        free(s->parent);
        return NULL;
    }
    l->n_shards++;
    return s;
}

/* May the shard be read: not done, and its parent (when the position knows
 * it) done, so a key's older changes are applied before its newer ones. */
int live_readable(live *l, const live_shard *s)
{
    const live_shard *p = live_find_shard(l, s->parent);
    return !s->done && (p == NULL || p->done);
}

int live_set_str(char **dst, const char *src)
{
    char *d = src ? strdup(src) : NULL;
    if (src != NULL && d == NULL)
        return DDB_ENOMEM;
    free(*dst);
    *dst = d;
    return 0;
}

/* ----------------------------------------------------------- state file */

int live_save_state(live *l, ddb_error *err)
{
    ddb_buf b = DDB_BUF_INIT;
    int rc;
    if (l->state_file == NULL)
        return 0;
    ddb_buf_puts(&b, "{\"ddbpipe_live\":1,\"source\":");
    ddb_json_put_string(&b, l->o.source_table, strlen(l->o.source_table));
    ddb_buf_puts(&b, ",\"target\":");
    ddb_json_put_string(&b, l->o.target_table, strlen(l->o.target_table));
    ddb_buf_puts(&b, ",\"stream\":");
    ddb_json_put_string(&b, l->arn, strlen(l->arn));
    ddb_buf_puts(&b, ",\"shards\":[");
    for (size_t i = 0; i < l->n_shards; i++) {
        const live_shard *s = &l->shards[i];
        ddb_buf_printf(&b, "%s{\"id\":", i ? "," : "");
        ddb_json_put_string(&b, s->id, strlen(s->id));
        if (s->parent) {
            ddb_buf_puts(&b, ",\"parent\":");
            ddb_json_put_string(&b, s->parent, strlen(s->parent));
        }
        if (s->seq) {
            ddb_buf_puts(&b, ",\"seq\":");
            ddb_json_put_string(&b, s->seq, strlen(s->seq));
        }
        ddb_buf_printf(&b, ",\"done\":%s}", s->done ? "true" : "false");
    }
    ddb_buf_puts(&b, "]}\n");
    rc = b.oom ? ddb_error_set(err, DDB_ENOMEM, "out of memory")
               : ddb_file_write_atomic(l->state_file, b.ptr, b.len, err);
    ddb_buf_dispose(&b);
    return rc;
}

static const char *jstr(json_object *o, const char *key)
{
    json_object *v;
    if (o && json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string))
        return json_object_get_string(v);
    return NULL;
}

/* The shards of a saved position, after checking it is this migration's. */
static int restore_shards(live *l, json_object *root, ddb_error *err)
{
    json_object *shards, *v;
    const char *src = jstr(root, "source"), *dst = jstr(root, "target");
    if (src == NULL || dst == NULL || strcmp(src, l->o.source_table) != 0 ||
        strcmp(dst, l->o.target_table) != 0)
        return ddb_error_set(err, DDB_EUSAGE,
                             "%s records a live migration of other tables (%s to %s)",
                             l->state_file, src ? src : "?", dst ? dst : "?");
    if (jstr(root, "stream") == NULL || live_set_str(&l->arn, jstr(root, "stream")) != 0)
        return ddb_error_set(err, DDB_EUSAGE, "%s: no stream", l->state_file);
    if (!json_object_object_get_ex(root, "shards", &shards))
        return ddb_error_set(err, DDB_EUSAGE, "%s: no shards", l->state_file);
    for (size_t i = 0; i < json_object_array_length(shards); i++) {
        json_object *o = json_object_array_get_idx(shards, i);
        live_shard *s;
        if (jstr(o, "id") == NULL)
            return ddb_error_set(err, DDB_EUSAGE, "%s: a shard without id", l->state_file);
        if ((s = live_add_shard(l, jstr(o, "id"), jstr(o, "parent"))) == NULL ||
            live_set_str(&s->seq, jstr(o, "seq")) != 0)
            return ddb_error_set(err, DDB_ENOMEM, "out of memory");
        s->done = json_object_object_get_ex(o, "done", &v) && json_object_get_boolean(v);
    }
    return 0;
}

/* Loads STATE.live. Returns 0, DDB_ENOTFOUND (none), DDB_EUSAGE, DDB_ENOMEM. */
int live_load_state(live *l, ddb_error *err)
{
    char *text = NULL;
    size_t len;
    json_object *root = NULL;
    int rc = ddb_file_read_small(&text, &len, l->state_file, 64u << 20, err);
    if (rc != 0)
        return rc;
    if ((root = json_tokener_parse(text)) == NULL || jstr(root, "stream") == NULL)
        rc = ddb_error_set(err, DDB_EUSAGE, "%s is not a live migration's state", l->state_file);
    else
        rc = restore_shards(l, root, err);
    json_object_put(root);
    free(text);
    return rc;
}
