/* DynamoDB's export to S3 and import from S3: the requests as the API reference
 * shapes them, the answers parsed, the export's folder, times, and the output
 * that checks what is uploaded for an import. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/arena.h"
#include "ddbpipe/managed.h"
#include "ddbpipe/output_check.h"
#include "ddbpipe/table.h"
#include "support/testutil.h"

static ddb_mapping *favorites(void)
{
    ddb_mapping *m = NULL;
    ddb_error err;
    cr_assert_eq(ddb_mapping_load(&m, DDB_SOURCE_DIR "/formats/favorites.json", &err), 0, "%s",
                 err.message);
    return m;
}

Test(managed, builds_a_full_export_request)
{
    ddb_export_spec s;
    ddb_buf b = DDB_BUF_INIT;
    ddb_error err;
    memset(&s, 0, sizeof(s));
    s.table = "T";
    s.table_arn = "arn:aws:dynamodb:eu-west-1:123456789012:table/T";
    s.bucket = "exports";
    s.prefix = "nightly/t";
    s.client_token = "0123abcd";
    cr_assert_eq(ddb_managed_export_body(&b, &s, &err), 0);
    cr_assert_str_eq(b.ptr, "{\"TableArn\":\"arn:aws:dynamodb:eu-west-1:123456789012:table/T\","
                            "\"S3Bucket\":\"exports\",\"S3Prefix\":\"nightly/t\","
                            "\"ClientToken\":\"0123abcd\",\"ExportFormat\":\"DYNAMODB_JSON\","
                            "\"ExportType\":\"FULL_EXPORT\"}");
    /* as of a point in time, no prefix */
    ddb_buf_clear(&b);
    s.prefix = "";
    s.client_token = NULL;
    s.has_time = 1;
    s.time = 1716790307.109;
    cr_assert_eq(ddb_managed_export_body(&b, &s, &err), 0);
    cr_assert_str_eq(b.ptr, "{\"TableArn\":\"arn:aws:dynamodb:eu-west-1:123456789012:table/T\","
                            "\"S3Bucket\":\"exports\",\"ExportFormat\":\"DYNAMODB_JSON\","
                            "\"ExportType\":\"FULL_EXPORT\",\"ExportTime\":1716790307.109}");
    /* the objects' encryption, as the export API names it */
    ddb_buf_clear(&b);
    s.has_time = 0;
    s.sse = "KMS";
    s.sse_kms_key_id = "alias/exports";
    cr_assert_eq(ddb_managed_export_body(&b, &s, &err), 0);
    cr_assert_str_eq(b.ptr,
                     "{\"TableArn\":\"arn:aws:dynamodb:eu-west-1:123456789012:table/T\","
                     "\"S3Bucket\":\"exports\",\"S3SseAlgorithm\":\"KMS\","
                     "\"S3SseKmsKeyId\":\"alias/exports\",\"ExportFormat\":\"DYNAMODB_JSON\","
                     "\"ExportType\":\"FULL_EXPORT\"}");
    ddb_buf_dispose(&b);
}

Test(managed, builds_an_incremental_export_request)
{
    ddb_export_spec s;
    ddb_buf b = DDB_BUF_INIT;
    ddb_error err;
    memset(&s, 0, sizeof(s));
    s.table_arn = "arn:aws:dynamodb:us-east-1:1:table/T";
    s.bucket = "b";
    s.incremental = 1;
    s.from = 1716790307.109;
    s.has_time = 1; /* ignored: an incremental export has a window, not a time */
    s.time = 5;
    cr_assert_eq(ddb_managed_export_body(&b, &s, &err), 0);
    cr_assert_str_eq(b.ptr, "{\"TableArn\":\"arn:aws:dynamodb:us-east-1:1:table/T\",\"S3Bucket\":"
                            "\"b\",\"ExportFormat\":\"DYNAMODB_JSON\",\"ExportType\":"
                            "\"INCREMENTAL_EXPORT\",\"IncrementalExportSpecification\":{"
                            "\"ExportFromTime\":1716790307.109,\"ExportViewType\":"
                            "\"NEW_AND_OLD_IMAGES\"}}");
    ddb_buf_clear(&b);
    s.has_to = 1;
    s.to = 1716791207;
    s.view = "NEW_IMAGE";
    cr_assert_eq(ddb_managed_export_body(&b, &s, &err), 0);
    cr_assert(strstr(b.ptr, "{\"ExportFromTime\":1716790307.109,\"ExportToTime\":1716791207,"
                            "\"ExportViewType\":\"NEW_IMAGE\"}}") != NULL,
              "%s", b.ptr);
    ddb_buf_dispose(&b);
}

Test(managed, builds_an_import_request_from_the_mapping_without_lsis)
{
    ddb_mapping *m = favorites();
    ddb_import_spec s;
    ddb_buf b = DDB_BUF_INIT, all = DDB_BUF_INIT;
    ddb_error err;

    memset(&s, 0, sizeof(s));
    s.bucket = "data";
    s.prefix = "imports/fav/";
    s.client_token = "tok";
    s.mapping = m;
    s.table = "prod.Favorite";
    s.table_flags = DDB_TABLE_NO_LSI;
    s.gzip = 1;
    cr_assert_eq(ddb_managed_import_body(&b, &s, &err), 0);
    {
        const char *head = "{\"ClientToken\":\"tok\",\"S3BucketSource\":{\"S3Bucket\":\"data\","
                           "\"S3KeyPrefix\":\"imports/fav/\"},\"InputFormat\":\"DYNAMODB_JSON\","
                           "\"InputCompressionType\":\"GZIP\",\"TableCreationParameters\":{"
                           "\"TableName\":\"prod.Favorite\",\"BillingMode\":\"PAY_PER_REQUEST\",";
        cr_assert(strncmp(b.ptr, head, strlen(head)) == 0, "%s", b.ptr);
    }
    /* the GSIs with their keys and projections; no LSI, and no definition only an LSI used */
    cr_assert(strstr(b.ptr, "\"GlobalSecondaryIndexes\":[{\"IndexName\":\"gsiOne\"") != NULL);
    cr_assert(strstr(b.ptr, "\"Projection\":{\"ProjectionType\":\"ALL\"}") != NULL);
    cr_assert(strstr(b.ptr, "LocalSecondaryIndexes") == NULL, "%s", b.ptr);
    cr_assert(strstr(b.ptr, "lsiOneSk") == NULL, "%s", b.ptr);
    cr_assert(strstr(b.ptr, "\"AttributeName\":\"gsiTwoSk\",\"AttributeType\":\"S\"") != NULL);
    cr_assert_eq(b.ptr[b.len - 1], '}');
    cr_assert_eq(b.ptr[b.len - 2], '}');
    /* CreateTable's request from the same builder keeps them */
    cr_assert_eq(ddb_table_create_request(&all, m, NULL, &err), 0);
    cr_assert(strstr(all.ptr, "\"LocalSecondaryIndexes\":[{\"IndexName\":\"lsiOne\"") != NULL);
    cr_assert(strstr(all.ptr, "\"AttributeName\":\"lsiOneSk\"") != NULL);
    ddb_buf_dispose(&b);
    ddb_buf_dispose(&all);
    ddb_mapping_free(m);
}

static const char *const described =
    "{\"ExportDescription\":{\"ExportArn\":\"arn:aws:dynamodb:us-west-1:060119642692:table/"
    "unicorn_activities/export/01716790307109-5f9d6aaa\",\"ExportStatus\":\"COMPLETED\","
    "\"StartTime\":1716790307.109,\"EndTime\":1716790848.527,\"ExportManifest\":"
    "\"nightly/AWSDynamoDB/01716790307109-5f9d6aaa/manifest-summary.json\",\"TableArn\":"
    "\"arn:aws:dynamodb:us-west-1:060119642692:table/unicorn_activities\",\"TableId\":"
    "\"70ad931a-591d-41c1-a392-b48e4b2b8846\",\"ExportTime\":1716790307.109,\"ClientToken\":"
    "\"abc\",\"S3Bucket\":\"unicornactiviti-data-export\",\"S3Prefix\":\"nightly\","
    "\"S3SseAlgorithm\":\"AES256\",\"ExportFormat\":\"DYNAMODB_JSON\",\"BilledSizeBytes\":"
    "44570731,\"ItemCount\":133199,\"ExportType\":\"FULL_EXPORT\"}}";

Test(managed, parses_an_export_description_and_finds_its_folder)
{
    ddb_export_info *e = NULL;
    ddb_error err;
    char *folder;

    cr_assert_eq(ddb_managed_export_parse(&e, described, strlen(described), &err), 0, "%s",
                 err.message);
    cr_assert_str_eq(e->status, "COMPLETED");
    cr_assert_eq(e->item_count, 133199);
    cr_assert_eq(e->billed_bytes, 44570731);
    cr_assert_str_eq(e->type, "FULL_EXPORT");
    cr_assert_float_eq(e->start_time, 1716790307.109, 1e-6);
    cr_assert_null(e->failure_code);
    folder = ddb_managed_export_folder(e);
    cr_assert_str_eq(
        folder, "s3://unicornactiviti-data-export/nightly/AWSDynamoDB/01716790307109-5f9d6aaa/");
    free(folder);
    /* a manifest key without the prefix gets it; without a manifest the ARN's id */
    free(e->manifest);
    e->manifest = strdup("AWSDynamoDB/01716790307109-5f9d6aaa/manifest-summary.json");
    folder = ddb_managed_export_folder(e);
    cr_assert_str_eq(
        folder, "s3://unicornactiviti-data-export/nightly/AWSDynamoDB/01716790307109-5f9d6aaa/");
    free(folder);
    free(e->manifest);
    e->manifest = NULL;
    free(e->prefix);
    e->prefix = NULL;
    folder = ddb_managed_export_folder(e);
    cr_assert_str_eq(folder,
                     "s3://unicornactiviti-data-export/AWSDynamoDB/01716790307109-5f9d6aaa/");
    free(folder);
    ddb_export_info_free(e);
}

Test(managed, refuses_answers_that_are_not_descriptions)
{
    ddb_export_info *e = NULL;
    ddb_import_info *i = NULL;
    ddb_error err;
    cr_assert_eq(ddb_managed_export_parse(&e, "{}", 2, &err), DDB_ENET);
    cr_assert_eq(ddb_managed_export_parse(&e, "not json", 8, &err), DDB_ENET);
    cr_assert_eq(
        ddb_managed_export_parse(&e, "{\"ExportDescription\":{\"ExportArn\":\"a\"}}", 39, &err),
        DDB_ENET);
    cr_assert(strstr(err.message, "ExportStatus") != NULL, "%s", err.message);
    cr_assert_null(e);
    cr_assert_eq(ddb_managed_import_parse(&i, described, strlen(described), &err), DDB_ENET);
    cr_assert_null(i);
}

Test(managed, parses_an_import_description)
{
    const char *json =
        "{\"ImportTableDescription\":{\"ImportArn\":\"arn:aws:dynamodb:us-east-1:1:table/T/import/"
        "01-ab\",\"ImportStatus\":\"COMPLETED\",\"TableArn\":\"arn:aws:dynamodb:us-east-1:1:table/"
        "T\",\"ErrorCount\":3,\"CloudWatchLogGroupArn\":\"arn:aws:logs:us-east-1:1:log-group:/aws-"
        "dynamodb/imports:*\",\"InputFormat\":\"DYNAMODB_JSON\",\"ProcessedSizeBytes\":45918,"
        "\"ProcessedItemCount\":118,\"ImportedItemCount\":115,\"StartTime\":1795392952.6}}";
    ddb_import_info *i = NULL;
    ddb_error err;
    cr_assert_eq(ddb_managed_import_parse(&i, json, strlen(json), &err), 0, "%s", err.message);
    cr_assert_str_eq(i->status, "COMPLETED");
    cr_assert_eq(i->errors, 3);
    cr_assert_eq(i->processed_items, 118);
    cr_assert_eq(i->imported_items, 115);
    cr_assert_eq(i->processed_bytes, 45918);
    cr_assert_str_eq(i->log_group, "arn:aws:logs:us-east-1:1:log-group:/aws-dynamodb/imports:*");
    ddb_import_info_free(i);
}

Test(managed, says_why_an_export_failed_and_what_to_do)
{
    ddb_export_info e;
    ddb_error err;
    memset(&e, 0, sizeof(e));
    e.arn = "arn:x/export/1";
    e.failure_code = "S3NoSuchBucket";
    e.failure_message = "The specified bucket does not exist";
    cr_assert_eq(ddb_managed_export_failed(&e, "T", &err), DDB_ENET);
    cr_assert(strstr(err.message, "FAILED: S3NoSuchBucket: The specified bucket does not exist; "
                                  "the bucket does not exist") != NULL,
              "%s", err.message);
}

Test(managed, parses_times)
{
    double t;
    cr_assert_eq(ddb_managed_parse_time(&t, "2024-05-27T06:11:47Z"), 0);
    cr_assert_float_eq(t, 1716790307.0, 1e-9);
    cr_assert_eq(ddb_managed_parse_time(&t, "2024-05-27T06:11:47.109Z"), 0);
    cr_assert_float_eq(t, 1716790307.109, 1e-6);
    cr_assert_eq(ddb_managed_parse_time(&t, "2024-05-27T08:11:47+02:00"), 0);
    cr_assert_float_eq(t, 1716790307.0, 1e-9);
    cr_assert_eq(ddb_managed_parse_time(&t, "2024-05-27 06:11"), 0);
    cr_assert_float_eq(t, 1716790260.0, 1e-9);
    cr_assert_eq(ddb_managed_parse_time(&t, "2024-05-27"), 0);
    cr_assert_float_eq(t, 1716768000.0, 1e-9);
    cr_assert_eq(ddb_managed_parse_time(&t, "1716790307.5"), 0);
    cr_assert_float_eq(t, 1716790307.5, 1e-9);
    cr_assert_eq(ddb_managed_parse_time(&t, "2024-02-30"), DDB_EINVAL);
    cr_assert_eq(ddb_managed_parse_time(&t, "2024-05-27T25:00Z"), DDB_EINVAL);
    cr_assert_eq(ddb_managed_parse_time(&t, "yesterday"), DDB_EINVAL);
    cr_assert_eq(ddb_managed_parse_time(&t, "2024-05-27T06:11:47Zjunk"), DDB_EINVAL);
    cr_assert_eq(ddb_managed_parse_time(&t, ""), DDB_EINVAL);
}

Test(managed, makes_client_tokens)
{
    char a[33], b[33];
    cr_assert_eq(ddb_managed_client_token(a), 0);
    cr_assert_eq(ddb_managed_client_token(b), 0);
    cr_assert_eq(strlen(a), 32);
    cr_assert_eq(strspn(a, "0123456789abcdef"), 32);
    cr_assert_str_neq(a, b);
}

/* ------------------------------------------------- the checking output */

typedef struct seen {
    int acks, rejects;
    char reason[256];
} seen;

static void on_ack(void *ctx, int entity, ddb_record_kind kind, uint64_t seq)
{
    (void)entity;
    (void)kind;
    (void)seq;
    ((seen *)ctx)->acks++;
}

static void on_reject(void *ctx, int entity, const ddb_reject_info *info)
{
    seen *s = ctx;
    (void)entity;
    s->rejects++;
    snprintf(s->reason, sizeof(s->reason), "%s", info->reason);
}

static int count_put(ddb_output *o, int entity, ddb_record_kind kind, const ddb_map *rec,
                     size_t n_declared, const ddb_record *origin, ddb_error *err)
{
    (void)rec;
    (void)n_declared;
    (void)err;
    if (o->ack)
        o->ack(o->ack_ctx, entity, kind, origin ? origin->seq : 0);
    return 0;
}

static int no_finish(ddb_output *o, ddb_error *err)
{
    (void)err;
    o->bytes_out = 42;
    return 0;
}

static void no_free(ddb_output *o)
{
    (void)o;
}

static int no_checkpoint(ddb_output *o, ddb_buf *state, ddb_error *err)
{
    (void)o;
    (void)err;
    return ddb_buf_puts(state, "[]");
}

static int saved_calls;

static void count_saved(ddb_output *o)
{
    (void)o;
    saved_calls++;
}

static const ddb_output_vtable counting_vt = {count_put, no_finish,   no_free, no_checkpoint,
                                              NULL,      count_saved, NULL};

Test(managed, checks_items_before_they_are_uploaded)
{
    ddb_mapping *m = favorites();
    ddb_output *up = calloc(1, sizeof(*up)), *o = NULL;
    ddb_check_output_opts co = {&m->table.schema, "no deletes here"};
    ddb_arena *a = NULL;
    ddb_map good, bad;
    ddb_error err;
    seen s;

    memset(&s, 0, sizeof(s));
    up->vt = &counting_vt;
    cr_assert_eq(ddb_arena_new(&a, 0), 0);
    cr_assert_eq(ddb_check_output_new(&o, up, &co, &err), 0);
    o->ack = on_ack;
    o->reject = on_reject;
    o->ack_ctx = &s;
    good = tu_item(a, "{\"pk\":{\"S\":\"Tag#u1\"},\"sk\":{\"S\":\"t1\"}}");
    bad = tu_item(a, "{\"pk\":{\"S\":\"Tag#u1\"},\"sk\":{\"N\":\"1\"}}");
    cr_assert_eq(o->vt->put(o, 0, DDB_REC_PUT, &good, 0, NULL, &err), 0);
    cr_assert_eq(s.acks, 1, "the item behind acknowledges through the pipeline's hook");
    cr_assert_eq(o->vt->put(o, 0, DDB_REC_PUT, &bad, 0, NULL, &err), 0);
    cr_assert_eq(s.rejects, 1);
    cr_assert(strstr(s.reason, "sk") != NULL, "%s", s.reason);
    cr_assert_eq(o->vt->put(o, 0, DDB_REC_DELETE, &good, 0, NULL, &err), 0);
    cr_assert_eq(s.rejects, 2);
    cr_assert_str_eq(s.reason, "no deletes here");
    cr_assert_eq(s.acks, 1);
    saved_calls = 0;
    cr_assert_not_null(o->vt->saved, "a saved checkpoint must reach the files behind");
    o->vt->saved(o);
    cr_assert_eq(saved_calls, 1, "the uploads behind are named only through this hook");
    cr_assert_eq(o->vt->finish(o, &err), 0);
    cr_assert_eq(o->bytes_out, 42);
    ddb_output_free(o);
    ddb_arena_free(a);
    ddb_mapping_free(m);
}
