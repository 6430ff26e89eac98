package mysqlwire

import (
	"strings"
	"testing"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/seqd/seqd/pgsql"
)

// builtStatements are statements whose trees the builder makes, beside
// the corpus's.
var builtStatements = []string{
	"SELECT NEXTVAL(s)", "SELECT NEXT VALUE FOR db.s", "SELECT nextval(`S`) AS n, LASTVAL(s)", "SELECT SETVAL(s, 5, 0, 1)",
	"SELECT PREVIOUS VALUE FOR s, NEXTVAL(s) + 1", "SELECT 1, -5, -2147483648, 2147483648, 1.50, 1e3, 'a''b', NULL, TRUE, FALSE",
	"SELECT NEXTVAL(s) * 2 - 1 / 3 % 2", "SELECT 1 = 1 AND 2 <> 3 AND 3 != 4 OR NOT 5 > 6", "SELECT NEXTVAL(s) IS NULL, 1 IS NOT NULL, 1 IS TRUE, 0 IS NOT FALSE",
	"SELECT 2 BETWEEN 1 AND 3, 2 NOT BETWEEN 1 AND 3, 1 IN (1, 2), 1 NOT IN (3)", "SELECT 'abc' LIKE 'a%', 'abc' NOT LIKE 'b%'",
	"SELECT CASE WHEN NEXTVAL(s) > 5 THEN 'big' ELSE 'small' END, CASE 1 WHEN 1 THEN 'one' END", "SELECT (SELECT 1), EXISTS (SELECT 1), 1 IN (SELECT 1), 2 NOT IN (SELECT 1)",
	"SELECT CONCAT('a', 'b'), ABS(-1), LENGTH('x'), UPPER('y')", "SELECT DISTINCT 1 LIMIT 1", "SELECT ALL 1", "SELECT ~1, +2, -(3), -x",
	"CREATE SEQUENCE IF NOT EXISTS db.s START WITH -2147483648 INCREMENT BY -1 MINVALUE -9223372036854775807 NOMAXVALUE CACHE 0 NOCYCLE",
	"CREATE SEQUENCE s INCREMENT BY 3 NO MINVALUE MAXVALUE 100 CACHE 20 CYCLE ENGINE=InnoDB", "ALTER SEQUENCE IF EXISTS s RESTART WITH 5 NOCACHE",
	"ALTER SEQUENCE s RESTART INCREMENT BY 2", "DROP SEQUENCE IF EXISTS a, db.b", "CREATE DATABASE x", "CREATE DATABASE IF NOT EXISTS `X y`",
	"CREATE TEMPORARY SEQUENCE t INCREMENT BY -1", "BEGIN", "START TRANSACTION", "COMMIT", "ROLLBACK",
	"SELECT NEXTVAL(s), ?", "SELECT SETVAL(s, ?)", "SELECT CONCAT(?, ?, ?), ? + (? * ?)",
}

// TestBuild: the tree built of a statement is the tree PostgreSQL's
// grammar reads from its restored text, locations aside; and the
// statements the builder does not convert yet are these.
func TestBuild(t *testing.T) {
	alsoRestore = true
	defer func() { alsoRestore = false }()
	var fallback []string
	for i, q := range append(append([]string{}, corpus...), builtStatements...) {
		own := i >= len(corpus)
		steps, err := translate(newParser(), q, "db")
		if err != nil {
			if own {
				t.Errorf("%s: %v", q, err)
			}
			continue
		}
		for _, s := range steps {
			if s.sql == "" {
				continue
			}
			if s.stmt == nil {
				if own {
					t.Errorf("%s: not built", q)
				}
				fallback = append(fallback, q)
				continue
			}
			text, _ := numberMarkers(s.sql)
			stmts, err := pgsql.Parse(text)
			if err != nil {
				t.Errorf("%s: built, but its text %q does not parse: %v", q, s.sql, err)
				continue
			}
			want, got := unlocated(stmts[0].Node), unlocated(s.stmt.Node)
			if !proto.Equal(want, got) {
				t.Errorf("%s:\nbuilt  %s\nparsed %s", q, protojson.Format(got), protojson.Format(want))
			}
			if s.stmt.Query != s.text || s.stmt.Text() != strings.TrimSpace(s.text) {
				t.Errorf("%s: shown as %q", q, s.stmt.Text())
			}
		}
	}
	t.Logf("still restored and parsed (%d):\n%s", len(fallback), strings.Join(fallback, "\n"))
}

// unlocated is a copy of n with every location 0.
func unlocated(n *pg.Node) *pg.Node {
	c := proto.Clone(n).(*pg.Node)
	var walk func(m protoreflect.Message)
	walk = func(m protoreflect.Message) {
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case strings.HasSuffix(string(fd.Name()), "location"):
				m.Clear(fd)
			case fd.IsList() && fd.Message() != nil:
				l := v.List()
				for i := 0; i < l.Len(); i++ {
					walk(l.Get(i).Message())
				}
			case fd.Message() != nil && !fd.IsMap():
				walk(v.Message())
			}
			return true
		})
	}
	walk(c.ProtoReflect())
	return c
}

// shown is what a step runs as text: its restored text, or its tree
// written out (deparsed) when it was built; "" when it is answered here.
func shown(t *testing.T, s step) string {
	if s.stmt == nil {
		return s.sql
	}
	one, err := pg.Parse("SELECT 1") // for the version the deparser wants
	if err != nil {
		t.Fatal(err)
	}
	text, err := pg.Deparse(&pg.ParseResult{Version: one.Version, Stmts: []*pg.RawStmt{{Stmt: s.stmt.Node}}})
	if err != nil {
		t.Fatalf("%s: %v", s.text, err)
	}
	return text
}
