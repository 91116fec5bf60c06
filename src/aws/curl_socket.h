/*
 * curl_socket.h (private header of aws/) — what every libcurl handle of the
 * tool is given: the DynamoDB and S3 client's (net/) and the credential
 * providers' (awshttp.c, which implements it).
 */
#ifndef DDBPIPE_CURL_SOCKET_H
#define DDBPIPE_CURL_SOCKET_H

#include <curl/curl.h>

/* Makes the sockets easy opens close on exec (CURLOPT_OPENSOCKETFUNCTION:
 * SOCK_CLOEXEC at socket(), so no other thread's spawn can come between):
 * libcurl 7.88 opens them without, and a credential_process the refresher
 * starts while requests are in flight would inherit every connection. */
void ddb_http_sockets_close_on_exec(CURL *easy);

#endif
