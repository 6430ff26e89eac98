// Package frontendtest is the conformance suite every seqd listener
// passes, as storage/storetest is for stores: floods, silent and slow
// clients, descriptor exhaustion, oversized messages, authentication
// that leaks nothing, TLS where required, statement timeouts and
// cancellation. A front end gives it a small adapter (Protocol); the
// harness starts a server with every listener at once, since they share
// one connection budget.
package frontendtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/seqd/seqd/frontend"
)

// Kind is what a failure means, whatever the protocol's words for it.
type Kind int

const (
	Other      Kind = iota
	TooMany         // the connection budget is full (53300, 1040, 503)
	AuthFailed      // the role, its password or its right to log in
	TooLarge        // a message past the listener's bound
	Canceled        // a statement timeout or a cancellation
)

// ErrNoStatements is Session.Slow's answer on a protocol that runs only
// its own operations (the HTTP API, gRPC).
var ErrNoStatements = errors.New("frontendtest: the protocol runs no statements of its own")

// Session is an authenticated connection (or, on HTTP, a client that
// keeps one).
type Session interface {
	// Nextval draws a value of the sequence named.
	Nextval(ctx context.Context, seq string) (int64, error)
	// Slow runs a statement that would run for minutes, until ctx ends
	// or the server's statement_timeout ends it; ErrNoStatements where
	// the protocol has none.
	Slow(ctx context.Context) error
	// Oversize sends one message past the listener's bound.
	Oversize(ctx context.Context) error
	Close() error
}

// Stall is a connection whose peer never reads (Protocol.Unread).
type Stall interface {
	// Closed reads what the server sent, until it closes the connection
	// (nil) or d passes.
	Closed(d time.Duration) error
	Close() error
}

// Protocol is a listener's adapter.
type Protocol struct {
	Name string
	Addr string // host:port
	// Hello is the start of what a client sends first (nil where the
	// server speaks first, as MySQL's does): the suite dribbles it.
	Hello []byte
	// Login connects and authenticates as user (with TLS when asked);
	// nil on a listener nobody logs in to (the metrics listener), which
	// has Probe and a budget of its own instead.
	Login func(ctx context.Context, user, password string, tls bool) (Session, error)
	// Unread logs in as user on a connection of its own (over TLS where
	// the listener serves TLS alone) and sends requests whose answers
	// are the largest the protocol has, as many as one connection may
	// have under way (pipelined, or on concurrent streams), reading
	// none of the answers; nil where Login is.
	Unread func(ctx context.Context, user, password string) (Stall, error)
	// ClosesUnread says that the listener ends a connection that reads
	// none of its answers for Options.IdleTimeout (-idle-timeout), as
	// PostgreSQL's and MySQL's do; the APIs' bound is their write
	// timeout (a minute), which their own packages test.
	ClosesUnread bool
	// Sessions says that a logged-in Session holds its connection (a
	// PostgreSQL or MySQL session, not an API client's keep-alive,
	// which is evictable while idle): it is never evicted.
	Sessions bool
	// Probe is a request that needs no role (Login == nil).
	Probe func(ctx context.Context) error
	// OwnBudget is the size of the listener's own budget, 0 where it
	// shares the server's.
	OwnBudget int
	// Kind classifies an error of Login, Probe or a Session's.
	Kind func(err error) Kind
}

// Options are the server settings a case needs.
type Options struct {
	MaxConns, ReservedConns int
	AuthTimeout             time.Duration
	StatementTimeout        time.Duration // 0: none
	TLSRequired             bool
	TLS                     bool          // serve TLS where it can (the APIs: alone), not requiring it
	IdleTimeout             time.Duration // 0: none
}

// Target is a server the harness started for a case.
type Target struct {
	// Protocols are its listeners. The first must keep sessions open
	// (it fills the budget with them).
	Protocols []Protocol
	// Admitted is how many connections the shared budget counts.
	Admitted func() int
	// Evictable is how many of them a new connection may take the place
	// of (not yet authenticated, or idle between requests).
	Evictable func() int
	// HeapAlloc is the server process's live heap after a garbage
	// collection.
	HeapAlloc func() uint64
	// Stopped reports an error once the server stopped serving.
	Stopped func() error
	// TLS says that clients use TLS (the APIs serve it alone when the
	// server has a certificate).
	TLS bool
	// Superuser and Password log in as the superuser; the role "app"
	// (password AppPassword) may log in and use the sequence "s"; the
	// role "nologin" has a password and may not log in.
	Superuser, Password string
}

// AppPassword is the password of the role "app" every target has.
const AppPassword = "app-password"

// Start starts a server with every listener under o; it is stopped when
// the test ends.
type Start func(t *testing.T, o Options) *Target

// Run runs the suite.
func Run(t *testing.T, start Start) {
	t.Run("Budget", func(t *testing.T) { testBudget(t, start) })
	t.Run("Reserved", func(t *testing.T) { testReserved(t, start) })
	t.Run("SessionsHeld", func(t *testing.T) { testSessionsHeld(t, start) })
	t.Run("SlowClients", func(t *testing.T) { testSlowClients(t, start) })
	t.Run("Oversize", func(t *testing.T) { testOversize(t, start) })
	t.Run("Authentication", func(t *testing.T) { testAuthentication(t, start) })
	t.Run("TLSRequired", func(t *testing.T) { testTLSRequired(t, start) })
	t.Run("Statements", func(t *testing.T) { testStatements(t, start) })
	t.Run("NeverReads", func(t *testing.T) { testNeverReads(t, start) })
	t.Run("Descriptors", func(t *testing.T) { testDescriptors(t, start) })
}

const wait = 30 * time.Second // how long anything the suite waits for may take

// login logs in as the superuser, or probes a listener without roles.
func login(ctx context.Context, tg *Target, p Protocol) (Session, error) {
	if p.Login == nil {
		return nil, p.Probe(ctx)
	}
	return p.Login(ctx, tg.Superuser, tg.Password, tg.TLS)
}

// draw logs in to p as user and draws a value of "s".
func draw(ctx context.Context, p Protocol, user, password string, useTLS bool) error {
	s, err := p.Login(ctx, user, password, useTLS)
	if err == nil {
		_, err = s.Nextval(ctx, "s")
		s.Close()
	}
	return err
}

// serves checks that every listener serves the superuser, within wait
// (connections being closed may hold the budget a moment).
func serves(t *testing.T, tg *Target) {
	t.Helper()
	for _, p := range tg.Protocols {
		var err error
		for deadline := time.Now().Add(wait); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			var s Session
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			s, err = login(ctx, tg, p)
			if err == nil && s != nil {
				_, err = s.Nextval(ctx, "s")
				s.Close()
			}
			cancel()
			if err == nil {
				break
			}
		}
		if err != nil {
			t.Fatalf("%s does not serve: %v", p.Name, err)
		}
	}
	if err := tg.Stopped(); err != nil {
		t.Fatalf("the server stopped: %v", err)
	}
}

// dial opens a raw connection to p.
func dial(t *testing.T, p Protocol) net.Conn {
	t.Helper()
	nc, err := net.DialTimeout("tcp", p.Addr, 5*time.Second)
	if err != nil {
		t.Fatalf("%s: %v", p.Name, err)
	}
	t.Cleanup(func() { nc.Close() })
	return nc
}

// closedBy reports whether the server closes nc within d: what it sends
// first (a greeting, an error) is read past; a read that times out means
// the connection is still open.
func closedBy(nc net.Conn, d time.Duration) error {
	nc.SetReadDeadline(time.Now().Add(d))
	buf := make([]byte, 4096)
	for {
		_, err := nc.Read(buf)
		if err == nil {
			continue
		}
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return fmt.Errorf("still open after %v", d)
		}
		return nil // EOF, reset: closed
	}
}

// waitAdmitted waits until the shared budget counts n connections.
func waitAdmitted(t *testing.T, tg *Target, n int) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for tg.Admitted() != n {
		if time.Now().After(deadline) {
			t.Fatalf("the budget counts %d connections, want %d", tg.Admitted(), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// testBudget: every listener counts its connections in the shared
// budget from accept, before they send anything; when silent ones fill
// it, a client that authenticates still gets in (in the place of the
// oldest silent one), on every listener; and the silent ones are closed
// at the authentication timeout. A listener with a budget of its own is
// held to the same within it.
func testBudget(t *testing.T, start Start) {
	const max = 6
	tg := start(t, Options{MaxConns: max, ReservedConns: 2, AuthTimeout: 2 * time.Second})
	for _, flood := range tg.Protocols {
		t.Run(flood.Name, func(t *testing.T) {
			n := max
			if flood.OwnBudget > 0 {
				n = flood.OwnBudget
			}
			base := tg.Admitted()
			var silent []net.Conn
			for range n {
				silent = append(silent, dial(t, flood))
			}
			if flood.OwnBudget == 0 {
				waitAdmitted(t, tg, max)
			}
			// Every listener still serves the superuser.
			serves(t, tg)
			evicted := 0
			for _, nc := range silent {
				if closedBy(nc, 50*time.Millisecond) == nil {
					evicted++
				}
			}
			if flood.OwnBudget > 0 && evicted == 0 {
				t.Fatal("its own budget was full and a new connection evicted no silent one")
			}
			for _, nc := range silent {
				if err := closedBy(nc, 2*time.Second+wait); err != nil {
					t.Fatalf("a silent connection past the authentication timeout: %v", err)
				}
			}
			waitAdmitted(t, tg, base)
		})
	}
}

// testReserved: once ordinary sessions hold every slot but the reserved
// ones, every listener refuses the ordinary role in its protocol's words
// and serves the superuser.
func testReserved(t *testing.T, start Start) {
	const max, reserved = 6, 2
	tg := start(t, Options{MaxConns: max, ReservedConns: reserved, AuthTimeout: 10 * time.Second})
	ctx := context.Background()
	holder := tg.Protocols[0]
	for range max - reserved {
		s, err := holder.Login(ctx, "app", AppPassword, false)
		if err != nil {
			t.Fatalf("%s: app's session: %v", holder.Name, err)
		}
		t.Cleanup(func() { s.Close() })
	}
	for _, p := range tg.Protocols {
		if p.Login == nil {
			continue
		}
		if err := draw(ctx, p, "app", AppPassword, false); p.Kind(err) != TooMany {
			t.Errorf("%s: the ordinary role past the unreserved slots: %v, want too many connections", p.Name, err)
		}
		if err := draw(ctx, p, tg.Superuser, tg.Password, false); err != nil {
			t.Errorf("%s: the superuser in a reserved slot: %v", p.Name, err)
		}
	}
}

// testSessionsHeld: a session is out of reach of eviction from the
// moment its client is told it is in, on every listener whose sessions
// hold their connections. Once sessions fill the budget, a new
// connection is refused and every session still serves.
func testSessionsHeld(t *testing.T, start Start) {
	const max = 4
	tg := start(t, Options{MaxConns: max, ReservedConns: 1, AuthTimeout: 10 * time.Second})
	ctx := context.Background()
	for _, p := range tg.Protocols {
		if !p.Sessions {
			continue
		}
		t.Run(p.Name, func(t *testing.T) {
			base := tg.Admitted()
			var held []Session
			defer func() {
				for _, s := range held {
					s.Close()
				}
			}()
			for i := range max {
				s, err := p.Login(ctx, tg.Superuser, tg.Password, tg.TLS)
				if err != nil {
					t.Fatalf("session %d: %v", i+1, err)
				}
				held = append(held, s)
				// Told it is in: not one connection may be evicted now
				// (the others are sessions too).
				if n := tg.Evictable(); n != 0 {
					t.Fatalf("session %d is in and %d connections are evictable", i+1, n)
				}
			}
			// Refused at once: well before the authentication timeout
			// would close it had it been let in.
			if err := closedBy(dial(t, p), 3*time.Second); err != nil {
				t.Fatalf("a connection past a budget full of sessions: %v", err)
			}
			for i, s := range held {
				if _, err := s.Nextval(ctx, "s"); err != nil {
					t.Fatalf("session %d after a connection past the budget: %v", i+1, err)
				}
			}
			for _, s := range held {
				s.Close()
			}
			held = nil
			waitAdmitted(t, tg, base)
		})
	}
}

// testSlowClients: a client that sends its first message a byte at a
// time (slowloris), or connects and sends nothing, is closed at the
// authentication timeout on every listener; meanwhile the others serve.
func testSlowClients(t *testing.T, start Start) {
	const timeout = 2 * time.Second
	tg := start(t, Options{MaxConns: 50, AuthTimeout: timeout})
	for _, p := range tg.Protocols {
		t.Run(p.Name, func(t *testing.T) {
			nc := dial(t, p)
			done := make(chan struct{})
			go func() { // dribble, until the server closes
				defer close(done)
				for i := 0; ; i++ {
					b := []byte{0}
					if len(p.Hello) > 0 {
						b[0] = p.Hello[i%len(p.Hello)]
					}
					if _, err := nc.Write(b); err != nil {
						return
					}
					time.Sleep(100 * time.Millisecond)
				}
			}()
			if err := closedBy(nc, timeout+wait); err != nil {
				t.Fatalf("a client dribbling its first message: %v", err)
			}
			<-done
			serves(t, tg)
		})
	}
}

// testOversize: a message past a listener's bound is refused in its
// protocol's words, and the server serves every other client after.
func testOversize(t *testing.T, start Start) {
	tg := start(t, Options{MaxConns: 50})
	ctx := context.Background()
	for _, p := range tg.Protocols {
		if p.Login == nil {
			continue
		}
		t.Run(p.Name, func(t *testing.T) {
			other, err := p.Login(ctx, tg.Superuser, tg.Password, false)
			if err != nil {
				t.Fatal(err)
			}
			defer other.Close()
			s, err := p.Login(ctx, tg.Superuser, tg.Password, false)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if err := s.Oversize(ctx); p.Kind(err) != TooLarge {
				t.Fatalf("an oversized message: %v, want the protocol's too-large error", err)
			}
			if _, err := other.Nextval(ctx, "s"); err != nil {
				t.Fatalf("another session after an oversized message: %v", err)
			}
			serves(t, tg)
		})
	}
}

// testAuthentication: an unknown role, a role that may not log in and a
// wrong password get the same answer on every listener (but for the name
// the client gave), so that a client cannot tell which roles exist.
func testAuthentication(t *testing.T, start Start) {
	tg := start(t, Options{MaxConns: 50})
	ctx := context.Background()
	for _, p := range tg.Protocols {
		if p.Login == nil {
			continue
		}
		t.Run(p.Name, func(t *testing.T) {
			answer := func(user, password string) string {
				err := draw(ctx, p, user, password, false)
				if p.Kind(err) != AuthFailed {
					t.Fatalf("%s with password %q: %v, want an authentication failure", user, password, err)
				}
				return strings.ReplaceAll(err.Error(), user, "ROLE")
			}
			wrong := answer("app", "not-the-password")
			for _, user := range []string{"nobody", "nologin"} {
				if got := answer(user, AppPassword); got != wrong {
					t.Errorf("%s: %q\nwrong password: %q", user, got, wrong)
				}
			}
		})
	}
}

// testTLSRequired: where TLS is required, a client without it is refused
// before any authentication, even with the right password; with TLS it
// is served.
func testTLSRequired(t *testing.T, start Start) {
	tg := start(t, Options{MaxConns: 50, TLSRequired: true})
	ctx := context.Background()
	for _, p := range tg.Protocols {
		if p.Login == nil {
			continue
		}
		t.Run(p.Name, func(t *testing.T) {
			if draw(ctx, p, tg.Superuser, tg.Password, false) == nil {
				t.Fatal("served without TLS where TLS is required")
			}
			if err := draw(ctx, p, tg.Superuser, tg.Password, true); err != nil {
				t.Fatalf("with TLS: %v", err)
			}
		})
	}
}

// testStatements: statement_timeout ends a runaway statement, and so
// does the client's cancellation, on every protocol that runs
// statements; the session, or a new one, serves after.
func testStatements(t *testing.T, start Start) {
	tg := start(t, Options{MaxConns: 50, StatementTimeout: 300 * time.Millisecond})
	ctx := context.Background()
	for _, p := range tg.Protocols {
		if p.Login == nil {
			continue
		}
		t.Run(p.Name, func(t *testing.T) {
			s, err := p.Login(ctx, tg.Superuser, tg.Password, false)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			err = s.Slow(ctx)
			if errors.Is(err, ErrNoStatements) {
				t.Skipf("%s runs no statements of the client's", p.Name)
			}
			if p.Kind(err) != Canceled {
				t.Fatalf("a runaway statement under statement_timeout: %v", err)
			}
			if _, err := s.Nextval(ctx, "s"); err != nil {
				t.Fatalf("the session after its statement timed out: %v", err)
			}
			c, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
			err = s.Slow(c)
			cancel()
			if err == nil {
				t.Fatal("a cancelled statement succeeded")
			}
			serves(t, tg)
		})
	}
}

// stallMemory bounds what the server may keep for one connection whose
// peer reads none of its answers: its socket's buffers are the kernel's,
// and what it has made of an answer not yet written is one answer, or a
// few on a connection with streams.
const stallMemory = 8 << 20

// testNeverReads: on every listener, peers that send requests with the
// largest answers, pipelined or on as many streams as they may, and read
// none of them, cost the server a bounded memory each, leave the other
// clients served, and (where the listener has -idle-timeout) are closed
// at it; their places come back when they go.
func testNeverReads(t *testing.T, start Start) {
	const idle, stalls = 3 * time.Second, 3
	tg := start(t, Options{MaxConns: 100, TLS: true, IdleTimeout: idle})
	ctx := context.Background()
	base := tg.Admitted() // what each listener's case leaves, and the next starts from
	for _, p := range tg.Protocols {
		if p.Login == nil {
			continue
		}
		t.Run(p.Name, func(t *testing.T) {
			waitAdmitted(t, tg, base)
			heap := tg.HeapAlloc()
			var stalled []Stall
			defer func() {
				for _, s := range stalled {
					s.Close()
				}
			}()
			for range stalls {
				s, err := p.Unread(ctx, "app", AppPassword)
				if err != nil {
					t.Fatalf("a peer that never reads: %v", err)
				}
				stalled = append(stalled, s)
			}
			// Others are served meanwhile, and the server has made what
			// it will of the answers.
			for range 3 {
				if err := draw(ctx, p, tg.Superuser, tg.Password, true); err != nil {
					t.Fatalf("a client beside peers that never read: %v", err)
				}
				time.Sleep(300 * time.Millisecond)
			}
			if grown := int64(tg.HeapAlloc()) - int64(heap); grown > stalls*stallMemory {
				t.Errorf("%d peers that never read hold %d MiB of the server's heap, more than %d MiB each",
					stalls, grown>>20, stallMemory>>20)
			}
			if p.ClosesUnread {
				// The server closes them while they still read nothing:
				// their places come back. Only then does the test read
				// what they were sent, to the end: a peer that started
				// reading earlier would let the server go on with the
				// rest of its pipeline, which on a loaded machine takes
				// longer than any bound here.
				deadline := time.Now().Add(idle + wait)
				for tg.Admitted() > base {
					if time.Now().After(deadline) {
						t.Fatalf("peers that never read, past -idle-timeout: %d still open after %v", tg.Admitted()-base, idle+wait)
					}
					time.Sleep(10 * time.Millisecond)
				}
				for _, s := range stalled {
					if err := s.Closed(wait); err != nil {
						t.Fatalf("a peer that never reads, past -idle-timeout: %v", err)
					}
				}
			}
			for _, s := range stalled {
				s.Close()
			}
			stalled = nil
			waitAdmitted(t, tg, base)
			serves(t, tg)
		})
	}
}

// testDescriptors: the process runs out of file descriptors (its limit
// lowered, every listener flooded): no listener stops, the server does
// not stop, and every listener serves again once the flood ends.
func testDescriptors(t *testing.T, start Start) {
	tg := start(t, Options{MaxConns: 10000, AuthTimeout: time.Minute})
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	lowered := old
	lowered.Cur = uint64(len(entries) + 64)
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lowered); err != nil {
		t.Fatal(err)
	}
	restored := false
	restore := func() {
		if !restored {
			restored = true
			if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
				t.Errorf("restoring the descriptor limit: %v", err)
			}
		}
	}
	defer restore()
	var flood []net.Conn
	defer func() {
		for _, nc := range flood {
			nc.Close()
		}
	}()
	exhausted := false
	for round := 0; round < 3; round++ {
		for _, p := range tg.Protocols {
			for range 64 {
				nc, err := net.DialTimeout("tcp", p.Addr, time.Second)
				if err != nil {
					exhausted = exhausted || errors.Is(err, syscall.EMFILE)
					break
				}
				flood = append(flood, nc)
			}
		}
	}
	if !exhausted {
		t.Fatalf("%d connections did not exhaust a limit of %d descriptors", len(flood), lowered.Cur)
	}
	// Out of descriptors for a while: the store's directory watch (1 s)
	// looks several times.
	time.Sleep(3 * time.Second)
	if err := tg.Stopped(); err != nil {
		t.Fatalf("the server stopped while out of descriptors: %v", err)
	}
	for _, nc := range flood {
		nc.Close()
	}
	flood = nil
	restore()
	serves(t, tg)
}

// WaitParseRoom waits, up to 10 s, until a long statement would find the
// room long statements share (frontend.TakeParseRoom) taken, or free; a
// test's front end holds it, or gives it back, meanwhile.
func WaitParseRoom(t testing.TB, reg *frontend.Registry, taken bool) {
	t.Helper()
	for until := time.Now().Add(10 * time.Second); ; {
		ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
		release, err := reg.TakeParseRoom(ctx, frontend.LongStatement)
		cancel()
		if err == nil {
			release()
		}
		if (err != nil) == taken {
			return
		}
		if time.Now().After(until) {
			t.Fatalf("the room long statements share is not taken=%v after 10 s", taken)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
