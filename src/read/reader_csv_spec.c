/*
 * reader_csv_spec.c — the spec files of dynamodb-csv (github.com/danishi/dynamodb-csv), which
 * type the columns of a CSV file beside them: an INI file, read as Python's configparser reads
 * it there (keys keep their case, "=" or ":" between key and value, whole-line comments with
 * "#" or ";"):
 *
 *   [CSV_SPEC]
 *   id=S
 *   count=I
 *   tags=SS
 *   [IMPORT_OPTION]
 *   ConvertBlankToNullAttrs=note,extra
 *   [DELIMITER_OPTION]
 *   DelimiterCharacter=|
 *
 * [QUERY_OPTION] says what dynamodb-csv exports, nothing about reading a file: passed over.
 * What configparser would read differently or dynamodb-csv would not know (a continued value,
 * another section or key, an unknown type) is refused with the file and line.
 */
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/array.h"
#include "ddbpipe/fs.h"
#include "read/reader_internal.h"

/* Spec files are a few lines; a megabyte is far beyond any. */
#define SPEC_MAX (1024u * 1024u)

static const char *const type_names[] = {"", "S", "I", "D", "B", "J", "SL", "SS", "DL", "DS"};

const char *ddb_csv_spec_type_name(ddb_csv_spec_type t)
{
    return (unsigned)t < sizeof(type_names) / sizeof(type_names[0]) ? type_names[t] : "?";
}

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

/* p[0, *len) without the spaces around it. */
static const char *trim(const char *p, size_t *len)
{
    while (*len > 0 && is_space(*p))
        p++, (*len)--;
    while (*len > 0 && is_space(p[*len - 1]))
        (*len)--;
    return p;
}

static int add_entry(ddb_csv_spec *s, const char *column, size_t len, ddb_csv_spec_type type,
                     ddb_csv_spec_blank blank, unsigned line)
{
    ddb_csv_spec_entry *e = ddb_array_reserve(s->entries, s->n, &s->cap, sizeof(*e), 16);
    if (e == NULL)
        return DDB_ENOMEM;
    s->entries = e;
    e = &s->entries[s->n];
    if ((e->column = malloc(len + 1)) == NULL)
        return DDB_ENOMEM;
    memcpy(e->column, column, len);
    e->column[len] = '\0';
    e->type = type;
    e->blank = blank;
    e->line = line;
    s->n++;
    return 0;
}

/* One key=value line of section sec. Returns 0, DDB_EUSAGE (err says why, without the
 * place) or DDB_ENOMEM. */
static int spec_line(ddb_csv_spec *s, const char *sec, const char *key, size_t klen,
                     const char *val, size_t vlen, unsigned line, ddb_error *err)
{
    if (strcmp(sec, "CSV_SPEC") == 0) {
        for (size_t t = 1; t < sizeof(type_names) / sizeof(type_names[0]); t++)
            if (strlen(type_names[t]) == vlen && memcmp(type_names[t], val, vlen) == 0)
                return add_entry(s, key, klen, (ddb_csv_spec_type)t, DDB_SPEC_BLANK_DEFAULT, line);
        return ddb_error_set(err, DDB_EUSAGE,
                             "unknown type \"%.*s\" for column \"%.*s\" (the types are S I D B "
                             "J SL SS DL DS)",
                             (int)vlen, val, (int)klen, key);
    }
    if (strcmp(sec, "IMPORT_OPTION") == 0) {
        ddb_csv_spec_blank b = klen == 23 && memcmp(key, "ConvertBlankToNullAttrs", 23) == 0
                                   ? DDB_SPEC_BLANK_NULL
                               : klen == 23 && memcmp(key, "ConvertBlankToDropAttrs", 23) == 0
                                   ? DDB_SPEC_BLANK_DROP
                                   : DDB_SPEC_BLANK_DEFAULT;
        if (b == DDB_SPEC_BLANK_DEFAULT)
            return ddb_error_set(err, DDB_EUSAGE, "unknown key \"%.*s\" in [IMPORT_OPTION]",
                                 (int)klen, key);
        /* Split on commas as dynamodb-csv does: names exactly as written. */
        for (const char *p = val, *end = val + vlen;; p++) {
            const char *comma = memchr(p, ',', (size_t)(end - p));
            if (add_entry(s, p, (size_t)((comma ? comma : end) - p), DDB_SPEC_NONE, b, line) != 0)
                return DDB_ENOMEM;
            if ((p = comma) == NULL)
                return 0;
        }
    }
    if (strcmp(sec, "DELIMITER_OPTION") == 0) {
        if (klen != 18 || memcmp(key, "DelimiterCharacter", 18) != 0 || vlen == 0)
            return ddb_error_set(err, DDB_EUSAGE,
                                 "[DELIMITER_OPTION] holds DelimiterCharacter=C only");
        free(s->delimiter);
        if ((s->delimiter = malloc(vlen + 1)) == NULL)
            return DDB_ENOMEM;
        memcpy(s->delimiter, val, vlen);
        s->delimiter[vlen] = '\0';
        return 0;
    }
    return 0; /* [QUERY_OPTION] */
}

/* Reads text line by line; err says why and where. */
static int spec_parse(ddb_csv_spec *s, const char *path, const char *text, size_t len,
                      ddb_error *err)
{
    char sec[32] = "";
    unsigned line = 0;
    int rc;
    for (const char *p = text, *end = text + len; p < end; p++) {
        const char *eol = memchr(p, '\n', (size_t)(end - p)), *key, *val, *sep;
        size_t n, klen, vlen;
        eol = eol ? eol : end;
        line++;
        n = (size_t)(eol - p);
        key = trim(p, &n);
        if (n == 0 || key[0] == '#' || key[0] == ';') {
            p = eol;
            continue;
        }
        if (key != p)
            return ddb_error_set(err, DDB_EUSAGE,
                                 "%s:%u: an indented line continues a value; not read", path, line);
        if (key[0] == '[' && key[n - 1] == ']') {
            if (n - 2 >= sizeof(sec) ||
                ((n - 2 != 8 || memcmp(key + 1, "CSV_SPEC", 8) != 0) &&
                 (n - 2 != 13 || memcmp(key + 1, "IMPORT_OPTION", 13) != 0) &&
                 (n - 2 != 16 || memcmp(key + 1, "DELIMITER_OPTION", 16) != 0) &&
                 (n - 2 != 12 || memcmp(key + 1, "QUERY_OPTION", 12) != 0)))
                return ddb_error_set(err, DDB_EUSAGE, "%s:%u: unknown section %.*s", path, line,
                                     (int)n, key);
            memcpy(sec, key + 1, n - 2);
            sec[n - 2] = '\0';
            p = eol;
            continue;
        }
        /* configparser splits at the first '=' or ':' */
        for (sep = key; sep < key + n && *sep != '=' && *sep != ':'; sep++)
            ;
        klen = (size_t)(sep - key);
        if (sep == key + n || (key = trim(key, &klen), klen == 0) || sec[0] == '\0')
            return ddb_error_set(err, DDB_EUSAGE, "%s:%u: not a key=value line of a section", path,
                                 line);
        vlen = (size_t)(p + (eol - p) - (sep + 1));
        val = trim(sep + 1, &vlen);
        if ((rc = spec_line(s, sec, key, klen, val, vlen, line, err)) != 0)
            return rc == DDB_ENOMEM ? ddb_error_set(err, rc, "out of memory")
                                    : ddb_error_prefix(err, "%s:%u: ", path, line);
        p = eol;
    }
    return 0;
}

int ddb_csv_spec_load(ddb_csv_spec *out, const char *path, ddb_error *err)
{
    char *text = NULL;
    size_t len;
    int rc;
    memset(out, 0, sizeof(*out));
    if ((rc = ddb_file_read_small(&text, &len, path, SPEC_MAX, err)) != 0)
        return ddb_error_prefix(err, "--types-file: ");
    rc = spec_parse(out, path, text, len, err);
    free(text);
    return rc;
}

void ddb_csv_spec_dispose(ddb_csv_spec *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->entries[i].column);
    free(s->entries);
    free(s->delimiter);
    memset(s, 0, sizeof(*s));
}
