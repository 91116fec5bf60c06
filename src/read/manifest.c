/*
 * Export to S3 manifests: reading, checking, and finding the data files.
 * json-c is fine here: manifests are small and their only numbers are counts
 * that fit in an int64 (checked, never trusted).
 */
#include "ddbpipe/manifest.h"

#include <ctype.h>
#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ddbpipe/array.h"
#include "ddbpipe/checksum.h"
#include "ddbpipe/codec.h"
#include "ddbpipe/fs.h"
#include "ddbpipe/store.h"

#define SUMMARY_MAX (1024u * 1024u)
#define FILES_MAX (256u * 1024u * 1024u) /* ~1M data files: far beyond any real export */
#define CHECKSUM_FILE_MAX 4096u
#define MARKER "AWSDynamoDB/"

typedef struct loader {
    ddb_manifest *m;
    ddb_store *store; /* the disk, or the bucket the export is in */
    unsigned flags;
    ddb_warn_fn warn;
    void *warn_ctx;
    ddb_error *err;
} loader;

__attribute__((format(printf, 2, 3))) static void warnf(loader *ld, const char *fmt, ...)
{
    char msg[DDB_ERROR_MAX];
    va_list ap;
    if (ld->warn == NULL)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    ld->warn(ld->warn_ctx, msg);
}

static int nomem(ddb_error *err)
{
    return ddb_error_set(err, DDB_ENOMEM, "out of memory");
}

/* ------------------------------------------------------------- paths */

static void strip_slashes(char *p)
{
    size_t n = strlen(p);
    while (n > 1 && p[n - 1] == '/')
        p[--n] = '\0';
}

/* The folder holding path, textually, so messages keep the user's spelling. */
static char *dir_name(const char *path)
{
    char *p = strdup(path), *slash;
    if (p == NULL)
        return NULL;
    strip_slashes(p);
    slash = strrchr(p, '/');
    if (slash == NULL) {
        free(p);
        return strdup(".");
    }
    while (slash > p && slash[-1] == '/')
        slash--;
    if (slash == p)
        slash++; /* keep the root "/" */
    *slash = '\0';
    return p;
}

/* The export folder's parent (the AWSDynamoDB/ folder). "." and ".." cannot
 * be cut textually, so those go through realpath. */
static char *parent_dir(const char *dir)
{
    const char *b = ddb_path_base(dir);
    if (strcmp(b, ".") == 0 || strcmp(b, "..") == 0) {
        char *abs = realpath(dir, NULL), *p;
        if (abs == NULL)
            return ddb_path_join(dir, "..");
        p = dir_name(abs);
        free(abs);
        return p;
    }
    return dir_name(dir);
}

static int is_file(loader *ld, const char *path, uint64_t *size)
{
    int is_dir = 0;
    uint64_t sz = 0;
    if (ld->store->vt->stat(ld->store, path, &is_dir, &sz, NULL) != 0 || is_dir)
        return 0;
    if (size != NULL)
        *size = sz;
    return 1;
}

/* The part of an S3 key after its last "AWSDynamoDB/" component, when that
 * part stays inside the folder (no "..", not absolute); else NULL. */
static const char *after_marker(const char *key)
{
    const char *found = NULL, *p = key, *q;
    while ((p = strstr(p, MARKER)) != NULL) {
        if (p == key || p[-1] == '/')
            found = p + strlen(MARKER);
        p++;
    }
    if (found == NULL || *found == '/' || *found == '\0')
        return NULL;
    for (q = found; *q;) {
        size_t n = strcspn(q, "/");
        if (n == 2 && q[0] == '.' && q[1] == '.')
            return NULL;
        q += n;
        if (*q == '/')
            q++;
    }
    return found;
}

static int read_all(loader *ld, char **out, size_t *len, const char *path, size_t max,
                    ddb_error *err)
{
    return ld->store->vt->read_all(ld->store, path, max, out, len, err);
}

/*
 * Checks a manifest against <name>.md5 and <name>.checksum beside it. strict:
 * a mismatch is DDB_EVERIFY; otherwise only a warning. A checksum file that is
 * missing or unreadable leaves the manifest unchecked, with a warning.
 */
static int check_manifest(loader *ld, const char *json_path, const char *data, size_t len,
                          int strict)
{
    static const char *const exts[] = {".md5", ".checksum"};
    size_t stem = strlen(json_path);
    int checked = 0, rc = 0;
    char path[4096], *text = NULL;

    if (stem > 5 && strcmp(json_path + stem - 5, ".json") == 0)
        stem -= 5;
    for (size_t i = 0; i < 2 && rc == 0; i++) {
        ddb_checksum want;
        unsigned char got[32];
        char want_s[DDB_CHECKSUM_TEXT_MAX], got_s[DDB_CHECKSUM_TEXT_MAX];
        ddb_error e;
        size_t tlen;

        free(text);
        text = NULL;
        snprintf(path, sizeof(path), "%.*s%s", (int)stem, json_path, exts[i]);
        if (!is_file(ld, path, NULL))
            continue;
        if (read_all(ld, &text, &tlen, path, CHECKSUM_FILE_MAX, &e) != 0 ||
            ddb_checksum_parse(&want, text, tlen, &e) != 0) {
            warnf(ld, "%s: could not check %s: %s", path, json_path, e.message);
            continue;
        }
        if (ddb_checksum_compute(got, want.algo, data, len) != 0) {
            rc = ddb_error_set(ld->err, DDB_ERROR, "%s: cannot compute %s", json_path,
                               ddb_digest_algo_name(want.algo));
            break;
        }
        checked = 1;
        if (memcmp(got, want.bytes, want.len) == 0)
            continue;
        ddb_checksum_format(want_s, &want, want.bytes);
        ddb_checksum_format(got_s, &want, got);
        if (strict)
            rc = ddb_error_set(ld->err, DDB_EVERIFY,
                               "%s: %s is %s but %s says %s: the manifest was changed or "
                               "damaged after the export was written",
                               json_path, ddb_digest_algo_name(want.algo), got_s, path, want_s);
        else
            warnf(ld,
                  "%s: %s is %s but %s says %s: the file was changed after the export was "
                  "written (going on; the data files are still checked against "
                  "manifest-files.json)",
                  json_path, ddb_digest_algo_name(want.algo), got_s, path, want_s);
    }
    if (rc == 0 && !checked)
        warnf(ld, "%s: no usable %.*s.md5 or .checksum beside it; not verified", json_path,
              (int)(stem - (size_t)(ddb_path_base(json_path) - json_path)),
              ddb_path_base(json_path));
    free(text);
    return rc;
}

/* -------------------------------------------------------------- JSON */

/* Parses text holding exactly one JSON object. where names it in errors. */
static json_object *parse_object(const char *text, size_t len, const char *where, ddb_error *err)
{
    json_tokener *tok;
    json_object *obj;
    size_t end;

    if (len > INT_MAX) {
        ddb_error_set(err, DDB_ETOOBIG, "%s: too large", where);
        return NULL;
    }
    if ((tok = json_tokener_new()) == NULL) {
        nomem(err);
        return NULL;
    }
    /* AWS writes plain JSON; a lenient parse would accept a damaged manifest. */
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
    obj = json_tokener_parse_ex(tok, text, (int)len);
    end = json_tokener_get_parse_end(tok);
    while (obj != NULL && end < len && isspace((unsigned char)text[end]))
        end++;
    if (obj == NULL) {
        enum json_tokener_error jerr = json_tokener_get_error(tok);
        ddb_error_set(err, DDB_EINVAL, "%s: byte %zu: %s", where, end,
                      jerr == json_tokener_continue ? "incomplete JSON object"
                                                    : json_tokener_error_desc(jerr));
    } else if (end < len || !json_object_is_type(obj, json_type_object)) {
        if (end < len)
            ddb_error_set(err, DDB_EINVAL, "%s: byte %zu: text after the JSON object", where, end);
        else
            ddb_error_set(err, DDB_EINVAL, "%s: expected a JSON object", where);
        json_object_put(obj);
        obj = NULL;
    }
    json_tokener_free(tok);
    return obj;
}

/* A string field; absent or null leaves *out NULL. */
static int field_str(json_object *o, const char *key, const char *where, char **out, ddb_error *err)
{
    json_object *v;
    *out = NULL;
    if (!json_object_object_get_ex(o, key, &v) || json_object_is_type(v, json_type_null))
        return 0;
    if (!json_object_is_type(v, json_type_string))
        return ddb_error_set(err, DDB_EINVAL, "%s: \"%s\" must be a string", where, key);
    if ((*out = strdup(json_object_get_string(v))) == NULL)
        return nomem(err);
    return 0;
}

static int field_count(json_object *o, const char *key, const char *where, uint64_t *out,
                       ddb_error *err)
{
    json_object *v;
    if (!json_object_object_get_ex(o, key, &v))
        return ddb_error_set(err, DDB_EINVAL, "%s: \"%s\" is missing", where, key);
    /* json-c clamps out-of-range integers, so a clamped value reads as too big. */
    if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0 ||
        json_object_get_uint64(v) > (uint64_t)INT64_MAX)
        return ddb_error_set(err, DDB_EINVAL, "%s: \"%s\" must be a non-negative integer, not %s",
                             where, key, json_object_to_json_string(v));
    *out = (uint64_t)json_object_get_int64(v);
    return 0;
}

static int parse_summary(loader *ld, const char *text, size_t len)
{
    ddb_manifest *m = ld->m;
    const char *where = m->summary_path;
    json_object *o;
    char *format = NULL, *type = NULL;
    int rc;

    if ((o = parse_object(text, len, where, ld->err)) == NULL)
        return ld->err ? ld->err->code : DDB_EINVAL;
    if ((rc = field_str(o, "version", where, &m->version, ld->err)) != 0 ||
        (rc = field_str(o, "exportArn", where, &m->export_arn, ld->err)) != 0 ||
        (rc = field_str(o, "outputView", where, &m->output_view, ld->err)) != 0 ||
        (rc = field_str(o, "manifestFilesS3Key", where, &m->files_key, ld->err)) != 0 ||
        (rc = field_str(o, "s3Prefix", where, &m->s3_prefix, ld->err)) != 0 ||
        (rc = field_str(o, "outputFormat", where, &format, ld->err)) != 0 ||
        (rc = field_str(o, "exportType", where, &type, ld->err)) != 0 ||
        (rc = field_count(o, "itemCount", where, &m->item_count, ld->err)) != 0)
        goto done;
    if (format != NULL && strcmp(format, "DYNAMODB_JSON") != 0) {
        rc = ddb_error_set(ld->err, DDB_EUSAGE,
                           "%s: outputFormat %s is not supported; export the table with "
                           "DYNAMODB_JSON instead",
                           where, format);
        goto done;
    }
    if (type == NULL || strcmp(type, "FULL_EXPORT") == 0) {
        m->type = DDB_EXPORT_FULL;
    } else if (strcmp(type, "INCREMENTAL_EXPORT") == 0) {
        m->type = DDB_EXPORT_INCREMENTAL;
    } else {
        rc = ddb_error_set(ld->err, DDB_EINVAL,
                           "%s: unknown exportType \"%s\" (expected FULL_EXPORT or "
                           "INCREMENTAL_EXPORT)",
                           where, type);
    }
done:
    free(format);
    free(type);
    json_object_put(o);
    return rc;
}

static int parse_files(loader *ld, const char *text, size_t len)
{
    ddb_manifest *m = ld->m;
    size_t pos = 0, cap = 0;
    uint64_t lineno = 0;
    char where[600];
    int rc = 0;

    while (pos < len && rc == 0) {
        const char *line = text + pos, *nl = memchr(line, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - line) : len - pos, k;
        ddb_manifest_file *f;
        json_object *o;

        pos += n + (nl != NULL);
        lineno++;
        for (k = 0; k < n && isspace((unsigned char)line[k]); k++)
            ;
        if (k == n)
            continue;
        snprintf(where, sizeof(where), "%s:%llu", m->files_path, (unsigned long long)lineno);
        {
            ddb_manifest_file *nf = ddb_array_reserve(m->files, m->nfiles, &cap, sizeof(*nf), 16);
            if (nf == NULL)
                return nomem(ld->err);
            m->files = nf;
        }
        if ((o = parse_object(line, n, where, ld->err)) == NULL)
            return ld->err ? ld->err->code : DDB_EINVAL;
        f = &m->files[m->nfiles++];
        memset(f, 0, sizeof(*f));
        f->line = lineno;
        if ((rc = field_str(o, "dataFileS3Key", where, &f->key, ld->err)) == 0 &&
            (rc = field_str(o, "md5Checksum", where, &f->md5, ld->err)) == 0 &&
            (rc = field_str(o, "etag", where, &f->etag, ld->err)) == 0 &&
            (rc = field_count(o, "itemCount", where, &f->item_count, ld->err)) == 0 &&
            f->key == NULL)
            rc = ddb_error_set(ld->err, DDB_EINVAL, "%s: \"dataFileS3Key\" is missing", where);
        if (rc == 0 && f->md5 == NULL && !(ld->flags & DDB_MANIFEST_NO_VERIFY))
            warnf(ld, "%s: no md5Checksum for %s; its bytes are not verified", where, f->key);
        json_object_put(o);
    }
    return rc;
}

/* ---------------------------------------------------------- locating */

static int locate(loader *ld, ddb_manifest_file *f, const char *parent)
{
    const char *rel = after_marker(f->key), *base = ddb_path_base(f->key);
    char *cand[3] = {NULL, NULL, NULL}, *data_base = ddb_path_join("data", base), tried[800] = "";
    size_t nc = 0, used = 0;
    int rc = DDB_ENOTFOUND;

    if (*base == '\0' || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
        rc = ddb_error_set(ld->err, DDB_EINVAL, "%s:%llu: dataFileS3Key \"%s\" names no file",
                           ld->m->files_path, (unsigned long long)f->line, f->key);
    else if (data_base == NULL ||
             (rel != NULL && (cand[nc++] = ddb_path_join(parent, rel)) == NULL) ||
             (cand[nc++] = ddb_path_join(ld->m->dir, data_base)) == NULL ||
             (cand[nc++] = ddb_path_join(parent, data_base)) == NULL)
        rc = nomem(ld->err);
    for (size_t i = 0; i < nc && rc == DDB_ENOTFOUND; i++) {
        int seen = 0;
        for (size_t j = 0; j < i; j++)
            seen |= strcmp(cand[i], cand[j]) == 0;
        if (!seen && is_file(ld, cand[i], &f->size)) {
            f->path = cand[i];
            cand[i] = NULL;
            rc = 0;
        } else if (!seen && used < sizeof(tried)) {
            used += (size_t)snprintf(tried + used, sizeof(tried) - used, "%s%s", used ? ", " : "",
                                     cand[i]);
        }
    }
    if (rc == DDB_ENOTFOUND)
        ddb_error_set(ld->err, rc, "data file %s (%s line %llu) not found; tried %s", f->key,
                      ld->m->files_path, (unsigned long long)f->line, tried);
    for (size_t i = 0; i < 3; i++)
        free(cand[i]);
    free(data_base);
    return rc;
}

/* Finds manifest-files.json: beside the summary first (it belongs to it),
 * then by manifestFilesS3Key. */
static int find_files_manifest(loader *ld, const char *parent)
{
    ddb_manifest *m = ld->m;
    const char *rel = m->files_key ? after_marker(m->files_key) : NULL;
    char *alt = NULL;

    if ((m->files_path = ddb_path_join(m->dir, "manifest-files.json")) == NULL)
        return nomem(ld->err);
    if (is_file(ld, m->files_path, NULL))
        return 0;
    if (rel != NULL) {
        if ((alt = ddb_path_join(parent, rel)) == NULL)
            return nomem(ld->err);
        if (is_file(ld, alt, NULL)) {
            free(m->files_path);
            m->files_path = alt;
            return 0;
        }
    }
    ddb_error_set(ld->err, DDB_ENOTFOUND, "%s not found%s%s (manifestFilesS3Key %s)", m->files_path,
                  alt ? ", nor " : "", alt ? alt : "", m->files_key ? m->files_key : "absent");
    free(alt);
    return DDB_ENOTFOUND;
}

/* -------------------------------------------------------------- load */

static int set_paths(loader *ld, const char *path, ddb_error *err)
{
    ddb_manifest *m = ld->m;
    int is_dir = 0;
    uint64_t size;
    int rc;

    if ((rc = ld->store->vt->stat(ld->store, path, &is_dir, &size, err)) != 0)
        return rc;
    if (is_dir) {
        if ((m->dir = strdup(path)) == NULL)
            return nomem(err);
        strip_slashes(m->dir);
        if ((m->summary_path = ddb_path_join(m->dir, "manifest-summary.json")) == NULL)
            return nomem(err);
        if (!is_file(ld, m->summary_path, NULL))
            return ddb_error_set(err, DDB_ENOTFOUND,
                                 "%s: no manifest-summary.json in this folder; not an Export "
                                 "to S3 folder (the one named after the export id)",
                                 path);
        return 0;
    }
    if ((m->summary_path = strdup(path)) == NULL || (m->dir = dir_name(path)) == NULL)
        return nomem(err);
    return 0;
}

int ddb_manifest_load(ddb_manifest **out, const char *path, unsigned flags, ddb_warn_fn warn,
                      void *warn_ctx, ddb_error *err)
{
    return ddb_manifest_load_from(out, ddb_store_local(), path, flags, warn, warn_ctx, err);
}

int ddb_manifest_load_from(ddb_manifest **out, ddb_store *store, const char *path, unsigned flags,
                           ddb_warn_fn warn, void *warn_ctx, ddb_error *err)
{
    ddb_manifest *m = calloc(1, sizeof(*m));
    loader ld = {m, store, flags, warn, warn_ctx, err};
    char *text = NULL, *parent = NULL;
    size_t len;
    uint64_t sum = 0;
    int verify = !(flags & DDB_MANIFEST_NO_VERIFY);
    int rc;

    *out = NULL;
    if (m == NULL)
        return nomem(err);
    if ((rc = set_paths(&ld, path, err)) != 0 ||
        (rc = read_all(&ld, &text, &len, m->summary_path, SUMMARY_MAX, err)) != 0 ||
        (rc = parse_summary(&ld, text, len)) != 0)
        goto done;
    if (verify && (rc = check_manifest(&ld, m->summary_path, text, len, 0)) != 0)
        goto done;
    if (flags & DDB_MANIFEST_SUMMARY_ONLY)
        goto done;
    if ((parent = parent_dir(m->dir)) == NULL) {
        rc = nomem(err);
        goto done;
    }
    free(text);
    text = NULL;
    if ((rc = find_files_manifest(&ld, parent)) != 0 ||
        (rc = read_all(&ld, &text, &len, m->files_path, FILES_MAX, err)) != 0)
        goto done;
    /* Checked before parsing: a damaged manifest should say so, not fail on syntax. */
    if (verify && (rc = check_manifest(&ld, m->files_path, text, len, 1)) != 0)
        goto done;
    if ((rc = parse_files(&ld, text, len)) != 0)
        goto done;
    for (size_t i = 0; i < m->nfiles; i++) {
        if ((rc = locate(&ld, &m->files[i], parent)) != 0)
            goto done;
        m->total_bytes += m->files[i].size;
        sum += m->files[i].item_count;
    }
    if (verify && sum != m->item_count)
        warnf(&ld, "%s: the data files' itemCount values add up to %llu, but %s says %llu",
              m->files_path, (unsigned long long)sum, m->summary_path,
              (unsigned long long)m->item_count);
done:
    free(text);
    free(parent);
    if (rc != 0) {
        ddb_manifest_free(m);
        return rc;
    }
    *out = m;
    return 0;
}

void ddb_manifest_free(ddb_manifest *m)
{
    if (m == NULL)
        return;
    for (size_t i = 0; i < m->nfiles; i++) {
        free(m->files[i].key);
        free(m->files[i].md5);
        free(m->files[i].etag);
        free(m->files[i].path);
    }
    free(m->files);
    free(m->dir);
    free(m->summary_path);
    free(m->files_path);
    free(m->version);
    free(m->export_arn);
    free(m->output_view);
    free(m->files_key);
    free(m->s3_prefix);
    free(m);
}
