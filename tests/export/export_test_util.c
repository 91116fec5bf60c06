#include "export/export_test_util.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ddbpipe/codec.h"
#include "ddbpipe/sink.h"
#include "ddbpipe/checksum.h"
#include "ddbpipe/manifest.h"

void xu_warn(void *ctx, const char *msg)
{
    xu_warnings *w = ctx;
    if (w->n < XU_MAX)
        snprintf(w->msg[w->n], sizeof(w->msg[0]), "%s", msg);
    w->n++;
}

int xu_warned(const xu_warnings *w, const char *needle)
{
    int k = 0;
    for (int i = 0; i < w->n && i < XU_MAX; i++)
        k += strstr(w->msg[i], needle) != NULL;
    return k;
}

void xu_read_all(ddb_reader *r, xu_run *run)
{
    ddb_record *rec;
    ddb_error err;
    int rc;

    memset(run, 0, sizeof(*run));
    for (;;) {
        rc = ddb_reader_next(r, &rec, &err);
        if (rc == DDB_ITEROVER)
            break;
        if (rc == DDB_EVERIFY) {
            if (run->nverify < XU_MAX)
                snprintf(run->verify[run->nverify], DDB_ERROR_MAX, "%s", err.message);
            run->nverify++;
            cr_assert_lt(run->nverify, 100, "DDB_EVERIFY without end");
            continue;
        }
        if (rc != 0) {
            run->fatal = rc;
            snprintf(run->fatal_msg, sizeof(run->fatal_msg), "%s", err.message);
            break;
        }
        run->records++;
        run->put += rec->kind == DDB_REC_PUT;
        run->del += rec->kind == DDB_REC_DELETE;
        run->bad += rec->kind == DDB_REC_BAD;
        run->with_time += rec->write_time.len > 0;
        snprintf(run->hint, sizeof(run->hint), "%s", r->entity_hint ? r->entity_hint : "(null)");
        cr_assert_not_null(rec->source);
        if (run->nsources == 0 || strcmp(run->sources[run->nsources - 1], rec->source) != 0) {
            cr_assert_lt(run->nsources, XU_MAX);
            snprintf(run->sources[run->nsources++], sizeof(run->sources[0]), "%s", rec->source);
        }
        run->per_source[run->nsources - 1]++;
    }
    /* The end is sticky. */
    cr_assert_eq(ddb_reader_next(r, &rec, &err), run->fatal ? run->fatal : DDB_ITEROVER);
}

int xu_read_export(const char *path, const ddb_reader_opts *opts, xu_run *run, ddb_error *err)
{
    ddb_reader *r = NULL;
    int rc = ddb_reader_new_export(&r, path, opts, err);
    memset(run, 0, sizeof(*run));
    if (rc != 0) {
        cr_assert_null(r);
        return rc;
    }
    cr_assert_eq(r->format, DDB_IN_EXPORT);
    xu_read_all(r, run);
    /* Everything was consumed. */
    cr_assert_eq(ddb_reader_raw_bytes(r), r->total_bytes);
    ddb_reader_free(r);
    return 0;
}

const char *xu_tmpdir(void)
{
    static char dir[64];
    strcpy(dir, "/tmp/ddb-export-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    return dir;
}

void xu_rmrf(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

const char *xu_path(const char *dir, const char *name)
{
    static char p[8][1024];
    static int i;
    i = (i + 1) % 8;
    snprintf(p[i], sizeof(p[i]), "%s/%s", dir, name);
    return p[i];
}

void xu_write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "fopen %s", path);
    cr_assert_eq(fwrite(text, 1, strlen(text), f), strlen(text));
    cr_assert_eq(fclose(f), 0);
}

char *xu_read_text(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *p;
    long n;
    cr_assert_not_null(f, "fopen %s", path);
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    p = malloc((size_t)n + 1);
    cr_assert_not_null(p);
    cr_assert_eq(fread(p, 1, (size_t)n, f), (size_t)n);
    p[n] = '\0';
    fclose(f);
    if (len)
        *len = (size_t)n;
    return p;
}

void xu_write_gz(const char *path, const char *text)
{
    ddb_sink *s = NULL;
    ddb_error err;
    cr_assert_eq(ddb_sink_open_file(&s, path, 0, &err), 0, "%s", err.message);
    cr_assert_eq(ddb_sink_new_gzip(&s, s, 6, &err), 0, "%s", err.message);
    cr_assert_eq(ddb_sink_write(s, text, strlen(text), &err), 0, "%s", err.message);
    cr_assert_eq(ddb_sink_finish(s, &err), 0, "%s", err.message);
    ddb_sink_free(s);
}

void xu_md5_b64(const char *path, char out[25])
{
    size_t len;
    char *data = xu_read_text(path, &len);
    unsigned char d[16];
    cr_assert_eq(ddb_checksum_compute(d, DDB_DIGEST_MD5, data, len), 0);
    out[ddb_base64_encode(out, d, 16)] = '\0';
    free(data);
}

void xu_flip_byte(const char *path, long offset)
{
    size_t len;
    char *data = xu_read_text(path, &len);
    FILE *f;
    cr_assert_lt((size_t)offset, len);
    data[offset] ^= 0x55;
    f = fopen(path, "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(data, 1, len, f), len);
    cr_assert_eq(fclose(f), 0);
    free(data);
}

void xu_fix_md5(const char *json_path)
{
    char md5[25], path[1024];
    size_t n = strlen(json_path) - strlen(".json");
    xu_md5_b64(json_path, md5);
    snprintf(path, sizeof(path), "%.*s.md5", (int)n, json_path);
    xu_write_text(path, md5);
}

void xu_replace(const char *path, const char *from, const char *to)
{
    size_t len;
    char *text = xu_read_text(path, &len), *hit = strstr(text, from), *out;
    cr_assert_not_null(hit, "%s: no \"%s\"", path, from);
    out = malloc(len + strlen(to) + 1);
    cr_assert_not_null(out);
    sprintf(out, "%.*s%s%s", (int)(hit - text), text, to, hit + strlen(from));
    xu_write_text(path, out);
    free(out);
    free(text);
}

static uint64_t count_lines(const char *text)
{
    uint64_t n = 0;
    int content = 0;
    for (const char *p = text; *p; p++) {
        if (*p == '\n') {
            n += content;
            content = 0;
        } else {
            content = 1;
        }
    }
    return n + content;
}

const char *xu_build(const char *root, const char *id, const xu_file *files, size_t n)
{
    static char dir[1024];
    char top[512], data[1100], md5[25];
    char *manifest = NULL;
    size_t mlen = 0;
    FILE *mf = open_memstream(&manifest, &mlen);
    uint64_t total = 0;

    snprintf(top, sizeof(top), "%.400s/AWSDynamoDB", root);
    snprintf(dir, sizeof(dir), "%s/%.400s", top, id);
    snprintf(data, sizeof(data), "%s/data", dir);
    cr_assert_eq(mkdir(top, 0755), 0);
    cr_assert_eq(mkdir(dir, 0755), 0);
    cr_assert_eq(mkdir(data, 0755), 0);
    cr_assert_not_null(mf);
    for (size_t i = 0; i < n; i++) {
        const char *path = xu_path(data, files[i].name);
        uint64_t items = files[i].text ? count_lines(files[i].text) : 0;
        if (files[i].text)
            xu_write_gz(path, files[i].text);
        else
            xu_write_text(path, "");
        xu_md5_b64(path, md5);
        fprintf(mf,
                "{\"itemCount\":%llu,\"md5Checksum\":\"%s\",\"etag\":\"0123456789abcdef-1\","
                "\"dataFileS3Key\":\"AWSDynamoDB/%s/data/%s\"}\n",
                (unsigned long long)items, md5, id, files[i].name);
        total += items;
    }
    cr_assert_eq(fclose(mf), 0);
    xu_write_text(xu_path(dir, "manifest-files.json"), manifest);
    free(manifest);
    xu_fix_md5(xu_path(dir, "manifest-files.json"));

    mf = open_memstream(&manifest, &mlen);
    cr_assert_not_null(mf);
    fprintf(mf,
            "{\"version\":\"2020-06-30\",\"exportArn\":\"arn:aws:dynamodb:eu-west-1:1:table/t/"
            "export/%s\",\"s3Bucket\":\"b\",\"s3Prefix\":null,\"manifestFilesS3Key\":"
            "\"AWSDynamoDB/%s/manifest-files.json\",\"itemCount\":%llu,\"outputFormat\":"
            "\"DYNAMODB_JSON\"}",
            id, id, (unsigned long long)total);
    cr_assert_eq(fclose(mf), 0);
    xu_write_text(xu_path(dir, "manifest-summary.json"), manifest);
    free(manifest);
    xu_fix_md5(xu_path(dir, "manifest-summary.json"));
    return dir;
}
