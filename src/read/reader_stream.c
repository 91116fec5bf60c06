/*
 * DynamoDB Streams records as input: one change to one item, in the three
 * shapes it reaches people in (the AWS docs' examples of each):
 *
 *   {"eventID": .., "eventName": "INSERT", "eventSource": "aws:dynamodb",
 *    "dynamodb": {"Keys": .., "NewImage": .., "OldImage": .., "SequenceNumber": ..,
 *                 "StreamViewType": ..}, ..}
 *       an element of "Records" in `aws dynamodbstreams get-records` output and in
 *       the event a stream-triggered Lambda function receives;
 *   {"awsRegion": .., "eventID": .., "eventName": .., "userIdentity": ..,
 *    "recordFormat": "application/json", "tableName": .., "dynamodb": {
 *    "ApproximateCreationDateTime": <microseconds>, "Keys": .., ..}, ..}
 *       Kinesis Data Streams for DynamoDB, as Firehose writes it to S3 (one after
 *       another, on lines or not).
 *
 * INSERT and MODIFY are a put of NewImage, REMOVE a delete of Keys, with the
 * change kind set as for an incremental export's records (so the counts and
 * the deletes files are the same). A stream of view type KEYS_ONLY or
 * OLD_IMAGE carries no NewImage: such an INSERT or MODIFY is rejected saying
 * so, never written as the event itself. Keys the shapes above do not have
 * are refused, so a record is never half-read.
 */
#include <stdio.h>
#include <string.h>

#include "ddbpipe/json.h"
#include "ddbpipe/streams.h"
#include "json/json_cursor.h"
#include "read/reader_internal.h"

/* The keys of a record, and of its "dynamodb" part, that say where the
 * change comes from or when: known, not needed to apply it. */
static const char *const record_meta[] = {
    "eventID",      "eventVersion", "awsRegion",    "eventSourceARN",
    "recordFormat", "tableName",    "userIdentity", NULL};
static const char *const change_meta[] = {"ApproximateCreationDateTime",
                                          "ApproximateCreationDateTimePrecision",
                                          "SequenceNumber",
                                          "SizeBytes",
                                          "StreamViewType",
                                          "OldImage",
                                          NULL};

/* One member of a JSON object: the key's bytes (between its quotes) and
 * the value's span. */
typedef struct jmember {
    const char *key, *val;
    size_t klen, vlen;
} jmember;

/* The key of the member of the object text[0, len) at *at (0: at its '{'):
 * 1 with m->key, m->klen and m->val (where the value starts, *at there),
 * 0 after the last member (*at past the '}'), -1 when it is not an object. */
static int member_key(const char *text, size_t len, size_t *at, jmember *m)
{
    const unsigned char *p = (const unsigned char *)text;
    size_t i = ddb_sniff_skip_ws(p, *at, len), end;
    if (*at == 0) {
        if (i >= len || text[i] != '{')
            return -1;
        i++;
    } else if (i < len && text[i] == ',') {
        i++;
    }
    i = ddb_sniff_skip_ws(p, i, len);
    if (i < len && text[i] == '}') {
        *at = i + 1;
        return 0;
    }
    if (i >= len || text[i] != '"' || ddb_json_value_end(text, i, len, 1, &end) != 1)
        return -1;
    m->key = text + i + 1;
    m->klen = end - i - 2;
    i = ddb_sniff_skip_ws(p, end, len);
    if (i >= len || text[i] != ':')
        return -1;
    i = ddb_sniff_skip_ws(p, i + 1, len);
    if (i >= len)
        return -1;
    m->val = text + i;
    *at = i;
    return 1;
}

/* The end of the value member_key found: 1 with m->vlen and *at past it,
 * 0 when it runs past len (a sniffed text cut off, eof 0), -1 when it is
 * malformed. */
static int member_value(const char *text, size_t len, size_t *at, jmember *m, int eof)
{
    size_t end;
    int rc = ddb_json_value_end(text, *at, len, eof, &end);
    if (rc != 1)
        return rc;
    m->vlen = end - *at;
    *at = end;
    return 1;
}

/* Both: the next member, its key and value (eof 1). */
static int next_member(const char *text, size_t len, size_t *at, jmember *m)
{
    int rc = member_key(text, len, at, m);
    if (rc == 1 && (rc = member_value(text, len, at, m, 1)) == 0)
        rc = -1;
    return rc;
}

static int key_is(const jmember *m, const char *s)
{
    return ddb_cstr_eq(s, m->key, m->klen);
}

int ddb_stream_record_sniff(const unsigned char *p, size_t i, size_t n)
{
    static const char *const first[] = {
        "eventID", "eventName", "eventVersion", "eventSource", "awsRegion", "dynamodb", NULL};
    const char *text = (const char *)p + i;
    size_t at = 0, klen;
    const unsigned char *k = ddb_sniff_first_key(p, i, n, &klen);
    int event = 0, change = 0;
    jmember m;
    /* an item's first attribute is seldom one of these: the others are not
     * walked at all */
    if (k == NULL || !ddb_sniff_key_in(k, klen, first))
        return 0;
    /* a large record need not be gone through: its "dynamodb" is not
     * looked into, and the look stops once both are found */
    while (member_key(text, n - i, &at, &m) == 1) {
        int rc;
        if (key_is(&m, "eventName") && m.val[0] == '"')
            event = 1;
        else if (key_is(&m, "dynamodb") && m.val[0] == '{')
            change = 1;
        if (event && change)
            return 1;
        if ((rc = member_value(text, n - i, &at, &m, 0)) == 0)
            return change; /* a "dynamodb" larger than the text sniffed: its
                              eventName may come after it (the Lambda
                              example's order); reading the record checks it */
        if (rc < 0)
            break;
    }
    return 0;
}

/* The parts of a record that decide what it does. */
typedef struct stream_parts {
    ddb_value event, source, identity;
    const char *keys, *image, *view;
    size_t keys_len, image_len, view_len;
} stream_parts;

/* Reads the "dynamodb" part, the object at text[0] (the record's rest
 * follows it, up to len): its Keys, NewImage and StreamViewType spans, and
 * *used, where it ends. Returns NULL, or the reason it cannot be read (into
 * why, cap bytes). */
static const char *change_parts(stream_parts *sp, const char *text, size_t len, size_t *used,
                                char *why, size_t cap)
{
    size_t at = 0;
    jmember m;
    int rc;
    while ((rc = next_member(text, len, &at, &m)) == 1) {
        if (key_is(&m, "Keys")) {
            sp->keys = m.val;
            sp->keys_len = m.vlen;
        } else if (key_is(&m, "NewImage")) {
            sp->image = m.val;
            sp->image_len = m.vlen;
        } else if (key_is(&m, "StreamViewType") && m.val[0] == '"' && m.vlen > 2 && m.vlen < 40) {
            sp->view = m.val + 1;
            sp->view_len = m.vlen - 2;
        } else if (!ddb_sniff_key_in((const unsigned char *)m.key, m.klen, change_meta)) {
            snprintf(why, cap, "unexpected key \"%.*s\" in a stream record's \"dynamodb\"",
                     (int)(m.klen > 64 ? 64 : m.klen), m.key);
            return why;
        }
    }
    *used = at;
    return rc < 0 ? "malformed stream record: \"dynamodb\" is not an object" : NULL;
}

/* Parses a short plain value (a string, userIdentity) of the record. */
static int plain(ddb_value *v, ddb_json_parser *parser, ddb_arena *arena, const jmember *m)
{
    ddb_error perr;
    return ddb_json_parse_plain(parser, v, m->val, m->vlen, arena, &perr);
}

/* Splits the record into its parts. Returns NULL or why it cannot be read. */
static const char *record_parts(stream_parts *sp, ddb_json_parser *parser, ddb_arena *arena,
                                const char *text, size_t len, char *why, size_t cap)
{
    size_t at = 0;
    jmember m;
    int rc;
    while ((rc = member_key(text, len, &at, &m)) == 1) {
        int bad = 0;
        if (key_is(&m, "dynamodb")) {
            /* gone through once, as its members are read */
            size_t used = 0;
            const char *r = change_parts(sp, m.val, len - at, &used, why, cap);
            if (r != NULL)
                return r;
            at += used;
            continue;
        }
        if ((rc = member_value(text, len, &at, &m, 1)) != 1)
            break;
        if (key_is(&m, "eventName"))
            bad = plain(&sp->event, parser, arena, &m) != 0 || sp->event.type != DDB_TYPE_S;
        else if (key_is(&m, "eventSource"))
            bad = plain(&sp->source, parser, arena, &m) != 0 || sp->source.type != DDB_TYPE_S;
        else if (key_is(&m, "userIdentity"))
            bad = plain(&sp->identity, parser, arena, &m) != 0;
        else if (!ddb_sniff_key_in((const unsigned char *)m.key, m.klen, record_meta)) {
            snprintf(why, cap, "unexpected key \"%.*s\" in a stream record",
                     (int)(m.klen > 64 ? 64 : m.klen), m.key);
            return why;
        }
        if (bad) {
            snprintf(why, cap, "malformed stream record: \"%.*s\" is not what it should be",
                     (int)m.klen, m.key);
            return why;
        }
    }
    return rc != 0 ? "malformed stream record: expected an object" : NULL;
}

static int str_is(const ddb_value *v, const char *s)
{
    return v->type == DDB_TYPE_S && ddb_cstr_eq(s, v->u.s.ptr, v->u.s.len);
}

/* What the record does: its change kind, or the reason it does nothing
 * ddbpipe can apply. */
static const char *record_change(ddb_change_kind *change, const stream_parts *sp, char *why,
                                 size_t cap)
{
    const ddb_value *name = sp->event.type == DDB_TYPE_NULL ? NULL : &sp->event; /* absent */
    ddb_stream_event event;
    ddb_error e;
    if (sp->source.type == DDB_TYPE_S && !str_is(&sp->source, "aws:dynamodb")) {
        snprintf(why, cap, "not a DynamoDB stream record (eventSource \"%.*s\")",
                 (int)(sp->source.u.s.len > 64 ? 64 : sp->source.u.s.len), sp->source.u.s.ptr);
        return why;
    }
    /* the names, and the refusal of any other, are the GetRecords reader's too */
    if (ddb_stream_event_parse(&event, name, &e) != 0) {
        snprintf(why, cap, "%s", e.message);
        return why;
    }
    *change = event == DDB_STREAM_INSERT   ? DDB_CHANGE_INSERT
              : event == DDB_STREAM_MODIFY ? DDB_CHANGE_MODIFY
                                           : DDB_CHANGE_REMOVE;
    if (*change == DDB_CHANGE_REMOVE && sp->keys == NULL)
        return "a stream REMOVE record without Keys: no item to delete";
    if (*change != DDB_CHANGE_REMOVE && sp->image == NULL) {
        snprintf(why, cap,
                 "a stream %s record without NewImage%s%.*s%s: the item as written is not in "
                 "it, so it cannot be written; read a stream of view type NEW_IMAGE or "
                 "NEW_AND_OLD_IMAGES",
                 *change == DDB_CHANGE_INSERT ? "INSERT" : "MODIFY",
                 sp->view ? " (StreamViewType " : "", (int)(sp->view ? sp->view_len : 0),
                 sp->view ? sp->view : "", sp->view ? ")" : "");
        return why;
    }
    return NULL;
}

/* A member of the plain map m named name, either spelling: a Lambda event's
 * lowerCamel ("principalId") or the API's UpperCamel ("PrincipalId"). */
static const ddb_value *member(const ddb_value *m, const char *name)
{
    for (size_t i = 0; i < m->u.m.count; i++) {
        const ddb_str *k = &m->u.m.attrs[i].name;
        if (k->len == strlen(name) && k->len > 0 && (k->ptr[0] | 0x20) == name[0] &&
            memcmp(k->ptr + 1, name + 1, k->len - 1) == 0)
            return &m->u.m.attrs[i].value;
    }
    return NULL;
}

/* A removal by Time to Live: userIdentity {"type": "Service", "principalId":
 * "dynamodb.amazonaws.com"} (the Developer Guide's page on TTL and streams). */
static int ttl_removal(const ddb_value *identity)
{
    const ddb_value *type, *who;
    if (identity->type != DDB_TYPE_M)
        return 0;
    type = member(identity, "type");
    who = member(identity, "principalId");
    return type != NULL && who != NULL && str_is(type, "Service") &&
           str_is(who, "dynamodb.amazonaws.com");
}

void ddb_stream_record_parse(ddb_record *rec, char *reason, size_t cap, ddb_json_parser *parser,
                             ddb_arena *arena, const char *text, size_t len)
{
    stream_parts sp;
    ddb_change_kind change = DDB_CHANGE_NONE;
    ddb_error perr;
    char why[300];
    const char *bad;
    int del;

    memset(&sp, 0, sizeof(sp));
    sp.event.type = sp.source.type = sp.identity.type = DDB_TYPE_NULL;
    bad = record_parts(&sp, parser, arena, text, len, why, sizeof(why));
    if (bad == NULL)
        bad = record_change(&change, &sp, why, sizeof(why));
    if (bad != NULL) {
        ddb_record_set_bad(rec, reason, cap, bad);
        return;
    }
    del = change == DDB_CHANGE_REMOVE;
    if (ddb_json_parse_typed_map(parser, &rec->item, del ? sp.keys : sp.image,
                                 del ? sp.keys_len : sp.image_len, arena, &perr) != 0) {
        ddb_record_set_bad(rec, reason, cap, perr.message);
        return;
    }
    rec->kind = del ? DDB_REC_DELETE : DDB_REC_PUT;
    rec->change = change;
    rec->by_ttl = del && ttl_removal(&sp.identity);
}

/* Does "tableName" (quoted) occur in text[0, len)? */
static int mentions_table(const char *text, size_t len)
{
    const char *q = text, *end = text + len;
    while ((q = memchr(q, 'N', (size_t)(end - q))) != NULL) {
        if (q - text >= 6 && end - q >= 5 && memcmp(q - 6, "\"tableName\"", 11) == 0)
            return 1;
        q++;
    }
    return 0;
}

void ddb_stream_record_table(ddb_str *table, ddb_json_parser *parser, ddb_arena *arena,
                             const char *text, size_t len)
{
    size_t at = 0;
    ddb_value v;
    jmember m;
    table->ptr = NULL;
    table->len = 0;
    /* most records name none (Lambda events, get-records output): a search
     * is quicker than a walk through their values */
    if (!mentions_table(text, len))
        return;
    while (next_member(text, len, &at, &m) == 1)
        if (key_is(&m, "tableName")) {
            if (plain(&v, parser, arena, &m) == 0 && v.type == DDB_TYPE_S)
                *table = v.u.s;
            return;
        }
}
