/* ddbpipe --version: its own version and those of the libraries it runs with. */
#include <curl/curl.h>
#include <json-c/json.h>
#include <openssl/crypto.h>
#include <stdio.h>
#include <zlib.h>

#ifdef DDB_HAVE_ISAL
#include <isa-l.h>
#endif

#include "cli.h"

/* The versions are the ones loaded at run time (a bug report needs what ran, not what the
 * build saw), except ISA-L's, which has no call that says it. */
void cli_print_version(void)
{
    const curl_version_info_data *cv = curl_version_info(CURLVERSION_NOW);

    printf("ddbpipe %s\n", DDB_VERSION);
    printf("libcurl %s (%s)\n", cv->version, cv->ssl_version ? cv->ssl_version : "no TLS");
    printf("%s\n", OpenSSL_version(OPENSSL_VERSION));
    printf("json-c %s\n", json_c_version());
    printf("zlib %s\n", zlibVersion());
#ifdef DDB_HAVE_ISAL
    printf("ISA-L %d.%d.%d (built with; gzip inflate and CRC-32)\n", ISAL_MAJOR_VERSION,
           ISAL_MINOR_VERSION, ISAL_PATCH_VERSION);
#else
    printf("ISA-L not built in (zlib inflates)\n");
#endif
}
