/*
 * shape.c — the shapes of items (their names, in order) a thread has met,
 * each with the memos other modules keep of it (shape.h).
 *
 * Finding an item's shape costs a pass over its names. Each name is read as
 * two words, its first and last (up to) eight bytes, which hold all of a name
 * of up to 16 bytes: most names. The words hash to a set of two shapes and
 * are compared with theirs; a longer name is also compared byte for byte.
 * That is about as much as one search of the names for one attribute, and it
 * saves the dozen or so searches validation and decode would make.
 */
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/shape.h"

#define SHAPE_SETS 32         /* two shapes a set: 64 kept */
#define SHAPE_NAME_BYTES 1024 /* items with more bytes of names are not kept */
#define MEMO_TAGS 8
_Static_assert(DDB_SHAPE_ROUND_TRIP < MEMO_TAGS, "a memo per tag");
#define MEMO_BYTES 512

/* One memo per tag: a shape's items are of one entity, almost always. */
typedef struct memo {
    const void *owner; /* NULL: none */
    unsigned short off, len;
} memo;

typedef struct words {
    uint64_t head, tail;
} words;

struct ddb_shape {
    uint64_t gen; /* counts the items it was made for: a name id's link holds for one */
    uint64_t hash;
    uint64_t mask;
    size_t count;
    int used;
    words w[DDB_SHAPE_MAX_NAMES];
    unsigned short lens[DDB_SHAPE_MAX_NAMES];
    char names[SHAPE_NAME_BYTES]; /* back to back */
    memo memos[MEMO_TAGS];
    size_t data_used;
    _Alignas(8) unsigned char data[MEMO_BYTES];
};

#define NAMED 64 /* names ids remembered */

struct ddb_shape_cache {
    ddb_shape shapes[SHAPE_SETS][2];
    unsigned char recent[SHAPE_SETS]; /* the way found last: the other goes first */
    struct {
        uint64_t id, gen; /* the shape was made for these names at gen */
        ddb_shape *s;
    } named[NAMED];
};

/* Tests set this to make every shape of a count hash alike, so that only the
 * comparison of the names tells them apart. */
int ddb_shape_collide = 0;

int ddb_shape_cache_new(ddb_shape_cache **out)
{
    *out = calloc(1, sizeof(**out));
    return *out ? 0 : DDB_ENOMEM;
}

void ddb_shape_cache_free(ddb_shape_cache *c)
{
    free(c);
}

/* A name's first and last (up to) eight bytes, reading no byte outside it:
 * with its length, all of a name of up to 16 bytes. */
static inline words name_words(const char *p, size_t n)
{
    words w = {0, 0};
    if (n >= 8) {
        memcpy(&w.head, p, 8);
        memcpy(&w.tail, p + n - 8, 8);
    } else if (n >= 4) {
        uint32_t x, y;
        memcpy(&x, p, 4);
        memcpy(&y, p + n - 4, 4);
        w.head = x;
        w.tail = y;
    } else if (n > 0) {
        w.head = (uint64_t)(unsigned char)p[0] | (uint64_t)(unsigned char)p[n / 2] << 8 |
                 (uint64_t)(unsigned char)p[n - 1] << 16;
    }
    return w;
}

/* Is item's name i (read as w) the shape's name i? */
static int same_name(const ddb_shape *s, size_t i, const ddb_str *nm, words w, size_t off)
{
    if (s->lens[i] != nm->len || s->w[i].head != w.head || s->w[i].tail != w.tail)
        return 0;
    return nm->len <= 16 || memcmp(s->names + off + 8, nm->ptr + 8, nm->len - 16) == 0;
}

/* Makes s the shape of item (its names read as w), with no memos; 0, or -1
 * when it is too large. */
static int make(ddb_shape *s, const ddb_map *item, const words *w, uint64_t hash)
{
    size_t bytes = 0;
    char *p = s->names;

    for (size_t i = 0; i < item->count; i++)
        bytes += item->attrs[i].name.len;
    if (bytes > SHAPE_NAME_BYTES) {
        s->used = 0;
        return -1;
    }
    for (size_t i = 0; i < item->count; i++) {
        const ddb_str *nm = &item->attrs[i].name;
        s->w[i] = w[i];
        s->lens[i] = (unsigned short)nm->len;
        if (nm->len)
            memcpy(p, nm->ptr, nm->len);
        p += nm->len;
    }
    s->gen++;
    s->hash = hash;
    s->count = item->count;
    s->mask = ddb_map_name_mask(item);
    memset(s->memos, 0, sizeof(s->memos));
    s->data_used = 0;
    s->used = 1;
    return 0;
}

ddb_shape *ddb_shape_cache_find(ddb_shape_cache *c, const ddb_map *item)
{
    words w[DDB_SHAPE_MAX_NAMES];
    uint64_t h;
    size_t set;
    unsigned way;

    if (c == NULL || item->count > DDB_SHAPE_MAX_NAMES)
        return NULL;
    h = item->count;
    for (size_t i = 0; i < item->count; i++) {
        const ddb_str *nm = &item->attrs[i].name;
        w[i] = name_words(nm->ptr, nm->len);
        h = ((h << 23 | h >> 41) ^ (w[i].head * UINT64_C(0x9E3779B97F4A7C15)) ^ w[i].tail ^
             nm->len) *
            UINT64_C(0xFF51AFD7ED558CCD);
    }
    h = ddb_shape_collide ? item->count : h ^ h >> 32;
    set = (size_t)(h % SHAPE_SETS);
    way = c->recent[set];
    for (unsigned k = 0; k < 2; k++, way ^= 1u) {
        ddb_shape *s = &c->shapes[set][way];
        size_t i = 0, off = 0;
        if (!s->used || s->hash != h || s->count != item->count)
            continue;
        for (; i < item->count && same_name(s, i, &item->attrs[i].name, w[i], off); i++)
            off += s->lens[i];
        if (i == item->count) {
            c->recent[set] = (unsigned char)way;
            return s;
        }
    }
    /* the way not found last is replaced */
    way = c->recent[set] ^ 1u;
    if (make(&c->shapes[set][way], item, w, h) != 0)
        return NULL;
    c->recent[set] = (unsigned char)way;
    return &c->shapes[set][way];
}

ddb_shape *ddb_shape_cache_find_named(ddb_shape_cache *c, const ddb_map *item, uint64_t names_id)
{
    ddb_shape *s;
    size_t i = (size_t)(names_id % NAMED);
    if (c == NULL || names_id == 0)
        return ddb_shape_cache_find(c, item);
    s = c->named[i].s;
    if (c->named[i].id == names_id && s != NULL && s->used && s->gen == c->named[i].gen &&
        s->count == item->count)
        return s;
    if ((s = ddb_shape_cache_find(c, item)) != NULL) {
        c->named[i].id = names_id;
        c->named[i].gen = s->gen;
        c->named[i].s = s;
    }
    return s;
}

uint64_t ddb_shape_name_mask(const ddb_shape *s)
{
    return s->mask;
}

const void *ddb_shape_memo(const ddb_shape *s, const void *owner, int tag, size_t *n_out)
{
    const memo *m;
    if (s == NULL || tag < 0 || tag >= MEMO_TAGS)
        return NULL;
    m = &s->memos[tag];
    if (m->owner != owner || owner == NULL)
        return NULL;
    if (n_out)
        *n_out = m->len;
    return s->data + m->off;
}

void *ddb_shape_memo_put(ddb_shape *s, const void *owner, int tag, size_t n)
{
    size_t room = (n + 7u) & ~(size_t)7u;
    memo *m;

    if (s == NULL || owner == NULL || tag < 0 || tag >= MEMO_TAGS || room > MEMO_BYTES)
        return NULL;
    if (s->data_used + room > MEMO_BYTES) {
        /* a memo replaced leaves its room unused: the room is made anew */
        memset(s->memos, 0, sizeof(s->memos));
        s->data_used = 0;
    }
    m = &s->memos[tag];
    m->owner = owner;
    m->off = (unsigned short)s->data_used;
    m->len = (unsigned short)n;
    s->data_used += room;
    return s->data + m->off;
}
