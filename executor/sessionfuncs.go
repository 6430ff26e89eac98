package executor

import (
	"os"
	"path/filepath"

	"github.com/seqd/seqd/eval"

	"github.com/seqd/seqd/sqlerr"
)

// The functions that ask the session what only it knows: who it is,
// where, its settings, privileges and sequences. The evaluator calls
// them as it calls its own (funcs.go).
func init() {
	eval.Define("version", eval.TText, true, eval.Constant(eval.Text("PostgreSQL "+ServerVersion+" on x86_64-pc-linux-gnu, compiled by Go, 64-bit")))
	eval.Define("current_schema", eval.TName, true, func(e *eval.Env, _ []eval.Datum) (eval.Datum, error) { return sessionOf(e).currentSchema(), nil })
	eval.Define("current_schemas", eval.TNameArr, true, func(e *eval.Env, a []eval.Datum) (eval.Datum, error) {
		return sessionOf(e).currentSchemas(a[0].I != 0), nil
	}, eval.TBool)
	eval.Define("current_database", eval.TName, true, func(e *eval.Env, _ []eval.Datum) (eval.Datum, error) {
		return eval.Text(sessionOf(e).cfg.Database), nil
	})
	eval.Define("pg_backend_pid", eval.TInt4, true, func(e *eval.Env, _ []eval.Datum) (eval.Datum, error) { return eval.Int(sessionOf(e).backendPID()), nil })
	eval.Define("pg_blocking_pids", eval.TypeByOID(eval.OIDInt4Array), true, func(e *eval.Env, a []eval.Datum) (eval.Datum, error) {
		return sessionOf(e).blockingPIDs(a[0].I), nil
	}, eval.TInt4)
	// seqd_backup(dir): a consistent online backup into dir, a new
	// directory on the server's machine; superusers only, as
	// PostgreSQL's backup functions are (seqd restore makes a store of it).
	eval.Define("seqd_backup", eval.TText, true, func(e *eval.Env, a []eval.Datum) (eval.Datum, error) {
		if !sessionOf(e).isSuperuser(sessionOf(e).cfg.User) {
			return eval.Null, sqlerr.Errorf(sqlerr.InsufficientPrivilege, "permission denied for function seqd_backup")
		}
		if !filepath.IsAbs(a[0].S) {
			return eval.Null, sqlerr.Errorf(sqlerr.InvalidParameterValue, "seqd_backup: \"%s\" is not an absolute path", a[0].S)
		}
		if _, err := os.Stat(a[0].S); err == nil {
			return eval.Null, sqlerr.Errorf(sqlerr.DuplicateObject, "seqd_backup: \"%s\" exists already", a[0].S)
		}
		if err := sessionOf(e).eng.Backup(a[0].S); err != nil {
			return eval.Null, err
		}
		return eval.Text(a[0].S), nil
	}, eval.TText)
	// Sizes: a sequence's is its record's in the store; a catalog
	// relation takes none (it is made when read); NULL for an OID that is
	// no relation, as PostgreSQL's.
	for _, f := range []string{"pg_relation_size", "pg_table_size", "pg_total_relation_size"} {
		eval.Define(f, eval.TInt8, true, func(e *eval.Env, a []eval.Datum) (eval.Datum, error) {
			return sessionOf(e).relationSize(uint32(a[0].I)), nil
		}, eval.TRegclass)
	}
	eval.Define("pg_indexes_size", eval.TInt8, true, func(e *eval.Env, a []eval.Datum) (eval.Datum, error) {
		if sessionOf(e).relationSize(uint32(a[0].I)).IsNull() {
			return eval.Null, nil
		}
		return eval.Int(0), nil
	}, eval.TRegclass)
	eval.Define("pg_database_size", eval.TInt8, true, func(e *eval.Env, a []eval.Datum) (eval.Datum, error) {
		return sessionOf(e).databaseSize(a[0].S, a[0].I)
	}, eval.TName)
	eval.Define("pg_database_size", eval.TInt8, true, func(e *eval.Env, a []eval.Datum) (eval.Datum, error) {
		return sessionOf(e).databaseSize("", a[0].I)
	}, eval.TOid)
	eval.Define("pg_get_userbyid", eval.TName, true, func(e *eval.Env, a []eval.Datum) (eval.Datum, error) {
		return eval.Text(sessionOf(e).roleName(a[0].I)), nil
	}, eval.TOid)
	eval.Define("pg_table_is_visible", eval.TBool, true, func(e *eval.Env, a []eval.Datum) (eval.Datum, error) {
		return eval.Bool(sessionOf(e).relationVisible(uint32(a[0].I))), nil
	}, eval.TOid)
	eval.Define("pg_sequence_last_value", eval.TInt8, true, func(e *eval.Env, a []eval.Datum) (eval.Datum, error) {
		return sessionOf(e).sequenceLastValue(uint32(a[0].I))
	}, eval.TRegclass)
	eval.Define("obj_description", eval.TText, true, func(e *eval.Env, a []eval.Datum) (eval.Datum, error) {
		switch a[1].S {
		case "pg_class":
			return sessionOf(e).sequenceComment(uint32(a[0].I)), nil
		case "pg_namespace":
			return sessionOf(e).schemaComment(uint32(a[0].I)), nil
		}
		return eval.Null, nil
	}, eval.TOid, eval.TName)
	eval.Define("obj_description", eval.TText, true, func(e *eval.Env, a []eval.Datum) (eval.Datum, error) {
		return sessionOf(e).sequenceComment(uint32(a[0].I)), nil
	}, eval.TOid)
	eval.Define("pg_is_in_recovery", eval.TBool, true, func(e *eval.Env, _ []eval.Datum) (eval.Datum, error) { return eval.Bool(sessionOf(e).cfg.Standby), nil })
	eval.Define("current_setting", eval.TText, true, func(e *eval.Env, a []eval.Datum) (eval.Datum, error) {
		v, ok := sessionOf(e).settingValue(a[0].S)
		if !ok {
			return eval.Null, sqlerr.Errorf(sqlerr.UndefinedObject, "unrecognized configuration parameter \"%s\"", a[0].S)
		}
		return eval.Text(v), nil
	}, eval.TText)
	eval.Define("current_setting", eval.TText, true, func(e *eval.Env, a []eval.Datum) (eval.Datum, error) {
		v, ok := sessionOf(e).settingValue(a[0].S)
		if !ok {
			if a[1].I != 0 {
				return eval.Null, nil
			}
			return eval.Null, sqlerr.Errorf(sqlerr.UndefinedObject, "unrecognized configuration parameter \"%s\"", a[0].S)
		}
		return eval.Text(v), nil
	}, eval.TText, eval.TBool)
	eval.Define("set_config", eval.TText, false, func(e *eval.Env, a []eval.Datum) (eval.Datum, error) {
		if a[0].Kind == eval.KNull {
			return eval.Null, sqlerr.Errorf(sqlerr.InvalidParameterValue, "SET requires parameter name")
		}
		if err := sessionOf(e).setSetting(a[0].S, a[1].S, a[2].Truth()); err != nil {
			return eval.Null, err
		}
		v, _ := sessionOf(e).settingValue(a[0].S)
		return eval.Text(v), nil
	}, eval.TText, eval.TText, eval.TBool)
	eval.Define("has_sequence_privilege", eval.TBool, true, hasSequencePrivilege, nil, eval.TText)
	eval.Define("has_sequence_privilege", eval.TBool, true, hasSequencePrivilege, eval.TText, nil, eval.TText)
	eval.Define("has_schema_privilege", eval.TBool, true, hasSchemaPrivilege, nil, eval.TText)
	eval.Define("has_schema_privilege", eval.TBool, true, hasSchemaPrivilege, eval.TText, nil, eval.TText)
	eval.Define("pg_has_role", eval.TBool, true, pgHasRole, eval.TText, eval.TText)
	eval.Define("pg_has_role", eval.TBool, true, pgHasRole, eval.TText, eval.TText, eval.TText)
	eval.Define("has_database_privilege", eval.TBool, true, hasDatabasePrivilege, nil, eval.TText)
	eval.Define("has_database_privilege", eval.TBool, true, hasDatabasePrivilege, eval.TText, nil, eval.TText)
	// Of the catalog's relations and of sequences (catalog_acl.go).
	for name, f := range map[string]func(*eval.Env, []eval.Datum) (eval.Datum, error){
		"has_table_privilege": hasTablePrivilege, "has_any_column_privilege": hasAnyColumnPrivilege} {
		eval.Define(name, eval.TBool, true, f, nil, eval.TText)
		eval.Define(name, eval.TBool, true, f, eval.TText, nil, eval.TText)
	}
}

// relationSize is pg_relation_size of a relation's OID.
func (s *Session) relationSize(oid uint32) eval.Datum {
	if catalogByOID(oid) != nil {
		return eval.Int(0)
	}
	n, _, ok := s.oids().sequence(oid)
	if !ok {
		return eval.Null
	}
	size, err := s.baseFor(n).StoredSize(n)
	if err != nil {
		return eval.Null
	}
	return eval.Int(size)
}

// databaseSize is pg_database_size: the bytes of its sequences' records
// (this database's, named or by OID; another is 3D000, as PostgreSQL's).
func (s *Session) databaseSize(name string, oid int64) (eval.Datum, error) {
	if name != "" && name != s.cfg.Database || name == "" && oid != seqdDatabaseOID {
		if name == "" {
			return eval.Null, nil
		}
		return eval.Null, sqlerr.Errorf(sqlerr.UndefinedDatabase, "database \"%s\" does not exist", name)
	}
	var total int64
	for _, i := range s.sequences() {
		if s.isTemp(i.Name) {
			continue
		}
		if size, err := s.eng.StoredSize(i.Name); err == nil {
			total += size
		}
	}
	return eval.Int(total), nil
}
