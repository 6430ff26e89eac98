package pgwire

import (
	"context"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/seqd/seqd/pgsql"
)

// request sends msgs and a Sync on c and returns what came back up to
// ReadyForQuery, in rawClient.until's form joined by "|", with each
// error's message after its SQLSTATE.
func request(c *rawClient, msgs ...pgproto3.FrontendMessage) string {
	c.t.Helper()
	c.send(append(msgs, &pgproto3.Sync{})...)
	var out []string
	for {
		m, err := c.fe.Receive()
		if err != nil {
			c.t.Fatalf("after %v: %v", out, err)
		}
		switch m := m.(type) {
		case *pgproto3.ErrorResponse:
			out = append(out, "E "+m.Code+" "+m.Message)
		case *pgproto3.DataRow:
			out = append(out, "D "+string(m.Values[0]))
		case *pgproto3.CommandComplete:
			out = append(out, "C "+string(m.CommandTag))
		case *pgproto3.ReadyForQuery:
			return strings.Join(append(out, "Z "+string(m.TxStatus)), "|")
		default:
			out = append(out, typeName(m))
		}
	}
}

// query runs q in the simple protocol on c.
func query(c *rawClient, q string) string {
	c.t.Helper()
	c.send(&pgproto3.Query{String: q})
	var out []string
	for {
		m, err := c.fe.Receive()
		if err != nil {
			c.t.Fatalf("%s: after %v: %v", q, out, err)
		}
		switch m := m.(type) {
		case *pgproto3.ErrorResponse:
			out = append(out, "E "+m.Code+" "+m.Message)
		case *pgproto3.DataRow:
			out = append(out, "D "+string(m.Values[0]))
		case *pgproto3.CommandComplete:
			out = append(out, "C "+string(m.CommandTag))
		case *pgproto3.ReadyForQuery:
			return strings.Join(out, "|")
		}
	}
}

// quiet takes the log of the failures these tests provoke.
var quiet = log.New(io.Discard, "", 0)

// The messages past MaxPrepared and MaxPreparedMemory.
const (
	tooManyMsg = "this connection already holds %d prepared statements and portals, the most it may; close some (Close, DEALLOCATE) first"
	tooBigMsg  = "this connection's prepared statements and portals would hold more than %d bytes, the most they may; close some (Close, DEALLOCATE) first"
)

// TestPreparedCount: named statements and portals together are bounded
// at exactly MaxPrepared; one more Parse or Bind fails with 54000 and
// skips to Sync, and the session goes on (its statements run through the
// unnamed portal, simple queries too); Close, DEALLOCATE, DEALLOCATE ALL
// and DISCARD ALL give exactly their room back; the unnamed statement
// and portal, however often replaced, take none.
func TestPreparedCount(t *testing.T) {
	dsn, _ := startServerWith(t, Config{MaxPrepared: 4, Logger: quiet})
	tooMany4 := "E 54000 " + fmt.Sprintf(tooManyMsg, 4) + "|Z I"
	c := dialRaw(t, dsn)
	query(c, "create sequence s")

	// The unnamed statement and portal, replaced 50 times, take no room.
	for i := range 50 {
		if got, want := request(c, &pgproto3.Parse{Query: "select nextval('s')"}, &pgproto3.Bind{}, &pgproto3.Execute{}),
			fmt.Sprintf("ParseComplete|BindComplete|D %d|C SELECT 1|Z I", i+1); got != want {
			t.Fatalf("unnamed %d: got %s, want %s", i, got, want)
		}
	}
	parse := func(name string) string {
		return request(c, &pgproto3.Parse{Name: name, Query: "select nextval('s')"})
	}
	bind := func(stmt, portal string) string {
		return request(c, &pgproto3.Bind{PreparedStatement: stmt, DestinationPortal: portal})
	}
	for _, name := range []string{"s1", "s2", "s3"} {
		if got := parse(name); got != "ParseComplete|Z I" {
			t.Fatalf("Parse %s: %s", name, got)
		}
	}
	if got := bind("s1", "p1"); got != "BindComplete|Z I" {
		t.Fatalf("Bind p1: %s", got)
	}
	// The fifth fails, and what follows it up to Sync is skipped.
	if got := request(c, &pgproto3.Parse{Name: "s4", Query: "select 1"}, &pgproto3.Bind{PreparedStatement: "s4"}, &pgproto3.Execute{}); got != tooMany4 {
		t.Fatalf("fifth, a statement: got  %s\nwant %s", got, tooMany4)
	}
	if got := bind("s1", "p2"); got != tooMany4 {
		t.Fatalf("fifth, a portal: got %s", got)
	}
	// A portal bound again takes its own place; the unnamed ones none.
	if got := bind("s2", "p1"); got != "BindComplete|Z I" {
		t.Fatalf("p1 bound again: %s", got)
	}
	if got := request(c, &pgproto3.Parse{Query: "select nextval('s') * 10"}, &pgproto3.Bind{}, &pgproto3.Execute{}); got != "ParseComplete|BindComplete|D 510|C SELECT 1|Z I" {
		t.Fatalf("unnamed at the bound: %s", got)
	}
	// The session goes on: its statements run, its portals too.
	if got := request(c, &pgproto3.Bind{PreparedStatement: "s3"}, &pgproto3.Execute{}, &pgproto3.Execute{Portal: "p1"}); got != "BindComplete|D 52|C SELECT 1|D 53|C SELECT 1|Z I" {
		t.Fatalf("statements at the bound: %s", got)
	}
	if got := query(c, "select count(*) from pg_prepared_statements"); got != "D 3|C SELECT 1" {
		t.Fatalf("pg_prepared_statements: %s", got)
	}
	if got := parse("s4"); got != tooMany4 {
		t.Fatalf("still at the bound: %s", got)
	}

	// Each way of closing gives back one place, exactly.
	closing := []struct {
		how   string
		close func()
		next  string
	}{
		{"Close of a statement", func() { request(c, &pgproto3.Close{ObjectType: 'S', Name: "s2"}) }, "s4"},
		{"DEALLOCATE", func() { query(c, "deallocate s3") }, "s5"},
		{"DEALLOCATE through the unnamed statement", func() {
			request(c, &pgproto3.Parse{Query: "deallocate s4"}, &pgproto3.Bind{}, &pgproto3.Execute{})
		}, "s6"},
		{"Close of a portal", func() { request(c, &pgproto3.Close{ObjectType: 'P', Name: "p1"}) }, "s7"},
	}
	for _, cl := range closing {
		cl.close()
		if got := parse(cl.next); got != "ParseComplete|Z I" {
			t.Fatalf("after %s: %s", cl.how, got)
		}
		if got := parse("more"); got != tooMany4 {
			t.Fatalf("after %s, one more: %s", cl.how, got)
		}
	}
	// DEALLOCATE ALL and DISCARD ALL give back every statement's place.
	for _, q := range []string{"deallocate all", "discard all"} {
		query(c, q)
		if got := bind("s1", "p9"); !strings.HasPrefix(got, "E 26000") {
			t.Fatalf("%s left s1: %s", q, got)
		}
		for i := range 4 {
			if got := parse(fmt.Sprintf("a%d", i)); got != "ParseComplete|Z I" {
				t.Fatalf("after %s, statement %d: %s", q, i, got)
			}
		}
		if got := bind("a0", "p9"); got != tooMany4 {
			t.Fatalf("after %s, a fifth: %s", q, got)
		}
	}
}

// TestPreparedCountPgx: pgx at the bound (its statement cache's
// statements count too): a Prepare fails with 54000, the connection goes
// on with what it has prepared and with the simple protocol, and
// Deallocate makes room.
func TestPreparedCountPgx(t *testing.T) {
	dsn, _ := startServerWith(t, Config{MaxPrepared: 3, Logger: quiet})
	ctx := context.Background()
	c := mustConnect(t, dsn, "create sequence s")
	for _, name := range []string{"a", "b", "c"} {
		if _, err := c.Prepare(ctx, name, "select nextval('s') + 0 * length($1::text)"); err != nil {
			t.Fatal(err)
		}
	}
	_, err := c.Prepare(ctx, "d", "select 1")
	if code, msg := pgCode(err); code != "54000" || msg != fmt.Sprintf(tooManyMsg, 3) {
		t.Fatalf("fourth Prepare: %v", err)
	}
	var v int64
	if err := c.QueryRow(ctx, "a", "x").Scan(&v); err != nil || v != 1 {
		t.Fatalf("a prepared statement at the bound: %d, %v", v, err)
	}
	if err := c.QueryRow(ctx, "select nextval('s')", pgx.QueryExecModeSimpleProtocol).Scan(&v); err != nil || v != 2 {
		t.Fatalf("the simple protocol at the bound: %d, %v", v, err)
	}
	if err := c.Deallocate(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Prepare(ctx, "d", "select 1"); err != nil {
		t.Fatalf("after Deallocate: %v", err)
	}
}

// TestPreparedMemory: the memory named statements and portals hold is
// bounded at MaxPreparedMemory, as estimated: a statement or a portal
// that would go past it fails with 54000 and the session goes on; the
// unnamed ones, however large and often replaced, take none of it;
// Close, DEALLOCATE ALL and binding a portal again give back exactly
// what they held; a portal holds its statement's plan.
func TestPreparedMemory(t *testing.T) {
	text := "select nextval('s') /* " + strings.Repeat("x", 20_000) + " */"
	stmts, err := pgsql.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	cost := statementCost(text, &stmts[0], nil)
	max := 3*cost + cost/2 // three fit
	dsn, _ := startServerWith(t, Config{MaxPreparedMemory: max, Logger: quiet})
	tooBig := "E 54000 " + fmt.Sprintf(tooBigMsg, max) + "|Z I"
	c := dialRaw(t, dsn)
	query(c, "create sequence s")
	parse := func(name string) string { return request(c, &pgproto3.Parse{Name: name, Query: text}) }

	for i := range 20 {
		if got := request(c, &pgproto3.Parse{Query: text}, &pgproto3.Bind{}, &pgproto3.Execute{}); got != fmt.Sprintf("ParseComplete|BindComplete|D %d|C SELECT 1|Z I", i+1) {
			t.Fatalf("unnamed %d: %s", i, got)
		}
	}
	for _, name := range []string{"s1", "s2", "s3"} {
		if got := parse(name); got != "ParseComplete|Z I" {
			t.Fatalf("Parse %s: %s", name, got)
		}
	}
	if got := parse("s4"); got != tooBig {
		t.Fatalf("past the bound: got  %s\nwant %s", got, tooBig)
	}
	if got := request(c, &pgproto3.Bind{PreparedStatement: "s1"}, &pgproto3.Execute{}); got != "BindComplete|D 21|C SELECT 1|Z I" {
		t.Fatalf("at the bound: %s", got)
	}
	request(c, &pgproto3.Close{ObjectType: 'S', Name: "s2"})
	if got := parse("s4"); got != "ParseComplete|Z I" {
		t.Fatalf("after Close: %s", got)
	}
	if got := parse("s5"); got != tooBig {
		t.Fatalf("after Close, one more: %s", got)
	}
	query(c, "deallocate all")

	// A portal holds its values, after its statement is closed too: two
	// texts of 4/3 of a statement's cost each hold about three
	// statements' room, which fits once, not twice, nor beside a
	// statement.
	value := []byte(strings.Repeat("v", int(cost*4/3)))
	bind := func(portal string) string {
		return request(c, &pgproto3.Bind{PreparedStatement: "v", DestinationPortal: portal, Parameters: [][]byte{value, value}})
	}
	if got := request(c, &pgproto3.Parse{Name: "v", Query: "select length($1::text || $2::text)"}); got != "ParseComplete|Z I" {
		t.Fatal(got)
	}
	if got := bind("p1"); got != "BindComplete|Z I" {
		t.Fatalf("first portal: %s", got)
	}
	if got := bind("p2"); got != tooBig {
		t.Fatalf("second portal: %s", got)
	}
	for range 5 {
		if got := bind("p1"); got != "BindComplete|Z I" {
			t.Fatalf("p1 bound again: %s", got)
		}
		if got := request(c, &pgproto3.Bind{PreparedStatement: "v", Parameters: [][]byte{value, value}}, &pgproto3.Execute{}); got != fmt.Sprintf("BindComplete|D %d|C SELECT 1|Z I", 2*len(value)) {
			t.Fatalf("the unnamed portal: %s", got)
		}
	}
	request(c, &pgproto3.Close{ObjectType: 'S', Name: "v"})
	if got := bind("p2"); !strings.HasPrefix(got, "E 26000") {
		t.Fatalf("v closed: %s", got)
	}
	if got := request(c, &pgproto3.Execute{Portal: "p1"}); got != fmt.Sprintf("D %d|C SELECT 1|Z I", 2*len(value)) {
		t.Fatalf("p1 after its statement closed: %s", got)
	}
	if got := parse("s1"); got != tooBig {
		t.Fatalf("p1 after its statement closed, and a statement: %s", got)
	}
	request(c, &pgproto3.Close{ObjectType: 'P', Name: "p1"})
	for _, name := range []string{"s1", "s2", "s3"} {
		if got := parse(name); got != "ParseComplete|Z I" {
			t.Fatalf("after closing p1, Parse %s: %s", name, got)
		}
	}
	query(c, "deallocate all")

	// A portal holds its statement's plan, the unnamed statement's too
	// once that is replaced: three portals of it fill the room.
	request(c, &pgproto3.Parse{Query: text})
	for _, name := range []string{"q1", "q2", "q3"} {
		if got := request(c, &pgproto3.Bind{DestinationPortal: name}); got != "BindComplete|Z I" {
			t.Fatalf("Bind %s: %s", name, got)
		}
	}
	if got := request(c, &pgproto3.Bind{DestinationPortal: "q4"}); got != tooBig {
		t.Fatalf("a fourth portal of the unnamed statement: %s", got)
	}
	request(c, &pgproto3.Parse{Query: "select 1"})
	if got := parse("s1"); got != tooBig {
		t.Fatalf("a statement beside three portals: %s", got)
	}
}

// idleConn is srv's one connection once it waits for its next message,
// after the answer its client has read: what it holds may be read then.
func idleConn(t *testing.T, srv *Server) *conn {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(time.Millisecond) {
		srv.mu.Lock()
		var c *conn
		for c = range srv.conns {
		}
		srv.mu.Unlock()
		if c == nil {
			continue
		}
		c.mu.Lock()
		busy := c.busy
		c.mu.Unlock()
		if !busy {
			return c
		}
	}
	t.Fatal("the connection did not finish its request")
	return nil
}

// TestPreparedAccounting: random Parse, Bind, Close, DEALLOCATE,
// DEALLOCATE ALL and DISCARD ALL, named and unnamed, against a model of
// the named objects: each succeeds or fails with 54000 as the model
// says, and after each the connection's estimate is exactly the sum of
// what its named statements and portals hold (prepared.go, 3), within
// both bounds; with all closed it is 0.
func TestPreparedAccounting(t *testing.T) {
	const maxObjects = 4
	dsn, srv := startServerWith(t, Config{MaxPrepared: maxObjects, MaxPreparedMemory: 60_000, Logger: quiet})
	c := dialRaw(t, dsn)
	query(c, "create sequence s")
	rng := rand.New(rand.NewPCG(1, 2))
	texts := []string{"select $1::text", "select nextval('s') where $1::text <> ''", "", "select $1::text /* " + strings.Repeat("y", 9000) + " */"}
	stmtNames := []string{"", "a", "b", "c", "d"}
	portalNames := []string{"", "p", "q", "r"}
	stmts, portals := map[string]bool{}, map[string]bool{} // the model: named ones
	full := func(replacing bool) bool { return !replacing && len(stmts)+len(portals) >= maxObjects }
	var lastBytes int64
	refused := map[string]int{} // by which bound
	for step := range 600 {
		var got, op string
		ok := func(prefix string) bool { return strings.HasPrefix(got, prefix) }
		switch r := rng.IntN(100); {
		case r < 35:
			name, text := stmtNames[rng.IntN(len(stmtNames))], texts[rng.IntN(len(texts))]
			op = fmt.Sprintf("Parse %q %.20q", name, text)
			got = request(c, &pgproto3.Parse{Name: name, Query: text})
			switch {
			case name != "" && stmts[name]:
				if !ok("E 42P05") {
					t.Fatalf("step %d, %s: %s, want 42P05", step, op, got)
				}
			case name != "" && full(false):
				if !ok("E 54000 this connection already holds") {
					t.Fatalf("step %d, %s: %s, want the count's 54000", step, op, got)
				}
			case ok("ParseComplete"):
				if name != "" {
					stmts[name] = true
				}
			case !ok("E 54000 this connection's"):
				t.Fatalf("step %d, %s: %s", step, op, got)
			}
		case r < 70:
			stmt, name := stmtNames[rng.IntN(len(stmtNames))], portalNames[rng.IntN(len(portalNames))]
			op = fmt.Sprintf("Bind %q to %q", stmt, name)
			got = request(c, &pgproto3.Bind{PreparedStatement: stmt, DestinationPortal: name, Parameters: [][]byte{[]byte(strings.Repeat("z", rng.IntN(40_000)))}})
			switch {
			case ok("E 26000") || ok("E 08P01"): // no such statement, or not of one parameter
			case name != "" && full(portals[name]):
				if !ok("E 54000 this connection already holds") {
					t.Fatalf("step %d, %s: %s, want the count's 54000", step, op, got)
				}
			case ok("BindComplete"):
				if name != "" {
					portals[name] = true
				}
			case !ok("E 54000 this connection's"):
				t.Fatalf("step %d, %s: %s", step, op, got)
			}
		case r < 85:
			kind, name := byte('S'), stmtNames[rng.IntN(len(stmtNames))]
			if rng.IntN(2) == 0 {
				kind, name = 'P', portalNames[rng.IntN(len(portalNames))]
			}
			op = fmt.Sprintf("Close %c %q", kind, name)
			got = request(c, &pgproto3.Close{ObjectType: kind, Name: name})
			if kind == 'S' {
				delete(stmts, name)
			} else {
				delete(portals, name)
			}
		default:
			q := []string{"deallocate a", "deallocate b", "deallocate c"}[rng.IntN(3)]
			if r >= 97 {
				q = []string{"deallocate all", "discard all"}[r%2]
			}
			op = q
			got = query(c, q)
			switch q {
			case "deallocate all", "discard all":
				clear(stmts)
			default:
				delete(stmts, q[len("deallocate "):])
			}
		}
		for _, bound := range []string{"already holds", "would hold"} {
			if strings.Contains(got, bound) {
				refused[bound]++
			}
		}
		sc := idleConn(t, srv)
		var sum int64
		for name, ps := range sc.stmts {
			if name != "" {
				sum += ps.cost
			}
		}
		for name, pt := range sc.portals {
			if name != "" {
				sum += pt.cost
			}
		}
		if sc.preparedBytes != sum || sum > 60_000 || sc.namedObjects() != len(stmts)+len(portals) {
			t.Fatalf("step %d, %s (%s): %d bytes counted, %d held; %d objects, the model %d", step, op, got,
				sc.preparedBytes, sum, sc.namedObjects(), len(stmts)+len(portals))
		}
		lastBytes = sum
	}
	if refused["already holds"] == 0 || refused["would hold"] == 0 {
		t.Errorf("the run did not meet both bounds: %v", refused)
	}
	t.Logf("refused: %v", refused)
	query(c, "deallocate all")
	for _, name := range portalNames {
		request(c, &pgproto3.Close{ObjectType: 'P', Name: name})
	}
	if sc := idleConn(t, srv); sc.preparedBytes != 0 || sc.namedObjects() != 0 {
		t.Fatalf("all closed: %d bytes, %d objects counted (last step held %d)", sc.preparedBytes, sc.namedObjects(), lastBytes)
	}
}
