-- Athena reads every file under a location: upload Tag.csv alone under a prefix of its own
-- and put that prefix below.
CREATE EXTERNAL TABLE `Tag` (
  `userId` string,
  `tagId` string,
  `tagName` string,
  `createTime` bigint,
  `lastAccessTime` bigint,
  `_extra` string
)
ROW FORMAT SERDE 'org.apache.hadoop.hive.serde2.OpenCSVSerde'
WITH SERDEPROPERTIES ('separatorChar' = ',', 'quoteChar' = '"')
LOCATION 's3://YOUR-BUCKET/YOUR-PREFIX/Tag/'
TBLPROPERTIES ('skip.header.line.count' = '1');
