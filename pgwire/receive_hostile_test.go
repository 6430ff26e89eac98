package pgwire

// Hostile clients of the connection's own reader (receive.go), over real
// TCP against a real server: messages at and around its buffers' bounds,
// sent whole, in pieces and pipelined; Binds that lie about their
// counts; names and result formats that change from message to message;
// what a connection keeps once idle; the packets before the session.

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/seqd/seqd/auth"
	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/internal/selfsigned"
)

// hostAddr is dsn's host:port.
// startTLSServer starts a server that offers TLS with a self-signed
// certificate and returns its host:port.
func startTLSServer(t testing.TB) string {
	t.Helper()
	certFile, keyFile, err := selfsigned.Write(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	dsn, _ := startServerWith(t, Config{TLS: &tls.Config{Certificates: []tls.Certificate{cert}}})
	return hostAddr(t, dsn)
}

func hostAddr(t testing.TB, dsn string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

// lengthQuery is a Query whose body is exactly body bytes, and the length
// of the literal it selects.
func lengthQuery(body int) (*pgproto3.Query, int) {
	const head, tail = "select length('", "')"
	n := body - 1 - len(head) - len(tail) // the body ends with a NUL
	return &pgproto3.Query{String: head + strings.Repeat("x", n) + tail}, n
}

// writeIn writes b to c in pieces of at most piece bytes, each its own
// write (so, on loopback, its own segment).
func writeIn(t testing.TB, c net.Conn, b []byte, piece int) {
	t.Helper()
	for len(b) > 0 {
		n := min(piece, len(b))
		if _, err := c.Write(b[:n]); err != nil {
			t.Fatal(err)
		}
		b = b[n:]
	}
}

// answers reads what the server sends until the connection ends, in
// rawClient.until's short form, FATALs as "FATAL <code>".
func answers(c *rawClient) []string {
	var out []string
	for {
		m, err := c.fe.Receive()
		if err != nil {
			return out
		}
		switch m := m.(type) {
		case *pgproto3.ErrorResponse:
			out = append(out, m.Severity+" "+m.Code)
		case *pgproto3.DataRow:
			out = append(out, "D "+string(m.Values[0]))
		default:
			out = append(out, typeName(m))
		}
	}
}

// TestReceiveBufferBounds: statements whose messages are at and around
// the read buffer (8 KiB), the body buffer kept (64 KiB) and MaxMessage,
// sent whole, in 1000-byte writes, a byte at a time, and all pipelined in
// one write, are each read whole and answered; one byte past MaxMessage
// ends that connection with 54000, and another connection goes on.
func TestReceiveBufferBounds(t *testing.T) {
	const maxMessage = 100_000
	dsn, _ := startServerWith(t, Config{MaxMessage: maxMessage})
	other := dialRaw(t, dsn)
	alive := func() {
		t.Helper()
		other.send(&pgproto3.Query{String: "select 1"})
		if got := strings.Join(other.until(&pgproto3.ReadyForQuery{}), " "); got != "RowDescription D 1 C SELECT 1 Z I" {
			t.Fatalf("the other connection: %s", got)
		}
	}
	bodies := []int{receiveBuffer - 6, receiveBuffer - 5, receiveBuffer - 4, receiveBuffer - 1, receiveBuffer, receiveBuffer + 1,
		maxKeptRead - 1, maxKeptRead, maxKeptRead + 1, maxMessage - 1, maxMessage}
	var want []string
	for _, body := range bodies {
		q, n := lengthQuery(body)
		msg := encodeAll(t, q)
		want = append(want, "D "+strconv.Itoa(n))
		for _, piece := range []int{len(msg), 1000, 1} {
			if piece == 1 && body > receiveBuffer+1 {
				continue // a byte at a time: the small ones show it
			}
			c := dialRaw(t, dsn)
			writeIn(t, c.nc, msg, piece)
			if got := c.until(&pgproto3.ReadyForQuery{}); len(got) != 4 || got[1] != "D "+strconv.Itoa(n) {
				t.Fatalf("a %d-byte body in writes of %d: %v", body, piece, got)
			}
		}
	}
	// All of them, and a Sync after each, in one write: the next
	// message's header straddles the read buffer's end.
	c := dialRaw(t, dsn)
	var all []pgproto3.FrontendMessage
	for _, body := range bodies {
		q, _ := lengthQuery(body)
		all = append(all, q, &pgproto3.Sync{})
	}
	if _, err := c.nc.Write(encodeAll(t, all...)); err != nil {
		t.Fatal(err)
	}
	for i := range bodies {
		got := c.until(&pgproto3.ReadyForQuery{}) // the Query's
		if len(got) != 4 || got[1] != want[i] {
			t.Fatalf("pipelined %d-byte body: %v", bodies[i], got)
		}
		if got := c.until(&pgproto3.ReadyForQuery{}); len(got) != 1 { // the Sync's
			t.Fatalf("the Sync after a %d-byte body: %v", bodies[i], got)
		}
	}
	alive()
	// MaxMessage + 1: refused before its body is read.
	q, _ := lengthQuery(maxMessage + 1)
	c = dialRaw(t, dsn)
	tooLong := encodeAll(t, q)
	go c.nc.Write(tooLong)
	if got := answers(c); len(got) != 1 || got[0] != "FATAL 54000" {
		t.Fatalf("a body of MaxMessage+1: %v", got)
	}
	alive()
}

// TestReceiveHugeDeclaredLength: a client that declares a message of
// 1 GiB, or of a negative length, with MaxMessage left at its default
// (1 MiB), is refused at once (54000, 08P01) without its body being
// waited for or allocated.
func TestReceiveHugeDeclaredLength(t *testing.T) {
	dsn, srv := startServerWith(t, Config{})
	if srv.cfg.MaxMessage != 1<<20 {
		t.Fatalf("MaxMessage's default is %d", srv.cfg.MaxMessage)
	}
	for _, c := range []struct {
		head []byte
		want string
	}{
		{[]byte{'Q', 0x40, 0, 0, 4}, "FATAL 54000"},
		{[]byte{'B', 0x40, 0, 0, 4}, "FATAL 54000"},
		{[]byte{'Q', 0xff, 0xff, 0xff, 0xff}, "FATAL 08P01"},
		{[]byte{'Q', 0x80, 0, 0, 0}, "FATAL 08P01"},
		{[]byte{'Q', 0, 0, 0, 3}, "FATAL 08P01"},
	} {
		r := dialRaw(t, dsn)
		if _, err := r.nc.Write(c.head); err != nil {
			t.Fatal(err)
		}
		r.nc.(*net.TCPConn).CloseWrite() // nothing more: the refusal does not wait for it
		if got := answers(r); len(got) != 1 || got[0] != c.want {
			t.Errorf("header %x: %v, want %s", c.head, got, c.want)
		}
	}
}

// bindMessage is a Bind's body as given, with its type and length in front.
func bindMessage(body []byte) []byte {
	return append(binary.BigEndian.AppendUint32([]byte{'B'}, uint32(len(body)+4)), body...)
}

// TestReceiveLyingBinds: Binds whose counts claim more than their body
// holds (65535 parameters or formats in a few bytes, a parameter's
// length past the body, a negative length other than NULL's -1) end
// their connection with 08P01, without allocating for the count; other
// connections go on.
func TestReceiveLyingBinds(t *testing.T) {
	dsn := startSeqd(t)
	other := dialRaw(t, dsn)
	u16 := func(b []byte, v uint16) []byte { return binary.BigEndian.AppendUint16(b, v) }
	u32 := func(b []byte, v uint32) []byte { return binary.BigEndian.AppendUint32(b, v) }
	names := []byte{0, 0} // unnamed portal, unnamed statement
	cases := map[string][]byte{
		"65535 formats, none sent":      u16(append([]byte{}, names...), 0xffff),
		"65535 parameters, none sent":   u16(u16(append([]byte{}, names...), 0), 0xffff),
		"65535 parameters, one sent":    u32(u16(u16(append([]byte{}, names...), 0), 0xffff), 0xffffffff),
		"parameter past the body":       append(u32(u16(u16(append([]byte{}, names...), 0), 1), 100), "abc"...),
		"negative parameter length":     u16(u32(u16(u16(append([]byte{}, names...), 0), 1), 0xfffffffe), 0),
		"65535 result formats, one":     u16(u16(u16(u16(append([]byte{}, names...), 0), 0), 0xffff), 1),
		"no result format count":        u16(u16(append([]byte{}, names...), 0), 0),
		"portal name not terminated":    []byte("portal"),
		"statement name not terminated": []byte("\x00stmt"),
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			c := dialRaw(t, dsn)
			if _, err := c.nc.Write(bindMessage(body)); err != nil {
				t.Fatal(err)
			}
			if got := answers(c); len(got) != 1 || got[0] != "FATAL 08P01" {
				t.Fatalf("%x: %v, want one FATAL 08P01", body, got)
			}
			other.send(&pgproto3.Query{String: "select 1"})
			other.until(&pgproto3.ReadyForQuery{})
		})
	}
}

// TestReceiveNamesChange: names kept from one message to the next never
// answer for another: Binds of statements a, b, a; a portal named as the
// previous statement; zero-length names between; Executes of portals
// that change every message; all in one pipelined write, and again a
// byte at a time.
func TestReceiveNamesChange(t *testing.T) {
	dsn := startSeqd(t)
	msgs := []pgproto3.FrontendMessage{
		&pgproto3.Parse{Name: "a", Query: "select 'a'"},
		&pgproto3.Parse{Name: "b", Query: "select 'b'"},
		&pgproto3.Parse{Name: "", Query: "select 'unnamed'"},
	}
	var want []string
	bind := func(portal, stmt, answer string) {
		msgs = append(msgs, &pgproto3.Bind{DestinationPortal: portal, PreparedStatement: stmt}, &pgproto3.Execute{Portal: portal})
		want = append(want, answer)
	}
	bind("", "a", "a")
	bind("", "b", "b")
	bind("", "a", "a")
	bind("a", "b", "b") // a portal named as the statement before
	bind("b", "a", "a")
	bind("", "", "unnamed")
	bind("ab", "a", "a")
	bind("a", "", "unnamed")
	for _, p := range []struct{ portal, answer string }{{"b", "a"}, {"ab", "a"}, {"a", "unnamed"}, {"", "unnamed"}, {"b", "a"}} {
		// Executed again, a portal completes with no rows (its
		// statement ran); another message's name between each.
		msgs = append(msgs, &pgproto3.Describe{ObjectType: 'S', Name: "b"}, &pgproto3.Execute{Portal: p.portal})
	}
	msgs = append(msgs, &pgproto3.Sync{})
	req := encodeAll(t, msgs...)
	for _, piece := range []int{len(req), 1} {
		c := dialRaw(t, dsn)
		writeIn(t, c.nc, req, piece)
		got := c.until(&pgproto3.ReadyForQuery{})
		var rows []string
		for _, m := range got {
			if strings.HasPrefix(m, "D ") || strings.HasPrefix(m, "E ") {
				rows = append(rows, strings.TrimPrefix(m, "D "))
			}
		}
		if strings.Join(rows, ",") != strings.Join(want, ",") {
			t.Fatalf("in writes of %d: rows %v, want %v\n%v", piece, rows, want, got)
		}
		if n := strings.Count(strings.Join(got, " "), "C SELECT"); n != len(want)+5 {
			t.Fatalf("in writes of %d: %d completions: %v", piece, n, got)
		}
	}
}

// TestReceivePortalFormatsKept: named portals bound with result formats
// [1], [0], [0,1,1] and [1,0,1] keep them through later Binds with other
// formats: each portal's rows come in its own formats, after the rest.
func TestReceivePortalFormatsKept(t *testing.T) {
	dsn := startSeqd(t)
	c := dialRaw(t, dsn)
	formats := map[string][]int16{"p1": {1}, "p0": {0}, "p011": {0, 1, 1}, "p101": {1, 0, 1}, "pnone": nil}
	order := []string{"p1", "p0", "p011", "p101", "pnone"}
	msgs := []pgproto3.FrontendMessage{&pgproto3.Parse{Name: "s", Query: "select 7::int8, 8::int8, 9::int8"}}
	for _, p := range order {
		msgs = append(msgs, &pgproto3.Bind{DestinationPortal: p, PreparedStatement: "s", ResultFormatCodes: formats[p]})
	}
	// Other Binds, of every shape, into the unnamed portal.
	for _, f := range [][]int16{{0}, {1}, {1, 1, 1}, {0, 0, 0}, {1, 0, 0}, nil, {0}, {1}} {
		msgs = append(msgs, &pgproto3.Bind{PreparedStatement: "s", ResultFormatCodes: f}, &pgproto3.Execute{})
	}
	for _, p := range order {
		msgs = append(msgs, &pgproto3.Describe{ObjectType: 'P', Name: p}, &pgproto3.Execute{Portal: p})
	}
	c.send(append(msgs, &pgproto3.Sync{})...)
	var got [][]int16 // the formats each portal's row came in
	var described [][]int16
	for {
		m, err := c.fe.Receive()
		if err != nil {
			t.Fatal(err)
		}
		switch m := m.(type) {
		case *pgproto3.ErrorResponse:
			t.Fatalf("%s %s", m.Code, m.Message)
		case *pgproto3.RowDescription:
			var f []int16
			for _, fd := range m.Fields {
				f = append(f, fd.Format)
			}
			described = append(described, f)
		case *pgproto3.DataRow:
			var f []int16
			for _, v := range m.Values {
				if len(v) == 8 {
					f = append(f, 1)
				} else {
					f = append(f, 0)
				}
			}
			got = append(got, f)
		}
		if _, ok := m.(*pgproto3.ReadyForQuery); ok {
			break
		}
	}
	expand := func(f []int16) []int16 {
		out := make([]int16, 3)
		for i := range out {
			out[i] = formatOf(f, i)
		}
		return out
	}
	if len(got) != 8+len(order) || len(described) != len(order) {
		t.Fatalf("%d rows, %d descriptions", len(got), len(described))
	}
	for i, p := range order {
		want := fmt.Sprint(expand(formats[p]))
		if g := fmt.Sprint(got[8+i]); g != want {
			t.Errorf("portal %s: row in formats %s, want %s", p, g, want)
		}
		if g := fmt.Sprint(described[i]); g != want {
			t.Errorf("portal %s: described in formats %s, want %s", p, g, want)
		}
	}
	if fmt.Sprint(textResults, binaryResults) != "[0] [1]" {
		t.Errorf("the shared result formats were written: %v %v", textResults, binaryResults)
	}
}

// TestReceiveNullAfterValues: a Bind's NULLs, and its fewer parameters,
// after Binds of values on the same connection, are NULL: no value of an
// earlier Bind shows through the slices reused.
func TestReceiveNullAfterValues(t *testing.T) {
	dsn := startSeqd(t)
	c := dialRaw(t, dsn)
	c.send(&pgproto3.Parse{Name: "one", Query: "select coalesce($1::text, 'NULL')"},
		&pgproto3.Parse{Name: "three", Query: "select coalesce($1::text, 'NULL') || coalesce($2::text, 'NULL') || coalesce($3::text, 'NULL')"},
		&pgproto3.Sync{})
	c.until(&pgproto3.ReadyForQuery{})
	for _, step := range []struct {
		stmt   string
		params [][]byte
		want   string
	}{
		{"three", [][]byte{[]byte("x"), []byte("y"), []byte("z")}, "xyz"},
		{"three", [][]byte{nil, nil, nil}, "NULLNULLNULL"},
		{"three", [][]byte{[]byte("x"), {}, []byte("z")}, "xz"},
		{"one", [][]byte{nil}, "NULL"},
		{"three", [][]byte{nil, []byte("y"), nil}, "NULLyNULL"},
		{"one", [][]byte{{}}, ""},
		{"one", [][]byte{nil}, "NULL"},
	} {
		c.send(&pgproto3.Bind{PreparedStatement: step.stmt, Parameters: step.params}, &pgproto3.Execute{}, &pgproto3.Sync{})
		got := c.until(&pgproto3.ReadyForQuery{})
		if len(got) != 4 || got[1] != "D "+step.want {
			t.Fatalf("%s %q: %v, want D %s", step.stmt, step.params, got, step.want)
		}
	}
}

// TestBindFormatsAsPostgreSQL: Binds whose format codes PostgreSQL 15
// refuses are refused with its errors, where seqd bound them: a count of
// parameter formats or result formats other than 0, 1 or the count of
// parameters or columns (08P01, at the Bind), a parameter format other
// than 0 or 1 (22023, where seqd read it as binary: 22P03), a result
// format other than 0 or 1 (22023 at the first row, where seqd sent the
// rows in binary). The answers are PostgreSQL 15's, and with
// SEQD_TEST_PG_DSN set each is checked against it too.
func TestBindFormatsAsPostgreSQL(t *testing.T) {
	servers := map[string]string{"seqd": startSeqd(t)}
	if pg := os.Getenv("SEQD_TEST_PG_DSN"); pg != "" {
		servers["PostgreSQL"] = pg
	}
	one := [][]byte{[]byte("1")}
	for _, c := range []struct {
		name string
		bind *pgproto3.Bind
		want string
	}{
		{"2 result formats for 3 columns", &pgproto3.Bind{PreparedStatement: "three", ResultFormatCodes: []int16{0, 1}}, "E 08P01"},
		{"4 result formats for 3 columns", &pgproto3.Bind{PreparedStatement: "three", ResultFormatCodes: []int16{0, 1, 1, 1}}, "E 08P01"},
		{"3 result formats for 3 columns", &pgproto3.Bind{PreparedStatement: "three", ResultFormatCodes: []int16{0, 1, 0}}, "BindComplete D C SELECT 1"},
		{"result format 2", &pgproto3.Bind{PreparedStatement: "three", ResultFormatCodes: []int16{2}}, "BindComplete E 22023"},
		{"result format -1 of the third column", &pgproto3.Bind{PreparedStatement: "three", ResultFormatCodes: []int16{0, 1, -1}}, "BindComplete E 22023"},
		{"2 result formats for a statement of no rows", &pgproto3.Bind{PreparedStatement: "none", ResultFormatCodes: []int16{0, 1}}, "BindComplete C SET"},
		{"2 parameter formats for 1 parameter", &pgproto3.Bind{PreparedStatement: "one", ParameterFormatCodes: []int16{0, 0}, Parameters: one}, "E 08P01"},
		{"parameter format 2", &pgproto3.Bind{PreparedStatement: "one", ParameterFormatCodes: []int16{2}, Parameters: one}, "E 22023"},
		{"parameter format 2 of a NULL", &pgproto3.Bind{PreparedStatement: "one", ParameterFormatCodes: []int16{2}, Parameters: [][]byte{nil}}, "E 22023"},
		{"2 parameters for 1", &pgproto3.Bind{PreparedStatement: "one", Parameters: [][]byte{[]byte("1"), []byte("2")}}, "E 08P01"},
	} {
		for server, dsn := range servers {
			r := dialRaw(t, dsn)
			r.send(&pgproto3.Parse{Name: "three", Query: "select 1::int8, 2::int8, 3::int8"}, &pgproto3.Parse{Name: "one", Query: "select $1::int8"},
				&pgproto3.Parse{Name: "none", Query: "set search_path = public"}, &pgproto3.Sync{})
			r.until(&pgproto3.ReadyForQuery{})
			r.send(c.bind, &pgproto3.Execute{}, &pgproto3.Sync{})
			var got []string
			for _, m := range r.until(&pgproto3.ReadyForQuery{}) {
				if strings.HasPrefix(m, "D ") {
					m = "D" // its values are TestReceivePortalFormatsKept's
				}
				got = append(got, m)
			}
			if g := strings.Join(got[:len(got)-1], " "); g != c.want {
				t.Errorf("%s, %s: %s, want %s", server, c.name, g, c.want)
			}
		}
	}
}

// heapInUse is the live heap after a collection.
func heapInUse() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// TestReceiveIdleKeepsLittle: connections that each sent a statement of
// 60 KiB and one of nearly 1 MiB (a Query, or a Bind of one large
// parameter, its portal then closed or bound again), a Bind of 65535
// NULLs, or a portal of a 1 MiB name, since closed, and then went idle,
// each keep well under the largest message: the read buffer, a body
// buffer of at most 64 KiB and their session, not what their large
// message held. Each held about 1 MiB more (1.5 MiB for the NULLs):
// the receiver's last Query text, Bind slices and values (pointing into
// the body buffer it let go), pg_stat_activity's 1 KiB of the statement
// (a slice of all of it), and the statement's result parked for its next
// execution, with its parameters.
func TestReceiveIdleKeepsLittle(t *testing.T) {
	dsn := startSeqd(t)
	const conns = 16
	small, _ := lengthQuery(60 << 10)
	large, _ := lengthQuery(1<<20 - 64)
	param := bytes.Repeat([]byte{'x'}, 1<<20-64)
	nulls := make([][]byte, 65535)
	for _, attack := range []struct {
		name string
		req  []byte
	}{
		{"queries", encodeAll(t, small, large)},
		// The unnamed portal keeps its values until it is closed or
		// bound again (as it keeps a Query's size: bounded by
		// MaxMessage); closed, nothing of them is kept.
		{"large parameter", encodeAll(t, small, &pgproto3.Parse{Query: "select length($1::text)"},
			&pgproto3.Bind{Parameters: [][]byte{param}}, &pgproto3.Execute{}, &pgproto3.Close{ObjectType: 'P'}, &pgproto3.Sync{})},
		{"large parameter, then a smaller Bind", encodeAll(t, &pgproto3.Parse{Query: "select length($1::text) + length($2::text)"},
			&pgproto3.Bind{Parameters: [][]byte{{}, param}}, &pgproto3.Execute{},
			&pgproto3.Parse{Query: "select length($1::text)"}, &pgproto3.Bind{Parameters: [][]byte{{'x'}}}, &pgproto3.Execute{}, &pgproto3.Sync{})},
		{"a long portal name", encodeAll(t, &pgproto3.Parse{Query: "select 1"}, &pgproto3.Bind{DestinationPortal: string(param)},
			&pgproto3.Close{ObjectType: 'P', Name: string(param)}, &pgproto3.Sync{})},
		{"65535 NULLs", encodeAll(t, &pgproto3.Parse{Query: "select 1"}, &pgproto3.Bind{Parameters: nulls}, &pgproto3.Sync{})},
	} {
		t.Run(attack.name, func(t *testing.T) {
			var cs []*rawClient
			for range conns {
				cs = append(cs, dialRaw(t, dsn))
			}
			before := heapInUse()
			for _, c := range cs {
				if _, err := c.nc.Write(attack.req); err != nil {
					t.Fatal(err)
				}
			}
			for _, c := range cs {
				waitIdle(t, c, attack.req)
			}
			per := (heapInUse() - before) / conns

			if per > 256<<10 {
				t.Fatalf("each idle connection keeps %d KiB more", per>>10)
			}
			t.Logf("%d KiB per idle connection", per>>10)
		})
	}
}

// TestPreparedKeepNoValues: named statements each executed once with a
// 1 MiB parameter, their portals closed, keep nothing of it: each kept
// its last parameters and row (about 1 MiB) with the result parked for
// its next execution, in none of the prepared statements' bounds.
func TestPreparedKeepNoValues(t *testing.T) {
	dsn := startSeqd(t)
	c := dialRaw(t, dsn)
	param := bytes.Repeat([]byte{'x'}, 1<<20-64)
	const stmts = 16
	before := heapInUse()
	for i := range stmts {
		name := fmt.Sprint("s", i)
		c.send(&pgproto3.Parse{Name: name, Query: "select $1::text"},
			&pgproto3.Bind{PreparedStatement: name, Parameters: [][]byte{param}}, &pgproto3.Execute{}, &pgproto3.Close{ObjectType: 'P'}, &pgproto3.Sync{})
		if got := c.until(&pgproto3.ReadyForQuery{}); len(got) != 6 || len(got[2]) != len(param)+2 {
			t.Fatalf("%.100v", got)
		}
	}
	if per := (heapInUse() - before) / stmts; per > 256<<10 {
		t.Fatalf("each statement keeps %d KiB", per>>10)
	}
}

// TestPreparedNamesCount: the names of named statements and portals
// count in MaxPreparedMemory: a client that names them with 256 KiB
// each meets the bound (54000) before its names hold more than it, and
// the connection goes on. The names were not counted: 16 statements and
// portals of 256 KiB names, 8 MiB, were kept under a bound of 4 MiB.
func TestPreparedNamesCount(t *testing.T) {
	const bound = 4 << 20
	dsn, _ := startServerWith(t, Config{MaxPreparedMemory: bound})
	c := dialRaw(t, dsn)
	kept := 0
	for i := range 16 {
		name := fmt.Sprint(i) + strings.Repeat("n", 256<<10)
		c.send(&pgproto3.Parse{Name: name, Query: "select 1"}, &pgproto3.Bind{DestinationPortal: "p" + name, PreparedStatement: name}, &pgproto3.Sync{})
		got := strings.Join(c.until(&pgproto3.ReadyForQuery{}), " ")
		switch got {
		case "ParseComplete BindComplete Z I":
			kept += 2 * len(name)
		case "ParseComplete E 54000 Z I":
			kept += len(name)
		case "E 54000 Z I":
		default:
			t.Fatalf("statement %d: %s", i, got)
		}
	}
	if kept > bound {
		t.Fatalf("names of %d KiB kept under a bound of %d KiB", kept>>10, bound>>10)
	}
	c.send(&pgproto3.Query{String: "select 1"})
	if got := strings.Join(c.until(&pgproto3.ReadyForQuery{}), " "); got != "RowDescription D 1 C SELECT 1 Z I" {
		t.Fatalf("after: %s", got)
	}
}

// TestReceiveAuthenticatingKeepsLittle: clients still authenticating
// that each declare a SASL message of nearly 1 MiB (under MaxMessage)
// and send only its start hold no more than PostgreSQL's bound on one
// (65535 bytes) each: each held 1 MiB, allocated at its header, for up
// to AuthTimeout, before it was in. One past that bound fails the
// authentication (28P01, as PostgreSQL's); one within it is read, and an
// ordinary client gets in meanwhile.
func TestReceiveAuthenticatingKeepsLittle(t *testing.T) {
	dsn, srv := startServerWith(t, Config{Auth: AuthSCRAM, AuthTimeout: time.Minute})
	v, err := auth.NewVerifier("right")
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.cfg.Engine.PutRole(context.Background(), engine.Role{Name: "app", Login: true, Verifier: v}, true); err != nil {
		t.Fatal(err)
	}
	addr := hostAddr(t, dsn)
	// authenticating starts a connection up to the server's SASL
	// offer, then declares a SASL message of size bytes and sends its
	// first few.
	authenticating := func(size int) net.Conn {
		nc, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { nc.Close() })
		nc.SetDeadline(time.Now().Add(20 * time.Second))
		fe := pgproto3.NewFrontend(nc, nc)
		fe.Send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber, Parameters: map[string]string{"user": "app", "database": "db"}})
		if err := fe.Flush(); err != nil {
			t.Fatal(err)
		}
		if m, err := fe.Receive(); err != nil {
			t.Fatal(err)
		} else if _, ok := m.(*pgproto3.AuthenticationSASL); !ok {
			t.Fatalf("the server's first answer: %T", m)
		}
		msg := append(binary.BigEndian.AppendUint32([]byte{'p'}, uint32(size+4)), "SCRAM-SHA-256\x00"...)
		if _, err := nc.Write(msg); err != nil {
			t.Fatal(err)
		}
		return nc
	}
	const conns = 16
	before := heapInUse()
	var ncs []net.Conn
	for range conns {
		ncs = append(ncs, authenticating(1<<20-64))
	}
	// Each is answered (28P01) or still waited for: either way, the
	// server holds at most the bound for it.
	if per := (heapInUse() - before) / conns; per > 256<<10 {
		t.Fatalf("each connection authenticating holds %d KiB more", per>>10)
	}
	for _, nc := range ncs {
		if got := session(t, nc); got != "FATAL 28P01" {
			t.Fatalf("a SASL message of nearly 1 MiB: %s", got)
		}
	}
	nc := authenticating(maxAuthMessage)
	nc.(*net.TCPConn).CloseWrite()
	if got := session(t, nc); got != "closed" {
		t.Fatalf("a SASL message of 65535 bytes cut short: %s", got)
	}
	app, err := pgx.Connect(context.Background(), strings.Replace(dsn, "//u@", "//app:right@", 1))
	if err != nil {
		t.Fatal(err)
	}
	app.Close(context.Background())
}

// TestReceiveAuthenticatingSmallerMaxMessage: a MaxMessage smaller than
// PostgreSQL's bound on a SASL message bounds it too: a SASL message of
// 2000 bytes under a MaxMessage of 1024 fails the authentication (28P01)
// at its header, where the bound of 65535 had the server wait for its
// body.
func TestReceiveAuthenticatingSmallerMaxMessage(t *testing.T) {
	dsn, _ := startServerWith(t, Config{Auth: AuthSCRAM, MaxMessage: 1024})
	nc, err := net.Dial("tcp", hostAddr(t, dsn))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(20 * time.Second))
	fe := pgproto3.NewFrontend(nc, nc)
	fe.Send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber, Parameters: map[string]string{"user": "app", "database": "db"}})
	if err := fe.Flush(); err != nil {
		t.Fatal(err)
	}
	if m, err := fe.Receive(); err != nil {
		t.Fatal(err)
	} else if _, ok := m.(*pgproto3.AuthenticationSASL); !ok {
		t.Fatalf("the server's first answer: %T", m)
	}
	if _, err := nc.Write(append(binary.BigEndian.AppendUint32([]byte{'p'}, 2004), "SCRAM-SHA-256\x00"...)); err != nil {
		t.Fatal(err)
	}
	nc.(*net.TCPConn).CloseWrite()
	if got := session(t, nc); got != "FATAL 28P01" {
		t.Fatalf("a SASL message past MaxMessage: %s", got)
	}
}

// TestPipelineAnswersBeforeSync: a client that pipelines thousands of
// small messages with large answers (Describes of a statement of 100
// columns, 7 bytes each and 2.5 KB answered) and no Sync gets their
// answers as they fill the write buffer, not all at the Sync: they were
// held until it, 28 KB sent growing the server's memory by 10 MB, and a
// client that never sent the Sync grew it without bound. All arrive, in
// order, and the Sync ends them.
func TestPipelineAnswersBeforeSync(t *testing.T) {
	dsn := startSeqd(t)
	c := dialRaw(t, dsn)
	var cols []string
	for i := range 100 {
		cols = append(cols, fmt.Sprintf("1 as column_%d", i))
	}
	const describes = 4000
	msgs := []pgproto3.FrontendMessage{&pgproto3.Parse{Query: "select " + strings.Join(cols, ", ")}}
	for range describes {
		msgs = append(msgs, &pgproto3.Describe{ObjectType: 'S'})
	}
	c.send(msgs...)
	// Without the change it never came: the server waited for the
	// Sync (no timing is asserted; the deadline only ends the wait).
	c.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	m, err := c.fe.Receive() // before any Sync
	c.nc.SetReadDeadline(time.Now().Add(30 * time.Second))
	if _, ok := m.(*pgproto3.ParseComplete); !ok || err != nil {
		t.Fatalf("the first answer, before a Sync: %T %v", m, err)
	}
	c.send(&pgproto3.Sync{})
	got := c.until(&pgproto3.ReadyForQuery{})
	if n := strings.Count(strings.Join(got, " "), "ParameterDescription RowDescription"); n != describes || len(got) != 2*describes+1 {
		t.Fatalf("%d descriptions in %d answers", n, len(got))
	}
}

// waitIdle reads a connection's answers to req up to its last
// ReadyForQuery, one per Query and Sync in it: the connection is then
// idle, and still in.
func waitIdle(t *testing.T, c *rawClient, req []byte) {
	t.Helper()
	n := 0
	for b := req; len(b) > 0; {
		if b[0] == 'Q' || b[0] == 'S' {
			n++
		}
		b = b[1+binary.BigEndian.Uint32(b[1:]):]
	}
	for range n {
		c.until(&pgproto3.ReadyForQuery{}) // errors too: a Bind of no statement
	}
}

// startupPacket is a startup packet of a protocol code and body.
func startupPacket(code uint32, body []byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(8+len(body)))
	return append(binary.BigEndian.AppendUint32(b, code), body...)
}

// startupBody is a StartupMessage's body after its version.
func startupBody(params ...string) []byte {
	var b []byte
	for _, p := range params {
		b = append(append(b, p...), 0)
	}
	return append(b, 0)
}

// session reads a connection's answers to its startup: "in" once
// ReadyForQuery arrives, else the FATAL's code, else "closed".
func session(t testing.TB, nc net.Conn) string {
	t.Helper()
	nc.SetDeadline(time.Now().Add(20 * time.Second))
	fe := pgproto3.NewFrontend(nc, nc)
	for {
		m, err := fe.Receive()
		if err != nil {
			return "closed"
		}
		switch m := m.(type) {
		case *pgproto3.ReadyForQuery:
			return "in"
		case *pgproto3.ErrorResponse:
			return m.Severity + " " + m.Code
		}
	}
}

// TestReceiveStartupPackets: what comes before the session. A startup
// packet's body of 4 to 10,000 bytes is read and one outside is refused
// with the connection closed, as PostgreSQL does; an SSLRequest or a
// GSSENCRequest on a server without TLS is answered 'N', and a startup
// that follows, even in the same packet, starts a session (PostgreSQL 15
// refuses the one in the same packet with 08P01, for the sake of a TLS
// that here is not offered); CancelRequests too short or too long close
// the connection; the server goes on.
func TestReceiveStartupPackets(t *testing.T) {
	dsn := startSeqd(t)
	addr := hostAddr(t, dsn)
	other := dialRaw(t, dsn)
	startup := startupPacket(pgproto3.ProtocolVersion30, startupBody("user", "u", "database", "db"))
	ssl := startupPacket(sslRequestCode, nil)
	gss := startupPacket(gssEncRequestCode, nil)
	// A body of exactly 10,000 bytes: an application_name that fills it.
	pad := 10_000 - 4 - len(startupBody("user", "u", "database", "db", "application_name", ""))
	full := startupPacket(pgproto3.ProtocolVersion30, startupBody("user", "u", "database", "db", "application_name", strings.Repeat("a", pad)))
	over := startupPacket(pgproto3.ProtocolVersion30, startupBody("user", "u", "database", "db", "application_name", strings.Repeat("a", pad+1)))
	cancel := func(body int) []byte { return startupPacket(cancelRequestCode, make([]byte, body-4)) }
	for _, c := range []struct {
		name    string
		packets [][]byte
		answers string // single bytes answered before the session
		want    string
	}{
		{"a 3-byte packet", [][]byte{{0, 0, 0}}, "", "closed"},
		{"a length of 4", [][]byte{{0, 0, 0, 4}}, "", "closed"},
		{"a body of 3 bytes", [][]byte{{0, 0, 0, 7, 0, 3, 0}}, "", "closed"},
		{"a negative length", [][]byte{{0xff, 0xff, 0xff, 0xf0}}, "", "closed"},
		{"a body of 10,000 bytes", [][]byte{full}, "", "in"},
		{"a body of 10,001 bytes", [][]byte{over}, "", "closed"},
		{"a body of 10,000 bytes a byte at a time", splitBytes(full), "", "in"},
		{"SSLRequest, then startup", [][]byte{ssl, startup}, "N", "in"},
		{"SSLRequest and startup in one packet", [][]byte{append(append([]byte{}, ssl...), startup...)}, "N", "in"},
		{"two SSLRequests", [][]byte{ssl, ssl, startup}, "NN", "in"},
		{"GSSENCRequest, then SSLRequest", [][]byte{gss, ssl, startup}, "NN", "in"},
		{"GSSENCRequest and startup in one packet", [][]byte{append(append([]byte{}, gss...), startup...)}, "N", "in"},
		{"a CancelRequest of 8 bytes", [][]byte{cancel(8)}, "", "closed"},
		{"a CancelRequest of 11 bytes", [][]byte{cancel(11)}, "", "closed"},
		{"a CancelRequest of 12 bytes", [][]byte{cancel(12)}, "", "closed"},
		{"a CancelRequest of 265 bytes", [][]byte{cancel(265)}, "", "closed"},
		{"a CancelRequest of 10,000 bytes", [][]byte{cancel(10_000)}, "", "closed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			nc, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer nc.Close()
			nc.SetDeadline(time.Now().Add(20 * time.Second))
			var answered []byte
			for i, p := range c.packets {
				if _, err := nc.Write(p); err != nil {
					t.Fatal(err)
				}
				// An SSLRequest or GSSENCRequest sent alone is
				// answered before the next packet is sent.
				if len(p) == 8 && i < len(c.packets)-1 && len(c.packets[0]) == 8 && (bytes.Equal(p, ssl) || bytes.Equal(p, gss)) {
					var b [1]byte
					if _, err := io.ReadFull(nc, b[:]); err != nil {
						t.Fatal(err)
					}
					answered = append(answered, b[0])
				}
			}
			if c.want == "closed" {
				nc.(*net.TCPConn).CloseWrite() // nothing more: no wait for it
			}
			for len(answered) < len(c.answers) {
				var b [1]byte
				if _, err := io.ReadFull(nc, b[:]); err != nil {
					t.Fatal(err)
				}
				answered = append(answered, b[0])
			}
			if string(answered) != c.answers {
				t.Fatalf("answered %q, want %q", answered, c.answers)
			}
			if got := session(t, nc); got != c.want {
				t.Fatalf("%s, want %s", got, c.want)
			}
			other.send(&pgproto3.Query{String: "select 1"})
			other.until(&pgproto3.ReadyForQuery{})
		})
	}
}

// TestStartupAnsweredAsPostgreSQL: startup messages PostgreSQL 15
// answers with an error are answered with its error, where the
// connection closed without a word: a protocol other than 3.x (0A000),
// parameters that do not end in the packet's last byte or no parameters
// at all (08P01), no user (28000). A later 3.x, or protocol options
// (_pq_.*), get NegotiateProtocolVersion for 3.0 without them and then
// the session, where 3.1 was refused and 3.2 taken for 3.0 unsaid. Each
// answer is PostgreSQL 15's to the same packet.
func TestStartupAnsweredAsPostgreSQL(t *testing.T) {
	dsn := startSeqd(t)
	addr := hostAddr(t, dsn)
	for _, c := range []struct {
		name   string
		packet []byte
		want   string
	}{
		{"protocol 2.0", startupPacket(0x0002_0000, startupBody("user", "u")), "E 0A000"},
		{"protocol 4.0", startupPacket(0x0004_0000, startupBody("user", "u")), "E 0A000"},
		{"protocol 3.1", startupPacket(0x0003_0001, startupBody("user", "u")), "NegotiateProtocolVersion 3.0 [] AuthenticationOk in"},
		{"protocol 3.2", startupPacket(0x0003_0002, startupBody("user", "u")), "NegotiateProtocolVersion 3.0 [] AuthenticationOk in"},
		{"protocol options", startupPacket(pgproto3.ProtocolVersion30, startupBody("user", "u", "_pq_.b", "1", "_pq_.a", "2")),
			"NegotiateProtocolVersion 3.0 [_pq_.b _pq_.a] AuthenticationOk in"},
		{"no terminator", startupPacket(pgproto3.ProtocolVersion30, []byte("user\x00u\x00")), "E 08P01"},
		{"a name without a value", startupPacket(pgproto3.ProtocolVersion30, []byte("user\x00\x00")), "E 08P01"},
		{"after the terminator", startupPacket(pgproto3.ProtocolVersion30, []byte("user\x00u\x00\x00\x00")), "E 08P01"},
		{"the version alone", startupPacket(pgproto3.ProtocolVersion30, nil), "E 08P01"},
		{"no parameters", startupPacket(pgproto3.ProtocolVersion30, []byte{0}), "E 28000"},
		{"no user", startupPacket(pgproto3.ProtocolVersion30, startupBody("database", "db")), "E 28000"},
	} {
		t.Run(c.name, func(t *testing.T) {
			nc, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer nc.Close()
			nc.SetDeadline(time.Now().Add(20 * time.Second))
			if _, err := nc.Write(c.packet); err != nil {
				t.Fatal(err)
			}
			fe := pgproto3.NewFrontend(nc, nc)
			var got []string
		read:
			for {
				m, err := fe.Receive()
				if err != nil {
					break
				}
				switch m := m.(type) {
				case *pgproto3.ErrorResponse:
					got = append(got, "E "+m.Code)
				case *pgproto3.NegotiateProtocolVersion:
					got = append(got, fmt.Sprintf("NegotiateProtocolVersion 3.%d %v", m.NewestMinorProtocol, m.UnrecognizedOptions))
				case *pgproto3.AuthenticationOk:
					got = append(got, "AuthenticationOk")
				case *pgproto3.ReadyForQuery:
					got = append(got, "in")
					break read
				}
			}
			if strings.Join(got, " ") != c.want {
				t.Fatalf("%v, want %s", got, c.want)
			}
		})
	}
}

// splitBytes is b a byte a packet.
func splitBytes(b []byte) [][]byte {
	out := make([][]byte, len(b))
	for i := range b {
		out[i] = b[i : i+1]
	}
	return out
}

// TestReceiveBeforeHandshake: with TLS, bytes a client sends in the clear
// after its SSLRequest never start a session, whether they came in the
// SSLRequest's packet or in a later one before the handshake (refused
// with 08P01, or breaking the handshake); a GSSENCRequest before the
// SSLRequest is answered 'N' and TLS then starts; a second SSLRequest,
// inside TLS, is answered 'N' there.
func TestReceiveBeforeHandshake(t *testing.T) {
	addr := startTLSServer(t)
	startup := startupPacket(pgproto3.ProtocolVersion30, startupBody("user", "u", "database", "db"))
	ssl := startupPacket(sslRequestCode, nil)
	gss := startupPacket(gssEncRequestCode, nil)
	for _, c := range []struct {
		name   string
		before [][]byte // sent in the clear, each its own write, before 'S' is read
		inside [][]byte // sent over TLS, each awaiting its one-byte answer
		want   string
	}{
		{"clean", [][]byte{ssl}, nil, "in"},
		{"startup in the SSLRequest's packet", [][]byte{append(append([]byte{}, ssl...), startup...)}, nil, "FATAL 08P01"},
		{"startup in a later packet", [][]byte{ssl, startup}, nil, "refused"},
		{"a byte in a later packet", [][]byte{ssl, {0}}, nil, "refused"},
		{"GSSENCRequest first", [][]byte{gss, ssl}, nil, "in"},
		{"a second SSLRequest inside", [][]byte{ssl}, [][]byte{ssl}, "in"},
	} {
		t.Run(c.name, func(t *testing.T) {
			nc, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer nc.Close()
			nc.SetDeadline(time.Now().Add(20 * time.Second))
			for _, p := range c.before {
				if _, err := nc.Write(p); err != nil {
					t.Fatal(err)
				}
				if bytes.Equal(p, gss) {
					var b [1]byte
					if _, err := io.ReadFull(nc, b[:]); err != nil || b[0] != 'N' {
						t.Fatalf("GSSENCRequest answered %q %v", b, err)
					}
				}
			}
			var b [1]byte
			if _, err := io.ReadFull(nc, b[:]); err != nil || b[0] != 'S' {
				t.Fatalf("SSLRequest answered %q %v", b, err)
			}
			tc := tls.Client(nc, &tls.Config{InsecureSkipVerify: true})
			if err := tc.Handshake(); err != nil {
				if c.want != "refused" {
					t.Fatalf("handshake: %v", err)
				}
				return
			}
			for _, p := range c.inside {
				if _, err := tc.Write(p); err != nil {
					t.Fatal(err)
				}
				if _, err := io.ReadFull(tc, b[:]); err != nil || b[0] != 'N' {
					t.Fatalf("inside TLS, answered %q %v", b, err)
				}
			}
			if _, err := tc.Write(startup); err != nil {
				t.Fatal(err)
			}
			got := session(t, tc)
			if c.want == "refused" && strings.HasPrefix(got, "FATAL 08P01") {
				got = "refused"
			}
			if got != c.want {
				t.Fatalf("%s, want %s", got, c.want)
			}
		})
	}
}

// FuzzDecodeStartup: any startup packet is read without a panic, and a
// StartupMessage read, encoded again by pgproto3, is read the same.
func FuzzDecodeStartup(f *testing.F) {
	f.Add(startupPacket(pgproto3.ProtocolVersion30, startupBody("user", "u", "database", "db")))
	f.Add(startupPacket(pgproto3.ProtocolVersion30, []byte{0}))
	f.Add(startupPacket(0x0003_0002, startupBody("user", "u", "_pq_.x", "1")))
	f.Add(startupPacket(pgproto3.ProtocolVersion30, []byte("user\x00u\x00")))
	f.Fuzz(func(t *testing.T, packet []byte) {
		r := newReceiver(bytes.NewReader(packet), 0)
		msg, err := r.receiveStartup()
		m, ok := msg.(*pgproto3.StartupMessage)
		if err != nil || !ok || r.options != nil || len(m.Parameters) == 0 {
			return
		}
		again, err := m.Encode(nil)
		if err != nil {
			t.Fatal(err)
		}
		back, err := newReceiver(bytes.NewReader(again), 0).receiveStartup()
		if err != nil || !reflect.DeepEqual(back, msg) {
			t.Fatalf("%x read as %+v, encoded again as %x, read as %+v %v", packet, m, again, back, err)
		}
	})
}
