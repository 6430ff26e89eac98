package torture

import (
	"net"
	"sync"

	"github.com/seqd/seqd/internal/localetcd"
)

// A proxy stands between one seqd node and one etcd member, so that the
// clustered run can cut the node off from etcd while its clients still
// reach it. Cut partitions as a network does: connections stay open and
// whatever either side sends is dropped, so the node's etcd calls hang
// until their deadlines instead of failing at once; new connections are
// accepted and hang the same way. Heal closes every connection held
// through the cut (the node's client dials again) and forwards anew.
type proxy struct {
	ln     net.Listener
	target string
	scheme string // the endpoint's, for the URL the nodes are given

	mu    sync.Mutex
	cut   bool
	conns map[net.Conn]bool    // open connections, both sides
	link  localetcd.Impairment // slow or lossy link (clustered_links.go)
}

func newProxy(target string) (*proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &proxy{ln: ln, target: target, conns: map[net.Conn]bool{}}
	go p.serve()
	return p, nil
}

func (p *proxy) addr() string { return p.ln.Addr().String() }

func (p *proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return // closed
		}
		go p.handle(c)
	}
}

// track records c as open, for heal to close.
func (p *proxy) track(c net.Conn) {
	p.mu.Lock()
	p.conns[c] = true
	p.mu.Unlock()
}

func (p *proxy) untrack(c net.Conn) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
	c.Close()
}

func (p *proxy) handle(c net.Conn) {
	p.track(c)
	defer p.untrack(c)
	if p.isCut() {
		drain(c, nil, p) // held, as a partition holds it, until heal
		return
	}
	t, err := net.Dial("tcp", p.dialTarget())
	if err != nil {
		return
	}
	p.track(t)
	defer p.untrack(t)
	done := make(chan struct{})
	go func() { drain(t, c, p); close(done) }()
	drain(c, t, p)
	t.Close()
	<-done
}

// drain copies from src to dst while the proxy is not cut, and reads and
// drops while it is; dst nil drops everything. It returns when src fails
// (closed by either end, or by heal).
func drain(src, dst net.Conn, p *proxy) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 && dst != nil {
			p.impair()
		}
		if n > 0 && dst != nil && !p.isCut() {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				src.Close()
				return
			}
		}
		if err != nil {
			if dst != nil {
				dst.Close()
			}
			return
		}
	}
}

func (p *proxy) isCut() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cut
}

// dialTarget is where new connections go (retarget changes it).
func (p *proxy) dialTarget() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.target
}

// partition starts dropping everything.
func (p *proxy) partition() {
	p.mu.Lock()
	p.cut = true
	p.mu.Unlock()
}

// heal closes the connections held through the partition and forwards
// again.
func (p *proxy) heal() {
	p.mu.Lock()
	p.cut = false
	conns := p.conns
	p.conns = map[net.Conn]bool{}
	p.mu.Unlock()
	for c := range conns {
		c.Close()
	}
}

func (p *proxy) close() {
	p.ln.Close()
	p.heal()
}
