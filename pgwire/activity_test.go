package pgwire

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgproto3"
)

// activityRow is one session's row of pg_stat_activity, as pgx reads it
// (timestamps in binary).
type activityRow struct {
	datname, usename, app                  string
	clientAddr                             *netip.Prefix
	clientPort                             *int32
	backendStart, xactStart, queryStart    *time.Time
	stateChange                            *time.Time
	waitType, wait, state, query, typeName *string
}

func activityOf(t *testing.T, c *pgx.Conn, pid uint32) (activityRow, bool) {
	t.Helper()
	var r activityRow
	err := c.QueryRow(context.Background(), `select datname, usename, application_name, client_addr, client_port,
		backend_start, xact_start, query_start, state_change, wait_event_type, wait_event, state, query, backend_type
		from pg_stat_activity where pid = $1`, int32(pid)).Scan(&r.datname, &r.usename, &r.app, &r.clientAddr, &r.clientPort,
		&r.backendStart, &r.xactStart, &r.queryStart, &r.stateChange, &r.waitType, &r.wait, &r.state, &r.query, &r.typeName)
	if err == pgx.ErrNoRows {
		return r, false
	}
	if err != nil {
		t.Fatal(err)
	}
	return r, true
}

func str(s *string) string {
	if s == nil {
		return "NULL"
	}
	return *s
}

// TestStatActivity: pg_stat_activity lists every session with what it
// runs or last ran, its transaction state, its client and the lock it
// waits for; a role that does not hold another session's role sees only
// who it is; a session that ends leaves.
func TestStatActivity(t *testing.T) {
	ar := &activityRun{t: t, ctx: context.Background(), dsn: startSeqd(t)}
	before := time.Now().Add(-time.Second)
	ar.a, ar.b = ar.connect("u", "app_a"), ar.connect("u", "app_b")
	if _, err := ar.a.Exec(ar.ctx, "create sequence s; create role watcher login"); err != nil {
		t.Fatal(err)
	}
	ar.checkIdle(before)
	ar.checkInBlock()
	ar.checkLockWait()
	ar.checkCreateWait()
	ar.checkUnprivilegedView()
	ar.checkTrackActivitiesOff()

	// A session that ends leaves.
	pid := ar.a.PgConn().PID()
	ar.a.Close(ar.ctx)
	waitFor(t, func() bool { _, ok := activityOf(t, ar.c, pid); return !ok }, "a's row to go")
}

// activityRun is TestStatActivity's sessions, which its phases, in
// order, go on with. Not safe for concurrent use.
type activityRun struct {
	t   *testing.T
	ctx context.Context
	dsn string
	// a and b are u's sessions; c, u's too, reads while b waits (from
	// checkLockWait on); w is role watcher's (from checkUnprivilegedView on).
	a, b, c, w *pgx.Conn
}

// connect opens a session as user with application_name app, closed
// when the test ends.
func (ar *activityRun) connect(user, app string) *pgx.Conn {
	cfg, err := pgx.ParseConfig(strings.Replace(ar.dsn, "//u@", "//"+user+"@", 1))
	if err != nil {
		ar.t.Fatal(err)
	}
	cfg.RuntimeParams["application_name"] = app
	c, err := pgx.ConnectConfig(ar.ctx, cfg)
	if err != nil {
		ar.t.Fatal(err)
	}
	ar.t.Cleanup(func() { c.Close(ar.ctx) })
	return c
}

// checkIdle: an idle session shows its last statement, its client,
// ClientRead; the reading session is active, running the read.
func (ar *activityRun) checkIdle(before time.Time) {
	t, a, b := ar.t, ar.a, ar.b
	r, ok := activityOf(t, b, a.PgConn().PID())
	if !ok {
		t.Fatal("a's session is not in pg_stat_activity")
	}
	local := a.PgConn().Conn().LocalAddr().(*net.TCPAddr)
	if r.datname != "db" || r.usename != "u" || r.app != "app_a" || str(r.state) != "idle" ||
		str(r.query) != "create sequence s; create role watcher login" || str(r.waitType) != "Client" || str(r.wait) != "ClientRead" ||
		str(r.typeName) != "client backend" || r.clientAddr == nil || r.clientPort == nil ||
		r.clientAddr.String() != local.IP.String()+"/32" || int(*r.clientPort) != local.Port || r.xactStart != nil {
		t.Errorf("a, idle: %+v (client %s, state %s, query %s, wait %s/%s)", r, local, str(r.state), str(r.query), str(r.waitType), str(r.wait))
	}
	if r.backendStart == nil || r.backendStart.Before(before) || r.queryStart == nil || r.queryStart.Before(*r.backendStart) ||
		r.stateChange == nil || r.stateChange.Before(*r.queryStart) || time.Since(*r.stateChange) > time.Minute {
		t.Errorf("a's times: start %v, query %v, state change %v", r.backendStart, r.queryStart, r.stateChange)
	}
	if r, _ := activityOf(t, b, b.PgConn().PID()); str(r.state) != "active" || !strings.Contains(str(r.query), "from pg_stat_activity") || r.waitType != nil {
		t.Errorf("b reading: state %s, query %s, wait %s", str(r.state), str(r.query), str(r.waitType))
	}
}

// checkInBlock: a in a block, where SET application_name shows; a stays
// in it for checkLockWait.
func (ar *activityRun) checkInBlock() {
	t, a := ar.t, ar.a
	for _, q := range []string{"begin", "set application_name = renamed", "alter sequence s increment 5"} {
		if _, err := a.Exec(ar.ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	r, _ := activityOf(t, ar.b, a.PgConn().PID())
	if str(r.state) != "idle in transaction" || r.app != "renamed" || r.xactStart == nil || r.queryStart.Before(*r.xactStart) {
		t.Errorf("a in a block: state %s, app %s, xact_start %v", str(r.state), r.app, r.xactStart)
	}
}

// checkLockWait: b waits for a's block's lock on s, as
// pg_stat_activity, pg_blocking_pids and pg_locks show; then a's block
// fails (idle in transaction (aborted)) and rolls back, and b goes on.
func (ar *activityRun) checkLockWait() {
	t, a, b, ctx := ar.t, ar.a, ar.b, ar.ctx
	done := make(chan error, 1)
	go func() {
		_, err := b.Exec(ctx, "select nextval('s')")
		done <- err
	}()
	ar.c = ar.connect("u", "")
	c := ar.c
	waitFor(t, func() bool {
		r, _ := activityOf(t, c, b.PgConn().PID())
		return str(r.state) == "active" && str(r.waitType) == "Lock" && str(r.wait) == "relation" && str(r.query) == "select nextval('s')"
	}, "b waiting for the relation's lock")
	if got := ar.blockers(b.PgConn().PID()); len(got) != 1 || uint32(got[0]) != a.PgConn().PID() {
		t.Errorf("pg_blocking_pids(b) = %v, want a's %d", got, a.PgConn().PID())
	}
	if got := ar.blockers(a.PgConn().PID()); len(got) != 0 {
		t.Errorf("pg_blocking_pids(a) = %v, want none", got)
	}
	// pg_locks: a's lock on s and on its transaction, granted; b's wait
	// for s, not granted, since it began.
	if got, want := ar.locks(), "relation s ExclusiveLock true a false false true; relation s RowExclusiveLock false b true false true; "+
		"transactionid  ExclusiveLock true a false true false"; got != want {
		t.Errorf("pg_locks while b waits for a:\n got %s\nwant %s", got, want)
	}
	a.Exec(ctx, "select 1/0")
	if r, _ := activityOf(t, c, a.PgConn().PID()); str(r.state) != "idle in transaction (aborted)" {
		t.Errorf("a in a failed block: %s", str(r.state))
	}
	if _, err := a.Exec(ctx, "rollback"); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := ar.locks(); got != "" {
		t.Errorf("pg_locks after the block: %s, want none", got)
	}
}

// blockers is pg_blocking_pids(pid), read by c.
func (ar *activityRun) blockers(pid uint32) []int32 {
	var out []int32
	if err := ar.c.QueryRow(ar.ctx, "select pg_blocking_pids($1)", int32(pid)).Scan(&out); err != nil {
		ar.t.Fatal(err)
	}
	return out
}

// locks is pg_locks, read by c, a row a line with a's and b's sessions
// named a and b.
func (ar *activityRun) locks() string {
	t := ar.t
	rows, err := ar.c.Query(ar.ctx, `select locktype, coalesce(relation::regclass::text, ''), mode, granted, case pid when $1 then 'a' when $2 then 'b' end,
		waitstart is not null, transactionid is not null, database is not null from pg_locks order by 1, 4 desc, 5`, int32(ar.a.PgConn().PID()), int32(ar.b.PgConn().PID()))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for rows.Next() {
		var typ, rel, mode, who string
		var granted, waiting, xid, db bool
		if err := rows.Scan(&typ, &rel, &mode, &granted, &who, &waiting, &xid, &db); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprint(typ, " ", rel, " ", mode, " ", granted, " ", who, " ", waiting, " ", xid, " ", db))
	}
	if rows.Err() != nil {
		t.Fatal(rows.Err())
	}
	return strings.Join(out, "; ")
}

// checkCreateWait: a CREATE waits for the block creating the same name,
// on its transaction as pg_locks shows.
func (ar *activityRun) checkCreateWait() {
	t, a, b, c, ctx := ar.t, ar.a, ar.b, ar.c, ar.ctx
	done := make(chan error, 1)
	a.Exec(ctx, "begin; create sequence twin")
	go func() {
		_, err := b.Exec(ctx, "create sequence twin")
		done <- err
	}()
	waitFor(t, func() bool {
		r, _ := activityOf(t, c, b.PgConn().PID())
		return str(r.waitType) == "Lock" && str(r.wait) == "transactionid"
	}, "b waiting for the creating transaction")
	var sameXid bool
	if err := c.QueryRow(ctx, `select (select transactionid::text from pg_locks where pid = $1 and granted) =
		(select transactionid::text from pg_locks where pid = $2 and not granted and mode = 'ShareLock')`,
		int32(a.PgConn().PID()), int32(b.PgConn().PID())).Scan(&sameXid); err != nil || !sameXid {
		t.Errorf("b's wait for a's transaction in pg_locks: %v %v", sameXid, err)
	}
	a.Exec(ctx, "rollback")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// checkUnprivilegedView: a role that does not hold u's privileges sees
// who the session is, not what it does; its own session in full. (a's
// SET application_name went with its block.)
func (ar *activityRun) checkUnprivilegedView() {
	t := ar.t
	ar.w = ar.connect("watcher", "w_app")
	w := ar.w
	r, ok := activityOf(t, w, ar.a.PgConn().PID())
	if !ok || r.usename != "u" || r.app != "app_a" || str(r.query) != "<insufficient privilege>" || r.state != nil ||
		r.clientAddr != nil || r.backendStart != nil || r.waitType != nil || r.typeName != nil {
		t.Errorf("a seen by watcher: %+v (query %s, state %s)", r, str(r.query), str(r.state))
	}
	if r, _ := activityOf(t, w, w.PgConn().PID()); str(r.state) != "active" || r.usename != "watcher" {
		t.Errorf("watcher's own: %+v", r)
	}
	var n int
	if err := w.QueryRow(ar.ctx, "select count(*) from pg_stat_activity").Scan(&n); err != nil || n != 4 {
		t.Errorf("watcher counts %d sessions (%v), want 4", n, err)
	}
}

// checkTrackActivitiesOff: track_activities off (a superuser's setting):
// the session shows as disabled, with no statement and no times, as in
// PostgreSQL.
func (ar *activityRun) checkTrackActivitiesOff() {
	t, a, c, ctx := ar.t, ar.a, ar.c, ar.ctx
	if _, err := a.Exec(ctx, "set track_activities = off"); err != nil {
		t.Fatal(err)
	}
	a.Exec(ctx, "select 1")
	if r, _ := activityOf(t, c, a.PgConn().PID()); str(r.state) != "disabled" || str(r.query) != "" || r.queryStart != nil || r.xactStart != nil || r.stateChange != nil {
		t.Errorf("a with track_activities off: state %s, query %q, times %v %v %v", str(r.state), str(r.query), r.queryStart, r.xactStart, r.stateChange)
	}
	if _, err := a.Exec(ctx, "reset track_activities"); err != nil {
		t.Fatal(err)
	}
	// RESET ran untracked; idle after it is tracked, as PostgreSQL shows it.
	if r, _ := activityOf(t, c, a.PgConn().PID()); str(r.state) != "idle" || str(r.query) != "" || r.queryStart != nil || r.stateChange == nil {
		t.Errorf("a after track_activities is on again: state %s, query %q, query_start %v, state_change %v", str(r.state), str(r.query), r.queryStart, r.stateChange)
	}
	a.Exec(ctx, "select 2")
	if r, _ := activityOf(t, c, a.PgConn().PID()); str(r.state) != "idle" || str(r.query) != "select 2" || r.queryStart == nil {
		t.Errorf("a tracked again: state %s, query %q", str(r.state), str(r.query))
	}
	if _, err := ar.w.Exec(ctx, "set track_activities = off"); err == nil || !strings.Contains(err.Error(), "42501") {
		t.Errorf("watcher setting track_activities: %v, want 42501", err)
	}
}

// waitFor polls cond until it holds, failing after 10 s.
func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no %s after 10 s", what)
		}
	}
}

// TestProtocolStatementsListed: the protocol's named statements (pgx
// names those it caches) are listed in pg_prepared_statements as
// PostgreSQL 15 lists them, and leave when closed.
func TestProtocolStatementsListed(t *testing.T) {
	pg, sd := connectBoth(t)
	ctx := context.Background()
	list := func(c *pgx.Conn) string {
		rows, err := c.Query(ctx, "select name, statement, parameter_types::text, from_sql from pg_prepared_statements where not from_sql order by statement",
			pgx.QueryExecModeSimpleProtocol)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for rows.Next() {
			var name, text, types string
			var fromSQL bool
			if err := rows.Scan(&name, &text, &types, &fromSQL); err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprintf("%s|%s|%s|%v", name, text, types, fromSQL))
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return strings.Join(out, "\n")
	}
	for _, c := range []*pgx.Conn{pg, sd} {
		var n int64
		var s string
		if err := c.QueryRow(ctx, "select $1::int8 + 1, $2::text", 41, "x").Scan(&n, &s); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Prepare(ctx, "named_one", "select 1"); err != nil {
			t.Fatal(err)
		}
	}
	want, got := list(pg), list(sd)
	if want != got || strings.Count(got, "\n") != 1 {
		t.Errorf("named statements:\n postgres:\n%s\n seqd:\n%s", want, got)
	}
	for _, c := range []*pgx.Conn{pg, sd} {
		if err := c.Deallocate(ctx, "named_one"); err != nil {
			t.Fatal(err)
		}
	}
	want, got = list(pg), list(sd)
	if want != got || strings.Contains(got, "named_one") {
		t.Errorf("after closing named_one:\n postgres:\n%s\n seqd:\n%s", want, got)
	}
}

// TestStatDatabase: pg_stat_database counts, over the server's sessions,
// the transactions that committed and rolled back (a statement outside a
// block is one, a block one, a Query of several statements one), the
// deadlocks, the sessions and their times, as PostgreSQL 15 counts them.
func TestStatDatabase(t *testing.T) {
	dsn := startSeqd(t)
	ctx := context.Background()
	connect := func() *pgx.Conn {
		c, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close(ctx) })
		return c
	}
	type stats struct {
		backends, commits, rollbacks, deadlocks, sessions int64
		sessionTime, activeTime                           float64
		reset                                             bool
	}
	reader := connect()
	read := func() stats {
		var st stats
		err := reader.QueryRow(ctx, `select numbackends, xact_commit, xact_rollback, deadlocks, sessions, session_time, active_time,
			stats_reset is not null from pg_stat_database where datname = current_database()`).
			Scan(&st.backends, &st.commits, &st.rollbacks, &st.deadlocks, &st.sessions, &st.sessionTime, &st.activeTime, &st.reset)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	before := read()
	a, b := connect(), connect()
	for _, q := range []string{"create sequence d1", "create sequence d2", "select 1", "begin", "select nextval('d1')", "commit",
		"begin", "rollback", "select 1; select 2"} {
		if _, err := a.Exec(ctx, q); err != nil {
			t.Fatal(q, err)
		}
	}
	a.Exec(ctx, "select 1/0") // a rollback
	// a and b each lock one sequence, then wait for the other's: one of
	// them is the deadlock's victim.
	for _, c := range []struct {
		conn *pgx.Conn
		seq  string
	}{{a, "d1"}, {b, "d2"}} {
		if _, err := c.conn.Exec(ctx, "begin; alter sequence "+c.seq+" increment 2"); err != nil {
			t.Fatal(err)
		}
	}
	errs := make(chan error, 2)
	go func() {
		_, err := a.Exec(ctx, "alter sequence d2 increment 3")
		errs <- err
	}()
	polls := int64(0) // each a transaction of the reader's
	for n := 0; n != 1; polls++ {
		if err := reader.QueryRow(ctx, "select count(*) from pg_locks where not granted").Scan(&n); err != nil {
			t.Fatal(err)
		}
	}
	_, errB := b.Exec(ctx, "alter sequence d1 increment 3")
	errA := <-errs
	if (errA == nil) == (errB == nil) || !strings.Contains(fmt.Sprint(errA, errB), "40P01") {
		t.Fatalf("a: %v, b: %v; want one 40P01", errA, errB)
	}
	for _, c := range []*pgx.Conn{a, b} {
		if _, err := c.Exec(ctx, "rollback"); err != nil {
			t.Fatal(err)
		}
	}
	after := read()
	// a: 2 creates, select 1, a block, the Query of two = 5 commits;
	// the rolled back block, 1/0 and its deadlocked block = 3 rollbacks;
	// b's block rolled back; the reader's first read and its polls
	// committed.
	want := stats{backends: 3, commits: before.commits + 6 + polls, rollbacks: before.rollbacks + 4, deadlocks: before.deadlocks + 1,
		sessions: before.sessions + 2, reset: true}
	got := after
	got.sessionTime, got.activeTime = 0, 0
	if got != want || after.sessionTime <= before.sessionTime || after.activeTime <= before.activeTime {
		t.Errorf("pg_stat_database: %+v after %+v, want %+v and more session and active time", after, before, want)
	}
}

// TestStatementTimeExcludesClientWait: in a pipeline one statement's end
// is the next one's start (one clock read per statement), but never
// across a wait for the client: a statement whose messages came after a
// pause does not count the pause.
func TestStatementTimeExcludesClientWait(t *testing.T) {
	took := make(chan time.Duration, 16)
	dsn, _ := startServerWith(t, Config{OnStatement: func(tag, code string) func(time.Duration) {
		return func(d time.Duration) { took <- d }
	}})
	c := dialRaw(t, dsn)
	c.send(&pgproto3.Query{String: "create sequence s"})
	c.until(&pgproto3.ReadyForQuery{})
	<-took
	c.send(
		&pgproto3.Parse{Name: "n", Query: "select nextval('s')"},
		&pgproto3.Bind{PreparedStatement: "n"},
		&pgproto3.Execute{},
		&pgproto3.Bind{PreparedStatement: "n"},
		&pgproto3.Execute{},
	)
	<-took
	<-took
	const pause = 500 * time.Millisecond
	time.Sleep(pause)
	c.send(&pgproto3.Bind{PreparedStatement: "n"}, &pgproto3.Execute{}, &pgproto3.Sync{})
	if got := c.until(&pgproto3.ReadyForQuery{}); len(got) != 11 || got[10] != "Z I" {
		t.Fatalf("answers: %v", got)
	}
	if d := <-took; d >= pause {
		t.Fatalf("the statement sent after a pause of %v took %v: the pause was counted", pause, d)
	}
}

// TestExecuteTagObserved: each Execute is counted under its command's
// tag, one that drops the portals it ran from (DISCARD ALL, CLOSE ALL)
// too.
func TestExecuteTagObserved(t *testing.T) {
	tags := make(chan string, 16)
	dsn, _ := startServerWith(t, Config{OnStatement: func(tag, code string) func(time.Duration) {
		return func(time.Duration) { tags <- tag + " " + code }
	}})
	c := dialRaw(t, dsn)
	for _, q := range []string{"select 1", "discard all", "close all"} {
		c.send(&pgproto3.Parse{Query: q}, &pgproto3.Bind{}, &pgproto3.Execute{}, &pgproto3.Sync{})
		c.until(&pgproto3.ReadyForQuery{})
		want := map[string]string{"select 1": "SELECT", "discard all": "DISCARD ALL", "close all": "CLOSE CURSOR"}[q] + " 00000"
		if got := <-tags; got != want {
			t.Errorf("%s: counted as %q, want %q", q, got, want)
		}
	}
}
