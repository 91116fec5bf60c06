/*
 * The state file of a resumable run: loaded from a scratch file. A state that
 * loads is compared with a fingerprint, saved again and loaded back the same.
 */
#include "ddbpipe/checkpoint.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_write_file(0, "state.json", data, size);
    char again[600];
    ddb_state *s = NULL, *t = NULL;
    ddb_error err;
    if (ddb_state_load(&s, path, &err) != 0) {
        FUZZ_CHECK(s == NULL, "a failed load returned a state");
        return 0;
    }
    ddb_state_check_fingerprint(s->fingerprint, "{\"command\":\"export\",\"inputs\":\"x\"}", &err);
    snprintf(again, sizeof(again), "%s/again.json", fuzz_scratch_dir());
    FUZZ_CHECK(ddb_state_save(again, s, &err) == 0, "cannot save: %s", err.message);
    FUZZ_CHECK(ddb_state_load(&t, again, &err) == 0, "cannot load what was saved: %s",
               err.message);
    FUZZ_CHECK(t->ck.input == s->ck.input && t->ck.pos == s->ck.pos &&
                   t->ck.n_rows == s->ck.n_rows && t->ck.total.read == s->ck.total.read &&
                   t->ck.rejects == s->ck.rejects && t->rejects_bytes == s->rejects_bytes &&
                   t->unmatched_bytes == s->unmatched_bytes && t->complete == s->complete,
               "the state changed on the way");
    ddb_state_free(t);
    ddb_state_free(s);
    return 0;
}
