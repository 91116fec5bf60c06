-- Athena reads every file under a location: upload CastMember.ndjson alone under a prefix of its own
-- and put that prefix below.
CREATE EXTERNAL TABLE `CastMember` (
  `movieId` string,
  `actorId` string,
  `character` string,
  `billing` bigint,
  `_extra` string
)
ROW FORMAT SERDE 'org.openx.data.jsonserde.JsonSerDe'
LOCATION 's3://YOUR-BUCKET/YOUR-PREFIX/CastMember/';
