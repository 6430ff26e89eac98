package httpapi

import (
	"bytes"
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"sync/atomic"

	"github.com/seqd/seqd/frontend"
	"github.com/seqd/seqd/sqlerr"
)

// The API's connections are counted in the shared budget from accept
// (frontend.Listener), and each says how far it got:
//
//  1. accepted, and while no request on it authenticated: evictable,
//     and closed at AuthTimeout (the headers of its first request are
//     read within ReadHeaderTimeout, both 10 s);
//  2. from its first request that authenticates (in handle, once its
//     body is read): busy until its answer is written, idle and
//     evictable between requests (http.StateIdle; for HTTP/2, once no
//     stream is open), so a kept-alive connection gives its place to a
//     new client when the budget is full. A later request is busy too
//     only once its body is read and it is authenticated: a body sent
//     slowly leaves its connection evictable.
//
// A connection that sends a byte does not leave step 1, and a
// connection holds a place it cannot lose only while the server works
// for credentials it accepted, not while it waits for a client.

// conn is an accepted connection and whether a request on it
// authenticated. It is safe for concurrent use.
type conn struct {
	*frontend.Conn
	authenticated atomic.Bool
	// answers is the room for the answers its requests make, until
	// each is written (frontend.AnswerRoomSize: HTTP/1.1 has one request
	// at a time, HTTP/2 up to 100).
	answers *frontend.AnswerRoom
}

// bytesPerValue is what one value of an answer holds while it is made
// and written: the value, and its text in the JSON ("-9223372036854775808",).
const bytesPerValue = 8 + 23

// roomFor waits for n bytes of the answer room of the request's
// connection (all of it, if n is more), and returns what gives them
// back once the answer is written.
func roomFor(ctx context.Context, n int64) (release func(), err error) {
	c, _ := ctx.Value(connKey{}).(*conn)
	if c == nil {
		return func() {}, nil
	}
	return c.answers.Take(ctx, n)
}

// authenticate marks c busy with an authenticated request whose body
// has been read (step 2), until its answer is written.
func (c *conn) authenticate() {
	if !c.authenticated.Load() {
		c.authenticated.Store(true)
		c.Conn.Authenticated()
		return
	}
	c.SetIdle(false)
}

// listener is the frontend.Listener wrapping what it accepts in conn.
type listener struct {
	net.Listener // a *frontend.Listener
}

func (l listener) Accept() (net.Conn, error) {
	nc, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &conn{Conn: nc.(*frontend.Conn), answers: frontend.NewAnswerRoom()}, nil
}

// connOf is the conn under nc (a *tls.Conn's), nil if none.
func connOf(nc net.Conn) *conn {
	if tc, ok := nc.(*tls.Conn); ok {
		nc = tc.NetConn()
	}
	c, _ := nc.(*conn)
	return c
}

type connKey struct{}

// connContext keeps a connection's conn in its requests' contexts, for
// handle to mark it authenticated (http.Server.ConnContext).
func connContext(ctx context.Context, nc net.Conn) context.Context {
	if c := connOf(nc); c != nil {
		return context.WithValue(ctx, connKey{}, c)
	}
	return ctx
}

// authenticated marks the connection of an authenticated request's
// context.
func authenticated(ctx context.Context) {
	if c, _ := ctx.Value(connKey{}).(*conn); c != nil {
		c.authenticate()
	}
}

// connState is http.Server.ConnState: evictable between requests (a
// request is busy only once authenticated and its body read:
// authenticate).
func connState(nc net.Conn, st http.ConnState) {
	c := connOf(nc)
	if c == nil {
		return
	}
	if st == http.StateIdle {
		c.SetIdle(true)
	}
}

// refusal is what a connection the budget has no room for is answered,
// before it sent anything: 53300 as a request would have it (429, the
// problem document, Retry-After), and the connection closed.
var refusal = func() []byte {
	var body bytes.Buffer
	w := &headerWriter{h: http.Header{}, body: &body}
	writeProblem(w, statusOf(sqlerr.TooManyConnections), sqlerr.SQLState(sqlerr.TooManyConnections), "sorry, too many clients already")
	w.h.Set("Retry-After", "1")
	resp := &http.Response{StatusCode: w.status, ProtoMajor: 1, ProtoMinor: 1, Header: w.h, Close: true,
		ContentLength: int64(body.Len()), Body: io.NopCloser(&body)}
	var out bytes.Buffer
	resp.Write(&out)
	return out.Bytes()
}()

// headerWriter is the http.ResponseWriter refusal is written with.
type headerWriter struct {
	h      http.Header
	status int
	body   io.Writer
}

func (w *headerWriter) Header() http.Header         { return w.h }
func (w *headerWriter) Write(b []byte) (int, error) { return w.body.Write(b) }
func (w *headerWriter) WriteHeader(status int)      { w.status = status }

// refuse answers a connection the budget has no room for with refusal
// over plain HTTP (under TLS it is only closed: a handshake to refuse
// it would cost more than it tells). The Listener bounds it to a second
// and closes the connection after; reading what the client sent until
// then lets the client read the answer before the close, instead of a
// reset that would lose it.
func refuse(nc net.Conn) {
	if _, err := nc.Write(refusal); err != nil {
		return
	}
	if tc, ok := nc.(interface{ CloseWrite() error }); ok {
		tc.CloseWrite()
	}
	io.Copy(io.Discard, io.LimitReader(nc, 64<<10))
}
