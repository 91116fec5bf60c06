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
                                            NULL};

static const char *const request_keys[] = {"PutRequest", "DeleteRequest", NULL};

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

/* What the object at p[i] ('{') is, from its first key and value. */
enum jdoc_class ddb_jdoc_classify(const unsigned char *p, size_t i, size_t n)
{
    const unsigned char *key;
    size_t klen, v = first_value_at(p, i, n, &key, &klen);
    if (key == NULL || v >= n)
        return JDOC_ITEM;
    if (ddb_sniff_key_in(key, klen, envelope_keys) && !is_descriptor(p, v, n))
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
    if (klen == 4 && memcmp(key, "Item", 4) == 0 && v < n && p[v] == '{' && !is_descriptor(p, v, n))
        return JSH_WRAPPED;
    return is_descriptor(p, v, n) ? JSH_TYPED : JSH_PLAIN;
}

/* Does the text mention a key that holds a document's records? */
static int mentions_records(const unsigned char *p, size_t n)
{
    static const char *const keys[] = {"\"Items\"",        "\"Responses\"",
                                       "\"RequestItems\"", "\"UnprocessedItems\"",
                                       "\"DataModel\"",    NULL};
    for (size_t i = 0; i < n; i++) {
        if (p[i] != '"')
            continue;
        for (const char *const *k = keys; *k; k++)
            if (n - i >= strlen(*k) && memcmp(p + i, *k, strlen(*k)) == 0)
                return 1;
    }
    return 0;
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
        if (!one_line || (!(klen == 4 && memcmp(key, "Item", 4) == 0) &&
                          mentions_records(p + i, (eol < n ? end : n) - i)))
            return 90;
        return 0;
    default:
        return one_line ? 0 : 85;
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

/* {"PutRequest": {"Item": {...}}} or {"DeleteRequest": {"Key": {...}}}. */
static void parse_request(ddb_record *rec, char *reason, size_t cap, ddb_json_parser *parser,
                          ddb_arena *arena, const char *text, size_t len)
{
    static const char *const none[] = {NULL};
    const char *body, *item, *unknown;
    size_t blen, ilen, ulen;
    int del = 0, rc;
    ddb_error perr;

    rc = object_member(text, len, "PutRequest", request_keys, &body, &blen, &unknown, &ulen);
    if (rc == 0) {
        del = 1;
        rc = object_member(text, len, "DeleteRequest", request_keys, &body, &blen, &unknown, &ulen);
    }
    if (rc == 1)
        rc = object_member(body, blen, del ? "Key" : "Item", none, &item, &ilen, &unknown, &ulen);
    if (rc != 1) {
        char why[300];
        if (rc == -2)
            snprintf(why, sizeof(why), "unexpected key \"%.*s\" in a write request", (int)ulen,
                     unknown);
        else if (rc == 0)
            snprintf(why, sizeof(why),
                     "a write request holds a PutRequest with an Item or a "
                     "DeleteRequest with a Key");
        else
            snprintf(why, sizeof(why), "malformed write request");
        ddb_record_set_bad(rec, reason, cap, why);
        return;
    }
    if (ddb_json_parse_typed_map(parser, &rec->item, item, ilen, arena, &perr) != 0) {
        ddb_record_set_bad(rec, reason, cap, perr.message);
        return;
    }
    rec->kind = del ? DDB_REC_DELETE : DDB_REC_PUT;
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
    case JSH_WRAPPED:
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
