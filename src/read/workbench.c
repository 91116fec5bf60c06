/*
 * A mapping drafted from a NoSQL Workbench model (see workbench.h). The model
 * is a small design file, so json-c reads it whole; the sample items' key
 * values are strings in DynamoDB JSON, so no number passes through a double.
 * Everything the draft allocates lives in one arena.
 */
#include "ddbpipe/workbench.h"

#include <ctype.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ddbpipe/arena.h"
#include "ddbpipe/json.h"
#include "ddbpipe/value.h"
#include "read/workbench_internal.h"

#define MAX_SEGS 16

static const char seps[] = "#|:/~";

/* ------------------------------------------------------------- model */

static int contains_ci(const char *s, const char *word)
{
    size_t n = strlen(word);
    for (; *s; s++)
        if (strncasecmp(s, word, n) == 0)
            return 1;
    return 0;
}

static const char *jstr(json_object *o, const char *key)
{
    json_object *v;
    if (o && json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string))
        return json_object_get_string(v);
    return NULL;
}

static json_object *jget(json_object *o, const char *key, json_type type)
{
    json_object *v;
    if (o && json_object_object_get_ex(o, key, &v) && json_object_is_type(v, type))
        return v;
    return NULL;
}

static ddb_type type_of(const char *s)
{
    ddb_type t;
    if (s == NULL || ddb_type_parse(&t, s, strlen(s)) != 0)
        return DDB_TYPE_NONE;
    return t;
}

/* The text of a scalar key-like value (S, N, B) of an item, with its type. */
const char *wb_item_text(json_object *item, const char *attr, ddb_type *type)
{
    json_object *v = jget(item, attr, json_type_object);
    *type = DDB_TYPE_NONE;
    if (v == NULL)
        return NULL;
    json_object_object_foreach(v, k, val)
    {
        if (!json_object_is_type(val, json_type_string))
            return NULL;
        *type = type_of(k);
        if (*type != DDB_TYPE_S && *type != DDB_TYPE_N && *type != DDB_TYPE_B)
            return NULL;
        return json_object_get_string(val);
    }
    return NULL;
}

/* The type an item gives an attribute ({"M": ...} -> M), or NONE. */
static ddb_type item_type(json_object *item, const char *attr)
{
    json_object *v = jget(item, attr, json_type_object);
    if (v == NULL)
        return DDB_TYPE_NONE;
    json_object_object_foreach(v, k, val)
    {
        (void)val;
        return type_of(k);
    }
    return DDB_TYPE_NONE;
}

/* The type the model declares for an attribute (key, non-key or index). */
static ddb_type declared_type(const wb_draft *d, const char *name)
{
    json_object *nk = jget(d->table, "NonKeyAttributes", json_type_array);
    if (strcmp(name, d->pk.name) == 0)
        return d->pk.type;
    if (d->sk.name && strcmp(name, d->sk.name) == 0)
        return d->sk.type;
    for (size_t i = 0; i < d->n_indexes; i++) {
        if (d->indexes[i].pk.name && strcmp(d->indexes[i].pk.name, name) == 0)
            return d->indexes[i].pk.type;
        if (d->indexes[i].sk.name && strcmp(d->indexes[i].sk.name, name) == 0)
            return d->indexes[i].sk.type;
    }
    for (size_t i = 0; nk && i < json_object_array_length(nk); i++) {
        json_object *a = json_object_array_get_idx(nk, i);
        const char *n = jstr(a, "AttributeName");
        if (n && strcmp(n, name) == 0)
            return type_of(jstr(a, "AttributeType"));
    }
    return DDB_TYPE_NONE;
}

/* {"PartitionKey": {"AttributeName", "AttributeType"}, "SortKey": ...} */
static void key_attrs(wb_draft *d, json_object *ka, wb_key *pk, wb_key *sk)
{
    json_object *p = jget(ka, "PartitionKey", json_type_object),
                *s = jget(ka, "SortKey", json_type_object);
    (void)d;
    pk->name = jstr(p, "AttributeName");
    pk->type = type_of(jstr(p, "AttributeType"));
    sk->name = jstr(s, "AttributeName");
    sk->type = type_of(jstr(s, "AttributeType"));
    if (pk->type == DDB_TYPE_NONE)
        pk->type = DDB_TYPE_S;
    if (sk->type == DDB_TYPE_NONE)
        sk->type = DDB_TYPE_S;
}

int wb_is_key_attr(const wb_draft *d, const char *name)
{
    if (strcmp(name, d->pk.name) == 0 || (d->sk.name && strcmp(name, d->sk.name) == 0))
        return 1;
    for (size_t i = 0; i < d->n_indexes; i++)
        if ((d->indexes[i].pk.name && strcmp(d->indexes[i].pk.name, name) == 0) ||
            (d->indexes[i].sk.name && strcmp(d->indexes[i].sk.name, name) == 0))
            return 2;
    return 0;
}

static json_object *pick_table(json_object *root, const char *table, ddb_buf *names, ddb_error *err,
                               const char *path)
{
    json_object *dm = jget(root, "DataModel", json_type_array), *found = NULL;
    size_t n = dm ? json_object_array_length(dm) : 0;
    if (dm == NULL) {
        ddb_error_set(err, DDB_EUSAGE, "%s is not a NoSQL Workbench model (no \"DataModel\" array)",
                      path);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        json_object *t = json_object_array_get_idx(dm, i);
        const char *tn = jstr(t, "TableName");
        ddb_buf_printf(names, "%s%s", i ? ", " : "", tn ? tn : "?");
        if (table == NULL ? n == 1 : (tn != NULL && strcmp(tn, table) == 0))
            found = t;
    }
    if (found == NULL) {
        if (table != NULL)
            ddb_error_set(err, DDB_EUSAGE, "%s has no table %s (its tables: %s)", path, table,
                          names->ptr ? names->ptr : "none");
        else
            ddb_error_set(err, DDB_EUSAGE,
                          "%s holds %zu tables (%s): name the one to draft a mapping for", path, n,
                          names->ptr ? names->ptr : "none");
    }
    return found;
}

/* --------------------------------------------------------- facet items */

static int add_item(wb_entity *e, json_object *item, ddb_arena *a)
{
    if (!json_object_is_type(item, json_type_object))
        return 0; /* not an item: the reader reports it */
    json_object **n =
        ddb_arena_array_reserve(a, e->items, e->n_items, &e->cap_items, sizeof(*n), 16);
    if (n == NULL)
        return DDB_ENOMEM;
    e->items = n;
    e->items[e->n_items++] = item;
    return 0;
}

/*
 * An attribute whose value is the same within each facet's items and differs
 * between facets, named like one (…type…, …entity…) or holding the facets'
 * names: it says which entity an item is.
 */
static void find_type_attribute(wb_draft *d)
{
    wb_entity *first = NULL;
    for (size_t i = 0; i < d->n_entities && first == NULL; i++)
        if (d->entities[i].n_items > 0)
            first = &d->entities[i];
    if (first == NULL || d->n_entities < 2 ||
        !json_object_is_type(first->items[0], json_type_object))
        return;
    json_object_object_foreach(first->items[0], cand, val)
    {
        int ok = 1, named = 0, facet_names = 1;
        (void)val;
        if (wb_is_key_attr(d, cand))
            continue;
        for (size_t i = 0; i < d->n_entities && ok; i++) {
            wb_entity *e = &d->entities[i];
            const char *v0 = NULL;
            ddb_type t;
            if (e->n_items == 0) {
                ok = 0;
                break;
            }
            for (size_t k = 0; k < e->n_items && ok; k++) {
                const char *v = wb_item_text(e->items[k], cand, &t);
                if (v == NULL || t != DDB_TYPE_S || (v0 != NULL && strcmp(v0, v) != 0))
                    ok = 0;
                v0 = v;
            }
            for (size_t j = 0; j < i && ok; j++)
                if (strcmp(d->entities[j].type_value, v0) == 0)
                    ok = 0;
            if (ok) {
                e->type_value = v0;
                facet_names &= strcasecmp(v0, e->name) == 0;
            }
        }
        named = contains_ci(cand, "type") || contains_ci(cand, "entity");
        if (ok && (named || facet_names)) {
            d->type_attr = cand;
            return;
        }
    }
    for (size_t i = 0; i < d->n_entities; i++)
        d->entities[i].type_value = d->entities[i].name;
}

/* A model without facets whose items say their entity (an attribute named
 * like …type… or …entity… that every item holds): one entity per value. */
static int entities_by_type(wb_draft *d, json_object *data)
{
    size_t n = json_object_array_length(data);
    json_object *item0 = n ? json_object_array_get_idx(data, 0) : NULL;
    if (!json_object_is_type(item0, json_type_object))
        return 0;
    json_object_object_foreach(item0, cand, val)
    {
        const char *values[64];
        size_t nv = 0, k;
        (void)val;
        if (wb_is_key_attr(d, cand) || !(contains_ci(cand, "type") || contains_ci(cand, "entity")))
            continue;
        for (k = 0; k < n; k++) {
            ddb_type t;
            const char *v = wb_item_text(json_object_array_get_idx(data, k), cand, &t);
            size_t j = 0;
            if (v == NULL || t != DDB_TYPE_S || v[0] == '\0' || v[0] == '_' || v[0] == '.' ||
                strchr(v, '/'))
                break;
            while (j < nv && strcmp(values[j], v) != 0)
                j++;
            if (j == nv && nv == 64)
                break;
            if (j == nv)
                values[nv++] = v;
        }
        if (k < n || nv < 2)
            continue;
        if ((d->entities = ddb_arena_calloc(d->a, nv, sizeof(*d->entities))) == NULL)
            return DDB_ENOMEM;
        d->n_entities = nv;
        d->type_attr = cand;
        for (size_t j = 0; j < nv; j++)
            d->entities[j].name = d->entities[j].type_value = values[j];
        for (k = 0; k < n; k++) {
            json_object *item = json_object_array_get_idx(data, k);
            ddb_type t;
            const char *v = wb_item_text(item, cand, &t);
            for (size_t j = 0; j < nv; j++)
                if (strcmp(values[j], v) == 0 && add_item(&d->entities[j], item, d->a) != 0)
                    return DDB_ENOMEM;
        }
        ddb_buf_printf(d->notes, "the model has no facets: one entity per value of %s\n", cand);
        return 1;
    }
    return 0;
}

/* One entity per facet (or per value of an entity-type attribute, or one for
 * the table when it has no facets), with its sample items: the facet's own
 * TableData, else the table's items whose entity-type attribute names the
 * facet. */
static int collect_entities(wb_draft *d)
{
    json_object *facets = jget(d->table, "TableFacets", json_type_array),
                *data = jget(d->table, "TableData", json_type_array);
    size_t nf = facets ? json_object_array_length(facets) : 0;
    size_t n = nf ? nf : 1;
    int rc;
    if (nf == 0 && data && (rc = entities_by_type(d, data)) != 0)
        return rc < 0 ? rc : 0;
    if ((d->entities = ddb_arena_calloc(d->a, n, sizeof(*d->entities))) == NULL)
        return DDB_ENOMEM;
    d->n_entities = n;
    for (size_t i = 0; i < n; i++) {
        wb_entity *e = &d->entities[i];
        json_object *f = nf ? json_object_array_get_idx(facets, i) : NULL,
                    *alias = jget(f, "KeyAttributeAlias", json_type_object),
                    *own = jget(f, "TableData", json_type_array);
        e->name = f ? jstr(f, "FacetName") : d->table_name;
        if (e->name == NULL || e->name[0] == '\0')
            e->name = "Entity";
        e->type_value = e->name;
        e->pk_alias = jstr(alias, "PartitionKeyAlias");
        e->sk_alias = jstr(alias, "SortKeyAlias");
        e->non_key = jget(f, "NonKeyAttributes", json_type_array);
        for (size_t k = 0; own && k < json_object_array_length(own); k++)
            if (add_item(e, json_object_array_get_idx(own, k), d->a) != 0)
                return DDB_ENOMEM;
        if (nf == 0)
            for (size_t k = 0; data && k < json_object_array_length(data); k++)
                if (add_item(e, json_object_array_get_idx(data, k), d->a) != 0)
                    return DDB_ENOMEM;
    }
    find_type_attribute(d);
    if (d->type_attr == NULL && data && nf > 0) {
        /* Table-level items, facets without their own: an attribute holding
         * the facets' names tells which is which. */
        json_object *item0 =
            json_object_array_length(data) ? json_object_array_get_idx(data, 0) : NULL;
        if (!json_object_is_type(item0, json_type_object))
            return 0;
        json_object_object_foreach(item0, cand, val)
        {
            size_t hits = 0;
            (void)val;
            if (wb_is_key_attr(d, cand))
                continue;
            for (size_t k = 0; k < json_object_array_length(data); k++) {
                ddb_type t;
                const char *v = wb_item_text(json_object_array_get_idx(data, k), cand, &t);
                for (size_t i = 0; v && i < n; i++)
                    hits += strcasecmp(v, d->entities[i].name) == 0;
            }
            if (hits == json_object_array_length(data)) {
                d->type_attr = cand;
                break;
            }
        }
        for (size_t k = 0; d->type_attr && k < json_object_array_length(data); k++) {
            json_object *item = json_object_array_get_idx(data, k);
            ddb_type t;
            const char *v = wb_item_text(item, d->type_attr, &t);
            for (size_t i = 0; v && i < n; i++) {
                if (strcasecmp(v, d->entities[i].name) == 0) {
                    d->entities[i].type_value = v;
                    if (add_item(&d->entities[i], item, d->a) != 0)
                        return DDB_ENOMEM;
                }
            }
        }
    }
    return 0;
}

/* ------------------------------------------------------------------ run */

int ddb_workbench_draft_mapping(ddb_buf *mapping, ddb_buf *notes, const char *model_path,
                                const char *table, ddb_error *err)
{
    wb_draft d;
    ddb_buf names = DDB_BUF_INIT;
    json_object *gsis, *lsis;
    int rc;

    memset(&d, 0, sizeof(d));
    d.notes = notes;
    d.err = err;
    if (ddb_arena_new(&d.a, 0) != 0)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    if ((d.root = json_object_from_file(model_path)) == NULL) {
        FILE *f = fopen(model_path, "rb");
        if (f == NULL)
            rc = ddb_error_set(err, DDB_ENOTFOUND, "cannot open %s", model_path);
        else
            rc = ddb_error_set(err, DDB_EUSAGE, "%s is not JSON: %s", model_path,
                               json_util_get_last_err());
        if (f)
            fclose(f);
        goto done;
    }
    if ((d.table = pick_table(d.root, table, &names, err, model_path)) == NULL) {
        rc = err->code;
        goto done;
    }
    d.table_name = jstr(d.table, "TableName");
    key_attrs(&d, jget(d.table, "KeyAttributes", json_type_object), &d.pk, &d.sk);
    if (d.table_name == NULL || d.pk.name == NULL) {
        rc = ddb_error_set(err, DDB_EUSAGE, "%s: the table has no TableName or partition key",
                           model_path);
        goto done;
    }
    gsis = jget(d.table, "GlobalSecondaryIndexes", json_type_array);
    lsis = jget(d.table, "LocalSecondaryIndexes", json_type_array);
    d.n_indexes =
        (gsis ? json_object_array_length(gsis) : 0) + (lsis ? json_object_array_length(lsis) : 0);
    if ((d.indexes = ddb_arena_calloc(d.a, d.n_indexes + 1, sizeof(*d.indexes))) == NULL) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < d.n_indexes; i++) {
        int global = gsis && i < json_object_array_length(gsis);
        json_object *ix =
            global
                ? json_object_array_get_idx(gsis, i)
                : json_object_array_get_idx(lsis, i - (gsis ? json_object_array_length(gsis) : 0));
        d.indexes[i].def = ix;
        d.indexes[i].global = global;
        key_attrs(&d, jget(ix, "KeyAttributes", json_type_object), &d.indexes[i].pk,
                  &d.indexes[i].sk);
        if (!global)
            d.indexes[i].pk.name = NULL; /* an LSI's partition key is the table's */
    }
    if (collect_entities(&d) != 0 || wb_derive_entities(&d) != 0 ||
        wb_write_mapping(&d, mapping) != 0 || mapping->oom) {
        rc = err->code ? err->code : ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto done;
    }
    wb_check_draft(&d, mapping, model_path);
    rc = notes->oom ? ddb_error_set(err, DDB_ENOMEM, "out of memory") : 0;
done:
    if (d.root)
        json_object_put(d.root);
    ddb_arena_free(d.a);
    ddb_buf_dispose(&names);
    return rc;
}

/* Used by the derivation: the type the model declares, or the sample's. */
ddb_type wb_attr_type(const wb_draft *d, const wb_entity *e, const char *name)
{
    ddb_type t = declared_type(d, name);
    for (size_t k = 0; t == DDB_TYPE_NONE && k < e->n_items; k++)
        t = item_type(e->items[k], name);
    return t == DDB_TYPE_NONE ? DDB_TYPE_S : t;
}

const char *wb_seps(void)
{
    return seps;
}

int wb_is_ident(const char *s)
{
    if (s == NULL || !(isalpha((unsigned char)*s) || *s == '_'))
        return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_')
            return 0;
    return 1;
}
