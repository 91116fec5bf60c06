-- Loads every entity file with exact types. Run it from the output folder:
--   duckdb my.db < _ddbpipe/schema/load.duckdb.sql
CREATE OR REPLACE TABLE "Thing" AS SELECT * FROM read_csv('Thing.csv', header = true, auto_detect = false, delim = ',', quote = '"', escape = '"', allow_quoted_nulls = false,
    columns = {'id': 'VARCHAR', 'price': 'DECIMAL(5,2)', 'qty': 'BIGINT', 'big': 'DECIMAL(38,0)', 'ratio': 'DECIMAL(30,10)', 'free': 'DECIMAL(38,2)', '_extra': 'JSON'});
