/* client_internal.h — what client.c needs from client_errors.c beyond the public API. */
#ifndef DDBPIPE_CLIENT_INTERNAL_H
#define DDBPIPE_CLIENT_INTERNAL_H

/* Is an error type (the part after '#') a retryable failure on the
 * service's side (InternalServerError, ServiceUnavailable, InternalFailure)? */
int ddb_client_error_is_server_side(const char *error_type);

#endif
