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
