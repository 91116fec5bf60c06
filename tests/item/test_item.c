#include <criterion/criterion.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/error.h"
#include "ddbpipe/item.h"
#include "ddbpipe/value.h"
#include "core/item_internal.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static ddb_value S(const char *s)
{
    return ddb_value_str(DDB_TYPE_S, s, strlen(s));
}

static ddb_value N(const char *s)
{
    return ddb_value_str(DDB_TYPE_N, s, strlen(s));
}

static ddb_value B(const char *p, size_t n)
{
    return ddb_value_str(DDB_TYPE_B, p, n);
}

static ddb_attr A(const char *name, ddb_value v)
{
    ddb_attr a;
    a.name.ptr = name;
    a.name.len = strlen(name);
    a.value = v;
    return a;
}

static ddb_value M(ddb_attr *attrs, size_t n)
{
    ddb_value v;
    memset(&v, 0, sizeof(v));
    v.type = DDB_TYPE_M;
    v.u.m.attrs = attrs;
    v.u.m.count = n;
    return v;
}

static ddb_value L(ddb_type t, ddb_value *items, size_t n)
{
    ddb_value v;
    memset(&v, 0, sizeof(v));
    v.type = t;
    v.u.l.items = items;
    v.u.l.count = n;
    return v;
}

static ddb_item ITEM(ddb_attr *attrs, size_t n)
{
    ddb_item it = {attrs, n};
    return it;
}

/* ---- sizes ---------------------------------------------------------------- */

Test(item_size, scalars_and_multibyte_utf8)
{
    ddb_attr attrs[] = {
        A("id", S("abc")),                              /* 2 + 3 = 5 */
        A("n\xC3\xA9v", S("\xE6\x97\xA5\xE6\x9C\xAC")), /* "név" 4 + "日本" 6 = 10 */
        A("n", N("12345")),                             /* 1 + (1 + 3) = 5 */
        A("z", N("-0.0012300")),                        /* 1 + (1 + 2) = 4 */
        A("b", B("\x00\x01\x02", 3)),                   /* 1 + 3 = 4 */
        A("t", ddb_value_bool(1)),                      /* 1 + 1 = 2 */
        A("nul", ddb_value_null()),                     /* 3 + 1 = 4 */
    };
    ddb_item it = ITEM(attrs, COUNT(attrs));
    size_t size = 0;

    cr_assert_eq(ddb_value_size(&attrs[1].value), 6);
    cr_assert_eq(ddb_value_size(&attrs[2].value), 4);
    cr_assert_eq(ddb_value_size(&attrs[3].value), 3);
    cr_assert_eq(ddb_item_size(&it), 34);
    cr_assert_eq(ddb_item_validate(&it, NULL, &size, NULL), 0);
    cr_assert_eq(size, 34);
}

Test(item_size, list_and_nested_map)
{
    ddb_value list_items[] = {S("xy"), N("1"), ddb_value_bool(0)};
    ddb_attr inner[] = {A("c", ddb_value_null())};
    ddb_attr outer[] = {A("a", S("hi")), A("bb", M(inner, 1))};
    ddb_attr attrs[] = {
        /* 1 + (3 + 3 elements + 2 + 2 + 1) = 12 */
        A("l", L(DDB_TYPE_L, list_items, 3)),
        /* inner {c: NULL} = 3 + (1 + 1 + 1) = 6; outer = 3 + (1 + 1 + 2) + (1 + 2 + 6) = 16 */
        A("m", M(outer, 2)), A("e", M(NULL, 0)), /* 1 + 3 */
        A("f", L(DDB_TYPE_L, NULL, 0)),          /* 1 + 3 */
    };
    ddb_item it = ITEM(attrs, COUNT(attrs));
    size_t size = 0;

    cr_assert_eq(ddb_value_size(&attrs[0].value), 11);
    cr_assert_eq(ddb_value_size(&attrs[1].value.u.m.attrs[1].value), 6);
    cr_assert_eq(ddb_value_size(&attrs[1].value), 16);
    cr_assert_eq(ddb_item_size(&it), 12 + 17 + 4 + 4);
    cr_assert_eq(ddb_item_validate(&it, NULL, &size, NULL), 0);
    cr_assert_eq(size, 37);
}

Test(item_size, sets_have_no_overhead)
{
    ddb_value ss[] = {S("a"), S("bcd"), S("")};
    ddb_value ns[] = {N("1"), N("100"), N("12345")};
    ddb_value bs[] = {B("\xff\xfe\xfd", 3), B("", 0)};
    ddb_attr attrs[] = {
        A("ss", L(DDB_TYPE_SS, ss, 3)), /* 2 + 4 */
        A("ns", L(DDB_TYPE_NS, ns, 3)), /* 2 + (2 + 2 + 4) */
        A("bs", L(DDB_TYPE_BS, bs, 2)), /* 2 + 3 */
    };
    ddb_item it = ITEM(attrs, COUNT(attrs));
    size_t size = 0;

    cr_assert_eq(ddb_value_size(&attrs[0].value), 4);
    cr_assert_eq(ddb_value_size(&attrs[1].value), 8);
    cr_assert_eq(ddb_value_size(&attrs[2].value), 3);
    cr_assert_eq(ddb_item_validate(&it, NULL, &size, NULL), 0);
    cr_assert_eq(size, 6 + 10 + 5);
    cr_assert_eq(ddb_item_size(&it), 21);
}

/* pk = "x" (3 bytes with its name) + "d" binary of dlen bytes (1 + dlen) */
static int validate_sized(size_t dlen, size_t *size, ddb_error *err)
{
    char *data = calloc(dlen ? dlen : 1, 1);
    ddb_attr attrs[2];
    ddb_item it;
    int rc;

    cr_assert_not_null(data);
    attrs[0] = A("pk", S("x"));
    attrs[1] = A("d", B(data, dlen));
    it = ITEM(attrs, 2);
    rc = ddb_item_validate(&it, NULL, size, err);
    free(data);
    return rc;
}

Test(item_size, limit_400kb_exact_boundary)
{
    ddb_error err = {0};
    size_t size = 0;

    cr_assert_eq(validate_sized(409596, &size, &err), 0, "%s", err.message);
    cr_assert_eq(size, 409600);
    cr_assert_eq(validate_sized(409597, &size, &err), DDB_ETOOBIG);
    cr_assert_eq(size, 409601);
    cr_assert(strncmp(err.message, "item size 409601 bytes exceeds 400 KB", 37) == 0, "%s",
              err.message);
}

/* ---- sets ----------------------------------------------------------------- */

static int check(ddb_value v, const char *path, ddb_error *err)
{
    ddb_error_clear(err);
    return ddb_value_validate(&v, path, err);
}

Test(item_sets, duplicate_string_member)
{
    ddb_value ss[] = {S("x"), S("y"), S("x")};
    ddb_error err;

    cr_assert_eq(check(L(DDB_TYPE_SS, ss, 3), "tags", &err), DDB_EINVAL);
    cr_assert_str_eq(err.message, "attribute 'tags': string set has duplicate member 'x'");
    cr_assert_eq(check(L(DDB_TYPE_SS, ss, 2), "tags", &err), 0);
}

Test(item_sets, duplicate_numbers_compared_numerically)
{
    ddb_value ns[] = {N("1"), N("2"), N("1.00")};
    ddb_value zeros[] = {N("-0"), N("0E5")};
    ddb_value distinct[] = {N("1"), N("1.5"), N("-1"), N("10"), N("0.1"), N("0")};
    ddb_error err;

    cr_assert_eq(check(L(DDB_TYPE_NS, ns, 3), "nums", &err), DDB_EINVAL);
    cr_assert_str_eq(
        err.message,
        "attribute 'nums': number set has duplicate member '1.00' (same value as '1')");
    cr_assert_eq(check(L(DDB_TYPE_NS, zeros, 2), "nums", &err), DDB_EINVAL);
    cr_assert_eq(check(L(DDB_TYPE_NS, distinct, COUNT(distinct)), "nums", &err), 0, "%s",
                 err.message);
}

Test(item_sets, duplicate_binary_member)
{
    ddb_value bs[] = {B("\x00\x01", 2), B("\x00\x02", 2), B("\x00\x01", 2)};
    ddb_value ok[] = {B("\x00\x01", 2), B("\x00", 1), B("", 0)};
    ddb_error err;

    cr_assert_eq(check(L(DDB_TYPE_BS, bs, 3), "bin", &err), DDB_EINVAL);
    cr_assert_str_eq(err.message, "attribute 'bin': binary set has duplicate member 'AAE='");
    cr_assert_eq(check(L(DDB_TYPE_BS, ok, 3), "bin", &err), 0, "%s", err.message);
}

Test(item_sets, empty_and_mixed_sets_rejected)
{
    ddb_value mixed[] = {S("a"), N("1")};
    ddb_value bad_n[] = {N("1"), N("1e999")};
    ddb_value bad_s[] = {S("ok"), S("\xC3\x28")};
    ddb_error err;

    cr_assert_eq(check(L(DDB_TYPE_SS, NULL, 0), "s", &err), DDB_EINVAL);
    cr_assert_str_eq(err.message, "attribute 's': string set is empty");
    cr_assert_eq(check(L(DDB_TYPE_NS, NULL, 0), "s", &err), DDB_EINVAL);
    cr_assert_eq(check(L(DDB_TYPE_BS, NULL, 0), "s", &err), DDB_EINVAL);
    cr_assert_eq(check(L(DDB_TYPE_SS, mixed, 2), "s", &err), DDB_EINVAL);
    cr_assert_str_eq(err.message, "attribute 's': string set member 1 is N, expected S");
    cr_assert_eq(check(L(DDB_TYPE_NS, mixed, 2), "s", &err), DDB_EINVAL);
    cr_assert_eq(check(L(DDB_TYPE_NS, bad_n, 2), "s", &err), DDB_EINVAL);
    cr_assert(strstr(err.message, "attribute 's': number '1e999' is too large") != NULL, "%s",
              err.message);
    cr_assert_eq(check(L(DDB_TYPE_SS, bad_s, 2), "s", &err), DDB_EINVAL);
    cr_assert(strstr(err.message, "not valid UTF-8") != NULL, "%s", err.message);
}

Test(item_sets, large_sets_use_hashing_and_still_find_duplicates)
{
    enum { NS_COUNT = 100, SS_COUNT = 5000 };
    static char texts[SS_COUNT][16];
    static ddb_value members[SS_COUNT];
    ddb_error err;

    for (int i = 0; i < SS_COUNT; i++) {
        snprintf(texts[i], sizeof(texts[i]), "m%d", i);
        members[i] = S(texts[i]);
    }
    cr_assert_eq(check(L(DDB_TYPE_SS, members, SS_COUNT), "big", &err), 0, "%s", err.message);
    members[SS_COUNT - 1] = S("m17");
    cr_assert_eq(check(L(DDB_TYPE_SS, members, SS_COUNT), "big", &err), DDB_EINVAL);
    cr_assert_str_eq(err.message, "attribute 'big': string set has duplicate member 'm17'");

    for (int i = 0; i < NS_COUNT; i++) {
        snprintf(texts[i], sizeof(texts[i]), "%d", i * 3);
        members[i] = N(texts[i]);
    }
    cr_assert_eq(check(L(DDB_TYPE_NS, members, NS_COUNT), "big", &err), 0, "%s", err.message);
    members[NS_COUNT - 1] = N("1.5E1"); /* == 15 == member 5 */
    cr_assert_eq(check(L(DDB_TYPE_NS, members, NS_COUNT), "big", &err), DDB_EINVAL);
    cr_assert(strstr(err.message, "duplicate member '1.5E1' (same value as '15')") != NULL, "%s",
              err.message);
}

/* ---- nesting -------------------------------------------------------------- */

/* levels maps (or lists) wrapped around a scalar: the scalar is at level + 1. */
static ddb_value deep(ddb_type kind, int wraps, ddb_value *vals, ddb_attr *attrs)
{
    vals[0] = S("leaf");
    for (int i = 1; i <= wraps; i++) {
        if (kind == DDB_TYPE_M) {
            attrs[i] = A("b", vals[i - 1]);
            vals[i] = M(&attrs[i], 1);
        } else {
            vals[i] = L(DDB_TYPE_L, &vals[i - 1], 1);
        }
    }
    return vals[wraps];
}

Test(item_depth, maps_32_levels_accepted_33_rejected)
{
    ddb_value vals[40];
    ddb_attr attrs[40], top[2];
    ddb_item it;
    ddb_error err = {0};
    char expect[256];

    /* 31 maps + scalar = 32 levels */
    top[0] = A("pk", S("k"));
    top[1] = A("a", deep(DDB_TYPE_M, 31, vals, attrs));
    it = ITEM(top, 2);
    cr_assert_eq(ddb_item_validate(&it, NULL, NULL, &err), 0, "%s", err.message);

    /* 32 maps + scalar = 33 levels */
    top[1] = A("a", deep(DDB_TYPE_M, 32, vals, attrs));
    it = ITEM(top, 2);
    cr_assert_eq(ddb_item_validate(&it, NULL, NULL, &err), DDB_EINVAL);
    strcpy(expect, "attribute 'a");
    for (int i = 0; i < 32; i++)
        strcat(expect, ".b");
    strcat(expect, "': nesting deeper than 32 levels");
    cr_assert_str_eq(err.message, expect);

    /* an empty map at level 32 is still level 32 */
    vals[0] = M(NULL, 0);
    for (int i = 1; i <= 31; i++) {
        attrs[i] = A("b", vals[i - 1]);
        vals[i] = M(&attrs[i], 1);
    }
    top[1] = A("a", vals[31]);
    it = ITEM(top, 2);
    cr_assert_eq(ddb_item_validate(&it, NULL, NULL, &err), 0, "%s", err.message);
}

Test(item_depth, lists_32_levels_accepted_33_rejected)
{
    ddb_value vals[40];
    ddb_error err = {0};
    char expect[256];

    cr_assert_eq(check(deep(DDB_TYPE_L, 31, vals, NULL), "a", &err), 0, "%s", err.message);
    cr_assert_eq(check(deep(DDB_TYPE_L, 32, vals, NULL), "a", &err), DDB_EINVAL);
    strcpy(expect, "attribute 'a");
    for (int i = 0; i < 32; i++)
        strcat(expect, "[0]");
    strcat(expect, "': nesting deeper than 32 levels");
    cr_assert_str_eq(err.message, expect);
}

Test(item_depth, sets_do_not_add_a_level)
{
    ddb_value vals[40];
    ddb_value ss[] = {S("x")};
    ddb_error err = {0};

    /* 31 lists around a string set: the set is at level 32 */
    deep(DDB_TYPE_L, 31, vals, NULL);
    vals[0] = L(DDB_TYPE_SS, ss, 1);
    cr_assert_eq(check(vals[31], "a", &err), 0, "%s", err.message);
}

/* ---- maps and values ------------------------------------------------------ */

Test(item_values, duplicate_map_names)
{
    ddb_attr inner[] = {A("a", S("1")), A("b", S("2")), A("a", S("3"))};
    ddb_attr top[] = {A("m", M(inner, 3))};
    ddb_attr dup_top[] = {A("x", S("1")), A("y", S("2")), A("x", N("3"))};
    ddb_item it = ITEM(top, 1);
    ddb_error err = {0};

    cr_assert_eq(ddb_item_validate(&it, NULL, NULL, &err), DDB_EINVAL);
    cr_assert_str_eq(err.message, "attribute 'm': map has duplicate attribute name 'a'");
    it = ITEM(dup_top, 3);
    cr_assert_eq(ddb_item_validate(&it, NULL, NULL, &err), DDB_EINVAL);
    cr_assert_str_eq(err.message, "duplicate attribute name 'x'");
}

Test(item_values, ten_thousand_attribute_map)
{
    enum { COUNT_ATTRS = 10000 };
    static char names[COUNT_ATTRS][16];
    static ddb_attr attrs[COUNT_ATTRS];
    ddb_attr top[1];
    ddb_item it;
    ddb_error err = {0};
    size_t size = 0;

    for (int i = 0; i < COUNT_ATTRS; i++) {
        snprintf(names[i], sizeof(names[i]), "attr%05d", i);
        attrs[i] = A(names[i], ddb_value_bool(1));
    }
    top[0] = A("m", M(attrs, COUNT_ATTRS));
    it = ITEM(top, 1);
    cr_assert_eq(ddb_item_validate(&it, NULL, &size, &err), 0, "%s", err.message);
    /* 1 + 3 + 10000 * (1 + 9 + 1) */
    cr_assert_eq(size, 1 + 3 + COUNT_ATTRS * 11);

    /* the same as a top-level item */
    it = ITEM(attrs, COUNT_ATTRS);
    cr_assert_eq(ddb_item_validate(&it, NULL, NULL, &err), 0, "%s", err.message);
    attrs[COUNT_ATTRS - 1].name = attrs[4242].name;
    cr_assert_eq(ddb_item_validate(&it, NULL, NULL, &err), DDB_EINVAL);
    cr_assert_str_eq(err.message, "duplicate attribute name 'attr04242'");
}

Test(item_values, invalid_scalars_name_their_path)
{
    ddb_value list_items[] = {S("ok"), S("\xC3\x28")};
    ddb_attr inner[] = {A("n", N("1..2"))};
    ddb_attr top[] = {A("l", L(DDB_TYPE_L, list_items, 2))};
    ddb_attr top2[] = {A("m", M(inner, 1))};
    ddb_item it = ITEM(top, 1);
    ddb_error err = {0};

    cr_assert_eq(ddb_item_validate(&it, NULL, NULL, &err), DDB_EINVAL);
    cr_assert_str_eq(err.message, "attribute 'l[1]': string is not valid UTF-8 (byte 0)");
    it = ITEM(top2, 1);
    cr_assert_eq(ddb_item_validate(&it, NULL, NULL, &err), DDB_EINVAL);
    cr_assert_str_eq(err.message,
                     "attribute 'm.n': not a number: '1..2' (unexpected '.' at offset 2)");
    /* NULL err is allowed */
    cr_assert_eq(ddb_item_validate(&it, NULL, NULL, NULL), DDB_EINVAL);
    /* UTF-8 error found after a long ASCII run (word-at-a-time path) */
    cr_assert_eq(check(S("abcdefghijklmnopqrstuvwxyz\xE2\x82"), "s", &err), DDB_EINVAL);
    cr_assert_str_eq(err.message, "attribute 's': string is not valid UTF-8 (byte 26)");
    cr_assert_eq(check(S("abcdefghijklmnopqrstuvwxyz\xE2\x82\xAC"), "s", &err), 0);
    cr_assert_eq(check(S(""), "s", &err), 0);
}

Test(item_values, attribute_names)
{
    ddb_attr empty[] = {A("", S("x"))};
    ddb_attr bad[] = {A("ok", S("x")), A("\xFF", S("x"))};
    ddb_attr nested_empty[] = {A("", S("x"))};
    ddb_attr top[] = {A("m", M(nested_empty, 1))};
    ddb_item it = ITEM(empty, 1);
    ddb_error err = {0};

    cr_assert_eq(ddb_item_validate(&it, NULL, NULL, &err), DDB_EINVAL);
    cr_assert(strstr(err.message, "empty name") != NULL, "%s", err.message);
    it = ITEM(bad, 2);
    cr_assert_eq(ddb_item_validate(&it, NULL, NULL, &err), DDB_EINVAL);
    cr_assert(strstr(err.message, "not valid UTF-8") != NULL, "%s", err.message);
    it = ITEM(top, 1);
    cr_assert_eq(ddb_item_validate(&it, NULL, NULL, &err), 0, "%s", err.message);
}

/* ---- keys ----------------------------------------------------------------- */

static const ddb_key_attr gsi_pk[] = {{"gpk", DDB_TYPE_S}};
static const ddb_key_attr gsi_sk[] = {{"gsk", DDB_TYPE_N}, {"lsk", DDB_TYPE_B}};

static ddb_key_schema schema(void)
{
    ddb_key_schema ks;
    memset(&ks, 0, sizeof(ks));
    ks.partition.name = "pk";
    ks.partition.type = DDB_TYPE_S;
    ks.sort.name = "sk";
    ks.sort.type = DDB_TYPE_S;
    ks.index_pk = gsi_pk;
    ks.n_index_pk = 1;
    ks.index_sk = gsi_sk;
    ks.n_index_sk = 2;
    return ks;
}

static int validate_keys(size_t pk_len, size_t sk_len, ddb_error *err)
{
    char *pk = malloc(pk_len + 1), *sk = malloc(sk_len + 1);
    ddb_attr attrs[3];
    ddb_key_schema ks = schema();
    ddb_item it;
    int rc;

    memset(pk, 'p', pk_len);
    memset(sk, 's', sk_len);
    attrs[0] = A("pk", ddb_value_str(DDB_TYPE_S, pk, pk_len));
    attrs[1] = A("sk", ddb_value_str(DDB_TYPE_S, sk, sk_len));
    attrs[2] = A("other", S("v"));
    it = ITEM(attrs, 3);
    ddb_error_clear(err);
    rc = ddb_item_validate(&it, &ks, NULL, err);
    cr_assert_eq(ddb_item_validate_key(&it, &ks, NULL), rc);
    free(pk);
    free(sk);
    return rc;
}

Test(item_keys, partition_and_sort_key_boundaries)
{
    ddb_error err;

    cr_assert_eq(validate_keys(2048, 1024, &err), 0, "%s", err.message);
    cr_assert_eq(validate_keys(2049, 1, &err), DDB_ETOOBIG);
    cr_assert_str_eq(err.message, "partition key 'pk' is 2049 bytes (max 2048)");
    cr_assert_eq(validate_keys(1, 1025, &err), DDB_ETOOBIG);
    cr_assert_str_eq(err.message, "sort key 'sk' is 1025 bytes (max 1024)");
    cr_assert_eq(validate_keys(0, 1, &err), DDB_EINVAL);
    cr_assert_str_eq(err.message, "partition key 'pk' is empty");
    cr_assert_eq(validate_keys(1, 0, &err), DDB_EINVAL);
    cr_assert_str_eq(err.message, "sort key 'sk' is empty");
}

Test(item_keys, key_size_counts_utf8_bytes)
{
    /* 512 two-byte characters = 1024 bytes: ok; one more byte: too big */
    char sk[1026];
    ddb_attr attrs[2];
    ddb_key_schema ks = schema();
    ddb_item it;
    ddb_error err = {0};

    for (int i = 0; i < 512; i++) {
        sk[2 * i] = (char)0xC3;
        sk[2 * i + 1] = (char)0xA9;
    }
    attrs[0] = A("pk", S("p"));
    attrs[1] = A("sk", ddb_value_str(DDB_TYPE_S, sk, 1024));
    it = ITEM(attrs, 2);
    cr_assert_eq(ddb_item_validate(&it, &ks, NULL, &err), 0, "%s", err.message);
    sk[1024] = 'x';
    attrs[1] = A("sk", ddb_value_str(DDB_TYPE_S, sk, 1025));
    cr_assert_eq(ddb_item_validate(&it, &ks, NULL, &err), DDB_ETOOBIG);
}

Test(item_keys, binary_and_number_keys)
{
    char *buf = calloc(2049, 1);
    ddb_attr attrs[1];
    ddb_key_schema ks;
    ddb_item it = ITEM(attrs, 1);
    ddb_error err = {0};

    memset(&ks, 0, sizeof(ks));
    ks.partition.name = "id";
    ks.partition.type = DDB_TYPE_B;
    attrs[0] = A("id", B(buf, 2048));
    cr_assert_eq(ddb_item_validate(&it, &ks, NULL, &err), 0, "%s", err.message);
    attrs[0] = A("id", B(buf, 2049));
    cr_assert_eq(ddb_item_validate(&it, &ks, NULL, &err), DDB_ETOOBIG);
    cr_assert_str_eq(err.message, "partition key 'id' is 2049 bytes (max 2048)");
    attrs[0] = A("id", B(buf, 0));
    cr_assert_eq(ddb_item_validate(&it, &ks, NULL, &err), DDB_EINVAL);
    free(buf);

    ks.partition.type = DDB_TYPE_N;
    attrs[0] = A("id", N("0"));
    cr_assert_eq(ddb_item_validate(&it, &ks, NULL, &err), 0, "%s", err.message);
    attrs[0] = A("id", N("12abc"));
    cr_assert_eq(ddb_item_validate_key(&it, &ks, &err), DDB_EINVAL);
    cr_assert(strncmp(err.message, "partition key 'id': not a number: '12abc'", 41) == 0, "%s",
              err.message);
    attrs[0] = A("id", S("12"));
    cr_assert_eq(ddb_item_validate_key(&it, &ks, &err), DDB_EINVAL);
    cr_assert_str_eq(err.message, "partition key 'id' must be N, got S");
}

Test(item_keys, missing_keys)
{
    ddb_attr attrs[] = {A("pk", S("p")), A("x", S("v"))};
    ddb_key_schema ks = schema();
    ddb_item it = ITEM(attrs, 2);
    ddb_error err = {0};

    cr_assert_eq(ddb_item_validate(&it, &ks, NULL, &err), DDB_EINVAL);
    cr_assert_str_eq(err.message, "missing sort key 'sk'");
    cr_assert_eq(ddb_item_validate_key(&it, &ks, &err), DDB_EINVAL);
    it = ITEM(attrs + 1, 1);
    cr_assert_eq(ddb_item_validate(&it, &ks, NULL, &err), DDB_EINVAL);
    cr_assert_str_eq(err.message, "missing partition key 'pk'");
    /* no schema: keys not checked */
    cr_assert_eq(ddb_item_validate(&it, NULL, NULL, &err), 0);
    ks.partition.name = NULL;
    cr_assert_eq(ddb_item_validate(&it, &ks, NULL, &err), 0);
    cr_assert_eq(ddb_item_validate_key(&it, &ks, &err), 0);
}

Test(item_keys, index_keys_optional_but_checked_when_present)
{
    char *big = malloc(2049);
    ddb_attr attrs[3];
    ddb_key_schema ks = schema();
    ddb_item it = ITEM(attrs, 3);
    ddb_error err = {0};

    memset(big, 'g', 2049);
    attrs[0] = A("pk", S("p"));
    attrs[1] = A("sk", S("s"));

    /* sparse index: absent is fine */
    it = ITEM(attrs, 2);
    cr_assert_eq(ddb_item_validate(&it, &ks, NULL, &err), 0, "%s", err.message);

    it = ITEM(attrs, 3);
    attrs[2] = A("gpk", ddb_value_str(DDB_TYPE_S, big, 2048));
    cr_assert_eq(ddb_item_validate(&it, &ks, NULL, &err), 0, "%s", err.message);
    attrs[2] = A("gpk", ddb_value_str(DDB_TYPE_S, big, 2049));
    cr_assert_eq(ddb_item_validate(&it, &ks, NULL, &err), DDB_ETOOBIG);
    cr_assert_str_eq(err.message, "index partition key 'gpk' is 2049 bytes (max 2048)");
    attrs[2] = A("gpk", S(""));
    cr_assert_eq(ddb_item_validate(&it, &ks, NULL, &err), DDB_EINVAL);
    cr_assert_str_eq(err.message, "index partition key 'gpk' is empty");
    attrs[2] = A("gpk", N("1"));
    cr_assert_eq(ddb_item_validate(&it, &ks, NULL, &err), DDB_EINVAL);
    cr_assert_str_eq(err.message, "index partition key 'gpk' must be S, got N");

    attrs[2] = A("gsk", S("1"));
    cr_assert_eq(ddb_item_validate(&it, &ks, NULL, &err), DDB_EINVAL);
    cr_assert_str_eq(err.message, "index sort key 'gsk' must be N, got S");
    attrs[2] = A("lsk", B(big, 1024));
    cr_assert_eq(ddb_item_validate(&it, &ks, NULL, &err), 0, "%s", err.message);
    attrs[2] = A("lsk", B(big, 1025));
    cr_assert_eq(ddb_item_validate(&it, &ks, NULL, &err), DDB_ETOOBIG);
    cr_assert_str_eq(err.message, "index sort key 'lsk' is 1025 bytes (max 1024)");

    /* key-only validation ignores index keys */
    cr_assert_eq(ddb_item_validate_key(&it, &ks, &err), 0, "%s", err.message);
    free(big);
}

Test(item_values, name_length_and_unnamed_root)
{
    char *name = malloc(65536);
    ddb_attr attrs[1];
    ddb_item it = ITEM(attrs, 1);
    ddb_error err = {0};

    memset(name, 'n', 65536);
    attrs[0].name.ptr = name;
    attrs[0].name.len = 65535;
    attrs[0].value = S("v");
    cr_assert_eq(ddb_item_validate(&it, NULL, NULL, &err), 0, "%s", err.message);
    attrs[0].name.len = 65536;
    cr_assert_eq(ddb_item_validate(&it, NULL, NULL, &err), DDB_EINVAL);
    cr_assert(strstr(err.message, "...' is 65536 bytes (max 65535)") != NULL, "%s", err.message);
    free(name);

    cr_assert_eq(check(N("abc"), NULL, &err), DDB_EINVAL);
    cr_assert_str_eq(err.message, "value: not a number: 'abc' (unexpected 'a' at offset 0)");
}

/* ---- items a parser checked as UTF-8 ---------------------------------------- */

/* The parser's UTF-8 check is taken for every name and string, nested ones
 * too (the JSON lexer checks each string it reads: json/test_json.c,
 * refuses_bad_utf8_at_every_depth): sizes, duplicates, numbers and keys are
 * still validated, and a valid item gets the same verdict and size either
 * way. */
#define IT(a) (&(ddb_item){a, COUNT(a)})

Test(item_parsed, trusts_the_parsers_utf8_check_at_every_depth)
{
    ddb_key_attr pk = {"pk", DDB_TYPE_S};
    ddb_key_schema ks;
    ddb_error err;
    size_t s1 = 0, s2 = 0;
    memset(&ks, 0, sizeof(ks));
    ks.partition = pk;

    ddb_attr ok[] = {A("pk", S("u1")), A("t", S("caf\xC3\xA9")), A("n", N("12.5"))};
    cr_assert_eq(ddb_item_validate(IT(ok), &ks, &s1, &err), 0);
    cr_assert_eq(ddb_item_validate_parsed(IT(ok), &ks, &s2, &err), 0);
    cr_assert_eq(s1, s2);

    ddb_attr bad_utf8[] = {A("pk", S("u1")), A("t", S("\xC3"))};
    cr_assert_eq(ddb_item_validate(IT(bad_utf8), &ks, NULL, &err), DDB_EINVAL);
    cr_assert_eq(ddb_item_validate_parsed(IT(bad_utf8), &ks, NULL, &err), 0);

    ddb_attr inner[] = {A("x", S("\xFF"))};
    ddb_attr nested[] = {A("pk", S("u1")), A("m", M(inner, 1))};
    cr_assert_eq(ddb_item_validate(IT(nested), &ks, NULL, &err), DDB_EINVAL);
    cr_assert_eq(ddb_item_validate_parsed(IT(nested), &ks, NULL, &err), 0);
    ddb_attr inner_name[] = {A("\xC3", S("x"))};
    ddb_attr nested_name[] = {A("pk", S("u1")), A("m", M(inner_name, 1))};
    cr_assert_eq(ddb_item_validate(IT(nested_name), &ks, NULL, &err), DDB_EINVAL);
    cr_assert_eq(ddb_item_validate_parsed(IT(nested_name), &ks, NULL, &err), 0);
    ddb_attr inner_dup[] = {A("x", S("1")), A("x", S("2"))};
    ddb_attr nested_dup[] = {A("pk", S("u1")), A("m", M(inner_dup, 2))};
    cr_assert_eq(ddb_item_validate_parsed(IT(nested_dup), &ks, NULL, &err), DDB_EINVAL);

    ddb_attr dup[] = {A("pk", S("u1")), A("a", S("1")), A("a", S("2"))};
    cr_assert_eq(ddb_item_validate_parsed(IT(dup), &ks, NULL, &err), DDB_EINVAL);

    ddb_attr badnum[] = {A("pk", S("u1")), A("n", N("1e999"))};
    cr_assert_eq(ddb_item_validate_parsed(IT(badnum), &ks, NULL, &err), DDB_EINVAL);

    ddb_attr nokey[] = {A("a", S("1"))};
    cr_assert_eq(ddb_item_validate_parsed(IT(nokey), &ks, NULL, &err), DDB_EINVAL);

    ddb_attr emptykey[] = {A("pk", S(""))};
    cr_assert_eq(ddb_item_validate_parsed(IT(emptykey), &ks, NULL, &err), DDB_EINVAL);
}

#define IT2(a, n) (&(ddb_item){a, n})

/* Names alike in length, first four bytes and last byte (the pairwise check's
 * signature) are told apart by their bytes; equal ones are found at every
 * distance, short and empty-prefixed names included. */
Test(item_values, duplicate_names_that_look_alike)
{
    static const char *const names[] = {"gsiOnePk", "gsiOneSk", "gsiOneXk", "gsiTwoPk", "a",
                                        "ab",       "abc",      "abcd",     "abcde",    "b"};
    const size_t n = COUNT(names);
    ddb_error err = {0};
    ddb_attr attrs[16];

    for (size_t i = 0; i < n; i++)
        attrs[i] = A(names[i], S("v"));
    cr_assert_eq(ddb_item_validate(IT2(attrs, n), NULL, NULL, &err), 0, "%s", err.message);
    for (size_t d = 0; d < n; d++) {
        for (size_t at = 0; at <= n; at++) {
            ddb_attr with[16];
            size_t k = 0;
            for (size_t i = 0; i < n; i++) {
                if (i == at)
                    with[k++] = A(names[d], S("again"));
                with[k++] = attrs[i];
            }
            if (at == n)
                with[k++] = A(names[d], S("again"));
            cr_assert_eq(ddb_item_validate(IT2(with, k), NULL, NULL, &err), DDB_EINVAL,
                         "%s twice not found", names[d]);
            cr_assert(strstr(err.message, "duplicate attribute name") != NULL, "%s", err.message);
        }
    }
}

/* A parsed item is checked without walk's frames until something is wrong:
 * the verdict, the message and the size are the full walk's, for clean
 * values of every type nested, for every kind of nested trouble, and at
 * the depth limit; a clean item never falls back to the full walk. */
Test(item, parsed_check_agrees_with_full_walk)
{
    static char long_name[65537], max_name[65536];
    ddb_value bool_v = {0}, null_v = {0}, bs_items[2] = {B("\x01", 1), B("\x02\x00", 2)};
    ddb_value ss_items[2] = {S("x"), S("y")}, ns_items[3] = {N("1"), N("2.50"), N("-3e2")};
    ddb_value inner[2] = {N("7"), S("in")}, two_a[2] = {S("a"), S("a")};
    ddb_value ns_same[2] = {N("1"), N("1.0")}, ss_mixed[2] = {S("x"), N("1")};
    ddb_value ok_list[3], dup_pair[1], num_big[1], dup_set[1], empty_set[1], bad_member[1];
    ddb_value deep_ok[DDB_MAX_DEPTH], deep_bad[DDB_MAX_DEPTH + 1], cases[16];
    ddb_attr m1[9], m2[1] = {A("", S("empty name"))}, maxn[1] = {A("x", S("v"))};
    ddb_attr dup[2] = {A("k", S("1")), A("k", S("2"))}, big[1] = {A("n", N("1e200"))};
    ddb_attr longn[1] = {A("x", S("v"))}, dup5[5];
    size_t n_clean, n_cases = 0;

    bool_v.type = DDB_TYPE_BOOL;
    null_v.type = DDB_TYPE_NULL;
    m1[0] = A("s", S("v"));
    m1[1] = A("n", N("12.5"));
    m1[2] = A("e", N("1.50e3"));
    m1[3] = A("b", B("\xff\x00", 2));
    m1[4] = A("t", bool_v);
    m1[5] = A("z", null_v);
    m1[6] = A("ss", L(DDB_TYPE_SS, ss_items, 2));
    m1[7] = A("bs", L(DDB_TYPE_BS, bs_items, 2));
    m1[8] = A("l", L(DDB_TYPE_L, inner, 2));
    memset(long_name, 'a', sizeof(long_name) - 1);
    memset(max_name, 'a', sizeof(max_name) - 1);
    longn[0].name.ptr = long_name;
    longn[0].name.len = sizeof(long_name) - 1;
    maxn[0].name.ptr = max_name;
    maxn[0].name.len = sizeof(max_name) - 1; /* 65535 bytes: the most a name may have */
    ok_list[0] = M(m1, 9);
    ok_list[1] = M(m2, 1);
    ok_list[2] = M(maxn, 1);
    /* the deepest value at depth 32, the limit, then at 33 */
    deep_ok[0] = S("bottom");
    for (size_t i = 1; i < COUNT(deep_ok); i++)
        deep_ok[i] = L(DDB_TYPE_L, &deep_ok[i - 1], 1);
    deep_bad[0] = S("bottom");
    for (size_t i = 1; i < COUNT(deep_bad); i++)
        deep_bad[i] = L(DDB_TYPE_L, &deep_bad[i - 1], 1);
    cases[n_cases++] = L(DDB_TYPE_L, ok_list, 3);
    cases[n_cases++] = L(DDB_TYPE_NS, ns_items, 3);
    cases[n_cases++] = deep_ok[COUNT(deep_ok) - 1];
    n_clean = n_cases;
    dup_pair[0] = M(dup, 2);
    cases[n_cases++] = L(DDB_TYPE_L, dup_pair, 1); /* a duplicate name */
    for (size_t i = 0; i < COUNT(dup5); i++)
        dup5[i] = A(i == 4 ? "a1" : i == 0 ? "a1" : i == 1 ? "b2" : i == 2 ? "c3" : "d4", S("v"));
    cases[n_cases++] = M(dup5, 5); /* one among five (another way to find it) */
    num_big[0] = M(big, 1);
    cases[n_cases++] = L(DDB_TYPE_L, num_big, 1); /* a number out of range */
    dup_set[0] = L(DDB_TYPE_SS, two_a, 2);
    cases[n_cases++] = L(DDB_TYPE_L, dup_set, 1);  /* a set's duplicate */
    cases[n_cases++] = L(DDB_TYPE_NS, ns_same, 2); /* equal numbers written apart */
    empty_set[0] = L(DDB_TYPE_BS, NULL, 0);
    cases[n_cases++] = L(DDB_TYPE_L, empty_set, 1); /* an empty set */
    bad_member[0] = L(DDB_TYPE_SS, ss_mixed, 2);
    cases[n_cases++] = L(DDB_TYPE_L, bad_member, 1);  /* a member of another type */
    cases[n_cases++] = M(longn, 1);                   /* a name too long */
    cases[n_cases++] = deep_bad[COUNT(deep_bad) - 1]; /* too deep by one */
    for (size_t i = 0; i < n_cases; i++) {
        ddb_attr attrs[3] = {A("pk", S("p")), A("v", cases[i]), A("t", bool_v)};
        ddb_item it = ITEM(attrs, 3);
        unsigned long worded = atomic_load(&ddb_item_walks_worded);
        ddb_error e1, e2;
        size_t s1 = 0, s2 = 0;
        int r1, r2;
        memset(&e1, 0, sizeof(e1));
        memset(&e2, 0, sizeof(e2));
        r1 = ddb_item_validate(&it, NULL, &s1, &e1);
        r2 = ddb_item_validate_parsed(&it, NULL, &s2, &e2);
        cr_assert_eq(r2, r1, "case %zu: %d, walk %d (%s)", i, r2, r1, e1.message);
        cr_assert_eq(r1 == 0, i < n_clean, "case %zu: %s", i, e1.message);
        if (r1 == 0) {
            cr_assert_eq(s2, s1, "case %zu: size %zu, walk %zu", i, s2, s1);
            cr_assert_eq(atomic_load(&ddb_item_walks_worded), worded,
                         "case %zu: a clean value went to the full walk", i);
        } else {
            cr_assert_str_eq(e2.message, e1.message, "case %zu", i);
        }
    }
}
