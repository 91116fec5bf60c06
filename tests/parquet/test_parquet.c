/*
 * test_parquet.c — the Parquet writer's parts against the specifications'
 * own examples: the Thrift compact protocol (thrift-compact-protocol.md),
 * the RLE/bit-packed hybrid (parquet-format Encodings.md), the file's frame,
 * and a number its column cannot hold refused, never rounded. Reading whole
 * files back is tests/scripts/parquet.sh (DuckDB and hyparquet).
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/mapping.h"
#include "ddbpipe/number.h"
#include "ddbpipe/writer.h"
#include "write/parquet.h"
#include "write/parquet_internal.h"
#include "write/parquet_thrift.h"

static void assert_bytes(const ddb_buf *b, const unsigned char *want, size_t n)
{
    cr_assert_eq(b->len, n, "%zu bytes, expected %zu", b->len, n);
    for (size_t i = 0; i < n; i++)
        cr_assert_eq((unsigned char)b->ptr[i], want[i], "byte %zu: %02x, expected %02x", i,
                     (unsigned char)b->ptr[i], want[i]);
}

Test(thrift, varints_zigzag_and_field_deltas)
{
    ddb_buf b = DDB_BUF_INIT;
    pq_thrift t;
    pq_thrift_init(&t, &b);
    pq_thrift_i32(&t, 1, 1);       /* delta 1, i32: 0x15, zigzag 1 = 2 */
    pq_thrift_i32(&t, 3, -1);      /* delta 2: 0x25, zigzag -1 = 1 */
    pq_thrift_i64(&t, 4, 300);     /* 0x16, zigzag 600 = 0xd8 0x04 */
    pq_thrift_bool(&t, 5, 1);      /* the value is the type: 0x11 */
    pq_thrift_bool(&t, 6, 0);      /* 0x12 */
    pq_thrift_i32(&t, 40, 0);      /* delta 34 > 15: long form 0x05, zigzag id 80 = 0x50 */
    pq_thrift_string(&t, 41, "ab"); /* 0x18, length 2 */
    pq_thrift_end(&t);
    static const unsigned char want[] = {0x15, 0x02, 0x25, 0x01, 0x16, 0xd8, 0x04, 0x11, 0x12,
                                         0x05, 0x50, 0x00, 0x18, 0x02, 'a',  'b',  0x00};
    assert_bytes(&b, want, sizeof(want));
    ddb_buf_dispose(&b);
}

Test(thrift, nested_structs_restart_their_field_ids)
{
    ddb_buf b = DDB_BUF_INIT;
    pq_thrift t;
    pq_thrift_init(&t, &b);
    pq_thrift_i32(&t, 2, 7);
    pq_thrift_struct(&t, 5); /* delta 3, struct: 0x3c */
    pq_thrift_i32(&t, 1, 1); /* inside, from 0: delta 1 */
    pq_thrift_end(&t);
    pq_thrift_i32(&t, 6, 1); /* back outside, from 5: delta 1 */
    pq_thrift_end(&t);
    static const unsigned char want[] = {0x25, 0x0e, 0x3c, 0x15, 0x02, 0x00, 0x15, 0x02, 0x00};
    assert_bytes(&b, want, sizeof(want));
    ddb_buf_dispose(&b);
}

Test(thrift, lists_short_and_long)
{
    ddb_buf b = DDB_BUF_INIT;
    pq_thrift t;
    pq_thrift_init(&t, &b);
    pq_thrift_list(&t, 1, PQ_T_I32, 2); /* 0x19, size 2 in the high nibble: 0x25 */
    pq_thrift_elem_i32(&t, 0);
    pq_thrift_elem_i32(&t, 3);
    pq_thrift_list(&t, 2, PQ_T_STRUCT, 20); /* 0xfc, then the size: 20 */
    for (int i = 0; i < 20; i++) {
        pq_thrift_elem_struct(&t);
        pq_thrift_end(&t);
    }
    pq_thrift_end(&t);
    cr_assert_eq(b.len, 4 + 3 + 20 + 1);
    static const unsigned char head[] = {0x19, 0x25, 0x00, 0x06, 0x19, 0xfc, 0x14};
    ddb_buf first = {b.ptr, sizeof(head), 0, 0};
    assert_bytes(&first, head, sizeof(head));
    ddb_buf_dispose(&b);
}

static void assert_rle(const uint8_t *v, size_t n, int width, const unsigned char *want,
                       size_t want_len)
{
    ddb_buf b = DDB_BUF_INIT;
    pq_rle_encode(&b, v, n, width);
    assert_bytes(&b, want, want_len);
    ddb_buf_dispose(&b);
}

Test(rle, bit_packed_as_the_spec_shows)
{
    /* Encodings.md: 0..7 with bit width 3 pack into 10001000 11000110 11111010 */
    static const uint8_t v[] = {0, 1, 2, 3, 4, 5, 6, 7};
    static const unsigned char want[] = {0x03, 0x88, 0xc6, 0xfa};
    assert_rle(v, 8, 3, want, sizeof(want));
}

Test(rle, runs_then_a_padded_group)
{
    /* ten 1s are an RLE run (header 10 << 1, the value in one byte); 0,1,0 a bit-packed
     * group of 8 padded with zeros */
    static const uint8_t v[] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 0};
    static const unsigned char want[] = {0x14, 0x01, 0x03, 0x02};
    assert_rle(v, sizeof(v), 1, want, sizeof(want));
}

Test(rle, a_packed_group_in_the_middle_holds_exactly_eight)
{
    /* 2,0,2,0,2,0,2,0 (width 2) then twelve 1s: the group is whole, then the run */
    uint8_t v[20] = {2, 0, 2, 0, 2, 0, 2, 0};
    for (int i = 8; i < 20; i++)
        v[i] = 1;
    static const unsigned char want[] = {0x03, 0x22, 0x22, 0x18, 0x01};
    assert_rle(v, 20, 2, want, sizeof(want));
}

Test(dictionary, index_bit_widths)
{
    /* a one-value dictionary: width 0, one run whose value takes no bytes */
    static const uint32_t zeros[5] = {0};
    static const unsigned char w0[] = {0x0a};
    /* Encodings.md's bit-packing of 0..7 at width 3 */
    static const uint32_t seq[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    static const unsigned char w3[] = {0x03, 0x88, 0xc6, 0xfa};
    /* width 17: a run of ten 70000s (header 10 << 1, the value in 3 bytes, little-endian),
     * then one bit-packed group (header 1 << 1 | 1) of 1, 2 and padding in 17 bytes: the 1 at
     * bit 0, the 2 at bits 17..33 (byte 2's bit 2) */
    static const uint32_t wide[12] = {70000, 70000, 70000, 70000, 70000, 70000,
                                      70000, 70000, 70000, 70000, 1,     2};
    static const unsigned char w17[4 + 1 + 17] = {0x14, 0x70, 0x11, 0x01, 0x03, 0x01, 0x00, 0x04};
    const struct {
        const uint32_t *v;
        size_t n;
        int width;
        const unsigned char *want;
        size_t want_len;
    } cases[] = {{zeros, 5, 0, w0, sizeof(w0)}, {seq, 8, 3, w3, sizeof(w3)},
                 {wide, 12, 17, w17, sizeof(w17)}};
    ddb_buf b = DDB_BUF_INIT;
    for (size_t i = 0; i < 3; i++) {
        ddb_buf_clear(&b);
        pq_rle_encode_indices(&b, cases[i].v, cases[i].n, cases[i].width);
        assert_bytes(&b, cases[i].want, cases[i].want_len);
    }
    ddb_buf_dispose(&b);
}

/* count BYTE_ARRAYs, value i the text of texts[i % n_texts], PLAIN. */
static void plain_texts(ddb_buf *b, const char *const *texts, size_t n_texts, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        const char *t = texts[i % n_texts];
        unsigned char len[4] = {(unsigned char)strlen(t), 0, 0, 0};
        ddb_buf_append(b, len, 4);
        ddb_buf_append(b, t, strlen(t));
    }
}

Test(dictionary, page_bytes_and_when_it_pays)
{
    static const char *const kinds[] = {"IMAGE", "VIDEO", "IMAGE"};
    static const char *const one[] = {"same"};
    static const unsigned char want_plain[] = {5, 0, 0, 0, 'I', 'M', 'A', 'G', 'E',
                                               5, 0, 0, 0, 'V', 'I', 'D', 'E', 'O'};
    char ids[40][8];
    const char *unique[40];
    ddb_buf vals = DDB_BUF_INIT;
    pq_dict d = {0};
    /* IMAGE, VIDEO, IMAGE, ...: the dictionary in first-seen order, indices of width 1 */
    plain_texts(&vals, kinds, 3, 30);
    cr_assert_eq(pq_dict_build(&d, (const unsigned char *)vals.ptr, vals.len, 0, 30), 1);
    cr_assert_eq(d.n, 2);
    cr_assert_eq(d.bit_width, 1);
    assert_bytes(&d.plain, want_plain, sizeof(want_plain));
    for (size_t i = 0; i < 30; i++)
        cr_assert_eq(d.idx[i], (uint32_t)(i % 3 == 1), "index %zu", i);
    /* one value: width 0 */
    ddb_buf_clear(&vals);
    plain_texts(&vals, one, 1, 10);
    cr_assert_eq(pq_dict_build(&d, (const unsigned char *)vals.ptr, vals.len, 0, 10), 1);
    cr_assert_eq(d.n, 1);
    cr_assert_eq(d.bit_width, 0);
    /* a value per row: no dictionary */
    for (int i = 0; i < 40; i++) {
        snprintf(ids[i], sizeof(ids[i]), "id%d", i);
        unique[i] = ids[i];
    }
    ddb_buf_clear(&vals);
    plain_texts(&vals, unique, 40, 40);
    cr_assert_eq(pq_dict_build(&d, (const unsigned char *)vals.ptr, vals.len, 0, 40), 0);
    /* fixed-width values (a decimal's 4 bytes): 5 distinct of 100, width 3, PLAIN unprefixed */
    ddb_buf_clear(&vals);
    for (uint32_t i = 0; i < 100; i++) {
        uint32_t x = i % 5 * 1000;
        ddb_buf_append(&vals, &x, 4);
    }
    cr_assert_eq(pq_dict_build(&d, (const unsigned char *)vals.ptr, vals.len, 4, 100), 1);
    cr_assert_eq(d.n, 5);
    cr_assert_eq(d.bit_width, 3);
    cr_assert_eq(d.plain.len, 20);
    cr_assert_eq(d.idx[99], 4);
    pq_dict_dispose(&d);
    ddb_buf_dispose(&vals);
}

Test(dictionary, a_dictionary_past_its_bound_is_not_one)
{
    /* 3 values of 400 KiB, each twice (few enough entries): 1.2 MiB of dictionary, past
     * PQ_DICT_BYTES, so none */
    size_t big = 400 << 10;
    ddb_buf vals = DDB_BUF_INIT;
    pq_dict d = {0};
    char *v = malloc(big);
    cr_assert_not_null(v);
    for (int i = 0; i < 6; i++) {
        unsigned char len[4] = {(unsigned char)big, (unsigned char)(big >> 8),
                                (unsigned char)(big >> 16), 0};
        memset(v, 'a' + i % 3, big);
        ddb_buf_append(&vals, len, 4);
        ddb_buf_append(&vals, v, big);
    }
    cr_assert_eq(pq_dict_build(&d, (const unsigned char *)vals.ptr, vals.len, 0, 6), 0);
    cr_assert_leq(d.plain.len, PQ_DICT_BYTES);
    free(v);
    pq_dict_dispose(&d);
    ddb_buf_dispose(&vals);
}

static const char mapping_text[] =
    "{\"table\":{\"name\":\"T\",\"partitionKey\":{\"name\":\"pk\",\"type\":\"S\"}},"
    "\"entities\":[{\"name\":\"E\",\"keys\":{\"pk\":\"e#{id}\"},"
    "\"fields\":[{\"name\":\"id\",\"type\":\"S\"},{\"name\":\"price\",\"type\":\"N\"}]}]}";

static int write_one(ddb_writer *w, const ddb_entity *e, const char *id, const char *price,
                     ddb_error *err)
{
    ddb_attr attrs[2];
    ddb_map rec = {attrs, 2};
    attrs[0].name = (ddb_str){e->fields[0].name, e->fields[0].name_len};
    attrs[0].value.type = DDB_TYPE_S;
    attrs[0].value.u.s = (ddb_str){id, strlen(id)};
    attrs[1].name = (ddb_str){e->fields[1].name, e->fields[1].name_len};
    attrs[1].value.type = DDB_TYPE_N;
    attrs[1].value.u.s = (ddb_str){price, strlen(price)};
    return ddb_writer_write(w, &rec, 2, err);
}

Test(parquet_writer, a_number_past_its_decimal_is_refused_not_rounded)
{
    ddb_mapping *m = NULL;
    ddb_sink *sink = NULL;
    ddb_writer *w = NULL;
    ddb_writer_opts opts = {.parquet_group_rows = 1};
    ddb_error err = {0, ""};
    const char *data;
    size_t len;
    cr_assert_eq(ddb_mapping_parse(&m, mapping_text, strlen(mapping_text), "t", &err), 0, "%s",
                 err.message);
    cr_assert_eq(ddb_sink_new_memory(&sink, &err), 0);
    cr_assert_eq(ddb_writer_new(&w, DDB_OUT_PARQUET, sink, &m->entities[0], &opts, &err), 0);
    /* the first row group (one row) makes price DECIMAL(38,1) */
    cr_assert_eq(write_one(w, &m->entities[0], "a", "2.5", &err), 0, "%s", err.message);
    cr_assert_eq(write_one(w, &m->entities[0], "b", "1.25", &err), DDB_WRITER_REFUSED);
    cr_assert(strstr(err.message, "price: 1.25 has 2 digits after the point") != NULL, "%s",
              err.message);
    cr_assert_eq(write_one(w, &m->entities[0], "c", "-1234567890123456789012345678901234567", &err),
                 0, "%s", err.message);
    cr_assert_eq(write_one(w, &m->entities[0], "d", "12345678901234567890123456789012345678",
                           &err),
                 DDB_WRITER_REFUSED);
    cr_assert_eq(w->records, 2);
    cr_assert_eq(ddb_writer_finish(w, &err), 0, "%s", err.message);
    data = ddb_sink_memory_data(w->sink, &len);
    /* the frame: magic, pages, footer, its length, magic */
    cr_assert_gt(len, 12);
    cr_assert_eq(memcmp(data, "PAR1", 4), 0);
    cr_assert_eq(memcmp(data + len - 4, "PAR1", 4), 0);
    {
        const unsigned char *p = (const unsigned char *)data + len - 8;
        size_t footer = p[0] | (size_t)p[1] << 8 | (size_t)p[2] << 16 | (size_t)p[3] << 24;
        cr_assert_lt(footer, len - 12);
        const char *meta = data + len - 8 - footer;
        int named = 0;
        /* the footer's created_by names the writer */
        for (size_t i = 0; i + 15 <= footer && !named; i++)
            named = memcmp(meta + i, "ddbpipe version", 15) == 0;
        cr_assert(named);
    }
    ddb_writer_free(w);
    ddb_mapping_free(m);
}

Test(parquet_writer, codecs_by_name)
{
    ddb_parquet_codec c;
    ddb_error err = {0, ""};
    cr_assert_eq(ddb_parquet_codec_parse(&c, "snappy", &err), 0);
    cr_assert_eq(c, DDB_PARQUET_SNAPPY);
    cr_assert_eq(ddb_parquet_codec_parse(&c, "gzip", &err), 0);
    cr_assert_eq(c, DDB_PARQUET_GZIP);
    cr_assert_eq(ddb_parquet_codec_parse(&c, "lz4", &err), DDB_EUSAGE);
    cr_assert(strstr(err.message, "use zstd, snappy, gzip or none") != NULL, "%s", err.message);
}

/* A declared precision's physical type at each boundary of LogicalTypes.md:
 * INT32 to 9 digits, INT64 to 18, then the fewest bytes n with
 * floor(log10(2^(8n-1) - 1)) >= precision. */
Test(parquet, decimal_form_follows_the_precision)
{
    static const struct {
        int precision, type, bytes;
    } cases[] = {{1, 1, 4},   {9, 1, 4},   {10, 2, 8},  {18, 2, 8},  {19, 7, 9},
                 {21, 7, 9},  {22, 7, 10}, {28, 7, 12}, {29, 7, 13}, {30, 7, 13},
                 {31, 7, 13}, {32, 7, 14}, {35, 7, 15}, {36, 7, 16}, {38, 7, 16}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        pq_col c = {.kind = PQ_NUMBER, .precision = cases[i].precision};
        pq_decimal_form form = pq_decimal_form_of(&c);
        cr_assert_eq(form.type, cases[i].type, "precision %d", cases[i].precision);
        cr_assert_eq(form.bytes, cases[i].bytes, "precision %d", cases[i].precision);
    }
}

/* The decimal bytes of a number's text, read straight from its digits, are
 * those of its normalized parse (the long way, kept for more than 38 digits):
 * trailing zeros past the scale, exponents both ways, signs, 38 nines. */
Test(parquet, decimal_bytes_from_the_digits_as_from_the_parse)
{
    static const struct {
        const char *text;
        int scale;
    } cases[] = {{"1.50", 1},
                 {"0", 0},
                 {"-0", 3},
                 {"0.000", 0},
                 {"1E+2", 0},
                 {"1.5E-3", 4},
                 {"-2.5e+3", 2},
                 {"12345678901234567890.123456789012345678", 18},
                 {"-12345678901234567890.123456789012345678", 18},
                 {"99999999999999999999999999999999999999", 0},
                 {"-99999999999999999999999999999999999999", 0},
                 {"-1", 37},
                 {"0.00000000000000000000000000000000000001", 38},
                 {"1.0000000000000000000000000000000000000000000", 0},
                 {"000123.4500", 2}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *t = cases[i].text;
        unsigned char got[16], want[16];
        __extension__ unsigned __int128 v = 0;
        ddb_number num;
        cr_assert_eq(ddb_number_parse(&num, t, strlen(t), NULL), 0, "%s", t);
        for (int d = 0; d < num.ndigits; d++)
            v = v * 10 + (unsigned)(num.digits[d] - '0');
        for (int k = num.exponent - num.ndigits + cases[i].scale; k > 0; k--)
            v *= 10;
        if (num.negative)
            v = ~v + 1;
        for (int b = 15; b >= 0; b--, v >>= 8)
            want[b] = (unsigned char)v;
        pq_decimal_bytes(got, t, strlen(t), cases[i].scale);
        cr_assert_eq(memcmp(got, want, 16), 0, "%s at scale %d", t, cases[i].scale);
    }
}

static const char struct_mapping_text[] =
    "{\"table\":{\"name\":\"T\",\"partitionKey\":{\"name\":\"pk\",\"type\":\"S\"}},"
    "\"entities\":[{\"name\":\"E\",\"keys\":{\"pk\":\"e#{id}\"},"
    "\"fields\":[{\"name\":\"id\",\"type\":\"S\"},{\"name\":\"price\",\"type\":\"N\"},"
    "{\"name\":\"dims\",\"type\":\"M\",\"fields\":[{\"name\":\"w\",\"type\":\"N\"},"
    "{\"name\":\"tags\",\"type\":\"SS\"}]},{\"name\":\"on\",\"type\":\"BOOL\"}]}]}";

/* Record i of rows_made_ahead: id, price, dims.w (NULL: no dims), and an
 * undeclared attribute for _extra. */
static void ahead_record(ddb_map *rec, ddb_attr *attrs, ddb_attr *dims, ddb_value *tags,
                         const ddb_entity *e, const char *id, const char *price, const char *w)
{
    size_t n = 0;
    attrs[n].name = (ddb_str){e->fields[0].name, e->fields[0].name_len};
    attrs[n].value = (ddb_value){.type = DDB_TYPE_S, .u.s = {id, strlen(id)}};
    attrs[++n].name = (ddb_str){e->fields[1].name, e->fields[1].name_len};
    attrs[n].value = (ddb_value){.type = DDB_TYPE_N, .u.s = {price, strlen(price)}};
    if (w != NULL) {
        dims[0].name = (ddb_str){"w", 1};
        dims[0].value = (ddb_value){.type = DDB_TYPE_N, .u.s = {w, strlen(w)}};
        tags[0] = (ddb_value){.type = DDB_TYPE_S, .u.s = {"x", 1}};
        tags[1] = (ddb_value){.type = DDB_TYPE_S, .u.s = {"y", 1}};
        dims[1].name = (ddb_str){"tags", 4};
        dims[1].value = (ddb_value){.type = DDB_TYPE_SS, .u.l = {tags, 2}};
        attrs[++n].name = (ddb_str){e->fields[2].name, e->fields[2].name_len};
        attrs[n].value = (ddb_value){.type = DDB_TYPE_M, .u.m = {dims, 2}};
    }
    attrs[++n].name = (ddb_str){e->fields[3].name, e->fields[3].name_len};
    attrs[n].value = (ddb_value){.type = DDB_TYPE_BOOL, .u.boolean = 1};
    attrs[++n].name = (ddb_str){"note", 4};
    attrs[n].value = (ddb_value){.type = DDB_TYPE_S, .u.s = {id, strlen(id)}};
    *rec = (ddb_map){attrs, n + 1};
}

/* Two Parquet writers of e (NULL: items) alike: w[0] is given the rows
 * made ahead, w[1] the records. */
static void new_pair(ddb_writer *w[2], const ddb_entity *e, const ddb_writer_opts *opts)
{
    ddb_error err = {0, ""};
    for (int k = 0; k < 2; k++) {
        ddb_sink *sink = NULL;
        cr_assert_eq(ddb_sink_new_memory(&sink, &err), 0);
        cr_assert_eq(ddb_writer_new(&w[k], DDB_OUT_PARQUET, sink, e, opts, &err), 0);
    }
}

/* Record i as its row made ahead into w[0] and as itself into w[1]: the
 * same answer, want (0 or DDB_WRITER_REFUSED), with the same reason. */
static void write_pair(ddb_writer *w[2], size_t i, const ddb_buf *made, const ddb_map *rec,
                       size_t declared, int want)
{
    ddb_error err = {0, ""}, err2 = {0, ""};
    int rc = ddb_writer_write_line(w[0], made->ptr, made->len, rec, declared, &err);
    int rc2 = ddb_writer_write(w[1], rec, declared, &err2);
    cr_assert_eq(rc, rc2, "record %zu: %d against %d (%s)", i, rc, rc2, err.message);
    cr_assert_str_eq(err.message, err2.message);
    cr_assert_eq(rc, want, "record %zu: %s", i, err.message);
}

/* Finishes both, which hold records rows: the same bytes, w[0]'s in *data. */
static void finish_pair(ddb_writer *w[2], uint64_t records, const char **data, size_t *len)
{
    ddb_error err = {0, ""};
    const char *d[2];
    size_t n[2];
    for (int k = 0; k < 2; k++) {
        cr_assert_eq(w[k]->records, records);
        cr_assert_eq(ddb_writer_finish(w[k], &err), 0, "%s", err.message);
        d[k] = ddb_sink_memory_data(w[k]->sink, &n[k]);
    }
    cr_assert_eq(n[0], n[1]);
    cr_assert_eq(memcmp(d[0], d[1], n[0]), 0);
    *data = d[0];
    *len = n[0];
}

static void free_pair(ddb_writer *w[2], ddb_line_format *lf, ddb_format_scratch *s,
                      ddb_buf made[4])
{
    for (size_t i = 0; i < 4; i++)
        ddb_buf_dispose(&made[i]);
    ddb_format_scratch_dispose(s);
    ddb_line_format_free(lf);
    ddb_writer_free(w[0]);
    ddb_writer_free(w[1]);
}

/* Rows made by other threads before the file decided its number columns
 * (as --threads makes them ahead of the writer) are written as the records
 * would be: a price the decided DECIMAL cannot hold refused with the same
 * reason, a STRUCT whose member it cannot hold sent whole to _extra, and
 * the file byte for byte the one ddb_writer_write makes. */
Test(parquet_writer, rows_made_ahead_are_written_as_their_records)
{
    static const char *const rows[][3] = {
        {"a", "2.5", "1.5"}, {"b", "1.25", NULL}, {"c", "3", "0.25"}, {"d", "-4.5", "7"}};
    ddb_mapping *m = NULL;
    ddb_writer *w[2] = {NULL, NULL};
    ddb_writer_opts opts = {.parquet_group_rows = 1, .parquet_codec = DDB_PARQUET_NONE};
    static const char moved[] = "\"dims\":{\"M\":{\"w\":{\"N\":\"0.25\"}";
    int found = 0;
    ddb_line_format *lf = NULL;
    ddb_format_scratch s = {DDB_BUF_INIT, DDB_BUF_INIT};
    ddb_buf made[4] = {DDB_BUF_INIT, DDB_BUF_INIT, DDB_BUF_INIT, DDB_BUF_INIT};
    ddb_error err = {0, ""};
    const char *data;
    size_t len;
    cr_assert_eq(ddb_mapping_parse(&m, struct_mapping_text, strlen(struct_mapping_text), "t",
                                   &err), 0, "%s", err.message);
    const ddb_entity *e = &m->entities[0];
    new_pair(w, e, &opts);
    cr_assert_eq(ddb_line_format_new(&lf, DDB_OUT_PARQUET, e, &opts), 0);
    cr_assert_not_null(lf);
    for (size_t i = 0; i < 4; i++) { /* every row made before the first is written */
        ddb_attr attrs[5], dims[2];
        ddb_value tags[2];
        ddb_map rec;
        ahead_record(&rec, attrs, dims, tags, e, rows[i][0], rows[i][1], rows[i][2]);
        cr_assert_eq(ddb_line_format_put(lf, &made[i], &s, &rec, rows[i][2] ? 4 : 3), 0);
    }
    for (size_t i = 0; i < 4; i++) {
        ddb_attr attrs[5], dims[2];
        ddb_value tags[2];
        ddb_map rec;
        ahead_record(&rec, attrs, dims, tags, e, rows[i][0], rows[i][1], rows[i][2]);
        write_pair(w, i, &made[i], &rec, rows[i][2] ? 4 : 3, i == 1 ? DDB_WRITER_REFUSED : 0);
    }
    finish_pair(w, 3, &data, &len);
    /* c's dims (w 0.25 past dims.w's DECIMAL(38,1)) went to _extra */
    for (size_t i = 0; i + sizeof(moved) - 1 <= len && !found; i++)
        found = memcmp(data + i, moved, sizeof(moved) - 1) == 0;
    cr_assert(found);
    free_pair(w, lf, &s, made);
    ddb_mapping_free(m);
}

/* The same for items (no entity): a key column's type taken from the first
 * item, a key's number its DECIMAL cannot hold refused, a key of another
 * type null, whatever the rows made before the file was opened. */
Test(parquet_writer, item_rows_made_ahead_are_written_as_their_items)
{
    static const char *const keys[][2] = {{"a", "2.5"}, {"b", "1.25"}, {"c", NULL}, {"d", "7"}};
    const ddb_key_attr key_attrs[2] = {{"pk", DDB_TYPE_NONE}, {"n", DDB_TYPE_NONE}};
    ddb_writer *w[2] = {NULL, NULL};
    ddb_writer_opts opts = {.parquet_group_rows = 1, .keys = key_attrs, .n_keys = 2};
    ddb_line_format *lf = NULL;
    ddb_format_scratch s = {DDB_BUF_INIT, DDB_BUF_INIT};
    ddb_buf made[4] = {DDB_BUF_INIT, DDB_BUF_INIT, DDB_BUF_INIT, DDB_BUF_INIT};
    const char *data;
    size_t len;
    ddb_attr attrs[4][2];
    ddb_map items[4];
    for (size_t i = 0; i < 4; i++) {
        attrs[i][0].name = (ddb_str){"pk", 2};
        attrs[i][0].value = (ddb_value){.type = DDB_TYPE_S, .u.s = {keys[i][0], 1}};
        attrs[i][1].name = (ddb_str){"n", 1};
        attrs[i][1].value = keys[i][1] ? (ddb_value){.type = DDB_TYPE_N,
                                                     .u.s = {keys[i][1], strlen(keys[i][1])}}
                                       : (ddb_value){.type = DDB_TYPE_S, .u.s = {"x", 1}};
        items[i] = (ddb_map){attrs[i], 2};
    }
    new_pair(w, NULL, &opts);
    cr_assert_eq(ddb_line_format_new(&lf, DDB_OUT_PARQUET, NULL, &opts), 0);
    cr_assert_not_null(lf);
    for (size_t i = 0; i < 4; i++)
        cr_assert_eq(ddb_line_format_put(lf, &made[i], &s, &items[i], 0), 0);
    for (size_t i = 0; i < 4; i++)
        write_pair(w, i, &made[i], &items[i], 0, i == 1 ? DDB_WRITER_REFUSED : 0);
    finish_pair(w, 3, &data, &len);
    free_pair(w, lf, &s, made);
}
