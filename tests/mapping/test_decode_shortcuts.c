/*
 * Decode takes shortcuts (transform_decode.c, behind ddb_decode_shortcuts):
 * it does not match an index key that is exactly the rendering of fields it
 * already knows (known_already), nor a key written as an earlier key is that
 * holds the same bytes (same_as); a table key whose fields are its own
 * captures comes back without rendering; an entity whose key begins with
 * another literal is passed over without a match. That must never change a
 * verdict, a message or a record, decoding an item or a key (a delete's):
 * every item the generator makes for
 * the shipped mappings, and variants of each with one index key changed (a
 * byte flipped, cut, grown, upper-cased, emptied, or given another field's
 * separator), is decoded with the shortcut and without, and both must agree.
 */
#include <criterion/criterion.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/generate.h"
#include "ddbpipe/mapping.h"
#include "ddbpipe/transform.h"
#include "support/testutil.h"
#include "transform/transform_internal.h"

/* rc, message and record text of decoding item, in out (a caller buffer);
 * then the same of decoding it as a key (a delete's), after " | ". */
static void decode_text(ddb_buf *out, const ddb_mapping *m, const ddb_item *item, ddb_arena *a)
{
    ddb_buf_clear(out);
    for (int keys_only = 0; keys_only <= 1; keys_only++) {
        ddb_decoded d;
        ddb_error err;
        int rc;
        ddb_error_clear(&err);
        rc = keys_only ? ddb_transform_decode_key(&d, m, item, a, &err)
                       : ddb_transform_decode(&d, m, item, a, &err);
        ddb_buf_printf(out, "%src=%d ", keys_only ? " | " : "", rc);
        if (rc != 0) {
            ddb_buf_puts(out, err.message);
            continue;
        }
        ddb_buf_printf(out, "%s %zu ", d.entity->name, d.n_declared);
        ddb_json_put_typed_map(out, &d.record);
    }
}

/* Both ways; returns whether the item decoded. */
static int agree(const ddb_mapping *m, const ddb_item *item, ddb_arena *a, size_t *ok)
{
    ddb_buf with = DDB_BUF_INIT, without = DDB_BUF_INIT;
    int decoded;
    ddb_decode_shortcuts = 1;
    decode_text(&with, m, item, a);
    ddb_decode_shortcuts = 0;
    decode_text(&without, m, item, a);
    ddb_decode_shortcuts = 1;
    if (strcmp(with.ptr, without.ptr) != 0) {
        ddb_buf it = DDB_BUF_INIT;
        ddb_json_put_typed_map(&it, item);
        cr_assert_fail("%s: %s\n  with the shortcut:    %s\n  without the shortcut: %s", m->path,
                       it.ptr, with.ptr, without.ptr);
    }
    decoded = strncmp(with.ptr, "rc=0 ", 5) == 0;
    *ok += (size_t)decoded;
    ddb_buf_dispose(&with);
    ddb_buf_dispose(&without);
    return decoded;
}

/* agree() on the item written as DynamoDB JSON text; 1 when it decoded. */
static int agree_json(const ddb_mapping *m, const char *text, ddb_arena *a, size_t *tried)
{
    ddb_map item = tu_item(a, text);
    return agree(m, &item, a, tried);
}

/* The item with attribute i's S value replaced by text (copied into a). */
static ddb_item with_value(const ddb_item *item, size_t i, const char *text, size_t len,
                           ddb_arena *a)
{
    ddb_item v = {ddb_arena_alloc(a, item->count * sizeof(ddb_attr)), item->count};
    memcpy(v.attrs, item->attrs, item->count * sizeof(ddb_attr));
    v.attrs[i].value = ddb_value_str(DDB_TYPE_S, ddb_arena_memdup(a, text, len), len);
    return v;
}

static int is_index_key(const ddb_mapping *m, const ddb_str *name)
{
    for (size_t e = 0; e < m->n_entities; e++)
        for (size_t k = 0; k < m->entities[e].n_keys; k++) {
            const ddb_template *t = &m->entities[e].keys[k];
            if (t->role != DDB_ROLE_PK && t->role != DDB_ROLE_SK && t->attr_len == name->len &&
                memcmp(t->attr, name->ptr, name->len) == 0)
                return 1;
        }
    return 0;
}

/* Generated items of every entity of m (and their changed index keys). */
static void check_loaded(ddb_mapping *m, const char *name, size_t *variants, size_t *decoded)
{
    uint64_t counts[64];
    ddb_generator *g;
    ddb_arena *a;
    ddb_error err;

    cr_assert(m->n_entities <= 64);
    for (size_t e = 0; e < m->n_entities; e++)
        counts[e] = 25;
    cr_assert_eq(ddb_generator_new(&g, m, counts, 7, &err), 0, "%s: %s", name, err.message);
    cr_assert_eq(ddb_arena_new(&a, 0), 0);
    for (size_t e = 0; e < m->n_entities; e++) {
        for (uint64_t j = 0; j < counts[e]; j++) {
            ddb_item item;
            ddb_arena_reset(a);
            cr_assert_eq(ddb_generator_record(g, e, j, NULL, &item, a, &err), 0, "%s", err.message);
            cr_assert(agree(m, &item, a, decoded), "%s: a generated item does not decode", name);
            for (size_t i = 0; i < item.count; i++) {
                const ddb_value *v = &item.attrs[i].value;
                char buf[512];
                size_t n;
                if (v->type != DDB_TYPE_S || !is_index_key(m, &item.attrs[i].name) ||
                    v->u.s.len + 2 > sizeof(buf))
                    continue;
                n = v->u.s.len;
                for (int how = 0; how < 7; how++) {
                    size_t len = n;
                    memcpy(buf, v->u.s.ptr, n);
                    switch (how) {
                    case 0: /* a byte flipped, first and last */
                        if (n == 0)
                            continue;
                        buf[n - 1] ^= 1;
                        break;
                    case 1:
                        if (n == 0)
                            continue;
                        buf[0] ^= 1;
                        break;
                    case 2: /* cut */
                        if (n == 0)
                            continue;
                        len = n - 1;
                        break;
                    case 3: /* grown */
                        buf[n] = '0';
                        len = n + 1;
                        break;
                    case 4: /* upper-cased (an enum's value for its key spelling) */
                        for (size_t k = 0; k < n; k++)
                            buf[k] = (char)toupper((unsigned char)buf[k]);
                        break;
                    case 5: /* emptied */
                        len = 0;
                        break;
                    case 6: /* a separator doubled */
                        if (memchr(buf, '#', n) == NULL)
                            continue;
                        memmove(strchr(buf, '#') + 1, strchr(buf, '#'),
                                n - (size_t)(strchr(buf, '#') - buf));
                        len = n + 1;
                        break;
                    }
                    {
                        ddb_item var = with_value(&item, i, buf, len, a);
                        agree(m, &var, a, decoded);
                        (*variants)++;
                    }
                }
            }
        }
    }
    ddb_generator_free(g);
    ddb_arena_free(a);
}

static void check_mapping(const char *name, size_t *variants, size_t *decoded)
{
    ddb_mapping *m = tu_load_format(name);
    check_loaded(m, name, variants, decoded);
    ddb_mapping_free(m);
}

Test(decode, shortcut_never_changes_a_verdict)
{
    static const char *const formats[] = {"favorites.json", "favorites-v2.json",
                                          "facility-capacity.json", "movies.json"};
    size_t variants = 0, decoded = 0;
    for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
        check_mapping(formats[i], &variants, &decoded);
    cr_assert_gt(variants, 500, "too few changed index keys tried (%zu)", variants);
    cr_assert_gt(decoded, 250, "%zu decoded", decoded);
}

/* Hand-written mappings whose index keys stress the shortcut: separators of
 * several bytes that overlap a value's end, a field in several keys, enum
 * key spellings, numbers written two ways, constant keys. */
/* A table with two GSIs, g1 (g1pk, g1sk) and g2 (g2pk, g2sk). */
#define TWO_GSI_TABLE                                                                              \
    "{\"table\": {\"name\": \"T\", \"partitionKey\": {\"name\": \"pk\", \"type\": \"S\"},"         \
    " \"sortKey\": {\"name\": \"sk\", \"type\": \"S\"}, \"indexes\": ["                            \
    " {\"name\": \"g1\", \"type\": \"GSI\", \"partitionKey\": {\"name\": \"g1pk\", \"type\": "     \
    "\"S\"},"                                                                                      \
    "  \"sortKey\": {\"name\": \"g1sk\", \"type\": \"S\"}, \"projection\": \"ALL\"},"              \
    " {\"name\": \"g2\", \"type\": \"GSI\", \"partitionKey\": {\"name\": \"g2pk\", \"type\": "     \
    "\"S\"},"                                                                                      \
    "  \"sortKey\": {\"name\": \"g2sk\", \"type\": \"S\"}, \"projection\": \"ALL\"}]},"

static const char shortcut_mapping[] = TWO_GSI_TABLE
    " \"entities\": [{\"name\": \"E\", \"keys\": {\"pk\": \"U#{id}\", \"sk\": \"META\","
    "  \"g1pk\": \"A#{x}#ORDER#{y}\", \"g1sk\": \"{x}##{n}\", \"g2pk\": \"{kind}-{n}-{x}\","
    "  \"g2sk\": \"CONST\"},"
    "  \"fields\": [{\"name\": \"id\", \"type\": \"S\"}, {\"name\": \"x\", \"type\": \"S\"},"
    "   {\"name\": \"y\", \"type\": \"S\"}, {\"name\": \"n\", \"type\": \"N\"},"
    "   {\"name\": \"kind\", \"type\": \"S\", \"enum\": {\"IMAGE\": \"image\", \"LINK\": "
    "\"link\"}}]}]}";

Test(decode, shortcut_agrees_on_hand_written_keys)
{
    static const char *const items[] = {
        /* the plain case */
        "{\"pk\":{\"S\":\"U#u1\"},\"sk\":{\"S\":\"META\"},\"x\":{\"S\":\"ab\"},\"y\":{\"S\":\"o1\"}"
        ","
        "\"n\":{\"N\":\"5\"},\"kind\":{\"S\":\"IMAGE\"},\"g1pk\":{\"S\":\"A#ab#ORDER#o1\"},"
        "\"g1sk\":{\"S\":\"ab##5\"},\"g2pk\":{\"S\":\"image-5-ab\"},\"g2sk\":{\"S\":\"CONST\"}}",
        /* x ends with the start of the separator #ORDER#: a match splits it elsewhere */
        "{\"pk\":{\"S\":\"U#u1\"},\"sk\":{\"S\":\"META\"},\"x\":{\"S\":\"x#ORDER\"},\"y\":{\"S\":"
        "\"o1\"},"
        "\"g1pk\":{\"S\":\"A#x#ORDER#ORDER#o1\"}}",
        /* x ends with '#', the separator is ## */
        "{\"pk\":{\"S\":\"U#u1\"},\"sk\":{\"S\":\"META\"},\"x\":{\"S\":\"ab#\"},\"n\":{\"N\":\"5\"}"
        ","
        "\"g1sk\":{\"S\":\"ab###5\"}}",
        /* the same, x known from another key only */
        "{\"pk\":{\"S\":\"U#u1\"},\"sk\":{\"S\":\"META\"},\"n\":{\"N\":\"5\"},"
        "\"g1pk\":{\"S\":\"A#ab##ORDER#o1\"},\"g1sk\":{\"S\":\"ab###5\"}}",
        /* numbers written two ways */
        "{\"pk\":{\"S\":\"U#u1\"},\"sk\":{\"S\":\"META\"},\"x\":{\"S\":\"ab\"},\"n\":{\"N\":\"1."
        "0\"},"
        "\"kind\":{\"S\":\"LINK\"},\"g2pk\":{\"S\":\"link-1-ab\"},\"g1sk\":{\"S\":\"ab##1.0\"}}",
        "{\"pk\":{\"S\":\"U#u1\"},\"sk\":{\"S\":\"META\"},\"x\":{\"S\":\"ab\"},\"n\":{\"N\":\"1\"},"
        "\"kind\":{\"S\":\"LINK\"},\"g2pk\":{\"S\":\"link-1.0-ab\"},\"g1sk\":{\"S\":\"ab##1\"}}",
        /* enum: the value's spelling in the key, and the key spelling stored */
        "{\"pk\":{\"S\":\"U#u1\"},\"sk\":{\"S\":\"META\"},\"x\":{\"S\":\"ab\"},\"n\":{\"N\":\"5\"},"
        "\"kind\":{\"S\":\"IMAGE\"},\"g2pk\":{\"S\":\"IMAGE-5-ab\"}}",
        "{\"pk\":{\"S\":\"U#u1\"},\"sk\":{\"S\":\"META\"},\"x\":{\"S\":\"ab\"},\"n\":{\"N\":\"5\"},"
        "\"g2pk\":{\"S\":\"image-5-ab\"},\"g1sk\":{\"S\":\"ab##5\"}}",
        /* a negative number holds the separator */
        "{\"pk\":{\"S\":\"U#u1\"},\"sk\":{\"S\":\"META\"},\"x\":{\"S\":\"ab\"},\"n\":{\"N\":\"-5\"}"
        ","
        "\"kind\":{\"S\":\"IMAGE\"},\"g2pk\":{\"S\":\"image--5-ab\"}}",
        /* a constant key spelt otherwise */
        "{\"pk\":{\"S\":\"U#u1\"},\"sk\":{\"S\":\"META\"},\"g2sk\":{\"S\":\"CONSTX\"}}",
        "{\"pk\":{\"S\":\"U#u1\"},\"sk\":{\"S\":\"META\"},\"g2sk\":{\"S\":\"CONST\"}}",
        /* a stored N that is not a number (the reader does not check N text) */
        "{\"pk\":{\"S\":\"U#u1\"},\"sk\":{\"S\":\"META\"},\"x\":{\"S\":\"ab\"},\"n\":{\"N\":"
        "\"abc\"},"
        "\"g1sk\":{\"S\":\"ab##abc\"}}",
        "{\"pk\":{\"S\":\"U#u1\"},\"sk\":{\"S\":\"META\"},\"x\":{\"S\":\"ab\"},\"n\":{\"N\":"
        "\"1e2\"},"
        "\"g1sk\":{\"S\":\"ab##1e2\"}}",
    };
    ddb_mapping *m = NULL;
    ddb_arena *a;
    ddb_error err;
    size_t ok = 0;

    cr_assert_eq(
        ddb_mapping_parse(&m, shortcut_mapping, strlen(shortcut_mapping), "shortcut", &err), 0,
        "%s", err.message);
    cr_assert_eq(ddb_arena_new(&a, 0), 0);
    for (size_t i = 0; i < sizeof(items) / sizeof(items[0]); i++) {
        ddb_arena_reset(a);
        agree_json(m, items[i], a, &ok);
    }
    ddb_arena_free(a);
    ddb_mapping_free(m);
    cr_assert_gt(ok, 2);
}

/* Every kind of field in index keys (dates, weekdays, padded numbers,
 * binary, enum spellings, patterns, separators of one and several bytes),
 * items made of small pools of values that hold separators or their parts,
 * each stored or not and each index key their rendering or not. */
static const char mixed_mapping[] = TWO_GSI_TABLE
    " \"entities\": [{\"name\": \"F\", \"keys\": {\"pk\": \"F#{id}\", \"sk\": \"S\","
    "  \"g1pk\": \"{x}##{y}\", \"g1sk\": \"{d}#-#{n}\", \"g2pk\": \"{kind}:{x}:{p}\","
    "  \"g2sk\": \"{w}|{b}|{x}\"},"
    "  \"fields\": [{\"name\": \"id\", \"type\": \"S\"}, {\"name\": \"x\", \"type\": \"S\"},"
    "   {\"name\": \"y\", \"type\": \"S\", \"pattern\": \"^[a-z#]+$\"}, {\"name\": \"n\", "
    "\"type\": \"N\"},"
    "   {\"name\": \"p\", \"type\": \"N\", \"pad\": 3},"
    "   {\"name\": \"d\", \"type\": \"S\", \"format\": \"date\"},"
    "   {\"name\": \"w\", \"type\": \"S\", \"format\": \"weekday\"},"
    "   {\"name\": \"b\", \"type\": \"B\"},"
    "   {\"name\": \"kind\", \"type\": \"S\", \"enum\": {\"IMAGE\": \"image\", \"LINK\": "
    "\"link\"}}]}]}";

#define POOL(...)                                                                                  \
    {                                                                                              \
        __VA_ARGS__, NULL                                                                          \
    }
static const char *const mixed_pools[][10] = {
    /* stored values, per field: x y n p d w b kind */
    POOL("a", "a#", "#a", "a##", "a:", "ab", "a|", "#"),
    POOL("b", "b#", "#b", "B"),
    POOL("5", "1.0", "1", "abc", "-1", "007", "1e2"),
    POOL("5", "005", "1000", "-1", "1.50"),
    POOL("2020-01-01", "2020-02-30", "2020-01-01#-"),
    POOL("Monday", "MONDAY", "mon", "Funday"),
    POOL("AAEC", "/w==", "AAE="),
    POOL("IMAGE", "LINK", "image"),
};
static const char *const mixed_key_only[][4] = {
    /* further texts seen only in keys, per field */
    POOL("a#"),        POOL("b##"),     POOL("1.00"),  POOL("005", "-01"),
    POOL("2020-1-01"), POOL("Mon", ""), POOL("AAEC="), POOL("link", "IMAGE"),
};
static const char *const mixed_names[] = {"x", "y", "n", "p", "d", "w", "b", "kind"};
static const char mixed_types[] = {'S', 'S', 'N', 'N', 'S', 'S', 'B', 'S'};

static uint64_t mixed_rng = 0x9e3779b97f4a7c15u;
static size_t pick(size_t n)
{
    mixed_rng ^= mixed_rng << 13;
    mixed_rng ^= mixed_rng >> 7;
    mixed_rng ^= mixed_rng << 17;
    return (size_t)(mixed_rng % n);
}

static size_t pool_len(const char *const *pool)
{
    size_t n = 0;
    while (pool[n] != NULL)
        n++;
    return n;
}

/* A key part for field f: mostly the stored value (as it is, so that the
 * shortcut is tried), else any other text of the field's. */
static const char *key_part(size_t f, const char *stored)
{
    size_t np = pool_len(mixed_pools[f]), nk = pool_len(mixed_key_only[f]);
    if (stored != NULL && pick(3) != 0)
        return stored;
    return pick(4) == 0 ? mixed_key_only[f][pick(nk)] : mixed_pools[f][pick(np)];
}

Test(decode, shortcut_agrees_on_every_kind_of_field)
{
    enum { X, Y, N, P, D, W, B, KIND };
    ddb_mapping *m = NULL;
    ddb_arena *a;
    ddb_error err;
    size_t ok = 0, tried = 0;

    cr_assert_eq(ddb_mapping_parse(&m, mixed_mapping, strlen(mixed_mapping), "mixed", &err), 0,
                 "%s", err.message);
    cr_assert_eq(ddb_arena_new(&a, 0), 0);
    for (int round = 0; round < 40000; round++) {
        const char *stored[8];
        char text[2048], key[256];
        size_t n = 0;
        ddb_arena_reset(a);
        n += (size_t)snprintf(text + n, sizeof(text) - n,
                              "{\"pk\":{\"S\":\"F#i1\"},\"sk\":{\"S\":\"S\"}");
        for (size_t f = 0; f < 8; f++) {
            stored[f] = pick(2) ? mixed_pools[f][pick(pool_len(mixed_pools[f]))] : NULL;
            if (stored[f] != NULL)
                n += (size_t)snprintf(text + n, sizeof(text) - n, ",\"%s\":{\"%c\":\"%s\"}",
                                      mixed_names[f], mixed_types[f], stored[f]);
        }
#define KEY(name, ...)                                                                             \
    if (pick(3) != 0) {                                                                            \
        snprintf(key, sizeof(key), __VA_ARGS__);                                                   \
        n += (size_t)snprintf(text + n, sizeof(text) - n, ",\"%s\":{\"S\":\"%s\"}", name, key);    \
    }
        KEY("g1pk", "%s##%s", key_part(X, stored[X]), key_part(Y, stored[Y]));
        KEY("g1sk", "%s#-#%s", key_part(D, stored[D]), key_part(N, stored[N]));
        KEY("g2pk", "%s:%s:%s", key_part(KIND, stored[KIND]), key_part(X, stored[X]),
            key_part(P, stored[P]));
        KEY("g2sk", "%s|%s|%s", key_part(W, stored[W]), key_part(B, stored[B]),
            key_part(X, stored[X]));
#undef KEY
        snprintf(text + n, sizeof(text) - n, "}");
        ok += (size_t)agree_json(m, text, a, &tried);
    }
    ddb_arena_free(a);
    ddb_mapping_free(m);
    cr_assert_gt(ok, 500, "only %zu of the items decoded", ok);
}

/* The table keys: their fields are captured, and a key whose fields are its
 * captures comes back without rendering (ddb_template_caps_come_back). An
 * index key written as a table key is (same_as) is not looked at again when
 * it holds the same bytes: it is here the same, another of the texts, or
 * absent.
 * Texts that make a match backtrack (a number after a separator that the
 * text before it also holds), captures that hold their separator, and
 * fields stored as well (the same bytes, a number spelt otherwise, another
 * value), with the shortcut and without. */
static const char table_keys_mapping[] =
    "{\"table\": {\"name\": \"T\", \"partitionKey\": {\"name\": \"pk\", \"type\": \"S\"},"
    " \"sortKey\": {\"name\": \"sk\", \"type\": \"S\"}, \"indexes\": [{\"name\": \"g\","
    " \"type\": \"GSI\", \"partitionKey\": {\"name\": \"gpk\", \"type\": \"S\"},"
    " \"sortKey\": {\"name\": \"gsk\", \"type\": \"S\"}, \"projection\": \"ALL\"}]},"
    " \"entities\": [{\"name\": \"K\", \"keys\": {\"pk\": \"P#{a}##{n}\", \"sk\": \"{c}#{d}\","
    "  \"gpk\": \"P#{a}##{n}\", \"gsk\": \"{c}#{d}\"},"
    "  \"fields\": [{\"name\": \"a\", \"type\": \"S\"}, {\"name\": \"n\", \"type\": \"N\"},"
    "   {\"name\": \"c\", \"type\": \"S\"}, {\"name\": \"d\", \"type\": \"S\", \"pattern\": "
    "\"^[a-z]+$\"}]}]}";

/* A table-key case: the mapping, the printf formats of the table keys (two
 * parts each: 0 and 1 in the partition key, 2 and 3 in the sort key, which
 * the index keys gpk and gsk repeat), each part's texts (the first two
 * good), and the field each part is stored as (NULL: never) with its type
 * and the texts it is stored with besides the key's own. */
typedef struct key_case {
    const char *mapping, *pk_fmt, *sk_fmt;
    const char *const *texts[4];
    size_t n_texts[4];
    const char *field[4];
    char type[4];
    const char *const *stored[4];
    size_t n_stored[4];
} key_case;

static const char *text_of(const char *const *texts, size_t n)
{
    /* the first two are good: half of the time one of those */
    return texts[pick(2) ? pick(2) : pick(n)];
}

/* 20,000 items of the case, each field stored or not, each index key the
 * table key's text, another or absent, decoded with the shortcuts and
 * without (agree); some must decode and some must not. */
static void agree_on_key_case(const key_case *kc)
{
    ddb_mapping *m = NULL;
    ddb_arena *a;
    ddb_error err;
    size_t ok = 0, tried = 0;

    cr_assert_eq(ddb_mapping_parse(&m, kc->mapping, strlen(kc->mapping), "keys", &err), 0, "%s",
                 err.message);
    cr_assert_eq(ddb_arena_new(&a, 0), 0);
    for (int round = 0; round < 20000; round++) {
        const char *part[4], *other[4];
        char text[1024], key[256];
        size_t n;
        for (int i = 0; i < 4; i++) {
            part[i] = text_of(kc->texts[i], kc->n_texts[i]);
            other[i] = pick(2) ? part[i] : text_of(kc->texts[i], kc->n_texts[i]);
        }
        ddb_arena_reset(a);
        n = (size_t)snprintf(text, sizeof(text), "{\"pk\":{\"S\":\"");
        n += (size_t)snprintf(text + n, sizeof(text) - n, kc->pk_fmt, part[0], part[1]);
        n += (size_t)snprintf(text + n, sizeof(text) - n, "\"},\"sk\":{\"S\":\"");
        n += (size_t)snprintf(text + n, sizeof(text) - n, kc->sk_fmt, part[2], part[3]);
        n += (size_t)snprintf(text + n, sizeof(text) - n, "\"}");
        /* each field: not stored, stored as in the key (not binary: the key's
         * text need not be base64), or stored otherwise */
        for (int i = 0; i < 4; i++)
            if (kc->field[i] != NULL && pick(3) == 1)
                n += (size_t)snprintf(
                    text + n, sizeof(text) - n, ",\"%s\":{\"%c\":\"%s\"}", kc->field[i],
                    kc->type[i],
                    kc->type[i] != 'B' && pick(2) ? part[i] : kc->stored[i][pick(kc->n_stored[i])]);
        if (pick(3) == 1) {
            snprintf(key, sizeof(key), kc->pk_fmt, other[0], other[1]);
            n += (size_t)snprintf(text + n, sizeof(text) - n, ",\"gpk\":{\"S\":\"%s\"}", key);
        }
        if (pick(3) == 1) {
            snprintf(key, sizeof(key), kc->sk_fmt, other[2], other[3]);
            n += (size_t)snprintf(text + n, sizeof(text) - n, ",\"gsk\":{\"S\":\"%s\"}", key);
        }
        snprintf(text + n, sizeof(text) - n, "}");
        ok += (size_t)agree_json(m, text, a, &tried);
    }
    ddb_arena_free(a);
    ddb_mapping_free(m);
    cr_assert_gt(ok, 1000, "only %zu of the items decoded", ok);
    cr_assert_lt(ok, 19000, "%zu of the items decoded: too few refused", ok);
}

Test(decode, shortcut_agrees_on_table_keys)
{
    key_case kc = {.mapping = table_keys_mapping, .pk_fmt = "P#%s##%s", .sk_fmt = "%s#%s"};
    const char *const *t[4] = {
        (const char *const[]){"a", "ab", "a#", "#a", "a##1", "##", "a#b", "1##2", "x##y#"},
        (const char *const[]){"1", "1.0", "-1", "12", "x", "1##2", "007"},
        (const char *const[]){"c", "cc", "c#", "#c", "c#d#", "##", "c#1"},
        (const char *const[]){"d", "dd", "d#", "D", "d#e"}};
    static const size_t nt[4] = {9, 7, 7, 5};
    static const char *const fields[4] = {"a", "n", "c", NULL};
    static const char types[4] = {'S', 'N', 'S', 0};
    for (int i = 0; i < 4; i++) {
        kc.texts[i] = kc.stored[i] = t[i];
        kc.n_texts[i] = kc.n_stored[i] = nt[i];
        kc.field[i] = fields[i];
        kc.type[i] = types[i];
    }
    agree_on_key_case(&kc);
}

/* The same for table keys of every kind of field: an enum's key spelling, a
 * padded number, a weekday and binary, each with index keys written the same
 * way (same_as) and fields stored as well, decoded as items and as keys. */
static const char field_keys_mapping[] =
    "{\"table\": {\"name\": \"T\", \"partitionKey\": {\"name\": \"pk\", \"type\": \"S\"},"
    " \"sortKey\": {\"name\": \"sk\", \"type\": \"S\"}, \"indexes\": [{\"name\": \"g\","
    " \"type\": \"GSI\", \"partitionKey\": {\"name\": \"gpk\", \"type\": \"S\"},"
    " \"sortKey\": {\"name\": \"gsk\", \"type\": \"S\"}, \"projection\": \"ALL\"}]},"
    " \"entities\": [{\"name\": \"L\", \"keys\": {\"pk\": \"L#{x}\", \"sk\": \"S\"}, \"fields\": ["
    "   {\"name\": \"x\", \"type\": \"S\"}]},"
    "  {\"name\": \"F\", \"keys\": {\"pk\": \"E#{kind}#{p}\", \"sk\": \"{w}|{b}\","
    "  \"gpk\": \"E#{kind}#{p}\", \"gsk\": \"{w}|{b}\"},"
    "  \"fields\": [{\"name\": \"kind\", \"type\": \"S\", \"enum\": {\"IMAGE\": \"image\", "
    "\"LINK\": \"link\"}},"
    "   {\"name\": \"p\", \"type\": \"N\", \"pad\": 3},"
    "   {\"name\": \"w\", \"type\": \"S\", \"format\": \"weekday\"},"
    "   {\"name\": \"b\", \"type\": \"B\"}]}]}";

Test(decode, shortcut_agrees_on_table_keys_of_every_kind_of_field)
{
    key_case kc = {.mapping = field_keys_mapping, .pk_fmt = "E#%s#%s", .sk_fmt = "%s|%s"};
    const char *const *t[4] = {
        (const char *const[]){"image", "link", "IMAGE", "img", "image#", "LINK"},
        (const char *const[]){"005", "123", "5", "1000", "-01", "abc", "05#1"},
        (const char *const[]){"Monday", "Friday", "MONDAY", "mon", "Funday", "Mon|"},
        (const char *const[]){"AAEC", "/w==", "AAE=", "AA|C", "x"}};
    const char *const *st[4] = {(const char *const[]){"IMAGE", "LINK", "image"},
                                (const char *const[]){"5", "123", "005", "7"},
                                (const char *const[]){"Monday", "Friday", "mon"},
                                (const char *const[]){"AAEC", "/w==", "AAE="}};
    static const size_t nt[4] = {6, 7, 6, 5}, ns[4] = {3, 4, 3, 3};
    static const char *const fields[4] = {"kind", "p", "w", "b"};
    static const char types[4] = {'S', 'N', 'S', 'B'};
    for (int i = 0; i < 4; i++) {
        kc.texts[i] = t[i];
        kc.n_texts[i] = nt[i];
        kc.stored[i] = st[i];
        kc.n_stored[i] = ns[i];
        kc.field[i] = fields[i];
        kc.type[i] = types[i];
    }
    agree_on_key_case(&kc);
}

/* An entity of 70 fields whose keys use fields past the 64 a mask holds
 * (the shortcuts fall back to looking at each field): decoding agrees with
 * and without them, on generated items and their changed index keys. */
Test(decode, shortcut_agrees_past_64_fields)
{
    ddb_buf text = DDB_BUF_INIT;
    ddb_mapping *m = NULL;
    ddb_error err;
    size_t variants = 0, decoded = 0;
    ddb_buf_puts(&text, TWO_GSI_TABLE
                 " \"entities\": [{\"name\": \"W\", \"keys\": {"
                 "\"pk\": \"W#{f1}#{f66}\", \"sk\": \"{f67}\", "
                 "\"g1pk\": \"G#{f2}#{f68}\", \"g1sk\": \"{f69}#{f65}\", "
                 "\"g2pk\": \"{f64}\", \"g2sk\": \"{f0}-{f3}-{f70}\"}, \"fields\": [");
    for (int i = 0; i <= 70; i++)
        ddb_buf_printf(&text, "%s{\"name\": \"f%d\", \"type\": \"%s\"}", i ? ", " : "", i,
                       i % 9 == 3 ? "N" : "S");
    ddb_buf_puts(&text, "]}]}");
    cr_assert_eq(ddb_mapping_parse(&m, text.ptr, text.len, "wide", &err), 0, "%s", err.message);
    cr_assert_eq(m->entities[0].n_fields, 71);
    check_loaded(m, "wide", &variants, &decoded);
    cr_assert_gt(variants, 50, "too few changed index keys tried (%zu)", variants);
    cr_assert_gt(decoded, 25, "%zu decoded", decoded);
    ddb_mapping_free(m);
    ddb_buf_dispose(&text);
}
