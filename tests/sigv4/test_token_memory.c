/*
 * The session token must not be left in memory the signer gives back: every
 * block freed or moved by realloc in this binary is searched for it (ld
 * --wrap=free,--wrap=realloc; realloc always moves here, so a growth that
 * would leave a copy behind is seen).
 */
#include <criterion/criterion.h>
#include <string.h>

#include "ddbpipe/sigv4.h"
#include "support/freewatch.h"

/* A token of 3,000 bytes (STS tokens run to kilobytes) and many headers, so
 * the canonical request grows far past its first allocation. */
Test(sigv4, session_token_in_no_freed_block)
{
    static char token[3001], values[24][120];
    ddb_sigv4_header h[26];
    ddb_sigv4_request req;
    ddb_sigv4_result *res = NULL;
    ddb_error err;

    for (size_t i = 0; i < sizeof(token) - 1; i++)
        token[i] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"[(i * 7) % 64];
    h[0] = (ddb_sigv4_header){"Host", "dynamodb.us-east-1.amazonaws.com"};
    h[1] = (ddb_sigv4_header){"X-Amz-Target", "DynamoDB_20120810.BatchWriteItem"};
    for (int i = 0; i < 24; i++) {
        static char names[24][16];
        snprintf(names[i], sizeof(names[i]), "X-Extra-%02d", i);
        memset(values[i], 'v', sizeof(values[i]) - 1);
        h[2 + i] = (ddb_sigv4_header){names[i], values[i]};
    }
    memset(&req, 0, sizeof(req));
    req.method = "POST";
    req.path = "/";
    req.query = "";
    req.headers = h;
    req.header_count = 26;
    req.payload = "{}";
    req.payload_len = 2;
    req.region = "us-east-1";
    req.service = "dynamodb";
    req.flags = DDB_SIGV4_FLAGS_DYNAMODB;
    req.access_key_id = "ASIAEXAMPLE";
    req.secret_access_key = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
    req.session_token = token;
    fw_watched = token;
    fw_unwiped = 0;
    cr_assert_eq(ddb_sigv4_sign(&res, &req, &err), 0, "%s", err.message);
    cr_assert(strstr(res->canonical_request, token) != NULL, "the token is signed");
    ddb_sigv4_result_free(res);
    fw_watched = NULL;
    cr_assert_eq(fw_unwiped, 0, "%d freed blocks held the session token", fw_unwiped);
}
