/*
 * DynamoDB's export to S3 and import from S3 (see managed.h): the control
 * calls, their bodies and answers. Small documents without item data, so
 * json-c parses them, as table.c does.
 */
#include "ddbpipe/managed.h"

#include <ctype.h>
#include <stddef.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <openssl/rand.h>

#include "ddbpipe/json.h"
#include "ddbpipe/table.h"

/* ------------------------------------------------------------ requests */

/* One JSON object being written: members separated as they come. */
typedef struct jobj {
    ddb_buf *b;
    int members;
} jobj;

static void j_open(jobj *j, ddb_buf *b)
{
    j->b = b;
    j->members = 0;
    ddb_buf_putc(b, '{');
}

static void j_key(jobj *j, const char *key)
{
    if (j->members++ > 0)
        ddb_buf_putc(j->b, ',');
    ddb_json_put_string(j->b, key, strlen(key));
    ddb_buf_putc(j->b, ':');
}

static void j_str(jobj *j, const char *key, const char *value)
{
    j_key(j, key);
    ddb_json_put_string(j->b, value, strlen(value));
}

/* A timestamp of the JSON protocol: seconds since the epoch, to the
 * millisecond, without a needless fraction. */
static void j_time(jobj *j, const char *key, double t)
{
    long long ms = llround(t * 1000.0);
    j_key(j, key);
    if (ms % 1000 == 0)
        ddb_buf_printf(j->b, "%lld", ms / 1000);
    else
        ddb_buf_printf(j->b, "%lld.%03lld", ms / 1000, ms % 1000);
}

int ddb_managed_export_body(ddb_buf *b, const ddb_export_spec *s, ddb_error *err)
{
    jobj j, inc;
    j_open(&j, b);
    j_str(&j, "TableArn", s->table_arn);
    j_str(&j, "S3Bucket", s->bucket);
    if (s->prefix && *s->prefix)
        j_str(&j, "S3Prefix", s->prefix);
    if (s->client_token)
        j_str(&j, "ClientToken", s->client_token);
    if (s->sse)
        j_str(&j, "S3SseAlgorithm", s->sse);
    if (s->sse_kms_key_id)
        j_str(&j, "S3SseKmsKeyId", s->sse_kms_key_id);
    j_str(&j, "ExportFormat", "DYNAMODB_JSON");
    j_str(&j, "ExportType", s->incremental ? "INCREMENTAL_EXPORT" : "FULL_EXPORT");
    if (!s->incremental && s->has_time)
        j_time(&j, "ExportTime", s->time);
    if (s->incremental) {
        j_key(&j, "IncrementalExportSpecification");
        j_open(&inc, b);
        j_time(&inc, "ExportFromTime", s->from);
        if (s->has_to)
            j_time(&inc, "ExportToTime", s->to);
        j_str(&inc, "ExportViewType", s->view ? s->view : "NEW_AND_OLD_IMAGES");
        ddb_buf_putc(b, '}');
    }
    ddb_buf_putc(b, '}');
    return b->oom ? ddb_error_set(err, DDB_ENOMEM, "out of memory") : 0;
}

int ddb_managed_import_body(ddb_buf *b, const ddb_import_spec *s, ddb_error *err)
{
    jobj j, src;
    int rc;
    j_open(&j, b);
    if (s->client_token)
        j_str(&j, "ClientToken", s->client_token);
    j_key(&j, "S3BucketSource");
    j_open(&src, b);
    j_str(&src, "S3Bucket", s->bucket);
    if (s->prefix && *s->prefix)
        j_str(&src, "S3KeyPrefix", s->prefix);
    ddb_buf_putc(b, '}');
    j_str(&j, "InputFormat", "DYNAMODB_JSON");
    j_str(&j, "InputCompressionType", s->gzip ? "GZIP" : "NONE");
    j_key(&j, "TableCreationParameters");
    if ((rc = ddb_table_creation_params(b, s->mapping, s->table, s->table_flags, err)) != 0)
        return rc;
    ddb_buf_putc(b, '}');
    return b->oom ? ddb_error_set(err, DDB_ENOMEM, "out of memory") : 0;
}

/* ------------------------------------------------------------- answers */

/* One member of a job's description: a string, a timestamp or a count, and
 * where it goes in the struct. */
typedef struct member {
    const char *name;
    char kind; /* 's' string, 't' time, 'n' count */
    size_t off;
} member;

#define STR(T, json, field)                                                                        \
    {                                                                                              \
        json, 's', offsetof(T, field)                                                              \
    }
#define TIME(T, json, field)                                                                       \
    {                                                                                              \
        json, 't', offsetof(T, field)                                                              \
    }
#define COUNT(T, json, field)                                                                      \
    {                                                                                              \
        json, 'n', offsetof(T, field)                                                              \
    }

static const member export_members[] = {
    STR(ddb_export_info, "ExportArn", arn),
    STR(ddb_export_info, "ExportStatus", status),
    STR(ddb_export_info, "ExportType", type),
    STR(ddb_export_info, "ExportFormat", format),
    STR(ddb_export_info, "ExportManifest", manifest),
    STR(ddb_export_info, "S3Bucket", bucket),
    STR(ddb_export_info, "S3Prefix", prefix),
    STR(ddb_export_info, "TableArn", table_arn),
    STR(ddb_export_info, "ClientToken", client_token),
    STR(ddb_export_info, "FailureCode", failure_code),
    STR(ddb_export_info, "FailureMessage", failure_message),
    TIME(ddb_export_info, "StartTime", start_time),
    TIME(ddb_export_info, "EndTime", end_time),
    TIME(ddb_export_info, "ExportTime", export_time),
    COUNT(ddb_export_info, "ItemCount", item_count),
    COUNT(ddb_export_info, "BilledSizeBytes", billed_bytes),
};

static const member import_members[] = {
    STR(ddb_import_info, "ImportArn", arn),
    STR(ddb_import_info, "ImportStatus", status),
    STR(ddb_import_info, "TableArn", table_arn),
    STR(ddb_import_info, "CloudWatchLogGroupArn", log_group),
    STR(ddb_import_info, "ClientToken", client_token),
    STR(ddb_import_info, "FailureCode", failure_code),
    STR(ddb_import_info, "FailureMessage", failure_message),
    TIME(ddb_import_info, "StartTime", start_time),
    TIME(ddb_import_info, "EndTime", end_time),
    COUNT(ddb_import_info, "ProcessedItemCount", processed_items),
    COUNT(ddb_import_info, "ImportedItemCount", imported_items),
    COUNT(ddb_import_info, "ErrorCount", errors),
    COUNT(ddb_import_info, "ProcessedSizeBytes", processed_bytes),
};

#define N_MEMBERS(a) (sizeof(a) / sizeof(a[0]))

/* The members of d into the struct at base; absent ones stay NULL or 0.
 * Returns 0 or DDB_ENOMEM. */
static int read_members(void *base, const member *ms, size_t n, json_object *d)
{
    for (size_t i = 0; i < n; i++) {
        char *at = (char *)base + ms[i].off;
        json_object *v;
        if (!json_object_object_get_ex(d, ms[i].name, &v))
            continue;
        if (ms[i].kind == 's' && json_object_is_type(v, json_type_string)) {
            if ((*(char **)at = strdup(json_object_get_string(v))) == NULL)
                return DDB_ENOMEM;
        } else if (ms[i].kind == 't' && (json_object_is_type(v, json_type_int) ||
                                         json_object_is_type(v, json_type_double))) {
            *(double *)at = json_object_get_double(v);
        } else if (ms[i].kind == 'n' && json_object_is_type(v, json_type_int)) {
            int64_t c = json_object_get_int64(v);
            *(uint64_t *)at = c < 0 ? 0 : (uint64_t)c;
        }
    }
    return 0;
}

static void free_members(void *base, const member *ms, size_t n)
{
    if (base == NULL)
        return;
    for (size_t i = 0; i < n; i++)
        if (ms[i].kind == 's')
            free(*(char **)((char *)base + ms[i].off));
    free(base);
}

/*
 * The description under what of an answer into a struct of size bytes,
 * described by ms; its first two members (ARN, status) must be there.
 * *out owned by the caller. Returns 0, DDB_ENET, DDB_ENOMEM.
 */
static int parse_answer(void **out, size_t size, const member *ms, size_t n, const char *what,
                        const char *json, size_t len, ddb_error *err)
{
    json_tokener *tok = json_tokener_new();
    json_object *root = tok ? json_tokener_parse_ex(tok, json, (int)len) : NULL, *d = NULL;
    void *base = NULL;
    int rc = 0;

    *out = NULL;
    if (tok)
        json_tokener_free(tok);
    if (root == NULL || !json_object_object_get_ex(root, what, &d) ||
        !json_object_is_type(d, json_type_object))
        rc = ddb_error_set(err, DDB_ENET, "unexpected answer: no %s", what);
    else if ((base = calloc(1, size)) == NULL || read_members(base, ms, n, d) != 0)
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
    else if (*(char **)((char *)base + ms[0].off) == NULL ||
             *(char **)((char *)base + ms[1].off) == NULL)
        rc = ddb_error_set(err, DDB_ENET, "unexpected answer: %s without %s", what,
                           *(char **)((char *)base + ms[0].off) ? ms[1].name : ms[0].name);
    if (rc == 0) {
        *out = base;
        base = NULL;
    }
    free_members(base, ms, n);
    if (root)
        json_object_put(root);
    return rc;
}

int ddb_managed_export_parse(ddb_export_info **out, const char *json, size_t len, ddb_error *err)
{
    return parse_answer((void **)out, sizeof(ddb_export_info), export_members,
                        N_MEMBERS(export_members), "ExportDescription", json, len, err);
}

void ddb_export_info_free(ddb_export_info *e)
{
    free_members(e, export_members, N_MEMBERS(export_members));
}

int ddb_managed_import_parse(ddb_import_info **out, const char *json, size_t len, ddb_error *err)
{
    return parse_answer((void **)out, sizeof(ddb_import_info), import_members,
                        N_MEMBERS(import_members), "ImportTableDescription", json, len, err);
}

void ddb_import_info_free(ddb_import_info *i)
{
    free_members(i, import_members, N_MEMBERS(import_members));
}

char *ddb_managed_export_folder(const ddb_export_info *e)
{
    ddb_buf b = DDB_BUF_INIT;
    const char *prefix = e->prefix ? e->prefix : "";
    size_t plen = strlen(prefix);

    while (plen > 0 && prefix[plen - 1] == '/')
        plen--;
    if (e->bucket == NULL)
        return NULL;
    ddb_buf_printf(&b, "s3://%s/", e->bucket);
    if (e->manifest != NULL && strrchr(e->manifest, '/') != NULL) {
        /* the folder of manifest-summary.json; a key without the prefix gets it */
        const char *m = e->manifest, *slash = strrchr(m, '/');
        while (*m == '/')
            m++;
        if (plen > 0 && !(strncmp(m, prefix, plen) == 0 && m[plen] == '/'))
            ddb_buf_printf(&b, "%.*s/", (int)plen, prefix);
        ddb_buf_append(&b, m, (size_t)(slash - m) + 1);
    } else {
        const char *id = e->arn ? strstr(e->arn, "/export/") : NULL;
        if (id == NULL) {
            ddb_buf_dispose(&b);
            return NULL;
        }
        if (plen > 0)
            ddb_buf_printf(&b, "%.*s/", (int)plen, prefix);
        ddb_buf_printf(&b, "AWSDynamoDB/%s/", id + 8);
    }
    return ddb_buf_detach(&b, NULL);
}

/* ------------------------------------------------------------ the calls */

/* The message of an error answer: "Type: message". */
static void quote_error(char *out, size_t cap, const ddb_response *r)
{
    if (r->error_type[0])
        snprintf(out, cap, "%s: %s", r->error_type, r->message);
    else
        snprintf(out, cap, "HTTP %ld: %s", r->http_status, r->message);
}

/* Does text hold word, ignoring case? */
static int mentions(const char *text, const char *word)
{
    size_t n = strlen(word);
    for (; *text; text++)
        if (strncasecmp(text, word, n) == 0)
            return 1;
    return 0;
}

/* Point-in-time recovery off: its own exception, or a message saying so. */
static int pitr_off(const ddb_response *r)
{
    return strcmp(r->error_type, "PointInTimeRecoveryUnavailableException") == 0 ||
           mentions(r->message, "point in time recovery is not enabled") ||
           mentions(r->message, "point-in-time recovery is not enabled");
}

/* ExportTableToPointInTime's refusals, each with what to do. */
static int export_refused(const ddb_response *r, ddb_client *c, const ddb_export_spec *s,
                          ddb_error *err)
{
    char why[800], where[300];
    quote_error(why, sizeof(why), r);
    if (pitr_off(r))
        return ddb_error_set(err, DDB_EUSAGE,
                             "table %s has point-in-time recovery turned off, and DynamoDB "
                             "exports only from it (%s); turn it on with: aws dynamodb "
                             "update-continuous-backups --table-name %s "
                             "--point-in-time-recovery-specification "
                             "PointInTimeRecoveryEnabled=true (exports can then start from that "
                             "moment on)",
                             s->table, why, s->table);
    if (strcmp(r->error_type, "TableNotFoundException") == 0 ||
        strcmp(r->error_type, "ResourceNotFoundException") == 0) {
        ddb_client_describe_target(c, where, sizeof(where));
        return ddb_error_set(err, DDB_ENOTFOUND, "table %s does not exist in %s (%s)", s->table,
                             where, why);
    }
    if (strcmp(r->error_type, "InvalidExportTimeException") == 0)
        return ddb_error_set(err, DDB_EUSAGE,
                             "the export time is outside table %s's point-in-time recovery "
                             "window (%s): it starts when recovery was turned on, at most 35 "
                             "days back, and ends now",
                             s->table, why);
    if (strcmp(r->error_type, "ValidationException") == 0 ||
        strcmp(r->error_type, "ExportConflictException") == 0 ||
        strcmp(r->error_type, "IdempotentParameterMismatchException") == 0 ||
        strcmp(r->error_type, "AccessDeniedException") == 0)
        return ddb_error_set(err, DDB_EUSAGE,
                             "DynamoDB refused to export table %s to s3://%s/%s: %s", s->table,
                             s->bucket, s->prefix ? s->prefix : "", why);
    return ddb_error_set(err, DDB_ENET, "ExportTableToPointInTime of table %s failed: %s", s->table,
                         why);
}

int ddb_managed_export_start(ddb_export_info **out, ddb_client *c, const ddb_export_spec *s,
                             ddb_error *err)
{
    ddb_buf body = DDB_BUF_INIT;
    ddb_response resp;
    int rc;

    *out = NULL;
    memset(&resp, 0, sizeof(resp));
    if ((rc = ddb_managed_export_body(&body, s, err)) != 0 ||
        (rc = ddb_client_call(c, "ExportTableToPointInTime", body.ptr, body.len, &resp, err)) != 0)
        goto done;
    if (!resp.ok)
        rc = export_refused(&resp, c, s, err);
    else if ((rc = ddb_managed_export_parse(out, resp.body, resp.body_len, err)) != 0)
        ddb_error_prefix(err, "ExportTableToPointInTime of table %s: ", s->table);
done:
    ddb_response_dispose(&resp);
    ddb_buf_dispose(&body);
    return rc;
}

/* One Describe* call of an ARN: the answer's body on success. */
static int describe(ddb_response *resp, ddb_client *c, const char *op, const char *arn_name,
                    const char *arn, const char *missing, ddb_error *err)
{
    ddb_buf body = DDB_BUF_INIT;
    char why[800];
    int rc;

    memset(resp, 0, sizeof(*resp));
    ddb_buf_printf(&body, "{\"%s\":", arn_name);
    ddb_json_put_string(&body, arn, strlen(arn));
    ddb_buf_putc(&body, '}');
    rc = body.oom ? ddb_error_set(err, DDB_ENOMEM, "out of memory")
                  : ddb_client_call(c, op, body.ptr, body.len, resp, err);
    ddb_buf_dispose(&body);
    if (rc != 0 || resp->ok)
        return rc;
    quote_error(why, sizeof(why), resp);
    if (strcmp(resp->error_type, missing) == 0)
        return ddb_error_set(err, DDB_ENOTFOUND,
                             "%s %s: no such job in this account and region (%s)", op, arn, why);
    return ddb_error_set(err, DDB_ENET, "%s %s failed: %s", op, arn, why);
}

int ddb_managed_export_poll(ddb_export_info **out, ddb_client *c, const char *arn, ddb_error *err)
{
    ddb_response resp;
    int rc;
    *out = NULL;
    if ((rc = describe(&resp, c, "DescribeExport", "ExportArn", arn, "ExportNotFoundException",
                       err)) == 0 &&
        (rc = ddb_managed_export_parse(out, resp.body, resp.body_len, err)) != 0)
        ddb_error_prefix(err, "DescribeExport %s: ", arn);
    ddb_response_dispose(&resp);
    return rc;
}

/* What to do about a FailureCode, where there is something. */
static const char *failure_hint(const char *code)
{
    static const struct {
        const char *code, *hint;
    } hints[] = {
        {"S3NoSuchBucket", "the bucket does not exist: create it, or export to another one"},
        {"S3AccessDenied", "DynamoDB could not write there: the credentials need s3:PutObject "
                           "on the prefix, and the bucket policy (and its KMS key) must allow it"},
        {"AccessDenied", "DynamoDB could not write there: the credentials need s3:PutObject on "
                         "the prefix, and the bucket policy (and its KMS key) must allow it"},
        {"KMSAccessDenied", "DynamoDB may not use the bucket's KMS key"},
    };
    for (size_t i = 0; code && i < sizeof(hints) / sizeof(hints[0]); i++)
        if (strcmp(code, hints[i].code) == 0)
            return hints[i].hint;
    return NULL;
}

int ddb_managed_export_failed(const ddb_export_info *e, const char *table, ddb_error *err)
{
    const char *hint = failure_hint(e->failure_code);
    return ddb_error_set(err, DDB_ENET, "export %s of table %s FAILED: %s: %s%s%s", e->arn, table,
                         e->failure_code ? e->failure_code : "(no FailureCode)",
                         e->failure_message ? e->failure_message : "(no FailureMessage)",
                         hint ? "; " : "", hint ? hint : "");
}

int ddb_managed_import_start(ddb_import_info **out, ddb_client *c, const ddb_import_spec *s,
                             ddb_error *err)
{
    ddb_buf body = DDB_BUF_INIT;
    ddb_response resp;
    const char *table = s->table ? s->table : s->mapping->table.name;
    char why[800];
    int rc;

    *out = NULL;
    memset(&resp, 0, sizeof(resp));
    if ((rc = ddb_managed_import_body(&body, s, err)) != 0 ||
        (rc = ddb_client_call(c, "ImportTable", body.ptr, body.len, &resp, err)) != 0)
        goto done;
    if (resp.ok) {
        if ((rc = ddb_managed_import_parse(out, resp.body, resp.body_len, err)) != 0)
            ddb_error_prefix(err, "ImportTable %s: ", table);
        goto done;
    }
    quote_error(why, sizeof(why), &resp);
    if (strcmp(resp.error_type, "ResourceInUseException") == 0)
        rc = ddb_error_set(err, DDB_EUSAGE,
                           "table %s exists, and ImportTable only creates new tables (%s)", table,
                           why);
    else if (strcmp(resp.error_type, "ValidationException") == 0 ||
             strcmp(resp.error_type, "ImportConflictException") == 0 ||
             strcmp(resp.error_type, "IdempotentParameterMismatchException") == 0 ||
             strcmp(resp.error_type, "AccessDeniedException") == 0)
        rc = ddb_error_set(err, DDB_EUSAGE, "DynamoDB refused to import s3://%s/%s into %s: %s",
                           s->bucket, s->prefix ? s->prefix : "", table, why);
    else
        rc = ddb_error_set(err, DDB_ENET, "ImportTable %s failed: %s", table, why);
done:
    ddb_response_dispose(&resp);
    ddb_buf_dispose(&body);
    return rc;
}

int ddb_managed_import_poll(ddb_import_info **out, ddb_client *c, const char *arn, ddb_error *err)
{
    ddb_response resp;
    int rc;
    *out = NULL;
    if ((rc = describe(&resp, c, "DescribeImport", "ImportArn", arn, "ImportNotFoundException",
                       err)) == 0 &&
        (rc = ddb_managed_import_parse(out, resp.body, resp.body_len, err)) != 0)
        ddb_error_prefix(err, "DescribeImport %s: ", arn);
    ddb_response_dispose(&resp);
    return rc;
}

/* -------------------------------------------------------------- helpers */

/* n digits at *p into *out; advances. */
static int digits(const char **p, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (!isdigit((unsigned char)(*p)[i]))
            return -1;
        v = v * 10 + ((*p)[i] - '0');
    }
    *p += n;
    *out = v;
    return 0;
}

/* "Z", "+02:00", "-0130" or nothing: the offset east of UTC in seconds. */
static int zone(const char **p, long *east)
{
    int h, m = 0, sign;
    *east = 0;
    if (**p == '\0')
        return 0;
    if (**p == 'Z' || **p == 'z') {
        (*p)++;
        return 0;
    }
    if (**p != '+' && **p != '-')
        return -1;
    sign = **p == '-' ? -1 : 1;
    (*p)++;
    if (digits(p, 2, &h) != 0)
        return -1;
    if (**p == ':')
        (*p)++;
    if (**p != '\0' && digits(p, 2, &m) != 0)
        return -1;
    if (h > 23 || m > 59)
        return -1;
    *east = sign * (h * 3600L + m * 60L);
    return 0;
}

int ddb_managed_parse_time(double *out, const char *text)
{
    const char *p = text;
    struct tm tm, back;
    time_t t;
    int y, mo, d, h = 0, mi = 0, s = 0;
    double frac = 0;
    long east = 0;
    char *end;

    if (text == NULL || *text == '\0')
        return DDB_EINVAL;
    if (strspn(text, "0123456789.") == strlen(text) && strchr(text, '-') == NULL) {
        double v = strtod(text, &end);
        if (*end != '\0' || v < 0)
            return DDB_EINVAL;
        *out = v;
        return 0;
    }
    if (digits(&p, 4, &y) != 0 || *p++ != '-' || digits(&p, 2, &mo) != 0 || *p++ != '-' ||
        digits(&p, 2, &d) != 0)
        return DDB_EINVAL;
    if (*p == 'T' || *p == 't' || *p == ' ') {
        p++;
        if (digits(&p, 2, &h) != 0 || *p++ != ':' || digits(&p, 2, &mi) != 0)
            return DDB_EINVAL;
        if (*p == ':' && (p++, digits(&p, 2, &s) != 0))
            return DDB_EINVAL;
        if (*p == '.') {
            double scale = 0.1;
            if (!isdigit((unsigned char)*++p))
                return DDB_EINVAL;
            for (; isdigit((unsigned char)*p); p++, scale /= 10)
                frac += (*p - '0') * scale;
        }
    }
    if (zone(&p, &east) != 0 || *p != '\0' || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 ||
        mi > 59 || s > 59)
        return DDB_EINVAL;
    memset(&tm, 0, sizeof(tm));
    tm.tm_year = y - 1900;
    tm.tm_mon = mo - 1;
    tm.tm_mday = d;
    tm.tm_hour = h;
    tm.tm_min = mi;
    tm.tm_sec = s;
    t = timegm(&tm);
    /* 2024-02-30 is no day: timegm would make it March 1st */
    if (gmtime_r(&t, &back) == NULL || back.tm_mday != d || back.tm_mon != mo - 1)
        return DDB_EINVAL;
    *out = (double)t - (double)east + frac;
    return 0;
}

int ddb_managed_client_token(char out[33])
{
    unsigned char r[16];
    if (RAND_bytes(r, sizeof(r)) != 1)
        return DDB_ERROR;
    for (int i = 0; i < 16; i++)
        snprintf(out + 2 * i, 3, "%02x", r[i]);
    return 0;
}
