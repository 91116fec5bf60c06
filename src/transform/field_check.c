/*
 * field_check.c — a field's constraints on the text of a value: its type's
 * syntax, enum, format (date, datetime, weekday, uuid), DECIMAL bounds and
 * pattern (field_check.h).
 */
#include "transform/field_check.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/codec.h"
#include "ddbpipe/number.h"
#include "core/swar.h"

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static int digits(const char *s, size_t n)
{
    return ddb_all_digits(s, n);
}

static int num2(const char *s)
{
    return (s[0] - '0') * 10 + (s[1] - '0');
}

static int valid_date(const char *s, size_t len)
{
    static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int y, mo, d;
    if (len != 10 || s[4] != '-' || s[7] != '-' || !digits(s, 4) || !digits(s + 5, 2) ||
        !digits(s + 8, 2))
        return 0;
    y = num2(s) * 100 + num2(s + 2);
    mo = num2(s + 5);
    d = num2(s + 8);
    if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1])
        return 0;
    if (mo == 2 && d == 29 && !((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
        return 0;
    return 1;
}

static int valid_datetime(const char *s, size_t len)
{
    size_t i = 16;
    if (len < 16 || !valid_date(s, 10) || (s[10] != 'T' && s[10] != ' ') || !digits(s + 11, 2) ||
        s[13] != ':' || !digits(s + 14, 2) || num2(s + 11) > 23 || num2(s + 14) > 59)
        return 0;
    if (i < len && s[i] == ':') {
        if (len < i + 3 || !digits(s + i + 1, 2) || num2(s + i + 1) > 60)
            return 0;
        i += 3;
        if (i < len && s[i] == '.') {
            size_t f = ++i;
            while (i < len && is_digit(s[i]))
                i++;
            if (i == f)
                return 0;
        }
    }
    if (i == len)
        return 1;
    if (s[i] == 'Z')
        return i + 1 == len;
    if ((s[i] == '+' || s[i] == '-') && len == i + 6 && digits(s + i + 1, 2) && s[i + 3] == ':' &&
        digits(s + i + 4, 2))
        return 1;
    return 0;
}

static int valid_weekday(const char *s, size_t len)
{
    static const char *const days[] = {"monday", "tuesday",  "wednesday", "thursday",
                                       "friday", "saturday", "sunday"};
    for (int i = 0; i < 7; i++) {
        size_t full = strlen(days[i]);
        if ((len == full || len == 3) && strncasecmp(s, days[i], len) == 0)
            return 1;
    }
    return 0;
}

size_t ddb_weekday_spell(const ddb_field *f, const char *s, size_t len, char *out)
{
    static const char *const days[] = {"monday", "tuesday",  "wednesday", "thursday",
                                       "friday", "saturday", "sunday"};
    const char *sp = f->spelling ? f->spelling : "Monday";
    int upper = sp[1] >= 'A' && sp[1] <= 'Z', cap = sp[0] >= 'A' && sp[0] <= 'Z';
    int abbrev = strlen(sp) == 3;
    for (int i = 0; i < 7; i++) {
        size_t full = strlen(days[i]), n;
        if (!((len == full || len == 3) && strncasecmp(s, days[i], len) == 0))
            continue;
        n = abbrev ? 3 : full;
        for (size_t k = 0; k < n; k++) {
            char c = days[i][k];
            out[k] = (char)((upper || (k == 0 && cap)) ? c - 'a' + 'A' : c);
        }
        out[n] = '\0';
        return n;
    }
    return 0;
}

static int valid_uuid(const char *s, size_t len)
{
    if (len != 36)
        return 0;
    for (size_t i = 0; i < 36; i++) {
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            if (s[i] != '-')
                return 0;
        } else if (!isxdigit((unsigned char)s[i])) {
            return 0;
        }
    }
    return 1;
}

static const char *format_name(ddb_field_format f)
{
    switch (f) {
    case DDB_FMT_DATE:
        return "a date (YYYY-MM-DD)";
    case DDB_FMT_DATETIME:
        return "a date-time (YYYY-MM-DDTHH:MM:SS)";
    case DDB_FMT_WEEKDAY:
        return "a weekday name";
    case DDB_FMT_UUID:
        return "a UUID";
    default:
        return "?";
    }
}

/* Whether the Number text s fits f's declared DECIMAL(precision, scale) as it
 * is: at most scale digits after the point, precision - scale before it. */
static int fits_decimal(const ddb_field *f, const char *s, size_t len, ddb_error *err)
{
    ddb_number n;
    int int_digits, frac_digits;

    if (ddb_number_parse(&n, s, len, NULL) != 0)
        return 0;
    /* value = 0.d1..dn x 10^exponent */
    int_digits = n.ndigits > 0 && n.exponent > 0 ? n.exponent : 0;
    frac_digits = n.ndigits - n.exponent > 0 ? n.ndigits - n.exponent : 0;
    if (frac_digits > f->scale) {
        ddb_error_set(err, DDB_EINVAL,
                      "field %s: '%.*s' has %d digits after the point, more than its scale %d",
                      f->name, (int)(len > 60 ? 60 : len), s, frac_digits, f->scale);
        return 0;
    }
    if (int_digits > f->precision - f->scale) {
        ddb_error_set(err, DDB_EINVAL,
                      "field %s: '%.*s' has %d digits before the point, more than "
                      "DECIMAL(%d,%d) holds (%d)",
                      f->name, (int)(len > 60 ? 60 : len), s, int_digits, f->precision, f->scale,
                      f->precision - f->scale);
        return 0;
    }
    return 1;
}

/* Values a field's pattern matched lately, on this thread: regexec costs
 * about 800 instructions a call, and a patterned field (a month, a code)
 * takes few distinct values. Only matches are kept, by the pattern's id
 * (unique in the process, unlike a field's address) and the bytes. 256
 * slots (12 KB a thread): at 16, the movies dump's 24 months missed half
 * the time. */
#define PATTERN_MEMO 256
#define PATTERN_MEMO_BYTES 32
typedef struct pattern_memo {
    uint64_t id; /* the field's pattern_id: never the same for two patterns */
    size_t len;
    char text[PATTERN_MEMO_BYTES];
} pattern_memo;
static _Thread_local pattern_memo pattern_memos[PATTERN_MEMO];

/* By the bytes alone: the same bytes of two fields share a slot, and the
 * pattern id kept in it tells them apart. */
static pattern_memo *pattern_slot(const char *s, size_t len)
{
    uint64_t h = UINT64_C(0xCBF29CE484222325) ^ len;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * UINT64_C(0x100000001B3);
    return &pattern_memos[(h ^ h >> 29) % PATTERN_MEMO];
}

/* Does f's pattern match s[0, len)? From the memo when it matched lately,
 * else by regexec, a match then remembered. */
static int pattern_accepts(const ddb_field *f, const char *s, size_t len)
{
    pattern_memo *m = len <= PATTERN_MEMO_BYTES ? pattern_slot(s, len) : NULL;
    char small[256];
    char *z;
    int ok;

    if (m != NULL && m->id == f->pattern_id && m->len == len && memcmp(m->text, s, len) == 0)
        return 1;
    /* An embedded NUL would hide the tail from regexec: never a match. */
    if (memchr(s, '\0', len) != NULL)
        return 0;
    if ((z = len < sizeof(small) ? small : malloc(len + 1)) == NULL)
        return 0;
    memcpy(z, s, len);
    z[len] = '\0';
    ok = regexec(&f->pattern, z, 0, NULL, 0) == 0;
    if (z != small)
        free(z);
    if (ok && m != NULL) {
        m->id = f->pattern_id;
        m->len = len;
        memcpy(m->text, s, len);
    }
    return ok;
}

int ddb_field_accepts_text(const ddb_field *f, const char *s, size_t len, ddb_error *err)
{
    int shown = (int)(len > 60 ? 60 : len);

    if (f->type == DDB_TYPE_N) {
        if (ddb_number_validate(s, len, NULL) != 0) {
            ddb_error_set(err, DDB_EINVAL, "field %s: '%.*s' is not a number", f->name, shown, s);
            return 0;
        }
        if (f->precision > 0 && !fits_decimal(f, s, len, err))
            return 0;
    } else if (f->type == DDB_TYPE_B) {
        if (len % 4 != 0) {
            ddb_error_set(err, DDB_EINVAL, "field %s: '%.*s' is not base64", f->name, shown, s);
            return 0;
        }
    }
    if (f->n_enum > 0 && ddb_field_enum_index(f, s, len, 0) < 0) {
        if (err != NULL) {
            char allowed[200];
            size_t n = 0;
            for (size_t i = 0; i < f->n_enum && n < sizeof(allowed); i++)
                n += (size_t)snprintf(allowed + n, sizeof(allowed) - n, "%s%s", i ? ", " : "",
                                      f->enum_values[i]);
            ddb_error_set(err, DDB_EINVAL, "field %s: '%.*s' is not one of %s", f->name, shown, s,
                          allowed);
        }
        return 0;
    }
    if (f->format != DDB_FMT_NONE) {
        int ok = f->format == DDB_FMT_DATE       ? valid_date(s, len)
                 : f->format == DDB_FMT_DATETIME ? valid_datetime(s, len)
                 : f->format == DDB_FMT_WEEKDAY  ? valid_weekday(s, len)
                                                 : valid_uuid(s, len);
        if (!ok) {
            ddb_error_set(err, DDB_EINVAL, "field %s: '%.*s' is not %s", f->name, shown, s,
                          format_name(f->format));
            return 0;
        }
    }
    if (f->has_pattern && !pattern_accepts(f, s, len)) {
        ddb_error_set(err, DDB_EINVAL, "field %s: '%.*s' does not match pattern %s", f->name,
                      shown, s, f->pattern_text);
        return 0;
    }
    return 1;
}

int ddb_field_enum_index(const ddb_field *f, const char *s, size_t len, int keys)
{
    char **list = keys && f->enum_keys ? f->enum_keys : f->enum_values;
    for (size_t i = 0; i < f->n_enum; i++)
        if (ddb_cstr_eq(list[i], s, len))
            return (int)i;
    return -1;
}

int ddb_field_padded_text_ok(const ddb_field *f, const char *s, size_t len)
{
    size_t i = 0;
    if (!f->pad)
        return 1;
    while (i < len && is_digit(s[i]))
        i++;
    if (i == 0)
        return 0;
    if (i < len) {
        if (s[i] != '.' || i + 1 == len)
            return 0;
        return digits(s + i + 1, len - i - 1);
    }
    return 1;
}
