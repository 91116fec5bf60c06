/*
 * csv.c — streaming RFC 4180 parser (the quoting of cells written is csv_write.c).
 *
 * The parser keeps one growable block buffer. The row being parsed always
 * sits contiguously in it (a refill moves the partial row to the front), so
 * fields and the raw text can point straight into the buffer. Scanning is
 * resumable: when a row runs past the buffered bytes the state (field spans
 * as offsets from the row start, quote state, newlines seen) survives the
 * refill, so a row that arrives one byte at a time costs no rescans.
 *
 * A bare CR (not followed by LF) is ordinary data, both in unquoted fields and
 * at end of input; only LF and CRLF end a row.
 */
#include "ddbpipe/csv.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/array.h"
#include "ddbpipe/source.h"
#include "core/swar.h"

#define CSV_BLOCK (1024u * 1024u)
#define CSV_DEFAULT_MAX_ROW (64u * 1024u * 1024u)
/* Keeps max_row + 2 (row plus CRLF) and buffer doubling far from overflow. */
#define CSV_MAX_ROW_LIMIT (SIZE_MAX / 4)

enum csv_state {
    ST_ROW,    /* before a row: empty lines are skipped here */
    ST_FIELD,  /* at the start of a field */
    ST_UNQ,    /* inside an unquoted field */
    ST_QUO,    /* inside a quoted field */
    ST_QSEEN,  /* just after a quote inside a quoted field */
    ST_RESYNC, /* after a malformed byte: skipping to the end of the line */
};

/* SC_NEXT stays inside scan: a step done, the row going on. */
enum scan_result { SC_ROW, SC_MORE, SC_END, SC_NEXT };

typedef struct csv_span {
    size_t off; /* from the row start */
    size_t len;
    int quoted;
    int esc; /* holds "" pairs to unescape */
} csv_span;

struct ddb_csv {
    ddb_source *src;
    char delim;
    size_t max_row;
    unsigned char special[256]; /* bytes that stop an unquoted run */

    char *buf;
    size_t cap, len;
    size_t rs;     /* row start in buf */
    uint64_t base; /* stream offset of buf[0] */
    int eof;
    int bom_done;

    /* the row in progress */
    enum csv_state st;
    size_t i;      /* scan position, from rs */
    size_t fstart; /* content start of the current field, from rs */
    int fesc;
    uint64_t fnl;    /* value of nl when the current field opened */
    uint64_t line;   /* physical line where the row starts */
    uint64_t off;    /* stream offset of the row start */
    uint64_t nl;     /* LFs consumed inside the row so far */
    size_t end;      /* set with SC_ROW: raw length */
    size_t term;     /* set with SC_ROW: terminator length 0, 1 or 2 */
    int discard;     /* already reported: consume the rest without returning it */
    const char *bad; /* reason of a malformed row, NULL when fine */
    int bad_eof;     /* bad is an unterminated quote found at end of input */
    uint64_t bad_line;
    uint64_t bad_off;

    csv_span *spans;
    size_t nspans, spans_cap;
    ddb_csv_field *fields;
    size_t fields_cap;
    char *scratch;
    size_t scratch_cap;
    int oom;
};

int ddb_csv_new(ddb_csv **out, ddb_source *src, char delimiter, size_t max_row, ddb_error *err)
{
    ddb_csv *p = NULL;
    int rc = 0;

    *out = NULL;
    if (delimiter != ',' && delimiter != '\t' && delimiter != ';' && delimiter != '|') {
        rc = ddb_error_set(err, DDB_EUSAGE,
                           "unsupported CSV delimiter 0x%02x (use ',', tab, ';' or '|')",
                           (unsigned char)delimiter);
        goto done;
    }
    p = calloc(1, sizeof(*p));
    if (p == NULL) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory creating a CSV parser");
        goto done;
    }
    p->src = src;
    src = NULL;
    p->delim = delimiter;
    p->max_row = max_row ? max_row : CSV_DEFAULT_MAX_ROW;
    if (p->max_row > CSV_MAX_ROW_LIMIT)
        p->max_row = CSV_MAX_ROW_LIMIT;
    p->special[(unsigned char)delimiter] = 1;
    p->special['"'] = 1;
    p->special['\r'] = 1;
    p->special['\n'] = 1;
    p->cap = CSV_BLOCK;
    p->buf = malloc(p->cap);
    if (p->buf == NULL) {
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory allocating the CSV buffer");
        goto done;
    }
    p->line = 1;
    *out = p;
    p = NULL;
done:
    ddb_csv_free(p);
    ddb_source_free(src);
    return rc;
}

void ddb_csv_free(ddb_csv *p)
{
    if (p == NULL)
        return;
    ddb_source_free(p->src);
    free(p->buf);
    free(p->spans);
    free(p->fields);
    free(p->scratch);
    free(p);
}

/* First index >= i holding a special byte, or n. Eight bytes per step while
 * the word has none of delimiter, quote, CR, LF. */
static size_t skip_plain(const ddb_csv *p, const unsigned char *b, size_t i, size_t n)
{
    while (i + 8 <= n) {
        uint64_t w;
        memcpy(&w, b + i, 8);
        if (ddb_swar_csv_special(w, (unsigned char)p->delim))
            break;
        i += 8;
    }
    while (i < n && !p->special[b[i]])
        i++;
    return i;
}

static uint64_t count_lf(const unsigned char *b, size_t n)
{
    uint64_t c = 0;
    const unsigned char *e = b + n;

    while (b < e && (b = memchr(b, '\n', (size_t)(e - b))) != NULL) {
        c++;
        b++;
    }
    return c;
}

static void push_span(ddb_csv *p, size_t off, size_t len, int quoted, int esc)
{
    csv_span *s;

    if (p->discard || p->oom)
        return;
    if ((s = ddb_array_reserve(p->spans, p->nspans, &p->spans_cap, sizeof(*s), 64)) == NULL) {
        p->oom = 1;
        return;
    }
    p->spans = s;
    s = &p->spans[p->nspans++];
    s->off = off;
    s->len = len;
    s->quoted = quoted;
    s->esc = esc;
}

static void mark_bad(ddb_csv *p, const char *reason, size_t at)
{
    p->bad = reason;
    p->bad_line = p->line + p->nl;
    p->bad_off = p->base + p->rs + at;
}

static enum scan_result row_done(ddb_csv *p, size_t end, size_t term)
{
    p->end = end;
    p->term = term;
    return SC_ROW;
}

/* Skips empty lines and opens the next row. SC_ROW: a row has started. */
static enum scan_result start_row(ddb_csv *p)
{
    for (;;) {
        const char *b = p->buf + p->rs;
        size_t n = p->len - p->rs;

        if (n == 0)
            return p->eof ? SC_END : SC_MORE;
        if (b[0] == '\n' || (b[0] == '\r' && n >= 2 && b[1] == '\n')) {
            p->rs += b[0] == '\n' ? 1 : 2;
            p->line++;
            continue;
        }
        if (b[0] == '\r' && n == 1 && !p->eof)
            return SC_MORE;
        break;
    }
    p->off = p->base + p->rs;
    p->nl = 0;
    p->nspans = 0;
    p->bad = NULL;
    p->bad_eof = 0;
    p->oom = 0;
    p->st = ST_FIELD;
    p->i = 0;
    return SC_ROW;
}

/* Leaves the row in progress for the next refill, i its scan position. */
static enum scan_result scan_more(ddb_csv *p, size_t i)
{
    p->i = i;
    return SC_MORE;
}

/*
 * The steps of scan, one per state. Each looks at the row's buffered bytes
 * b[0..n) from *i (eof: no more will come) and returns SC_NEXT to go on in
 * the state it leaves in p->st, at the position it leaves in *i, or scan's
 * own result (SC_MORE having saved the position).
 */

/* ST_FIELD: the first byte decides the field's kind; an empty field ends here. */
static inline enum scan_result scan_field_start(ddb_csv *p, const unsigned char *b, size_t *i,
                                                size_t n, int eof)
{
    size_t at = *i;

    if (at == n) {
        if (!eof)
            return scan_more(p, at);
        push_span(p, at, 0, 0, 0);
        return row_done(p, at, 0);
    }
    if (b[at] == '"') {
        p->st = ST_QUO;
        p->fstart = ++at;
        p->fesc = 0;
        p->fnl = p->nl;
    } else if (b[at] == (unsigned char)p->delim) {
        push_span(p, at, 0, 0, 0);
        at++;
    } else if (b[at] == '\n') {
        push_span(p, at, 0, 0, 0);
        return row_done(p, at, 1);
    } else {
        p->st = ST_UNQ;
        p->fstart = at;
    }
    *i = at;
    return SC_NEXT;
}

/* ST_UNQ: runs to the next special byte, which ends the field or the row, is a
 * bare CR (data) or a stray quote (the row is malformed). */
static inline enum scan_result scan_unquoted(ddb_csv *p, const unsigned char *b, size_t *i,
                                             size_t n, int eof)
{
    size_t at = skip_plain(p, b, *i, n);

    if (at == n) {
        if (!eof)
            return scan_more(p, at);
        push_span(p, p->fstart, at - p->fstart, 0, 0);
        return row_done(p, at, 0);
    }
    if (b[at] == (unsigned char)p->delim) {
        push_span(p, p->fstart, at - p->fstart, 0, 0);
        p->st = ST_FIELD;
        at++;
    } else if (b[at] == '\n') {
        push_span(p, p->fstart, at - p->fstart, 0, 0);
        return row_done(p, at, 1);
    } else if (b[at] == '\r') {
        if (at + 1 == n && !eof)
            return scan_more(p, at);
        if (at + 1 < n && b[at + 1] == '\n') {
            push_span(p, p->fstart, at - p->fstart, 0, 0);
            return row_done(p, at, 2);
        }
        at++; /* bare CR: data */
    } else {
        mark_bad(p, "unexpected '\"' inside an unquoted field", at);
        p->st = ST_RESYNC;
    }
    *i = at;
    return SC_NEXT;
}

/* ST_QUO: runs to the next quote, counting the newlines inside the field. */
static inline enum scan_result scan_quoted(ddb_csv *p, const unsigned char *b, size_t *i, size_t n,
                                           int eof)
{
    const unsigned char *q = memchr(b + *i, '"', n - *i);

    if (q == NULL) {
        p->nl += count_lf(b + *i, n - *i);
        if (!eof)
            return scan_more(p, n);
        /* Unterminated at end of input: report where the quote opened. */
        p->bad = "unterminated quoted field at end of input";
        p->bad_eof = 1;
        p->bad_line = p->line + p->fnl;
        p->bad_off = p->base + p->rs + p->fstart - 1;
        return row_done(p, n, 0);
    }
    p->nl += count_lf(b + *i, (size_t)(q - (b + *i)));
    *i = (size_t)(q - b) + 1;
    p->st = ST_QSEEN;
    return SC_NEXT;
}

/* ST_QSEEN: after a quote comes a second one (an escaped quote), or the end
 * of the field or row; anything else makes the row malformed. */
static inline enum scan_result scan_after_quote(ddb_csv *p, const unsigned char *b, size_t *i,
                                                size_t n, int eof)
{
    size_t at = *i;
    size_t flen = at - 1 - p->fstart;

    if (at == n) {
        if (!eof)
            return scan_more(p, at);
        push_span(p, p->fstart, flen, 1, p->fesc);
        return row_done(p, at, 0);
    }
    if (b[at] == '"') {
        p->fesc = 1;
        p->st = ST_QUO;
        at++;
    } else if (b[at] == (unsigned char)p->delim) {
        push_span(p, p->fstart, flen, 1, p->fesc);
        p->st = ST_FIELD;
        at++;
    } else if (b[at] == '\n') {
        push_span(p, p->fstart, flen, 1, p->fesc);
        return row_done(p, at, 1);
    } else if (b[at] == '\r' && at + 1 == n && !eof) {
        return scan_more(p, at);
    } else if (b[at] == '\r' && at + 1 < n && b[at + 1] == '\n') {
        push_span(p, p->fstart, flen, 1, p->fesc);
        return row_done(p, at, 2);
    } else {
        mark_bad(p, "unexpected character after a closing quote", at);
        p->st = ST_RESYNC;
    }
    *i = at;
    return SC_NEXT;
}

/* ST_RESYNC: a malformed row ends at the next LF or CRLF, quotes or not. */
static enum scan_result scan_resync(ddb_csv *p, const unsigned char *b, size_t i, size_t n, int eof)
{
    const unsigned char *q = memchr(b + i, '\n', n - i);

    if (q == NULL) {
        if (!eof)
            return scan_more(p, n);
        return row_done(p, n, 0);
    }
    i = (size_t)(q - b);
    if (i > 0 && b[i - 1] == '\r')
        return row_done(p, i - 1, 2);
    return row_done(p, i, 1);
}

/*
 * Advances the row in progress over the buffered bytes. SC_MORE: the bytes
 * ran out before the row ended (state kept in p). SC_ROW: p->end/p->term are
 * set. SC_END: no row left.
 *
 * Unless discarding, it looks at no more than max_row + 2 bytes of a row (the
 * row plus CRLF), so whether a row is malformed or too big does not depend on
 * how the source happened to split the input.
 */
static enum scan_result scan(ddb_csv *p)
{
    const unsigned char *b;
    size_t n, i;
    int eof = p->eof;
    enum scan_result r;

    if (p->st == ST_ROW) {
        r = start_row(p);
        if (r != SC_ROW)
            return r;
    }
    b = (const unsigned char *)p->buf + p->rs;
    n = p->len - p->rs;
    i = p->i;
    if (!p->discard && n > p->max_row + 2) {
        n = p->max_row + 2;
        eof = 0;
    }
    for (;;) {
        switch (p->st) {
        case ST_FIELD:
            r = scan_field_start(p, b, &i, n, eof);
            break;
        case ST_UNQ:
            r = scan_unquoted(p, b, &i, n, eof);
            break;
        case ST_QUO:
            r = scan_quoted(p, b, &i, n, eof);
            break;
        case ST_QSEEN:
            r = scan_after_quote(p, b, &i, n, eof);
            break;
        case ST_RESYNC:
            return scan_resync(p, b, i, n, eof);
        case ST_ROW: /* handled above */
        default:
            return SC_END;
        }
        if (r != SC_NEXT)
            return r;
    }
}

/* Makes room after the buffered bytes and reads once. Moves the partial row to
 * the front when the tail is short, and grows the buffer (up to max_row + 2)
 * when the row itself fills most of it. */
static int refill(ddb_csv *p, ddb_error *err)
{
    ssize_t r;

    if (p->cap - p->len < p->cap / 4 && p->rs > 0) {
        memmove(p->buf, p->buf + p->rs, p->len - p->rs);
        p->base += p->rs;
        p->len -= p->rs;
        p->rs = 0;
    }
    if (p->cap - p->len < p->cap / 4 && p->cap < p->max_row + 2) {
        size_t ncap = p->cap * 2;
        char *nb;

        if (ncap > p->max_row + 2)
            ncap = p->max_row + 2;
        nb = realloc(p->buf, ncap);
        if (nb == NULL)
            return ddb_error_set(err, DDB_ENOMEM, "out of memory growing the CSV buffer to %zu",
                                 ncap);
        p->buf = nb;
        p->cap = ncap;
    }
    if (p->len == p->cap) /* cannot happen: the caller reports a full row as too big */
        return ddb_error_set(err, DDB_ERROR, "CSV buffer full at byte offset %llu",
                             (unsigned long long)(p->base + p->len));
    r = ddb_source_read(p->src, p->buf + p->len, p->cap - p->len, err);
    if (r < 0)
        return (int)r;
    if (r == 0)
        p->eof = 1;
    p->len += (size_t)r;
    return 0;
}

static void unescape(char *dst, size_t *dlen, const char *s, size_t len)
{
    size_t o = 0;
    const char *e = s + len;

    while (s < e) {
        const char *qt = memchr(s, '"', (size_t)(e - s));
        size_t chunk = qt ? (size_t)(qt - s) + 1 : (size_t)(e - s);

        memcpy(dst + o, s, chunk);
        o += chunk;
        s += chunk;
        if (qt != NULL)
            s++; /* the second quote of a "" pair */
    }
    *dlen = o;
}

/* Turns the spans of the finished row into fields; unescaped fields go to the
 * scratch buffer, sized to the raw row so it never moves while filling. */
static int build_fields(ddb_csv *p, ddb_csv_row *row, ddb_error *err)
{
    const char *b = p->buf + p->rs;
    size_t k, so = 0;

    if (p->oom)
        goto nomem;
    if (p->fields_cap < p->nspans) {
        ddb_csv_field *f = realloc(p->fields, p->nspans * sizeof(*f));
        if (f == NULL)
            goto nomem;
        p->fields = f;
        p->fields_cap = p->nspans;
    }
    for (k = 0; k < p->nspans; k++) {
        const csv_span *s = &p->spans[k];

        p->fields[k].quoted = s->quoted;
        if (!s->esc) {
            p->fields[k].ptr = b + s->off;
            p->fields[k].len = s->len;
            continue;
        }
        if (p->scratch_cap < p->end) {
            char *ns = realloc(p->scratch, p->end);
            if (ns == NULL)
                goto nomem;
            p->scratch = ns;
            p->scratch_cap = p->end;
        }
        unescape(p->scratch + so, &p->fields[k].len, b + s->off, s->len);
        p->fields[k].ptr = p->scratch + so;
        so += p->fields[k].len;
    }
    row->fields = p->fields;
    row->count = p->nspans;
    return 0;
nomem:
    return ddb_error_set(err, DDB_ENOMEM,
                         "line %llu (byte offset %llu): out of memory for %zu fields",
                         (unsigned long long)p->line, (unsigned long long)p->off, p->nspans);
}

static void finish_row(ddb_csv *p)
{
    p->rs += p->end + p->term;
    p->line += p->nl + (p->term ? 1 : 0);
    p->st = ST_ROW;
    p->i = 0;
    p->discard = 0;
}

static int report_bad(ddb_csv *p, ddb_error *err)
{
    char start[48] = "";

    if (p->bad_line != p->line)
        snprintf(start, sizeof(start), " (row starts at line %llu)", (unsigned long long)p->line);
    return ddb_error_set(err, DDB_EINVAL, "line %llu (byte offset %llu): %s%s",
                         (unsigned long long)p->bad_line, (unsigned long long)p->bad_off, p->bad,
                         start);
}

static int report_too_big(ddb_csv *p, ddb_error *err)
{
    return ddb_error_set(err, DDB_ETOOBIG,
                         "line %llu (byte offset %llu): row longer than the limit of %zu bytes",
                         (unsigned long long)p->line, (unsigned long long)p->off, p->max_row);
}

/* The BOM is only recognised at stream offset 0, so wait for three bytes. */
static int skip_bom(ddb_csv *p, ddb_error *err)
{
    while (p->len < 3 && !p->eof) {
        int rc = refill(p, err);
        if (rc < 0)
            return rc;
    }
    if (p->len >= 3 && memcmp(p->buf, "\xEF\xBB\xBF", 3) == 0)
        p->rs = 3;
    p->bom_done = 1;
    return 0;
}

int ddb_csv_next(ddb_csv *p, ddb_csv_row *row, ddb_error *err)
{
    int rc;

    memset(row, 0, sizeof(*row));
    if (!p->bom_done && (rc = skip_bom(p, err)) < 0)
        return rc;
    for (;;) {
        enum scan_result r = scan(p);

        if (r == SC_END)
            return DDB_ITEROVER;
        if (r == SC_MORE) {
            size_t n = p->len - p->rs;

            /* +1: a CR at the end may be the first half of the terminator. */
            if (!p->discard && p->st != ST_ROW && n > p->max_row + 1) {
                row->line = p->line;
                row->offset = p->off;
                row->raw = p->buf + p->rs;
                row->raw_len = p->max_row;
                rc = p->bad ? report_bad(p, err) : report_too_big(p, err);
                p->discard = 1;
                return rc;
            }
            if (p->discard) {
                /* Nothing before the scan point is needed any more. */
                p->rs += p->i;
                p->i = 0;
            }
            if ((rc = refill(p, err)) < 0)
                return rc;
            continue;
        }
        if (p->discard) {
            finish_row(p);
            continue;
        }
        row->line = p->line;
        row->offset = p->off;
        row->raw = p->buf + p->rs;
        row->raw_len = p->end > p->max_row ? p->max_row : p->end;
        /* A source handing out bytes slowly makes the parser give up on a
         * long unterminated field as too big before it sees the end of
         * input: say the same when the whole input came at once. */
        if (p->bad != NULL && !(p->bad_eof && p->end > p->max_row + 1))
            rc = report_bad(p, err);
        else if (p->end > p->max_row)
            rc = report_too_big(p, err);
        else
            rc = build_fields(p, row, err);
        finish_row(p);
        return rc;
    }
}
