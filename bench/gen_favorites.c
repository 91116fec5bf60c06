/*
 * The favorites design (formats/favorites.json and favorites-v2.json): one
 * collection per user with Tag, FavoriteData and FavoriteDataTag records;
 * every FavoriteDataTag links a tag and a favorite emitted before it. The
 * records are shaped as the seed's Java DTOs hold them: createTime and
 * lastAccessTime are longs (always present, 0 when never accessed), clipTime
 * a String, dataType the FavoriteDataType name; no other attributes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gen.h"

typedef struct fav_design {
    gen_design base;
    const ddb_entity *tag, *data, *datatag;
} fav_design;

#define T_START 1546300800000LL /* 2019-01-01T00:00:00Z */
#define T_END 1716768000000LL   /* 2024-05-27T00:00:00Z */

static const char *const tag_names[] = {
    "工作",
    "旅行 ✈️",
    "美食",
    "Reading list",
    "Recipes, quick",
    "\"Important\"",
    "家人",
    "Müll & Recycling",
    "café",
    "🎵 Music",
    "To read\nlater",
    "Work",
    "日本語",
    "Ideas",
    "Kinder",
    "Photos",
    "Docs",
    "Ελληνικά",
    "Русский",
    "Crème brûlée",
    "Tab\there",
    "C:\\Temp",
    "  padded  ",
    "2024",
    "#hashtag",
    "a/b/c",
    "Ünïcödé 🦄",
    "읽을거리",
};

static const char *const titles[] = {
    "Weekend in Hangzhou 杭州西湖",
    "Recipe: \"Grandma's\" dumplings, 饺子",
    "Meeting notes\nAction items:\n- call Li\n- book room",
    "Line one\r\nLine two (CRLF)",
    "Q3 report, final (v2).pdf",
    "Café au lait ☕ — how to",
    "東京の夜景 🌃",
    "Путешествие по Байкалу",
    "Ελληνική κουζίνα",
    "C:\\Users\\li\\Documents\\plan.docx",
    "{\"json\": \"looking\", \"n\": 1}",
    "Tab\tseparated\tvalues",
    " leading and trailing spaces ",
    "Emoji only 🎉🎉🎉",
    "Zürich → Milano by train",
    "How to say \"thank you\" in 10 languages",
    "Shanghai tower, 632 m",
    "한국 드라마 추천",
    "مرحبا بالعالم",
    "עברית מימין לשמאל",
    "Very long title: Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod "
    "tempor incididunt ut labore et dolore magna aliqua. Ut enim ad minim veniam, quis nostrud "
    "exercitation ullamco laboris nisi ut aliquip ex ea commodo consequat.",
    "50% off; today only!",
    "Semicolons; pipes | and commas, all here",
    "Back\\slash and \"quote\" and 'apostrophe'",
    "Zero-width joiner: 👩‍💻",
    "Combining: e\xcc\x81 vs \xc3\xa9",
    "math: ∑ x² ≤ ∞",
    "WeChat Pay receipt ¥128.00",
};

static const char *const data_types[] = {"IMAGE", "LINK", "FILE", "POSITION"};

static const char *const b62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
static const char *const lower36 = "abcdefghijklmnopqrstuvwxyz0123456789";

typedef struct fav_data {
    char id[40];
    const char *type;
    uint64_t clip;
} fav_data;

static void make_user_id(char *out, gen_rng *r)
{
    memcpy(out, "wxid_", 5);
    gen_id_chars(out + 5, 14, r, lower36);
}

static void make_data_id(char *out, gen_rng *r)
{
    uint64_t k = gen_rng_below(r, 10);
    if (k < 7) { /* snowflake-like */
        out[0] = '7';
        gen_id_chars(out + 1, 18, r, "0123456789");
    } else if (k < 9) { /* a string of digits with leading zeros: must stay a string */
        memcpy(out, "000", 3);
        gen_id_chars(out + 3, 10, r, "0123456789");
    } else {
        gen_uuid(out, r);
    }
}

static void add_url(gen_rec *rec, gen_rng *r, const char *field, const char *type, int thumb)
{
    char id[32];
    ddb_value v = {DDB_TYPE_NONE, {{NULL, 0}}};

    gen_id_chars(id, 22, r, b62);
    if (thumb)
        v = gen_fmt(rec->a, DDB_TYPE_S, "https://mmbiz.qpic.cn/mmbiz_%s/%s/640?wx_fmt=%s",
                    strcasecmp(type, "video") == 0 ? "jpg" : "png", id,
                    strcasecmp(type, "video") == 0 ? "jpeg" : "png");
    else if (strcasecmp(type, "link") == 0)
        v = gen_fmt(rec->a, DDB_TYPE_S, "https://mp.weixin.qq.com/s/%s", id);
    else if (strcasecmp(type, "image") == 0)
        v = gen_fmt(rec->a, DDB_TYPE_S, "https://mmbiz.qpic.cn/mmbiz_png/%s/0", id);
    else if (strcasecmp(type, "file") == 0)
        v = gen_fmt(rec->a, DDB_TYPE_S, "https://file.wx.qq.com/%s/%s.pdf?name=%s", id, "report",
                    "Q3%20report%2C%20final");
    else if (strcasecmp(type, "video") == 0)
        v = gen_fmt(rec->a, DDB_TYPE_S,
                    "https://finder.video.qq.com/251/20302/stodownload?encfilekey=%s&token=x", id);
    else if (strcasecmp(type, "audio") == 0)
        v = gen_fmt(rec->a, DDB_TYPE_S, "https://res.wx.qq.com/voice/%s.silk", id);
    else if (strcasecmp(type, "position") == 0)
        v = gen_fmt(rec->a, DDB_TYPE_S, "geo:%d.%04d,%d.%04d?q=上海市 浦东新区",
                    (int)gen_rng_range(r, 18, 53), (int)gen_rng_below(r, 10000),
                    (int)gen_rng_range(r, 73, 134), (int)gen_rng_below(r, 10000));
    gen_rec_put(rec, field, v);
}

static const char *const label_pool[] = {"pinned", "shared", "offline", "синхр", "已读",
                                         "archived", "draft", "⭐"};

/* What real tables hold beside the declared fields (the rich shape, gen.h's
 * rich): attributes no mapping names, of every type a reader must carry
 * through untouched, so a writer cannot be tuned to the declared fields
 * alone. */
static void add_rich(gen_rec *rec, gen_rng *r)
{
    ddb_arena *a = rec->a;
    ddb_value flags[5], labels[4];
    ddb_attr meta[3];
    size_t n_flags = 2 + gen_rng_below(r, 4), n_labels = 1 + gen_rng_below(r, 4);
    size_t first = gen_rng_below(r, GEN_COUNT(label_pool));

    for (size_t i = 0; i < n_flags; i++) {
        uint64_t k = gen_rng_below(r, 3);
        flags[i] = k == 0   ? ddb_value_bool(gen_rng_chance(r, 50))
                   : k == 1 ? ddb_value_null()
                            : gen_bytes(a, r, 3 + gen_rng_below(r, 6), "", 0);
    }
    /* distinct members: consecutive names of the pool */
    for (size_t i = 0; i < n_labels; i++) {
        const char *l = label_pool[(first + i) % GEN_COUNT(label_pool)];
        labels[i] = ddb_value_str(DDB_TYPE_S, l, strlen(l));
    }
    meta[0] = (ddb_attr){{"score", 5}, gen_long_number(a, r, 30, 0)};
    meta[1] = (ddb_attr){{"flags", 5}, gen_list(a, DDB_TYPE_L, flags, n_flags)};
    meta[2] = (ddb_attr){{"source", 6}, ddb_value_str(DDB_TYPE_S, "sync-v2", 7)};
    gen_rec_put(rec, "meta", gen_map(a, meta, 3));
    gen_rec_put(rec, "labels", gen_list(a, DDB_TYPE_SS, labels, n_labels));
    gen_rec_put(rec, "checksum", gen_bytes(a, r, 16 + gen_rng_below(r, 17), "", 0));
    gen_rec_put(rec, "balance", gen_long_number(a, r, 38, 20));
    gen_rec_put(rec, "sequence", gen_long_number(a, r, 38, 0));
}

#define EMIT(e)                                                                                    \
    do {                                                                                           \
        ddb_map map_;                                                                              \
        if (d->rich)                                                                               \
            add_rich(&rec, r);                                                                     \
        map_ = gen_rec_map(&rec);                                                                  \
        if ((rc = emit(ctx, (e), &map_, err)) != 0)                                                \
            return rc;                                                                             \
    } while (0)

/* One user's collection. Returns 0, 1 (stop) or a negative code. */
static int fav_user(fav_design *f, gen_emit_fn emit, void *ctx, ddb_error *err)
{
    gen_design *d = &f->base;
    gen_rng *r = &d->rng;
    char user[24], tag_ids[6][16];
    size_t n_tags = 1 + gen_rng_below(r, 6), n_data = 1 + gen_rng_below(r, 10);
    size_t name_ix[GEN_COUNT(tag_names)];
    gen_rec rec;
    int rc;

    make_user_id(user, r);
    for (size_t i = 0; i < GEN_COUNT(tag_names); i++)
        name_ix[i] = i;
    for (size_t i = 0; i < n_tags; i++) { /* distinct names: partial shuffle */
        size_t j = i + gen_rng_below(r, GEN_COUNT(tag_names) - i), t = name_ix[i];
        uint64_t created = (uint64_t)gen_rng_range(r, T_START, T_END);
        name_ix[i] = name_ix[j];
        name_ix[j] = t;
        snprintf(tag_ids[i], sizeof(tag_ids[i]), "tag%02u", (unsigned)(i + 1) % 100u);
        ddb_arena_reset(d->scratch);
        gen_rec_init(&rec, d->scratch);
        gen_rec_s(&rec, "userId", user);
        gen_rec_s(&rec, "tagId", tag_ids[i]);
        gen_rec_s(&rec, "tagName", tag_names[name_ix[i]]);
        gen_rec_n(&rec, "createTime", created);
        if (gen_rng_chance(r, 85)) { /* used since, but not after the export */
            uint64_t span = (uint64_t)T_END - created;
            gen_rec_n(&rec, "lastAccessTime",
                      created + gen_rng_below(r, span < 200ull * 86400000 ? span + 1
                                                                          : 200ull * 86400000));
        } else {
            gen_rec_n(&rec, "lastAccessTime", 0); /* a Java long: never absent */
        }
        EMIT(f->tag);
    }
    for (size_t i = 0; i < n_data; i++) {
        fav_data fd;
        uint64_t k;
        make_data_id(fd.id, r);
        fd.type = GEN_PICK(r, data_types);
        fd.clip = (uint64_t)gen_rng_range(r, T_START, T_END);
        ddb_arena_reset(d->scratch);
        gen_rec_init(&rec, d->scratch);
        gen_rec_s(&rec, "userId", user);
        gen_rec_s(&rec, "dataId", fd.id);
        if ((k = gen_rng_below(r, 10)) < 7) {
            gen_rec_s(&rec, "creatorId", user);
        } else if (k < 9) {
            char other[24];
            make_user_id(other, r);
            gen_rec_put(&rec, "creatorId", gen_fmt(d->scratch, DDB_TYPE_S, "%s", other));
        }
        if ((k = gen_rng_below(r, 20)) == 0)
            gen_rec_s(&rec, "title", ""); /* empty, not absent */
        else if (k > 1)
            gen_rec_s(&rec, "title", GEN_PICK(r, titles));
        if (strcmp(fd.type, "POSITION") != 0)
            add_url(&rec, r, "thumbnailUrl", fd.type, 1);
        add_url(&rec, r, "contentUrl", fd.type, 0);
        gen_rec_s(&rec, "dataType", fd.type);
        gen_rec_put(&rec, "clipTime",
                    gen_fmt(d->scratch, DDB_TYPE_S, "%llu", (unsigned long long)fd.clip));
        EMIT(f->data);

        /* Tags on this favorite: distinct tags of the same user. */
        if (gen_rng_chance(r, 60)) {
            size_t n_links = 1 + gen_rng_below(r, n_tags < 3 ? n_tags : 3);
            size_t first = gen_rng_below(r, n_tags);
            for (size_t j = 0; j < n_links; j++) {
                ddb_arena_reset(d->scratch);
                gen_rec_init(&rec, d->scratch);
                gen_rec_s(&rec, "userId", user);
                gen_rec_s(&rec, "dataId", fd.id);
                gen_rec_s(&rec, "tagId", tag_ids[(first + j) % n_tags]);
                gen_rec_put(&rec, "clipTime",
                            gen_fmt(d->scratch, DDB_TYPE_S, "%llu", (unsigned long long)fd.clip));
                gen_rec_s(&rec, "dataType", fd.type);
                EMIT(f->datatag);
            }
        }
    }
    return 0;
}

static int fav_run(gen_design *d, gen_emit_fn emit, void *ctx, ddb_error *err)
{
    for (;;) {
        int rc = fav_user((fav_design *)d, emit, ctx, err);
        if (rc == 0)
            rc = emit(ctx, NULL, NULL, err); /* end of a collection */
        if (rc != 0)
            return rc > 0 ? 0 : rc;
    }
}

/* Items other applications keep in the same table: sessions, counters and
 * rows from before the single-table migration. */
static int fav_unmatched(gen_design *d, ddb_item *out, ddb_arena *a, ddb_error *err)
{
    gen_rng *r = &d->rng;
    char user[24], uuid[37];
    gen_rec rec;

    make_user_id(user, r);
    gen_uuid(uuid, r);
    gen_rec_init(&rec, a);
    switch (gen_rng_below(r, 3)) {
    case 0:
        gen_rec_put(&rec, d->m->table.pk.name, gen_fmt(a, DDB_TYPE_S, "Session#%s", user));
        gen_rec_put(&rec, d->m->table.sk.name, gen_fmt(a, DDB_TYPE_S, "%s", uuid));
        gen_rec_n(&rec, "expiresAt", (uint64_t)gen_rng_range(r, 1716768000, 1719360000));
        gen_rec_s(&rec, "device", "iPhone15,2");
        break;
    case 1:
        gen_rec_put(&rec, d->m->table.pk.name, gen_fmt(a, DDB_TYPE_S, "LEGACY#%s", user));
        gen_rec_s(&rec, d->m->table.sk.name, "favorites.v0");
        gen_rec_s(&rec, "payload", "{\"items\":[1,2,3],\"note\":\"migrated 2019\"}");
        break;
    default:
        gen_rec_put(&rec, d->m->table.pk.name, gen_fmt(a, DDB_TYPE_S, "Counter#%s", user));
        gen_rec_s(&rec, d->m->table.sk.name, "favorites");
        gen_rec_n(&rec, "count", gen_rng_below(r, 5000));
        break;
    }
    return gen_rec_detach(out, &rec, err);
}

static void fav_free(gen_design *d)
{
    free(d);
}

static const gen_design_vtable fav_vt = {"favorites", fav_run, fav_unmatched, fav_free};

int gen_favorites_new(gen_design **out, const ddb_mapping *m, ddb_error *err)
{
    fav_design *f = calloc(1, sizeof(*f));
    int rc;

    *out = NULL;
    if (f == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    f->base.vt = &fav_vt;
    if ((rc = gen_entity(&f->tag, m, "Tag", err)) != 0 ||
        (rc = gen_entity(&f->data, m, "FavoriteData", err)) != 0 ||
        (rc = gen_entity(&f->datatag, m, "FavoriteDataTag", err)) != 0) {
        free(f);
        return rc;
    }
    *out = &f->base;
    return 0;
}
