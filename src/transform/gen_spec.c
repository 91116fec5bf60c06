/*
 * The "generate" property of a field (see formats/README.md):
 *   {"range": [lo, hi], "distribution": "uniform|normal|zipf"}
 *   {"oneOf": [v, ...], "weights": [w, ...]}
 *   {"weights": [...]}          (over the field's enum values)
 *   {"pattern": "ERE"}          (values from this expression)
 *   {"distinct": N}             (at most N values; on a partition field: N partitions)
 *   {"absent": 0.1}             (a share of records without the field)
 * json-c is fine here as for the rest of the mapping: a range bound is read
 * back as the text it was written with, and checked as a DynamoDB number.
 */
#include "transform/gen_spec.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/number.h"
#include "transform/pattern_limits.h"
#include "transform/template.h"

typedef struct sctx {
    const char *name, *path;
    const ddb_field *f;
    ddb_error *err;
} sctx;

__attribute__((format(printf, 2, 3))) static int bad(sctx *c, const char *fmt, ...)
{
    char reason[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof(reason), fmt, ap);
    va_end(ap);
    return ddb_error_set(c->err, DDB_EUSAGE, "mapping %s: %s.generate: %s", c->name, c->path,
                         reason);
}

void ddb_gen_spec_free(ddb_gen_spec *s)
{
    if (s == NULL)
        return;
    free(s->range_lo);
    free(s->range_hi);
    for (size_t i = 0; i < s->n_one_of; i++)
        free(s->one_of[i]);
    free(s->one_of);
    free(s->weights);
    free(s->pattern);
    free(s);
}

static int is_digits(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return 0;
    return 1;
}

static int num_at(const char *s, size_t n)
{
    int v = 0;
    for (size_t i = 0; i < n; i++)
        v = v * 10 + (s[i] - '0');
    return v;
}

int ddb_gen_parse_date(const char *s, int64_t *days)
{
    static const unsigned mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int y;
    unsigned m, d;
    if (strlen(s) < 10 || s[4] != '-' || s[7] != '-' || !is_digits(s, 4) || !is_digits(s + 5, 2) ||
        !is_digits(s + 8, 2))
        return 0;
    y = num_at(s, 4);
    m = (unsigned)num_at(s + 5, 2);
    d = (unsigned)num_at(s + 8, 2);
    if (m < 1 || m > 12 || d < 1 || d > mdays[m - 1] ||
        (m == 2 && d == 29 && !((y % 4 == 0 && y % 100 != 0) || y % 400 == 0)))
        return 0;
    *days = ddb_gen_days(y, m, d);
    return s[10] == '\0' ? 1 : 0;
}

int ddb_gen_parse_datetime(const char *s, int64_t *seconds)
{
    char date[11];
    int64_t days;
    size_t n = strlen(s);
    int h, mi, sec = 0;
    if (n < 16 || (s[10] != 'T' && s[10] != ' ') || s[13] != ':' || !is_digits(s + 11, 2) ||
        !is_digits(s + 14, 2))
        return 0;
    memcpy(date, s, 10);
    date[10] = '\0';
    if (!ddb_gen_parse_date(date, &days))
        return 0;
    h = num_at(s + 11, 2);
    mi = num_at(s + 14, 2);
    s += 16;
    if (*s == ':') {
        if (!is_digits(s + 1, 2))
            return 0;
        sec = num_at(s + 1, 2);
        s += 3;
    }
    if (*s == 'Z')
        s++;
    if (*s != '\0' || h > 23 || mi > 59 || sec > 59)
        return 0;
    *seconds = days * 86400 + h * 3600 + mi * 60 + sec;
    return 1;
}

/* A value of "oneOf" or "range" as text: strings as they are, numbers as
 * written, anything else as JSON text (for M and L fields). */
static char *value_text(json_object *v)
{
    if (json_object_is_type(v, json_type_string))
        return strdup(json_object_get_string(v));
    return strdup(json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN));
}

/* Can this text be a value (or, for sets, a member) of the field? */
static int check_value(sctx *c, const char *what, const char *text)
{
    const ddb_field *f = c->f;
    ddb_type t = ddb_type_set_member(f->type);
    ddb_error e;
    if (t == DDB_TYPE_N || (t == DDB_TYPE_NONE && f->type == DDB_TYPE_N)) {
        if (ddb_number_validate(text, strlen(text), &e) != 0)
            return bad(c, "%s: %s", what, e.message);
    }
    if (f->type == DDB_TYPE_BOOL && strcmp(text, "true") != 0 && strcmp(text, "false") != 0)
        return bad(c, "%s: a BOOL field takes true or false, not %s", what, text);
    if ((f->type == DDB_TYPE_S || f->type == DDB_TYPE_N) &&
        !ddb_field_accepts_text(f, text, strlen(text), &e))
        return bad(c, "%s: %s", what, e.message);
    return 0;
}

static int parse_range(sctx *c, json_object *v, ddb_gen_spec *s)
{
    const ddb_field *f = c->f;
    ddb_type member = ddb_type_set_member(f->type);
    int dates = f->format == DDB_FMT_DATE || f->format == DDB_FMT_DATETIME;
    int numeric = f->type == DDB_TYPE_N || member == DDB_TYPE_N ||
                  (f->type == DDB_TYPE_S && !dates && f->n_enum == 0);
    if (!json_object_is_type(v, json_type_array) || json_object_array_length(v) != 2)
        return bad(c, "\"range\" must be [low, high]");
    if (!numeric && !dates)
        return bad(c, "\"range\" applies to N fields, NS members, and S fields that are numbers "
                      "or have format date or datetime");
    s->range_lo = value_text(json_object_array_get_idx(v, 0));
    s->range_hi = value_text(json_object_array_get_idx(v, 1));
    if (s->range_lo == NULL || s->range_hi == NULL)
        return ddb_error_set(c->err, DDB_ENOMEM, "out of memory");
    if (dates) {
        int64_t lo, hi;
        int (*parse)(const char *, int64_t *) =
            f->format == DDB_FMT_DATE ? ddb_gen_parse_date : ddb_gen_parse_datetime;
        if (!parse(s->range_lo, &lo) || !parse(s->range_hi, &hi))
            return bad(c, "\"range\" bounds must be %s, like %s",
                       f->format == DDB_FMT_DATE ? "dates" : "date-times",
                       f->format == DDB_FMT_DATE ? "\"2020-01-01\"" : "\"2020-01-01T00:00:00Z\"");
        if (lo > hi)
            return bad(c, "\"range\" low bound %s is after the high bound %s", s->range_lo,
                       s->range_hi);
        return 0;
    }
    {
        ddb_number lo, hi;
        ddb_error e;
        if (ddb_number_parse(&lo, s->range_lo, strlen(s->range_lo), &e) != 0 ||
            ddb_number_parse(&hi, s->range_hi, strlen(s->range_hi), &e) != 0)
            return bad(c, "\"range\": %s", e.message);
        if (ddb_number_compare(&lo, &hi) > 0)
            return bad(c, "\"range\" low bound %s is above the high bound %s", s->range_lo,
                       s->range_hi);
    }
    return 0;
}

static int parse_one_of(sctx *c, json_object *v, ddb_gen_spec *s)
{
    size_t n;
    if (!json_object_is_type(v, json_type_array) || (n = json_object_array_length(v)) == 0)
        return bad(c, "\"oneOf\" must be a non-empty array of values");
    if ((s->one_of = calloc(n, sizeof(char *))) == NULL)
        return ddb_error_set(c->err, DDB_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        char what[64];
        int rc;
        if ((s->one_of[i] = value_text(json_object_array_get_idx(v, i))) == NULL)
            return ddb_error_set(c->err, DDB_ENOMEM, "out of memory");
        s->n_one_of++;
        snprintf(what, sizeof(what), "\"oneOf\"[%zu]", i);
        if ((rc = check_value(c, what, s->one_of[i])) != 0)
            return rc;
    }
    return 0;
}

static int parse_weights(sctx *c, json_object *v, ddb_gen_spec *s)
{
    size_t n, want = s->n_one_of ? s->n_one_of : c->f->n_enum;
    double sum = 0;
    if (want == 0)
        return bad(c, "\"weights\" needs \"oneOf\" values or an \"enum\" to weigh");
    if (!json_object_is_type(v, json_type_array) || (n = json_object_array_length(v)) != want)
        return bad(c, "\"weights\" must be an array of %zu numbers, one per %s value", want,
                   s->n_one_of ? "oneOf" : "enum");
    if ((s->weights = calloc(n, sizeof(double))) == NULL)
        return ddb_error_set(c->err, DDB_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        json_object *w = json_object_array_get_idx(v, i);
        if ((!json_object_is_type(w, json_type_int) && !json_object_is_type(w, json_type_double)) ||
            json_object_get_double(w) < 0)
            return bad(c, "\"weights\"[%zu] must be a number >= 0", i);
        s->weights[i] = json_object_get_double(w);
        sum += s->weights[i];
    }
    s->n_weights = n;
    if (!(sum > 0))
        return bad(c, "\"weights\" must not all be 0");
    return 0;
}

static int parse_misc(sctx *c, json_object *obj, ddb_gen_spec *s)
{
    json_object *v;
    if (json_object_object_get_ex(obj, "distribution", &v)) {
        const char *d = json_object_get_string(v);
        if (!json_object_is_type(v, json_type_string))
            d = "";
        if (strcmp(d, "uniform") == 0)
            s->distribution = DDB_GEN_UNIFORM;
        else if (strcmp(d, "normal") == 0)
            s->distribution = DDB_GEN_NORMAL;
        else if (strcmp(d, "zipf") == 0)
            s->distribution = DDB_GEN_ZIPF;
        else
            return bad(c, "\"distribution\" must be uniform, normal or zipf");
        if (s->range_lo == NULL)
            return bad(c, "\"distribution\" applies to a \"range\"");
    }
    if (json_object_object_get_ex(obj, "distinct", &v)) {
        if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 1)
            return bad(c, "\"distinct\" must be a whole number >= 1");
        s->distinct = (uint64_t)json_object_get_int64(v);
    }
    if (json_object_object_get_ex(obj, "absent", &v)) {
        double a = json_object_get_double(v);
        if ((!json_object_is_type(v, json_type_int) && !json_object_is_type(v, json_type_double)) ||
            !(a >= 0 && a < 1))
            return bad(c, "\"absent\" must be a share from 0 to below 1 (0.1: one record in ten)");
        if (c->f->required && a > 0)
            return bad(c, "\"absent\" cannot apply to a required field");
        s->absent = a;
    }
    if (json_object_object_get_ex(obj, "pattern", &v)) {
        regex_t re;
        char why[160];
        if (!json_object_is_type(v, json_type_string))
            return bad(c, "\"pattern\" must be a string");
        if (ddb_pattern_check(json_object_get_string(v), why, sizeof(why)) != 0)
            return bad(c, "\"pattern\" of field \"%s\" is too complex: %s", c->f->name, why);
        if (regcomp(&re, json_object_get_string(v), REG_EXTENDED | REG_NOSUB) != 0)
            return bad(c, "\"pattern\" is not a valid POSIX extended regular expression");
        regfree(&re);
        if ((s->pattern = strdup(json_object_get_string(v))) == NULL)
            return ddb_error_set(c->err, DDB_ENOMEM, "out of memory");
    }
    return 0;
}

int ddb_gen_spec_parse(ddb_gen_spec **out, json_object *obj, const ddb_field *f,
                       const char *mapping_name, const char *path, ddb_error *err)
{
    static const char *const props[] = {"range",        "oneOf",       "weights",
                                        "distribution", "distinct",    "absent",
                                        "pattern",      "description", NULL};
    sctx c = {mapping_name, path, f, err};
    ddb_gen_spec *s = NULL;
    json_object *v;
    int rc = 0, kinds;

    *out = NULL;
    if (!json_object_is_type(obj, json_type_object)) {
        rc = bad(&c, "must be an object like {\"range\": [1, 100]} or {\"oneOf\": [\"a\", \"b\"]}");
        goto done;
    }
    {
        json_object_object_foreach(obj, key, val)
        {
            const char *const *p;
            (void)val;
            for (p = props; *p != NULL && strcmp(*p, key) != 0; p++)
                ;
            if (*p == NULL) {
                rc = bad(&c, "unknown property \"%s\"", key);
                goto done;
            }
        }
    }
    if ((s = calloc(1, sizeof(*s))) == NULL) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        goto done;
    }
    kinds = json_object_object_get_ex(obj, "range", NULL) +
            json_object_object_get_ex(obj, "oneOf", NULL) +
            json_object_object_get_ex(obj, "pattern", NULL);
    if (kinds > 1) {
        rc = bad(&c, "give one of \"range\", \"oneOf\" or \"pattern\"");
        goto done;
    }
    if (json_object_object_get_ex(obj, "range", &v) && (rc = parse_range(&c, v, s)) != 0)
        goto done;
    if (json_object_object_get_ex(obj, "oneOf", &v) && (rc = parse_one_of(&c, v, s)) != 0)
        goto done;
    if (json_object_object_get_ex(obj, "weights", &v) && (rc = parse_weights(&c, v, s)) != 0)
        goto done;
    if ((rc = parse_misc(&c, obj, s)) != 0)
        goto done;
    *out = s;
    s = NULL;
done:
    ddb_gen_spec_free(s);
    return rc;
}

/* Civil date from days since 1970-01-01 (H. Hinnant's algorithm). */
void ddb_gen_date(char *out, int64_t z)
{
    int64_t era, yy;
    unsigned doe, yoe, doy, mp, d, m;
    z += 719468;
    era = (z >= 0 ? z : z - 146096) / 146097;
    doe = (unsigned)(z - era * 146097);
    yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    yy = (int64_t)yoe + era * 400;
    doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    mp = (5 * doy + 2) / 153;
    d = doy - (153 * mp + 2) / 5 + 1;
    m = mp < 10 ? mp + 3 : mp - 9;
    yy += m <= 2;
    snprintf(out, 11, "%04u-%02u-%02u", (unsigned)yy % 10000u, m % 13u, d % 32u);
}

int64_t ddb_gen_days(int year, unsigned month, unsigned day)
{
    int64_t y = (int64_t)year - (month <= 2), era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}
