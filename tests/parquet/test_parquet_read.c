/*
 * test_parquet_read.c — the Parquet reader's decoding: the Thrift compact
 * protocol and the RLE/bit-packed hybrid read back what the writer's
 * encoders write, and a damaged file (every byte of a small file flipped in
 * turn, every length cut) ends in an error or in records, never a crash or
 * a read past the end (the sanitizer stage runs this). And the writer's
 * bounds: a chunk's values cut into pages of PQ_PAGE_BYTES that read back
 * in order, files sharing a budget gathering no more than it.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ddbpipe/mapping.h"
#include "ddbpipe/reader.h"
#include "ddbpipe/writer.h"
#include "read/parquet_read.h"
#include "write/parquet.h"
#include "write/parquet_internal.h"
#include "write/parquet_thrift.h"

Test(parquet_read, thrift_reads_what_the_encoder_writes)
{
    ddb_buf b = DDB_BUF_INIT;
    ddb_arena *a = NULL;
    ddb_error err = {0, ""};
    pqr_node root;
    const pqr_node *l, *s;
    size_t used;
    pq_thrift t;
    pq_thrift_init(&t, &b);
    pq_thrift_i32(&t, 1, -7);
    pq_thrift_i64(&t, 40, (int64_t)1 << 40);
    pq_thrift_bool(&t, 41, 1);
    pq_thrift_list(&t, 42, PQ_T_STRUCT, 20);
    for (int i = 0; i < 20; i++) {
        pq_thrift_elem_struct(&t);
        pq_thrift_string(&t, 3, "x");
        pq_thrift_end(&t);
    }
    pq_thrift_struct(&t, 43);
    pq_thrift_i32(&t, 2, 5);
    pq_thrift_end(&t);
    pq_thrift_end(&t);
    cr_assert_eq(ddb_arena_new(&a, 0), 0);
    cr_assert_eq(pqr_thrift_struct(&root, (const unsigned char *)b.ptr, b.len, &used, a, &err), 0,
                 "%s", err.message);
    cr_assert_eq(used, b.len);
    cr_assert_eq(pqr_int(&root, 1, 0), -7);
    cr_assert_eq(pqr_int(&root, 40, 0), (int64_t)1 << 40);
    cr_assert_eq(pqr_int(&root, 41, 0), 1);
    cr_assert_not_null(l = pqr_field(&root, 42));
    cr_assert_eq(l->n, 20);
    cr_assert_not_null(s = pqr_field(&l->kids[19], 3));
    cr_assert_eq(s->len, 1);
    cr_assert_eq(s->p[0], 'x');
    cr_assert_eq(pqr_int(pqr_field(&root, 43), 2, 0), 5);
    /* cut anywhere: an error, never a read past the end */
    for (size_t n = 0; n < b.len; n++)
        cr_assert_neq(pqr_thrift_struct(&root, (const unsigned char *)b.ptr, n, &used, a, &err), 0);
    ddb_arena_free(a);
    ddb_buf_dispose(&b);
}

Test(parquet_read, rle_reads_what_the_encoder_writes)
{
    uint8_t v[1000], back[1000];
    ddb_buf b = DDB_BUF_INIT;
    unsigned seed = 7;
    for (int width = 1; width <= 3; width++) {
        for (size_t i = 0; i < 1000; i++) {
            seed = seed * 1103515245u + 12345u;
            /* runs and noise in turn */
            v[i] = (i / 100) % 2 ? (uint8_t)((seed >> 16) % (1u << width)) : (uint8_t)(i / 200 % 2);
        }
        ddb_buf_clear(&b);
        pq_rle_encode(&b, v, 1000, width);
        cr_assert_eq(pqr_rle_decode(back, 1000, (const unsigned char *)b.ptr, b.len, width), 0);
        cr_assert_eq(memcmp(v, back, 1000), 0, "width %d", width);
        cr_assert_neq(pqr_rle_decode(back, 1000, (const unsigned char *)b.ptr, b.len / 2, width),
                      0);
    }
    ddb_buf_dispose(&b);
}

static const char mapping_text[] =
    "{\"table\":{\"name\":\"T\",\"partitionKey\":{\"name\":\"pk\",\"type\":\"S\"}},"
    "\"entities\":[{\"name\":\"E\",\"keys\":{\"pk\":\"e#{id}\"},"
    "\"fields\":[{\"name\":\"id\",\"type\":\"S\"},{\"name\":\"price\",\"type\":\"N\"},"
    "{\"name\":\"tags\",\"type\":\"SS\"}]}]}";

/* A small Parquet file of rows rows in groups of group rows, its bytes in
 * *out. Every row is the same: groups of 4 or more rows are dictionary-encoded
 * (id and price one-value dictionaries, of bit width 0; tags two values). */
static size_t small_file(char **out, int rows, uint64_t group)
{
    ddb_mapping *m = NULL;
    ddb_sink *sink = NULL;
    ddb_writer *w = NULL;
    ddb_writer_opts opts = {.parquet_group_rows = group, .parquet_codec = DDB_PARQUET_NONE};
    ddb_error err = {0, ""};
    const char *data;
    size_t len;
    cr_assert_eq(ddb_mapping_parse(&m, mapping_text, strlen(mapping_text), "t", &err), 0);
    cr_assert_eq(ddb_sink_new_memory(&sink, &err), 0);
    cr_assert_eq(ddb_writer_new(&w, DDB_OUT_PARQUET, sink, &m->entities[0], &opts, &err), 0);
    for (int i = 0; i < rows; i++) {
        ddb_value tags[2] = {{.type = DDB_TYPE_S, .u.s = {"a", 1}},
                             {.type = DDB_TYPE_S, .u.s = {"b", 1}}};
        ddb_attr attrs[3];
        ddb_map rec = {attrs, 3};
        const ddb_entity *e = &m->entities[0];
        for (int k = 0; k < 3; k++)
            attrs[k].name = (ddb_str){e->fields[k].name, e->fields[k].name_len};
        attrs[0].value = (ddb_value){.type = DDB_TYPE_S, .u.s = {"id", 2}};
        attrs[1].value = (ddb_value){.type = DDB_TYPE_N, .u.s = {"-12.5", 5}};
        attrs[2].value = (ddb_value){.type = DDB_TYPE_SS, .u.l = {tags, 2}};
        cr_assert_eq(ddb_writer_write(w, &rec, 3, &err), 0, "%s", err.message);
    }
    cr_assert_eq(ddb_writer_finish(w, &err), 0);
    data = ddb_sink_memory_data(w->sink, &len);
    cr_assert_not_null(*out = malloc(len));
    memcpy(*out, data, len);
    ddb_writer_free(w);
    ddb_mapping_free(m);
    return len;
}

/* Reads every record of the file path holds; the number of records, or -1
 * when the file is refused or a read fails. */
static int read_all(const char *path, const char *data, size_t len, ddb_map *first, char *price)
{
    FILE *f = fopen(path, "wb");
    ddb_reader *r = NULL;
    ddb_record *rec;
    ddb_error err = {0, ""};
    int n = 0, rc;
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(data, 1, len, f), len);
    fclose(f);
    if (ddb_reader_open(&r, path, NULL, &err) != 0)
        return -1;
    while ((rc = ddb_reader_next(r, &rec, &err)) == 0) {
        if (n++ == 0 && first != NULL) {
            *first = rec->item;
            for (size_t i = 0; i < rec->item.count; i++)
                if (rec->item.attrs[i].value.type == DDB_TYPE_N)
                    snprintf(price, 16, "%.*s", (int)rec->item.attrs[i].value.u.s.len,
                             rec->item.attrs[i].value.u.s.ptr);
        }
    }
    ddb_reader_free(r);
    return rc == DDB_ITEROVER ? n : -1;
}

static void reads_and_survives_damage(int rows, uint64_t group)
{
    char *data, *bad, path[64], price[16] = "";
    size_t len = small_file(&data, rows, group);
    ddb_map first;
    int fd;
    snprintf(path, sizeof(path), "/tmp/ddbpipe-pq-XXXXXX");
    cr_assert_geq(fd = mkstemp(path), 0);
    close(fd);
    cr_assert_eq(read_all(path, data, len, &first, price), rows);
    cr_assert_eq(first.count, 3);
    cr_assert_str_eq(price, "-12.5");
    cr_assert_not_null(bad = malloc(len));
    for (size_t i = 0; i < len; i++) {
        memcpy(bad, data, len);
        bad[i] ^= (char)0xff;
        (void)read_all(path, bad, len, NULL, NULL); /* any outcome but a crash */
    }
    /* cut short (an empty file is an empty input, no Parquet) */
    for (size_t n = 1; n < len; n++)
        cr_assert_eq(read_all(path, data, n, NULL, NULL), -1, "cut at %zu of %zu", n, len);
    unlink(path);
    free(bad);
    free(data);
}

Test(parquet_read, reads_its_writer_and_survives_damage, .timeout = 120)
{
    reads_and_survives_damage(3, 2);
}

Test(parquet_read, reads_dictionary_pages_and_survives_damage, .timeout = 120)
{
    reads_and_survives_damage(20, 10);
}

Test(parquet_read, index_widths_read_what_the_encoder_writes)
{
    uint32_t v[1000], back[1000];
    ddb_buf b = DDB_BUF_INIT;
    unsigned seed = 11;
    for (int width = 0; width <= 32; width++) {
        uint64_t limit = (uint64_t)1 << width;
        for (size_t i = 0; i < 1000; i++) {
            seed = seed * 1103515245u + 12345u;
            /* runs and noise in turn, up to the width's largest index */
            v[i] = (uint32_t)((i / 100) % 2 ? ((uint64_t)seed * 2654435761u) % limit
                                            : (limit - 1) * (i / 200 % 2));
        }
        ddb_buf_clear(&b);
        pq_rle_encode_indices(&b, v, 1000, width);
        cr_assert_eq(pqr_rle_decode_indices(back, 1000, (const unsigned char *)b.ptr, b.len, width),
                     0);
        cr_assert_eq(memcmp(v, back, sizeof(v)), 0, "width %d", width);
        if (width > 0)
            cr_assert_neq(
                pqr_rle_decode_indices(back, 1000, (const unsigned char *)b.ptr, b.len / 2, width),
                0);
    }
    ddb_buf_dispose(&b);
}

/* A one-column file (a STRING "id"): n values of 1000 bytes, each its row's
 * number then letters (no byte of a page header's 0x15), in one row group. */
static size_t wide_file(char **out, int n)
{
    pq_column_def col = {"id", 2, PQ_STRING, 0, 0, 0, NULL, 0};
    pq_opts o = {PQ_CODEC_NONE, 0, 0, NULL, 0, NULL};
    ddb_sink *sink = NULL;
    pq_file *f = NULL;
    ddb_error err = {0, ""};
    char v[1000];
    const char *data;
    size_t len;
    cr_assert_eq(ddb_sink_new_memory(&sink, &err), 0);
    cr_assert_eq(pq_file_new(&f, sink, &col, 1, &o, &err), 0, "%s", err.message);
    memset(v, 'x', sizeof(v));
    for (int i = 0; i < n; i++) {
        snprintf(v, 8, "%07d", i);
        v[7] = 'x';
        pq_put(f, 0, v, sizeof(v));
        cr_assert_eq(pq_end_row(f, &err), 0, "%s", err.message);
    }
    cr_assert_eq(pq_finish(f, &err), 0, "%s", err.message);
    cr_assert_eq(f->n_groups, 1);
    data = ddb_sink_memory_data(sink, &len);
    cr_assert_not_null(*out = malloc(len));
    memcpy(*out, data, len);
    pq_file_free(f);
    ddb_sink_free(sink);
    return len;
}

Test(parquet_read, a_chunk_is_cut_into_pages_of_a_mebibyte, .timeout = 60)
{
    char *data, path[64];
    size_t len = wide_file(&data, 3000), pages = 0, want;
    ddb_reader *r = NULL;
    ddb_record *rec;
    ddb_error err = {0, ""};
    int fd, n = 0, rc;
    FILE *fp;
    /* a data page header's DataPageHeader: encoding PLAIN (i32 0), then the
     * definition levels' RLE (i32 3, zigzag 6) */
    for (size_t i = 0; i + 4 <= len; i++)
        pages += memcmp(data + i, "\x15\x00\x15\x06", 4) == 0;
    want = (3000 * 1004 + PQ_PAGE_BYTES - 1) / PQ_PAGE_BYTES; /* a length and its bytes */
    cr_assert_eq(pages, want, "%zu data pages, expected %zu", pages, want);
    /* and read back, every row in its place */
    snprintf(path, sizeof(path), "/tmp/ddbpipe-pq-XXXXXX");
    cr_assert_geq(fd = mkstemp(path), 0);
    cr_assert_not_null(fp = fdopen(fd, "wb"));
    cr_assert_eq(fwrite(data, 1, len, fp), len);
    fclose(fp);
    cr_assert_eq(ddb_reader_open(&r, path, NULL, &err), 0, "%s", err.message);
    while ((rc = ddb_reader_next(r, &rec, &err)) == 0) {
        char want_id[8];
        const ddb_value *id = ddb_map_get(&rec->item, "id", 2);
        snprintf(want_id, sizeof(want_id), "%07d", n++);
        cr_assert(id != NULL && id->type == DDB_TYPE_S && id->u.s.len == 1000);
        cr_assert_eq(memcmp(id->u.s.ptr, want_id, 7), 0, "row %d", n - 1);
    }
    cr_assert_eq(rc, DDB_ITEROVER, "%s", err.message);
    cr_assert_eq(n, 3000);
    ddb_reader_free(r);
    unlink(path);
    free(data);
}

Test(parquet_read, files_sharing_a_budget_stay_within_it)
{
    pq_column_def col = {"id", 2, PQ_STRING, 0, 0, 0, NULL, 0};
    pq_budget *b = NULL;
    ddb_sink *sinks[2] = {NULL, NULL};
    pq_file *f[2] = {NULL, NULL};
    ddb_error err = {0, ""};
    char v[100];
    memset(v, 'y', sizeof(v));
    cr_assert_eq(pq_budget_new(&b, 64 << 10, &err), 0);
    for (int k = 0; k < 2; k++) {
        pq_opts o = {PQ_CODEC_ZSTD, 0, 0, NULL, 0, b};
        cr_assert_eq(ddb_sink_new_memory(&sinks[k], &err), 0);
        cr_assert_eq(pq_file_new(&f[k], sinks[k], &col, 1, &o, &err), 0, "%s", err.message);
    }
    /* the first file gets three rows for the second's one */
    for (int i = 0; i < 4000; i++) {
        pq_file *to = f[i % 4 == 3];
        pq_put(to, 0, v, sizeof(v));
        cr_assert_eq(pq_end_row(to, &err), 0, "%s", err.message);
        cr_assert_eq(b->used, f[0]->gathered + f[1]->gathered);
        cr_assert_leq(b->used, b->limit + sizeof(v) + 5, "row %d: %zu bytes gathered", i, b->used);
    }
    /* each wrote row groups as large as the budget allows, none of a few rows */
    cr_assert_gt(f[0]->n_groups, 2);
    cr_assert_gt(f[1]->n_groups, 0);
    for (int k = 0; k < 2; k++)
        for (size_t g = 0; g < f[k]->n_groups; g++)
            cr_assert_gt(f[k]->groups[g].rows, 100, "file %d, group %zu", k, g);
    for (int k = 0; k < 2; k++) {
        cr_assert_eq(pq_finish(f[k], &err), 0, "%s", err.message);
        pq_file_free(f[k]);
        ddb_sink_free(sinks[k]);
    }
    cr_assert_eq(b->n, 0);
    cr_assert_eq(b->used, 0);
    pq_budget_free(b);
}

/* Three files of a budget, written as the budget's test above writes them:
 * their bytes, with the row groups encoded on the calling thread or
 * (ahead) on the budget's thread, which keeps at most one. With
 * free_first, the budget is freed before the files are finished: the row
 * group its thread held is written by its file. */
static void write_shared(char *out[3], size_t len[3], int ahead, int free_first)
{
    pq_column_def cols[3] = {{"id", 2, PQ_STRING, 0, 0, 0, NULL, 0},
                             {"n", 1, PQ_NUMBER, 0, 0, 0, NULL, 0},
                             {"ok", 2, PQ_BOOL, 0, 0, 0, NULL, 0}};
    pq_budget *b = NULL;
    ddb_sink *sinks[3] = {NULL, NULL, NULL};
    pq_file *f[3] = {NULL, NULL, NULL};
    ddb_error err = {0, ""};
    char v[64];
    cr_assert_eq(pq_budget_new(&b, 48 << 10, &err), 0);
    if (ahead)
        cr_assert_eq(pq_budget_encode_ahead(b, &err), 0, "%s", err.message);
    for (int k = 0; k < 3; k++) {
        pq_opts o = {k == 2 ? PQ_CODEC_SNAPPY : PQ_CODEC_ZSTD, 0, 0, NULL, 0, b};
        cr_assert_eq(ddb_sink_new_memory(&sinks[k], &err), 0);
        cr_assert_eq(pq_file_new(&f[k], sinks[k], cols, 3, &o, &err), 0, "%s", err.message);
    }
    for (int i = 0; i < 6000; i++) {
        pq_file *to = f[i % 7 == 3 ? 1 : i % 5 == 0 ? 2 : 0];
        int n = snprintf(v, sizeof(v), "row %d %.*s", i, i % 40, "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy");
        pq_put(to, 0, v, (size_t)n);
        n = snprintf(v, sizeof(v), "%d.%d", i * 7919 % 100003, i % 10);
        if (i % 3)
            pq_put(to, 1, v, (size_t)n);
        else
            pq_put_null(to, 1);
        pq_put(to, 2, (unsigned char[]){(unsigned char)(i & 1)}, 1);
        cr_assert_eq(pq_end_row(to, &err), 0, "%s", err.message);
    }
    if (free_first)
        pq_budget_free(b);
    for (int k = 0; k < 3; k++) {
        const char *data;
        cr_assert_eq(pq_finish(f[k], &err), 0, "%s", err.message);
        cr_assert_gt(f[k]->n_groups, 1, "file %d: one row group", k);
        data = ddb_sink_memory_data(sinks[k], &len[k]);
        out[k] = malloc(len[k]);
        memcpy(out[k], data, len[k]);
        pq_file_free(f[k]);
        ddb_sink_free(sinks[k]);
    }
    if (!free_first)
        pq_budget_free(b);
}

Test(parquet_read, row_groups_encoded_ahead_are_the_same_bytes)
{
    char *base[3], *other[3];
    size_t base_len[3], other_len[3];
    write_shared(base, base_len, 0, 0);
    for (int mode = 0; mode < 2; mode++) {
        write_shared(other, other_len, 1, mode);
        for (int k = 0; k < 3; k++) {
            cr_assert_eq(other_len[k], base_len[k], "file %d (mode %d): %zu bytes, not %zu", k,
                         mode, other_len[k], base_len[k]);
            cr_assert_eq(memcmp(other[k], base[k], base_len[k]), 0, "file %d (mode %d) differs",
                         k, mode);
            free(other[k]);
        }
    }
    for (int k = 0; k < 3; k++)
        free(base[k]);
}

/* A sink that takes limit bytes, then fails every write. */
typedef struct full_sink {
    ddb_sink base;
    size_t n, limit;
} full_sink;

static int full_write(ddb_sink *s, const void *p, size_t len, ddb_error *err)
{
    full_sink *f = (full_sink *)s;
    (void)p;
    if (f->n + len > f->limit)
        return ddb_error_set(err, DDB_EIO, "the disk is full");
    f->n += len;
    return 0;
}

static int full_ok(ddb_sink *s, ddb_error *err)
{
    (void)s;
    (void)err;
    return 0;
}

static void full_free(ddb_sink *s)
{
    (void)s;
}

static const ddb_sink_vtable full_vt = {.write = full_write, .flush = full_ok,
                                        .finish = full_ok, .free = full_free};

/* Three files of one budget, the middle one's sink full after limit bytes;
 * every row is put whatever pq_end_row says. Returns file 0's bytes (out,
 * *len) and pq_finish's result for each file in rc[3]. */
static void write_one_failing(char **out, size_t *len, int rc[3], size_t limit)
{
    pq_column_def col = {"id", 2, PQ_STRING, 0, 0, 0, NULL, 0};
    full_sink fs = {{&full_vt, NULL, NULL, 0}, 0, limit};
    ddb_sink *sinks[3] = {NULL, &fs.base, NULL};
    pq_file *f[3] = {NULL, NULL, NULL};
    pq_budget *b = NULL;
    ddb_error err = {0, ""};
    char v[64];
    cr_assert_eq(pq_budget_new(&b, 48 << 10, &err), 0);
    cr_assert_eq(pq_budget_encode_ahead(b, &err), 0);
    for (int k = 0; k < 3; k++) {
        pq_opts o = {PQ_CODEC_ZSTD, 0, 0, NULL, 0, b};
        if (k != 1)
            cr_assert_eq(ddb_sink_new_memory(&sinks[k], &err), 0);
        cr_assert_eq(pq_file_new(&f[k], sinks[k], &col, 1, &o, &err), 0, "%s", err.message);
    }
    for (int i = 0; i < 8000; i++) {
        int n = snprintf(v, sizeof(v), "row %d %.*s", i, i % 40, "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz");
        pq_file *to = f[i % 3];
        pq_put(to, 0, v, (size_t)n);
        /* the failure comes back from whichever call writes the row group
         * (handing over another file's, say); the rows go on regardless */
        if (pq_end_row(to, &err) != 0)
            cr_assert_str_eq(err.message, "the disk is full");
        /* bounded while failed: what a failed file gathers is dropped */
        cr_assert_leq(b->used, b->limit + sizeof(v) + 8, "row %d: %zu bytes gathered", i, b->used);
    }
    for (int k = 0; k < 3; k++) {
        uint64_t rows = 0;
        rc[k] = pq_finish(f[k], &err);
        for (size_t g = 0; rc[k] == 0 && g < f[k]->n_groups; g++)
            rows += (uint64_t)f[k]->groups[g].rows;
        if (rc[k] == 0) {
            cr_assert_eq(rows, pq_rows(f[k]), "file %d: %llu rows in its row groups of %llu", k,
                         (unsigned long long)rows, (unsigned long long)pq_rows(f[k]));
            cr_assert_eq(rows, 8000 / 3 + (k < 8000 % 3), "file %d: %llu rows", k,
                         (unsigned long long)rows);
        }
    }
    *out = NULL;
    if (rc[0] == 0) {
        const char *data = ddb_sink_memory_data(sinks[0], len);
        *out = malloc(*len);
        memcpy(*out, data, *len);
    }
    for (int k = 0; k < 3; k++) {
        pq_file_free(f[k]);
        if (k != 1)
            ddb_sink_free(sinks[k]);
    }
    pq_budget_free(b);
}

/* A row group that cannot be written fails its own file, and only it: the
 * others, whose row groups were handed over meanwhile, finish whole. */
Test(parquet_read, a_failing_file_fails_alone_with_row_groups_encoded_ahead)
{
    char *whole, *other;
    size_t whole_len, other_len;
    int rc[3];
    write_one_failing(&whole, &whole_len, rc, (size_t)-1);
    cr_assert(rc[0] == 0 && rc[1] == 0 && rc[2] == 0);
    write_one_failing(&other, &other_len, rc, 2000);
    cr_assert_eq(rc[1], DDB_EIO, "the full sink's file finished: %d", rc[1]);
    cr_assert_eq(rc[0], 0);
    cr_assert_eq(rc[2], 0);
    /* file 0 holds its rows (write_one_failing checked its row groups add up
     * to them): row groups elsewhere, as file 1 held none after failing */
    cr_assert_gt(other_len, whole_len / 2);
    free(whole);
    free(other);
}
