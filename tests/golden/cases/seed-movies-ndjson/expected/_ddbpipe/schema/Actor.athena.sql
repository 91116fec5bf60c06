-- Athena reads every file under a location: upload Actor.ndjson alone under a prefix of its own
-- and put that prefix below.
CREATE EXTERNAL TABLE `Actor` (
  `actorId` string,
  `name` string,
  `birthDate` date,
  `birthPlace` string,
  `awardYears` array<decimal(38,0)>,
  `aliases` string,
  `signature` array<string>,
  `_extra` string
)
ROW FORMAT SERDE 'org.openx.data.jsonserde.JsonSerDe'
LOCATION 's3://YOUR-BUCKET/YOUR-PREFIX/Actor/';
