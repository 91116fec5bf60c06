/*
 * `ddbpipe-gen bench`: one large gzip file of {"Item":{...}} lines for
 * throughput tests. Lines are batched into a large buffer and compressed at
 * gzip level 1 by default, so generating is faster than ddbpipe reading.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ddbpipe/sink.h"
#include "ddbpipe/json.h"
#include "gen.h"

#define BATCH (4u << 20)

typedef struct bencher {
    const ddb_mapping *m;
    ddb_sink *sink;
    ddb_arena *arena;
    ddb_buf buf;
    uint64_t items, bytes, max_items, max_bytes;
} bencher;

static int on_record(void *ctx, const ddb_entity *e, const ddb_map *rec, ddb_error *err)
{
    bencher *b = ctx;
    ddb_item item;
    size_t before = b->buf.len;
    int rc;

    if (e == NULL)
        return 0;
    ddb_arena_reset(b->arena);
    if ((rc = gen_encode(&item, b->m, e, rec, b->arena, err)) != 0)
        return rc;
    ddb_buf_append(&b->buf, "{\"Item\":", 8);
    ddb_json_put_typed_map(&b->buf, &item);
    ddb_buf_append(&b->buf, "}\n", 2);
    if (b->buf.oom)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    b->items++;
    b->bytes += b->buf.len - before;
    if (b->buf.len >= BATCH) {
        if ((rc = ddb_sink_write(b->sink, b->buf.ptr, b->buf.len, err)) != 0)
            return rc;
        ddb_buf_clear(&b->buf);
    }
    if ((b->max_items && b->items >= b->max_items) || (b->max_bytes && b->bytes >= b->max_bytes))
        return 1;
    return 0;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *const bench_usage =
    "ddbpipe-gen bench --mapping M [--design D] (--bytes SIZE | --items N) --out FILE.json.gz\n"
    "       [--seed S] [--level 1..9] [--rich]";

int gen_cmd_bench(int argc, char **argv)
{
    const char *mapping = NULL, *design = NULL, *bytes = NULL, *items = NULL, *out = NULL,
               *seed = "1", *level = "1", *rich = NULL;
    const gen_opt opts[] = {{"--mapping", &mapping, 0}, {"--design", &design, 0},
                            {"--bytes", &bytes, 0},     {"--items", &items, 0},
                            {"--out", &out, 0},         {"--seed", &seed, 0},
                            {"--level", &level, 0},     {"--rich", &rich, 1}};
    bencher b;
    ddb_mapping *m = NULL;
    gen_design *d = NULL;
    ddb_sink *file = NULL;
    ddb_error err;
    uint64_t sd, lvl;
    double t0, secs;
    int rc;

    memset(&b, 0, sizeof(b));
    ddb_error_clear(&err);
    if ((rc = gen_parse_opts(argc, argv, opts, GEN_COUNT(opts), bench_usage)) != 0)
        return rc == 1 ? 0 : 2;
    if (mapping == NULL || out == NULL || (bytes == NULL && items == NULL)) {
        gen_fail("--mapping, --out and --bytes or --items are required\nUsage: %s", bench_usage);
        return 2;
    }
    if ((bytes && gen_parse_u64(&b.max_bytes, bytes, 1)) ||
        (items && gen_parse_u64(&b.max_items, items, 1)) || gen_parse_u64(&sd, seed, 0) ||
        gen_parse_u64(&lvl, level, 0) || lvl < 1 || lvl > 9 ||
        (b.max_bytes == 0 && b.max_items == 0)) {
        gen_fail("--bytes takes a size (1G, 512M, 1000000), --items a count > 0, --level 1..9");
        return 2;
    }
    design = gen_pick_design(design, mapping);
    if (design == NULL)
        design = "favorites";
    t0 = now_seconds();
    if ((rc = ddb_mapping_load(&m, mapping, &err)) != 0 ||
        (rc = gen_design_new(&d, design, m, sd, 1, &err)) != 0)
        goto done;
    if (rich != NULL && strcmp(design, "favorites") != 0) {
        rc = ddb_error_set(&err, DDB_EUSAGE, "--rich is for the favorites design");
        goto done;
    }
    d->rich = rich != NULL;
    b.m = m;
    if (ddb_arena_new(&b.arena, 0) != 0 || ddb_buf_reserve(&b.buf, BATCH + 65536) != 0) {
        rc = ddb_error_set(&err, DDB_ENOMEM, "out of memory");
        goto done;
    }
    if ((rc = ddb_sink_open_file(&file, out, 1, &err)) != 0 ||
        (rc = ddb_sink_new_gzip(&b.sink, file, (int)lvl, &err)) != 0)
        goto done;
    if ((rc = d->vt->run(d, on_record, &b, &err)) != 0)
        goto done;
    if ((b.buf.len && (rc = ddb_sink_write(b.sink, b.buf.ptr, b.buf.len, &err)) != 0) ||
        (rc = ddb_sink_finish(b.sink, &err)) != 0)
        goto done;
    secs = now_seconds() - t0;
    printf("%s: %llu items, %llu bytes uncompressed, %llu bytes compressed, %.1f s (%.0f MB/s)\n",
           out, (unsigned long long)b.items, (unsigned long long)b.bytes,
           (unsigned long long)b.sink->upstream->bytes_out, secs,
           secs > 0 ? (double)b.bytes / 1e6 / secs : 0.0);
done:
    if (rc != 0)
        gen_fail("%s", err.message);
    ddb_sink_free(b.sink);
    ddb_buf_dispose(&b.buf);
    ddb_arena_free(b.arena);
    gen_design_free(d);
    ddb_mapping_free(m);
    return rc == 0 ? 0 : rc == DDB_EUSAGE ? 2 : 1;
}
