/*
 * The frames of a spill file (see spill_codec.h). Writing measures a frame
 * first and then writes it with no bounds checks; reading trusts nothing in
 * the frame, since a spill is a file on disk that a crash, a full disk or a
 * hand may have cut.
 */
#include <stdlib.h>
#include <string.h>

#include "write/spill_codec.h"
#include "ddbpipe/source.h"

#define SPILL_CHUNK (1u << 20)

static size_t varint_size(size_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

static char *put_varint(char *o, size_t v)
{
    while (v >= 0x80) {
        *o++ = (char)(unsigned char)(v | 0x80);
        v >>= 7;
    }
    *o++ = (char)(unsigned char)v;
    return o;
}

static char *put_bytes(char *o, const char *s, size_t len)
{
    o = put_varint(o, len);
    if (len)
        memcpy(o, s, len);
    return o + len;
}

/* Room for a frame of body bytes in b, its head written: where the body goes. */
static char *frame_begin(ddb_buf *b, size_t body)
{
    char *o;
    if (body > UINT32_MAX) {
        b->oom = 1; /* no item comes near 4 GiB; refuse rather than wrap */
        return NULL;
    }
    if (ddb_buf_reserve(b, DDB_SPILL_FRAME_HEAD + body) != 0)
        return NULL;
    o = b->ptr + b->len;
    for (int i = 0; i < DDB_SPILL_FRAME_HEAD; i++)
        o[i] = (char)(unsigned char)(body >> (8 * i));
    return o + DDB_SPILL_FRAME_HEAD;
}

static int frame_end(ddb_buf *b, char *o)
{
    b->len = (size_t)(o - b->ptr);
    b->ptr[b->len] = '\0';
    return 0;
}

int ddb_spill_put_column(ddb_buf *b, const char *name, size_t len)
{
    char *o = frame_begin(b, 1 + varint_size(len) + len);
    if (o == NULL)
        return DDB_ENOMEM;
    *o++ = 'C';
    return frame_end(b, put_bytes(o, name, len));
}

int ddb_spill_put_type(ddb_buf *b, size_t col, ddb_type t)
{
    char *o = frame_begin(b, 2 + varint_size(col));
    if (o == NULL)
        return DDB_ENOMEM;
    *o++ = 'T';
    o = put_varint(o, col);
    *o++ = (char)t;
    return frame_end(b, o);
}

int ddb_spill_put_row(ddb_buf *b, const ddb_spill_cell *cells, size_t n, const char *extra,
                      size_t elen, char delim)
{
    int dense = 1;
    size_t body = 1 + varint_size(n) + varint_size(elen) + elen, line = 0;
    char *o;
    for (size_t i = 0; i < n; i++) {
        dense &= cells[i].col == i;
        line += cells[i].len + 1;
        body += varint_size(cells[i].col) + varint_size(cells[i].len) + cells[i].len;
    }
    if (dense)
        body = 1 + varint_size(n) + varint_size(line) + line + varint_size(elen) + elen;
    if ((o = frame_begin(b, body)) == NULL)
        return DDB_ENOMEM;
    *o++ = dense ? 'D' : 'S';
    o = put_varint(o, n);
    if (dense)
        o = put_varint(o, line);
    for (size_t i = 0; i < n; i++) {
        if (!dense) {
            o = put_varint(o, cells[i].col);
            o = put_varint(o, cells[i].len);
        }
        if (cells[i].len)
            memcpy(o, cells[i].ptr, cells[i].len);
        o += cells[i].len;
        if (dense)
            *o++ = delim;
    }
    return frame_end(b, put_bytes(o, extra, elen));
}

/* --------------------------------------------------------------- reading */

typedef struct cursor {
    const unsigned char *p, *end;
    const char *why; /* the first thing found wrong */
} cursor;

static int get_varint(cursor *c, size_t *out)
{
    size_t v = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (c->p == c->end) {
            c->why = "a length runs past the end of the frame";
            return -1;
        }
        unsigned char byte = *c->p++;
        v |= (size_t)(byte & 0x7f) << shift;
        if (!(byte & 0x80)) {
            *out = v;
            return 0;
        }
    }
    c->why = "a length is longer than 64 bits";
    return -1;
}

static int get_bytes(cursor *c, ddb_str *s)
{
    size_t n;
    if (get_varint(c, &n) != 0)
        return -1;
    if (n > (size_t)(c->end - c->p)) {
        c->why = "a string runs past the end of the frame";
        return -1;
    }
    s->ptr = (const char *)c->p;
    s->len = n;
    c->p += n;
    return 0;
}

/* An S row's cells, columns ascending. */
static int get_cells(cursor *c, ddb_spill_frame *f, int *oom)
{
    size_t n;
    if (get_varint(c, &n) != 0)
        return -1;
    if (n > (size_t)(c->end - c->p) / 2) { /* a cell takes two bytes at least */
        c->why = "a count is larger than the frame";
        return -1;
    }
    if (n > f->cap) {
        ddb_spill_cell *nc = realloc(f->cells, n * sizeof(*nc));
        if (nc == NULL) {
            *oom = 1;
            return -1;
        }
        f->cells = nc;
        f->cap = n;
    }
    for (size_t i = 0; i < n; i++) {
        ddb_str s;
        if (get_varint(c, &f->cells[i].col) != 0 || get_bytes(c, &s) != 0)
            return -1;
        if (i > 0 && f->cells[i].col <= f->cells[i - 1].col) {
            c->why = "the columns of a row do not ascend";
            return -1;
        }
        f->cells[i].ptr = s.ptr;
        f->cells[i].len = s.len;
    }
    f->n_cells = n;
    return 0;
}

static int get_body(cursor *c, ddb_spill_frame *f, int *oom)
{
    size_t t;
    f->kind = c->p == c->end ? 0 : (char)*c->p++;
    switch (f->kind) {
    case 'C':
        return get_bytes(c, &f->name);
    case 'T':
        if (get_varint(c, &f->col) != 0 || get_varint(c, &t) != 0)
            return -1;
        if (t == DDB_TYPE_NONE || t == DDB_TYPE_NULL || t > DDB_TYPE_BS) {
            c->why = "a column has an unknown type";
            return -1;
        }
        f->type = (ddb_type)t;
        return 0;
    case 'D':
        if (get_varint(c, &f->k) != 0 || get_bytes(c, &f->line) != 0)
            return -1;
        if (f->k > f->line.len) { /* each cell ends in a delimiter */
            c->why = "a count is larger than the frame";
            return -1;
        }
        return get_bytes(c, &f->extra);
    case 'S':
        if (get_cells(c, f, oom) != 0)
            return -1;
        return get_bytes(c, &f->extra);
    default:
        c->why = "a frame has an unknown kind";
        return -1;
    }
}

int ddb_spill_frame_read(ddb_spill_frame *f, const char *body, size_t len, ddb_error *err)
{
    cursor c = {(const unsigned char *)body, (const unsigned char *)body + len, NULL};
    int oom = 0;
    f->n_cells = 0;
    if (get_body(&c, f, &oom) != 0) {
        if (oom)
            return ddb_error_set(err, DDB_ENOMEM, "out of memory");
        return ddb_error_set(err, DDB_EIO, "%s", c.why);
    }
    if (c.p != c.end)
        return ddb_error_set(err, DDB_EIO, "%zu bytes follow the frame's fields",
                             (size_t)(c.end - c.p));
    return 0;
}

void ddb_spill_frame_dispose(ddb_spill_frame *f)
{
    free(f->cells);
    f->cells = NULL;
    f->n_cells = f->cap = 0;
}

/* ---------------------------------------------------------------- reader */

struct ddb_spill_reader {
    ddb_source *src;
    char *buf;
    size_t cap, start, end; /* unread bytes: buf[start..end) */
    uint64_t offset;        /* file offset of buf[start] */
    uint64_t frames;
    int eof, magic_seen;
};

int ddb_spill_reader_new(ddb_spill_reader **out, ddb_source *src, ddb_error *err)
{
    ddb_spill_reader *r = calloc(1, sizeof(*r));
    *out = NULL;
    if (r == NULL || (r->buf = malloc(SPILL_CHUNK)) == NULL) {
        free(r);
        ddb_source_free(src);
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    }
    r->src = src;
    r->cap = SPILL_CHUNK;
    *out = r;
    return 0;
}

/* Has at least want unread bytes buffered, unless the file ends first.
 * Returns 0 (check end - start), or a reading error. */
static int fill(ddb_spill_reader *r, size_t want, ddb_error *err)
{
    while (!r->eof && r->end - r->start < want) {
        ssize_t got;
        if (r->start > 0) {
            memmove(r->buf, r->buf + r->start, r->end - r->start);
            r->end -= r->start;
            r->start = 0;
        }
        if (r->end == r->cap) {
            /* grown as bytes arrive, not to what a frame head claims: a
             * damaged head is "cut short" with memory bounded by the file */
            char *nb = r->cap <= SIZE_MAX / 2 ? realloc(r->buf, r->cap * 2) : NULL;
            if (nb == NULL)
                return ddb_error_set(err, DDB_ENOMEM, "out of memory");
            r->buf = nb;
            r->cap *= 2;
        }
        if ((got = r->src->vt->read(r->src, r->buf + r->end, r->cap - r->end, err)) < 0)
            return (int)got;
        if (got == 0)
            r->eof = 1;
        r->end += (size_t)got;
    }
    return 0;
}

int ddb_spill_reader_next(ddb_spill_reader *r, const char **body, size_t *len, ddb_error *err)
{
    const unsigned char *h;
    size_t n = 0;
    int rc;

    if (!r->magic_seen) {
        if ((rc = fill(r, DDB_SPILL_MAGIC_LEN, err)) != 0)
            return rc;
        if (r->end - r->start < DDB_SPILL_MAGIC_LEN ||
            memcmp(r->buf + r->start, DDB_SPILL_MAGIC, DDB_SPILL_MAGIC_LEN) != 0)
            return ddb_error_set(err, DDB_EIO,
                                 "%s is not a spill file of this ddbpipe (a run started by an "
                                 "older version cannot be resumed by this one: start it again "
                                 "without --resume)",
                                 r->src->name);
        r->start += DDB_SPILL_MAGIC_LEN;
        r->offset += DDB_SPILL_MAGIC_LEN;
        r->magic_seen = 1;
    }
    if ((rc = fill(r, DDB_SPILL_FRAME_HEAD, err)) != 0)
        return rc;
    if (r->end == r->start)
        return DDB_ITEROVER;
    if (r->end - r->start < DDB_SPILL_FRAME_HEAD)
        goto cut;
    h = (const unsigned char *)r->buf + r->start;
    for (int i = 0; i < DDB_SPILL_FRAME_HEAD; i++)
        n |= (size_t)h[i] << (8 * i);
    if ((rc = fill(r, DDB_SPILL_FRAME_HEAD + n, err)) != 0)
        return rc;
    if (r->end - r->start < DDB_SPILL_FRAME_HEAD + n)
        goto cut;
    *body = r->buf + r->start + DDB_SPILL_FRAME_HEAD;
    *len = n;
    r->start += DDB_SPILL_FRAME_HEAD + n;
    r->offset += DDB_SPILL_FRAME_HEAD + n;
    r->frames++;
    return 0;
cut:
    return ddb_error_set(err, DDB_EIO, "%s: record %llu (byte %llu) is cut short", r->src->name,
                         (unsigned long long)r->frames + 1, (unsigned long long)r->offset);
}

uint64_t ddb_spill_reader_count(const ddb_spill_reader *r)
{
    return r->frames;
}

void ddb_spill_reader_free(ddb_spill_reader *r)
{
    if (r == NULL)
        return;
    ddb_source_free(r->src);
    free(r->buf);
    free(r);
}
