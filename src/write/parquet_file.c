/*
 * The Parquet writer's rows, row groups and pages (parquet.h). The footer is
 * parquet_footer.c.
 */
#include "write/parquet_internal.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/number.h"
#include "write/parquet_thrift.h"

/* ------------------------------------------------------------ levels */

static void put_le32(ddb_buf *b, uint32_t v)
{
    unsigned char t[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 24)};
    ddb_buf_append(b, t, 4);
}

static int run_at(const uint8_t *v, size_t n, size_t i)
{
    if (i + 8 > n)
        return 0;
    for (size_t k = 1; k < 8; k++)
        if (v[i + k] != v[i])
            return 0;
    return 1;
}

/* Bit-packed groups of 8 from v[i..), stopping where an RLE run would pay;
 * the last group is padded with zeros past n. Returns the next index. */
static size_t put_packed(ddb_buf *out, const uint8_t *v, size_t n, size_t i, int bw)
{
    size_t start = i, groups = 0;
    do {
        groups++;
        i += 8;
    } while (i < n && !run_at(v, n, i));
    pq_put_uvarint(out, groups << 1 | 1);
    for (size_t g = 0; g < groups; g++) {
        uint64_t acc = 0;
        for (size_t k = 0; k < 8; k++) {
            size_t at = start + g * 8 + k;
            acc |= (uint64_t)(at < n ? v[at] : 0) << (k * (size_t)bw);
        }
        for (int k = 0; k < bw; k++)
            ddb_buf_putc(out, (char)(acc >> (8 * k)));
    }
    return i < n ? i : n;
}

void pq_rle_encode(ddb_buf *out, const uint8_t *v, size_t n, int bit_width)
{
    size_t i = 0;
    assert(bit_width >= 1 && bit_width <= 8);
    while (i < n) {
        size_t run = 1;
        while (i + run < n && v[i + run] == v[i])
            run++;
        if (run >= 8) {
            /* a level is at most 8 bits: one byte holds the repeated value */
            pq_put_uvarint(out, (uint64_t)run << 1);
            ddb_buf_putc(out, (char)v[i]);
            i += run;
        } else {
            i = put_packed(out, v, n, i, bit_width);
        }
    }
}

/* ----------------------------------------------------------- numbers */

/* Digits after the point and before it of a valid, normalized number. */
static void number_shape(const ddb_number *num, int *scale, int *int_digits)
{
    *scale = num->ndigits > num->exponent ? num->ndigits - num->exponent : 0;
    *int_digits = num->exponent > 0 ? num->exponent : 0;
}

pq_decimal_form pq_decimal_form_of(const pq_col *c)
{
    /* the most digits n bytes of two's complement hold: floor(log10(2^(8n-1) - 1)) */
    static const int digits[17] = {0, 2, 4, 6, 9, 11, 14, 16, 18, 21, 23, 26, 28, 31, 33, 35, 38};
    int n = 1;
    assert(c->precision >= 1 && c->precision <= 38);
    if (c->precision <= 9)
        return (pq_decimal_form){1, 4};
    if (c->precision <= 18)
        return (pq_decimal_form){2, 8};
    while (digits[n] < c->precision)
        n++;
    return (pq_decimal_form){7, n};
}

int pq_number_fits(const pq_file *f, size_t col, const char *text, size_t len, ddb_error *err)
{
    const pq_col *c = &f->cols[col];
    /* a shared column may be decided by another file before this one */
    const pq_col shared = {.name = c->name,
                           .decided = 1,
                           .as_text = c->plan ? c->plan->as_text : 0,
                           .scale = c->plan ? c->plan->scale : 0,
                           .precision = 38};
    const char *why = c->declared ? "declared" : "decided by the first row group";
    ddb_number num;
    int scale, ints, rc;
    assert(col < f->n_cols && c->kind == PQ_NUMBER);
    if (!c->decided && c->plan != NULL && c->plan->decided)
        c = &shared;
    /* until the column is decided (and as text) any valid number fits; the
     * records' numbers were checked when they were read */
    if (!c->decided || c->as_text)
        return 0;
    if ((rc = ddb_number_parse(&num, text, len, err)) != 0)
        return rc;
    number_shape(&num, &scale, &ints);
    if (scale > c->scale)
        return ddb_error_set(err, DDB_EINVAL,
                             "%s: %.*s has %d digits after the point; the column is "
                             "DECIMAL(%d,%d) (%s) and nothing is rounded",
                             c->name, (int)(len > 60 ? 60 : len), text, scale, c->precision,
                             c->scale, why);
    if (ints > c->precision - c->scale)
        return ddb_error_set(err, DDB_EINVAL,
                             "%s: %.*s has %d digits before the point; the column is "
                             "DECIMAL(%d,%d) (%s), which holds %d",
                             c->name, (int)(len > 60 ? 60 : len), text, ints, c->precision,
                             c->scale, why, c->precision - c->scale);
    return 0;
}

/* Walks the PLAIN byte arrays of a column's values. */
const char *pq_next_bytes(const ddb_buf *b, size_t *at, uint32_t *len)
{
    const unsigned char *p = (const unsigned char *)b->ptr + *at;
    *len = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    *at += 4 + *len;
    return (const char *)p + 4;
}

/* DECIMAL(38, s) if one holds every value of this row group, else text. */
void pq_decide_number(pq_col *c)
{
    int scale = 0, ints = 0;
    size_t at = 0;
    if (c->declared)
        return;
    if (c->plan != NULL) {
        pq_number_plan *p = c->plan;
        if (!p->decided) { /* every file's values so far, this one's among them */
            p->decided = 1;
            p->scale = p->want_scale;
            p->as_text = p->want_scale + p->want_ints > 38;
        }
        c->decided = 1;
        c->scale = p->scale;
        c->as_text = p->as_text;
        return;
    }
    while (at < c->values.len) {
        uint32_t len;
        const char *p = pq_next_bytes(&c->values, &at, &len);
        ddb_number num;
        int s, i;
        if (ddb_number_parse(&num, p, len, NULL) != 0) {
            c->as_text = 1; /* pq_put's caller checked: cannot happen, but never rounds */
            break;
        }
        number_shape(&num, &s, &i);
        scale = s > scale ? s : scale;
        ints = i > ints ? i : ints;
    }
    c->decided = 1;
    c->scale = scale;
    if (scale + ints > 38)
        c->as_text = 1;
}

__extension__ typedef unsigned __int128 pq_u128;

/* The digits of a valid number's text straight into *v, times 10^*shift:
 * the common case (at most 38 digits from the first non-zero one, as
 * DynamoDB's numbers have) without a normalizing parse, which took a tenth
 * of a number-heavy export. 0, or -1 (more digits: the caller parses). */
static int quick_digits(pq_u128 *v, int *neg, long *shift, const char *text, size_t len)
{
    size_t i = 0;
    long frac = 0, exp = 0, esign = 1;
    int point = 0, digits = 0;
    *v = 0;
    *neg = len > 0 && text[0] == '-';
    i = len > 0 && (text[0] == '-' || text[0] == '+');
    for (; i < len && text[i] != 'e' && text[i] != 'E'; i++) {
        if (text[i] == '.') {
            point = 1;
            continue;
        }
        if ((digits += *v != 0 || text[i] != '0') > 38)
            return -1;
        *v = *v * 10 + (unsigned)(text[i] - '0');
        frac += point;
    }
    if (i < len && ++i < len && (text[i] == '-' || text[i] == '+'))
        esign = text[i++] == '-' ? -1 : 1;
    for (; i < len; i++)
        if ((exp = exp * 10 + (text[i] - '0')) > 100000)
            return -1;
    *shift = esign * exp - frac;
    return 0;
}

/* The 16-byte big-endian two's complement of text * 10^scale, which fits. */
void pq_decimal_bytes(unsigned char out[16], const char *text, size_t len, int scale)
{
    ddb_number num;
    pq_u128 v = 0;
    int neg;
    long k;
    if (quick_digits(&v, &neg, &k, text, len) == 0) {
        /* it fits the scale: digits past it are zeros (1.50 at scale 1) */
        for (k += scale; k < 0; k++)
            v /= 10;
    } else {
        if (ddb_number_parse(&num, text, len, NULL) != 0)
            num.ndigits = num.negative = 0; /* checked before: cannot happen */
        v = 0;
        for (int i = 0; i < num.ndigits; i++)
            v = v * 10 + (unsigned)(num.digits[i] - '0');
        neg = num.negative;
        k = num.exponent - num.ndigits + scale;
    }
    for (; k > 0; k--)
        v *= 10;
    if (neg)
        v = ~v + 1;
    for (int i = 15; i >= 0; i--, v >>= 8)
        out[i] = (unsigned char)v;
}

/* ------------------------------------------------------------- rows */

static void put_absent(pq_col *c, int def)
{
    ddb_buf_putc(&c->defs, (char)def);
    if (c->max_rep)
        ddb_buf_putc(&c->reps, 0);
}

void pq_put_null(pq_file *f, size_t col)
{
    put_absent(&f->cols[col], 0);
}

void pq_put_member_null(pq_file *f, size_t col)
{
    assert(f->cols[col].group != NULL);
    put_absent(&f->cols[col], 1); /* the group's own level */
}

static void put_value(pq_col *c, const void *p, size_t n)
{
    if (c->kind == PQ_BOOL) {
        ddb_buf_putc(&c->values, (char)(*(const unsigned char *)p != 0));
    } else {
        put_le32(&c->values, (uint32_t)n);
        ddb_buf_append(&c->values, p, n);
    }
    c->n_present++;
    if (c->kind == PQ_NUMBER && c->plan != NULL && !c->plan->decided) {
        ddb_number num;
        int s, i;
        if (ddb_number_parse(&num, p, n, NULL) != 0) {
            c->plan->want_ints = 1000; /* cannot happen (checked when read); text then */
            return;
        }
        number_shape(&num, &s, &i);
        c->plan->want_scale = s > c->plan->want_scale ? s : c->plan->want_scale;
        c->plan->want_ints = i > c->plan->want_ints ? i : c->plan->want_ints;
    }
}

void pq_number_type(const pq_file *f, size_t col, int *as_text, int *scale)
{
    const pq_col *c = &f->cols[col];
    assert(col < f->n_cols && c->kind == PQ_NUMBER);
    /* undecided (no value): the footer says DECIMAL(38,0) */
    *as_text = c->decided && c->as_text;
    *scale = c->decided ? c->scale : 0;
}

void pq_put(pq_file *f, size_t col, const void *p, size_t n)
{
    pq_col *c = &f->cols[col];
    assert(!c->list);
    ddb_buf_putc(&c->defs, (char)c->max_def);
    put_value(c, p, n);
}

void pq_put_list(pq_file *f, size_t col, size_t count)
{
    pq_col *c = &f->cols[col];
    assert(c->list);
    if (count == 0) { /* the list is there, without an element */
        ddb_buf_putc(&c->defs, (char)(c->max_def - 1));
        ddb_buf_putc(&c->reps, 0);
    }
}

void pq_put_elem(pq_file *f, size_t col, size_t index, const void *p, size_t n)
{
    pq_col *c = &f->cols[col];
    ddb_buf_putc(&c->defs, (char)c->max_def);
    ddb_buf_putc(&c->reps, index > 0);
    put_value(c, p, n);
}

uint64_t pq_rows(const pq_file *f)
{
    return f->rows + f->group_rows;
}

int pq_write(pq_file *f, const void *p, size_t n, ddb_error *err)
{
    int rc = ddb_sink_write(f->sink, p, n, err);
    if (rc == 0)
        f->offset += (int64_t)n;
    return rc;
}
