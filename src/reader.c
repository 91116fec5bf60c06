/*
 * Opening inputs: picks the reader by content. gzip is recognised by its
 * magic bytes (ddb_source_open_auto), then each reader's bidder looks at the
 * first bytes and the highest bid wins: a JSON document (an array of items,
 * scan output, a request file, a Workbench model, anything pretty-printed),
 * DynamoDB JSON lines, plain NDJSON, CSV. Nothing is guessed: an input no
 * bidder recognises is an error. A folder is an Export to S3 folder, a
 * dynamodump backup, or else a folder of files read one after another.
 */
#include "ddbpipe/reader.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/stat.h>

#include "ddbpipe/array.h"
#include "ddbpipe/json.h"
#include "ddbpipe/s3.h"
#include "ddbpipe/store.h"
#include "reader_internal.h"

#define SNIFF_BYTES (1024u * 1024u)

static const char *const format_names[] = {"auto", "ddb-json", "scan", "ndjson",
                                           "csv",  "export",   "json", "dynamodump"};

const char *ddb_input_format_name(ddb_input_format f)
{
    if ((unsigned)f >= sizeof(format_names) / sizeof(format_names[0]))
        return "?";
    return format_names[f];
}

int ddb_input_format_parse(ddb_input_format *out, const char *s)
{
    for (size_t i = 0; i < sizeof(format_names) / sizeof(format_names[0]); i++) {
        if (strcmp(s, format_names[i]) == 0) {
            *out = (ddb_input_format)i;
            return 0;
        }
    }
    if (strcmp(s, "dynamodb-json") == 0) {
        *out = DDB_IN_DDBJSON;
        return 0;
    }
    return DDB_EUSAGE;
}

static int strip_suffix(char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    if (n > k && strcmp(s + n - k, suffix) == 0) {
        s[n - k] = '\0';
        return 1;
    }
    return 0;
}

char *ddb_entity_from_filename(const char *path, int *is_delete)
{
    static const char *const exts[] = {".csv", ".tsv", ".ndjson", ".jsonl", ".json", NULL};
    char *name;

    if (is_delete)
        *is_delete = 0;
    if (strcmp(path, "-") == 0)
        return NULL;
    name = strdup(ddb_path_base(path));
    if (name == NULL)
        return NULL;
    strip_suffix(name, ".gz");
    for (const char *const *e = exts; *e; e++)
        if (strip_suffix(name, *e))
            break;
    if (strip_suffix(name, ".deletes") && is_delete)
        *is_delete = 1;
    if (name[0] == '\0' || name[0] == '_' || name[0] == '.') {
        free(name);
        return NULL;
    }
    return name;
}

int ddb_reader_base_init(ddb_reader *r, const ddb_reader_vtable *vt, const char *name,
                         ddb_input_format format, const ddb_reader_opts *opts)
{
    r->vt = vt;
    r->format = format;
    r->name = strdup(name ? name : "-");
    if (r->name == NULL)
        return DDB_ENOMEM;
    if (name != NULL) {
        r->entity_hint = ddb_entity_from_filename(name, &r->deletes);
        if (opts != NULL && opts->entity != NULL) {
            free(r->entity_hint);
            r->entity_hint = NULL;
        }
    }
    if (opts != NULL && opts->entity != NULL && (r->entity_hint = strdup(opts->entity)) == NULL)
        return DDB_ENOMEM;
    return 0;
}

void ddb_record_set_bad(ddb_record *rec, char *buf, size_t cap, const char *reason)
{
    snprintf(buf, cap, "%s", reason);
    rec->kind = DDB_REC_BAD;
    rec->reason = buf;
    rec->item.attrs = NULL;
    rec->item.count = 0;
}

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

/* Text, as far as the sniffed bytes tell: UTF-8 without NUL bytes (a
 * sequence cut at the end of the sniffed bytes is fine). */
static int looks_like_text(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n;) {
        unsigned char c = p[i];
        size_t k = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
        if (c == 0 || k == 0)
            return 0;
        for (size_t j = 1; j < k; j++)
            if (i + j < n && (p[i + j] & 0xC0) != 0x80)
                return 0;
        i += k;
    }
    return 1;
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
static int looks_like_ion(const unsigned char *p, size_t n)
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

/* What a sniff stops early for (sniffed_enough). */
typedef struct sniff_ctx {
    ddb_input_format format;
    const char *path;
    size_t decided; /* the bytes the format was told from, when the sniff stopped early */
} sniff_ctx;

static const ddb_reader_bidder *pick_bidder(ddb_input_format forced, const unsigned char *p,
                                            size_t n, const char *path);

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
static int sniffed_enough(void *ctx, const unsigned char *p, size_t n)
{
    sniff_ctx *sc = ctx;
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
    if (pick_bidder(DDB_IN_AUTO, p, whole, sc->path) == NULL)
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
static const ddb_reader_bidder *const bidders[] = {
    &ddb_json_bidder, &ddb_scan_bidder, &ddb_ddbjson_bidder, &ddb_ndjson_bidder, &ddb_csv_bidder};

/* The bidder of a forced format, or the highest bid (the first on a tie). */
static const ddb_reader_bidder *pick_bidder(ddb_input_format forced, const unsigned char *p,
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

/* A folder holding manifest-summary.json: an Export to S3 folder. */
static int is_export_folder(ddb_store *st, const char *dir)
{
    char probe[4096];
    int is_dir = 0;
    uint64_t size;
    snprintf(probe, sizeof(probe), "%s/manifest-summary.json", dir);
    return st->vt->stat(st, probe, &is_dir, &size, NULL) == 0 && !is_dir;
}

/* A folder holding schema.json and data/: a dynamodump backup of one table. */
static int is_dump_table(ddb_store *st, const char *dir)
{
    char probe[4096];
    int is_dir = 0;
    uint64_t size;
    snprintf(probe, sizeof(probe), "%s/schema.json", dir);
    if (st->vt->stat(st, probe, &is_dir, &size, NULL) != 0 || is_dir)
        return 0;
    snprintf(probe, sizeof(probe), "%s/data", dir);
    return st->vt->stat(st, probe, &is_dir, &size, NULL) == 0 && is_dir;
}

/* The folders directly below dir that is_it accepts: *count of them, and a
 * malloc'd path to the last (NULL when none, or out of memory: *count 0). */
static char *find_below(ddb_store *st, const char *dir, int (*is_it)(ddb_store *, const char *),
                        int *count)
{
    char **names = NULL, *found = NULL;
    size_t n = 0;
    *count = 0;
    if (st->vt->list(st, dir, &names, &n, NULL) != 0)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        char sub[4096 + 300];
        size_t len = strlen(names[i]);
        if (names[i][0] == '.' || len < 2 || names[i][len - 1] != '/')
            continue;
        snprintf(sub, sizeof(sub), "%s/%.*s", dir, (int)(len - 1), names[i]);
        if (is_it(st, sub)) {
            (*count)++;
            free(found);
            if ((found = strdup(sub)) == NULL) {
                *count = 0;
                break;
            }
        }
    }
    ddb_store_names_free(names, n);
    return found;
}

/*
 * A folder that holds exactly one export somewhere below it in the layout AWS
 * writes (<prefix>/AWSDynamoDB/<exportId>/manifest-summary.json), given as the
 * prefix or as the AWSDynamoDB folder. Returns a malloc'd path to that export
 * folder, or NULL (with *count = how many were found).
 */
static char *find_single_export(ddb_store *st, const char *dir, int *count)
{
    const char *subs[2] = {"/AWSDynamoDB", ""};
    char *found = NULL;
    *count = 0;
    for (int s = 0; s < 2 && *count == 0; s++) {
        char base[4096];
        snprintf(base, sizeof(base), "%s%s", dir, subs[s]);
        found = find_below(st, base, is_export_folder, count);
    }
    if (*count != 1) {
        free(found);
        return NULL;
    }
    return found;
}

/*
 * The dynamodump table a folder is: itself, or the single table folder
 * directly below it (a dump of several tables holds one per table). Returns a
 * malloc'd path, or NULL (with *count = how many were found).
 */
static char *find_dump_table(ddb_store *st, const char *dir, int *count)
{
    char *found;
    if (is_dump_table(st, dir)) {
        *count = 1;
        return strdup(dir);
    }
    found = find_below(st, dir, is_dump_table, count);
    if (*count != 1) {
        free(found);
        return NULL;
    }
    return found;
}

/* The manifest-summary.json of an export names the export (folders are
 * handled before this is asked). */
static int is_export_path(const char *path)
{
    return strcmp(ddb_path_base(path), "manifest-summary.json") == 0;
}

/* A folder given as an input: the export in it (or the single one below it),
 * else the dynamodump backup it is (or the single table below it). */
static int open_folder(ddb_reader **out, ddb_store *st, const char *path,
                       const ddb_reader_opts *opts, ddb_error *err)
{
    int count, rc;
    char *inner;
    if (is_export_folder(st, path))
        return ddb_reader_new_export(out, path, opts, err);
    if ((inner = find_single_export(st, path, &count)) != NULL) {
        rc = ddb_reader_new_export(out, inner, opts, err);
        free(inner);
        return rc;
    }
    if (count > 1)
        return ddb_error_set(err, DDB_EUSAGE,
                             "%s holds %d exports; give the folder of the one to read (the "
                             "one with manifest-summary.json)",
                             path, count);
    if ((inner = find_dump_table(st, path, &count)) != NULL) {
        rc = ddb_reader_new_dynamodump(out, inner, opts, err);
        free(inner);
        return rc;
    }
    if (count > 1)
        return ddb_error_set(err, DDB_EUSAGE,
                             "%s holds %d dynamodump tables; give the folder of the one to read "
                             "(the one with schema.json)",
                             path, count);
    return ddb_error_set(err, DDB_EUSAGE,
                         "%s is a folder holding neither an Export to S3 "
                         "(manifest-summary.json), nor a dynamodump backup (schema.json and "
                         "data/), nor files to read",
                         path);
}

/* A folder read as one input, not as its files: an export (manifest-summary.json
 * in it, or exports below it) or a dynamodump backup (a table's folder, or
 * table folders below it). */
static int is_reader_dir(ddb_store *st, const char *path)
{
    int count;
    char *inner;
    if (is_export_folder(st, path))
        return 1;
    inner = find_single_export(st, path, &count);
    free(inner);
    if (count > 0)
        return 1;
    inner = find_dump_table(st, path, &count);
    free(inner);
    return count > 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int ddb_reader_skips_name(const char *name)
{
    /* _rejects, _unmatched, _ddbpipe/...: what a run says about itself */
    return name[0] == '.' || name[0] == '_';
}

/* Appends full (owned from now on) to the list. Returns 0 or -1. */
static int push_name(char ***list, size_t *cnt, size_t *cap, char *full)
{
    char **nl = ddb_array_reserve(*list, *cnt, cap, sizeof(char *), 16);
    if (nl == NULL) {
        free(full);
        return -1;
    }
    *list = nl;
    (*list)[(*cnt)++] = full;
    return 0;
}

/* A run's unmatched items from versions before _ddbpipe/, when asked for. */
static int wanted_side_file(const char *name, int unmatched)
{
    return unmatched && strncmp(name, "_unmatched.ndjson", 17) == 0;
}

int ddb_reader_list_folder(char ***out, size_t *n, const char *path, int unmatched, ddb_error *err)
{
    struct stat st;
    DIR *d;
    struct dirent *de;
    char **list = NULL;
    size_t cnt = 0, cap = 0;
    int rc = 0;

    *out = NULL;
    *n = 0;
    if (strcmp(path, "-") == 0 || stat(path, &st) != 0 || !S_ISDIR(st.st_mode) ||
        is_reader_dir(ddb_store_local(), path))
        return 0;
    if ((d = opendir(path)) == NULL)
        return ddb_error_set(err, DDB_EIO, "cannot read folder %s: %s", path, strerror(errno));
    while ((de = readdir(d)) != NULL) {
        char *full;
        if (unmatched && strcmp(de->d_name, "_ddbpipe") == 0) {
            static const char *const side[] = {"_ddbpipe/unmatched.ndjson",
                                               "_ddbpipe/unmatched.ndjson.gz"};
            for (size_t k = 0; k < 2 && rc == 0; k++) {
                if ((full = ddb_path_join(path, side[k])) == NULL)
                    rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
                else if (stat(full, &st) != 0 || !S_ISREG(st.st_mode))
                    free(full);
                else if (push_name(&list, &cnt, &cap, full) != 0)
                    rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
            }
            continue;
        }
        if (ddb_reader_skips_name(de->d_name) && !wanted_side_file(de->d_name, unmatched))
            continue;
        if ((full = ddb_path_join(path, de->d_name)) == NULL) {
            rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
            break;
        }
        if (stat(full, &st) != 0 || !S_ISREG(st.st_mode)) {
            free(full);
            continue;
        }
        if (push_name(&list, &cnt, &cap, full) != 0) {
            rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
            break;
        }
    }
    closedir(d);
    if (rc != 0) {
        for (size_t i = 0; i < cnt; i++)
            free(list[i]);
        free(list);
        return rc;
    }
    if (cnt == 0)
        return ddb_error_set(err, DDB_EUSAGE, "the folder %s holds no files to read", path);
    if (cnt > 1)
        qsort(list, cnt, sizeof(char *), cmp_str);
    *out = list;
    *n = cnt;
    return 0;
}

int ddb_reader_open(ddb_reader **out, const char *path, const ddb_reader_opts *opts, ddb_error *err)
{
    ddb_reader_opts defaults;
    ddb_source *src = NULL;
    const unsigned char *peek;
    size_t peek_len;
    const ddb_reader_bidder *bidder;
    ddb_store *st;
    char *trimmed = NULL;
    int is_dir = 0, rc;
    uint64_t size = 0;
    sniff_ctx sc;

    *out = NULL;
    if (opts == NULL) {
        memset(&defaults, 0, sizeof(defaults));
        opts = &defaults;
    }
    if ((st = ddb_store_for(opts->remote, path)) == NULL)
        return ddb_error_set(err, DDB_EUSAGE, "%s: reading from S3 needs AWS access", path);
    if (ddb_s3_is_url(path) && strlen(path) > 5 && path[strlen(path) - 1] == '/') {
        /* s3://b/prefix/ is the folder s3://b/prefix */
        if ((trimmed = strdup(path)) == NULL)
            return ddb_error_set(err, DDB_ENOMEM, "out of memory");
        while (strlen(trimmed) > 5 && trimmed[strlen(trimmed) - 1] == '/')
            trimmed[strlen(trimmed) - 1] = '\0';
        path = trimmed;
    }
    if (opts->format == DDB_IN_AUTO && opts->columns != NULL) {
        /* Columns are only ever given for CSV without a header row. */
        defaults = *opts;
        defaults.format = DDB_IN_CSV;
        opts = &defaults;
    }
    rc = strcmp(path, "-") != 0 ? st->vt->stat(st, path, &is_dir, &size, err) : 0;
    if (rc == 0 && is_dir) {
        rc = open_folder(out, st, path, opts, err);
        goto done;
    }
    if (rc != 0 && st != ddb_store_local())
        goto done; /* a local path that cannot be stat'ed says why when opened */
    if (opts->format == DDB_IN_EXPORT || (opts->format == DDB_IN_AUTO && is_export_path(path))) {
        rc = ddb_reader_new_export(out, path, opts, err);
        goto done;
    }
    if (st == ddb_store_local())
        rc = ddb_source_open_auto(&src, path, NULL, err);
    else if ((rc = st->vt->open(st, path, &src, err)) == 0)
        rc = ddb_source_auto(&src, src, NULL, err);
    sc.format = opts->format;
    sc.path = path;
    sc.decided = 0;
    if (rc != 0 || (rc = ddb_source_sniff_until(&src, src, SNIFF_BYTES, sniffed_enough, &sc, &peek,
                                                &peek_len, err)) != 0)
        goto done;
    if (opts->format == DDB_IN_AUTO && looks_like_ion(peek, peek_len)) {
        ddb_source_free(src);
        rc = ddb_error_set(err, DDB_EUSAGE,
                           "%s: this is Amazon Ion (a DynamoDB export in the ION format), which "
                           "ddbpipe does not read; export the table as DYNAMODB_JSON instead",
                           path);
        goto done;
    }
    if ((bidder = pick_bidder(opts->format, peek, sc.decided ? sc.decided : peek_len, path)) ==
        NULL) {
        ddb_source_free(src);
        rc = ddb_error_set(err, DDB_EUSAGE,
                           "%s: cannot tell the format of its content: it is neither JSON "
                           "(items, documents, lines) nor clearly CSV (a .csv name, or a header "
                           "row of several columns that the next row matches)",
                           path);
        goto done;
    }
    rc = bidder->open(out, src, path, opts, err);
    if (rc == 0 && strcmp(path, "-") != 0)
        (*out)->total_bytes = size;
done:
    free(trimmed);
    return rc;
}

void ddb_reader_free(ddb_reader *r)
{
    if (r == NULL)
        return;
    r->vt->free(r);
    free(r->name);
    free(r->entity_hint);
    free(r);
}
