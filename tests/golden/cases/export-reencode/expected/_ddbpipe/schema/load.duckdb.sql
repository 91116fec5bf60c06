-- Loads every entity file with exact types. Run it from the output folder:
--   duckdb my.db < _ddbpipe/schema/load.duckdb.sql
CREATE OR REPLACE TABLE "Tag" AS SELECT
    r."userId",
    r."tagId",
    r."tagName",
    CAST(CASE WHEN r."createTime" IS NOT NULL THEN regexp_extract(line, '"createTime":(-?[0-9][0-9.eE+-]*)', 1) END AS DECIMAL(38,0)) AS "createTime",
    CAST(CASE WHEN r."lastAccessTime" IS NOT NULL THEN regexp_extract(line, '"lastAccessTime":(-?[0-9][0-9.eE+-]*)', 1) END AS DECIMAL(38,0)) AS "lastAccessTime",
    r."_extra"
FROM (SELECT line, from_json(line, '{"userId":"VARCHAR","tagId":"VARCHAR","tagName":"VARCHAR","createTime":"JSON","lastAccessTime":"JSON","_extra":"JSON"}') AS r
      FROM read_csv('Tag.ndjson', columns = {'line': 'VARCHAR'}, header = false, auto_detect = false,
                    delim = E'\x01', quote = '', escape = '', max_line_size = 100000000));
CREATE OR REPLACE TABLE "FavoriteData" AS SELECT * FROM read_json('FavoriteData.ndjson', format = 'newline_delimited',
    columns = {'userId': 'VARCHAR', 'dataId': 'VARCHAR', 'creatorId': 'VARCHAR', 'title': 'VARCHAR', 'thumbnailUrl': 'VARCHAR', 'contentUrl': 'VARCHAR', 'dataType': 'VARCHAR', 'clipTime': 'VARCHAR', '_extra': 'JSON'});
CREATE OR REPLACE TABLE "FavoriteDataTag" AS SELECT * FROM read_json('FavoriteDataTag.ndjson', format = 'newline_delimited',
    columns = {'userId': 'VARCHAR', 'dataId': 'VARCHAR', 'tagId': 'VARCHAR', 'clipTime': 'VARCHAR', 'dataType': 'VARCHAR', '_extra': 'JSON'});
