-- Athena reads every file under a location: upload Thing.csv alone under a prefix of its own
-- and put that prefix below.
CREATE EXTERNAL TABLE `Thing` (
  `id` string,
  `price` decimal(5,2),
  `qty` bigint,
  `big` decimal(38,0),
  `ratio` decimal(30,10),
  `free` decimal(38,2),
  `_extra` string
)
ROW FORMAT SERDE 'org.apache.hadoop.hive.serde2.OpenCSVSerde'
WITH SERDEPROPERTIES ('separatorChar' = ',', 'quoteChar' = '"')
LOCATION 's3://YOUR-BUCKET/YOUR-PREFIX/Thing/'
TBLPROPERTIES ('skip.header.line.count' = '1');
