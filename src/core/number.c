#include "ddbpipe/number.h"

#include <stdint.h>
#include <string.h>

#include "core/swar.h"

/*
 * Normalized exponent bounds: value = 0.d1...dn * 10^e with d1 != 0.
 * 9.9999999999999999999999999999999999999E+125 is 0.(38 nines) * 10^126 and no
 * 38-digit mantissa can exceed it, so e <= 126 is exactly the upper limit.
 * 1E-130 is 0.1 * 10^-129 and every mantissa is >= 0.1, so e >= -129 is exactly
 * the lower limit.
 */
#define EXP_MAX 126
#define EXP_MIN (-129)

/* Exponent text is accumulated up to this and then saturates: any larger value
 * is out of range anyway, and the cap keeps every sum below int64 overflow. */
#define EXP_TEXT_CAP ((int64_t)1000000000000000) /* 1e15 */

static int is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

static int syntax_error(ddb_error *err, const char *text, size_t len, size_t at)
{
    char q[DDB_QUOTE_MAX * 2 + 8];
    const unsigned char *p = (const unsigned char *)text;

    if (err == NULL)
        return DDB_EINVAL;
    ddb_error_quote(q, sizeof(q), text, len);
    if (len == 0)
        return ddb_error_set(err, DDB_EINVAL, "not a number: '' (empty text)");
    if (at >= len)
        return ddb_error_set(err, DDB_EINVAL, "not a number: '%s' (ends early)", q);
    if (p[at] >= 0x20 && p[at] < 0x7F)
        return ddb_error_set(err, DDB_EINVAL, "not a number: '%s' (unexpected '%c' at offset %zu)",
                             q, p[at], at);
    return ddb_error_set(err, DDB_EINVAL,
                         "not a number: '%s' (unexpected byte 0x%02X at offset %zu)", q, p[at], at);
}

/* Where a number's parts are in its text. Digit positions count the integer
 * digits and then the fraction digits as one run. */
typedef struct num_text {
    size_t int_start, int_len;   /* integer digits */
    size_t frac_start, frac_len; /* fraction digits */
    size_t first_nz, last_nz;    /* first and last nonzero digit; first_nz SIZE_MAX: none */
    int negative;
    int64_t exp; /* the exponent written (0 when none), its size capped at EXP_TEXT_CAP */
} num_text;

/* Runs over the digits from i and returns where they end; a nonzero digit at
 * j is digit position at + (j - i) for t's first_nz and last_nz. (Kept in
 * locals in the loop: p may alias t as far as the compiler knows.) */
static inline size_t scan_digits(num_text *t, const unsigned char *p, size_t i, size_t len,
                                 size_t at)
{
    size_t start = i, first_nz = t->first_nz, last_nz = t->last_nz;

    while (i < len && is_digit(p[i])) {
        if (p[i] != '0') {
            if (first_nz == SIZE_MAX)
                first_nz = at + (i - start);
            last_nz = at + (i - start);
        }
        i++;
    }
    t->first_nz = first_nz;
    t->last_nz = last_nz;
    return i;
}

/* The exponent from *ip, just after the 'e' or 'E': an optional sign and at
 * least one digit. Moves *ip past it; -1 (*ip where a digit should be) when
 * it has no digit. */
static inline int scan_exponent(num_text *t, const unsigned char *p, size_t *ip, size_t len)
{
    size_t i = *ip, start;
    int64_t exp = 0;
    int negative = 0;

    if (i < len && (p[i] == '+' || p[i] == '-')) {
        negative = p[i] == '-';
        i++;
    }
    start = i;
    while (i < len && is_digit(p[i])) {
        if (exp < EXP_TEXT_CAP)
            exp = exp * 10 + (p[i] - '0');
        i++;
    }
    *ip = i;
    if (i == start)
        return -1;
    t->exp = negative ? -exp : exp;
    return 0;
}

/* Splits text into t's parts. Returns 0, or the syntax error at the first
 * byte that does not fit (or at the end, when the text ends early). */
static inline int scan_number(num_text *t, const char *text, size_t len, ddb_error *err)
{
    const unsigned char *p = (const unsigned char *)text;
    size_t i = 0;

    memset(t, 0, sizeof(*t));
    t->first_nz = SIZE_MAX;
    if (i < len && (p[i] == '+' || p[i] == '-')) {
        t->negative = p[i] == '-';
        i++;
    }
    t->int_start = i;
    i = scan_digits(t, p, i, len, 0);
    t->int_len = i - t->int_start;
    if (i < len && p[i] == '.') {
        t->frac_start = ++i;
        i = scan_digits(t, p, i, len, t->int_len);
        t->frac_len = i - t->frac_start;
    }
    if (t->int_len + t->frac_len == 0)
        return syntax_error(err, text, len, i < len ? i : len);
    if (i < len && (p[i] == 'e' || p[i] == 'E')) {
        i++;
        if (scan_exponent(t, p, &i, len) != 0)
            return syntax_error(err, text, len, i);
    }
    if (i != len)
        return syntax_error(err, text, len, i);
    return 0;
}

/* A nonzero number DynamoDB cannot hold: more than 38 significant digits
 * (ndigits) or a normalized exponent e out of [EXP_MIN, EXP_MAX]. Returns
 * DDB_EINVAL, with the message in err when err is not NULL. */
static int range_error(ddb_error *err, const char *text, size_t len, size_t ndigits, int64_t e)
{
    char q[DDB_QUOTE_MAX * 2 + 8];

    if (err == NULL)
        return DDB_EINVAL;
    ddb_error_quote(q, sizeof(q), text, len);
    if (ndigits > DDB_NUMBER_MAX_DIGITS)
        ddb_error_set(err, DDB_EINVAL, "number '%s' has more than 38 significant digits (%zu)", q,
                      ndigits);
    else if (e > EXP_MAX)
        ddb_error_set(err, DDB_EINVAL,
                      "number '%s' is too large: magnitude above "
                      "9.9999999999999999999999999999999999999E+125",
                      q);
    else
        ddb_error_set(err, DDB_EINVAL, "number '%s' is too small: magnitude below 1E-130", q);
    return DDB_EINVAL;
}

int ddb_number_parse(ddb_number *out, const char *text, size_t len, ddb_error *err)
{
    const unsigned char *p = (const unsigned char *)text;
    num_text t;
    size_t ndigits;
    int64_t e;
    int rc;

    if (text == NULL)
        len = 0;
    /* Positions are later mixed with the exponent in int64 arithmetic. */
    if (len > (SIZE_MAX >> 2) || len > (size_t)(INT64_MAX >> 2))
        return ddb_error_set(err, DDB_EINVAL, "not a number: text of %zu bytes is too long", len);
    if ((rc = scan_number(&t, text, len, err)) != 0)
        return rc;
    if (t.first_nz == SIZE_MAX) {
        /* Zero has no magnitude, so no exponent can put it out of range. */
        if (out)
            memset(out, 0, sizeof(*out));
        return 0;
    }
    ndigits = t.last_nz - t.first_nz + 1;
    if (ndigits > DDB_NUMBER_MAX_DIGITS)
        return range_error(err, text, len, ndigits, 0);
    e = (int64_t)t.int_len - (int64_t)t.first_nz + t.exp;
    if (e > EXP_MAX || e < EXP_MIN)
        return range_error(err, text, len, ndigits, e);
    if (out) {
        out->negative = t.negative;
        out->ndigits = (int)ndigits;
        out->exponent = (int)e;
        for (size_t k = 0; k < ndigits; k++) {
            size_t pos = t.first_nz + k;
            out->digits[k] = (char)(pos < t.int_len ? p[t.int_start + pos]
                                                    : p[t.frac_start + (pos - t.int_len)]);
        }
        out->digits[ndigits] = '\0';
    }
    return 0;
}

int ddb_number_validate(const char *text, size_t len, ddb_error *err)
{
    return ddb_number_parse(NULL, text, len, err);
}

static int sign_of(const ddb_number *n)
{
    if (n->ndigits == 0)
        return 0;
    return n->negative ? -1 : 1;
}

int ddb_number_compare(const ddb_number *a, const ddb_number *b)
{
    int sa = sign_of(a), sb = sign_of(b), mag;

    if (sa != sb)
        return sa < sb ? -1 : 1;
    if (sa == 0)
        return 0;
    if (a->exponent != b->exponent) {
        mag = a->exponent < b->exponent ? -1 : 1;
    } else {
        /* Same exponent: digits are fractions 0.d1d2..., and with no trailing
         * zeros a proper prefix is the smaller value, which strcmp gives us. */
        int c = strcmp(a->digits, b->digits);
        mag = c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    return sa < 0 ? -mag : mag;
}

int ddb_number_compare_text(const char *a, size_t alen, const char *b, size_t blen, ddb_error *err)
{
    ddb_number na, nb;
    int rc;

    if ((rc = ddb_number_parse(&na, a, alen, err)) != 0)
        return rc;
    if ((rc = ddb_number_parse(&nb, b, blen, err)) != 0)
        return rc;
    return ddb_number_compare(&na, &nb);
}

size_t ddb_number_size(const ddb_number *n)
{
    return 1 + ((size_t)n->ndigits + 1) / 2;
}

size_t ddb_number_plain_size(const char *text, size_t len)
{
    const char *point;
    size_t first = 0, last, dot;
    /* 38 digits, and a point among them: eight bytes at a time, no byte loop */
    if (len == 0 || len > DDB_NUMBER_MAX_DIGITS + 1)
        return 0;
    point = memchr(text, '.', len);
    dot = point ? (size_t)(point - text) : len;
    /* one point, with a digit on each side ("5." and ".5" are parsed) */
    if (point ? dot == 0 || dot == len - 1 || !ddb_all_digits(text, dot) ||
                    !ddb_all_digits(point + 1, len - dot - 1)
              : len > DDB_NUMBER_MAX_DIGITS || !ddb_all_digits(text, len))
        return 0;
    while (first < len && (text[first] == '0' || text[first] == '.'))
        first++;
    if (first == len)
        return 1; /* zero has no significant digit */
    last = len - 1;
    while (text[last] == '0' || text[last] == '.')
        last--;
    /* significant digits, from the first non-zero to the last, the point not one */
    return 1 + (last - first + 1 - (first < dot && dot < last) + 1) / 2;
}

int ddb_number_format(ddb_buf *out, const ddb_number *n)
{
    int nd = n->ndigits, e = n->exponent;
    size_t need;
    char *w;

    if (nd == 0)
        return ddb_buf_putc(out, '0');
    /* sign + "0." + leading zeros (or trailing zeros) + digits */
    need = 3 + (size_t)nd + (size_t)(e < 0 ? -e : e);
    if (ddb_buf_reserve(out, need) != 0)
        return DDB_ENOMEM;
    w = out->ptr + out->len;
    if (n->negative)
        *w++ = '-';
    if (e <= 0) {
        *w++ = '0';
        *w++ = '.';
        memset(w, '0', (size_t)-e);
        w += -e;
        memcpy(w, n->digits, (size_t)nd);
        w += nd;
    } else if (e < nd) {
        memcpy(w, n->digits, (size_t)e);
        w += e;
        *w++ = '.';
        memcpy(w, n->digits + e, (size_t)(nd - e));
        w += nd - e;
    } else {
        memcpy(w, n->digits, (size_t)nd);
        w += nd;
        memset(w, '0', (size_t)(e - nd));
        w += e - nd;
    }
    out->len = (size_t)(w - out->ptr);
    out->ptr[out->len] = '\0';
    return 0;
}

int ddb_number_is_plain_uint(const char *text, size_t len)
{
    if (text == NULL || len == 0)
        return 0;
    for (size_t i = 0; i < len; i++)
        if (!is_digit((unsigned char)text[i]))
            return 0;
    return 1;
}
