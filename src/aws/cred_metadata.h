/* cred_metadata.h (private header of aws/) — container endpoint and EC2 instance metadata
 * (cred_metadata.c), beyond the fetchers declared in cred_source.h. */
#ifndef DDBPIPE_CRED_METADATA_H
#define DDBPIPE_CRED_METADATA_H

#include "aws/cred_source.h"

/* May the container provider fetch from this URL? https:// anywhere; http://
 * only to a loopback address (127.0.0.0/8, [::1], localhost), the ECS
 * endpoint 169.254.170.2 or the EKS Pod Identity endpoints 169.254.170.23 and
 * [fd00:ec2::23], as botocore allows. */
int ddb_container_url_allowed(const char *url);

/* The region of the instance (IMDSv2, /latest/meta-data/placement/region).
 * *out malloc'd. Returns 0, DDB_ENOTFOUND when no metadata service answered,
 * DDB_ERROR, DDB_ENOMEM. */
int ddb_imds_region(char **out, const char *base_url, const ddb_cred_net *net, ddb_error *err);

#endif
