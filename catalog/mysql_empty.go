package catalog

import (
	"slices"
	"strings"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/eval"
)

// information_schema's tables of what seqd does not have, as MariaDB
// 10.11 declares them: tablespace files (FILES), stored routines and
// their parameters (ROUTINES, PARAMETERS), events, triggers, views and
// grants on columns (COLUMN_PRIVILEGES) are empty; PARTITIONS has, as MariaDB's, one row for each table that
// is not partitioned, here each sequence the role sees, its partition
// columns NULL (its sizes 0 and times NULL, as TABLES'). mariadb-dump
// reads FILES and PARTITIONS for tablespaces, and SHOW FUNCTION STATUS,
// SHOW PROCEDURE STATUS and SHOW EVENTS are ROUTINES and EVENTS under
// other names.

// MariaDBColumn is a column of one of these tables as MariaDB 10.11's
// information_schema.COLUMNS shows it: its COLUMN_TYPE (`varchar(64)`,
// `bigint(21) unsigned`, `datetime`) and whether it is NOT NULL.
type MariaDBColumn struct {
	Name, Type string
	NotNull    bool
}

// mariadbEmptyTables are the tables' columns, in MariaDB's order, each
// "NAME type NO|YES" (YES: nullable).
var mariadbEmptyTables = map[string][]string{
	"files": {"FILE_ID bigint(4) NO", "FILE_NAME varchar(512) YES", "FILE_TYPE varchar(20) NO", "TABLESPACE_NAME varchar(64) YES",
		"TABLE_CATALOG varchar(64) NO", "TABLE_SCHEMA varchar(64) YES", "TABLE_NAME varchar(64) YES", "LOGFILE_GROUP_NAME varchar(64) YES",
		"LOGFILE_GROUP_NUMBER bigint(4) YES", "ENGINE varchar(64) NO", "FULLTEXT_KEYS varchar(64) YES", "DELETED_ROWS bigint(4) YES",
		"UPDATE_COUNT bigint(4) YES", "FREE_EXTENTS bigint(4) YES", "TOTAL_EXTENTS bigint(4) YES", "EXTENT_SIZE bigint(4) NO",
		"INITIAL_SIZE bigint(21) unsigned YES", "MAXIMUM_SIZE bigint(21) unsigned YES", "AUTOEXTEND_SIZE bigint(21) unsigned YES",
		"CREATION_TIME datetime YES", "LAST_UPDATE_TIME datetime YES", "LAST_ACCESS_TIME datetime YES", "RECOVER_TIME bigint(4) YES",
		"TRANSACTION_COUNTER bigint(4) YES", "VERSION bigint(21) unsigned YES", "ROW_FORMAT varchar(10) YES",
		"TABLE_ROWS bigint(21) unsigned YES", "AVG_ROW_LENGTH bigint(21) unsigned YES", "DATA_LENGTH bigint(21) unsigned YES",
		"MAX_DATA_LENGTH bigint(21) unsigned YES", "INDEX_LENGTH bigint(21) unsigned YES", "DATA_FREE bigint(21) unsigned YES",
		"CREATE_TIME datetime YES", "UPDATE_TIME datetime YES", "CHECK_TIME datetime YES", "CHECKSUM bigint(21) unsigned YES",
		"STATUS varchar(20) NO", "EXTRA varchar(255) YES"},
	"partitions": {"TABLE_CATALOG varchar(512) NO", "TABLE_SCHEMA varchar(64) NO", "TABLE_NAME varchar(64) NO",
		"PARTITION_NAME varchar(64) YES", "SUBPARTITION_NAME varchar(64) YES", "PARTITION_ORDINAL_POSITION bigint(21) unsigned YES",
		"SUBPARTITION_ORDINAL_POSITION bigint(21) unsigned YES", "PARTITION_METHOD varchar(18) YES", "SUBPARTITION_METHOD varchar(12) YES",
		"PARTITION_EXPRESSION longtext YES", "SUBPARTITION_EXPRESSION longtext YES", "PARTITION_DESCRIPTION longtext YES",
		"TABLE_ROWS bigint(21) unsigned NO", "AVG_ROW_LENGTH bigint(21) unsigned NO", "DATA_LENGTH bigint(21) unsigned NO",
		"MAX_DATA_LENGTH bigint(21) unsigned YES", "INDEX_LENGTH bigint(21) unsigned NO", "DATA_FREE bigint(21) unsigned NO",
		"CREATE_TIME datetime YES", "UPDATE_TIME datetime YES", "CHECK_TIME datetime YES", "CHECKSUM bigint(21) unsigned YES",
		"PARTITION_COMMENT varchar(80) NO", "NODEGROUP varchar(12) NO", "TABLESPACE_NAME varchar(64) YES"},
	"routines": {"SPECIFIC_NAME varchar(64) NO", "ROUTINE_CATALOG varchar(512) NO", "ROUTINE_SCHEMA varchar(64) NO",
		"ROUTINE_NAME varchar(64) NO", "ROUTINE_TYPE varchar(13) NO", "DATA_TYPE varchar(64) NO", "CHARACTER_MAXIMUM_LENGTH int(21) YES",
		"CHARACTER_OCTET_LENGTH int(21) YES", "NUMERIC_PRECISION int(21) YES", "NUMERIC_SCALE int(21) YES",
		"DATETIME_PRECISION bigint(21) unsigned YES", "CHARACTER_SET_NAME varchar(64) YES", "COLLATION_NAME varchar(64) YES",
		"DTD_IDENTIFIER longtext YES", "ROUTINE_BODY varchar(8) NO", "ROUTINE_DEFINITION longtext YES", "EXTERNAL_NAME varchar(64) YES",
		"EXTERNAL_LANGUAGE varchar(64) YES", "PARAMETER_STYLE varchar(8) NO", "IS_DETERMINISTIC varchar(3) NO",
		"SQL_DATA_ACCESS varchar(64) NO", "SQL_PATH varchar(64) YES", "SECURITY_TYPE varchar(7) NO", "CREATED datetime NO",
		"LAST_ALTERED datetime NO", "SQL_MODE varchar(8192) NO", "ROUTINE_COMMENT longtext NO", "DEFINER varchar(384) NO",
		"CHARACTER_SET_CLIENT varchar(32) NO", "COLLATION_CONNECTION varchar(64) NO", "DATABASE_COLLATION varchar(64) NO"},
	"parameters": {"SPECIFIC_CATALOG varchar(512) NO", "SPECIFIC_SCHEMA varchar(64) NO", "SPECIFIC_NAME varchar(64) NO",
		"ORDINAL_POSITION int(21) NO", "PARAMETER_MODE varchar(5) YES", "PARAMETER_NAME varchar(64) YES", "DATA_TYPE varchar(64) NO",
		"CHARACTER_MAXIMUM_LENGTH int(21) YES", "CHARACTER_OCTET_LENGTH int(21) YES", "NUMERIC_PRECISION int(21) YES",
		"NUMERIC_SCALE int(21) YES", "DATETIME_PRECISION bigint(21) unsigned YES", "CHARACTER_SET_NAME varchar(64) YES",
		"COLLATION_NAME varchar(64) YES", "DTD_IDENTIFIER longtext NO", "ROUTINE_TYPE varchar(9) NO"},
	"events": {"EVENT_CATALOG varchar(64) NO", "EVENT_SCHEMA varchar(64) NO", "EVENT_NAME varchar(64) NO", "DEFINER varchar(384) NO",
		"TIME_ZONE varchar(64) NO", "EVENT_BODY varchar(8) NO", "EVENT_DEFINITION longtext NO", "EVENT_TYPE varchar(9) NO",
		"EXECUTE_AT datetime YES", "INTERVAL_VALUE varchar(256) YES", "INTERVAL_FIELD varchar(18) YES", "SQL_MODE varchar(8192) NO",
		"STARTS datetime YES", "ENDS datetime YES", "STATUS varchar(18) NO", "ON_COMPLETION varchar(12) NO", "CREATED datetime NO",
		"LAST_ALTERED datetime NO", "LAST_EXECUTED datetime YES", "EVENT_COMMENT varchar(64) NO", "ORIGINATOR bigint(10) NO",
		"CHARACTER_SET_CLIENT varchar(32) NO", "COLLATION_CONNECTION varchar(64) NO", "DATABASE_COLLATION varchar(64) NO"},
	"triggers": {"TRIGGER_CATALOG varchar(512) NO", "TRIGGER_SCHEMA varchar(64) NO", "TRIGGER_NAME varchar(64) NO",
		"EVENT_MANIPULATION varchar(6) NO", "EVENT_OBJECT_CATALOG varchar(512) NO", "EVENT_OBJECT_SCHEMA varchar(64) NO",
		"EVENT_OBJECT_TABLE varchar(64) NO", "ACTION_ORDER bigint(4) NO", "ACTION_CONDITION longtext YES", "ACTION_STATEMENT longtext YES",
		"ACTION_ORIENTATION varchar(9) NO", "ACTION_TIMING varchar(6) NO", "ACTION_REFERENCE_OLD_TABLE varchar(64) YES",
		"ACTION_REFERENCE_NEW_TABLE varchar(64) YES", "ACTION_REFERENCE_OLD_ROW varchar(3) NO", "ACTION_REFERENCE_NEW_ROW varchar(3) NO",
		"CREATED datetime(2) YES", "SQL_MODE varchar(8192) NO", "DEFINER varchar(384) YES", "CHARACTER_SET_CLIENT varchar(32) NO",
		"COLLATION_CONNECTION varchar(64) NO", "DATABASE_COLLATION varchar(64) NO"},
	"columns": {"TABLE_CATALOG varchar(512) NO", "TABLE_SCHEMA varchar(64) NO", "TABLE_NAME varchar(64) NO", "COLUMN_NAME varchar(64) NO",
		"ORDINAL_POSITION bigint(21) unsigned NO", "COLUMN_DEFAULT longtext YES", "IS_NULLABLE varchar(3) NO", "DATA_TYPE varchar(64) NO",
		"CHARACTER_MAXIMUM_LENGTH bigint(21) unsigned YES", "CHARACTER_OCTET_LENGTH bigint(21) unsigned YES",
		"NUMERIC_PRECISION bigint(21) unsigned YES", "NUMERIC_SCALE bigint(21) unsigned YES", "DATETIME_PRECISION bigint(21) unsigned YES",
		"CHARACTER_SET_NAME varchar(32) YES", "COLLATION_NAME varchar(64) YES", "COLUMN_TYPE longtext NO", "COLUMN_KEY varchar(3) NO",
		"EXTRA varchar(80) NO", "PRIVILEGES varchar(80) NO", "COLUMN_COMMENT varchar(1024) NO", "IS_GENERATED varchar(6) NO",
		"GENERATION_EXPRESSION longtext YES"},
	"statistics": {"TABLE_CATALOG varchar(512) NO", "TABLE_SCHEMA varchar(64) NO", "TABLE_NAME varchar(64) NO", "NON_UNIQUE bigint(1) NO",
		"INDEX_SCHEMA varchar(64) NO", "INDEX_NAME varchar(64) NO", "SEQ_IN_INDEX int(2) unsigned NO", "COLUMN_NAME varchar(64) NO",
		"COLLATION varchar(1) YES", "CARDINALITY bigint(21) YES", "SUB_PART bigint(3) YES", "PACKED varchar(10) YES",
		"NULLABLE varchar(3) NO", "INDEX_TYPE varchar(16) NO", "COMMENT varchar(16) YES", "INDEX_COMMENT varchar(1024) NO",
		"IGNORED varchar(3) NO"},
	"key_column_usage": {"CONSTRAINT_CATALOG varchar(512) NO", "CONSTRAINT_SCHEMA varchar(64) NO", "CONSTRAINT_NAME varchar(64) NO",
		"TABLE_CATALOG varchar(512) NO", "TABLE_SCHEMA varchar(64) NO", "TABLE_NAME varchar(64) NO", "COLUMN_NAME varchar(64) NO",
		"ORDINAL_POSITION bigint(10) NO", "POSITION_IN_UNIQUE_CONSTRAINT bigint(10) YES", "REFERENCED_TABLE_SCHEMA varchar(64) YES",
		"REFERENCED_TABLE_NAME varchar(64) YES", "REFERENCED_COLUMN_NAME varchar(64) YES"},
	"table_constraints": {"CONSTRAINT_CATALOG varchar(512) NO", "CONSTRAINT_SCHEMA varchar(64) NO", "CONSTRAINT_NAME varchar(64) NO",
		"TABLE_SCHEMA varchar(64) NO", "TABLE_NAME varchar(64) NO", "CONSTRAINT_TYPE varchar(64) NO"},
	"referential_constraints": {"CONSTRAINT_CATALOG varchar(512) NO", "CONSTRAINT_SCHEMA varchar(64) NO", "CONSTRAINT_NAME varchar(64) NO",
		"UNIQUE_CONSTRAINT_CATALOG varchar(512) NO", "UNIQUE_CONSTRAINT_SCHEMA varchar(64) NO", "UNIQUE_CONSTRAINT_NAME varchar(64) YES",
		"MATCH_OPTION varchar(64) NO", "UPDATE_RULE varchar(64) NO", "DELETE_RULE varchar(64) NO", "TABLE_NAME varchar(64) NO",
		"REFERENCED_TABLE_NAME varchar(64) YES"},
	"check_constraints": {"CONSTRAINT_CATALOG varchar(512) NO", "CONSTRAINT_SCHEMA varchar(64) NO", "TABLE_NAME varchar(64) NO",
		"CONSTRAINT_NAME varchar(64) NO", "LEVEL varchar(6) NO", "CHECK_CLAUSE longtext NO"},
	"engines": {"ENGINE varchar(64) NO", "SUPPORT varchar(8) NO", "COMMENT varchar(160) NO", "TRANSACTIONS varchar(3) YES",
		"XA varchar(3) YES", "SAVEPOINTS varchar(3) YES"},
	"character_sets": {"CHARACTER_SET_NAME varchar(32) NO", "DEFAULT_COLLATE_NAME varchar(64) NO", "DESCRIPTION varchar(60) NO",
		"MAXLEN bigint(3) NO"},
	"collations": {"COLLATION_NAME varchar(64) NO", "CHARACTER_SET_NAME varchar(32) YES", "ID bigint(11) YES",
		"IS_DEFAULT varchar(3) YES", "IS_COMPILED varchar(3) NO", "SORTLEN bigint(3) NO"},
	"processlist": {"ID bigint(4) NO", "USER varchar(128) NO", "HOST varchar(64) NO", "DB varchar(64) YES", "COMMAND varchar(16) NO",
		"TIME int(7) NO", "STATE varchar(64) YES", "INFO longtext YES", "TIME_MS decimal(22,3) NO", "STAGE tinyint(2) NO",
		"MAX_STAGE tinyint(2) NO", "PROGRESS decimal(7,3) NO", "MEMORY_USED bigint(7) NO", "MAX_MEMORY_USED bigint(7) NO",
		"EXAMINED_ROWS int(7) NO", "QUERY_ID bigint(4) NO", "INFO_BINARY blob YES", "TID bigint(4) NO"},
	"plugins":         pluginColumns,
	"all_plugins":     pluginColumns,
	"user_privileges": {"GRANTEE varchar(385) NO", "TABLE_CATALOG varchar(512) NO", "PRIVILEGE_TYPE varchar(64) NO", "IS_GRANTABLE varchar(3) NO"},
	"schema_privileges": {"GRANTEE varchar(385) NO", "TABLE_CATALOG varchar(512) NO", "TABLE_SCHEMA varchar(64) NO",
		"PRIVILEGE_TYPE varchar(64) NO", "IS_GRANTABLE varchar(3) NO"},
	"table_privileges": {"GRANTEE varchar(385) NO", "TABLE_CATALOG varchar(512) NO", "TABLE_SCHEMA varchar(64) NO",
		"TABLE_NAME varchar(64) NO", "PRIVILEGE_TYPE varchar(64) NO", "IS_GRANTABLE varchar(3) NO"},
	"column_privileges": {"GRANTEE varchar(385) NO", "TABLE_CATALOG varchar(512) NO", "TABLE_SCHEMA varchar(64) NO",
		"TABLE_NAME varchar(64) NO", "COLUMN_NAME varchar(64) NO", "PRIVILEGE_TYPE varchar(64) NO", "IS_GRANTABLE varchar(3) NO"},
	"applicable_roles": {"GRANTEE varchar(385) NO", "ROLE_NAME varchar(128) NO", "IS_GRANTABLE varchar(3) NO",
		"IS_DEFAULT varchar(3) YES"},
	"enabled_roles":     {"ROLE_NAME varchar(128) YES"},
	"keywords":          {"WORD varchar(64) YES"},
	"sql_functions":     {"FUNCTION varchar(64) YES"},
	"global_variables":  variableColumns,
	"session_variables": variableColumns,
	"global_status":     variableColumns,
	"session_status":    variableColumns,
	"system_variables": {"VARIABLE_NAME varchar(64) NO", "SESSION_VALUE varchar(2048) YES", "GLOBAL_VALUE varchar(2048) YES",
		"GLOBAL_VALUE_ORIGIN varchar(64) NO", "DEFAULT_VALUE varchar(2048) YES", "VARIABLE_SCOPE varchar(64) NO",
		"VARIABLE_TYPE varchar(64) NO", "VARIABLE_COMMENT varchar(2048) NO", "NUMERIC_MIN_VALUE varchar(21) YES",
		"NUMERIC_MAX_VALUE varchar(21) YES", "NUMERIC_BLOCK_SIZE varchar(21) YES", "ENUM_VALUE_LIST longtext YES",
		"READ_ONLY varchar(3) NO", "COMMAND_LINE_ARGUMENT varchar(64) YES", "GLOBAL_VALUE_PATH varchar(2048) YES"},
	"views": {"TABLE_CATALOG varchar(512) NO", "TABLE_SCHEMA varchar(64) NO", "TABLE_NAME varchar(64) NO", "VIEW_DEFINITION longtext NO",
		"CHECK_OPTION varchar(8) NO", "IS_UPDATABLE varchar(3) NO", "DEFINER varchar(384) NO", "SECURITY_TYPE varchar(7) NO",
		"CHARACTER_SET_CLIENT varchar(32) NO", "COLLATION_CONNECTION varchar(64) NO", "ALGORITHM varchar(10) NO"},
}

// variableColumns are GLOBAL_VARIABLES', SESSION_VARIABLES',
// GLOBAL_STATUS' and SESSION_STATUS' columns, which MariaDB declares
// alike.
var variableColumns = []string{"VARIABLE_NAME varchar(64) NO", "VARIABLE_VALUE varchar(4096) NO"}

// pluginColumns are PLUGINS' columns, and ALL_PLUGINS', which MariaDB
// declares alike.
var pluginColumns = []string{"PLUGIN_NAME varchar(64) NO", "PLUGIN_VERSION varchar(20) NO", "PLUGIN_STATUS varchar(16) NO",
	"PLUGIN_TYPE varchar(80) NO", "PLUGIN_TYPE_VERSION varchar(20) NO", "PLUGIN_LIBRARY varchar(64) YES",
	"PLUGIN_LIBRARY_VERSION varchar(20) YES", "PLUGIN_AUTHOR varchar(64) YES", "PLUGIN_DESCRIPTION longtext YES",
	"PLUGIN_LICENSE varchar(80) NO", "LOAD_OPTION varchar(64) NO", "PLUGIN_MATURITY varchar(12) NO", "PLUGIN_AUTH_VERSION varchar(80) YES"}

// MariaDBTables are the tables (lower case) whose columns MariaDBColumns
// gives, by name.
func MariaDBTables() []string {
	out := make([]string, 0, len(mariadbEmptyTables))
	for name := range mariadbEmptyTables {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// MariaDBColumns are the columns of information_schema's table (lower
// case) among those above, as MariaDB declares them; nil for another.
func MariaDBColumns(table string) []MariaDBColumn {
	specs := mariadbEmptyTables[table]
	if specs == nil {
		return nil
	}
	out := make([]MariaDBColumn, len(specs))
	for i, s := range specs {
		f := strings.Fields(s)
		out[i] = MariaDBColumn{Name: f[0], Type: strings.Join(f[1:len(f)-1], " "), NotNull: f[len(f)-1] == "NO"}
	}
	return out
}

// mariadbColumns are table's columns with the types the executor
// computes them in: a number's an integer, anything else text.
func mariadbColumns(table string) []eval.RelColumn {
	var args []any
	for _, c := range MariaDBColumns(table) {
		t := eval.TText
		switch {
		case strings.HasPrefix(c.Type, "bigint"):
			t = eval.TInt8
		case strings.HasPrefix(c.Type, "int"), strings.HasPrefix(c.Type, "tinyint"):
			t = eval.TInt4
		case strings.HasPrefix(c.Type, "decimal"):
			t = eval.TypeByOID(eval.OIDNumeric)
		}
		args = append(args, c.Name, t)
	}
	return eval.Columns(args...)
}

// mariadbServed are the rows of ENGINES, CHARACTER_SETS and COLLATIONS:
// what seqd serves, each as MariaDB 10.11 shows it. Its tables are
// sequences, shown as InnoDB's (SHOW CREATE, TABLES' ENGINE); it speaks
// utf8mb4 and binary, comparing text by utf8mb4_general_ci (the
// connections') or utf8mb4_bin. Tools read these (SHOW ENGINES, SHOW
// COLLATION, to map a collation's ID to its character set).
var mariadbServed = func() map[string][][]eval.Datum {
	t, n := eval.Text, eval.Int
	return map[string][][]eval.Datum{
		"engines": {{t("InnoDB"), t("DEFAULT"), t("Supports transactions, row-level locking, foreign keys and encryption for tables"),
			t("YES"), t("YES"), t("YES")}},
		"character_sets": {
			{t("utf8mb4"), t("utf8mb4_general_ci"), t("UTF-8 Unicode"), n(4)},
			{t("binary"), t("binary"), t("Binary pseudo charset"), n(1)},
		},
		"collations": {
			{t("utf8mb4_general_ci"), t("utf8mb4"), n(45), t("Yes"), t("Yes"), n(1)},
			{t("utf8mb4_bin"), t("utf8mb4"), n(46), t(""), t("Yes"), n(1)},
			{t("binary"), t("binary"), n(63), t("Yes"), t("Yes"), n(1)},
		},
		// The built-in plugins whose work seqd does: its two ways to
		// authenticate (caching_sha2_password, which MariaDB 10.11 has
		// not, as MySQL 8 shows it) and the engines of its tables, each
		// as MariaDB shows its own, its version seqd's (10.11.99).
		"plugins": {
			{t("mysql_native_password"), t("1.0"), t("ACTIVE"), t("AUTHENTICATION"), t("2.2"), eval.Null, eval.Null,
				t("R.J.Silk, Sergei Golubchik"), t("Native MySQL authentication"), t("GPL"), t("FORCE"), t("Stable"), t("1.0")},
			{t("caching_sha2_password"), t("1.0"), t("ACTIVE"), t("AUTHENTICATION"), t("2.2"), eval.Null, eval.Null,
				t("Oracle Corporation"), t("Caching sha2 authentication"), t("GPL"), t("FORCE"), t("Stable"), t("1.0")},
			{t("SQL_SEQUENCE"), t("1.0"), t("ACTIVE"), t("STORAGE ENGINE"), t("101199.0"), eval.Null, eval.Null,
				t("jianwei.zhao @ Aliyun & Monty @ MariaDB corp"), t("Sequence Storage Engine for CREATE SEQUENCE"), t("GPL"),
				t("FORCE"), t("Stable"), t("1.0")},
			{t("InnoDB"), t("10.11"), t("ACTIVE"), t("STORAGE ENGINE"), t("101199.0"), eval.Null, eval.Null, t("Oracle Corporation"),
				t("Supports transactions, row-level locking, foreign keys and encryption for tables"), t("GPL"), t("ON"), t("Stable"),
				t("10.11.99")},
		},
	}
}()

// mysqlMoreViews are the tables above: PARTITIONS' row of each sequence
// the role sees, the others empty.
func mysqlMoreViews() []*View {
	var out []*View
	for _, name := range []string{"events", "files", "parameters", "routines", "triggers", "views", "column_privileges",
		"statistics", "key_column_usage", "table_constraints", "referential_constraints", "check_constraints"} {
		out = append(out, &View{Schema: "information_schema", Name: name, Kind: 'v', Columns: mariadbColumns(name),
			Rows: func(Source) ([][]eval.Datum, error) { return nil, nil }})
	}
	for _, name := range []string{"engines", "character_sets", "collations", "plugins", "all_plugins"} {
		rows := mariadbServed[name]
		if name == "all_plugins" { // the plugins of the libraries in plugin_dir too: seqd loads none
			rows = mariadbServed["plugins"]
		}
		out = append(out, &View{Schema: "information_schema", Name: name, Kind: 'v', Columns: mariadbColumns(name),
			Rows: func(Source) ([][]eval.Datum, error) { return rows, nil }})
	}
	partitions := &View{Schema: "information_schema", Name: "partitions", Kind: 'v', Columns: mariadbColumns("partitions"),
		PerSequence: &PerSequence{NameCol: 2, OIDCol: -1, Row: mysqlSeen(func(i Sequence) []eval.Datum {
			null, zero := eval.Null, eval.Int(0)
			return []eval.Datum{eval.Text("def"), eval.Text(i.Name.Schema()), eval.Text(i.Name.Rel()),
				null, null, null, null, null, null, null, null, null, // no partitions
				eval.Int(1), zero, zero, null, zero, zero, null, null, null, null, eval.Text(""), eval.Text(""), null}
		})}}
	columns := &View{Schema: "information_schema", Name: "columns", Kind: 'v', Columns: mariadbColumns("columns"),
		PerSequence: &PerSequence{NameCol: 2, OIDCol: -1, Row: sequenceColumnRows}}
	processlist := &View{Schema: "information_schema", Name: "processlist", Kind: 'v', Columns: mariadbColumns("processlist"),
		Rows: processlistRows}
	for level, name := range []string{"user_privileges", "schema_privileges", "table_privileges"} {
		out = append(out, &View{Schema: "information_schema", Name: name, Kind: 'v', Columns: mariadbColumns(name), Rows: privilegeRows(level)})
	}
	out = append(out, &View{Schema: "information_schema", Name: "applicable_roles", Kind: 'v', Columns: mariadbColumns("applicable_roles"),
		Rows: applicableRoleRows}, &View{Schema: "information_schema", Name: "enabled_roles", Kind: 'v',
		Columns: mariadbColumns("enabled_roles"), Rows: enabledRoleRows})
	return append(append(out, partitions, columns, processlist), append(variableViews(), wordViews()...)...)
}

// sequenceColumnRows are COLUMNS' rows of a sequence the role sees: its
// eight columns as MariaDB 10.11 describes a sequence's table, each NOT
// NULL, without default, key or extra, with the role's privileges on it
// (MariaDBColumnPrivileges) and its comment.
func sequenceColumnRows(src Source, i Sequence) [][]eval.Datum {
	if !mysqlSees(src, i) {
		return nil
	}
	privs, err := src.SequencePrivileges(i.Name)
	if err != nil {
		return nil
	}
	all := src.Superuser()
	if acl, err := src.SequenceACL(i.Name); err == nil && src.Owner(acl) == src.User() {
		all = true
	}
	privileges := eval.Text(MariaDBColumnPrivileges(privs, all))
	null, zero := eval.Null, eval.Int(0)
	out := make([][]eval.Datum, len(MariaDBSequenceColumns))
	for k, c := range MariaDBSequenceColumns {
		dataType, precision := "bigint", int64(19)
		switch k {
		case 5: // cache_size
			precision = 20
		case 6: // cycle_option
			dataType, precision = "tinyint", 3
		}
		out[k] = []eval.Datum{eval.Text("def"), eval.Text(i.Name.Schema()), eval.Text(i.Name.Rel()), eval.Text(c.Name),
			eval.Int(int64(k + 1)), null, eval.Text("NO"), eval.Text(dataType), null, null, eval.Int(precision), zero, null,
			null, null, eval.Text(MariaDBSequenceColumnTypes[k]), eval.Text(""), eval.Text(""), privileges,
			eval.Text(MariaDBSequenceColumnComments[k]), eval.Text("NEVER"), null}
	}
	return out
}

// MariaDBSequenceColumnTypes are the types MariaDB shows of a sequence's
// columns (DESCRIBE's Type, COLUMNS' COLUMN_TYPE), in
// MariaDBSequenceColumns's order; MariaDBSequenceColumnComments their
// comments.
var (
	MariaDBSequenceColumnTypes = []string{"bigint(21)", "bigint(21)", "bigint(21)", "bigint(21)", "bigint(21)",
		"bigint(21) unsigned", "tinyint(1) unsigned", "bigint(21)"}
	MariaDBSequenceColumnComments = []string{"", "", "", "start value when sequences is created or value if RESTART is used",
		"increment value", "", "0 if no cycles are allowed, 1 if the sequence should begin a new cycle when maximum_value is passed",
		"How many cycles have been done"}
)

// MariaDBColumnPrivileges are the privileges privs on a sequence as
// MariaDB lists a user's on a table's column (SHOW FULL COLUMNS'
// Privileges, COLUMNS' PRIVILEGES): SELECT select; USAGE, by which seqd's
// NEXT VALUE FOR takes a value, insert, the privilege MariaDB's takes one
// by; UPDATE update; its owner's and a superuser's (all) every one of
// MariaDB's, references too, as MariaDB lists ALL PRIVILEGES.
func MariaDBColumnPrivileges(privs engine.Privs, all bool) string {
	if all {
		return "select,insert,update,references"
	}
	var out []string
	for _, p := range []struct {
		priv engine.Privs
		name string
	}{{engine.PrivSelect, "select"}, {engine.PrivUsage, "insert"}, {engine.PrivUpdate, "update"}} {
		if privs&p.priv != 0 {
			out = append(out, p.name)
		}
	}
	return strings.Join(out, ",")
}
