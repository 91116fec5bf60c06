/*
 * The movies design (formats/movies.json): actors, then per movie the Movie
 * record, its cast (CastMember linking actors emitted before), monthly
 * stream totals and single streams. Exercises every DynamoDB type: SS, NS, BS, B, M, L, BOOL
 * and 38-digit numbers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

#define POOL 48

typedef struct movies_design {
    gen_design base;
    const ddb_entity *movie, *actor, *cast, *streams, *stream;
    uint64_t n_movies, n_actors;
    char pool[POOL][16]; /* recent actor ids, for casts */
    size_t pool_len;
    unsigned extra_kind; /* cycles, so every kind of undeclared attribute appears */
} movies_design;

static const char *const movie_titles[] = {
    "Amélie",
    "千と千尋の神隠し",
    "Crouching Tiger, Hidden Dragon",
    "The \"Quoted\" Heist",
    "Léon: The Professional",
    "Das Boot",
    "Pan's Labyrinth",
    "Oldboy (올드보이)",
    "City of God — Cidade de Deus",
    "8½",
    "Wall·E",
    "Line\nBreak: The Movie",
    "Мастер и Маргарита",
    "🎬 Emoji Story",
    "Ἰλιάς",
    "Tab\tStop",
    "Back\\slash",
    "Cinema Paradiso",
};

static const char *const suffixes[] = {"",          "", "", " II", " III", " (Director's Cut)",
                                       " — Reprise"};

static const char *const genres[] = {"Drama",           "Comedy",    "Sci-Fi",       "Horror",
                                     "Romance",         "Thriller",  "Animation",    "Documentary",
                                     "Action",          "Film-Noir", "Musical",      "Western",
                                     "Ciencia ficción", "動画",      "Drame, social"};

static const char *const actor_names[] = {
    "Zhang Ziyi (章子怡)",
    "Gérard Depardieu",
    "Song Kang-ho (송강호)",
    "Penélope Cruz",
    "Toshirō Mifune (三船 敏郎)",
    "Dwayne \"The Rock\" Johnson",
    "Mads Mikkelsen",
    "Audrey Tautou",
    "Cate Blanchett",
    "Björk Guðmundsdóttir",
    "Chiwetel Ejiofor",
    "Lupita Nyong'o",
    "Zoë Kravitz",
    "Jean-Paul Belmondo, Jr.",
    "Ольга Куриленко",
};

static const char *const places[][3] = {
    {"FR", "Île-de-France", "Paris"},
    {"JP", "Tokyo", "Shibuya"},
    {"KR", "Daegu", "Suseong-gu"},
    {"US", "California", "Los Angeles"},
    {"CN", "Shaanxi", "Xi'an"},
    {"IS", "Höfuðborgarsvæðið", "Reykjavík"},
    {"ES", "Comunidad de Madrid", "Madrid"},
    {"GB", "England", "London, Camden"},
    {"MX", "Ciudad de México", "Coyoacán"},
};

static const char *const characters[] = {
    "Amélie Poulain", "Chihiro (千尋)", "Jen Yu",   "\"The Driver\"", "Narrator, uncredited",
    "Dr. Kim\nJr.",   "Himself",        "Guard #2", "Мастер",         "La Reine 👑",
};

static const char *const aliases[] = {"The Kid", "李", "J.-P.", "\"Bébé\"", "Mx. X"};

static void new_actor_id(movies_design *mv, char *out)
{
    gen_rng *r = &mv->base.rng;
    snprintf(out, 16, "nm%07llu",
             (unsigned long long)(100000 + (mv->base.serial_base + mv->n_actors) * 13 +
                                  gen_rng_below(r, 13)));
    mv->n_actors++;
}

#define EMIT(e)                                                                                    \
    do {                                                                                           \
        ddb_map map_ = gen_rec_map(&rec);                                                          \
        if ((rc = emit(ctx, (e), &map_, err)) != 0)                                                \
            return rc;                                                                             \
    } while (0)

static int emit_actor(movies_design *mv, gen_emit_fn emit, void *ctx, ddb_error *err)
{
    gen_design *d = &mv->base;
    gen_rng *r = &d->rng;
    ddb_arena *a = d->scratch;
    char id[16], date[16];
    gen_rec rec;
    int rc;

    new_actor_id(mv, id);
    ddb_arena_reset(a);
    gen_rec_init(&rec, a);
    gen_rec_put(&rec, "actorId", gen_fmt(a, DDB_TYPE_S, "%s", id));
    gen_rec_s(&rec, "name", GEN_PICK(r, actor_names));
    if (gen_rng_chance(r, 90)) {
        gen_date_from_days(date, gen_rng_range(r, -14610, 12784)); /* 1930 .. 2004 */
        gen_rec_put(&rec, "birthDate", gen_fmt(a, DDB_TYPE_S, "%s", date));
    }
    if (gen_rng_chance(r, 85)) { /* hierarchical country#region#city */
        const char *const *p = places[gen_rng_below(r, GEN_COUNT(places))];
        gen_rec_put(&rec, "birthPlace", gen_fmt(a, DDB_TYPE_S, "%s#%s#%s", p[0], p[1], p[2]));
    }
    {
        ddb_value years[4];
        size_t n = gen_rng_below(r, 5);
        int y = (int)gen_rng_range(r, 1970, 2000);
        for (size_t i = 0; i < n; i++) {
            y += (int)gen_rng_range(r, 1, 6); /* increasing: distinct */
            years[i] = gen_fmt(a, DDB_TYPE_N, "%d", y);
        }
        if (n)
            gen_rec_put(&rec, "awardYears", gen_list(a, DDB_TYPE_NS, years, n));
    }
    {
        ddb_value al[3];
        size_t n = gen_rng_below(r, 4), first = gen_rng_below(r, GEN_COUNT(aliases));
        for (size_t i = 0; i < n; i++) {
            const char *s = aliases[(first + i) % GEN_COUNT(aliases)];
            al[i] = ddb_value_str(DDB_TYPE_S, s, strlen(s));
        }
        if (n)
            gen_rec_put(&rec, "aliases", gen_list(a, DDB_TYPE_L, al, n));
    }
    if (gen_rng_chance(r, 60)) {
        ddb_value sig[2];
        size_t n = 1 + gen_rng_below(r, 2);
        for (size_t i = 0; i < n; i++) {
            sig[i] = gen_bytes(a, r, 12 + 8 * i, "", 0); /* distinct lengths */
        }
        gen_rec_put(&rec, "signature", gen_list(a, DDB_TYPE_BS, sig, n));
    }
    EMIT(mv->actor);
    if (mv->pool_len < POOL)
        memcpy(mv->pool[mv->pool_len++], id, sizeof(id));
    else
        memcpy(mv->pool[gen_rng_below(r, POOL)], id, sizeof(id));
    return 0;
}

static void movie_extras(gen_rec *rec, gen_rng *r, unsigned kind)
{
    ddb_arena *a = rec->a;
    switch (kind % 3) {
    case 0:
        gen_rec_put(rec, "boxOffice", gen_long_number(a, r, 38, 20));
        break;
    case 1: {
        ddb_value m[2] = {gen_bytes(a, r, 4, "\x00\x01", 2), gen_bytes(a, r, 5, "\x00\x02", 2)};
        gen_rec_put(rec, "trailerHashes", gen_list(a, DDB_TYPE_BS, m, 2));
        break;
    }
    default:
        gen_rec_put(rec, "archivedAt", ddb_value_null());
        break;
    }
}

static int emit_movie(movies_design *mv, gen_emit_fn emit, void *ctx, ddb_error *err)
{
    gen_design *d = &mv->base;
    gen_rng *r = &d->rng;
    ddb_arena *a = d->scratch;
    char id[16];
    int year = (int)gen_rng_range(r, 1950, 2026), rc;
    gen_rec rec;

    snprintf(id, sizeof(id), "tt%07llu",
             (unsigned long long)(1000000 + (d->serial_base + mv->n_movies) * 17 +
                                  gen_rng_below(r, 17)));
    mv->n_movies++;
    ddb_arena_reset(a);
    gen_rec_init(&rec, a);
    gen_rec_put(&rec, "movieId", gen_fmt(a, DDB_TYPE_S, "%s", id));
    gen_rec_put(&rec, "title",
                gen_fmt(a, DDB_TYPE_S, "%s%s", GEN_PICK(r, movie_titles), GEN_PICK(r, suffixes)));
    gen_rec_n(&rec, "releaseYear", (uint64_t)year);
    if (gen_rng_chance(r, 90))
        gen_rec_n(&rec, "runtimeMinutes", (uint64_t)gen_rng_range(r, 70, 210));
    switch (gen_rng_below(r, 5)) {
    case 0:
        gen_rec_put(&rec, "budget", gen_long_number(a, r, 38, 0));
        break;
    case 1:
        break; /* unknown budget */
    default:
        gen_rec_n(&rec, "budget", (uint64_t)gen_rng_range(r, 1, 300) * 1000000);
        break;
    }
    if (gen_rng_chance(r, 90)) {
        ddb_value g[3];
        size_t n = 1 + gen_rng_below(r, 3), first = gen_rng_below(r, GEN_COUNT(genres));
        for (size_t i = 0; i < n; i++) {
            const char *s = genres[(first + i * 5) % GEN_COUNT(genres)];
            g[i] = ddb_value_str(DDB_TYPE_S, s, strlen(s));
        }
        gen_rec_put(&rec, "genres", gen_list(a, DDB_TYPE_SS, g, n));
    }
    if (gen_rng_chance(r, 85)) {
        static const char *const mpaa[] = {"G", "PG", "PG-13", "R", "NC-17"};
        ddb_attr at[4];
        size_t n = 0;
        at[n].name = (ddb_str){"imdb", 4};
        at[n++].value = gen_fmt(a, DDB_TYPE_N, "%d.%d", (int)gen_rng_range(r, 1, 9),
                                (int)gen_rng_range(r, 1, 9));
        at[n].name = (ddb_str){"votes", 5};
        at[n++].value =
            gen_fmt(a, DDB_TYPE_N, "%llu", (unsigned long long)gen_rng_range(r, 10, 3000000));
        if (gen_rng_chance(r, 70)) {
            const char *m = GEN_PICK(r, mpaa);
            at[n].name = (ddb_str){"mpaa", 4};
            at[n++].value = ddb_value_str(DDB_TYPE_S, m, strlen(m));
        }
        if (gen_rng_chance(r, 30)) {
            at[n].name = (ddb_str){"festival", 8};
            at[n++].value = ddb_value_bool(1);
        }
        gen_rec_put(&rec, "ratings", gen_map(a, at, n));
    }
    if (gen_rng_chance(r, 70))
        gen_rec_put(&rec, "poster",
                    gen_bytes(a, r, 16 + gen_rng_below(r, 48), "\x89PNG\r\n\x1a\n", 8));
    if (gen_rng_chance(r, 90))
        gen_rec_put(&rec, "released", ddb_value_bool(year <= 2024));
    if (d->extras && gen_rng_chance(r, 12))
        movie_extras(&rec, r, mv->extra_kind++);
    EMIT(mv->movie);

    /* Cast: distinct actors from the pool, billed in order. */
    {
        size_t n = 1 + gen_rng_below(r, mv->pool_len < 6 ? mv->pool_len : 6);
        size_t first = gen_rng_below(r, mv->pool_len);
        for (size_t i = 0; i < n; i++) {
            ddb_arena_reset(a);
            gen_rec_init(&rec, a);
            gen_rec_put(&rec, "movieId", gen_fmt(a, DDB_TYPE_S, "%s", id));
            gen_rec_s(&rec, "actorId", mv->pool[(first + i) % mv->pool_len]);
            if (gen_rng_chance(r, 90))
                gen_rec_s(&rec, "character", GEN_PICK(r, characters));
            gen_rec_n(&rec, "billing", i + 1);
            EMIT(mv->cast);
        }
    }
    /* Streams for consecutive months of 2023-2024. */
    {
        size_t n = gen_rng_below(r, 6);
        int m0 = (int)gen_rng_below(r, 20);
        for (size_t i = 0; i < n; i++) {
            int m = m0 + (int)i;
            ddb_arena_reset(a);
            gen_rec_init(&rec, a);
            gen_rec_put(&rec, "movieId", gen_fmt(a, DDB_TYPE_S, "%s", id));
            gen_rec_put(&rec, "month",
                        gen_fmt(a, DDB_TYPE_S, "%04d-%02d", 2023 + m / 12, m % 12 + 1));
            gen_rec_n(&rec, "streams",
                      gen_rng_chance(r, 5) ? 0 : (uint64_t)gen_rng_range(r, 1, 999999999999));
            EMIT(mv->streams);
        }
    }
    /* A few single streams, by time. */
    {
        size_t n = gen_rng_below(r, 4);
        for (size_t i = 0; i < n; i++) {
            char day[16];
            ddb_arena_reset(a);
            gen_rec_init(&rec, a);
            gen_date_from_days(day, gen_rng_range(r, 19358, 20088)); /* 2023 .. 2024 */
            gen_rec_put(&rec, "movieId", gen_fmt(a, DDB_TYPE_S, "%s", id));
            gen_rec_put(&rec, "streamedAt",
                        gen_fmt(a, DDB_TYPE_S, "%sT%02d:%02d:%02dZ", day, (int)gen_rng_below(r, 24),
                                (int)gen_rng_below(r, 60), (int)gen_rng_below(r, 60)));
            gen_rec_put(
                &rec, "streamId",
                gen_fmt(a, DDB_TYPE_S, "st-%06llu", (unsigned long long)gen_rng_below(r, 1000000)));
            gen_rec_put(
                &rec, "userId",
                gen_fmt(a, DDB_TYPE_S, "user-%llu", (unsigned long long)gen_rng_below(r, 100000)));
            gen_rec_n(&rec, "seconds", (uint64_t)gen_rng_range(r, 1, 12000));
            EMIT(mv->stream);
        }
    }
    return 0;
}

static int movies_run(gen_design *d, gen_emit_fn emit, void *ctx, ddb_error *err)
{
    movies_design *mv = (movies_design *)d;
    int rc;
    for (;;) {
        if (mv->pool_len < 6 || gen_rng_chance(&d->rng, 35)) {
            size_t n = 2 + gen_rng_below(&d->rng, 3);
            for (size_t i = 0; i < n; i++)
                if ((rc = emit_actor(mv, emit, ctx, err)) != 0)
                    return rc > 0 ? 0 : rc;
        }
        if ((rc = emit_movie(mv, emit, ctx, err)) != 0 ||
            (rc = emit(ctx, NULL, NULL, err)) != 0) /* end of a collection */
            return rc > 0 ? 0 : rc;
    }
}

static int movies_unmatched(gen_design *d, ddb_item *out, ddb_arena *a, ddb_error *err)
{
    gen_rng *r = &d->rng;
    char uuid[37];
    gen_rec rec;

    gen_uuid(uuid, r);
    gen_rec_init(&rec, a);
    switch (gen_rng_below(r, 3)) {
    case 0: /* reviews were added by another service */
        gen_rec_put(&rec, d->m->table.pk.name,
                    gen_fmt(a, DDB_TYPE_S, "mov#tt%07llu",
                            (unsigned long long)gen_rng_range(r, 1000000, 1999999)));
        gen_rec_put(&rec, d->m->table.sk.name, gen_fmt(a, DDB_TYPE_S, "review#%s", uuid));
        gen_rec_s(&rec, "text", "Great film, \"must see\" 👍");
        gen_rec_n(&rec, "stars", (uint64_t)gen_rng_range(r, 1, 5));
        break;
    case 1:
        gen_rec_put(&rec, d->m->table.pk.name,
                    gen_fmt(a, DDB_TYPE_S, "LEGACY#movie-%llu",
                            (unsigned long long)gen_rng_below(r, 100000)));
        gen_rec_s(&rec, d->m->table.sk.name, "meta");
        gen_rec_s(&rec, "imported", "2019-03-01");
        break;
    default:
        gen_rec_put(&rec, d->m->table.pk.name,
                    gen_fmt(a, DDB_TYPE_S, "act#nm%07llu",
                            (unsigned long long)gen_rng_range(r, 100000, 999999)));
        gen_rec_put(&rec, d->m->table.sk.name,
                    gen_fmt(a, DDB_TYPE_S, "photo#%d", (int)gen_rng_range(r, 1, 9)));
        gen_rec_put(&rec, "image", gen_bytes(a, r, 24, "\xff\xd8\xff", 3));
        break;
    }
    return gen_rec_detach(out, &rec, err);
}

static void movies_free(gen_design *d)
{
    free(d);
}

static const gen_design_vtable movies_vt = {"movies", movies_run, movies_unmatched, movies_free};

int gen_movies_new(gen_design **out, const ddb_mapping *m, ddb_error *err)
{
    movies_design *mv = calloc(1, sizeof(*mv));
    int rc;

    *out = NULL;
    if (mv == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    mv->base.vt = &movies_vt;
    if ((rc = gen_entity(&mv->movie, m, "Movie", err)) != 0 ||
        (rc = gen_entity(&mv->actor, m, "Actor", err)) != 0 ||
        (rc = gen_entity(&mv->cast, m, "CastMember", err)) != 0 ||
        (rc = gen_entity(&mv->streams, m, "MonthlyStreams", err)) != 0 ||
        (rc = gen_entity(&mv->stream, m, "Stream", err)) != 0) {
        free(mv);
        return rc;
    }
    *out = &mv->base;
    return 0;
}
