#include "transform/template.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/codec.h"
#include "ddbpipe/number.h"
#include "core/swar.h"

/* Bound on backtracking steps per match: a hostile key cannot make matching
 * quadratic-or-worse; past the bound the key simply does not match. */
#define MATCH_STEP_LIMIT 20000

static ddb_tpl_how seg_how(const ddb_field *f)
{
    if (f->type == DDB_TYPE_S && f->format != DDB_FMT_WEEKDAY)
        return f->enum_keys != NULL ? DDB_TPL_ENUM_S : DDB_TPL_OWN_S;
    if (f->type == DDB_TYPE_N && !f->pad && f->enum_keys == NULL)
        return DDB_TPL_OWN_N;
    return DDB_TPL_RENDER;
}

/* Ends the literal run (the *nlit bytes just before lit) as a segment of t;
 * nothing when there is none. */
static void end_literal(ddb_template *t, size_t *nseg, const char *lit, size_t *nlit)
{
    if (*nlit == 0)
        return;
    t->segs[*nseg].lit = lit - *nlit;
    t->segs[*nseg].lit_len = *nlit;
    t->segs[(*nseg)++].field = -1;
    *nlit = 0;
}

/* Field fi as the next segment of t: an S, N or B field, with a literal
 * between it and the field before. Returns 0 or DDB_EUSAGE. */
static int field_segment(ddb_template *t, size_t *nseg, const ddb_entity *e, int fi,
                         const char *path, ddb_error *err)
{
    const ddb_field *f = &e->fields[fi];
    ddb_tpl_seg *s;

    if (*nseg > 0 && t->segs[*nseg - 1].field >= 0)
        return ddb_error_set(err, DDB_EUSAGE,
                             "%s: template \"%s\" puts two fields next to each other; put a "
                             "separator between them",
                             path, t->text);
    if (f->type != DDB_TYPE_S && f->type != DDB_TYPE_N && f->type != DDB_TYPE_B)
        return ddb_error_set(err, DDB_EUSAGE,
                             "%s: field \"%s\" is %s; only S, N and B fields can be part of a key",
                             path, f->name, ddb_type_name(f->type));
    s = &t->segs[(*nseg)++];
    s->field = fi;
    s->how = seg_how(f);
    s->any_text = f->type == DDB_TYPE_S && f->n_enum == 0 && f->format == DDB_FMT_NONE &&
                  !f->has_pattern && !f->pad;
    s->lit = NULL;
    s->lit_len = 0;
    if (fi < 64)
        t->fields |= UINT64_C(1) << fi;
    else
        t->fields_exact = 0;
    return 0;
}

/* An N or B key attribute's template is one {field} of its type, not padded.
 * Returns 0 or DDB_EUSAGE. */
static int check_typed_key(const ddb_template *t, const ddb_entity *e, const char *path,
                           ddb_error *err)
{
    if (t->attr_type == DDB_TYPE_S)
        return 0;
    if (t->n_segs != 1 || t->segs[0].field < 0 || e->fields[t->segs[0].field].type != t->attr_type)
        return ddb_error_set(err, DDB_EUSAGE,
                             "%s: attribute \"%s\" is of type %s, so its template must be a "
                             "single {field} of type %s",
                             path, t->attr, ddb_type_name(t->attr_type),
                             ddb_type_name(t->attr_type));
    if (e->fields[t->segs[0].field].pad)
        return ddb_error_set(err, DDB_EUSAGE,
                             "%s: a padded field cannot be a number key; pad only in strings",
                             path);
    return 0;
}

int ddb_template_compile(ddb_template *t, const char *text, const ddb_entity *e, const char *path,
                         ddb_error *err)
{
    size_t n = strlen(text), nseg = 0, nlit = 0;
    const char *p = text;
    char *lit;
    int rc;

    t->fields = 0;
    t->fields_exact = 1;
    t->same_as = -1;
    t->text = strdup(text);
    t->lit_store = malloc(n + 1);
    t->segs = calloc(n + 1, sizeof(*t->segs)); /* never more segments than bytes + 1 */
    if (t->text == NULL || t->lit_store == NULL || t->segs == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    lit = t->lit_store;
    if (n == 0)
        return ddb_error_set(err, DDB_EUSAGE, "%s: empty template", path);

    while (*p) {
        if (*p == '{' && p[1] != '{') {
            const char *close = strchr(p + 1, '}');
            int fi;
            if (close == NULL)
                return ddb_error_set(err, DDB_EUSAGE, "%s: unclosed '{' in template \"%s\"", path,
                                     text);
            fi = ddb_entity_field_index(e, p + 1, (size_t)(close - p - 1));
            if (fi < 0)
                return ddb_error_set(err, DDB_EUSAGE,
                                     "%s: template \"%s\" uses \"%.*s\", which is not a declared "
                                     "field",
                                     path, text, (int)(close - p - 1), p + 1);
            end_literal(t, &nseg, lit, &nlit);
            if ((rc = field_segment(t, &nseg, e, fi, path, err)) != 0)
                return rc;
            p = close + 1;
            continue;
        }
        if (*p == '}' && p[1] != '}')
            return ddb_error_set(err, DDB_EUSAGE,
                                 "%s: stray '}' in template \"%s\" (write }} for a literal brace)",
                                 path, text);
        /* "{{" / "}}" stand for one literal brace. */
        *lit++ = *p;
        nlit++;
        p += (*p == '{' || *p == '}') ? 2 : 1;
    }
    end_literal(t, &nseg, lit, &nlit);
    t->n_segs = nseg;
    return check_typed_key(t, e, path, err);
}

void ddb_template_dispose(ddb_template *t)
{
    free(t->attr);
    free(t->text);
    free(t->lit_store);
    free(t->segs);
}

typedef struct match_state {
    const ddb_template *t;
    const ddb_entity *e;
    const char *s;
    size_t len;
    ddb_str *caps;
    int steps;
} match_state;

static int field_fits(const match_state *ms, const ddb_tpl_seg *sg, const char *v, size_t n)
{
    const ddb_field *f = &ms->e->fields[sg->field];
    if (sg->any_text)
        return n > 0;
    if (n > 0 && f->enum_keys != NULL) {
        int i = ddb_field_enum_index(f, v, n, 1);
        return i >= 0 &&
               ddb_field_accepts_text(f, f->enum_values[i], strlen(f->enum_values[i]), NULL);
    }
    return n > 0 && ddb_field_padded_text_ok(f, v, n) && ddb_field_accepts_text(f, v, n, NULL);
}

static const char *find(const char *hay, size_t hlen, const char *needle, size_t nlen)
{
    if (nlen == 0 || hlen < nlen)
        return NULL;
    for (const char *p = hay; (size_t)(p - hay) + nlen <= hlen; p++) {
        p = memchr(p, needle[0], hlen - nlen - (size_t)(p - hay) + 1);
        if (p == NULL)
            return NULL;
        if (memcmp(p, needle, nlen) == 0)
            return p;
    }
    return NULL;
}

/* Does a field's text s[0, n) hold the literal that follows it (next; NULL
 * at the end of the template: nothing follows)? Then render refuses it: it
 * would not decode as the same value. */
static inline int holds_separator(const char *s, size_t n, const ddb_tpl_seg *next)
{
    if (next == NULL)
        return 0;
    return next->lit_len == 1 ? ddb_has_byte(s, n, next->lit[0])
                              : find(s, n, next->lit, next->lit_len) != NULL;
}

static int match_from(match_state *ms, size_t seg, size_t pos)
{
    const ddb_tpl_seg *sg;

    if (++ms->steps > MATCH_STEP_LIMIT)
        return 0;
    if (seg == ms->t->n_segs)
        return pos == ms->len;
    sg = &ms->t->segs[seg];
    if (sg->field < 0) {
        if (ms->len - pos < sg->lit_len || memcmp(ms->s + pos, sg->lit, sg->lit_len) != 0)
            return 0;
        return match_from(ms, seg + 1, pos + sg->lit_len);
    }
    if (seg + 1 == ms->t->n_segs) {
        /* The last field takes the rest of the key. */
        if (!field_fits(ms, sg, ms->s + pos, ms->len - pos))
            return 0;
        ms->caps[seg].ptr = ms->s + pos;
        ms->caps[seg].len = ms->len - pos;
        return 1;
    }
    {
        const ddb_tpl_seg *next = &ms->t->segs[seg + 1]; /* a literal: compile guarantees it */
        const char *from = ms->s + pos + 1;              /* fields are never empty */
        const char *end = ms->s + ms->len;
        const char *occ;
        while (from < end &&
               (occ = find(from, (size_t)(end - from), next->lit, next->lit_len)) != NULL) {
            size_t vlen = (size_t)(occ - (ms->s + pos));
            if (field_fits(ms, sg, ms->s + pos, vlen) && match_from(ms, seg + 1, pos + vlen)) {
                ms->caps[seg].ptr = ms->s + pos;
                ms->caps[seg].len = vlen;
                return 1;
            }
            if (ms->steps > MATCH_STEP_LIMIT)
                return 0;
            from = occ + 1;
        }
    }
    return 0;
}

int ddb_template_match(const ddb_template *t, const ddb_entity *e, const char *s, size_t len,
                       ddb_str *caps)
{
    match_state ms = {t, e, s, len, caps, 0};
    return match_from(&ms, 0, 0);
}

/* Appends a non-negative number with its integer part zero-padded to width. */
static int render_padded(ddb_buf *out, const ddb_field *f, const ddb_str *text, ddb_error *err)
{
    ddb_number n;
    ddb_buf tmp = DDB_BUF_INIT;
    size_t int_len = 0;
    const char *dot;
    int rc = 0;

    /* a plain integer (digits, no leading zero) is its own normal form: no
     * parse, no formatting (a padded count in a key, a number per item) */
    while (int_len < text->len && text->ptr[int_len] >= '0' && text->ptr[int_len] <= '9')
        int_len++;
    if (int_len == text->len && int_len > 0 && int_len <= (size_t)f->pad &&
        int_len <= DDB_NUMBER_MAX_DIGITS && (text->ptr[0] != '0' || int_len == 1)) {
        for (size_t i = int_len; i < (size_t)f->pad; i++)
            ddb_buf_putc(out, '0');
        ddb_buf_append(out, text->ptr, text->len);
        return 0;
    }
    if (ddb_number_parse(&n, text->ptr, text->len, err) != 0)
        return DDB_EINVAL;
    if (n.negative) {
        rc = ddb_error_set(err, DDB_EINVAL,
                           "field %s: negative number %.*s cannot be zero-padded in a key", f->name,
                           (int)text->len, text->ptr);
        goto done;
    }
    if ((rc = ddb_number_format(&tmp, &n)) != 0)
        goto done;
    dot = memchr(tmp.ptr, '.', tmp.len);
    int_len = dot ? (size_t)(dot - tmp.ptr) : tmp.len;
    if (int_len > (size_t)f->pad) {
        rc = ddb_error_set(err, DDB_EINVAL,
                           "field %s: %.*s has more than %d integer digits and cannot be padded",
                           f->name, (int)(text->len > 60 ? 60 : text->len), text->ptr, f->pad);
        goto done;
    }
    for (size_t i = int_len; i < (size_t)f->pad; i++)
        ddb_buf_putc(out, '0');
    ddb_buf_append(out, tmp.ptr, tmp.len);
done:
    ddb_buf_dispose(&tmp);
    return rc;
}

int ddb_template_render(ddb_buf *out, const ddb_template *t, const ddb_entity *e,
                        const ddb_value *const *values, int *missing, ddb_error *err)
{
    for (size_t i = 0; i < t->n_segs; i++) {
        const ddb_tpl_seg *sg = &t->segs[i];
        const ddb_field *f;
        const ddb_value *v;
        size_t start = out->len;
        int rc;

        if (sg->field < 0) {
            ddb_buf_append(out, sg->lit, sg->lit_len);
            continue;
        }
        f = &e->fields[sg->field];
        v = values[sg->field];
        if (v == NULL || v->type == DDB_TYPE_NULL) {
            *missing = sg->field;
            return DDB_ENOMATCH;
        }
        if (v->type != f->type)
            return ddb_error_set(err, DDB_EINVAL, "field %s: expected %s, got %s", f->name,
                                 ddb_type_name(f->type), ddb_type_name(v->type));
        if (f->type == DDB_TYPE_N && f->pad) {
            if ((rc = render_padded(out, f, &v->u.s, err)) != 0)
                return rc;
        } else if (f->type == DDB_TYPE_B) {
            ddb_buf_put_base64(out, (const unsigned char *)v->u.s.ptr, v->u.s.len);
        } else if (f->format == DDB_FMT_WEEKDAY && f->type == DDB_TYPE_S) {
            /* one day, one key: the mapping's spelling whatever the value's */
            char day[16];
            size_t n = ddb_weekday_spell(f, v->u.s.ptr, v->u.s.len, day);
            if (n)
                ddb_buf_append(out, day, n);
            else
                ddb_buf_append(out, v->u.s.ptr, v->u.s.len);
        } else if (f->enum_keys != NULL) {
            int ei = ddb_field_enum_index(f, v->u.s.ptr, v->u.s.len, 0);
            if (ei < 0)
                return ddb_error_set(err, DDB_EINVAL,
                                     "field %s: '%.*s' is not one of the allowed values", f->name,
                                     (int)(v->u.s.len > 60 ? 60 : v->u.s.len), v->u.s.ptr);
            ddb_buf_puts(out, f->enum_keys[ei]);
        } else {
            ddb_buf_append(out, v->u.s.ptr, v->u.s.len);
        }
        if (out->len == start)
            return ddb_error_set(err, DDB_EINVAL, "field %s is empty and cannot be part of %s",
                                 f->name, t->attr);
        /* A value holding the separator that follows it would decode differently. */
        if (holds_separator(out->ptr + start, out->len - start,
                            i + 1 < t->n_segs ? &t->segs[i + 1] : NULL))
            return ddb_error_set(err, DDB_EINVAL,
                                 "field %s: value '%.*s' contains '%.*s', which separates it from "
                                 "the next part of %s \"%s\"",
                                 f->name, (int)((out->len - start) > 60 ? 60 : out->len - start),
                                 out->ptr + start, (int)t->segs[i + 1].lit_len, t->segs[i + 1].lit,
                                 t->attr, t->text);
    }
    return out->oom ? DDB_ENOMEM : 0;
}

/* ddb_template_renders_as; with as_match, also ddb_template_matches_as. */
static int renders_as(const ddb_template *t, const ddb_entity *e, const ddb_value *const *values,
                      const char *text, size_t len, int as_match)
{
    const ddb_tpl_seg *sg = t->segs, *last = t->segs + t->n_segs;
    const char *p = text, *end = text + len;
    for (; sg < last; sg++) {
        const ddb_value *v;
        const ddb_tpl_seg *next;
        const char *bytes;
        size_t n;
        if (sg->field < 0) {
            if ((size_t)(end - p) < sg->lit_len || !ddb_mem_eq(p, sg->lit, sg->lit_len))
                return 0;
            p += sg->lit_len;
            continue;
        }
        /* only values rendered as their own bytes or their enum's key
         * spelling; the rest (padding, weekdays, binary) is render's */
        v = values[sg->field];
        if (sg->how == DDB_TPL_RENDER || v == NULL ||
            v->type != (sg->how == DDB_TPL_OWN_N ? DDB_TYPE_N : DDB_TYPE_S) || v->u.s.len == 0)
            return 0;
        bytes = v->u.s.ptr;
        n = v->u.s.len;
        if (sg->how == DDB_TPL_ENUM_S) {
            const ddb_field *f = &e->fields[sg->field];
            int ei = ddb_field_enum_index(f, v->u.s.ptr, v->u.s.len, 0);
            if (ei < 0 || (n = strlen(bytes = f->enum_keys[ei])) == 0)
                return 0; /* render refuses it */
        }
        if ((size_t)(end - p) < n || !ddb_mem_eq(p, bytes, n))
            return 0;
        next = sg + 1 < last ? sg + 1 : NULL; /* a literal: compile guarantees it */
        if (holds_separator(bytes, n, next))
            return 0; /* render refuses it */
        if (as_match) {
            /* match_from cuts the field at the separator's first occurrence
             * after its first byte: one of several bytes that begins inside
             * the field's text (its tail and the separator's head) cuts it
             * short (a one-byte one is not in the text, as seen above) */
            if (next != NULL && next->lit_len > 1 && n > 1) {
                size_t win = n + next->lit_len - 2, room = (size_t)(end - p) - 1;
                if (find(p + 1, win < room ? win : room, next->lit, next->lit_len) != NULL)
                    return 0;
            }
            /* a stored N's text is not checked where its field has no
             * constraints; field_fits checks its syntax (plain digits, up to
             * 38, always pass) */
            if (sg->how == DDB_TPL_OWN_N && !(n <= 38 && ddb_all_digits(bytes, n)) &&
                ddb_number_validate(bytes, n, NULL) != 0)
                return 0;
        }
        p += n;
    }
    return p == end;
}

int ddb_template_caps_come_back(const ddb_template *t, const ddb_value *const *values,
                                const ddb_str *caps)
{
    for (size_t i = 0; i < t->n_segs; i++) {
        const ddb_tpl_seg *sg = &t->segs[i];
        const ddb_value *v;
        if (sg->field < 0)
            continue;
        v = values[sg->field];
        if ((sg->how != DDB_TPL_OWN_S && sg->how != DDB_TPL_OWN_N) || v == NULL ||
            v->u.s.ptr != caps[i].ptr || v->u.s.len != caps[i].len)
            return 0;
        /* the next segment is a literal: compile guarantees it */
        if (holds_separator(caps[i].ptr, caps[i].len, i + 1 < t->n_segs ? sg + 1 : NULL))
            return 0; /* render refuses it */
    }
    return 1;
}

int ddb_template_renders_as(const ddb_template *t, const ddb_entity *e,
                            const ddb_value *const *values, const char *text, size_t len)
{
    return renders_as(t, e, values, text, len, 0);
}

int ddb_template_matches_as(const ddb_template *t, const ddb_entity *e,
                            const ddb_value *const *values, const char *text, size_t len)
{
    return renders_as(t, e, values, text, len, 1);
}
