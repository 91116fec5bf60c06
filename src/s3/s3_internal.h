/* s3_internal.h (private header of s3/) — the S3 context shared by s3.c (requests, listing),
 * s3_source.c (ranged reads) and s3_sink.c (multipart uploads). */
#ifndef DDBPIPE_S3_INTERNAL_H
#define DDBPIPE_S3_INTERNAL_H

#include "ddbpipe/buf.h"
#include "ddbpipe/s3.h"

typedef struct s3_region {
    char *bucket;
    char *region;
} s3_region;

typedef struct s3_fetch s3_fetch; /* the read-ahead of s3_source.c */

struct ddb_s3 {
    ddb_client *client;
    char *endpoint; /* custom endpoint without trailing '/', or NULL */
    char *region;
    char *sse, *sse_kms_key_id;
    size_t chunk_size, part_size;
    int window, parts_in_flight;
    char *spool_dir;
    s3_region *regions; /* buckets found elsewhere than region */
    size_t n_regions, cap_regions;
    s3_fetch *fetch;
    volatile sig_atomic_t *stop;
    int held;    /* ddb_s3_hold_stop calls not yet released */
    int pending; /* generic calls of ours in flight (chunks, parts) */
};

/* The URL of bucket/key (key "" for the bucket) with query (may be NULL or
 * ""), and the signing region of the bucket. Returns 0 or DDB_ENOMEM. */
int ddb_s3_url(const ddb_s3 *s3, ddb_buf *url, const char **region, const char *bucket,
               const char *key, const char *query);

/* One request, synchronously, following a bucket's region when S3 says it is
 * elsewhere. The response owns its body (ddb_response_dispose). Returns 0 when
 * an answer came (check resp->ok), or the loop's error. */
int ddb_s3_call(ddb_s3 *s3, ddb_response *resp, const char *method, const char *bucket,
                const char *key, const char *query, const ddb_sigv4_header *headers,
                size_t n_headers, const void *body, size_t len, ddb_error *err);

/* The error of a failed answer, as one message naming the object: DDB_ENOTFOUND
 * (NoSuchKey, NoSuchBucket, 404), DDB_EUSAGE (access denied, a bad request),
 * else DDB_ENET. */
int ddb_s3_fail(const ddb_response *resp, const char *what, const char *bucket, const char *key,
                ddb_error *err);

/* Appends s percent-encoded but for A-Z a-z 0-9 - _ . ~ (and '/' when
 * keep_slash), as S3 paths and query values are sent. */
void ddb_s3_encode(ddb_buf *b, const char *s, size_t len, int keep_slash);

/* The text of the first <tag>..</tag> at or after *p (before end), XML
 * entities decoded, appended to out; *p moves past it. Returns 1 when found. */
int ddb_s3_xml_take(const char **p, const char *end, const char *tag, ddb_buf *out);

/* What ListObjectsV2's pages add up to. */
typedef struct ddb_s3_listing {
    ddb_s3_object *objs;
    size_t n, cap;
    char **dirs;
    size_t n_dirs, cap_dirs;
} ddb_s3_listing;

/* One page of ListObjectsV2 (body may be NULL when len is 0): its objects
 * and folders appended to l, the next continuation token into token (cleared
 * on the last page). Returns 0 or DDB_ENOMEM (what l holds stays l's). */
int ddb_s3_list_page(ddb_s3_listing *l, const char *body, size_t len, ddb_buf *token);

/* Base64 of the MD5 of data (Content-MD5), NUL-terminated in out[25]. */
void ddb_s3_content_md5(char out[25], const void *data, size_t len);

/* The read-ahead's own cleanup (s3_source.c). */
void ddb_s3_fetch_free(ddb_s3 *s3);

#endif
