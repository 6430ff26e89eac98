package grpcapi

import (
	"context"
	"net"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/peer"

	"github.com/seqd/seqd/frontend"
)

// The service's connections are counted in the shared budget from
// accept (frontend.Listener), and each says how far it got:
//
//  1. accepted: evictable, and closed at AuthTimeout unless it makes a
//     call by then (grpc.ConnectionTimeout bounds its HTTP/2 handshake
//     within that);
//  2. once it makes any call (the health service's, reflection's, one
//     that fails to authenticate): no longer timed out, but evictable
//     while no authenticated call is under way on it;
//  3. while one or more calls that authenticated are under way (a
//     stream: while it is open): busy, never evicted.
//
// So a flood of silent connections, or of connections that only ask for
// health, gives its places to clients that call the service, and only
// clients with credentials hold a place they cannot lose.
//
// grpc-go shows a call its connection only as the peer's address
// (peer.FromContext), so the address an accepted connection gives is
// one that carries its state (remoteAddr): found from any call without
// a lookup, and gone with the connection. (A stats handler would find
// it once per connection, but costs every call some twenty allocations
// of events this does not need.)

// tracked is one connection's budget entry and how far it got. It is
// safe for concurrent use; mu is taken before the Registry's lock (in
// the frontend.Conn's methods), never after.
type tracked struct {
	fc    *frontend.Conn
	mu    sync.Mutex
	spoke bool // made a call
	busy  int  // authenticated calls under way
	// answers is the room of the answers its calls hold (answers.go).
	answers *frontend.AnswerRoom
}

// called marks a call made on the connection (step 2).
func (t *tracked) called() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.spoke {
		return
	}
	t.spoke = true
	t.fc.Authenticated()
	if t.busy == 0 {
		t.fc.SetIdle(true)
	}
}

// began marks an authenticated call under way (step 3); ended, its end.
func (t *tracked) began() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.busy++; t.busy == 1 {
		t.fc.SetIdle(false)
	}
}

func (t *tracked) ended() {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.busy--; t.busy == 0 {
		t.fc.SetIdle(true)
	}
}

// trackedOf is the connection a call's ctx came on, nil if it was not
// accepted through listener.
func trackedOf(ctx context.Context) *tracked {
	if p, ok := peer.FromContext(ctx); ok {
		if a, ok := p.Addr.(*remoteAddr); ok {
			return a.t
		}
	}
	return nil
}

// busy marks the connection of a call's ctx busy, for a call that
// authenticated, until the ended of what it returns (nil, whose ended
// does nothing, for a connection not accepted through listener).
func busy(ctx context.Context) *tracked {
	t := trackedOf(ctx)
	if t != nil {
		t.began()
	}
	return t
}

// unaryCalled and streamCalled are the server's interceptors: every
// call, of every service, marks its connection (step 2).
func unaryCalled(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
	if t := trackedOf(ctx); t != nil {
		t.called()
	}
	return h(ctx, req)
}

func streamCalled(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, h grpc.StreamHandler) error {
	if t := trackedOf(ss.Context()); t != nil {
		t.called()
	}
	return h(srv, ss)
}

// listener is the frontend.Listener, its connections wrapped in conn.
type listener struct {
	net.Listener // a *frontend.Listener
}

func (l listener) Accept() (net.Conn, error) {
	nc, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	fc := nc.(*frontend.Conn)
	return &conn{Conn: fc, addr: remoteAddr{Addr: fc.RemoteAddr(), t: &tracked{fc: fc, answers: frontend.NewAnswerRoom()}}}, nil
}

// conn is an accepted connection whose RemoteAddr carries its state.
type conn struct {
	*frontend.Conn
	addr remoteAddr
}

func (c *conn) RemoteAddr() net.Addr { return &c.addr }

// remoteAddr is a connection's remote address (its Network and String
// are the address's) and the connection's state. It is not a
// *net.TCPAddr: what would assert one of a call's peer (grpc-go's
// channelz service, which seqd does not register) should use String.
type remoteAddr struct {
	net.Addr
	t *tracked
}
