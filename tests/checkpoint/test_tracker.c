#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ddbpipe/checkpoint.h"
#include "ddbpipe/rate.h"
#include "support/files.h"

static char committed_lines[4096];

static void on_commit(void *ctx, ddb_outcome kind, const char *lines, size_t len, uint64_t count)
{
    (void)ctx;
    /* unmatched lines marked U: so the order of both kinds shows */
    if (kind == DDB_OUTCOME_UNMATCHED)
        strcat(committed_lines, "U:");
    strncat(committed_lines, lines, len);
    for (size_t i = 0; i < len; i++)
        count -= lines[i] == '\n';
    cr_assert_eq(count, 0, "count agrees with the lines");
}

static ddb_tracker *make(size_t rows)
{
    ddb_tracker *t = NULL;
    committed_lines[0] = '\0';
    cr_assert_eq(ddb_tracker_new(&t, rows, on_commit, NULL), 0);
    return t;
}

Test(tracker, commits_in_read_order_whatever_order_outcomes_arrive)
{
    ddb_tracker *t = make(2);
    uint64_t a = ddb_tracker_begin(t, 0, 100, 0, NULL);
    uint64_t b = ddb_tracker_begin(t, 0, 200, 0, NULL);
    uint64_t c = ddb_tracker_begin(t, 0, 300, 0, NULL);
    const ddb_checkpoint *ck = ddb_tracker_committed(t);
    cr_assert_eq(ddb_tracker_settle(t, c, 0, DDB_OUTCOME_WRITTEN, NULL, 0), 0);
    cr_assert_eq(ddb_tracker_settle(t, b, 1, DDB_OUTCOME_REJECTED, "B\n", 2), 0);
    cr_assert_eq(ck->total.read, 0, "nothing commits before the first record settles");
    cr_assert_eq(ck->pos, 0);
    cr_assert_str_eq(committed_lines, "");
    cr_assert_eq(ddb_tracker_pending(t), 3);
    ddb_tracker_settle(t, a, 0, DDB_OUTCOME_WRITTEN, NULL, 0);
    cr_assert_eq(ck->total.read, 3);
    cr_assert_eq(ck->total.written, 2);
    cr_assert_eq(ck->total.rejected, 1);
    cr_assert_eq(ck->rows[1].rejected, 1);
    cr_assert_eq(ck->rejects, 1);
    cr_assert_eq(ck->pos, 301, "resume after the last committed record");
    cr_assert_str_eq(committed_lines, "B\n");
    cr_assert_eq(ddb_tracker_pending(t), 0);
    ddb_tracker_free(t);
}

Test(tracker, end_of_input_moves_the_position_to_the_next_input)
{
    ddb_tracker *t = make(1);
    uint64_t a = ddb_tracker_begin(t, 0, 5, 0, NULL);
    ddb_tracker_end_input(t, 0);
    cr_assert_eq(ddb_tracker_committed(t)->input, 0);
    ddb_tracker_settle(t, a, 0, DDB_OUTCOME_DELETED, NULL, 0);
    cr_assert_eq(ddb_tracker_committed(t)->input, 1);
    cr_assert_eq(ddb_tracker_committed(t)->pos, 0);
    cr_assert_eq(ddb_tracker_committed(t)->total.deleted, 1);
    ddb_tracker_free(t);
}

Test(tracker, grows_past_its_first_ring)
{
    ddb_tracker *t = make(1);
    uint64_t first = ddb_tracker_begin(t, 0, 0, 0, NULL);
    for (uint64_t i = 1; i < 5000; i++)
        ddb_tracker_begin(t, 0, i * 10, 0, NULL);
    for (uint64_t s = first + 4999; s > first; s--)
        ddb_tracker_settle(t, s, 0, DDB_OUTCOME_UNMATCHED, NULL, 0);
    cr_assert_eq(ddb_tracker_committed(t)->total.read, 0);
    ddb_tracker_settle(t, first, 0, DDB_OUTCOME_WRITTEN, NULL, 0);
    cr_assert_eq(ddb_tracker_committed(t)->total.read, 5000);
    cr_assert_eq(ddb_tracker_committed(t)->total.unmatched, 4999);
    cr_assert_eq(ddb_tracker_committed(t)->pos, 49991);
    ddb_tracker_free(t);
}

/* A reader whose units are pages of 3 records (like a Scan). */
static int page_settled(ddb_reader *r, uint64_t pos)
{
    (void)r;
    return pos % 3 == 2;
}

static const ddb_reader_vtable paged_vt = {.kind = "pages", .settled = page_settled};

Test(tracker, a_reader_with_units_commits_whole_units_only)
{
    ddb_tracker *t = make(1);
    ddb_reader rd;
    uint64_t s[5];
    memset(&rd, 0, sizeof(rd));
    rd.vt = &paged_vt;
    for (int i = 0; i < 5; i++)
        s[i] = ddb_tracker_begin(t, 0, (uint64_t)i, 0, &rd);
    ddb_tracker_settle(t, s[0], 0, DDB_OUTCOME_WRITTEN, NULL, 0);
    ddb_tracker_settle(t, s[1], 0, DDB_OUTCOME_REJECTED, "x\n", 2);
    cr_assert_eq(ddb_tracker_committed(t)->total.read, 0, "half a page is not committed");
    cr_assert_str_eq(committed_lines, "", "its rejects wait too");
    ddb_tracker_settle(t, s[2], 0, DDB_OUTCOME_WRITTEN, NULL, 0);
    cr_assert_eq(ddb_tracker_committed(t)->total.read, 3);
    cr_assert_str_eq(committed_lines, "x\n");
    ddb_tracker_settle(t, s[3], 0, DDB_OUTCOME_WRITTEN, NULL, 0);
    cr_assert_eq(ddb_tracker_committed(t)->total.read, 3);
    ddb_tracker_free(t);
}

static ddb_entity_stats sample_rows[2] = {{NULL, 10, 8, 1, 1, 0, 1, 0, 0},
                                          {NULL, 5, 0, 0, 2, 3, 0, 0, 0}};

/* A state with something in every member, saved to DIR/s.json (path). */
static void save_sample_state(ddb_state *st, char *dir, char *path, size_t cap)
{
    ddb_error err;
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, cap, "%s/s.json", dir);
    memset(st, 0, sizeof(*st));
    st->fingerprint = "{\"command\":\"import\",\"options\":\"x\"}";
    st->ck.input = 2;
    st->ck.pos = 123456789012ull;
    st->ck.rows = sample_rows;
    st->ck.n_rows = 2;
    st->ck.total = (ddb_entity_stats){NULL, 15, 8, 1, 3, 3, 1, 0, 0};
    st->ck.changes[1] = 7;
    st->ck.rejects = 3;
    st->reader_state = "{\"total_segments\":4,\"segments\":[]}";
    st->outputs = "[{\"path\":\"o/Tag.csv\",\"bytes\":42}]";
    st->rejects_bytes = 999;
    st->managed = "{\"kind\":\"export\",\"client_token\":\"ab\",\"arn\":\"arn:x/export/1\"}";
    cr_assert_eq(ddb_state_save(path, st, &err), 0, "%s", err.message);
}

Test(state, saves_and_loads_everything_atomically)
{
    char dir[] = "/tmp/ddbstate.XXXXXX", path[256];
    ddb_state st, *back = NULL;
    ddb_error err;
    save_sample_state(&st, dir, path, sizeof(path));
    cr_assert_eq(ddb_state_load(&back, path, &err), 0, "%s", err.message);
    cr_assert_eq(back->ck.input, 2);
    cr_assert_eq(back->ck.pos, 123456789012ull);
    cr_assert_eq(back->ck.n_rows, 2);
    cr_assert_eq(back->ck.rows[1].unmatched, 3);
    cr_assert_eq(back->ck.total.rejected, 3);
    cr_assert_eq(back->ck.changes[1], 7);
    cr_assert_eq(back->rejects_bytes, 999);
    cr_assert_not(back->complete);
    cr_assert_str_eq(back->outputs, "[{\"path\":\"o/Tag.csv\",\"bytes\":42}]");
    cr_assert_str_eq(back->reader_state, "{\"total_segments\":4,\"segments\":[]}");
    cr_assert_str_eq(back->managed, st.managed);
    cr_assert_eq(ddb_state_check_fingerprint(back->fingerprint, st.fingerprint, &err), 0);
    ddb_state_free(back);
    unlink(path);
    rmdir(dir);
}

/* Records left out by a selection are counted in a 7th member, there only when
 * not 0 (the states of runs without a selection keep 6), and read back. */
Test(state, filtered_counts_survive_a_checkpoint)
{
    char dir[] = "/tmp/ddbstate.XXXXXX", path[256];
    ddb_state st, *back = NULL;
    ddb_error err;
    char *text;
    size_t len;
    save_sample_state(&st, dir, path, sizeof(path));
    text = tu_slurp(path, &len);
    cr_assert(strstr(text, "[10,8,1,1,0,1]"), "%s", text); /* no filtered: 6 counts */
    free(text);
    sample_rows[0].filtered = 4;
    st.ck.total.filtered = 4;
    cr_assert_eq(ddb_state_save(path, &st, &err), 0, "%s", err.message);
    sample_rows[0].filtered = 0;
    text = tu_slurp(path, &len);
    cr_assert(strstr(text, "[10,8,1,1,0,1,4]"), "%s", text);
    free(text);
    cr_assert_eq(ddb_state_load(&back, path, &err), 0, "%s", err.message);
    cr_assert_eq(back->ck.rows[0].filtered, 4);
    cr_assert_eq(back->ck.rows[1].filtered, 0);
    cr_assert_eq(back->ck.total.filtered, 4);
    ddb_state_free(back);
    unlink(path);
    rmdir(dir);
}

Test(state, fingerprint_mismatch_names_what_differs)
{
    ddb_error err;
    cr_assert_eq(ddb_state_check_fingerprint("{\"inputs\":\"a.json (10 bytes)\",\"options\":\"o\"}",
                                             "{\"inputs\":\"a.json (12 bytes)\",\"options\":\"o\"}",
                                             &err),
                 DDB_EUSAGE);
    cr_assert(strstr(err.message, "inputs differ") != NULL, "%s", err.message);
    cr_assert(strstr(err.message, "a.json (12 bytes)") != NULL, "%s", err.message);
    cr_assert_eq(ddb_state_check_fingerprint("{\"mapping\":\"aa\"}", "{\"mapping\":\"bb\"}", &err),
                 DDB_EUSAGE);
    cr_assert(strstr(err.message, "mapping differs") != NULL, "%s", err.message);
    /* what the checkpointed run had and this one has not: its target's identity */
    cr_assert_eq(ddb_state_check_fingerprint("{\"out\":\"o\",\"identity\":\"to-profile=b\"}",
                                             "{\"out\":\"o\"}", &err),
                 DDB_EUSAGE);
    cr_assert(strstr(err.message, "had identity \"to-profile=b\"; this one has none") != NULL,
              "%s", err.message);
    cr_assert_eq(ddb_state_check_fingerprint("{\"identity\":\"to-profile=b\"}",
                                             "{\"identity\":\"to-profile=c\"}", &err),
                 DDB_EUSAGE);
    cr_assert(strstr(err.message, "identity differs") != NULL, "%s", err.message);
    cr_assert_eq(ddb_state_check_fingerprint("{\"identity\":\"to-profile=b\"}",
                                             "{\"identity\":\"to-profile=b\"}", &err),
                 0);
}

Test(state, missing_and_foreign_files)
{
    ddb_state *s = NULL;
    ddb_error err;
    char dir[] = "/tmp/ddbstate.XXXXXX", path[256];
    FILE *f;
    cr_assert_eq(ddb_state_load(&s, "/nonexistent/state.json", &err), DDB_ENOTFOUND);
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/other.json", dir);
    f = fopen(path, "w");
    fputs("{\"hello\":1}", f);
    fclose(f);
    cr_assert_eq(ddb_state_load(&s, path, &err), DDB_EUSAGE);
    cr_assert(strstr(err.message, "not a ddbpipe state file") != NULL);
    unlink(path);
    rmdir(dir);
}

Test(rate, average_stays_under_the_limit_with_costly_requests_in_flight)
{
    ddb_rate r;
    double t = 100.0, sent = 0;
    ddb_rate_init(&r, 200, t);
    /* requests of 30 units every millisecond if allowed, for 10 simulated seconds */
    for (int ms = 0; ms < 10000; ms++, t += 0.001) {
        if (ddb_rate_take(&r, 30, t) == 0)
            sent += 30;
    }
    cr_assert_leq(sent, 200 * 10 + 30, "sent %.0f units in 10 s", sent);
    cr_assert_geq(sent, 200 * 10 * 0.95, "sent %.0f units in 10 s", sent);
}

Test(rate, underestimates_are_settled_and_learned)
{
    ddb_rate r;
    double t = 0, consumed = 0;
    ddb_rate_init(&r, 100, t);
    /* every request really costs 3x its estimate of 10 (index writes) */
    for (int ms = 0; ms < 20000; ms++, t += 0.001) {
        double cost = ddb_rate_cost(&r, 10);
        if (ddb_rate_take(&r, cost, t) == 0) {
            ddb_rate_settle(&r, cost, 30);
            consumed += 30;
        }
    }
    cr_assert_leq(consumed, 100 * 20 + 60, "consumed %.0f in 20 s", consumed);
    cr_assert_geq(consumed, 100 * 20 * 0.9, "consumed %.0f in 20 s", consumed);
    cr_assert_gt(r.ratio, 2.5, "ratio %.2f", r.ratio);
}

Test(rate, throttling_lowers_the_rate_and_it_recovers)
{
    ddb_rate r;
    ddb_rate_init(&r, 1000, 0);
    ddb_rate_throttled(&r, 5.0);
    cr_assert_float_eq(r.rate, 700, 0.01);
    ddb_rate_throttled(&r, 5.5); /* within a second: no second cut */
    cr_assert_float_eq(r.rate, 700, 0.01);
    for (double t = 6.0; t < 20.0; t += 0.1)
        ddb_rate_tick(&r, t);
    cr_assert_float_eq(r.rate, 1000, 0.01);
}

Test(rate, unlimited_always_allows)
{
    ddb_rate r;
    ddb_rate_init(&r, 0, 0);
    for (int i = 0; i < 1000; i++)
        cr_assert_eq(ddb_rate_take(&r, 1e9, 0), 0);
}

/* A state file whose members have the wrong JSON types (hand-edited, or
 * damaged) is a usage error naming the member, never a crash. */
Test(state, damaged_members_are_named_not_crashed_on)
{
    static const struct {
        const char *from, *to, *member;
    } cases[] = {
        {"\"changes\":[0,7,0,0]", "\"changes\":[{},{},{},{}]", "counts.changes[0]"},
        {"\"changes\":[0,7,0,0]", "\"changes\":[\"0\",7,0,0]", "counts.changes[0]"},
        {"\"changes\":[0,7,0,0]", "\"changes\":[0,7,0]", "counts.changes"},
        {"\"changes\":[0,7,0,0]", "\"changes\":{}", "counts.changes"},
        {"\"rows\":[[10,8,1,1,0,1]", "\"rows\":[[10,8,[],1,0,1]", "counts.rows[0][2]"},
        {"\"rows\":[[10,8,1,1,0,1]", "\"rows\":[[10,8,1,1]", "counts.rows[0]"},
        {"\"total\":[15,8,1,3,3,1]", "\"total\":[15,8,1,3,-3,1]", "counts.total[4]"},
        {"\"total\":[15,8,1,3,3,1]", "\"total\":null", "counts.total"},
        {"\"rejects\":3}", "\"rejects\":\"3\"}", "counts.rejects"},
        {"\"input\":2", "\"input\":\"2\"", "input"},
        {"\"input\":2", "\"input\":99999999999", "input"},
        {"\"pos\":123456789012", "\"pos\":1.5", "pos"},
        {"\"pos\":123456789012", "\"pos\":99999999999999999999999", "pos"},
        {"\"complete\":false", "\"complete\":\"no\"", "complete"},
        {"\"rejects_bytes\":999", "\"rejects_bytes\":[999]", "rejects_bytes"},
        {"\"outputs\":[", "\"outputs\":7,\"x\":[", "outputs"},
        {"\"reader\":{", "\"reader\":\"s\",\"x\":{", "reader"},
        {"\"fingerprint\":{", "\"fingerprint\":[],\"x\":{", "fingerprint"},
        {"\"counts\":{", "\"counts\":[],\"x\":{", "counts"},
    };
    char dir[] = "/tmp/ddbstate.XXXXXX", path[256], text[4096];
    ddb_state st, *back = NULL;
    ddb_error err;
    FILE *f;
    size_t len;

    save_sample_state(&st, dir, path, sizeof(path));
    f = fopen(path, "r");
    len = fread(text, 1, sizeof(text) - 1, f);
    fclose(f);
    text[len] = '\0';
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char bad[4096];
        const char *at = strstr(text, cases[i].from);
        cr_assert_not_null(at, "%s not in %s", cases[i].from, text);
        snprintf(bad, sizeof(bad), "%.*s%s%s", (int)(at - text), text, cases[i].to,
                 at + strlen(cases[i].from));
        f = fopen(path, "w");
        fputs(bad, f);
        fclose(f);
        ddb_error_clear(&err);
        cr_assert_eq(ddb_state_load(&back, path, &err), DDB_EUSAGE, "accepted: %s", bad);
        cr_assert_null(back);
        cr_assert(strstr(err.message, path) != NULL, "%s", err.message);
        {
            char want[64];
            snprintf(want, sizeof(want), "\"%s\"", cases[i].member);
            cr_assert(strstr(err.message, want) != NULL, "case %zu: '%s' does not name %s", i,
                      err.message, want);
        }
    }
    unlink(path);
    rmdir(dir);
}

/* Unmatched lines travel like rejects lines: copied while something read
 * before them is pending, handed over at once (no copy needed) otherwise. */
Test(tracker, unmatched_lines_commit_in_read_order_with_rejects)
{
    ddb_tracker *t = make(2);
    char buf[8];
    uint64_t a = ddb_tracker_begin(t, 0, 1, 0, NULL);
    uint64_t b = ddb_tracker_begin(t, 0, 2, 0, NULL);
    uint64_t c = ddb_tracker_begin(t, 0, 3, 0, NULL);
    uint64_t d = ddb_tracker_begin(t, 0, 4, 0, NULL);
    strcpy(buf, "C\n");
    cr_assert_eq(ddb_tracker_settle(t, c, 1, DDB_OUTCOME_UNMATCHED, buf, 2), 0);
    strcpy(buf, "B\n");
    cr_assert_eq(ddb_tracker_settle(t, b, 1, DDB_OUTCOME_REJECTED, buf, 2), 0);
    strcpy(buf, "XX");
    cr_assert_str_eq(committed_lines, "", "a is pending: nothing commits");
    ddb_tracker_settle(t, a, 0, DDB_OUTCOME_WRITTEN, NULL, 0);
    cr_assert_str_eq(committed_lines, "B\nU:C\n", "copies, not the reused buffer");
    strcpy(buf, "D\n");
    cr_assert_eq(ddb_tracker_settle(t, d, 1, DDB_OUTCOME_UNMATCHED, buf, 2), 0);
    cr_assert_str_eq(committed_lines, "B\nU:C\nU:D\n", "at the head: at once");
    cr_assert_eq(ddb_tracker_committed(t)->total.unmatched, 2);
    cr_assert_eq(ddb_tracker_committed(t)->rejects, 1);
    ddb_tracker_free(t);
}
