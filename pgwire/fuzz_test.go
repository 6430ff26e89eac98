package pgwire

import (
	"bytes"
	"github.com/seqd/seqd/frontend"
	"io"
	"net"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/seqd/seqd/internal/testenv"
)

// encode concatenates the wire form of frontend messages.
func encode(tb testing.TB, msgs ...pgproto3.FrontendMessage) []byte {
	var out []byte
	for _, m := range msgs {
		var err error
		if out, err = m.Encode(out); err != nil {
			tb.Fatal(err)
		}
	}
	return out
}

var fuzzStartup = &pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber, Parameters: map[string]string{"user": "fuzz"}}

// oneConn is a listener that hands out one connection, then is closed.
type oneConn struct {
	net.Listener
	nc net.Conn
}

func (l *oneConn) Accept() (net.Conn, error) {
	if l.nc == nil {
		return nil, net.ErrClosed
	}
	nc := l.nc
	l.nc = nil
	return nc, nil
}

// admit counts nc in srv's budget, as its listener would have.
func admit(t *testing.T, srv *Server, nc net.Conn) *frontend.Conn {
	c, err := frontend.Listen(&oneConn{nc: nc}, frontend.ListenerConfig{Registry: srv.reg, AuthTimeout: -1}).Accept()
	if err != nil {
		t.Fatal(err)
	}
	return c.(*frontend.Conn)
}

// serveBytes runs one connection whose client sends in and then closes its
// side, at once or (wait) once the server has ended the connection; it
// returns what the server wrote, or fails if the connection does not end.
func serveBytes(t *testing.T, srv *Server, in []byte, wait bool) []byte {
	client, server := net.Pipe()
	c, _ := srv.track(admit(t, srv, server))
	done := make(chan struct{})
	go func() { srv.serveConn(c); close(done) }()
	out := make(chan []byte)
	go func() { b, _ := io.ReadAll(client); out <- b }()
	client.Write(in) // returns once the server has read it all, or closed
	if wait {
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("connection did not end for input %q", in)
		}
	}
	// Closing the client's side ends the server's reads with EOF and its
	// writes with an error.
	client.Close()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("connection did not end for input %q", in)
	}
	return <-out
}

// FuzzProtocol feeds arbitrary bytes to the protocol decoder as one
// client's stream. Whatever they hold, the server must not crash or hang,
// the connection must end when the client goes, and the next well-formed
// connection must be served as usual.
func FuzzProtocol(f *testing.F) {
	srv := NewServer(Config{Engine: testenv.MemEngine(f), MaxBulkRows: 1000, MaxMessage: 1 << 16})

	f.Add(encode(f, fuzzStartup, &pgproto3.Query{String: "create sequence if not exists f cache 10; select nextval('f')"}, &pgproto3.Terminate{}))
	f.Add(encode(f, &pgproto3.SSLRequest{}, fuzzStartup, &pgproto3.Query{String: "select * from seqd_reserve('f', 5)"}))
	f.Add(encode(f, fuzzStartup,
		&pgproto3.Parse{Name: "s", Query: "select nextval($1) from generate_series(1, $2)"},
		&pgproto3.Describe{ObjectType: 'S', Name: "s"},
		&pgproto3.Bind{PreparedStatement: "s", DestinationPortal: "p", ParameterFormatCodes: []int16{0, 1}, Parameters: [][]byte{[]byte("f"), {0, 0, 0, 0, 0, 0, 0, 3}}, ResultFormatCodes: []int16{1}},
		&pgproto3.Execute{Portal: "p", MaxRows: 2},
		&pgproto3.Execute{Portal: "p"},
		&pgproto3.Close{ObjectType: 'P', Name: "p"},
		&pgproto3.Sync{}, &pgproto3.Flush{}))
	f.Add(encode(f, fuzzStartup, &pgproto3.Parse{Query: "select setval('f', $1, $2)", ParameterOIDs: []uint32{20, 16}},
		&pgproto3.Bind{Parameters: [][]byte{[]byte("7"), []byte("t")}}, &pgproto3.Execute{}, &pgproto3.Sync{}))
	f.Add(encode(f, &pgproto3.CancelRequest{ProcessID: 1, SecretKey: []byte{1, 2, 3, 4}}))
	f.Add(encode(f, fuzzStartup, &pgproto3.Query{String: "begin; select nextval('nope'); select 1; commit"}))
	f.Add([]byte{0, 0, 0, 8, 4, 210, 22, 47})

	ping := encode(f, fuzzStartup, &pgproto3.Query{String: "select 73519"}, &pgproto3.Terminate{})
	f.Fuzz(func(t *testing.T, in []byte) {
		serveBytes(t, srv, in, false)
		if out := serveBytes(t, srv, ping, true); !bytes.Contains(out, []byte("73519")) {
			t.Fatalf("after input %q a well-formed connection got %q", in, out)
		}
	})
}
