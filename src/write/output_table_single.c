/*
 * output_table_single.c — the table writer's one-item requests: PutItem with
 * a condition (write only where absent) and UpdateItem (change only the
 * attributes given), which BatchWriteItem cannot do.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/json.h"
#include "write/output_table_internal.h"

/* DynamoDB's limit on an expression string. */
#define EXPRESSION_MAX 4096

static int is_key(const ddb_key_schema *ks, const ddb_str *name)
{
    return (name->len == strlen(ks->partition.name) &&
            memcmp(name->ptr, ks->partition.name, name->len) == 0) ||
           (ks->sort.name != NULL && name->len == strlen(ks->sort.name) &&
            memcmp(name->ptr, ks->sort.name, name->len) == 0);
}

static void put_key(ddb_buf *b, const ddb_key_schema *ks, const ddb_map *rec)
{
    ddb_buf_putc(b, '{');
    ddb_json_put_string(b, ks->partition.name, strlen(ks->partition.name));
    ddb_buf_putc(b, ':');
    ddb_json_put_typed_value(b, ddb_map_getz(rec, ks->partition.name));
    if (ks->sort.name != NULL) {
        ddb_buf_putc(b, ',');
        ddb_json_put_string(b, ks->sort.name, strlen(ks->sort.name));
        ddb_buf_putc(b, ':');
        ddb_json_put_typed_value(b, ddb_map_getz(rec, ks->sort.name));
    }
    ddb_buf_putc(b, '}');
}

/* SET #a0 = :a0, ... with the names and values apart: any attribute name
 * (reserved words, dots, spaces) is safe that way. */
static int put_update(ddb_buf *b, const ddb_key_schema *ks, const ddb_map *rec, ddb_error *err)
{
    size_t n = 0, expr_len = 4;
    for (size_t i = 0; i < rec->count; i++)
        if (!is_key(ks, &rec->attrs[i].name)) {
            char tmp[64];
            expr_len += (size_t)snprintf(tmp, sizeof(tmp), "%s#a%zu = :a%zu", n ? ", " : "", n, n);
            n++;
        }
    if (n == 0)
        return 0; /* only the key: UpdateItem makes the item if it is not there */
    if (expr_len > EXPRESSION_MAX)
        return ddb_error_set(err, DDB_EINVAL,
                             "%zu attributes to update take an UpdateExpression longer than "
                             "DynamoDB's %d bytes",
                             n, EXPRESSION_MAX);
    ddb_buf_puts(b, ",\"UpdateExpression\":\"SET ");
    for (size_t k = 0; k < n; k++)
        ddb_buf_printf(b, "%s#a%zu = :a%zu", k ? ", " : "", k, k);
    ddb_buf_puts(b, "\",\"ExpressionAttributeNames\":{");
    n = 0;
    for (size_t i = 0; i < rec->count; i++) {
        if (is_key(ks, &rec->attrs[i].name))
            continue;
        ddb_buf_printf(b, "%s\"#a%zu\":", n ? "," : "", n);
        ddb_json_put_string(b, rec->attrs[i].name.ptr, rec->attrs[i].name.len);
        n++;
    }
    ddb_buf_puts(b, "},\"ExpressionAttributeValues\":{");
    n = 0;
    for (size_t i = 0; i < rec->count; i++) {
        if (is_key(ks, &rec->attrs[i].name))
            continue;
        ddb_buf_printf(b, "%s\":a%zu\":", n ? "," : "", n);
        ddb_json_put_typed_value(b, &rec->attrs[i].value);
        n++;
    }
    ddb_buf_putc(b, '}');
    return 0;
}

int ddb_table_output_single_request(ddb_buf *b, const table_output *to, const ddb_map *rec,
                                    int is_delete, size_t *body_len, size_t *item_off,
                                    size_t *item_len, ddb_error *err)
{
    const ddb_key_schema *ks = &to->info->schema;
    int rc = 0;
    ddb_buf_clear(b);
    ddb_buf_puts(b, "{\"TableName\":");
    ddb_json_put_string(b, to->table, strlen(to->table));
    if (is_delete) {
        ddb_buf_puts(b, ",\"Key\":");
        put_key(b, ks, rec);
    } else if (to->mode == DDB_WRITE_IF_ABSENT) {
        /* The partition key is in every item: absent from the table means no
         * item of this key. */
        ddb_buf_puts(b, ",\"Item\":");
        ddb_json_put_typed_map(b, rec);
        ddb_buf_puts(b, ",\"ConditionExpression\":\"attribute_not_exists(#k)\","
                        "\"ExpressionAttributeNames\":{\"#k\":");
        ddb_json_put_string(b, ks->partition.name, strlen(ks->partition.name));
        ddb_buf_putc(b, '}');
    } else {
        ddb_buf_puts(b, ",\"Key\":");
        put_key(b, ks, rec);
        rc = put_update(b, ks, rec, err);
    }
    ddb_buf_puts(b, ",\"ReturnConsumedCapacity\":\"TOTAL\"}");
    *body_len = b->len;
    ddb_buf_putc(b, '\0');
    *item_off = b->len;
    ddb_json_put_typed_map(b, rec);
    *item_len = b->len - *item_off;
    if (rc == 0 && b->oom)
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
    return rc;
}

const char *ddb_table_output_single_op(const table_output *to, const entry *e)
{
    if (e->is_delete)
        return "DeleteItem";
    return to->mode == DDB_WRITE_UPDATE ? "UpdateItem" : "PutItem";
}

double ddb_table_output_single_cu(const ddb_response *resp)
{
    const char *p;
    if (resp->body == NULL || (p = strstr(resp->body, "\"CapacityUnits\":")) == NULL)
        return 0;
    return strtod(p + 16, NULL);
}
