package catalog

import (
	"strconv"
	"strings"

	"github.com/seqd/seqd/eval"
)

// MySQL's system and status variables as information_schema shows them,
// as MariaDB 10.11 does: GLOBAL_VARIABLES and SESSION_VARIABLES (each
// variable's value, named in upper case, as SHOW GLOBAL and SESSION
// VARIABLES list them), SYSTEM_VARIABLES (each with MariaDB's
// description of it) and GLOBAL_STATUS and SESSION_STATUS. The values
// are the front end's, which keeps a session's variables: the Source
// gives the reading session's own (SystemVariables), never another's;
// every role reads them, as every MariaDB user does.

// SystemVariable is a system variable of the reading session's front end
// (MySQL's @@name), Name in lower case: Session is the session's value,
// Global the server's, Default what the server has without configuration,
// each as @@name gives it (a boolean 1 or 0).
type SystemVariable struct {
	Name, Session, Global, Default string
}

// mariadbVariable is MariaDB 10.11's description of one of its system
// variables, as its information_schema.SYSTEM_VARIABLES gives it: Scope
// SESSION (a session's, from the server's), GLOBAL (the server's only)
// or SESSION ONLY; Type its VARIABLE_TYPE; Min, Max, Block, Enum and
// CommandLine "" for NULL; NoDefault that DEFAULT_VALUE is NULL (a value
// the server computes: version, license, a count).
type mariadbVariable struct {
	Name, Scope, Type, Comment string
	Min, Max, Block, Enum      string
	ReadOnly                   bool
	CommandLine                string
	NoDefault                  bool
}

// mariadbVariables are MariaDB 10.11's descriptions of the variables seqd
// has, as its SYSTEM_VARIABLES gives them (mysqlwire's
// TestVariablesOracle compares them).
var mariadbVariables = []mariadbVariable{
	{Name: "autocommit", Scope: "SESSION", Type: "BOOLEAN",
		Enum:    "OFF,ON",
		Comment: "If set to 1, the default, all queries are committed immediately. If set to 0, they are only committed upon a COMMIT statement, or rolled back with a ROLLBACK statement. If autocommit is set to 0, and then changed to 1, all open transactions are immediately committed."},
	{Name: "auto_increment_increment", Scope: "SESSION", Type: "BIGINT UNSIGNED", Min: "1", Max: "65535", Block: "1", CommandLine: "OPTIONAL",
		Comment: "Auto-increment columns are incremented by this"},
	{Name: "auto_increment_offset", Scope: "SESSION", Type: "BIGINT UNSIGNED", Min: "1", Max: "65535", Block: "1", CommandLine: "OPTIONAL",
		Comment: "Offset added to Auto-increment columns. Used when auto-increment-increment != 1"},
	{Name: "character_set_client", Scope: "SESSION", Type: "ENUM",
		Comment: "The character set for statements that arrive from the client"},
	{Name: "character_set_connection", Scope: "SESSION", Type: "ENUM",
		Comment: "The character set used for literals that do not have a character set introducer and for number-to-string conversion"},
	{Name: "character_set_database", Scope: "SESSION", Type: "ENUM",
		Comment: "The character set used by the default database"},
	{Name: "character_set_results", Scope: "SESSION", Type: "ENUM",
		Comment: "The character set used for returning query results to the client"},
	{Name: "character_set_server", Scope: "SESSION", Type: "ENUM",
		Comment: "The default character set"},
	{Name: "character_set_system", Scope: "GLOBAL", Type: "ENUM", ReadOnly: true, NoDefault: true,
		Comment: "The character set used by the server for storing identifiers"},
	{Name: "collation_connection", Scope: "SESSION", Type: "ENUM",
		Comment: "The collation of the connection character set"},
	{Name: "collation_database", Scope: "SESSION", Type: "ENUM",
		Comment: "The collation of the database character set"},
	{Name: "collation_server", Scope: "SESSION", Type: "ENUM",
		Comment: "The server default collation"},
	{Name: "default_storage_engine", Scope: "SESSION", Type: "VARCHAR",
		Comment: "The default storage engine for new tables"},
	{Name: "error_count", Scope: "SESSION ONLY", Type: "BIGINT UNSIGNED", Min: "0", Max: "18446744073709551615", Block: "1", ReadOnly: true, NoDefault: true,
		Comment: "The number of errors that resulted from the last statement that generated messages"},
	{Name: "foreign_key_checks", Scope: "SESSION", Type: "BOOLEAN",
		Enum:    "OFF,ON",
		Comment: "If set to 1 (the default) foreign key constraints (including ON UPDATE and ON DELETE behavior) InnoDB tables are checked, while if set to 0, they are not checked. 0 is not recommended for normal use, though it can be useful in situations where you know the data is consistent, but want to reload data in a different order from that specified by parent/child relationships. Setting this variable to 1 does not retrospectively check for inconsistencies introduced while set to 0."},
	{Name: "have_ssl", Scope: "GLOBAL", Type: "VARCHAR", ReadOnly: true, NoDefault: true,
		Comment: "If the server supports secure connections, will be set to YES, otherwise will be set to NO. If set to DISABLED, the server was compiled with TLS support, but was not started with TLS support (see the mysqld options). See also have_openssl."},
	{Name: "init_connect", Scope: "GLOBAL", Type: "VARCHAR", CommandLine: "REQUIRED",
		Comment: "Command(s) that are executed for each new connection (unless the user has SUPER privilege)"},
	{Name: "interactive_timeout", Scope: "SESSION", Type: "BIGINT UNSIGNED", Min: "1", Max: "31536000", Block: "1", CommandLine: "REQUIRED",
		Comment: "The number of seconds the server waits for activity on an interactive connection before closing it"},
	{Name: "lc_messages", Scope: "SESSION", Type: "ENUM",
		Comment: "Set the language used for the error messages"},
	{Name: "license", Scope: "GLOBAL", Type: "VARCHAR", ReadOnly: true, NoDefault: true,
		Comment: "The type of license the server has"},
	{Name: "lower_case_table_names", Scope: "GLOBAL", Type: "INT UNSIGNED", Min: "0", Max: "2", Block: "1", CommandLine: "OPTIONAL", ReadOnly: true,
		Comment: "If set to 1 table names are stored in lowercase on disk and table names will be case-insensitive.  Should be set to 2 if you are using a case insensitive file system"},
	{Name: "max_allowed_packet", Scope: "SESSION", Type: "BIGINT UNSIGNED", Min: "1024", Max: "1073741824", Block: "1024", CommandLine: "REQUIRED",
		Comment: "Max packet length to send to or receive from the server"},
	{Name: "max_prepared_stmt_count", Scope: "GLOBAL", Type: "INT UNSIGNED", Min: "0", Max: "4294967295", Block: "1", CommandLine: "REQUIRED",
		Comment: "Maximum number of prepared statements in the server"},
	{Name: "max_statement_time", Scope: "SESSION", Type: "DOUBLE", Min: "0", Max: "31536000", CommandLine: "REQUIRED",
		Comment: "A query that has taken more than max_statement_time seconds will be aborted. The argument will be treated as a decimal value with microsecond precision. A value of 0 (default) means no timeout"},
	{Name: "net_buffer_length", Scope: "SESSION", Type: "BIGINT UNSIGNED", Min: "1024", Max: "1048576", Block: "1024", CommandLine: "REQUIRED",
		Comment: "Buffer length for TCP/IP and socket communication"},
	{Name: "net_read_timeout", Scope: "SESSION", Type: "BIGINT UNSIGNED", Min: "1", Max: "31536000", Block: "1", CommandLine: "REQUIRED",
		Comment: "Number of seconds to wait for more data from a connection before aborting the read"},
	{Name: "net_write_timeout", Scope: "SESSION", Type: "BIGINT UNSIGNED", Min: "1", Max: "31536000", Block: "1", CommandLine: "REQUIRED",
		Comment: "Number of seconds to wait for a block to be written to a connection before aborting the write"},
	{Name: "optimizer_switch", Scope: "SESSION", Type: "FLAGSET", CommandLine: "REQUIRED",
		Enum:    "index_merge,index_merge_union,index_merge_sort_union,index_merge_intersection,index_merge_sort_intersection,engine_condition_pushdown,index_condition_pushdown,derived_merge,derived_with_keys,firstmatch,loosescan,materialization,in_to_exists,semijoin,partial_match_rowid_merge,partial_match_table_scan,subquery_cache,mrr,mrr_cost_based,mrr_sort_keys,outer_join_with_cache,semijoin_with_cache,join_cache_incremental,join_cache_hashed,join_cache_bka,optimize_join_buffer_size,table_elimination,extended_keys,exists_to_in,orderby_uses_equalities,condition_pushdown_for_derived,split_materialized,condition_pushdown_for_subquery,rowid_filter,condition_pushdown_from_having,not_null_range_scan,hash_join_cardinality,cset_narrowing,default",
		Comment: "Fine-tune the optimizer behavior"},
	{Name: "performance_schema", Scope: "GLOBAL", Type: "BOOLEAN", CommandLine: "OPTIONAL", ReadOnly: true,
		Enum:    "OFF,ON",
		Comment: "Enable the performance schema."},
	{Name: "query_cache_size", Scope: "GLOBAL", Type: "BIGINT UNSIGNED", Min: "0", Max: "18446744073709551615", Block: "1024", CommandLine: "REQUIRED",
		Comment: "The memory allocated to store results from old queries"},
	{Name: "query_cache_type", Scope: "SESSION", Type: "ENUM", CommandLine: "REQUIRED",
		Enum:    "OFF,ON,DEMAND",
		Comment: "OFF = Don't cache or retrieve results. ON = Cache all results except SELECT SQL_NO_CACHE ... queries. DEMAND = Cache only SELECT SQL_CACHE ... queries"},
	{Name: "session_track_schema", Scope: "SESSION", Type: "BOOLEAN", CommandLine: "OPTIONAL",
		Enum:    "OFF,ON",
		Comment: "Track changes to the default schema."},
	{Name: "session_track_state_change", Scope: "SESSION", Type: "BOOLEAN", CommandLine: "OPTIONAL",
		Enum:    "OFF,ON",
		Comment: "Track changes to the session state."},
	{Name: "session_track_system_variables", Scope: "SESSION", Type: "VARCHAR", CommandLine: "REQUIRED",
		Comment: "Track changes in registered system variables. "},
	{Name: "session_track_transaction_info", Scope: "SESSION", Type: "ENUM", CommandLine: "REQUIRED",
		Enum:    "OFF,STATE,CHARACTERISTICS",
		Comment: "Track changes to the transaction attributes. OFF to disable; STATE to track just transaction state (Is there an active transaction? Does it have any data? etc.); CHARACTERISTICS to track transaction state and report all statements needed to start a transaction with the same characteristics (isolation level, read only/read write,snapshot - but not any work done / data modified within the transaction)."},
	{Name: "sql_auto_is_null", Scope: "SESSION", Type: "BOOLEAN",
		Enum:    "OFF,ON",
		Comment: "If set to 1, the query SELECT * FROM table_name WHERE auto_increment_column IS NULL will return an auto-increment that has just been successfully inserted, the same as the LAST_INSERT_ID() function. Some ODBC programs make use of this IS NULL comparison."},
	{Name: "sql_mode", Scope: "SESSION", Type: "SET", CommandLine: "REQUIRED",
		Enum:    "REAL_AS_FLOAT,PIPES_AS_CONCAT,ANSI_QUOTES,IGNORE_SPACE,IGNORE_BAD_TABLE_OPTIONS,ONLY_FULL_GROUP_BY,NO_UNSIGNED_SUBTRACTION,NO_DIR_IN_CREATE,POSTGRESQL,ORACLE,MSSQL,DB2,MAXDB,NO_KEY_OPTIONS,NO_TABLE_OPTIONS,NO_FIELD_OPTIONS,MYSQL323,MYSQL40,ANSI,NO_AUTO_VALUE_ON_ZERO,NO_BACKSLASH_ESCAPES,STRICT_TRANS_TABLES,STRICT_ALL_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ALLOW_INVALID_DATES,ERROR_FOR_DIVISION_BY_ZERO,TRADITIONAL,NO_AUTO_CREATE_USER,HIGH_NOT_PRECEDENCE,NO_ENGINE_SUBSTITUTION,PAD_CHAR_TO_FULL_LENGTH,EMPTY_STRING_IS_NULL,SIMULTANEOUS_ASSIGNMENT,TIME_ROUND_FRACTIONAL",
		Comment: "Sets the sql mode"},
	{Name: "sql_notes", Scope: "SESSION", Type: "BOOLEAN",
		Enum:    "OFF,ON",
		Comment: "If set to 1, the default, warning_count is incremented each time a Note warning is encountered. If set to 0, Note warnings are not recorded. mysqldump has outputs to set this variable to 0 so that no unnecessary increments occur when data is reloaded. See also note_verbosity, which allows one to define with notes are sent."},
	{Name: "sql_select_limit", Scope: "SESSION", Type: "BIGINT UNSIGNED", Min: "0", Max: "18446744073709551615", Block: "1",
		Comment: "The maximum number of rows to return from SELECT statements"},
	{Name: "storage_engine", Scope: "SESSION", Type: "VARCHAR",
		Comment: "Alias for @@default_storage_engine. Deprecated"},
	{Name: "system_time_zone", Scope: "GLOBAL", Type: "VARCHAR", ReadOnly: true, NoDefault: true,
		Comment: "The server system time zone"},
	{Name: "time_zone", Scope: "SESSION", Type: "VARCHAR",
		Comment: "The current time zone, used to initialize the time zone for a client when it connects. Set to SYSTEM by default, in which the client uses the system time zone value."},
	{Name: "tx_isolation", Scope: "SESSION", Type: "ENUM",
		Enum:    "READ-UNCOMMITTED,READ-COMMITTED,REPEATABLE-READ,SERIALIZABLE",
		Comment: "Default transaction isolation level"},
	{Name: "tx_read_only", Scope: "SESSION", Type: "BOOLEAN",
		Enum:    "OFF,ON",
		Comment: "Default transaction access mode. If set to OFF, the default, access is read/write. If set to ON, access is read-only. The SET TRANSACTION statement can also change the value of this variable. See SET TRANSACTION and START TRANSACTION."},
	{Name: "unique_checks", Scope: "SESSION", Type: "BOOLEAN",
		Enum:    "OFF,ON",
		Comment: "If set to 1, the default, secondary indexes in InnoDB tables are performed. If set to 0, storage engines can (but are not required to) assume that duplicate keys are not present in input data. Set to 0 to speed up imports of large tables to InnoDB. The storage engine will still issue a duplicate key error if it detects one, even if set to 0."},
	{Name: "version", Scope: "GLOBAL", Type: "VARCHAR", ReadOnly: true, NoDefault: true,
		Comment: "Server version number. It may also include a suffix with configuration or build information. -debug indicates debugging support was enabled on the server, and -log indicates at least one of the binary log, general log or slow query log are enabled, for example 10.1.1-MariaDB-mariadb1precise-log."},
	{Name: "version_comment", Scope: "GLOBAL", Type: "VARCHAR", ReadOnly: true, NoDefault: true,
		Comment: "Value of the COMPILATION_COMMENT option specified by CMake when building MariaDB, for example mariadb.org binary distribution."},
	{Name: "version_compile_machine", Scope: "GLOBAL", Type: "VARCHAR", ReadOnly: true, NoDefault: true,
		Comment: "The machine type or architecture MariaDB was built on, for example i686."},
	{Name: "version_compile_os", Scope: "GLOBAL", Type: "VARCHAR", ReadOnly: true, NoDefault: true,
		Comment: "Operating system that MariaDB was built on, for example debian-linux-gnu."},
	{Name: "wait_timeout", Scope: "SESSION", Type: "BIGINT UNSIGNED", Min: "1", Max: "31536000", Block: "1", CommandLine: "REQUIRED",
		Comment: "The number of seconds the server waits for activity on a connection before closing it"},
	{Name: "warning_count", Scope: "SESSION ONLY", Type: "BIGINT UNSIGNED", Min: "0", Max: "18446744073709551615", Block: "1", ReadOnly: true, NoDefault: true,
		Comment: "The number of errors, warnings, and notes that resulted from the last statement that generated messages"},
}

// mariadbVariableNamed is the description of a variable (lower case),
// nil for one MariaDB 10.11 has not.
func mariadbVariableNamed(name string) *mariadbVariable { return mariadbVariablesByName[name] }

// mariadbVariablesByName are mariadbVariables by name.
var mariadbVariablesByName = func() map[string]*mariadbVariable {
	out := make(map[string]*mariadbVariable, len(mariadbVariables))
	for i := range mariadbVariables {
		out[mariadbVariables[i].Name] = &mariadbVariables[i]
	}
	return out
}()

// MariaDBVariableScope is a variable's VARIABLE_SCOPE (SESSION, GLOBAL or
// SESSION ONLY); SESSION for one MariaDB 10.11 has not.
func MariaDBVariableScope(name string) string {
	if v := mariadbVariableNamed(name); v != nil {
		return v.Scope
	}
	return "SESSION"
}

// MariaDBShownValue is the value v of a variable (lower case) as SHOW
// VARIABLES and information_schema show it, where it is not as @@name
// gives it: a BOOLEAN's 1 and 0 ON and OFF, a DOUBLE with six decimals.
func MariaDBShownValue(name, v string) string {
	d := mariadbVariableNamed(name)
	if d == nil {
		return v
	}
	switch d.Type {
	case "BOOLEAN":
		switch v {
		case "1":
			return "ON"
		case "0":
			return "OFF"
		}
	case "DOUBLE":
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			return strconv.FormatFloat(f, 'f', 6, 64)
		}
	}
	return v
}

// MariaDBStatus are the status variables seqd shows (SHOW STATUS, and
// information_schema's GLOBAL_STATUS and SESSION_STATUS, in upper case),
// MariaDB's without a binary log, which seqd has not: mariadb-dump
// --master-data --single-transaction reads them. seqd keeps none of
// MariaDB's other counters.
var MariaDBStatus = [][2]string{{"Binlog_snapshot_file", ""}, {"Binlog_snapshot_position", "0"}}

// variableRows are GLOBAL_VARIABLES' rows (global) or SESSION_VARIABLES':
// each variable's name in upper case and its value as SHOW VARIABLES
// shows it; GLOBAL_VARIABLES has no SESSION ONLY variable (a session's
// counts), SESSION_VARIABLES a GLOBAL one's server value.
func variableRows(global bool) func(Source) ([][]eval.Datum, error) {
	return func(src Source) ([][]eval.Datum, error) {
		var out [][]eval.Datum
		for _, v := range src.SystemVariables() {
			value := v.Session
			if global {
				if MariaDBVariableScope(v.Name) == "SESSION ONLY" {
					continue
				}
				value = v.Global
			}
			out = append(out, []eval.Datum{eval.Text(strings.ToUpper(v.Name)), eval.Text(MariaDBShownValue(v.Name, value))})
		}
		return out, nil
	}
}

// systemVariableRows are SYSTEM_VARIABLES' rows: each variable MariaDB
// 10.11 describes, with its description, and seqd's values: the
// session's (NULL for a GLOBAL one), the server's (NULL for a SESSION
// ONLY one) and its default (NULL where MariaDB's is), shown as SHOW
// VARIABLES shows them. GLOBAL_VALUE_ORIGIN is COMPILE-TIME where the
// server's value is the default, else COMMAND-LINE (seqd's flags set
// it); seqd reads no configuration file, so GLOBAL_VALUE_PATH is NULL.
func systemVariableRows(src Source) ([][]eval.Datum, error) {
	var out [][]eval.Datum
	text := func(s string) eval.Datum {
		if s == "" {
			return eval.Null
		}
		return eval.Text(s)
	}
	for _, v := range src.SystemVariables() {
		d := mariadbVariableNamed(v.Name)
		if d == nil {
			continue
		}
		session, global, def := eval.Text(MariaDBShownValue(v.Name, v.Session)), eval.Text(MariaDBShownValue(v.Name, v.Global)),
			eval.Text(MariaDBShownValue(v.Name, v.Default))
		switch d.Scope {
		case "GLOBAL":
			session = eval.Null
		case "SESSION ONLY":
			global = eval.Null
		}
		if d.NoDefault {
			def = eval.Null
		}
		origin := "COMPILE-TIME"
		if v.Global != v.Default && d.Scope != "SESSION ONLY" {
			origin = "COMMAND-LINE"
		}
		out = append(out, []eval.Datum{eval.Text(strings.ToUpper(v.Name)), session, global, eval.Text(origin), def, eval.Text(d.Scope),
			eval.Text(d.Type), eval.Text(d.Comment), text(d.Min), text(d.Max), text(d.Block), text(d.Enum), YesNo(d.ReadOnly),
			text(d.CommandLine), eval.Null})
	}
	return out, nil
}

// statusRows are GLOBAL_STATUS' and SESSION_STATUS' rows: MariaDBStatus,
// named in upper case.
func statusRows(Source) ([][]eval.Datum, error) {
	out := make([][]eval.Datum, len(MariaDBStatus))
	for i, v := range MariaDBStatus {
		out[i] = []eval.Datum{eval.Text(strings.ToUpper(v[0])), eval.Text(v[1])}
	}
	return out, nil
}

// variableViews are the tables above.
func variableViews() []*View {
	view := func(name string, rows func(Source) ([][]eval.Datum, error)) *View {
		return &View{Schema: "information_schema", Name: name, Kind: 'v', Columns: mariadbColumns(name), Rows: rows}
	}
	return []*View{view("global_variables", variableRows(true)), view("session_variables", variableRows(false)),
		view("system_variables", systemVariableRows), view("global_status", statusRows), view("session_status", statusRows)}
}
