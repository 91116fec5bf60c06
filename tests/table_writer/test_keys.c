/*
 * The writer's key signatures (output_table_keys.c): an item's key and the
 * same key echoed back in a BatchWriteItem answer's UnprocessedItems (binary
 * as base64, strings escaped otherwise, numbers spelt otherwise) give the
 * same signature, so the echo finds its entry; and keys that differ give
 * different ones, whatever bytes they hold (the separator, the length's
 * colon, type letters, NUL).
 */
#include <criterion/criterion.h>
#include <string.h>

#include "ddbpipe/json.h"
#include "write/output_table_internal.h"
#include "support/testutil.h"

static ddb_table_info info;
static table_output to;

static void schema(ddb_type pk, ddb_type sk)
{
    static char table[] = "T";
    memset(&info, 0, sizeof(info));
    memset(&to, 0, sizeof(to));
    info.schema.partition.name = "pk";
    info.schema.partition.type = pk;
    info.schema.sort.name = sk == DDB_TYPE_NULL ? NULL : "sk";
    info.schema.sort.type = sk;
    to.table = table;
    to.info = &info;
    to.mode = DDB_WRITE_BATCH;
}

static void signature(ddb_buf *out, ddb_arena *a, const char *item)
{
    ddb_map m = tu_item(a, item);
    cr_assert_eq(ddb_table_output_key_signature(out, &info.schema, &m), 0, "%s", item);
}

/* The echo (typed JSON text) finds the entry of item. */
static void echo_finds(const char *item, const char *echo)
{
    ddb_buf sig = DDB_BUF_INIT;
    ddb_arena *a;
    entry e, *ents[1] = {&e};
    batch b;
    ddb_response r;
    char body[1024], flags[1] = {0};
    double cu = 0;
    cr_assert_eq(ddb_arena_new(&a, 0), 0);
    signature(&sig, a, item);
    memset(&e, 0, sizeof(e));
    memset(&b, 0, sizeof(b));
    memset(&r, 0, sizeof(r));
    e.key = sig.ptr;
    e.key_len = sig.len;
    b.entries = ents;
    b.n = 1;
    b.to = &to;
    snprintf(body, sizeof(body), "{\"UnprocessedItems\":{\"T\":[{\"PutRequest\":{\"Item\":%s}}]}}",
             echo);
    r.ok = 1;
    r.body = body;
    r.body_len = strlen(body);
    cr_assert_eq(ddb_table_output_find_unprocessed(&to, &b, &r, flags, &cu), 0, "%s", echo);
    cr_assert_eq(flags[0], 1, "the echo %s did not find %s", echo, item);
    /* what the writer keeps for its answers (tw_free's, in a whole writer) */
    ddb_json_parser_free(to.resp_parser);
    ddb_arena_free(to.resp_arena);
    to.resp_parser = NULL;
    to.resp_arena = NULL;
    ddb_arena_free(a);
    ddb_buf_dispose(&sig);
}

Test(table_keys, an_echo_finds_its_entry)
{
    schema(DDB_TYPE_B, DDB_TYPE_S);
    echo_finds("{\"pk\":{\"B\":\"AAEC/w==\"},\"sk\":{\"S\":\"a|b:\\u0000\\\"\"}}",
               "{\"sk\":{\"S\":\"a|b:\\u0000\\\"\"},\"pk\":{\"B\":\"AAEC/w==\"}}");
    echo_finds("{\"pk\":{\"B\":\"fA==\"},\"sk\":{\"S\":\"\\u00e9\\ud83d\\ude00\"}}",
               "{\"pk\":{\"B\":\"fA==\"},\"sk\":{\"S\":\"\xc3\xa9\xf0\x9f\x98\x80\"}}");
    schema(DDB_TYPE_N, DDB_TYPE_B);
    echo_finds("{\"pk\":{\"N\":\"1.50\"},\"sk\":{\"B\":\"AA==\"}}",
               "{\"pk\":{\"N\":\"1.5\"},\"sk\":{\"B\":\"AA==\"}}");
    schema(DDB_TYPE_S, DDB_TYPE_NULL);
    echo_finds("{\"pk\":{\"S\":\"x\"},\"other\":{\"B\":\"AA==\"}}", "{\"pk\":{\"S\":\"x\"}}");
}

/* Every pair of keys made of tricky parts has its own signature. */
Test(table_keys, different_keys_never_share_a_signature)
{
    static const char *const parts[] = {"\"\"", "\"|\"", "\"S1:\"", "\"1:a\"", "\"a|S1:b\"",
                                        "\"\\u0000\"", "\"{\"", "\"B\"", "\"N:1\"", "\"ab\"",
                                        /* without the lengths a|Sb|Sc would be two keys */
                                        "\"a\"", "\"b|Sc\"", "\"a|Sb\"", "\"c\""};
    enum { N = sizeof(parts) / sizeof(parts[0]) };
    static char sigs[2][N * N][96];
    static size_t lens[2][N * N];
    ddb_arena *a;
    ddb_buf sig = DDB_BUF_INIT;
    cr_assert_eq(ddb_arena_new(&a, 0), 0);
    for (int t = 0; t < 2; t++) {
        schema(DDB_TYPE_S, t ? DDB_TYPE_B : DDB_TYPE_S);
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++) {
                char item[256];
                /* binary sort keys: "AAE=" (00 01), then 3 j bytes of "||S1:|..." */
                if (t == 0 || j == 0)
                    snprintf(item, sizeof(item), "{\"pk\":{\"S\":%s},\"sk\":{\"%s\":%s}}", parts[i],
                             t ? "B" : "S", t ? "\"AAE=\"" : parts[j]);
                else
                    snprintf(item, sizeof(item), "{\"pk\":{\"S\":%s},\"sk\":{\"B\":\"%.*s\"}}",
                             parts[i], j * 4,
                             "fHxTMTp8fHxTMTp8fHxTMTp8fHxTMTp8fHxTMTp8fHxTMTp8fHxTMTp8");
                signature(&sig, a, item);
                cr_assert_lt(sig.len, sizeof(sigs[t][0]));
                memcpy(sigs[t][i * N + j], sig.ptr, sig.len);
                lens[t][i * N + j] = sig.len;
            }
        for (int x = 0; x < N * N; x++)
            for (int y = x + 1; y < N * N; y++) {
                int same =
                    lens[t][x] == lens[t][y] && memcmp(sigs[t][x], sigs[t][y], lens[t][x]) == 0;
                cr_assert(!same, "keys %d and %d share a signature", x, y);
            }
    }
    ddb_buf_dispose(&sig);
    ddb_arena_free(a);
}
