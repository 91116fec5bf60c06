/*
 * autoscaling.h — a table's Application Auto Scaling copied to another table: its scalable
 * targets (the table's and each GSI's read and write capacity, with their minimum, maximum and
 * suspended state) and their target tracking policies. Application Auto Scaling is a service of
 * its own: its own endpoint, the JSON 1.1 protocol with the target prefix
 * AnyScaleFrontendService, signed for "application-autoscaling".
 */
#ifndef DDBPIPE_AUTOSCALING_H
#define DDBPIPE_AUTOSCALING_H

#include "ddbpipe/buf.h"
#include "ddbpipe/client.h"
#include "ddbpipe/error.h"

/* One side of the copy: the client that signs (its credentials and region) and Application
 * Auto Scaling's endpoint URL for that side. */
typedef struct ddb_autoscaling_side {
    ddb_client *client;
    const char *url;
    const char *table;
} ddb_autoscaling_side;

/*
 * Reads the scalable targets of from.table (DescribeScalableTargets, namespace dynamodb,
 * resources table/NAME and table/NAME/index/...) and their policies (DescribeScalingPolicies),
 * then registers the same targets for to.table (RegisterScalableTarget) and puts the target
 * tracking policies (PutScalingPolicy). A step scaling policy is not copied (its CloudWatch
 * alarms are not part of it): notes says so, and says how many targets and policies were
 * copied. Returns 0, DDB_ENET (a call failed: the message names it), DDB_ENOMEM.
 */
DDB_MUST_USE int ddb_autoscaling_copy(const ddb_autoscaling_side *from,
                                      const ddb_autoscaling_side *to, ddb_buf *notes,
                                      ddb_error *err);

#endif
