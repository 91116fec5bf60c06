/*
 * The Parquet writer's life and footer: FileMetaData in the Thrift compact
 * protocol (parquet.thrift's field ids), its length and the magic.
 */
#include "write/parquet_internal.h"

#include <stdlib.h>
#include <string.h>

#include "write/parquet_thrift.h"

enum { PQ_BOOLEAN = 0, PQ_BYTE_ARRAY = 6, PQ_FLBA = 7 };            /* Type */
enum { PQ_REQUIRED = 0, PQ_OPTIONAL = 1, PQ_REPEATED = 2 };         /* FieldRepetitionType */
enum { PQ_CT_UTF8 = 0, PQ_CT_LIST = 3, PQ_CT_DECIMAL = 5, PQ_CT_JSON = 19 }; /* ConvertedType */

static int physical_type(const pq_col *c)
{
    if (c->kind == PQ_BOOL)
        return PQ_BOOLEAN;
    return pq_is_decimal(c) ? pq_decimal_form_of(c).type : PQ_BYTE_ARRAY;
}

/* A leaf's SchemaElement: its type, converted type and logical type. */
static void put_leaf(pq_thrift *t, const pq_col *c, const char *name, int repetition)
{
    int text = c->kind == PQ_STRING || (c->kind == PQ_NUMBER && c->as_text);
    pq_thrift_elem_struct(t);
    pq_thrift_i32(t, 1, physical_type(c));
    if (pq_is_decimal(c) && pq_decimal_form_of(c).type == PQ_FLBA)
        pq_thrift_i32(t, 2, pq_decimal_form_of(c).bytes);
    pq_thrift_i32(t, 3, repetition);
    pq_thrift_string(t, 4, name);
    if (text || c->kind == PQ_JSON)
        pq_thrift_i32(t, 6, text ? PQ_CT_UTF8 : PQ_CT_JSON);
    if (pq_is_decimal(c)) {
        pq_thrift_i32(t, 6, PQ_CT_DECIMAL);
        pq_thrift_i32(t, 7, c->scale);
        pq_thrift_i32(t, 8, c->precision);
    }
    if (text || c->kind == PQ_JSON || pq_is_decimal(c)) {
        pq_thrift_struct(t, 10); /* LogicalType, a union */
        pq_thrift_struct(t, text ? 1 : c->kind == PQ_JSON ? 12 : 5);
        if (pq_is_decimal(c)) {
            pq_thrift_i32(t, 1, c->scale);
            pq_thrift_i32(t, 2, c->precision);
        }
        pq_thrift_end(t);
        pq_thrift_end(t);
    }
    pq_thrift_end(t);
}

/* A LIST: optional group (LIST) { repeated group list { required leaf element } }. */
static void put_list(pq_thrift *t, const pq_col *c)
{
    pq_thrift_elem_struct(t);
    pq_thrift_i32(t, 3, PQ_OPTIONAL);
    pq_thrift_string(t, 4, c->name);
    pq_thrift_i32(t, 5, 1);
    pq_thrift_i32(t, 6, PQ_CT_LIST);
    pq_thrift_struct(t, 10);
    pq_thrift_struct(t, 3);
    pq_thrift_end(t);
    pq_thrift_end(t);
    pq_thrift_end(t);
    pq_thrift_elem_struct(t);
    pq_thrift_i32(t, 3, PQ_REPEATED);
    pq_thrift_string(t, 4, "list");
    pq_thrift_i32(t, 5, 1);
    pq_thrift_end(t);
    put_leaf(t, c, "element", PQ_REQUIRED);
}

/* How many columns from i on are members of column i's group (1 when it
 * has none: it stands alone). */
static size_t group_width(const pq_file *f, size_t i)
{
    size_t n = 1;
    while (f->cols[i].group != NULL && i + n < f->n_cols && f->cols[i + n].group != NULL &&
           strcmp(f->cols[i + n].group, f->cols[i].group) == 0)
        n++;
    return n;
}

/* A STRUCT: optional group NAME { its members }. */
static void put_group(pq_thrift *t, const char *name, size_t members)
{
    pq_thrift_elem_struct(t);
    pq_thrift_i32(t, 3, PQ_OPTIONAL);
    pq_thrift_string(t, 4, name);
    pq_thrift_i32(t, 5, (int32_t)members);
    pq_thrift_end(t);
}

static void put_schema(pq_thrift *t, const pq_file *f)
{
    size_t n = 1, top = 0;
    for (size_t i = 0; i < f->n_cols; i += group_width(f, i), top++)
        n += f->cols[i].group != NULL;
    for (size_t i = 0; i < f->n_cols; i++)
        n += f->cols[i].list ? 3 : 1;
    pq_thrift_list(t, 2, PQ_T_STRUCT, n);
    pq_thrift_elem_struct(t);
    pq_thrift_string(t, 4, "schema");
    pq_thrift_i32(t, 5, (int32_t)top);
    pq_thrift_end(t);
    for (size_t i = 0; i < f->n_cols; i++) {
        if (f->cols[i].group != NULL && (i == 0 || f->cols[i - 1].group == NULL ||
                                         strcmp(f->cols[i - 1].group, f->cols[i].group) != 0))
            put_group(t, f->cols[i].group, group_width(f, i));
        if (f->cols[i].list)
            put_list(t, &f->cols[i]);
        else
            put_leaf(t, &f->cols[i], f->cols[i].name, PQ_OPTIONAL);
    }
}

static void put_column_meta(pq_thrift *t, const pq_file *f, const pq_col *c, const pq_chunk *ch)
{
    pq_thrift_struct(t, 3);
    pq_thrift_i32(t, 1, physical_type(c));
    pq_thrift_list(t, 2, PQ_T_I32, ch->dict_offset ? 3 : 2);
    pq_thrift_elem_i32(t, 0); /* PLAIN (values, or the dictionary page) */
    pq_thrift_elem_i32(t, 3); /* RLE (levels) */
    if (ch->dict_offset)
        pq_thrift_elem_i32(t, 8); /* RLE_DICTIONARY (indices) */
    pq_thrift_list(t, 3, PQ_T_BINARY, (c->list ? 3 : 1) + (c->group != NULL));
    if (c->group != NULL)
        pq_thrift_elem_binary(t, c->group, strlen(c->group));
    pq_thrift_elem_binary(t, c->name, strlen(c->name));
    if (c->list) {
        pq_thrift_elem_binary(t, "list", 4);
        pq_thrift_elem_binary(t, "element", 7);
    }
    pq_thrift_i32(t, 4, (int32_t)f->opts.codec);
    pq_thrift_i64(t, 5, ch->n_values);
    pq_thrift_i64(t, 6, ch->uncompressed);
    pq_thrift_i64(t, 7, ch->compressed);
    pq_thrift_i64(t, 9, ch->offset);
    if (ch->dict_offset)
        pq_thrift_i64(t, 11, ch->dict_offset);
    pq_thrift_struct(t, 12); /* Statistics */
    pq_thrift_i64(t, 3, ch->n_nulls);
    if (ch->has_minmax) {
        pq_thrift_binary(t, 5, ch->max, ch->max_len);
        pq_thrift_binary(t, 6, ch->min, ch->min_len);
    }
    pq_thrift_end(t);
    pq_thrift_end(t);
}

static void put_groups(pq_thrift *t, const pq_file *f)
{
    pq_thrift_list(t, 4, PQ_T_STRUCT, f->n_groups);
    for (size_t g = 0; g < f->n_groups; g++) {
        pq_thrift_elem_struct(t);
        pq_thrift_list(t, 1, PQ_T_STRUCT, f->n_cols);
        for (size_t i = 0; i < f->n_cols; i++) {
            pq_thrift_elem_struct(t);
            pq_thrift_i64(t, 2, f->cols[i].chunks[g].offset);
            put_column_meta(t, f, &f->cols[i], &f->cols[i].chunks[g]);
            pq_thrift_end(t);
        }
        pq_thrift_i64(t, 2, f->groups[g].uncompressed);
        pq_thrift_i64(t, 3, f->groups[g].rows);
        pq_thrift_i64(t, 5, f->groups[g].offset);
        pq_thrift_i64(t, 6, f->groups[g].compressed);
        pq_thrift_end(t);
    }
}

/* The number columns kept as exact text, named in the footer's key-value
 * metadata so a reader knows their STRING is a number. */
static void put_text_numbers(pq_thrift *t, const pq_file *f, ddb_buf *names)
{
    for (size_t i = 0; i < f->n_cols; i++) {
        if (f->cols[i].kind == PQ_NUMBER && f->cols[i].as_text) {
            if (names->len)
                ddb_buf_putc(names, ',');
            if (f->cols[i].group != NULL) /* a member by its path: info.rating */
                ddb_buf_printf(names, "%s.", f->cols[i].group);
            ddb_buf_puts(names, f->cols[i].name);
        }
    }
    if (names->len == 0)
        return;
    pq_thrift_list(t, 5, PQ_T_STRUCT, 1);
    pq_thrift_elem_struct(t);
    pq_thrift_string(t, 1, "ddbpipe.numbers_as_text");
    pq_thrift_binary(t, 2, names->ptr, names->len);
    pq_thrift_end(t);
}

int pq_write_footer(pq_file *f, ddb_error *err)
{
    ddb_buf meta = DDB_BUF_INIT, names = DDB_BUF_INIT;
    unsigned char tail[8];
    pq_thrift t;
    int rc;
    pq_thrift_init(&t, &meta);
    pq_thrift_i32(&t, 1, 1);
    put_schema(&t, f);
    pq_thrift_i64(&t, 3, (int64_t)f->rows);
    put_groups(&t, f);
    put_text_numbers(&t, f, &names);
    pq_thrift_string(&t, 6, "ddbpipe version " DDB_VERSION);
    /* TYPE_DEFINED_ORDER for every column: the statistics follow the type's order */
    pq_thrift_list(&t, 7, PQ_T_STRUCT, f->n_cols);
    for (size_t i = 0; i < f->n_cols; i++) {
        pq_thrift_elem_struct(&t);
        pq_thrift_struct(&t, 1);
        pq_thrift_end(&t);
        pq_thrift_end(&t);
    }
    pq_thrift_end(&t);
    if (meta.oom || names.oom) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto done;
    }
    for (int k = 0; k < 4; k++)
        tail[k] = (unsigned char)(meta.len >> (8 * k));
    memcpy(tail + 4, "PAR1", 4);
    if ((rc = pq_write(f, meta.ptr, meta.len, err)) == 0)
        rc = pq_write(f, tail, 8, err);
done:
    ddb_buf_dispose(&meta);
    ddb_buf_dispose(&names);
    return rc;
}

int pq_file_new(pq_file **out, ddb_sink *sink, const pq_column_def *cols, size_t n,
                const pq_opts *opts, ddb_error *err)
{
    pq_file *f = calloc(1, sizeof(*f));
    int rc = 0;
    *out = NULL;
    if (f == NULL || (f->cols = calloc(n ? n : 1, sizeof(*f->cols))) == NULL) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto done;
    }
    f->sink = sink;
    f->opts = *opts;
    if (f->opts.group_rows == 0)
        f->opts.group_rows = PQ_GROUP_ROWS;
    if (f->opts.group_bytes == 0)
        f->opts.group_bytes = PQ_GROUP_BYTES;
    for (; f->n_cols < n; f->n_cols++) {
        pq_col *c = &f->cols[f->n_cols];
        if ((c->name = strndup(cols[f->n_cols].name, cols[f->n_cols].name_len)) == NULL) {
            rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
            goto done;
        }
        if (cols[f->n_cols].group != NULL &&
            (c->group = strndup(cols[f->n_cols].group, cols[f->n_cols].group_len)) == NULL) {
            rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
            goto done;
        }
        c->kind = cols[f->n_cols].kind;
        c->list = cols[f->n_cols].list;
        c->max_def = (c->list ? 2 : 1) + (c->group != NULL);
        c->max_rep = c->list ? 1 : 0;
        c->precision = 38;
        if (c->kind == PQ_NUMBER && cols[f->n_cols].precision > 0) {
            /* declared: the type is known before any value, the same in every file */
            c->declared = c->decided = 1;
            c->precision = cols[f->n_cols].precision;
            c->scale = cols[f->n_cols].scale;
            if (opts->plans != NULL)
                opts->plans[f->n_cols] =
                    (pq_number_plan){.decided = 1, .scale = c->scale, .want_scale = c->scale};
        } else if (c->kind == PQ_NUMBER && opts->plans != NULL) {
            c->plan = &opts->plans[f->n_cols];
            if (c->plan->decided)
                pq_decide_number(c);
        }
    }
    if (opts->budget != NULL && (rc = pq_budget_join(opts->budget, f, err)) != 0)
        goto done;
    rc = pq_write(f, "PAR1", 4, err);
done:
    if (rc != 0) {
        pq_file_free(f);
        return rc;
    }
    *out = f;
    return 0;
}

void pq_file_free(pq_file *f)
{
    if (f == NULL)
        return;
    if (f->budget != NULL)
        pq_ahead_forget(f->budget, f);
    pq_budget_leave(f);
    for (size_t i = 0; i < f->n_cols; i++) {
        free(f->cols[i].name);
        free(f->cols[i].group);
        free(f->cols[i].chunks);
        ddb_buf_dispose(&f->cols[i].defs);
        ddb_buf_dispose(&f->cols[i].reps);
        ddb_buf_dispose(&f->cols[i].values);
    }
    free(f->cols);
    free(f->groups);
    pq_coder_dispose(&f->coder);
    pq_job_free(f->held);
    free(f);
}
