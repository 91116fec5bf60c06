/*
 * Decode does not match an index key that is exactly the rendering of fields
 * it already knows (transform_decode.c, known_already). That must never
 * change a verdict, a message or a record: every item the generator makes for
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
#include "transform_internal.h"

/* rc, message and record text of decoding item, in out (a caller buffer). */
static void decode_text(ddb_buf *out, const ddb_mapping *m, const ddb_item *item, ddb_arena *a)
{
    ddb_decoded d;
    ddb_error err;
    int rc;
    ddb_error_clear(&err);
    rc = ddb_transform_decode(&d, m, item, a, &err);
    ddb_buf_clear(out);
    ddb_buf_printf(out, "rc=%d ", rc);
    if (rc != 0) {
        ddb_buf_puts(out, err.message);
        return;
    }
    ddb_buf_printf(out, "%s %zu ", d.entity->name, d.n_declared);
    ddb_json_put_typed_map(out, &d.record);
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

static void check_mapping(const char *name, size_t *variants, size_t *decoded)
{
    ddb_mapping *m = tu_load_format(name);
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
