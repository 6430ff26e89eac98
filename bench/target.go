// Package bench is seqbench: the source articles' experiments (nextval
// grids, inserts, bulk fetches, many sequences, the Spanner generator
// modes) run side by side against seqd, PostgreSQL, MariaDB and a no-op
// responder, with checked results, HDR latency histograms, tables, CSV,
// JSON and PNG charts. cmd/seqbench binds its flags.
package bench

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"strings"

	_ "github.com/go-sql-driver/mysql" // MariaDB targets
	"github.com/jackc/pgx/v5"
)

// Kinds of target.
const (
	Seqd     = "seqd"     // a seqd server
	Postgres = "postgres" // PostgreSQL
	MariaDB  = "mariadb"  // MariaDB (MySQL protocol)
	// SeqdMySQL is a seqd server over MySQL's protocol (-mysql-listen),
	// spoken as to MariaDB: the nextval workload only.
	SeqdMySQL = "seqd-mysql"
	Noop      = "noop" // the no-op responder (bench/noop): the protocol's ceiling
	// NoopMySQL is the no-op responder over MySQL's protocol
	// (noop.MySQLServer, on the library seqd's MySQL front end uses).
	NoopMySQL = "noop-mysql"
	// SeqdHTTP and SeqdGRPC are seqd's HTTP/JSON API (-api-listen; DSN
	// its base URL) and gRPC service (-grpc-listen; DSN host:port), their
	// sequences made over PostgreSQL's protocol (Target.Setup); NoopHTTP
	// and NoopGRPC their no-op ceilings on the same server libraries
	// (noop.HTTPServer, noop.GRPCServer). The nextval and ceiling
	// workloads only; -pipeline on gRPC pipelines over its stream.
	SeqdHTTP = "seqd-http"
	SeqdGRPC = "seqd-grpc"
	NoopHTTP = "noop-http"
	NoopGRPC = "noop-grpc"
	// RedisAlways and RedisEverysec (redis.go) are Redis 7's INCR with
	// appendfsync always and everysec, on servers seqbench starts; the
	// nextval, ceiling and crash workloads only.
)

// Target is one system under test.
type Target struct {
	Name  string // how tables and charts call it, e.g. "postgres-nocache"
	Kind  string // Seqd, Postgres, MariaDB, SeqdMySQL, Noop, NoopMySQL, an API's or a Redis kind
	DSN   string // a pgx connection string, a go-sql-driver/mysql DSN for MariaDB and SeqdMySQL, a redis:// URL
	Cache int64  // the CACHE of the sequences the workloads create; 1 is NO CACHE
	// NoOrder creates the sequences NOORDER (seqd's cluster mode: every
	// node serves them from blocks of its own).
	NoOrder bool
	// Prepared: MySQL sessions prepare their statements on the server
	// (Config.Prepared).
	Prepared bool
	// Spread, when set, are the DSNs the sessions of a grid connect to in
	// turn (one per node of a cluster); DSN still creates the sequences.
	Spread []string
	// Setup is the pgx connection string that creates an API target's
	// sequences (the same seqd's PostgreSQL protocol).
	Setup string
	// StreamRange and StreamBatch are Config's, for a gRPC target's
	// sessions.
	StreamRange int64
	StreamBatch bool
}

// session returns the target as its w-th session connects to it.
func (t Target) session(w int) Target {
	if len(t.Spread) > 0 {
		t.DSN = t.Spread[w%len(t.Spread)]
	}
	return t
}

func (t Target) String() string { return t.Name }

// session is one client connection of a worker. Not safe for concurrent
// use.
type session interface {
	value(ctx context.Context, q string) (int64, error)                    // a one-row, one-int8 query
	values(ctx context.Context, q string, each func(v int64)) (int, error) // a one-int8-column query; returns the row count
	exec(ctx context.Context, q string, args ...any) error
	// pipeline sends q n times in one round trip and passes each value on.
	pipeline(ctx context.Context, q string, n int, each func(v int64)) error
	close()
}

// mysql reports whether t speaks MySQL's protocol and MariaDB's dialect.
func (t Target) mysql() bool { return t.Kind == MariaDB || t.Kind == SeqdMySQL || t.Kind == NoopMySQL }

// noop reports whether t is a no-op responder.
func (t Target) noop() bool {
	return t.Kind == Noop || t.Kind == NoopMySQL || t.Kind == NoopHTTP || t.Kind == NoopGRPC
}

func connect(ctx context.Context, t Target) (session, error) {
	if t.api() {
		return connectAPI(ctx, t)
	}
	if t.redis() {
		return connectRedis(ctx, t)
	}
	if t.mysql() {
		// Client-side parameters (the text protocol, sysbench's
		// default). With server-side prepared statements MariaDB
		// 10.11.19 once died of signal 11 in the insert workload, on an
		// INSERT into a table whose id defaults to NEXT VALUE FOR, just
		// dropped and created again; not seen with the text protocol.
		dsn := t.DSN
		if !t.Prepared {
			dsn = withParam(dsn, "interpolateParams=true")
		}
		db, err := sql.Open("mysql", dsn)
		if err != nil {
			return nil, err
		}
		db.SetMaxOpenConns(1)
		c, err := db.Conn(ctx)
		if err != nil {
			db.Close()
			return nil, fmt.Errorf("%s: %w", t.Name, err)
		}
		return &mysqlSession{db: db, c: c, prepared: t.Prepared}, nil
	}
	c, err := pgx.Connect(ctx, t.DSN)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t.Name, err)
	}
	return &pgSession{c: c}, nil
}

// withParam adds a key=value parameter to a go-sql-driver/mysql DSN.
func withParam(dsn, kv string) string {
	if strings.Contains(dsn, "?") {
		return dsn + "&" + kv
	}
	return dsn + "?" + kv
}

type pgSession struct{ c *pgx.Conn }

func (s *pgSession) value(ctx context.Context, q string) (v int64, err error) {
	err = s.c.QueryRow(ctx, q).Scan(&v)
	return v, err
}

func (s *pgSession) values(ctx context.Context, q string, each func(int64)) (int, error) {
	rows, err := s.c.Query(ctx, q)
	if err != nil {
		return 0, err
	}
	n := 0
	var v int64
	for rows.Next() {
		if err := rows.Scan(&v); err != nil {
			rows.Close()
			return n, err
		}
		each(v)
		n++
	}
	return n, rows.Err()
}

// rawValues is values with the least client work per row: the rows of
// q in binary format through pgconn, each int8 read from its 8 bytes,
// with none of pgx's per-row scanning.
func (s *pgSession) rawValues(ctx context.Context, q string, each func(int64)) (int, error) {
	rr := s.c.PgConn().ExecParams(ctx, q, nil, nil, nil, []int16{1})
	n := 0
	for rr.NextRow() {
		v := rr.Values()
		if len(v) != 1 || len(v[0]) != 8 {
			rr.Close()
			return n, fmt.Errorf("raw row %d: %d values", n, len(v))
		}
		each(int64(binary.BigEndian.Uint64(v[0])))
		n++
	}
	_, err := rr.Close()
	return n, err
}

func (s *pgSession) exec(ctx context.Context, q string, args ...any) error {
	_, err := s.c.Exec(ctx, q, args...)
	return err
}

func (s *pgSession) pipeline(ctx context.Context, q string, n int, each func(int64)) error {
	b := &pgx.Batch{}
	for range n {
		b.Queue(q)
	}
	br := s.c.SendBatch(ctx, b)
	var v int64
	for range n {
		if err := br.QueryRow().Scan(&v); err != nil {
			br.Close()
			return err
		}
		each(v)
	}
	return br.Close()
}

func (s *pgSession) close() { s.c.Close(context.Background()) }

type mysqlSession struct {
	db       *sql.DB
	c        *sql.Conn
	prepared bool
	stmts    map[string]*sql.Stmt // prepared: by text
}

func (s *mysqlSession) value(ctx context.Context, q string) (v int64, err error) {
	if !s.prepared {
		err = s.c.QueryRowContext(ctx, q).Scan(&v)
		return v, err
	}
	st, ok := s.stmts[q]
	if !ok {
		if st, err = s.c.PrepareContext(ctx, q); err != nil {
			return 0, err
		}
		if s.stmts == nil {
			s.stmts = map[string]*sql.Stmt{}
		}
		s.stmts[q] = st
	}
	err = st.QueryRowContext(ctx).Scan(&v)
	return v, err
}

func (s *mysqlSession) values(ctx context.Context, q string, each func(int64)) (int, error) {
	rows, err := s.c.QueryContext(ctx, q)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	n := 0
	var v int64
	for rows.Next() {
		if err := rows.Scan(&v); err != nil {
			return n, err
		}
		each(v)
		n++
	}
	return n, rows.Err()
}

func (s *mysqlSession) pipeline(context.Context, string, int, func(int64)) error {
	return fmt.Errorf("the MySQL protocol has no pipelining: use a PostgreSQL-protocol target with -pipeline")
}

func (s *mysqlSession) exec(ctx context.Context, q string, args ...any) error {
	_, err := s.c.ExecContext(ctx, q, args...)
	return err
}

func (s *mysqlSession) close() {
	for _, st := range s.stmts {
		st.Close()
	}
	s.c.Close()
	s.db.Close()
}

// dialect holds a target's spelling of the workloads' statements.
type dialect struct{ t Target }

func (d dialect) nextval(seq string) string {
	if d.t.api() || d.t.redis() {
		return seq // the name the API's request carries; Redis's key
	}
	if d.t.mysql() {
		return "SELECT NEXTVAL(" + seq + ")"
	}
	return "SELECT nextval('" + seq + "')"
}

// series is a query returning n values of seq as rows.
func (d dialect) series(seq string, n int) string {
	if d.t.Kind == MariaDB {
		return fmt.Sprintf("SELECT NEXTVAL(%s) FROM seq_1_to_%d", seq, n)
	}
	return fmt.Sprintf("SELECT nextval('%s') FROM generate_series(1, %d)", seq, n)
}

// createSequence drops and creates seq with the target's CACHE.
func (d dialect) createSequence(ctx context.Context, s session, seq string, start, inc int64) error {
	if d.t.noop() {
		return nil
	}
	if d.t.redis() {
		return createRedisCounter(ctx, s, seq, start, inc)
	}
	if err := s.exec(ctx, "DROP SEQUENCE IF EXISTS "+seq); err != nil {
		return err
	}
	q := fmt.Sprintf("CREATE SEQUENCE %s INCREMENT BY %d START WITH %d", seq, inc, start)
	if c := d.cacheClause(); c != "" {
		q += " " + c
	}
	if d.t.NoOrder {
		q += " NOORDER"
	}
	return s.exec(ctx, q)
}

// cacheClause spells the target's CACHE in CREATE SEQUENCE: "" leaves
// seqd's default (NO CACHE).
func (d dialect) cacheClause() string {
	switch {
	case d.t.Cache > 1:
		return fmt.Sprintf("CACHE %d", d.t.Cache)
	case d.t.mysql():
		return "NOCACHE"
	case d.t.Kind == Postgres:
		return "CACHE 1"
	}
	return ""
}

// ParseTargets reads "name=kind:cache" style target lists: each name in
// names is one of seqd, seqd-nocache, postgres, postgres-nocache, mariadb,
// mariadb-nocache, seqd-mysql, seqd-http, seqd-grpc, noop, noop-mysql,
// noop-http, noop-grpc, redis-always, redis-everysec; dsns gives each
// kind's address (none for Redis: StartRedisTargets starts one); cache is
// the CACHE of the cached variants.
func ParseTargets(names string, dsns map[string]string, cache int64) ([]Target, error) {
	var ts []Target
	for _, n := range strings.Split(names, ",") {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		kind, variant, _ := strings.Cut(n, "-")
		for _, k := range []string{SeqdMySQL, NoopMySQL, SeqdHTTP, SeqdGRPC, NoopHTTP, NoopGRPC, RedisAlways, RedisEverysec} {
			if rest, ok := strings.CutPrefix(n, k); ok {
				kind, variant = k, strings.TrimPrefix(rest, "-")
			}
		}
		switch kind {
		case Seqd, Postgres, MariaDB, SeqdMySQL, Noop, NoopMySQL, SeqdHTTP, SeqdGRPC, NoopHTTP, NoopGRPC, RedisAlways, RedisEverysec:
		default:
			return nil, fmt.Errorf("unknown target %q (want seqd, seqd-mysql, seqd-http, seqd-grpc, postgres, mariadb, noop, noop-mysql, noop-http, noop-grpc, optionally with -nocache, or redis-always, redis-everysec)", n)
		}
		t := Target{Name: n, Kind: kind, DSN: dsns[kind], Cache: cache}
		if kind == SeqdHTTP || kind == SeqdGRPC {
			t.Setup = dsns[Seqd]
		}
		switch variant {
		case "":
		case "nocache":
			if t.redis() {
				return nil, fmt.Errorf("target %s: Redis has no CACHE; redis-always is the NO CACHE peer", n)
			}
			t.Cache = 1
		default:
			return nil, fmt.Errorf("unknown target variant %q", n)
		}
		if t.DSN == "" && !t.redis() {
			return nil, fmt.Errorf("target %s: no address for %s", n, kind)
		}
		ts = append(ts, t)
	}
	return ts, nil
}
