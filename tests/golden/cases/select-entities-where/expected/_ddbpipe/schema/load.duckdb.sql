-- Loads every entity file with exact types. Run it from the output folder:
--   duckdb my.db < _ddbpipe/schema/load.duckdb.sql
CREATE OR REPLACE TABLE "FavoriteData" AS SELECT * FROM read_csv('FavoriteData.csv', header = true, auto_detect = false, delim = ',', quote = '"', escape = '"', allow_quoted_nulls = false,
    columns = {'userId': 'VARCHAR', 'dataId': 'VARCHAR', 'creatorId': 'VARCHAR', 'title': 'VARCHAR', 'thumbnailUrl': 'VARCHAR', 'contentUrl': 'VARCHAR', 'dataType': 'VARCHAR', 'clipTime': 'VARCHAR', '_extra': 'JSON'});
