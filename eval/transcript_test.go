package eval

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/seqd/seqd/internal/testenv"
	"github.com/seqd/seqd/pgsql"
	"github.com/seqd/seqd/sqlerr"
)

// The transcripts in testdata are queries and PostgreSQL 15's answers to
// them:
//
//	query
//	SELECT ...
//	----
//	name:type name:type
//	value value
//
// a NULL printed as NULL, an error as "ERROR <SQLSTATE>: <message>".
// TestTranscripts runs them on the evaluator alone, over testSession;
// TestTranscriptsPostgres runs them on the reference PostgreSQL 15
// (SEQD_TEST_PG_DSN, from scripts/test-deps.sh), so that every answer
// written down is PostgreSQL's. A query seqd answers differently, where
// the difference is documented, is marked "query pg-differs=WHERE"
// (WHERE: the document) and its expected answer is seqd's; PostgreSQL's
// is then checked to differ, so that a mark outliving its difference is
// noticed.
//
// go test -run TestTranscripts -rewrite rewrites the expected answers
// from the evaluator's.

// TestTranscripts runs the transcripts on the evaluator.
func TestTranscripts(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		s := newTestSession()
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			if d.Cmd != "query" {
				t.Fatalf("unknown command %q", d.Cmd)
			}
			return runEval(s, d.Input)
		})
	})
}

// TestTranscriptsPostgres runs the transcripts on PostgreSQL 15: its
// answers must be the ones written down.
func TestTranscriptsPostgres(t *testing.T) {
	dsn := testenv.PostgresDSN(t)
	ctx := context.Background()
	conn, err := pgconn.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	// The settings testSession stands for.
	if _, err := conn.Exec(ctx, "SET TimeZone = 'UTC'; SET DateStyle = 'ISO, MDY'; SET IntervalStyle = 'postgres'; SET extra_float_digits = 1; SET search_path = '\"$user\", public'").ReadAll(); err != nil {
		t.Fatal(err)
	}
	res, err := conn.Exec(ctx, "SHOW server_version_num").ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if v := string(res[0].Rows[0][0]); !strings.HasPrefix(v, "15") {
		t.Fatalf("the reference PostgreSQL is %s, not 15", v)
	}
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			got := runPostgres(ctx, conn, d.Input)
			if d.HasArg("pg-differs") {
				if got == d.Expected {
					t.Errorf("%s: marked pg-differs, but PostgreSQL answers as seqd does:\n%s", d.Pos, d.Input)
				}
				return d.Expected
			}
			return got
		})
	})
}

// runEval compiles and runs one SELECT on the evaluator.
func runEval(s Session, q string) string {
	stmts, err := pgsql.Parse(q)
	if err != nil {
		return errText(err)
	}
	if len(stmts) != 1 || stmts[0].Node.GetSelectStmt() == nil {
		return "ERROR: not one SELECT\n"
	}
	c := &Compiler{Session: s, SQL: stmts[0].Query}
	query, err := c.Select(stmts[0].Node.GetSelectStmt())
	if err != nil {
		return errText(err)
	}
	ctx := WithMemory(context.Background(), NewMemory(0, nil))
	rows, err := query.Open(ctx, nil, nil)
	if err != nil {
		return errText(err)
	}
	var b strings.Builder
	for i, col := range query.Columns {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s:%s", col.Name, col.Type.SQLName())
	}
	b.WriteByte('\n')
	for {
		row, ok, err := rows.Next()
		if err != nil {
			return errText(err)
		}
		if !ok {
			break
		}
		for i, v := range row {
			if i > 0 {
				b.WriteByte(' ')
			}
			if text, ok := Output(query.Columns[i].Type, v); ok {
				b.WriteString(text)
			} else {
				b.WriteString("NULL")
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// runPostgres runs q on PostgreSQL, printed as runEval prints.
func runPostgres(ctx context.Context, conn *pgconn.PgConn, q string) string {
	mrr := conn.Exec(ctx, q)
	var b strings.Builder
	results := 0
	for mrr.NextResult() {
		results++
		rr := mrr.ResultReader()
		for i, f := range rr.FieldDescriptions() {
			if i > 0 {
				b.WriteByte(' ')
			}
			name := fmt.Sprintf("oid%d", f.DataTypeOID)
			if t := TypeByOID(f.DataTypeOID); t != nil {
				name = t.SQLName()
			}
			fmt.Fprintf(&b, "%s:%s", f.Name, name)
		}
		b.WriteByte('\n')
		for rr.NextRow() {
			for i, v := range rr.Values() {
				if i > 0 {
					b.WriteByte(' ')
				}
				if v == nil {
					b.WriteString("NULL")
				} else {
					b.Write(v)
				}
			}
			b.WriteByte('\n')
		}
		if _, err := rr.Close(); err != nil {
			mrr.Close()
			return errText(err)
		}
	}
	if err := mrr.Close(); err != nil {
		return errText(err)
	}
	if results != 1 {
		return "ERROR: not one SELECT\n"
	}
	return b.String()
}

// errText prints an error as the transcripts do: its SQLSTATE and
// message.
func errText(err error) string {
	var se *sqlerr.Error
	var pe *pgconn.PgError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("ERROR %s: %s\n", sqlerr.SQLState(se.Kind), se.Msg)
	case errors.As(err, &pe):
		return fmt.Sprintf("ERROR %s: %s\n", pe.Code, pe.Message)
	}
	return fmt.Sprintf("ERROR: %v\n", err)
}

// testSession is the Session the evaluator runs for in its tests:
// PostgreSQL's superuser in database postgres, with search_path's
// default, TimeZone UTC, and PostgreSQL's catalog OIDs for the few
// relations, schemas and roles the transcripts name. It has no relation
// a FROM item can read: the transcripts read VALUES and subqueries.
type testSession struct {
	kept Kept
}

func newTestSession() *testSession { return &testSession{} }

var (
	testRelations = map[string]uint32{"pg_type": 1247, "pg_attribute": 1249, "pg_proc": 1255, "pg_class": 1259, "pg_namespace": 2615}
	testSchemas   = map[string]uint32{"pg_catalog": 11, "public": 2200, "information_schema": 13161}
)

func (*testSession) CurrentUser() string  { return "postgres" }
func (*testSession) SessionUser() string  { return "postgres" }
func (*testSession) Database() string     { return "postgres" }
func (*testSession) CurrentSchema() Datum { return Text("public") }

func (*testSession) Relation(q pgsql.QName) (*Relation, error) {
	name := q.Rel
	if q.Schema != "" {
		name = q.Schema + "." + name
	}
	return nil, sqlerr.Errorf(sqlerr.UndefinedTable, "relation \"%s\" does not exist", name)
}

func (*testSession) RegclassIn(text string) (Datum, error) {
	q, err := pgsql.ParseQualifiedName(text)
	if err != nil {
		return Null, err
	}
	if oid, ok := testRelations[q.Rel]; ok && (q.Schema == "" || q.Schema == "pg_catalog") {
		return Datum{Kind: KInt, I: int64(oid), S: q.Rel}, nil
	}
	return Null, sqlerr.Errorf(sqlerr.UndefinedTable, "relation \"%s\" does not exist", text)
}

func (*testSession) RegclassOut(oid uint32) Datum {
	for name, o := range testRelations {
		if o == oid {
			return Text(name)
		}
	}
	return Text(fmt.Sprint(oid))
}

func (*testSession) RegIn(typ uint32, text string) (Datum, error) {
	if typ == OIDRegnsp {
		if oid, ok := testSchemas[text]; ok {
			return Datum{Kind: KInt, I: int64(oid), S: text}, nil
		}
		return Null, sqlerr.Errorf(sqlerr.UndefinedSchema, "schema \"%s\" does not exist", text)
	}
	if typ == OIDRegrole && text == "postgres" {
		return Datum{Kind: KInt, I: 10, S: text}, nil
	}
	return Null, sqlerr.Errorf(sqlerr.UndefinedObject, "no %s named \"%s\" in the tests", TypeByOID(typ).SQLName(), text)
}

func (*testSession) RegOut(typ, oid uint32) Datum {
	switch {
	case typ == OIDRegrole && oid == 10:
		return Text("postgres")
	case typ == OIDRegnsp:
		for name, o := range testSchemas {
			if o == oid {
				return Text(name)
			}
		}
	}
	return Text(fmt.Sprint(oid))
}

func (*testSession) StatementMemory() int64   { return 0 }
func (s *testSession) KeptMemory() *Kept      { return &s.kept }
func (*testSession) MaxRows() int64           { return 1_000_000 }
func (*testSession) Queried()                 {}
func (*testSession) Location() *time.Location { return time.UTC }
