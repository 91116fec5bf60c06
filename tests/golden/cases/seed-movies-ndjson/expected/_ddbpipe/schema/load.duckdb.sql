-- Loads every entity file with exact types. Run it from the output folder:
--   duckdb my.db < _ddbpipe/schema/load.duckdb.sql
CREATE OR REPLACE TABLE "Movie" AS SELECT
    r."movieId",
    r."title",
    CAST(CASE WHEN r."releaseYear" IS NOT NULL THEN regexp_extract(line, '"releaseYear":(-?[0-9][0-9.eE+-]*)', 1) END AS BIGINT) AS "releaseYear",
    CAST(CASE WHEN r."runtimeMinutes" IS NOT NULL THEN regexp_extract(line, '"runtimeMinutes":(-?[0-9][0-9.eE+-]*)', 1) END AS DECIMAL(38,0)) AS "runtimeMinutes",
    CAST(CASE WHEN r."budget" IS NOT NULL THEN regexp_extract(line, '"budget":(-?[0-9][0-9.eE+-]*)', 1) END AS DECIMAL(38,0)) AS "budget",
    r."genres",
    r."ratings",
    r."poster",
    CAST(r."released" AS BOOLEAN) AS "released",
    r."_extra"
FROM (SELECT line, from_json(line, '{"movieId":"VARCHAR","title":"VARCHAR","releaseYear":"JSON","runtimeMinutes":"JSON","budget":"JSON","genres":"VARCHAR[]","ratings":"JSON","poster":"VARCHAR","released":"VARCHAR","_extra":"JSON"}') AS r
      FROM read_csv('Movie.ndjson', columns = {'line': 'VARCHAR'}, header = false, auto_detect = false,
                    delim = E'\x01', quote = '', escape = '', max_line_size = 100000000));
CREATE OR REPLACE TABLE "Actor" AS SELECT
    r."actorId",
    r."name",
    CAST(r."birthDate" AS DATE) AS "birthDate",
    r."birthPlace",
    CAST(CASE WHEN r."awardYears" IS NOT NULL THEN string_split(regexp_extract(line, '"awardYears":\[([-0-9.eE+,]*)\]', 1), ',') END AS DECIMAL(38,0)[]) AS "awardYears",
    r."aliases",
    r."signature",
    r."_extra"
FROM (SELECT line, from_json(line, '{"actorId":"VARCHAR","name":"VARCHAR","birthDate":"VARCHAR","birthPlace":"VARCHAR","awardYears":"JSON","aliases":"JSON","signature":"VARCHAR[]","_extra":"JSON"}') AS r
      FROM read_csv('Actor.ndjson', columns = {'line': 'VARCHAR'}, header = false, auto_detect = false,
                    delim = E'\x01', quote = '', escape = '', max_line_size = 100000000));
CREATE OR REPLACE TABLE "CastMember" AS SELECT * FROM read_json('CastMember.ndjson', format = 'newline_delimited',
    columns = {'movieId': 'VARCHAR', 'actorId': 'VARCHAR', 'character': 'VARCHAR', 'billing': 'BIGINT', '_extra': 'JSON'});
CREATE OR REPLACE TABLE "MonthlyStreams" AS SELECT * FROM read_json('MonthlyStreams.ndjson', format = 'newline_delimited',
    columns = {'movieId': 'VARCHAR', 'month': 'VARCHAR', 'streams': 'BIGINT', '_extra': 'JSON'});
CREATE OR REPLACE TABLE "Stream" AS SELECT * FROM read_json('Stream.ndjson', format = 'newline_delimited',
    columns = {'movieId': 'VARCHAR', 'streamedAt': 'VARCHAR', 'streamId': 'VARCHAR', 'userId': 'VARCHAR', 'seconds': 'BIGINT', '_extra': 'JSON'});
