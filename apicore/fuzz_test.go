package apicore

import (
	"testing"

	"github.com/seqd/seqd/pgsql"
)

// FuzzNames: any schema and name make one statement whose string literal
// is exactly the quoted qualified name: nothing of a name leaves its
// literal.
func FuzzNames(f *testing.F) {
	for _, seed := range [][2]string{{"public", "s"}, {`a"b`, `c'd`}, {`\`, `'\''`}, {"x", `'); drop sequence s; --`}, {"", ""}} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, schema, name string) {
		if ValidName(schema) != nil || ValidName(name) != nil {
			return // refused before any statement (the APIs call ValidName first)
		}
		stmts, err := pgsql.Parse("select nextval(" + QuoteLiteral(Qualified(schema, name)) + ")")
		if err != nil || len(stmts) != 1 {
			t.Fatalf("%q.%q: %v (%d statements)", schema, name, err, len(stmts))
		}
		fc := stmts[0].Node.GetSelectStmt().GetTargetList()[0].GetResTarget().GetVal().GetFuncCall()
		if fc == nil || len(fc.Args) != 1 || fc.Args[0].GetAConst().GetSval().GetSval() != Qualified(schema, name) {
			t.Fatalf("%q.%q: the statement's argument is not the name: %v", schema, name, stmts[0].Node)
		}
	})
}
