/*
 * The memory the Parquet files of one output share (parquet.h, pq_budget):
 * the bytes their row groups gather, counted here, and the files to choose
 * from when the sum passes the limit.
 */
#include "write/parquet_internal.h"

#include <assert.h>
#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "ddbpipe/array.h"

int pq_budget_new(pq_budget **out, size_t bytes, ddb_error *err)
{
    pq_budget *b = calloc(1, sizeof(*b));
    const char *env = getenv("DDBPIPE_PARQUET_BUDGET");
    *out = NULL;
    if (b == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    /* the environment's only for tests, which show the bound on small inputs */
    if (bytes == 0 && env != NULL && *env != '\0')
        bytes = (size_t)strtoull(env, NULL, 10);
    b->limit = bytes > 0 ? bytes : PQ_BUDGET_BYTES;
#ifdef __GLIBC__
    /* glibc raises its mmap threshold to the size of each large block freed
     * (up to 32 MB); the row groups' buffers, grown by doubling and freed
     * after each group, then come from the heap and leave holes in it that
     * it keeps: rich's export peaked at 77 MB, not 53. A fixed threshold
     * keeps such buffers mapped, grown in place and given back when freed. */
    mallopt(M_MMAP_THRESHOLD, 256 << 10);
#endif
    *out = b;
    return 0;
}

void pq_budget_free(pq_budget *b)
{
    if (b == NULL)
        return;
    pq_ahead_free(b);
    for (size_t i = 0; i < b->n; i++)
        b->files[i]->budget = NULL;
    free(b->files);
    pq_coder_dispose(&b->coder);
    free(b);
}

int pq_budget_join(pq_budget *b, pq_file *f, ddb_error *err)
{
    assert(f->budget == NULL);
    if (b->n == b->cap) {
        pq_file **nf = ddb_array_reserve(b->files, b->n, &b->cap, sizeof(*nf), 16);
        if (nf == NULL)
            return ddb_error_set(err, DDB_ENOMEM, "out of memory");
        b->files = nf;
    }
    b->files[b->n++] = f;
    f->budget = b;
    return 0;
}

void pq_budget_leave(pq_file *f)
{
    pq_budget *b = f->budget;
    if (b == NULL)
        return;
    for (size_t i = 0; i < b->n; i++) {
        if (b->files[i] == f) {
            b->files[i] = b->files[--b->n];
            break;
        }
    }
    b->used -= f->gathered;
    f->budget = NULL;
}

pq_file *pq_budget_largest(const pq_budget *b)
{
    pq_file *best = NULL;
    for (size_t i = 0; i < b->n; i++)
        if (best == NULL || b->files[i]->gathered > best->gathered)
            best = b->files[i];
    return best;
}
