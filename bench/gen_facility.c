/*
 * The facility-capacity design (formats/facility-capacity.json), shaped as
 * the seed's Kotlin FacilityCapacity class stores it: per facility a capacity
 * for each of the 7 weekdays (moment = DayOfWeek.toString(), "MONDAY") and a
 * few exceptional dates (moment = LocalDate.toString(), "2024-12-25");
 * capacity and description are nullable, so sometimes absent.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

typedef struct facility_design {
    gen_design base;
    const ddb_entity *weekday, *date;
    uint64_t n;
} facility_design;

static const char *const facility_ids[] = {"ZRH-HB",    "TYO-DOME",  "PAR-POMPIDOU", "NYC-NAVY",
                                           "MUC-OLY",   "SAO-PACA",  "BOM-BWSL",     "SYD-OPERA",
                                           "CGN-MESSE", "ATH-AGORA", "SD-W13",       "MEX-JARDIN"};

static const char *const days[] = {"MONDAY", "TUESDAY",  "WEDNESDAY", "THURSDAY",
                                   "FRIDAY", "SATURDAY", "SUNDAY"};

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

static int facility_one(facility_design *f, gen_emit_fn emit, void *ctx, ddb_error *err)
{
    gen_design *d = &f->base;
    gen_rng *r = &d->rng;
    ddb_arena *a = d->scratch;
    char id[40];
    gen_rec rec;
    int rc;

    snprintf(id, sizeof(id), "%s-%04llu", GEN_PICK(r, facility_ids),
             (unsigned long long)((d->serial_base + f->n) * 7 + gen_rng_below(r, 7)));
    f->n++;
    for (int i = 0; i < 7; i++) {
        int closed = i == 6 && gen_rng_chance(r, 25);
        ddb_arena_reset(a);
        gen_rec_init(&rec, a);
        gen_rec_s(&rec, "facilityId", id);
        gen_rec_s(&rec, "weekday", days[i]);
        if (!gen_rng_chance(r, 3)) /* Long?: sometimes never set */
            gen_rec_n(&rec, "capacity", closed ? 0 : (uint64_t)gen_rng_range(r, 1, 50) * 100);
        if (closed && gen_rng_chance(r, 50))
            gen_rec_s(&rec, "description", "closed on Sundays");
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

/* Rows the seed's MomentConverter cannot read (it logs an error and returns
 * null): a weekday in another spelling, a date that does not exist, a word. */
static int facility_unmatched(gen_design *d, ddb_item *out, ddb_arena *a, ddb_error *err)
{
    gen_rng *r = &d->rng;
    static const char *const bad_moments[] = {"Monday",  "mon",        "2024-02-30",
                                              "HOLIDAY", "2024-13-01", "Sunday "};
    gen_rec rec;

    gen_rec_init(&rec, a);
    gen_rec_put(&rec, d->m->table.pk.name,
                gen_fmt(a, DDB_TYPE_S, "%s-%04llu", GEN_PICK(r, facility_ids),
                        (unsigned long long)gen_rng_below(r, 10000)));
    gen_rec_s(&rec, d->m->table.sk.name, GEN_PICK(r, bad_moments));
    gen_rec_n(&rec, "capacity", (uint64_t)gen_rng_range(r, 1, 50) * 100);
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
    if ((rc = gen_entity(&f->weekday, m, "WeekdayCapacity", err)) != 0 ||
        (rc = gen_entity(&f->date, m, "DateCapacity", err)) != 0) {
        free(f);
        return rc;
    }
    *out = &f->base;
    return 0;
}
