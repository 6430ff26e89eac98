// Slow and lossy links between a node and etcd, on the run's proxies.

package torture

import (
	"time"

	"github.com/seqd/seqd/internal/localetcd"
)

// Links the nemeses set between the leader and etcd: a one-way delay of
// 150 ms (a round trip of 300 ms, against a lease of seconds), and 20 %
// of pieces lost. The proxies carry TCP, whose bytes are never lost but
// late: localetcd.Impairment plays loss as that lateness, which is what
// the node's etcd client sees of it.
var (
	slowLink  = localetcd.Impairment{Delay: 150 * time.Millisecond}
	lossyLink = localetcd.Impairment{Loss: 0.2}
)

// impair holds the calling pipe as the link would hold its next piece.
func (p *proxy) impair() {
	p.mu.Lock()
	l := p.link
	p.mu.Unlock()
	if wait := l.Hold(); wait > 0 {
		time.Sleep(wait)
	}
}

// setLink makes the proxy's link l (the zero impairment: a clean one).
func (p *proxy) setLink(l localetcd.Impairment) {
	p.mu.Lock()
	p.link = l
	p.mu.Unlock()
}

// retarget sends the proxy's new connections to target (an etcd member
// replaced on new ports), and closes its open ones.
func (p *proxy) retarget(target string) {
	p.mu.Lock()
	p.target = target
	p.mu.Unlock()
	p.heal()
}
