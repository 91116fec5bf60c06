#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "ddbpipe/codec.h"
#include "ddbpipe/json.h"

static ddb_json_parser *p;
static ddb_arena *a;
static ddb_error err;

static void setup(void)
{
    cr_assert_eq(ddb_json_parser_new(&p), 0);
    cr_assert_eq(ddb_arena_new(&a, 0), 0);
    ddb_error_clear(&err);
}

static void teardown(void)
{
    ddb_json_parser_free(p);
    ddb_arena_free(a);
}

TestSuite(json, .init = setup, .fini = teardown);

static ddb_map parse_map(const char *text)
{
    ddb_map m;
    int rc = ddb_json_parse_typed_map(p, &m, text, strlen(text), a, &err);
    cr_assert_eq(rc, 0, "parse failed: %s", err.message);
    return m;
}

static int parse_map_fails(const char *text)
{
    ddb_map m;
    ddb_error_clear(&err);
    return ddb_json_parse_typed_map(p, &m, text, strlen(text), a, &err) != 0;
}

static char *typed_text(const ddb_map *m)
{
    static char out[65536];
    ddb_buf b = DDB_BUF_INIT;
    cr_assert_eq(ddb_json_put_typed_map(&b, m), 0);
    cr_assert_lt(b.len, sizeof(out));
    memcpy(out, b.ptr, b.len + 1);
    ddb_buf_dispose(&b);
    return out;
}

Test(json, parses_all_ten_types_and_writes_them_back_identically)
{
    const char *text =
        "{\"s\":{\"S\":\"hello\"},\"n\":{\"N\":\"12345678901234567890123456789012345678\"},"
        "\"b\":{\"B\":\"AAEC/w==\"},\"t\":{\"BOOL\":true},\"f\":{\"BOOL\":false},"
        "\"z\":{\"NULL\":true},\"m\":{\"M\":{\"k\":{\"S\":\"v\"}}},"
        "\"l\":{\"L\":[{\"N\":\"1\"},{\"S\":\"x\"}]},\"ss\":{\"SS\":[\"a\",\"b\"]},"
        "\"ns\":{\"NS\":[\"1\",\"2.5\"]},\"bs\":{\"BS\":[\"AQ==\",\"Ag==\"]}}";
    ddb_map m = parse_map(text);
    cr_assert_eq(m.count, 11);
    cr_assert_eq(m.attrs[0].value.type, DDB_TYPE_S);
    cr_assert_eq(m.attrs[1].value.type, DDB_TYPE_N);
    cr_assert_eq(m.attrs[1].value.u.s.len, 38);
    cr_assert_eq(m.attrs[2].value.type, DDB_TYPE_B);
    cr_assert_eq(m.attrs[2].value.u.s.len, 4);
    cr_assert_eq(memcmp(m.attrs[2].value.u.s.ptr, "\x00\x01\x02\xff", 4), 0);
    cr_assert_eq(m.attrs[3].value.u.boolean, 1);
    cr_assert_eq(m.attrs[4].value.u.boolean, 0);
    cr_assert_eq(m.attrs[5].value.type, DDB_TYPE_NULL);
    cr_assert_eq(m.attrs[6].value.u.m.count, 1);
    cr_assert_eq(m.attrs[7].value.u.l.count, 2);
    cr_assert_eq(m.attrs[10].value.type, DDB_TYPE_BS);
    cr_assert_eq(m.attrs[10].value.u.l.items[1].u.s.ptr[0], 2);
    cr_assert_str_eq(typed_text(&m), text);
}

Test(json, unescaped_strings_point_into_the_input)
{
    const char *text = "{\"a\":{\"S\":\"plain\"}}";
    ddb_map m = parse_map(text);
    cr_assert(m.attrs[0].value.u.s.ptr >= text && m.attrs[0].value.u.s.ptr < text + strlen(text));
}

Test(json, escapes_and_surrogate_pairs_decode_to_utf8)
{
    ddb_map m = parse_map("{\"a\":{\"S\":\"q\\\"b\\\\s\\/n\\n\\u00e9\\ud83d\\ude00\"}}");
    const ddb_str *s = &m.attrs[0].value.u.s;
    const char want[] = "q\"b\\s/n\n\xc3\xa9\xf0\x9f\x98\x80";
    cr_assert_eq(s->len, sizeof(want) - 1);
    cr_assert_eq(memcmp(s->ptr, want, s->len), 0);
}

Test(json, multibyte_utf8_passes_through_both_ways)
{
    const char *text = "{\"名前\":{\"S\":\"日本語 – ü 😀\"}}";
    ddb_map m = parse_map(text);
    cr_assert_eq(m.attrs[0].name.len, 6);
    cr_assert_str_eq(typed_text(&m), text);
}

Test(json, rejects_lone_surrogates_and_bad_utf8)
{
    cr_assert(parse_map_fails("{\"a\":{\"S\":\"\\ud83d\"}}"));
    cr_assert(strstr(err.message, "surrogate") != NULL, "%s", err.message);
    cr_assert(parse_map_fails("{\"a\":{\"S\":\"\\ude00x\"}}"));
    cr_assert(parse_map_fails("{\"a\":{\"S\":\"\xc3\x28\"}}"));
    cr_assert(strstr(err.message, "UTF-8") != NULL, "%s", err.message);
    cr_assert(parse_map_fails("{\"a\":{\"S\":\"\xed\xa0\x80\"}}")); /* encoded surrogate */
    cr_assert(parse_map_fails("{\"a\":{\"S\":\"tab\there\"}}"));    /* raw control char */
}

Test(json, errors_name_the_attribute_path_and_column)
{
    cr_assert(
        parse_map_fails("{\"outer\":{\"M\":{\"list\":{\"L\":[{\"S\":\"ok\"},{\"Q\":\"x\"}]}}}}"));
    cr_assert(strstr(err.message, "outer.list[1]") != NULL, "%s", err.message);
    cr_assert(strstr(err.message, "unknown type 'Q'") != NULL, "%s", err.message);
    cr_assert(strstr(err.message, "column 41") != NULL, "%s", err.message);
}

Test(json, rejects_malformed_typed_values)
{
    cr_assert(parse_map_fails("{\"a\":{\"S\":\"x\",\"N\":\"1\"}}"));
    cr_assert(strstr(err.message, "more than one type") != NULL, "%s", err.message);
    cr_assert(parse_map_fails("{\"a\":{}}"));
    cr_assert(parse_map_fails("{\"a\":{\"NULL\":false}}"));
    cr_assert(parse_map_fails("{\"a\":{\"BOOL\":\"true\"}}"));
    cr_assert(parse_map_fails("{\"a\":{\"B\":\"AAE\"}}"));
    cr_assert(strstr(err.message, "base64") != NULL, "%s", err.message);
    cr_assert(parse_map_fails("{\"a\":{\"B\":\"A=AA\"}}"));
    cr_assert(parse_map_fails("{\"a\":{\"S\":\"x\"}"));
    cr_assert(parse_map_fails("{\"a\":{\"S\":\"x\"}} trailing"));
    cr_assert(parse_map_fails("{\"a\":\"x\"}"));
}

Test(json, plain_numbers_keep_their_text_beyond_64_bits)
{
    const char *text = "{\"big\":123456789012345678901234567890123456789,\"neg\":-0.000000000001,"
                       "\"e\":1.5E+300,\"u64max\":18446744073709551616}";
    ddb_value v;
    ddb_buf b = DDB_BUF_INIT;
    cr_assert_eq(ddb_json_parse_plain(p, &v, text, strlen(text), a, &err), 0, "%s", err.message);
    cr_assert_eq(v.type, DDB_TYPE_M);
    cr_assert_eq(v.u.m.attrs[0].value.type, DDB_TYPE_N);
    cr_assert_eq(v.u.m.attrs[0].value.u.s.len, 39);
    cr_assert_eq(memcmp(v.u.m.attrs[3].value.u.s.ptr, "18446744073709551616", 20), 0);
    ddb_json_put_plain_value(&b, &v);
    cr_assert_str_eq(b.ptr, text);
    ddb_buf_dispose(&b);
}

Test(json, plain_maps_types)
{
    const char *text = " {\"s\":\"x\",\"t\":true,\"n\":null,\"l\":[1,\"a\",[]],\"o\":{}} ";
    ddb_value v;
    cr_assert_eq(ddb_json_parse_plain(p, &v, text, strlen(text), a, &err), 0, "%s", err.message);
    cr_assert_eq(v.u.m.attrs[0].value.type, DDB_TYPE_S);
    cr_assert_eq(v.u.m.attrs[1].value.type, DDB_TYPE_BOOL);
    cr_assert_eq(v.u.m.attrs[2].value.type, DDB_TYPE_NULL);
    cr_assert_eq(v.u.m.attrs[3].value.type, DDB_TYPE_L);
    cr_assert_eq(v.u.m.attrs[3].value.u.l.count, 3);
    cr_assert_eq(v.u.m.attrs[4].value.type, DDB_TYPE_M);
    cr_assert_eq(v.u.m.attrs[4].value.u.m.count, 0);
}

Test(json, plain_rejects_invalid_json_numbers_and_literals)
{
    const char *bad[] = {"01",  "1.",   ".5",        "+1",    "1e",    "-",         "tru",
                         "nul", "[1,]", "{\"a\" 1}", "[1 2]", "\"abc", "{\"a\":1,}"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        ddb_value v;
        cr_assert_neq(ddb_json_parse_plain(p, &v, bad[i], strlen(bad[i]), a, &err), 0, "%s",
                      bad[i]);
    }
}

Test(json, deep_nesting_is_bounded_not_a_stack_overflow)
{
    static char text[200000];
    size_t n = 0;
    ddb_value v;
    for (int i = 0; i < 50000; i++)
        text[n++] = '[';
    for (int i = 0; i < 50000; i++)
        text[n++] = ']';
    cr_assert_neq(ddb_json_parse_plain(p, &v, text, n, a, &err), 0);
    cr_assert(strstr(err.message, "nested deeper") != NULL, "%s", err.message);
}

Test(json, line_kinds_parse_and_sniff)
{
    const char *item = "{\"Item\":{\"pk\":{\"S\":\"a\"}}}";
    const char *bare = "{\"pk\":{\"S\":\"a\"},\"n\":{\"N\":\"1\"}}";
    const char *change = "{\"Metadata\":{\"WriteTimestampMicros\":{\"N\":\"1716790390720026\"}},"
                         "\"Keys\":{\"name\":{\"S\":\"Olwen4734\"}},"
                         "\"NewImage\":{\"name\":{\"S\":\"Olwen4734\"}}}";
    const char *plain = "{\"userId\":\"u1\",\"createTime\":1600000000}";
    ddb_json_line_kind k;
    ddb_map m;
    ddb_json_change ch;

    cr_assert(ddb_json_sniff_line(&k, item, strlen(item)));
    cr_assert_eq(k, DDB_JSON_LINE_ITEM);
    cr_assert(ddb_json_sniff_line(&k, bare, strlen(bare)));
    cr_assert_eq(k, DDB_JSON_LINE_BARE);
    cr_assert(ddb_json_sniff_line(&k, change, strlen(change)));
    cr_assert_eq(k, DDB_JSON_LINE_CHANGE);
    cr_assert_not(ddb_json_sniff_line(&k, plain, strlen(plain)));

    cr_assert_eq(ddb_json_parse_line(p, DDB_JSON_LINE_ITEM, &m, NULL, item, strlen(item), a, &err),
                 0);
    cr_assert_eq(m.count, 1);
    cr_assert_eq(
        ddb_json_parse_line(p, DDB_JSON_LINE_CHANGE, NULL, &ch, change, strlen(change), a, &err),
        0);
    cr_assert(ch.has_new_image);
    cr_assert_not(ch.has_old_image);
    cr_assert_eq(ch.write_time.len, 16);
    cr_assert_eq(ch.keys.count, 1);
    /* An ITEM line with a second envelope key is malformed, not half-read. */
    cr_assert_neq(
        ddb_json_parse_line(p, DDB_JSON_LINE_ITEM, &m, NULL, "{\"Item\":{},\"x\":1}", 17, a, &err),
        0);
    cr_assert_null(ddb_json_parser_item_text(p).ptr, "no item text after a failed line");
}

/* Item validation trusts this parser's UTF-8 check for every name and string
 * it read (ddb_item_validate_parsed): invalid UTF-8 is refused wherever it
 * is, in a name or a value, at the top or nested in maps, lists and sets. */
Test(json, refuses_bad_utf8_at_every_depth)
{
    static const char *const lines[] = {
        "{\"Item\":{\"pk\":{\"S\":\"a\"},\"k\xC3\":{\"S\":\"x\"}}}",
        "{\"Item\":{\"pk\":{\"S\":\"a\xFF\"}}}",
        "{\"Item\":{\"pk\":{\"S\":\"a\"},\"m\":{\"M\":{\"k\xFF\":{\"S\":\"x\"}}}}}",
        "{\"Item\":{\"pk\":{\"S\":\"a\"},\"m\":{\"M\":{\"k\":{\"S\":\"x\xC3\"}}}}}",
        "{\"Item\":{\"pk\":{\"S\":\"a\"},\"l\":{\"L\":[{\"M\":{\"k\":{\"S\":\"\xE2\x82\"}}}]}}}",
        "{\"Item\":{\"pk\":{\"S\":\"a\"},\"l\":{\"L\":[{\"S\":\"ok\"},{\"S\":\"\xC0\xAF\"}]}}}",
        "{\"Item\":{\"pk\":{\"S\":\"a\"},\"s\":{\"SS\":[\"ok\",\"\xED\xA0\x80\"]}}}",
        "{\"Item\":{\"pk\":{\"S\":\"a\"},\"m\":{\"M\":{\"n\":{\"M\":{\"\xF5\x80\x80\x80\":{\"N\":\"1\"}}}}}}}",
    };
    ddb_map m;

    for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
        cr_assert_neq(ddb_json_parse_line(p, DDB_JSON_LINE_ITEM, &m, NULL, lines[i],
                                          strlen(lines[i]), a, &err),
                      0, "accepted %s", lines[i]);
        cr_assert(strstr(err.message, "UTF-8") != NULL, "%s: %s", lines[i], err.message);
    }
}

/* The item object of an ITEM or BARE line, verbatim (what an importer may
 * send as it is); nothing for a change line. */
Test(json, item_text_is_the_item_object_verbatim)
{
    const char *item = " { \"Item\" :  {\"pk\": {\"S\":\"a\\u00e9\"} , \"n\":{\"N\":\"1.50\"}}  } ";
    const char *bare = "{\"pk\":{\"S\":\"b\"}}";
    const char *change = "{\"Keys\":{\"pk\":{\"S\":\"c\"}},\"NewImage\":{\"pk\":{\"S\":\"c\"}}}";
    ddb_map m;
    ddb_json_change ch;
    ddb_str t;

    cr_assert_eq(ddb_json_parse_line(p, DDB_JSON_LINE_ITEM, &m, NULL, item, strlen(item), a, &err),
                 0);
    t = ddb_json_parser_item_text(p);
    cr_assert_eq(t.len, strlen("{\"pk\": {\"S\":\"a\\u00e9\"} , \"n\":{\"N\":\"1.50\"}}"));
    cr_assert(memcmp(t.ptr, "{\"pk\": {\"S\":\"a\\u00e9\"} , \"n\":{\"N\":\"1.50\"}}", t.len) == 0);
    cr_assert_eq(ddb_json_parse_line(p, DDB_JSON_LINE_BARE, &m, NULL, bare, strlen(bare), a, &err),
                 0);
    t = ddb_json_parser_item_text(p);
    cr_assert(t.ptr == bare && t.len == strlen(bare));
    cr_assert_eq(
        ddb_json_parse_line(p, DDB_JSON_LINE_CHANGE, NULL, &ch, change, strlen(change), a, &err),
        0);
    cr_assert_null(ddb_json_parser_item_text(p).ptr);
}

Test(json, string_writer_escapes_control_characters)
{
    ddb_buf b = DDB_BUF_INIT;
    ddb_json_put_string(&b, "a\"b\\c\n\x01\x1f\x7f/", 10);
    cr_assert_str_eq(b.ptr, "\"a\\\"b\\\\c\\n\\u0001\\u001f\x7f/\"");
    ddb_buf_dispose(&b);
}

/* Long strings are escaped a chunk at a time: every byte of every kind, at
 * every position around the chunk edges, comes out as the one-byte-at-a-time
 * rules say. */
Test(json, string_writer_long_strings_across_chunks)
{
    static const char *esc[256];
    char in[9000], want[9000 * 6 + 3], u[8];
    ddb_buf b = DDB_BUF_INIT;
    size_t w = 0;
    for (int c = 0; c < 256; c++)
        esc[c] = NULL;
    esc['"'] = "\\\"";
    esc['\\'] = "\\\\";
    esc['\n'] = "\\n";
    esc['\r'] = "\\r";
    esc['\t'] = "\\t";
    esc['\b'] = "\\b";
    esc['\f'] = "\\f";
    want[w++] = '"';
    for (size_t i = 0; i < sizeof(in); i++) {
        unsigned char c = (unsigned char)((i * 37 + i / 7) % 256);
        in[i] = (char)c;
        if (esc[c]) {
            memcpy(want + w, esc[c], strlen(esc[c]));
            w += strlen(esc[c]);
        } else if (c < 0x20) {
            snprintf(u, sizeof(u), "\\u%04x", c);
            memcpy(want + w, u, 6);
            w += 6;
        } else {
            want[w++] = (char)c;
        }
    }
    want[w++] = '"';
    want[w] = '\0';
    cr_assert_eq(ddb_json_put_string(&b, in, sizeof(in)), 0);
    cr_assert_eq(b.len, w);
    cr_assert_str_eq(b.ptr, want);
    ddb_buf_dispose(&b);
}

/* The reference rules, one byte at a time. */
static size_t escape_ref(char *out, const unsigned char *in, size_t n)
{
    size_t w = 0;
    out[w++] = '"';
    for (size_t i = 0; i < n; i++) {
        unsigned char c = in[i];
        const char *e = c == '"'    ? "\\\""
                        : c == '\\' ? "\\\\"
                        : c == '\n' ? "\\n"
                        : c == '\r' ? "\\r"
                        : c == '\t' ? "\\t"
                        : c == '\b' ? "\\b"
                        : c == '\f' ? "\\f"
                                    : NULL;
        if (e != NULL) {
            memcpy(out + w, e, strlen(e));
            w += strlen(e);
        } else if (c < 0x20) {
            w += (size_t)sprintf(out + w, "\\u%04x", c);
        } else {
            out[w++] = (char)c;
        }
    }
    out[w++] = '"';
    out[w] = '\0';
    return w;
}

/* Plain text is copied sixteen and eight bytes a step: one byte needing an
 * escape (or a high byte, or DEL, which need none) at every offset of strings
 * of every length up to 48, alone and inside a string long enough to be
 * written in chunks, comes out as the one-byte rules say. */
Test(json, string_writer_one_special_at_every_offset)
{
    static const unsigned char specials[] = {'"', '\\', '\n', 0x01, 0x1f, 0x7f, 0x80, 0xff, ' '};
    static unsigned char in[5200];
    static char want[5200 * 6 + 3];
    ddb_buf b = DDB_BUF_INIT;
    for (size_t len = 1; len <= 48; len++) {
        for (size_t at = 0; at < len; at++) {
            for (size_t k = 0; k < sizeof(specials); k++) {
                for (int longer = 0; longer <= 1; longer++) {
                    size_t n = longer ? 5100 + len : len, off = longer ? 5100 : 0, w;
                    /* bytes that differ, so a copy from the wrong place shows */
                    for (size_t i = 0; i < n; i++)
                        in[i] = (unsigned char)('a' + i % 26);
                    in[off + at] = specials[k];
                    w = escape_ref(want, in, n);
                    ddb_buf_clear(&b);
                    cr_assert_eq(ddb_json_put_string(&b, (const char *)in, n), 0);
                    cr_assert_eq(b.len, w, "0x%02x at %zu of %zu", specials[k], at, n);
                    cr_assert_str_eq(b.ptr, want, "0x%02x at %zu of %zu", specials[k], at, n);
                }
            }
        }
    }
    ddb_buf_dispose(&b);
}

Test(json, plain_writer_gives_binary_as_base64_and_sets_as_arrays)
{
    ddb_map m = parse_map(
        "{\"b\":{\"B\":\"AAEC\"},\"ss\":{\"SS\":[\"x\"]},\"ns\":{\"NS\":[\"+5\",\"1e3\"]}}");
    ddb_buf b = DDB_BUF_INIT;
    ddb_json_put_plain_map(&b, &m);
    cr_assert_str_eq(b.ptr, "{\"b\":\"AAEC\",\"ss\":[\"x\"],\"ns\":[5,1e3]}");
    ddb_buf_dispose(&b);
}

/* ASCII is checked eight bytes at a time: a bad byte or a valid multibyte
 * character is found at any offset, and bad_at points at the bad byte. */
Test(json, utf8_check_finds_every_offset)
{
    char s[41];
    for (size_t at = 0; at < 38; at++) {
        size_t bad = 0;
        memset(s, 'a', 40);
        s[40] = '\0';
        s[at] = (char)0xff;
        cr_assert_not(ddb_utf8_valid(s, 40, &bad), "0xff at %zu passed", at);
        cr_assert_eq(bad, at);
        memcpy(s + at, "\xe2\x82\xac", 3); /* the euro sign */
        cr_assert(ddb_utf8_valid(s, 40, NULL), "euro at %zu refused", at);
        cr_assert_not(ddb_utf8_valid(s, at + 2, &bad), "cut euro at %zu passed", at);
    }
}
