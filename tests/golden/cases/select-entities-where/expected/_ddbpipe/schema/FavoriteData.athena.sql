-- Athena reads every file under a location: upload FavoriteData.csv alone under a prefix of its own
-- and put that prefix below.
CREATE EXTERNAL TABLE `FavoriteData` (
  `userId` string,
  `dataId` string,
  `creatorId` string,
  `title` string,
  `thumbnailUrl` string,
  `contentUrl` string,
  `dataType` string,
  `clipTime` string,
  `_extra` string
)
ROW FORMAT SERDE 'org.apache.hadoop.hive.serde2.OpenCSVSerde'
WITH SERDEPROPERTIES ('separatorChar' = ',', 'quoteChar' = '"')
LOCATION 's3://YOUR-BUCKET/YOUR-PREFIX/FavoriteData/'
TBLPROPERTIES ('skip.header.line.count' = '1');
