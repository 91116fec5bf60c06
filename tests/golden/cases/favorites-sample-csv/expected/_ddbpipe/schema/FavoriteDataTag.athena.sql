-- Athena reads every file under a location: upload FavoriteDataTag.csv alone under a prefix of its own
-- and put that prefix below.
CREATE EXTERNAL TABLE `FavoriteDataTag` (
  `userId` string,
  `dataId` string,
  `tagId` string,
  `clipTime` string,
  `dataType` string,
  `_extra` string
)
ROW FORMAT SERDE 'org.apache.hadoop.hive.serde2.OpenCSVSerde'
WITH SERDEPROPERTIES ('separatorChar' = ',', 'quoteChar' = '"')
LOCATION 's3://YOUR-BUCKET/YOUR-PREFIX/FavoriteDataTag/'
TBLPROPERTIES ('skip.header.line.count' = '1');
