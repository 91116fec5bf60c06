/*
 * select.c — only the data asked for (select.h): parsing the selection,
 * applying it to records, and choosing between a Query and a filtered Scan.
 */
#include "ddbpipe/select.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/buf.h"
#include "ddbpipe/json.h"
#include "ddbpipe/number.h"
#include "transform/template.h"

/* ------------------------------------------------------------- parsing */

/* The next comma-separated part of *p (with "\," a comma in it), malloc'd. */
static char *next_part(const char **p)
{
    const char *s = *p;
    ddb_buf b = DDB_BUF_INIT;
    for (; *s && *s != ','; s++) {
        if (*s == '\\' && s[1] == ',')
            s++;
        ddb_buf_putc(&b, *s);
    }
    *p = *s ? s + 1 : s;
    ddb_buf_putc(&b, '\0');
    return ddb_buf_detach(&b, NULL);
}

/* FIELD, the operator and the value of one --where part (in place). */
static int split_cond(ddb_cond *c, char *part, ddb_error *err)
{
    static const struct {
        const char *text;
        ddb_cond_op op;
    } ops[] = {{"^=", DDB_COND_PREFIX}, {">=", DDB_COND_GE}, {"<=", DDB_COND_LE},
               {"=", DDB_COND_EQ},      {">", DDB_COND_GT},  {"<", DDB_COND_LT}};
    size_t at = strcspn(part, "^=<>");
    if (at == 0 || part[at] == '\0')
        return ddb_error_set(err, DDB_EUSAGE,
                             "'%s' is not FIELD=VALUE, FIELD^=PREFIX, FIELD>=A, FIELD>A, "
                             "FIELD<=B or FIELD<B",
                             part);
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
        size_t n = strlen(ops[i].text);
        if (strncmp(part + at, ops[i].text, n) == 0) {
            c->op = ops[i].op;
            c->value = strdup(part + at + n);
            part[at] = '\0';
            c->field = strdup(part);
            if (c->field == NULL || c->value == NULL)
                return ddb_error_set(err, DDB_ENOMEM, "out of memory");
            return 0;
        }
    }
    return ddb_error_set(err, DDB_EUSAGE, "'%s': '^' must be followed by '='", part);
}

/* A list of names ("A,B": entities, fields) into *names. */
static int parse_names(char ***names, size_t *n, const char *list, const char *what,
                       ddb_error *err)
{
    const char *p = list;
    while (*p) {
        char *name = next_part(&p), **grown;
        if (name == NULL)
            return ddb_error_set(err, DDB_ENOMEM, "out of memory");
        if (name[0] == '\0') {
            free(name);
            return ddb_error_set(err, DDB_EUSAGE, "an empty %s name in '%s'", what, list);
        }
        grown = realloc(*names, (*n + 1) * sizeof(char *));
        if (grown == NULL) {
            free(name);
            return ddb_error_set(err, DDB_ENOMEM, "out of memory");
        }
        *names = grown;
        (*names)[(*n)++] = name;
    }
    return 0;
}

static int parse_where(ddb_select *s, const char *list, ddb_error *err)
{
    const char *p = list;
    while (*p) {
        char *part = next_part(&p);
        ddb_cond *grown;
        int rc;
        if (part == NULL)
            return ddb_error_set(err, DDB_ENOMEM, "out of memory");
        grown = realloc(s->conds, (s->n_conds + 1) * sizeof(ddb_cond));
        if (grown == NULL) {
            free(part);
            return ddb_error_set(err, DDB_ENOMEM, "out of memory");
        }
        s->conds = grown;
        memset(&s->conds[s->n_conds], 0, sizeof(ddb_cond));
        rc = split_cond(&s->conds[s->n_conds++], part, err);
        free(part);
        if (rc != 0)
            return rc;
    }
    return 0;
}

int ddb_select_parse(ddb_select **out, const char *entities, const char *where,
                     const char *project, uint64_t sample, ddb_error *err)
{
    ddb_select *s;
    int rc = 0;
    *out = NULL;
    if ((entities == NULL || !*entities) && (where == NULL || !*where) &&
        (project == NULL || !*project) && sample == 0)
        return 0;
    if ((s = calloc(1, sizeof(*s))) == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    s->sample = sample;
    if (entities != NULL &&
        (rc = parse_names(&s->entities, &s->n_entities, entities, "entity", err)) != 0)
        goto done;
    if (project != NULL &&
        (rc = parse_names(&s->project, &s->n_project, project, "field", err)) != 0)
        goto done;
    if (where != NULL && (rc = parse_where(s, where, err)) != 0)
        goto done;
    *out = s;
    s = NULL;
done:
    ddb_select_free(s);
    return rc;
}

/* ------------------------------------------------------------ checking */

int ddb_select_entity(const ddb_select *s, const ddb_entity *e)
{
    if (s->n_entities == 0)
        return 1;
    for (size_t i = 0; i < s->n_entities; i++)
        if (strcmp(s->entities[i], e->name) == 0)
            return 1;
    return 0;
}

static const ddb_field *field_of(const ddb_entity *e, const char *name)
{
    int i = ddb_entity_field_index(e, name, strlen(name));
    return i < 0 ? NULL : &e->fields[i];
}

/* A condition's field must be an S or N field of some selected entity (and
 * the same type wherever it is): anything else would silently match nothing. */
static int check_cond(const ddb_select *s, const ddb_mapping *m, const ddb_cond *c,
                      ddb_error *err)
{
    const ddb_field *seen = NULL;
    for (size_t i = 0; i < m->n_entities; i++) {
        const ddb_field *f = ddb_select_entity(s, &m->entities[i])
                                 ? field_of(&m->entities[i], c->field)
                                 : NULL;
        if (f == NULL)
            continue;
        if (f->type != DDB_TYPE_S && f->type != DDB_TYPE_N)
            return ddb_error_set(err, DDB_EUSAGE,
                                 "--where %s: the field is %s; only S and N fields can be "
                                 "selected on",
                                 c->field, ddb_type_name(f->type));
        if (seen != NULL && seen->type != f->type)
            return ddb_error_set(err, DDB_EUSAGE,
                                 "--where %s: the field is S in one entity and N in another: "
                                 "select one entity with --entities",
                                 c->field);
        seen = f;
    }
    if (seen == NULL)
        return ddb_error_set(err, DDB_EUSAGE, "--where %s: no %sentity has a field %s",
                             c->field, s->n_entities ? "selected " : "", c->field);
    if (seen->type == DDB_TYPE_N && c->op == DDB_COND_PREFIX)
        return ddb_error_set(err, DDB_EUSAGE, "--where %s^=: a prefix of a number field",
                             c->field);
    if (seen->type == DDB_TYPE_N && ddb_number_validate(c->value, strlen(c->value), NULL) != 0)
        return ddb_error_set(err, DDB_EUSAGE, "--where %s: '%s' is not a number", c->field,
                             c->value);
    return 0;
}

int ddb_select_check(const ddb_select *s, const ddb_mapping *m, ddb_error *err)
{
    for (size_t i = 0; i < s->n_entities; i++)
        if (ddb_mapping_entity(m, s->entities[i]) == NULL)
            return ddb_error_set(err, DDB_EUSAGE, "--entities: the mapping has no entity %s",
                                 s->entities[i]);
    for (size_t i = 0; i < s->n_conds; i++) {
        int rc = check_cond(s, m, &s->conds[i], err);
        if (rc != 0)
            return rc;
    }
    for (size_t i = 0; i < s->n_project; i++) {
        int found = 0;
        for (size_t e = 0; e < m->n_entities && !found; e++)
            found = ddb_select_entity(s, &m->entities[e]) &&
                    field_of(&m->entities[e], s->project[i]) != NULL;
        if (!found)
            return ddb_error_set(err, DDB_EUSAGE, "--project %s: no %sentity has a field %s",
                                 s->project[i], s->n_entities ? "selected " : "", s->project[i]);
    }
    return 0;
}

/* ------------------------------------------------------------- records */

static const ddb_value *record_value(const ddb_map *rec, const char *name)
{
    for (size_t i = 0; i < rec->count; i++)
        if (ddb_cstr_eq(name, rec->attrs[i].name.ptr, rec->attrs[i].name.len))
            return &rec->attrs[i].value;
    return NULL;
}

/* memcmp order, shorter first on a tie: how DynamoDB orders S (UTF-8 bytes). */
static int text_compare(const char *a, size_t alen, const char *b, size_t blen)
{
    int c = memcmp(a, b, alen < blen ? alen : blen);
    if (c != 0)
        return c < 0 ? -1 : 1;
    return alen < blen ? -1 : alen > blen;
}

static int cond_holds(const ddb_cond *c, const ddb_value *v)
{
    size_t vlen = strlen(c->value);
    int cmp;
    if (v == NULL || (v->type != DDB_TYPE_S && v->type != DDB_TYPE_N))
        return 0;
    if (c->op == DDB_COND_PREFIX)
        return v->type == DDB_TYPE_S && v->u.s.len >= vlen && memcmp(v->u.s.ptr, c->value, vlen) == 0;
    if (v->type == DDB_TYPE_N) {
        cmp = ddb_number_compare_text(v->u.s.ptr, v->u.s.len, c->value, vlen, NULL);
        if (cmp != -1 && cmp != 0 && cmp != 1)
            return 0; /* checked values are numbers: only a damaged record lands here */
    } else {
        cmp = text_compare(v->u.s.ptr, v->u.s.len, c->value, vlen);
    }
    switch (c->op) {
    case DDB_COND_EQ:
        return cmp == 0;
    case DDB_COND_GE:
        return cmp >= 0;
    case DDB_COND_GT:
        return cmp > 0;
    case DDB_COND_LE:
        return cmp <= 0;
    default:
        return cmp < 0;
    }
}

int ddb_select_record(const ddb_select *s, const ddb_entity *e, const ddb_map *rec)
{
    if (!ddb_select_entity(s, e))
        return 0;
    for (size_t i = 0; i < s->n_conds; i++)
        if (!cond_holds(&s->conds[i], record_value(rec, s->conds[i].field)))
            return 0;
    return 1;
}

static int projected(const ddb_select *s, const ddb_str *name)
{
    for (size_t i = 0; i < s->n_project; i++)
        if (ddb_cstr_eq(s->project[i], name->ptr, name->len))
            return 1;
    return 0;
}

int ddb_select_project(const ddb_select *s, const ddb_map *rec, size_t n_declared, ddb_map *out,
                       size_t *out_declared, ddb_arena *a)
{
    size_t k = 0;
    *out = *rec;
    *out_declared = n_declared;
    if (s == NULL || s->n_project == 0)
        return 0;
    /* undeclared attributes (_extra) are no fields: never projected */
    out->attrs = ddb_arena_alloc(a, (n_declared ? n_declared : 1) * sizeof(ddb_attr));
    if (out->attrs == NULL)
        return DDB_ENOMEM;
    for (size_t i = 0; i < n_declared; i++)
        if (projected(s, &rec->attrs[i].name))
            out->attrs[k++] = rec->attrs[i];
    out->count = k;
    *out_declared = k;
    return 0;
}

void ddb_select_request_dispose(ddb_select_request *r)
{
    if (r == NULL)
        return;
    free(r->index);
    free(r->members);
    free(r->how);
    memset(r, 0, sizeof(*r));
}

void ddb_select_free(ddb_select *s)
{
    if (s == NULL)
        return;
    for (size_t i = 0; i < s->n_entities; i++)
        free(s->entities[i]);
    free(s->entities);
    for (size_t i = 0; i < s->n_conds; i++) {
        free(s->conds[i].field);
        free(s->conds[i].value);
    }
    free(s->conds);
    for (size_t i = 0; i < s->n_project; i++)
        free(s->project[i]);
    free(s->project);
    free(s);
}
