/*
 * `ddbpipe-gen export`: an Export to S3 folder shaped like the real one in
 * ../shared/testdata/aws-export: _started, manifest-summary.json (one line of
 * compact JSON, no newline) and manifest-files.json (one JSON line per data
 * file), each with a .md5 holding the base64 MD5 of the file, and
 * data/<26 base32 chars>.json.gz files of {"Item":{...}} lines whose
 * md5Checksum is the base64 MD5 of the gzip bytes and whose etag is the
 * single-part multipart form hex(MD5(MD5(file)))-1.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <openssl/evp.h>

#include "ddbpipe/codec.h"
#include "ddbpipe/sink.h"
#include "ddbpipe/source.h"
#include "ddbpipe/item.h"
#include "ddbpipe/json.h"
#include "gen.h"

#define FLUSH_AT (1u << 20)
#define DEFAULT_TS 1717200000000LL /* 2024-06-01T00:00:00.000Z */

typedef struct exp_file {
    char name[40];
    char *path;
    ddb_sink *sink;
    ddb_buf buf;
    uint64_t lines;
} exp_file;

typedef struct exporter {
    const ddb_mapping *m;
    gen_design *d;   /* the entity items */
    gen_design *aux; /* items to break and unmatched items: their own stream */
    gen_rng mix;     /* line kinds and file choice */
    exp_file *files;
    size_t n_files;
    uint64_t left_valid, left_unmatched, left_invalid, n_invalid, written;
    int whole; /* go on to the end of the collection in progress */
    uint64_t billed;
    ddb_arena *arena;
    ddb_buf line;
    /* capture of one aux record (for invalid lines) */
    uint64_t skip;
    ddb_item captured;
} exporter;

/* ------------------------------------------------------------ data lines */

static int put_line(exporter *x, size_t file, ddb_error *err)
{
    exp_file *f = &x->files[file];
    int rc = 0;

    if (x->line.oom)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    ddb_buf_append(&f->buf, x->line.ptr, x->line.len);
    ddb_buf_putc(&f->buf, '\n');
    if (f->buf.oom)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    f->lines++;
    if (f->buf.len >= FLUSH_AT) {
        rc = ddb_sink_write(f->sink, f->buf.ptr, f->buf.len, err);
        ddb_buf_clear(&f->buf);
    }
    return rc;
}

/* Items go to the file their partition key hashes to, as an export's
 * parallel scan segments split the table. */
static size_t file_of(const exporter *x, const ddb_item *item)
{
    const ddb_value *pk = ddb_map_getz(item, x->m->table.pk.name);
    uint64_t h = 0xcbf29ce484222325ull;
    if (pk == NULL || (pk->type != DDB_TYPE_S && pk->type != DDB_TYPE_N && pk->type != DDB_TYPE_B))
        return 0;
    for (size_t i = 0; i < pk->u.s.len; i++)
        h = (h ^ (unsigned char)pk->u.s.ptr[i]) * 0x100000001b3ull;
    return (size_t)(h % x->n_files);
}

static void item_line(ddb_buf *b, const ddb_item *item)
{
    ddb_buf_clear(b);
    ddb_buf_puts(b, "{\"Item\":");
    ddb_json_put_typed_map(b, item);
    ddb_buf_putc(b, '}');
}

/* Billed size as DynamoDB counts it: item bytes plus 100 per item. */
static void bill(exporter *x, const ddb_item *item)
{
    x->billed += ddb_item_size(item) + 100;
}

static int write_unmatched(exporter *x, ddb_error *err)
{
    ddb_item item;
    int rc;

    ddb_arena_reset(x->arena);
    if ((rc = x->aux->vt->unmatched(x->aux, &item, x->arena, err)) != 0)
        return rc;
    if ((rc = ddb_item_validate(&item, &x->m->table.schema, NULL, err)) != 0)
        return ddb_error_prefix(err, "generated unmatched item is invalid: ");
    bill(x, &item);
    item_line(&x->line, &item);
    return put_line(x, file_of(x, &item), err);
}

static int capture(void *ctx, const ddb_entity *e, const ddb_map *rec, ddb_error *err)
{
    exporter *x = ctx;
    int rc;
    if (e == NULL)
        return 0;
    if (x->skip > 0) {
        x->skip--;
        return 0;
    }
    if ((rc = gen_encode(&x->captured, x->m, e, rec, x->arena, err)) != 0)
        return rc;
    return 1;
}

/* item plus one attribute (copied into the arena). */
static int with_attr(ddb_item *out, const ddb_item *item, const char *name, ddb_value v,
                     ddb_arena *a, ddb_error *err)
{
    ddb_attr *attrs = ddb_arena_alloc(a, (item->count + 1) * sizeof(*attrs));
    if (attrs == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    memcpy(attrs, item->attrs, item->count * sizeof(*attrs));
    attrs[item->count].name.ptr = name;
    attrs[item->count].name.len = strlen(name);
    attrs[item->count].value = v;
    out->attrs = attrs;
    out->count = item->count + 1;
    return 0;
}

/* Inserts text before the closing "}}" of an {"Item":{...}} line. */
static void insert_attr_text(ddb_buf *line, const char *text)
{
    ddb_buf tail = DDB_BUF_INIT;
    ddb_buf_append(&tail, line->ptr + line->len - 2, 2);
    line->len -= 2;
    ddb_buf_putc(line, ',');
    ddb_buf_puts(line, text);
    ddb_buf_append(line, tail.ptr, tail.len);
    ddb_buf_dispose(&tail);
}

#define N_INVALID_KINDS 10

/* A line that breaks one DynamoDB rule, or is not DynamoDB JSON at all; the
 * kind cycles so every kind appears once V >= 10. */
static int write_invalid(exporter *x, ddb_error *err)
{
    uint64_t kind = x->n_invalid % N_INVALID_KINDS;
    ddb_arena *a = x->arena;
    ddb_item item, bad;
    int rc = 0;

    ddb_arena_reset(a);
    x->skip = gen_rng_below(&x->mix, 8);
    if ((rc = x->aux->vt->run(x->aux, capture, x, err)) != 0)
        return rc;
    item = x->captured;
    bad = item;
    switch (kind) {
    case 0: /* 39 significant digits */
        rc = with_attr(&bad, &item, "score", gen_long_number(a, &x->mix, 39, 0), a, err);
        break;
    case 1: /* sets are never empty */
        rc = with_attr(&bad, &item, "labels", gen_list(a, DDB_TYPE_SS, NULL, 0), a, err);
        break;
    case 2: { /* duplicate set member */
        ddb_value dup[2] = {ddb_value_str(DDB_TYPE_S, "blue", 4),
                            ddb_value_str(DDB_TYPE_S, "blue", 4)};
        rc = with_attr(&bad, &item, "labels", gen_list(a, DDB_TYPE_SS, dup, 2), a, err);
        break;
    }
    case 3: /* magnitude above 9.99...E+125 */
        rc = with_attr(&bad, &item, "ratio", ddb_value_str(DDB_TYPE_N, "1E+126", 6), a, err);
        break;
    case 6: { /* empty string in the table's sort key (or partition key) */
        const char *key = x->m->table.sk.name ? x->m->table.sk.name : x->m->table.pk.name;
        ddb_attr *attrs = ddb_arena_alloc(a, item.count * sizeof(*attrs));
        if (attrs == NULL)
            return ddb_error_set(err, DDB_ENOMEM, "out of memory");
        memcpy(attrs, item.attrs, item.count * sizeof(*attrs));
        for (size_t i = 0; i < item.count; i++)
            if (attrs[i].name.len == strlen(key) &&
                memcmp(attrs[i].name.ptr, key, attrs[i].name.len) == 0)
                attrs[i].value = ddb_value_str(DDB_TYPE_S, "", 0);
        bad.attrs = attrs;
        break;
    }
    case 8: { /* numerically equal members: 5 and 5.0 */
        ddb_value dup[2] = {ddb_value_str(DDB_TYPE_N, "5", 1), ddb_value_str(DDB_TYPE_N, "5.0", 3)};
        rc = with_attr(&bad, &item, "sizes", gen_list(a, DDB_TYPE_NS, dup, 2), a, err);
        break;
    }
    default:
        break;
    }
    if (rc != 0)
        return rc;
    item_line(&x->line, &bad);
    switch (kind) {
    case 4: { /* truncated mid-line, at an ASCII byte */
        size_t cut = x->line.len / 2;
        while (cut > 10 && (unsigned char)x->line.ptr[cut] >= 0x80)
            cut--;
        x->line.len = cut;
        x->line.ptr[cut] = '\0';
        break;
    }
    case 5:
        insert_attr_text(&x->line, "\"deletedAt\":{\"NULL\":false}");
        break;
    case 7:
        insert_attr_text(&x->line, "\"thumb\":{\"B\":\"not base64!\"}");
        break;
    case 9: /* a lone UTF-16 surrogate is not a character */
        insert_attr_text(&x->line, "\"note\":{\"S\":\"broken \\ud800 surrogate\"}");
        break;
    default:
        break;
    }
    rc = put_line(x, x->n_invalid % x->n_files, err);
    x->n_invalid++;
    return rc;
}

/* Before each entity item, maybe some of the other lines: picked in
 * proportion to what is left, so they spread evenly over the export. */
static int interleave(exporter *x, int all, ddb_error *err)
{
    int rc;
    while (x->left_unmatched + x->left_invalid > 0) {
        uint64_t k = gen_rng_below(&x->mix, x->left_valid + x->left_unmatched + x->left_invalid);
        if (k < x->left_valid && !all)
            return 0;
        if (k < x->left_valid + x->left_unmatched && x->left_unmatched > 0) {
            x->left_unmatched--;
            rc = write_unmatched(x, err);
        } else if (x->left_invalid > 0) {
            x->left_invalid--;
            rc = write_invalid(x, err);
        } else {
            x->left_unmatched--;
            rc = write_unmatched(x, err);
        }
        if (rc != 0)
            return rc;
    }
    return 0;
}

static int on_record(void *ctx, const ddb_entity *e, const ddb_map *rec, ddb_error *err)
{
    exporter *x = ctx;
    ddb_item item;
    int rc;

    if (e == NULL)
        return x->whole && x->left_valid == 0 ? 1 : 0;
    if ((rc = interleave(x, 0, err)) != 0)
        return rc;
    ddb_arena_reset(x->arena);
    if ((rc = gen_encode(&item, x->m, e, rec, x->arena, err)) != 0)
        return rc;
    bill(x, &item);
    item_line(&x->line, &item);
    if ((rc = put_line(x, file_of(x, &item), err)) != 0)
        return rc;
    x->written++;
    if (x->left_valid > 0)
        x->left_valid--;
    return x->left_valid == 0 && !x->whole ? 1 : 0;
}

/* -------------------------------------------------------------- manifests */

int gen_md5_file(unsigned char digest[16], const char *path, ddb_error *err)
{
    ddb_source *src = NULL, *md5 = NULL;
    char buf[65536];
    ssize_t n;
    int rc;

    if ((rc = ddb_source_open_file(&src, path, err)) != 0)
        return rc;
    if ((rc = ddb_source_new_md5(&md5, src, err)) != 0)
        return rc;
    while ((n = ddb_source_read(md5, buf, sizeof(buf), err)) > 0)
        ;
    rc = n < 0 ? (int)n : ddb_source_md5_digest(md5, digest);
    ddb_source_free(md5);
    return rc;
}

static void md5_mem(unsigned char digest[16], const void *data, size_t len)
{
    unsigned int n = 16;
    EVP_Digest(data, len, digest, &n, EVP_md5(), NULL);
}

static void put_b64(ddb_buf *b, const unsigned char digest[16])
{
    ddb_buf_put_base64(b, digest, 16);
}

int gen_write_with_md5(const char *dir, const char *name, const ddb_buf *content, ddb_error *err)
{
    ddb_buf path = DDB_BUF_INIT, b64 = DDB_BUF_INIT;
    unsigned char digest[16];
    int rc;

    md5_mem(digest, content->ptr ? content->ptr : "", content->len);
    put_b64(&b64, digest);
    ddb_buf_printf(&path, "%s/%s.json", dir, name);
    if ((rc = gen_write_file(path.ptr, content->ptr, content->len, err)) == 0) {
        ddb_buf_clear(&path);
        ddb_buf_printf(&path, "%s/%s.md5", dir, name);
        rc = gen_write_file(path.ptr, b64.ptr, b64.len, err);
    }
    ddb_buf_dispose(&path);
    ddb_buf_dispose(&b64);
    return rc;
}

static int write_manifests(exporter *x, const char *dir, const char *id, int64_t ts, ddb_error *err)
{
    ddb_buf files = DDB_BUF_INIT, sum = DDB_BUF_INIT, arn = DDB_BUF_INIT;
    char start[32], end[32], table_id[37];
    uint64_t total = 0;
    int rc = 0;

    for (size_t i = 0; i < x->n_files; i++) {
        exp_file *f = &x->files[i];
        unsigned char digest[16], etag[16];
        char hex[33];
        if ((rc = gen_md5_file(digest, f->path, err)) != 0)
            goto done;
        md5_mem(etag, digest, 16);
        ddb_hex_encode(hex, etag, 16);
        hex[32] = '\0';
        ddb_buf_printf(&files, "{\"itemCount\":%llu,\"md5Checksum\":\"",
                       (unsigned long long)f->lines);
        put_b64(&files, digest);
        ddb_buf_printf(&files,
                       "\",\"etag\":\"%s-1\",\"dataFileS3Key\":\"AWSDynamoDB/%s/data/%s\"}\n", hex,
                       id, f->name);
        total += f->lines;
    }
    gen_iso_ms(start, ts);
    gen_iso_ms(end, ts + 180000 + (int64_t)(total / 50)); /* a plausible duration */
    gen_uuid(table_id, &x->mix);
    ddb_buf_printf(&arn, "arn:aws:dynamodb:us-east-1:123456789012:table/%s", x->m->table.name);
    ddb_buf_puts(&sum, "{\"version\":\"2020-06-30\",\"exportArn\":");
    {
        ddb_buf t = DDB_BUF_INIT;
        ddb_buf_printf(&t, "%s/export/%s", arn.ptr, id);
        ddb_json_put_string(&sum, t.ptr, t.len);
        ddb_buf_dispose(&t);
    }
    ddb_buf_printf(&sum, ",\"startTime\":\"%s\",\"endTime\":\"%s\",\"tableArn\":", start, end);
    ddb_json_put_string(&sum, arn.ptr, arn.len);
    ddb_buf_printf(
        &sum,
        ",\"tableId\":\"%s\",\"exportTime\":\"%s\",\"s3Bucket\":\"ddbpipe-samples\","
        "\"s3Prefix\":null,\"s3SseAlgorithm\":\"AES256\",\"s3SseKmsKeyId\":null,"
        "\"manifestFilesS3Key\":\"AWSDynamoDB/%s/manifest-files.json\","
        "\"billedSizeBytes\":%llu,\"itemCount\":%llu,\"outputFormat\":\"DYNAMODB_JSON\"}",
        table_id, start, id, (unsigned long long)x->billed, (unsigned long long)total);
    if (files.oom || sum.oom || arn.oom) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto done;
    }
    if ((rc = gen_write_with_md5(dir, "manifest-files", &files, err)) != 0 ||
        (rc = gen_write_with_md5(dir, "manifest-summary", &sum, err)) != 0)
        goto done;
done:
    ddb_buf_dispose(&files);
    ddb_buf_dispose(&sum);
    ddb_buf_dispose(&arn);
    return rc;
}

/* ---------------------------------------------------------------- command */

int gen_export_dir(ddb_buf *dir, const char *out, const char *id, ddb_error *err)
{
    struct stat st;
    ddb_buf_printf(dir, "%s/AWSDynamoDB/%s", out, id);
    if (dir->oom)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    if (stat(dir->ptr, &st) == 0)
        return ddb_error_set(err, DDB_EUSAGE, "%s already exists: remove it first", dir->ptr);
    return 0;
}

int gen_export_dir_make(const char *dir, ddb_error *err)
{
    ddb_buf data = DDB_BUF_INIT, started = DDB_BUF_INIT;
    int rc;
    ddb_buf_printf(&data, "%s/data", dir);
    ddb_buf_printf(&started, "%s/_started", dir);
    if (data.oom || started.oom)
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
    else if ((rc = gen_mkdirs(data.ptr, err)) == 0)
        rc = gen_write_file(started.ptr, "", 0, err);
    ddb_buf_dispose(&data);
    ddb_buf_dispose(&started);
    return rc;
}

static const char *const export_usage =
    "ddbpipe-gen export --mapping M [--design D] --items N --out DIR [--files K] [--seed S]\n"
    "       [--unmatched U] [--invalid V] [--export-id ID] [--whole-collections]";

static int open_files(exporter *x, const char *data_dir, ddb_error *err)
{
    for (size_t i = 0; i < x->n_files; i++) {
        exp_file *f = &x->files[i];
        ddb_buf p = DDB_BUF_INIT;
        ddb_sink *file = NULL;
        int rc;
        gen_id_chars(f->name, 26, &x->mix, "abcdefghijklmnopqrstuvwxyz234567");
        memcpy(f->name + 26, ".json.gz", 9);
        ddb_buf_printf(&p, "%s/%s", data_dir, f->name);
        f->path = ddb_buf_detach(&p, NULL);
        if (f->path == NULL)
            return ddb_error_set(err, DDB_ENOMEM, "out of memory");
        if ((rc = ddb_sink_open_file(&file, f->path, 0, err)) != 0 ||
            (rc = ddb_sink_new_gzip(&f->sink, file, 6, err)) != 0)
            return rc;
    }
    return 0;
}

static int finish_files(exporter *x, ddb_error *err)
{
    for (size_t i = 0; i < x->n_files; i++) {
        exp_file *f = &x->files[i];
        int rc;
        if (f->buf.len && (rc = ddb_sink_write(f->sink, f->buf.ptr, f->buf.len, err)) != 0)
            return rc;
        ddb_buf_clear(&f->buf);
        if ((rc = ddb_sink_finish(f->sink, err)) != 0)
            return rc;
        ddb_sink_free(f->sink);
        f->sink = NULL;
    }
    return 0;
}

static int valid_export_id(const char *id)
{
    if (*id == '\0' || strlen(id) > 64)
        return 0;
    for (const char *p = id; *p; p++)
        if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
              *p == '-' || *p == '_'))
            return 0;
    return 1;
}

int gen_cmd_export(int argc, char **argv)
{
    const char *mapping = NULL, *design = NULL, *items = NULL, *out = NULL, *files = "4",
               *seed = "1", *unmatched = "0", *invalid = "0", *export_id = NULL, *whole = NULL;
    const gen_opt opts[] = {
        {"--mapping", &mapping, 0},     {"--design", &design, 0},
        {"--items", &items, 0},         {"--out", &out, 0},
        {"--files", &files, 0},         {"--seed", &seed, 0},
        {"--unmatched", &unmatched, 0}, {"--invalid", &invalid, 0},
        {"--export-id", &export_id, 0}, {"--whole-collections", &whole, 1},
    };
    exporter x;
    ddb_mapping *m = NULL;
    ddb_error err;
    ddb_buf dir = DDB_BUF_INIT, data_dir = DDB_BUF_INIT;
    uint64_t n_items, n_files, s, n_unm, n_inv;
    char id_buf[32];
    int64_t ts = DEFAULT_TS;
    int rc;

    memset(&x, 0, sizeof(x));
    ddb_error_clear(&err);
    if ((rc = gen_parse_opts(argc, argv, opts, GEN_COUNT(opts), export_usage)) != 0)
        return rc == 1 ? 0 : 2;
    if (mapping == NULL || items == NULL || out == NULL) {
        gen_fail("--mapping, --items and --out are required\nUsage: %s", export_usage);
        return 2;
    }
    if (gen_parse_u64(&n_items, items, 1) || gen_parse_u64(&n_files, files, 0) || n_files == 0 ||
        n_files > 1000 || gen_parse_u64(&s, seed, 0) || gen_parse_u64(&n_unm, unmatched, 0) ||
        gen_parse_u64(&n_inv, invalid, 0)) {
        gen_fail("--items, --unmatched and --invalid take a count, --files 1..1000, --seed an "
                 "unsigned integer");
        return 2;
    }
    if (export_id != NULL && !valid_export_id(export_id)) {
        gen_fail("--export-id \"%s\": use letters, digits, - and _", export_id);
        return 2;
    }
    if ((design = gen_pick_design(design, mapping)) == NULL) {
        gen_fail("cannot tell the design from \"%s\": pass --design (%s)", mapping,
                 gen_design_names());
        return 2;
    }
    x.n_files = (size_t)n_files;
    x.left_valid = n_items;
    x.whole = whole != NULL;
    x.left_unmatched = n_unm;
    x.left_invalid = n_inv;
    {
        /* FNV-1a of the design name: each design gets its own export id and names */
        uint64_t h = 0xcbf29ce484222325ull;
        for (const char *p = design; *p; p++)
            h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
        gen_rng_seed(&x.mix, s ^ h);
    }
    if (export_id == NULL) {
        snprintf(id_buf, sizeof(id_buf), "%014lld-%08llx", (long long)ts,
                 (unsigned long long)(gen_rng_next(&x.mix) & 0xffffffffu));
        export_id = id_buf;
    } else if (strlen(export_id) >= 14 && export_id[14] == '-') {
        uint64_t t;
        char digits[15];
        memcpy(digits, export_id, 14);
        digits[14] = '\0';
        if (gen_parse_u64(&t, digits, 0) == 0)
            ts = (int64_t)t;
    }
    if ((rc = gen_export_dir(&dir, out, export_id, &err)) != 0)
        goto done;
    ddb_buf_printf(&data_dir, "%s/data", dir.ptr);
    x.files = calloc(x.n_files, sizeof(*x.files));
    if (x.files == NULL || ddb_arena_new(&x.arena, 0) != 0) {
        rc = ddb_error_set(&err, DDB_ENOMEM, "out of memory");
        goto done;
    }
    if ((rc = ddb_mapping_load(&m, mapping, &err)) != 0)
        goto done;
    x.m = m;
    if ((rc = gen_design_new(&x.d, design, m, s, 1, &err)) != 0 ||
        (rc = gen_design_new(&x.aux, design, m, s ^ 0x0badbadbadbadbadull, 1, &err)) != 0)
        goto done;
    x.aux->serial_base = 500000; /* broken lines never share a key with a good item */
    if ((rc = gen_export_dir_make(dir.ptr, &err)) != 0 ||
        (rc = open_files(&x, data_dir.ptr, &err)) != 0)
        goto done;
    if (x.left_valid > 0 && (rc = x.d->vt->run(x.d, on_record, &x, &err)) != 0)
        goto done;
    if ((rc = interleave(&x, 1, &err)) != 0 || (rc = finish_files(&x, &err)) != 0 ||
        (rc = write_manifests(&x, dir.ptr, export_id, ts, &err)) != 0)
        goto done;
    printf("%s: %llu items, %llu unmatched, %llu invalid lines in %zu data files\n", dir.ptr,
           (unsigned long long)x.written, (unsigned long long)n_unm, (unsigned long long)n_inv,
           x.n_files);
done:
    if (rc != 0)
        gen_fail("%s", err.message);
    for (size_t i = 0; x.files && i < x.n_files; i++) {
        ddb_sink_free(x.files[i].sink);
        ddb_buf_dispose(&x.files[i].buf);
        free(x.files[i].path);
    }
    free(x.files);
    ddb_buf_dispose(&x.line);
    ddb_arena_free(x.arena);
    gen_design_free(x.d);
    gen_design_free(x.aux);
    ddb_mapping_free(m);
    ddb_buf_dispose(&dir);
    ddb_buf_dispose(&data_dir);
    return rc == 0 ? 0 : rc == DDB_EUSAGE ? 2 : 1;
}
