/*
 * reader_sniff.c — telling an input's format from its first bytes (reader.c
 * opens it): the detection helpers the bidders share, the bidders of
 * DynamoDB JSON lines, plain NDJSON and CSV, the pick among all bidders, and
 * when a pipe that pauses has shown enough to stop sniffing early.
 */
#include <string.h>

#include "ddbpipe/json.h"
#include "read/reader_internal.h"

static int has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

size_t ddb_sniff_skip_ws(const unsigned char *p, size_t i, size_t n)
{
    while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r' || p[i] == '\n'))
        i++;
    return i;
}

size_t ddb_sniff_start(const unsigned char *p, size_t n)
{
    size_t i = 0;
    if (n >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF)
        i = 3; /* a byte-order mark; the readers skip it too */
    return ddb_sniff_skip_ws(p, i, n);
}

const unsigned char *ddb_sniff_first_key(const unsigned char *p, size_t i, size_t n, size_t *len)
{
    size_t k = ddb_sniff_skip_ws(p, i + 1, n), e;
    if (k >= n || p[k] != '"')
        return NULL;
    for (e = k + 1; e < n && p[e] != '"' && p[e] != '\\'; e++)
        ;
    if (e >= n || p[e] != '"')
        return NULL;
    *len = e - k - 1;
    return p + k + 1;
}

int ddb_sniff_key_in(const unsigned char *k, size_t len, const char *const *names)
{
    for (; *names; names++)
        if (strlen(*names) == len && memcmp(k, *names, len) == 0)
            return 1;
    return 0;
}

/* ---------------------------------------------------------------- bidders */

/* An empty input: CSV when its name says so (a header-only file may still be
 * CSV with nothing in it), else DynamoDB JSON lines (nothing either way). */
static int bid_empty(const char *path, ddb_input_format f)
{
    int csv = has_suffix(path, ".csv") || has_suffix(path, ".csv.gz");
    return (f == DDB_IN_CSV) == csv ? 1 : 0;
}

/* The first key decides, not a full parse of the first line, so one bad first
 * record cannot turn a whole file of DynamoDB JSON into plain NDJSON. */
static int bid_ddbjson(const unsigned char *p, size_t n, const char *path)
{
    static const char *const keys[] = {"Item", "Keys", "Metadata", "NewImage", "OldImage", NULL};
    size_t i = ddb_sniff_start(p, n), eol, klen = 0;
    const unsigned char *key;
    ddb_json_line_kind kind;
    if (i == n)
        return bid_empty(path, DDB_IN_DDBJSON);
    if (p[i] != '{')
        return 0;
    key = ddb_sniff_first_key(p, i, n, &klen);
    if (key != NULL && ddb_sniff_key_in(key, klen, keys))
        return 80;
    for (eol = i; eol < n && p[eol] != '\n'; eol++)
        ;
    if ((eol < n || n < SNIFF_BYTES) && ddb_json_sniff_line(&kind, (const char *)p + i, eol - i))
        return 70;
    return 0;
}

/* Any object per line that is not one of the above: plain records. */
static int bid_ndjson(const unsigned char *p, size_t n, const char *path)
{
    size_t i = ddb_sniff_start(p, n);
    (void)path;
    return i < n && p[i] == '{' ? 10 : 0;
}

/* Text, as far as the sniffed bytes tell: no NUL byte, and nearly all UTF-8
 * (a sequence cut at the end of the sniffed bytes is fine). A stray byte of
 * another encoding (a Latin-1 "caf\xe9") is the reader's to reject with its
 * row, not a reason to call the whole file something other than text; a
 * binary file has NULs, or invalid bytes everywhere. */
static int looks_like_text(const unsigned char *p, size_t n)
{
    size_t bad = 0;
    for (size_t i = 0; i < n;) {
        unsigned char c = p[i];
        size_t k = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
        if (c == 0)
            return 0;
        for (size_t j = 1; k > 1 && j < k; j++)
            if (i + j < n && (p[i + j] & 0xC0) != 0x80)
                k = 0;
        if (k == 0) {
            bad++;
            k = 1;
        }
        i += k;
    }
    return bad <= n / 100 + 1;
}

/* Fields of the CSV row at p[i] with delimiter d, quotes followed; *next is
 * where the following row starts (n at the end). 0 when the row is cut off. */
static size_t csv_row_fields(const unsigned char *p, size_t i, size_t n, char d, size_t *next)
{
    size_t fields = 1;
    int quoted = 0;
    for (; i < n; i++) {
        if (quoted) {
            if (p[i] == '"')
                quoted = i + 1 < n && p[i + 1] == '"' ? (i++, 1) : 0;
            continue;
        }
        if (p[i] == '"')
            quoted = 1;
        else if (p[i] == (unsigned char)d)
            fields++;
        else if (p[i] == '\n') {
            *next = i + 1;
            return fields;
        }
    }
    *next = n;
    return quoted ? 0 : fields;
}

/*
 * CSV only when it clearly is: text that is not JSON or markup, and either a
 * name that says CSV (.csv, .tsv) or a header row with several columns
 * (comma, tab, semicolon or pipe) that the next row matches. A single column
 * of text from a file named otherwise could be anything: not guessed.
 */
static int bid_csv(const unsigned char *p, size_t n, const char *path)
{
    static const char delims[] = {',', '\t', ';', '|'};
    size_t i = ddb_sniff_start(p, n);
    if (i == n)
        return bid_empty(path, DDB_IN_CSV);
    if (p[i] == '{' || p[i] == '[' || p[i] == '<' || !looks_like_text(p, n))
        return 0;
    if (has_suffix(path, ".csv") || has_suffix(path, ".csv.gz") || has_suffix(path, ".tsv") ||
        has_suffix(path, ".tsv.gz"))
        return 50;
    for (size_t d = 0; d < sizeof(delims); d++) {
        size_t next, next2, a = csv_row_fields(p, i, n, delims[d], &next), b;
        if (a < 2)
            continue;
        if (next >= n)
            return 40; /* a header and nothing else */
        b = csv_row_fields(p, next, n, delims[d], &next2);
        if (b == a || (b == 0 && next2 == n && n >= SNIFF_BYTES))
            return 40;
    }
    return 0;
}

/* Amazon Ion, binary (its version marker) or text as DynamoDB's ION exports
 * write it ("$ion_1_0" first, then {Item:{...}} with bare field names):
 * refused by name rather than misread as CSV. */
int ddb_reader_looks_like_ion(const unsigned char *p, size_t n)
{
    size_t i;
    if (n >= 4 && p[0] == 0xE0 && p[1] == 0x01 && p[2] == 0x00 && p[3] == 0xEA)
        return 1;
    i = ddb_sniff_start(p, n);
    return (n - i >= 8 && memcmp(p + i, "$ion_1_0", 8) == 0) ||
           (n - i >= 7 && memcmp(p + i, "{Item:{", 7) == 0);
}

/* Is p[0, n) one whole JSON object, with nothing after it but spaces?
 * Braces and brackets balanced outside strings: a look, not a parse (the
 * bidders and then the reader judge the rest). */
static int whole_object(const unsigned char *p, size_t n)
{
    int depth = 0, in_str = 0;
    size_t i;
    for (i = 0; i < n; i++) {
        unsigned char c = p[i];
        if (in_str) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_str = 0;
        } else if (c == '"') {
            in_str = 1;
        } else if (c == '{' || c == '[') {
            depth++;
        } else if ((c == '}' || c == ']') && --depth <= 0) {
            break;
        }
    }
    if (i >= n || depth != 0)
        return 0;
    return ddb_sniff_skip_ws(p, i + 1, n) == n;
}

/*
 * A pipe that pauses is not waited on for the whole sniff (a megabyte, or the
 * end) when what came already tells the format: a producer that writes a few
 * records and pauses sees them read at once. With the format given, any
 * bytes do. Otherwise whole lines only: of JSON a first line that is one
 * whole object (DynamoDB JSON lines or plain records, told apart by that line
 * as by any), of anything else a header and a row at least (a header alone
 * could be all a CSV file holds, not all a stream will); a document spread
 * over lines waits as before. The format is then told from those lines
 * (sc->decided), not from a row cut by the pause.
 */
int ddb_reader_sniffed_enough(void *ctx, const unsigned char *p, size_t n)
{
    ddb_sniff_ctx *sc = ctx;
    size_t i = ddb_sniff_start(p, n), whole = n;
    const unsigned char *eol;
    if (sc->format != DDB_IN_AUTO)
        return n > 0;
    while (whole > 0 && p[whole - 1] != '\n')
        whole--;
    if (i >= whole || (eol = memchr(p + i, '\n', whole - i)) == NULL)
        return 0;
    if (p[i] == '{' && !whole_object(p + i, (size_t)(eol - (p + i))))
        return 0;
    if (p[i] == '[' ||
        (p[i] != '{' && memchr(eol + 1, '\n', whole - (size_t)(eol + 1 - p)) == NULL))
        return 0;
    if (ddb_reader_pick_bidder(DDB_IN_AUTO, p, whole, sc->path) == NULL)
        return 0;
    sc->decided = whole;
    return 1;
}

static int open_ddbjson(ddb_reader **out, ddb_source *src, const char *name,
                        const ddb_reader_opts *opts, ddb_error *err)
{
    return ddb_reader_new_lines(out, src, DDB_IN_DDBJSON, name, opts, err);
}

static int open_ndjson(ddb_reader **out, ddb_source *src, const char *name,
                       const ddb_reader_opts *opts, ddb_error *err)
{
    return ddb_reader_new_lines(out, src, DDB_IN_NDJSON, name, opts, err);
}

const ddb_reader_bidder ddb_ddbjson_bidder = {DDB_IN_DDBJSON, bid_ddbjson, open_ddbjson};
const ddb_reader_bidder ddb_ndjson_bidder = {DDB_IN_NDJSON, bid_ndjson, open_ndjson};
const ddb_reader_bidder ddb_csv_bidder = {DDB_IN_CSV, bid_csv, ddb_reader_new_csv};

/* Every reader of a file or a stream, by its format. */
static const ddb_reader_bidder *const bidders[] = {&ddb_json_bidder,    &ddb_scan_bidder,
                                                   &ddb_ddbjson_bidder, &ddb_ndjson_bidder,
                                                   &ddb_csv_bidder,     &ddb_datapipeline_bidder,
                                                   &ddb_parquet_bidder};

/* The bidder of a forced format, or the highest bid (the first on a tie). */
const ddb_reader_bidder *ddb_reader_pick_bidder(ddb_input_format forced, const unsigned char *p,
                                                size_t n, const char *path)
{
    const ddb_reader_bidder *best = NULL;
    int best_bid = 0;
    for (size_t i = 0; i < sizeof(bidders) / sizeof(bidders[0]); i++) {
        int bid;
        if (forced != DDB_IN_AUTO) {
            if (bidders[i]->format == forced)
                return bidders[i];
            continue;
        }
        if ((bid = bidders[i]->bid(p, n, path)) > best_bid) {
            best = bidders[i];
            best_bid = bid;
        }
    }
    return best;
}
