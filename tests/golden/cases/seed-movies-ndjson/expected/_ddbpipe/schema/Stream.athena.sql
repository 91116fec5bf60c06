-- Athena reads every file under a location: upload Stream.ndjson alone under a prefix of its own
-- and put that prefix below.
CREATE EXTERNAL TABLE `Stream` (
  `movieId` string,
  `streamedAt` string,
  `streamId` string,
  `userId` string,
  `seconds` bigint,
  `_extra` string
)
ROW FORMAT SERDE 'org.openx.data.jsonserde.JsonSerDe'
LOCATION 's3://YOUR-BUCKET/YOUR-PREFIX/Stream/';
