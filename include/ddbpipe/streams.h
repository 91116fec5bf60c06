/*
 * streams.h — a table's DynamoDB Stream: where it is (DescribeTable's
 * LatestStreamArn and StreamSpecification), its shards and their lineage
 * (DescribeStream), and its records (GetShardIterator, GetRecords).
 *
 * DynamoDB Streams is a service of its own: JSON 1.0 with the X-Amz-Target
 * prefix DynamoDBStreams_20120810, on streams.dynamodb.<region>.amazonaws.com,
 * signed with the service name "dynamodb". A local server (DynamoDB Local)
 * serves it on its one endpoint. Calls go through the client's loop, with its
 * credentials, retries and backoff.
 */
#ifndef DDBPIPE_STREAMS_H
#define DDBPIPE_STREAMS_H

#include <stddef.h>
#include <stdint.h>

#include "ddbpipe/error.h"

#include "ddbpipe/arena.h"
#include "ddbpipe/client.h"
#include "ddbpipe/value.h"

typedef struct ddb_streams ddb_streams;

/* How a table's stream is set up (DescribeTable). */
typedef struct ddb_stream_spec {
    int enabled;
    char view_type[24]; /* NEW_AND_OLD_IMAGES, NEW_IMAGE, OLD_IMAGE, KEYS_ONLY; "" when off */
    char *arn;          /* LatestStreamArn; NULL when off */
} ddb_stream_spec;

typedef struct ddb_stream_shard {
    char *id;
    char *parent;    /* ParentShardId, or NULL */
    char *start_seq; /* SequenceNumberRange.StartingSequenceNumber */
    char *end_seq;   /* EndingSequenceNumber: NULL while the shard is open */
} ddb_stream_shard;

typedef struct ddb_stream_desc {
    char *status; /* ENABLING, ENABLED, DISABLING, DISABLED */
    char *view_type;
    ddb_stream_shard *shards; /* in DescribeStream's order, every page */
    size_t n_shards;
} ddb_stream_desc;

typedef enum ddb_stream_event {
    DDB_STREAM_INSERT = 1,
    DDB_STREAM_MODIFY,
    DDB_STREAM_REMOVE
} ddb_stream_event;

/* What ddb_stream_event_parse refuses with: the names AWS documents for a
 * record's eventName (the Streams API's Record). */
#define DDB_STREAM_EVENT_NAMES "a stream record's eventName is INSERT, MODIFY or REMOVE"

/* The event of a DynamoDB Streams record from its "eventName" member (name:
 * NULL when it has none), for every reader of stream records (GetRecords
 * here, files of them in read/): INSERT, MODIFY or REMOVE, as AWS spells
 * them. Returns 0 with *out, or DDB_EINVAL (err: DDB_STREAM_EVENT_NAMES and
 * the name, or that it has none or one not a string) for anything else,
 * never a guess. */
DDB_MUST_USE int ddb_stream_event_parse(ddb_stream_event *out, const ddb_value *name,
                                        ddb_error *err);

/* One record of GetRecords; values live in the page's arena. */
typedef struct ddb_stream_record {
    ddb_stream_event event;
    const char *seq; /* SequenceNumber (decimal text, up to 40 digits) */
    double created;  /* ApproximateCreationDateTime, seconds since the epoch */
    ddb_item keys;
    ddb_item new_image; /* with has_new */
    ddb_item old_image; /* with has_old */
    int has_new, has_old;
} ddb_stream_record;

typedef struct ddb_stream_page {
    ddb_stream_record *records;
    size_t n_records;
    char *next_iterator; /* NULL: the shard is closed and read to its end */
    ddb_arena *arena;
    char *body;
} ddb_stream_page;

/* ddb_stream_get_records: the iterator expired (not an error code: the
 * position it stood for can be asked for again). */
#define DDB_STREAM_EXPIRED 1
/* ddb_stream_get_records: LimitExceededException, the shard was read too
 * often (DynamoDB Streams allows about 5 GetRecords a second per shard):
 * ask again a little later with the same iterator. */
#define DDB_STREAM_THROTTLED 2

typedef enum ddb_stream_iter_type {
    DDB_ITER_TRIM_HORIZON = 0, /* the oldest record the stream keeps */
    DDB_ITER_LATEST,           /* after the newest */
    DDB_ITER_AT_SEQ,           /* at a sequence number */
    DDB_ITER_AFTER_SEQ         /* just after one */
} ddb_stream_iter_type;

/* The Streams endpoint beside a DynamoDB endpoint:
 * https://dynamodb.R.amazonaws.com[.cn] gives https://streams.dynamodb.R.amazonaws.com[.cn];
 * any other URL (a local server) is used as it is. Appended to out (cap bytes). */
void ddb_streams_endpoint(char *out, size_t cap, const char *dynamodb_endpoint);

/* A Streams client over c (borrowed; it must outlive the handle) at endpoint
 * (the Streams URL: see ddb_streams_endpoint). *out owned by the caller
 * (ddb_streams_free). Returns 0 or DDB_ENOMEM. */
DDB_MUST_USE int ddb_streams_new(ddb_streams **out, ddb_client *c, const char *endpoint,
                                 ddb_error *err);
void ddb_streams_free(ddb_streams *s);

/* DescribeTable's StreamSpecification and LatestStreamArn for table
 * (through the DynamoDB endpoint). out->arn is the caller's
 * (ddb_stream_spec_dispose). Returns 0 (enabled or not: see out->enabled),
 * DDB_ENOTFOUND, DDB_ENET, DDB_ENOMEM. */
DDB_MUST_USE int ddb_stream_spec_get(ddb_stream_spec *out, ddb_client *c, const char *table,
                                     ddb_error *err);
void ddb_stream_spec_dispose(ddb_stream_spec *s);

/* DescribeStream of arn, every page (ExclusiveStartShardId). *out owned by
 * the caller (ddb_stream_desc_free). Returns 0, DDB_ENOTFOUND, DDB_ENET,
 * DDB_ENOMEM. */
DDB_MUST_USE int ddb_stream_describe(ddb_stream_desc **out, ddb_streams *s, const char *arn,
                                     ddb_error *err);
void ddb_stream_desc_free(ddb_stream_desc *d);

/*
 * GetShardIterator of shard in arn; seq for AT_SEQ and AFTER_SEQ, else NULL.
 * *out (malloc'd) is the caller's. Returns 0; DDB_ENOTFOUND when the
 * position is gone (TrimmedDataAccessException: older than the stream keeps;
 * ResourceNotFoundException: the shard or stream is gone): the message says
 * to start over; DDB_ENET; DDB_ENOMEM.
 */
DDB_MUST_USE int ddb_stream_iterator(char **out, ddb_streams *s, const char *arn, const char *shard,
                                     ddb_stream_iter_type type, const char *seq, ddb_error *err);

/*
 * GetRecords at iterator (at most limit records, 1..1000; 0: 1000). *out
 * owned by the caller (ddb_stream_page_free). Returns 0;
 * DDB_STREAM_EXPIRED (ExpiredIteratorException: the iterator is older than
 * 15 minutes, but its records may still be there: get a new iterator from
 * the last sequence number read); DDB_STREAM_THROTTLED (LimitExceededException:
 * the same iterator again later); DDB_ENOTFOUND for TrimmedDataAccessException
 * (the records are gone: the message says to start over); DDB_ENET;
 * DDB_EINVAL for a record this code cannot read; DDB_ENOMEM.
 */
DDB_MUST_USE int ddb_stream_get_records(ddb_stream_page **out, ddb_streams *s, const char *iterator,
                                        int limit, ddb_error *err);
void ddb_stream_page_free(ddb_stream_page *p);

/* A GetRecords answer's body (len bytes, copied) read as ddb_stream_get_records
 * reads it. *out owned by the caller (ddb_stream_page_free). Returns 0,
 * DDB_EINVAL (not an answer, or a record this code cannot read) or DDB_ENOMEM. */
DDB_MUST_USE int ddb_stream_page_parse(ddb_stream_page **out, const char *body, size_t len,
                                       ddb_error *err);

/* A GetRecords in flight: filled in when its answer comes (from inside
 * ddb_client_run), so several shards are read at once on one loop. */
typedef struct ddb_stream_fetch {
    int finished;
    int rc;                /* as ddb_stream_get_records returns */
    ddb_stream_page *page; /* rc 0: the caller's (ddb_stream_page_free) */
    ddb_error err;         /* rc != 0: why */
} ddb_stream_fetch;

/* Queues GetRecords at iterator on the client's loop; f (the caller's) is
 * filled in once the answer comes, and must stay until then (or until
 * ddb_client_forget(client, f)). Returns 0 or DDB_ENOMEM. */
DDB_MUST_USE int ddb_stream_fetch_submit(ddb_stream_fetch *f, ddb_streams *s, const char *iterator,
                                         int limit, ddb_error *err);

/* A typed item ({"a":{"S":"x"}}, as Keys, NewImage, OldImage and GetItem's
 * Item are) that ddb_json_parse_plain read -> the item, its values in a.
 * Returns 0 or DDB_EINVAL (err says why). */
int ddb_stream_typed_item(ddb_item *out, const ddb_value *plain, ddb_arena *a, ddb_error *err);

#endif
