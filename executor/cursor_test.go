package executor

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/seqd/seqd/internal/testenv"
	"github.com/seqd/seqd/pgsql"
	"github.com/seqd/seqd/sqlerr"
)

// TestCursorBound: a session keeps at most maxCursors cursors open; the
// next DECLARE fails with 54000 and creates nothing, and closing one
// makes room.
func TestCursorBound(t *testing.T) {
	defer func(old int) { maxCursors = old }(maxCursors)
	maxCursors = 5
	s, err := NewSession(Config{Engine: testenv.MemEngine(t)})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	run := func(q string) error {
		st, err := pgsql.Parse(q)
		if err != nil {
			t.Fatal(err)
		}
		p, err := s.Prepare(&st[0], nil)
		if err != nil {
			return err
		}
		_, err = s.Execute(ctx, p, nil)
		return err
	}
	for i := range maxCursors {
		if err := run(fmt.Sprintf("declare c%d cursor with hold for select %d", i, i)); err != nil {
			t.Fatal(err)
		}
	}
	err = run("declare one_more cursor with hold for select 1")
	var se *sqlerr.Error
	if !errors.As(err, &se) || se.Kind != sqlerr.ProgramLimitExceeded {
		t.Fatalf("a cursor past the bound: %v, want 54000", err)
	}
	if len(s.cursors) != maxCursors {
		t.Fatalf("%d cursors open, want %d", len(s.cursors), maxCursors)
	}
	if err := run("close c0"); err != nil {
		t.Fatal(err)
	}
	if err := run("declare one_more cursor with hold for select 1"); err != nil {
		t.Fatalf("a cursor once one closed: %v", err)
	}
}

// TestCursorRollback: as in PostgreSQL, ROLLBACK ends the cursors its
// block declared, WITH HOLD too, and ROLLBACK TO SAVEPOINT those declared
// since the savepoint; COMMIT keeps those WITH HOLD.
func TestCursorRollback(t *testing.T) {
	s, err := NewSession(Config{Engine: testenv.MemEngine(t)})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	run := func(q string) {
		t.Helper()
		st, err := pgsql.Parse(q)
		if err != nil {
			t.Fatal(err)
		}
		p, err := s.Prepare(&st[0], nil)
		if err == nil {
			_, err = s.Execute(ctx, p, nil)
		}
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	open := func() []string {
		var names []string
		for name := range s.cursors {
			names = append(names, name)
		}
		slices.Sort(names)
		return names
	}
	for _, q := range []string{"begin", "declare kept cursor with hold for select 1", "commit",
		"begin", "declare c1 cursor for select 1", "declare h1 cursor with hold for select 1",
		"savepoint a", "declare c2 cursor for select 1", "declare h2 cursor with hold for select 1", "rollback to savepoint a"} {
		run(q)
	}
	if got := open(); !slices.Equal(got, []string{"c1", "h1", "kept"}) {
		t.Fatalf("after ROLLBACK TO SAVEPOINT: %v, want c1 h1 kept", got)
	}
	run("rollback")
	if got := open(); !slices.Equal(got, []string{"kept"}) {
		t.Fatalf("after ROLLBACK: %v, want kept", got)
	}
	run("begin")
	run("declare h3 cursor with hold for select 1")
	run("commit")
	if got := open(); !slices.Equal(got, []string{"h3", "kept"}) {
		t.Fatalf("after COMMIT: %v, want h3 kept", got)
	}
}
