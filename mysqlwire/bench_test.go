package mysqlwire

import (
	"database/sql"
	"fmt"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/seqd/seqd/internal/testenv"
)

// benchPool is one connection of go-sql-driver/mysql to a server on an
// in-memory engine, in database bench with a sequence s of CACHE 100000,
// whose statements are counted as the server's metrics count them
// (benchOnStatement).
func benchPool(b *testing.B) *sql.DB {
	b.Helper()
	eng := testenv.MemEngine(b)
	s := serve(b, eng, Config{OnStatement: benchOnStatement()})
	root, err := sql.Open("mysql", fmt.Sprintf("root:root pw@tcp(%s)/", s.Addr()))
	if err != nil {
		b.Fatal(err)
	}
	defer root.Close()
	for _, q := range []string{"CREATE DATABASE bench", "CREATE SEQUENCE bench.s CACHE 100000"} {
		if _, err := root.Exec(q); err != nil {
			b.Fatal(err)
		}
	}
	pool, err := sql.Open("mysql", fmt.Sprintf("root:root pw@tcp(%s)/bench", s.Addr()))
	if err != nil {
		b.Fatal(err)
	}
	pool.SetMaxOpenConns(1)
	b.Cleanup(func() { pool.Close() })
	return pool
}

// benchOnStatement counts statements in a Prometheus counter and
// histogram by command and SQLSTATE, the series resolved once per pair as
// the server's metrics resolve them.
func benchOnStatement() func(command, sqlstate string) func(time.Duration) {
	count := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "statements"}, []string{"command", "class"})
	duration := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "seconds"}, []string{"command"})
	return func(command, sqlstate string) func(time.Duration) {
		c, h := count.WithLabelValues(command, sqlstate[:2]), duration.WithLabelValues(command)
		return func(d time.Duration) {
			c.Inc()
			h.Observe(d.Seconds())
		}
	}
}

// BenchmarkCompile is what a statement costs the first time: prepared
// (COM_STMT_PREPARE and COM_STMT_CLOSE), and sent as a text the
// connection has not sent before.
func BenchmarkCompile(b *testing.B) {
	b.Run("prepare", func(b *testing.B) {
		pool := benchPool(b)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			stmt, err := pool.Prepare("SELECT NEXT VALUE FOR s")
			if err != nil {
				b.Fatal(err)
			}
			stmt.Close()
		}
	})
	b.Run("new-text", func(b *testing.B) {
		pool := benchPool(b)
		var v int64
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if err := pool.QueryRow(fmt.Sprintf("SELECT NEXTVAL(s) + %d", i)).Scan(&v); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkNextval is the MySQL protocol's hot path: one value of a
// sequence, as text (COM_QUERY) and prepared (COM_STMT_EXECUTE), in each
// spelling.
func BenchmarkNextval(b *testing.B) {
	for _, q := range []string{"SELECT NEXTVAL(s)", "SELECT NEXT VALUE FOR s"} {
		b.Run("text/"+q, func(b *testing.B) {
			pool := benchPool(b)
			var v int64
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := pool.QueryRow(q).Scan(&v); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("prepared/"+q, func(b *testing.B) {
			pool := benchPool(b)
			stmt, err := pool.Prepare(q)
			if err != nil {
				b.Fatal(err)
			}
			defer stmt.Close()
			var v int64
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := stmt.QueryRow().Scan(&v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkObserve is what counting a statement adds to it: the clock
// read at its start and OnStatement's function, kept for the pair.
func BenchmarkObserve(b *testing.B) {
	cn := &conn{srv: &Server{cfg: Config{OnStatement: benchOnStatement()}}}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		cn.observe("SELECT", nil, cn.began())
	}
}
