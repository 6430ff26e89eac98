package executor

import (
	"os"
	"path/filepath"

	"github.com/seqd/seqd/sql"
)

// The functions that ask the session what only it knows: who it is,
// where, its settings, privileges and sequences. The evaluator calls
// them as it calls its own (funcs.go).
func init() {
	def("version", tText, true, constant(Text("PostgreSQL "+ServerVersion+" on x86_64-pc-linux-gnu, compiled by Go, 64-bit")))
	def("current_schema", tName, true, func(e *env, _ []Datum) (Datum, error) { return sessionOf(e).currentSchema(), nil })
	def("current_schemas", tNameArr, true, func(e *env, a []Datum) (Datum, error) { return sessionOf(e).currentSchemas(a[0].I != 0), nil }, tBool)
	def("current_database", tName, true, func(e *env, _ []Datum) (Datum, error) { return Text(sessionOf(e).cfg.Database), nil })
	def("pg_backend_pid", tInt4, true, func(e *env, _ []Datum) (Datum, error) { return Int(sessionOf(e).backendPID()), nil })
	// seqd_backup(dir): a consistent online backup into dir, a new
	// directory on the server's machine; superusers only, as
	// PostgreSQL's backup functions are (seqd restore makes a store of it).
	def("seqd_backup", tText, true, func(e *env, a []Datum) (Datum, error) {
		if !sessionOf(e).isSuperuser(sessionOf(e).cfg.User) {
			return Null, sql.Errorf(sql.InsufficientPrivilege, "permission denied for function seqd_backup")
		}
		if !filepath.IsAbs(a[0].S) {
			return Null, sql.Errorf(sql.InvalidParameterValue, "seqd_backup: \"%s\" is not an absolute path", a[0].S)
		}
		if _, err := os.Stat(a[0].S); err == nil {
			return Null, sql.Errorf(sql.DuplicateObject, "seqd_backup: \"%s\" exists already", a[0].S)
		}
		if err := sessionOf(e).eng.Backup(a[0].S); err != nil {
			return Null, err
		}
		return Text(a[0].S), nil
	}, tText)
	def("pg_get_userbyid", tName, true, func(e *env, a []Datum) (Datum, error) { return Text(sessionOf(e).roleName(a[0].I)), nil }, tOid)
	def("pg_table_is_visible", tBool, true, func(e *env, a []Datum) (Datum, error) { return Bool(sessionOf(e).relationVisible(uint32(a[0].I))), nil }, tOid)
	def("pg_sequence_last_value", tInt8, true, func(e *env, a []Datum) (Datum, error) { return sessionOf(e).sequenceLastValue(uint32(a[0].I)) }, tRegclass)
	def("obj_description", tText, true, func(e *env, a []Datum) (Datum, error) {
		if a[1].S != "pg_class" {
			return Null, nil
		}
		return sessionOf(e).sequenceComment(uint32(a[0].I)), nil
	}, tOid, tName)
	def("obj_description", tText, true, func(e *env, a []Datum) (Datum, error) { return sessionOf(e).sequenceComment(uint32(a[0].I)), nil }, tOid)
	def("pg_is_in_recovery", tBool, true, func(e *env, _ []Datum) (Datum, error) { return Bool(sessionOf(e).cfg.Standby), nil })
	def("current_setting", tText, true, func(e *env, a []Datum) (Datum, error) {
		v, ok := sessionOf(e).settingValue(a[0].S)
		if !ok {
			return Null, sql.Errorf(sql.UndefinedObject, "unrecognized configuration parameter \"%s\"", a[0].S)
		}
		return Text(v), nil
	}, tText)
	def("current_setting", tText, true, func(e *env, a []Datum) (Datum, error) {
		v, ok := sessionOf(e).settingValue(a[0].S)
		if !ok {
			if a[1].I != 0 {
				return Null, nil
			}
			return Null, sql.Errorf(sql.UndefinedObject, "unrecognized configuration parameter \"%s\"", a[0].S)
		}
		return Text(v), nil
	}, tText, tBool)
	def("set_config", tText, false, func(e *env, a []Datum) (Datum, error) {
		if a[0].Kind == KNull {
			return Null, sql.Errorf(sql.InvalidParameterValue, "SET requires parameter name")
		}
		if err := sessionOf(e).setSetting(a[0].S, a[1].S, a[2].Truth()); err != nil {
			return Null, err
		}
		v, _ := sessionOf(e).settingValue(a[0].S)
		return Text(v), nil
	}, tText, tText, tBool)
	def("has_sequence_privilege", tBool, true, hasSequencePrivilege, nil, tText)
	def("has_sequence_privilege", tBool, true, hasSequencePrivilege, tText, nil, tText)
	def("has_schema_privilege", tBool, true, hasSchemaPrivilege, nil, tText)
	def("has_schema_privilege", tBool, true, hasSchemaPrivilege, tText, nil, tText)
	def("pg_has_role", tBool, true, pgHasRole, tText, tText)
	def("pg_has_role", tBool, true, pgHasRole, tText, tText, tText)
	def("has_database_privilege", tBool, true, hasDatabasePrivilege, nil, tText)
	def("has_database_privilege", tBool, true, hasDatabasePrivilege, tText, nil, tText)
	// Tables are the catalog's, readable by all.
	for _, name := range []string{"has_table_privilege", "has_any_column_privilege"} {
		yes := constant(Bool(true))
		def(name, tBool, true, yes, nil, tText)
		def(name, tBool, true, yes, nil, nil, tText)
	}
}
