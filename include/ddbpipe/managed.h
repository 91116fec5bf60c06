/*
 * managed.h — DynamoDB's own export and import through S3, which use no read
 * or write capacity of the table (billed per GB instead):
 *
 *   ExportTableToPointInTime / DescribeExport: a table (it needs
 *     point-in-time recovery) written by DynamoDB to
 *     s3://bucket/prefix/AWSDynamoDB/<export-id>/, full or incremental;
 *   ImportTable / DescribeImport: DynamoDB JSON objects under an S3 prefix
 *     loaded into a new table it creates.
 *
 * Both are jobs that run for minutes to hours inside AWS: *_start sends the
 * request once (with a ClientToken, so sending it again after a crash gives
 * the same job, not a second one), *_poll describes the job once. Waiting
 * between polls is the caller's (run.h), which also records the job's ARN in
 * its state file. The request bodies and the answers' parsing are public for
 * the tests.
 */
#ifndef DDBPIPE_MANAGED_H
#define DDBPIPE_MANAGED_H

#include <stddef.h>
#include <stdint.h>

#include "ddbpipe/buf.h"
#include "ddbpipe/client.h"
#include "ddbpipe/error.h"
#include "ddbpipe/mapping.h"

/* What to export (ExportTableToPointInTime). Times are seconds since the
 * epoch, as the API takes them. */
typedef struct ddb_export_spec {
    const char *table;     /* the name, for messages */
    const char *table_arn; /* the ARN the request names the table by (DescribeTable) */
    const char *bucket;
    const char *prefix;       /* key prefix without its final '/'; NULL or "": none */
    const char *client_token; /* NULL: none */
    int incremental;          /* INCREMENTAL_EXPORT of [from, to), else FULL_EXPORT */
    double from;              /* incremental: ExportFromTime */
    int has_to;               /* incremental: ExportToTime given (else the latest AWS has) */
    double to;
    int has_time; /* full: ExportTime given (else now) */
    double time;
    const char *view;           /* incremental: NEW_AND_OLD_IMAGES (NULL) or NEW_IMAGE */
    const char *sse;            /* S3SseAlgorithm: AES256 or KMS; NULL: the bucket's default */
    const char *sse_kms_key_id; /* S3SseKmsKeyId, or NULL */
} ddb_export_spec;

/* An ExportDescription. Strings NULL when absent; times 0 when absent. */
typedef struct ddb_export_info {
    char *arn;
    char *status;   /* IN_PROGRESS, COMPLETED, FAILED */
    char *type;     /* FULL_EXPORT, INCREMENTAL_EXPORT */
    char *format;   /* DYNAMODB_JSON, ION */
    char *manifest; /* ExportManifest: the key of manifest-summary.json */
    char *bucket;
    char *prefix;
    char *table_arn;
    char *client_token;
    char *failure_code;
    char *failure_message;
    double start_time, end_time, export_time;
    uint64_t item_count;   /* once COMPLETED */
    uint64_t billed_bytes; /* once COMPLETED */
} ddb_export_info;

/* What to import (ImportTable): the objects under s3://bucket/prefix, DynamoDB
 * JSON, into a new table built from mapping. */
typedef struct ddb_import_spec {
    const char *bucket;
    const char *prefix;       /* S3KeyPrefix (as given, '/' included); NULL: the whole bucket */
    const char *client_token; /* NULL: none */
    const ddb_mapping *mapping;
    const char *table;    /* NULL: the mapping's table name */
    unsigned table_flags; /* ddb_table_creation_params flags: DDB_TABLE_NO_LSI */
    int gzip;             /* InputCompressionType GZIP, else NONE */
} ddb_import_spec;

/* An ImportTableDescription. */
typedef struct ddb_import_info {
    char *arn;
    char *status; /* IN_PROGRESS, COMPLETED, CANCELLING, CANCELLED, FAILED */
    char *table_arn;
    char *log_group; /* CloudWatchLogGroupArn: where the lines that failed are described */
    char *client_token;
    char *failure_code;
    char *failure_message;
    double start_time, end_time;
    uint64_t processed_items;
    uint64_t imported_items;
    uint64_t errors;
    uint64_t processed_bytes;
} ddb_import_info;

/* Told after every poll while a job runs: its ARN and status, how long it
 * has run, and (import) what it processed so far. */
typedef struct ddb_job_progress {
    int import; /* 0: an export, 1: an import */
    const char *arn;
    const char *status;
    double waited_s;
    uint64_t items; /* import: ProcessedItemCount so far */
} ddb_job_progress;

typedef void (*ddb_job_wait_fn)(void *ctx, const ddb_job_progress *p);

/* The ExportTableToPointInTime request body, appended to out. Returns 0 or
 * DDB_ENOMEM. */
int ddb_managed_export_body(ddb_buf *out, const ddb_export_spec *s, ddb_error *err);

/* Parses an ExportTableToPointInTime or DescribeExport answer (the object
 * holding ExportDescription). *out owned by the caller (ddb_export_info_free).
 * Returns 0, DDB_ENET (not such an answer), DDB_ENOMEM. */
int ddb_managed_export_parse(ddb_export_info **out, const char *json, size_t len, ddb_error *err);

void ddb_export_info_free(ddb_export_info *e);

/*
 * Starts the export. *out: its first description (IN_PROGRESS). Errors, each
 * one message with the fix: DDB_EUSAGE when point-in-time recovery is off
 * (names the command that turns it on), a time outside its window or a
 * request DynamoDB refuses; DDB_ENOTFOUND for a table that does not exist;
 * DDB_ENET for anything else (the service's type and message quoted).
 */
DDB_MUST_USE int ddb_managed_export_start(ddb_export_info **out, ddb_client *c,
                                          const ddb_export_spec *s, ddb_error *err);

/* DescribeExport of arn, once. Returns 0 (check (*out)->status), DDB_ENOTFOUND
 * (ExportNotFoundException), DDB_ENET. */
DDB_MUST_USE int ddb_managed_export_poll(ddb_export_info **out, ddb_client *c, const char *arn,
                                         ddb_error *err);

/* The export's folder, s3://bucket/<prefix/>AWSDynamoDB/<export-id>/, from
 * ExportManifest (its folder) or else S3Prefix and the id the ARN ends with.
 * NULL when the description names neither (or out of memory). malloc'd. */
char *ddb_managed_export_folder(const ddb_export_info *e);

/* A failed export in one message: its FailureCode and FailureMessage, and
 * what to do about the usual causes. Into err as DDB_ENET; returns DDB_ENET. */
int ddb_managed_export_failed(const ddb_export_info *e, const char *table, ddb_error *err);

/* The ImportTable request body, appended to out: S3BucketSource, InputFormat
 * DYNAMODB_JSON, InputCompressionType, and TableCreationParameters from the
 * mapping (ddb_table_creation_params). Returns 0 or DDB_ENOMEM. */
int ddb_managed_import_body(ddb_buf *out, const ddb_import_spec *s, ddb_error *err);

/* Parses an ImportTable or DescribeImport answer (ImportTableDescription).
 * Returns 0, DDB_ENET, DDB_ENOMEM. */
int ddb_managed_import_parse(ddb_import_info **out, const char *json, size_t len, ddb_error *err);

void ddb_import_info_free(ddb_import_info *i);

/* Starts the import. Errors: DDB_EUSAGE (the table exists:
 * ResourceInUseException; a request DynamoDB refuses), DDB_ENET. */
DDB_MUST_USE int ddb_managed_import_start(ddb_import_info **out, ddb_client *c,
                                          const ddb_import_spec *s, ddb_error *err);

/* DescribeImport of arn, once. Returns 0, DDB_ENOTFOUND, DDB_ENET. */
DDB_MUST_USE int ddb_managed_import_poll(ddb_import_info **out, ddb_client *c, const char *arn,
                                         ddb_error *err);

/* A time as the API takes it (seconds since the epoch, fractions kept) from
 * ISO 8601 (2024-05-27T06:11:47Z, 2024-05-27T06:11:47.109+02:00,
 * 2024-05-27 06:11, 2024-05-27) or seconds since the epoch. A time without a
 * zone is UTC. Returns 0 or DDB_EINVAL. */
int ddb_managed_parse_time(double *out, const char *text);

/* A ClientToken: 32 random hex digits (NUL-terminated into out[33]).
 * Returns 0 or DDB_ERROR when no randomness is to be had. */
int ddb_managed_client_token(char out[33]);

#endif
