/*
 * s3.h — Amazon S3 where the data lives: s3://bucket/key inputs and outputs.
 *
 * Requests go through the DynamoDB client's loop (client.h,
 * ddb_client_submit_http): the same connections, credentials, refresh and
 * retry rules. Signed with SigV4 for service "s3": x-amz-content-sha256 is the
 * body's hash, the path is signed as sent (no normalization).
 *
 * Addressing: a custom endpoint (AWS_ENDPOINT_URL_S3, never DynamoDB's
 * endpoint) is used path-style (http://host:port/bucket/key); AWS is
 * virtual-hosted (https://bucket.s3.REGION.amazonaws.com/key), path-style for
 * bucket names that are not DNS labels. A bucket in another region answers
 * 301 PermanentRedirect (or 400 AuthorizationHeaderMalformed) naming its
 * region in x-amz-bucket-region / <Region>: the request goes again there and
 * the bucket's region is remembered.
 *
 * Reading: objects are fetched as ranged GETs of chunk_size bytes, up to
 * window of them in flight or waiting to be read (memory stays below
 * window x chunk_size), across the objects of a read plan in order, so the
 * next objects are on their way while one is parsed. Every GET carries
 * If-Match with the object's ETag: an object replaced while it is read is an
 * error, never a mix of two versions. A connection that drops mid-body is
 * resumed at the byte where it stopped (client.h).
 *
 * Writing: multipart uploads (part_size bytes, 5 MiB at least, at most 10,000
 * parts), completed only by finish; a sink freed unfinished aborts its upload
 * unless it is resumable, when its parts are recorded for a resumed run.
 */
#ifndef DDBPIPE_S3_H
#define DDBPIPE_S3_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "ddbpipe/client.h"
#include "ddbpipe/error.h"
#include "ddbpipe/sink.h"
#include "ddbpipe/source.h"

#define DDB_S3_MIN_PART (5u * 1024u * 1024u)
#define DDB_S3_MAX_PARTS 10000u

typedef struct ddb_s3 ddb_s3;

typedef struct ddb_s3_opts {
    ddb_client *client;          /* borrowed; must outlive the context */
    const char *endpoint;        /* custom endpoint URL, or NULL for AWS */
    const char *region;          /* default region of buckets */
    const char *sse;             /* x-amz-server-side-encryption (AES256, aws:kms) or NULL */
    const char *sse_kms_key_id;  /* x-amz-server-side-encryption-aws-kms-key-id or NULL */
    size_t chunk_size;           /* ranged GET size (default 8 MiB) */
    int window;                  /* chunks in flight or buffered (default 8) */
    size_t part_size;            /* multipart part size (default 8 MiB, at least 5 MiB) */
    int parts_in_flight;         /* per upload (default 4) */
    const char *spool_dir;       /* resumable uploads keep the part being filled here */
    volatile sig_atomic_t *stop; /* the run's stop flag: uploads are still aborted after it */
} ddb_s3_opts;

/* One object as a listing or HEAD describes it. */
typedef struct ddb_s3_object {
    char *key;
    uint64_t size;
    char *etag; /* with its quotes, as S3 sends it */
} ddb_s3_object;

/* Creates a context. *out owned by the caller (ddb_s3_free). Returns 0,
 * DDB_EUSAGE (bad endpoint or region), DDB_ENOMEM. */
DDB_MUST_USE int ddb_s3_new(ddb_s3 **out, const ddb_s3_opts *opts, ddb_error *err);

/* Waits for the requests still in flight (chunks nobody reads any more) and
 * frees. Accepts NULL. */
void ddb_s3_free(ddb_s3 *s3);

/* Is path an s3:// URL? */
int ddb_s3_is_url(const char *path);

/* Splits s3://bucket/key into malloc'd bucket and key (key may be "").
 * Returns 0, DDB_EUSAGE (not an s3:// URL, no bucket), DDB_ENOMEM. */
int ddb_s3_parse_url(char **bucket, char **key, const char *url, ddb_error *err);

/* HEAD: size and ETag of an object. Returns 0, DDB_ENOTFOUND, DDB_ENET
 * (message has S3's code and text), DDB_EUSAGE (access denied). */
DDB_MUST_USE int ddb_s3_head(ddb_s3 *s3, ddb_s3_object *out, const char *bucket, const char *key,
                             ddb_error *err);

/* Every object under prefix, in the order S3 lists them (UTF-8 binary order
 * of keys), through every page of ListObjectsV2. With delimiter "/", only the
 * direct children: objects in *objs, folders in *dirs (their full prefixes,
 * ending with "/"). Returns 0, DDB_ENOTFOUND (no such bucket), DDB_ENET... */
DDB_MUST_USE int ddb_s3_list(ddb_s3 *s3, ddb_s3_object **objs, size_t *n_objs, char ***dirs,
                             size_t *n_dirs, const char *bucket, const char *prefix,
                             const char *delimiter, ddb_error *err);

void ddb_s3_objects_free(ddb_s3_object *objs, size_t n);

/* A whole small object in memory (NUL-terminated). DDB_ETOOBIG past max. */
DDB_MUST_USE int ddb_s3_get(ddb_s3 *s3, char **data, size_t *len, const char *bucket,
                            const char *key, size_t max, ddb_error *err);

/* Between these, requests run to their answer whatever the run's stop flag
 * says: those that commit (complete an upload, write or delete an object an
 * output folder is made of, and the listing that finds which), which, cut,
 * would leave the run unable to tell whether S3 did them; and the aborts
 * after a stop. A second interrupt still ends the process. Nests. */
void ddb_s3_hold_stop(ddb_s3 *s3);
void ddb_s3_release_stop(ddb_s3 *s3);

/* PutObject of len bytes (with Content-MD5 and the server-side encryption
 * options). It runs to its answer whatever the stop flag says (a commit:
 * the run must know whether the object changed). Returns 0 or
 * DDB_ENET/DDB_EUSAGE. */
DDB_MUST_USE int ddb_s3_put(ddb_s3 *s3, const char *bucket, const char *key, const void *data,
                            size_t len, ddb_error *err);

/* DeleteObject, run to its answer as ddb_s3_put. A key that is not there is
 * no error (S3 answers 204 for it too; NoSuchKey from a compatible store).
 * Returns 0, DDB_EIO for a bucket that is not there (404 NoSuchBucket),
 * DDB_ENET or another error naming the object. */
DDB_MUST_USE int ddb_s3_delete(ddb_s3 *s3, const char *bucket, const char *key, ddb_error *err);

/* The objects about to be read, in order, so their chunks are fetched ahead
 * (replaces an earlier plan). Objects not in the plan are still readable. */
int ddb_s3_plan_reads(ddb_s3 *s3, const char *bucket, const ddb_s3_object *objs, size_t n,
                      ddb_error *err);

/* A source over one object (its raw bytes), read in ranged chunks. name is
 * the display name (the s3:// URL). Returns 0 or DDB_ENOMEM. */
DDB_MUST_USE int ddb_s3_source_open(ddb_source **out, ddb_s3 *s3, const char *bucket,
                                    const ddb_s3_object *obj, const char *name, ddb_error *err);

/*
 * A sink writing s3://bucket/key as a multipart upload, completed by
 * ddb_sink_finish. Freed unfinished: the upload is aborted (nothing ever
 * becomes visible), unless resumable, when it stays open: its checkpoint
 * makes the bytes so far durable (uploaded parts, the part being filled in
 * the spool folder) and ddb_s3_sink_state describes them. resume_state (a
 * string saved from ddb_s3_sink_state) continues such an upload at keep_len
 * bytes. Returns 0, DDB_EIO (spool file), DDB_EUSAGE (bad state), DDB_ENOMEM.
 */
DDB_MUST_USE int ddb_s3_sink_open(ddb_sink **out, ddb_s3 *s3, const char *bucket, const char *key,
                                  const char *name, int resumable, const char *resume_state,
                                  uint64_t keep_len, ddb_error *err);

/* Appends the state of a resumable S3 sink chain (as a JSON string) to out,
 * or nothing when the bottom of s is not an S3 sink. Returns 1 when appended. */
int ddb_s3_sink_state(const ddb_sink *s, ddb_buf *out);

/* Uploads a local file to url (s3://bucket/key) as an object, streamed
 * through a multipart sink. Returns 0, DDB_EIO, DDB_ENET... */
DDB_MUST_USE int ddb_s3_upload_file(ddb_s3 *s3, const char *url, const char *local, ddb_error *err);

/* The folder resumable uploads spool into, or NULL. */
const char *ddb_s3_spool_dir(const ddb_s3 *s3);

/* dir/<hash of url>-<its base name><suffix>, malloc'd (NULL when out of
 * memory): the local stand-in of an s3:// file, named after the whole URL so
 * two files of one name (or two runs' files) never share one. */
char *ddb_s3_local_name(const char *dir, const char *url, const char *suffix);

#endif
