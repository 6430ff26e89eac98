package mysqlwire

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestParsedOnce: running the corpus and selects, as text and prepared,
// every statement a connection runs or prepares (stepHook) is answered
// here or runs a tree built here, which holds no location (a tree parsed
// from text would): no statement is parsed again as PostgreSQL text.
func TestParsedOnce(t *testing.T) {
	var current string
	seen, parsed := map[string]bool{}, map[string]bool{}
	stepHook = func(st *step) {
		if current == "" {
			return
		}
		seen[current] = true
		if st.answer == nil && st.exec == nil && (st.stmt == nil || located(st.stmt.Node) || st.stmt.Query != st.text) {
			parsed[current] = true
		}
	}
	defer func() { stepHook = nil }()
	all := append(append(append([]string{}, corpus...), selectsSetup...), selects...)
	for _, prepared := range []bool{false, true} {
		addr, _ := startServer(t, Config{})
		if _, err := open(t, addr, "root", "").Exec("CREATE DATABASE seqd_parsed"); err != nil {
			t.Fatal(err)
		}
		c, err := open(t, addr, "root", "seqd_parsed").Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range all {
			current = q
			outcome(&oracleConn{Conn: c}, q, prepared)
			current = ""
		}
		c.Close()
	}
	var got []string
	for _, q := range all {
		if parsed[q] {
			got = append(got, q)
		}
		if _, err := translate(newParser(), q, stmtEnv{db: "seqd_parsed"}); err == nil && !seen[q] {
			t.Errorf("never run: %s", q)
		}
	}
	if len(got) > 0 {
		t.Errorf("parsed as PostgreSQL text (%d):\n%s", len(got), strings.Join(got, "\n"))
	}
}

// TestNoSQLText: the package's code (its tests aside) calls no SQL
// parser but TiDB's and writes no TiDB tree out as text: what reaches
// the executor is built (build*.go) or a typed operation.
func TestNoSQLText(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == "github.com/pingcap/tidb/pkg/parser/format" {
				t.Errorf("%s imports TiDB's restore (format), which writes a tree out as text", name)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				// commandOf's words ("BEGIN") are the metrics' labels,
				// never sent to the executor.
				return n.Name.Name != "commandOf"
			case *ast.SelectorExpr:
				if x, ok := n.X.(*ast.Ident); ok && x.Name == "pgsql" && strings.HasPrefix(n.Sel.Name, "Parse") {
					t.Errorf("%s: calls pgsql.%s", fset.Position(n.Pos()), n.Sel.Name)
				}
				if n.Sel.Name == "Restore" {
					t.Errorf("%s: calls Restore, which writes a tree out as text", fset.Position(n.Pos()))
				}
			case *ast.BasicLit:
				if s, err := strconv.Unquote(n.Value); n.Kind == token.STRING && err == nil && sqlText(s) {
					t.Errorf("%s: SQL text %q", fset.Position(n.Pos()), s)
				}
			}
			return true
		})
	}
}

// sqlText reports whether s reads as a statement of SQL, to run: a
// message naming a statement (SELECT ... INTO is refused) does not.
func sqlText(s string) bool {
	for _, p := range []string{"SELECT ", "ALTER SEQUENCE ", "SET search_path", "CREATE SCHEMA ", "SHOW ", "BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT"} {
		if strings.HasPrefix(strings.TrimSpace(s), p) && !strings.Contains(s, "...") && !strings.Contains(s, "%s") {
			return true
		}
	}
	return false
}
