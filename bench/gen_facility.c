/*
 * The facility-capacity design (formats/facility-capacity.json): per
 * facility its profile, a capacity for each of the 7 weekdays and a few
 * exceptional dates. The sort key holds "PROFILE", a weekday or a date.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

typedef struct facility_design {
    gen_design base;
    const ddb_entity *facility, *weekday, *date;
    uint64_t n;
    unsigned extra_kind; /* cycles, so every kind of undeclared attribute appears */
} facility_design;

/* name, country, region, city, timezone */
static const char *const places[][5] = {
    {"Zürich Hauptbahnhof Parking", "CH", "Zürich", "Zürich", "Europe/Zurich"},
    {"東京ドーム", "JP", "Tōkyō", "Bunkyō", "Asia/Tokyo"},
    {"Centre Pompidou, Paris", "FR", "Île-de-France", "Paris", "Europe/Paris"},
    {"Brooklyn \"Navy Yard\" Hall", "US", "New York", "Brooklyn", "America/New_York"},
    {"Olympiahalle München", "DE", "Bayern", "München", "Europe/Berlin"},
    {"Estádio do Pacaembu", "BR", "São Paulo", "São Paulo", "America/Sao_Paulo"},
    {"Bandra–Worli Sea Link Depot", "IN", "Maharashtra", "Mumbai", "Asia/Kolkata"},
    {"Sydney Opera House — Studio", "AU", "New South Wales", "Sydney", "Australia/Sydney"},
    {"Köln Messe\nHalle 7", "DE", "Nordrhein-Westfalen", "Köln", "Europe/Berlin"},
    {"Ρωμαϊκή Αγορά", "GR", "Attica", "Athens, Plaka", "Europe/Athens"},
    {"Warehouse 13", "US", "South Dakota", "Univille", "America/Chicago"},
    {"Jardín Botánico 🌵", "MX", "Ciudad de México", "Coyoacán", "America/Mexico_City"},
};

static const char *const long_days[] = {"Monday", "Tuesday",  "Wednesday", "Thursday",
                                        "Friday", "Saturday", "Sunday"};
static const char *const short_days[] = {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};

static const char *const dates[] = {"2024-01-01", "2024-02-29", "2024-05-01", "2024-07-14",
                                    "2024-10-03", "2024-12-24", "2024-12-25", "2024-12-31",
                                    "2025-01-01", "2025-04-29", "2025-05-03", "2025-12-25"};

static const char *const descriptions[] = {
    "Christmas Day",           "Fête nationale, closed at 14:00",
    "Golden Week — 特別営業",  "Inventory \"stock-take\"",
    "Marathon\nroad closures", "Neujahr",
    "Leap day 🐸 special",      "",
};

#define EMIT(e)                                                                                    \
    do {                                                                                           \
        ddb_map map_ = gen_rec_map(&rec);                                                          \
        if ((rc = emit(ctx, (e), &map_, err)) != 0)                                                \
            return rc;                                                                             \
    } while (0)

static void facility_extras(gen_rec *rec, gen_rng *r, unsigned kind)
{
    ddb_arena *a = rec->a;
    switch (kind % 4) {
    case 0: {
        ddb_attr at[2];
        at[0].name = (ddb_str){"lat", 3};
        at[0].value = gen_fmt(a, DDB_TYPE_N, "%d.%06d", (int)gen_rng_range(r, -60, 60),
                              (int)gen_rng_range(r, 1, 999999));
        at[1].name = (ddb_str){"lon", 3};
        at[1].value = gen_fmt(a, DDB_TYPE_N, "-%d.%06d", (int)gen_rng_range(r, 0, 179),
                              (int)gen_rng_range(r, 1, 999999));
        gen_rec_put(rec, "geo", gen_map(a, at, 2));
        break;
    }
    case 1: {
        ddb_value m[2] = {gen_bytes(a, r, 10, "\xff\xd8", 2), gen_bytes(a, r, 11, "\xff\xd8", 2)};
        gen_rec_put(rec, "photos", gen_list(a, DDB_TYPE_BS, m, 2));
        break;
    }
    case 2:
        gen_rec_put(rec, "closedSince", ddb_value_null());
        break;
    default: {
        ddb_value ns[3] = {gen_long_number(a, r, 38, 0), gen_fmt(a, DDB_TYPE_N, "-17"),
                           gen_fmt(a, DDB_TYPE_N, "0.5")};
        gen_rec_put(rec, "legacyCodes", gen_list(a, DDB_TYPE_NS, ns, 3));
        break;
    }
    }
}

static int facility_one(facility_design *f, gen_emit_fn emit, void *ctx, ddb_error *err)
{
    gen_design *d = &f->base;
    gen_rng *r = &d->rng;
    ddb_arena *a = d->scratch;
    const char *const *place = places[gen_rng_below(r, GEN_COUNT(places))];
    const char *const *days = gen_rng_chance(r, 20) ? short_days : long_days;
    char id[24];
    gen_rec rec;
    int rc;

    snprintf(id, sizeof(id), "fac-%05llu",
             (unsigned long long)((d->serial_base + f->n) * 7 + gen_rng_below(r, 7)));
    f->n++;
    ddb_arena_reset(a);
    gen_rec_init(&rec, a);
    gen_rec_s(&rec, "facilityId", id);
    gen_rec_s(&rec, "name", place[0]);
    gen_rec_s(&rec, "country", place[1]);
    if (gen_rng_chance(r, 90)) { /* else not in byLocation's sort order: sparse gsi1sk */
        gen_rec_s(&rec, "region", place[2]);
        gen_rec_s(&rec, "city", place[3]);
    }
    if (gen_rng_chance(r, 80))
        gen_rec_s(&rec, "timezone", place[4]);
    if (d->extras && gen_rng_chance(r, 30))
        facility_extras(&rec, r, f->extra_kind++);
    EMIT(f->facility);

    for (int i = 0; i < 7; i++) {
        int closed = i == 6 && gen_rng_chance(r, 25);
        ddb_arena_reset(a);
        gen_rec_init(&rec, a);
        gen_rec_s(&rec, "facilityId", id);
        gen_rec_s(&rec, "weekday", days[i]);
        gen_rec_n(&rec, "capacity", closed ? 0 : (uint64_t)gen_rng_range(r, 1, 50) * 100);
        if (!closed) {
            static const char *const mins[] = {"00", "15", "30", "45"};
            gen_rec_put(
                &rec, "opens",
                gen_fmt(a, DDB_TYPE_S, "%02d:%s", (int)gen_rng_range(r, 6, 10), GEN_PICK(r, mins)));
            gen_rec_put(&rec, "closes",
                        gen_fmt(a, DDB_TYPE_S, "%02d:%s", (int)gen_rng_range(r, 17, 23),
                                GEN_PICK(r, mins)));
        }
        EMIT(f->weekday);
    }

    {
        size_t n = gen_rng_below(r, 5), first = gen_rng_below(r, GEN_COUNT(dates));
        for (size_t i = 0; i < n; i++) {
            ddb_arena_reset(a);
            gen_rec_init(&rec, a);
            gen_rec_s(&rec, "facilityId", id);
            gen_rec_s(&rec, "date", dates[(first + i * 5) % GEN_COUNT(dates)]);
            gen_rec_n(&rec, "capacity", (uint64_t)gen_rng_range(r, 0, 30) * 50);
            if (gen_rng_chance(r, 60))
                gen_rec_s(&rec, "description", GEN_PICK(r, descriptions));
            EMIT(f->date);
        }
    }
    return 0;
}

static int facility_run(gen_design *d, gen_emit_fn emit, void *ctx, ddb_error *err)
{
    for (;;) {
        int rc = facility_one((facility_design *)d, emit, ctx, err);
        if (rc == 0)
            rc = emit(ctx, NULL, NULL, err); /* end of a collection */
        if (rc != 0)
            return rc > 0 ? 0 : rc;
    }
}

static int facility_unmatched(gen_design *d, ddb_item *out, ddb_arena *a, ddb_error *err)
{
    gen_rng *r = &d->rng;
    char uuid[37];
    gen_rec rec;

    gen_uuid(uuid, r);
    gen_rec_init(&rec, a);
    switch (gen_rng_below(r, 3)) {
    case 0: /* an audit trail written into the facility's collection */
        gen_rec_put(&rec, d->m->table.pk.name,
                    gen_fmt(a, DDB_TYPE_S, "FACILITY#fac-%05llu",
                            (unsigned long long)gen_rng_below(r, 100000)));
        gen_rec_put(
            &rec, d->m->table.sk.name,
            gen_fmt(a, DDB_TYPE_S, "AUDIT#2024-05-%02dT10:00:00Z", (int)gen_rng_range(r, 1, 28)));
        gen_rec_s(&rec, "user", "ops@example.com");
        break;
    case 1:
        gen_rec_put(&rec, d->m->table.pk.name, gen_fmt(a, DDB_TYPE_S, "Session#%s", uuid));
        gen_rec_s(&rec, d->m->table.sk.name, "-");
        gen_rec_n(&rec, "ttl", (uint64_t)gen_rng_range(r, 1716768000, 1719360000));
        break;
    default:
        gen_rec_put(&rec, d->m->table.pk.name,
                    gen_fmt(a, DDB_TYPE_S, "LEGACY#fac-%05llu",
                            (unsigned long long)gen_rng_below(r, 100000)));
        gen_rec_s(&rec, d->m->table.sk.name, "PROFILE");
        gen_rec_s(&rec, "name", "Old depot");
        break;
    }
    return gen_rec_detach(out, &rec, err);
}

static void facility_free(gen_design *d)
{
    free(d);
}

static const gen_design_vtable facility_vt = {"facility-capacity", facility_run, facility_unmatched,
                                              facility_free};

int gen_facility_new(gen_design **out, const ddb_mapping *m, ddb_error *err)
{
    facility_design *f = calloc(1, sizeof(*f));
    int rc;

    *out = NULL;
    if (f == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    f->base.vt = &facility_vt;
    if ((rc = gen_entity(&f->facility, m, "Facility", err)) != 0 ||
        (rc = gen_entity(&f->weekday, m, "WeekdayCapacity", err)) != 0 ||
        (rc = gen_entity(&f->date, m, "DateCapacity", err)) != 0) {
        free(f);
        return rc;
    }
    *out = &f->base;
    return 0;
}
