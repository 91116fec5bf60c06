-- Athena reads every file under a location: upload DateCapacity.ndjson.gz alone under a prefix of its own
-- and put that prefix below.
CREATE EXTERNAL TABLE `DateCapacity` (
  `facilityId` string,
  `date` date,
  `capacity` bigint,
  `description` string,
  `_extra` string
)
ROW FORMAT SERDE 'org.openx.data.jsonserde.JsonSerDe'
LOCATION 's3://YOUR-BUCKET/YOUR-PREFIX/DateCapacity/';
