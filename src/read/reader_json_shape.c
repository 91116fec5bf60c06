/*
 * The shapes of the JSON documents reader_json.c reads (its opening comment
 * lists them), known from their text alone: what a document or an array's
 * first element is, from its first key and value, and how one element (an
 * item, typed or plain, a {"Item": ..} or a write request) becomes a record.
 * The JSON bidder is here too: detection asks the same questions of the
 * first bytes of an input. Nothing here keeps state or reads the stream.
 */
#include <stdio.h>
#include <string.h>

#include "ddbpipe/json.h"
#include "ddbpipe/mapping.h"
#include "ddbpipe/reader.h"
#include "json/json_cursor.h"
#include "read/reader_internal.h"
#include "read/reader_json_shape.h"

static const char *const type_names[] = {"S", "N",  "B",  "BOOL", "NULL", "M",
                                         "L", "SS", "NS", "BS",   NULL};

/* Keys that make an object an AWS response or request document, not an item. */
static const char *const envelope_keys[] = {"Items",
                                            "Item",
                                            "Count",
                                            "ScannedCount",
                                            "ConsumedCapacity",
                                            "NextToken",
                                            "Responses",
                                            "RequestItems",
                                            "UnprocessedItems",
                                            "LastEvaluatedKey",
                                            "DataModel",
                                            "ModelName",
                                            "ModelMetadata",
                                            "ResponseMetadata",
                                            "UnprocessedKeys",
                                            "ItemCollectionMetrics",
                                            "NextShardIterator",
                                            NULL};

static const char *const request_keys[] = {"PutRequest", "DeleteRequest", NULL};

/* A TransactWriteItems action (the AWS CLI's --transact-items file) and the
 * keys its body may hold (the API reference's Put, Delete, Update and
 * ConditionCheck): an element is an action when its first key is one and the
 * body's first key one of these, so a plain item with an attribute "Put"
 * stays an item. */
static const char *const transact_keys[] = {"Put", "Update", "Delete", "ConditionCheck", NULL};
static const char *const transact_body_keys[] = {"Item",
                                                 "Key",
                                                 "TableName",
                                                 "UpdateExpression",
                                                 "ConditionExpression",
                                                 "ExpressionAttributeNames",
                                                 "ExpressionAttributeValues",
                                                 "ReturnValuesOnConditionCheckFailure",
                                                 NULL};
/* Beside a Put's Item and a Delete's Key: what only says when to write (a
 * condition, which a plain write of the item does not check). */
static const char *const put_keys[] = {"TableName",
                                       "ConditionExpression",
                                       "ExpressionAttributeNames",
                                       "ExpressionAttributeValues",
                                       "ReturnValuesOnConditionCheckFailure",
                                       NULL};

/* ------------------------------------------------------------- sniffing */

/* Index just past the ':' after the first key of the object at p[i], or n. */
static size_t first_value_at(const unsigned char *p, size_t i, size_t n, const unsigned char **key,
                             size_t *klen)
{
    size_t k;
    *key = ddb_sniff_first_key(p, i, n, klen);
    if (*key == NULL)
        return n;
    k = ddb_sniff_skip_ws(p, (size_t)(*key - p) + *klen + 1, n);
    if (k >= n || p[k] != ':')
        return n;
    return ddb_sniff_skip_ws(p, k + 1, n);
}

/* Is p[v] an object ('{') whose first key is one of names? */
static int object_first_key_in(const unsigned char *p, size_t v, size_t n, const char *const *names)
{
    const unsigned char *k;
    size_t klen;
    if (v >= n || p[v] != '{')
        return 0;
    k = ddb_sniff_first_key(p, v, n, &klen);
    return k != NULL && ddb_sniff_key_in(k, klen, names);
}

/* Is p[v] the start of a DynamoDB type descriptor ({"S": ...})? */
static int is_descriptor(const unsigned char *p, size_t v, size_t n)
{
    return object_first_key_in(p, v, n, type_names);
}

/* Is the array at p[v] ('[') a list of write requests? */
static int is_request_array(const unsigned char *p, size_t v, size_t n)
{
    if (v >= n || p[v] != '[')
        return 0;
    return object_first_key_in(p, ddb_sniff_skip_ws(p, v + 1, n), n, request_keys);
}

/* Is the object at p[i] a TransactWriteItems action (k its first key, its
 * value at v)? */
static int is_transact_action(const unsigned char *p, size_t v, size_t n, const unsigned char *k,
                              size_t klen)
{
    return ddb_sniff_key_in(k, klen, transact_keys) &&
           object_first_key_in(p, v, n, transact_body_keys);
}

/* Is p[v] "Records": [ followed by a stream record (get-records output, a
 * Lambda event)? Other documents have "Records" too (S3 event notifications):
 * those stay what they were. */
static int is_stream_records(const unsigned char *p, size_t v, size_t n, const unsigned char *k,
                             size_t klen)
{
    return klen == 7 && memcmp(k, "Records", 7) == 0 && v < n && p[v] == '[' &&
           ddb_stream_record_sniff(p, ddb_sniff_skip_ws(p, v + 1, n), n);
}

/* Is the object whose first key k has its value at p[v] the manifest of an
 * AWS Data Pipeline (EMR) export, {"name":"DynamoDB-export","version":3,
 * "entries":[{"url":..,"mandatory":true}, ..]}? It lists the export's data
 * files and sits beside them: a document without items, not one item. */
static int is_datapipeline_manifest(const unsigned char *p, size_t v, size_t n,
                                    const unsigned char *k, size_t klen)
{
    static const char want[] = "\"DynamoDB-export\"";
    return klen == 4 && memcmp(k, "name", 4) == 0 && n - v >= sizeof(want) - 1 &&
           memcmp(p + v, want, sizeof(want) - 1) == 0;
}

int ddb_jdoc_is_datapipeline_manifest(const unsigned char *p, size_t n)
{
    const unsigned char *key;
    size_t klen, i = ddb_sniff_start(p, n), v;
    if (i >= n || p[i] != '{')
        return 0;
    v = first_value_at(p, i, n, &key, &klen);
    return key != NULL && v < n && is_datapipeline_manifest(p, v, n, key, klen);
}

/* What the object at p[i] ('{') is, from its first key and value. */
enum jdoc_class ddb_jdoc_classify(const unsigned char *p, size_t i, size_t n)
{
    const unsigned char *key;
    size_t klen, v = first_value_at(p, i, n, &key, &klen);
    if (key == NULL || v >= n)
        return JDOC_ITEM;
    if ((ddb_sniff_key_in(key, klen, envelope_keys) && !is_descriptor(p, v, n)) ||
        is_stream_records(p, v, n, key, klen) || is_datapipeline_manifest(p, v, n, key, klen))
        return JDOC_ENVELOPE;
    if (is_request_array(p, v, n))
        return JDOC_TABLES;
    return JDOC_ITEM;
}

/* The shape of the items of an array, from its first element at p[i]. */
enum jdoc_shape ddb_jdoc_element_shape(const unsigned char *p, size_t i, size_t n)
{
    const unsigned char *key;
    size_t klen, v;
    if (i >= n || p[i] != '{')
        return JSH_PLAIN; /* not an object: reported as such by the plain parser */
    v = first_value_at(p, i, n, &key, &klen);
    if (key == NULL)
        return JSH_PLAIN;
    if (ddb_sniff_key_in(key, klen, request_keys))
        return JSH_REQUEST;
    if (is_transact_action(p, v, n, key, klen))
        return JSH_TRANSACT;
    if (klen == 4 && memcmp(key, "Item", 4) == 0 && v < n && p[v] == '{' && !is_descriptor(p, v, n))
        return JSH_WRAPPED;
    if (is_descriptor(p, v, n))
        return JSH_TYPED;
    return ddb_stream_record_sniff(p, i, n) ? JSH_STREAM : JSH_PLAIN;
}

/* Does the text mention one of keys (each quoted)? */
static int mentions(const unsigned char *p, size_t n, const char *const *keys)
{
    for (size_t i = 0; i < n; i++) {
        if (p[i] != '"')
            continue;
        for (const char *const *k = keys; *k; k++)
            if (n - i >= strlen(*k) && memcmp(p + i, *k, strlen(*k)) == 0)
                return 1;
    }
    return 0;
}

/* Does the text mention a key that holds a document's records, or is it a
 * query or scan with Select COUNT, which holds none but says so (Count and
 * ScannedCount)? */
static int mentions_records(const unsigned char *p, size_t n)
{
    static const char *const keys[] = {"\"Items\"",
                                       "\"Responses\"",
                                       "\"RequestItems\"",
                                       "\"UnprocessedItems\"",
                                       "\"DataModel\"",
                                       "\"Records\"",
                                       NULL};
    static const char *const count[] = {"\"Count\"", NULL}, *const scanned[] = {"\"ScannedCount\"",
                                                                                NULL};
    return mentions(p, n, keys) || (mentions(p, n, count) && mentions(p, n, scanned));
}

/*
 * A document (not a line of items): an array, an AWS document, a request
 * file, a model, or any object spread over several lines. One object per line
 * ({"Item": ..} lines included) is left to the line readers, which go on
 * after a bad line.
 */
static int bid_json(const unsigned char *p, size_t n, const char *path)
{
    size_t i = ddb_sniff_start(p, n), eol, end, klen;
    const unsigned char *key;
    int one_line;
    (void)path;
    if (i == n)
        return 0;
    if (p[i] == '[')
        return 90;
    if (p[i] != '{')
        return 0;
    for (eol = i; eol < n && p[eol] != '\n'; eol++)
        ;
    /* An object that closes on its first line (or one line longer than the
     * sniffed bytes) is a line. */
    one_line = eol == n || ddb_json_value_end((const char *)p, i, eol, 1, &end) == 1;
    switch (ddb_jdoc_classify(p, i, n)) {
    case JDOC_TABLES:
        return 95;
    case JDOC_ENVELOPE:
        /* on one line, a document only if that line holds its records: what
         * later lines say is theirs (and a pipe that pauses after the first
         * line must come to the same answer as a file read whole) */
        key = ddb_sniff_first_key(p, i, n, &klen);
        if (!one_line || ddb_jdoc_is_datapipeline_manifest(p + i, n - i) ||
            (!(klen == 4 && memcmp(key, "Item", 4) == 0) &&
             mentions_records(p + i, (eol < n ? end : n) - i)))
            return 90;
        return 0;
    default:
        /* stream records one per line (Kinesis Data Streams records as Firehose
         * writes them) or run together: read as a document, which may be
         * followed by another on the same line */
        if (one_line)
            return ddb_stream_record_sniff(p, i, n) ? 90 : 0;
        return 85;
    }
}

/* ------------------------------------------------------------- records */

/* Finds the value of key in the object text[0, len) (one level): 1 with the
 * span, 0 when absent; other keys are refused (*unknown set) so a request is
 * never half-read. */
static int object_member(const char *text, size_t len, const char *key, const char *const *allowed,
                         const char **vptr, size_t *vlen, const char **unknown, size_t *ulen)
{
    size_t i = ddb_sniff_skip_ws((const unsigned char *)text, 0, len), end;
    int found = 0;
    *unknown = NULL;
    if (i >= len || text[i] != '{')
        return -1;
    i++;
    for (;;) {
        size_t ks, ke;
        i = ddb_sniff_skip_ws((const unsigned char *)text, i, len);
        if (i < len && text[i] == '}')
            return found;
        if (i >= len || text[i] != '"' || ddb_json_value_end(text, i, len, 1, &end) != 1)
            return -1;
        ks = i + 1;
        ke = end - 1;
        i = ddb_sniff_skip_ws((const unsigned char *)text, end, len);
        if (i >= len || text[i] != ':')
            return -1;
        i = ddb_sniff_skip_ws((const unsigned char *)text, i + 1, len);
        if (i >= len || ddb_json_value_end(text, i, len, 1, &end) != 1)
            return -1;
        if (ke - ks == strlen(key) && memcmp(text + ks, key, ke - ks) == 0) {
            *vptr = text + i;
            *vlen = end - i;
            found = 1;
        } else if (!ddb_sniff_key_in((const unsigned char *)text + ks, ke - ks, allowed)) {
            *unknown = text + ks;
            *ulen = ke - ks;
            return -2;
        }
        i = ddb_sniff_skip_ws((const unsigned char *)text, end, len);
        if (i < len && text[i] == ',')
            i++;
    }
}

/* How a request's item (or key) was looked for: object_member's answer and
 * spans, and what the reasons call the request. */
typedef struct request_find {
    int rc;
    const char *item, *unknown;
    size_t ilen, ulen;
    const char *what;      /* "a write request": in "unexpected key .. in <what>" */
    const char *missing;   /* the reason when it holds no item or key */
    const char *malformed; /* the reason when it is not an object */
} request_find;

/* Ends the reading of a request: the typed map found, into rec as kind, or
 * rec bad saying why. */
static void take_request(ddb_record *rec, char *reason, size_t cap, ddb_json_parser *parser,
                         ddb_arena *arena, const request_find *f, ddb_record_kind kind)
{
    ddb_error perr;
    if (f->rc != 1) {
        char why[300];
        if (f->rc == -2)
            snprintf(why, sizeof(why), "unexpected key \"%.*s\" in %s", (int)f->ulen, f->unknown,
                     f->what);
        else
            snprintf(why, sizeof(why), "%s", f->rc == 0 ? f->missing : f->malformed);
        ddb_record_set_bad(rec, reason, cap, why);
        return;
    }
    if (ddb_json_parse_typed_map(parser, &rec->item, f->item, f->ilen, arena, &perr) != 0) {
        ddb_record_set_bad(rec, reason, cap, perr.message);
        return;
    }
    rec->kind = kind;
}

/* {"PutRequest": {"Item": {...}}} or {"DeleteRequest": {"Key": {...}}}. */
static void parse_request(ddb_record *rec, char *reason, size_t cap, ddb_json_parser *parser,
                          ddb_arena *arena, const char *text, size_t len)
{
    static const char *const none[] = {NULL};
    request_find f = {0,
                      NULL,
                      NULL,
                      0,
                      0,
                      "a write request",
                      "a write request holds a PutRequest with an Item or a DeleteRequest with a "
                      "Key",
                      "malformed write request"};
    const char *body;
    size_t blen;
    int del = 0;

    f.rc = object_member(text, len, "PutRequest", request_keys, &body, &blen, &f.unknown, &f.ulen);
    if (f.rc == 0) {
        del = 1;
        f.rc = object_member(text, len, "DeleteRequest", request_keys, &body, &blen, &f.unknown,
                             &f.ulen);
    }
    if (f.rc == 1)
        f.rc = object_member(body, blen, del ? "Key" : "Item", none, &f.item, &f.ilen, &f.unknown,
                             &f.ulen);
    take_request(rec, reason, cap, parser, arena, &f, del ? DDB_REC_DELETE : DDB_REC_PUT);
}

/* The action of a TransactWriteItems element (its first key, one of
 * transact_keys) into action; 0 when it has none. */
static int transact_action(char action[16], const char *text, size_t len)
{
    const unsigned char *p = (const unsigned char *)text, *k;
    size_t klen;
    k = ddb_sniff_first_key(p, ddb_sniff_skip_ws(p, 0, len), len, &klen);
    if (k == NULL || !ddb_sniff_key_in(k, klen, transact_keys))
        return 0;
    memcpy(action, k, klen);
    action[klen] = '\0';
    return 1;
}

/*
 * {"Put": {"Item": {...}, "TableName": ..}} is an item and {"Delete": {"Key":
 * {...}, ..}} a key to delete, as a BatchWriteItem request's are; an Update
 * (an expression applied to an item in place) and a ConditionCheck carry no
 * item to read, so each is rejected saying so rather than read as something
 * it is not.
 */
static void parse_transact(ddb_record *rec, char *reason, size_t cap, ddb_json_parser *parser,
                           ddb_arena *arena, const char *text, size_t len)
{
    static const char *const none[] = {NULL};
    request_find f = {-1,
                      NULL,
                      NULL,
                      0,
                      0,
                      "a TransactWriteItems action",
                      NULL,
                      "malformed TransactWriteItems action: expected {\"Put\"|\"Update\"|"
                      "\"Delete\"|\"ConditionCheck\": {...}}"};
    char action[16], what[48], missing[64];
    const char *body;
    size_t blen;
    int del;

    if (transact_action(action, text, len))
        f.rc = object_member(text, len, action, none, &body, &blen, &f.unknown, &f.ulen);
    if (f.rc == 1 && (strcmp(action, "Update") == 0 || strcmp(action, "ConditionCheck") == 0)) {
        char why[200];
        snprintf(why, sizeof(why), "a TransactWriteItems %s carries no item (%s): not read", action,
                 action[0] == 'U' ? "it changes an item in place with an UpdateExpression"
                                  : "it only checks a condition");
        ddb_record_set_bad(rec, reason, cap, why);
        return;
    }
    del = f.rc == 1 && action[0] == 'D';
    if (f.rc == 1) {
        snprintf(what, sizeof(what), "a TransactWriteItems %s", action);
        f.what = what;
        snprintf(missing, sizeof(missing), "a TransactWriteItems %s without %s", action,
                 del ? "a Key" : "an Item");
        f.missing = missing;
        f.rc = object_member(body, blen, del ? "Key" : "Item", put_keys, &f.item, &f.ilen,
                             &f.unknown, &f.ulen);
    }
    take_request(rec, reason, cap, parser, arena, &f, del ? DDB_REC_DELETE : DDB_REC_PUT);
}

void ddb_jdoc_transact_table(ddb_str *table, ddb_json_parser *parser, ddb_arena *arena,
                             const char *text, size_t len)
{
    static const char *const none[] = {NULL};
    const char *body, *name, *unknown;
    size_t blen, nlen, ulen;
    char action[16];
    ddb_value v;
    ddb_error perr;

    table->ptr = NULL;
    table->len = 0;
    if (!transact_action(action, text, len) ||
        object_member(text, len, action, none, &body, &blen, &unknown, &ulen) != 1 ||
        object_member(body, blen, "TableName", transact_body_keys, &name, &nlen, &unknown, &ulen) !=
            1)
        return;
    if (ddb_json_parse_plain(parser, &v, name, nlen, arena, &perr) == 0 && v.type == DDB_TYPE_S)
        *table = v.u.s;
}

int ddb_jdoc_holds_nothing(const char *text, size_t len)
{
    const unsigned char *p = (const unsigned char *)text;
    size_t i = ddb_sniff_skip_ws(p, 0, len);
    if (len - i >= 4 && memcmp(text + i, "null", 4) == 0)
        return ddb_sniff_skip_ws(p, i + 4, len) == len;
    return i < len && p[i] == '{' && (i = ddb_sniff_skip_ws(p, i + 1, len)) < len && p[i] == '}' &&
           ddb_sniff_skip_ws(p, i + 1, len) == len;
}

void ddb_jdoc_parse_element(ddb_record *rec, char *reason, size_t cap, ddb_json_parser *parser,
                            ddb_arena *arena, enum jdoc_shape shape, const char *text, size_t len)
{
    ddb_error perr;
    ddb_value v;
    rec->kind = DDB_REC_PUT;
    rec->typed = shape != JSH_PLAIN;
    switch (shape) {
    case JSH_REQUEST:
        parse_request(rec, reason, cap, parser, arena, text, len);
        return;
    case JSH_TRANSACT:
        parse_transact(rec, reason, cap, parser, arena, text, len);
        return;
    case JSH_STREAM:
        ddb_stream_record_parse(rec, reason, cap, parser, arena, text, len);
        return;
    case JSH_WRAPPED:
    case JSH_RESPONSE:
        if (ddb_json_parse_line(parser, DDB_JSON_LINE_ITEM, &rec->item, NULL, text, len, arena,
                                &perr) != 0)
            ddb_record_set_bad(rec, reason, cap, perr.message);
        return;
    case JSH_PLAIN:
        if (ddb_json_parse_plain(parser, &v, text, len, arena, &perr) != 0)
            ddb_record_set_bad(rec, reason, cap, perr.message);
        else if (v.type != DDB_TYPE_M)
            ddb_record_set_bad(rec, reason, cap, "expected an object (an item)");
        else
            rec->item = v.u.m;
        return;
    default:
        if (ddb_json_parse_typed_map(parser, &rec->item, text, len, arena, &perr) != 0)
            ddb_record_set_bad(rec, reason, cap, perr.message);
        return;
    }
}

/* ----------------------------------------- DynamoDB JSON read as plain */

/* The JSON kind each type's value has in DynamoDB JSON (read as plain JSON:
 * strings S, booleans BOOL, arrays L, objects M), by type_names' order. */
static const ddb_type type_kinds[] = {DDB_TYPE_S,    DDB_TYPE_S, DDB_TYPE_S, DDB_TYPE_BOOL,
                                      DDB_TYPE_BOOL, DDB_TYPE_M, DDB_TYPE_L, DDB_TYPE_L,
                                      DDB_TYPE_L,    DDB_TYPE_L};

/* Does v, read as plain JSON, look like a DynamoDB JSON value: an object
 * with exactly one key, a type name, whose value is of that type's kind
 * ({"S": "x"}, {"N": "1"}, {"M": {..}}; not {"N": 1}, not {"S": "x", "n": 1})? */
static int looks_typed(const ddb_value *v)
{
    const ddb_attr *a;
    if (v->type != DDB_TYPE_M || v->u.m.count != 1)
        return 0;
    a = &v->u.m.attrs[0];
    for (size_t i = 0; type_names[i] != NULL; i++)
        if (a->name.len == strlen(type_names[i]) &&
            memcmp(a->name.ptr, type_names[i], a->name.len) == 0)
            return a->value.type == type_kinds[i];
    return 0;
}

/* Does v hold values (an object or an array)? */
static int nests(const ddb_value *v)
{
    return v->type == DDB_TYPE_M || v->type == DDB_TYPE_L;
}

/* The first value in v or nested in it that looks typed, or NULL. Only
 * objects and arrays are looked into (a record is mostly scalars: no call
 * for each). The plain parser bounds the nesting, and so this recursion. */
static const ddb_value *find_typed(const ddb_value *v)
{
    const ddb_value *t = NULL;
    if (v->type == DDB_TYPE_M) {
        if (looks_typed(v))
            return v;
        for (size_t i = 0; i < v->u.m.count && t == NULL; i++)
            if (nests(&v->u.m.attrs[i].value))
                t = find_typed(&v->u.m.attrs[i].value);
    } else if (v->type == DDB_TYPE_L) {
        for (size_t i = 0; i < v->u.l.count && t == NULL; i++)
            if (nests(&v->u.l.items[i]))
                t = find_typed(&v->u.l.items[i]);
    }
    return t;
}

int ddb_plain_holds_typed(const ddb_map *item, char *why, size_t cap)
{
    const ddb_value *t = NULL;
    size_t at, n;
    for (at = 0; at < item->count && t == NULL; at++)
        if (nests(&item->attrs[at].value) &&
            !ddb_cstr_eq(DDB_EXTRA_FIELD, item->attrs[at].name.ptr, item->attrs[at].name.len))
            t = find_typed(&item->attrs[at].value);
    if (t == NULL)
        return 0;
    at--;
    n = (size_t)snprintf(why, cap,
                         "DynamoDB JSON values ({\"%.*s\": ...} in \"%.*s\") under top-level "
                         "keys ddbpipe knows no shape of (",
                         (int)t->u.m.attrs[0].name.len, t->u.m.attrs[0].name.ptr,
                         (int)(item->attrs[at].name.len > 40 ? 40 : item->attrs[at].name.len),
                         item->attrs[at].name.ptr);
    for (size_t i = 0; i < item->count && i < 6 && n < cap; i++)
        n += (size_t)snprintf(why + n, cap - n, "%s%.*s", i ? ", " : "",
                              (int)(item->attrs[i].name.len > 40 ? 40 : item->attrs[i].name.len),
                              item->attrs[i].name.ptr);
    if (n < cap)
        snprintf(why + n, cap - n,
                 "%s): not read as plain items. ddbpipe reads items (DynamoDB JSON or plain), "
                 "{\"Item\": ..}, scan and query output {\"Items\": [..]}, batch-get and "
                 "transact-get output {\"Responses\": ..}, BatchWriteItem and TransactWriteItems "
                 "request files, DynamoDB Streams records (get-records output, Lambda events, "
                 "Kinesis records), NoSQL Workbench models and exports",
                 item->count > 6 ? ", ..." : "");
    return 1;
}

/* ------------------------------------------------------------- bidders */

const ddb_reader_bidder ddb_json_bidder = {DDB_IN_JSON, bid_json, ddb_reader_new_json};
/* Scan output is a JSON document: the JSON bidder finds it; this one only
 * serves a forced format. */
static int bid_forced_only(const unsigned char *p, size_t n, const char *path)
{
    (void)p, (void)n, (void)path;
    return 0;
}

const ddb_reader_bidder ddb_scan_bidder = {DDB_IN_SCAN, bid_forced_only, ddb_reader_new_scan};
