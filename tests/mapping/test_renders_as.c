/* ddb_template_renders_as never vouches for a text that rendering would not
 * give exactly (or would refuse), and does vouch for the plain keys an
 * export meets: checked against ddb_template_render over every template of
 * the shipped mappings and values with separators, enum and weekday fields,
 * padding, empty and absent values. */
#include <criterion/criterion.h>
#include <string.h>

#include "ddbpipe/mapping.h"
#include "support/testutil.h"
#include "transform/template.h"

static const char *const samples[] = {"u1",    "a#b",   "#",     "2021-03-13", "007",
                                      "12.50", "IMAGE", "image", "MONDAY",     "Monday",
                                      "x y",   "AAE=",  ""};
#define N_SAMPLES (sizeof(samples) / sizeof(samples[0]))

static void check_mapping(const char *name, size_t *vouched)
{
    ddb_mapping *m = tu_load_format(name);
    ddb_buf out = DDB_BUF_INIT, naive = DDB_BUF_INIT;
    ddb_error err;
    size_t refused = 0;

    for (size_t ei = 0; ei < m->n_entities; ei++) {
        const ddb_entity *e = &m->entities[ei];
        ddb_value vals[64];
        const ddb_value *pv[64];
        cr_assert(e->n_fields <= 64);
        for (size_t k = 0; k < e->n_keys; k++) {
            const ddb_template *t = &e->keys[k];
            for (size_t round = 0; round < 3 * N_SAMPLES; round++) {
                int missing = -1, rc;
                for (size_t fi = 0; fi < e->n_fields; fi++) {
                    const char *s = samples[(round + fi * 5) % N_SAMPLES];
                    vals[fi] = ddb_value_str(e->fields[fi].type == DDB_TYPE_B ? DDB_TYPE_S
                                                                              : e->fields[fi].type,
                                             s, strlen(s));
                    pv[fi] = (round + fi) % 11 == 0 ? NULL : &vals[fi];
                }
                ddb_buf_clear(&out);
                ddb_error_clear(&err);
                rc = ddb_template_render(&out, t, e, pv, &missing, &err);
                /* the values' own bytes between the literals: what a careless
                 * fast path would take for the key */
                ddb_buf_clear(&naive);
                for (size_t i = 0; i < t->n_segs; i++) {
                    const ddb_tpl_seg *sg = &t->segs[i];
                    if (sg->field < 0)
                        ddb_buf_append(&naive, sg->lit, sg->lit_len);
                    else if (pv[sg->field] != NULL)
                        ddb_buf_append(&naive, pv[sg->field]->u.s.ptr, pv[sg->field]->u.s.len);
                }
                if (rc != 0 || out.len != naive.len ||
                    memcmp(out.ptr ? out.ptr : "", naive.ptr ? naive.ptr : "", out.len) != 0) {
                    cr_assert_not(
                        ddb_template_renders_as(t, e, pv, naive.ptr ? naive.ptr : "", naive.len),
                        "%s: vouched for %s, render gives %s (%s)", t->attr, naive.ptr,
                        rc == 0 ? out.ptr : "an error", err.message);
                    refused++;
                }
                if (rc == 0) {
                    int yes = ddb_template_renders_as(t, e, pv, out.ptr, out.len);
                    int plain = 1; /* every field its own bytes or an enum's key spelling */
                    for (size_t i = 0; i < t->n_segs; i++) {
                        const ddb_field *f =
                            t->segs[i].field < 0 ? NULL : &e->fields[t->segs[i].field];
                        if (f != NULL &&
                            !((f->type == DDB_TYPE_S && f->format != DDB_FMT_WEEKDAY) ||
                              (f->type == DDB_TYPE_N && !f->pad)))
                            plain = 0;
                    }
                    cr_assert(yes || !plain, "%s: not vouched for %s", t->attr, out.ptr);
                    *vouched += (size_t)yes;
                    if (out.len > 0) {
                        char tmp[512];
                        cr_assert(out.len < sizeof(tmp));
                        memcpy(tmp, out.ptr, out.len);
                        tmp[out.len - 1] ^= 1;
                        cr_assert_not(ddb_template_renders_as(t, e, pv, tmp, out.len), "%s %s",
                                      t->attr, out.ptr);
                        cr_assert_not(ddb_template_renders_as(t, e, pv, out.ptr, out.len - 1));
                    }
                }
            }
        }
    }
    ddb_buf_dispose(&out);
    ddb_buf_dispose(&naive);
    ddb_mapping_free(m);
    cr_assert_gt(refused, 0, "%s: no case where the values' own bytes are not the key", name);
}

Test(template, renders_as_agrees_with_render)
{
    static const char *const formats[] = {"favorites.json", "favorites-v2.json",
                                          "facility-capacity.json", "movies.json"};
    size_t vouched = 0;
    for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
        check_mapping(formats[i], &vouched);
    cr_assert_gt(vouched, 100, "the fast path must cover the plain keys (%zu)", vouched);
}
