-- Loads every entity file with exact types. Run it from the output folder:
--   duckdb my.db < _ddbpipe/schema/load.duckdb.sql
CREATE OR REPLACE TABLE "WeekdayCapacity" AS SELECT * FROM read_json('WeekdayCapacity.ndjson.gz', format = 'newline_delimited',
    columns = {'facilityId': 'VARCHAR', 'weekday': 'VARCHAR', 'capacity': 'BIGINT', 'description': 'VARCHAR', '_extra': 'JSON'});
CREATE OR REPLACE TABLE "DateCapacity" AS SELECT * FROM read_json('DateCapacity.ndjson.gz', format = 'newline_delimited',
    columns = {'facilityId': 'VARCHAR', 'date': 'DATE', 'capacity': 'BIGINT', 'description': 'VARCHAR', '_extra': 'JSON'});
