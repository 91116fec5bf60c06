/*
 * Export to S3 manifests: the input is manifest-summary.json, a NUL byte, then
 * manifest-files.json (without a NUL: the summary alone), loaded from a
 * scratch export folder; the checksum parser gets each line too.
 */
#include <sys/stat.h>

#include "ddbpipe/checksum.h"
#include "ddbpipe/manifest.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nul = memchr(data, '\0', size);
    size_t summary_len = nul ? (size_t)(nul - data) : size;
    char dir[600];
    ddb_manifest *m = NULL;
    ddb_error err;

    snprintf(dir, sizeof(dir), "%s/export", fuzz_scratch_dir());
    mkdir(dir, 0777);
    fuzz_write_file(0, "export/manifest-summary.json", data, summary_len);
    if (nul)
        fuzz_write_file(1, "export/manifest-files.json", nul + 1, size - summary_len - 1);
    else
        unlink(fuzz_write_file(1, "export/manifest-files.json", "", 0));
    if (ddb_manifest_load(&m, dir, DDB_MANIFEST_NO_VERIFY, NULL, NULL, &err) == 0) {
        FUZZ_CHECK(m->nfiles == 0 || m->files != NULL, "files missing");
        ddb_manifest_free(m);
    }
    for (size_t i = 0; i < size;) {
        const uint8_t *nl = memchr(data + i, '\n', size - i);
        size_t len = nl ? (size_t)(nl - (data + i)) : size - i;
        ddb_checksum c;
        if (ddb_checksum_parse(&c, (const char *)data + i, len, &err) == 0)
            FUZZ_CHECK(c.len == 16 || c.len == 32, "a %zu-byte digest", c.len);
        i += len + 1;
    }
    return 0;
}
