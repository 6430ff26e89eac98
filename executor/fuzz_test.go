package executor

import (
	"context"
	"errors"
	"testing"

	"github.com/seqd/seqd/eval"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/internal/testenv"
	"github.com/seqd/seqd/pgsql"
	"github.com/seqd/seqd/seqmath"
	"github.com/seqd/seqd/sqlerr"
)

// FuzzExecute runs arbitrary statements, with parameters as text, on a
// session over an in-memory engine. Nothing may panic, every error must be
// one a front end can classify, and a statement that fails must leave the
// session usable.
func FuzzExecute(f *testing.F) {
	for _, s := range []string{
		"select nextval('s'), currval('s') + 1",
		"select $1::int + 1",
		"select x from generate_series(1, $1::int) x where x % 2 = 0 order by 1 desc limit 3",
		"select relname, relkind from pg_class c left join pg_namespace n on n.oid = c.relnamespace where n.nspname !~ '^pg_'",
		"select count(*), max(x) from generate_series(1, 5) x group by x % 2",
		"select case when $1 = 'a' then 1 else 2 end, coalesce(null, $1), array['x', $1]",
		"begin; savepoint a; select 1/0; rollback to a; commit",
		"declare c cursor with hold for select nextval('s') from generate_series(1, 3); fetch 2 from c; close c",
		"select setval('s', $1::bigint), nextval('s')::smallint",
		"select * from pg_sequence_parameters('s'::regclass)",
		"show all", "set application_name = $1", "select (current_schemas(true))[2]",
		"create sequence b bit_reversed_positive skip range 1 $1; select nextval('b'), get_internal_sequence_state('b')",
		"create sequence h shard_bits 4 range_bits 40; select * from seqd_reserve('h', 3); select setval('h', $1::bigint)",
	} {
		f.Add(s, "7")
	}
	eng := testenv.MemEngine(f)
	if _, err := eng.Create(context.Background(), mustName(f, "s"), seqmath.Spec{}, true); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, q, param string) {
		s, err := NewSession(Config{Engine: eng, MaxBulkRows: 1000})
		if err != nil {
			t.Fatal(err)
		}
		stmts, err := pgsql.Parse(q)
		if err != nil {
			return
		}
		for i := range stmts {
			runOne(t, s, &stmts[i], param)
		}
		// The session still answers.
		ok, _ := pgsql.Parse("select 1")
		s.Abort()
		s.end(context.Background(), "ROLLBACK", false)
		p, err := s.Prepare(&ok[0], nil)
		if err != nil {
			t.Fatalf("after %q: %v", q, err)
		}
		if _, err := s.Execute(context.Background(), p, nil); err != nil {
			t.Fatalf("after %q: %v", q, err)
		}
	})
}

func runOne(t *testing.T, s *Session, st *pgsql.Statement, param string) {
	p, err := s.Prepare(st, nil)
	if err != nil {
		classify(t, st, err)
		return
	}
	params := make([]eval.Datum, len(p.ParamTypes))
	for i, pt := range p.ParamTypes {
		d, err := s.Input(pt, param)
		if err != nil {
			classify(t, st, err)
			return
		}
		params[i] = d
	}
	r, err := s.Execute(context.Background(), p, params)
	if err != nil {
		classify(t, st, err)
		s.Abort()
		return
	}
	if r.Rows == nil {
		return
	}
	for n := 0; n < 10000; n++ {
		row, ok, err := r.Rows.Next()
		if err != nil {
			classify(t, st, err)
			s.Abort()
			return
		}
		if !ok {
			return
		}
		if len(row) != len(r.Columns) {
			t.Fatalf("%q: a row of %d values for %d columns", st.Text(), len(row), len(r.Columns))
		}
	}
}

// classify fails on an error no front end could map to a code.
func classify(t *testing.T, st *pgsql.Statement, err error) {
	var se *sqlerr.Error
	var ee *engine.Error
	var ae *seqmath.Error
	if !errors.As(err, &se) && !errors.As(err, &ee) && !errors.As(err, &ae) {
		t.Fatalf("%q: unclassified error %T: %v", st.Text(), err, err)
	}
	if se != nil && se.Kind == "" {
		t.Fatalf("%q: error without a kind: %v", st.Text(), err)
	}
}

func mustName(tb testing.TB, rel string) engine.Name {
	n, err := engine.NewName("public", rel)
	if err != nil {
		tb.Fatal(err)
	}
	return n
}
