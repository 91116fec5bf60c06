/*
 * `ddbpipe-gen repeat-export`: a real Export to S3 folder (the one in
 * ../shared/testdata/aws-export, say) made K times larger in its own shape,
 * for measuring on data nobody here designed: the same data file names,
 * each holding its lines K times over, gzip level 6 as AWS writes them;
 * manifest-files.json with each file's itemCount, MD5 and single-part etag;
 * manifest-summary.json as the source has it (its layout kept) with the
 * itemCount and billedSizeBytes of the whole; the .md5 siblings and
 * _started. Copy k > 0 of a line puts "k~" before its partition key's
 * string, so no two items share a key.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "ddbpipe/codec.h"
#include "ddbpipe/sink.h"
#include "ddbpipe/source.h"
#include "gen.h"

#define FLUSH_AT (1u << 20)

typedef struct rep_file {
    char *name; /* the data file's name, as in its dataFileS3Key */
    ddb_buf text; /* its lines, decompressed */
    uint64_t lines;
} rep_file;

typedef struct repeater {
    rep_file *files;
    size_t n_files;
    const char *key;
    uint64_t copies, src_bytes, src_items;
} repeater;

/* The whole content of a file (decompressed, with gzip), into out. */
static int read_all(ddb_buf *out, const char *path, int gzip, ddb_error *err)
{
    ddb_source *src = NULL;
    ssize_t n;
    int rc;

    if ((rc = ddb_source_open_file(&src, path, err)) != 0)
        return rc;
    if (gzip && (rc = ddb_source_new_gzip(&src, src, err)) != 0)
        return rc; /* the filter freed its upstream */
    for (;;) {
        if (ddb_buf_reserve(out, 1u << 20) != 0) {
            rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
            break;
        }
        if ((n = ddb_source_read(src, out->ptr + out->len, out->cap - out->len - 1, err)) <= 0) {
            rc = (int)n;
            break;
        }
        out->len += (size_t)n;
    }
    if (out->ptr != NULL)
        out->ptr[out->len] = '\0';
    ddb_source_free(src);
    return rc;
}

/* The data files manifest-files.json lists, read whole (each line names one
 * by its dataFileS3Key, AWSDynamoDB/<id>/data/<name>). */
static int read_sources(repeater *r, const char *from, ddb_error *err)
{
    ddb_buf manifest = DDB_BUF_INIT, path = DDB_BUF_INIT;
    const char *key = "\"dataFileS3Key\":\"", *p, *end;
    size_t cap = 0;
    int rc = 0;

    ddb_buf_printf(&path, "%s/manifest-files.json", from);
    if ((rc = read_all(&manifest, path.ptr, 0, err)) != 0)
        goto done;
    for (p = manifest.ptr; (p = strstr(p, key)) != NULL; p = end) {
        const char *slash, *name;
        rep_file *f;
        p += strlen(key);
        if ((end = strchr(p, '"')) == NULL)
            break;
        for (name = p, slash = p; slash < end; slash++)
            if (*slash == '/')
                name = slash + 1;
        if (r->n_files == cap) {
            rep_file *nf = realloc(r->files, (cap = cap ? cap * 2 : 8) * sizeof(*nf));
            if (nf == NULL) {
                rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
                goto done;
            }
            r->files = nf;
        }
        f = &r->files[r->n_files++];
        memset(f, 0, sizeof(*f));
        if ((f->name = strndup(name, (size_t)(end - name))) == NULL) {
            rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
            goto done;
        }
        ddb_buf_clear(&path);
        ddb_buf_printf(&path, "%s/data/%s", from, f->name);
        if ((rc = read_all(&f->text, path.ptr, 1, err)) != 0)
            goto done;
        r->src_bytes += f->text.len;
    }
    if (r->n_files == 0)
        rc = ddb_error_set(err, DDB_EUSAGE, "%s/manifest-files.json lists no data file", from);
done:
    ddb_buf_dispose(&manifest);
    ddb_buf_dispose(&path);
    return rc;
}

/* One copy of a data file's lines into its gzip sink; copy k > 0 with "k~"
 * before the partition key's string. */
static int write_copy(const repeater *r, rep_file *f, uint64_t k, ddb_sink *sink, ddb_buf *out,
                      ddb_error *err)
{
    char prefix[160], mark[24];
    size_t plen, mlen;
    const char *p = f->text.ptr, *end = p + f->text.len;
    int rc;

    plen = (size_t)snprintf(prefix, sizeof(prefix), "{\"Item\":{\"%s\":{\"S\":\"", r->key);
    mlen = (size_t)snprintf(mark, sizeof(mark), "%llu~", (unsigned long long)k);
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
        if (len <= 1) { /* an empty line stays one, once */
            if (k == 0)
                ddb_buf_append(out, p, len);
        } else if (k == 0) {
            ddb_buf_append(out, p, len);
            f->lines++;
        } else if (len > plen && memcmp(p, prefix, plen) == 0) {
            ddb_buf_append(out, p, plen);
            ddb_buf_append(out, mark, mlen);
            ddb_buf_append(out, p + plen, len - plen);
            f->lines++;
        } else {
            return ddb_error_set(err, DDB_EUSAGE,
                                 "%s: a line does not start with %s (--key names the partition "
                                 "key, a string, the first attribute of every item)",
                                 f->name, prefix);
        }
        if (out->oom)
            return ddb_error_set(err, DDB_ENOMEM, "out of memory");
        if (out->len >= FLUSH_AT) {
            if ((rc = ddb_sink_write(sink, out->ptr, out->len, err)) != 0)
                return rc;
            ddb_buf_clear(out);
        }
        p += len;
    }
    return 0;
}

/* Where the number after "name": is in text, [*digits, *stop). Returns 0,
 * or DDB_EUSAGE when the summary has none. */
static int find_number(const char *text, const char *name, const char **digits, const char **stop,
                       ddb_error *err)
{
    char key[64];
    const char *at;

    snprintf(key, sizeof(key), "\"%s\"", name);
    if ((at = strstr(text, key)) == NULL)
        return ddb_error_set(err, DDB_EUSAGE, "manifest-summary.json has no %s", key);
    for (*digits = at + strlen(key); **digits == ' ' || **digits == ':'; (*digits)++)
        ;
    for (*stop = *digits; **stop >= '0' && **stop <= '9'; (*stop)++)
        ;
    if (*stop == *digits)
        return ddb_error_set(err, DDB_EUSAGE, "manifest-summary.json: %s is not a number", key);
    return 0;
}

/* The number after "name": in text set to value, the rest as it was. */
static int set_number(ddb_buf *text, const char *name, uint64_t value, ddb_error *err)
{
    const char *digits, *stop;
    ddb_buf out = DDB_BUF_INIT;
    int rc;

    if ((rc = find_number(text->ptr, name, &digits, &stop, err)) != 0)
        return rc;
    ddb_buf_append(&out, text->ptr, (size_t)(digits - text->ptr));
    ddb_buf_printf(&out, "%llu", (unsigned long long)value);
    ddb_buf_puts(&out, stop);
    if (out.oom) {
        ddb_buf_dispose(&out);
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    }
    ddb_buf_dispose(text);
    *text = out;
    return 0;
}

/* The source's summary, its layout kept, counting the copies: itemCount
 * what was written, billedSizeBytes K times the source's. */
static int write_summary(const repeater *r, const char *from, const char *dir, uint64_t items,
                         ddb_error *err)
{
    ddb_buf sum = DDB_BUF_INIT, path = DDB_BUF_INIT;
    const char *digits, *stop;
    int rc;

    ddb_buf_printf(&path, "%s/manifest-summary.json", from);
    if ((rc = read_all(&sum, path.ptr, 0, err)) != 0 ||
        (rc = find_number(sum.ptr, "billedSizeBytes", &digits, &stop, err)) != 0 ||
        (rc = set_number(&sum, "billedSizeBytes", strtoull(digits, NULL, 10) * r->copies,
                         err)) != 0 ||
        (rc = set_number(&sum, "itemCount", items, err)) != 0 ||
        (rc = gen_write_with_md5(dir, "manifest-summary", &sum, err)) != 0)
        goto done;
done:
    ddb_buf_dispose(&sum);
    ddb_buf_dispose(&path);
    return rc;
}

/* Every data file, K copies each, and its manifest line. */
static int write_files(repeater *r, const char *dir, const char *id, uint64_t *items,
                       ddb_error *err)
{
    ddb_buf files = DDB_BUF_INIT, path = DDB_BUF_INIT, out = DDB_BUF_INIT;
    ddb_sink *sink = NULL, *file = NULL;
    int rc = 0;

    *items = 0;
    for (size_t i = 0; i < r->n_files && rc == 0; i++) {
        rep_file *f = &r->files[i];
        unsigned char digest[16], etag[16];
        unsigned int n = 16;
        char hex[33];
        ddb_buf_clear(&path);
        ddb_buf_printf(&path, "%s/data/%s", dir, f->name);
        if ((rc = ddb_sink_open_file(&file, path.ptr, 0, err)) != 0 ||
            (rc = ddb_sink_new_gzip(&sink, file, 6, err)) != 0)
            break;
        for (uint64_t k = 0; k < r->copies && rc == 0; k++)
            rc = write_copy(r, f, k, sink, &out, err);
        if (rc == 0 && out.len > 0)
            rc = ddb_sink_write(sink, out.ptr, out.len, err);
        ddb_buf_clear(&out);
        if (rc == 0)
            rc = ddb_sink_finish(sink, err);
        ddb_sink_free(sink);
        sink = NULL;
        if (rc != 0 || (rc = gen_md5_file(digest, path.ptr, err)) != 0)
            break;
        EVP_Digest(digest, 16, etag, &n, EVP_md5(), NULL); /* a single-part upload's etag */
        ddb_hex_encode(hex, etag, 16);
        hex[32] = '\0';
        ddb_buf_printf(&files, "{\"itemCount\":%llu,\"md5Checksum\":\"",
                       (unsigned long long)f->lines);
        ddb_buf_put_base64(&files, digest, 16);
        ddb_buf_printf(&files, "\",\"etag\":\"%s-1\",\"dataFileS3Key\":\"AWSDynamoDB/%s/data/%s\"}\n",
                       hex, id, f->name);
        *items += f->lines;
    }
    if (rc == 0 && files.oom)
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
    if (rc == 0)
        rc = gen_write_with_md5(dir, "manifest-files", &files, err);
    ddb_buf_dispose(&files);
    ddb_buf_dispose(&path);
    ddb_buf_dispose(&out);
    return rc;
}

static const char *const repeat_usage =
    "ddbpipe-gen repeat-export --from EXPORT_DIR --key NAME (--bytes SIZE | --copies K) --out DIR";

int gen_cmd_repeat_export(int argc, char **argv)
{
    const char *from = NULL, *key = NULL, *bytes = NULL, *copies = NULL, *out = NULL;
    const gen_opt opts[] = {{"--from", &from, 0},
                            {"--key", &key, 0},
                            {"--bytes", &bytes, 0},
                            {"--copies", &copies, 0},
                            {"--out", &out, 0}};
    repeater r;
    ddb_error err;
    ddb_buf dir = DDB_BUF_INIT;
    char id[128];
    const char *base;
    uint64_t want = 0, items = 0;
    size_t from_len;
    int rc;

    memset(&r, 0, sizeof(r));
    ddb_error_clear(&err);
    if ((rc = gen_parse_opts(argc, argv, opts, GEN_COUNT(opts), repeat_usage)) != 0)
        return rc == 1 ? 0 : 2;
    if (from == NULL || key == NULL || out == NULL || (bytes == NULL) == (copies == NULL) ||
        (bytes && gen_parse_u64(&want, bytes, 1)) ||
        (copies && gen_parse_u64(&r.copies, copies, 0)) || (bytes ? want : r.copies) == 0 ||
        strlen(key) > 100) {
        gen_fail("--from, --key, --out and one of --bytes SIZE or --copies K (> 0) are "
                 "needed\nUsage: %s",
                 repeat_usage);
        return 2;
    }
    /* the export's id: the name of its folder */
    from_len = strlen(from);
    while (from_len > 1 && from[from_len - 1] == '/')
        from_len--;
    for (base = from + from_len; base > from && base[-1] != '/'; base--)
        ;
    snprintf(id, sizeof(id), "%.*s", (int)(from + from_len - base), base);
    r.key = key;
    if ((rc = gen_export_dir(&dir, out, id, &err)) != 0 ||
        (rc = read_sources(&r, from, &err)) != 0)
        goto done;
    if (bytes)
        r.copies = (want + r.src_bytes - 1) / r.src_bytes;
    if ((rc = gen_export_dir_make(dir.ptr, &err)) != 0 ||
        (rc = write_files(&r, dir.ptr, id, &items, &err)) != 0 ||
        (rc = write_summary(&r, from, dir.ptr, items, &err)) != 0)
        goto done;
    printf("%s: %llu items, %llu bytes uncompressed (%llu copies) in %zu data files\n", dir.ptr,
           (unsigned long long)items, (unsigned long long)(r.src_bytes * r.copies),
           (unsigned long long)r.copies, r.n_files);
done:
    if (rc != 0)
        gen_fail("%s", err.message);
    for (size_t i = 0; i < r.n_files; i++) {
        free(r.files[i].name);
        ddb_buf_dispose(&r.files[i].text);
    }
    free(r.files);
    ddb_buf_dispose(&dir);
    return rc == 0 ? 0 : rc == DDB_EUSAGE ? 2 : 1;
}
