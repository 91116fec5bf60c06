/*
 * select_plan.c — how to read a table for a selection (select.h): the key
 * the fixed fields give, through the mapping's key templates, on the table
 * or on one of its indexes; else a Scan with a FilterExpression.
 *
 * Everything sent is a superset of what is asked for: the records are
 * filtered again as they are decoded, so the request only has to never leave
 * out an item that matches. That is why the filter names only attributes an
 * item must hold for its record to have the field (stored, under one name,
 * and not recoverable from a key), and why a range on a sort key is used only
 * where the key's order is the field's order (its own bytes, at the end).
 */
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/buf.h"
#include "ddbpipe/json.h"
#include "ddbpipe/select.h"
#include "transform/template.h"

/* One Query a selection could make: a key, and how much of the selection it uses. */
typedef struct candidate {
    const char *index; /* NULL: the table */
    const char *pk_attr, *sk_attr;
    ddb_buf pk;           /* the partition key's value */
    ddb_type pk_type;     /* S or N */
    const char *sk_op;    /* NULL, "=", "begins_with", "BETWEEN", ">=", "<=" */
    ddb_buf sk_lo, sk_hi; /* its operands */
    ddb_type sk_type;
    int score; /* fields the key conditions fix */
} candidate;

static const ddb_template *template_of(const ddb_entity *e, const char *attr)
{
    for (size_t i = 0; attr != NULL && i < e->n_keys; i++)
        if (strcmp(e->keys[i].attr, attr) == 0)
            return &e->keys[i];
    return NULL;
}

static const ddb_cond *cond_on(const ddb_select *s, const char *field, ddb_cond_op op)
{
    for (size_t i = 0; i < s->n_conds; i++)
        if (s->conds[i].op == op && strcmp(s->conds[i].field, field) == 0)
            return &s->conds[i];
    return NULL;
}

static int fields_in(const ddb_template *t)
{
    int n = 0;
    for (size_t i = 0; i < t->n_segs; i++)
        n += t->segs[i].field >= 0;
    return n;
}

/* a > b, byte by byte (a longer a after an equal start is after). */
static int bytes_after(const ddb_buf *a, const ddb_buf *b)
{
    size_t n = a->len < b->len ? a->len : b->len;
    int c = n ? memcmp(a->ptr, b->ptr, n) : 0;
    return c > 0 || (c == 0 && a->len > b->len);
}

/* The sort key past its fixed prefix (c->sk_lo): begins_with or a range on
 * the first field not fixed, when it is the key's own bytes. */
static void narrow_sort_key(candidate *c, const ddb_select *s, const ddb_entity *e,
                            const ddb_template *t, int missing)
{
    size_t k = 0;
    const ddb_cond *pre, *lo, *hi;
    const char *name = e->fields[missing].name;
    while (k < t->n_segs && t->segs[k].field != missing)
        k++;
    if (k == t->n_segs || t->segs[k].how != DDB_TPL_OWN_S || c->sk_type != DDB_TYPE_S)
        goto prefix_only;
    if ((pre = cond_on(s, name, DDB_COND_PREFIX)) != NULL) {
        ddb_buf_puts(&c->sk_lo, pre->value);
        c->sk_op = "begins_with";
        c->score++;
        return;
    }
    lo = cond_on(s, name, DDB_COND_GE) ? cond_on(s, name, DDB_COND_GE) : cond_on(s, name, DDB_COND_GT);
    hi = cond_on(s, name, DDB_COND_LE) ? cond_on(s, name, DDB_COND_LE) : cond_on(s, name, DDB_COND_LT);
    if (hi && k + 1 == t->n_segs) {
        /* the field ends the key: P + field <= P + B exactly when field <= B */
        ddb_buf_append(&c->sk_hi, c->sk_lo.ptr, c->sk_lo.len);
        ddb_buf_puts(&c->sk_hi, hi->value);
        if (lo)
            ddb_buf_puts(&c->sk_lo, lo->value);
        if (bytes_after(&c->sk_lo, &c->sk_hi)) {
            /* A > B: DynamoDB refuses such a BETWEEN; the partition's records
             * are read and none passes the filter */
            ddb_buf_clear(&c->sk_lo);
            return;
        }
        c->sk_op = "BETWEEN";
        c->score++;
        return;
    }
    if (lo && c->sk_lo.len == 0) {
        /* field >= A byte by byte makes field + anything >= A, wherever it ends */
        ddb_buf_puts(&c->sk_lo, lo->value);
        c->sk_op = ">=";
        c->score++;
        return;
    }
prefix_only:
    if (c->sk_lo.len > 0 && c->sk_type == DDB_TYPE_S)
        c->sk_op = "begins_with";
    else
        ddb_buf_clear(&c->sk_lo);
}

/* Whether the fixed fields give e's key pk_attr (and how far sk_attr). */
static int try_key(candidate *c, const ddb_select *s, const ddb_entity *e, const ddb_value **vals)
{
    const ddb_template *pt = template_of(e, c->pk_attr), *st = template_of(e, c->sk_attr);
    int missing = -1;
    ddb_error ignored;
    if (pt == NULL || (pt->attr_type != DDB_TYPE_S && pt->attr_type != DDB_TYPE_N) ||
        ddb_template_render(&c->pk, pt, e, vals, &missing, &ignored) != 0)
        return 0;
    c->pk_type = pt->attr_type;
    c->score = fields_in(pt);
    if (st == NULL || (st->attr_type != DDB_TYPE_S && st->attr_type != DDB_TYPE_N))
        return 1;
    c->sk_type = st->attr_type;
    missing = -1;
    switch (ddb_template_render(&c->sk_lo, st, e, vals, &missing, &ignored)) {
    case 0:
        c->sk_op = "=";
        c->score += fields_in(st);
        break;
    case DDB_ENOMATCH:
        for (size_t i = 0; i < st->n_segs && st->segs[i].field != missing; i++)
            c->score += st->segs[i].field >= 0;
        narrow_sort_key(c, s, e, st, missing);
        break;
    default:
        ddb_buf_clear(&c->sk_lo);
    }
    return 1;
}

static void candidate_dispose(candidate *c)
{
    ddb_buf_dispose(&c->pk);
    ddb_buf_dispose(&c->sk_lo);
    ddb_buf_dispose(&c->sk_hi);
}

/* The entity a Query can serve: the only one selected. */
static const ddb_entity *single_entity(const ddb_select *s, const ddb_mapping *m)
{
    if (s->n_entities == 1)
        return ddb_mapping_entity(m, s->entities[0]);
    return s->n_entities == 0 && m->n_entities == 1 ? &m->entities[0] : NULL;
}

/* The best key among the table's and its full-projection indexes': the one
 * fixing the most fields (the table on a tie). 0 when none is given. */
static int best_key(candidate *best, const ddb_select *s, const ddb_mapping *m,
                    const ddb_entity *e, const ddb_value **vals)
{
    int found = 0;
    for (size_t i = 0; i <= m->table.n_indexes; i++) {
        candidate c;
        const ddb_index_def *ix = i ? &m->table.indexes[i - 1] : NULL;
        memset(&c, 0, sizeof(c));
        if (ix != NULL && (ix->projection == NULL || strcmp(ix->projection, "ALL") != 0))
            continue; /* the items would come back partial */
        c.index = ix ? ix->name : NULL;
        c.pk_attr = ix ? ix->pk.name : m->table.pk.name;
        c.sk_attr = ix ? ix->sk.name : m->table.sk.name;
        if (try_key(&c, s, e, vals) && (!found || c.score > best->score)) {
            if (found)
                candidate_dispose(best);
            *best = c;
            found = 1;
            continue;
        }
        candidate_dispose(&c);
    }
    return found;
}

/* ------------------------------------------------------- the request */

typedef struct expr {
    ddb_buf names, values, text;
    ddb_buf readable; /* the same with the names and values written in, for people */
    int n;
} expr;

/* Appends the same words to the expression and its readable form. */
static void expr_word(expr *x, const char *w)
{
    ddb_buf_puts(&x->text, w);
    ddb_buf_puts(&x->readable, w);
}

/* Adds #nN and :vN for an attribute and a typed value; returns N. */
static int expr_operand(expr *x, const char *attr, ddb_type type, const char *v, size_t len)
{
    int n = x->n++;
    ddb_buf_printf(&x->names, "%s\"#n%d\":", n ? "," : "", n);
    ddb_json_put_string(&x->names, attr, strlen(attr));
    ddb_buf_printf(&x->values, "%s\":v%d\":{\"%s\":", n ? "," : "", n, ddb_type_name(type));
    ddb_json_put_string(&x->values, v, len);
    ddb_buf_putc(&x->values, '}');
    return n;
}

static void key_condition(expr *x, const candidate *c)
{
    int n = expr_operand(x, c->pk_attr, c->pk_type, c->pk.ptr, c->pk.len), lo;
    ddb_buf_printf(&x->text, "#n%d = :v%d", n, n);
    if (c->sk_op == NULL)
        return;
    lo = expr_operand(x, c->sk_attr, c->sk_type, c->sk_lo.ptr ? c->sk_lo.ptr : "", c->sk_lo.len);
    if (strcmp(c->sk_op, "begins_with") == 0) {
        ddb_buf_printf(&x->text, " AND begins_with(#n%d, :v%d)", lo, lo);
    } else if (strcmp(c->sk_op, "BETWEEN") == 0) {
        int hi = expr_operand(x, c->sk_attr, c->sk_type, c->sk_hi.ptr ? c->sk_hi.ptr : "",
                              c->sk_hi.len);
        ddb_buf_printf(&x->text, " AND #n%d BETWEEN :v%d AND :v%d", lo, lo, hi);
    } else {
        ddb_buf_printf(&x->text, " AND #n%d %s :v%d", lo, c->sk_op, lo);
    }
}

/* The attribute an item must hold for its record to have field name, in
 * every selected entity that has the field; NULL when there is none such
 * (not stored, other names accepted, or recoverable from a key). */
static const ddb_field *filterable(const ddb_select *s, const ddb_mapping *m, const char *name)
{
    const ddb_field *one = NULL;
    for (size_t i = 0; i < m->n_entities; i++) {
        const ddb_entity *e = &m->entities[i];
        int fi = ddb_entity_field_index(e, name, strlen(name));
        const ddb_field *f = fi < 0 ? NULL : &e->fields[fi];
        if (f == NULL || !ddb_select_entity(s, e))
            continue;
        if (!f->store || f->n_aliases || f->enum_keys || f->format == DDB_FMT_WEEKDAY ||
            (one != NULL && strcmp(one->attribute, f->attribute) != 0))
            return NULL;
        for (size_t k = 0; k < e->n_keys; k++)
            for (size_t g = 0; g < e->keys[k].n_segs; g++)
                if (e->keys[k].segs[g].field == fi)
                    return NULL;
        one = f;
    }
    return one;
}

static void filter_condition(expr *x, const ddb_select *s, const ddb_mapping *m,
                             const candidate *key)
{
    static const char *const ops[] = {"=", NULL, ">=", ">", "<=", "<"};
    for (size_t i = 0; i < s->n_conds; i++) {
        const ddb_cond *c = &s->conds[i];
        const ddb_field *f = filterable(s, m, c->field);
        int n;
        if (f == NULL || (key && (strcmp(f->attribute, key->pk_attr) == 0 ||
                                  (key->sk_attr && strcmp(f->attribute, key->sk_attr) == 0))))
            continue;
        n = expr_operand(x, f->attribute, f->type, c->value, strlen(c->value));
        if (x->text.len)
            expr_word(x, " AND ");
        if (c->op == DDB_COND_PREFIX) {
            ddb_buf_printf(&x->text, "begins_with(#n%d, :v%d)", n, n);
            ddb_buf_printf(&x->readable, "begins_with(%s, '%s')", f->attribute, c->value);
        } else {
            ddb_buf_printf(&x->text, "#n%d %s :v%d", n, ops[c->op], n);
            ddb_buf_printf(&x->readable, "%s %s %s%s%s", f->attribute, ops[c->op],
                           f->type == DDB_TYPE_S ? "'" : "", c->value,
                           f->type == DDB_TYPE_S ? "'" : "");
        }
    }
}

/* The literal text every key of e's pk_template begins with, or NULL. */
static const ddb_tpl_seg *pk_literal(const ddb_mapping *m, const ddb_entity *e)
{
    const ddb_template *t = template_of(e, m->table.pk.name);
    if (t == NULL || t->n_segs == 0 || t->segs[0].field >= 0 || t->segs[0].lit_len == 0 ||
        t->attr_type != DDB_TYPE_S)
        return NULL;
    return &t->segs[0];
}

/* Only the selected entities' items: by the table's type attribute when every
 * one of them has a value there, else by the literal start of their partition
 * keys when every one has one; else no condition (the records tell). */
static void entity_condition(expr *x, const ddb_select *s, const ddb_mapping *m)
{
    int by_type = m->table.type_attr != NULL, by_pk = 1;
    if (s->n_entities == 0)
        return;
    for (size_t i = 0; i < s->n_entities; i++) {
        const ddb_entity *e = ddb_mapping_entity(m, s->entities[i]);
        by_type = by_type && e->type_value != NULL;
        by_pk = by_pk && pk_literal(m, e) != NULL;
    }
    if (!by_type && !by_pk)
        return;
    expr_word(x, x->text.len ? " AND (" : "(");
    for (size_t i = 0; i < s->n_entities; i++) {
        const ddb_entity *e = ddb_mapping_entity(m, s->entities[i]);
        const ddb_tpl_seg *lit = by_type ? NULL : pk_literal(m, e);
        const char *attr = by_type ? m->table.type_attr : m->table.pk.name;
        int n = by_type ? expr_operand(x, attr, DDB_TYPE_S, e->type_value, strlen(e->type_value))
                        : expr_operand(x, attr, DDB_TYPE_S, lit->lit, lit->lit_len);
        expr_word(x, i ? " OR " : "");
        ddb_buf_printf(&x->text, by_type ? "#n%d = :v%d" : "begins_with(#n%d, :v%d)", n, n);
        if (by_type)
            ddb_buf_printf(&x->readable, "%s = '%s'", attr, e->type_value);
        else
            ddb_buf_printf(&x->readable, "begins_with(%s, '%.*s')", attr, (int)lit->lit_len,
                           lit->lit);
    }
    expr_word(x, ")");
}

/* Adds #nN for attr to the projection (once). */
static void projection_name(expr *x, const char *attr)
{
    size_t len = strlen(attr);
    for (const char *p = x->readable.ptr; p != NULL && *p;) { /* readable: "a, b, ..." */
        const char *end = strstr(p, ", ");
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n == len && memcmp(p, attr, len) == 0)
            return;
        p = end ? end + 2 : p + n;
    }
    ddb_buf_printf(&x->names, "%s\"#n%d\":", x->n ? "," : "", x->n);
    ddb_json_put_string(&x->names, attr, len);
    ddb_buf_printf(&x->text, "%s#n%d", x->text.len ? ", " : "", x->n++);
    ddb_buf_printf(&x->readable, "%s%s", x->readable.len ? ", " : "", attr);
}

/* The attributes field name comes from in entity e: its own (and the other
 * names it is accepted under), and the keys whose templates hold it. */
static void projection_field(expr *x, const ddb_entity *e, const char *name)
{
    int fi = ddb_entity_field_index(e, name, strlen(name));
    if (fi < 0)
        return;
    if (e->fields[fi].store)
        projection_name(x, e->fields[fi].attribute);
    for (size_t i = 0; i < e->fields[fi].n_aliases; i++)
        projection_name(x, e->fields[fi].aliases[i]);
    for (size_t k = 0; k < e->n_keys; k++)
        for (size_t g = 0; g < e->keys[k].n_segs; g++)
            if (e->keys[k].segs[g].field == fi) {
                projection_name(x, e->keys[k].attr);
                break;
            }
}

/* What the records need: the table's keys and type attribute (they tell the
 * entity), and for each selected entity the projected fields, the fields
 * --where reads and the required ones (a record without them is no record). */
static void projection(expr *x, const ddb_select *s, const ddb_mapping *m)
{
    projection_name(x, m->table.pk.name);
    if (m->table.sk.name)
        projection_name(x, m->table.sk.name);
    if (m->table.type_attr)
        projection_name(x, m->table.type_attr);
    for (size_t i = 0; i < m->n_entities; i++) {
        const ddb_entity *e = &m->entities[i];
        if (!ddb_select_entity(s, e))
            continue;
        for (size_t f = 0; f < s->n_project; f++)
            projection_field(x, e, s->project[f]);
        for (size_t c = 0; c < s->n_conds; c++)
            projection_field(x, e, s->conds[c].field);
        for (size_t f = 0; f < e->n_fields; f++)
            if (e->fields[f].required)
                projection_field(x, e, e->fields[f].name);
    }
}

static void put_member(ddb_buf *b, const char *name, const ddb_buf *text)
{
    ddb_buf_printf(b, ",\"%s\":", name);
    ddb_json_put_string(b, text->ptr ? text->ptr : "", text->len);
}

/* "Query of index gsiOne: gsiOnePk = FavoriteData#u7#IMAGE" and the like. */
static void describe(ddb_buf *how, const candidate *c, const ddb_buf *filter)
{
    if (c == NULL) {
        ddb_buf_printf(how, "Scan with FilterExpression %s", filter->len ? filter->ptr : "(none)");
        return;
    }
    if (c->index)
        ddb_buf_printf(how, "Query of index %s: ", c->index);
    else
        ddb_buf_puts(how, "Query of the table: ");
    ddb_buf_printf(how, "%s = %.*s", c->pk_attr, (int)c->pk.len, c->pk.ptr ? c->pk.ptr : "");
    if (c->sk_op && strcmp(c->sk_op, "BETWEEN") == 0)
        ddb_buf_printf(how, ", %s BETWEEN %.*s AND %.*s", c->sk_attr, (int)c->sk_lo.len,
                       c->sk_lo.ptr ? c->sk_lo.ptr : "", (int)c->sk_hi.len,
                       c->sk_hi.ptr ? c->sk_hi.ptr : "");
    else if (c->sk_op)
        ddb_buf_printf(how, ", %s %s %.*s", c->sk_attr, c->sk_op, (int)c->sk_lo.len,
                       c->sk_lo.ptr ? c->sk_lo.ptr : "");
    if (filter->len)
        ddb_buf_printf(how, ", FilterExpression %s", filter->ptr);
}

static void build(ddb_select_request *out, ddb_buf *b, ddb_buf *how, const ddb_select *s,
                  const ddb_mapping *m, const candidate *key)
{
    expr kx, fx, px;
    memset(&kx, 0, sizeof(kx));
    memset(&fx, 0, sizeof(fx));
    memset(&px, 0, sizeof(px));
    if (key) {
        key_condition(&kx, key);
        if (key->index)
            ddb_buf_puts(b, ",\"IndexName\":"), ddb_json_put_string(b, key->index, strlen(key->index));
        put_member(b, "KeyConditionExpression", &kx.text);
    }
    fx.n = kx.n; /* one numbering for both expressions */
    filter_condition(&fx, s, m, key);
    if (!key)
        entity_condition(&fx, s, m);
    if (fx.text.len)
        put_member(b, "FilterExpression", &fx.text);
    px.n = fx.n;
    if (s->n_project) {
        projection(&px, s, m);
        put_member(b, "ProjectionExpression", &px.text);
    }
    if (px.n) {
        ddb_buf_puts(b, ",\"ExpressionAttributeNames\":{");
        ddb_buf_append(b, kx.names.ptr ? kx.names.ptr : "", kx.names.len);
        ddb_buf_append(b, fx.names.ptr ? fx.names.ptr : "", fx.names.len);
        ddb_buf_append(b, px.names.ptr ? px.names.ptr : "", px.names.len);
        ddb_buf_putc(b, '}');
    }
    if (kx.values.len || fx.values.len) { /* DynamoDB refuses an empty one */
        ddb_buf_puts(b, ",\"ExpressionAttributeValues\":{");
        ddb_buf_append(b, kx.values.ptr ? kx.values.ptr : "", kx.values.len);
        ddb_buf_append(b, fx.values.ptr ? fx.values.ptr : "", fx.values.len);
        ddb_buf_putc(b, '}');
    }
    describe(how, key, &fx.readable);
    if (px.readable.len)
        ddb_buf_printf(how, ", ProjectionExpression %s", px.readable.ptr);
    out->query = key != NULL;
    ddb_buf_dispose(&kx.names), ddb_buf_dispose(&kx.values), ddb_buf_dispose(&kx.text);
    ddb_buf_dispose(&fx.names), ddb_buf_dispose(&fx.values), ddb_buf_dispose(&fx.text);
    ddb_buf_dispose(&kx.readable), ddb_buf_dispose(&fx.readable);
    ddb_buf_dispose(&px.names), ddb_buf_dispose(&px.text), ddb_buf_dispose(&px.readable);
}

int ddb_select_plan(ddb_select_request *out, const ddb_select *s, const ddb_mapping *m,
                    ddb_error *err)
{
    const ddb_entity *e = single_entity(s, m);
    ddb_value *store = NULL;
    const ddb_value **vals = NULL;
    ddb_buf b = DDB_BUF_INIT, how = DDB_BUF_INIT;
    candidate key;
    int have_key = 0, rc = 0;

    memset(out, 0, sizeof(*out));
    if (e != NULL) {
        store = calloc(e->n_fields + 1, sizeof(*store));
        vals = calloc(e->n_fields + 1, sizeof(*vals));
        if (store == NULL || vals == NULL) {
            rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
            goto done;
        }
        for (size_t i = 0; i < e->n_fields; i++) {
            const ddb_cond *c = cond_on(s, e->fields[i].name, DDB_COND_EQ);
            if (c == NULL || (e->fields[i].type != DDB_TYPE_S && e->fields[i].type != DDB_TYPE_N))
                continue;
            store[i].type = e->fields[i].type;
            store[i].u.s.ptr = c->value;
            store[i].u.s.len = strlen(c->value);
            vals[i] = &store[i];
        }
        have_key = best_key(&key, s, m, e, vals);
    }
    build(out, &b, &how, s, m, have_key ? &key : NULL);
    if (b.oom || how.oom) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto done;
    }
    if (have_key && key.index && (out->index = strdup(key.index)) == NULL) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto done;
    }
    out->members = b.len ? ddb_buf_detach(&b, NULL) : NULL;
    out->how = ddb_buf_detach(&how, NULL);
done:
    if (have_key)
        candidate_dispose(&key);
    if (rc != 0)
        ddb_select_request_dispose(out);
    ddb_buf_dispose(&b);
    ddb_buf_dispose(&how);
    free(store);
    free(vals);
    return rc;
}
