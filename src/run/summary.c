/* The end-of-run summary: a table for people, a JSON document for machines. */
#include "ddbpipe/summary.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/json.h"
#include "ddbpipe/reader.h"

static int has_deletes(const ddb_summary *s)
{
    return s->total.deleted > 0;
}

/* The columns shown beside the ones always there (each only when it counts something). */
typedef struct columns {
    int deletes, not_done, existing, filtered;
} columns;

static void row_line(ddb_buf *out, const ddb_entity_stats *e, const columns *c)
{
    int deletes = c->deletes, not_done = c->not_done;
    ddb_buf_printf(out, "  %-24s %12llu %12llu", e->name, (unsigned long long)e->read,
                   (unsigned long long)e->written);
    if (c->existing)
        ddb_buf_printf(out, " %10llu", (unsigned long long)e->existing);
    ddb_buf_printf(out, " %10llu %10llu", (unsigned long long)e->rejected,
                   (unsigned long long)e->unmatched);
    if (c->filtered)
        ddb_buf_printf(out, " %10llu", (unsigned long long)e->filtered);
    if (not_done)
        ddb_buf_printf(out, " %10llu", (unsigned long long)e->not_done);
    if (deletes)
        ddb_buf_printf(out, " %10llu", (unsigned long long)e->deleted);
    ddb_buf_putc(out, '\n');
}

void ddb_summary_bytes(char *out, size_t cap, uint64_t b)
{
    const char *units[] = {"B", "KB", "MB", "GB", "TB"};
    double v = (double)b;
    int u = 0;
    while (v >= 1000.0 && u < 4) {
        v /= 1000.0;
        u++;
    }
    snprintf(out, cap, u ? "%.1f %s" : "%.0f %s", v, units[u]);
}

void ddb_summary_format(ddb_buf *out, const ddb_summary *s)
{
    int deletes = has_deletes(s);
    char in[32], outb[32];

    /* validate writes nothing: what it counts are the records that would be written */
    int validating = s->command && strcmp(s->command, "validate") == 0;
    int not_done = s->total.not_done > 0, existing = s->total.existing > 0;
    columns c = {deletes, not_done, existing, s->total.filtered > 0 || s->selection != NULL};
    ddb_buf_printf(out, "  %-24s %12s %12s%s %10s %10s%s%s%s\n", "entity", "read",
                   validating ? "valid" : s->dry_run ? "would write" : "written", existing ? "   existing" : "", "rejected",
                   "unmatched", c.filtered ? "   filtered" : "", not_done ? "   not done" : "",
                   deletes ? "    deleted" : "");
    for (size_t i = 0; i < s->n_entities; i++) {
        const ddb_entity_stats *e = &s->entities[i];
        /* The "(none)" row only when something landed in it. */
        if (i == s->n_entities - 1 && e->read == 0 && s->n_entities > 1)
            continue;
        row_line(out, e, &c);
    }
    if (s->n_entities > 2)
        row_line(out, &s->total, &c);
    if (existing)
        ddb_buf_printf(out,
                       "  existing: %llu item%s already in the table, left as %s (written only "
                       "where absent)\n",
                       (unsigned long long)s->total.existing,
                       s->total.existing == 1 ? " was" : "s were",
                       s->total.existing == 1 ? "it was" : "they were");
    if (s->selection != NULL)
        ddb_buf_printf(out, "  selection: %s; filtered: %llu record%s read but not asked for\n",
                       s->selection, (unsigned long long)s->total.filtered,
                       s->total.filtered == 1 ? "" : "s");
    if (not_done)
        ddb_buf_printf(out,
                       "  not done: %llu record%s read but not written, rejected or unmatched when "
                       "the run stopped (in flight, queued, or in outputs that were discarded)\n",
                       (unsigned long long)s->total.not_done,
                       s->total.not_done == 1 ? " was" : "s were");
    if (s->changes[DDB_CHANGE_INSERT] + s->changes[DDB_CHANGE_MODIFY] +
        s->changes[DDB_CHANGE_REMOVE]) {
        ddb_buf_printf(out, "  changes: %llu inserted, %llu modified, %llu removed",
                       (unsigned long long)s->changes[DDB_CHANGE_INSERT],
                       (unsigned long long)s->changes[DDB_CHANGE_MODIFY],
                       (unsigned long long)s->changes[DDB_CHANGE_REMOVE]);
        if (s->ttl_removed > 0)
            ddb_buf_printf(out, " (%llu by Time to Live)", (unsigned long long)s->ttl_removed);
        ddb_buf_putc(out, '\n');
    }
    if (s->ttl_attribute != NULL)
        ddb_buf_printf(out,
                       "  skipped %llu expired (TTL attribute %s in the past, --skip-expired; not "
                       "counted as read)\n",
                       (unsigned long long)s->expired, s->ttl_attribute);
    ddb_summary_bytes(in, sizeof(in), s->bytes_in);
    ddb_summary_bytes(outb, sizeof(outb), s->bytes_out);
    ddb_buf_printf(out, "  %s in, %s out, %.2f s", in, outb, s->seconds);
    if (s->seconds > 0 && s->total.read > 0)
        ddb_buf_printf(
            out, " (%.0f records/s, %.1f MB/s of %sinput)", (double)s->total.read / s->seconds,
            (double)(s->bytes_decoded ? s->bytes_decoded : s->bytes_in) / 1e6 / s->seconds,
            s->bytes_decoded > s->bytes_in ? "uncompressed " : "");
    ddb_buf_putc(out, '\n');
}

static void stats_json(ddb_buf *out, const ddb_entity_stats *e, int filtered)
{
    ddb_buf_puts(out, "{\"name\":");
    ddb_json_put_text(out, e->name, strlen(e->name));
    ddb_buf_printf(out,
                   ",\"read\":%llu,\"written\":%llu,\"deleted\":%llu,\"rejected\":%llu,"
                   "\"unmatched\":%llu,\"existing\":%llu,\"not_done\":%llu}",
                   (unsigned long long)e->read, (unsigned long long)e->written,
                   (unsigned long long)e->deleted, (unsigned long long)e->rejected,
                   (unsigned long long)e->unmatched, (unsigned long long)e->existing,
                   (unsigned long long)e->not_done);
    if (filtered) { /* only for runs that select: the others' documents stay as they were */
        out->len--;
        ddb_buf_printf(out, ",\"filtered\":%llu}", (unsigned long long)e->filtered);
    }
}

/* ,"key":"path" or ,"key":null */
static void put_path(ddb_buf *out, const char *key, const char *path)
{
    ddb_buf_printf(out, ",\"%s\":", key);
    if (path)
        ddb_json_put_text(out, path, strlen(path));
    else
        ddb_buf_puts(out, "null");
}

void ddb_summary_json(ddb_buf *out, const ddb_summary *s, int exit_code)
{
    ddb_buf_puts(out, "{\"command\":");
    ddb_json_put_string(out, s->command ? s->command : "", strlen(s->command ? s->command : ""));
    ddb_buf_puts(out, ",\"total\":");
    stats_json(out, &s->total, s->selection != NULL || s->total.filtered > 0);
    ddb_buf_puts(out, ",\"entities\":[");
    for (size_t i = 0; i < s->n_entities; i++) {
        if (i)
            ddb_buf_putc(out, ',');
        stats_json(out, &s->entities[i], s->selection != NULL || s->total.filtered > 0);
    }
    ddb_buf_printf(
        out,
        "],\"bytes_in\":%llu,\"bytes_decoded\":%llu,\"bytes_out\":%llu,\"seconds\":%.3f,\"input_"
        "errors\":%llu,"
        "\"warnings\":%llu,\"changes\":{\"inserted\":%llu,\"modified\":%llu,"
        "\"removed\":%llu}",
        (unsigned long long)s->bytes_in, (unsigned long long)s->bytes_decoded,
        (unsigned long long)s->bytes_out, s->seconds, (unsigned long long)s->input_errors,
        (unsigned long long)s->warnings, (unsigned long long)s->changes[DDB_CHANGE_INSERT],
        (unsigned long long)s->changes[DDB_CHANGE_MODIFY],
        (unsigned long long)s->changes[DDB_CHANGE_REMOVE]);
    /* only when there are some: the summaries of other inputs stay as they were */
    if (s->ttl_removed > 0)
        ddb_buf_printf(out, ",\"removed_by_ttl\":%llu", (unsigned long long)s->ttl_removed);
    if (s->ttl_attribute != NULL) /* only when asked: other runs' summaries stay as they were */
        ddb_buf_printf(out, ",\"expired\":%llu", (unsigned long long)s->expired);
    ddb_buf_printf(out, ",\"committed\":%s,\"outputs\":[", s->committed ? "true" : "false");
    for (size_t i = 0; i < s->n_outputs; i++) {
        if (i)
            ddb_buf_putc(out, ',');
        ddb_json_put_text(out, s->outputs[i], strlen(s->outputs[i]));
    }
    ddb_buf_putc(out, ']');
    put_path(out, "rejects_file", s->rejects_path);
    put_path(out, "unmatched_file", s->unmatched_path);
    if (s->selection != NULL)
        put_path(out, "selection", s->selection);
    if (s->extra_json != NULL)
        ddb_buf_puts(out, s->extra_json);
    ddb_buf_printf(out, ",\"complete\":%s,\"exit_code\":%d}\n",
                   s->total.not_done == 0 && !s->interrupted && !s->output_failed &&
                           s->input_errors == 0
                       ? "true"
                       : "false",
                   exit_code);
}

void ddb_summary_dispose(ddb_summary *s)
{
    if (s == NULL)
        return;
    free(s->entities);
    for (size_t i = 0; i < s->n_outputs; i++)
        free(s->outputs[i]);
    free(s->outputs);
    free(s->rejects_path);
    free(s->unmatched_path);
    free(s->selection);
    free(s->extra_json);
    memset(s, 0, sizeof(*s));
}
