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

// seenSequences is the FROM and WHERE clauses of the sequences a MySQL
// client sees (SHOW TABLES, information_schema's TABLES and SEQUENCES):
// s their pg_sequence rows, c their pg_class rows and n their schemas'.
// As MariaDB lists a user only the tables it holds some privilege on, and
// PostgreSQL's information_schema.sequences a role only the sequences it
// owns (or is a member of the owner of) or holds a privilege on, a role
// sees a sequence that has_sequence_privilege says it holds SELECT,
// UPDATE or USAGE on: which it does as the owner, a member of the owner
// or a grantee, or as a superuser. By OID, which needs no USAGE on the
// schema (by name it would). The sequences are kept before they are
// joined: a role that sees few pays a join for those only (a join costs
// about three times the scan of pg_sequences).
var seenSequences = ` FROM (SELECT * FROM pg_catalog.pg_sequence WHERE has_sequence_privilege(seqrelid, 'SELECT, UPDATE, USAGE')) AS s
 JOIN pg_catalog.pg_class c ON c.oid = s.seqrelid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
 WHERE ` + mysqlSchemas("n.nspname")

// infoSchema are the information_schema tables answered, by lower-case
// name: SCHEMATA and TABLES as MariaDB 10.11 shows them (a sequence's
// TABLE_TYPE is SEQUENCE; the sizes and times MariaDB's storage keeps
// are 0 and NULL), and SEQUENCES as TiDB shows it (MariaDB 10.11 has no
// such table). TABLES and SEQUENCES list the sequences the role sees
// (seenSequences); no table shows a position (pg_sequences' last_value,
// which a role reads only with SELECT or USAGE): they are made of names
// and options alone.
var infoSchema = map[string]*infoTable{
	"schemata": {
		rel: `(SELECT 'def' AS catalog_name, 'information_schema' AS schema_name, 'utf8mb3' AS default_character_set_name,
 'utf8mb3_general_ci' AS default_collation_name, NULL AS sql_path, '' AS schema_comment
 UNION ALL SELECT 'def', nspname, 'utf8mb4', 'utf8mb4_general_ci', NULL, ''
 FROM pg_catalog.pg_namespace WHERE ` + mysqlSchemas("nspname") + `)`,
		cols: []string{"CATALOG_NAME", "SCHEMA_NAME", "DEFAULT_CHARACTER_SET_NAME", "DEFAULT_COLLATION_NAME", "SQL_PATH", "SCHEMA_COMMENT"},
	},
	"tables": {
		rel: `(SELECT 'def' AS table_catalog, n.nspname AS table_schema, c.relname AS table_name, 'SEQUENCE' AS table_type,
 'InnoDB' AS engine, 10 AS version, 'Fixed' AS row_format, 1 AS table_rows, 0 AS avg_row_length, 0 AS data_length,
 0 AS max_data_length, 0 AS index_length, 0 AS data_free, NULL AS auto_increment, NULL AS create_time, NULL AS update_time,
 NULL AS check_time, 'utf8mb4_general_ci' AS table_collation, NULL AS checksum, '' AS create_options, '' AS table_comment,
 0 AS max_index_length, 'N' AS temporary` + seenSequences + `)`,
		cols: []string{"TABLE_CATALOG", "TABLE_SCHEMA", "TABLE_NAME", "TABLE_TYPE", "ENGINE", "VERSION", "ROW_FORMAT", "TABLE_ROWS",
			"AVG_ROW_LENGTH", "DATA_LENGTH", "MAX_DATA_LENGTH", "INDEX_LENGTH", "DATA_FREE", "AUTO_INCREMENT", "CREATE_TIME",
			"UPDATE_TIME", "CHECK_TIME", "TABLE_COLLATION", "CHECKSUM", "CREATE_OPTIONS", "TABLE_COMMENT", "MAX_INDEX_LENGTH", "TEMPORARY"},
	},
	"sequences": {
		rel: `(SELECT 'def' AS table_catalog, n.nspname AS sequence_schema, c.relname AS sequence_name,
 CASE WHEN s.seqcache > 1 THEN 1 ELSE 0 END AS cache, CASE WHEN s.seqcache > 1 THEN s.seqcache END AS cache_value,
 CASE WHEN s.seqcycle THEN 1 ELSE 0 END AS cycle, s.seqincrement AS increment, s.seqmax AS max_value, s.seqmin AS min_value,
 s.seqstart AS start, '' AS comment` + seenSequences + `)`,
		cols: []string{"TABLE_CATALOG", "SEQUENCE_SCHEMA", "SEQUENCE_NAME", "CACHE", "CACHE_VALUE", "CYCLE", "INCREMENT", "MAX_VALUE",
			"MIN_VALUE", "START", "COMMENT"},
	},
}
