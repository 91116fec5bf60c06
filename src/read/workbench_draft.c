/*
 * The derivation behind a drafted mapping (workbench.h): each key attribute's
 * template from the facet's alias or its sample items, the fields, the mapping
 * text, and the check of the draft against the model's own items.
 *
 * A key value is split at a separator (# | : / ~) that every sample value
 * holds the same number of times; a part that is the same in every sample is
 * literal text, a part that varies is a field. A varying part that repeats
 * another field's values (the sort key repeating the partition key's id) or a
 * stored attribute's (the date in "WARNING#2020-04-24") is that field, so
 * decode checks they agree and encode writes them the same.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ddbpipe/json.h"
#include "ddbpipe/mapping.h"
#include "ddbpipe/reader.h"
#include "ddbpipe/transform.h"
#include "read/workbench_internal.h"

#define MAX_SEGS 16

typedef struct part {
    const char *lit;  /* literal text, or NULL for a varying part */
    const char **col; /* per item: the varying part's text */
} part;

static int oom(wb_draft *d)
{
    return ddb_error_set(d->err, DDB_ENOMEM, "out of memory");
}

static char *adup(wb_draft *d, const char *s, size_t n)
{
    return ddb_arena_memdup(d->a, s, n); /* NUL-terminated */
}

static wb_field *find_field(wb_entity *e, const char *name)
{
    for (size_t i = 0; i < e->n_fields; i++)
        if (strcmp(e->fields[i].name, name) == 0)
            return &e->fields[i];
    return NULL;
}

/* The field stored as attribute attr. */
static wb_field *stored_field(wb_entity *e, const char *attr)
{
    for (size_t i = 0; i < e->n_fields; i++)
        if (e->fields[i].stored && strcmp(e->fields[i].attr, attr) == 0)
            return &e->fields[i];
    return NULL;
}

static char *camel(wb_draft *d, const char *s, const char *suffix);
static const char *unique_name(wb_draft *d, wb_entity *e, const char *base);

static wb_field *add_field(wb_draft *d, wb_entity *e, const char *name, ddb_type type)
{
    wb_field *f,
        *n = ddb_arena_array_reserve(d->a, e->fields, e->n_fields, &e->cap_fields, sizeof(*n), 16);
    if (n == NULL)
        return NULL;
    e->fields = n;
    f = &e->fields[e->n_fields++];
    memset(f, 0, sizeof(*f));
    f->name = name;
    f->attr = name;
    f->type = type;
    return f;
}

/* A field for the items' attribute attr, named after it ("GSI1-SK" is field
 * gsi1Sk stored as attribute GSI1-SK). */
static wb_field *add_stored(wb_draft *d, wb_entity *e, const char *attr, ddb_type type)
{
    const char *name = wb_is_ident(attr) && find_field(e, attr) == NULL ? attr : camel(d, attr, "");
    wb_field *f;
    if (name == NULL || (name = unique_name(d, e, name)) == NULL ||
        (f = add_field(d, e, name, type)) == NULL)
        return NULL;
    f->attr = attr;
    f->stored = 1;
    return f;
}

static int add_key(wb_draft *d, wb_entity *e, const char *attr, const char *tpl)
{
    const char **ka = ddb_arena_alloc(d->a, (e->n_keys + 1) * sizeof(*ka)),
               **kt = ddb_arena_alloc(d->a, (e->n_keys + 1) * sizeof(*kt));
    if (ka == NULL || kt == NULL)
        return oom(d);
    if (e->n_keys) {
        memcpy(ka, e->key_attr, e->n_keys * sizeof(*ka));
        memcpy(kt, e->key_tpl, e->n_keys * sizeof(*kt));
    }
    ka[e->n_keys] = attr;
    kt[e->n_keys++] = tpl;
    e->key_attr = ka;
    e->key_tpl = kt;
    return 0;
}

static int has_key(const wb_entity *e, const char *attr)
{
    for (size_t i = 0; i < e->n_keys; i++)
        if (strcmp(e->key_attr[i], attr) == 0)
            return 1;
    return 0;
}

/* "camelCase" from any attribute or facet name: "GSI1-PK" -> "gsi1Pk". */
static char *camel(wb_draft *d, const char *s, const char *suffix)
{
    size_t n = strlen(s) + strlen(suffix) + 2, k = 0;
    char *out = ddb_arena_alloc(d->a, n);
    int up = 0, first = 1;
    if (out == NULL)
        return NULL;
    for (const char *p = s; *p; p++) {
        if (!isalnum((unsigned char)*p)) {
            up = !first;
            continue;
        }
        if (first) {
            out[k++] = isdigit((unsigned char)*p) ? 'f' : (char)tolower((unsigned char)*p);
            if (isdigit((unsigned char)*p))
                out[k++] = *p;
        } else if (up) {
            out[k++] = (char)toupper((unsigned char)*p);
        } else {
            /* ALLCAPS words read better lowered: "PK" -> "pk", "GSI1" -> "gsi1" */
            out[k++] = isupper((unsigned char)p[-1]) && isalpha((unsigned char)p[-1])
                           ? (char)tolower((unsigned char)*p)
                           : *p;
        }
        first = 0;
        up = 0;
    }
    if (k == 0)
        out[k++] = 'f';
    strcpy(out + k, suffix);
    return out;
}

/* A name no field of e has yet. */
static const char *unique_name(wb_draft *d, wb_entity *e, const char *base)
{
    char *n;
    if (find_field(e, base) == NULL)
        return base;
    if ((n = ddb_arena_alloc(d->a, strlen(base) + 12)) == NULL)
        return NULL;
    for (int i = 2;; i++) {
        sprintf(n, "%s%d", base, i);
        if (find_field(e, n) == NULL)
            return n;
    }
}

/* Are the values the same wherever col has one? */
static int same_values(const char *const *a, const char *const *col, size_t n)
{
    int any = 0;
    for (size_t i = 0; i < n; i++) {
        if (col[i] == NULL)
            continue;
        if (a[i] == NULL || strcmp(a[i], col[i]) != 0)
            return 0;
        any = 1;
    }
    return any;
}

/* The field a varying part is: a field with the same values, a stored
 * attribute with them, or a new one named as well as can be told. */
static wb_field *field_for(wb_draft *d, wb_entity *e, const char **col, const char *attr,
                           const char *name_hint)
{
    size_t i0 = 0;
    wb_field *f;
    for (size_t i = 0; i < e->n_fields; i++)
        if (e->fields[i].vals && same_values(e->fields[i].vals, col, e->n_items))
            return &e->fields[i];
    while (i0 < e->n_items && col[i0] == NULL)
        i0++;
    if (i0 < e->n_items) {
        json_object_object_foreach(e->items[i0], cand, val)
        {
            const char **vals;
            ddb_type t = DDB_TYPE_NONE;
            (void)val;
            if ((wb_is_key_attr(d, cand) == 1 && strcmp(cand, attr) != 0) ||
                (d->type_attr && strcmp(cand, d->type_attr) == 0) || stored_field(e, cand))
                continue;
            if ((vals = ddb_arena_calloc(d->a, e->n_items, sizeof(*vals))) == NULL)
                return NULL;
            for (size_t k = 0; k < e->n_items; k++) {
                ddb_type tk;
                vals[k] = wb_item_text(e->items[k], cand, &tk);
                if (vals[k] != NULL && (tk == DDB_TYPE_S || tk == DDB_TYPE_N))
                    t = tk;
            }
            if (t != DDB_TYPE_NONE && same_values(vals, col, e->n_items)) {
                if ((f = add_stored(d, e, cand, t)) == NULL)
                    return NULL;
                f->vals = vals;
                return f;
            }
        }
    }
    if ((name_hint = unique_name(d, e, name_hint)) == NULL ||
        (f = add_field(d, e, name_hint, DDB_TYPE_S)) == NULL)
        return NULL;
    f->vals = col;
    return f;
}

/* The next separator in s: ':' between two digits is part of a time, not a
 * separator. */
static const char *next_sep(const char *s, char sep)
{
    for (const char *p = s; *p; p++)
        if (*p == sep &&
            !(sep == ':' && p > s && isdigit((unsigned char)p[-1]) && isdigit((unsigned char)p[1])))
            return p;
    return NULL;
}

static size_t count_seps(const char *s, char sep)
{
    size_t n = 0;
    for (const char *p = s; (p = next_sep(p, sep)) != NULL; p++)
        n++;
    return n;
}

/* A part that every sample shares is literal text when it reads like a word
 * ("USER", "sh", "v1"); one that holds a number ("12345", a date) is an id
 * the samples happen to share. */
static int word_like(const char *s)
{
    int letters = 0, digits = 0;
    for (; *s; s++) {
        if (isalpha((unsigned char)*s))
            letters = 1;
        digits = isdigit((unsigned char)*s) ? digits + 1 : 0;
        if (digits >= 3)
            return 0;
    }
    return letters;
}

/* With a single sample, is a part literal? A leading word ("USER" in
 * "USER#alice") or a lone upper-case word ("PROFILE") is; ids are not. */
static int literal_alone(const char *s, size_t p, size_t nseg)
{
    int letters = 0, lower = 0;
    for (const char *c = s; *c; c++) {
        if (isalpha((unsigned char)*c)) {
            letters = 1;
            lower |= islower((unsigned char)*c);
        } else if (*c != '_' && !(nseg == 1 && isdigit((unsigned char)*c))) {
            return 0;
        }
    }
    if (!letters)
        return 0;
    return nseg > 1 ? p == 0 : !lower;
}

/* Splits the present values at the separator they all hold equally often.
 * Returns the number of parts written to parts (literal or varying). */
static size_t split_values(wb_draft *d, wb_entity *e, const char **vals, size_t present,
                           part *parts, char *sep_out)
{
    const char *first = NULL;
    char sep = 0;
    size_t nseg = 1, np = 0;
    for (size_t i = 0; i < e->n_items && first == NULL; i++)
        first = vals[i];
    for (const char *c = wb_seps(); *c; c++) {
        size_t cnt = count_seps(first, *c), ok = 1;
        for (size_t i = 0; i < e->n_items && ok && cnt; i++)
            ok = vals[i] == NULL || count_seps(vals[i], *c) == cnt;
        if (ok && cnt + 1 > nseg && cnt + 1 <= MAX_SEGS) {
            sep = *c;
            nseg = cnt + 1;
        }
    }
    *sep_out = sep;
    for (size_t p = 0; p < nseg; p++) {
        const char **col = ddb_arena_calloc(d->a, e->n_items, sizeof(*col));
        const char *c0 = NULL;
        int same = 1;
        if (col == NULL)
            return 0;
        for (size_t i = 0; i < e->n_items; i++) {
            const char *s = vals[i], *end;
            if (s == NULL)
                continue;
            for (size_t k = 0; k < p; k++)
                s = next_sep(s, sep) + 1;
            end = sep ? next_sep(s, sep) : NULL;
            col[i] = adup(d, s, end ? (size_t)(end - s) : strlen(s));
            if (col[i] == NULL)
                return 0;
            same &= c0 == NULL || strcmp(c0, col[i]) == 0;
            if (c0 == NULL)
                c0 = col[i];
        }
        parts[np].col = col;
        parts[np].lit =
            (present >= 2 ? same && word_like(c0) : literal_alone(c0, p, nseg)) ? c0 : NULL;
        np++;
    }
    return np;
}

/* Appends literal text to a template, braces doubled. */
static void put_literal(ddb_buf *b, const char *s)
{
    for (; *s; s++) {
        ddb_buf_putc(b, *s);
        if (*s == '{' || *s == '}')
            ddb_buf_putc(b, *s);
    }
}

/* An alias that is a template: "USER#<id>", "USER#{id}", "USER#${id}". */
static int alias_template(wb_draft *d, wb_entity *e, const char *attr, ddb_type type,
                          const char *alias, int table_key)
{
    ddb_buf b = DDB_BUF_INIT;
    size_t nfields = 0;
    char *tpl;
    for (const char *s = alias; *s; s++) {
        const char *close;
        if ((*s == '<' || *s == '{' || (*s == '$' && s[1] == '{')) &&
            (close = strchr(s, *s == '<' ? '>' : '}')) != NULL && close > s + 1) {
            const char *name = s + (*s == '$' ? 2 : 1);
            char *fname = adup(d, name, (size_t)(close - name));
            wb_field *f;
            if (fname == NULL || !wb_is_ident(fname))
                goto literal;
            if ((f = find_field(e, fname)) == NULL &&
                (f = add_field(d, e, fname, DDB_TYPE_S)) == NULL) {
                ddb_buf_dispose(&b);
                return oom(d);
            }
            f->in_table_key |= table_key;
            ddb_buf_printf(&b, "{%s}", fname);
            nfields++;
            s = close;
            continue;
        }
    literal:
        ddb_buf_putc(&b, *s);
        if (*s == '{' || *s == '}')
            ddb_buf_putc(&b, *s);
    }
    if (type != DDB_TYPE_S && nfields == 1 && b.ptr[0] == '{' && b.ptr[b.len - 1] == '}') {
        char *name = adup(d, b.ptr + 1, b.len - 2);
        wb_field *f = name ? find_field(e, name) : NULL;
        if (f)
            f->type = type;
    }
    tpl = b.oom ? NULL : adup(d, b.ptr, b.len);
    ddb_buf_dispose(&b);
    if (tpl == NULL)
        return oom(d);
    ddb_buf_printf(d->notes, "%s: %s from the facet's alias \"%s\"\n", e->name, attr, alias);
    return add_key(d, e, attr, tpl);
}

static int looks_like_template(const char *alias)
{
    return alias && (strchr(alias, '<') || strchr(alias, '{'));
}

/* The template of one key attribute of e, or none (an index attribute that
 * the facet's items lack, or that is simply one of its attributes). */
static int derive_key(wb_draft *d, wb_entity *e, const char *attr, ddb_type type, const char *alias,
                      int table_key, int pk)
{
    const char **vals = ddb_arena_calloc(d->a, e->n_items + 1, sizeof(*vals));
    part parts[MAX_SEGS + 1];
    size_t present = 0, np, nvar = 0, var = 0;
    ddb_buf b = DDB_BUF_INIT;
    char sep = 0, *tpl;
    if (vals == NULL)
        return oom(d);
    if (looks_like_template(alias))
        return alias_template(d, e, attr, type, alias, table_key);
    for (size_t i = 0; i < e->n_items; i++) {
        ddb_type t;
        vals[i] = wb_item_text(e->items[i], attr, &t);
        if (vals[i] != NULL && t != type)
            vals[i] = NULL;
        present += vals[i] != NULL;
    }
    if (present == 0) {
        const char *name;
        wb_field *f;
        if (!table_key)
            return 0;
        name = wb_is_ident(alias) && strcmp(alias, attr) != 0 ? alias : camel(d, attr, "");
        if (name == NULL || (name = unique_name(d, e, name)) == NULL ||
            (f = add_field(d, e, name, type)) == NULL)
            return oom(d);
        f->in_table_key = 1;
        ddb_buf_printf(d->notes, "%s: no sample item holds %s: its template is a guess\n", e->name,
                       attr);
        if ((tpl = ddb_arena_alloc(d->a, strlen(name) + 3)) == NULL)
            return oom(d);
        sprintf(tpl, "{%s}", name);
        return add_key(d, e, attr, tpl);
    }
    if (type != DDB_TYPE_S) {
        parts[0].lit = NULL;
        parts[0].col = vals;
        np = 1;
    } else {
        np = split_values(d, e, vals, present, parts, &sep);
        if (np == 0)
            return oom(d);
    }
    for (size_t p = 0; p < np; p++)
        nvar += parts[p].lit == NULL;
    for (size_t p = 0; p < np; p++) {
        wb_field *f;
        const char *hint;
        if (p > 0)
            ddb_buf_putc(&b, sep);
        if (parts[p].lit != NULL) {
            put_literal(&b, parts[p].lit);
            continue;
        }
        if (nvar == 1 && wb_is_ident(alias) && strcmp(alias, attr) != 0)
            hint = alias;
        else if (p > 0 && parts[p - 1].lit && strlen(parts[p - 1].lit) >= 2 &&
                 wb_is_ident(parts[p - 1].lit))
            hint = camel(d, parts[p - 1].lit, "Id");
        else if (pk && var == 0)
            hint = camel(d, e->name, "Id");
        else
            hint = camel(d, attr, "");
        if (hint == NULL || (f = field_for(d, e, parts[p].col, attr, hint)) == NULL) {
            ddb_buf_dispose(&b);
            return oom(d);
        }
        if (type != DDB_TYPE_S)
            f->type = type;
        f->in_table_key |= table_key;
        var++;
        /* An index attribute that is just one of the item's attributes needs no
         * template: it is that field, stored as itself. */
        if (!table_key && np == 1 && f->stored && strcmp(f->attr, attr) == 0) {
            ddb_buf_dispose(&b);
            return 0;
        }
        ddb_buf_printf(&b, "{%s}", f->name);
    }
    tpl = b.oom ? NULL : adup(d, b.ptr, b.len);
    ddb_buf_dispose(&b);
    if (tpl == NULL)
        return oom(d);
    return add_key(d, e, attr, tpl);
}

/* The facet's attributes that are not keys: its fields, stored as they are. */
static int attribute_fields(wb_draft *d, wb_entity *e)
{
    size_t nk = e->non_key ? json_object_array_length(e->non_key) : 0;
    for (size_t k = 0; k <= e->n_items; k++) {
        const char *names[512];
        size_t n = 0;
        if (k == 0) {
            for (size_t i = 0; i < nk && n < 512; i++) {
                json_object *v = json_object_array_get_idx(e->non_key, i);
                if (json_object_is_type(v, json_type_string))
                    names[n++] = json_object_get_string(v);
            }
        } else {
            json_object_object_foreach(e->items[k - 1], name, val)
            {
                (void)val;
                if (n < 512)
                    names[n++] = name;
            }
        }
        for (size_t i = 0; i < n; i++) {
            wb_field *f;
            if (wb_is_key_attr(d, names[i]) == 1 || has_key(e, names[i]) ||
                (d->type_attr && strcmp(names[i], d->type_attr) == 0))
                continue;
            if (stored_field(e, names[i]) != NULL)
                continue;
            if ((f = find_field(e, names[i])) != NULL && !f->stored && !f->in_table_key &&
                strcmp(f->attr, names[i]) == 0) {
                f->stored = 1; /* a field of a template that the items also store */
                continue;
            }
            if (add_stored(d, e, names[i], wb_attr_type(d, e, names[i])) == NULL)
                return oom(d);
        }
    }
    return 0;
}

int wb_derive_entities(wb_draft *d)
{
    for (size_t i = 0; i < d->n_entities; i++) {
        wb_entity *e = &d->entities[i];
        int rc = derive_key(d, e, d->pk.name, d->pk.type, e->pk_alias, 1, 1);
        if (rc == 0 && d->sk.name)
            rc = derive_key(d, e, d->sk.name, d->sk.type, e->sk_alias, 1, 0);
        for (size_t x = 0; rc == 0 && x < d->n_indexes; x++) {
            const wb_key *k[2] = {&d->indexes[x].pk, &d->indexes[x].sk};
            for (int j = 0; j < 2 && rc == 0; j++)
                if (k[j]->name && wb_is_key_attr(d, k[j]->name) != 1 && !has_key(e, k[j]->name))
                    rc = derive_key(d, e, k[j]->name, k[j]->type, NULL, 0, 0);
        }
        if (rc == 0)
            rc = attribute_fields(d, e);
        if (rc != 0)
            return rc;
        if (e->n_items == 0)
            ddb_buf_printf(d->notes, "%s: no sample items: its keys follow the facet's aliases\n",
                           e->name);
    }
    for (size_t i = 0; i < d->n_entities; i++)
        for (size_t j = 0; j < i && d->type_attr == NULL; j++)
            if (strcmp(d->entities[i].key_tpl[0], d->entities[j].key_tpl[0]) == 0 &&
                (d->sk.name == NULL ||
                 strcmp(d->entities[i].key_tpl[1], d->entities[j].key_tpl[1]) == 0))
                ddb_buf_printf(d->notes,
                               "%s and %s have the same key templates and no attribute tells "
                               "them apart: items decode as %s\n",
                               d->entities[j].name, d->entities[i].name, d->entities[j].name);
    return 0;
}
