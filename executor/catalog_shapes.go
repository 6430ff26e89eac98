package executor

import (
	"github.com/seqd/seqd/catalog"
	"github.com/seqd/seqd/eval"
)

// PostgreSQL 15's catalog relations beyond those seqd builds itself, from
// their shapes (catalog.Shapes), and the catalog's own columns as
// pg_attribute lists them.

// sessionRows are the rows the session makes of the shapes' relations
// the catalog has no rows for yet: PostgreSQL's built-in rows the
// evaluator accepts, and the views that read the session's own state;
// nil for the others.
func sessionRows(v *catalog.View) func(*Session) ([][]eval.Datum, error) {
	if r := shapeRows(v.Schema + "." + v.Name); r != nil {
		return r
	}
	if _, ok := catalog.BuiltinRows[v.Name]; ok && v.Schema == "pg_catalog" {
		return func(s *Session) ([][]eval.Datum, error) { return s.builtinRows(v.Name, v.Columns) }
	}
	return nil
}

// shapeRows are the rows of the relations whose columns are the
// generated shape's, for those the session still populates (nil for the
// others).
func shapeRows(name string) func(*Session) ([][]eval.Datum, error) {
	switch name {
	case "pg_catalog.pg_stat_activity":
		return (*Session).activityRows
	case "pg_catalog.pg_prepared_statements":
		return (*Session).preparedRows
	case "pg_catalog.pg_cursors":
		return (*Session).cursorRows
	case "information_schema.enabled_roles":
		return (*Session).enabledRolesRows
	case "information_schema.applicable_roles":
		return (*Session).applicableRolesRows
	case "information_schema.administrable_role_authorizations":
		return (*Session).administrableRolesRows
	case "information_schema.usage_privileges":
		return (*Session).usagePrivilegesRows
	case "information_schema.role_usage_grants":
		return (*Session).roleUsageGrantsRows
	case "information_schema.table_privileges":
		return (*Session).tablePrivilegesRows
	case "information_schema.role_table_grants":
		return (*Session).roleTableGrantsRows
	case "information_schema.column_privileges":
		return (*Session).columnPrivilegesRows
	case "information_schema.role_column_grants":
		return (*Session).roleColumnGrantsRows
	case "information_schema.columns":
		return (*Session).columnsRows
	case "pg_catalog.pg_statio_all_sequences":
		return statioRows("all")
	case "pg_catalog.pg_statio_sys_sequences":
		return statioRows("sys")
	case "pg_catalog.pg_statio_user_sequences":
		return statioRows("user")
	case "pg_catalog.pg_stat_database":
		return (*Session).statDatabaseRows
	case "pg_catalog.pg_stat_database_conflicts":
		return (*Session).statConflictsRows
	case "pg_catalog.pg_locks":
		return (*Session).locksRows
	case "pg_catalog.pg_shdepend":
		return (*Session).shdependRows
	case "information_schema.routines":
		return (*Session).routinesRows
	case "information_schema.parameters":
		return (*Session).parametersRows
	case "information_schema.routine_privileges":
		return (*Session).routinePrivilegesRows
	case "information_schema.role_routine_grants":
		return (*Session).roleRoutineGrantsRows
	case "pg_catalog.pg_stat_gssapi":
		return (*Session).gssapiRows
	case "pg_catalog.pg_stat_ssl":
		return (*Session).sslRows
	}
	return nil
}
