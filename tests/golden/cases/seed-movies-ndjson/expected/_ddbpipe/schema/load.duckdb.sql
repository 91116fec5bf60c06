-- Loads every entity file with exact types. Run it from the output folder:
--   duckdb my.db < _ddbpipe/schema/load.duckdb.sql
CREATE OR REPLACE TEMP MACRO ddbpipe_numbers_as_text(line) AS array_to_string(
    list_transform(regexp_extract_all(line, '"(?:[^"\\]|\\.)*"|[^"]+'),
        t -> CASE WHEN t[1] = '"' THEN t
                  ELSE regexp_replace(t, '-?[0-9][0-9.eE+-]*', '"\0"', 'g') END), '');
CREATE OR REPLACE TABLE "Movie" AS SELECT
    r."movieId",
    r."title",
    CAST(n."releaseYear" AS BIGINT) AS "releaseYear",
    CAST(n."runtimeMinutes" AS DECIMAL(38,0)) AS "runtimeMinutes",
    CAST(n."budget" AS DECIMAL(38,0)) AS "budget",
    r."genres",
    r."ratings",
    r."poster",
    CAST(r."released" AS BOOLEAN) AS "released",
    r."_extra"
FROM (SELECT from_json(line, '{"movieId":"VARCHAR","title":"VARCHAR","genres":"VARCHAR[]","ratings":"JSON","poster":"VARCHAR","released":"VARCHAR","_extra":"JSON"}') AS r,
             from_json(ddbpipe_numbers_as_text(line), '{"releaseYear":"VARCHAR","runtimeMinutes":"VARCHAR","budget":"VARCHAR"}') AS n
      FROM read_csv('Movie.ndjson', columns = {'line': 'VARCHAR'}, header = false, auto_detect = false,
                    delim = E'\x01', quote = '', escape = '', max_line_size = 100000000));
CREATE OR REPLACE TABLE "Actor" AS SELECT
    r."actorId",
    r."name",
    CAST(r."birthDate" AS DATE) AS "birthDate",
    r."birthPlace",
    CAST(n."awardYears" AS DECIMAL(38,0)[]) AS "awardYears",
    r."aliases",
    r."signature",
    r."_extra"
FROM (SELECT from_json(line, '{"actorId":"VARCHAR","name":"VARCHAR","birthDate":"VARCHAR","birthPlace":"VARCHAR","aliases":"JSON","signature":"VARCHAR[]","_extra":"JSON"}') AS r,
             from_json(ddbpipe_numbers_as_text(line), '{"awardYears":"VARCHAR[]"}') AS n
      FROM read_csv('Actor.ndjson', columns = {'line': 'VARCHAR'}, header = false, auto_detect = false,
                    delim = E'\x01', quote = '', escape = '', max_line_size = 100000000));
CREATE OR REPLACE TABLE "CastMember" AS SELECT * FROM read_json('CastMember.ndjson', format = 'newline_delimited',
    columns = {'movieId': 'VARCHAR', 'actorId': 'VARCHAR', 'character': 'VARCHAR', 'billing': 'BIGINT', '_extra': 'JSON'});
CREATE OR REPLACE TABLE "MonthlyStreams" AS SELECT * FROM read_json('MonthlyStreams.ndjson', format = 'newline_delimited',
    columns = {'movieId': 'VARCHAR', 'month': 'VARCHAR', 'streams': 'BIGINT', '_extra': 'JSON'});
CREATE OR REPLACE TABLE "Stream" AS SELECT * FROM read_json('Stream.ndjson', format = 'newline_delimited',
    columns = {'movieId': 'VARCHAR', 'streamedAt': 'VARCHAR', 'streamId': 'VARCHAR', 'userId': 'VARCHAR', 'seconds': 'BIGINT', '_extra': 'JSON'});
