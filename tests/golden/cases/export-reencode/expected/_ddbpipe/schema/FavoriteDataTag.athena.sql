-- Athena reads every file under a location: upload FavoriteDataTag.ndjson alone under a prefix of its own
-- and put that prefix below.
CREATE EXTERNAL TABLE `FavoriteDataTag` (
  `userId` string,
  `dataId` string,
  `tagId` string,
  `clipTime` string,
  `dataType` string,
  `_extra` string
)
ROW FORMAT SERDE 'org.openx.data.jsonserde.JsonSerDe'
LOCATION 's3://YOUR-BUCKET/YOUR-PREFIX/FavoriteDataTag/';
