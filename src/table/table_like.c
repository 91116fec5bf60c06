/*
 * A table made like another (table_like.h): the source's definition read through its own
 * client, the new table's requests sent through the target's. These bodies are small and carry
 * no item data, so json-c is fine for them; the numbers in them (capacity units, days) are
 * integers json-c keeps exactly.
 */
#include "ddbpipe/table_like.h"

#include <assert.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/json.h"
#include "table/table_internal.h"

struct ddb_table_like {
    json_object *desc;  /* DescribeTable's answer; owns table */
    json_object *table; /* its "Table" */
    char *name;
    char *ttl_attribute; /* Time to Live's attribute when ENABLED or ENABLING, else NULL */
    int pitr;            /* point-in-time recovery on */
    int64_t pitr_days;   /* its RecoveryPeriodInDays (0: not given) */
    json_object *tags;   /* [{"Key","Value"}...]; NULL when they could not be read */
    char *policy;        /* the resource policy, or NULL */
    ddb_buf notes;       /* what could not be read */
};

/* o[key] = v's value, shared (the request is only written out). */
static void share(json_object *to, const char *key, json_object *v)
{
    if (v != NULL)
        json_object_object_add(to, key, json_object_get(v));
}

static int oom(ddb_error *err)
{
    return ddb_error_set(err, DDB_ENOMEM, "out of memory");
}

/* One control-plane call whose body is built by the caller. 1 when the endpoint has no such
 * operation or refuses it to these credentials (the part is left out, and noted), 2 when it
 * answers the error absent (there is nothing to copy), 0 with *answer parsed, or an error. */
static int call(json_object **answer, ddb_client *c, const char *op, const char *body,
                ddb_buf *notes, const char *what, const char *absent, ddb_error *err)
{
    ddb_response resp;
    int rc;

    *answer = NULL;
    memset(&resp, 0, sizeof(resp));
    if ((rc = ddb_client_call(c, op, body, strlen(body), &resp, err)) != 0)
        goto done;
    if (!resp.ok && absent != NULL && strcmp(resp.error_type, absent) == 0) {
        rc = 2;
    } else if (!resp.ok && (strcmp(resp.error_type, "UnknownOperationException") == 0 ||
                            strcmp(resp.error_type, "AccessDeniedException") == 0)) {
        if (notes != NULL)
            ddb_buf_printf(notes, "not copied: %s (%s answered %s: %s)\n", what, op,
                           resp.error_type, resp.message);
        rc = 1;
    } else if (!resp.ok) {
        rc = ddb_error_set(err, DDB_ENET, "%s failed: %s%s%s", op, resp.error_type,
                           resp.error_type[0] ? ": " : "", resp.message);
    } else if ((*answer = json_tokener_parse(resp.body ? resp.body : "")) == NULL) {
        rc = ddb_error_set(err, DDB_ENET, "%s: unexpected response", op);
    }
done:
    ddb_response_dispose(&resp);
    return rc;
}

/* {"<key>":"<value>"} */
static char *one_member(const char *key, const char *value)
{
    ddb_buf b = DDB_BUF_INIT;
    ddb_buf_printf(&b, "{\"%s\":", key);
    ddb_json_put_string(&b, value, strlen(value));
    ddb_buf_putc(&b, '}');
    return b.oom ? (ddb_buf_dispose(&b), NULL) : ddb_buf_detach(&b, NULL);
}

static int read_ttl(ddb_table_like *l, ddb_client *c, const char *body, ddb_error *err)
{
    json_object *a;
    int rc = call(&a, c, "DescribeTimeToLive", body, &l->notes, "Time to Live", NULL, err);
    json_object *d = ddb_tj_member(a, "TimeToLiveDescription");
    const char *st = ddb_tj_str(d, "TimeToLiveStatus"), *attr = ddb_tj_str(d, "AttributeName");
    if (rc == 0 && st && attr && (strcmp(st, "ENABLED") == 0 || strcmp(st, "ENABLING") == 0) &&
        (l->ttl_attribute = strdup(attr)) == NULL)
        rc = oom(err);
    json_object_put(a);
    return rc < 0 ? rc : 0;
}

static int read_pitr(ddb_table_like *l, ddb_client *c, const char *body, ddb_error *err)
{
    json_object *a;
    int rc = call(&a, c, "DescribeContinuousBackups", body, &l->notes, "point-in-time recovery",
                  NULL, err);
    json_object *d = ddb_tj_member(ddb_tj_member(a, "ContinuousBackupsDescription"),
                                   "PointInTimeRecoveryDescription");
    const char *st = ddb_tj_str(d, "PointInTimeRecoveryStatus");
    json_object *days = ddb_tj_member(d, "RecoveryPeriodInDays");
    if (rc == 0 && st && strcmp(st, "ENABLED") == 0) {
        l->pitr = 1;
        l->pitr_days = days ? json_object_get_int64(days) : 0;
    }
    json_object_put(a);
    return rc < 0 ? rc : 0;
}

/* Every page of ListTagsOfResource. */
static int read_tags(ddb_table_like *l, ddb_client *c, const char *arn, ddb_error *err)
{
    char *next = NULL;
    int rc = 0;
    if ((l->tags = json_object_new_array()) == NULL)
        return oom(err);
    do {
        ddb_buf b = DDB_BUF_INIT;
        json_object *a = NULL, *page;
        ddb_buf_puts(&b, "{\"ResourceArn\":");
        ddb_json_put_string(&b, arn, strlen(arn));
        if (next) {
            ddb_buf_puts(&b, ",\"NextToken\":");
            ddb_json_put_string(&b, next, strlen(next));
        }
        ddb_buf_putc(&b, '}');
        free(next);
        next = NULL;
        rc = b.oom ? oom(err)
                   : call(&a, c, "ListTagsOfResource", b.ptr, &l->notes, "tags", NULL, err);
        ddb_buf_dispose(&b);
        page = ddb_tj_member(a, "Tags");
        for (size_t i = 0; rc == 0 && page && i < json_object_array_length(page); i++)
            json_object_array_add(l->tags, json_object_get(json_object_array_get_idx(page, i)));
        if (rc == 0 && ddb_tj_str(a, "NextToken") && !(next = strdup(ddb_tj_str(a, "NextToken"))))
            rc = oom(err);
        json_object_put(a);
    } while (rc == 0 && next != NULL);
    if (rc == 1) {
        json_object_put(l->tags);
        l->tags = NULL;
    }
    return rc < 0 ? rc : 0;
}

static int read_policy(ddb_table_like *l, ddb_client *c, const char *arn, ddb_error *err)
{
    char *body = one_member("ResourceArn", arn);
    json_object *a = NULL;
    int rc = body == NULL ? oom(err)
                          : call(&a, c, "GetResourcePolicy", body, &l->notes, "the resource policy",
                                 "PolicyNotFoundException", err);
    if (rc == 0 && ddb_tj_str(a, "Policy") && !(l->policy = strdup(ddb_tj_str(a, "Policy"))))
        rc = oom(err);
    json_object_put(a);
    free(body);
    return rc < 0 ? rc : 0;
}

int ddb_table_like_read(ddb_table_like **out, ddb_client *c, const char *table, ddb_error *err)
{
    ddb_table_like *l = calloc(1, sizeof(*l));
    char *body = one_member("TableName", table);
    const char *arn;
    int rc;

    assert(out != NULL && c != NULL && table != NULL);
    *out = NULL;
    if (l == NULL || body == NULL || (l->name = strdup(table)) == NULL) {
        rc = oom(err);
        goto done;
    }
    if ((rc = call(&l->desc, c, "DescribeTable", body, NULL, NULL, "ResourceNotFoundException",
                   err)) != 0) {
        char where[300];
        ddb_client_describe_target(c, where, sizeof(where));
        if (rc == 1)
            rc = ddb_error_set(err, DDB_ENET,
                               "table %s in %s cannot be described (DescribeTable "
                               "refused)",
                               table, where);
        else if (rc == 2)
            rc = ddb_error_set(err, DDB_ENOTFOUND, "table %s does not exist in %s", table, where);
        goto done;
    }
    l->table = ddb_tj_member(l->desc, "Table");
    if ((arn = ddb_tj_str(l->table, "TableArn")) == NULL) {
        rc = ddb_error_set(err, DDB_ENET, "DescribeTable %s: no TableArn in the answer", table);
        goto done;
    }
    if ((rc = read_ttl(l, c, body, err)) != 0 || (rc = read_pitr(l, c, body, err)) != 0 ||
        (rc = read_tags(l, c, arn, err)) != 0 || (rc = read_policy(l, c, arn, err)) != 0)
        goto done;
    *out = l;
    l = NULL;
done:
    free(body);
    ddb_table_like_free(l);
    return rc;
}

const char *ddb_table_like_name(const ddb_table_like *l)
{
    return l->name;
}

const char *ddb_table_like_notes(const ddb_table_like *l)
{
    return l->notes.ptr ? l->notes.ptr : "";
}

void ddb_table_like_free(ddb_table_like *l)
{
    if (l == NULL)
        return;
    json_object_put(l->desc);
    json_object_put(l->tags);
    free(l->name);
    free(l->ttl_attribute);
    free(l->policy);
    ddb_buf_dispose(&l->notes);
    free(l);
}

/* ---- the CreateTable request ------------------------------------------------------------- */

/* {"ReadCapacityUnits","WriteCapacityUnits"} of a described throughput (which also holds
 * dates and counts CreateTable refuses). */
static json_object *throughput(json_object *described)
{
    json_object *t = json_object_new_object();
    share(t, "ReadCapacityUnits", ddb_tj_member(described, "ReadCapacityUnits"));
    share(t, "WriteCapacityUnits", ddb_tj_member(described, "WriteCapacityUnits"));
    return t;
}

static json_object *find_index(json_object *table, const char *list, const char *name)
{
    json_object *a = ddb_tj_member(table, list);
    for (size_t i = 0; a && i < json_object_array_length(a); i++) {
        const char *n = ddb_tj_str(json_object_array_get_idx(a, i), "IndexName");
        if (n && strcmp(n, name) == 0)
            return json_object_array_get_idx(a, i);
    }
    return NULL;
}

/* The indexes of a list (LocalSecondaryIndexes or GlobalSecondaryIndexes) as CreateTable takes
 * them: keys and projection from keys (the source's, or the mapping's request), throughput
 * (provisioned) from the source's index of that name, else from the table. */
static void put_indexes(json_object *req, const char *list, json_object *keys, json_object *src,
                        int provisioned)
{
    json_object *from = ddb_tj_member(keys, list), *to;
    int global = strcmp(list, "GlobalSecondaryIndexes") == 0;
    if (from == NULL || json_object_array_length(from) == 0)
        return;
    to = json_object_new_array();
    for (size_t i = 0; i < json_object_array_length(from); i++) {
        json_object *ix = json_object_array_get_idx(from, i), *n = json_object_new_object();
        json_object *same = find_index(src, list, ddb_tj_str(ix, "IndexName"));
        share(n, "IndexName", ddb_tj_member(ix, "IndexName"));
        share(n, "KeySchema", ddb_tj_member(ix, "KeySchema"));
        share(n, "Projection", ddb_tj_member(ix, "Projection"));
        if (global && provisioned)
            json_object_object_add(
                n, "ProvisionedThroughput",
                throughput(ddb_tj_member(same ? same : src, "ProvisionedThroughput")));
        if (global && !provisioned && same)
            share(n, "OnDemandThroughput", ddb_tj_member(same, "OnDemandThroughput"));
        json_object_array_add(to, n);
    }
    json_object_object_add(req, list, to);
}

/* Billing: PAY_PER_REQUEST when the source's summary says so (with its maximum throughput),
 * else PROVISIONED with its capacity (a table created provisioned has no summary). */
static int put_billing(json_object *req, json_object *src)
{
    const char *mode = ddb_tj_str(ddb_tj_member(src, "BillingModeSummary"), "BillingMode");
    int provisioned = mode == NULL || strcmp(mode, "PAY_PER_REQUEST") != 0;
    json_object_object_add(req, "BillingMode",
                           json_object_new_string(provisioned ? "PROVISIONED" : "PAY_PER_REQUEST"));
    if (provisioned)
        json_object_object_add(req, "ProvisionedThroughput",
                               throughput(ddb_tj_member(src, "ProvisionedThroughput")));
    else
        share(req, "OnDemandThroughput", ddb_tj_member(src, "OnDemandThroughput"));
    return provisioned;
}

/* Server-side encryption: the KMS key the source names; an AWS owned key cannot be named, so
 * the new table gets its own (DynamoDB's default). */
static void put_sse(json_object *req, json_object *src, ddb_buf *notes)
{
    json_object *d = ddb_tj_member(src, "SSEDescription");
    const char *st = ddb_tj_str(d, "Status"), *type = ddb_tj_str(d, "SSEType");
    const char *key = ddb_tj_str(d, "KMSMasterKeyArn");
    json_object *s;
    if (st == NULL || (strcmp(st, "ENABLED") != 0 && strcmp(st, "ENABLING") != 0) || type == NULL ||
        strcmp(type, "KMS") != 0) {
        ddb_buf_puts(notes, "encryption: the source uses an AWS owned key, which has no name to "
                            "give; the new table gets an AWS owned key of its own (the default)\n");
        return;
    }
    s = json_object_new_object();
    json_object_object_add(s, "Enabled", json_object_new_boolean(1));
    json_object_object_add(s, "SSEType", json_object_new_string("KMS"));
    if (key) {
        json_object_object_add(s, "KMSMasterKeyId", json_object_new_string(key));
        ddb_buf_printf(notes,
                       "encryption: KMS key %s, as the source's (another account's table can use "
                       "it only if the key's policy lets that account)\n",
                       key);
    }
    json_object_object_add(req, "SSESpecification", s);
}

/* What no request carries, named. */
static void name_left_out(json_object *src, int provisioned, ddb_buf *notes)
{
    json_object *replicas = ddb_tj_member(src, "Replicas");
    if (replicas && json_object_array_length(replicas) > 0)
        ddb_buf_printf(notes,
                       "not copied: the global table's %zu replica%s (add them to the "
                       "new table with update-table --replica-updates)\n",
                       json_object_array_length(replicas),
                       json_object_array_length(replicas) == 1 ? "" : "s");
    if (provisioned)
        ddb_buf_puts(notes, "autoscaling: the provisioned capacity is copied; Application Auto "
                            "Scaling's targets and policies only when asked "
                            "(--copy-autoscaling)\n");
    ddb_buf_puts(notes, "not copied: Kinesis streaming destinations, contributor insights and "
                        "backups (not part of a table's definition)\n");
}

int ddb_table_like_request(ddb_buf *out, const ddb_table_like *l, const char *name,
                           const ddb_mapping *m, ddb_buf *notes, ddb_error *err)
{
    json_object *req = json_object_new_object(), *keys = l->table, *mapped = NULL, *stream;
    ddb_buf mb = DDB_BUF_INIT;
    int provisioned, rc = 0;

    assert(out != NULL && l != NULL && name != NULL && notes != NULL);
    if (m != NULL) {
        /* the mapping's keys and indexes, as create-table --mapping asks for them */
        if ((rc = ddb_table_creation_params(&mb, m, name, 0, err)) != 0)
            goto done;
        if ((keys = mapped = json_tokener_parse(mb.ptr)) == NULL) {
            rc = oom(err);
            goto done;
        }
    }
    json_object_object_add(req, "TableName", json_object_new_string(name));
    share(req, "AttributeDefinitions", ddb_tj_member(keys, "AttributeDefinitions"));
    share(req, "KeySchema", ddb_tj_member(keys, "KeySchema"));
    provisioned = put_billing(req, l->table);
    put_indexes(req, "LocalSecondaryIndexes", keys, l->table, provisioned);
    put_indexes(req, "GlobalSecondaryIndexes", keys, l->table, provisioned);
    stream = ddb_tj_member(l->table, "StreamSpecification");
    if (stream && json_object_get_boolean(ddb_tj_member(stream, "StreamEnabled")))
        share(req, "StreamSpecification", stream);
    put_sse(req, l->table, notes);
    share(req, "TableClass",
          ddb_tj_member(ddb_tj_member(l->table, "TableClassSummary"), "TableClass"));
    if (json_object_get_boolean(ddb_tj_member(l->table, "DeletionProtectionEnabled")))
        json_object_object_add(req, "DeletionProtectionEnabled", json_object_new_boolean(1));
    if (l->tags && json_object_array_length(l->tags) > 0)
        share(req, "Tags", l->tags);
    if (l->policy)
        ddb_buf_puts(notes, "resource policy: copied with the source table's ARN turned into the "
                            "new table's; its principals and conditions are the source's (check "
                            "them for another account)\n");
    name_left_out(l->table, provisioned, notes);
    ddb_buf_puts(out, json_object_to_json_string_ext(req, JSON_C_TO_STRING_PLAIN |
                                                              JSON_C_TO_STRING_NOSLASHESCAPE));
    if (out->oom || notes->oom)
        rc = oom(err);
done:
    json_object_put(req);
    json_object_put(mapped);
    ddb_buf_dispose(&mb);
    return rc;
}

/* ---- creating it ---------------------------------------------------------------------------- */

/* One call that must succeed: the table's name and what failed in the message. */
static int must(ddb_client *c, const char *op, const char *body, const char *name, ddb_error *err)
{
    json_object *a = NULL;
    int rc = call(&a, c, op, body, NULL, NULL, NULL, err);
    json_object_put(a);
    if (rc == 1)
        rc = ddb_error_set(err, DDB_ENET,
                           "table %s: %s refused (the endpoint has no such "
                           "operation, or these credentials may not call it)",
                           name, op);
    else if (rc != 0)
        ddb_error_prefix(err, "table %s: ", name);
    return rc;
}

/* The policy with the source table's ARN turned into the new one's (a statement about the
 * source table is about the new table now; other resources are left as they are). */
static char *moved_policy(const char *policy, const char *from, const char *to)
{
    ddb_buf b = DDB_BUF_INIT;
    size_t n = strlen(from);
    for (const char *p = policy; *p;) {
        const char *hit = n ? strstr(p, from) : NULL;
        /* the ARN itself or ".../index/..." under it, not a table whose name starts alike */
        while (hit && hit[n] != '"' && hit[n] != '/')
            hit = strstr(hit + 1, from);
        if (hit == NULL) {
            ddb_buf_puts(&b, p);
            break;
        }
        ddb_buf_append(&b, p, (size_t)(hit - p));
        ddb_buf_puts(&b, to);
        p = hit + n;
    }
    return b.oom ? (ddb_buf_dispose(&b), NULL) : ddb_buf_detach(&b, NULL);
}

/* After CreateTable: Time to Live, point-in-time recovery, the resource policy. */
static int settle_settings(ddb_client *c, const ddb_table_like *l, const char *name,
                           const ddb_table_info *made, ddb_error *err)
{
    ddb_buf b = DDB_BUF_INIT;
    char *policy = NULL;
    int rc = 0;
    if (l->ttl_attribute) {
        ddb_buf_puts(&b, "{\"TableName\":");
        ddb_json_put_string(&b, name, strlen(name));
        ddb_buf_puts(&b, ",\"TimeToLiveSpecification\":{\"Enabled\":true,\"AttributeName\":");
        ddb_json_put_string(&b, l->ttl_attribute, strlen(l->ttl_attribute));
        ddb_buf_puts(&b, "}}");
        rc = b.oom ? oom(err) : must(c, "UpdateTimeToLive", b.ptr, name, err);
        ddb_buf_clear(&b);
    }
    if (rc == 0 && l->pitr) {
        ddb_buf_puts(&b, "{\"TableName\":");
        ddb_json_put_string(&b, name, strlen(name));
        ddb_buf_puts(&b,
                     ",\"PointInTimeRecoverySpecification\":{\"PointInTimeRecoveryEnabled\":true");
        if (l->pitr_days > 0)
            ddb_buf_printf(&b, ",\"RecoveryPeriodInDays\":%lld", (long long)l->pitr_days);
        ddb_buf_puts(&b, "}}");
        rc = b.oom ? oom(err) : must(c, "UpdateContinuousBackups", b.ptr, name, err);
        ddb_buf_clear(&b);
    }
    if (rc == 0 && l->policy && made->arn) {
        if ((policy = moved_policy(l->policy, ddb_tj_str(l->table, "TableArn"), made->arn)) == NULL)
            rc = oom(err);
        ddb_buf_puts(&b, "{\"ResourceArn\":");
        ddb_json_put_string(&b, made->arn, strlen(made->arn));
        ddb_buf_puts(&b, ",\"Policy\":");
        if (policy)
            ddb_json_put_string(&b, policy, strlen(policy));
        ddb_buf_putc(&b, '}');
        if (rc == 0)
            rc = b.oom ? oom(err) : must(c, "PutResourcePolicy", b.ptr, name, err);
    }
    free(policy);
    ddb_buf_dispose(&b);
    return rc;
}

int ddb_table_like_create(ddb_client *c, const ddb_table_like *l, const char *name,
                          const ddb_mapping *m, int exists_ok, const ddb_table_like_wait *w,
                          int *created, ddb_buf *notes, ddb_error *err)
{
    ddb_buf body = DDB_BUF_INIT;
    ddb_response resp;
    ddb_table_info *made = NULL;
    int rc;

    assert(c != NULL && l != NULL && name != NULL && w != NULL && notes != NULL);
    *created = 0;
    memset(&resp, 0, sizeof(resp));
    ddb_buf_puts(notes, ddb_table_like_notes(l));
    if ((rc = ddb_table_like_request(&body, l, name, m, notes, err)) != 0 ||
        (rc = ddb_client_call(c, "CreateTable", body.ptr, body.len, &resp, err)) != 0)
        goto done;
    if (!resp.ok && strcmp(resp.error_type, "ResourceInUseException") == 0) {
        rc = exists_ok ? 0
                       : ddb_error_set(err, DDB_EUSAGE, "CreateTable %s failed: %s: %s", name,
                                       resp.error_type, resp.message);
        goto done; /* an existing table is left as it is */
    }
    if (!resp.ok) {
        rc = ddb_error_set(err, DDB_ENET, "CreateTable %s failed: %s%s%s", name, resp.error_type,
                           resp.error_type[0] ? ": " : "", resp.message);
        goto done;
    }
    *created = 1;
    if ((rc = ddb_table_wait_ready(&made, c, name, 1, w->timeout_s > 0 ? w->timeout_s : 600,
                                   w->stop, w->on_wait, w->ctx, err)) == 0)
        rc = settle_settings(c, l, name, made, err);
done:
    ddb_table_info_free(made);
    ddb_response_dispose(&resp);
    ddb_buf_dispose(&body);
    return rc;
}
