-- Loads every entity file with exact types. Run it from the output folder:
--   duckdb my.db < _ddbpipe/schema/load.duckdb.sql
CREATE OR REPLACE TABLE "Tag" AS SELECT * FROM read_json('Tag.ndjson', format = 'newline_delimited',
    columns = {'userId': 'VARCHAR', 'tagId': 'VARCHAR', 'tagName': 'VARCHAR', 'createTime': 'DECIMAL(38,0)', 'lastAccessTime': 'DECIMAL(38,0)', '_extra': 'JSON'});
CREATE OR REPLACE TABLE "FavoriteData" AS SELECT * FROM read_json('FavoriteData.ndjson', format = 'newline_delimited',
    columns = {'userId': 'VARCHAR', 'dataId': 'VARCHAR', 'creatorId': 'VARCHAR', 'title': 'VARCHAR', 'thumbnailUrl': 'VARCHAR', 'contentUrl': 'VARCHAR', 'dataType': 'VARCHAR', 'clipTime': 'VARCHAR', '_extra': 'JSON'});
CREATE OR REPLACE TABLE "FavoriteDataTag" AS SELECT * FROM read_json('FavoriteDataTag.ndjson', format = 'newline_delimited',
    columns = {'userId': 'VARCHAR', 'dataId': 'VARCHAR', 'tagId': 'VARCHAR', 'clipTime': 'VARCHAR', 'dataType': 'VARCHAR', '_extra': 'JSON'});
