-- Athena reads every file under a location: upload Tag.ndjson alone under a prefix of its own
-- and put that prefix below.
CREATE EXTERNAL TABLE `Tag` (
  `userId` string,
  `tagId` string,
  `tagName` string,
  `createTime` decimal(38,0),
  `lastAccessTime` decimal(38,0),
  `_extra` string
)
ROW FORMAT SERDE 'org.openx.data.jsonserde.JsonSerDe'
LOCATION 's3://YOUR-BUCKET/YOUR-PREFIX/Tag/';
