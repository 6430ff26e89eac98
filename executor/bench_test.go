package executor

import (
	"context"
	"testing"

	"github.com/seqd/seqd/internal/testenv"
	"github.com/seqd/seqd/pgsql"
)

// benchSession is a session on an in-memory engine with sequence s
// (CACHE 100000), and run, which executes a statement as a front end
// does: Execute, every row read, Release, Idle.
func benchSession(b *testing.B) (*Session, func(p *Prepared)) {
	b.Helper()
	s, err := NewSession(Config{Engine: testenv.MemEngine(b)})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	run := func(p *Prepared) {
		res, err := s.Execute(ctx, p, nil)
		if err != nil {
			b.Fatal(err)
		}
		if res.Rows != nil {
			for {
				_, ok, err := res.Rows.Next()
				if err != nil {
					b.Fatal(err)
				}
				if !ok {
					break
				}
			}
		}
		s.Release(res)
		s.Idle()
	}
	run(benchPrepare(b, s, "create sequence s cache 100000"))
	return s, run
}

func benchPrepare(b *testing.B, s *Session, q string) *Prepared {
	b.Helper()
	st, err := pgsql.Parse(q)
	if err != nil {
		b.Fatal(err)
	}
	p, err := s.Prepare(&st[0], nil)
	if err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkExecuteNextval is the prepared path: select nextval('s')
// prepared once, executed each time (pgwire's Bind/Execute, MySQL's
// prepared statements).
func BenchmarkExecuteNextval(b *testing.B) {
	s, run := benchSession(b)
	p := benchPrepare(b, s, "select nextval('s')")
	b.ReportAllocs()
	for b.Loop() {
		run(p)
	}
}

// BenchmarkPrepareExecuteNextval is the extended path of a driver that
// does not keep statements: a Prepare of the (cached) parse each time,
// then Execute.
func BenchmarkPrepareExecuteNextval(b *testing.B) {
	s, run := benchSession(b)
	st, err := pgsql.Parse("select nextval('s')")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		p, err := s.Prepare(&st[0], nil)
		if err != nil {
			b.Fatal(err)
		}
		run(p)
	}
}
