package pgwire

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/seqd/seqd/internal/testenv"
)

// rawClient speaks the protocol message by message, for what drivers do
// not let a test do: row limits, bad bytes, exact message sequences.
type rawClient struct {
	t  *testing.T
	nc net.Conn
	fe *pgproto3.Frontend
}

func dialRaw(t *testing.T, dsn string) *rawClient {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	nc, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	nc.SetDeadline(time.Now().Add(30 * time.Second))
	c := &rawClient{t: t, nc: nc, fe: pgproto3.NewFrontend(nc, nc)}
	user := u.User.Username()
	c.send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber, Parameters: map[string]string{"user": user, "database": strings.TrimPrefix(u.Path, "/")}})
	c.until(&pgproto3.ReadyForQuery{})
	return c
}

func (c *rawClient) send(msgs ...pgproto3.FrontendMessage) {
	c.t.Helper()
	for _, m := range msgs {
		c.fe.Send(m)
	}
	if err := c.fe.Flush(); err != nil {
		c.t.Fatal(err)
	}
}

// until reads messages up to one of stop's type and returns them all, in
// a short text form: "D 5" for a DataRow, "E 42P01" for an error, the
// message's type name for the rest.
func (c *rawClient) until(stop pgproto3.BackendMessage) []string {
	c.t.Helper()
	var out []string
	for {
		m, err := c.fe.Receive()
		if err != nil {
			c.t.Fatalf("after %v: %v", out, err)
		}
		switch m := m.(type) {
		case *pgproto3.DataRow:
			var vals []string
			for _, v := range m.Values {
				vals = append(vals, string(v))
			}
			out = append(out, "D "+strings.Join(vals, ","))
		case *pgproto3.ErrorResponse:
			out = append(out, "E "+m.Code)
		case *pgproto3.CommandComplete:
			out = append(out, "C "+string(m.CommandTag))
		case *pgproto3.ReadyForQuery:
			out = append(out, "Z "+string(m.TxStatus))
		default:
			out = append(out, typeName(m))
		}
		if typeName(m) == typeName(stop) {
			return out
		}
	}
}

func typeName(v any) string { return strings.TrimPrefix(fmt.Sprintf("%T", v), "*pgproto3.") }

// TestPortalRowLimit: Execute with a row limit suspends the portal and
// resumes it without losing or repeating a row; the messages match
// PostgreSQL's, message for message.
func TestPortalRowLimit(t *testing.T) {
	for name, dsn := range map[string]string{"seqd": startSeqd(t), "postgres": testenv.PostgresDSN(t)} {
		t.Run(name, func(t *testing.T) { portalRowLimit(t, dsn) })
	}
}

func portalRowLimit(t *testing.T, dsn string) {
	c := dialRaw(t, dsn)
	c.send(&pgproto3.Query{String: "drop sequence if exists lim; create sequence lim"})
	c.until(&pgproto3.ReadyForQuery{})
	c.send(
		&pgproto3.Parse{Name: "s", Query: "select nextval('lim') from generate_series(1, 5)"},
		&pgproto3.Bind{PreparedStatement: "s", DestinationPortal: "p"},
		&pgproto3.Execute{Portal: "p", MaxRows: 3},
		&pgproto3.Execute{Portal: "p", MaxRows: 3},
		&pgproto3.Execute{Portal: "p", MaxRows: 3},
		&pgproto3.Sync{},
	)
	got := strings.Join(c.until(&pgproto3.ReadyForQuery{}), "|")
	want := "ParseComplete|BindComplete|D 1|D 2|D 3|PortalSuspended|D 4|D 5|C SELECT 2|C SELECT 0|Z I"
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

// TestErrorSkipsToSync: after an error in the extended protocol every
// message up to Sync is discarded, as in PostgreSQL, and the next Sync
// cycle works.
func TestErrorSkipsToSync(t *testing.T) {
	for name, dsn := range map[string]string{"seqd": startSeqd(t), "postgres": testenv.PostgresDSN(t)} {
		t.Run(name, func(t *testing.T) { errorSkipsToSync(t, dsn) })
	}
}

func errorSkipsToSync(t *testing.T, dsn string) {
	c := dialRaw(t, dsn)
	c.send(
		&pgproto3.Parse{Query: "select nextval('missing')"},
		&pgproto3.Bind{},
		&pgproto3.Execute{},
		&pgproto3.Parse{Name: "never", Query: "select 1"},
		&pgproto3.Sync{},
		&pgproto3.Parse{Name: "never", Query: "select 2"},
		&pgproto3.Bind{PreparedStatement: "never"},
		&pgproto3.Execute{},
		&pgproto3.Sync{},
	)
	got := strings.Join(append(c.until(&pgproto3.ReadyForQuery{}), c.until(&pgproto3.ReadyForQuery{})...), "|")
	want := "E 42P01|Z I|ParseComplete|BindComplete|D 2|C SELECT 1|Z I"
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

// TestMalformedMessages: broken bytes end only the connection that sent
// them, with a protocol-violation error, while another connection keeps
// working.
func TestMalformedMessages(t *testing.T) {
	dsn := startSeqd(t)
	ctx := context.Background()
	other := mustConnect(t, dsn, "create sequence m")
	cases := map[string][]byte{
		"unknown type":    {'z', 0, 0, 0, 4},
		"short length":    {'Q', 0, 0, 0, 2},
		"huge length":     {'Q', 0x7f, 0xff, 0xff, 0xff},
		"unterminated":    {'Q', 0, 0, 0, 7, 's', 'e', 'l'},
		"bad bind counts": {'B', 0, 0, 0, 12, 0, 0, 0, 0xff, 0xff, 0, 0, 0},
	}
	for name, bad := range cases {
		want := "FATAL 08P01"
		if name == "huge length" {
			want = "FATAL 54000" // beyond the statement size limit
		}
		t.Run(name, func(t *testing.T) {
			c := dialRaw(t, dsn)
			if _, err := c.nc.Write(bad); err != nil {
				t.Fatal(err)
			}
			c.nc.(*net.TCPConn).CloseWrite()
			var codes []string
			for {
				m, err := c.fe.Receive()
				if err != nil {
					break // the server closed the connection
				}
				if e, ok := m.(*pgproto3.ErrorResponse); ok {
					codes = append(codes, e.Severity+" "+e.Code)
				}
			}
			if len(codes) != 1 || codes[0] != want {
				t.Fatalf("errors %v, want one %s", codes, want)
			}
			var v int64
			if err := other.QueryRow(ctx, "select nextval('m')").Scan(&v); err != nil {
				t.Fatalf("other connection: %v", err)
			}
		})
	}
}

// TestCancelRequest: a CancelRequest with the connection's key stops its
// running statement with 57014; the connection stays usable, and a
// request with a wrong key cancels nothing.
func TestCancelRequest(t *testing.T) {
	ctx := context.Background()
	dsn := startSeqd(t)
	c, err := pgconn.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if err := c.Exec(ctx, "create sequence big cache 100000").Close(); err != nil {
		t.Fatal(err)
	}
	// A long stream: read a little, cancel, then drain.
	rr := c.ExecParams(ctx, "select nextval('big') from generate_series(1, 1000000)", nil, nil, nil, nil)
	for i := 0; i < 10 && rr.NextRow(); i++ {
	}
	if err := c.CancelRequest(ctx); err != nil {
		t.Fatal(err)
	}
	n := 0
	for rr.NextRow() {
		n++
	}
	_, err = rr.Close()
	if code(err) != "57014" {
		t.Fatalf("after cancel: %v (%d more rows)", err, n)
	}
	if n >= 1000000-10 {
		t.Fatal("the whole stream arrived")
	}
	res := c.ExecParams(ctx, "select 1", nil, nil, nil, nil).Read()
	if res.Err != nil || string(res.Rows[0][0]) != "1" {
		t.Fatalf("after cancel: %v", res.Err)
	}

	// A wrong key: the server must ignore the request.
	rr = c.ExecParams(ctx, "select nextval('big') from generate_series(1, 200000)", nil, nil, nil, nil)
	if !rr.NextRow() {
		t.Fatal(rr.Close())
	}
	u, _ := url.Parse(dsn)
	nc, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	fe := pgproto3.NewFrontend(nc, nc)
	fe.Send(&pgproto3.CancelRequest{ProcessID: c.PID(), SecretKey: []byte{1, 2, 3, 4}})
	if err := fe.Flush(); err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, nc) // the server closes it once the request is handled
	nc.Close()
	n = 1
	for rr.NextRow() {
		n++
	}
	if _, err := rr.Close(); err != nil || n != 200000 {
		t.Fatalf("with a wrong key: %d rows, %v", n, err)
	}
}

// TestShutdownFinishesRequests: Shutdown lets a request under way (a long
// stream, sent in the extended protocol) finish to its last row and its
// Sync, then ends the connection with 57P01; idle connections end at
// once.
func TestShutdownFinishesRequests(t *testing.T) {
	ctx := context.Background()
	dsn, srv := startServer(t)
	busy, err := pgconn.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close(ctx)
	idle, err := pgconn.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close(ctx)
	if err := busy.Exec(ctx, "create sequence sd cache 100000").Close(); err != nil {
		t.Fatal(err)
	}
	const rows = 500000
	rr := busy.ExecParams(ctx, fmt.Sprintf("select nextval('sd') from generate_series(1, %d)", rows), nil, nil, nil, nil)
	if !rr.NextRow() {
		t.Fatal(rr.Close())
	}
	stopped := make(chan error, 1)
	go func() { stopped <- srv.Shutdown(ctx) }()
	n := 1
	for rr.NextRow() {
		n++
	}
	if _, err := rr.Close(); err != nil || n != rows {
		t.Fatalf("in-flight stream: %d of %d rows, %v", n, rows, err)
	}
	if err := <-stopped; err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]*pgconn.PgConn{"busy": busy, "idle": idle} {
		if err := c.Exec(ctx, "select 1").Close(); err == nil {
			t.Fatalf("%s connection still served after shutdown", name)
		}
	}
}

// TestPortalsOfOneStatement: portals bound from one statement, executed
// in any order, re-executed after completing, replaced and closed, answer
// as PostgreSQL's do, message for message (a one-row result's memory is
// reused by the statement's next execution once its portal is gone).
func TestPortalsOfOneStatement(t *testing.T) {
	for name, dsn := range map[string]string{"seqd": startSeqd(t), "postgres": testenv.PostgresDSN(t)} {
		t.Run(name, func(t *testing.T) {
			c := dialRaw(t, dsn)
			c.send(&pgproto3.Query{String: "drop sequence if exists pr; create sequence pr"})
			c.until(&pgproto3.ReadyForQuery{})
			c.send(
				&pgproto3.Parse{Name: "s", Query: "select nextval('pr'), nextval('pr') * 10"},
				&pgproto3.Bind{PreparedStatement: "s", DestinationPortal: "p1"},
				&pgproto3.Bind{PreparedStatement: "s", DestinationPortal: "p2"},
				&pgproto3.Execute{Portal: "p2"},
				&pgproto3.Execute{Portal: "p1"},
				&pgproto3.Execute{Portal: "p1"},
				&pgproto3.Bind{PreparedStatement: "s"},
				&pgproto3.Execute{},
				&pgproto3.Bind{PreparedStatement: "s"},
				&pgproto3.Execute{},
				&pgproto3.Close{ObjectType: 'P', Name: "p1"},
				&pgproto3.Bind{PreparedStatement: "s", DestinationPortal: "p1"},
				&pgproto3.Execute{Portal: "p1"},
				&pgproto3.Execute{Portal: "p2"},
				&pgproto3.Sync{},
			)
			got := strings.Join(c.until(&pgproto3.ReadyForQuery{}), "|")
			want := "ParseComplete|BindComplete|BindComplete|D 1,20|C SELECT 1|D 3,40|C SELECT 1|C SELECT 0|" +
				"BindComplete|D 5,60|C SELECT 1|BindComplete|D 7,80|C SELECT 1|CloseComplete|BindComplete|D 9,100|C SELECT 1|C SELECT 0|Z I"
			if got != want {
				t.Fatalf("got  %s\nwant %s", got, want)
			}
		})
	}
}
