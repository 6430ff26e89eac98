package mysqlwire

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"io"
	"log"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/seqd/seqd/frontend"
	"github.com/seqd/seqd/internal/testenv"
	"github.com/seqd/seqd/internal/vitess/mysql"
	"github.com/seqd/seqd/pgwire"
)

// What a client with network access and at most an ordinary role can do
// to the MySQL listener before it is served, and what it gets.

// TestSilentConnectionsDropped: connections that never answer the
// handshake count in the budget the front ends share, but a client that
// logs in takes the place of the oldest of them when it is full, and the
// server closes each after AuthTimeout (they used to hold their places
// for ever: as many as -max-connections locked every protocol out). A
// connection that authenticated, with TLS or without, is not closed.
func TestSilentConnectionsDropped(t *testing.T) {
	tc, _ := serverTLS(t)
	addr, _ := startServer(t, Config{Registry: frontend.NewRegistry(4, 0), TLS: tc, AuthTimeout: 500 * time.Millisecond})
	var silent []*rawConn
	for range 4 {
		silent = append(silent, dialRaw(t, addr)) // reads the handshake, answers nothing
	}
	var in []*sql.Conn
	for _, params := range []string{"tls=false", "tls=skip-verify"} {
		db, err := sql.Open("mysql", fmt.Sprintf("app:app pw@tcp(%s)/?%s", addr, params))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		c, err := db.Conn(ctx)
		if err != nil {
			t.Fatalf("logging in (%s) with the budget full of silent connections: %v", params, err)
		}
		t.Cleanup(func() { c.Close() })
		in = append(in, c)
	}
	for i, s := range silent {
		if !s.closed(10 * time.Second) {
			t.Fatalf("silent connection %d still open after 10 s (AuthTimeout 500 ms)", i)
		}
	}
	time.Sleep(600 * time.Millisecond) // the logged-in ones past AuthTimeout too
	for i, c := range in {
		var one int
		if err := c.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
			t.Fatalf("an authenticated connection (%d) after AuthTimeout: %v", i, err)
		}
	}
}

// TestReservedSlots: past -max-connections less the reserved places,
// an ordinary role is refused once authenticated (1040, as a connection
// over the budget), a superuser gets in, as in PostgreSQL (an ordinary
// role used to take the reserved places too).
func TestReservedSlots(t *testing.T) {
	addr, _ := startServer(t, Config{Registry: frontend.NewRegistry(4, 2)})
	var held []*rawConn
	for range 2 {
		c := dialRaw(t, addr)
		c.mustLogin("app", "app pw")
		held = append(held, c)
	}
	if p := dialRaw(t, addr).login("app", "app pw", "mysql_native_password"); !isError(p, 1040, "08004", "Too many connections") {
		t.Fatalf("a third ordinary session of four places, two reserved: %s, want 1040", describe(p))
	}
	dialRaw(t, addr).mustLogin("root", "root pw")
}

// TestSilentConnectionsHoldNoPlaces: connections not yet authenticated
// hold none of the places an ordinary role may take: with the budget
// full of silent MySQL connections, an ordinary role logs in at once,
// over MySQL and over PostgreSQL (on the same Registry), each in the
// place of a silent one. Each used to register a session at accept,
// which the check of the places reserved for superusers counted: an
// ordinary role was refused (1040, 53300) until the silent connections
// timed out, on every protocol.
func TestSilentConnectionsHoldNoPlaces(t *testing.T) {
	const max, reserved = 6, 2
	reg := frontend.NewRegistry(max, reserved)
	eng := testenv.MemEngine(t)
	addr := serve(t, eng, Config{Registry: reg}).Addr().String()
	pg := pgwire.NewServer(pgwire.Config{Engine: eng, Registry: reg, Logger: log.New(io.Discard, "", 0)})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go pg.Serve(ln)
	t.Cleanup(func() { pg.Shutdown(context.Background()) })
	for range max {
		dialRaw(t, addr) // reads the handshake, answers nothing
	}
	if n := reg.Admitted(); n != max {
		t.Fatalf("the budget counts %d connections, want %d", n, max)
	}
	if p := dialRaw(t, addr).login("app", "app pw", "mysql_native_password"); p[0] != 0 {
		t.Errorf("an ordinary role over MySQL, the budget full of silent MySQL connections: %s", describe(p))
	}
	pc, err := pgx.Connect(ctx, fmt.Sprintf("postgres://app@%s/seqd?sslmode=disable", ln.Addr()))
	if err != nil {
		t.Fatalf("an ordinary role over PostgreSQL, the budget full of silent MySQL connections: %v", err)
	}
	defer pc.Close(ctx)
	var one int
	if err := pc.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil {
		t.Fatal(err)
	}
}

// TestKillByThreadID: the connection ID a handshake announces is
// CONNECTION_ID() once the connection authenticated, and KILL finds the
// connection by it (the mysql client's ^C and Connector/J's
// Statement.cancel send it); a connection not yet authenticated has no
// session to KILL (1094).
func TestKillByThreadID(t *testing.T) {
	addr, _ := startServer(t, Config{})
	silent := dialRaw(t, addr)
	app := open(t, addr, "app", "")
	if _, err := app.Exec(fmt.Sprintf("KILL %d", silent.thread)); number(err) != 1094 {
		t.Fatalf("KILL of a connection not yet authenticated: %v, want 1094", err)
	}
	target := dialRaw(t, addr)
	target.mustLogin("app", "app pw")
	if _, rows := target.execute(target.prepare("SELECT CONNECTION_ID()"), 0); len(rows) != 1 ||
		binary.LittleEndian.Uint32(rows[0][2:]) != target.thread {
		t.Fatalf("CONNECTION_ID() %x, the handshake announced %d", rows, target.thread)
	}
	if _, err := app.Exec(fmt.Sprintf("KILL %d", target.thread)); err != nil {
		t.Fatalf("KILL by the handshake's connection ID: %v", err)
	}
	if !target.closed(5 * time.Second) {
		t.Fatal("the connection KILL named by its handshake's ID goes on")
	}
}

// TestTLSRequiredRefusesPlaintext: with TLSRequired, a client that does
// not ask for TLS is refused before it is authenticated, in MariaDB
// 10.11's words (require_secure_transport answers 1045, as a wrong
// password, whatever the password), and the connection is closed: a
// client that goes on as if it had not been refused is never answered
// (it used to be authenticated and served without TLS). Drivers get in
// over TLS only.
func TestTLSRequiredRefusesPlaintext(t *testing.T) {
	tc, _ := serverTLS(t)
	addr, _ := startServer(t, Config{TLS: tc, TLSRequired: true})
	c := dialRaw(t, addr)
	p := c.login("root", "root pw", "mysql_native_password")
	if n, state := errorOf(p); n != 1045 || state != "28000" || !strings.HasSuffix(string(p), "Access denied for user 'root'@'127.0.0.1' (using password: YES)") {
		t.Fatalf("a client without TLS: %s, want 1045 (28000)", describe(p))
	}
	c.write(handshakeResponse(rawCaps, "root", "mysql_native_password", nil))
	c.seen = nil
	if !c.closed(5 * time.Second) {
		t.Fatalf("the refused connection answered: %s", describe(c.seen[0]))
	}
	login := func(params string) error {
		db, err := sql.Open("mysql", fmt.Sprintf("app:app pw@tcp(%s)/?%s", addr, params))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		return db.Ping()
	}
	if err := login("tls=false"); number(err) != 1045 {
		t.Fatalf("go-sql-driver without TLS: %v, want 1045", err)
	}
	if err := login("tls=skip-verify"); err != nil {
		t.Fatalf("go-sql-driver over TLS: %v", err)
	}
}

// TestHandshakeBounded: a handshake response longer than
// mysql.MaxHandshakePacket gets MariaDB's 1043 before it is read, even
// when it is a login max_allowed_packet would let in (a client not yet
// authenticated made the server hold max_allowed_packet), and one that
// cannot be parsed gets 1043 too (it used to panic in the parser, or end
// without a word); the connection ends either way, and others go on.
func TestHandshakeBounded(t *testing.T) {
	addr, _ := startServer(t, Config{MaxMessage: 64 << 10})
	for _, c := range []struct {
		name   string
		packet []byte // with its header
		want   string
	}{
		{"a 1 MiB packet", append([]byte{0, 0, 0x10, 1}, make([]byte, 100)...), "ERROR 1043 (08S01): Bad handshake"},
		{"20 KiB of connection attributes", withHeader(1, withAttrs(handshakeResponse(rawCaps|capConnAttrs, "app", "", nil), 20<<10)),
			"ERROR 1043 (08S01): Bad handshake"},
		{"two bytes", []byte{2, 0, 0, 1, 0xff, 0xff}, "ERROR 1043 (08S01): Bad handshake"},
		{"ten bytes", append([]byte{10, 0, 0, 1, 0, 2, 0, 0}, make([]byte, 8)...), "ERROR 1043 (08S01): Bad handshake"},
		{"an auth response of 2^64-1 bytes", func() []byte {
			p := handshakeResponse(rawCaps, "app", "mysql_native_password", nil)
			i := bytes.Index(p, []byte("app\x00")) + 4
			p = append(p[:i:i], append([]byte{0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, p[i+1:]...)...)
			return append([]byte{byte(len(p)), 0, 0, 1}, p...)
		}(), "ERROR 1043 (08S01): Bad handshake"},
	} {
		r := dialRaw(t, addr)
		r.nc.Write(c.packet)
		r.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
		p, err := r.read()
		if err != nil || describe(p) != c.want {
			t.Errorf("%s: %s %v, want %s", c.name, describe(p), err, c.want)
		}
		if !r.closed(5 * time.Second) {
			t.Errorf("%s: the connection goes on", c.name)
		}
	}
	if err := open(t, addr, "app", "").PingContext(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestHandshakeNotHeld: before authentication the server keeps no more
// than mysql.MaxHandshakePacket of a packet, whatever max_allowed_packet
// allows: a handshake response, an auth switch's reply or
// caching_sha2_password's more data announced longer gets 1043 "Bad
// handshake" (MariaDB's answer to connection attributes past its bound)
// without the server waiting for its body, and the connection ends. It
// used to wait for up to max_allowed_packet (1 MiB) and hold it: 10 GiB
// for 10,000 connections that log in to nothing.
func TestHandshakeNotHeld(t *testing.T) {
	addr, _ := startServer(t, Config{DefaultAuth: "caching_sha2_password"})
	big := make([]byte, mysql.MaxHandshakePacket+1)
	for _, c := range []struct {
		name string
		send func(*rawConn) // up to the packet past the bound
	}{
		{"a handshake response, its body not sent", func(r *rawConn) {
			r.nc.Write([]byte{0xff, 0xff, 0x0f, 1}) // 1 MiB less one byte
			r.nc.Write(handshakeResponse(rawCaps, "app", "", nil))
		}},
		{"a reply to an auth switch", func(r *rawConn) {
			r.write(handshakeResponse(rawCaps, "app", "dialog", nil))
			if p := r.mustRead(); p[0] != 0xfe {
				t.Fatalf("a handshake response naming a plugin the server does not have: %s, want an auth switch", describe(p))
			}
			r.write(big)
		}},
		{"caching_sha2_password's more data", func(r *rawConn) {
			r.write(handshakeResponse(rawCaps, "app", "caching_sha2_password", mysql.ScrambleCachingSha2Password(r.salt, []byte("app pw"))))
			if p := r.mustRead(); len(p) != 2 || p[0] != 1 || p[1] != 4 {
				t.Fatalf("caching_sha2_password without a cache: %s, want perform full authentication", describe(p))
			}
			r.write(big)
		}},
	} {
		r := dialRaw(t, addr)
		c.send(r)
		r.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
		p, err := r.read()
		if err != nil || !isError(p, 1043, "08S01", "Bad handshake") {
			t.Errorf("%s past %d bytes: %s %v, want 1043 (08S01) Bad handshake", c.name, mysql.MaxHandshakePacket, describe(p), err)
		}
		if !r.closed(5 * time.Second) {
			t.Errorf("%s: the connection goes on", c.name)
		}
	}
	if err := open(t, addr, "app", "").PingContext(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestHandshakeAttributes: go-sql-driver logs in with 40 connection
// attributes (about 2 KB, ten times its own), far below
// mysql.MaxHandshakePacket; past it, it is told "Bad handshake".
func TestHandshakeAttributes(t *testing.T) {
	addr, _ := startServer(t, Config{})
	attrs := func(n, size int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, ",attribute_%d:%s", i, strings.Repeat("v", size))
		}
		return b.String()[1:]
	}
	login := func(attrs string) error {
		db, err := sql.Open("mysql", fmt.Sprintf("app:app pw@tcp(%s)/?connectionAttributes=%s", addr, attrs))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		return db.Ping()
	}
	if err := login(attrs(40, 30)); err != nil {
		t.Fatalf("40 connection attributes: %v", err)
	}
	if err := login(attrs(40, 500)); number(err) != 1043 {
		t.Fatalf("20 KB of connection attributes: %v, want 1043", err)
	}
}

// capConnAttrs is CLIENT_CONNECT_ATTRS.
const capConnAttrs = 0x100000

// withAttrs is handshake response p with connection attributes of about
// size bytes.
func withAttrs(p []byte, size int) []byte {
	var kv []byte
	for i := 0; len(kv) < size; i++ {
		k, v := fmt.Sprintf("attribute_%d", i), strings.Repeat("v", 200)
		kv = append(append(append(append(kv, byte(len(k))), k...), byte(len(v))), v...)
	}
	p = append(p, 0xfc, byte(len(kv)), byte(len(kv)>>8)) // a length below 64 KiB
	return append(p, kv...)
}

// withHeader is p with its packet header.
func withHeader(seq byte, p []byte) []byte {
	return append([]byte{byte(len(p)), byte(len(p) >> 8), byte(len(p) >> 16), seq}, p...)
}
