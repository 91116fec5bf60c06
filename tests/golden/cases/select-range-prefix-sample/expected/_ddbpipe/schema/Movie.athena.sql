-- Athena reads every file under a location: upload Movie.ndjson alone under a prefix of its own
-- and put that prefix below.
CREATE EXTERNAL TABLE `Movie` (
  `movieId` string,
  `title` string,
  `releaseYear` bigint,
  `runtimeMinutes` decimal(38,0),
  `budget` decimal(38,0),
  `genres` array<string>,
  `ratings` string,
  `poster` string,
  `released` boolean,
  `_extra` string
)
ROW FORMAT SERDE 'org.openx.data.jsonserde.JsonSerDe'
LOCATION 's3://YOUR-BUCKET/YOUR-PREFIX/Movie/';
