package frontend

import (
	"bytes"
	"errors"
	"io"
	"log"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/seqd/seqd/sqlerr"
)

// TestRegistry: the budget counts connections from accept and sessions
// from registration, reserves the last slots for superusers, and cancels
// a session only with its key.
func TestRegistry(t *testing.T) {
	r := NewRegistry(3, 1)
	for i := range 3 {
		if !r.Admit() {
			t.Fatalf("connection %d refused under the limit", i+1)
		}
	}
	if r.Admit() {
		t.Fatal("a fourth connection admitted with a limit of 3")
	}
	r.Leave()
	if !r.Admit() {
		t.Fatal("a connection refused after one left")
	}

	cancelled := map[uint32]int{}
	var ids []uint32
	var keys [][4]byte
	for i := range 3 {
		var id uint32
		id, key, ok := r.Register(func() { cancelled[id]++ })
		if !ok || id == 0 || id > 1<<31-1 {
			t.Fatalf("session %d: id %d, %v", i+1, id, ok)
		}
		for _, other := range ids {
			if other == id {
				t.Fatalf("two sessions with id %d", id)
			}
		}
		ids, keys = append(ids, id), append(keys, key)
		// The last slot is a superuser's.
		if i < 2 && !r.MayUseSlot(false) {
			t.Fatalf("session %d of 3 (1 reserved) refused to a plain role", i+1)
		}
	}
	if r.MayUseSlot(false) || !r.MayUseSlot(true) {
		t.Fatal("the reserved slot: a plain role kept it, or a superuser did not")
	}
	if _, _, ok := r.Register(func() {}); ok {
		t.Fatal("a fourth session registered with a limit of 3")
	}

	wrong := keys[0]
	wrong[0] ^= 1
	if r.Cancel(ids[0], wrong[:]) || r.Cancel(ids[0]+1<<30, keys[0][:]) || cancelled[ids[0]] != 0 {
		t.Fatal("cancelled with a wrong key or id")
	}
	if !r.Cancel(ids[0], keys[0][:]) || cancelled[ids[0]] != 1 {
		t.Fatal("not cancelled with its key")
	}
	r.Unregister(ids[0])
	if r.Cancel(ids[0], keys[0][:]) || cancelled[ids[0]] != 1 {
		t.Fatal("an unregistered session cancelled")
	}
	if _, _, ok := r.Register(func() {}); !ok {
		t.Fatal("no session registered after one ended")
	}
}

// TestReserveID: an ID reserved (a MySQL handshake's) is no session's:
// not counted, cancelling nothing, taken by no other; RegisterID makes
// it one within the limit, and Unregister gives it back either way.
func TestReserveID(t *testing.T) {
	r := NewRegistry(2, 1)
	var reserved []uint32
	for range 10 { // more than the limit: they count for nothing
		reserved = append(reserved, r.ReserveID())
	}
	if !r.MayUseSlot(false) {
		t.Fatal("IDs reserved counted as sessions")
	}
	id, _, ok := r.Register(func() {})
	if !ok || slices.Contains(reserved, id) {
		t.Fatalf("a session registered beside reserved IDs: %d %v", id, ok)
	}
	if r.Cancel(reserved[0], make([]byte, 4)) {
		t.Fatal("a reserved ID cancelled something")
	}
	cancelled := false
	key, ok := r.RegisterID(reserved[0], func() { cancelled = true })
	if !ok || r.MayUseSlot(false) || !r.MayUseSlot(true) {
		t.Fatalf("registering a reserved ID: %v; it is not counted", ok)
	}
	if _, ok := r.RegisterID(reserved[0], func() {}); ok {
		t.Fatal("an ID registered twice")
	}
	if _, ok := r.RegisterID(reserved[1], func() {}); ok {
		t.Fatal("a reserved ID registered past the limit")
	}
	if _, ok := r.RegisterID(12345, func() {}); ok && !slices.Contains(reserved, 12345) {
		t.Fatal("an ID never reserved registered")
	}
	if !r.Cancel(reserved[0], key[:]) || !cancelled {
		t.Fatal("the session of a reserved ID not cancelled with its key")
	}
	r.Unregister(reserved[0])
	r.Unregister(reserved[1]) // reserved, never registered
	if !r.MayUseSlot(false) {
		t.Fatal("a session gone still counted")
	}
	if _, ok := r.RegisterID(reserved[1], func() {}); ok {
		t.Fatal("an ID given back registered")
	}
	if _, ok := r.RegisterID(reserved[2], func() {}); !ok {
		t.Fatal("a reserved ID refused with room")
	}
}

// TestContain: a panic in a statement becomes its internal error.
func TestContain(t *testing.T) {
	var buf bytes.Buffer
	run := func() (err error) {
		defer Contain(log.New(&buf, "", 0), 7, &err)
		panic("boom")
	}
	err := run()
	var se *sqlerr.Error
	if !errors.As(err, &se) || se.Kind != sqlerr.InternalError || !strings.Contains(se.Msg, "boom") {
		t.Fatalf("after a panic: %v", err)
	}
	if !strings.Contains(buf.String(), "a statement panicked (connection 7): boom") {
		t.Fatalf("log: %s", buf.String())
	}
}

// pipeListener hands out the server ends of net.Pipe pairs, after
// failing its first Accepts with EMFILE.
type pipeListener struct {
	conns    chan net.Conn
	failures atomic.Int32
	closed   chan struct{}
}

func (l *pipeListener) Accept() (net.Conn, error) {
	if l.failures.Add(-1) >= 0 {
		return nil, &net.OpError{Op: "accept", Net: "tcp", Err: syscall.EMFILE}
	}
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}
func (l *pipeListener) Close() error   { close(l.closed); return nil }
func (l *pipeListener) Addr() net.Addr { return &net.TCPAddr{} }

// dial makes a connection for l to accept, and returns the client's end.
func (l *pipeListener) dial() net.Conn {
	client, server := net.Pipe()
	l.conns <- server
	return client
}

// isClosed reports whether the server closed c's other end.
func isClosed(c net.Conn) bool {
	c.SetReadDeadline(time.Now().Add(2 * time.Second))
	_, err := c.Read(make([]byte, 1))
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe)
}

// TestListener: accept failures are retried and logged; connections are
// counted from accept; over the budget the oldest unauthenticated or idle
// one gives its place, and when none can, the new one is refused; one
// that does not authenticate in time is closed.
func TestListener(t *testing.T) {
	reg := NewRegistry(2, 0)
	pl := &pipeListener{conns: make(chan net.Conn, 8), closed: make(chan struct{})}
	pl.failures.Store(3)
	var logged bytes.Buffer
	var mu sync.Mutex
	refused := make(chan struct{}, 8)
	l := Listen(pl, ListenerConfig{Registry: reg, Name: "test", AuthTimeout: time.Hour,
		Logger: log.New(lockedWriter{&mu, &logged}, "", 0), Refuse: func(net.Conn) { refused <- struct{}{} }})
	accepted := make(chan net.Conn)
	acceptor := func(l *Listener) {
		for {
			nc, err := l.Accept()
			if err != nil {
				return
			}
			accepted <- nc
		}
	}
	go acceptor(l)
	accept := func() *Conn {
		t.Helper()
		return (<-accepted).(*Conn)
	}
	c1 := pl.dial()
	a1 := accept()
	mu.Lock()
	if !strings.Contains(logged.String(), "test: accept failed (1 in a row)") || !strings.Contains(logged.String(), "accepting again after 3 failed accepts") {
		t.Fatalf("log: %s", logged.String())
	}
	mu.Unlock()
	c2 := pl.dial()
	a2 := accept()
	a2.Authenticated()
	// Full: the third takes the place of the first, which never
	// authenticated.
	c3 := pl.dial()
	a3 := accept()
	if !isClosed(c1) {
		t.Fatal("the unauthenticated connection was not evicted for a new one")
	}
	a3.Authenticated()
	if n := reg.AdmittedBy("test"); n != 2 {
		t.Fatalf("AdmittedBy(test) = %d with two connections in", n)
	}
	// Full of authenticated connections: the fourth is refused.
	c4 := pl.dial()
	<-refused
	if !isClosed(c4) {
		t.Fatal("a connection over the budget was not closed")
	}
	// An idle one gives its place; a busy one does not.
	a2.SetIdle(true)
	a2.SetIdle(false)
	a3.SetIdle(true)
	c5 := pl.dial()
	a5 := accept()
	if !isClosed(c3) {
		t.Fatal("the idle connection was not evicted")
	}
	a1.Close() // evicted already: its slot is not left twice
	a5.Close()
	a2.Close()
	if n, m := reg.Admitted(), reg.AdmittedBy("test"); n != 0 || m != 0 {
		t.Fatalf("%d connections counted (%d by the listener) after all closed", n, m)
	}
	_, _ = c2, c5

	// The authentication timeout.
	pl.Close()
	pl = &pipeListener{conns: make(chan net.Conn, 8), closed: make(chan struct{})}
	l = Listen(pl, ListenerConfig{Registry: reg, AuthTimeout: 50 * time.Millisecond})
	go acceptor(l)
	c6 := pl.dial()
	accept()
	if !isClosed(c6) {
		t.Fatal("a connection that never authenticated was not closed")
	}
	for reg.Admitted() != 0 {
		time.Sleep(time.Millisecond)
	}
	pl.Close()
	if _, err := l.Accept(); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("Accept on a closed listener: %v", err)
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Write(p)
}

// TestTrack: a session Track registers (an API's pooled one) has an ID
// and a key but takes no place: the places sessions count stay free
// (and at most the budget's number are tracked); MayTrack refuses an ordinary role's once
// the counted sessions hold every place any role may take.
func TestTrack(t *testing.T) {
	r := NewRegistry(3, 1)
	cancelled := false
	var ids []uint32
	for i := range 3 {
		id, ok := r.Track(func() { cancelled = i == 0 })
		if !ok {
			t.Fatalf("tracked session %d of 3 refused", i+1)
		}
		ids = append(ids, id)
	}
	if _, ok := r.Track(func() {}); ok {
		t.Fatal("more sessions tracked than the budget's connections")
	}
	if !r.MayUseSlot(false) || !r.MayTrack(false) {
		t.Fatal("tracked sessions took places")
	}
	for range 2 {
		if _, _, ok := r.Register(func() {}); !ok {
			t.Fatal("a session refused beside tracked ones")
		}
	}
	if r.MayTrack(false) || !r.MayTrack(true) {
		t.Fatal("with the places any role may take held, an ordinary role's tracked session allowed, or a superuser's refused")
	}
	r.Unregister(ids[1])
	if _, _, ok := r.Register(func() {}); !ok {
		t.Fatal("the reserved place refused")
	}
	if r.Cancel(ids[0], make([]byte, 4)) || cancelled {
		t.Fatal("a tracked session cancelled with a wrong key")
	}
}
