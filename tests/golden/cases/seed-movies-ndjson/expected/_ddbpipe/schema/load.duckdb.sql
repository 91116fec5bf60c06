-- Loads every entity file with exact types. Run it from the output folder:
--   duckdb my.db < _ddbpipe/schema/load.duckdb.sql
CREATE OR REPLACE TABLE "Movie" AS SELECT * FROM read_json('Movie.ndjson', format = 'newline_delimited',
    columns = {'movieId': 'VARCHAR', 'title': 'VARCHAR', 'releaseYear': 'BIGINT', 'runtimeMinutes': 'DECIMAL(38,0)', 'budget': 'DECIMAL(38,0)', 'genres': 'VARCHAR[]', 'ratings': 'JSON', 'poster': 'VARCHAR', 'released': 'BOOLEAN', '_extra': 'JSON'});
CREATE OR REPLACE TABLE "Actor" AS SELECT * FROM read_json('Actor.ndjson', format = 'newline_delimited',
    columns = {'actorId': 'VARCHAR', 'name': 'VARCHAR', 'birthDate': 'DATE', 'birthPlace': 'VARCHAR', 'awardYears': 'DECIMAL(38,0)[]', 'aliases': 'JSON', 'signature': 'VARCHAR[]', '_extra': 'JSON'});
CREATE OR REPLACE TABLE "CastMember" AS SELECT * FROM read_json('CastMember.ndjson', format = 'newline_delimited',
    columns = {'movieId': 'VARCHAR', 'actorId': 'VARCHAR', 'character': 'VARCHAR', 'billing': 'BIGINT', '_extra': 'JSON'});
CREATE OR REPLACE TABLE "MonthlyStreams" AS SELECT * FROM read_json('MonthlyStreams.ndjson', format = 'newline_delimited',
    columns = {'movieId': 'VARCHAR', 'month': 'VARCHAR', 'streams': 'BIGINT', '_extra': 'JSON'});
CREATE OR REPLACE TABLE "Stream" AS SELECT * FROM read_json('Stream.ndjson', format = 'newline_delimited',
    columns = {'movieId': 'VARCHAR', 'streamedAt': 'VARCHAR', 'streamId': 'VARCHAR', 'userId': 'VARCHAR', 'seconds': 'BIGINT', '_extra': 'JSON'});
