package localetcd

import (
	"bytes"
	"net"
	"net/textproto"
	"strings"
	"sync"
	"time"
)

// Proxy forwards TCP connections to one address, and cuts them as a
// network partition does: while cut, the bytes of a connection are held
// (neither forwarded nor refused, so its ends wait on their own
// deadlines), and once healed they flow on. It also slows them, or
// stalls them as loss does (Impairment), chunk by chunk in both
// directions. In front of an etcd member's
// peer port it tells the member each connection comes from (etcd's peers
// name themselves in the X-Server-From header of every request), so that
// the connections from one member alone can be cut. Safe for concurrent
// use.
type Proxy struct {
	ln     net.Listener
	target string
	peer   bool // connections carry etcd's peer requests

	mu      sync.Mutex
	cutAll  bool
	cutBack bool            // only what the target sends back is held
	cutFrom map[string]bool // member IDs (hex) whose connections are cut
	impair  Impairment      // of every connection
	// impairFrom impairs the connections of members (IDs in hex), in
	// place of impair.
	impairFrom map[string]Impairment
	changed    chan struct{} // closed when the cuts change
	conns      map[net.Conn]struct{}
	closed     bool
}

// NewProxy listens on a loopback port and forwards to target.
func NewProxy(target string) (*Proxy, error) { return newProxy(target, false) }

func newProxy(target string, peer bool) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{ln: ln, target: target, peer: peer, cutFrom: map[string]bool{}, changed: make(chan struct{}), conns: map[net.Conn]struct{}{}}
	go p.accept()
	return p, nil
}

// Addr is where the proxy listens (host:port).
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Cut holds every connection's bytes, and new connections'.
func (p *Proxy) Cut() { p.set(func() { p.cutAll = true }) }

// CutReplies holds what the target sends back, and lets requests
// through: a request is served, and its caller never hears of it.
func (p *Proxy) CutReplies() { p.set(func() { p.cutBack = true }) }

// Heal ends every cut: held bytes flow on.
func (p *Proxy) Heal() {
	p.set(func() { p.cutAll, p.cutBack, p.cutFrom = false, false, map[string]bool{} })
}

// Impair impairs every connection from now on (the zero Impairment
// ends it); chunks already read keep the hold they were given.
func (p *Proxy) Impair(imp Impairment) { p.set(func() { p.impair = imp }) }

// cutMember holds the bytes of the connections from the etcd member id
// (or ends that cut).
func (p *Proxy) cutMember(id string, cut bool) { p.set(func() { p.cutFrom[id] = cut }) }

// setCuts makes the proxy cut every connection (all), or those of the
// members in from, and no other, and impair those of the members in
// impair, and the others as unnamed says, as Cluster's cuts derive them.
func (p *Proxy) setCuts(all bool, from map[string]bool, impair map[string]Impairment, unnamed Impairment) {
	p.set(func() { p.cutAll, p.cutFrom, p.impairFrom, p.impair = all, from, impair, unnamed })
}

// impairment is how the connections from from are impaired.
func (p *Proxy) impairment(from string) Impairment {
	p.mu.Lock()
	defer p.mu.Unlock()
	if imp, ok := p.impairFrom[from]; ok {
		return imp
	}
	return p.impair
}

func (p *Proxy) set(change func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	change()
	close(p.changed)
	p.changed = make(chan struct{})
}

// Close stops the proxy and closes its connections.
func (p *Proxy) Close() {
	p.ln.Close()
	p.set(func() { p.closed = true })
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		c.Close()
	}
}

func (p *Proxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		go p.serve(c)
	}
}

// serve forwards one connection, both ways.
func (p *Proxy) serve(c net.Conn) {
	t, err := net.DialTimeout("tcp", p.target, 5*time.Second)
	if err != nil {
		c.Close()
		return
	}
	if !p.track(c, t) {
		return
	}
	var first []byte
	from := ""
	if p.peer {
		first, from = sender(c)
	}
	go p.pipe(t, c, from, false, first)
	p.pipe(c, t, from, true, nil)
}

// track records a connection's two ends, for Close; false if the proxy
// is closed (they are closed then).
func (p *Proxy) track(cs ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range cs {
		if p.closed {
			c.Close()
			continue
		}
		p.conns[c] = struct{}{}
	}
	return !p.closed
}

// chunk is a piece of a connection read, and when it may leave.
type chunk struct {
	data []byte
	due  time.Time
}

// pipe copies src to dst, first what was read from src already: each
// chunk leaves when its impairment lets it, in the order read, and is
// held while the connection is cut. It closes both when either ends.
func (p *Proxy) pipe(dst, src net.Conn, from string, back bool, first []byte) {
	defer func() {
		dst.Close()
		src.Close()
		p.mu.Lock()
		delete(p.conns, dst)
		delete(p.conns, src)
		p.mu.Unlock()
	}()
	chunks := make(chan chunk, 64)
	done := make(chan struct{})
	defer close(done)
	go p.read(src, from, first, chunks, done)
	for c := range chunks {
		time.Sleep(time.Until(c.due))
		if !p.wait(from, back) {
			return
		}
		if _, err := dst.Write(c.data); err != nil {
			return
		}
	}
}

// read reads src into chunks, each given the time it may leave, until src
// ends (chunks is closed then) or done is.
func (p *Proxy) read(src net.Conn, from string, first []byte, chunks chan<- chunk, done <-chan struct{}) {
	defer close(chunks)
	var last time.Time
	buf := make([]byte, 32<<10)
	piece := first
	for {
		if len(piece) > 0 {
			last = p.impairment(from).due(time.Now(), last)
			select {
			case chunks <- chunk{data: piece, due: last}:
			case <-done:
				return
			}
		}
		n, err := src.Read(buf)
		if err != nil && n == 0 {
			return
		}
		piece = append([]byte(nil), buf[:n]...) // the queue keeps it
	}
}

// wait returns once the connections from from are not cut, in the
// direction back says: true, or false if the proxy was closed.
func (p *Proxy) wait(from string, back bool) bool {
	for {
		p.mu.Lock()
		closed, cut, changed := p.closed, p.cutAll || p.cutFrom[from] || back && p.cutBack, p.changed
		p.mu.Unlock()
		if closed || !cut {
			return !closed
		}
		<-changed
	}
}

// sender reads the head of the first request on an etcd peer
// connection and returns what it read and the sending member's ID (""
// if the request does not name one: a lease renewal forwarded, a
// version check).
func sender(c net.Conn) ([]byte, string) {
	var head []byte
	buf := make([]byte, 4096)
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	defer c.SetReadDeadline(time.Time{})
	for len(head) < 64<<10 && !bytes.Contains(head, []byte("\r\n\r\n")) {
		n, err := c.Read(buf)
		head = append(head, buf[:n]...)
		if err != nil {
			break
		}
	}
	for _, line := range strings.Split(string(head), "\r\n") {
		name, value, ok := strings.Cut(line, ":")
		if ok && textproto.CanonicalMIMEHeaderKey(name) == "X-Server-From" {
			return head, strings.TrimSpace(value)
		}
		if line == "" {
			break
		}
	}
	return head, ""
}
