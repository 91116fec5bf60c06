/*
 * Text by field name (an epoch time for createTime, a URL for contentUrl, a
 * person for name, one consistent place for country, region, city and time
 * zone...) and the text forms of generated values: numbers, dates, months,
 * date-times, identifiers, UUIDs.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "gen/gen_internal.h"
#include "gen/gen_words.h"

static int contains(const char *lower, const char *w)
{
    return strstr(lower, w) != NULL;
}

static int ends_with(const char *s, const char *w)
{
    size_t n = strlen(s), m = strlen(w);
    return n >= m && strcmp(s + n - m, w) == 0;
}

static void lower_name(char *out, size_t cap, const char *name)
{
    size_t i = 0;
    for (; name[i] && i + 1 < cap; i++)
        out[i] = (char)tolower((unsigned char)name[i]);
    out[i] = '\0';
}

int gen_text_kind(const char *name)
{
    char l[128];
    lower_name(l, sizeof(l), name);
    if (ends_with(name, "Id") || ends_with(name, "ID") || ends_with(l, "_id") ||
        strcmp(l, "id") == 0 || strcmp(l, "uuid") == 0 || strcmp(l, "guid") == 0 ||
        ends_with(name, "Key") || strcmp(l, "key") == 0)
        return GEN_T_ID;
    if (contains(l, "email"))
        return GEN_T_EMAIL;
    if (contains(l, "url") || contains(l, "uri") || contains(l, "link") || contains(l, "href") ||
        contains(l, "website"))
        return GEN_T_URL;
    if (contains(l, "phone") || contains(l, "mobile"))
        return GEN_T_PHONE;
    if (contains(l, "country"))
        return GEN_T_COUNTRY;
    if (contains(l, "region") || contains(l, "province") || strcmp(l, "state") == 0)
        return GEN_T_REGION;
    if (contains(l, "city") || contains(l, "town"))
        return GEN_T_CITY;
    if (contains(l, "timezone") || strcmp(l, "tz") == 0)
        return GEN_T_TZ;
    if (strcmp(l, "name") == 0 || contains(l, "firstname") || contains(l, "lastname") ||
        contains(l, "fullname") || contains(l, "author") || contains(l, "character") ||
        contains(l, "person") || contains(l, "contact") || contains(l, "alias"))
        return GEN_T_PERSON;
    if (ends_with(l, "name"))
        return GEN_T_LABEL;
    if (contains(l, "title") || contains(l, "subject") || contains(l, "headline"))
        return GEN_T_TITLE;
    if (contains(l, "description") || contains(l, "text") || contains(l, "comment") ||
        contains(l, "note") || contains(l, "body") || contains(l, "message") ||
        contains(l, "summary") || contains(l, "content") || contains(l, "bio"))
        return GEN_T_SENTENCE;
    if (contains(l, "type") || contains(l, "kind") || contains(l, "category") ||
        contains(l, "status") || contains(l, "genre") || contains(l, "tag") || contains(l, "label"))
        return GEN_T_WORD;
    return GEN_T_GENERIC;
}

int gen_name_is_time(const char *name)
{
    char l[128];
    lower_name(l, sizeof(l), name);
    return ends_with(l, "time") || ends_with(name, "At") || ends_with(l, "_at") ||
           ends_with(l, "timestamp") || strcmp(l, "ts") == 0 || contains(l, "epoch") ||
           contains(l, "millis");
}

/* Integer ranges by name, as (lo, hi, scale). */
void gen_number_range(const char *name, int64_t *lo, int64_t *hi, int *scale)
{
    char l[128];
    lower_name(l, sizeof(l), name);
    *scale = 0;
    if (gen_name_is_time(name) || ends_with(name, "Date")) {
        *lo = 1546300800000LL; /* 2019-01-01T00:00:00Z, epoch milliseconds */
        *hi = 1767225599999LL; /* 2025-12-31T23:59:59.999Z */
    } else if (contains(l, "year")) {
        *lo = 1950;
        *hi = 2025;
    } else if (contains(l, "minute") || contains(l, "duration") || contains(l, "seconds")) {
        *lo = 1;
        *hi = 240;
    } else if (contains(l, "budget") || contains(l, "revenue") || contains(l, "salary") ||
               contains(l, "income")) {
        *lo = 100000;
        *hi = 500000000;
    } else if (contains(l, "price") || contains(l, "amount") || contains(l, "cost") ||
               contains(l, "fee") || contains(l, "balance")) {
        *lo = 50;
        *hi = 99999;
        *scale = 2;
    } else if (contains(l, "rating") || contains(l, "score") || contains(l, "stars")) {
        *lo = 10;
        *hi = 100;
        *scale = 1;
    } else if (contains(l, "billing") || contains(l, "rank") || contains(l, "order") ||
               contains(l, "position") || contains(l, "priority") || contains(l, "index") ||
               contains(l, "level") || contains(l, "seq")) {
        *lo = 1;
        *hi = 20;
    } else if (strcmp(l, "lat") == 0 || contains(l, "latitude")) {
        *lo = -90000000;
        *hi = 90000000;
        *scale = 6;
    } else if (strcmp(l, "lon") == 0 || strcmp(l, "lng") == 0 || contains(l, "longitude")) {
        *lo = -180000000;
        *hi = 180000000;
        *scale = 6;
    } else if (contains(l, "capacity") || contains(l, "seats")) {
        *lo = 10;
        *hi = 500;
    } else if (contains(l, "count") || contains(l, "stream") || contains(l, "view") ||
               contains(l, "quantity") || contains(l, "qty") || contains(l, "likes") ||
               contains(l, "plays") || contains(l, "download") || contains(l, "total") ||
               contains(l, "size") || contains(l, "number")) {
        *lo = 0;
        *hi = 100000;
    } else {
        *lo = 0;
        *hi = 1000;
    }
}

int64_t gen_pow10(int n)
{
    int64_t v = 1;
    while (n-- > 0)
        v *= 10;
    return v;
}

/* v / 10^scale in plain decimal notation without trailing zeros. */
void gen_number_text(char *out, size_t cap, int64_t v, int scale)
{
    uint64_t m = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    uint64_t p = (uint64_t)gen_pow10(scale), ip = m / p, fp = m % p;
    int n = snprintf(out, cap, "%s%llu", v < 0 ? "-" : "", (unsigned long long)ip);
    if (scale > 0 && fp != 0) {
        char frac[24];
        int len = snprintf(frac, sizeof(frac), "%0*llu", scale, (unsigned long long)fp);
        while (len > 0 && frac[len - 1] == '0')
            frac[--len] = '\0';
        snprintf(out + n, cap - (size_t)n, ".%s", frac);
    }
}

void gen_datetime_text(char *out, int64_t secs)
{
    char date[16];
    int64_t day = secs >= 0 ? secs / 86400 : (secs - 86399) / 86400, rem = secs - day * 86400;
    ddb_gen_date(date, day);
    snprintf(out, 24, "%.10sT%02d:%02d:%02dZ", date, (int)(rem / 3600), (int)(rem / 60 % 60),
             (int)(rem % 60));
}

void gen_id_text(char *out, uint64_t v)
{
    static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
    for (int i = GEN_ID_LEN - 1; i >= 0; i--) {
        out[i] = digits[v % 36];
        v /= 36;
    }
    out[GEN_ID_LEN] = '\0';
}

void gen_month_text(char *out, int64_t months)
{
    snprintf(out, 8, "%04d-%02d", (int)(months / 12) % 10000, (int)(months % 12) + 1);
}

void gen_uuid_text(char *out, uint64_t x, uint64_t fill)
{
    /* x goes where version and variant bits do not: bytes 0-5, 7 and 9, so
     * distinct x stay distinct UUIDs. */
    uint64_t hi =
        (x & 0xFFFFFFFFFFFFull) | ((x >> 48 & 0xFF) << 56) | (fill & 0x00FF000000000000ull);
    uint64_t lo = (fill >> 8 & 0xFFFFFFFFFFFF00FFull) | ((x >> 56) << 8);
    ddb_gen_uuid(out, hi, lo);
}

static void put_words(ddb_buf *b, ddb_rng *r, unsigned lo, unsigned hi, int capital)
{
    unsigned n = lo + (unsigned)ddb_rng_below(r, hi - lo + 1);
    for (unsigned i = 0; i < n; i++) {
        const char *w = PICK(r, gen_words, gen_n_words);
        if (i)
            ddb_buf_putc(b, ' ');
        if (i == 0 && capital && w[0] >= 'a' && w[0] <= 'z') {
            ddb_buf_putc(b, (char)(w[0] - 'a' + 'A'));
            ddb_buf_puts(b, w + 1);
        } else {
            ddb_buf_puts(b, w);
        }
    }
}

/* A word in lower-case ASCII for a URL or an address; nothing when the
 * word has other letters (a path of "smrgs" from "smörgås" reads badly). */
static void put_ascii_lower(ddb_buf *b, const char *s)
{
    for (const char *p = s; *p; p++)
        if ((unsigned char)*p >= 0x80)
            return;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
            ddb_buf_putc(b, (char)c);
        else if (c >= 'A' && c <= 'Z')
            ddb_buf_putc(b, (char)(c - 'A' + 'a'));
    }
}

/* A list entry that is plain ASCII, lower-cased (a few tries, then fallback). */
static void put_ascii_pick(ddb_buf *b, ddb_rng *r, const char *const *list, size_t n,
                           const char *fallback)
{
    size_t before = b->len;
    for (int tries = 0; tries < 4 && b->len == before; tries++)
        put_ascii_lower(b, PICK(r, list, n));
    if (b->len == before)
        ddb_buf_puts(b, fallback);
}

void gen_random_text(ddb_buf *b, int kind, ddb_rng *r, uint64_t place)
{
    const gen_place *pl = &gen_places[place % gen_n_places];
    char id[GEN_ID_LEN + 1];
    switch (kind) {
    case GEN_T_ID:
        gen_id_text(id, ddb_rng_below(r, GEN_ID_SPACE));
        ddb_buf_puts(b, id);
        break;
    case GEN_T_EMAIL:
        put_ascii_pick(b, r, gen_first_names, gen_n_first_names, "user");
        ddb_buf_putc(b, '.');
        put_ascii_pick(b, r, gen_last_names, gen_n_last_names, "mail");
        ddb_buf_printf(b, "%u@%s", (unsigned)ddb_rng_below(r, 100),
                       PICK(r, gen_domains, gen_n_domains));
        break;
    case GEN_T_URL:
        gen_id_text(id, ddb_rng_below(r, GEN_ID_SPACE));
        ddb_buf_printf(b, "https://%s/", PICK(r, gen_domains, gen_n_domains));
        put_ascii_pick(b, r, gen_words, gen_n_words, "page");
        ddb_buf_printf(b, "/%s", id);
        break;
    case GEN_T_PHONE:
        ddb_buf_printf(b, "+%u %03u %07u", 1 + (unsigned)ddb_rng_below(r, 98),
                       (unsigned)ddb_rng_below(r, 1000), (unsigned)ddb_rng_below(r, 10000000));
        break;
    case GEN_T_PERSON:
        ddb_buf_printf(b, "%s %s", PICK(r, gen_first_names, gen_n_first_names),
                       PICK(r, gen_last_names, gen_n_last_names));
        break;
    case GEN_T_LABEL:
        put_words(b, r, 1, 2, 0);
        break;
    case GEN_T_TITLE:
        put_words(b, r, 2, 6, 1);
        break;
    case GEN_T_SENTENCE:
        put_words(b, r, 5, 14, 1);
        ddb_buf_putc(b, '.');
        break;
    case GEN_T_COUNTRY:
        ddb_buf_puts(b, pl->country);
        break;
    case GEN_T_REGION:
        ddb_buf_puts(b, pl->region);
        break;
    case GEN_T_CITY:
        ddb_buf_puts(b, pl->city);
        break;
    case GEN_T_TZ:
        ddb_buf_puts(b, pl->timezone);
        break;
    case GEN_T_WORD:
        put_words(b, r, 1, 1, 0);
        break;
    default:
        put_words(b, r, 1, 3, 0);
        break;
    }
}

void ddb_gen_uuid(char *out, uint64_t hi, uint64_t lo)
{
    static const char hex[] = "0123456789abcdef";
    unsigned char b[16];
    size_t o = 0;
    for (int i = 0; i < 8; i++) {
        b[i] = (unsigned char)(hi >> (8 * i));
        b[8 + i] = (unsigned char)(lo >> (8 * i));
    }
    b[6] = (unsigned char)((b[6] & 0x0f) | 0x40); /* version 4 */
    b[8] = (unsigned char)((b[8] & 0x3f) | 0x80); /* RFC 4122 variant */
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            out[o++] = '-';
        out[o++] = hex[b[i] >> 4];
        out[o++] = hex[b[i] & 15];
    }
    out[o] = '\0';
}

int gen_name_has(const char *name, const char *word)
{
    char l[128];
    lower_name(l, sizeof(l), name);
    return contains(l, word);
}
