/*
 * Every allocation on the main paths fails once (fault.c): loading mappings,
 * transforming items, reading each input format, running the pipeline with
 * files, rejects and checkpoints, comparing two sides (diff), resolving AWS
 * configuration, signing. A scenario must then fail cleanly (an error code,
 * nothing leaked, no crash) and, with nothing failing, succeed.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ddbpipe/awsconfig.h"
#include "ddbpipe/checkpoint.h"
#include "ddbpipe/client.h"
#include "ddbpipe/diff.h"
#include "ddbpipe/json.h"
#include "ddbpipe/output_file.h"
#include "ddbpipe/pipeline.h"
#include "ddbpipe/sigv4.h"
#include "ddbpipe/sink.h"
#include "ddbpipe/transform.h"
#include "ddbpipe/workbench.h"
#include "fault.h"

static char *src_path(const char *rel)
{
    static char buf[4][1024];
    static int k;
    char *p = buf[k++ % 4];
    snprintf(p, sizeof(buf[0]), "%s/%s", DDB_SOURCE_DIR, rel);
    return p;
}

/* Runs a scenario under the countdown; it must end well once nothing fails. */
static void expect_clean(const char *name, int (*scenario)(void *), void *ctx)
{
    int rc = -1;
    long n = oom_run(scenario, ctx, &rc);
    cr_assert_eq(rc, 0, "%s fails even without an allocation failure (%d)", name, rc);
    cr_assert_gt(n, 0, "%s allocates nothing?", name);
    cr_log_info("%s: %ld allocations, each failed once", name, n);
}

/* ------------------------------------------------------------ mappings */

static int scn_mappings(void *ctx)
{
    static const char *const names[] = {"formats/favorites.json", "formats/favorites-v2.json",
                                        "formats/movies.json", "formats/facility-capacity.json"};
    ddb_error err;
    (void)ctx;
    for (size_t i = 0; i < 4; i++) {
        ddb_mapping *m = NULL;
        int rc = ddb_mapping_load(&m, src_path(names[i]), &err);
        ddb_mapping_free(m);
        if (rc != 0)
            return rc;
    }
    return 0;
}

Test(oom, mapping_load)
{
    expect_clean("mapping load", scn_mappings, NULL);
}

/* ----------------------------------------------------------- transform */

static int scn_transform(void *ctx)
{
    static const char *const items[] = {
        "{\"pk\":{\"S\":\"FavoriteData#u1\"},\"sk\":{\"S\":\"0042\"},\"title\":{\"S\":\"t\"},"
        "\"dataType\":{\"S\":\"POSITION\"},\"clipTime\":{\"S\":\"1600000000003\"},"
        "\"gsiOnePk\":{\"S\":\"FavoriteData#u1#position\"},\"gsiOneSk\":{\"S\":\"1600000000003#"
        "0042\"},"
        "\"x\":{\"M\":{\"a\":{\"NS\":[\"1\",\"2\"]}}}}",
        "{\"pk\":{\"S\":\"Tag#u1\"},\"sk\":{\"S\":\"t9\"},\"tagName\":{\"S\":\"a\"},"
        "\"createTime\":{\"N\":\"5\"},\"lastAccessTime\":{\"N\":\"0\"},\"lsiOneSk\":{\"S\":\"a\"},"
        "\"lsiTwoSk\":{\"S\":\"5\"},\"lsiThreeSk\":{\"S\":\"0\"}}",
        "{\"pk\":{\"S\":\"Nope#1\"},\"sk\":{\"S\":\"x\"}}",
    };
    ddb_mapping *m = NULL, *m2 = NULL;
    ddb_json_parser *p = NULL;
    ddb_arena *a = NULL;
    ddb_error err;
    int rc;
    (void)ctx;
    if ((rc = ddb_mapping_load(&m, src_path("formats/favorites.json"), &err)) != 0 ||
        (rc = ddb_mapping_load(&m2, src_path("formats/favorites-v2.json"), &err)) != 0 ||
        (rc = ddb_json_parser_new(&p)) != 0 || (rc = ddb_arena_new(&a, 0)) != 0)
        goto done;
    for (size_t i = 0; i < 3; i++) {
        ddb_map item;
        ddb_decoded d;
        ddb_item back;
        if ((rc = ddb_json_parse_line(p, DDB_JSON_LINE_BARE, &item, NULL, items[i],
                                      strlen(items[i]), a, &err)) != 0)
            goto done;
        rc = ddb_transform_decode(&d, m, &item, a, &err);
        if (rc == DDB_ENOMATCH)
            continue;
        if (rc != 0 || (rc = ddb_transform_encode(&back, m2, ddb_mapping_entity(m2, d.entity->name),
                                                  &d.record, 1, a, &err)) != 0)
            goto done;
    }
    rc = 0;
done:
    ddb_arena_free(a);
    ddb_json_parser_free(p);
    ddb_mapping_free(m);
    ddb_mapping_free(m2);
    return rc;
}

Test(oom, transform)
{
    expect_clean("transform", scn_transform, NULL);
}

/* -------------------------------------------------------------- readers */

static int read_all(const char *path)
{
    ddb_reader *r = NULL;
    ddb_record *rec;
    ddb_error err;
    int rc = ddb_reader_open(&r, path, NULL, &err);
    while (rc == 0 && (rc = ddb_reader_next(r, &rec, &err)) == 0)
        ;
    ddb_reader_free(r);
    return rc == DDB_ITEROVER ? 0 : rc;
}

static int scn_readers(void *ctx)
{
    static const char *const inputs[] = {
        "samples/favorites/seed/Tag.csv",
        "tests/golden/cases/scan-output/scan.json",
        "tests/golden/cases/ndjson-plain-items/items.ndjson",
        "tests/golden/cases/seed-favorites-csv/input.json",
        "tests/golden/cases/public-moviedata-array/moviedata.json",
        "tests/golden/cases/public-dynein-batch-tables/batch.json",
        "tests/golden/cases/public-awscli-get-item/get-item-output.json",
        "tests/golden/cases/public-workbench-shop/AnOnlineShop.json",
        "tests/golden/cases/public-dynamodump/dump",
        "tests/golden/cases/binary-sets/expected/items.csv",
        "tests/parquet/Thing.parquet",
    };
    (void)ctx;
    for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
        int rc = read_all(src_path(inputs[i]));
        if (rc != 0)
            return rc;
    }
    return 0;
}

Test(oom, readers)
{
    expect_clean("readers", scn_readers, NULL);
}

static int scn_export_folder(void *ctx)
{
    (void)ctx;
    return read_all(src_path("samples/facility-capacity/export"));
}

Test(oom, export_folder)
{
    expect_clean("export folder", scn_export_folder, NULL);
}

/* ------------------------------------------------------------- pipeline */

typedef struct pipe_ctx {
    char dir[64];
    ddb_out_format format;
    int gzip;
    int convert;
    int no_mapping; /* items: CSV heads the union of their attributes (a spill) */
    int ahead;      /* Parquet: row groups encoded on a thread of their own; CSV without a
                       mapping: its rows written by one */
    int stateless;  /* no --state: a CSV without a mapping is written as its rows come */
} pipe_ctx;

static int scn_pipeline(void *vctx)
{
    pipe_ctx *c = vctx;
    const char *inputs[] = {src_path("tests/golden/cases/seed-favorites-csv/input.json"),
                            src_path("tests/golden/cases/ndjson-plain-items/items.ndjson")};
    char out[128], rejects[128], state[128], cmd[200];
    ddb_mapping *m = NULL, *m2 = NULL;
    ddb_output *o = NULL;
    ddb_rejects *rj = NULL;
    ddb_file_output_opts fo;
    ddb_pipeline_opts po;
    ddb_summary s;
    ddb_error err;
    int rc;

    memset(&s, 0, sizeof(s));
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'/*", c->dir);
    if (system(cmd) != 0)
        return -1;
    snprintf(out, sizeof(out), "%s/out", c->dir);
    snprintf(rejects, sizeof(rejects), "%s/rejects.ndjson", c->dir);
    snprintf(state, sizeof(state), "%s/run.state", c->dir);
    rc = 0;
    if ((!c->no_mapping &&
         (rc = ddb_mapping_load(&m, src_path("formats/favorites.json"), &err)) != 0) ||
        (c->convert &&
         (rc = ddb_mapping_load(&m2, src_path("formats/favorites-v2.json"), &err)) != 0))
        goto done;
    memset(&fo, 0, sizeof(fo));
    fo.dir = out;
    fo.format = c->format;
    fo.gzip = c->gzip;
    fo.mapping = m;
    fo.records = !c->convert;
    fo.single_name = "items";
    /* a Parquet file cannot be resumed */
    fo.resumable = c->format != DDB_OUT_PARQUET && !c->stateless;
    fo.encode_ahead = c->ahead;
    fo.write_behind = c->ahead;
    if ((rc = ddb_file_output_new(&o, &fo, &err)) != 0 ||
        (rc = ddb_rejects_new_resumable(&rj, rejects, 0, 0, 0, &err)) != 0)
        goto done;
    memset(&po, 0, sizeof(po));
    po.mode = c->convert ? DDB_MODE_CONVERT : DDB_MODE_EXPORT;
    po.command = "oom";
    po.inputs = inputs;
    po.n_inputs = 2;
    po.mapping = m;
    po.to_mapping = m2;
    po.output = o;
    po.rejects = rj;
    po.state_path = fo.resumable ? state : NULL;
    po.fingerprint = "{\"command\":\"oom\"}";
    po.checkpoint_seconds = 0.001;
    rc = ddb_pipeline_run(&s, &po, &err);
done:
    ddb_summary_dispose(&s);
    ddb_output_free(o);
    ddb_rejects_free(rj);
    ddb_mapping_free(m);
    ddb_mapping_free(m2);
    return rc;
}

/* scn_pipeline under every allocation failure, as c says, in a folder of its own. */
static void run_pipe_ctx(const char *name, pipe_ctx *c)
{
    char cmd[120];
    snprintf(c->dir, sizeof(c->dir), "/tmp/ddbpipe-oom-XXXXXX");
    cr_assert_not_null(mkdtemp(c->dir));
    expect_clean(name, scn_pipeline, c);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", c->dir);
    cr_assert_eq(system(cmd), 0);
}

static void run_pipeline_case(const char *name, ddb_out_format f, int gzip, int convert,
                              int no_mapping, int ahead)
{
    pipe_ctx c;
    memset(&c, 0, sizeof(c));
    c.format = f;
    c.gzip = gzip;
    c.convert = convert;
    c.no_mapping = no_mapping;
    c.ahead = ahead;
    run_pipe_ctx(name, &c);
}

Test(oom, pipeline_export_csv_gzip, .timeout = 120)
{
    run_pipeline_case("export csv gzip", DDB_OUT_CSV, 1, 0, 0, 0);
}

Test(oom, pipeline_export_ndjson, .timeout = 120)
{
    run_pipeline_case("export ndjson", DDB_OUT_NDJSON, 0, 0, 0, 0);
}

Test(oom, pipeline_export_parquet, .timeout = 120)
{
    run_pipeline_case("export parquet", DDB_OUT_PARQUET, 0, 0, 0, 0);
}

/* The encoding thread's allocations fail too (the countdown counts every
 * thread's): an encoded row group's failure comes back to the run. */
Test(oom, pipeline_export_parquet_encoded_ahead, .timeout = 120)
{
    run_pipeline_case("export parquet, row groups encoded ahead", DDB_OUT_PARQUET, 0, 0, 0, 1);
}

Test(oom, pipeline_convert, .timeout = 120)
{
    run_pipeline_case("convert", DDB_OUT_DDBJSON, 0, 1, 0, 0);
}

Test(oom, pipeline_export_csv_without_mapping, .timeout = 120)
{
    run_pipeline_case("export csv without a mapping", DDB_OUT_CSV, 0, 0, 1, 0);
}

/* Without --state: the rows written into the file as they come, the header
 * guessed again when a later item types a new column. */
Test(oom, pipeline_export_csv_without_mapping_as_rows_come, .timeout = 120)
{
    pipe_ctx c;
    memset(&c, 0, sizeof(c));
    c.format = DDB_OUT_CSV;
    c.no_mapping = 1;
    c.stateless = 1;
    run_pipe_ctx("export csv without a mapping, rows as they come", &c);
}

/* The rows laid out under the header while a thread of their own writes
 * (compresses) them. */
Test(oom, pipeline_export_csv_without_mapping_written_behind, .timeout = 120)
{
    run_pipeline_case("export csv without a mapping, written behind", DDB_OUT_CSV, 1, 0, 1, 1);
}

/* ----------------------------------------------------------------- diff */

/* Puts items (DynamoDB JSON, one per string) into one side of d and finishes it. */
static int diff_feed(ddb_diff *d, int side, const char *const *items, size_t n, ddb_arena *a)
{
    ddb_json_parser *p = NULL;
    ddb_output *o;
    ddb_error err;
    int rc;
    if ((rc = ddb_diff_side(d, side, &o, &err)) != 0 || (rc = ddb_json_parser_new(&p)) != 0)
        goto done;
    for (size_t i = 0; i < n; i++) {
        ddb_map item;
        ddb_record rec;
        memset(&rec, 0, sizeof(rec));
        rec.seq = i + 1;
        if ((rc = ddb_json_parse_line(p, DDB_JSON_LINE_BARE, &item, NULL, items[i],
                                      strlen(items[i]), a, &err)) != 0 ||
            (rc = o->vt->put(o, -1, DDB_REC_PUT, &item, 0, &rec, &err)) != 0)
            goto done;
    }
    rc = o->vt->finish(o, &err);
done:
    ddb_json_parser_free(p);
    return rc;
}

/* Items compared by --key, no mapping: a failure must be an error, never a
 * comparison that lost the key (every item under one empty key). */
static int scn_diff(void *ctx)
{
    static const char *const side_a[] = {"{\"pk\":{\"S\":\"1\"},\"v\":{\"N\":\"1\"}}",
                                         "{\"pk\":{\"S\":\"2\"},\"v\":{\"N\":\"1\"}}",
                                         "{\"pk\":{\"S\":\"3\"}}"};
    static const char *const side_b[] = {"{\"pk\":{\"S\":\"1\"},\"v\":{\"N\":\"1.0\"}}",
                                         "{\"pk\":{\"S\":\"2\"},\"v\":{\"N\":\"2\"}}",
                                         "{\"pk\":{\"S\":\"4\"}}"};
    static const char *const keys[] = {"pk"};
    ddb_diff *d = NULL;
    ddb_diff_opts o;
    ddb_sink *out = NULL;
    ddb_arena *a = NULL;
    ddb_error err;
    int rc;

    memset(&o, 0, sizeof(o));
    o.work_dir = ctx;
    o.key_attrs = keys;
    o.n_key_attrs = 1;
    if ((rc = ddb_arena_new(&a, 0)) != 0 || (rc = ddb_diff_new(&d, NULL, NULL, &o, &err)) != 0 ||
        (rc = diff_feed(d, 0, side_a, 3, a)) != 0 || (rc = diff_feed(d, 1, side_b, 3, a)) != 0 ||
        (rc = ddb_sink_new_memory(&out, &err)) != 0 || (rc = ddb_diff_compare(d, out, &err)) != 0)
        goto done;
    {
        const ddb_diff_counts *t = &ddb_diff_get_stats(d)->total;
        cr_assert(t->equal == 1 && t->different == 1 && t->only_a == 1 && t->only_b == 1 &&
                      t->dup_a == 0 && t->dup_b == 0,
                  "a diff that returned 0 compared wrongly: %llu equal, %llu different, %llu "
                  "only in A, %llu only in B, %llu repeated in A",
                  (unsigned long long)t->equal, (unsigned long long)t->different,
                  (unsigned long long)t->only_a, (unsigned long long)t->only_b,
                  (unsigned long long)t->dup_a);
    }
done:
    ddb_sink_free(out);
    ddb_diff_free(d);
    ddb_arena_free(a);
    return rc;
}

Test(oom, diff_by_key)
{
    char dir[] = "/tmp/ddbpipe-oom-diff-XXXXXX", cmd[128];
    cr_assert_not_null(mkdtemp(dir));
    expect_clean("diff by --key", scn_diff, dir);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

/* ------------------------------------------------------------ workbench */

static int scn_workbench(void *ctx)
{
    ddb_buf mapping = DDB_BUF_INIT, notes = DDB_BUF_INIT;
    ddb_error err;
    int rc;
    (void)ctx;
    rc = ddb_workbench_draft_mapping(&mapping, &notes,
                                     src_path("tests/golden/cases/public-workbench-shop/"
                                              "AnOnlineShop.json"),
                                     NULL, &err);
    /* The draft's own check is best effort: out of memory there only loses a note. */
    ddb_buf_dispose(&mapping);
    ddb_buf_dispose(&notes);
    return rc;
}

Test(oom, workbench_draft, .timeout = 120)
{
    expect_clean("mapping from a Workbench model", scn_workbench, NULL);
}

/* --------------------------------------------------- state, config, sign */

static int scn_state(void *ctx)
{
    const char *path = ctx;
    ddb_entity_stats rows[2] = {{NULL, 10, 8, 1, 1, 1, 0, 0, 0}, {NULL, 5, 0, 0, 2, 3, 0, 0, 0}};
    ddb_state st, *back = NULL;
    ddb_error err;
    int rc;
    memset(&st, 0, sizeof(st));
    st.fingerprint = "{\"command\":\"import\"}";
    st.ck.rows = rows;
    st.ck.n_rows = 2;
    st.reader_state = "{\"total_segments\":4,\"segments\":[]}";
    st.outputs = "[{\"path\":\"a\",\"bytes\":3}]";
    if ((rc = ddb_state_save(path, &st, &err)) == 0)
        rc = ddb_state_load(&back, path, &err);
    ddb_state_free(back);
    return rc;
}

Test(oom, state_file)
{
    char dir[] = "/tmp/ddbpipe-oom-state-XXXXXX", path[128], cmd[128];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/s.json", dir);
    expect_clean("state file", scn_state, path);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

static const char *fake_env(void *ctx, const char *name)
{
    const char *home = ctx;
    if (strcmp(name, "HOME") == 0)
        return home;
    if (strcmp(name, "AWS_PROFILE") == 0)
        return "oom";
    return NULL;
}

static int scn_config(void *ctx)
{
    ddb_aws_options o;
    ddb_aws_config *cfg = NULL;
    ddb_error err;
    int rc;
    memset(&o, 0, sizeof(o));
    o.getenv = fake_env;
    o.getenv_ctx = ctx;
    rc = ddb_aws_config_resolve(&cfg, &o, &err);
    ddb_aws_config_free(cfg);
    return rc;
}

Test(oom, aws_config)
{
    char home[] = "/tmp/ddbpipe-oom-home-XXXXXX", path[160], cmd[160];
    FILE *f;
    cr_assert_not_null(mkdtemp(home));
    snprintf(path, sizeof(path), "%s/.aws", home);
    cr_assert_eq(mkdir(path, 0700), 0);
    snprintf(path, sizeof(path), "%s/.aws/credentials", home);
    cr_assert_not_null(f = fopen(path, "w"));
    fputs("[oom]\naws_access_key_id = AKIDOOMTEST00000\naws_secret_access_key = s3cr3t\n", f);
    fclose(f);
    snprintf(path, sizeof(path), "%s/.aws/config", home);
    cr_assert_not_null(f = fopen(path, "w"));
    fputs("[profile oom]\nregion = eu-west-1\n", f);
    fclose(f);
    expect_clean("aws config", scn_config, home);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", home);
    cr_assert_eq(system(cmd), 0);
}

static const ddb_sigv4_header g_sign_headers[] = {
    {"Host", "dynamodb.eu-west-1.amazonaws.com"},
    {"Content-Type", "application/x-amz-json-1.0"},
    {"X-Amz-Target", "DynamoDB_20120810.BatchWriteItem"}};

/* A BatchWriteItem request to sign, with the given secret. */
static void sign_request(ddb_sigv4_request *req, const char *secret)
{
    memset(req, 0, sizeof(*req));
    req->method = "POST";
    req->path = "/";
    req->headers = g_sign_headers;
    req->header_count = 3;
    req->payload = "{}";
    req->payload_len = 2;
    req->access_key_id = "AKIDEXAMPLE";
    req->secret_access_key = secret;
    req->session_token = "token";
    req->region = "eu-west-1";
    req->service = "dynamodb";
    req->amz_date = "20150830T123600Z";
}

static int scn_sign(void *ctx)
{
    ddb_sigv4_request req;
    ddb_sigv4_result *res = NULL;
    ddb_error err;
    int rc;
    (void)ctx;
    sign_request(&req, "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY");
    rc = ddb_sigv4_sign(&res, &req, &err);
    ddb_sigv4_result_free(res);
    return rc;
}

Test(oom, sigv4_sign)
{
    expect_clean("sigv4 sign", scn_sign, NULL);
}

/* The kept signer: made, then signing with a secret it has not derived a key
 * for (a new one each run, so the key's derivation allocates every time). */
static int scn_kept_signer(void *ctx)
{
    static unsigned long runs;
    ddb_sigv4_request req;
    ddb_sigv4_signer *s = NULL;
    ddb_sigv4_signed out;
    ddb_error err;
    char secret[64];
    int rc;
    (void)ctx;
    snprintf(secret, sizeof(secret), "oom-secret-%lu", ++runs);
    sign_request(&req, secret);
    if ((rc = ddb_sigv4_signer_new(&s, &err)) != 0)
        return rc;
    rc = ddb_sigv4_signer_sign(s, &out, &req, &err);
    ddb_sigv4_signer_free(s);
    return rc;
}

Test(oom, sigv4_kept_signer)
{
    expect_clean("kept signer", scn_kept_signer, NULL);
}

/* A client made and freed (its kept signer): nothing sent. */
static int scn_client_new(void *ctx)
{
    ddb_aws_credentials creds = {"AKIDEXAMPLE", "secret", NULL, 0, "test"};
    ddb_client_opts o;
    ddb_client *c = NULL;
    ddb_error err;
    int rc;
    (void)ctx;
    memset(&o, 0, sizeof(o));
    o.endpoint = "http://127.0.0.1:9";
    o.region = "eu-west-1";
    o.credentials = &creds;
    rc = ddb_client_new(&c, &o, &err);
    ddb_client_free(c);
    return rc;
}

Test(oom, client_new)
{
    expect_clean("client new", scn_client_new, NULL);
}

/* ------------------------------------------------------------- validate */

/* One input validated against favorites.json; each test sets what else the
 * run takes in po. */
typedef struct validate_ctx {
    char path[96];
    ddb_pipeline_opts po;
    ddb_summary s;
    ddb_error err;
    int warnings;
} validate_ctx;

static void count_warnings(void *ctx, int severity, const char *msg)
{
    validate_ctx *c = ctx;
    (void)msg;
    c->warnings += severity == DDB_REPORT_WARNING;
}

static int scn_validate(void *vctx)
{
    validate_ctx *c = vctx;
    const char *inputs[] = {c->path};
    ddb_pipeline_opts po = c->po;
    ddb_mapping *m = NULL;
    int rc;

    ddb_summary_dispose(&c->s);
    memset(&c->s, 0, sizeof(c->s));
    ddb_error_clear(&c->err);
    c->warnings = 0;
    if ((rc = ddb_mapping_load(&m, src_path("formats/favorites.json"), &c->err)) != 0)
        return rc;
    po.mode = DDB_MODE_VALIDATE;
    po.command = "oom";
    po.inputs = inputs;
    po.n_inputs = 1;
    po.mapping = m;
    po.report = count_warnings;
    po.report_ctx = c;
    rc = ddb_pipeline_run(&c->s, &po, &c->err);
    ddb_mapping_free(m);
    return rc;
}

/* A Tag CSV whose header has a column Tag has no field for (allowed: a
 * warning, and the rows are read) is checked against the entity's fields
 * before a row is read. Out of memory there fails the run as out of memory,
 * with its message: the input is neither skipped nor read by a run that then
 * fails without a word. Any other allocation failure on the path ends the
 * same way, or is absorbed and every row is read. */
Test(oom, record_file_columns)
{
    char dir[] = "/tmp/ddbpipe-oom-columns-XXXXXX", cmd[128];
    validate_ctx c;
    FILE *in, *out;
    char line[512];
    long n;

    memset(&c, 0, sizeof(c));
    cr_assert_not_null(mkdtemp(dir));
    c.po.allow_extra_columns = 1;
    snprintf(c.path, sizeof(c.path), "%s/Tag.csv", dir);
    cr_assert_not_null(in = fopen(src_path("samples/favorites/seed/Tag.csv"), "r"));
    cr_assert_not_null(out = fopen(c.path, "w"));
    for (n = 0; fgets(line, sizeof(line), in) != NULL; n++) {
        line[strcspn(line, "\r\n")] = '\0';
        fprintf(out, "%s,%s\n", line, n == 0 ? "tagNames" : "x");
    }
    fclose(in);
    cr_assert_eq(fclose(out), 0);
    for (long fail = 1;; fail++) {
        int rc;
        oom_arm(fail);
        rc = scn_validate(&c);
        if (!oom_disarm()) {
            cr_assert_eq(rc, 0, "%s", c.err.message);
            cr_assert_eq(c.s.total.read, (uint64_t)(n - 1));
            cr_assert_eq(c.warnings, 1, "the extra column is one warning");
            break;
        }
        if (rc == 0) {
            cr_assert_eq(c.s.total.read, (uint64_t)(n - 1),
                         "allocation %ld failed: %llu of %ld rows read, and the run succeeded",
                         fail, (unsigned long long)c.s.total.read, n - 1);
            cr_assert_not(c.s.output_failed, "allocation %ld failed: the run failed silently",
                          fail);
        } else {
            cr_assert_eq(rc, DDB_ENOMEM, "allocation %ld failed: %d (%s)", fail, rc, c.err.message);
            cr_assert_neq(c.err.message[0], '\0', "allocation %ld failed: no message", fail);
        }
    }
    ddb_summary_dispose(&c.s);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

/* ------------------------------------------------------ decoding ahead */

#define AHEAD_ITEMS                                                                                \
    1000 /* four batches of the decode-ahead thread: all read before one is taken                  \
          */

/* The reading thread running out of memory while it copies a record into a
 * batch first takes the batches before it, as the one-thread loop would have:
 * when they reach the rejects limit, the run stops at the limit (DDB_ELIMIT),
 * as it does without the failure, and is not reported as out of memory. The
 * items are validated with no reject allowed; the second line is not JSON,
 * and is rejected when its batch is taken, after the reading thread has read
 * every line into batches. The countdown counts the reading thread's
 * allocations only, so the walk hits the same allocation in every run
 * whatever the helper thread does. */
Test(oom, decode_ahead_stops_at_the_rejects_limit, .timeout = 120)
{
    char dir[] = "/tmp/ddbpipe-oom-ahead-XXXXXX", cmd[128];
    validate_ctx c;
    FILE *out;
    char name[400]; /* the tag's name: a batch's copies take several arena chunks */
    long limited = 0;

    memset(&c, 0, sizeof(c));
    cr_assert_not_null(mkdtemp(dir));
    c.po.threads = 2;
    c.po.limit_rejects = 1;
    c.po.max_rejects = 0;
    snprintf(c.path, sizeof(c.path), "%s/items.ndjson", dir);
    cr_assert_not_null(out = fopen(c.path, "w"));
    memset(name, 'a', sizeof(name) - 1);
    name[sizeof(name) - 1] = '\0';
    for (int i = 1; i < AHEAD_ITEMS; i++)
        fprintf(out,
                "%s{\"pk\":{\"S\":\"Tag#u1\"},\"sk\":{\"S\":\"t%d\"},\"tagName\":{\"S\":\"%s\"},"
                "\"createTime\":{\"N\":\"5\"},\"lastAccessTime\":{\"N\":\"0\"},"
                "\"lsiOneSk\":{\"S\":\"%s\"},\"lsiTwoSk\":{\"S\":\"5\"},\"lsiThreeSk\":{\"S\":"
                "\"0\"}}\n",
                i == 2 ? "not json\n" : "", i, name, name);
    cr_assert_eq(fclose(out), 0);
    for (long fail = 1;; fail++) {
        int rc;
        oom_arm_thread(fail);
        rc = scn_validate(&c);
        if (!oom_disarm()) {
            cr_assert_eq(rc, DDB_ELIMIT, "%d (%s)", rc, c.err.message);
            cr_assert_eq(c.s.total.rejected, 1);
            break;
        }
        if (c.s.total.rejected > 0) {
            cr_assert_eq(rc, DDB_ELIMIT, "allocation %ld failed: %d (%s) after the reject", fail,
                         rc, c.err.message);
            limited++;
        }
    }
    cr_assert_gt(limited, 0, "no failure came after the reject was read");
    cr_log_info("decode ahead: %ld failures stopped at the rejects limit", limited);
    ddb_summary_dispose(&c.s);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}
