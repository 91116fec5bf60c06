/*
 * A table's Application Auto Scaling copied to another (autoscaling.h). The bodies are small
 * control-plane JSON, so json-c is fine; capacities are integers it keeps exactly, and a
 * policy's TargetValue (a double in the API) is passed on as the text it came in.
 */
#include "ddbpipe/autoscaling.h"

#include <assert.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/sigv4.h"
#include "table/table_internal.h"

/* One call of the JSON 1.1 protocol; *answer parsed on success. */
static int call(json_object **answer, const ddb_autoscaling_side *s, const char *op,
                json_object *request, ddb_error *err)
{
    char target[80];
    ddb_sigv4_header h[2];
    ddb_http_call hc;
    ddb_response resp;
    const char *body = json_object_to_json_string_ext(request, JSON_C_TO_STRING_PLAIN |
                                                                   JSON_C_TO_STRING_NOSLASHESCAPE);
    int rc;

    *answer = NULL;
    snprintf(target, sizeof(target), "AnyScaleFrontendService.%s", op);
    h[0].name = "Content-Type";
    h[0].value = "application/x-amz-json-1.1";
    h[1].name = "X-Amz-Target";
    h[1].value = target;
    memset(&hc, 0, sizeof(hc));
    hc.method = "POST";
    hc.url = s->url;
    hc.service = "application-autoscaling";
    hc.headers = h;
    hc.n_headers = 2;
    hc.body = body;
    hc.body_len = strlen(body);
    hc.sign_flags = DDB_SIGV4_FLAGS_DYNAMODB;
    memset(&resp, 0, sizeof(resp));
    if ((rc = ddb_client_call_http(s->client, &hc, &resp, err)) == 0 && !resp.ok)
        rc = ddb_error_set(err, DDB_ENET, "Application Auto Scaling %s (%s) failed: %s%s%s", op,
                           s->url, resp.error_type, resp.error_type[0] ? ": " : "", resp.message);
    if (rc == 0 && (*answer = json_tokener_parse(resp.body ? resp.body : "")) == NULL)
        rc = ddb_error_set(err, DDB_ENET, "Application Auto Scaling %s: unexpected answer", op);
    ddb_response_dispose(&resp);
    return rc;
}

/* "table/SRC" or "table/SRC/index/X" as the same resource of table name; NULL when id is no
 * resource of SRC. */
static char *moved_id(const char *id, const char *src, const char *name)
{
    size_t n = strlen(src);
    char buf[1400];
    if (id == NULL || strncmp(id, "table/", 6) != 0 || strncmp(id + 6, src, n) != 0 ||
        (id[6 + n] != '\0' && strncmp(id + 6 + n, "/index/", 7) != 0))
        return NULL;
    snprintf(buf, sizeof(buf), "table/%s%s", name, id + 6 + n);
    return strdup(buf);
}

/* Every page of DescribeScalableTargets of the dynamodb namespace, into all. */
static int list_targets(json_object *all, const ddb_autoscaling_side *s, ddb_error *err)
{
    char *next = NULL;
    int rc = 0;
    do {
        json_object *req = json_object_new_object(), *a = NULL, *page;
        json_object_object_add(req, "ServiceNamespace", json_object_new_string("dynamodb"));
        if (next)
            json_object_object_add(req, "NextToken", json_object_new_string(next));
        free(next);
        next = NULL;
        rc = call(&a, s, "DescribeScalableTargets", req, err);
        page = ddb_tj_member(a, "ScalableTargets");
        for (size_t i = 0; rc == 0 && page && i < json_object_array_length(page); i++)
            json_object_array_add(all, json_object_get(json_object_array_get_idx(page, i)));
        if (rc == 0 && ddb_tj_str(a, "NextToken") && !(next = strdup(ddb_tj_str(a, "NextToken"))))
            rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        json_object_put(req);
        json_object_put(a);
    } while (rc == 0 && next != NULL);
    return rc;
}

/* The target t registered for resource id on the other side. */
static int register_target(const ddb_autoscaling_side *to, json_object *t, const char *id,
                           ddb_error *err)
{
    json_object *req = json_object_new_object(), *a = NULL;
    int rc;
    json_object_object_add(req, "ServiceNamespace", json_object_new_string("dynamodb"));
    json_object_object_add(req, "ResourceId", json_object_new_string(id));
    json_object_object_add(req, "ScalableDimension",
                           json_object_get(ddb_tj_member(t, "ScalableDimension")));
    json_object_object_add(req, "MinCapacity", json_object_get(ddb_tj_member(t, "MinCapacity")));
    json_object_object_add(req, "MaxCapacity", json_object_get(ddb_tj_member(t, "MaxCapacity")));
    if (ddb_tj_member(t, "SuspendedState"))
        json_object_object_add(req, "SuspendedState",
                               json_object_get(ddb_tj_member(t, "SuspendedState")));
    rc = call(&a, to, "RegisterScalableTarget", req, err);
    json_object_put(req);
    json_object_put(a);
    return rc;
}

/* The policies of target t copied to resource id; step scaling ones named in notes. */
static int copy_policies(const ddb_autoscaling_side *from, const ddb_autoscaling_side *to,
                         json_object *t, const char *id, int *copied, ddb_buf *notes,
                         ddb_error *err)
{
    json_object *req = json_object_new_object(), *a = NULL, *list;
    int rc;
    json_object_object_add(req, "ServiceNamespace", json_object_new_string("dynamodb"));
    json_object_object_add(req, "ResourceId", json_object_get(ddb_tj_member(t, "ResourceId")));
    json_object_object_add(req, "ScalableDimension",
                           json_object_get(ddb_tj_member(t, "ScalableDimension")));
    rc = call(&a, from, "DescribeScalingPolicies", req, err);
    json_object_put(req);
    list = ddb_tj_member(a, "ScalingPolicies");
    for (size_t i = 0; rc == 0 && list && i < json_object_array_length(list); i++) {
        json_object *p = json_object_array_get_idx(list, i), *put, *b = NULL;
        json_object *conf = ddb_tj_member(p, "TargetTrackingScalingPolicyConfiguration");
        if (conf == NULL) {
            ddb_buf_printf(notes,
                           "not copied: scaling policy %s of %s (%s: its CloudWatch alarms are "
                           "not part of it)\n",
                           ddb_tj_str(p, "PolicyName"), ddb_tj_str(p, "ResourceId"),
                           ddb_tj_str(p, "PolicyType"));
            continue;
        }
        put = json_object_new_object();
        json_object_object_add(put, "PolicyName", json_object_get(ddb_tj_member(p, "PolicyName")));
        json_object_object_add(put, "ServiceNamespace", json_object_new_string("dynamodb"));
        json_object_object_add(put, "ResourceId", json_object_new_string(id));
        json_object_object_add(put, "ScalableDimension",
                               json_object_get(ddb_tj_member(p, "ScalableDimension")));
        json_object_object_add(put, "PolicyType", json_object_new_string("TargetTrackingScaling"));
        json_object_object_add(put, "TargetTrackingScalingPolicyConfiguration",
                               json_object_get(conf));
        rc = call(&b, to, "PutScalingPolicy", put, err);
        *copied += rc == 0;
        json_object_put(put);
        json_object_put(b);
    }
    json_object_put(a);
    return rc;
}

int ddb_autoscaling_copy(const ddb_autoscaling_side *from, const ddb_autoscaling_side *to,
                         ddb_buf *notes, ddb_error *err)
{
    json_object *all = json_object_new_array();
    int rc, targets = 0, policies = 0;

    assert(from != NULL && to != NULL && notes != NULL);
    if ((rc = list_targets(all, from, err)) != 0)
        goto done;
    for (size_t i = 0; rc == 0 && i < json_object_array_length(all); i++) {
        json_object *t = json_object_array_get_idx(all, i);
        char *id = moved_id(ddb_tj_str(t, "ResourceId"), from->table, to->table);
        if (id == NULL)
            continue; /* another table's */
        if ((rc = register_target(to, t, id, err)) == 0 &&
            (rc = copy_policies(from, to, t, id, &policies, notes, err)) == 0)
            targets++;
        free(id);
    }
    if (rc == 0)
        ddb_buf_printf(notes,
                       "autoscaling: %d scalable target%s and %d target tracking "
                       "polic%s copied\n",
                       targets, targets == 1 ? "" : "s", policies, policies == 1 ? "y" : "ies");
done:
    json_object_put(all);
    return rc;
}
