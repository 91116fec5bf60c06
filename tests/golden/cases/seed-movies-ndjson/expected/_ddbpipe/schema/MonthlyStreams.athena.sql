-- Athena reads every file under a location: upload MonthlyStreams.ndjson alone under a prefix of its own
-- and put that prefix below.
CREATE EXTERNAL TABLE `MonthlyStreams` (
  `movieId` string,
  `month` string,
  `streams` bigint,
  `_extra` string
)
ROW FORMAT SERDE 'org.openx.data.jsonserde.JsonSerDe'
LOCATION 's3://YOUR-BUCKET/YOUR-PREFIX/MonthlyStreams/';
