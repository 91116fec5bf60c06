/*
 * Control plane: DescribeTable and CreateTable. These bodies are small and
 * carry no item data, so json-c is fine for them.
 */
#include "ddbpipe/table.h"

#include <assert.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ddbpipe/array.h"
#include "ddbpipe/json.h"
#include "ddbpipe/clock.h"

static const char *jstr(json_object *o, const char *key)
{
    json_object *v;
    if (o && json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string))
        return json_object_get_string(v);
    return NULL;
}

static uint64_t juint(json_object *o, const char *key)
{
    json_object *v;
    if (o && json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_int)) {
        int64_t n = json_object_get_int64(v);
        return n < 0 ? 0 : (uint64_t)n;
    }
    return 0;
}

/* A copy of s (NULL stays NULL); a failed copy sets *oom. */
static char *dup_or_null(const char *s, int *oom)
{
    char *d = s ? strdup(s) : NULL;
    if (s != NULL && d == NULL)
        *oom = 1;
    return d;
}

/* The type of attribute name in AttributeDefinitions. */
static ddb_type attr_type(json_object *defs, const char *name)
{
    size_t n = defs ? json_object_array_length(defs) : 0;
    for (size_t i = 0; i < n; i++) {
        json_object *d = json_object_array_get_idx(defs, i);
        const char *an = jstr(d, "AttributeName"), *at = jstr(d, "AttributeType");
        ddb_type t;
        if (an && at && strcmp(an, name) == 0 && ddb_type_parse(&t, at, strlen(at)) == 0)
            return t;
    }
    return DDB_TYPE_S;
}

/* KeySchema [{AttributeName, KeyType: HASH|RANGE}] -> pk, sk. */
static void key_schema(json_object *ks, json_object *defs, ddb_key_attr *pk, ddb_key_attr *sk,
                       int *oom)
{
    size_t n = ks ? json_object_array_length(ks) : 0;
    for (size_t i = 0; i < n; i++) {
        json_object *k = json_object_array_get_idx(ks, i);
        const char *an = jstr(k, "AttributeName"), *kt = jstr(k, "KeyType");
        ddb_key_attr *dst = kt && strcmp(kt, "RANGE") == 0 ? sk : pk;
        if (an == NULL)
            continue;
        dst->name = dup_or_null(an, oom);
        dst->type = attr_type(defs, an);
    }
}

/* Projection {ProjectionType, NonKeyAttributes} of an index description. */
static void projection(json_object *ix, ddb_index_info *n, int *oom)
{
    json_object *pr = NULL, *nk = NULL;
    size_t cnt;
    json_object_object_get_ex(ix, "Projection", &pr);
    n->projection = dup_or_null(pr ? jstr(pr, "ProjectionType") : NULL, oom);
    if (pr == NULL || !json_object_object_get_ex(pr, "NonKeyAttributes", &nk) ||
        !json_object_is_type(nk, json_type_array) || (cnt = json_object_array_length(nk)) == 0)
        return;
    if ((n->non_key = calloc(cnt, sizeof(char *))) == NULL) {
        *oom = 1;
        return;
    }
    for (size_t i = 0; i < cnt; i++) {
        const char *a = json_object_get_string(json_object_array_get_idx(nk, i));
        if (a != NULL && (n->non_key[n->n_non_key] = dup_or_null(a, oom)) != NULL)
            n->n_non_key++;
    }
}

int ddb_table_info_parse(ddb_table_info **out, const char *json, const char *table, ddb_error *err)
{
    json_object *root = json_tokener_parse(json), *t, *defs = NULL, *ks = NULL, *v;
    ddb_table_info *ti = NULL;
    size_t npk = 0, nsk = 0, cap_indexes = 0;
    int rc = 0, oom = 0;

    *out = NULL;
    if (root == NULL || !json_object_object_get_ex(root, "Table", &t) ||
        !json_object_is_type(t, json_type_object)) {
        rc = ddb_error_set(err, DDB_EINVAL, "not a table description (no \"Table\" object)");
        goto done;
    }
    if ((ti = calloc(1, sizeof(*ti))) == NULL) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto done;
    }
    ti->name = dup_or_null(table ? table : jstr(t, "TableName"), &oom);
    ti->arn = dup_or_null(jstr(t, "TableArn"), &oom);
    ti->status = dup_or_null(jstr(t, "TableStatus"), &oom);
    ti->item_count = juint(t, "ItemCount");
    ti->size_bytes = juint(t, "TableSizeBytes");
    if (json_object_object_get_ex(t, "BillingModeSummary", &v))
        ti->billing_mode = dup_or_null(jstr(v, "BillingMode"), &oom);
    if (json_object_object_get_ex(t, "ProvisionedThroughput", &v)) {
        ti->read_capacity = juint(v, "ReadCapacityUnits");
        ti->write_capacity = juint(v, "WriteCapacityUnits");
    }
    if (ti->billing_mode == NULL)
        ti->billing_mode =
            dup_or_null(ti->write_capacity ? "PROVISIONED" : "PAY_PER_REQUEST", &oom);
    json_object_object_get_ex(t, "AttributeDefinitions", &defs);
    json_object_object_get_ex(t, "KeySchema", &ks);
    key_schema(ks, defs, &ti->pk, &ti->sk, &oom);
    for (int g = 0; g < 2; g++) {
        json_object *list;
        if (!json_object_object_get_ex(t, g ? "GlobalSecondaryIndexes" : "LocalSecondaryIndexes",
                                       &list) ||
            !json_object_is_type(list, json_type_array))
            continue;
        for (size_t i = 0; i < json_object_array_length(list); i++) {
            json_object *ix = json_object_array_get_idx(list, i), *iks = NULL;
            ddb_index_info *n =
                ddb_array_reserve(ti->indexes, ti->n_indexes, &cap_indexes, sizeof(*n), 4);
            if (n == NULL) {
                rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
                goto done;
            }
            ti->indexes = n;
            n = &ti->indexes[ti->n_indexes++];
            memset(n, 0, sizeof(*n));
            n->name = dup_or_null(jstr(ix, "IndexName"), &oom);
            n->global = g;
            n->status = g ? dup_or_null(jstr(ix, "IndexStatus"), &oom) : NULL;
            json_object_object_get_ex(ix, "KeySchema", &iks);
            key_schema(iks, defs, &n->pk, &n->sk, &oom);
            projection(ix, n, &oom);
        }
    }
    ti->index_pk = calloc(ti->n_indexes + 1, sizeof(ddb_key_attr));
    ti->index_sk = calloc(ti->n_indexes + 1, sizeof(ddb_key_attr));
    if (oom || ti->index_pk == NULL || ti->index_sk == NULL) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < ti->n_indexes; i++) {
        if (ti->indexes[i].global && ti->indexes[i].pk.name)
            ti->index_pk[npk++] = ti->indexes[i].pk;
        if (ti->indexes[i].sk.name)
            ti->index_sk[nsk++] = ti->indexes[i].sk;
    }
    ti->schema.partition = ti->pk;
    ti->schema.sort = ti->sk;
    ti->schema.index_pk = ti->index_pk;
    ti->schema.n_index_pk = npk;
    ti->schema.index_sk = ti->index_sk;
    ti->schema.n_index_sk = nsk;
    *out = ti;
    ti = NULL;
done:
    if (root)
        json_object_put(root);
    ddb_table_info_free(ti);
    return rc;
}

/* Calls op with {"TableName": table}. 0 with *resp a success (the caller
 * disposes of it, also after a failure); DDB_ENOTFOUND when the table does
 * not exist (the message names the endpoint's region), DDB_ENET for other
 * failures. */
static int call_on_table(ddb_response *resp, ddb_client *c, const char *op, const char *table,
                         ddb_error *err)
{
    ddb_buf body = DDB_BUF_INIT;
    int rc;

    memset(resp, 0, sizeof(*resp));
    ddb_buf_puts(&body, "{\"TableName\":");
    ddb_json_put_string(&body, table, strlen(table));
    ddb_buf_putc(&body, '}');
    if ((rc = ddb_client_call(c, op, body.ptr, body.len, resp, err)) != 0 || resp->ok)
        goto done;
    if (strcmp(resp->error_type, "ResourceNotFoundException") == 0) {
        char where[300];
        ddb_client_describe_target(c, where, sizeof(where));
        rc = ddb_error_set(err, DDB_ENOTFOUND, "table %s does not exist in %s (%s)", table, where,
                           resp->message);
    } else {
        rc = ddb_error_set(err, DDB_ENET, "%s %s failed: %s%s%s", op, table, resp->error_type,
                           resp->error_type[0] ? ": " : "", resp->message);
    }
done:
    ddb_buf_dispose(&body);
    return rc;
}

int ddb_table_describe(ddb_table_info **out, ddb_client *c, const char *table, ddb_error *err)
{
    ddb_response resp;
    int rc;

    *out = NULL;
    if ((rc = call_on_table(&resp, c, "DescribeTable", table, err)) != 0)
        goto done;
    if ((rc = ddb_table_info_parse(out, resp.body, table, err)) == DDB_EINVAL)
        rc = ddb_error_set(err, DDB_ENET, "DescribeTable %s: unexpected response", table);
done:
    ddb_response_dispose(&resp);
    return rc;
}

void ddb_table_info_free(ddb_table_info *t)
{
    if (t == NULL)
        return;
    for (size_t i = 0; i < t->n_indexes; i++) {
        free(t->indexes[i].name);
        free(t->indexes[i].status);
        free((char *)t->indexes[i].pk.name);
        free((char *)t->indexes[i].sk.name);
        free(t->indexes[i].projection);
        for (size_t k = 0; k < t->indexes[i].n_non_key; k++)
            free(t->indexes[i].non_key[k]);
        free(t->indexes[i].non_key);
    }
    free(t->indexes);
    free(t->index_pk);
    free(t->index_sk);
    free((char *)t->pk.name);
    free((char *)t->sk.name);
    free(t->name);
    free(t->arn);
    free(t->status);
    free(t->billing_mode);
    free(t);
}

/* Adds an attribute definition once. */
static void add_def(ddb_buf *b, const char **seen, size_t *n, const ddb_key_attr *k)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp(seen[i], k->name) == 0)
            return;
    seen[(*n)++] = k->name;
    ddb_buf_puts(b, *n > 1 ? ",{\"AttributeName\":" : "{\"AttributeName\":");
    ddb_json_put_string(b, k->name, strlen(k->name));
    ddb_buf_printf(b, ",\"AttributeType\":\"%s\"}", ddb_type_name(k->type));
}

static void put_key_schema(ddb_buf *b, const ddb_key_attr *pk, const ddb_key_attr *sk)
{
    ddb_buf_puts(b, "\"KeySchema\":[{\"AttributeName\":");
    ddb_json_put_string(b, pk->name, strlen(pk->name));
    ddb_buf_puts(b, ",\"KeyType\":\"HASH\"}");
    if (sk->name) {
        ddb_buf_puts(b, ",{\"AttributeName\":");
        ddb_json_put_string(b, sk->name, strlen(sk->name));
        ddb_buf_puts(b, ",\"KeyType\":\"RANGE\"}");
    }
    ddb_buf_putc(b, ']');
}

static void put_projection(ddb_buf *b, const ddb_index_def *ix)
{
    ddb_buf_printf(b, ",\"Projection\":{\"ProjectionType\":\"%s\"", ix->projection);
    if (strcmp(ix->projection, "INCLUDE") == 0) {
        ddb_buf_puts(b, ",\"NonKeyAttributes\":[");
        for (size_t i = 0; i < ix->n_non_key; i++) {
            if (i)
                ddb_buf_putc(b, ',');
            ddb_json_put_string(b, ix->non_key[i], strlen(ix->non_key[i]));
        }
        ddb_buf_putc(b, ']');
    }
    ddb_buf_putc(b, '}');
}

int ddb_table_creation_params(ddb_buf *b, const ddb_mapping *m, const char *table, unsigned flags,
                              ddb_error *err)
{
    const ddb_table_def *t = &m->table;
    const char **seen = calloc(2 + 2 * t->n_indexes, sizeof(char *));
    size_t nseen = 0;
    int any;

    if (seen == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    ddb_buf_puts(b, "{\"TableName\":");
    ddb_json_put_string(b, table ? table : t->name, strlen(table ? table : t->name));
    ddb_buf_puts(b, ",\"BillingMode\":\"PAY_PER_REQUEST\",\"AttributeDefinitions\":[");
    add_def(b, seen, &nseen, &t->pk);
    if (t->sk.name)
        add_def(b, seen, &nseen, &t->sk);
    for (size_t i = 0; i < t->n_indexes; i++) {
        /* DynamoDB refuses a definition no key of the request uses. */
        if (!t->indexes[i].global && (flags & DDB_TABLE_NO_LSI))
            continue;
        add_def(b, seen, &nseen, &t->indexes[i].pk);
        if (t->indexes[i].sk.name)
            add_def(b, seen, &nseen, &t->indexes[i].sk);
    }
    ddb_buf_puts(b, "],");
    put_key_schema(b, &t->pk, &t->sk);
    for (int g = (flags & DDB_TABLE_NO_LSI) ? 1 : 0; g < 2; g++) {
        any = 0;
        for (size_t i = 0; i < t->n_indexes; i++) {
            const ddb_index_def *ix = &t->indexes[i];
            if (ix->global != g)
                continue;
            ddb_buf_puts(
                b, any ? ",{"
                       : (g ? ",\"GlobalSecondaryIndexes\":[{" : ",\"LocalSecondaryIndexes\":[{"));
            any = 1;
            ddb_buf_puts(b, "\"IndexName\":");
            ddb_json_put_string(b, ix->name, strlen(ix->name));
            ddb_buf_putc(b, ',');
            put_key_schema(b, &ix->pk, &ix->sk);
            put_projection(b, ix);
            ddb_buf_putc(b, '}');
        }
        if (any)
            ddb_buf_putc(b, ']');
    }
    ddb_buf_putc(b, '}');
    free(seen);
    return b->oom ? ddb_error_set(err, DDB_ENOMEM, "out of memory") : 0;
}

int ddb_table_create_request(ddb_buf *b, const ddb_mapping *m, const char *table, ddb_error *err)
{
    return ddb_table_creation_params(b, m, table, 0, err);
}

static int busy_status(const char *st)
{
    return st != NULL && (strcmp(st, "CREATING") == 0 || strcmp(st, "UPDATING") == 0);
}

/* 1: ready; 0: still being created or updated; -1: unusable (DELETING...). */
static int readiness(const ddb_table_info *t, int gsis)
{
    if (t->status != NULL && strcmp(t->status, "ACTIVE") != 0 && !busy_status(t->status))
        return -1;
    if (busy_status(t->status))
        return 0;
    for (size_t i = 0; gsis && i < t->n_indexes; i++)
        if (t->indexes[i].global && busy_status(t->indexes[i].status))
            return 0;
    return 1;
}

int ddb_table_wait_ready(ddb_table_info **out, ddb_client *c, const char *table, int gsis,
                         int timeout_s, volatile sig_atomic_t *stop, ddb_table_wait_fn on_wait,
                         void *ctx, ddb_error *err)
{
    ddb_table_info *ti = NULL;
    double t0 = ddb_clock_seconds(), pause = 1.0;
    int rc, ready;

    *out = NULL;
    for (;;) {
        if ((rc = ddb_table_describe(&ti, c, table, err)) != 0)
            goto done;
        if ((ready = readiness(ti, gsis)) != 0)
            break;
        if (ddb_clock_seconds() - t0 >= timeout_s) {
            rc = ddb_error_set(err, DDB_EUSAGE,
                               "table %s is still %s after %d s of waiting for it to become ACTIVE",
                               table, busy_status(ti->status) ? ti->status : "creating an index",
                               timeout_s);
            goto done;
        }
        if (on_wait != NULL)
            on_wait(ctx, ti, ddb_clock_seconds() - t0);
        ddb_table_info_free(ti);
        ti = NULL;
        ddb_clock_nap(pause, stop);
        if (stop && *stop) {
            rc = ddb_error_set(err, DDB_EINTR, "interrupted while waiting for table %s", table);
            goto done;
        }
        pause = pause < 5.0 ? pause * 1.5 : 5.0;
    }
    if (ready < 0) {
        rc = ddb_error_set(err, DDB_EUSAGE, "table %s is %s and cannot be used", table, ti->status);
        goto done;
    }
    *out = ti;
    ti = NULL;
done:
    ddb_table_info_free(ti);
    return rc;
}

int ddb_table_create(ddb_client *c, const ddb_mapping *m, const char *table, int exists_ok,
                     int timeout_s, volatile sig_atomic_t *stop, ddb_table_wait_fn on_wait,
                     void *ctx, ddb_error *err)
{
    ddb_buf body = DDB_BUF_INIT;
    ddb_response resp;
    ddb_table_info *ti = NULL;
    const char *name = table ? table : m->table.name;
    int rc;

    memset(&resp, 0, sizeof(resp));
    if ((rc = ddb_table_create_request(&body, m, name, err)) != 0 ||
        (rc = ddb_client_call(c, "CreateTable", body.ptr, body.len, &resp, err)) != 0)
        goto done;
    if (!resp.ok) {
        if (strcmp(resp.error_type, "ResourceInUseException") == 0 && exists_ok) {
            /* It exists: fine only if it is the table the mapping describes. */
            ddb_buf why = DDB_BUF_INIT;
            if ((rc = ddb_table_describe(&ti, c, name, err)) == 0 &&
                ddb_table_check_mapping(ti, m, &why) > 0)
                rc = ddb_error_set(err, DDB_EUSAGE,
                                   "table %s exists, but not as %s describes it: %s", name, m->path,
                                   why.ptr);
            ddb_buf_dispose(&why);
            ddb_table_info_free(ti);
            ti = NULL;
            if (rc != 0)
                goto done;
        } else {
            int in_use = strcmp(resp.error_type, "ResourceInUseException") == 0;
            /* Some servers give this one no message, and "HTTP 400" says nothing */
            const char *msg = in_use && strncmp(resp.message, "HTTP ", 5) == 0
                                  ? "the table already exists, or is being created or deleted"
                                  : resp.message;
            rc = ddb_error_set(err, in_use ? DDB_EUSAGE : DDB_ENET,
                               "CreateTable %s failed: %s%s%s", name, resp.error_type,
                               resp.error_type[0] ? ": " : "", msg);
            goto done;
        }
    }
    rc = ddb_table_wait_ready(&ti, c, name, 1, timeout_s > 0 ? timeout_s : 600, stop, on_wait, ctx,
                              err);
done:
    ddb_table_info_free(ti);
    ddb_response_dispose(&resp);
    ddb_buf_dispose(&body);
    return rc;
}

static void key_text(ddb_buf *out, const ddb_key_attr *pk, const ddb_key_attr *sk)
{
    ddb_buf_printf(out, "%s (%s)", pk->name, ddb_type_name(pk->type));
    if (sk->name)
        ddb_buf_printf(out, ", %s (%s)", sk->name, ddb_type_name(sk->type));
}

void ddb_table_info_format(ddb_buf *out, const ddb_table_info *t)
{
    ddb_buf_printf(out, "table %s: %s, %s", t->name, t->status ? t->status : "?", t->billing_mode);
    if (t->write_capacity)
        ddb_buf_printf(out, " (%llu RCU, %llu WCU)", (unsigned long long)t->read_capacity,
                       (unsigned long long)t->write_capacity);
    ddb_buf_printf(out, "\n  items: %llu (approximate), size: %llu bytes\n  key: ",
                   (unsigned long long)t->item_count, (unsigned long long)t->size_bytes);
    key_text(out, &t->pk, &t->sk);
    ddb_buf_putc(out, '\n');
    for (size_t i = 0; i < t->n_indexes; i++) {
        ddb_buf_printf(out, "  %s %s%s%s: ", t->indexes[i].global ? "GSI" : "LSI",
                       t->indexes[i].name, t->indexes[i].status ? " " : "",
                       t->indexes[i].status ? t->indexes[i].status : "");
        key_text(out, &t->indexes[i].pk, &t->indexes[i].sk);
        if (t->indexes[i].projection) {
            ddb_buf_printf(out, "; projection %s", t->indexes[i].projection);
            for (size_t k = 0; k < t->indexes[i].n_non_key; k++)
                ddb_buf_printf(out, "%s%s", k ? ", " : " (", t->indexes[i].non_key[k]);
            if (t->indexes[i].n_non_key)
                ddb_buf_putc(out, ')');
        }
        ddb_buf_putc(out, '\n');
    }
}

static int same_key(const ddb_key_attr *a, const ddb_key_attr *b)
{
    if (a->name == NULL || b->name == NULL)
        return a->name == b->name;
    return strcmp(a->name, b->name) == 0 && a->type == b->type;
}

static void key_word(ddb_buf *b, const ddb_key_attr *k)
{
    if (k->name == NULL)
        ddb_buf_puts(b, "none");
    else
        ddb_buf_printf(b, "%s (%s)", k->name, ddb_type_name(k->type));
}

/* "the table's <what> is X, the mapping's Y" */
static int differs(ddb_buf *why, const char *what, const ddb_key_attr *table,
                   const ddb_key_attr *mapping)
{
    if (same_key(table, mapping))
        return 0;
    ddb_buf_printf(why, "%sthe table's %s is ", why->len ? "; " : "", what);
    key_word(why, table);
    ddb_buf_puts(why, ", the mapping's ");
    key_word(why, mapping);
    return 1;
}

static int same_projection(const ddb_index_info *ti, const ddb_index_def *mi)
{
    const char *tp = ti->projection ? ti->projection : "ALL";
    if (strcmp(tp, mi->projection) != 0 || ti->n_non_key != mi->n_non_key)
        return 0;
    for (size_t i = 0; i < mi->n_non_key; i++) {
        size_t k;
        for (k = 0; k < ti->n_non_key && strcmp(ti->non_key[k], mi->non_key[i]) != 0; k++)
            ;
        if (k == ti->n_non_key)
            return 0;
    }
    return 1;
}

int ddb_table_check_mapping(const ddb_table_info *t, const ddb_mapping *m, ddb_buf *why)
{
    const ddb_table_def *d = &m->table;
    int n = 0;
    char what[200];

    n += differs(why, "partition key", &t->pk, &d->pk);
    n += differs(why, "sort key", &t->sk, &d->sk);
    for (size_t i = 0; i < d->n_indexes; i++) {
        const ddb_index_def *mi = &d->indexes[i];
        const ddb_index_info *ti = NULL;
        for (size_t k = 0; k < t->n_indexes; k++)
            if (t->indexes[k].name && strcmp(t->indexes[k].name, mi->name) == 0)
                ti = &t->indexes[k];
        if (ti == NULL) {
            ddb_buf_printf(why, "%sthe table has no index %s", why->len ? "; " : "", mi->name);
            n++;
            continue;
        }
        if (ti->global != mi->global) {
            ddb_buf_printf(why, "%s%s is a%s in the table, a%s in the mapping",
                           why->len ? "; " : "", mi->name, ti->global ? " GSI" : "n LSI",
                           mi->global ? " GSI" : "n LSI");
            n++;
            continue;
        }
        snprintf(what, sizeof(what), "index %s partition key", mi->name);
        n += differs(why, what, &ti->pk, &mi->pk);
        snprintf(what, sizeof(what), "index %s sort key", mi->name);
        n += differs(why, what, &ti->sk, &mi->sk);
        if (!same_projection(ti, mi)) {
            ddb_buf_printf(why, "%sindex %s projects %s in the table, %s in the mapping",
                           why->len ? "; " : "", mi->name, ti->projection ? ti->projection : "?",
                           mi->projection);
            n++;
        }
    }
    for (size_t k = 0; k < t->n_indexes; k++) {
        size_t i;
        for (i = 0; i < d->n_indexes && strcmp(d->indexes[i].name, t->indexes[k].name) != 0; i++)
            ;
        if (i == d->n_indexes) {
            ddb_buf_printf(why, "%sthe table has an index %s the mapping does not describe",
                           why->len ? "; " : "", t->indexes[k].name ? t->indexes[k].name : "?");
            n++;
        }
    }
    return n;
}

int ddb_table_ttl_parse(char **out, const char *json, const char *table, ddb_error *err)
{
    json_object *root = json_tokener_parse(json), *d;
    const char *status, *name;
    int rc = 0;

    assert(out != NULL && json != NULL && table != NULL);
    *out = NULL;
    if (root == NULL || !json_object_object_get_ex(root, "TimeToLiveDescription", &d) ||
        (status = jstr(d, "TimeToLiveStatus")) == NULL) {
        rc = ddb_error_set(err, DDB_EINVAL, "DescribeTimeToLive %s: unexpected response", table);
        goto done;
    }
    name = jstr(d, "AttributeName");
    /* ENABLING: DynamoDB is about to delete by it; DISABLING and DISABLED:
     * it deletes nothing, so nothing it would delete is to be left out */
    if (strcmp(status, "ENABLED") != 0 && strcmp(status, "ENABLING") != 0) {
        rc = ddb_error_set(err, DDB_EUSAGE,
                           "table %s has Time to Live %s: no item of it is deleted as expired, so "
                           "--skip-expired has nothing to go by (give --ttl-attribute NAME to "
                           "skip by an attribute all the same)",
                           table, status);
        goto done;
    }
    if (name == NULL) {
        rc = ddb_error_set(err, DDB_EINVAL, "DescribeTimeToLive %s: %s without an AttributeName",
                           table, status);
        goto done;
    }
    if ((*out = strdup(name)) == NULL)
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
done:
    if (root)
        json_object_put(root);
    return rc;
}

int ddb_table_ttl_attribute(char **out, ddb_client *c, const char *table, ddb_error *err)
{
    ddb_response resp;
    int rc;

    *out = NULL;
    if ((rc = call_on_table(&resp, c, "DescribeTimeToLive", table, err)) == 0 &&
        (rc = ddb_table_ttl_parse(out, resp.body, table, err)) == DDB_EINVAL)
        rc = DDB_ENET;
    ddb_response_dispose(&resp);
    return rc;
}
