/* Text helpers for messages (text.h). */
#include "ddbpipe/text.h"

#include <string.h>

size_t ddb_text_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b), prev[64], cur[64];
    if (la >= 63 || lb >= 63)
        return 99;
    for (size_t j = 0; j <= lb; j++)
        prev[j] = j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
            size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
            cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
        }
        memcpy(prev, cur, (lb + 1) * sizeof(size_t));
    }
    return prev[lb];
}

const char *ddb_text_nearest(const char *word, const char *const *candidates, size_t n,
                             size_t max_distance)
{
    const char *best = NULL;
    size_t best_d = max_distance + 1;
    for (size_t i = 0; i < n; i++) {
        size_t d = ddb_text_distance(word, candidates[i]);
        if (d < best_d) {
            best = candidates[i];
            best_d = d;
        }
    }
    return best;
}
