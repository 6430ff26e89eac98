package mysqlwire

import (
	"errors"
	"testing"

	"github.com/seqd/seqd/internal/vitess/mysql"

	"github.com/seqd/seqd/sqlerr"
)

// FuzzTranslate runs arbitrary text through MySQL's statement path up to
// the executor: nothing may panic, and every failure is an error of a kind
// with a MySQL number (a SQL error, never a bare one).
func FuzzTranslate(f *testing.F) {
	for _, q := range corpus {
		f.Add(q)
	}
	for _, q := range []string{"SELECT NEXT VALUE FOR a.b, PREVIOUS VALUE FOR `x`.y", "SET @@session.sql_mode = 'ANSI', NAMES latin1",
		"SHOW VARIABLES LIKE 'max%'", "SHOW FULL TABLES FROM db", "CREATE SEQUENCE s CACHE 0 ENGINE=InnoDB", "USE db; SELECT 1; SELECT @@x"} {
		f.Add(q)
	}
	p := newParser()
	f.Fuzz(func(t *testing.T, q string) {
		steps, err := translate(p, q, stmtEnv{db: "db", user: "u@h"})
		if err != nil {
			var se *sqlerr.Error
			var me *mysql.SQLError
			if !errors.As(err, &se) && !errors.As(err, &me) {
				t.Fatalf("%q: an error without a kind: %v", q, err)
			}
			return
		}
		for _, s := range steps {
			if s.stmt == nil && s.answer == nil && s.exec == nil {
				t.Fatalf("%q: a step that does nothing", q)
			}
		}
	})
}
