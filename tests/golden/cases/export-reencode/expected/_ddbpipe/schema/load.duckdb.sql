-- Loads every entity file with exact types. Run it from the output folder:
--   duckdb my.db < _ddbpipe/schema/load.duckdb.sql
CREATE OR REPLACE TEMP MACRO ddbpipe_numbers_as_text(line) AS array_to_string(
    list_transform(regexp_extract_all(line, '"(?:[^"\\]|\\.)*"|[^"]+'),
        t -> CASE WHEN t[1] = '"' THEN t
                  ELSE regexp_replace(t, '-?[0-9][0-9.eE+-]*', '"\0"', 'g') END), '');
CREATE OR REPLACE TABLE "Tag" AS SELECT
    r."userId",
    r."tagId",
    r."tagName",
    CAST(n."createTime" AS DECIMAL(38,0)) AS "createTime",
    CAST(n."lastAccessTime" AS DECIMAL(38,0)) AS "lastAccessTime",
    r."_extra"
FROM (SELECT from_json(line, '{"userId":"VARCHAR","tagId":"VARCHAR","tagName":"VARCHAR","_extra":"JSON"}') AS r,
             from_json(ddbpipe_numbers_as_text(line), '{"createTime":"VARCHAR","lastAccessTime":"VARCHAR"}') AS n
      FROM read_csv('Tag.ndjson', columns = {'line': 'VARCHAR'}, header = false, auto_detect = false,
                    delim = E'\x01', quote = '', escape = '', max_line_size = 100000000));
CREATE OR REPLACE TABLE "FavoriteData" AS SELECT * FROM read_json('FavoriteData.ndjson', format = 'newline_delimited',
    columns = {'userId': 'VARCHAR', 'dataId': 'VARCHAR', 'creatorId': 'VARCHAR', 'title': 'VARCHAR', 'thumbnailUrl': 'VARCHAR', 'contentUrl': 'VARCHAR', 'dataType': 'VARCHAR', 'clipTime': 'VARCHAR', '_extra': 'JSON'});
CREATE OR REPLACE TABLE "FavoriteDataTag" AS SELECT * FROM read_json('FavoriteDataTag.ndjson', format = 'newline_delimited',
    columns = {'userId': 'VARCHAR', 'dataId': 'VARCHAR', 'tagId': 'VARCHAR', 'clipTime': 'VARCHAR', 'dataType': 'VARCHAR', '_extra': 'JSON'});
