package mysqlwire

// infoTable is an information_schema table seqd answers over MySQL's
// protocol: rel, a relation over PostgreSQL's catalog with the table's
// columns (lower case, as column references are lowered), and cols, the
// columns' names as SELECT * shows them.
type infoTable struct {
	rel  string
	cols []string
}

// mysqlSchemas is the condition on a schema name column that keeps the
// schemas a MySQL client sees as databases (PostgreSQL's own and the
// temporary ones are not).
func mysqlSchemas(col string) string {
	return col + " <> 'pg_catalog' AND " + col + " <> 'information_schema' AND " + col + " NOT LIKE 'pg\\_%'"
}

// infoSchema are the information_schema tables answered, by lower-case
// name: SCHEMATA and TABLES as MariaDB 10.11 shows them (a sequence's
// TABLE_TYPE is SEQUENCE; the sizes and times MariaDB's storage keeps
// are 0 and NULL), and SEQUENCES as TiDB shows it (MariaDB 10.11 has no
// such table). Every role sees every sequence, as in PostgreSQL's
// pg_sequences and SHOW TABLES, and no table shows a position
// (pg_sequences' last_value, which a role reads only with SELECT or
// USAGE): they are made of names and options alone.
var infoSchema = map[string]*infoTable{
	"schemata": {
		rel: `(SELECT 'def' AS catalog_name, 'information_schema' AS schema_name, 'utf8mb3' AS default_character_set_name,
 'utf8mb3_general_ci' AS default_collation_name, NULL AS sql_path, '' AS schema_comment
 UNION ALL SELECT 'def', nspname, 'utf8mb4', 'utf8mb4_general_ci', NULL, ''
 FROM pg_catalog.pg_namespace WHERE ` + mysqlSchemas("nspname") + `)`,
		cols: []string{"CATALOG_NAME", "SCHEMA_NAME", "DEFAULT_CHARACTER_SET_NAME", "DEFAULT_COLLATION_NAME", "SQL_PATH", "SCHEMA_COMMENT"},
	},
	"tables": {
		rel: `(SELECT 'def' AS table_catalog, schemaname AS table_schema, sequencename AS table_name, 'SEQUENCE' AS table_type,
 'InnoDB' AS engine, 10 AS version, 'Fixed' AS row_format, 1 AS table_rows, 0 AS avg_row_length, 0 AS data_length,
 0 AS max_data_length, 0 AS index_length, 0 AS data_free, NULL AS auto_increment, NULL AS create_time, NULL AS update_time,
 NULL AS check_time, 'utf8mb4_general_ci' AS table_collation, NULL AS checksum, '' AS create_options, '' AS table_comment,
 0 AS max_index_length, 'N' AS temporary
 FROM pg_catalog.pg_sequences WHERE ` + mysqlSchemas("schemaname") + `)`,
		cols: []string{"TABLE_CATALOG", "TABLE_SCHEMA", "TABLE_NAME", "TABLE_TYPE", "ENGINE", "VERSION", "ROW_FORMAT", "TABLE_ROWS",
			"AVG_ROW_LENGTH", "DATA_LENGTH", "MAX_DATA_LENGTH", "INDEX_LENGTH", "DATA_FREE", "AUTO_INCREMENT", "CREATE_TIME",
			"UPDATE_TIME", "CHECK_TIME", "TABLE_COLLATION", "CHECKSUM", "CREATE_OPTIONS", "TABLE_COMMENT", "MAX_INDEX_LENGTH", "TEMPORARY"},
	},
	"sequences": {
		rel: `(SELECT 'def' AS table_catalog, schemaname AS sequence_schema, sequencename AS sequence_name,
 CASE WHEN cache_size > 1 THEN 1 ELSE 0 END AS cache, CASE WHEN cache_size > 1 THEN cache_size END AS cache_value,
 CASE WHEN cycle THEN 1 ELSE 0 END AS cycle, increment_by AS increment, max_value, min_value, start_value AS start, '' AS comment
 FROM pg_catalog.pg_sequences WHERE ` + mysqlSchemas("schemaname") + `)`,
		cols: []string{"TABLE_CATALOG", "SEQUENCE_SCHEMA", "SEQUENCE_NAME", "CACHE", "CACHE_VALUE", "CYCLE", "INCREMENT", "MAX_VALUE",
			"MIN_VALUE", "START", "COMMENT"},
	},
}
