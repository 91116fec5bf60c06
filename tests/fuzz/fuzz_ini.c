/*
 * The AWS CLI's INI files (config and credentials): parsed from a scratch
 * file, then every section is looked up both ways (config and credentials
 * naming) for a few keys.
 */
#include "aws/awsini.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const keys[] = {"region", "aws_access_key_id", "sso_session",
                                       "dynamodb.endpoint_url", "credential_process"};
    ddb_ini_file f;
    ddb_error err;
    memset(&f, 0, sizeof(f));
    if ((f.path = strdup(fuzz_write_file(0, "config", data, size))) == NULL)
        abort();
    if (ddb_ini_load(&f, &err) == 0) {
        FUZZ_CHECK(f.present, "a file that exists is not present");
        for (size_t i = 0; i < f.nsec; i++) {
            const char *name = f.sec[i].name;
            const char *sp = strchr(name, ' ');
            for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
                unsigned line = 0;
                ddb_ini_get_at(&f, 0, "profile", name, keys[k], &line);
                if (sp != NULL) {
                    char kind[64];
                    snprintf(kind, sizeof(kind), "%.*s", (int)(sp - name), name);
                    if (ddb_ini_get_at(&f, 1, kind, sp + 1, keys[k], &line) != NULL)
                        FUZZ_CHECK(line > 0, "a value without its line");
                } else {
                    ddb_ini_get(&f, 1, "profile", name, keys[k]);
                }
            }
            ddb_ini_has(&f, 1, "profile", name);
        }
    }
    ddb_ini_dispose(&f);
    return 0;
}
